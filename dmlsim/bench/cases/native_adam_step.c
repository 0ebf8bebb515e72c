/* The native Adam step of `dmlsim bench adam` (built by dmlsim/bench/native.py with native_memory.c):
 * DirectML's formula as kernel.cl computes it per element, in float, no contraction (-ffp-contract=off),
 * no fast-math, OpenMP over 2 MiB huge-page arrays first touched by its threads. -DSTORE_HALF: FLOAT16
 * storage converted with x86's F16C instructions (8 elements at a time; round to nearest even).
 * lr_alpha = LearningRate * sqrt(1 - Beta2^T) / (1 - Beta1^T) is computed by the caller. */
#include <math.h>
#include <stddef.h>
#include <time.h>
#ifdef STORE_HALF
#include <immintrin.h>
#if !defined(__F16C__) || !defined(__AVX__)
#error "the native FLOAT16 Adam step needs a CPU with F16C and AVX"
#endif
typedef unsigned short store_t;
#define BLOCK 8
#else
typedef float store_t;
#define BLOCK 1
#endif

static inline void adam_block(float *x, float *m, float *v, const float *g, float lr_alpha, float beta1,
                              float beta2, float epsilon)
{
#pragma omp simd
    for (int k = 0; k < BLOCK; ++k) {
        m[k] = beta1 * m[k] + (1.0f - beta1) * g[k];
        v[k] = beta2 * v[k] + (1.0f - beta2) * g[k] * g[k];
        x[k] = x[k] - lr_alpha * m[k] / (sqrtf(v[k]) + epsilon);
    }
}

double adam_step(store_t *x, store_t *m, store_t *v, const store_t *g, size_t n, float lr_alpha, float beta1,
                 float beta2, float epsilon)
{
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
#ifdef STORE_HALF
    const size_t blocks = n / BLOCK;
#pragma omp parallel for schedule(static)
    for (size_t b = 0; b < blocks; ++b) {
        const size_t i = b * BLOCK;
        float xs[BLOCK], ms[BLOCK], vs[BLOCK], gs[BLOCK];
        _mm256_storeu_ps(xs, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(x + i))));
        _mm256_storeu_ps(ms, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(m + i))));
        _mm256_storeu_ps(vs, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(v + i))));
        _mm256_storeu_ps(gs, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(g + i))));
        adam_block(xs, ms, vs, gs, lr_alpha, beta1, beta2, epsilon);
        _mm_storeu_si128((__m128i *)(x + i), _mm256_cvtps_ph(_mm256_loadu_ps(xs), _MM_FROUND_TO_NEAREST_INT));
        _mm_storeu_si128((__m128i *)(m + i), _mm256_cvtps_ph(_mm256_loadu_ps(ms), _MM_FROUND_TO_NEAREST_INT));
        _mm_storeu_si128((__m128i *)(v + i), _mm256_cvtps_ph(_mm256_loadu_ps(vs), _MM_FROUND_TO_NEAREST_INT));
    }
    for (size_t i = blocks * BLOCK; i < n; ++i) {
        float xs[BLOCK] = {_cvtsh_ss(x[i])}, ms[BLOCK] = {_cvtsh_ss(m[i])}, vs[BLOCK] = {_cvtsh_ss(v[i])},
              gs[BLOCK] = {_cvtsh_ss(g[i])};
        adam_block(xs, ms, vs, gs, lr_alpha, beta1, beta2, epsilon);
        x[i] = _cvtss_sh(xs[0], _MM_FROUND_TO_NEAREST_INT);
        m[i] = _cvtss_sh(ms[0], _MM_FROUND_TO_NEAREST_INT);
        v[i] = _cvtss_sh(vs[0], _MM_FROUND_TO_NEAREST_INT);
    }
#else
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; ++i) {
        float xs = x[i], ms = m[i], vs = v[i];
        const float gs = g[i];
        ms = beta1 * ms + (1.0f - beta1) * gs;
        vs = beta2 * vs + (1.0f - beta2) * gs * gs;
        xs = xs - lr_alpha * ms / (sqrtf(vs) + epsilon);
        x[i] = xs;
        m[i] = ms;
        v[i] = vs;
    }
#endif
    clock_gettime(CLOCK_MONOTONIC, &end);
    return (double)(end.tv_sec - start.tv_sec) * 1e9 + (double)(end.tv_nsec - start.tv_nsec);
}
