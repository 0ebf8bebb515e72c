/* SOFTMAX, LOG_SOFTMAX and HARDMAX (and their "1" versions) along any set of axes, naively: one
 * work-item per group of reduced elements. The host splits the dimensions into outer (kept) and inner
 * (reduced, ascending) index spaces of up to 8 dimensions each, with both tensors' strides for each.
 * Per group: the maximum (and for HARDMAX its first position in row-major order over the reduced axes),
 * then sum(exp(x - max)), then each output. Computed in float (FLOAT16 is storage only). A NaN is taken
 * over every number and the first NaN kept (HARDMAX marks the first NaN, as ARGMAX chooses it: README
 * "Decisions"), wherever it stands.
 * -DAXES_SOFTMAX / -DAXES_LOG_SOFTMAX / -DAXES_HARDMAX select the function.
 */
#include "dmlsim.h"

__kernel void activation_axes(TENSOR_IN8(x), TENSOR_OUT8(y),
                              ulong8 outer_sizes, ulong8 outer_x, ulong8 outer_y,
                              ulong8 inner_sizes, ulong8 inner_x, ulong8 inner_y,
                              uint outer_count, uint inner_count)
{
    const uint gid = get_global_id(0);
    if (gid >= outer_count)
        return;
    COORDS8(o, gid, outer_sizes)
    const ulong x0 = OFFSET8(o, outer_x);
    const ulong y0 = OFFSET8(o, outer_y);
    __global const store_t *xp = TENSOR_PTR(x);
    __global store_t *yp = TENSOR_PTR(y);

    float m = -INFINITY;
    uint first = 0;
    for (uint j = 0; j < inner_count; ++j) {
        COORDS8(c, j, inner_sizes)
        const float v = LOAD(xp, x0 + OFFSET8(c, inner_x));
        if (j == 0 || v > m || (isnan(v) && !isnan(m))) {
            m = v;
            first = j;
        }
    }
#ifndef AXES_HARDMAX
    float sum = 0.0f;
    for (uint j = 0; j < inner_count; ++j) {
        COORDS8(c, j, inner_sizes)
        sum += exp(LOAD(xp, x0 + OFFSET8(c, inner_x)) - m);
    }
#endif
    for (uint j = 0; j < inner_count; ++j) {
        COORDS8(c, j, inner_sizes)
#if defined(AXES_SOFTMAX)
        const float r = exp(LOAD(xp, x0 + OFFSET8(c, inner_x)) - m) / sum;
#elif defined(AXES_LOG_SOFTMAX)
        const float r = (LOAD(xp, x0 + OFFSET8(c, inner_x)) - m) - log(sum);
#elif defined(AXES_HARDMAX)
        const float r = j == first ? 1.0f : 0.0f;
#else
#error "no function selected (-DAXES_SOFTMAX, -DAXES_LOG_SOFTMAX or -DAXES_HARDMAX)"
#endif
        STORE(r, yp, y0 + OFFSET8(c, inner_y));
    }
}

/* The fast path (issue 25): the reduced axes walk both tensors as one arithmetic progression each (one axis, or
 * axes whose strides nest row-major: SOFTMAX's last dimension), element j of a group at x0 + j * x_step and
 * y0 + j * y_step. One work-item per group, as activation_axes, without per-element coordinates. SOFTMAX and
 * LOG_SOFTMAX over a contiguous run (-DRUN_CONTIGUOUS: both steps 1) stream it RUN_STEP elements at a time, as
 * two RUN_W-lane vectors (sixteen lanes on CPUs: two chains of dependent operations, not one: each pass is bound by
 * its adds' and compares' latency otherwise):
 * - the maximum, each lane keeping the larger by a compare and a select (u > a ? u : a: no library calls; a NaN
 *   is passed over there or kept if it came first, where activation_axes' walk takes it, but a NaN anywhere makes
 *   the sum of exponentials and so every output NaN either way), the two vectors then the lanes joined the same way;
 * - the sum of exp(x - max) in the two vectors' lanes, added vector to vector then lanes pairwise, then
 *   the tail in order (the stated tolerances hold for any order of the sum); FLOAT32 SOFTMAX keeps each
 *   exp(x - max) in the output;
 * - the outputs RUN_STEP at a time (FLOAT32 SOFTMAX: the kept exponentials times the sum's inverse), then the tail.
 * HARDMAX (the first maximum's position) and runs of other steps walk the group in order, one element at a time. */
#if defined(STORE_HALF)
#define RUN_LOAD8(p, i)                                                                                         \
    ((float8)(vload_half((i), (p)), vload_half((i) + 1, (p)), vload_half((i) + 2, (p)), vload_half((i) + 3, (p)),   \
              vload_half((i) + 4, (p)), vload_half((i) + 5, (p)), vload_half((i) + 6, (p)), vload_half((i) + 7, (p))))
/* eight rounding stores: PoCL 3.1's vstore_half8_rte crashed on rows starting at an odd element (17) */
#define RUN_STORE8(v, p, i)                                                                                     \
    {                                                                                                          \
        const float8 v8_ = (v);                                                                                \
        vstore_half_rte(v8_.s0, (i), (p)); vstore_half_rte(v8_.s1, (i) + 1, (p));                              \
        vstore_half_rte(v8_.s2, (i) + 2, (p)); vstore_half_rte(v8_.s3, (i) + 3, (p));                          \
        vstore_half_rte(v8_.s4, (i) + 4, (p)); vstore_half_rte(v8_.s5, (i) + 5, (p));                          \
        vstore_half_rte(v8_.s6, (i) + 6, (p)); vstore_half_rte(v8_.s7, (i) + 7, (p));                          \
    }
#else /* dmlsim.h's LOADV/STOREV (VEC 8): element-aligned vector access on CPUs, vload8/vstore8 elsewhere */
#define RUN_LOAD8(p, i) LOADV((p) + (i), 0)
#define RUN_STORE8(v, p, i) STOREV((v), (p) + (i), 0)
#endif
/* RUN_W lanes a vector, two vectors a step (RUN_STEP): sixteen on CPU launch targets (DMLSIM_CPU), eight elsewhere
 * (GPUs). On CPUs
 * FLOAT32 moves sixteen lanes by dereference (dmlsim.h), FLOAT16 as two eight-lane halves; exp runs on all sixteen
 * (PoCL 3.1 on an AVX-512 host: 4.5 -> 3.7 ms for 4096 rows of 4096 against two eight-lane calls), but on eight at a
 * time where clang is older than 15 (PyPI's PoCL 3.0, LLVM 14, compiles exp as a call into its kernel library, where
 * 512-bit arguments have broken before: dmlsim.h, sqrt), but not on Oclgrind (DMLSIM_OCLGRIND: its clang is older too,
 * and its uninitialized-value check crashed interpreting the halves). */
#if defined(DMLSIM_CPU)
#define RUN_W 16
#if defined(STORE_HALF) && defined(DMLSIM_OCLGRIND) /* the halves' joining and splitting crashed Oclgrind */
#define RUN_LOADW(p, i) vload_half16(0, (p) + (i))
#define RUN_STOREW(v, p, i) vstore_half16_rte((v), 0, (p) + (i));
#elif defined(STORE_HALF) || !defined(DMLSIM_DIRECT_VECTORS)
#define RUN_LOADW(p, i) ((float16)(RUN_LOAD8(p, i), RUN_LOAD8(p, (i) + 8)))
#define RUN_STOREW(v, p, i)                                                                                     \
    {                                                                                                          \
        const float16 v16_ = (v);                                                                              \
        RUN_STORE8(v16_.lo, p, i);                                                                             \
        RUN_STORE8(v16_.hi, p, (i) + 8);                                                                       \
    }
#else
DMLSIM_UNALIGNED(float, 16)
#define RUN_LOADW(p, i) DMLSIM_VLOAD(float, 16, 0, (p) + (i))
#define RUN_STOREW(v, p, i) DMLSIM_VSTORE(float, 16, (v), 0, (p) + (i));
#endif
#if defined(__clang_major__) && __clang_major__ < 15 && !defined(DMLSIM_OCLGRIND)
#define RUN_EXPW(d) ((float16)(exp((d).lo), exp((d).hi)))
#else
#define RUN_EXPW(d) exp(d)
#endif
#define JOINW(FN, V) FN(JOIN8(FN, V, 0, 1, 2, 3, 4, 5, 6, 7), JOIN8(FN, V, 8, 9, A, B, C, D, E, F))
#else
#define RUN_W 8
#define RUN_LOADW(p, i) RUN_LOAD8(p, i)
#define RUN_STOREW(v, p, i) RUN_STORE8(v, p, i)
#define RUN_EXPW(d) exp(d)
#define JOINW(FN, V) JOIN8(FN, V, 0, 1, 2, 3, 4, 5, 6, 7)
#endif
#define RUN_V DMLSIM_CAT(float, RUN_W)
#define RUN_STEP (2 * RUN_W)
#define LARGER(u, a) ((u) > (a) ? (u) : (a)) /* a lane-wise select on vectors */
#define PLUS(u, a) ((u) + (a))
/* a vector's lanes joined pairwise by FN, element by element */
#define JOIN8(FN, V, i, j, k, l, m, n, o, p)                                                                   \
    FN(FN(FN((V).s##i, (V).s##j), FN((V).s##k, (V).s##l)), FN(FN((V).s##m, (V).s##n), FN((V).s##o, (V).s##p)))

__kernel __attribute__((vec_type_hint(RUN_V)))
void activation_run(TENSOR_IN8(x), TENSOR_OUT8(y), ulong8 outer_sizes, ulong8 outer_x, ulong8 outer_y,
                    uint outer_count, uint inner_count, ulong x_step, ulong y_step)
{
    const uint gid = get_global_id(0);
    if (gid >= outer_count)
        return;
    COORDS8(o, gid, outer_sizes)
    const ulong x0 = OFFSET8(o, outer_x);
    const ulong y0 = OFFSET8(o, outer_y);
    __global const store_t *xp = TENSOR_PTR(x);
    __global store_t *yp = TENSOR_PTR(y);
    const uint n = inner_count;
#if defined(RUN_CONTIGUOUS) && !defined(AXES_HARDMAX)
    const uint vector_end = n - n % RUN_STEP; /* the elements the vectors take; the tail is walked in order */
#endif

    float m = -INFINITY;
    uint first = 0;
    uint j = 0;
#if defined(RUN_CONTIGUOUS) && !defined(AXES_HARDMAX)
    if (vector_end > 0) {
        RUN_V a = RUN_LOADW(xp, x0), b = RUN_LOADW(xp, x0 + RUN_W);
        for (j = RUN_STEP; j < vector_end; j += RUN_STEP) {
            a = LARGER(RUN_LOADW(xp, x0 + j), a);
            b = LARGER(RUN_LOADW(xp, x0 + j + RUN_W), b);
        }
        a = LARGER(b, a);
        m = JOINW(LARGER, a);
    }
#endif
    for (; j < n; ++j) {
        const float v = LOAD(xp, x0 + j * x_step);
        if (j == 0 || v > m || (isnan(v) && !isnan(m))) {
            m = v;
            first = j;
        }
    }
#ifndef AXES_HARDMAX
    float sum = 0.0f;
    j = 0;
#if defined(RUN_CONTIGUOUS)
    if (vector_end > 0) {
        RUN_V a = 0.0f, b = 0.0f;
        for (; j < vector_end; j += RUN_STEP) {
            const RUN_V e = RUN_EXPW(RUN_LOADW(xp, x0 + j) - m);
            const RUN_V f = RUN_EXPW(RUN_LOADW(xp, x0 + j + RUN_W) - m);
            a += e;
            b += f;
#if defined(AXES_SOFTMAX) && !defined(STORE_HALF)
            RUN_STOREW(e, yp, y0 + j); /* kept for the last pass: exp once per element */
            RUN_STOREW(f, yp, y0 + j + RUN_W);
#endif
        }
        a += b;
        sum = JOINW(PLUS, a);
    }
#endif
    for (; j < n; ++j)
        sum += exp(LOAD(xp, x0 + j * x_step) - m);
    const float inverse = 1.0f / sum; /* one division a group; the outputs are multiplied by it */
#endif
    j = 0;
#if defined(RUN_CONTIGUOUS) && !defined(AXES_HARDMAX)
    for (; j < vector_end; j += RUN_W) {
#if defined(AXES_SOFTMAX) && !defined(STORE_HALF)
        RUN_STOREW(RUN_LOADW(yp, y0 + j) * inverse, yp, y0 + j);
#elif defined(AXES_SOFTMAX)
        RUN_STOREW(RUN_EXPW(RUN_LOADW(xp, x0 + j) - m) * inverse, yp, y0 + j);
#else
        const RUN_V v = RUN_LOADW(xp, x0 + j);
        RUN_STOREW((v - m) - log(sum), yp, y0 + j);
#endif
    }
#endif
    for (; j < n; ++j) {
#if defined(AXES_SOFTMAX)
        const float r = exp(LOAD(xp, x0 + j * x_step) - m) * inverse;
#elif defined(AXES_LOG_SOFTMAX)
        const float r = (LOAD(xp, x0 + j * x_step) - m) - log(sum);
#else
        const float r = j == first ? 1.0f : 0.0f;
#endif
        STORE(r, yp, y0 + j * y_step);
    }
}

/* GPUs (issue 25): SOFTMAX and LOG_SOFTMAX over a run of at least GROUP_SIZE elements, one work-group of
 * GROUP_SIZE work-items per group. Item l takes elements l, l + GROUP_SIZE, ... (neighbouring items read
 * neighbouring addresses of a contiguous run): their maximum (fmax: a NaN anywhere makes the sum, and so every
 * output, NaN either way), combined pairwise in local memory (halving spans); then the sum of exp(x - max) the
 * same way; then the outputs. HARDMAX stays one work-item per group (activation_run). */
#ifndef GROUP_SIZE
#define GROUP_SIZE 64
#endif
#ifndef AXES_HARDMAX
__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void activation_group(TENSOR_IN8(x), TENSOR_OUT8(y), ulong8 outer_sizes, ulong8 outer_x, ulong8 outer_y,
                      uint outer_count, uint inner_count, ulong x_step, ulong y_step)
{
    __local float part[GROUP_SIZE];
    const uint group = get_group_id(0);
    const uint l = get_local_id(0);
    COORDS8(o, group, outer_sizes)
    const ulong x0 = OFFSET8(o, outer_x);
    const ulong y0 = OFFSET8(o, outer_y);
    __global const store_t *xp = TENSOR_PTR(x);
    __global store_t *yp = TENSOR_PTR(y);
    const uint n = inner_count;

    float m = -INFINITY;
    for (uint j = l; j < n; j += GROUP_SIZE)
        m = fmax(m, LOAD(xp, x0 + j * x_step));
    part[l] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint span = GROUP_SIZE / 2; span > 0; span >>= 1) {
        if (l < span)
            part[l] = fmax(part[l], part[l + span]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    m = part[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    float sum = 0.0f;
    for (uint j = l; j < n; j += GROUP_SIZE)
        sum += exp(LOAD(xp, x0 + j * x_step) - m);
    part[l] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint span = GROUP_SIZE / 2; span > 0; span >>= 1) {
        if (l < span)
            part[l] += part[l + span];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    sum = part[0];
    for (uint j = l; j < n; j += GROUP_SIZE) {
#if defined(AXES_SOFTMAX)
        const float r = exp(LOAD(xp, x0 + j * x_step) - m) / sum;
#else
        const float r = (LOAD(xp, x0 + j * x_step) - m) - log(sum);
#endif
        STORE(r, yp, y0 + j * y_step);
    }
}
#endif
