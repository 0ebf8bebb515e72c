/* DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR, _QUANTIZE_LINEAR and _QUANTIZED_LINEAR_ADD: one work-item
 * per output element of up to 8 dimensions (sizes: the output's, padded with 1 at the front); every
 * tensor is addressed through its own 8-D strides, 0 where it is broadcast.
 *   typed.h's IN_T/OUT_T: the input (ATensor) and output storage types
 *   -DSCALE_HALF        FLOAT16 scales (vload_half), else FLOAT32
 *   -DZP_T=<type>       the zero point's storage type (DEQUANTIZE: the input's; QUANTIZE: the output's)
 *   -DB_T=<type>        QUANTIZED_LINEAR_ADD: BTensor's storage type (its zero point's too)
 *   -DNO_ZP, -DNO_A_ZP, -DNO_B_ZP, -DNO_OUT_ZP: that optional zero point is null (0; never read)
 * Arithmetic is float32 (integers are subtracted exactly first); quantizing divides with divide_rn
 * (correctly rounded), rounds half to even (rint) and saturates to the output type (saturate: NaN gives 0).
 */
#include "typed.h"
#if defined(QUANTIZE) || defined(QUANTIZED_ADD)
#define SATURATE_T OUT_T
#endif
#include "quantize.h"

#ifdef SCALE_HALF
typedef half scale_t;
#define LOAD_SCALE(p, i) vload_half((i), (p))
#else
typedef float scale_t;
#define LOAD_SCALE(p, i) ((p)[i])
#endif

#define STRIDED_IN(T, name) __global const T *name##__base, ulong name##__offset, ulong8 name##__strides
#define AT(name, c) (TENSOR_PTR(name)[OFFSET8(c, name##__strides)])
#define SCALE_AT(name, c) ((float)LOAD_SCALE(TENSOR_PTR(name), OFFSET8(c, name##__strides)))
#ifdef DEQUANTIZE
__kernel void dequantize_linear(TYPED_IN8(x), STRIDED_IN(scale_t, s), STRIDED_IN(ZP_T, z), TYPED_OUT8(y),
                                ulong8 sizes, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    COORDS8(c, gid, sizes)
#ifdef NO_ZP
    const long shift = (long)AT(x, c);
#else
    const long shift = (long)AT(x, c) - (long)AT(z, c);
#endif
    STORE_OUT((float)shift * SCALE_AT(s, c), TENSOR_PTR(y), OFFSET8(c, y__strides));
}
#endif

#ifdef QUANTIZE
__kernel void quantize_linear(TYPED_IN8(x), STRIDED_IN(scale_t, s), STRIDED_IN(ZP_T, z), TYPED_OUT8(y),
                              ulong8 sizes, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    COORDS8(c, gid, sizes)
#ifdef NO_ZP
    const float zero_point = 0.0f;
#else
    const float zero_point = (float)AT(z, c);
#endif
    const float q = quantize((float)LOAD_IN(TENSOR_PTR(x), OFFSET8(c, x__strides)), SCALE_AT(s, c), zero_point);
    STORE_OUT(saturate(q), TENSOR_PTR(y), OFFSET8(c, y__strides));
}
#endif

#ifdef QUANTIZED_ADD
__kernel void quantized_linear_add(TYPED_IN8(a), STRIDED_IN(float, as), STRIDED_IN(IN_T, az),
                                   STRIDED_IN(B_T, b), STRIDED_IN(float, bs), STRIDED_IN(B_T, bz),
                                   STRIDED_IN(float, ys), STRIDED_IN(OUT_T, yz), TYPED_OUT8(y),
                                   ulong8 sizes, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    COORDS8(c, gid, sizes)
    int a_shift = (int)AT(a, c), b_shift = (int)AT(b, c);
    float zero_point = 0.0f;
#ifndef NO_A_ZP
    a_shift -= (int)AT(az, c);
#endif
#ifndef NO_B_ZP
    b_shift -= (int)AT(bz, c);
#endif
#ifndef NO_OUT_ZP
    zero_point = (float)AT(yz, c);
#endif
    const float sum = (float)a_shift * SCALE_AT(as, c) + (float)b_shift * SCALE_AT(bs, c);
    STORE_OUT(saturate(quantize(sum, SCALE_AT(ys, c), zero_point)), TENSOR_PTR(y), OFFSET8(c, y__strides));
}
#endif
