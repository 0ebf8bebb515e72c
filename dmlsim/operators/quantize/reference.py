"""References of the quantized element-wise operators, transcribed from their doc pages.

dequantize: (input - zero_point) * scale
quantize:   clamp(round(input / scale) + zero_point, Min, Max), round = half to even, [Min, Max] the
            output type's range (a NaN becomes 0, as a saturating float-to-integer conversion makes it in
            OpenCL C and in Direct3D; the doc page is silent)
quantized add: dequantize A and B, add, quantize the sum with the output scale and zero point.
A null zero point is 0. Scale and zero-point arrays broadcast against the input (numpy rules).

DEQUANTIZE's output is a float: it is computed in float64, and the tests compare it within ulps. QUANTIZE's
output is an integer that depends on where ``input / scale`` falls relative to a tie k + 0.5, so it is
computed exactly as DirectML's float32 arithmetic computes it: every operation rounded once to float32
(numpy's float32 ``+ - * /`` are IEEE's, correctly rounded). In float64, 0.5 / float32(5/255) is
25.4999991 and rounds to 25, where float32 division gives exactly 25.5 and rounding gives 26; the
kernels divide in float32 the same way (kernel.cl ``divide_rn``), so integer outputs agree on every device.
"""

from __future__ import annotations

import numpy as np

F32 = np.float32


def dequantize_linear(x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None,
                      dtype: type[np.floating] = np.float64) -> np.ndarray:
    """(x - zero_point) * scale: the difference exact in int64, converted once to ``dtype`` (rounded to
    nearest even) and multiplied by the scale in ``dtype`` (float64: the reference of DEQUANTIZE's float
    output; float32: the arithmetic of DirectML's kernels, which QUANTIZED_LINEAR_ADD's sum needs)."""
    shift = np.asarray(x, np.int64) - (0 if zero_point is None else np.asarray(zero_point, np.int64))
    return shift.astype(dtype) * np.asarray(scale, dtype)


def quantize_linear(x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None,
                    limits: tuple[int, int]) -> np.ndarray:
    """clamp(round_half_to_even(x / scale) + zero_point, *limits) in float32 arithmetic (integral values):
    ``x`` (FLOAT32, FLOAT16 or INT32, the last rounded to nearest float32) divided by the scale in float32,
    rounded half to even, the zero point added in float32; NaN gives 0, ±infinity saturates."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q = np.rint(np.asarray(x, F32) / np.asarray(scale, F32))
        q = q + (F32(0) if zero_point is None else np.asarray(zero_point, F32))
    return np.where(np.isnan(q), F32(0), np.clip(q, *limits))


def quantized_linear_add(a: np.ndarray, a_scale: np.ndarray, a_zero_point: np.ndarray | None,
                         b: np.ndarray, b_scale: np.ndarray, b_zero_point: np.ndarray | None,
                         out_scale: np.ndarray, out_zero_point: np.ndarray | None,
                         limits: tuple[int, int]) -> np.ndarray:
    """quantize(dequantize(a) + dequantize(b)) with the output's scale, zero point and limits, every step
    in float32 (both products and their sum rounded to float32, as the kernel computes them)."""
    with np.errstate(over="ignore", invalid="ignore"):
        total = dequantize_linear(a, a_scale, a_zero_point, F32) + dequantize_linear(b, b_scale, b_zero_point, F32)
    return quantize_linear(total, out_scale, out_zero_point, limits)
