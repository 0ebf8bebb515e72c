"""Fused activations: the one place an operator with a ``FusedActivation`` field gets its activation from.

DirectML lets an element-wise activation be fused into another operator (GEMM, CONVOLUTION,
ELEMENT_WISE_ADD1, BATCH_NORMALIZATION, ...: ``dmlsim.api.directml_schema.FUSED_ACTIVATION_TYPES``):
the activation applies to each element of the operator's output, last, before it is stored.
CreateOperator has validated such a nested desc already (dmlsim.operators.validation: a fusable type,
null tensors, a FLOAT32/FLOAT16 output); ``v.attrs["FusedActivation"]`` is then its
:class:`~dmlsim.operators.base.ValidatedDesc` (or None when the field is null).

How an operator uses it (both driven by the formula table of :mod:`.reference`, the same formulas the
ACTIVATION_* operators compute with):

- kernel: ``#include "activations.h"`` (dmlsim/cl_kernels/) and store ``FUSED_ACTIVATION(value)``
  (a float); the plan adds the build defines: ``defines = {..., **fused_defines(v.attrs.get("FusedActivation"))}``
  (``-DFUSED_<NAME>`` and each parameter as an exact float32 literal, ``-DFUSED_ALPHA=0x1.99999ap-4f``;
  no define at all when the field is null, and FUSED_ACTIVATION(x) is then x).
- reference: ``result = apply_fused(result, v.attrs.get("FusedActivation"))`` on the float64 result.

Each distinct parameter value is its own program build (the build cache keys on the options).
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from dmlsim.operators.activation.reference import FORMULAS, Formula
from dmlsim.operators.base import ValidatedDesc

PREFIX = "DML_OPERATOR_ACTIVATION_"


def activation_name(v: ValidatedDesc) -> str:
    """``ELU`` for a validated DML_OPERATOR_ACTIVATION_ELU desc."""
    return v.operator.name.removeprefix(PREFIX)


def formula_of(v: ValidatedDesc) -> Formula:
    """The formula of a validated element-wise activation desc (a KeyError names a non-fusable one)."""
    return FORMULAS[activation_name(v)]


def parameter_define(param: str) -> str:
    """The build define of a desc attribute: ``FUSED_SIGMOID_INPUT_SCALE`` for ``SigmoidInputScale``."""
    return "FUSED_" + re.sub(r"(?<!^)(?=[A-Z])", "_", param).upper()


def float_literal(value: Any) -> str:
    """An OpenCL C expression with exactly the float32 ``value``: a hex float with the ``f`` suffix
    (``0x1.99999ap-4f`` for 0.1f), or INFINITY / NAN."""
    value = float(np.float32(value))
    if math.isnan(value):
        return "NAN"
    if math.isinf(value):
        return "INFINITY" if value > 0 else "(-INFINITY)"
    text = value.hex()  # e.g. '0x1.99999a0000000p-4': float32 mantissas end in zeros
    mantissa, exponent = text.split("p")
    mantissa = mantissa.rstrip("0").removesuffix(".") if "." in mantissa else mantissa
    literal = f"{mantissa}p{exponent}f"
    return f"({literal})" if literal.startswith("-") else literal


def fused_defines(fused: ValidatedDesc | None) -> dict[str, Any]:
    """Build defines selecting ``fused`` in ``activations.h``: ``{"FUSED_ELU": True, "FUSED_ALPHA": "0x1p+0f"}``;
    ``{}`` for None (no fused activation)."""
    if fused is None:
        return {}
    name = activation_name(fused)
    defines: dict[str, Any] = {f"FUSED_{name}": True}
    for param in FORMULAS[name].params:
        defines[parameter_define(param)] = float_literal(fused.attrs[param])
    return defines


def apply_fused(x: np.ndarray, fused: ValidatedDesc | None) -> np.ndarray:
    """The float64 reference: ``fused``'s activation of every element of ``x`` (``x`` itself for None)."""
    if fused is None:
        return x
    return formula_of(fused).apply(x, fused.attrs)
