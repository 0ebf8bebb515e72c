/* SOFTMAX, LOG_SOFTMAX and HARDMAX (and their "1" versions) along any set of axes, naively: one
 * work-item per group of reduced elements. The host splits the dimensions into outer (kept) and inner
 * (reduced, ascending) index spaces of up to 8 dimensions each, with both tensors' strides for each.
 * Per group: the maximum (and for HARDMAX its first position in row-major order over the reduced axes),
 * then sum(exp(x - max)), then each output. Computed in float (FLOAT16 is storage only). A NaN is taken
 * over every number and the first NaN kept (HARDMAX marks the first NaN, as ARGMAX chooses it: README
 * "Decisions"), wherever it stands.
 * -DAXES_SOFTMAX / -DAXES_LOG_SOFTMAX / -DAXES_HARDMAX select the function.
 */
#include "dmlsim.h"

__kernel void activation_axes(TENSOR_IN8(x), TENSOR_OUT8(y),
                              ulong8 outer_sizes, ulong8 outer_x, ulong8 outer_y,
                              ulong8 inner_sizes, ulong8 inner_x, ulong8 inner_y,
                              uint outer_count, uint inner_count)
{
    const uint gid = get_global_id(0);
    if (gid >= outer_count)
        return;
    COORDS8(o, gid, outer_sizes)
    const ulong x0 = OFFSET8(o, outer_x);
    const ulong y0 = OFFSET8(o, outer_y);
    __global const store_t *xp = TENSOR_PTR(x);
    __global store_t *yp = TENSOR_PTR(y);

    float m = -INFINITY;
    uint first = 0;
    for (uint j = 0; j < inner_count; ++j) {
        COORDS8(c, j, inner_sizes)
        const float v = LOAD(xp, x0 + OFFSET8(c, inner_x));
        if (j == 0 || v > m || (isnan(v) && !isnan(m))) {
            m = v;
            first = j;
        }
    }
#ifndef AXES_HARDMAX
    float sum = 0.0f;
    for (uint j = 0; j < inner_count; ++j) {
        COORDS8(c, j, inner_sizes)
        sum += exp(LOAD(xp, x0 + OFFSET8(c, inner_x)) - m);
    }
#endif
    for (uint j = 0; j < inner_count; ++j) {
        COORDS8(c, j, inner_sizes)
#if defined(AXES_SOFTMAX)
        const float r = exp(LOAD(xp, x0 + OFFSET8(c, inner_x)) - m) / sum;
#elif defined(AXES_LOG_SOFTMAX)
        const float r = (LOAD(xp, x0 + OFFSET8(c, inner_x)) - m) - log(sum);
#elif defined(AXES_HARDMAX)
        const float r = j == first ? 1.0f : 0.0f;
#else
#error "no function selected (-DAXES_SOFTMAX, -DAXES_LOG_SOFTMAX or -DAXES_HARDMAX)"
#endif
        STORE(r, yp, y0 + OFFSET8(c, inner_y));
    }
}
