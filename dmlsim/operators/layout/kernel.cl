/* PADDING, PADDING1 and TILE: one work-item per output element (row-major over `sizes`, up to 8-D). Along each
 * dimension k the output coordinate c[k] is shifted by the start padding, i = c[k] - starts[k], and mapped onto
 * the input's extent n = x_sizes[k] by the padding mode (a build define):
 *   MODE_CONSTANT   i itself; outside [0, n) the element is `value`
 *   MODE_EDGE       i clamped to [0, n - 1]
 *   MODE_REFLECTION period 2(n - 1), edges not repeated: m = i mod 2(n-1), m < n ? m : 2(n-1) - m  (n = 1: 0)
 *   MODE_SYMMETRIC  period 2n, edges repeated: m = i mod 2n, m < n ? m : 2n - 1 - m
 *   MODE_WRAP       i mod n (TILE is WRAP with no start padding)
 * Elements move as the unsigned integer of their width (every data type bit for bit, NaN payloads kept); the
 * constant arrives as those bits too (`value`, already in the output's data type).
 */
#include "typed.h"

inline long source_index(long i, long n)
{
#if defined(MODE_EDGE)
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
#elif defined(MODE_REFLECTION)
    if (n == 1)
        return 0;
    const long p = 2 * (n - 1);
    long m = i % p;
    if (m < 0)
        m += p;
    return m < n ? m : p - m;
#elif defined(MODE_SYMMETRIC)
    const long p = 2 * n;
    long m = i % p;
    if (m < 0)
        m += p;
    return m < n ? m : p - 1 - m;
#elif defined(MODE_WRAP)
    long m = i % n;
    if (m < 0)
        m += n;
    return m;
#else
    return i;
#endif
}

#define PAD_DIM_(k)                                                                 \
    {                                                                               \
        const long i = source_index((long)c[k] - (long)starts.s##k, (long)x_sizes.s##k); \
        outside |= (i < 0) | (i >= (long)x_sizes.s##k);                             \
        src += (ulong)i * x__strides.s##k;                                          \
    }

__kernel void pad(TYPED_IN8(x), TYPED_OUT8(y), ulong8 sizes, ulong8 x_sizes, ulong8 starts, ulong value, uint n)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    COORDS8(c, gid, sizes)
    ulong src = 0;
    int outside = 0;
    PAD_DIM_(0) PAD_DIM_(1) PAD_DIM_(2) PAD_DIM_(3) PAD_DIM_(4) PAD_DIM_(5) PAD_DIM_(6) PAD_DIM_(7)
    const ACC_T v = outside ? (ACC_T)value : LOAD_IN(TENSOR_PTR(x), src);
    STORE_OUT(v, TENSOR_PTR(y), OFFSET8(c, y__strides));
}

/* SPACE_TO_DEPTH(1) and DEPTH_TO_SPACE(1): a copy over an up-to-8-D index space (row-major over `sizes`) where
 * each index dimension has its own step in the input and in the output (element units):
 *   y[sum_d c[d] * y_steps[d]] = x[sum_d c[d] * x_steps[d]]
 * The plan views the 4-D tensors as 6-D {Batch, Channels, Height, BlockHeight, Width, BlockWidth}. */
__kernel void move(TYPED_IN(x), TYPED_OUT(y), ulong8 sizes, ulong8 x_steps, ulong8 y_steps, uint n)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    COORDS8(c, gid, sizes)
    STORE_OUT(LOAD_IN(TENSOR_PTR(x), OFFSET8(c, x_steps)), TENSOR_PTR(y), OFFSET8(c, y_steps));
}
