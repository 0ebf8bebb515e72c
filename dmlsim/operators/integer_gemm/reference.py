"""References of the integer matrix multiplications, transcribed from their DirectML doc pages.

MATRIX_MULTIPLY_INTEGER:
    Output[..., m, n] = sum_k (A[..., m, k] - AZeroPoint[m]) * (B[..., k, n] - BZeroPoint[n])
exact in int64 and then wrapped to INT32 modulo 2^32 (two's complement), as the kernel's 32-bit accumulator
wraps (ONNX's MatMulInteger: "the accumulation may overflow if and only if in 32 bits"; the page is silent).

MATRIX_MULTIPLY_INTEGER_TO_FLOAT:
    Output[..., m, n] = sum_k dequantize(A)[..., m, k] * dequantize(B)[..., k, n] + Bias[..., m, n]
with dequantize(X) = (X - ZeroPoint) * Scale, in float64 (the output is a float, compared within ulps).

QUANTIZED_LINEAR_MATRIX_MULTIPLY:
    Output = quantize(MATRIX_MULTIPLY_INTEGER(A, B) * (AScale[m] * BScale[n]), OutputScale[m], OutputZeroPoint[m])
an integer output that depends on where the real value falls relative to a tie, so it is computed as the
kernel's float32 arithmetic computes it: MATRIX_MULTIPLY_INTEGER's INT32 sum rounded once to float32, the two scales
multiplied in float32, their product in float32, then QUANTIZE_LINEAR's float32 quantization
(dmlsim.operators.quantize.reference.quantize_linear: the division rounded once, half to even, saturated).

Zero points and scales hold one value (per tensor) or one per row of A / the output (M values) or per column
of B (N values); a null zero point is 0, a null bias 0.
"""

from __future__ import annotations

import numpy as np

from dmlsim.operators.quantize.reference import quantize_linear

F32 = np.float32


def per_index(values: np.ndarray | None, count: int, dtype: type = np.int64) -> np.ndarray:
    """A zero-point or scale tensor as ``count`` values of ``dtype`` (one value repeated when it holds one;
    0 when null)."""
    if values is None:
        return np.zeros(count, dtype)
    flat = np.asarray(values, dtype).reshape(-1)
    return np.broadcast_to(flat, (count,)) if flat.size == 1 else flat


def wrap_int32(values: np.ndarray) -> np.ndarray:
    """int64 values modulo 2^32 as two's-complement INT32."""
    return np.asarray(values, np.int64).astype(np.uint32).view(np.int32)


def integer_product(a: np.ndarray, a_zero_point: np.ndarray | None, b: np.ndarray,
                    b_zero_point: np.ndarray | None) -> np.ndarray:
    """``(a - a_zero_point[:, None]) @ (b - b_zero_point[None, :])`` over the last two axes, exact in int64
    (8-bit operands: at most 65025·K)."""
    m, n = a.shape[-2], b.shape[-1]
    shifted_a = np.asarray(a, np.int64) - per_index(a_zero_point, m)[:, None]
    shifted_b = np.asarray(b, np.int64) - per_index(b_zero_point, n)[None, :]
    return np.matmul(shifted_a, shifted_b)


def matrix_multiply_integer(a: np.ndarray, a_zero_point: np.ndarray | None, b: np.ndarray,
                            b_zero_point: np.ndarray | None) -> np.ndarray:
    """MATRIX_MULTIPLY_INTEGER: the exact product wrapped to INT32; ``a`` {..., M, K}, ``b`` {..., K, N}."""
    return wrap_int32(integer_product(a, a_zero_point, b, b_zero_point))


def matrix_multiply_integer_to_float(a: np.ndarray, a_scale: np.ndarray, a_zero_point: np.ndarray | None,
                                     b: np.ndarray, b_scale: np.ndarray, b_zero_point: np.ndarray | None,
                                     bias: np.ndarray | None) -> np.ndarray:
    """MATRIX_MULTIPLY_INTEGER_TO_FLOAT in float64: dequantized A times dequantized B, plus the bias."""
    m, n = a.shape[-2], b.shape[-1]
    with np.errstate(invalid="ignore", over="ignore"):
        return _to_float(a, a_scale, a_zero_point, b, b_scale, b_zero_point, bias, m, n)


def _to_float(a: np.ndarray, a_scale: np.ndarray, a_zero_point: np.ndarray | None, b: np.ndarray,
              b_scale: np.ndarray, b_zero_point: np.ndarray | None, bias: np.ndarray | None, m: int,
              n: int) -> np.ndarray:
    real_a = ((np.asarray(a, np.int64) - per_index(a_zero_point, m)[:, None]).astype(np.float64)
              * per_index(a_scale, m, np.float64)[:, None])
    real_b = ((np.asarray(b, np.int64) - per_index(b_zero_point, n)[None, :]).astype(np.float64)
              * per_index(b_scale, n, np.float64)[None, :])
    result = np.matmul(real_a, real_b)
    return result if bias is None else result + np.asarray(bias, np.float64)


def quantized_linear_matrix_multiply(a: np.ndarray, a_scale: np.ndarray, a_zero_point: np.ndarray | None,
                                     b: np.ndarray, b_scale: np.ndarray, b_zero_point: np.ndarray | None,
                                     out_scale: np.ndarray, out_zero_point: np.ndarray | None,
                                     limits: tuple[int, int]) -> np.ndarray:
    """QUANTIZED_LINEAR_MATRIX_MULTIPLY in the kernel's float32 steps (module docstring)."""
    m, n = a.shape[-2], b.shape[-1]
    total = matrix_multiply_integer(a, a_zero_point, b, b_zero_point).astype(F32)
    with np.errstate(invalid="ignore", over="ignore"):
        scale = per_index(a_scale, m, F32)[:, None] * per_index(b_scale, n, F32)[None, :]
        real = total * scale
    return quantize_linear(real, per_index(out_scale, m, F32)[:, None],
                           None if out_zero_point is None else per_index(out_zero_point, m)[:, None], limits)
