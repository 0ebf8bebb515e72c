"""Float64 reference of DirectML's pooling operators (MAX_POOLING, MAX_POOLING1, MAX_POOLING2, AVERAGE_POOLING,
AVERAGE_POOLING1), transcribed from their doc pages; the decisions where the pages are silent are in the
package docstring (:mod:`dmlsim.operators.pooling`).

Tensors are ``{N, C, [D], H, W}``. Output element ``(n, c, o...)`` looks at the window of taps
``k...`` (row-major over ``WindowSize``), tap ``k`` reading padded position ``o * Strides + k * Dilations``,
input position ``o * Strides + k * Dilations - StartPadding`` along each spatial axis; a tap outside
``[0, size)`` reads padding.

* MAX: the largest element the window reads from the input (padding never wins), NaN ignored unless every
  element read is NaN; its index is the first (in tap order, which is increasing input order) element equal to
  it, as a row-major index into the packed input. A window that reads no input element: the lowest value of the
  type (-inf for floats) and index all ones (``2^32 - 1`` / ``2^64 - 1``).
* AVERAGE: the sum of the elements read divided by the window's tap count (IncludePadding) or by the count
  of elements read (not IncludePadding); a window that reads no element gives 0.
* LP: ``(|x1|^P + ... + |xn|^P)^(1/P)`` over the elements read (the absolute values of ONNX's LpPool, which
  onnxruntime's DirectML provider maps onto it); a window that reads no element gives 0. Computed scaled by the
  largest magnitude m, ``m * (sum (|x|/m)^P)^(1/P)``, so no power overflows or underflows where the result does
  not: NaN if any element is NaN, else +inf if any is infinite.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PoolingGeometry:
    """The desc's per-spatial-dimension attributes."""

    strides: tuple[int, ...]
    window: tuple[int, ...]
    start_padding: tuple[int, ...]
    end_padding: tuple[int, ...]
    dilations: tuple[int, ...]


def output_spatial_sizes(g: PoolingGeometry, input_spatial: tuple[int, ...]) -> tuple[int, ...]:
    """``(size + StartPadding + EndPadding - ((WindowSize - 1) * Dilations + 1)) / Strides + 1`` per axis
    (the doc's formula with the dilated window's extent; may be < 1, which ``check`` refuses)."""
    return tuple((size + s + e - ((k - 1) * d + 1)) // stride + 1 for size, s, e, k, d, stride in
                 zip(input_spatial, g.start_padding, g.end_padding, g.window, g.dilations, g.strides, strict=True))


def _taps(x_shape: tuple[int, ...], g: PoolingGeometry, out_spatial: tuple[int, ...]
          ) -> Iterator[tuple[list[np.ndarray], np.ndarray]]:
    """For each window tap in row-major order: the input index arrays of every output position (clipped into
    range) and the mask of those that read the input (not padding), broadcastable to ``{out...}``."""
    spatial = x_shape[2:]
    rank = len(spatial)
    for tap in itertools.product(*(range(k) for k in g.window)):
        indices, inside = [], np.ones((1,) * rank, bool)
        for axis in range(rank):
            shape = [1] * rank
            shape[axis] = out_spatial[axis]
            pos = (np.arange(out_spatial[axis]) * g.strides[axis] + tap[axis] * g.dilations[axis]
                   - g.start_padding[axis]).reshape(shape)
            ok = (pos >= 0) & (pos < spatial[axis])
            inside = inside & ok
            indices.append(np.clip(pos, 0, spatial[axis] - 1))
        yield indices, inside


def max_pooling(x: np.ndarray, g: PoolingGeometry, out_spatial: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(values, indices): the values in the input's dtype for integers, float64 for floats; the indices as
    uint64 row-major positions in the packed input (all ones where the window reads no element)."""
    x = np.asarray(x)
    floating = np.issubdtype(x.dtype, np.floating)
    values = x.astype(np.float64) if floating else x
    flat = np.arange(x.size, dtype=np.uint64).reshape(x.shape)
    out_shape = (*x.shape[:2], *out_spatial)
    best = np.zeros(out_shape, values.dtype)
    index = np.full(out_shape, np.iinfo(np.uint64).max, np.uint64)
    found = np.zeros(out_shape, bool)
    lead = (slice(None), slice(None))
    for indices, inside in _taps(x.shape, g, out_spatial):
        taken = values[(*lead, *np.ix_(*[i.reshape(-1) for i in indices]))]
        where = flat[(*lead, *np.ix_(*[i.reshape(-1) for i in indices]))]
        ok = np.broadcast_to(inside, taken.shape)
        with np.errstate(invalid="ignore"):
            better = taken > best
            if floating:
                better |= np.isnan(best) & ~np.isnan(taken)
        take = ok & (~found | better)
        best = np.where(take, taken, best)
        index = np.where(take, where, index)
        found |= ok
    lowest = -np.inf if floating else np.iinfo(x.dtype).min
    best = np.where(found, best, np.asarray(lowest, best.dtype))
    return best, index


def average_pooling(x: np.ndarray, g: PoolingGeometry, out_spatial: tuple[int, ...],
                    include_padding: bool) -> np.ndarray:
    """The averages in float64."""
    x = np.asarray(x, np.float64)
    out_shape = (*x.shape[:2], *out_spatial)
    total = np.zeros(out_shape)
    count = np.zeros((1, 1, *out_spatial))
    lead = (slice(None), slice(None))
    for indices, inside in _taps(x.shape, g, out_spatial):
        taken = x[(*lead, *np.ix_(*[i.reshape(-1) for i in indices]))]
        with np.errstate(invalid="ignore"):  # inf + -inf: NaN, as the sum says
            total += np.where(inside, taken, 0.0)
        count = count + inside
    if include_padding:
        count = np.full_like(count, float(np.prod(g.window)))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), 0.0)


def lp_pooling(x: np.ndarray, g: PoolingGeometry, out_spatial: tuple[int, ...], p: int) -> np.ndarray:
    """The Lp norms in float64 (see the module docstring)."""
    x = np.abs(np.asarray(x, np.float64))
    out_shape = (*x.shape[:2], *out_spatial)
    lead = (slice(None), slice(None))
    taps = [(x[(*lead, *np.ix_(*[i.reshape(-1) for i in indices]))], inside)
            for indices, inside in _taps(x.shape, g, out_spatial)]
    largest = np.zeros(out_shape)
    nan = np.zeros(out_shape, bool)
    for taken, inside in taps:
        largest = np.where(inside, np.fmax(largest, taken), largest)
        nan |= inside & np.isnan(taken)
    total = np.zeros(out_shape)
    scale = np.where(np.isfinite(largest) & (largest > 0), largest, 1.0)
    for taken, inside in taps:
        with np.errstate(invalid="ignore"):
            total += np.where(inside, (taken / scale) ** p, 0.0)
    result = scale * total ** (1.0 / p)
    result = np.where(largest == 0, 0.0, result)
    result = np.where(np.isinf(largest), np.inf, result)
    return np.where(nan, np.nan, result)


def max_unpooling(x: np.ndarray, indices: np.ndarray, out_sizes: tuple[int, ...]) -> np.ndarray:
    """The output in the input's dtype (float64 for floats): zeros, then each input element at the row-major position
    its index names in the output; an index past the output's last element is skipped; of repeated indices the
    last input element (row-major) lands (the kernel leaves that choice unspecified)."""
    x = np.asarray(x)
    values = x.astype(np.float64) if np.issubdtype(x.dtype, np.floating) else x
    out = np.zeros(int(np.prod(out_sizes)), values.dtype)
    flat = np.asarray(indices, np.uint64).reshape(-1)
    keep = flat < out.size
    out[flat[keep].astype(np.int64)] = values.reshape(-1)[keep]
    return out.reshape(out_sizes)


def max_pooling_grad(x: np.ndarray, dy: np.ndarray, g: PoolingGeometry) -> np.ndarray:
    """MAX_POOLING_GRAD in float64: zeros of InputTensor's shape, then each window's InputGradientTensor element
    added at the element the forward max chose (:func:`max_pooling`'s index: the first maximum, NaN ignored unless
    all are NaN); a window that reads no element adds nothing; overlapping windows sum."""
    x = np.asarray(x)
    dy = np.asarray(dy, np.float64)
    _, index = max_pooling(x, g, dy.shape[2:])
    out = np.zeros(x.size)
    chosen = index != np.iinfo(np.uint64).max
    np.add.at(out, index[chosen].astype(np.int64), dy[chosen])
    return out.reshape(x.shape)


def average_pooling_grad(dy: np.ndarray, g: PoolingGeometry, in_spatial: tuple[int, ...],
                         include_padding: bool) -> np.ndarray:
    """AVERAGE_POOLING_GRAD in float64: each InputGradientTensor element divided by its window's divisor (the
    forward average's: the window's tap count with IncludePadding, else the elements it reads) and added to every
    element the window reads; padding taps add nothing."""
    dy = np.asarray(dy, np.float64)
    out_spatial = dy.shape[2:]
    shape = (*dy.shape[:2], *in_spatial)
    taps = list(_taps(shape, g, out_spatial))
    count = np.zeros((1, 1, *out_spatial))
    for _, inside in taps:
        count = count + inside
    if include_padding:
        count = np.full_like(count, float(np.prod(g.window)))
    share = dy / np.maximum(count, 1)
    out = np.zeros(shape)
    for indices, inside in taps:
        where = tuple(np.broadcast_to(i, out_spatial) for i in indices)
        with np.errstate(invalid="ignore"):  # inf + -inf: NaN, as the sum says
            np.add.at(out, (slice(None), slice(None), *where), np.where(inside, share, 0.0))
    return out


def quantized_average_pooling(x: np.ndarray, in_scale: np.ndarray, in_zero_point: np.ndarray | None,
                              out_scale: np.ndarray, out_zero_point: np.ndarray | None, g: PoolingGeometry,
                              out_spatial: tuple[int, ...], include_padding: bool, limits: tuple[int, int]
                              ) -> np.ndarray:
    """QUANTIZED_LINEAR_AVERAGE_POOLING in float32 arithmetic, as the kernel computes it (its integer outputs depend
    on every rounding): each element read dequantized, ``(x - zero_point) * scale`` (per tensor or per channel: the
    scale and zero point arrays broadcast as ``{1, C, 1...}``), summed in window-tap order (padding adds nothing),
    divided once by the divisor of :func:`average_pooling` (a window reading nothing averages to 0), then quantized
    as QUANTIZE_LINEAR (:func:`dmlsim.operators.quantize.reference.quantize_linear`)."""
    from dmlsim.operators.quantize.reference import quantize_linear

    f32 = np.float32
    x = np.asarray(x)
    zero = f32(0) if in_zero_point is None else np.asarray(in_zero_point, f32)
    with np.errstate(over="ignore", invalid="ignore"):
        values = (x.astype(f32) - zero) * np.asarray(in_scale, f32)
    out_shape = (*x.shape[:2], *out_spatial)
    total = np.zeros(out_shape, f32)
    count = np.zeros((1, 1, *out_spatial), f32)
    lead = (slice(None), slice(None))
    for indices, inside in _taps(x.shape, g, out_spatial):
        taken = values[(*lead, *np.ix_(*[i.reshape(-1) for i in indices]))]
        with np.errstate(over="ignore", invalid="ignore"):
            total = np.where(inside, total + taken, total).astype(f32)
        count = count + inside
    if include_padding:
        count = np.full_like(count, f32(np.prod(g.window)))
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(count > 0, total / np.maximum(count, f32(1)), f32(0)).astype(f32)
    return quantize_linear(mean, out_scale, out_zero_point, limits)
