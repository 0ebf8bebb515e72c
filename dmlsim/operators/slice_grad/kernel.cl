/* SLICE_GRAD: one work-item per OutputGradientTensor element (row-major over `sizes`, padded at the front to 8-D).
 * SLICE1's window reads input coordinate starts[k] + steps[k] * c along dimension k for InputGradient (the slice's
 * output) coordinate c, 0 <= c < dy_sizes[k]; here each output coordinate o takes the gradient element that slice
 * read from it, if any:
 *   t = o - starts[k];  q = t / steps[k];  hit along k iff q * steps[k] == t and 0 <= q < dy_sizes[k]
 *   OutputGradientTensor[o] = hit along every k ? InputGradientTensor[q] : 0
 * steps are never 0 (the page); a gather, so no two work-items write one element. Elements move as the unsigned
 * integer of their width (bit for bit). starts/steps arrive as ulong8 holding two's-complement longs.
 */
#include "typed.h"

#define GRAD_DIM_(k)                                                                \
    {                                                                               \
        const long t = (long)c[k] - (long)starts.s##k;                              \
        const long s = (long)steps.s##k;                                            \
        const long q = t / s;                                                       \
        hit &= (q * s == t) & (q >= 0) & (q < (long)dy_sizes.s##k);                 \
        src += (ulong)q * dy__strides.s##k;                                         \
    }

__kernel void slice_grad(TYPED_IN8(dy), TYPED_OUT8(dx), ulong8 sizes, ulong8 starts, ulong8 steps, ulong8 dy_sizes,
                         uint n)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    COORDS8(c, gid, sizes)
    ulong src = 0;
    int hit = 1;
    GRAD_DIM_(0) GRAD_DIM_(1) GRAD_DIM_(2) GRAD_DIM_(3) GRAD_DIM_(4) GRAD_DIM_(5) GRAD_DIM_(6) GRAD_DIM_(7)
    ACC_T v = (ACC_T)0;
    if (hit)
        v = LOAD_IN(TENSOR_PTR(dy), src);
    STORE_OUT(v, TENSOR_PTR(dx), OFFSET8(c, dx__strides));
}
