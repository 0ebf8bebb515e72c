/* DML_OPERATOR_CUMULATIVE_SUMMATION (-DOP_SUM) and DML_OPERATOR_CUMULATIVE_PRODUCT (-DOP_PRODUCT).
 * One work-item per line along Axis: lines are the elements of the tensor with the axis' size set to 1
 * (line_sizes); the work-item walks its line in the AxisDirection (-DDECREASING: from the last element)
 * and writes the running sum/product, including the current element or, with -DEXCLUSIVE, excluding it
 * (the first output of the walk is then 0, or 1 for the product). Each element is read before it is
 * written, so the output may alias the input in place. ACC_T: float for FLOAT16/FLOAT32, the integer
 * type itself for integers, whose running value is kept in SUM_T (the unsigned type of the same width for
 * signed integers: it wraps, where signed overflow would be undefined).
 */
#include "typed.h"

#ifndef SUM_T
#define SUM_T ACC_T
#endif
#ifdef OP_PRODUCT
#define IDENTITY ((SUM_T)1)
#define COMBINE(a, b) ((a) * (SUM_T)(b))
#else
#define IDENTITY ((SUM_T)0)
#define COMBINE(a, b) ((a) + (SUM_T)(b))
#endif

__kernel void cumulative(TYPED_IN8(x), TYPED_OUT8(y), ulong8 line_sizes, uint lines, uint axis_length,
                         ulong x_axis_stride, ulong y_axis_stride)
{
    const uint gid = get_global_id(0);
    if (gid >= lines)
        return;
    COORDS8(c, gid, line_sizes)
    const ulong x0 = OFFSET8(c, x__strides), y0 = OFFSET8(c, y__strides);
    SUM_T acc = IDENTITY;
    for (uint step = 0; step < axis_length; ++step) {
#ifdef DECREASING
        const ulong j = axis_length - 1 - step;
#else
        const ulong j = step;
#endif
        const ACC_T v = LOAD_IN(TENSOR_PTR(x), x0 + j * x_axis_stride);
#ifdef EXCLUSIVE
        STORE_OUT(acc, TENSOR_PTR(y), y0 + j * y_axis_stride);
        acc = COMBINE(acc, v);
#else
        acc = COMBINE(acc, v);
        STORE_OUT(acc, TENSOR_PTR(y), y0 + j * y_axis_stride);
#endif
    }
}
