"""Float64 references of DirectML's activations, transcribed from their doc pages: the formula table.

:data:`FORMULAS` holds one formula per element-wise activation (the name after
``DML_OPERATOR_ACTIVATION_``), with the desc attributes it reads in the order it takes them. The same
table drives the activation operators' reference (dmlsim.operators.activation), the build defines and
float64 reference of fused activations (:mod:`dmlsim.operators.activation.fused`), and names the
OpenCL formula of each activation in ``dmlsim/cl_kernels/activations.h`` (``activation_<name>``,
``ACTIVATION_RELU``/``ACTIVATION_PARAMETERIZED_RELU`` for the integer-capable two): one formula per
activation, in Python and in the header. Activations defined through another (LEAKY_RELU is
PARAMETERIZED_RELU with a constant slope, HARD_SWISH is x times HARD_SIGMOID, SWISH is x times
SIGMOID) reuse its formula in both places.

Where a doc formula overflows or cancels in floating point, the reference and the kernels compute the
same function in a stable form: exp(x) - 1 as expm1(x), ln(1 + exp(z)) as max(z, 0) + log1p(exp(-|z|)),
tanh as tanh (the doc's (1 - exp(-2x)) / (1 + exp(-2x)) is NaN below x = -44 in float32), and
1 + erf(x / sqrt 2) as erfc(-x / sqrt 2).

The softmax family (reductions along axes) and the two-input activations are at the end.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dmlsim.operators.reduce.reference import extreme_index

Array = np.ndarray
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


@dataclass(frozen=True)
class Formula:
    """f(x, *params) of one element-wise activation; ``params`` are desc attribute names."""

    params: tuple[str, ...]
    f: Callable[..., Array]

    def apply(self, x: Any, attrs: dict[str, Any]) -> Array:
        """f of ``x`` (as float64) with the parameters read from validated attributes (float32 values)."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return self.f(np.asarray(x, np.float64), *(np.float64(attrs[p]) for p in self.params))


def parameterized_relu(x: Array, slope: Array) -> Array:
    """f(x, slope) = x if x >= 0, else slope * x."""
    return np.where(x >= 0, x, slope * x)


def relu(x: Array) -> Array:
    """f(x) = max(0, x) (a NaN gives 0, as fmax and the kernel's comparison do)."""
    return np.where(x > 0, x, np.zeros_like(x))


def sigmoid(x: Array) -> Array:
    """f(x) = 1 / (1 + exp(-x))."""
    return 1.0 / (1.0 + np.exp(-x))


def hard_sigmoid(x: Array, alpha: float, beta: float) -> Array:
    """f(x) = max(0, min(Alpha * x + Beta, 1))."""
    return np.fmax(0.0, np.fmin(alpha * x + beta, 1.0))


def softplus_base(z: Array) -> Array:
    """ln(1 + exp(z)), without overflow."""
    return np.logaddexp(0.0, z)


SHRINK_LIMIT = 2**40  # beyond every 32-bit integer: a bound this far away is never or always crossed


def shrink_integer(x: Array, bias: Any, threshold: Any) -> Array:
    """SHRINK on an integer tensor (DML_FEATURE_LEVEL_5_1), dmlsim's reading (the doc gives the formula with
    FLOAT Bias and Threshold and no integer rule): x > Threshold and x < -Threshold compared as real numbers,
    x - Bias and x + Bias computed exactly, then converted as CAST converts a float: toward zero, saturated to
    the type's range, NaN (a NaN Bias) to 0."""
    info = np.iinfo(x.dtype)
    bias, threshold = float(bias), float(threshold)

    def one(value: int) -> int:
        if value > threshold:
            real = value - Fraction(bias) if math.isfinite(bias) else -bias
        elif value < -threshold:
            real = value + Fraction(bias) if math.isfinite(bias) else bias
        else:
            return 0
        if isinstance(real, float):  # an infinite or NaN bias
            return 0 if math.isnan(real) else (int(info.max) if real > 0 else int(info.min))
        return min(max(math.trunc(real), int(info.min)), int(info.max))

    return np.array([one(int(v)) for v in x.ravel()], x.dtype).reshape(x.shape)


def shrink_integer_constants(bias: Any, threshold: Any) -> dict[str, int]:
    """The integer constants of the SHRINK kernel on integers (``activation/kernel.cl``, shrink_integer):
    ``above`` = floor(Threshold) (x > Threshold is x > above for an integer x), ``below`` = ceil(-Threshold),
    ``sub`` = floor(Bias) and ``sub_frac`` (Bias has a fraction), ``add``/``add_frac`` the same of -Bias, and
    ``nan`` for a NaN Bias; each clamped to +-2^40, which no 32-bit value reaches."""
    bias, threshold = float(bias), float(threshold)

    def floor(value: float, nan: int) -> int:
        if math.isnan(value):
            return nan
        return SHRINK_LIMIT if value >= SHRINK_LIMIT else -SHRINK_LIMIT if value <= -SHRINK_LIMIT else math.floor(value)

    def frac(value: float) -> int:
        return int(math.isfinite(value) and value != math.floor(value))

    return {"above": floor(threshold, SHRINK_LIMIT), "below": -floor(threshold, SHRINK_LIMIT),
            "sub": floor(bias, 0), "sub_frac": frac(bias), "add": floor(-bias, 0), "add_frac": frac(-bias),
            "nan": int(math.isnan(bias))}


def relu_grad(x: Array, dy: Array) -> Array:
    """ACTIVATION_RELU_GRAD: OutputGradientTensor = (X > 0 ? dY : 0)."""
    return np.where(x > 0, dy, np.zeros_like(dy))


# One formula per element-wise (fusable) activation: exactly the members of
# dmlsim.api.directml_schema.FUSED_ACTIVATION_TYPES (tests/test_activation.py checks both ways).
FORMULAS: dict[str, Formula] = {
    "IDENTITY": Formula((), lambda x: x),
    "RELU": Formula((), relu),
    "LEAKY_RELU": Formula(("Alpha",), parameterized_relu),
    "THRESHOLDED_RELU": Formula(("Alpha",), lambda x, a: np.where(x > a, x, 0.0)),
    "LINEAR": Formula(("Alpha", "Beta"), lambda x, a, b: a * x + b),
    "ELU": Formula(("Alpha",), lambda x, a: np.where(x >= 0, x, a * np.expm1(x))),
    "CELU": Formula(("Alpha",), lambda x, a: np.fmax(0.0, x) + np.fmin(0.0, a * np.expm1(x / a))),
    "SCALED_ELU": Formula(("Alpha", "Gamma"), lambda x, a, g: np.where(x > 0, g * x, g * (a * np.expm1(x)))),
    "SIGMOID": Formula((), sigmoid),
    "HARD_SIGMOID": Formula(("Alpha", "Beta"), hard_sigmoid),
    "TANH": Formula((), np.tanh),
    "SCALED_TANH": Formula(("Alpha", "Beta"), lambda x, a, b: a * np.tanh(b * x)),
    "SOFTPLUS": Formula(("Steepness",), lambda x, s: softplus_base(s * x) / s),
    "PARAMETRIC_SOFTPLUS": Formula(("Alpha", "Beta"), lambda x, a, b: a * softplus_base(b * x)),
    "SOFTSIGN": Formula((), lambda x: x / (1.0 + np.abs(x))),
    "SHRINK": Formula(("Bias", "Threshold"),
                      lambda x, b, t: np.where(x > t, x - b, np.where(x < -t, x + b, 0.0))),
    "GELU": Formula((), lambda x: 0.5 * x * _erfc(-x / math.sqrt(2.0))),
    "SWISH": Formula(("SigmoidInputScale",), lambda x, s: x * sigmoid(s * x)),
    "HARD_SWISH": Formula(("Alpha", "Beta"), lambda x, a, b: x * hard_sigmoid(x, a, b)),
}


# --- the softmax family: along axes ------------------------------------------------------------------
def softmax(x: Array, axes: Sequence[int]) -> Array:
    """exp(x_i) / sum(exp(x_j)) over the elements sharing x_i's coordinates outside ``axes``."""
    axes = tuple(axes)
    shifted = x - np.max(x, axis=axes, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axes, keepdims=True)


def log_softmax(x: Array, axes: Sequence[int]) -> Array:
    """ln(softmax(x)) along ``axes``, as (x - max) - ln(sum(exp(x - max)))."""
    axes = tuple(axes)
    shifted = x - np.max(x, axis=axes, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axes, keepdims=True))


def hardmax(x: Array, axes: Sequence[int]) -> Array:
    """1 at the first maximum along ``axes`` (row-major order over the reduced axes, ascending), else 0; a
    NaN counts as the maximum (the first NaN is marked), as ARGMAX chooses it (extreme_index)."""
    axes = sorted(axes)
    rest = [d for d in range(x.ndim) if d not in axes]
    moved = np.transpose(x, rest + axes)
    flat = moved.reshape(*moved.shape[:len(rest)], -1)
    first = extreme_index(flat, largest=True)
    onehot = (np.arange(flat.shape[-1]) == first[..., None]).astype(np.float64)
    return np.transpose(onehot.reshape(moved.shape), np.argsort(rest + axes))


AXES_FORMULAS: dict[str, Callable[[Array, Sequence[int]], Array]] = {
    "SOFTMAX": softmax, "LOG_SOFTMAX": log_softmax, "HARDMAX": hardmax,
}
