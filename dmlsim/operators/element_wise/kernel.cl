/* DirectML's element-wise operators, one build per member (-DFUNC_<NAME>):
 *   OutputTensor[i] = F   with a = g(A[i]) (InputTensor/ATensor), b = B[i], cond = ConditionTensor[i]
 * g(x) = x * scale + bias with -DSCALE_BIAS, else g(x) = x; p0, p1 are the member's attributes; ADD1
 * stores FUSED_ACTIVATION(a + b) (activations.h: -DFUSED_<NAME>, the identity when none).
 * Types: IN_T stores the first data input, B_T the second (POW's exponent may differ from its input; else
 * B_T is IN_T) and OUT_T the output (OpenCL names; -DIN_HALF / -DB_HALF / -DOUT_HALF for FLOAT16, loaded
 * with vload_half and stored with vstore_half_rte); real_t and breal_t compute (float for FLOAT16, else
 * the stored type: integers compute in their own type and wrap, 64-bit ones as long/ulong). The bitwise
 * members are built with the unsigned integer type of the data's width as IN_T/OUT_T, whatever the data
 * type (their bits are the data). INPUTS = 1 or 2 data inputs; -DCONDITION adds
 * IF's uchar condition first. Paths: -DPACKED (every tensor packed: this work-item's VEC-element runs,
 * FOR_EACH_VECTOR, the remainder of fewer than VEC elements done by work-item 0), -DROWS (CPU devices, some
 * tensor not packed: one work-item per row of the innermost dimension, each tensor's row start found once
 * from the row's coordinates, then one multiply-add per element along the row with that tensor's innermost
 * stride) or strided (one element per work-item, any DML strides of up to 8 dimensions, stride 0
 * broadcasting an input; the GPU's choice). Each element is
 * read before it is written and no pointer is restrict: the output may alias an input in place.
 */
#define DMLSIM_CUSTOM_STORAGE
#include "dmlsim.h"
#include "activations.h"

#if defined(IN_HALF)
typedef half in_t;
typedef float real_t;
#define LOAD_IN(p, i) vload_half((i), (p))
#else
typedef IN_T in_t;
typedef IN_T real_t;
#define LOAD_IN(p, i) ((p)[i])
#endif
#if defined(B_HALF)
typedef half b_t;
typedef float breal_t;
#define LOAD_B(p, i) vload_half((i), (p))
#else
typedef B_T b_t;
typedef B_T breal_t;
#define LOAD_B(p, i) ((p)[i])
#endif
#if defined(OUT_HALF)
typedef half out_t;
#define STORE_OUT(x, p, i) vstore_half_rte((float)(x), (i), (p))
#else
typedef OUT_T out_t;
#define STORE_OUT(x, p, i) ((p)[i] = (out_t)(x))
#endif
typedef PARAM_T param_t;

#ifdef SCALE_BIAS
#define G(x) ((x) * (real_t)scale + (real_t)bias)
#else
#define G(x) (x)
#endif

#ifdef IS_FLOAT
#define MAXV(x, y) fmax((x), (y))
#define MINV(x, y) fmin((x), (y))
#define ABSV(x) fabs(x)
#else
#define MAXV(x, y) max((x), (y))
#define MINV(x, y) min((x), (y))
#define ABSV(x) abs(x)
#endif

/* Integer division and remainder: a zero divisor gives 0 (DirectML leaves it unspecified), and the
 * signed MIN / -1 case, which traps on x86, wraps as the other overflows do (negated through ulong, where
 * wrapping is defined, for every width up to 64 bits). */
inline real_t divide(real_t a, real_t b)
{
#ifdef IS_FLOAT
    return a / b;
#else
    if (b == 0)
        return 0;
#ifdef IS_SIGNED
    if (b == (real_t)-1)
        return (real_t)((ulong)0 - (ulong)a);
#endif
    return a / b;
#endif
}

inline real_t remainder_truncated(real_t a, real_t b)
{
#ifdef IS_FLOAT
    return fmod(a, b);
#else
    if (b == 0)
        return 0;
#ifdef IS_SIGNED
    if (b == (real_t)-1)
        return 0;
#endif
    return a % b;
#endif
}

inline real_t remainder_floored(real_t a, real_t b)
{
    real_t r = remainder_truncated(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? (real_t)(r + b) : r;
}

#if !defined(IS_FLOAT)
/* Integer MEAN (INT32, UINT32): the exact sum in 64 bits, halved toward zero as integer DIVIDE truncates. */
#ifdef IS_SIGNED
#define MEAN_INTEGER(x, y) ((real_t)(((long)(x) + (long)(y)) / 2))
#else
#define MEAN_INTEGER(x, y) ((real_t)(((ulong)(x) + (ulong)(y)) / 2))
#endif
#endif

#if defined(FUNC_POW)
/* POW (DML_FEATURE_LEVEL_3_0 types: FLOAT32, FLOAT16 and the 8- to 32-bit integers, the exponent of any of
 * them). An integer base raised to an integer power: exactly, by squaring in the unsigned type of its width
 * (wrapping); a negative power is 1 / x^|e| truncated toward zero (1 for x = 1, +-1 for x = -1, else 0, x = 0
 * included). */
#if !defined(IS_FLOAT)
#if BITS == 64
typedef ulong uwrap_t;
#else
typedef uint uwrap_t;
#endif
inline real_t power_integer(real_t x, long e)
{
    if (e < 0) {
        if (x == 1)
            return 1;
#ifdef IS_SIGNED
        if (x == (real_t)-1)
            return (e & 1) ? x : (real_t)1;
#endif
        return 0;
    }
    uwrap_t result = 1, base = (uwrap_t)x;
    for (ulong n = (ulong)e; n != 0; n >>= 1) {
        if (n & 1)
            result = (uwrap_t)(result * base);
        base = (uwrap_t)(base * base);
    }
    return (real_t)result;
}
#define CONVERT_SAT_RTZ_(t) convert_##t##_sat_rtz
#define CONVERT_SAT_RTZ(t) CONVERT_SAT_RTZ_(t)
#endif

inline real_t power(real_t a, breal_t b)
{
#if defined(IS_FLOAT) && defined(B_IS_FLOAT)
    return pow(a, (real_t)b);
#elif defined(IS_FLOAT)
    /* an integer exponent: |a|^e through pow (exponents beyond 2^24 rounded to float only in magnitude),
     * the sign from a and the exponent's parity, which float would lose */
    const long e = (long)b;
    const real_t r = pow(fabs(a), (real_t)e);
    return (signbit(a) && (e & 1)) ? -r : r;
#elif defined(B_IS_FLOAT)
    /* an integer base, a FLOAT exponent: exact if the exponent is an integer, else the float32 power
     * truncated toward zero and saturated to the type (NaN: 0), as CAST converts */
    const float e = (float)b;
    if (isfinite(e) && e == trunc(e))
        return power_integer(a, (long)clamp(e, -0x1p62f, 0x1p62f));
    /* NaN -> 0 spelled out, as CAST's kernel does: PyPI's PoCL 3.0 saturates NaN to the type's minimum */
    const float r = pow((float)a, e);
    return isnan(r) ? (real_t)0 : CONVERT_SAT_RTZ(IN_T)(r);
#else
    return power_integer(a, (long)b);
#endif
}
#endif

#if defined(FUNC_IDENTITY)
#define F (a)
#elif defined(FUNC_ABS)
#define F ABSV(a)
#elif defined(FUNC_NEGATE)
#define F (-(a))
#elif defined(FUNC_SIGN)
#define F ((real_t)((a > 0) - (a < 0)))
#elif defined(FUNC_ACOS)
#define F acos(a)
#elif defined(FUNC_ASIN)
#define F asin(a)
#elif defined(FUNC_ATAN)
#define F atan(a)
#elif defined(FUNC_COS)
#define F cos(a)
#elif defined(FUNC_SIN)
#define F sin(a)
#elif defined(FUNC_TAN)
#define F tan(a)
#elif defined(FUNC_EXP) && defined(REAL_DOUBLE)
#define F exp(a)
#elif defined(FUNC_EXP)
#define F dml_exp(a) /* dmlsim.h: PyPI PoCL 3.0's exp is a library call, and its loops then stay scalar */
#elif defined(FUNC_LOG)
#define F log(a)
#elif defined(FUNC_SQRT)
#define F sqrt(a)
#elif defined(FUNC_RECIP)
#define F ((real_t)1 / (a))
#elif defined(FUNC_CEIL)
#define F ceil(a)
#elif defined(FUNC_FLOOR)
#define F floor(a)
#elif defined(FUNC_ERF) && defined(REAL_DOUBLE)
#define F erf(a)
#elif defined(FUNC_ERF)
#define F dml_erf(a) /* dmlsim.h: PoCL's erf is 50 times its exp */
#elif defined(FUNC_SINH)
#define F sinh(a)
#elif defined(FUNC_COSH)
#define F cosh(a)
#elif defined(FUNC_TANH)
#define F tanh(a)
#elif defined(FUNC_ASINH)
#define F asinh(a)
#elif defined(FUNC_ACOSH)
#define F acosh(a)
#elif defined(FUNC_ATANH)
#define F atanh(a)
#elif defined(FUNC_ROUND) && MODE_RoundingMode == 0
#define F rint(a)
#elif defined(FUNC_ROUND) && MODE_RoundingMode == 1
#define F trunc(a)
#elif defined(FUNC_ROUND)
#define F round(a)
#elif defined(FUNC_IS_NAN)
#define F isnan(a)
#elif defined(FUNC_IS_INFINITY) && MODE_InfinityMode == 0
#define F isinf(a)
#elif defined(FUNC_IS_INFINITY) && MODE_InfinityMode == 1
#define F (a == INFINITY)
#elif defined(FUNC_IS_INFINITY)
#define F (a == -INFINITY)
#elif defined(FUNC_CONSTANT_POW)
#define F pow(a, (real_t)p0)
#elif defined(FUNC_THRESHOLD)
#define F MAXV(a, (real_t)p0)
#elif defined(FUNC_CLIP) || defined(FUNC_CLIP1)
#define F MINV(MAXV(a, (real_t)p0), (real_t)p1)
#elif defined(FUNC_CLIP_GRAD) && !defined(IS_FLOAT)
/* FLOAT bounds on an integer tensor: p0 ... p1 is the integer range strictly inside (Min, Max) */
#define F ((a >= (real_t)p0 && a <= (real_t)p1) ? b : (real_t)0)
#elif defined(FUNC_CLIP_GRAD) || defined(FUNC_CLIP_GRAD1)
#define F (((param_t)a <= p0 || (param_t)a >= p1) ? (real_t)0 : b)
#elif defined(FUNC_ADD)
#define F (a + b)
#elif defined(FUNC_ADD1)
#define F FUSED_ACTIVATION(a + b)
#elif defined(FUNC_SUBTRACT)
#define F (a - b)
#elif defined(FUNC_MULTIPLY)
#define F (a * b)
#elif defined(FUNC_DIVIDE)
#define F divide(a, b)
#elif defined(FUNC_MAX)
#define F MAXV(a, b)
#elif defined(FUNC_MIN)
#define F MINV(a, b)
#elif defined(FUNC_MEAN) && defined(IS_FLOAT)
#define F ((a + b) * (real_t)0.5)
#elif defined(FUNC_MEAN)
#define F MEAN_INTEGER(a, b)
#elif defined(FUNC_POW)
#define F power(a, b)
#elif defined(FUNC_ATAN_YX)
#define F atan2(a, b)
#elif defined(FUNC_DIFFERENCE_SQUARE)
#define F ((a - b) * (a - b))
#elif defined(FUNC_MODULUS_TRUNCATE)
#define F remainder_truncated(a, b)
#elif defined(FUNC_MODULUS_FLOOR)
#define F remainder_floored(a, b)
#elif defined(FUNC_LOGICAL_EQUALS)
#define F (a == b)
#elif defined(FUNC_LOGICAL_GREATER_THAN)
#define F (a > b)
#elif defined(FUNC_LOGICAL_LESS_THAN)
#define F (a < b)
#elif defined(FUNC_LOGICAL_GREATER_THAN_OR_EQUAL)
#define F (a >= b)
#elif defined(FUNC_LOGICAL_LESS_THAN_OR_EQUAL)
#define F (a <= b)
#elif defined(FUNC_LOGICAL_AND)
#define F (a != 0 && b != 0)
#elif defined(FUNC_LOGICAL_OR)
#define F (a != 0 || b != 0)
#elif defined(FUNC_LOGICAL_XOR)
#define F ((a != 0) != (b != 0))
#elif defined(FUNC_LOGICAL_NOT)
#define F (a == 0)
#elif defined(FUNC_BIT_AND)
#define F (a & b)
#elif defined(FUNC_BIT_OR)
#define F (a | b)
#elif defined(FUNC_BIT_XOR)
#define F (a ^ b)
#elif defined(FUNC_BIT_NOT)
#define F (~a)
#elif defined(FUNC_BIT_COUNT)
#define F popcount(a)
#elif defined(FUNC_BIT_SHIFT_LEFT)
#define F (a << (b & (BITS - 1)))
#elif defined(FUNC_BIT_SHIFT_RIGHT)
#define F (a >> (b & (BITS - 1)))
#elif defined(FUNC_IF)
#define F (cond != 0 ? a : b)
#else
#error "no element-wise function selected (-DFUNC_<NAME>)"
#endif

/* One element: read the inputs at their element offsets, compute F, store at the output's. */
#if INPUTS == 2
#define READ_B(ib) const breal_t b = LOAD_B(b__base + b__offset, (ib));
#else
#define READ_B(ib)
#endif
#ifdef CONDITION
#define READ_COND(ic) const uchar cond = c__base[c__offset + (ic)];
#else
#define READ_COND(ic)
#endif
#define ELEMENT(ic, ia, ib, iy)                                    \
    {                                                              \
        READ_COND(ic)                                              \
        const real_t a = G(LOAD_IN(a__base + a__offset, (ia)));    \
        READ_B(ib)                                                 \
        STORE_OUT(F, y__base + y__offset, (iy));                   \
    }

__kernel void element_wise(
#ifdef CONDITION
    __global const uchar *c__base, ulong c__offset, ulong8 c__strides,
#endif
    __global const in_t *a__base, ulong a__offset, ulong8 a__strides,
#if INPUTS == 2
    __global const b_t *b__base, ulong b__offset, ulong8 b__strides,
#endif
    __global out_t *y__base, ulong y__offset, ulong8 y__strides,
    float scale, float bias, param_t p0, param_t p1, ulong8 sizes, uint n)
{
#ifdef PACKED
    const uint nvec = n / VEC;
    FOR_EACH_VECTOR(v, nvec) {
        for (uint k = v * VEC; k < v * VEC + VEC; ++k)
            ELEMENT(k, k, k, k)
    }
    if (get_global_id(0) == 0) {
        for (uint k = nvec * VEC; k < n; ++k)
            ELEMENT(k, k, k, k)
    }
#elif defined(ROWS)
    const uint inner = (uint)sizes.s7;
    const uint row = get_global_id(0);
    if (row >= n / inner)
        return;
    COORDS8(c, row * inner, sizes) /* the row's first element: c[7] = 0 */
#ifdef CONDITION
    const ulong oc = OFFSET8(c, c__strides), sc = c__strides.s7;
#define ROW_C(k) (oc + (ulong)(k) * sc)
#else
#define ROW_C(k) 0
#endif
#if INPUTS == 2
    const ulong ob = OFFSET8(c, b__strides), sb = b__strides.s7;
#define ROW_B(k) (ob + (ulong)(k) * sb)
#else
#define ROW_B(k) 0
#endif
    const ulong oa = OFFSET8(c, a__strides), sa = a__strides.s7;
    const ulong oy = OFFSET8(c, y__strides), sy = y__strides.s7;
    for (uint k = 0; k < inner; ++k)
        ELEMENT(ROW_C(k), oa + (ulong)k * sa, ROW_B(k), oy + (ulong)k * sy)
#else
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    COORDS8(c, gid, sizes)
    /* an argument whose READ_ macro expands to nothing is never evaluated */
    ELEMENT(OFFSET8(c, c__strides), OFFSET8(c, a__strides), OFFSET8(c, b__strides), OFFSET8(c, y__strides))
#endif
}
