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
 *
 * Fast paths (issue 25), chosen by the host when the reduced axes walk the input as one arithmetic progression
 * (n_red elements red_stride apart from the first element of each reduction: one reduced axis, or several
 * whose strides nest row-major, or broadcast ones of stride 0), the index r of an element being the same as
 * the generic kernel's:
 *   reduce_run   one work-item per output element (CPU devices, and GPUs for strided runs: neighbouring
 *                work-items read neighbouring addresses when the reduced axis is not the innermost).
 *                -DRED_CONTIGUOUS (red_stride 1): the accumulating functions stream the run RED_VEC
 *                elements at a time into RED_VEC lane accumulators, added pairwise at the end
 *                (((a0+a1)+(a2+a3))+((a4+a5)+(a6+a7))), then the tail of fewer than RED_VEC elements in
 *                order. The selecting functions and LOG_SUM_EXP's maximum walk the run in order.
 *   reduce_group one work-group of GROUP_SIZE work-items per output element (GPUs, contiguous runs): item l
 *                accumulates elements l, l + GROUP_SIZE, ... in order (neighbouring items read
 *                neighbouring addresses), then the GROUP_SIZE partials are combined pairwise in local memory
 *                (halving strides) and item 0 finishes and stores. Only the accumulating functions and
 *                MAX/MIN (not ARGMAX/ARGMIN, not LOG_SUM_EXP).
 *   reduce_columns  RED_VEC outputs per work-item (CPU devices, when the innermost dimension is kept, has input
 *                stride 1 and a multiple of RED_VEC elements): the RED_VEC neighbouring outputs' runs are walked
 *                together, element r of all of them one vector load (an 8-wide slice of a row of the
 *                input), each lane in index order: the same operations in the same order as reduce_run's
 *                scalar walk, so the same bits. Accumulating functions (not LOG_SUM_EXP) and MAX/MIN.
 * A float sum in another order stays within the tolerance every test states (n + 4 ulps of the sum of
 * |x|: any order of n additions errs by at most (n - 1) ulps of it); integers wrap, so their order is free.
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

/* One step of a selecting reduction over element r, value v (best and index in scope), shared by every
   kernel below: MAX/MIN keep the larger/smaller (MAXF/MINF ignore NaN, as HLSL's max/min); ARGMAX/ARGMIN
   take the first NaN and keep it, or under LAST_INDEX (DECREASING) every NaN, a number never replacing one. */
#if defined(FUNC_MAX)
#define SELECT_STEP best = MAXF(best, v);
#elif defined(FUNC_MIN)
#define SELECT_STEP best = MINF(best, v);
#elif defined(LAST_INDEX) && defined(FUNC_ARGMAX)
#define SELECT_STEP if (v >= best || IS_NAN(v)) { best = v; index = r; }
#elif defined(LAST_INDEX)
#define SELECT_STEP if (v <= best || IS_NAN(v)) { best = v; index = r; }
#elif defined(FUNC_ARGMAX)
#define SELECT_STEP if (v > best || (IS_NAN(v) && !IS_NAN(best))) { best = v; index = r; }
#else
#define SELECT_STEP if (v < best || (IS_NAN(v) && !IS_NAN(best))) { best = v; index = r; }
#endif
/* LOG_SUM_EXP's running maximum m: a NaN stays (the result is NaN, as the sum's is). */
#define LSE_MAX_STEP m = isnan(m) ? m : (isnan(v) ? v : fmax(m, v));

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
        SELECT_STEP
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
        LSE_MAX_STEP
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

/* ---- the fast paths: one arithmetic progression per reduction --------------------------------------------- */
#ifndef SUM_T
#define SUM_T ACC_T
#endif
#define RED_CAT_(a, b) a##b
#define RED_CAT(a, b) RED_CAT_(a, b)
#ifndef RED_VEC
#define RED_VEC 8
#endif
#ifndef GROUP_SIZE
#define GROUP_SIZE 64
#endif
/* Element r of the run starting at x0. */
#define RUN_AT(r) LOAD_IN(xp, x0 + (ulong)(r) * red_stride)

/* One element into an accumulator (scalar or vector; CONV converts to the accumulator's type). */
#if defined(FUNC_SUM) || defined(FUNC_AVERAGE) || defined(FUNC_LOG_SUM)
#define ACC_INIT 0
#define ACC_STEP(acc, v, CONV) acc += CONV(v)
#define ACC_JOIN(a, b) ((a) + (b))
#elif defined(FUNC_SUM_SQUARE) || defined(FUNC_L2)
#define ACC_INIT 0
#define ACC_STEP(acc, v, CONV) acc += CONV(v) * CONV(v)
#define ACC_JOIN(a, b) ((a) + (b))
#elif defined(FUNC_L1)
#define ACC_INIT 0
#define ACC_STEP(acc, v, CONV) acc += CONV(ABS(v))
#define ACC_JOIN(a, b) ((a) + (b))
#elif defined(FUNC_MULTIPLY)
#define ACC_INIT 1
#define ACC_STEP(acc, v, CONV) acc *= CONV(v)
#define ACC_JOIN(a, b) ((a) * (b))
#elif defined(FUNC_LOG_SUM_EXP)
#define ACC_INIT 0
#define ACC_STEP(acc, v, CONV) acc += exp((v) - m)
#define ACC_JOIN(a, b) ((a) + (b))
#endif
#define SCALAR_CONV(v) ((SUM_T)(v))
#define VECTOR_CONV(v) RED_CAT(convert_, RED_CAT(SUM_T, RED_VEC))(v)

#if defined(IN_HALF) /* eight vload_half: PoCL 3.1's vload_half8 crashed at odd element offsets (axes.cl) */
#define LOAD_IN_VEC(p, i)                                                                                       \
    ((float8)(vload_half((i), (p)), vload_half((i) + 1, (p)), vload_half((i) + 2, (p)), vload_half((i) + 3, (p)),   \
              vload_half((i) + 4, (p)), vload_half((i) + 5, (p)), vload_half((i) + 6, (p)), vload_half((i) + 7, (p))))
#else
#if defined(DMLSIM_DIRECT_VECTORS) /* dmlsim.h: an element-aligned vector read, not PyPI PoCL 3.0's library vload8 */
typedef RED_CAT(IN_T, RED_VEC) red_in_vec_u __attribute__((aligned(sizeof(IN_T))));
#define LOAD_IN_RAW(p, i) (*(__global const red_in_vec_u *)((p) + (i)))
#else
#define LOAD_IN_RAW(p, i) RED_CAT(vload, RED_VEC)(0, (p) + (i))
#endif
#define LOAD_IN_VEC(p, i) RED_CAT(convert_, RED_CAT(ACC_T, RED_VEC))(LOAD_IN_RAW(p, i))
#endif

/* The result of an accumulating function from its accumulator acc (SUM_T) and the run's length. */
#if defined(FUNC_AVERAGE)
#define FINISH(acc) ((acc) / (ACC_T)n_red)
#elif defined(FUNC_L2)
#define FINISH(acc) sqrt(acc)
#elif defined(FUNC_LOG_SUM)
#define FINISH(acc) log(acc)
#elif defined(FUNC_LOG_SUM_EXP)
#define FINISH(acc) (isinf(m) ? m : m + log(acc))
#else
#define FINISH(acc) (acc)
#endif

/* The first input element of output gid's reduction (its coordinates, 0 on the reduced axes). */
#define RUN_START(gid)                         \
    COORDS8(c, (gid), out_sizes)               \
    const ulong x0 = OFFSET8(c, x__strides);   \
    __global const in_t *xp = TENSOR_PTR(x);

__kernel void reduce_run(TYPED_IN8(x), TYPED_OUT8(y), ulong8 out_sizes, uint n_out, uint n_red, ulong red_stride)
{
    const uint gid = get_global_id(0);
    if (gid >= n_out)
        return;
    RUN_START(gid)
#if defined(SELECTS)
    ACC_T best = RUN_AT(0);
    uint index = 0;
    for (uint r = 1; r < n_red; ++r) {
        const ACC_T v = RUN_AT(r);
        SELECT_STEP
    }
#if defined(FUNC_ARGMAX) || defined(FUNC_ARGMIN)
    STORE_OUT(index, TENSOR_PTR(y), OFFSET8(c, y__strides));
#else
    STORE_OUT(best, TENSOR_PTR(y), OFFSET8(c, y__strides));
#endif
#else
#if defined(FUNC_LOG_SUM_EXP)
    ACC_T m = RUN_AT(0);
    for (uint r = 1; r < n_red; ++r) {
        const ACC_T v = RUN_AT(r);
        LSE_MAX_STEP
    }
#endif
    SUM_T acc = (SUM_T)ACC_INIT;
    uint r = 0;
#if defined(RED_CONTIGUOUS)
    if (n_red >= RED_VEC) {
        RED_CAT(SUM_T, RED_VEC) lanes = (RED_CAT(SUM_T, RED_VEC))(ACC_INIT);
        for (; r + RED_VEC <= n_red; r += RED_VEC) {
            const RED_CAT(ACC_T, RED_VEC) v = LOAD_IN_VEC(xp, x0 + r);
            ACC_STEP(lanes, v, VECTOR_CONV);
        }
#if RED_VEC == 8
        acc = ACC_JOIN(ACC_JOIN(ACC_JOIN(lanes.s0, lanes.s1), ACC_JOIN(lanes.s2, lanes.s3)),
                       ACC_JOIN(ACC_JOIN(lanes.s4, lanes.s5), ACC_JOIN(lanes.s6, lanes.s7)));
#else
#error "RED_VEC must be 8"
#endif
    }
#endif
    for (; r < n_red; ++r) {
        const ACC_T v = RUN_AT(r);
        ACC_STEP(acc, v, SCALAR_CONV);
    }
    STORE_OUT(FINISH(acc), TENSOR_PTR(y), OFFSET8(c, y__strides));
#endif
}

#if !defined(FUNC_ARGMAX) && !defined(FUNC_ARGMIN) && !defined(FUNC_LOG_SUM_EXP)
#if defined(FUNC_MAX)
#define GROUP_JOIN(a, b) MAXF(a, b)
#define GROUP_T ACC_T
#elif defined(FUNC_MIN)
#define GROUP_JOIN(a, b) MINF(a, b)
#define GROUP_T ACC_T
#else
#define GROUP_JOIN(a, b) ACC_JOIN(a, b)
#define GROUP_T SUM_T
#endif

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void reduce_group(TYPED_IN8(x), TYPED_OUT8(y), ulong8 out_sizes, uint n_out, uint n_red, ulong red_stride)
{
    __local GROUP_T part[GROUP_SIZE];
    const uint group = get_group_id(0);
    const uint l = get_local_id(0);
    RUN_START(group)
#if defined(SELECTS)
    GROUP_T acc = RUN_AT(min(l, n_red - 1)); /* items past a short run repeat its last element */
    for (uint r = l + GROUP_SIZE; r < n_red; r += GROUP_SIZE)
        acc = GROUP_JOIN(acc, RUN_AT(r));
#else
    GROUP_T acc = (GROUP_T)ACC_INIT;
    for (uint r = l; r < n_red; r += GROUP_SIZE) {
        const ACC_T v = RUN_AT(r);
        ACC_STEP(acc, v, SCALAR_CONV);
    }
#endif
    part[l] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint span = GROUP_SIZE / 2; span > 0; span >>= 1) {
        if (l < span)
            part[l] = GROUP_JOIN(part[l], part[l + span]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0 && group < n_out) {
#if defined(SELECTS)
        STORE_OUT(part[0], TENSOR_PTR(y), OFFSET8(c, y__strides));
#else
        STORE_OUT(FINISH(part[0]), TENSOR_PTR(y), OFFSET8(c, y__strides));
#endif
    }
}
#endif

#if !defined(FUNC_ARGMAX) && !defined(FUNC_ARGMIN) && !defined(FUNC_LOG_SUM_EXP)
#if defined(FUNC_MAX) || defined(FUNC_MIN)
#define COLUMN_T RED_CAT(ACC_T, RED_VEC)
#define COLUMN_STEP(acc, v) acc = GROUP_JOIN(acc, v)
#define COLUMN_FINISH(acc) (acc)
#else
#define COLUMN_T RED_CAT(SUM_T, RED_VEC)
#define COLUMN_STEP(acc, v) ACC_STEP(acc, v, VECTOR_CONV)
#define COLUMN_FINISH(acc) FINISH(acc)
#endif
#ifndef COLUMN_VECS
#define COLUMN_VECS 1
#endif
#define COLUMN_STORE(k) STORE_OUT(result.s##k, yp, y0 + (ulong)(q * RED_VEC + k) * y__strides.s7);

__kernel void reduce_columns(TYPED_IN8(x), TYPED_OUT8(y), ulong8 out_sizes, uint n_out, uint n_red,
                             ulong red_stride)
{
    const uint gid = get_global_id(0);
    if (gid >= n_out / (RED_VEC * COLUMN_VECS))
        return;
    RUN_START(gid * (RED_VEC * COLUMN_VECS)) /* the first of RED_VEC * COLUMN_VECS outputs along the innermost axis */
    COLUMN_T acc[COLUMN_VECS];
    uint first = 0;
    for (uint q = 0; q < COLUMN_VECS; ++q) {
#if defined(FUNC_MAX) || defined(FUNC_MIN)
        acc[q] = LOAD_IN_VEC(xp, x0 + q * RED_VEC);
        first = 1;
#else
        acc[q] = (COLUMN_T)(ACC_INIT);
#endif
    }
    for (uint r = first; r < n_red; ++r) {
        const ulong row = x0 + (ulong)r * red_stride;
        for (uint q = 0; q < COLUMN_VECS; ++q) {
            const RED_CAT(ACC_T, RED_VEC) v = LOAD_IN_VEC(xp, row + q * RED_VEC);
            COLUMN_STEP(acc[q], v);
        }
    }
    __global out_t *yp = TENSOR_PTR(y);
    const ulong y0 = OFFSET8(c, y__strides);
    for (uint q = 0; q < COLUMN_VECS; ++q) {
        const COLUMN_T result = COLUMN_FINISH(acc[q]);
#if RED_VEC == 8
        COLUMN_STORE(0) COLUMN_STORE(1) COLUMN_STORE(2) COLUMN_STORE(3)
        COLUMN_STORE(4) COLUMN_STORE(5) COLUMN_STORE(6) COLUMN_STORE(7)
#endif
    }
}
#endif
