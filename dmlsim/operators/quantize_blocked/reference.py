"""References of DML_OPERATOR_QUANTIZE and DML_OPERATOR_DEQUANTIZE (feature level 6_3).

Each quantization tensor (scale, zero point) is expanded to the input's Sizes by its blocks: along dimension
k, element i of the input uses element ``i // B_k`` of the quantization tensor, ``B_k = I_k / S_k`` (``S_k``
its size, a divisor of ``I_k``, the input's): a size of 1 is per tensor along k, ``S_k = I_k`` per element,
anything between blocked. Then the formulas of the element-wise forms (``dmlsim.operators.quantize.reference``, used
unchanged): quantize ``clamp(round_half_to_even(x / scale) + zero_point, Min, Max)`` in float32 arithmetic
(NaN gives 0), dequantize ``(x - zero_point) * scale`` in float64.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dmlsim.operators.quantize.reference import dequantize_linear, quantize_linear


def block_sizes(input_sizes: Sequence[int], sizes: Sequence[int]) -> list[int]:
    """B_k = I_k / S_k: how many input elements along k share one quantization element."""
    return [i // s for i, s in zip(input_sizes, sizes, strict=True)]


def expand(values: np.ndarray, input_sizes: Sequence[int]) -> np.ndarray:
    """``values`` (a quantization tensor) repeated block-wise to ``input_sizes``."""
    out = np.asarray(values)
    for axis, block in enumerate(block_sizes(input_sizes, out.shape)):
        out = np.take(out, np.arange(input_sizes[axis]) // block, axis=axis)
    return out


def quantize(x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None,
             limits: tuple[int, int]) -> np.ndarray:
    """QUANTIZE: the scale and zero point expanded by blocks, then QUANTIZE_LINEAR's float32 formula."""
    sizes = np.shape(x)
    return quantize_linear(x, expand(scale, sizes), None if zero_point is None else expand(zero_point, sizes),
                           limits)


def dequantize(x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None) -> np.ndarray:
    """DEQUANTIZE: the scale and zero point expanded by blocks, then ``(x - zero_point) * scale`` in float64."""
    sizes = np.shape(x)
    with np.errstate(invalid="ignore", over="ignore"):  # 0 * inf is NaN, as the formula gives it
        return dequantize_linear(x, expand(scale, sizes), None if zero_point is None else expand(zero_point, sizes))
