/* A plain OpenCL copy: the bandwidth roofline that `dmlsim bench` measures operators against.
 *
 * Copies n_floats floats from src to dst as VEC-wide vectors; the remainder (fewer than VEC floats)
 * is done by work-item 0. Build variants:
 *   -DVEC=4|8|16   vector width in floats (nothing is computed, so 16 is safe on every PoCL LLVM)
 *   -DCHUNKED      work-item i copies ceil(nvec/G) consecutive vectors (G = global size); otherwise a
 *                  grid-stride loop: work-item i copies vectors i, i+G, i+2G...
 */
#ifndef VEC
#define VEC 8
#endif
#define COPY_CAT_(a, b) a##b
#define COPY_CAT(a, b) COPY_CAT_(a, b)
#define COPY_T COPY_CAT(float, VEC)

__kernel void copy(__global const float *src, __global float *dst, ulong n_floats)
{
    const size_t gid = get_global_id(0);
    const size_t items = get_global_size(0);
    const size_t nvec = n_floats / VEC;
    __global const COPY_T *s = (__global const COPY_T *)src;
    __global COPY_T *d = (__global COPY_T *)dst;
#ifdef CHUNKED
    const size_t per_item = (nvec + items - 1) / items;
    const size_t first = min(gid * per_item, nvec);
    const size_t last = min(first + per_item, nvec);
    for (size_t i = first; i < last; ++i)
        d[i] = s[i];
#else
    for (size_t i = gid; i < nvec; i += items)
        d[i] = s[i];
#endif
    if (gid == 0)
        for (size_t i = nvec * VEC; i < n_floats; ++i)
            dst[i] = src[i];
}
