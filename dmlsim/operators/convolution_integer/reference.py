"""References of DML_OPERATOR_CONVOLUTION_INTEGER and DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION.

CONVOLUTION_INTEGER: ``Output[n, oc, ...] = sum over the window of (Input - InputZeroPoint) * (Filter -
FilterZeroPoint[oc])``, exact (8-bit operands), wrapped to INT32; a tap over padding adds nothing (the padded
value is the zero point: its shifted value is 0). QUANTIZED_LINEAR_CONVOLUTION: that sum plus the INT32 bias
(wrapping), then in float32, each step rounded once, ``rint(((float)S * (InputScale * FilterScale[oc])) /
OutputScale) + OutputZeroPoint`` saturated to the output type (NaN gives 0), as QUANTIZED_LINEAR_MATRIX_MULTIPLY
computes it (dmlsim/operators/integer_gemm). The window arithmetic is the float CONVOLUTION's forward
cross-correlation (dmlsim/operators/convolution/reference.py), run on the shifted integers in float64, where
every partial sum (below 2^53) is exact.
"""

from __future__ import annotations

import numpy as np

from dmlsim.operators.convolution.reference import ConvolutionGeometry, convolution
from dmlsim.operators.integer_gemm.reference import per_index, wrap_int32
from dmlsim.operators.quantize.reference import quantize_linear

F32 = np.float32


def integer_sum(x: np.ndarray, x_zero_point: np.ndarray | None, w: np.ndarray, w_zero_point: np.ndarray | None,
                geometry: ConvolutionGeometry, out_spatial: tuple[int, ...]) -> np.ndarray:
    """The exact int64 window sums of the shifted input and filter (``x`` {N, C, ...}, ``w`` {OC, C / G, ...};
    a zero point of one value or one per output channel; None is 0)."""
    shifted_x = np.asarray(x, np.int64) - (0 if x_zero_point is None else int(np.asarray(x_zero_point).reshape(-1)[0]))
    channels = w.shape[0]
    shift = per_index(w_zero_point, channels).reshape(channels, *(1,) * (w.ndim - 1))
    shifted_w = np.asarray(w, np.int64) - shift
    total = convolution(shifted_x.astype(np.float64), shifted_w.astype(np.float64), None, geometry, out_spatial)
    return total.astype(np.int64)


def convolution_integer(x: np.ndarray, x_zero_point: np.ndarray | None, w: np.ndarray,
                        w_zero_point: np.ndarray | None, geometry: ConvolutionGeometry,
                        out_spatial: tuple[int, ...]) -> np.ndarray:
    """CONVOLUTION_INTEGER: the exact sums wrapped to INT32."""
    return wrap_int32(integer_sum(x, x_zero_point, w, w_zero_point, geometry, out_spatial))


def quantized_linear_convolution(x: np.ndarray, x_scale: np.ndarray, x_zero_point: np.ndarray | None,
                                 w: np.ndarray, w_scale: np.ndarray, w_zero_point: np.ndarray | None,
                                 bias: np.ndarray | None, out_scale: np.ndarray, out_zero_point: np.ndarray | None,
                                 geometry: ConvolutionGeometry, out_spatial: tuple[int, ...],
                                 limits: tuple[int, int]) -> np.ndarray:
    """QUANTIZED_LINEAR_CONVOLUTION in the kernel's float32 steps (module docstring)."""
    total = integer_sum(x, x_zero_point, w, w_zero_point, geometry, out_spatial)
    channels = w.shape[0]
    per_channel = (1, channels, *(1,) * (total.ndim - 2))
    if bias is not None:
        total = total + np.asarray(bias, np.int64).reshape(per_channel)
    total = wrap_int32(total).astype(F32)
    with np.errstate(invalid="ignore", over="ignore"):
        scale = F32(np.asarray(x_scale, F32).reshape(-1)[0]) * per_index(w_scale, channels, F32).reshape(per_channel)
        real = total * scale
    zero = None if out_zero_point is None else np.asarray(out_zero_point).reshape(-1)[0]
    return quantize_linear(real, np.asarray(out_scale, F32).reshape(-1)[0], zero, limits)
