"""Float64 references of the element-wise operators, transcribed from their DirectML doc pages.

Each formula takes the data inputs in desc order (IF: the condition first) and the validated attributes.
Floating-point inputs arrive as float64 (InputTensor after the optional scale and bias); integer inputs
keep their own dtype, so integer results are exact and wrap as the kernels' do (64-bit types included).
The bitwise members get every input as the unsigned integers of its width (a FLOAT32 as its uint32 bits:
"the tensor data type is ignored except for determining the width of each element"). Where a doc page
is silent, the choice is stated beside the formula (and in the README's decisions).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dmlsim.api.structs import DML_SCALE_BIAS

Formula = Callable[[Sequence[np.ndarray], dict[str, Any]], np.ndarray]


def apply_scale_bias(x: np.ndarray, scale_bias: DML_SCALE_BIAS | None) -> np.ndarray:
    """g(x) = x * Scale + Bias ("applied to each input element prior to computing this operator").

    Rounded where DirectML's arithmetic rounds: in the operator's arithmetic type -- float32 for FLOAT32 and
    FLOAT16 tensors, float64 for FLOAT64 -- once after the product and once after the sum (the kernels build
    with FP_CONTRACT OFF, so no fused multiply-add). A float64 g would differ from the device's near a jump
    of the function: pow(g, NaN) is 1 when g rounds to exactly 1 in float32 and NaN in float64.
    """
    if scale_bias is None:
        return x
    real = np.float64 if np.asarray(x).dtype == np.float64 or not _is_float(np.asarray(x)) else np.float32
    with np.errstate(all="ignore"):
        return (np.asarray(x).astype(real) * real(scale_bias.Scale) + real(scale_bias.Bias)).astype(np.float64)


def _is_float(x: np.ndarray) -> bool:
    return np.issubdtype(x.dtype, np.floating)


def _unary(f: Callable[[np.ndarray], np.ndarray]) -> Formula:
    return lambda xs, attrs: f(xs[0])


def _binary(f: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Formula:
    return lambda xs, attrs: f(xs[0], xs[1])


def _sign(x: np.ndarray) -> np.ndarray:
    # (x > 0) - (x < 0): NaN gives 0 (dmlsim's reading; the doc defines only -1, 0, 1)
    return ((x > 0).astype(np.int8) - (x < 0).astype(np.int8)).astype(x.dtype)


def _round(xs: Sequence[np.ndarray], attrs: dict[str, Any]) -> np.ndarray:
    x, mode = xs[0], int(attrs["RoundingMode"])
    if mode == 0:  # halves to nearest even
        return np.rint(x)
    if mode == 1:  # toward zero
        return np.trunc(x)
    return np.where(x < 0, -np.floor(-x + 0.5), np.floor(x + 0.5))  # halves away from zero


def _is_infinity(xs: Sequence[np.ndarray], attrs: dict[str, Any]) -> np.ndarray:
    x, mode = xs[0], int(attrs["InfinityMode"])
    hit = {0: np.isinf(x), 1: x == math.inf, 2: x == -math.inf}[mode]
    return hit.astype(np.uint8)


def integer_bounds(member: str, attrs: dict[str, Any], dtype: np.dtype) -> tuple[int, int]:
    """The FLOAT ``Min``/``Max`` of CLIP, THRESHOLD (no Max) or CLIP_GRAD on an integer tensor of ``dtype`` as
    the inclusive integer range ``(low, high)`` of the type that the member keeps (dmlsim's reading; the doc
    gives the bounds only as FLOAT). CLIP and THRESHOLD: min(max(x, Min), Max) compared as real numbers,
    so x ends in [ceil(Min), floor(Max)]; CLIP_GRAD passes the gradient for Min < x < Max, the integers
    floor(Min) + 1 ... ceil(Max) - 1. A NaN bound is no bound (as fmax/fmin ignore NaN); bounds beyond the
    type saturate to its range; a CLIP_GRAD range holding no value of the type is (type max, type min)."""
    info = np.iinfo(dtype)
    smallest, largest = int(info.min), int(info.max)
    low_attr = float(attrs["Min"])
    high_attr = float(attrs["Max"]) if "Max" in attrs else math.nan
    if member == "CLIP_GRAD":
        low = None if low_attr == math.inf else (
            smallest if math.isnan(low_attr) or low_attr == -math.inf else math.floor(low_attr) + 1)
        high = None if high_attr == -math.inf else (
            largest if math.isnan(high_attr) or high_attr == math.inf else math.ceil(high_attr) - 1)
        if low is None or high is None or low > high or low > largest or high < smallest:
            return largest, smallest
    else:
        low = smallest if math.isnan(low_attr) or low_attr == -math.inf else (
            largest if low_attr == math.inf else math.ceil(low_attr))
        high = largest if math.isnan(high_attr) or high_attr == math.inf else (
            smallest if high_attr == -math.inf else math.floor(high_attr))
    return min(max(low, smallest), largest), min(max(high, smallest), largest)


def _clip(xs: Sequence[np.ndarray], attrs: dict[str, Any]) -> np.ndarray:
    # min(max(x, Min), Max); NaN becomes Min then stays (fmax/fmin ignore NaN: HLSL max/min, maxNum)
    x = xs[0]
    if _is_float(x):
        low, high = (np.float64(attrs[name]) for name in ("Min", "Max"))
        return np.fmin(np.fmax(x, low), high)
    if "MinMaxDataType" in attrs:  # CLIP1: the bounds are of the tensor's own type
        low, high = (int(attrs[name]) for name in ("Min", "Max"))
    else:  # CLIP: FLOAT bounds on an integer tensor
        low, high = integer_bounds("CLIP", attrs, x.dtype)
    return np.minimum(np.maximum(x, x.dtype.type(low)), x.dtype.type(high))


def _threshold(xs: Sequence[np.ndarray], attrs: dict[str, Any]) -> np.ndarray:
    # max(x, Min); a NaN input stays NaN only if Min is NaN too (fmax)
    x = xs[0]
    if _is_float(x):
        return np.fmax(x, np.float64(attrs["Min"]))
    return np.maximum(x, x.dtype.type(integer_bounds("THRESHOLD", attrs, x.dtype)[0]))


def _clip_grad(xs: Sequence[np.ndarray], attrs: dict[str, Any]) -> np.ndarray:
    # "if x <= Min then 0; if x >= Max then 0; else gradient", compared as real numbers
    x, gradient = xs
    low, high = (float(attrs[name]) for name in ("Min", "Max"))
    exact = x.astype(np.float64) if _is_float(x) else x.astype(object)
    blocked = np.asarray((exact <= low) | (exact >= high), bool)
    return np.where(blocked, np.zeros((), gradient.dtype), gradient)


def _divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if _is_float(a):
        with np.errstate(all="ignore"):
            return a / b
    # integers: the quotient truncated toward zero (C, HLSL); a zero divisor gives 0 here (DirectML
    # leaves it unspecified)
    safe = np.where(b == 0, np.ones((), b.dtype), b)
    with np.errstate(all="ignore"):
        quotient = (a - np.fmod(a, safe)) // safe
    return np.where(b == 0, np.zeros((), a.dtype), quotient)


def _add1(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # a + b rounded to float32 for FLOAT32/FLOAT16 tensors (float64 copies of float32 values arrive), as the
    # kernels add: ADD1's FusedActivation may be discontinuous (THRESHOLDED_RELU: x > Alpha ? x : 0; SHRINK), so
    # a float64 sum could land on the other side of its threshold (1 + 1e-8 is 1 in float32, not above Alpha = 1)
    if _is_float(a):
        return (a.astype(np.float32) + b.astype(np.float32)).astype(np.float64)
    return np.add(a, b)


def _modulus_truncate(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # a - b * trunc(a / b): the sign of the dividend (C fmod, %)
    safe = b if _is_float(a) else np.where(b == 0, np.ones((), b.dtype), b)
    with np.errstate(all="ignore"):
        result = np.fmod(a, safe)
    return result if _is_float(a) else np.where(b == 0, np.zeros((), a.dtype), result)


def _modulus_floor(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # a - b * floor(a / b): the sign of the divisor
    remainder = _modulus_truncate(a, b)
    adjust = (remainder != 0) & ((remainder < 0) != (b < 0))
    with np.errstate(all="ignore"):
        return np.where(adjust, remainder + b, remainder).astype(remainder.dtype)


def _mean(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # (a + b) / 2; integers (INT32, UINT32): the exact sum halved and truncated toward zero, as integer DIVIDE
    # truncates (dmlsim's reading: the doc gives only the formula); never overflows
    if _is_float(a):
        return (a + b) / 2
    total = a.astype(np.int64) + b.astype(np.int64)  # exact for INT32 and UINT32
    return ((total - np.fmod(total, 2)) // 2).astype(a.dtype)


def _integer_power(x: int, e: int, dtype: np.dtype) -> int:
    """x ** e in the integer type ``dtype``, wrapping; e < 0 is 1 / x^|e| truncated toward zero: 1 for x = 1,
    (+-1) for x = -1, and 0 otherwise (x = 0 included: dmlsim's choice, as integer DIVIDE by 0 gives 0)."""
    if e < 0:
        return (x if e % 2 else 1) if x in (1, -1) else 0
    bits = 8 * dtype.itemsize
    value = pow(x, e, 2**bits)
    return value - 2**bits if np.issubdtype(dtype, np.signedinteger) and value >= 2 ** (bits - 1) else value


def real_power(x: np.ndarray, e: np.ndarray) -> np.ndarray:
    """x ** e with C99's (IEEE 754's, OpenCL's) special cases, which numpy's power departs from for a base of
    -inf and an exponent that is not an integer: pow(-inf, y) is +inf for y > 0 and +0 for y < 0 there, where
    numpy gives NaN (dmlsim's reading: the doc pages give no special cases; every kernel follows C99)."""
    x, e = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(e, np.float64))
    with np.errstate(all="ignore"):
        result = np.power(x, e)
        fix = np.isneginf(x) & np.isfinite(e) & (e != np.trunc(e))
    return np.where(fix, np.where(e > 0, np.inf, 0.0), result)


def _pow(xs: Sequence[np.ndarray], attrs: dict[str, Any]) -> np.ndarray:
    """x ^ exponent. From DML_FEATURE_LEVEL_3_0 the exponent's type may differ from the input's (dmlsim's
    reading of the mixed cases, the doc giving none): a FLOAT input takes any exponent as a real number; an
    integer input with an integer exponent, or a FLOAT exponent holding an integer, is raised exactly in its
    own type (wrapping, see _integer_power); with a non-integral FLOAT exponent the real power is truncated
    toward zero and saturated to the type (NaN gives 0, as CAST does)."""
    x, e = xs
    if _is_float(x):
        return real_power(x, e)
    x, e = np.broadcast_arrays(x, e)
    out = np.empty(x.shape, x.dtype)
    info = np.iinfo(x.dtype)
    for index in np.ndindex(x.shape):
        base, exponent = int(x[index]), e[index]
        if not _is_float(e):
            out[index] = _integer_power(base, int(exponent), x.dtype)
        elif math.isfinite(exponent) and exponent == math.trunc(exponent):
            out[index] = _integer_power(base, int(min(max(exponent, -2.0**62), 2.0**62)), x.dtype)
        else:
            with np.errstate(all="ignore"):
                real = np.power(np.float64(base), np.float64(exponent))
            out[index] = 0 if math.isnan(real) else int(min(max(np.trunc(real), float(info.min)), float(info.max)))
    return out


def _shift(a: np.ndarray, b: np.ndarray, left: bool) -> np.ndarray:
    # the shift amount is taken modulo the bit width (as OpenCL and HLSL shifts do); the doc is silent
    bits = 8 * a.dtype.itemsize
    amount = (b.astype(np.uint64) % bits).astype(a.dtype)
    return (np.left_shift(a, amount) if left else np.right_shift(a, amount)).astype(a.dtype)


def _bit_count(x: np.ndarray) -> np.ndarray:
    unsigned = x.view(x.dtype.newbyteorder("=").str.replace("i", "u"))
    return np.vectorize(lambda v: int(v).bit_count(), otypes=[np.uint8])(unsigned) if x.size else x.astype(np.uint8)


def _truth(x: np.ndarray) -> np.ndarray:
    return np.asarray(x) != 0


FORMULAS: dict[str, Formula] = {
    "IDENTITY": _unary(lambda x: x),                                      # f(x) = x
    "ABS": _unary(np.abs),                                                # |x|
    "NEGATE": _unary(np.negative),                                        # -x
    "SIGN": _unary(_sign),
    "ACOS": _unary(np.arccos), "ASIN": _unary(np.arcsin), "ATAN": _unary(np.arctan),
    "COS": _unary(np.cos), "SIN": _unary(np.sin), "TAN": _unary(np.tan),
    "EXP": _unary(np.exp), "LOG": _unary(np.log), "SQRT": _unary(np.sqrt),
    "RECIP": _unary(lambda x: 1.0 / x),                                   # 1 / x
    "CEIL": _unary(np.ceil), "FLOOR": _unary(np.floor),
    "ERF": _unary(np.vectorize(math.erf, otypes=[np.float64])),
    "SINH": _unary(np.sinh), "COSH": _unary(np.cosh), "TANH": _unary(np.tanh),
    "ASINH": _unary(np.arcsinh), "ACOSH": _unary(np.arccosh), "ATANH": _unary(np.arctanh),
    "ROUND": _round,
    "IS_NAN": _unary(lambda x: np.isnan(x).astype(np.uint8)),
    "IS_INFINITY": _is_infinity,
    "CONSTANT_POW": lambda xs, attrs: real_power(xs[0], np.float64(attrs["Exponent"])),  # x ^ Exponent
    "THRESHOLD": _threshold,                                              # max(x, Min)
    "CLIP": _clip, "CLIP1": _clip,
    "CLIP_GRAD": _clip_grad, "CLIP_GRAD1": _clip_grad,
    "ADD": _binary(np.add), "ADD1": _binary(_add1),  # ADD1: FusedActivation(a + b), applied by the template
    "SUBTRACT": _binary(np.subtract), "MULTIPLY": _binary(np.multiply),
    "DIVIDE": _binary(_divide),
    # max/min ignore a NaN operand (fmax/fmin: HLSL's max/min on D3D hardware); integers exact
    "MAX": _binary(lambda a, b: np.fmax(a, b) if _is_float(a) else np.maximum(a, b)),
    "MIN": _binary(lambda a, b: np.fmin(a, b) if _is_float(a) else np.minimum(a, b)),
    "MEAN": _binary(_mean),                                               # (a + b) / 2
    "POW": _pow,                                                          # x ^ exponent
    "ATAN_YX": _binary(np.arctan2),                                       # atan2(y = a, x = b)
    "DIFFERENCE_SQUARE": _binary(lambda a, b: (a - b) * (a - b)),         # (a - b)^2
    "MODULUS_TRUNCATE": _binary(_modulus_truncate),
    "MODULUS_FLOOR": _binary(_modulus_floor),
    "LOGICAL_EQUALS": _binary(lambda a, b: (a == b).astype(np.uint8)),
    "LOGICAL_GREATER_THAN": _binary(lambda a, b: (a > b).astype(np.uint8)),
    "LOGICAL_LESS_THAN": _binary(lambda a, b: (a < b).astype(np.uint8)),
    "LOGICAL_GREATER_THAN_OR_EQUAL": _binary(lambda a, b: (a >= b).astype(np.uint8)),
    "LOGICAL_LESS_THAN_OR_EQUAL": _binary(lambda a, b: (a <= b).astype(np.uint8)),
    "LOGICAL_AND": _binary(lambda a, b: (_truth(a) & _truth(b)).astype(np.uint8)),
    "LOGICAL_OR": _binary(lambda a, b: (_truth(a) | _truth(b)).astype(np.uint8)),
    "LOGICAL_XOR": _binary(lambda a, b: (_truth(a) ^ _truth(b)).astype(np.uint8)),
    "LOGICAL_NOT": _unary(lambda x: (~_truth(x)).astype(np.uint8)),
    "BIT_AND": _binary(np.bitwise_and), "BIT_OR": _binary(np.bitwise_or), "BIT_XOR": _binary(np.bitwise_xor),
    "BIT_NOT": _unary(np.invert),
    "BIT_COUNT": _unary(_bit_count),
    "BIT_SHIFT_LEFT": _binary(lambda a, b: _shift(a, b, True)),
    "BIT_SHIFT_RIGHT": _binary(lambda a, b: _shift(a, b, False)),
    "IF": lambda xs, attrs: np.where(_truth(xs[0]), xs[1], xs[2]),       # condition ? a : b
}
