/* DirectML's element-wise activations: one work-item per element, any DML strides of up to 8
 * dimensions (stride 0 broadcasts an input), computed in real_t (float for FLOAT32/FLOAT16 storage, the
 * integer type itself for RELU / PARAMETERIZED_RELU / RELU_GRAD / SHRINK on integers: cl_kernels/dmlsim.h).
 * The formulas are those of cl_kernels/activations.h; activation_unary is the fused-activation machinery itself: the
 * build's -DFUSED_<NAME> and -DFUSED_<PARAM> defines select f (no define: the identity).
 * Each element is read before it is written and no pointer is restrict: an output may alias an input.
 */
#include "dmlsim.h"
#include "activations.h"

#ifdef SHRINK_INTEGER
/* SHRINK on an integer tensor (dmlsim's reading, see activation/reference.py's shrink_integer): x - Bias if
 * x > Threshold, x + Bias if x < -Threshold, else 0, computed exactly and converted as CAST converts a float
 * (toward zero, saturated; a NaN Bias gives 0). The -DSHRINK_* constants are integers: x > Threshold is
 * x > SHRINK_ABOVE (floor(Threshold)), x < -Threshold is x < SHRINK_BELOW; with b = floor(Bias) and f its
 * fraction, x - Bias = n - f for n = x - b, whose truncation is n - 1 when f != 0 and n > 0, else n (x + Bias
 * likewise with -Bias). */
#define SHRINK_CONVERT_SAT_(t) convert_##t##_sat
#define SHRINK_CONVERT_SAT(t) SHRINK_CONVERT_SAT_(t)
inline long shrink_truncated(long n, int fraction) { return (fraction && n > 0) ? n - 1 : n; }
inline real_t shrink_integer(real_t x)
{
    const long v = (long)x;
    long r;
    if (SHRINK_NAN)
        return 0;
    if (v > SHRINK_ABOVE)
        r = shrink_truncated(v - SHRINK_SUB, SHRINK_SUB_FRAC);
    else if (v < SHRINK_BELOW)
        r = shrink_truncated(v - SHRINK_ADD, SHRINK_ADD_FRAC);
    else
        return 0;
    return SHRINK_CONVERT_SAT(STORE_INTEGER)(r);
}
#undef FUSED_ACTIVATION
#define FUSED_ACTIVATION(x) shrink_integer(x)
#endif

/* -DPACKED (every tensor packed: element i at offset i, the plan's choice): no coordinates at all */
#ifdef PACKED
#define ELEMENT_COORDS
#define ELEMENT_AT(name) ((ulong)gid)
#else
#define ELEMENT_COORDS COORDS8(c, gid, sizes)
#define ELEMENT_AT(name) OFFSET8(c, name##__strides)
#endif

__kernel void activation_unary(TENSOR_IN8(x), TENSOR_OUT8(y), ulong8 sizes, uint n)
{
#ifdef STREAM /* both tensors packed (the plan's choice): this work-item's VEC-element runs (FOR_EACH_VECTOR, a loop
               * the compiler vectorizes), the remainder of fewer than VEC elements done by work-item 0 */
    __global const store_t *xp = TENSOR_PTR(x);
    __global store_t *yp = TENSOR_PTR(y);
    const uint nvec = n / VEC;
    FOR_EACH_VECTOR(v, nvec) {
        for (uint k = v * VEC; k < v * VEC + VEC; ++k) {
            real_t e = LOAD(xp, k);
            STORE(FUSED_ACTIVATION(e), yp, k);
        }
    }
    if (get_global_id(0) == 0) {
        for (uint k = nvec * VEC; k < n; ++k) {
            real_t e = LOAD(xp, k);
            STORE(FUSED_ACTIVATION(e), yp, k);
        }
    }
#else
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    ELEMENT_COORDS
    real_t v = LOAD(TENSOR_PTR(x), ELEMENT_AT(x));
    STORE(FUSED_ACTIVATION(v), TENSOR_PTR(y), ELEMENT_AT(y));
#endif
}

__kernel void activation_parameterized_relu(TENSOR_IN8(x), TENSOR_IN8(slope), TENSOR_OUT8(y), ulong8 sizes, uint n)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    COORDS8(c, gid, sizes)
    real_t v = LOAD(TENSOR_PTR(x), OFFSET8(c, x__strides));
    real_t s = LOAD(TENSOR_PTR(slope), OFFSET8(c, slope__strides));
    STORE(ACTIVATION_PARAMETERIZED_RELU(v, s), TENSOR_PTR(y), OFFSET8(c, y__strides));
}

__kernel void activation_relu_grad(TENSOR_IN8(x), TENSOR_IN8(dy), TENSOR_OUT8(dx), ulong8 sizes, uint n)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    COORDS8(c, gid, sizes)
    real_t v = LOAD(TENSOR_PTR(x), OFFSET8(c, x__strides));
    real_t g = LOAD(TENSOR_PTR(dy), OFFSET8(c, dy__strides));
    STORE(ACTIVATION_RELU_GRAD(v, g), TENSOR_PTR(dx), OFFSET8(c, dx__strides));
}
