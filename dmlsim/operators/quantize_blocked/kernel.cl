/* DML_OPERATOR_QUANTIZE and DML_OPERATOR_DEQUANTIZE (feature level 6_3): one work-item per output element of up
 * to 8 dimensions (sizes: the input's, padded with 1 at the front). The scale (s) and zero point (z) are
 * addressed at the block coordinates q[k] = c[k] / blocks.sk (blocks: input size / its size per
 * dimension, 1 at the front), each through its own 8-D strides (a stride of 0 broadcasts as well).
 *   typed.h's IN_T/OUT_T: the input and output storage types
 *   -DSCALE_HALF  FLOAT16 scales (vload_half), else FLOAT32
 *   -DZP_T=<type> the zero point's storage type (QUANTIZE: the output's; DEQUANTIZE: the input's)
 *   -DNO_ZP       DML_QUANTIZATION_TYPE_SCALE: no zero point (0; z is a null buffer, never read)
 * QUANTIZE: float32, x / scale correctly rounded (quantize.h's divide_rn), rounded half to even, the zero point
 * added, saturated (NaN gives 0). DEQUANTIZE: (x - zero point) exact in long, converted to float and
 * multiplied by the scale in float32, stored once rounded (FLOAT16: vstore_half_rte).
 */
#include "typed.h"
#ifdef QUANTIZE
#define SATURATE_T OUT_T
#endif
#include "quantize.h"

#ifdef SCALE_HALF
typedef half scale_t;
#define LOAD_SCALE(p, i) ((float)vload_half((i), (p)))
#else
typedef float scale_t;
#define LOAD_SCALE(p, i) ((p)[i])
#endif

#define BLOCKS8(q, c, blocks)                                                          \
    uint q[8];                                                                         \
    q[0] = c[0] / (uint)(blocks).s0; q[1] = c[1] / (uint)(blocks).s1;                  \
    q[2] = c[2] / (uint)(blocks).s2; q[3] = c[3] / (uint)(blocks).s3;                  \
    q[4] = c[4] / (uint)(blocks).s4; q[5] = c[5] / (uint)(blocks).s5;                  \
    q[6] = c[6] / (uint)(blocks).s6; q[7] = c[7] / (uint)(blocks).s7;

__kernel void quantize_blocked(TYPED_IN8(x), __global const scale_t *s__base, ulong s__offset, ulong8 s__strides,
                               __global const ZP_T *z__base, ulong z__offset, ulong8 z__strides, ulong8 blocks,
                               TYPED_OUT8(y), ulong8 sizes, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    COORDS8(c, gid, sizes)
    BLOCKS8(q, c, blocks)
    const float scale = LOAD_SCALE(TENSOR_PTR(s), OFFSET8(q, s__strides));
#ifdef NO_ZP
    const long zero_point = 0;
#else
    const long zero_point = (long)TENSOR_PTR(z)[OFFSET8(q, z__strides)];
#endif
#ifdef QUANTIZE
    const float value = (float)LOAD_IN(TENSOR_PTR(x), OFFSET8(c, x__strides));
    STORE_OUT(saturate(quantize(value, scale, (float)zero_point)), TENSOR_PTR(y), OFFSET8(c, y__strides));
#else
    const long shift = (long)TENSOR_PTR(x)[OFFSET8(c, x__strides)] - zero_point;
    STORE_OUT((float)shift * scale, TENSOR_PTR(y), OFFSET8(c, y__strides));
#endif
}
