/* DML_OPERATOR_FILL_VALUE_CONSTANT and DML_OPERATOR_FILL_VALUE_SEQUENCE: one work-item per output element,
 *   OutputTensor[i] = start + i * delta     (i the row-major element index; CONSTANT: delta = 0)
 * computed in ACC_T (float for FLOAT16/FLOAT32, double for FLOAT64, ulong for every integer type: the
 * integer result is the exact one modulo 2^64, and storing it keeps its low bits, i.e. wraps as the
 * output type's own arithmetic would), written through the output's DML strides.
 */
#include "typed.h"

__kernel void fill_value(TYPED_OUT8(y), ACC_T start, ACC_T delta, ulong8 sizes, uint n)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    COORDS8(c, gid, sizes)
    const ACC_T value = start + (ACC_T)gid * delta;
    STORE_OUT(value, TENSOR_PTR(y), OFFSET8(c, y__strides));
}
