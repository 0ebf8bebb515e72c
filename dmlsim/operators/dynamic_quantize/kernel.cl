/* DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR: one work-group of GROUP work-items over the whole tensor (up to 8
 * dimensions, sizes padded with 1 at the front, any strides):
 *   1. each work-item takes the minimum and maximum of every GROUP-th element (fmin/fmax: a NaN is ignored
 *      unless every element is NaN), then the group reduces them in local memory;
 *   2. every work-item derives, in float32 with one rounding per step: scale = (max - min) / (Max - Min)
 *      (quantize.h's divide_rn), zero point = saturate(rint(Min - divide_rn(min, scale))); work-item 0 stores both;
 *   3. each work-item quantizes its elements: saturate(rint(divide_rn(x, scale)) + zero point) (quantize.h).
 *   typed.h's IN_T (FLOAT32/FLOAT16 input) and OUT_T (INT8/UINT8 output and zero point); -DQMIN/-DQMAX the
 *   output type's range. Every input element is read (step 1) before any output element is written (step 3).
 */
#include "typed.h"
#define SATURATE_T OUT_T
#include "quantize.h"

#define GROUP 256

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void dynamic_quantize_linear(TYPED_IN8(x), TYPED_OUT8(y), __global float *s__base, ulong s__offset,
                             __global out_t *z__base, ulong z__offset, ulong8 sizes, uint count)
{
    __local float low[GROUP], high[GROUP];
    const uint lid = get_local_id(0);
    float lo = NAN, hi = NAN;
    for (uint i = lid; i < count; i += GROUP) {
        COORDS8(c, i, sizes)
        const float v = LOAD_IN(TENSOR_PTR(x), OFFSET8(c, x__strides));
        lo = fmin(lo, v);
        hi = fmax(hi, v);
    }
    low[lid] = lo;
    high[lid] = hi;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint half_size = GROUP / 2; half_size > 0; half_size /= 2) {
        if (lid < half_size) {
            low[lid] = fmin(low[lid], low[lid + half_size]);
            high[lid] = fmax(high[lid], high[lid + half_size]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float scale = divide_rn(high[0] - low[0], (float)(QMAX - QMIN));
    const SATURATE_T zero_point = saturate(rint((float)QMIN - divide_rn(low[0], scale)));
    if (lid == 0) {
        TENSOR_PTR(s)[0] = scale;
        TENSOR_PTR(z)[0] = zero_point;
    }
    for (uint i = lid; i < count; i += GROUP) {
        COORDS8(c, i, sizes)
        const float v = LOAD_IN(TENSOR_PTR(x), OFFSET8(c, x__strides));
        STORE_OUT(saturate(quantize(v, scale, (float)zero_point)), TENSOR_PTR(y), OFFSET8(c, y__strides));
    }
}
