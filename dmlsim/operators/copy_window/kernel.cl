/* JOIN, SPLIT, SLICE, SLICE1 and CAST: each launch copies a window of one tensor into another, one
 * work-item per copied element (row-major over `sizes`, up to 8-D):
 *   y[y_start + sum_d c[d] * y_steps[d]] = CONVERT(x[x_start + sum_d c[d] * x_steps[d]])
 * Steps are element strides already multiplied by window strides; a negative step (SLICE1) arrives
 * wrapped modulo 2^64 and the ulong arithmetic gives the right offset. The moves (JOIN, SPLIT, SLICE,
 * SLICE1) use the unsigned type of the element size, so every data type is copied bit for bit; CAST
 * defines CONVERT (saturating conversion where its rules say so).
 */
#include "typed.h"

#ifndef CONVERT
#define CONVERT(v) (v)
#endif

__kernel void copy_window(TYPED_IN(x), TYPED_OUT(y), ulong8 sizes, ulong8 x_steps, ulong x_start,
                          ulong8 y_steps, ulong y_start, uint n)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    COORDS8(c, gid, sizes)
    const ACC_T v = LOAD_IN(TENSOR_PTR(x), x_start + OFFSET8(c, x_steps));
    STORE_OUT(CONVERT(v), TENSOR_PTR(y), y_start + OFFSET8(c, y_steps));
}
