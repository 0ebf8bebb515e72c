"""Float64 reference of DirectML's ROI_ALIGN and ROI_ALIGN1, transcribed from the ROI_ALIGN1 page's pseudo-code with
the decisions of the package docstring (:mod:`dmlsim.operators.roi`).

The region geometry (scaled corners, sample counts, sample coordinates) is float32 arithmetic, one rounding per
operation in the order the kernel performs them, as DirectML computes it from FLOAT attributes and float32 ROI
coordinates: a sample's coordinate is an exact function of those float32 values, so nearest-neighbor ties and sample
counts agree bit for bit. The interpolation and the reduction are float64 (the bilinear weights are the float32
weights the coordinates give).
"""

from __future__ import annotations

import numpy as np

F32 = np.float32


def sample_count(size: np.float32, out: int, minimum: int, maximum: int) -> int:
    """Samples per output element along one axis: ``clamp(ceil(size / out), Minimum, Maximum)``, the quotient a
    float32 division; a size that is NaN, zero or negative (an empty or inverted region) gives Minimum."""
    if not size > 0:
        return int(minimum)
    q = F32(size) / F32(out)
    if not q < F32(maximum):
        return int(maximum)
    return int(min(max(int(np.ceil(q)), minimum), maximum))


def axis_coordinates(start: np.float32, size: np.float32, out: int, count: int, input_offset: float,
                     output_offset: float, align_corners: bool) -> np.ndarray:
    """The float32 input coordinate of every sample ``s`` in ``[0, out * count)`` along one axis."""
    total = out * count
    s = np.arange(total, dtype=F32)
    with np.errstate(all="ignore"):
        if align_corners:
            scale = F32(size) / F32(total - 1) if total > 1 else F32(0)
            t = s * scale
        else:
            scale = F32(size) / F32(total)
            t = (s - F32(output_offset)) * scale
        t = t + F32(start)
        return t - F32(input_offset)


def sample_taps(h: int, w: int, y: np.float32, x: np.float32, linear: bool) -> list[tuple[int, int, float]]:
    """The elements one sample at float32 coordinates (y, x) of an {h, w} plane reads, with their float32 weights
    ``(row, column, weight)``; ``[]`` for a sample out of bounds (below -1 or past the size on either axis, or NaN).
    ROI_ALIGN/ROI_ALIGN1 sum ``weight * element`` (:func:`_sample`); ROI_ALIGN_GRAD sends ``weight * gradient``
    back to each element (:func:`roi_align_grad`)."""
    if np.isnan(x) or np.isnan(y) or y < -1 or y > h or x < -1 or x > w:
        return []
    if not linear:
        iy = int(min(max(np.ceil(F32(y) - F32(0.5)), 0), h - 1))
        ix = int(min(max(np.ceil(F32(x) - F32(0.5)), 0), w - 1))
        return [(iy, ix, 1.0)]
    y, x = max(F32(y), F32(0)), max(F32(x), F32(0))
    yl, xl = int(np.floor(y)), int(np.floor(x))
    if yl >= h - 1:
        yl = yh = h - 1
        ly = F32(0)
    else:
        yh = yl + 1
        ly = F32(y - F32(yl))
    if xl >= w - 1:
        xl = xh = w - 1
        lx = F32(0)
    else:
        xh = xl + 1
        lx = F32(x - F32(xl))
    hy, hx = F32(1) - ly, F32(1) - lx
    return [(yl, xl, float(F32(hy * hx))), (yl, xh, float(F32(hy * lx))), (yh, xl, float(F32(ly * hx))),
            (yh, xh, float(F32(ly * lx)))]


def _sample(plane: np.ndarray, y: np.float32, x: np.float32, linear: bool, oob: float) -> float:
    """One sample of a {H, W} plane (float64) at float32 coordinates (y, x)."""
    taps = sample_taps(plane.shape[0], plane.shape[1], y, x, linear)
    if not taps:
        return float(F32(oob))
    if not linear:  # the element itself (a -0 stays -0)
        return float(plane[taps[0][0], taps[0][1]])
    with np.errstate(invalid="ignore"):
        return float(sum(weight * float(plane[iy, ix]) for iy, ix, weight in taps))


def region_samples(roi: np.ndarray, out_h: int, out_w: int, scale_x: float, scale_y: float, input_offset: float,
                   output_offset: float, min_samples: int, max_samples: int,
                   align_corners: bool) -> tuple[int, int, np.ndarray, np.ndarray]:
    """One region's sampling grid: ``(ny, nx, ys, xs)``, the samples per output element along y and x and every
    sample's float32 coordinate along each axis (the ROI_ALIGN1 page's geometry, float32 arithmetic)."""
    with np.errstate(all="ignore"):
        x1, y1 = roi[0] * F32(scale_x), roi[1] * F32(scale_y)
        x2, y2 = roi[2] * F32(scale_x), roi[3] * F32(scale_y)
        size_x, size_y = F32(x2 - x1), F32(y2 - y1)
    nx = sample_count(size_x, out_w, min_samples, max_samples)
    ny = sample_count(size_y, out_h, min_samples, max_samples)
    xs = axis_coordinates(x1, size_x, out_w, nx, input_offset, output_offset, align_corners)
    ys = axis_coordinates(y1, size_y, out_h, ny, input_offset, output_offset, align_corners)
    return ny, nx, ys, xs


def roi_align(x: np.ndarray, rois: np.ndarray, batch_indices: np.ndarray, out_hw: tuple[int, int], maximum: bool,
              linear: bool, scale_x: float, scale_y: float, input_offset: float, output_offset: float, oob: float,
              min_samples: int, max_samples: int, align_corners: bool) -> np.ndarray:
    """``{NumROIs, C, OutputHeight, OutputWidth}`` in float64. ``rois`` is read as ``{NumROIs, 4}`` float32
    ``[x1, y1, x2, y2]``, ``batch_indices`` as ``{NumROIs}``; an index outside ``[0, BatchCount)`` reads every sample
    as OutOfBoundsInputValue."""
    x = np.asarray(x, np.float64)
    rois = np.asarray(rois, F32).reshape(-1, 4)
    batch = np.asarray(batch_indices).reshape(-1).astype(np.uint64)
    out_h, out_w = out_hw
    channels = x.shape[1]
    result = np.zeros((rois.shape[0], channels, out_h, out_w))
    for r in range(rois.shape[0]):
        ny, nx, ys, xs = region_samples(rois[r], out_h, out_w, scale_x, scale_y, input_offset, output_offset,
                                        min_samples, max_samples, align_corners)
        b = int(batch[r])
        for c in range(channels):
            plane = x[b, c] if b < x.shape[0] else np.zeros((0, 0))
            for oy in range(out_h):
                for ox in range(out_w):
                    values = [_sample(plane, ys[oy * ny + iy], xs[ox * nx + ix], linear, oob) if plane.size else
                              float(F32(oob)) for iy in range(ny) for ix in range(nx)]
                    if maximum:
                        numbers = [v for v in values if not np.isnan(v)]
                        result[r, c, oy, ox] = max(numbers) if numbers else np.nan
                    else:
                        with np.errstate(invalid="ignore"):
                            result[r, c, oy, ox] = sum(values) / len(values)
    return result


def max_sample(plane: np.ndarray, samples: list[tuple[np.float32, np.float32]], linear: bool) -> int:
    """The index of the sample ROI_ALIGN1's MAX selects among ``samples`` (float32 ``(y, x)``) of ``plane``: the
    first largest, NaN ignored unless every sample is NaN (then the first), an out-of-bounds sample valued 0."""
    values = [_sample(plane, sy, sx, linear, 0.0) for sy, sx in samples]
    best = 0
    for i, value in enumerate(values):
        if value > values[best] or (np.isnan(values[best]) and not np.isnan(value)):
            best = i
    return best


def roi_align_grad(dy: np.ndarray, rois: np.ndarray, batch_indices: np.ndarray, in_shape: tuple[int, ...],
                   x: np.ndarray | None, maximum: bool, linear: bool, scale_x: float, scale_y: float,
                   input_offset: float, output_offset: float, min_samples: int, max_samples: int,
                   align_corners: bool) -> np.ndarray:
    """ROI_ALIGN_GRAD's OutputGradientTensor in float64, ``in_shape`` = ``{BatchCount, C, H, W}``: the transpose of
    :func:`roi_align` with the same fields. Every output element's gradient ``g = dy[r, c, oy, ox]`` goes back
    through its samples: AVERAGE gives each sample ``g / (nx * ny)``, MAX gives ``g`` to the sample ROI_ALIGN1's MAX
    selects (the first largest of the samples of ``x``, NaN ignored unless all are NaN, an out-of-bounds sample
    valued 0); a sample sends ``weight * its share`` to each element it reads (:func:`sample_taps`; none when it is
    out of bounds or its region's batch index is outside the batch). Elements no sample reads get +0."""
    dy = np.asarray(dy, np.float64)
    rois = np.asarray(rois, F32).reshape(-1, 4)
    batch = np.asarray(batch_indices).reshape(-1).astype(np.uint64)
    out = np.zeros(in_shape)
    n_batch, channels, h, w = in_shape
    out_h, out_w = dy.shape[2], dy.shape[3]
    data = None if x is None else np.asarray(x, np.float64)
    for r in range(rois.shape[0]):
        b = int(batch[r])
        if b >= n_batch:
            continue
        ny, nx, ys, xs = region_samples(rois[r], out_h, out_w, scale_x, scale_y, input_offset, output_offset,
                                        min_samples, max_samples, align_corners)
        for c in range(channels):
            for oy in range(out_h):
                for ox in range(out_w):
                    samples = [(ys[oy * ny + iy], xs[ox * nx + ix]) for iy in range(ny) for ix in range(nx)]
                    share = dy[r, c, oy, ox] / (nx * ny)
                    if maximum:
                        best = max_sample(data[b, c], samples, linear)
                        samples, share = [samples[best]], dy[r, c, oy, ox]
                    for sy, sx in samples:
                        for iy, ix, weight in sample_taps(h, w, sy, sx, linear):
                            if weight > 0.0:  # a tap of weight 0 carries no gradient (no 0 * inf)
                                out[b, c, iy, ix] += weight * share
    return out


def axis_fraction(s: int, total: int, output_offset: float, align_corners: bool) -> float:
    """How far along its region sample ``s`` of ``total`` sits: ``f`` in ``t = x1 + f * (x2 - x1) + const`` (the
    derivative of the sample's coordinate by the scaled x2 is ``f``, by the scaled x1 ``1 - f``):
    ``(s - OutputPixelOffset) / total``, or ``s / (total - 1)`` corner-aligned (0 for a single sample)."""
    if align_corners:
        return s / (total - 1) if total > 1 else 0.0
    return (s - float(F32(output_offset))) / total


def axis_lerp(t: np.float32, n: int) -> tuple[int, int, float]:
    """``(lo, hi, l)`` of a float32 coordinate along an axis of ``n`` elements, as the ROI_ALIGN_GRAD page's
    pseudo-code: the coordinate clamped into ``[0, n - 1]`` (ROI_ALIGN1's bilinear clamp), ``lo = floor``,
    ``hi = ceil`` (equal at an integer coordinate) and the float32 ``l = t - lo``."""
    t = F32(min(max(F32(t), F32(0)), F32(n - 1)))
    lo, hi = int(np.floor(t)), int(np.ceil(t))
    return lo, hi, float(F32(t - F32(lo)))


def image_gradient(plane: np.ndarray, ys: tuple[int, int, float], xs: tuple[int, int, float], absolute: bool) -> float:
    """The derivative of a bilinear sample by its x coordinate (pass ``ys, xs``; by y: ``xs, ys`` of the
    transposed plane): the page's ``imageGradX = (1 - yLerp) * (topRight - topLeft) + yLerp * (bottomRight -
    bottomLeft)``, where a row of weight 0 (``yLerp`` 0: top and bottom the same row) is not read. ``absolute``:
    the magnitude bound, ``|1 - yLerp| * (|topRight| + |topLeft|) + ...``."""
    (y0, y1, ly), (x0, x1, _) = ys, xs

    def difference(row: int) -> float:
        high, low = float(plane[row, x1]), float(plane[row, x0])
        return abs(high) + abs(low) if absolute else high - low

    with np.errstate(invalid="ignore"):
        if y0 == y1:
            return difference(y0)
        hy = float(F32(1) - F32(ly))
        return hy * difference(y0) + ly * difference(y1)


def roi_align_roi_grad(dy: np.ndarray, rois: np.ndarray, batch_indices: np.ndarray, x: np.ndarray, maximum: bool,
                       linear: bool, scale_x: float, scale_y: float, input_offset: float, output_offset: float,
                       min_samples: int, max_samples: int, align_corners: bool, absolute: bool = False) -> np.ndarray:
    """ROI_ALIGN_GRAD's OutputROIGradientTensor in float64, ``{NumROIs, 4}``: the derivative of ROI_ALIGN1's output
    (the same fields) by each region's ``[x1, y1, x2, y2]``, contracted with ``dy``. Each selected sample (AVERAGE:
    every sample, share ``dy / (nx * ny)``; MAX: the one :func:`max_sample` selects, share ``dy``) of a region
    inside the batch and in bounds contributes ``share * imageGradX * SpatialScaleX * (1 - f)`` to x1 and ``... *
    f`` to x2 (:func:`axis_fraction`), the same along y; a term whose coordinate weight is 0, or along an axis whose
    ``lo == hi`` (clamped or integer coordinate), is not added. NEAREST_NEIGHBOR: +0 (the sampling is piecewise
    constant in the coordinates). ``absolute``: the sum of the terms' magnitudes (the harness's bound)."""
    dy = np.asarray(dy, np.float64)
    rois = np.asarray(rois, F32).reshape(-1, 4)
    batch = np.asarray(batch_indices).reshape(-1).astype(np.uint64)
    data = np.asarray(x, np.float64)
    out = np.zeros((rois.shape[0], 4))
    n_batch, channels, h, w = data.shape
    out_h, out_w = dy.shape[2], dy.shape[3]
    if not linear:
        return out
    sx_, sy_ = float(F32(scale_x)), float(F32(scale_y))
    for r in range(rois.shape[0]):
        b = int(batch[r])
        if b >= n_batch:
            continue
        ny, nx, ys, xs = region_samples(rois[r], out_h, out_w, scale_x, scale_y, input_offset, output_offset,
                                        min_samples, max_samples, align_corners)
        for c in range(channels):
            plane = data[b, c]
            for oy in range(out_h):
                for ox in range(out_w):
                    picks = [(oy * ny + iy, ox * nx + ix) for iy in range(ny) for ix in range(nx)]
                    share = dy[r, c, oy, ox] / (nx * ny)
                    if maximum:
                        picks = [picks[max_sample(plane, [(ys[i], xs[j]) for i, j in picks], linear)]]
                        share = dy[r, c, oy, ox]
                    if absolute:
                        share = abs(share)
                    for i, j in picks:
                        sy, sx = ys[i], xs[j]
                        if np.isnan(sx) or np.isnan(sy) or sy < -1 or sy > h or sx < -1 or sx > w:
                            continue
                        along_y, along_x = axis_lerp(sy, h), axis_lerp(sx, w)
                        fy = axis_fraction(i, out_h * ny, output_offset, align_corners)
                        fx = axis_fraction(j, out_w * nx, output_offset, align_corners)
                        axes = ((0, along_x, along_y, plane, sx_, fx), (1, along_y, along_x, plane.T, sy_, fy))
                        for axis, moving, other, oriented, scale, f in axes:
                            if moving[0] == moving[1]:  # clamped or on an element: no image gradient
                                continue
                            with np.errstate(invalid="ignore"):
                                g = share * image_gradient(oriented, other, moving, absolute)
                                for corner, weight in ((axis, scale * (1 - f)), (axis + 2, scale * f)):
                                    if weight != 0:  # a corner this sample does not move with adds nothing
                                        out[r, corner] += g * (abs(weight) if absolute else weight)
    return out


# the scaled corners are clamped into [-2^30, 2^30] before they become integers (window arithmetic in 64 bits)
CORNER_LIMIT = float(2**30)


def round_half_away(value: np.float32) -> float:
    """C's ``round``: to the nearest integer, halfway cases away from zero (OpenCL's ``round`` too)."""
    magnitude = np.floor(np.abs(np.float64(value)) + 0.5)
    return float(np.copysign(magnitude, value))


def roi_pooling(x: np.ndarray, rois: np.ndarray, pooled_hw: tuple[int, int], spatial_scale: float) -> np.ndarray:
    """ROI_POOLING in float64: ``{NumROIs, C, PooledHeight, PooledWidth}``, each element the largest input element of
    its window (the page's integer formulas; the decisions of the package docstring: NaN ignored unless all are NaN,
    an empty window, a batch id outside the batch or a NaN corner gives 0)."""
    x = np.asarray(x, np.float64)
    rois = np.asarray(rois, F32).reshape(-1, 5)
    n_batch, channels, height, width = x.shape
    ph, pw = pooled_hw
    out = np.zeros((rois.shape[0], channels, ph, pw))
    for r, (b, *corners) in enumerate(rois):
        with np.errstate(all="ignore"):
            scaled = [round_half_away(F32(v) * F32(spatial_scale)) for v in corners]
        if not (b >= 0 and b < n_batch) or any(np.isnan(v) for v in scaled):
            continue
        x1, y1, x2, y2 = (int(min(max(v, -CORNER_LIMIT), CORNER_LIMIT)) for v in scaled)
        region_h, region_w = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for oy in range(ph):
            hs = min(max(oy * region_h // ph + y1, 0), height)
            he = min(max(((oy + 1) * region_h + ph - 1) // ph + y1, 0), height)
            for ox in range(pw):
                ws = min(max(ox * region_w // pw + x1, 0), width)
                we = min(max(((ox + 1) * region_w + pw - 1) // pw + x1, 0), width)
                if he <= hs or we <= ws:
                    continue
                for c in range(channels):
                    best = None
                    for v in x[int(b), c, hs:he, ws:we].reshape(-1):  # row-major window order
                        if best is None or v > best or (np.isnan(best) and not np.isnan(v)):
                            best = v
                    out[r, c, oy, ox] = best
    return out
