/* NONZERO_COORDINATES: one work-item per input element e (row-major over `sizes`). Each counts the non-zero
 * elements before it (its row) and in all (the count; ±0 are zero, NaN is not); a non-zero element writes its
 * last `n` coordinates into its row, work-item e zeroes row e when e is at or after the count (dmlsim's decision:
 * rows after the count are 0), and work-item 0 writes the count. Every output element is written by exactly one
 * work-item. Cost: the element count per work-item (quadratic in all; the operator's `work` says so).
 */
#include "typed.h"

__kernel void nonzero_coordinates(TYPED_IN8(x), __global uint *count__base, ulong count__offset,
                                  __global uint *c__base, ulong c__offset, ulong8 sizes,
                                  ulong row_stride, ulong column_stride, uint n, uint total)
{
    const uint e = get_global_id(0);
    if (e >= total)
        return;
    uint before = 0, count = 0;
    for (uint other = 0; other < total; ++other) {
        COORDS8(oc, other, sizes)
        const bool nonzero = LOAD_IN(TENSOR_PTR(x), OFFSET8(oc, x__strides)) != (ACC_T)0;
        count += nonzero;
        before += nonzero && other < e;
    }
    __global uint *coordinates = c__base + c__offset;
    COORDS8(c, e, sizes)
    if (LOAD_IN(TENSOR_PTR(x), OFFSET8(c, x__strides)) != (ACC_T)0) {
        for (uint j = 0; j < n; ++j)
            coordinates[before * row_stride + j * column_stride] = c[8 - n + j];
    }
    if (e >= count) {
        for (uint j = 0; j < n; ++j)
            coordinates[e * row_stride + j * column_stride] = 0;
    }
    if (e == 0)
        (count__base + count__offset)[0] = count;
}
