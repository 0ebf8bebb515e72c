/* Memory for the native limits of `dmlsim bench` (compiled into every native kernel's library).
 *
 * native_alloc: 2 MiB aligned, transparent huge pages requested with madvise (a hint: without THP the
 * kernels still run, on 4 KiB pages). native_touch: the first touch, by the OpenMP threads, with the
 * static schedule the kernels use, so that each thread streams the pages it placed. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)

void *native_alloc(size_t bytes)
{
    size_t size = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = aligned_alloc(HUGE_PAGE, size ? size : HUGE_PAGE);
    if (p)
        madvise(p, size, MADV_HUGEPAGE);
    return p;
}

void native_free(void *p)
{
    free(p);
}

void native_touch(unsigned char *p, size_t bytes)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < bytes; ++i)
        p[i] = 0;
}
