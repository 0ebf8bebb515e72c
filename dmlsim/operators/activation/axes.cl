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
 * LOG_SOFTMAX over a contiguous run (-DRUN_CONTIGUOUS: both steps 1) stream it eight elements at a time: the
 * maximum in eight lanes (fmax: a NaN in the vector part is passed over, where activation_axes' walk takes it,
 * but a NaN anywhere makes the sum of exponentials and so every output NaN either way), the sum of
 * exp(x - max) in eight lanes added pairwise (((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7))) then the tail in order,
 * and the outputs eight at a time (FLOAT32 SOFTMAX keeps each exp(x - max) in the output and divides it there
 * by the sum: one exp per element); the stated tolerances hold for any order of the sum. HARDMAX (the first
 * maximum's position) and runs of other steps walk the group in order, one element at a time. */
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

__kernel void activation_run(TENSOR_IN8(x), TENSOR_OUT8(y), ulong8 outer_sizes, ulong8 outer_x, ulong8 outer_y,
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

    float m = -INFINITY;
    uint first = 0;
    uint j = 0;
#if defined(RUN_CONTIGUOUS) && !defined(AXES_HARDMAX)
    if (n >= 8) {
        float8 lanes = RUN_LOAD8(xp, x0);
        for (j = 8; j + 8 <= n; j += 8)
            lanes = fmax(lanes, RUN_LOAD8(xp, x0 + j));
        m = fmax(fmax(fmax(lanes.s0, lanes.s1), fmax(lanes.s2, lanes.s3)),
                 fmax(fmax(lanes.s4, lanes.s5), fmax(lanes.s6, lanes.s7)));
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
    if (n >= 8) {
        float8 lanes = 0.0f;
        for (; j + 8 <= n; j += 8) {
            const float8 e = exp(RUN_LOAD8(xp, x0 + j) - m);
            lanes += e;
#if defined(AXES_SOFTMAX) && !defined(STORE_HALF)
            RUN_STORE8(e, yp, y0 + j); /* kept for the last pass: exp once per element */
#endif
        }
        sum = ((lanes.s0 + lanes.s1) + (lanes.s2 + lanes.s3)) + ((lanes.s4 + lanes.s5) + (lanes.s6 + lanes.s7));
    }
#endif
    for (; j < n; ++j)
        sum += exp(LOAD(xp, x0 + j * x_step) - m);
    const float inverse = 1.0f / sum; /* one division a group; the outputs are multiplied by it */
#endif
    j = 0;
#if defined(RUN_CONTIGUOUS) && !defined(AXES_HARDMAX)
    for (; j + 8 <= n; j += 8) {
#if defined(AXES_SOFTMAX) && !defined(STORE_HALF)
        RUN_STORE8(RUN_LOAD8(yp, y0 + j) * inverse, yp, y0 + j);
#elif defined(AXES_SOFTMAX)
        RUN_STORE8(exp(RUN_LOAD8(xp, x0 + j) - m) * inverse, yp, y0 + j);
#else
        const float8 v = RUN_LOAD8(xp, x0 + j);
        RUN_STORE8((v - m) - log(sum), yp, y0 + j);
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
