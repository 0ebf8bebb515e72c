/* DML_OPERATOR_REDUCE (every DML_REDUCE_FUNCTION), DML_OPERATOR_ARGMIN and DML_OPERATOR_ARGMAX.
 * One work-item per output element: it walks the n_red input elements of its reduction (the reduced
 * axes' coordinates, row-major over red_sizes, added to its own coordinates, which are 0 on the reduced
 * axes) in increasing order. -DFUNC_<NAME> picks the function; ACC_T is float for FLOAT16/FLOAT32
 * inputs, the integer type itself for integers. Sums and products accumulate in SUM_T: ACC_T, or for
 * signed integers the unsigned type of the same width, so that they wrap (two's complement) instead of
 * overflowing a signed type, which C leaves undefined.
 * ARGMIN/ARGMAX store the index of the chosen element within the reduced axes (row-major over them):
 * -DLAST_INDEX keeps the last of equal elements (DML_AXIS_DIRECTION_DECREASING), else the first.
 * A NaN is chosen over every number, by ARGMIN as by ARGMAX, and among NaNs the first (or, with
 * LAST_INDEX, the last): dmlsim's rule where the pages are silent (README "Decisions"; numpy's, torch's and
 * ONNX's reference ArgMax/ArgMin), so the index does not depend on where the NaN stands. MAX and MIN
 * ignore NaN (fmax/fmin).
 */
#include "typed.h"

#if defined(FUNC_MAX) || defined(FUNC_MIN) || defined(FUNC_ARGMAX) || defined(FUNC_ARGMIN)
#define SELECTS
#endif
#ifdef ACC_FLOAT
#define ABS(v) fabs(v)
#define MAXF(a, b) fmax((a), (b))
#define MINF(a, b) fmin((a), (b))
#define IS_NAN(v) isnan(v)
#else
#define ABS(v) abs(v) /* unsigned: |INT_MIN| fits */
#define MAXF(a, b) max((a), (b))
#define MINF(a, b) min((a), (b))
#define IS_NAN(v) 0
#endif

/* The input element of reduction step r for the output element at coordinates c. */
#define INPUT_AT(v, r)                                      \
    {                                                       \
        COORDS8(k, (r), red_sizes)                          \
        for (int d = 0; d < 8; ++d)                         \
            k[d] += c[d];                                   \
        v = LOAD_IN(TENSOR_PTR(x), OFFSET8(k, x__strides)); \
    }

__kernel void reduce(TYPED_IN8(x), TYPED_OUT8(y), ulong8 out_sizes, ulong8 red_sizes, uint n_out, uint n_red)
{
    const uint gid = get_global_id(0);
    if (gid >= n_out)
        return;
    COORDS8(c, gid, out_sizes)
    ACC_T v;
#if defined(SELECTS)
    ACC_T best;
    INPUT_AT(best, 0)
    uint index = 0;
    for (uint r = 1; r < n_red; ++r) {
        INPUT_AT(v, r)
#if defined(FUNC_MAX)
        best = MAXF(best, v);
#elif defined(FUNC_MIN)
        best = MINF(best, v);
#elif defined(LAST_INDEX) && defined(FUNC_ARGMAX) /* every NaN is taken; a number never replaces a NaN */
        if (v >= best || IS_NAN(v)) { best = v; index = r; }
#elif defined(LAST_INDEX)
        if (v <= best || IS_NAN(v)) { best = v; index = r; }
#elif defined(FUNC_ARGMAX) /* the first NaN is taken, and kept */
        if (v > best || (IS_NAN(v) && !IS_NAN(best))) { best = v; index = r; }
#else
        if (v < best || (IS_NAN(v) && !IS_NAN(best))) { best = v; index = r; }
#endif
    }
#if defined(FUNC_ARGMAX) || defined(FUNC_ARGMIN)
    STORE_OUT(index, TENSOR_PTR(y), OFFSET8(c, y__strides));
#else
    STORE_OUT(best, TENSOR_PTR(y), OFFSET8(c, y__strides));
#endif
#else
#if defined(FUNC_LOG_SUM_EXP)
    /* log(sum(exp(x))) = m + log(sum(exp(x - m))), m the largest element: no overflow for large x. */
    ACC_T m;
    INPUT_AT(m, 0)
    for (uint r = 1; r < n_red; ++r) {
        INPUT_AT(v, r)
        m = isnan(m) ? m : (isnan(v) ? v : fmax(m, v)); /* a NaN stays: the result is NaN, as the sum's is */
    }
#endif
#ifndef SUM_T
#define SUM_T ACC_T
#endif
#if defined(FUNC_MULTIPLY)
    SUM_T acc = (SUM_T)1;
#else
    SUM_T acc = (SUM_T)0;
#endif
    for (uint r = 0; r < n_red; ++r) {
        INPUT_AT(v, r)
#if defined(FUNC_SUM) || defined(FUNC_AVERAGE) || defined(FUNC_LOG_SUM)
        acc += (SUM_T)v;
#elif defined(FUNC_SUM_SQUARE) || defined(FUNC_L2)
        acc += (SUM_T)v * (SUM_T)v;
#elif defined(FUNC_L1)
        acc += (SUM_T)ABS(v);
#elif defined(FUNC_MULTIPLY)
        acc *= (SUM_T)v;
#elif defined(FUNC_LOG_SUM_EXP)
        acc += exp(v - m);
#else
#error "no reduce function selected (-DFUNC_<NAME>)"
#endif
    }
#if defined(FUNC_AVERAGE)
    acc /= (ACC_T)n_red;
#elif defined(FUNC_L2)
    acc = sqrt(acc);
#elif defined(FUNC_LOG_SUM)
    acc = log(acc);
#elif defined(FUNC_LOG_SUM_EXP)
    acc = isinf(m) ? m : m + log(acc); /* every x = -inf: log(0); some x = +inf: +inf */
#endif
    STORE_OUT(acc, TENSOR_PTR(y), OFFSET8(c, y__strides));
#endif
}
