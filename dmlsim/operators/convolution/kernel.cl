/* DML_OPERATOR_CONVOLUTION: one work-item per output element. Every tensor is seen as 5-D
 * {N, C, D, H, W} (a 1-D or 2-D convolution has D (and H) of size 1 and stride 0): sizes and DML strides
 * arrive as ulong8 whose .s3...s7 are N, C, D, H, W; the per-spatial-dimension attributes as ulong4 whose
 * .y .z .w are D, H, W. Build variants: -DBACKWARD (transposed convolution, filter {Cin, Cout/G, ...};
 * otherwise forward, filter {Cout, Cin/G, ...}), -DFLIP (DML_CONVOLUTION_MODE_CONVOLUTION: the filter
 * read reversed along every spatial axis), -DHAS_BIAS, -DSTORE_HALF (float32 accumulation).
 * Both directions: outputs at or past `computed` (the end padding added by OutputPadding) hold 0 before the
 * bias. Backward: output p gathers every input i and filter tap k with i*stride + k*dilation = p + StartPadding,
 * at every p before `computed` (the output may reach past the size formula's; nothing lands there: 0).
 */
#include "dmlsim.h"
#include "activations.h"

#define AT5(st, n, c, d, h, w) \
    ((ulong)(n) * (st).s3 + (ulong)(c) * (st).s4 + (ulong)(d) * (st).s5 + (ulong)(h) * (st).s6 + (ulong)(w) * (st).s7)

#ifdef FLIP
#define TAP(k, K) ((uint)(K) - 1 - (k))
#else
#define TAP(k, K) (k)
#endif

/* The input index that filter tap k reads for output index o along one axis; -1 when it reads padding
 * (forward) or when no input element lands on o through tap k (backward). */
inline long source_index(uint o, uint k, ulong stride, ulong dilation, ulong pad, ulong in_size)
{
#ifdef BACKWARD
    const long t = (long)o + (long)pad - (long)(k * dilation);
    if (t < 0 || t % (long)stride != 0)
        return -1;
    const long i = t / (long)stride;
#else
    const long i = (long)(o * stride + k * dilation) - (long)pad;
#endif
    return (i >= 0 && i < (long)in_size) ? i : -1;
}

__kernel void convolution(__global const store_t *x__base, ulong x__offset, ulong8 x_strides, ulong8 x_sizes,
                          __global const store_t *f__base, ulong f__offset, ulong8 f_strides, ulong8 f_sizes,
#ifdef HAS_BIAS
                          __global const store_t *bias__base, ulong bias__offset, ulong bias_channel_stride,
#endif
                          __global store_t *y__base, ulong y__offset, ulong8 y_strides, ulong8 y_sizes,
                          ulong4 strides, ulong4 dilations, ulong4 start_padding, ulong4 computed, uint groups,
                          uint count
#ifdef IF_FLAGGED
                          , __global const store_t *flag, ulong flag__offset
#endif
                          )
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
#ifdef IF_FLAGGED
    /* the im2col + GEMM path's last launch: recompute every output directly when `nonfinite` found an infinite
     * or NaN filter weight (GEMM multiplied it by the padding's zeros, which the direct kernel skips) */
    if ((float)LOAD(flag, flag__offset) == 0.0f)
        return;
#endif
    COORDS8(o, gid, y_sizes)  /* the 5-D output {N, C, D, H, W} sits in o[3..7] */
    const uint n = o[3], oc = o[4], od = o[5], oh = o[6], ow = o[7];

    const uint cin_group = (uint)x_sizes.s4 / groups;
#ifdef BACKWARD
    const uint cout_group = (uint)f_sizes.s4;
#else
    const uint cout_group = (uint)y_sizes.s4 / groups;
#endif
    const uint group = oc / cout_group;

    float sum = 0.0f;
    if (od < computed.y && oh < computed.z && ow < computed.w)
    for (uint ic = 0; ic < cin_group; ++ic) {
        const uint c = group * cin_group + ic;
        for (uint kd = 0; kd < (uint)f_sizes.s5; ++kd) {
            const long id = source_index(od, kd, strides.y, dilations.y, start_padding.y, x_sizes.s5);
            if (id < 0)
                continue;
            for (uint kh = 0; kh < (uint)f_sizes.s6; ++kh) {
                const long ih = source_index(oh, kh, strides.z, dilations.z, start_padding.z, x_sizes.s6);
                if (ih < 0)
                    continue;
                for (uint kw = 0; kw < (uint)f_sizes.s7; ++kw) {
                    const long iw = source_index(ow, kw, strides.w, dilations.w, start_padding.w, x_sizes.s7);
                    if (iw < 0)
                        continue;
#ifdef BACKWARD
                    const ulong tap = AT5(f_strides, c, oc % cout_group, TAP(kd, f_sizes.s5), TAP(kh, f_sizes.s6),
                                          TAP(kw, f_sizes.s7));
#else
                    const ulong tap = AT5(f_strides, oc, ic, TAP(kd, f_sizes.s5), TAP(kh, f_sizes.s6),
                                          TAP(kw, f_sizes.s7));
#endif
                    sum += (float)LOAD(x__base + x__offset, AT5(x_strides, n, c, id, ih, iw)) *
                           (float)LOAD(f__base + f__offset, tap);
                }
            }
        }
    }
#ifdef HAS_BIAS
    sum += (float)LOAD(bias__base + bias__offset, (ulong)oc * bias_channel_stride);
#endif
    STORE(FUSED_ACTIVATION(sum), y__base + y__offset, AT5(y_strides, n, oc, od, oh, ow));
}

/* im2col, the first launch of the planner's im2col + GEMM path (FORWARD, one group): col {N, K, P}, packed, with
 * K = input channels x filter taps (channel-major, taps row-major in kd, kh, kw) and P the output positions
 * (row-major in od, oh, ow): col[n][c * taps + t][p] is the input element that filter tap t of channel c
 * multiplies for output position p (tap TAP(t) of the window: -DFLIP reads the filter reversed), 0 where the
 * window reads padding. GEMM then computes Output = Filter {Cout, K} x col[n] {K, P} + Bias. The copy is exact
 * (a FLOAT16 input is widened and stored back to half unchanged). */
__kernel void im2col(__global const store_t *x__base, ulong x__offset, ulong8 x_strides, ulong8 x_sizes,
                     __global store_t *col, ulong col__offset, ulong4 kernel_sizes, ulong4 out_sizes,
                     ulong4 strides, ulong4 dilations, ulong4 start_padding, uint taps, uint rows, uint positions,
                     uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    const uint p = gid % positions;
    const uint k = (gid / positions) % rows;
    const uint n = gid / positions / rows;
    const uint c = k / taps;
    uint t = k % taps;
    const uint kw = t % (uint)kernel_sizes.w;
    t /= (uint)kernel_sizes.w;
    const uint kh = t % (uint)kernel_sizes.z, kd = t / (uint)kernel_sizes.z;
    const uint ow = p % (uint)out_sizes.w;
    const uint oh = (p / (uint)out_sizes.w) % (uint)out_sizes.z;
    const uint od = p / (uint)out_sizes.w / (uint)out_sizes.z;
    const long id = source_index(od, TAP(kd, kernel_sizes.y), strides.y, dilations.y, start_padding.y, x_sizes.s5);
    const long ih = source_index(oh, TAP(kh, kernel_sizes.z), strides.z, dilations.z, start_padding.z, x_sizes.s6);
    const long iw = source_index(ow, TAP(kw, kernel_sizes.w), strides.w, dilations.w, start_padding.w, x_sizes.s7);
    float value = 0.0f;
    if (id >= 0 && ih >= 0 && iw >= 0)
        value = (float)LOAD(x__base + x__offset, AT5(x_strides, n, c, id, ih, iw));
    STORE(value, col + col__offset, gid);
}

/* The im2col + GEMM path's second launch, one work-item: flag = 1 when the filter holds an infinite or NaN weight,
 * else 0 (the last launch then recomputes the outputs with the direct kernel, which skips padding taps). */
__kernel void nonfinite(__global const store_t *f__base, ulong f__offset, ulong8 f_strides, ulong8 f_sizes,
                        __global store_t *flag, ulong flag__offset, uint count)
{
    float found = 0.0f;
    __global const store_t *f = f__base + f__offset;
    for (ulong a = 0; a < f_sizes.s3; ++a)
        for (ulong b = 0; b < f_sizes.s4; ++b)
            for (ulong d = 0; d < f_sizes.s5; ++d)
                for (ulong h = 0; h < f_sizes.s6; ++h)
                    for (ulong w = 0; w < f_sizes.s7; ++w)
                        if (!isfinite((float)LOAD(f, AT5(f_strides, a, b, d, h, w))))
                            found = 1.0f;
    STORE(found, flag, flag__offset);
}

/* The packed path's non-finite check: flag = 1 when the filter's packed A panels (float32, `count` of them
 * contiguous from pa__offset, zero-filled past the last output channel) hold an infinite or NaN weight, else 0. */
__kernel void nonfinite_panels(__global const float *pack, ulong pa__offset, __global store_t *flag,
                               ulong flag__offset, uint count)
{
    __global const float *pa = pack + pa__offset;
    int found = 0;
    for (uint i = 0; i < count; ++i)
        found |= !isfinite(pa[i]);
    STORE(found ? 1.0f : 0.0f, flag, flag__offset);
}

/* im2col_pack, the CPU packed path's unfold (FORWARD, one group): col[n] of `im2col` above, written straight into
 * the B panels that GEMM's gemm_packed reads (gemm_pack's layout, gemm/kernel.cl): panel p of image n holds the
 * PW output positions from p * PW on, over all `rows` (K = input channels x taps) in sub-panels of PS positions,
 * each k-major; positions past the last are 0 (those lanes are computed, never stored). float32 whatever the
 * storage (a FLOAT16 input widened, exactly). One work-item per (image, panel, channel, kd, kh): the KW rows of K
 * that share an input row (k = ((c * KD + kd) * KH + kh) * KW + kw), so that the panel's walk over the output
 * positions, in segments within one output row and one sub-panel, finds each segment's input row once for all
 * KW taps; a segment whose window inputs lie inside the row is copied without bounds checks (a plain contiguous
 * copy where the stride and the input's W stride are 1). */
#ifdef PW /* the plan defines PW and PS for im2col_pack's builds only */
/* vec_type_hint: a work-item's copies are its own runs; Intel's CPU runtime otherwise makes neighbouring work-items
 * (other channels and rows) SIMD lanes, every copy a gather and a scatter (ResNet-50's 3 x 3 layer at batch 8: 12.6
 * ms of its 18 there) */
__kernel __attribute__((vec_type_hint(float8)))
void im2col_pack(__global const store_t *x__base, ulong x__offset, ulong8 x_strides, ulong8 x_sizes,
                 __global float *pack, ulong pack__offset, ulong4 kernel_sizes, ulong4 out_sizes,
                 ulong4 strides, ulong4 dilations, ulong4 start_padding, uint taps, uint rows,
                 uint positions, uint panels, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    const uint kernel_w = (uint)kernel_sizes.w;
    const uint slices = rows / kernel_w;   /* channels x kd x kh */
    const uint slice = gid % slices;
    const uint rest = gid / slices;        /* n * panels + p */
    const uint p = rest % panels, n = rest / panels;
    const uint kh = slice % (uint)kernel_sizes.z;
    const uint kd = (slice / (uint)kernel_sizes.z) % (uint)kernel_sizes.y;
    const uint c = slice / (uint)kernel_sizes.z / (uint)kernel_sizes.y;  /* K runs channel-major */
    const uint tap_d = TAP(kd, kernel_sizes.y), tap_h = TAP(kh, kernel_sizes.z);
    __global const store_t *xp = x__base + x__offset + (ulong)n * x_strides.s3 + (ulong)c * x_strides.s4;
    __global float *dst = pack + pack__offset + (ulong)rest * rows * PW + (ulong)slice * kernel_w * PS;
    const uint p0 = p * PW;
    const uint out_w = (uint)out_sizes.w, in_w = (uint)x_sizes.s7;
    uint ow = p0 % out_w;
    uint oh = (p0 / out_w) % (uint)out_sizes.z;
    uint od = p0 / out_w / (uint)out_sizes.z;
    const long sw = (long)strides.w, dw = (long)dilations.w, pw = (long)start_padding.w;
    const ulong xw = x_strides.s7;
    const bool unit = sw == 1 && xw == 1;
    uint i = 0;
    while (i < PW && p0 + i < positions) {
        const uint run = min(min(PS - i % PS, out_w - ow), positions - (p0 + i));
        __global float *seg = dst + (ulong)(i / PS) * rows * PS + i % PS;
        const long id = source_index(od, tap_d, strides.y, dilations.y, start_padding.y, x_sizes.s5);
        const long ih = source_index(oh, tap_h, strides.z, dilations.z, start_padding.z, x_sizes.s6);
        if (id < 0 || ih < 0) {
            for (uint kw = 0; kw < kernel_w; ++kw)
                for (uint s = 0; s < run; ++s)
                    seg[kw * PS + s] = 0.0f;
        } else {
            __global const store_t *x_row = xp + (ulong)id * x_strides.s5 + (ulong)ih * x_strides.s6;
            for (uint kw = 0; kw < kernel_w; ++kw) {
                __global float *out = seg + kw * PS;
                const long iw0 = (long)ow * sw + (long)TAP(kw, kernel_w) * dw - pw;
                const bool inside = iw0 >= 0 && iw0 + (long)(run - 1) * sw < (long)in_w;
                if (unit && inside) {
                    __global const store_t *src = x_row + iw0;
                    for (uint s = 0; s < run; ++s)
                        out[s] = (float)LOAD(src, s);
                } else if (inside) {
                    for (uint s = 0; s < run; ++s)
                        out[s] = (float)LOAD(x_row, (ulong)(iw0 + (long)s * sw) * xw);
                } else {
                    for (uint s = 0; s < run; ++s) {
                        const long iw = iw0 + (long)s * sw;
                        out[s] = iw >= 0 && iw < (long)in_w ? (float)LOAD(x_row, (ulong)iw * xw) : 0.0f;
                    }
                }
            }
        }
        i += run;
        ow += run;
        if (ow == out_w) {
            ow = 0;
            if (++oh == (uint)out_sizes.z) {
                oh = 0;
                ++od;
            }
        }
    }
    for (; i < PW; ++i)  /* past the last position: zeros (computed, never stored) */
        for (uint kw = 0; kw < kernel_w; ++kw)
            dst[(ulong)(i / PS) * rows * PS + kw * PS + i % PS] = 0.0f;
}
#endif

/* convolution_rows, CPU devices' direct kernel (FORWARD, any groups, no OutputPadding: depthwise and grouped
 * convolutions, and the one-group ones no GEMM path takes): one work-item per output row {n, oc block, od, oh}: OCB
 * output channels of one group (OCB divides nothing: a block past the group's last channel computes a clamped
 * channel and stores nothing) by RW outputs along W at a time, in OCB x RW accumulators, so that each input read
 * serves OCB channels. Per output the sum runs over the group's input channels and the taps in `convolution`'s
 * order (ic, kd, kh, kw), skipping the taps over the padding, in float32 without contraction: bitwise
 * `convolution`'s results. The row's valid kd/kh taps and pointers are found once per row, not per output; a tap
 * whose RW inputs all lie inside the row reads them without bounds checks (contiguous where the stride and the
 * input's W stride are 1: UNIT_W, vector loads for the compiler); one reaching the padding or the row's end reads
 * a clamped index and adds -0.0f in place of the product there (x + -0 is x for every x, so the sum is the one
 * that skips the tap, an infinite or NaN weight included). */
#ifdef RW
#ifndef RH
#define RH 1 /* output rows per work-item */
#endif
#if RH > 1 && !defined(ROW_TAPS)
#error "RH > 1 needs the ROW_TAPS build"
#endif
/* The RW lanes of a row as one vector (explicit: Intel's CPU runtime compiles the scalar lanes of a kernel that
 * carries vec_type_hint as scalar code) and the mask of which lanes take their product */
#define ROW_V DMLSIM_CAT(float, RW)
#define ROW_MASK DMLSIM_CAT(int, RW)
#define ROW_VLOAD(p) DMLSIM_CAT(vload, RW)(0, (p))
/* acc += xv * w where the mask says so, else + -0.0f (x + -0 is x for every x: the sum that skips the term) */
#define ROW_ADD(acc, xv, w) ((acc) + (xv) * (w))
#define ROW_ADD_MASKED(acc, xv, w, m) ((acc) + select((ROW_V)(-0.0f), (xv) * (w), (m)))
#endif
#ifdef ROW_TAPS
/* The KW taps of one input row into the OCB accumulator vectors: lane l of tap kw reads element t = l + kw * DW of
 * the row's span xr; ROW_INSIDE: only where inside[t] (not over the padding), else adds -0.0f (nothing) */
#define ROW_ALL(acc, xv, w, kw) ROW_ADD(acc, xv, w)
#if !defined(STORE_HALF) && defined(DMLSIM_CPU)
/* FLOAT32 storage: an unmasked span's taps are vector loads from the row itself (a private copy read back as vectors
 * stalls on store-to-load forwarding) */
#define ROW_TAP_VECTOR(kw) (masked ? ROW_VLOAD(xr + (kw) * DW) : ROW_VLOAD(x_row + iw_start + (kw) * DW))
#define ROW_SPAN_COPY /* nothing: the taps read the row */
#else
#define ROW_TAP_VECTOR(kw) ROW_VLOAD(xr + (kw) * DW)
#define ROW_SPAN_COPY                                                                                             \
    _Pragma("unroll") for (uint t = 0; t < ROW_SPAN; ++t)                                                         \
        xr[t] = (float)LOAD(x_row + iw_start, t);
#endif
#define ROW_INSIDE(acc, xv, w, kw) ROW_ADD_MASKED(acc, xv, w, ROW_VLOAD(inside + (kw) * DW))
#define ROW_TAPS_ACCUMULATE(COMBINE, A)                                                                           \
    _Pragma("unroll") for (uint kw = 0; kw < KW; ++kw) {                                                          \
        const ulong f_kw = f_tap + (ulong)TAP(kw, KW) * fw;                                                       \
        const ROW_V xv = ROW_TAP_VECTOR(kw);                                                                      \
        float weight[OCB];                                                                                        \
        _Pragma("unroll") for (uint o = 0; o < OCB; ++o)                                                          \
            weight[o] = (float)LOAD(f_out[o], f_kw);                                                              \
        _Pragma("unroll") for (uint o = 0; o < OCB; ++o)                                                          \
            A[o] = COMBINE(A[o], xv, weight[o], kw);                                                              \
    }
/* The span of input row x_row that the outputs from ow0 read (RW + (KW - 1) * DW inputs), once, in private memory
 * (xr), unchecked where it lies inside the row, else clamped, with inside[] marking the lanes in the row (masked) */
#define ROW_SPAN_READ                                                                                             \
    const long iw_start = (long)ow0 - pw;                                                                         \
    float xr[ROW_SPAN];                                                                                           \
    int inside[ROW_SPAN]; /* -1 (all bits: select's true) or 0; set where masked */                              \
    const bool masked = !(full && iw_start >= 0 && iw_start + ROW_SPAN <= (long)in_w);                           \
    if (!masked) {                                                                                                \
        ROW_SPAN_COPY                                                                                             \
    } else {                                                                                                      \
        _Pragma("unroll") for (uint t = 0; t < ROW_SPAN; ++t) {                                                   \
            const long iw = iw_start + (long)t;                                                                   \
            inside[t] = iw >= 0 && iw < (long)in_w ? -1 : 0;                                                      \
            /* the index clamped by selects: PoCL 3.0 calls clamp(), and the loop stays scalar */                 \
            xr[t] = (float)LOAD(x_row, (ulong)(iw < 0 ? 0 : inside[t] ? iw : (long)in_w - 1));                    \
        }                                                                                                         \
    }
/* the KW taps of the span just read into accumulator row A, the filter's taps from f_tap */
#define ROW_SPAN_TAPS(A)                                                                                          \
    if (masked) {                                                                                                 \
        ROW_TAPS_ACCUMULATE(ROW_INSIDE, A)                                                                        \
    } else {                                                                                                      \
        ROW_TAPS_ACCUMULATE(ROW_ALL, A)                                                                           \
    }
#endif
#ifdef RW /* the plan defines RW and OCB for convolution_rows' builds only */
/* The kernel's lanes are its own (RW outputs, unrolled): vec_type_hint tells Intel's CPU runtime not to make
 * neighbouring work-items SIMD lanes as well (MobileNetV2's depthwise layer at batch 8: 14.5 -> 4.8 ms there) */
__kernel __attribute__((vec_type_hint(ROW_V))) void convolution_rows(__global const store_t *x__base, ulong x__offset, ulong8 x_strides, ulong8 x_sizes,
                               __global const store_t *f__base, ulong f__offset, ulong8 f_strides, ulong8 f_sizes,
#ifdef HAS_BIAS
                               __global const store_t *bias__base, ulong bias__offset, ulong bias_channel_stride,
#endif
                               __global store_t *y__base, ulong y__offset, ulong8 y_strides, ulong8 y_sizes,
                               ulong4 strides, ulong4 dilations, ulong4 start_padding, uint groups, uint count
#ifdef IF_FLAGGED
                               , __global const store_t *flag, ulong flag__offset
#endif
                               )
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
#ifdef IF_FLAGGED
    if ((float)LOAD(flag, flag__offset) == 0.0f)  /* as `convolution`'s: the GEMM paths' recompute, CPU devices */
        return;
#endif
    const uint out_h = (uint)y_sizes.s6, out_d = (uint)y_sizes.s5, out_c = (uint)y_sizes.s4;
    const uint cout_group = out_c / groups, blocks = (cout_group + OCB - 1) / OCB;
    const uint row_sets = (out_h + RH - 1) / RH; /* a work-item's RH output rows from oh0 */
    const uint oh0 = gid % row_sets * RH;
    uint rest = gid / row_sets;
    const uint od = rest % out_d;
    rest /= out_d;
    const uint block = rest % (blocks * groups), n = rest / (blocks * groups);
    const uint group = block / blocks, oc0 = group * cout_group + (block % blocks) * OCB;
    const uint oc_end = (group + 1) * cout_group;
    const uint out_w = (uint)y_sizes.s7, in_w = (uint)x_sizes.s7;
    const uint cin_group = (uint)x_sizes.s4 / groups;
    const long sw = (long)strides.w, dw = (long)dilations.w, pw = (long)start_padding.w;
    const ulong xw = x_strides.s7, fw = f_strides.s7;
    __global const store_t *x_image = x__base + x__offset + (ulong)n * x_strides.s3;
    __global const store_t *f_out[OCB];
#pragma unroll
    for (uint o = 0; o < OCB; ++o)  /* a channel past the group's last reads the last one's weights, stores nothing */
        f_out[o] = f__base + f__offset + (ulong)min(oc0 + o, oc_end - 1) * f_strides.s3;
    for (uint ow0 = 0; ow0 < out_w; ow0 += RW) {
        ROW_V acc[RH][OCB];
#pragma unroll
        for (uint r = 0; r < RH; ++r)
#pragma unroll
            for (uint o = 0; o < OCB; ++o)
                acc[r][o] = (ROW_V)(0.0f);
        const bool full = ow0 + RW <= out_w;
        for (uint ic = 0; ic < cin_group; ++ic) {
            const uint c = cin_group * group + ic;
            for (uint kd = 0; kd < (uint)f_sizes.s5; ++kd) {
                const long id = source_index(od, kd, strides.s1, dilations.s1, start_padding.s1, x_sizes.s5);
                if (id < 0)
                    continue;
#if RH > 1 /* ROW_TAPS builds with H stride 1, KH and DH build constants (the plan's choice) */
                /* each valid input row t of the RH rows' windows is read once and serves every output row r whose
                 * tap kh = (t - r) / DH lands on it; per output row the taps still come in kh order */
#pragma unroll
                for (uint t = 0; t < RH + (KH - 1) * DH; ++t) {
                    const long ih = (long)(oh0 + t) - (long)start_padding.z;
                    if (ih < 0 || ih >= (long)x_sizes.s6)
                        continue;
                    __global const store_t *x_row = x_image + (ulong)c * x_strides.s4 + (ulong)id * x_strides.s5 +
                                                    (ulong)ih * x_strides.s6;
                    ROW_SPAN_READ
#pragma unroll
                    for (uint r = 0; r < RH; ++r) {
                        if (t < r || (t - r) % DH != 0 || (t - r) / DH >= KH)
                            continue;
                        const ulong f_tap = (ulong)ic * f_strides.s4 + (ulong)TAP(kd, f_sizes.s5) * f_strides.s5 +
                                            (ulong)TAP((t - r) / DH, KH) * f_strides.s6;
                        ROW_SPAN_TAPS(acc[r])
                    }
                }
#else
                for (uint kh = 0; kh < (uint)f_sizes.s6; ++kh) {
                    const long ih = source_index(oh0, kh, strides.z, dilations.z, start_padding.z, x_sizes.s6);
                    if (ih < 0)
                        continue;
                    __global const store_t *x_row = x_image + (ulong)c * x_strides.s4 + (ulong)id * x_strides.s5 +
                                                    (ulong)ih * x_strides.s6;
                    const ulong f_tap = (ulong)ic * f_strides.s4 + (ulong)TAP(kd, f_sizes.s5) * f_strides.s5 +
                                        (ulong)TAP(kh, f_sizes.s6) * f_strides.s6;
#ifdef ROW_TAPS /* UNIT_W with the filter's width KW and W dilation DW known at build time (the plan's choice) */
                    ROW_SPAN_READ
                    ROW_SPAN_TAPS(acc[0])
#else
                    for (uint kw = 0; kw < (uint)f_sizes.s7; ++kw) {
                        const ulong f_at = f_tap + (ulong)TAP(kw, f_sizes.s7) * fw;
                        float weight[OCB];
#pragma unroll
                        for (uint o = 0; o < OCB; ++o)
                            weight[o] = (float)LOAD(f_out[o], f_at);
                        const long iw0 = (long)ow0 * sw + (long)kw * dw - pw;
                        float x[RW];
                        if (full && iw0 >= 0 && iw0 + (RW - 1) * sw < (long)in_w) {
#ifdef UNIT_W /* stride 1 over a W-contiguous input: RW neighbouring elements, one vector load for the compiler */
                            __global const store_t *x_run = x_row + iw0;
#pragma unroll
                            for (uint l = 0; l < RW; ++l)
                                x[l] = (float)LOAD(x_run, l);
#else
#pragma unroll
                            for (uint l = 0; l < RW; ++l)
                                x[l] = (float)LOAD(x_row, (ulong)(iw0 + (long)l * sw) * xw);
#endif
                            const ROW_V xv = ROW_VLOAD(x);
#pragma unroll
                            for (uint o = 0; o < OCB; ++o)
                                acc[0][o] = ROW_ADD(acc[0][o], xv, weight[o]);
                        } else {
                            int inside[RW];  /* -1 (all bits: select's true) or 0 */
#pragma unroll
                            for (uint l = 0; l < RW; ++l) {
                                const long iw = iw0 + (long)l * sw;
                                inside[l] = ow0 + l < out_w && iw >= 0 && iw < (long)in_w ? -1 : 0;
                                x[l] = (float)LOAD(x_row, (ulong)clamp(iw, 0L, (long)in_w - 1) * xw);
                            }
                            const ROW_V xv = ROW_VLOAD(x);
                            const ROW_MASK m = ROW_VLOAD(inside);
#pragma unroll
                            for (uint o = 0; o < OCB; ++o)
                                acc[0][o] = ROW_ADD_MASKED(acc[0][o], xv, weight[o], m);
                        }
                    }
#endif
                }
#endif
            }
        }
#pragma unroll
        for (uint r = 0; r < RH; ++r) {
        const uint oh = oh0 + r;
        if (oh >= out_h)
            break;
#pragma unroll
        for (uint o = 0; o < OCB; ++o) {
            const uint oc = oc0 + o;
            if (oc >= oc_end)
                break;
#ifdef HAS_BIAS
            const float bias = (float)LOAD(bias__base + bias__offset, (ulong)oc * bias_channel_stride);
#endif
            const ulong y_row = (ulong)n * y_strides.s3 + (ulong)oc * y_strides.s4 + (ulong)od * y_strides.s5 +
                                (ulong)oh * y_strides.s6;
            float lanes[RW];
            DMLSIM_CAT(vstore, RW)(acc[r][o], 0, lanes);
            for (uint l = 0; l < RW && ow0 + l < out_w; ++l) {
                float sum = lanes[l];
#ifdef HAS_BIAS
                sum += bias;
#endif
                STORE(FUSED_ACTIVATION(sum), y__base + y__offset, y_row + (ulong)(ow0 + l) * y_strides.s7);
            }
        }
        }
    }
}
#endif
