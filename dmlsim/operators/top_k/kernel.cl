/* TOP_K and TOP_K1: one work-item per input element j of a sequence (the elements along Axis): its rank is the
 * number of elements of its sequence that come before it in the order (BEFORE(a, b): a better than b, -DDECREASING
 * larger first, else smaller first; NaN above +inf; -0 equal to +0; ties by the lower index first); an element of
 * rank r < K is written to position r of both outputs (its value's bits moved, its index j). Ranks are a permutation,
 * so every output element is written once, by one work-item. Cost: sequence length per work-item.
 */
#include "typed.h"

#ifdef VALUE_FLOAT
#define IS_NAN(a) isnan(a)
#else
#define IS_NAN(a) false
#endif
/* a above b in value (NaN above everything but NaN) */
#define ABOVE(a, b) (IS_NAN(a) ? !IS_NAN(b) : (!IS_NAN(b) && (a) > (b)))
#define SAME(a, b) (IS_NAN(a) ? IS_NAN(b) : (a) == (b))
#ifdef DECREASING
#define BETTER(a, b) ABOVE(a, b)
#else
#define BETTER(a, b) ABOVE(b, a)
#endif

__kernel void top_k(TYPED_IN8(x), TYPED_OUT8(v), __global IDX_OUT_T *i__base, ulong i__offset, ulong8 i__strides,
                    ulong8 sizes, uint axis8, ulong x_axis_stride, uint sequence, uint k, uint n)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    COORDS8(c, gid, sizes)
    const uint j = c[axis8];
    const ulong at = OFFSET8(c, x__strides) - (ulong)j * x_axis_stride;  /* the sequence's first element */
    const ACC_T mine = LOAD_IN(TENSOR_PTR(x), at + (ulong)j * x_axis_stride);
    uint rank = 0;
    for (uint other = 0; other < sequence; ++other) {
        const ACC_T theirs = LOAD_IN(TENSOR_PTR(x), at + (ulong)other * x_axis_stride);
        if (BETTER(theirs, mine) || (other < j && SAME(theirs, mine)))
            ++rank;
    }
    if (rank >= k)
        return;
    c[axis8] = rank;
    /* the value moved bit for bit (BITS_T: the unsigned type of its size): a FLOAT16 NaN keeps its payload */
    ((__global BITS_T *)TENSOR_PTR(v))[OFFSET8(c, v__strides)] =
        ((__global const BITS_T *)TENSOR_PTR(x))[at + (ulong)j * x_axis_stride];
    (i__base + i__offset)[OFFSET8(c, i__strides)] = (IDX_OUT_T)j;
}
