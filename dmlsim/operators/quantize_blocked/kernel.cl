/* DML_OPERATOR_QUANTIZE and DML_OPERATOR_DEQUANTIZE (feature level 6_3): one work-item per output element of up
 * to 8 dimensions (sizes: the input's, padded with 1 at the front). The scale (s) and zero point (z) are
 * addressed at the block coordinates q[k] = c[k] / blocks.sk (blocks: input size / its size per
 * dimension, 1 at the front), each through its own 8-D strides (a stride of 0 broadcasts as well).
 *   typed.h's IN_T/OUT_T: the input and output storage types
 *   -DSCALE_HALF  FLOAT16 scales (vload_half), else FLOAT32
 *   -DZP_T=<type> the zero point's storage type (QUANTIZE: the output's; DEQUANTIZE: the input's)
 *   -DNO_ZP       DML_QUANTIZATION_TYPE_SCALE: no zero point (0; z is a null buffer, never read)
 *   -DNIBBLES     the integer side is INT4/UINT4 (-DNIBBLE_SIGNED: INT4): the integer tensor and the zero point
 *                 are uchar buffers holding two elements per byte, element n in the low nibble of byte n / 2
 *                 when n is even, the high nibble when odd (offsets and strides in elements, i.e. nibbles);
 *                 QUANTIZE saturates to [Q_MIN, Q_MAX] and writes its nibble with two 32-bit atomics on the
 *                 word holding it (its 4 bits cleared, then set): other work-items' nibbles of that byte and
 *                 every nibble that is no output element keep their bits, whatever the strides
 * QUANTIZE: float32, x / scale correctly rounded (quantize.h's divide_rn), rounded half to even, the zero point
 * added, saturated (NaN gives 0). DEQUANTIZE: (x - zero point) exact in long, converted to float and
 * multiplied by the scale in float32, stored once rounded (FLOAT16: vstore_half_rte).
 */
#include "typed.h"
#if defined(QUANTIZE) && !defined(NIBBLES)
#define SATURATE_T OUT_T
#endif
#include "quantize.h"

#ifdef NIBBLES
/* Element n (a nibble number from the buffer's start) of a 4-bit tensor, sign-extended for INT4. */
inline long load_nibble(__global const uchar *base, ulong n)
{
    const uint bits = (base[n >> 1] >> ((uint)(n & 1) * 4)) & 15u;
#ifdef NIBBLE_SIGNED
    return (long)((int)(bits ^ 8u) - 8);
#else
    return (long)bits;
#endif
}

/* Writes the low 4 bits of value as element n: the 32-bit word holding that nibble (the buffer's start is
 * aligned) gets its 4 bits cleared, then set, each atomically; no other bit of the word changes. */
inline void store_nibble(__global uchar *base, ulong n, uint value)
{
    volatile __global uint *word = (volatile __global uint *)base + (n >> 3);
    const uint shift = (uint)(n & 7) * 4; /* little-endian: byte (n >> 1) & 3 of the word, nibble n & 1 */
    atomic_and(word, ~(15u << shift));
    atomic_or(word, (value & 15u) << shift);
}

/* q saturated to [Q_MIN, Q_MAX]; NaN gives 0. */
inline int saturate_nibble(float q)
{
    return isnan(q) ? 0 : (int)clamp(q, Q_MIN, Q_MAX);
}
#endif

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
#if defined(NO_ZP)
    const long zero_point = 0;
#elif defined(NIBBLES)
    const long zero_point = load_nibble(z__base, z__offset + OFFSET8(q, z__strides));
#else
    const long zero_point = (long)TENSOR_PTR(z)[OFFSET8(q, z__strides)];
#endif
#if defined(QUANTIZE) && defined(NIBBLES)
    const float value = (float)LOAD_IN(TENSOR_PTR(x), OFFSET8(c, x__strides));
    store_nibble(y__base, y__offset + OFFSET8(c, y__strides),
                 (uint)saturate_nibble(quantize(value, scale, (float)zero_point)));
#elif defined(QUANTIZE)
    const float value = (float)LOAD_IN(TENSOR_PTR(x), OFFSET8(c, x__strides));
    STORE_OUT(saturate(quantize(value, scale, (float)zero_point)), TENSOR_PTR(y), OFFSET8(c, y__strides));
#else
#ifdef NIBBLES
    const long shift = load_nibble(x__base, x__offset + OFFSET8(c, x__strides)) - zero_point;
#else
    const long shift = (long)TENSOR_PTR(x)[OFFSET8(c, x__strides)] - zero_point;
#endif
    STORE_OUT((float)shift * scale, TENSOR_PTR(y), OFFSET8(c, y__strides));
#endif
}
