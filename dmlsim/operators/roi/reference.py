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


def _sample(plane: np.ndarray, y: np.float32, x: np.float32, linear: bool, oob: float) -> float:
    """One sample of a {H, W} plane (float64) at float32 coordinates (y, x)."""
    h, w = plane.shape
    if np.isnan(x) or np.isnan(y) or y < -1 or y > h or x < -1 or x > w:
        return float(F32(oob))
    if not linear:
        iy = int(min(max(np.ceil(F32(y) - F32(0.5)), 0), h - 1))
        ix = int(min(max(np.ceil(F32(x) - F32(0.5)), 0), w - 1))
        return float(plane[iy, ix])
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
    weights = (F32(hy * hx), F32(hy * lx), F32(ly * hx), F32(ly * lx))
    values = (plane[yl, xl], plane[yl, xh], plane[yh, xl], plane[yh, xh])
    with np.errstate(invalid="ignore"):
        return float(sum(float(wt) * float(v) for wt, v in zip(weights, values, strict=True)))


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
        with np.errstate(all="ignore"):
            x1, y1 = rois[r, 0] * F32(scale_x), rois[r, 1] * F32(scale_y)
            x2, y2 = rois[r, 2] * F32(scale_x), rois[r, 3] * F32(scale_y)
            size_x, size_y = F32(x2 - x1), F32(y2 - y1)
        nx = sample_count(size_x, out_w, min_samples, max_samples)
        ny = sample_count(size_y, out_h, min_samples, max_samples)
        xs = axis_coordinates(x1, size_x, out_w, nx, input_offset, output_offset, align_corners)
        ys = axis_coordinates(y1, size_y, out_h, ny, input_offset, output_offset, align_corners)
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
