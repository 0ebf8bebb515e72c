"""Float64 references of the quantized element-wise operators, transcribed from their doc pages.

dequantize: (input - zero_point) * scale
quantize:   clamp(round(input / scale) + zero_point, Min, Max), round = half to even, [Min, Max] the
            output type's range (a NaN becomes 0, as OpenCL's saturating conversion makes it)
quantized add: dequantize A and B, add, quantize the sum with the output scale and zero point.
A null zero point is 0. Scale and zero-point arrays broadcast against the input (numpy rules).
"""

from __future__ import annotations

import numpy as np


def dequantize_linear(x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None) -> np.ndarray:
    """(x - zero_point) * scale in float64; the difference is taken exactly in int64."""
    shift = np.asarray(x, np.int64) - (0 if zero_point is None else np.asarray(zero_point, np.int64))
    return shift.astype(np.float64) * np.asarray(scale, np.float64)


def quantize_linear(x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None,
                    limits: tuple[int, int]) -> np.ndarray:
    """clamp(round_half_to_even(x / scale) + zero_point, *limits) in float64 (integral values)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.rint(np.asarray(x, np.float64) / np.asarray(scale, np.float64))
    q = q + (0 if zero_point is None else np.asarray(zero_point, np.float64))
    return np.where(np.isnan(q), 0.0, np.clip(q, *limits))


def quantized_linear_add(a: np.ndarray, a_scale: np.ndarray, a_zero_point: np.ndarray | None,
                         b: np.ndarray, b_scale: np.ndarray, b_zero_point: np.ndarray | None,
                         out_scale: np.ndarray, out_zero_point: np.ndarray | None,
                         limits: tuple[int, int]) -> np.ndarray:
    """quantize(dequantize(a) + dequantize(b)) with the output's scale, zero point and limits."""
    total = dequantize_linear(a, a_scale, a_zero_point) + dequantize_linear(b, b_scale, b_zero_point)
    return quantize_linear(total, out_scale, out_zero_point, limits)
