/* DirectML's pooling family: one work-item per output element. Every tensor is seen as 5-D {N, C, D, H, W}
 * (a 4-D tensor has D of size 1 and stride 0): sizes and DML strides arrive as ulong8 whose .s3...s7 are
 * N, C, D, H, W; the per-spatial-dimension attributes as ulong4 whose .y .z .w are D, H, W.
 * Window taps run row-major (d, then h, then w), which is increasing input order; a tap at input position
 * o * stride + k * dilation - start_padding outside [0, size) reads padding and is skipped.
 * Build variants (typed.h: IN_T = OUT_T = the data type, ACC_T = float for FLOAT16/FLOAT32):
 *   -DFUNC_MAX      the largest element read, NaN ignored unless all are NaN (a NaN is replaced by the next
 *                   number), the first of equal elements; none read: LOWEST, index all ones.
 *                   -DHAS_INDICES (INDEX_T uint/ulong): its row-major index in the packed input.
 *   -DFUNC_AVERAGE  float32 sum / (-DINCLUDE_PADDING: the window's tap count; else the elements read); none
 *                   read: 0.
 *   -DFUNC_LP       (sum |x|^p)^(1/p) in float32, scaled by the largest magnitude m (a first pass over the window):
 *                   m * rootn(sum pown(|x| / m, p), p); NaN if any is NaN, else inf if any is infinite; none read: 0.
 */
#include "typed.h"

#define AT5(st, n, c, d, h, w) \
    ((ulong)(n) * (st).s3 + (ulong)(c) * (st).s4 + (ulong)(d) * (st).s5 + (ulong)(h) * (st).s6 + (ulong)(w) * (st).s7)

/* v replaces the best so far: larger, or a number after a NaN (NaN is ignored unless all are NaN) */
#ifdef IS_FLOAT
#define BETTER(v, best) ((v) > (best) || (isnan(best) && !isnan(v)))
/* the same, without short-circuits or calls (pooling_rows' lanes: a loop the compiler vectorizes) */
#define BETTER_BITS(v, best) ((int)((v) > (best)) | ((int)((best) != (best)) & (int)((v) == (v))))
#else
#define BETTER(v, best) ((v) > (best))
#define BETTER_BITS(v, best) ((int)((v) > (best)))
#endif

/* The input position tap k reads for output position o along one axis; -1 for padding. */
inline long tap_position(ulong o, ulong k, ulong stride, ulong dilation, ulong pad, ulong in_size)
{
    const long i = (long)(o * stride + k * dilation) - (long)pad;
    return (i >= 0 && i < (long)in_size) ? i : -1;
}

__kernel void pooling(TYPED_IN(x), ulong8 x_strides, ulong8 x_sizes, TYPED_OUT(y), ulong8 y_strides,
                      ulong8 y_sizes,
#ifdef HAS_INDICES
                      __global INDEX_T *indices__base, ulong indices__offset, ulong8 indices_strides,
#endif
                      ulong4 strides, ulong4 window, ulong4 dilations, ulong4 start_padding,
#ifdef FUNC_LP
                      uint p,
#endif
                      uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    COORDS8(o, gid, y_sizes)  /* the 5-D output {N, C, D, H, W} sits in o[3..7] */
    const uint n = o[3], c = o[4], od = o[5], oh = o[6], ow = o[7];
    __global const in_t *x = x__base + x__offset;
#ifdef FUNC_MAX
    ACC_T best = (ACC_T)(LOWEST);
    ulong best_index = ~(ulong)0;
    int found = 0;
#else
    float sum = 0.0f, largest = 0.0f;
    uint read = 0, nan = 0;
#endif
#ifdef FUNC_LP
    for (int pass = 0; pass < 2; ++pass)
#endif
    for (ulong kd = 0; kd < window.y; ++kd) {
        const long id = tap_position(od, kd, strides.y, dilations.y, start_padding.y, x_sizes.s5);
        if (id < 0)
            continue;
        for (ulong kh = 0; kh < window.z; ++kh) {
            const long ih = tap_position(oh, kh, strides.z, dilations.z, start_padding.z, x_sizes.s6);
            if (ih < 0)
                continue;
            for (ulong kw = 0; kw < window.w; ++kw) {
                const long iw = tap_position(ow, kw, strides.w, dilations.w, start_padding.w, x_sizes.s7);
                if (iw < 0)
                    continue;
                const ACC_T v = LOAD_IN(x, AT5(x_strides, n, c, id, ih, iw));
#ifdef FUNC_MAX
                if (!found || BETTER(v, best)) {
                    best = v;
                    best_index = (((((ulong)n * x_sizes.s4 + c) * x_sizes.s5 + (ulong)id) * x_sizes.s6 + (ulong)ih)
                                  * x_sizes.s7) + (ulong)iw;
                    found = 1;
                }
#elif defined(FUNC_LP)
                if (pass == 0) {
                    largest = fmax(largest, fabs((float)v));
                    nan |= isnan((float)v);
                    ++read;
                } else if (largest > 0.0f && !isinf(largest)) {
                    sum += pown(fabs((float)v) / largest, (int)p);
                }
#else
                sum += (float)v;
                ++read;
#endif
            }
        }
    }
#ifdef FUNC_MAX
    STORE_OUT(best, y__base + y__offset, AT5(y_strides, n, c, od, oh, ow));
#ifdef HAS_INDICES
    indices__base[indices__offset + AT5(indices_strides, n, c, od, oh, ow)] = (INDEX_T)best_index;
#endif
#elif defined(FUNC_LP)
    float norm = (largest > 0.0f && !isinf(largest)) ? largest * rootn(sum, (int)p) : largest;
    STORE_OUT(nan ? NAN : norm, y__base + y__offset, AT5(y_strides, n, c, od, oh, ow));
#else
#ifdef INCLUDE_PADDING
    const float divisor = (float)(window.y * window.z * window.w);
#else
    const float divisor = (float)read;
#endif
    STORE_OUT(read ? sum / divisor : 0.0f, y__base + y__offset, AT5(y_strides, n, c, od, oh, ow));
#endif
}

#ifdef PW
/* pooling_rows, CPU devices' MAX and AVERAGE pooling (the plan defines PW for its builds only): one work-item per
 * output row {n, c, od, oh}, PW outputs along W at a time, one lane each; per lane the taps run in `pooling`'s order
 * and each lane's result is `pooling`'s bit for bit. A lane whose tap reads padding (or that lies past the row's
 * end) reads a clamped index and keeps its state: MAX takes nothing, AVERAGE adds -0.0f (x + -0 is x for every x)
 * and counts nothing. The row's valid kd/kh taps are found once per row; a tap whose PW inputs all lie inside the
 * row reads them without bounds checks. */
/* One tap of lane l: value v, inside (not padding), at input position iw along the row. MAX takes v where it is
 * better than the lane's best so far (the first found always), AVERAGE adds it (-0.0f, nothing, over the padding) */
#ifdef FUNC_MAX
#ifdef HAS_INDICES
#define POOL_TAP_INDEX(take, iw) best_index[l] = (take) ? row_index + (ulong)(iw) : best_index[l];
#else
#define POOL_TAP_INDEX(take, iw)
#endif
#ifdef HAS_INDICES
#define POOL_TAP(v, inside, iw)                                                                          \
    {                                                                                                    \
        const ACC_T v_ = (v);                                                                            \
        const int take_ = (int)(inside) & ((int)!found[l] | BETTER_BITS(v_, best[l]));                 \
        best[l] = take_ ? v_ : best[l];                                                                  \
        found[l] |= take_;                                                                               \
        POOL_TAP_INDEX(take_, iw)                                                                        \
    }
#else
/* values only: the largest number from LOWEST up (a NaN compares false; the first of equals stays), and whether the
 * lane read anything (found) and a number (numbers): none read gives LOWEST, only NaNs NaN (POOL_RESULT) */
#define POOL_TAP(v, inside, iw)                                                                          \
    {                                                                                                    \
        const ACC_T v_ = (v);                                                                            \
        const int in_ = (int)(inside);                                                                   \
        best[l] = (in_ & (int)(v_ > best[l])) ? v_ : best[l];                                            \
        found[l] |= in_;                                                                                 \
        POOL_NUMBERS(in_, v_)                                                                            \
    }
#ifdef IS_FLOAT
#define POOL_NUMBERS(in_, v_) numbers[l] |= in_ & (int)((v_) == (v_));
#define POOL_RESULT(l) (numbers[l] ? best[l] : found[l] ? (ACC_T)NAN : best[l])
#else
#define POOL_NUMBERS(in_, v_)
#define POOL_RESULT(l) best[l]
#endif
#endif
#else
#define POOL_TAP(v, inside, iw)                                                                          \
    {                                                                                                    \
        const bool in_ = (inside);                                                                       \
        sum[l] += in_ ? (float)(v) : -0.0f;                                                              \
        read[l] += in_;                                                                                  \
    }
#endif
__kernel void pooling_rows(TYPED_IN(x), ulong8 x_strides, ulong8 x_sizes, TYPED_OUT(y), ulong8 y_strides,
                           ulong8 y_sizes,
#ifdef HAS_INDICES
                           __global INDEX_T *indices__base, ulong indices__offset, ulong8 indices_strides,
#endif
                           ulong4 strides, ulong4 window, ulong4 dilations, ulong4 start_padding, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    const uint out_h = (uint)y_sizes.s6, out_d = (uint)y_sizes.s5, channels = (uint)y_sizes.s4;
    const uint oh = gid % out_h;
    uint rest = gid / out_h;
    const uint od = rest % out_d;
    rest /= out_d;
    const uint c = rest % channels, n = rest / channels;
    const uint out_w = (uint)y_sizes.s7;
    const long in_w = (long)x_sizes.s7, sw = (long)strides.w, dw = (long)dilations.w, pw = (long)start_padding.w;
    const ulong xw = x_strides.s7;
    __global const in_t *x_plane = x__base + x__offset + (ulong)n * x_strides.s3 + (ulong)c * x_strides.s4;
    for (uint ow0 = 0; ow0 < out_w; ow0 += PW) {
#ifdef FUNC_MAX
        ACC_T best[PW];
        int found[PW], numbers[PW];
#ifdef HAS_INDICES
        ulong best_index[PW];
#endif
#pragma unroll
        for (uint l = 0; l < PW; ++l) {
            best[l] = (ACC_T)(LOWEST);
            found[l] = 0;
            numbers[l] = 0;
#ifdef HAS_INDICES
            best_index[l] = ~(ulong)0;
#endif
        }
#else
        float sum[PW];
        uint read[PW];
#pragma unroll
        for (uint l = 0; l < PW; ++l) {
            sum[l] = 0.0f;
            read[l] = 0;
        }
#endif
        const bool full = ow0 + PW <= out_w;
        for (ulong kd = 0; kd < window.y; ++kd) {
            const long id = tap_position(od, kd, strides.y, dilations.y, start_padding.y, x_sizes.s5);
            if (id < 0)
                continue;
            for (ulong kh = 0; kh < window.z; ++kh) {
                const long ih = tap_position(oh, kh, strides.z, dilations.z, start_padding.z, x_sizes.s6);
                if (ih < 0)
                    continue;
                __global const in_t *x_row = x_plane + (ulong)id * x_strides.s5 + (ulong)ih * x_strides.s6;
#ifdef HAS_INDICES
                const ulong row_index = ((((ulong)n * x_sizes.s4 + c) * x_sizes.s5 + (ulong)id) * x_sizes.s6 +
                                         (ulong)ih) * x_sizes.s7;
#endif
#ifdef POOL_TAPS /* the input's W stride 1, the window's W size KW, dilation DW and stride SW build constants */
                /* the POOL_SPAN inputs the set's taps read, once, in private memory: tap kw of lane l reads element
                 * l * SW + kw * DW of them */
                const long iw_start = (long)ow0 * sw - pw;
                ACC_T xr[POOL_SPAN];
                if (full && iw_start >= 0 && iw_start + POOL_SPAN <= in_w) {
#pragma unroll
                    for (uint t = 0; t < POOL_SPAN; ++t)
                        xr[t] = LOAD_IN(x_row + iw_start, t);
#pragma unroll
                    for (uint kw = 0; kw < KW; ++kw)
#pragma unroll
                        for (uint l = 0; l < PW; ++l)
                            POOL_TAP(xr[l * SW + kw * DW], 1, iw_start + (long)(l * SW + kw * DW))
                } else {
                    bool ok[POOL_SPAN];
#pragma unroll
                    for (uint t = 0; t < POOL_SPAN; ++t) {
                        const long iw = iw_start + (long)t;
                        ok[t] = iw >= 0 && iw < in_w;
                        xr[t] = LOAD_IN(x_row, (ulong)(ok[t] ? iw : 0)); /* selects: PoCL 3.0 calls clamp() */
                    }
#pragma unroll
                    for (uint kw = 0; kw < KW; ++kw)
#pragma unroll
                        for (uint l = 0; l < PW; ++l)
                            POOL_TAP(xr[l * SW + kw * DW], ok[l * SW + kw * DW], iw_start + (long)(l * SW + kw * DW))
                }
#else
                for (ulong kw = 0; kw < window.w; ++kw) {
                    const long iw0 = (long)ow0 * sw + (long)kw * dw - pw;
                    const bool all_inside = full && iw0 >= 0 && iw0 + (PW - 1) * sw < in_w;
#pragma unroll
                    for (uint l = 0; l < PW; ++l) {
                        const long iw = iw0 + (long)l * sw;
                        const bool inside = all_inside || (ow0 + l < out_w && iw >= 0 && iw < in_w);
                        const ACC_T v = LOAD_IN(x_row, (ulong)(all_inside ? iw : clamp(iw, 0L, in_w - 1)) * xw);
                        POOL_TAP(v, inside, iw)
                    }
                }
#endif
            }
        }
        const ulong y_row = (ulong)n * y_strides.s3 + (ulong)c * y_strides.s4 + (ulong)od * y_strides.s5 +
                            (ulong)oh * y_strides.s6;
#ifdef HAS_INDICES
        const ulong indices_row = (ulong)n * indices_strides.s3 + (ulong)c * indices_strides.s4 +
                                  (ulong)od * indices_strides.s5 + (ulong)oh * indices_strides.s6;
#endif
        for (uint l = 0; l < PW && ow0 + l < out_w; ++l) {
#ifdef FUNC_MAX
#ifdef HAS_INDICES
            STORE_OUT(best[l], y__base + y__offset, y_row + (ulong)(ow0 + l) * y_strides.s7);
            indices__base[indices__offset + indices_row + (ulong)(ow0 + l) * indices_strides.s7] =
                (INDEX_T)best_index[l];
#else
            STORE_OUT(POOL_RESULT(l), y__base + y__offset, y_row + (ulong)(ow0 + l) * y_strides.s7);
#endif
#else
#ifdef INCLUDE_PADDING
            const float divisor = (float)(window.y * window.z * window.w);
#else
            const float divisor = (float)read[l];
#endif
            STORE_OUT(read[l] ? sum[l] / divisor : 0.0f, y__base + y__offset, y_row + (ulong)(ow0 + l) * y_strides.s7);
#endif
        }
    }
}
#endif

#ifdef LW
/* pooling_vectors, CPU devices' FLOAT32 MAX (no indices) and AVERAGE where both tensors are W-contiguous and the W
 * stride SW is 1 or 2 (the plan defines LW, the lanes, with KW, DW and SW as build constants): one work-item per
 * output row {n, c, od, oh}. The row's body, outputs [body_start, body_last + LW) whose every W tap lies inside the
 * input row (the plan finds it; it holds at least one set), runs LW outputs at a time as one float vector, each tap one
 * load of 16 inputs (LW * SW), the last set ending the body (it may recompute outputs of the one before: the same
 * values). The outputs before and after the body (those whose windows reach the padding: usually StartPadding's and
 * EndPadding's count) run one at a time. Each output runs `pooling`'s taps in its order and gives `pooling`'s bits:
 * - MAX: v is taken where v > best (a compare and a select: a NaN never wins, the first of equals stays); only NaNs
 *   give NaN, nothing LOWEST (-inf): where a lane's best is still -inf, its taps are read again for whether one
 *   was a number (not per tap: -inf is rare);
 * - AVERAGE: v is added and counted (a tap over the padding is skipped). */
#define LFLOAT DMLSIM_CAT(float, LW)
#define LINT DMLSIM_CAT(int, LW)
#if defined(__clang__)
typedef float16 pool_float16_u __attribute__((aligned(4)));
typedef LFLOAT pool_lfloat_u __attribute__((aligned(4)));
#define POOL_LOAD16(p) (*(__global const pool_float16_u *)(p))
#define POOL_STORE(v, p) (*(__global pool_lfloat_u *)(p) = (v))
#else
#define POOL_LOAD16(p) vload16(0, (p))
#define POOL_STORE(v, p) DMLSIM_CAT(vstore, LW)((v), 0, (p))
#endif
#if SW == 1
#define POOL_LOAD(p) POOL_LOAD16(p)
#else /* SW 2, LW 8: the even elements of sixteen */
#define POOL_LOAD(p) (POOL_LOAD16(p).even)
#endif
/* the row loops of one output or set of outputs: x_row, each valid D/H tap's input row, in `pooling`'s order (the
 * work-item's KD x KH input rows, build constants, found once: row_at and row_valid) */
#define POOL_ROWS(BODY)                                                                                      \
    _Pragma("unroll") for (uint r = 0; r < KD * KH; ++r) {                                                   \
        if (!row_valid[r])                                                                                   \
            continue;                                                                                        \
        __global const float *x_row = row_at[r];                                                             \
        BODY                                                                                                 \
    }
/* row_at and row_valid of the window's taps kd, kh for output {od, oh} */
#define POOL_FIND_ROWS                                                                                       \
    __global const float *row_at[KD * KH];                                                                   \
    bool row_valid[KD * KH];                                                                                 \
    _Pragma("unroll") for (uint kd = 0; kd < KD; ++kd) {                                                     \
        const long id = tap_position(od, kd, strides.y, dilations.y, start_padding.y, x_sizes.s5);         \
        _Pragma("unroll") for (uint kh = 0; kh < KH; ++kh) {                                                 \
            const long ih = tap_position(oh, kh, strides.z, dilations.z, start_padding.z, x_sizes.s6);     \
            row_valid[kd * KH + kh] = id >= 0 && ih >= 0;                                                    \
            row_at[kd * KH + kh] = x_plane + (ulong)(id < 0 ? 0 : id) * x_strides.s5 +                      \
                                   (ulong)(ih < 0 ? 0 : ih) * x_strides.s6;                                  \
        }                                                                                                    \
    }
#ifdef INCLUDE_PADDING
#define POOL_DIVISOR(read) ((float)(window.y * window.z * window.w))
#else
#define POOL_DIVISOR(read) ((float)(read))
#endif
/* the output row {n, c, od, oh} of work-item `row`: x_plane (its input plane), y_row (its output row) */
#define POOL_ROW_OF(row)                                                                                             \
    const uint out_h = (uint)y_sizes.s6, out_d = (uint)y_sizes.s5, channels = (uint)y_sizes.s4;                      \
    const uint oh = (row) % out_h;                                                                                   \
    uint rest = (row) / out_h;                                                                                       \
    const uint od = rest % out_d;                                                                                    \
    rest /= out_d;                                                                                                   \
    const uint c = rest % channels, n = rest / channels;                                                             \
    const uint out_w = (uint)y_sizes.s7;                                                                             \
    const long in_w = (long)x_sizes.s7, pw = (long)start_padding.w;                                                  \
    __global const float *x_plane = x__base + x__offset + (ulong)n * x_strides.s3 + (ulong)c * x_strides.s4;         \
    __global float *y_row = y__base + y__offset + (ulong)n * y_strides.s3 + (ulong)c * y_strides.s4 +                \
                            (ulong)od * y_strides.s5 + (ulong)oh * y_strides.s6;
/* output ow of the row, one tap at a time, each checked against the row's ends */
#ifdef FUNC_MAX
#define POOL_ONE(ow)                                                                                                 \
    {                                                                                                                \
        const long iw_start = (long)(ow) * SW - pw;                                                                    \
        float best = -INFINITY;                                                                                      \
        int numbers = 0, found = 0;                                                                                  \
        POOL_ROWS(                                                                                                   \
            for (uint kw = 0; kw < KW; ++kw) {                                                                       \
                const long iw = iw_start + (long)(kw * DW);                                                          \
                if (iw >= 0 && iw < in_w) {                                                                          \
                    const float v = x_row[iw];                                                                       \
                    best = v > best ? v : best;                                                                      \
                    numbers |= v == v;                                                                               \
                    found = 1;                                                                                       \
                }                                                                                                    \
            }                                                                                                        \
        )                                                                                                            \
        y_row[(ow)] = numbers ? best : found ? NAN : best;                                                             \
    }
#else
#define POOL_ONE(ow)                                                                                                 \
    {                                                                                                                \
        const long iw_start = (long)(ow) * SW - pw;                                                                    \
        float sum = 0.0f;                                                                                            \
        uint read = 0;                                                                                               \
        POOL_ROWS(                                                                                                   \
            for (uint kw = 0; kw < KW; ++kw) {                                                                       \
                const long iw = iw_start + (long)(kw * DW);                                                          \
                if (iw >= 0 && iw < in_w) {                                                                          \
                    sum += x_row[iw];                                                                                \
                    ++read;                                                                                          \
                }                                                                                                    \
            }                                                                                                        \
        )                                                                                                            \
        y_row[(ow)] = read ? sum / POOL_DIVISOR(read) : 0.0f;                                                          \
    }
#endif
/* vec_type_hint: the kernel is written in LW-wide vectors. Intel's CPU runtime otherwise makes neighbouring
 * work-items SIMD lanes as well (rows 16 apart in one register: 5.2 ms for the bench's max pooling, 0.58 with it) */
__kernel __attribute__((vec_type_hint(LFLOAT)))
void pooling_vectors(__global const float *x__base, ulong x__offset, ulong8 x_strides, ulong8 x_sizes,
                     __global float *y__base, ulong y__offset, ulong8 y_strides, ulong8 y_sizes,
                     ulong4 strides, ulong4 window, ulong4 dilations, ulong4 start_padding, uint count,
                     uint body_start, uint body_last)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    POOL_ROW_OF(gid)
    POOL_FIND_ROWS
    /* the body, LW outputs at a time, every tap inside the row; the last set starts at body_last */
    for (uint ow0 = body_start;; ow0 += LW) {
        ow0 = min(ow0, body_last);
        const long iw_start = (long)ow0 * SW - pw;
#ifdef FUNC_MAX
        LFLOAT best = (LFLOAT)(-INFINITY);
        LINT numbers = 0; /* per lane: a number read */
        int found = 0;    /* every lane reads the same rows */
        POOL_ROWS(
            _Pragma("unroll") for (uint kw = 0; kw < KW; ++kw) {
                const LFLOAT v = POOL_LOAD(x_row + iw_start + kw * DW);
                best = v > best ? v : best;
                numbers |= v == v;
            }
            found = 1;
        )
        const LFLOAT result = numbers ? best : found ? (LFLOAT)(NAN) : best;
#else
        LFLOAT sum = 0.0f;
        uint read = 0;
        POOL_ROWS(
            _Pragma("unroll") for (uint kw = 0; kw < KW; ++kw)
                sum += POOL_LOAD(x_row + iw_start + kw * DW);
            read += KW;
        )
        const LFLOAT result = read ? sum / POOL_DIVISOR(read) : (LFLOAT)(0.0f);
#endif
        POOL_STORE(result, y_row + ow0);
        if (ow0 == body_last)
            break;
    }
    /* the outputs before and after the body, one at a time, each tap checked */
    for (uint ow = 0; ow < out_w; ++ow) {
        if (ow == body_start)
            ow = body_last + LW;
        if (ow >= out_w)
            break;
        POOL_ONE(ow)
    }
}

#endif

#ifdef UNPOOL
/* DML_OPERATOR_MAX_UNPOOLING (built with -DUNPOOL and INDEX_T), launch 1: every output element 0 (one work-item each, 4-D strides in .s4...s7). */
__kernel void unpool_zero(TYPED_OUT(y), ulong8 y_strides, ulong8 y_sizes, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    COORDS8(o, gid, y_sizes)
    STORE_OUT((ACC_T)0, y__base + y__offset, OFFSET8(o, y_strides));
}

/* Launch 2: each input element to the output element its index names (row-major over the output's sizes); an
 * index past the output's last element is skipped. Distinct indices only: which of two inputs naming the same
 * output element lands there is unspecified. */
__kernel void unpool_scatter(TYPED_IN(x), ulong8 x_strides, ulong8 x_sizes, __global const INDEX_T *indices__base,
                             ulong indices__offset, ulong8 indices_strides, TYPED_OUT(y), ulong8 y_strides,
                             ulong8 y_sizes, ulong out_count, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    COORDS8(i, gid, x_sizes)
    const ulong target = (ulong)indices__base[indices__offset + OFFSET8(i, indices_strides)];
    if (target >= out_count)
        return;
    COORDS8(o, (uint)target, y_sizes)
    STORE_OUT(LOAD_IN(x__base + x__offset, OFFSET8(i, x_strides)), y__base + y__offset, OFFSET8(o, y_strides));
}
#endif

#ifdef POOL_GRAD
/* DML_OPERATOR_MAX_POOLING_GRAD (-DGRAD_MAX) and AVERAGE_POOLING_GRAD (-DGRAD_AVERAGE), built with -DPOOL_GRAD:
 * one work-item per OutputGradientTensor element (a gather, no atomics: every output element is written once),
 * 5-D {N, C, D, H, W} as the pooling kernel. Element (n, c, i...) sums, over the windows that read it (tap k of
 * window o reads i = o * stride + k * dilation - start_padding, so o = (i + start_padding - k * dilation) / stride
 * where that divides exactly and lies in [0, out_size)), in tap order (kd, kh, kw), in float32:
 *   GRAD_MAX      dy[o] where the forward max of window o chose this element (pool_choice: the first maximum,
 *                 NaN ignored unless all are NaN, as FUNC_MAX above);
 *   GRAD_AVERAGE  dy[o] / divisor(o): the window's tap count (-DINCLUDE_PADDING), else the elements it reads.
 * Stored once (FLOAT16: rounded to nearest even). */

/* The window along one axis whose tap k reads input position i; -1 when none. */
inline long window_of(ulong i, ulong k, ulong stride, ulong dilation, ulong pad, ulong out_size)
{
    const long p = (long)(i + pad) - (long)(k * dilation);
    if (p < 0 || p % (long)stride != 0 || p / (long)stride >= (long)out_size)
        return -1;
    return p / (long)stride;
}

#ifdef GRAD_MAX
/* 1 when the forward max of window (od, oh, ow) chooses input element (id, ih, iw). */
inline int pool_choice(__global const in_t *x, ulong8 x_strides, ulong8 x_sizes, uint n, uint c, long od, long oh,
                       long ow, long id, long ih, long iw, ulong4 strides, ulong4 window, ulong4 dilations,
                       ulong4 start_padding)
{
    ACC_T best = (ACC_T)0;
    long bd = -1, bh = -1, bw = -1;
    int found = 0;
    for (ulong kd = 0; kd < window.y; ++kd) {
        const long jd = tap_position((ulong)od, kd, strides.y, dilations.y, start_padding.y, x_sizes.s5);
        if (jd < 0)
            continue;
        for (ulong kh = 0; kh < window.z; ++kh) {
            const long jh = tap_position((ulong)oh, kh, strides.z, dilations.z, start_padding.z, x_sizes.s6);
            if (jh < 0)
                continue;
            for (ulong kw = 0; kw < window.w; ++kw) {
                const long jw = tap_position((ulong)ow, kw, strides.w, dilations.w, start_padding.w, x_sizes.s7);
                if (jw < 0)
                    continue;
                const ACC_T v = LOAD_IN(x, AT5(x_strides, n, c, jd, jh, jw));
                if (!found || BETTER(v, best)) {
                    best = v;
                    bd = jd;
                    bh = jh;
                    bw = jw;
                    found = 1;
                }
            }
        }
    }
    return found && bd == id && bh == ih && bw == iw;
}
#else
/* How many taps of window o read the input (not padding) along one axis. */
inline ulong taps_inside(ulong o, ulong window, ulong stride, ulong dilation, ulong pad, ulong in_size)
{
    ulong inside = 0;
    for (ulong k = 0; k < window; ++k)
        inside += tap_position(o, k, stride, dilation, pad, in_size) >= 0;
    return inside;
}
#endif

__kernel void pooling_grad(
#ifdef GRAD_MAX
                           TYPED_IN(x), ulong8 x_strides,
#endif
                           TYPED_IN(dy), ulong8 dy_strides, ulong8 dy_sizes, TYPED_OUT(dx), ulong8 dx_strides,
                           ulong8 dx_sizes, ulong4 strides, ulong4 window, ulong4 dilations, ulong4 start_padding,
                           uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    COORDS8(e, gid, dx_sizes)  /* the 5-D element {N, C, D, H, W} in e[3..7] */
    const uint n = e[3], c = e[4];
    const long id = e[5], ih = e[6], iw = e[7];
    __global const in_t *dy = dy__base + dy__offset;
    float sum = 0.0f;
    for (ulong kd = 0; kd < window.y; ++kd) {
        const long od = window_of((ulong)id, kd, strides.y, dilations.y, start_padding.y, dy_sizes.s5);
        if (od < 0)
            continue;
        for (ulong kh = 0; kh < window.z; ++kh) {
            const long oh = window_of((ulong)ih, kh, strides.z, dilations.z, start_padding.z, dy_sizes.s6);
            if (oh < 0)
                continue;
            for (ulong kw = 0; kw < window.w; ++kw) {
                const long ow = window_of((ulong)iw, kw, strides.w, dilations.w, start_padding.w, dy_sizes.s7);
                if (ow < 0)
                    continue;
                const float g = (float)LOAD_IN(dy, AT5(dy_strides, n, c, od, oh, ow));
#ifdef GRAD_MAX
                if (pool_choice(x__base + x__offset, x_strides, dx_sizes, n, c, od, oh, ow, id, ih, iw, strides,
                                window, dilations, start_padding))
                    sum += g;
#else
#ifdef INCLUDE_PADDING
                const float share = (float)(window.y * window.z * window.w);
#else
                const float share = (float)(taps_inside((ulong)od, window.y, strides.y, dilations.y, start_padding.y,
                                                          dx_sizes.s5)
                                              * taps_inside((ulong)oh, window.z, strides.z, dilations.z, start_padding.z,
                                                            dx_sizes.s6)
                                              * taps_inside((ulong)ow, window.w, strides.w, dilations.w, start_padding.w,
                                                            dx_sizes.s7));
#endif
                sum += g / share;
#endif
            }
        }
    }
    STORE_OUT(sum, dx__base + dx__offset, AT5(dx_strides, n, c, id, ih, iw));
}
#endif

#ifdef QUANTIZED_AVERAGE
/* DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING (built with -DQUANTIZED_AVERAGE, typed.h's IN_T/OUT_T char or uchar,
 * SATURATE_T the output type): one work-item per output element; each element the window reads dequantized in float32,
 * (x - in_zero_point) * in_scale, summed in tap order (padding adds nothing), divided once (correctly rounded:
 * quantize.h's divide_rn) by the window's tap count (-DINCLUDE_PADDING) or the elements read (none read: 0), then
 * quantized as QUANTIZE_LINEAR: saturate(rint(mean / out_scale) + out_zero_point). A scale or zero point is read at
 * c * its channel stride (0 for a per-tensor one). -DIN_ZERO_POINT / -DOUT_ZERO_POINT: the optional zero points. */
#pragma OPENCL FP_CONTRACT OFF
#include "quantize.h"

__kernel void quantized_average_pooling(TYPED_IN(x), ulong8 x_strides, ulong8 x_sizes, TYPED_OUT(y),
                                        ulong8 y_strides, ulong8 y_sizes,
                                        __global const float *in_scale__base, ulong in_scale__offset,
                                        ulong in_scale_stride,
#ifdef IN_ZERO_POINT
                                        __global const in_t *in_zero__base, ulong in_zero__offset,
                                        ulong in_zero_stride,
#endif
                                        __global const float *out_scale__base, ulong out_scale__offset,
                                        ulong out_scale_stride,
#ifdef OUT_ZERO_POINT
                                        __global const out_t *out_zero__base, ulong out_zero__offset,
                                        ulong out_zero_stride,
#endif
                                        ulong4 strides, ulong4 window, ulong4 dilations, ulong4 start_padding,
                                        uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    COORDS8(o, gid, y_sizes)
    const uint n = o[3], c = o[4], od = o[5], oh = o[6], ow = o[7];
    __global const in_t *x = x__base + x__offset;
    const float scale_in = in_scale__base[in_scale__offset + (ulong)c * in_scale_stride];
#ifdef IN_ZERO_POINT
    const float zero_in = (float)in_zero__base[in_zero__offset + (ulong)c * in_zero_stride];
#else
    const float zero_in = 0.0f;
#endif
    float sum = 0.0f;
    uint read = 0;
    for (ulong kd = 0; kd < window.y; ++kd) {
        const long id = tap_position(od, kd, strides.y, dilations.y, start_padding.y, x_sizes.s5);
        if (id < 0)
            continue;
        for (ulong kh = 0; kh < window.z; ++kh) {
            const long ih = tap_position(oh, kh, strides.z, dilations.z, start_padding.z, x_sizes.s6);
            if (ih < 0)
                continue;
            for (ulong kw = 0; kw < window.w; ++kw) {
                const long iw = tap_position(ow, kw, strides.w, dilations.w, start_padding.w, x_sizes.s7);
                if (iw < 0)
                    continue;
                const float term = ((float)x[AT5(x_strides, n, c, id, ih, iw)] - zero_in) * scale_in;
                sum += term;
                ++read;
            }
        }
    }
#ifdef INCLUDE_PADDING
    const float taps = (float)(window.y * window.z * window.w);
#else
    const float taps = (float)read;
#endif
    const float mean = read ? divide_rn(sum, taps) : 0.0f;
#ifdef OUT_ZERO_POINT
    const float zero_out = (float)out_zero__base[out_zero__offset + (ulong)c * out_zero_stride];
#else
    const float zero_out = 0.0f;
#endif
    const float scale_out = out_scale__base[out_scale__offset + (ulong)c * out_scale_stride];
    y__base[y__offset + AT5(y_strides, n, c, od, oh, ow)] = saturate(quantize(mean, scale_out, zero_out));
}
#endif
