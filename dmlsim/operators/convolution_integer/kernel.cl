/* DML_OPERATOR_CONVOLUTION_INTEGER and DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION: one work-item per output
 * element, forward cross-correlation. Every tensor is seen as 4-D {N, C, H, W} (a 1-D convolution has H of size
 * 1 and stride 0): sizes and DML strides arrive as ulong4 (.x .y .z .w = N, C, H, W); the per-spatial-dimension
 * attributes as ulong4 whose .z .w are H, W.
 *   -DX_T=<char|uchar> -DF_T=<char|uchar>   the input's and the filter's storage (their zero points' too)
 *   -DHAS_XZ -DHAS_FZ                       the zero points are present (else 0, never read)
 *   -DQLINEAR -DY_T=<char|uchar>            QUANTIZED_LINEAR_CONVOLUTION and its output type; -DHAS_BIAS -DHAS_YZ
 * The shifted products are exact in int and summed modulo 2^32 (uint), read as two's-complement INT32; a tap
 * over padding adds nothing. A per-channel filter zero point or scale is read at oc * its step (0: one value).
 * QLINEAR: the sum plus the bias (modulo 2^32), then float32: (float)S * (InputScale * FilterScale[oc]),
 * quantized by quantize.h (the quotient by OutputScale correctly rounded, half to even, + the zero point,
 * saturated; NaN gives 0).
 */
#ifdef QLINEAR
#define SATURATE_T Y_T
#endif
#include "quantize.h"

#define AT4(st, i0, i1, i2, i3) \
    ((ulong)(i0) * (st).x + (ulong)(i1) * (st).y + (ulong)(i2) * (st).z + (ulong)(i3) * (st).w)

/* The input index that filter tap k reads for output index o along one axis; -1 where it reads padding. */
inline long source_index(uint o, uint k, ulong stride, ulong dilation, ulong pad, ulong in_size)
{
    const long i = (long)(o * stride + k * dilation) - (long)pad;
    return (i >= 0 && i < (long)in_size) ? i : -1;
}

#ifdef QLINEAR
typedef Y_T y_t;
#else
typedef int y_t;
#endif

__kernel void convolution_integer(__global const X_T *x__base, ulong x__offset, ulong4 x_strides, ulong4 x_sizes,
                                  __global const X_T *xz__base, ulong xz__offset,
                                  __global const F_T *f__base, ulong f__offset, ulong4 f_strides, ulong4 f_sizes,
                                  __global const F_T *fz__base, ulong fz__offset, ulong fz_step,
#ifdef QLINEAR
                                  __global const float *xs__base, ulong xs__offset,
                                  __global const float *fs__base, ulong fs__offset, ulong fs_step,
                                  __global const int *bias__base, ulong bias__offset, ulong bias_step,
                                  __global const float *ys__base, ulong ys__offset,
                                  __global const Y_T *yz__base, ulong yz__offset,
#endif
                                  __global y_t *y__base, ulong y__offset, ulong4 y_strides, ulong4 y_sizes,
                                  ulong4 strides, ulong4 dilations, ulong4 start_padding, uint groups, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    const uint ow = gid % (uint)y_sizes.w, oh = (gid / (uint)y_sizes.w) % (uint)y_sizes.z;
    const uint oc = (gid / (uint)(y_sizes.w * y_sizes.z)) % (uint)y_sizes.y;
    const uint n = gid / (uint)(y_sizes.w * y_sizes.z * y_sizes.y);

    const uint cin_group = (uint)x_sizes.y / groups;
    const uint group = oc / ((uint)y_sizes.y / groups);
#ifdef HAS_XZ
    const int x_zero = (int)TENSOR_PTR(xz)[0];
#else
    const int x_zero = 0;
#endif
#ifdef HAS_FZ
    const int f_zero = (int)TENSOR_PTR(fz)[(ulong)oc * fz_step];
#else
    const int f_zero = 0;
#endif
    uint sum = 0;
    for (uint ic = 0; ic < cin_group; ++ic) {
        const uint c = group * cin_group + ic;
        for (uint kh = 0; kh < (uint)f_sizes.z; ++kh) {
            const long ih = source_index(oh, kh, strides.z, dilations.z, start_padding.z, x_sizes.z);
            if (ih < 0)
                continue;
            for (uint kw = 0; kw < (uint)f_sizes.w; ++kw) {
                const long iw = source_index(ow, kw, strides.w, dilations.w, start_padding.w, x_sizes.w);
                if (iw < 0)
                    continue;
                const int xv = (int)TENSOR_PTR(x)[AT4(x_strides, n, c, ih, iw)] - x_zero;
                const int fv = (int)TENSOR_PTR(f)[AT4(f_strides, oc, ic, kh, kw)] - f_zero;
                sum += (uint)(xv * fv);
            }
        }
    }
    const ulong at = AT4(y_strides, n, oc, oh, ow);
#ifdef QLINEAR
#ifdef HAS_BIAS
    sum += (uint)TENSOR_PTR(bias)[(ulong)oc * bias_step];
#endif
#ifdef HAS_YZ
    const float y_zero = (float)TENSOR_PTR(yz)[0];
#else
    const float y_zero = 0.0f;
#endif
    const float scale = TENSOR_PTR(xs)[0] * TENSOR_PTR(fs)[(ulong)oc * fs_step];
    TENSOR_PTR(y)[at] = saturate(quantize((float)as_int(sum) * scale, TENSOR_PTR(ys)[0], y_zero));
#else
    TENSOR_PTR(y)[at] = as_int(sum);
#endif
}
