/* DIAGONAL_MATRIX and DIAGONAL_MATRIX1: one work-item per output element (row-major over `sizes`, the 2-4-D
 * output padded at the front to 8-D, so c[6] is the row y and c[7] the column x of the matrix it belongs to):
 *   topX = x - y
 *   useValue = (end >= begin) ^ (topX >= begin) ^ (topX < end)
 *   OutputTensor[c] = useValue ? value : (HAS_INPUT ? InputTensor[c] : 0)
 * DIAGONAL_MATRIX is begin = Offset, end = Offset + 1. Elements move as the unsigned integer of their width
 * (every data type bit for bit, NaN payloads kept); `value` arrives as those bits, already in the output's
 * data type, and 0 is +0 in every type. begin/end are long: Offset + 1 may be 2^31.
 */
#include "typed.h"

__kernel void diagonal(
#ifdef HAS_INPUT
    TYPED_IN8(x),
#endif
    TYPED_OUT8(y), ulong8 sizes, long begin, long end, ulong value, uint n)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    COORDS8(c, gid, sizes)
    const long top_x = (long)c[7] - (long)c[6];
    const int use_value = (end >= begin) ^ (top_x >= begin) ^ (top_x < end);
    ACC_T v = (ACC_T)0;
    if (use_value)
        v = (ACC_T)value;
#ifdef HAS_INPUT
    else
        v = LOAD_IN(TENSOR_PTR(x), OFFSET8(c, x__strides));
#endif
    STORE_OUT(v, TENSOR_PTR(y), OFFSET8(c, y__strides));
}
