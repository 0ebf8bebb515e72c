/* REVERSE_SUBSEQUENCES: one work-item per output element (row-major over `sizes`, the tensors padded at the front
 * to 8-D; `axis` is the reversed dimension in those 8-D coordinates, `extent` its size). With c the output
 * coordinates and i = c[axis], the subsequence length is read from SequenceLengthsTensor at c with c[axis] = 0 and
 * clamped to `extent` (L = min(length, extent), the page's rule), and
 *   OutputTensor[c] = InputTensor[c with c[axis] = (i < L ? L - 1 - i : i)]
 * Elements move as the unsigned integer of their width (every data type bit for bit); lengths are LEN_T (uint for
 * UINT32, ulong for UINT64). Every tensor through its own DML strides.
 */
#include "typed.h"

__kernel void reverse_subsequences(TYPED_IN8(x), __global const LEN_T *lengths__base, ulong lengths__offset,
                                   ulong8 lengths__strides, TYPED_OUT8(y), ulong8 sizes, uint axis, ulong extent,
                                   uint n)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    COORDS8(c, gid, sizes)
    const uint i = c[axis];
    c[axis] = 0;
    const ulong length = (ulong)lengths__base[lengths__offset + OFFSET8(c, lengths__strides)];
    const ulong limit = length < extent ? length : extent;
    c[axis] = (ulong)i < limit ? (uint)(limit - 1 - i) : i;
    const ACC_T v = LOAD_IN(TENSOR_PTR(x), OFFSET8(c, x__strides));
    c[axis] = i;
    STORE_OUT(v, TENSOR_PTR(y), OFFSET8(c, y__strides));
}
