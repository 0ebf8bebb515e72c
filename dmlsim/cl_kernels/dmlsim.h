/* Shared definitions for dmlsim kernels.
 *
 * Storage type is chosen at build time; arithmetic is float32 unless storage is double:
 *   (default)      float storage, float compute
 *   -DSTORE_HALF   half storage through vload_half/vstore_half_rte (core OpenCL, no cl_khr_fp16),
 *                  float compute, round to nearest even on store
 *   -DSTORE_DOUBLE double storage and compute (needs cl_khr_fp64)
 *   -DSTORE_INTEGER=t  integer storage and compute in the OpenCL type t (char, uchar, ... ulong)
 * -DVEC=n (2, 4, 8) is the vector width of packed fast paths. A kernel whose tensors have different
 * storage types defines DMLSIM_CUSTOM_STORAGE before including this header and declares its own.
 *
 * Contraction into fma is off so that every layout path (vector, scalar, strided) rounds the same
 * way: in-place and out-of-place, packed and padded results are bitwise identical.
 */
#ifndef DMLSIM_H
#define DMLSIM_H

#pragma OPENCL FP_CONTRACT OFF

#define DMLSIM_CAT_(a, b) a##b
#define DMLSIM_CAT(a, b) DMLSIM_CAT_(a, b)

#ifndef VEC
#define VEC 8
#endif

#ifndef DMLSIM_CUSTOM_STORAGE  /* a kernel with several storage types declares its own */
#if defined(STORE_HALF)
typedef half store_t;
typedef float real_t;
#define REALV DMLSIM_CAT(float, VEC)
#define LOAD(p, i) vload_half((i), (p))
#define STORE(x, p, i) vstore_half_rte((x), (i), (p))
#define LOADV(p, i) DMLSIM_CAT(vload_half, VEC)((i), (p))
#define STOREV(x, p, i) DMLSIM_CAT(DMLSIM_CAT(vstore_half, VEC), _rte)((x), (i), (p))
#elif defined(STORE_DOUBLE)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double store_t;
typedef double real_t;
#define REALV DMLSIM_CAT(double, VEC)
#define LOAD(p, i) ((p)[i])
#define STORE(x, p, i) ((p)[i] = (x))
#define LOADV(p, i) DMLSIM_CAT(vload, VEC)((i), (p))
#define STOREV(x, p, i) DMLSIM_CAT(vstore, VEC)((x), (i), (p))
#elif defined(STORE_INTEGER)
typedef STORE_INTEGER store_t;
typedef STORE_INTEGER real_t;
#define REALV DMLSIM_CAT(STORE_INTEGER, VEC)
#define LOAD(p, i) ((p)[i])
#define STORE(x, p, i) ((p)[i] = (x))
#define LOADV(p, i) DMLSIM_CAT(vload, VEC)((i), (p))
#define STOREV(x, p, i) DMLSIM_CAT(vstore, VEC)((x), (i), (p))
#else
typedef float store_t;
typedef float real_t;
#define REALV DMLSIM_CAT(float, VEC)
#define LOAD(p, i) ((p)[i])
#define STORE(x, p, i) ((p)[i] = (x))
#define LOADV(p, i) DMLSIM_CAT(vload, VEC)((i), (p))
#define STOREV(x, p, i) DMLSIM_CAT(vstore, VEC)((x), (i), (p))
#endif
#endif

/* Kernel arguments of one bound tensor: its buffer, its binding offset in elements and its DML strides
 * in elements (pyopencl's name__base + name__offset convention; no sub-buffer alignment limits). */
#define TENSOR_IN(name) __global const store_t *name##__base, ulong name##__offset, ulong4 name##__strides
#define TENSOR_OUT(name) __global store_t *name##__base, ulong name##__offset, ulong4 name##__strides
#define TENSOR_PTR(name) (name##__base + name##__offset)
/* The same with 8-D strides (ulong8), for operators of up to DML_TENSOR_DIMENSION_COUNT_MAX1 dimensions. */
#define TENSOR_IN8(name) __global const store_t *name##__base, ulong name##__offset, ulong8 name##__strides
#define TENSOR_OUT8(name) __global store_t *name##__base, ulong name##__offset, ulong8 name##__strides

/* Element offset of linear (row-major) index i of a 4-D tensor with the given sizes and strides.
 * Coordinates fit in uint: DirectML tensors have at most 2^32-1 elements. */
inline ulong strided_offset4(uint i, ulong4 sizes, ulong4 strides)
{
    uint d3 = i % (uint)sizes.w; i /= (uint)sizes.w;
    uint d2 = i % (uint)sizes.z; i /= (uint)sizes.z;
    uint d1 = i % (uint)sizes.y;
    uint d0 = i / (uint)sizes.y;
    return d0 * strides.x + d1 * strides.y + d2 * strides.z + d3 * strides.w;
}

/* Up to 8-D tensors (sizes and strides padded at the front to ulong8). Macros, not functions: a ulong8
 * function argument changes the ABI on CPUs without AVX-512 (PoCL warns). COORDS8(c, i, sizes) declares
 * uint c[8], the row-major coordinates of linear index i; OFFSET8(c, strides) is that element's offset in
 * elements. Coordinates fit in uint: DirectML tensors have at most 2^32-1 elements. */
#define COORDS8_STEP_(c, r, sizes, k) c[k] = r % (uint)(sizes).s##k; r /= (uint)(sizes).s##k;
#define COORDS8(c, i, sizes)                                                              \
    uint c[8];                                                                            \
    {                                                                                     \
        uint r_ = (i);                                                                    \
        COORDS8_STEP_(c, r_, sizes, 7) COORDS8_STEP_(c, r_, sizes, 6)                     \
        COORDS8_STEP_(c, r_, sizes, 5) COORDS8_STEP_(c, r_, sizes, 4)                     \
        COORDS8_STEP_(c, r_, sizes, 3) COORDS8_STEP_(c, r_, sizes, 2)                     \
        COORDS8_STEP_(c, r_, sizes, 1) c[0] = r_;                                         \
    }
#define OFFSET8(c, strides)                                                               \
    ((ulong)c[0] * (strides).s0 + (ulong)c[1] * (strides).s1 + (ulong)c[2] * (strides).s2 + \
     (ulong)c[3] * (strides).s3 + (ulong)c[4] * (strides).s4 + (ulong)c[5] * (strides).s5 + \
     (ulong)c[6] * (strides).s6 + (ulong)c[7] * (strides).s7)

/* The VEC-wide vectors of a packed streaming kernel that this work-item handles, as a for-loop header:
 * -DCHUNKED (CPU devices) one contiguous chunk of ceil(nvec / G) vectors per work-item, otherwise a
 * grid-stride loop (work-item i does vectors i, i+G, i+2G...: coalesced on GPUs). */
#ifdef CHUNKED
#define FOR_EACH_VECTOR(i, nvec)                                                          \
    const uint i##_per_item = ((nvec) + (uint)get_global_size(0) - 1) / (uint)get_global_size(0); \
    const uint i##_first = min((uint)get_global_id(0) * i##_per_item, (uint)(nvec));      \
    const uint i##_last = min(i##_first + i##_per_item, (uint)(nvec));                    \
    for (uint i = i##_first; i < i##_last; ++i)
#else
#define FOR_EACH_VECTOR(i, nvec) \
    for (uint i = get_global_id(0); i < (uint)(nvec); i += (uint)get_global_size(0))
#endif

/* 1 - b^t for an integer t, accurate to a few ulps also where b^t is close to 1 (small t, b near 1),
 * where computing pow then subtracting would cancel away about three digits. One definition for
 * float and (where cl_khr_fp64 is enabled) double: ONE_MINUS_POW(type, name). t = 0 gives 0. */
#define ONE_MINUS_POW(T, NAME)                            \
    inline T NAME(T b, long t)                            \
    {                                                     \
        if (t == 0)                                       \
            return (T)0;                                  \
        if (b == (T)0)                                    \
            return (T)1;                                  \
        if (b > (T)0)                                     \
            return -expm1((T)t * log(b));                 \
        T p = exp((T)t * log(-b));                        \
        return (t & 1) ? (T)1 + p : (T)1 - p;             \
    }
ONE_MINUS_POW(float, one_minus_pow)
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
ONE_MINUS_POW(double, one_minus_pow_double)
#endif

#endif
