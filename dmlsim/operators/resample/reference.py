"""Float64 reference of DML_OPERATOR_RESAMPLE, RESAMPLE1 and RESAMPLE2, transcribed from their DirectML doc pages.

Every axis maps output index ``o`` to the input coordinate (the pages' ``OutputTensorX = (InputTensorX +
InputPixelOffset) * Scale + OutputPixelOffset`` solved for the input)::

    x = (o - OutputPixelOffset) / Scale - InputPixelOffset

with Scale, InputPixelOffset and OutputPixelOffset the FLOATs of the desc (float32 values, the arithmetic here in
float64). Each axis then contributes *taps*, input indices with weights (:func:`axis_taps`):

* NEAREST_NEIGHBOR, ``rounding`` "half_up" (RESAMPLE, RESAMPLE1): the one input index ``floor(x + 0.5)``;
  "ceil" / "floor" (RESAMPLE2's RoundingDirection INCREASING / DECREASING): ``ceil(x)`` / ``floor(x)``; the
  index clamped to ``[0, size - 1]`` (the pages: "the output edges are clamped");
* LINEAR: ``x`` clamped to ``[0, size - 1]``, then ``floor(x)`` with weight ``1 - f`` and ``floor(x) + 1`` with
  weight ``f`` (``f = x - floor(x)``), the weights rounded to float32; a tap of weight 0 is not read, so an output
  on an input sample is that sample (an inf or NaN beside it does not leak in through ``0 * inf``).

The output element is the sum over the product of the axes' taps of the product of their weights times the
input element (bilinear ... quadrilinear): separable, so applied here one axis at a time. Integer outputs
(INT8/UINT8) are rounded to nearest, ties to even, and saturated.

RESAMPLE3's Antialiased LINEAR on an axis whose Scale ``s`` is below 1 (:func:`antialiased_taps`) stretches the
triangle filter by ``1 / s`` (the page: "a factor max(1, 1 / scale)"; ONNX Resize's antialias): the taps are every
integer ``j`` with ``|j - x| * s < 1``, weight ``1 - |j - x| * s`` divided by the sum of the weights, at input index
``j`` clamped to ``[0, size - 1]`` (the edge element repeated, its weights summed into one tap; ``x`` itself is
not clamped, as ONNX pads with the edge). An axis with Scale >= 1 keeps the LINEAR taps above (the stretch factor is 1).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

ROUNDINGS = ("half_up", "ceil", "floor")


def input_coordinates(out_size: int, scale: float, input_offset: float, output_offset: float) -> np.ndarray:
    """The input coordinate of each output index along one axis, in float64 from the desc's float32 values."""
    s, i_off, o_off = (float(np.float32(value)) for value in (scale, input_offset, output_offset))
    return (np.arange(out_size, dtype=np.float64) - o_off) / s - i_off


def _ramp_sum(a: np.ndarray, b: np.ndarray, x: np.ndarray, s: float) -> np.ndarray:
    """The sum of ``1 - |j - x| * s`` over the integers ``j`` of ``[a, b]`` (0 where ``a > b``), in closed form so
    that a support far wider than the input costs nothing (every such ``j`` lies inside the filter's support)."""
    def run(u: np.ndarray, v: np.ndarray, sign: float) -> np.ndarray:
        count = np.maximum(v - u + 1, 0.0)
        return np.where(count > 0, count * (1.0 - sign * s * (x - (u + v) / 2.0)), 0.0)  # count * mean weight
    p = np.floor(x)
    return run(a, np.minimum(b, p), 1.0) + run(np.maximum(a, p + 1), b, -1.0)


def antialiased_taps(x: np.ndarray, in_size: int, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """RESAMPLE3's antialiased linear taps of input coordinates ``x`` on an axis of Scale ``scale`` < 1: every
    integer ``j`` with ``|j - x| * scale < 1``, weight ``1 - |j - x| * scale`` normalized to sum 1 (float32 values),
    index ``j`` clamped to the input; arrays of shape (len(x), k), a weight of 0 marking padding. The ``j`` beyond
    an edge all read the edge element: their weights are summed into its tap (one tap per input index)."""
    s = float(np.float32(scale))
    reach = 1.0 / s
    first, last = np.floor(x - reach) + 1.0, np.ceil(x + reach) - 1.0  # the support (x - 1/s, x + 1/s)
    low, high = np.clip(first, 0, in_size - 1), np.clip(last, 0, in_size - 1)
    width = int(np.max(high - low)) + 1 if len(x) else 1
    j = low[:, None] + np.arange(width)[None, :]
    inside = j <= high[:, None]
    weight = np.where(inside, np.maximum(1.0 - np.abs(j - x[:, None]) * s, 0.0), 0.0)
    weight[:, 0] += _ramp_sum(first, np.minimum(last, -1.0), x, s)  # j < 0 reads index 0 (column 0: low = 0)
    right = _ramp_sum(np.maximum(first, float(in_size)), last, x, s)  # j > size - 1 reads the last index
    weight[np.arange(len(x)), (high - low).astype(np.int64)] += right
    weight = weight / weight.sum(axis=1, keepdims=True)
    index = np.where(inside, j, low[:, None]).astype(np.int64)
    return index, weight.astype(np.float32).astype(np.float64)


def axis_taps(out_size: int, in_size: int, scale: float, input_offset: float, output_offset: float, linear: bool,
              rounding: str = "half_up", antialiased: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The taps of each output index along one axis: input indices and weights (float32 values), arrays of shape
    (out_size, k) (k = 1 nearest, 2 linear, more antialiased); a weight of 0 marks a tap that is not read."""
    x = input_coordinates(out_size, scale, input_offset, output_offset)
    if linear and antialiased and float(np.float32(scale)) < 1.0:
        return antialiased_taps(x, in_size, scale)
    if not linear:
        index = {"half_up": np.floor(x + 0.5), "ceil": np.ceil(x), "floor": np.floor(x)}[rounding]
        return np.clip(index, 0, in_size - 1).astype(np.int64)[:, None], np.ones((out_size, 1))
    c = np.clip(x, 0.0, in_size - 1.0)
    low = np.floor(c)
    fraction = c - low
    low = low.astype(np.int64)
    high = np.minimum(low + 1, in_size - 1)
    weights = np.stack([1.0 - fraction, fraction], axis=1).astype(np.float32)  # the kernel's float32 weights
    return np.stack([low, high], axis=1), weights.astype(np.float64)


def resample(x: np.ndarray, out_shape: Sequence[int], scales: Sequence[float], input_offsets: Sequence[float],
             output_offsets: Sequence[float], linear: bool, rounding: str = "half_up",
             antialiased: bool = False) -> np.ndarray:
    """The resampled tensor in float64 (any rank; every axis resampled by its own scale and offsets;
    ``antialiased``: RESAMPLE3's Antialiased)."""
    result = np.asarray(x, np.float64)
    for axis, out_size in enumerate(out_shape):
        index, weight = axis_taps(int(out_size), result.shape[axis], scales[axis], input_offsets[axis],
                                  output_offsets[axis], linear, rounding, antialiased)
        moved = np.moveaxis(result, axis, 0)
        extra = (slice(None),) + (None,) * (moved.ndim - 1)
        total = np.full((int(out_size), *moved.shape[1:]), -0.0)  # -0 + -0 keeps a negative zero, as the kernel
        for k in range(index.shape[1]):
            w = weight[:, k][extra]
            with np.errstate(invalid="ignore"):
                total = total + np.where(w > 0, w * moved[index[:, k]], -0.0)
        result = np.moveaxis(total, 0, axis)
    return result


def round_to_integer(values: np.ndarray, low: int, high: int) -> np.ndarray:
    """Integer outputs: rounded to nearest, ties to even, saturated to ``[low, high]``."""
    return np.clip(np.rint(values), low, high)


def resample_grad(g: np.ndarray, in_shape: Sequence[int], scales: Sequence[float], input_offsets: Sequence[float],
                  output_offsets: Sequence[float], linear: bool, rounding: str = "half_up") -> np.ndarray:
    """RESAMPLE_GRAD / RESAMPLE_GRAD1: the gradient with respect to the forward input of shape ``in_shape``
    given the gradient ``g`` of the forward output: each forward tap sends its weight times the output's gradient
    back to its input element (the transpose of the forward resampling, one axis at a time); an input element no
    tap reads gets +0."""
    result = np.asarray(g, np.float64)
    for axis, in_size in enumerate(in_shape):
        out_size = result.shape[axis]
        index, weight = axis_taps(out_size, int(in_size), scales[axis], input_offsets[axis], output_offsets[axis],
                                  linear, rounding)
        moved = np.moveaxis(result, axis, 0)
        total = np.zeros((int(in_size), *moved.shape[1:]))
        extra = (slice(None),) + (None,) * (moved.ndim - 1)
        for k in range(index.shape[1]):
            used = weight[:, k] > 0.0
            with np.errstate(invalid="ignore"):
                np.add.at(total, index[used, k], weight[used, k][extra] * moved[used])
        result = np.moveaxis(total, 0, axis)
    return result
