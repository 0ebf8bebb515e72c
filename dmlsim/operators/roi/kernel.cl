/* DML_OPERATOR_ROI_ALIGN and ROI_ALIGN1: one work-item per output element {r, c, oy, ox}.
 * The region's geometry is float32 arithmetic, one rounding per operation (FP_CONTRACT OFF: no fused multiply-add),
 * in the order dmlsim/operators/roi/reference.py follows:
 *   x1 = roi[0] * scale_x, x2 = roi[2] * scale_x, size = x2 - x1;
 *   samples n = clamp(ceil(size / out), min_samples, max_samples) (size NaN or <= 0: min_samples);
 *   sample s of [0, out * n): t = (s - output_offset) * (size / (out * n)) + x1 - input_offset
 *   (-DALIGN_CORNERS: t = s * (size / (out * n - 1)) + x1 - input_offset, scale 0 when out * n == 1).
 * A sample at (y, x) outside [-1, size] on either axis (NaN included), or of a batch index >= BatchCount, reads
 * oob_value; else -DLINEAR: bilinear over the clamped coordinate (ONNX RoiAlign's), or nearest: ceil(t - 0.5)
 * clamped into the input. -DMAXIMUM: the largest sample (NaN ignored unless all are NaN, the first of equals);
 * else their float32 sum / (nx * ny). Build: typed.h IN_T = OUT_T = the float type, INDEX_T the batch index type.
 */
#pragma OPENCL FP_CONTRACT OFF
#include "typed.h"

inline uint sample_count(float size, uint out, uint min_samples, uint max_samples)
{
    if (!(size > 0.0f))
        return min_samples;
    const float q = size / (float)out;
    if (!(q < (float)max_samples))
        return max_samples;
    return clamp((uint)ceil(q), min_samples, max_samples);
}

inline float sample_coordinate(uint s, float scale, float start, float input_offset, float output_offset)
{
#ifdef ALIGN_CORNERS
    float t = (float)s * scale;
#else
    float t = (float)s - output_offset;
    t = t * scale;
#endif
    t = t + start;
    return t - input_offset;
}

/* One region's sampling grid, the same for roi_align and roi_align_grad: its scaled corner, the samples per output
 * element along each axis and the step between samples. */
typedef struct {
    float x1, y1, step_x, step_y;
    uint nx, ny;
} region_t;

inline region_t region_grid(__global const in_t *rois__base, ulong rois__offset, ulong4 rois_strides, uint r,
                            float scale_x, float scale_y, uint out_h, uint out_w, uint min_samples, uint max_samples)
{
    region_t g;
    __global const in_t *roi = rois__base + rois__offset + (ulong)r * rois_strides.s2;
    const float x1 = (float)LOAD_IN(roi, 0) * scale_x, y1 = (float)LOAD_IN(roi, rois_strides.s3) * scale_y;
    const float x2 = (float)LOAD_IN(roi, 2 * rois_strides.s3) * scale_x;
    const float y2 = (float)LOAD_IN(roi, 3 * rois_strides.s3) * scale_y;
    const float size_x = x2 - x1, size_y = y2 - y1;
    const uint nx = sample_count(size_x, out_w, min_samples, max_samples);
    const uint ny = sample_count(size_y, out_h, min_samples, max_samples);
#ifdef ALIGN_CORNERS
    g.step_x = out_w * nx > 1 ? size_x / (float)(out_w * nx - 1) : 0.0f;
    g.step_y = out_h * ny > 1 ? size_y / (float)(out_h * ny - 1) : 0.0f;
#else
    g.step_x = size_x / (float)(out_w * nx);
    g.step_y = size_y / (float)(out_h * ny);
#endif
    g.x1 = x1;
    g.y1 = y1;
    g.nx = nx;
    g.ny = ny;
    return g;
}

#ifdef INDEX_T
inline ulong region_batch(__global const INDEX_T *batch__base, ulong batch__offset, ulong4 batch_strides, uint r)
{
    return (ulong)batch__base[batch__offset + (ulong)r * batch_strides.s3];
}
#endif

inline float sample_value(__global const in_t *plane, ulong sy, ulong sx, ulong h, ulong w, float y, float x,
                          float oob_value)
{
    if (isnan(x) || isnan(y) || y < -1.0f || y > (float)h || x < -1.0f || x > (float)w)
        return oob_value;
#ifdef LINEAR
    y = fmax(y, 0.0f);
    x = fmax(x, 0.0f);
    ulong yl = (ulong)floor(y), xl = (ulong)floor(x), yh, xh;
    float ly, lx;
    if (yl >= h - 1) {
        yl = yh = h - 1;
        ly = 0.0f;
    } else {
        yh = yl + 1;
        ly = y - (float)yl;
    }
    if (xl >= w - 1) {
        xl = xh = w - 1;
        lx = 0.0f;
    } else {
        xh = xl + 1;
        lx = x - (float)xl;
    }
    const float hy = 1.0f - ly, hx = 1.0f - lx;
    const float w1 = hy * hx, w2 = hy * lx, w3 = ly * hx, w4 = ly * lx;
    float v = w1 * LOAD_IN(plane, yl * sy + xl * sx);
    v += w2 * LOAD_IN(plane, yl * sy + xh * sx);
    v += w3 * LOAD_IN(plane, yh * sy + xl * sx);
    v += w4 * LOAD_IN(plane, yh * sy + xh * sx);
    return v;
#else
    const float ny = ceil(y - 0.5f), nx = ceil(x - 0.5f);
    const ulong iy = ny <= 0.0f ? 0 : min((ulong)ny, h - 1), ix = nx <= 0.0f ? 0 : min((ulong)nx, w - 1);
    return LOAD_IN(plane, iy * sy + ix * sx);
#endif
}

__kernel void roi_align(TYPED_IN(x), ulong4 x_strides, ulong4 x_sizes, TYPED_IN(rois), ulong4 rois_strides,
                        __global const INDEX_T *batch__base, ulong batch__offset, ulong4 batch_strides,
                        TYPED_OUT(y), ulong4 y_strides, ulong4 y_sizes, float scale_x, float scale_y,
                        float input_offset, float output_offset, float oob_value, uint min_samples,
                        uint max_samples, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    uint rest = gid;
    const uint ox = rest % (uint)y_sizes.s3;
    rest /= (uint)y_sizes.s3;
    const uint oy = rest % (uint)y_sizes.s2;
    rest /= (uint)y_sizes.s2;
    const uint c = rest % (uint)y_sizes.s1;
    const uint r = rest / (uint)y_sizes.s1;
    const uint out_h = (uint)y_sizes.s2, out_w = (uint)y_sizes.s3;

    const region_t g = region_grid(rois__base, rois__offset, rois_strides, r, scale_x, scale_y, out_h, out_w,
                                   min_samples, max_samples);
    const float x1 = g.x1, y1 = g.y1, step_x = g.step_x, step_y = g.step_y;
    const uint nx = g.nx, ny = g.ny;
    const ulong b = region_batch(batch__base, batch__offset, batch_strides, r);
    /* an index outside the batch reads no element: every sample is oob_value (the plane pointer is not formed) */
    const int inside = b < x_sizes.s0;
    __global const in_t *plane = x__base + x__offset + (inside ? b * x_strides.s0 + (ulong)c * x_strides.s1 : 0);
    float acc = 0.0f;
    int found = 0;
    for (uint iy = 0; iy < ny; ++iy) {
        const float sy = sample_coordinate(oy * ny + iy, step_y, y1, input_offset, output_offset);
        for (uint ix = 0; ix < nx; ++ix) {
            const float sx = sample_coordinate(ox * nx + ix, step_x, x1, input_offset, output_offset);
            const float v = inside ? sample_value(plane, x_strides.s2, x_strides.s3, x_sizes.s2, x_sizes.s3, sy,
                                                  sx, oob_value)
                                   : oob_value;
#ifdef MAXIMUM
            if (!found || v > acc || (isnan(acc) && !isnan(v)))
                acc = v;
            found = 1;
#else
            acc += v;
#endif
        }
    }
#ifndef MAXIMUM
    acc = acc / (float)(nx * ny);
#endif
    STORE_OUT(acc, y__base + y__offset, (ulong)r * y_strides.s0 + (ulong)c * y_strides.s1 + (ulong)oy * y_strides.s2
                                            + (ulong)ox * y_strides.s3);
}

/* DML_OPERATOR_ROI_ALIGN_GRAD: one work-item per OutputGradientTensor element {b, c, h, w}, gathering the transpose
 * of roi_align above (the same geometry helpers): for every region r of batch b, every output element (oy, ox) and
 * every one of its samples, the weight with which the sample reads element (h, w) (axis_weight along y times along x:
 * the float32 products roi_align forms) times the sample's share of dy[r, c, oy, ox] (AVERAGE: dy / (nx * ny);
 * -DMAXIMUM: dy for the one sample roi_align's MAX selects from x, an out-of-bounds sample valued 0, nothing for the
 * others). A sample out of bounds on either axis, or a tap of weight 0, carries nothing; the sum starts at +0. */
inline float axis_weight(float t, ulong n, ulong k)
{
#ifdef LINEAR
    t = fmax(t, 0.0f);
    ulong lo = (ulong)floor(t), hi;
    float l;
    if (lo >= n - 1) {
        lo = hi = n - 1;
        l = 0.0f;
    } else {
        hi = lo + 1;
        l = t - (float)lo;
    }
    return (k == lo ? 1.0f - l : 0.0f) + (k == hi ? l : 0.0f);
#else
    const float r = ceil(t - 0.5f);
    return k == (r <= 0.0f ? 0 : min((ulong)r, n - 1)) ? 1.0f : 0.0f;
#endif
}

inline int out_of_bounds(float t, ulong n)
{
    return isnan(t) || t < -1.0f || t > (float)n;
}

#ifdef MAXIMUM
/* The sample of output element (oy, ox) roi_align's MAX keeps, as an index iy * nx + ix: the first largest, NaN
 * ignored unless all are NaN, an out-of-bounds sample valued 0 (ROI_ALIGN_GRAD has no OutOfBoundsInputValue). */
inline uint max_sample(__global const in_t *plane, ulong row_stride, ulong column_stride, ulong in_h, ulong in_w,
                       float x1, float y1, float step_x, float step_y, uint nx, uint ny, uint oy, uint ox,
                       float input_offset, float output_offset)
{
    uint chosen = 0, at = 0;
    float best = 0.0f;
    for (uint jy = 0; jy < ny; ++jy) {
        const float ty = sample_coordinate(oy * ny + jy, step_y, y1, input_offset, output_offset);
        for (uint jx = 0; jx < nx; ++jx, ++at) {
            const float tx = sample_coordinate(ox * nx + jx, step_x, x1, input_offset, output_offset);
            const float v = sample_value(plane, row_stride, column_stride, in_h, in_w, ty, tx, 0.0f);
            if (at == 0 || v > best || (isnan(best) && !isnan(v))) {
                best = v;
                chosen = at;
            }
        }
    }
    return chosen;
}
#endif

__kernel void roi_align_grad(
#ifdef MAXIMUM
    TYPED_IN(x), ulong4 x_strides,
#endif
    TYPED_IN(dy), ulong4 dy_strides, ulong4 dy_sizes, TYPED_IN(rois), ulong4 rois_strides,
    __global const INDEX_T *batch__base, ulong batch__offset, ulong4 batch_strides, TYPED_OUT(y), ulong4 y_strides,
    ulong4 y_sizes, float scale_x, float scale_y, float input_offset, float output_offset, uint min_samples,
    uint max_samples, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    uint rest = gid;
    const uint w = rest % (uint)y_sizes.s3;
    rest /= (uint)y_sizes.s3;
    const uint h = rest % (uint)y_sizes.s2;
    rest /= (uint)y_sizes.s2;
    const uint c = rest % (uint)y_sizes.s1;
    const uint b = rest / (uint)y_sizes.s1;
    const ulong in_h = y_sizes.s2, in_w = y_sizes.s3;
    const uint out_h = (uint)dy_sizes.s2, out_w = (uint)dy_sizes.s3;
    float acc = 0.0f;
    for (uint r = 0; r < (uint)dy_sizes.s0; ++r) {
        if (region_batch(batch__base, batch__offset, batch_strides, r) != (ulong)b)
            continue;
        const region_t g = region_grid(rois__base, rois__offset, rois_strides, r, scale_x, scale_y, out_h, out_w,
                                       min_samples, max_samples);
        const float x1 = g.x1, y1 = g.y1, step_x = g.step_x, step_y = g.step_y;
        const uint nx = g.nx, ny = g.ny;
#ifdef MAXIMUM
        __global const in_t *plane = x__base + x__offset + (ulong)b * x_strides.s0 + (ulong)c * x_strides.s1;
        const ulong row_stride = x_strides.s2, column_stride = x_strides.s3;
#endif
        for (uint oy = 0; oy < out_h; ++oy) {
            for (uint iy = 0; iy < ny; ++iy) {
                const float sy = sample_coordinate(oy * ny + iy, step_y, y1, input_offset, output_offset);
                if (out_of_bounds(sy, in_h))
                    continue;
                const float wy = axis_weight(sy, in_h, h);
                if (wy == 0.0f)
                    continue;
                for (uint ox = 0; ox < out_w; ++ox) {
                    const float g = LOAD_IN(dy__base + dy__offset, (ulong)r * dy_strides.s0 + (ulong)c * dy_strides.s1
                                                                       + (ulong)oy * dy_strides.s2
                                                                       + (ulong)ox * dy_strides.s3);
#ifdef MAXIMUM
                    const uint chosen = max_sample(plane, row_stride, column_stride, in_h, in_w, x1, y1, step_x,
                                                   step_y, nx, ny, oy, ox, input_offset, output_offset);
                    const float share = g;
#else
                    const float share = g / (float)(nx * ny);
#endif
                    for (uint ix = 0; ix < nx; ++ix) {
                        const float sx = sample_coordinate(ox * nx + ix, step_x, x1, input_offset, output_offset);
#ifdef MAXIMUM
                        if (iy * nx + ix != chosen)
                            continue;
#endif
                        if (out_of_bounds(sx, in_w))
                            continue;
                        const float weight = wy * axis_weight(sx, in_w, w);
                        if (weight > 0.0f)
                            acc += weight * share;
                    }
                }
            }
        }
    }
    __global out_t *dx = y__base + y__offset;
    STORE_OUT(acc, dx, (ulong)b * y_strides.s0 + (ulong)c * y_strides.s1 + (ulong)h * y_strides.s2 + (ulong)w * y_strides.s3);
}

/* ROI_ALIGN_GRAD's OutputROIGradientTensor: one work-item per region r, four float32 sums in a fixed order (channels,
 * output rows, columns, then the samples: deterministic), the derivative of roi_align's output by the region's
 * [x1, y1, x2, y2] contracted with dy. A sample moves along x by scale_x * (1 - f) per unit of x1 and scale_x * f per
 * unit of x2, f = axis_fraction; the bilinear value moves along x by the page's imageGradX = (1 - yLerp) *
 * (topRight - topLeft) + yLerp * (bottomRight - bottomLeft) over the coordinate clamped into the input, lo = floor,
 * hi = ceil (axis_lerp). Nothing is added for a sample out of bounds, a region outside the batch, an axis whose lo
 * == hi (clamped or integer coordinate: no image gradient), or a corner of weight 0; a row or column of lerp weight 0
 * is not read. AVERAGE: every sample with share dy / (nx * ny); -DMAXIMUM: the one max_sample selects, share dy.
 * Without -DLINEAR (nearest neighbor: piecewise constant in the coordinates) every sum stays +0. */
inline float axis_fraction(uint s, uint total, float output_offset)
{
#ifdef ALIGN_CORNERS
    return total > 1 ? (float)s / (float)(total - 1) : 0.0f;
#else
    return ((float)s - output_offset) / (float)total;
#endif
}

typedef struct {
    ulong lo, hi;
    float l;
} lerp_t;

inline lerp_t axis_lerp(float t, ulong n)
{
    lerp_t a;
    t = fmin(fmax(t, 0.0f), (float)(n - 1));
    a.lo = (ulong)floor(t);
    a.hi = (ulong)ceil(t);
    a.l = t - (float)a.lo;
    return a;
}

/* d(sample)/d(coordinate along the axis whose elements are `step` apart), `other` the lerp of the other axis
 * (`other_stride` apart) */
inline float image_gradient(__global const in_t *plane, lerp_t moving, ulong step, lerp_t other, ulong other_stride)
{
    const float top = LOAD_IN(plane, other.lo * other_stride + moving.hi * step)
                      - LOAD_IN(plane, other.lo * other_stride + moving.lo * step);
    if (other.lo == other.hi)
        return top;
    const float bottom = LOAD_IN(plane, other.hi * other_stride + moving.hi * step)
                         - LOAD_IN(plane, other.hi * other_stride + moving.lo * step);
    return (1.0f - other.l) * top + other.l * bottom;
}

__kernel void roi_align_roi_grad(TYPED_IN(x), ulong4 x_strides, ulong4 x_sizes, TYPED_IN(dy), ulong4 dy_strides,
                                 ulong4 dy_sizes, TYPED_IN(rois), ulong4 rois_strides,
                                 __global const INDEX_T *batch__base, ulong batch__offset, ulong4 batch_strides,
                                 TYPED_OUT(droi), ulong4 droi_strides, float scale_x, float scale_y,
                                 float input_offset, float output_offset, uint min_samples, uint max_samples,
                                 uint count)
{
    const uint r = get_global_id(0);
    if (r >= count)
        return;
    float sums[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#ifdef LINEAR
    const ulong b = region_batch(batch__base, batch__offset, batch_strides, r);
    if (b < x_sizes.s0) {
        const uint out_h = (uint)dy_sizes.s2, out_w = (uint)dy_sizes.s3;
        const ulong height = x_sizes.s2, width = x_sizes.s3, row_stride = x_strides.s2, column_stride = x_strides.s3;
        __global const in_t *dy_region = dy__base + dy__offset + (ulong)r * dy_strides.s0;
        const region_t grid = region_grid(rois__base, rois__offset, rois_strides, r, scale_x, scale_y, out_h, out_w,
                                          min_samples, max_samples);
        const float x1 = grid.x1, y1 = grid.y1, step_x = grid.step_x, step_y = grid.step_y;
        const uint nx = grid.nx, ny = grid.ny;
        for (uint c = 0; c < (uint)x_sizes.s1; ++c) {
            __global const in_t *plane = x__base + x__offset + b * x_strides.s0 + (ulong)c * x_strides.s1;
            for (uint oy = 0; oy < out_h; ++oy) {
                for (uint ox = 0; ox < out_w; ++ox) {
                    const float grad = LOAD_IN(dy_region, (ulong)c * dy_strides.s1 + (ulong)oy * dy_strides.s2
                                                              + (ulong)ox * dy_strides.s3);
#ifdef MAXIMUM
                    const uint chosen = max_sample(plane, row_stride, column_stride, height, width, x1, y1, step_x,
                                                   step_y, nx, ny, oy, ox, input_offset, output_offset);
                    const float share = grad;
#else
                    const float share = grad / (float)(nx * ny);
#endif
                    for (uint iy = 0; iy < ny; ++iy) {
                        const uint sy_index = oy * ny + iy;
                        const float sy = sample_coordinate(sy_index, step_y, y1, input_offset, output_offset);
                        if (out_of_bounds(sy, height))
                            continue;
                        const lerp_t along_y = axis_lerp(sy, height);
                        const float fy = axis_fraction(sy_index, out_h * ny, output_offset);
                        for (uint ix = 0; ix < nx; ++ix) {
#ifdef MAXIMUM
                            if (chosen != iy * nx + ix)
                                continue;
#endif
                            const uint sx_index = ox * nx + ix;
                            const float sx = sample_coordinate(sx_index, step_x, x1, input_offset, output_offset);
                            if (out_of_bounds(sx, width))
                                continue;
                            const lerp_t along_x = axis_lerp(sx, width);
                            const float fx = axis_fraction(sx_index, out_w * nx, output_offset);
                            if (along_x.lo != along_x.hi) {
                                const float gx = share * image_gradient(plane, along_x, column_stride, along_y,
                                                                        row_stride);
                                const float w1 = scale_x * (1.0f - fx), w2 = scale_x * fx;
                                if (w1 != 0.0f)
                                    sums[0] += gx * w1;
                                if (w2 != 0.0f)
                                    sums[2] += gx * w2;
                            }
                            if (along_y.lo != along_y.hi) {
                                const float gy = share * image_gradient(plane, along_y, row_stride, along_x,
                                                                        column_stride);
                                const float w1 = scale_y * (1.0f - fy), w2 = scale_y * fy;
                                if (w1 != 0.0f)
                                    sums[1] += gy * w1;
                                if (w2 != 0.0f)
                                    sums[3] += gy * w2;
                            }
                        }
                    }
                }
            }
        }
    }
#endif
    __global out_t *droi = droi__base + droi__offset + (ulong)r * droi_strides.s2;
    for (uint k = 0; k < 4; ++k)
        STORE_OUT(sums[k], droi, (ulong)k * droi_strides.s3);
}

/* DML_OPERATOR_ROI_POOLING: one work-item per output element {r, c, oy, ox}. ROITensor {1, 1, NumROIs, 5} holds
 * [batch, x1, y1, x2, y2]; corners round(v * spatial_scale) (half away from zero) clamped into [-2^30, 2^30], the
 * region max(x2 - x1 + 1, 1) wide; window rows [oy * h / PH + y1, ceil((oy + 1) * h / PH) + y1) in 64-bit integers,
 * clamped into the input; the largest element (NaN ignored unless all are NaN, the first of equals); an empty window,
 * a batch id outside [0, BatchCount) (NaN included, truncated toward zero) or a NaN corner: 0. */
inline long roi_corner(float v)
{
    return (long)fmin(fmax(v, -1073741824.0f), 1073741824.0f);
}

__kernel void roi_pooling(TYPED_IN(x), ulong4 x_strides, ulong4 x_sizes, TYPED_IN(rois), ulong4 rois_strides,
                          TYPED_OUT(y), ulong4 y_strides, ulong4 y_sizes, float spatial_scale, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    uint rest = gid;
    const long ox = rest % (uint)y_sizes.s3;
    rest /= (uint)y_sizes.s3;
    const long oy = rest % (uint)y_sizes.s2;
    rest /= (uint)y_sizes.s2;
    const uint c = rest % (uint)y_sizes.s1;
    const uint r = rest / (uint)y_sizes.s1;
    const long ph = (long)y_sizes.s2, pw = (long)y_sizes.s3;
    __global const in_t *roi = rois__base + (rois__offset + (ulong)r * rois_strides.s2);
    const float batch = (float)LOAD_IN(roi, 0);
    const float cx1 = round((float)LOAD_IN(roi, rois_strides.s3) * spatial_scale);
    const float cy1 = round((float)LOAD_IN(roi, 2 * rois_strides.s3) * spatial_scale);
    const float cx2 = round((float)LOAD_IN(roi, 3 * rois_strides.s3) * spatial_scale);
    const float cy2 = round((float)LOAD_IN(roi, 4 * rois_strides.s3) * spatial_scale);
    float best = 0.0f;
    int found = 0;
    if (batch >= 0.0f && batch < (float)x_sizes.s0 && !isnan(cx1) && !isnan(cy1) && !isnan(cx2) && !isnan(cy2)) {
        const long x1 = roi_corner(cx1), y1 = roi_corner(cy1), x2 = roi_corner(cx2), y2 = roi_corner(cy2);
        const long region_h = max(y2 - y1 + 1, 1L), region_w = max(x2 - x1 + 1, 1L);
        const long h = (long)x_sizes.s2, w = (long)x_sizes.s3;
        const long hs = clamp(oy * region_h / ph + y1, 0L, h);
        const long he = clamp(((oy + 1) * region_h + ph - 1) / ph + y1, 0L, h);
        const long ws = clamp(ox * region_w / pw + x1, 0L, w);
        const long we = clamp(((ox + 1) * region_w + pw - 1) / pw + x1, 0L, w);
        __global const in_t *plane = x__base + x__offset + (ulong)batch * x_strides.s0 + (ulong)c * x_strides.s1;
        for (long iy = hs; iy < he; ++iy) {
            for (long ix = ws; ix < we; ++ix) {
                const float v = LOAD_IN(plane, (ulong)iy * x_strides.s2 + (ulong)ix * x_strides.s3);
                if (!found || v > best || (isnan(best) && !isnan(v)))
                    best = v;
                found = 1;
            }
        }
    }
    STORE_OUT(found ? best : 0.0f, y__base + y__offset,
              (ulong)r * y_strides.s0 + (ulong)c * y_strides.s1 + (ulong)oy * y_strides.s2 + (ulong)ox * y_strides.s3);
}
