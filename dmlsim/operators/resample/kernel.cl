/* DML_OPERATOR_RESAMPLE, RESAMPLE1, RESAMPLE2: one work-item per output element of a 1-D to 4-D tensor, seen
 * as 4-D (ulong4 sizes and strides; a lower rank is padded at the front with axes of size 1).
 *
 * The launch plan maps each output index of each axis to its taps (input index, float32 weight) once, in
 * float64 (dmlsim/operators/resample/reference.py: nearest neighbor one tap of weight 1, linear one or two):
 *   entries[2 * (axis_base.sA + oA)]     the first tap of output index oA of axis A,
 *   entries[2 * (axis_base.sA + oA) + 1] how many taps it has;
 *   tap_index[t], tap_weight[t]         tap t.
 * The output element is the sum, over every combination of one tap per axis, of the product of their weights
 * times the input element (float32 arithmetic; the sum starts at -0 so that a negative zero stays one).
 * -DCONVERT=convert_<type>_sat_rte: an integer output rounded to nearest even and saturated.
 * -DGRADIENT (RESAMPLE_GRAD, RESAMPLE_GRAD1): the same sum over the forward taps turned around (x is the
 * incoming gradient, shaped like the forward output; each forward input index lists the forward outputs that
 * read it, with their weights), starting at +0.
 */
#include "typed.h"

#ifdef CONVERT
#define RESULT(v) CONVERT(v)
#else
#define RESULT(v) (v)
#endif

__kernel void resample(TYPED_IN(x), ulong4 x_strides, TYPED_OUT(y), ulong4 y_strides, ulong4 y_sizes,
                       ulong4 axis_base, __global const uint *entries, __global const uint *tap_index,
                       __global const float *tap_weight, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    uint r = gid;
    const uint o3 = r % (uint)y_sizes.s3;
    r /= (uint)y_sizes.s3;
    const uint o2 = r % (uint)y_sizes.s2;
    r /= (uint)y_sizes.s2;
    const uint o1 = r % (uint)y_sizes.s1;
    const uint o0 = r / (uint)y_sizes.s1;
    const ulong e0 = 2 * (axis_base.s0 + o0), e1 = 2 * (axis_base.s1 + o1);
    const ulong e2 = 2 * (axis_base.s2 + o2), e3 = 2 * (axis_base.s3 + o3);
    __global const in_t *px = x__base + x__offset;
#ifdef GRADIENT
    float acc = 0.0f; /* an element no forward tap read gets +0 */
#else
    float acc = -0.0f;
#endif
    for (uint t0 = entries[e0]; t0 < entries[e0] + entries[e0 + 1]; ++t0) {
        const ulong a0 = (ulong)tap_index[t0] * x_strides.s0;
        const float w0 = tap_weight[t0];
        for (uint t1 = entries[e1]; t1 < entries[e1] + entries[e1 + 1]; ++t1) {
            const ulong a1 = a0 + (ulong)tap_index[t1] * x_strides.s1;
            const float w1 = w0 * tap_weight[t1];
            for (uint t2 = entries[e2]; t2 < entries[e2] + entries[e2 + 1]; ++t2) {
                const ulong a2 = a1 + (ulong)tap_index[t2] * x_strides.s2;
                const float w2 = w1 * tap_weight[t2];
                for (uint t3 = entries[e3]; t3 < entries[e3] + entries[e3 + 1]; ++t3) {
                    const float w3 = w2 * tap_weight[t3];
                    acc += w3 * LOAD_IN(px, a2 + (ulong)tap_index[t3] * x_strides.s3);
                }
            }
        }
    }
    STORE_OUT(RESULT(acc), y__base + y__offset,
              (ulong)o0 * y_strides.s0 + (ulong)o1 * y_strides.s1 + (ulong)o2 * y_strides.s2 +
                  (ulong)o3 * y_strides.s3);
}
