/* The native same-traffic limit of `dmlsim bench` (dmlsim/bench/native.py builds and loads it).
 *
 * traffic_step streams READS arrays of n ELEM-typed elements and writes WRITES arrays (in place: over
 * the first WRITES inputs), exactly the bytes an operator's point moves. Every output element depends
 * on every input element of its index (a sum), so no load can be skipped; nothing else is computed.
 * Arrays come from traffic_alloc (2 MiB aligned, transparent huge pages requested with madvise) and are
 * first touched by traffic_fill with the same static OpenMP schedule as traffic_step, so each thread
 * streams the pages it placed. Built with -O3 -march=native -fopenmp and -DREADS -DWRITES -DELEM.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#if !defined(READS) || !defined(WRITES) || !defined(ELEM)
#error "build with -DREADS=r -DWRITES=w -DELEM=type"
#endif

typedef ELEM elem_t;
#define HUGE_PAGE ((size_t)2 << 20)

void *traffic_alloc(size_t bytes)
{
    size_t size = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = aligned_alloc(HUGE_PAGE, size ? size : HUGE_PAGE);
    if (p)
        madvise(p, size, MADV_HUGEPAGE); /* a hint: without THP the step still runs, on 4 KiB pages */
    return p;
}

void traffic_free(void *p)
{
    free(p);
}

void traffic_fill(elem_t *p, size_t n, unsigned seed)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i)
        p[i] = (elem_t)(seed + i);
}

/* One step; returns its duration in ns (the native counterpart of a device time). */
double traffic_step(elem_t *const *in, elem_t *const *out, size_t n)
{
    elem_t *src[READS], *dst[WRITES];
    for (int k = 0; k < READS; ++k)
        src[k] = in[k];
    for (int k = 0; k < WRITES; ++k)
        dst[k] = out[k];
    struct timespec start, end;
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
    clock_gettime(CLOCK_MONOTONIC, &end);
    return (double)(end.tv_sec - start.tv_sec) * 1e9 + (double)(end.tv_nsec - start.tv_nsec);
}
