/* GATHER, GATHER_ELEMENTS, GATHER_ND and GATHER_ND1: one kernel, one work-item per output element (row-major over
 * the output's `sizes`, up to 8-D). Every member is the same addressing with different steps:
 *   x offset = sum_d c[d] * x_steps[d] + sum_{j < tuple_length} position(idx[i_at + j * i_tuple_step], j)
 *                                                                * tuple_steps.sj
 *   i_at     = sum_d c[d] * i_steps[d]
 * x_steps/i_steps put the input's/indices' element strides on the output dimensions that address them (0 on
 * the others); the index tuple (one index for GATHER and GATHER_ELEMENTS, the last dimension of IndicesTensor
 * for GATHER_ND/ND1) addresses the input dimensions whose sizes and strides are tuple_sizes/tuple_steps.
 * position(): a negative index of a signed type (-DIDX_SIGNED) counts from the end of its dimension; an index
 * still outside [0, size) is clamped into it (dmlsim's decision: reads never leave the input tensor). The
 * elements are moved bit for bit (IN_T = OUT_T, the unsigned type of the element size).
 */
#include "typed.h"

inline ulong index_position(IDX_T raw, ulong size)
{
#ifdef IDX_SIGNED
    long s = (long)raw;
    if (s < 0)
        s += (long)size;
    return s < 0 ? 0 : (ulong)s >= size ? size - 1 : (ulong)s;
#else
    const ulong u = (ulong)raw;
    return u >= size ? size - 1 : u;
#endif
}

#define TUPLE_STEP(k)                                                                                    \
    if (k < tuple_length)                                                                                \
        x_at += index_position(idx[i_at + (ulong)k * i_tuple_step], tuple_sizes.s##k) * tuple_steps.s##k;

__kernel void gather(TYPED_IN(x), __global const IDX_T *idx__base, ulong idx__offset, TYPED_OUT8(y),
                     ulong8 sizes, ulong8 x_steps, ulong8 i_steps, ulong8 tuple_sizes, ulong8 tuple_steps,
                     ulong i_tuple_step, uint tuple_length, uint n)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    COORDS8(c, gid, sizes)
    __global const IDX_T *idx = idx__base + idx__offset;
    ulong x_at = OFFSET8(c, x_steps);
    const ulong i_at = OFFSET8(c, i_steps);
    TUPLE_STEP(0) TUPLE_STEP(1) TUPLE_STEP(2) TUPLE_STEP(3) TUPLE_STEP(4) TUPLE_STEP(5) TUPLE_STEP(6) TUPLE_STEP(7)
    STORE_OUT(LOAD_IN(TENSOR_PTR(x), x_at), TENSOR_PTR(y), OFFSET8(c, y__strides));
}
