/* The normalization family: DML_OPERATOR_BATCH_NORMALIZATION and DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION, 1 and 2.
 * Tensors of 1 to 8 dimensions seen as 8-D (sizes and strides padded at the front); every input's strides
 * arrive with 0 on its size-1 (broadcast) dimensions, so one output coordinate addresses every tensor.
 * FLOAT16 is storage (-DSTORE_HALF): loads widen to float, all arithmetic is float32, stores round to
 * nearest even. The fused activation (activations.h) is applied to the value before its store.
 */
#include "dmlsim.h"
#include "activations.h"

#define AT(c, name) OFFSET8(c, name##_strides)

/* DML_OPERATOR_BATCH_NORMALIZATION: one work-item per output element,
 * Scale * ((Input - Mean) / sqrt(Variance + Epsilon)) + Bias. */
__kernel void batch_normalization(__global const store_t *x__base, ulong x__offset, ulong8 x_strides,
                                  __global const store_t *m__base, ulong m__offset, ulong8 m_strides,
                                  __global const store_t *v__base, ulong v__offset, ulong8 v_strides,
                                  __global const store_t *s__base, ulong s__offset, ulong8 s_strides,
                                  __global const store_t *b__base, ulong b__offset, ulong8 b_strides,
                                  __global store_t *y__base, ulong y__offset, ulong8 y_strides, ulong8 y_sizes,
                                  float epsilon, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    COORDS8(c, gid, y_sizes)
    const float x = (float)LOAD(TENSOR_PTR(x), AT(c, x));
    const float mean = (float)LOAD(TENSOR_PTR(m), AT(c, m));
    const float variance = (float)LOAD(TENSOR_PTR(v), AT(c, v));
    const float scale = (float)LOAD(TENSOR_PTR(s), AT(c, s));
    const float bias = (float)LOAD(TENSOR_PTR(b), AT(c, b));
    const float value = scale * ((x - mean) / sqrt(variance + epsilon)) + bias;
    STORE(FUSED_ACTIVATION(value), TENSOR_PTR(y), AT(c, y));
}

/* The element of reduction step r of the group whose first element is at coordinates g (0 on the reduced
 * axes): k = g + the coordinates of r, row-major over red_sizes. */
#define GROUP_COORDS(k, r)             \
    COORDS8(k, (r), red_sizes)         \
    for (int d_ = 0; d_ < 8; ++d_)     \
        k[d_] += g[d_];

/* x - Mean at coordinates k (step 1 below). */
#define DEVIATION(k) (((float)LOAD(x, AT(k, x)) - first) - shift)

/* DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION, 1 and 2: one work-item per group (one element of the input with the
 * reduced axes removed, group_sizes: the input's sizes with 1 on the reduced axes), n_red elements each.
 *  1. Mean = K + shift, shift = sum(x - K) / n with K the group's first element (0 if that is not finite), and
 *     each deviation computed as
 *     d = (x - K) - shift, never through a float32 Mean: for data with a large mean (1e4 + noise) x - K is
 *     exact (Sterbenz) and small, so neither the sum nor d loses anything to the mean's magnitude (a float32
 *     Mean would round it to ulp(1e4) ~ 1e-3 first).
 *  2. With -DNORMALIZE_VARIANCE, Variance the mean of the squared deviations d (two passes, never
 *     E[x^2] - E[x]^2, which cancels): first M = max |d|, then S = sum((d / M)^2) / n, so that Variance =
 *     M^2 * S neither overflows nor underflows in float32; d / sqrt(Variance + Epsilon) is then computed as
 *     (d / M) / sqrt(S + Epsilon / M^2); as d / sqrt(Epsilon) when M = 0 (every d is 0) or when Epsilon / M^2
 *     overflows (Variance <= M^2 is then below Epsilon / FLT_MAX: negligible beside it). Epsilon 0 gives
 *     (d / M) / sqrt(S) however small M is.
 *  3. Output = Scale * normalized + Bias (HAS_SCALE / HAS_BIAS), the fused activation, the store.
 * A NaN or infinity in a group makes the shift (so every d) NaN or infinite: the group's outputs are NaN, as in
 * the float64 formula.
 * With -DNO_MEAN (MEAN_VARIANCE_NORMALIZATION2's UseMean FALSE) step 1 is skipped: Mean is 0, each d is x, and
 * Variance is the mean of the squares (RMS normalization). */
__kernel void mean_variance_normalization(__global const store_t *x__base, ulong x__offset, ulong8 x_strides,
                                          __global const store_t *s__base, ulong s__offset, ulong8 s_strides,
                                          __global const store_t *b__base, ulong b__offset, ulong8 b_strides,
                                          __global store_t *y__base, ulong y__offset, ulong8 y_strides,
                                          ulong8 group_sizes, ulong8 red_sizes, float epsilon, uint n_groups,
                                          uint n_red)
{
    const uint gid = get_global_id(0);
    if (gid >= n_groups)
        return;
    COORDS8(g, gid, group_sizes)
    __global const store_t *x = TENSOR_PTR(x);
#ifdef NO_MEAN
    const float first = 0.0f, shift = 0.0f; /* Mean 0: every d is x itself */
#else
    const float x0 = (float)LOAD(x, AT(g, x));
    /* K = 0 when x0 is infinite: with K = inf the shifted sum would be inf - inf = NaN, where the float64 Mean of
     * data holding one infinity is that infinity (then x - Mean is -inf or NaN, what step 3 gives unnormalized) */
    const float first = isfinite(x0) ? x0 : 0.0f;
    float sum = 0.0f;
    for (uint r = 0; r < n_red; ++r) {
        GROUP_COORDS(k, r)
        sum += (float)LOAD(x, AT(k, x)) - first;
    }
    const float shift = sum / (float)n_red;
#endif
#ifdef NORMALIZE_VARIANCE
    float largest = 0.0f;
#ifdef NO_MEAN
    bool has_nan = false;
#endif
    for (uint r = 0; r < n_red; ++r) {
        GROUP_COORDS(k, r)
        const float d = DEVIATION(k);
        largest = fmax(largest, fabs(d));
#ifdef NO_MEAN
        has_nan |= isnan(d);
#endif
    }
    float unit = 1.0f; /* each d is divided by unit, then by root */
    float root = sqrt(epsilon); /* M = 0: every d is 0 */
#ifdef NO_MEAN
    /* Without a Mean, non-finite values do not spread through a shift: a NaN makes Variance (so every output)
     * NaN; an infinity (no NaN) makes Variance +inf, so x / sqrt(inf) is 0 for finite x and NaN for +-inf, as in
     * the float64 formula. */
    if (has_nan) {
        root = NAN;
    } else if (isinf(largest)) {
        root = INFINITY;
    } else
#endif
    if (largest > 0.0f) {
        float squares = 0.0f;
        for (uint r = 0; r < n_red; ++r) {
            GROUP_COORDS(k, r)
            const float t = DEVIATION(k) / largest; /* |t| <= 1: no overflow, and 0 stays 0 */
            squares += t * t;
        }
        const float ratio = epsilon == 0.0f ? 0.0f : epsilon / (largest * largest);
        if (!isinf(ratio)) { /* else M^2 < Epsilon / FLT_MAX: Variance is negligible beside Epsilon */
            unit = largest;
            root = sqrt(squares / (float)n_red + ratio);
        }
    }
#endif
    for (uint r = 0; r < n_red; ++r) {
        GROUP_COORDS(k, r)
        float value = DEVIATION(k);
#ifdef NORMALIZE_VARIANCE
        value = (value / unit) / root;
#endif
#ifdef HAS_SCALE
        value *= (float)LOAD(TENSOR_PTR(s), AT(k, s));
#endif
#ifdef HAS_BIAS
        value += (float)LOAD(TENSOR_PTR(b), AT(k, b));
#endif
        STORE(FUSED_ACTIVATION(value), TENSOR_PTR(y), AT(k, y));
    }
}
