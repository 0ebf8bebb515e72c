"""Element-wise cases for the differential harness (dmlsim/operators/harness.py).

The generic same-shape draw (every data type signature the member accepts, ranks 1-8, broadcast inputs, random
layouts, ScaleBias and FusedActivation drawn by kind), with a tolerance of 17 ulps (OpenCL's full-profile bound
of the built-ins used, pow and erf at 16, plus the reference's rounding); continuous functions also get the
formula's spread under float32-sized input perturbations, since ADD1's fused activation follows a rounded sum.
Members with jumps (ROUND, CEIL, FLOOR, SIGN, MODULUS_*, THRESHOLD-like comparisons) get no such widening: a
wrong tie must fail.
"""

from __future__ import annotations

import numpy as np

from dmlsim.operators.base import Operator
from dmlsim.operators.harness import Case, draw_same_shape

JUMPS = ("ROUND", "CEIL", "FLOOR", "SIGN", "MODULUS_TRUNCATE", "MODULUS_FLOOR", "THRESHOLD", "CLIP_GRAD",
         "CLIP_GRAD1", "IF", "DIVIDE")


def draw(op: Operator, rng: np.random.Generator) -> Case:
    case = draw_same_shape(op, rng)
    if op.name.removeprefix("DML_OPERATOR_ELEMENT_WISE_") not in JUMPS:
        case.sensitivity = 2.0**-20
    return case
