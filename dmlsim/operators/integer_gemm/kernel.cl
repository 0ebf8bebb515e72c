/* DML_OPERATOR_MATRIX_MULTIPLY_INTEGER, _MATRIX_MULTIPLY_INTEGER_TO_FLOAT and _QUANTIZED_LINEAR_MATRIX_MULTIPLY:
 * one work-item per output element [b, c, m, n]; A, B, Output (and the bias) of 2 to 4 dimensions padded at the
 * front to 4 (sizes 1, strides 0), any DML strides (stride 0 broadcasts). A zero point or scale of A (or of the
 * output) is read at index m, one of B at index n, times its step: the stride of the dimension holding its M
 * (N) values, 0 for a per-tensor one.
 *   -DA_T=<type> -DB_T=<type>   A's and B's storage (each zero point has its tensor's type)
 *   -DHAS_A_ZP / -DHAS_B_ZP / -DHAS_Y_ZP / -DHAS_BIAS   that optional tensor is bound (else 0; never read)
 *   -DFLOAT_HALF                TO_FLOAT: FLOAT16 scales, bias and output (vload_half/vstore_half_rte)
 *   -DSATURATE_T=<char|uchar>   QUANTIZED_LINEAR_MATRIX_MULTIPLY's output storage (quantize.h's saturate)
 * Integer sums: each difference and product of 8-bit values is exact in int; the sum is accumulated in uint so
 * that it wraps modulo 2^32 (signed overflow is undefined in OpenCL C) and read as the INT32 of the same bits.
 * TO_FLOAT: each element dequantized in float32 ((float)(x - zero point), exact in long first, times the scale),
 * products summed in float32 in order k = 0..K-1, the bias added, stored (FLOAT16 rounded once to nearest even).
 * QUANTIZED_LINEAR_MATRIX_MULTIPLY: the INT32 integer sum converted once to float32 (nearest even), times
 * AScale[m] * BScale[n] (one float32 product, then another), quantized as QUANTIZE_LINEAR quantizes
 * (quantize.h: the quotient by OutputScale[m] rounded once, half to even, plus OutputZeroPoint[m], saturated).
 */
#define DMLSIM_CUSTOM_STORAGE
#include "dmlsim.h"
#include "quantize.h"

/* Element offset of [batch, channel, row, column] through 4-D strides. */
#define AT4(st, batch, channel, row, col) \
    ((batch) * (st).x + (channel) * (st).y + (ulong)(row) * (st).z + (ulong)(col) * (st).w)
#define ZP_IN(T, name) __global const T *name##__base, ulong name##__offset, ulong name##_step
#define ZP_AT(name, i) (TENSOR_PTR(name)[(ulong)(i) * name##_step])
#define MATRIX_IN(T, name) __global const T *name##__base, ulong name##__offset, ulong4 name##__strides

/* The output coordinates of work-item gid: col, row, channel, batch. */
#define OUTPUT_COORDS                                 \
    const uint col = gid % (uint)sizes.w;             \
    uint rest = gid / (uint)sizes.w;                  \
    const uint row = rest % (uint)sizes.z;            \
    rest /= (uint)sizes.z;                            \
    const ulong channel = rest % (uint)sizes.y;       \
    const ulong batch = rest / (uint)sizes.y;         \
    __global const A_T *a_row = TENSOR_PTR(a) + AT4(a__strides, batch, channel, row, 0); \
    __global const B_T *b_col = TENSOR_PTR(b) + AT4(b__strides, batch, channel, 0, col);

/* sum_k (a_row[k] - a_zero) * (b_col[k] - b_zero) of 8-bit values, modulo 2^32, as INT32. */
inline int integer_dot(__global const A_T *a_row, ulong a_step, int a_zero, __global const B_T *b_col, ulong b_step,
                       int b_zero, uint K)
{
    uint sum = 0u;
    for (uint k = 0; k < K; ++k)
        sum += (uint)(((int)a_row[(ulong)k * a_step] - a_zero) * ((int)b_col[(ulong)k * b_step] - b_zero));
    return as_int(sum);
}

#ifdef HAS_A_ZP
#define A_ZERO(T, i) ((T)ZP_AT(az, i))
#else
#define A_ZERO(T, i) ((T)0)
#endif
#ifdef HAS_B_ZP
#define B_ZERO(T, i) ((T)ZP_AT(bz, i))
#else
#define B_ZERO(T, i) ((T)0)
#endif

#ifdef MATMUL_INTEGER
__kernel void matrix_multiply_integer(MATRIX_IN(A_T, a), ZP_IN(A_T, az), MATRIX_IN(B_T, b), ZP_IN(B_T, bz),
                                      __global int *y__base, ulong y__offset, ulong4 y__strides,
                                      ulong4 sizes, uint K, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    OUTPUT_COORDS
    const int sum = integer_dot(a_row, a__strides.w, A_ZERO(int, row), b_col, b__strides.z, B_ZERO(int, col), K);
    TENSOR_PTR(y)[AT4(y__strides, batch, channel, row, col)] = sum;
}
#endif

#ifdef MATMUL_TO_FLOAT
#ifdef FLOAT_HALF
typedef half fstore_t;
#define LOAD_F(p, i) vload_half((i), (p))
#define STORE_F(x, p, i) vstore_half_rte((x), (i), (p))
#else
typedef float fstore_t;
#define LOAD_F(p, i) ((p)[i])
#define STORE_F(x, p, i) ((p)[i] = (x))
#endif
__kernel void matrix_multiply_integer_to_float(MATRIX_IN(A_T, a), ZP_IN(fstore_t, as), ZP_IN(A_T, az),
                                               MATRIX_IN(B_T, b), ZP_IN(fstore_t, bs), ZP_IN(B_T, bz),
                                               MATRIX_IN(fstore_t, c), __global fstore_t *y__base, ulong y__offset,
                                               ulong4 y__strides, ulong4 sizes, uint K, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    OUTPUT_COORDS
    const long a_zero = A_ZERO(long, row), b_zero = B_ZERO(long, col);
    const float a_scale = (float)LOAD_F(TENSOR_PTR(as), (ulong)row * as_step);
    const float b_scale = (float)LOAD_F(TENSOR_PTR(bs), (ulong)col * bs_step);
    float sum = 0.0f;
    for (uint k = 0; k < K; ++k) {
        const float real_a = (float)((long)a_row[(ulong)k * a__strides.w] - a_zero) * a_scale;
        const float real_b = (float)((long)b_col[(ulong)k * b__strides.z] - b_zero) * b_scale;
        sum += real_a * real_b;
    }
#ifdef HAS_BIAS
    sum += (float)LOAD_F(TENSOR_PTR(c), AT4(c__strides, batch, channel, row, col));
#endif
    STORE_F(sum, TENSOR_PTR(y), AT4(y__strides, batch, channel, row, col));
}
#endif

#ifdef QLINEAR_MATMUL
__kernel void quantized_linear_matrix_multiply(MATRIX_IN(A_T, a), ZP_IN(float, as), ZP_IN(A_T, az),
                                               MATRIX_IN(B_T, b), ZP_IN(float, bs), ZP_IN(B_T, bz),
                                               ZP_IN(float, ys), ZP_IN(SATURATE_T, yz),
                                               __global SATURATE_T *y__base, ulong y__offset, ulong4 y__strides,
                                               ulong4 sizes, uint K, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    OUTPUT_COORDS
    const int sum = integer_dot(a_row, a__strides.w, A_ZERO(int, row), b_col, b__strides.z, B_ZERO(int, col), K);
    const float scale = ZP_AT(as, row) * ZP_AT(bs, col);
#ifdef HAS_Y_ZP
    const float y_zero = (float)ZP_AT(yz, row);
#else
    const float y_zero = 0.0f;
#endif
    const float q = quantize((float)sum * scale, ZP_AT(ys, row), y_zero);
    TENSOR_PTR(y)[AT4(y__strides, batch, channel, row, col)] = saturate(q);
}
#endif
