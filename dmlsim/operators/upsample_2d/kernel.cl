/* DML_OPERATOR_UPSAMPLE_2D: one work-item per output element of a 4-D or 5-D tensor, seen as
 * {N, C, D, H, W} (ulong8 sizes and strides, .s3...s7; a 4-D tensor has D of size 1). Only H and W are
 * scaled, by the integers scale_h and scale_w.
 * -DLINEAR: bilinear over the 2 x 2 input elements around the pixel center (o + 0.5) / scale - 0.5,
 * clamped to the borders; that coordinate is computed exactly in integers, as the numerator
 * 2 * o + 1 - scale over the denominator 2 * scale. Otherwise nearest neighbor: input index o / scale.
 */
#include "dmlsim.h"

#define AT5(st, n, c, d, h, w) \
    ((ulong)(n) * (st).s3 + (ulong)(c) * (st).s4 + (ulong)(d) * (st).s5 + (ulong)(h) * (st).s6 + (ulong)(w) * (st).s7)

#ifdef LINEAR
/* The lower input index of output index o along one axis, and in *weight the weight of the next one. */
inline uint linear_source(uint o, uint scale, uint in_size, float *weight)
{
    const long numerator = 2 * (long)o + 1 - (long)scale;
    const long denominator = 2 * (long)scale;
    *weight = 0.0f;
    if (numerator <= 0)
        return 0;
    const uint low = (uint)(numerator / denominator);
    if (low >= in_size - 1)
        return in_size - 1;
    *weight = (float)(numerator % denominator) / (float)denominator;
    return low;
}
#endif

__kernel void upsample_2d(__global const store_t *x__base, ulong x__offset, ulong8 x_strides,
                          __global store_t *y__base, ulong y__offset, ulong8 y_strides, ulong8 y_sizes,
                          uint in_h, uint in_w, uint scale_h, uint scale_w, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    COORDS8(o, gid, y_sizes)  /* the 5-D output {N, C, D, H, W} sits in o[3..7] */
    const uint n = o[3], c = o[4], d = o[5], oh = o[6], ow = o[7];
    __global const store_t *x = x__base + x__offset;
#ifdef LINEAR
    float fh, fw;
    const uint h0 = linear_source(oh, scale_h, in_h, &fh);
    const uint w0 = linear_source(ow, scale_w, in_w, &fw);
    const uint h1 = min(h0 + 1, in_h - 1);
    const uint w1 = min(w0 + 1, in_w - 1);
    const float top = (1.0f - fw) * (float)LOAD(x, AT5(x_strides, n, c, d, h0, w0)) +
                      fw * (float)LOAD(x, AT5(x_strides, n, c, d, h0, w1));
    const float bottom = (1.0f - fw) * (float)LOAD(x, AT5(x_strides, n, c, d, h1, w0)) +
                         fw * (float)LOAD(x, AT5(x_strides, n, c, d, h1, w1));
    const float value = (1.0f - fh) * top + fh * bottom;
#else
    const float value = (float)LOAD(x, AT5(x_strides, n, c, d, oh / scale_h, ow / scale_w));
#endif
    STORE(value, y__base + y__offset, AT5(y_strides, n, c, d, oh, ow));
}
