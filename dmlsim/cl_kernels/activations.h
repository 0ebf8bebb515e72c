/* DirectML's element-wise activations as OpenCL code: one formula per activation, shared by the
 * ACTIVATION_* operators (dmlsim/operators/activation/kernel.cl) and by every operator that takes a
 * FusedActivation. The Python side of the same table is dmlsim/operators/activation/reference.py
 * (FORMULAS): a formula here is activation_<name>(x, params in that table's order), in float (FLOAT32
 * and FLOAT16 results are computed in float); RELU and PARAMETERIZED_RELU are macros, generic over the
 * integer types those two also accept. Stable forms of the documented formulas: expm1 for exp(x) - 1,
 * max(z, 0) + log1p(exp(-|z|)) for ln(1 + exp(z)), tanh, erfc(-x / sqrt 2) for 1 + erf(x / sqrt 2).
 *
 * Fused activation: build with -DFUSED_<NAME> (one of the FUSED_ACTIVATION_TYPES) and its parameters as
 * float literals, -DFUSED_<PARAM>=<hex float>f (FUSED_ALPHA, FUSED_BETA, FUSED_GAMMA, FUSED_STEEPNESS,
 * FUSED_BIAS, FUSED_THRESHOLD, FUSED_SIGMOID_INPUT_SCALE); dmlsim.operators.activation.fused.fused_defines
 * writes them. FUSED_ACTIVATION(x) is then that activation of x, and x itself when no FUSED_<NAME> is
 * defined.
 */
#ifndef DMLSIM_ACTIVATIONS_H
#define DMLSIM_ACTIVATIONS_H

#pragma OPENCL FP_CONTRACT OFF

/* f(x, slope) = x if x >= 0, else slope * x; generic (float or integer x). */
#define ACTIVATION_PARAMETERIZED_RELU(x, slope) ((x) >= 0 ? (x) : (slope) * (x))
/* f(x) = max(0, x); generic. A NaN gives 0. */
#define ACTIVATION_RELU(x) ((x) > 0 ? (x) : 0)
/* RELU_GRAD: dY where X > 0, else 0. */
#define ACTIVATION_RELU_GRAD(x, dy) ((x) > 0 ? (dy) : 0)

inline float activation_identity(float x) { return x; }
inline float activation_relu(float x) { return ACTIVATION_RELU(x); }
inline float activation_leaky_relu(float x, float alpha) { return ACTIVATION_PARAMETERIZED_RELU(x, alpha); }
inline float activation_thresholded_relu(float x, float alpha) { return x > alpha ? x : 0.0f; }
inline float activation_linear(float x, float alpha, float beta) { return alpha * x + beta; }
inline float activation_elu(float x, float alpha) { return x >= 0.0f ? x : alpha * expm1(x); }
inline float activation_celu(float x, float alpha)
{
    return fmax(0.0f, x) + fmin(0.0f, alpha * expm1(x / alpha));
}
inline float activation_scaled_elu(float x, float alpha, float gamma)
{
    return x > 0.0f ? gamma * x : gamma * (alpha * expm1(x));
}
inline float activation_sigmoid(float x) { return 1.0f / (1.0f + exp(-x)); }
inline float activation_hard_sigmoid(float x, float alpha, float beta)
{
    /* fmax(0, fmin(v, 1)) with IEEE fmin/fmax (a NaN v gives 1), written as selects: NVIDIA's OpenCL gave 0 for
     * the harness's NaN inputs through fmin/fmax */
    const float v = alpha * x + beta;
    return (v >= 1.0f || v != v) ? 1.0f : (v > 0.0f ? v : 0.0f);
}
inline float activation_tanh(float x) { return tanh(x); }
inline float activation_scaled_tanh(float x, float alpha, float beta) { return alpha * tanh(beta * x); }
/* ln(1 + exp(z)) without overflow */
inline float activation_softplus_base(float z) { return fmax(z, 0.0f) + log1p(exp(-fabs(z))); }
inline float activation_softplus(float x, float steepness)
{
    return activation_softplus_base(steepness * x) / steepness;
}
inline float activation_parametric_softplus(float x, float alpha, float beta)
{
    return alpha * activation_softplus_base(beta * x);
}
inline float activation_softsign(float x) { return x / (1.0f + fabs(x)); }
inline float activation_shrink(float x, float bias, float threshold)
{
    return x > threshold ? x - bias : (x < -threshold ? x + bias : 0.0f);
}
DML_INLINE float activation_gelu(float x) { return 0.5f * x * dml_erfc(-x * M_SQRT1_2_F); }
inline float activation_swish(float x, float sigmoid_input_scale)
{
    return x * activation_sigmoid(sigmoid_input_scale * x);
}
inline float activation_hard_swish(float x, float alpha, float beta)
{
    return x * activation_hard_sigmoid(x, alpha, beta);
}

/* The fused activation selected by the build. RELU stays generic (the RELU operator takes integers). */
#if defined(FUSED_IDENTITY)
#define FUSED_ACTIVATION(x) (x)
#elif defined(FUSED_RELU)
#define FUSED_ACTIVATION(x) ACTIVATION_RELU(x)
#elif defined(FUSED_LEAKY_RELU)
#define FUSED_ACTIVATION(x) activation_leaky_relu((x), FUSED_ALPHA)
#elif defined(FUSED_THRESHOLDED_RELU)
#define FUSED_ACTIVATION(x) activation_thresholded_relu((x), FUSED_ALPHA)
#elif defined(FUSED_LINEAR)
#define FUSED_ACTIVATION(x) activation_linear((x), FUSED_ALPHA, FUSED_BETA)
#elif defined(FUSED_ELU)
#define FUSED_ACTIVATION(x) activation_elu((x), FUSED_ALPHA)
#elif defined(FUSED_CELU)
#define FUSED_ACTIVATION(x) activation_celu((x), FUSED_ALPHA)
#elif defined(FUSED_SCALED_ELU)
#define FUSED_ACTIVATION(x) activation_scaled_elu((x), FUSED_ALPHA, FUSED_GAMMA)
#elif defined(FUSED_SIGMOID)
#define FUSED_ACTIVATION(x) activation_sigmoid(x)
#elif defined(FUSED_HARD_SIGMOID)
#define FUSED_ACTIVATION(x) activation_hard_sigmoid((x), FUSED_ALPHA, FUSED_BETA)
#elif defined(FUSED_TANH)
#define FUSED_ACTIVATION(x) activation_tanh(x)
#elif defined(FUSED_SCALED_TANH)
#define FUSED_ACTIVATION(x) activation_scaled_tanh((x), FUSED_ALPHA, FUSED_BETA)
#elif defined(FUSED_SOFTPLUS)
#define FUSED_ACTIVATION(x) activation_softplus((x), FUSED_STEEPNESS)
#elif defined(FUSED_PARAMETRIC_SOFTPLUS)
#define FUSED_ACTIVATION(x) activation_parametric_softplus((x), FUSED_ALPHA, FUSED_BETA)
#elif defined(FUSED_SOFTSIGN)
#define FUSED_ACTIVATION(x) activation_softsign(x)
#elif defined(FUSED_SHRINK)
#define FUSED_ACTIVATION(x) activation_shrink((x), FUSED_BIAS, FUSED_THRESHOLD)
#elif defined(FUSED_GELU)
#define FUSED_ACTIVATION(x) activation_gelu(x)
#elif defined(FUSED_SWISH)
#define FUSED_ACTIVATION(x) activation_swish((x), FUSED_SIGMOID_INPUT_SCALE)
#elif defined(FUSED_HARD_SWISH)
#define FUSED_ACTIVATION(x) activation_hard_swish((x), FUSED_ALPHA, FUSED_BETA)
#else
#define FUSED_ACTIVATION(x) (x)
#endif

#endif
