"""REDUCE, ARGMIN and ARGMAX cases for the differential harness (dmlsim/operators/harness.py).

Draws ranks 1-8, every reduce function with every input type its doc table lists, every index output type for
the arg-reductions, both AxisDirections, any non-empty set of axes, random layouts (broadcast inputs too).
Tolerance: a float32 accumulation of n terms is within n + 4 ulps of its magnitude bound, the same function of
|x| (SUM, AVERAGE, MULTIPLY...); LOG_SUM's error is the sum's divided by the sum, so its bound is
Σ|x| / |Σx|; LOG_SUM_EXP subtracts the maximum first: a few ulps of max|x|. Indices and integers: exactly.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_AXIS_DIRECTION, DML_REDUCE_FUNCTION
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import Case, draw_sizes, draw_tensor, draw_valid
from dmlsim.operators.reduce import FUNCTION_TYPES, INDEX_TYPES

ABSOLUTE = {"SUM", "AVERAGE", "L1", "SUM_SQUARE", "L2", "MULTIPLY"}


def draw(op: Operator, rng: np.random.Generator) -> Case:
    is_reduce = op.type == DML_OPERATOR_TYPE.DML_OPERATOR_REDUCE

    def attempt(r: np.random.Generator) -> Case:
        rank = int(r.choice([1, 2, 3, 4, 5, 8]))
        sizes = draw_sizes(r, rank, 120)
        count = int(r.integers(1, rank + 1))
        axes = sorted(int(a) for a in r.choice(rank, count, replace=False))
        function = (DML_REDUCE_FUNCTION(int(r.integers(len(DML_REDUCE_FUNCTION)))) if is_reduce else None)
        name = function.name.removeprefix("DML_REDUCE_FUNCTION_") if function is not None else (
            "ARGMAX" if op.type == DML_OPERATOR_TYPE.DML_OPERATOR_ARGMAX else "ARGMIN")
        in_type = int(r.choice(FUNCTION_TYPES[name]))
        out_type = int(r.choice(INDEX_TYPES)) if name in ("ARGMAX", "ARGMIN") else in_type
        x = draw_tensor(r, in_type, sizes)
        y = draw_tensor(r, out_type, [1 if d in axes else s for d, s in enumerate(sizes)], role="output")
        fields = {"InputTensor": x, "OutputTensor": y, "Axes": axes}
        if is_reduce:
            fields["Function"] = function
        else:
            fields["AxisDirection"] = DML_AXIS_DIRECTION(int(r.integers(2)))
        n = math.prod(sizes[a] for a in axes)

        def bound(values: dict[str, Any]) -> dict[str, Any]:
            x_abs = np.abs(np.asarray(values["InputTensor"], np.float64))
            if name in ABSOLUTE:
                from dmlsim.operators.reduce.reference import reduce

                return {"OutputTensor": np.abs(reduce(name, x_abs, axes))}
            with np.errstate(all="ignore"):
                if name == "LOG_SUM":
                    total = np.sum(np.asarray(values["InputTensor"], np.float64), axis=tuple(axes), keepdims=True)
                    return {"OutputTensor": np.sum(x_abs, axis=tuple(axes), keepdims=True) / np.abs(total)}
                if name == "LOG_SUM_EXP":
                    return {"OutputTensor": np.max(np.where(np.isfinite(x_abs), x_abs, 0), axis=tuple(axes),
                                                   keepdims=True)}
            return {}

        return Case(op.desc_cls(**fields), ulps=n + 4, ulps16=2, bound=bound, note=f"{name} axes {axes}")

    return draw_valid(op, rng, attempt)
