/* DML_OPERATOR_ADAM_OPTIMIZER, as documented for DML_ADAM_OPTIMIZER_OPERATOR_DESC:
 *   M = Beta1 * M + (1 - Beta1) * G
 *   V = Beta2 * V + (1 - Beta2) * G * G
 *   Alpha = sqrt(1 - pow(Beta2, T)) / (1 - pow(Beta1, T))
 *   X -= LearningRate * Alpha * M / (sqrt(V) + Epsilon)
 * T is read from the bound UINT32 step tensor on the device. Every input element is read before any
 * output element is written and no pointer is restrict: outputs may alias their inputs in place.
 *
 * Build variants: -DPACKED (all seven tensors packed: VEC-element vector loads, as many vectors per
 * work-item as the global size G implies, the remainder of fewer than VEC elements done by work-item
 * 0) or the strided path (one element per work-item, any DML strides, stride 0 broadcasting on
 * inputs). With -DCHUNKED a work-item does ceil(n/VEC/G) consecutive vectors (CPU devices: few, long
 * work-items amortize the per-work-item Alpha and PoCL's per-work-group cost); otherwise a
 * grid-stride loop (work-item i does vectors i, i+G, i+2G...: coalesced on GPUs). Each element is
 * computed by the same expression on every path, and contraction is off (dmlsim.h): every variant
 * gives bitwise-identical results.
 */
#include "dmlsim.h"

#define ADAM_MOMENTS(m, v, g)                          \
    m = beta1 * m + (1.0f - beta1) * g;                \
    v = beta2 * v + (1.0f - beta2) * g * g;

__kernel void adam_optimizer(TENSOR_IN(x), TENSOR_IN(m), TENSOR_IN(v), TENSOR_IN(g),
                             __global const uint *t__base, ulong t__offset,
                             TENSOR_OUT(ox), TENSOR_OUT(om), TENSOR_OUT(ov),
                             float learning_rate, float beta1, float beta2, float epsilon,
                             ulong4 sizes, uint n)
{
    const uint step = t__base[t__offset];
    const float alpha = sqrt(one_minus_pow(beta2, step)) / one_minus_pow(beta1, step);
    const float lr_alpha = learning_rate * alpha;
    const uint gid = get_global_id(0);

#ifdef PACKED
    const uint nvec = n / VEC;
    const uint items = get_global_size(0);
#ifdef CHUNKED
    const uint per_item = (nvec + items - 1) / items;
    const uint first = min(gid * per_item, nvec);
    const uint last = min(first + per_item, nvec);
    for (uint i = first; i < last; ++i) {
#else
    for (uint i = gid; i < nvec; i += items) {
#endif
        REALV xv = LOADV(TENSOR_PTR(x), i);
        REALV mv = LOADV(TENSOR_PTR(m), i);
        REALV vv = LOADV(TENSOR_PTR(v), i);
        REALV gv = LOADV(TENSOR_PTR(g), i);
        ADAM_MOMENTS(mv, vv, gv)
        xv = xv - lr_alpha * mv / (SQRTV(vv) + epsilon);
        STOREV(xv, TENSOR_PTR(ox), i);
        STOREV(mv, TENSOR_PTR(om), i);
        STOREV(vv, TENSOR_PTR(ov), i);
    }
    if (gid == 0) {
        for (uint i = nvec * VEC; i < n; ++i) {
            float xs = LOAD(TENSOR_PTR(x), i);
            float ms = LOAD(TENSOR_PTR(m), i);
            float vs = LOAD(TENSOR_PTR(v), i);
            float gs = LOAD(TENSOR_PTR(g), i);
            ADAM_MOMENTS(ms, vs, gs)
            xs = xs - lr_alpha * ms / (sqrt(vs) + epsilon);
            STORE(xs, TENSOR_PTR(ox), i);
            STORE(ms, TENSOR_PTR(om), i);
            STORE(vs, TENSOR_PTR(ov), i);
        }
    }
#else
    if (gid >= n)
        return;
    float xs = LOAD(TENSOR_PTR(x), strided_offset4(gid, sizes, x__strides));
    float ms = LOAD(TENSOR_PTR(m), strided_offset4(gid, sizes, m__strides));
    float vs = LOAD(TENSOR_PTR(v), strided_offset4(gid, sizes, v__strides));
    float gs = LOAD(TENSOR_PTR(g), strided_offset4(gid, sizes, g__strides));
    ADAM_MOMENTS(ms, vs, gs)
    xs = xs - lr_alpha * ms / (sqrt(vs) + epsilon);
    STORE(xs, TENSOR_PTR(ox), strided_offset4(gid, sizes, ox__strides));
    STORE(ms, TENSOR_PTR(om), strided_offset4(gid, sizes, om__strides));
    STORE(vs, TENSOR_PTR(ov), strided_offset4(gid, sizes, ov__strides));
#endif
}
