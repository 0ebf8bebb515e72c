/* The native same-traffic limit of `dmlsim bench` (dmlsim/bench/native.py builds and loads it, with
 * native_memory.c for its arrays).
 *
 * traffic_step streams READS arrays of n ELEM-typed elements and writes WRITES arrays (in place: over
 * the first WRITES inputs), exactly the bytes an operator's point moves. Every output element depends
 * on every input element of its index (a sum), so no load can be skipped; nothing else is computed.
 * Built with -O3 -march=native -fopenmp and -DREADS -DWRITES -DELEM. WRITES=0 (a reduction's traffic: the
 * input streamed, its few outputs left out) sums every input element into traffic_sink instead.
 */
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#if !defined(READS) || !defined(WRITES) || !defined(ELEM)
#error "build with -DREADS=r -DWRITES=w -DELEM=type"
#endif

typedef ELEM elem_t;
#if WRITES == 0
volatile elem_t traffic_sink; /* where WRITES=0 leaves its sum: no load can be skipped */
#endif

/* Distinct contents per array (tests check that every input reaches every output). */
void traffic_fill(elem_t *p, size_t n, unsigned seed)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i)
        p[i] = (elem_t)(seed + i);
}

/* One step; returns its duration in ns (the native counterpart of a device time). */
double traffic_step(elem_t *const *in, elem_t *const *out, size_t n)
{
    elem_t *src[READS];
    for (int k = 0; k < READS; ++k)
        src[k] = in[k];
    struct timespec start, end;
#if WRITES == 0
    (void)out;
    elem_t total = 0;
    clock_gettime(CLOCK_MONOTONIC, &start);
#pragma omp parallel for simd schedule(static) reduction(+ : total)
    for (size_t i = 0; i < n; ++i)
        for (int k = 0; k < READS; ++k)
            total += src[k][i];
    traffic_sink = total;
#else
    elem_t *dst[WRITES];
    for (int k = 0; k < WRITES; ++k)
        dst[k] = out[k];
    clock_gettime(CLOCK_MONOTONIC, &start);
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; ++i) {
        elem_t v[READS], sum = 0;
        for (int k = 0; k < READS; ++k) {
            v[k] = src[k][i];
            sum += v[k];
        }
        for (int k = 0; k < WRITES; ++k)
            dst[k][i] = (elem_t)(v[k % READS] + sum);
    }
#endif
    clock_gettime(CLOCK_MONOTONIC, &end);
    return (double)(end.tv_sec - start.tv_sec) * 1e9 + (double)(end.tv_nsec - start.tv_nsec);
}
