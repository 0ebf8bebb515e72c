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
 * Variance is the mean of the squares (RMS normalization). BATCH_NORMALIZATION_TRAINING adds FusedAdd before the
 * activation (-DHAS_FUSED_ADD) and writes Mean and Variance (-DWRITE_STATISTICS); the other members bind null
 * buffers there. */
/* Step r of a group (MEAN_VARIANCE_NORMALIZATION): with -DRUN (the planner found that, in every tensor, the reduced
 * axes' elements lie on one line: element r of the group at its first element plus r times the tensor's run stride,
 * runs.s0..s4 for x, Scale, Bias, the fused addend and the output) one multiply-add per address; otherwise the
 * coordinates of r over red_sizes added to g, and each tensor's 8-D offset. */
#ifdef RUN
#define MVN_ELEMENT(r) const ulong r_ = (r);
#define MVN_RUN_x runs.s0
#define MVN_RUN_s runs.s1
#define MVN_RUN_b runs.s2
#define MVN_RUN_a runs.s3
#define MVN_RUN_y runs.s4
#define MVN_AT(name) (name##_at + r_ * MVN_RUN_##name)
#else
#define MVN_ELEMENT(r) GROUP_COORDS(k, r)
#define MVN_AT(name) AT(k, name)
#endif
/* x - Mean of step r (step 1 below) */
#define MVN_DEVIATION() (((float)LOAD(x, MVN_AT(x)) - first) - shift)

__kernel void mean_variance_normalization(__global const store_t *x__base, ulong x__offset, ulong8 x_strides,
                                          __global const store_t *s__base, ulong s__offset, ulong8 s_strides,
                                          __global const store_t *b__base, ulong b__offset, ulong8 b_strides,
                                          __global const store_t *a__base, ulong a__offset, ulong8 a_strides,
                                          __global store_t *y__base, ulong y__offset, ulong8 y_strides,
                                          __global store_t *m__base, ulong m__offset, ulong8 m_strides,
                                          __global store_t *v__base, ulong v__offset, ulong8 v_strides,
                                          ulong8 group_sizes, ulong8 red_sizes, ulong8 runs, float epsilon,
                                          uint n_groups, uint n_red)
{
    const uint gid = get_global_id(0);
    if (gid >= n_groups)
        return;
    COORDS8(g, gid, group_sizes)
    __global const store_t *x = TENSOR_PTR(x);
#ifdef RUN
    const ulong x_at = AT(g, x), y_at = AT(g, y);
#ifdef HAS_SCALE
    const ulong s_at = AT(g, s);
#endif
#ifdef HAS_BIAS
    const ulong b_at = AT(g, b);
#endif
#ifdef HAS_FUSED_ADD
    const ulong a_at = AT(g, a);
#endif
#endif
#ifdef NO_MEAN
    const float first = 0.0f, shift = 0.0f; /* Mean 0: every d is x itself */
#else
    const float x0 = (float)LOAD(x, AT(g, x));
    /* K = 0 when x0 is infinite: with K = inf the shifted sum would be inf - inf = NaN, where the float64 Mean of
     * data holding one infinity is that infinity (then x - Mean is -inf or NaN, what step 3 gives unnormalized) */
    const float first = isfinite(x0) ? x0 : 0.0f;
    float sum = 0.0f;
    for (uint r = 0; r < n_red; ++r) {
        MVN_ELEMENT(r)
        sum += (float)LOAD(x, MVN_AT(x)) - first;
    }
    const float shift = sum / (float)n_red;
#endif
#ifdef NORMALIZE_VARIANCE
    float largest = 0.0f;
#ifdef NO_MEAN
    bool has_nan = false;
#endif
    for (uint r = 0; r < n_red; ++r) {
        MVN_ELEMENT(r)
        const float d = MVN_DEVIATION();
        largest = fmax(largest, fabs(d));
#ifdef NO_MEAN
        has_nan |= isnan(d);
#endif
    }
    float unit = 1.0f; /* each d is divided by unit, then by root */
    float root = sqrt(epsilon); /* M = 0: every d is 0 */
    float variance = 0.0f; /* M^2 * S / n, written by -DWRITE_STATISTICS */
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
            MVN_ELEMENT(r)
            const float t = MVN_DEVIATION() / largest; /* |t| <= 1: no overflow, and 0 stays 0 */
            squares += t * t;
        }
        variance = (largest * (squares / (float)n_red)) * largest;
        const float ratio = epsilon == 0.0f ? 0.0f : epsilon / (largest * largest);
        if (!isinf(ratio)) { /* else M^2 < Epsilon / FLT_MAX: Variance is negligible beside Epsilon */
            unit = largest;
            root = sqrt(squares / (float)n_red + ratio);
        }
    }
#endif
    for (uint r = 0; r < n_red; ++r) {
        MVN_ELEMENT(r)
        float value = MVN_DEVIATION();
#ifdef NORMALIZE_VARIANCE
        value = (value / unit) / root;
#endif
#ifdef HAS_SCALE
        value *= (float)LOAD(TENSOR_PTR(s), MVN_AT(s));
#endif
#ifdef HAS_BIAS
        value += (float)LOAD(TENSOR_PTR(b), MVN_AT(b));
#endif
#ifdef HAS_FUSED_ADD
        value += (float)LOAD(TENSOR_PTR(a), MVN_AT(a));
#endif
        STORE(FUSED_ACTIVATION(value), TENSOR_PTR(y), MVN_AT(y));
    }
#if defined(WRITE_STATISTICS) && defined(NORMALIZE_VARIANCE) && !defined(NO_MEAN)
    /* BATCH_NORMALIZATION_TRAINING's Mean and (biased) Variance, at the group's coordinates (0 on the reduced
     * axes). A non-finite shift (a NaN or infinity in the group) makes every d non-finite: Variance NaN, as the
     * float64 mean of (x - Mean)^2. */
    STORE(first + shift, TENSOR_PTR(m), AT(g, m));
    STORE(isfinite(shift) ? variance : NAN, TENSOR_PTR(v), AT(g, v));
#endif
}

/* DML_OPERATOR_LP_NORMALIZATION: one work-item per group (the elements along Axis), n_red elements each,
 * Output = Input / max(norm, Epsilon), norm = sum(|x|) (P 1) or sqrt(sum(x^2)) (P 2). Scaled by M = max |x| so
 * that no sum overflows or underflows in float32: y = (x / M) / max(norm / M, Epsilon / M). A NaN in the group
 * makes every output NaN; an infinity (no NaN) makes norm +inf, so finite x give 0 and infinite ones NaN; M = 0
 * gives x / max(0, Epsilon); Epsilon / M overflowing means norm <= n * M is negligible beside Epsilon: x /
 * Epsilon. The maximum propagates a NaN Epsilon (np.maximum). */
__kernel void lp_normalization(__global const store_t *x__base, ulong x__offset, ulong8 x_strides,
                               __global store_t *y__base, ulong y__offset, ulong8 y_strides, ulong8 group_sizes,
                               ulong8 red_sizes, float epsilon, uint n_groups, uint n_red)
{
    const uint gid = get_global_id(0);
    if (gid >= n_groups)
        return;
    COORDS8(g, gid, group_sizes)
    __global const store_t *x = TENSOR_PTR(x);
    float largest = 0.0f;
    bool has_nan = false;
    for (uint r = 0; r < n_red; ++r) {
        GROUP_COORDS(k, r)
        const float v = (float)LOAD(x, AT(k, x));
        largest = fmax(largest, fabs(v));
        has_nan |= isnan(v);
    }
    float unit = 1.0f; /* y = (x / unit) / root */
    float root;
    if (has_nan) {
        root = NAN;
    } else if (isinf(largest)) {
        root = INFINITY;
    } else if (largest == 0.0f) {
        root = (isnan(epsilon) || epsilon > 0.0f) ? epsilon : 0.0f;
    } else {
        float sum = 0.0f;
        for (uint r = 0; r < n_red; ++r) {
            GROUP_COORDS(k, r)
            const float t = fabs((float)LOAD(x, AT(k, x))) / largest; /* <= 1 */
#if LP_P == 2
            sum += t * t;
#else
            sum += t;
#endif
        }
#if LP_P == 2
        const float norm = sqrt(sum); /* norm / M, at least 1 */
#else
        const float norm = sum;
#endif
        const float ratio = epsilon / largest;
        if (ratio == INFINITY) {
            root = epsilon;
        } else {
            unit = largest;
            root = (isnan(ratio) || ratio > norm) ? ratio : norm;
        }
    }
    for (uint r = 0; r < n_red; ++r) {
        GROUP_COORDS(k, r)
        const float value = ((float)LOAD(x, AT(k, x)) / unit) / root;
        STORE(value, TENSOR_PTR(y), AT(k, y));
    }
}

/* DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION: one work-item per element of the 4-D input (seen as 8-D: N, C, H, W
 * are coordinates 4 to 7). The region: along C (CROSS_CHANNEL) or along H and W, from i - before to i + after,
 * clipped to the tensor. Output = x / (Bias + Alpha / LocalSize * S)^Beta with S the region's sum of squares,
 * computed as M^2 * sum((v / M)^2) with M the region's largest |v| (no float32 overflow or underflow of the
 * squares); when Alpha / LocalSize * S overflows float32 while the power may not, base^Beta is computed as
 * M^Beta * M^Beta * (Alpha / LocalSize * sum((v / M)^2) + Bias / M / M)^Beta. A NaN in the region makes the
 * output NaN; an infinity makes S +inf. */
__kernel void local_response_normalization(__global const store_t *x__base, ulong x__offset, ulong8 x_strides,
                                           __global store_t *y__base, ulong y__offset, ulong8 y_strides,
                                           ulong8 y_sizes, uint before, uint after, float alpha_n, float beta,
                                           float bias, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    COORDS8(c, gid, y_sizes)
    __global const store_t *x = TENSOR_PTR(x);
#ifdef CROSS_CHANNEL
    const uint c_lo = c[5] > before ? c[5] - before : 0, c_hi = min((uint)c[5] + after, (uint)y_sizes.s5 - 1);
    const uint h_lo = c[6], h_hi = c[6], w_lo = c[7], w_hi = c[7];
#else
    const uint c_lo = c[5], c_hi = c[5];
    const uint h_lo = c[6] > before ? c[6] - before : 0, h_hi = min((uint)c[6] + after, (uint)y_sizes.s6 - 1);
    const uint w_lo = c[7] > before ? c[7] - before : 0, w_hi = min((uint)c[7] + after, (uint)y_sizes.s7 - 1);
#endif
    uint k[8];
    for (int d = 0; d < 8; ++d)
        k[d] = c[d];
    float largest = 0.0f;
    bool has_nan = false;
    for (uint i = c_lo; i <= c_hi; ++i)
        for (uint h = h_lo; h <= h_hi; ++h)
            for (uint w = w_lo; w <= w_hi; ++w) {
                k[5] = i; k[6] = h; k[7] = w;
                const float v = (float)LOAD(x, AT(k, x));
                largest = fmax(largest, fabs(v));
                has_nan |= isnan(v);
            }
    float denominator;
    if (has_nan || isinf(largest) || largest == 0.0f) {
        /* NaN: the sum is NaN; inf: the sum is +inf; 0: the sum is 0 (alpha_n * inf or * 0 as in float64) */
        const float sum = has_nan ? NAN : (largest == 0.0f ? 0.0f : INFINITY);
        denominator = pow(bias + alpha_n * sum, beta);
    } else {
        float squares = 0.0f;
        for (uint i = c_lo; i <= c_hi; ++i)
            for (uint h = h_lo; h <= h_hi; ++h)
                for (uint w = w_lo; w <= w_hi; ++w) {
                    k[5] = i; k[6] = h; k[7] = w;
                    const float t = (float)LOAD(x, AT(k, x)) / largest;
                    squares += t * t;
                }
        const float scaled = alpha_n * squares * largest * largest;
        if (isinf(scaled)) {
            const float m = pow(largest, beta);
            denominator = m * m * pow(alpha_n * squares + bias / largest / largest, beta);
        } else {
            denominator = pow(bias + scaled, beta);
        }
    }
    const float value = (float)LOAD(x, AT(c, x)) / denominator;
    STORE(value, TENSOR_PTR(y), AT(c, y));
}

/* DML_OPERATOR_BATCH_NORMALIZATION_GRAD and (-DTRAINING) BATCH_NORMALIZATION_TRAINING_GRAD: one work-item per
 * group, the n_red elements sharing one coordinate of Mean/Variance/Scale (0 on the reduced axes, where their
 * sizes are 1). Sums in float32 over the group: B = sum(dy), C = sum(dy * (x - Mean)); then with
 * r = 1 / sqrt(Variance + Epsilon): OutputBiasGradient = B, OutputScaleGradient = C * r, and per element
 * OutputGradient = dy * Scale * r, or (TRAINING) Scale * r * ((dy - B / n) - (x - Mean) * (C / n) * r * r). */
__kernel void batch_normalization_grad(__global const store_t *x__base, ulong x__offset, ulong8 x_strides,
                                       __global const store_t *dy__base, ulong dy__offset, ulong8 dy_strides,
                                       __global const store_t *m__base, ulong m__offset, ulong8 m_strides,
                                       __global const store_t *v__base, ulong v__offset, ulong8 v_strides,
                                       __global const store_t *s__base, ulong s__offset, ulong8 s_strides,
                                       __global store_t *dx__base, ulong dx__offset, ulong8 dx_strides,
                                       __global store_t *ds__base, ulong ds__offset, ulong8 ds_strides,
                                       __global store_t *db__base, ulong db__offset, ulong8 db_strides,
                                       ulong8 group_sizes, ulong8 red_sizes, float epsilon, uint n_groups,
                                       uint n_red)
{
    const uint gid = get_global_id(0);
    if (gid >= n_groups)
        return;
    COORDS8(g, gid, group_sizes)
    __global const store_t *x = TENSOR_PTR(x);
    __global const store_t *dy = TENSOR_PTR(dy);
    const float mean = (float)LOAD(TENSOR_PTR(m), AT(g, m));
    const float variance = (float)LOAD(TENSOR_PTR(v), AT(g, v));
    const float scale = (float)LOAD(TENSOR_PTR(s), AT(g, s));
    const float r = 1.0f / sqrt(variance + epsilon);
    float sum_dy = 0.0f, sum_dy_xc = 0.0f;
    for (uint i = 0; i < n_red; ++i) {
        GROUP_COORDS(k, i)
        const float d = (float)LOAD(dy, AT(k, dy));
        sum_dy += d;
        sum_dy_xc += d * ((float)LOAD(x, AT(k, x)) - mean);
    }
#ifdef TRAINING
    const float mean_dy = sum_dy / (float)n_red, mean_dy_xc = sum_dy_xc / (float)n_red;
#endif
    for (uint i = 0; i < n_red; ++i) {
        GROUP_COORDS(k, i)
        const float d = (float)LOAD(dy, AT(k, dy));
#ifdef TRAINING
        const float xc = (float)LOAD(x, AT(k, x)) - mean;
        const float value = scale * r * ((d - mean_dy) - xc * (mean_dy_xc * r * r));
#else
        const float value = d * (scale * r);
#endif
        STORE(value, TENSOR_PTR(dx), AT(k, dx));
    }
    STORE(sum_dy_xc * r, TENSOR_PTR(ds), AT(g, ds));
    STORE(sum_dy, TENSOR_PTR(db), AT(g, db));
}

/* The sum of squares of x over the LRN region around coordinates cc (uint[8]), into float sum: along C
 * (CROSS_CHANNEL) or along H and W, from i - lo to i + hi, clipped. */
#ifdef CROSS_CHANNEL
#define LRN_REGION_SUM(sum, cc, lo, hi)                                                                          \
    {                                                                                                            \
        uint q_[8];                                                                                              \
        for (int d_ = 0; d_ < 8; ++d_)                                                                           \
            q_[d_] = cc[d_];                                                                                     \
        const uint a_ = cc[5] > (lo) ? cc[5] - (lo) : 0, b_ = min((uint)cc[5] + (hi), (uint)y_sizes.s5 - 1);    \
        sum = 0.0f;                                                                                              \
        for (uint i_ = a_; i_ <= b_; ++i_) {                                                                     \
            q_[5] = i_;                                                                                          \
            const float v_ = (float)LOAD(x, AT(q_, x));                                                          \
            sum += v_ * v_;                                                                                      \
        }                                                                                                        \
    }
#else
#define LRN_REGION_SUM(sum, cc, lo, hi)                                                                          \
    {                                                                                                            \
        uint q_[8];                                                                                              \
        for (int d_ = 0; d_ < 8; ++d_)                                                                           \
            q_[d_] = cc[d_];                                                                                     \
        const uint ha_ = cc[6] > (lo) ? cc[6] - (lo) : 0, hb_ = min((uint)cc[6] + (hi), (uint)y_sizes.s6 - 1);  \
        const uint wa_ = cc[7] > (lo) ? cc[7] - (lo) : 0, wb_ = min((uint)cc[7] + (hi), (uint)y_sizes.s7 - 1);  \
        sum = 0.0f;                                                                                              \
        for (uint h_ = ha_; h_ <= hb_; ++h_)                                                                     \
            for (uint w_ = wa_; w_ <= wb_; ++w_) {                                                               \
                q_[6] = h_;                                                                                      \
                q_[7] = w_;                                                                                      \
                const float v_ = (float)LOAD(x, AT(q_, x));                                                      \
                sum += v_ * v_;                                                                                  \
            }                                                                                                    \
    }
#endif

/* DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION_GRAD: one work-item per element k of the 4-D input. With
 * B_i = Bias + Alpha / LocalSize * S_i (S_i the forward's sum of squares over the region of i), the derivative of
 * sum(dy * y), y_i = x_i * B_i^-Beta, is dy_k * B_k^-Beta - 2 * Alpha / LocalSize * Beta * x_k *
 * sum(dy_i * x_i * B_i^(-Beta - 1)) over the elements i whose region holds k: i from k - after to k + before (the
 * region's extents swapped), clipped. Plain float32 sums (no scaling: squares above FLT_MAX overflow). */
__kernel void local_response_normalization_grad(__global const store_t *x__base, ulong x__offset, ulong8 x_strides,
                                                __global const store_t *dy__base, ulong dy__offset,
                                                ulong8 dy_strides, __global store_t *y__base, ulong y__offset,
                                                ulong8 y_strides, ulong8 y_sizes, uint before, uint after,
                                                float alpha_n, float beta, float bias, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    COORDS8(c, gid, y_sizes)
    __global const store_t *x = TENSOR_PTR(x);
    __global const store_t *dy = TENSOR_PTR(dy);
    float own;
    LRN_REGION_SUM(own, c, before, after)
    float acc = 0.0f;
    uint k[8];
    for (int d = 0; d < 8; ++d)
        k[d] = c[d];
#ifdef CROSS_CHANNEL
    const uint c_lo = c[5] > after ? c[5] - after : 0, c_hi = min((uint)c[5] + before, (uint)y_sizes.s5 - 1);
    const uint h_lo = c[6], h_hi = c[6], w_lo = c[7], w_hi = c[7];
#else
    const uint c_lo = c[5], c_hi = c[5];
    const uint h_lo = c[6] > after ? c[6] - after : 0, h_hi = min((uint)c[6] + before, (uint)y_sizes.s6 - 1);
    const uint w_lo = c[7] > after ? c[7] - after : 0, w_hi = min((uint)c[7] + before, (uint)y_sizes.s7 - 1);
#endif
    for (uint i = c_lo; i <= c_hi; ++i)
        for (uint h = h_lo; h <= h_hi; ++h)
            for (uint w = w_lo; w <= w_hi; ++w) {
                k[5] = i; k[6] = h; k[7] = w;
                float s;
                LRN_REGION_SUM(s, k, before, after)
                const float xi = (float)LOAD(x, AT(k, x));
                const float gi = (float)LOAD(dy, AT(k, dy));
                acc += gi * xi * pow(bias + alpha_n * s, -beta - 1.0f);
            }
    const float xk = (float)LOAD(x, AT(c, x));
    const float gk = (float)LOAD(dy, AT(c, dy));
    /* 2 * Alpha / LocalSize * Beta * x_k underflows to 0 for a subnormal x_k, where x_k * acc need not (an
     * infinite acc then gives inf, not 0 * inf = NaN): multiply x_k by acc first in that case */
    const float factor = 2.0f * alpha_n * beta, fx = factor * xk;
    const float correction = (fx == 0.0f && xk != 0.0f) ? factor * (xk * acc) : fx * acc;
    const float value = gk * pow(bias + alpha_n * own, -beta) - correction;
    STORE(value, TENSOR_PTR(y), AT(c, y));
}
