"""Activation cases for the differential harness (dmlsim/operators/harness.py).

The generic same-shape draw (every data type the member accepts, ranks 1-8, random layouts, attributes by kind,
Axes for the *1 members), with each member's tolerance: 17 ulps (OpenCL's full-profile bound of the built-ins
used, plus the reference's rounding) widened by the formula's own spread under float32-sized input perturbations
(``sensitivity``): the kernels round intermediate values such as HARD_SWISH's Alpha·x + Beta, which cancel.
Members with a jump (HARDMAX, THRESHOLDED_RELU, SHRINK) get no such widening: a tie must not pass unseen.
SOFTMAX and LOG_SOFTMAX subtract ln Σ from x − max: their bound is 2·max|x| + ln(n) + 1 over the tensor.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dmlsim.operators.base import Operator
from dmlsim.operators.harness import Case, draw_same_shape

JUMPS = ("HARDMAX", "THRESHOLDED_RELU", "SHRINK")
SOFTMAXES = ("SOFTMAX", "LOG_SOFTMAX")


def draw(op: Operator, rng: np.random.Generator) -> Case:
    case = draw_same_shape(op, rng)
    name = op.name.removeprefix("DML_OPERATOR_ACTIVATION_").removesuffix("1")
    if name not in JUMPS:
        case.sensitivity = 2.0**-20
    if name in SOFTMAXES:
        def bound(values: dict[str, Any]) -> dict[str, Any]:
            x = np.abs(np.asarray(values["InputTensor"], np.float64))
            peak = float(np.max(np.where(np.isfinite(x), x, 0.0)))
            return {"OutputTensor": 2 * peak + math.log(x.size) + 1}

        case.bound = bound
    return case
