#include "typed.h"
/* SCATTER_ELEMENTS and SCATTER_ND: one work-item per output element, which looks for the last update that
 * targets it (row-major order of the updates: "last write wins", the pages' examples; deterministic on every
 * device, no atomics, every input read before the element is written) and otherwise copies the input element.
 * The candidate updates of an output element c are the t_count elements of the grid t_sizes (SCATTER_ELEMENTS:
 * the line along Axis; SCATTER_ND: every index tuple), at indices offset i_base + t . t_i_steps and updates
 * offset u_base + t . t_u_steps; a candidate matches when each component j of its index tuple, as a position
 * (index_position_or_none: negative wrapped, out of range never matches: such an update is dropped), equals
 * c[tuple_dims.sj].
 */
inline long index_position_or_none(IDX_T raw, ulong size)
{
#ifdef IDX_SIGNED
    long s = (long)raw;
    if (s < 0)
        s += (long)size;
    return s < 0 || (ulong)s >= size ? -1 : s;
#else
    const ulong v = (ulong)raw;
    return v >= size ? -1 : (long)v;
#endif
}

#define MATCH_STEP(k)                                                                                         \
    if (k < tuple_length && match)                                                                            \
        match = index_position_or_none(idx[i_at + (ulong)k * i_tuple_step], tuple_sizes.s##k) ==             \
                (long)c[tuple_dims.s##k];

__kernel void scatter(TYPED_IN8(x), __global const IDX_T *idx__base, ulong idx__offset, TYPED_IN(u), TYPED_OUT8(y),
                      ulong8 sizes, ulong8 i_steps, ulong8 u_steps, ulong8 t_sizes, ulong8 t_i_steps,
                      ulong8 t_u_steps, uint t_count, ulong8 tuple_sizes, ulong8 tuple_dims, ulong i_tuple_step,
                      uint tuple_length, uint n)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    COORDS8(c, gid, sizes)
    __global const IDX_T *idx = idx__base + idx__offset;
    const ulong i_base = OFFSET8(c, i_steps), u_base = OFFSET8(c, u_steps);
    ACC_T value = LOAD_IN(TENSOR_PTR(x), OFFSET8(c, x__strides));
    for (uint t = t_count; t-- > 0;) {
        COORDS8(tc, t, t_sizes)
        const ulong i_at = i_base + OFFSET8(tc, t_i_steps);
        bool match = true;
        MATCH_STEP(0) MATCH_STEP(1) MATCH_STEP(2) MATCH_STEP(3) MATCH_STEP(4) MATCH_STEP(5) MATCH_STEP(6) MATCH_STEP(7)
        if (match) {
            value = LOAD_IN(TENSOR_PTR(u), u_base + OFFSET8(tc, t_u_steps));
            break;
        }
    }
    STORE_OUT(value, TENSOR_PTR(y), OFFSET8(c, y__strides));
}

/* ONE_HOT: one work-item per output element c: OnValue (the values tensor's element at on_at, its second in
 * row-major order) where the sequence's index, as a position along Axis (negative wrapped, out of range: no
 * position), equals c[axis8] (Axis in the 8-D padded coordinates), else OffValue (the values' first element). */
__kernel void one_hot(__global const IDX_T *idx__base, ulong idx__offset, TYPED_IN(v), TYPED_OUT8(y), ulong8 sizes,
                      ulong8 i_steps, ulong on_at, ulong axis_size, uint axis8, uint n)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    COORDS8(c, gid, sizes)
    __global const IDX_T *idx = idx__base + idx__offset;
    const long position = index_position_or_none(idx[OFFSET8(c, i_steps)], axis_size);
    const ACC_T hot = LOAD_IN(TENSOR_PTR(v), position == (long)c[axis8] ? on_at : 0);
    STORE_OUT(hot, TENSOR_PTR(y), OFFSET8(c, y__strides));
}
