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

/* Vector access on CPU devices. dmlsim/backends/opencl/geometry.py defines DMLSIM_CPU for CPU launch
 * targets; where clang compiles the kernel (PoCL, Intel's runtime), packed vectors are then read and written
 * by dereferencing element-aligned vector types, halves are converted by F16C instructions where the target
 * has them, and float vectors take their square root with SSE/AVX's sqrtps. PyPI's PoCL 3.0 compiles
 * vloadn/vstoren, vload_halfn/vstore_halfn_rte and vector sqrt as calls into its kernel library, which
 * halved Adam's speed there (2^24 elements: FLOAT32 22.5 -> 43.4 GB/s, FLOAT16 11 -> 37 GB/s; see
 * benchmarks/README.md). The values are the same bit for bit: a load moves the same bytes, widening a half
 * is exact, F16C narrows to nearest even (the default MXCSR rounding) and sqrtps is IEEE's correctly
 * rounded square root. GPU launch targets keep the OpenCL built-ins (the tests run both on CPU devices). */
#if defined(DMLSIM_CPU) && defined(__clang__)
#define DMLSIM_DIRECT_VECTORS 1
#endif

#ifdef DMLSIM_DIRECT_VECTORS
/* DMLSIM_UNALIGNED(T, n) declares dmlsim_Tn_u, a Tn with T's alignment (a typedef may lower alignment). */
#define DMLSIM_UNALIGNED_T(T, n) DMLSIM_CAT(DMLSIM_CAT(dmlsim_, DMLSIM_CAT(T, n)), _u)
#define DMLSIM_UNALIGNED(T, n) typedef DMLSIM_CAT(T, n) DMLSIM_UNALIGNED_T(T, n) __attribute__((aligned(sizeof(T))));
#define DMLSIM_VLOAD(T, n, i, p) (*(__global const DMLSIM_UNALIGNED_T(T, n) *)((p) + (size_t)(i) * (n)))
#define DMLSIM_VSTORE(T, n, x, i, p) (*(__global DMLSIM_UNALIGNED_T(T, n) *)((p) + (size_t)(i) * (n)) = (x))
#else
#define DMLSIM_UNALIGNED(T, n)
#define DMLSIM_VLOAD(T, n, i, p) DMLSIM_CAT(vload, n)((i), (p))
#define DMLSIM_VSTORE(T, n, x, i, p) DMLSIM_CAT(vstore, n)((x), (i), (p))
#endif

/* sqrt of a VEC-wide float vector (SQRTV, defined with the storage type for float compute): sqrtps on
 * CPU devices where the target has it (see above); 16 wide as two 8-wide halves, since a 512-bit argument
 * breaks the calls into PyPI PoCL 3.0's kernel library on AVX-512 hosts ("Cannot select fsqrt"; CPU plans
 * stay at 256 bits anyway: CPU_VECTOR_BYTES in dmlsim/operators/plan.py). */
#if defined(DMLSIM_DIRECT_VECTORS) && defined(__AVX__)
#define DMLSIM_SQRT_FLOAT8(a) __builtin_ia32_sqrtps256(a)
#else
#define DMLSIM_SQRT_FLOAT8(a) sqrt(a)
#endif
#if defined(DMLSIM_DIRECT_VECTORS) && defined(__SSE__)
#define DMLSIM_SQRT_FLOAT4(a) __builtin_ia32_sqrtps(a)
#else
#define DMLSIM_SQRT_FLOAT4(a) sqrt(a)
#endif
#if VEC == 16
#define DMLSIM_SQRT_FLOATV(a) ((float16)(DMLSIM_SQRT_FLOAT8((a).lo), DMLSIM_SQRT_FLOAT8((a).hi)))
#elif VEC == 8
#define DMLSIM_SQRT_FLOATV(a) DMLSIM_SQRT_FLOAT8(a)
#elif VEC == 4
#define DMLSIM_SQRT_FLOATV(a) DMLSIM_SQRT_FLOAT4(a)
#else
#define DMLSIM_SQRT_FLOATV(a) sqrt(a)
#endif

#ifndef DMLSIM_CUSTOM_STORAGE  /* a kernel with several storage types declares its own */
#if defined(STORE_HALF)
typedef half store_t;
typedef float real_t;
#define REALV DMLSIM_CAT(float, VEC)
#define LOAD(p, i) vload_half((i), (p))
#define STORE(x, p, i) vstore_half_rte((x), (i), (p))
#if defined(DMLSIM_DIRECT_VECTORS) && defined(__F16C__) && VEC > 1
typedef __fp16 dmlsim_halfv __attribute__((ext_vector_type(VEC)));
typedef dmlsim_halfv dmlsim_halfv_u __attribute__((aligned(2)));
#define LOADV(p, i) __builtin_convertvector(*(__global const dmlsim_halfv_u *)((p) + (size_t)(i) * VEC), REALV)
#define STOREV(x, p, i) (*(__global dmlsim_halfv_u *)((p) + (size_t)(i) * VEC) = __builtin_convertvector((x), dmlsim_halfv))
#else
#define LOADV(p, i) DMLSIM_CAT(vload_half, VEC)((i), (p))
#define STOREV(x, p, i) DMLSIM_CAT(DMLSIM_CAT(vstore_half, VEC), _rte)((x), (i), (p))
#endif
#define SQRTV(a) DMLSIM_SQRT_FLOATV(a)
#elif defined(STORE_DOUBLE)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double store_t;
typedef double real_t;
#define REALV DMLSIM_CAT(double, VEC)
#define LOAD(p, i) ((p)[i])
#define STORE(x, p, i) ((p)[i] = (x))
#if VEC > 1
DMLSIM_UNALIGNED(double, VEC)
#endif
#define LOADV(p, i) DMLSIM_VLOAD(double, VEC, i, p)
#define STOREV(x, p, i) DMLSIM_VSTORE(double, VEC, x, i, p)
#define SQRTV(a) sqrt(a)
#elif defined(STORE_INTEGER)
typedef STORE_INTEGER store_t;
typedef STORE_INTEGER real_t;
#define REALV DMLSIM_CAT(STORE_INTEGER, VEC)
#define LOAD(p, i) ((p)[i])
#define STORE(x, p, i) ((p)[i] = (x))
#if VEC > 1
DMLSIM_UNALIGNED(STORE_INTEGER, VEC)
#endif
#define LOADV(p, i) DMLSIM_VLOAD(STORE_INTEGER, VEC, i, p)
#define STOREV(x, p, i) DMLSIM_VSTORE(STORE_INTEGER, VEC, x, i, p)
#else
typedef float store_t;
typedef float real_t;
#define REALV DMLSIM_CAT(float, VEC)
#define LOAD(p, i) ((p)[i])
#define STORE(x, p, i) ((p)[i] = (x))
#if VEC > 1
DMLSIM_UNALIGNED(float, VEC)
#endif
#define LOADV(p, i) DMLSIM_VLOAD(float, VEC, i, p)
#define STOREV(x, p, i) DMLSIM_VSTORE(float, VEC, x, i, p)
#define SQRTV(a) DMLSIM_SQRT_FLOATV(a)
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
/* a dimension of size 1 (every leading one of a tensor of fewer than 8) costs no division: the branch is uniform
 * over the launch, and a 32-bit division costs tens of cycles where the kernel's own work is a few */
#define COORDS8_STEP_(c, r, sizes, k)                    \
    if ((uint)(sizes).s##k == 1u) {                      \
        c[k] = 0;                                        \
    } else {                                             \
        c[k] = r % (uint)(sizes).s##k;                   \
        r /= (uint)(sizes).s##k;                         \
    }
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


/* exp in float32, dmlsim's own, inline and free of library calls: PyPI's PoCL 3.0 calls its builtin exp (and fmin,
 * fmax, fma, rint) as library functions, and a loop with a call in it is not vectorized (exp of 2^24 elements:
 * 42 ms there, 10 ms with this; PoCL 3.1: 9.3 and 9.4 ms). x = n ln2 + r: n rounded by the 1.5 * 2^23 trick,
 * r by Cody-Waite with a 16-bit ln2_hi (n ln2_hi exact for |n| <= 256), |r| <= ln2 / 2; e^r by its degree-7 Taylor
 * polynomial in Horner form (truncation below 0.1 ulp); times 2^n in two steps of about 2^(n/2) each, exact or
 * rounding once, so that a subnormal result is rounded once and no scale factor leaves the normal range. x is
 * clamped to [-104, 89] by selects (below -104 the result rounds to 0, above 88.73 it is +inf either way); a NaN
 * passes the selects and makes r, p and the result NaN. Within 1.25 ulps of the float64 exp on a dense grid of [-104.5, 89.5] and 5 million
 * random bit patterns, the same bits on PoCL 3.1 and 3.0 and Intel's runtime (ELEMENT_WISE_EXP computes it:
 * tests/test_element_wise_members.py's test_exp_on_a_dense_grid_and_its_specials). Where code is explicitly
 * float8 (softmax's runs), the builtin exp of a float8 is faster: it is a vector call on every implementation here. */
__attribute__((always_inline)) inline float dml_exp(float x)
{
    const float c = x < -104.0f ? -104.0f : x > 89.0f ? 89.0f : x; /* selects: PoCL 3.0 calls fmin/fmax */
    const float n = (c * 1.44269502162933349609375f + 12582912.0f) - 12582912.0f; /* rint: the 1.5 * 2^23 trick */
    const float r = (c - n * 0.693145751953125f) - n * 1.428606765330187045e-06f;   /* the first product exact */
    const float p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6.0f + r * (1.0f / 24.0f + r * (1.0f / 120.0f +
                    r * (1.0f / 720.0f + r * (1.0f / 5040.0f)))))));
    const int k = (int)n;
    const int k1 = k >> 1, k2 = k - k1;
    return (p * as_float((k1 + 127) << 23)) * as_float((k2 + 127) << 23); /* a NaN x: r and p are NaN */
}

/* erf and erfc in float32, dmlsim's own (tools/fit_erf.py makes and checks the coefficients): PoCL's builtins take
 * 35-60 ns an element on a CPU (50 times its exp), which made one GELU half a transformer layer's time.
 * erfc(z), z >= 0: t * exp(-z^2 + g(t)) with t = 1 / (1 + z/2) and g a degree-9 polynomial fitted to
 * ln(erfc(z) / t) + z^2 on z in [0, 10]; -z^2 as -hi^2 - lo * (z + hi), hi = z with 12 significant bits (hi^2
 * exact), so the large exponent costs no accuracy; 0 from z = 9.1953125 on (erfc below FLT_MIN: flushed to zero).
 * erf(x): x * P(x^2) (degree 6, fitted to erf(x)/x) below |x| = 1, else sign(x) * (1 - erfc(|x|)).
 * exp is dml_exp (above). Measured against float64 on dense grids (emulated in float32 by the tool): erf within
 * 2.4 ulps, erfc within 6.1 ulps of its own value; erf(+-0) = +-0, erf(+-inf) = +-1, erfc(-inf) = 2, NaN gives NaN.
 * Forced inline (DML_INLINE): PoCL left them as calls, and a loop with a call in it is not vectorized (5 to 8 times
 * slower); so is the clamp of z below. */
#define DML_INLINE __attribute__((always_inline)) inline
DML_INLINE float dml_erfc_nonneg(float z0)
{
    /* z clamped first, so that no exp argument is huge (PoCL's exp then took 8 times longer) and no result is a
     * float32 subnormal (x86 computes those 100 times slower): erfc is below FLT_MIN from z = 9.1953125 on, where the
     * select below gives 0 (and keeps a NaN) */
    const float z = z0 < 9.1953125f ? z0 : 9.1953125f; /* a select: PoCL 3.0 calls fmin (NaN: the select below) */
    const float t = 1.0f / (1.0f + 0.5f * z);
    const float g = -1.265447974205017f + t * (0.9986327886581421f + t * (0.38664039969444275f +
                    t * (0.03460279852151871f + t * (0.0012675854377448559f + t * (-0.08028043061494827f +
                    t * (-0.6962519288063049f + t * (1.156733751296997f + t * (-0.6808272004127502f +
                    t * 0.14493021368980408f))))))));
    const float hi = as_float(as_uint(z) & 0xfffff000u);
    const float lo = z - hi;
    const float r = t * dml_exp(-hi * hi) * dml_exp(g - lo * (z + hi));
    return z0 < 9.1953125f ? r : (z0 == z0 ? 0.0f : z0); /* selects, no branch: loops over elements stay vectorized */
}
DML_INLINE float dml_erfc(float x)
{
    const float r = dml_erfc_nonneg(as_float(as_uint(x) & 0x7fffffffu)); /* |x| without PoCL 3.0's fabs call */
    return x < 0.0f ? 2.0f - r : r;
}
DML_INLINE float dml_erf(float x)
{
    /* on |x| and the sign put back last: the form PoCL vectorizes (a select between x * P and a negated 1 - erfc
     * ran 3 times slower) */
    const float ax = as_float(as_uint(x) & 0x7fffffffu); /* |x| and the sign below by bits: no library calls */
    const float u = ax * ax;
    const float small = ax * (1.1283791065216064f + u * (-0.3761262595653534f + u * (0.11283597350120544f +
                        u * (-0.02685432881116867f + u * (0.005189312156289816f + u * (-0.0008018855005502701f +
                        u * 7.882497448008507e-05f))))));
    const float large = 1.0f - dml_erfc_nonneg(ax);
    return as_float(as_uint(ax < 1.0f ? small : large) | (as_uint(x) & 0x80000000u));
}

#endif
