"""CONVOLUTION cases for the differential harness (dmlsim/operators/harness.py).

Draws 1-D, 2-D and 3-D convolutions, FORWARD and BACKWARD, both modes, groups, strides, dilations and start/end
paddings on every spatial axis (depth included), bias present or null, every fusable activation, FLOAT32/FLOAT16,
every tensor in a random layout (broadcast inputs too). Output sizes follow the doc's formulas with OutputPadding
0. Tolerance (as tests/test_convolution.py): float32 accumulation of T terms is within T + 2 ulps of the sum of
the terms' magnitudes (the convolution of |X| with |W| plus |bias|); a fused activation as in gemm/cases.py.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_CONVOLUTION_DIRECTION, DML_CONVOLUTION_MODE
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import Case, draw_fused_activation, draw_tensor, draw_valid

F32, F16 = 1, 2


def draw(op: Operator, rng: np.random.Generator) -> Case:
    def attempt(r: np.random.Generator) -> Case:
        spatial = int(r.choice([1, 2, 3, 3]))
        groups = int(r.choice([1, 1, 2]))
        batch, cin, cout = int(r.integers(1, 3)), groups * int(r.integers(1, 3)), groups * int(r.integers(1, 3))
        kernel = [int(r.integers(1, 4)) for _ in range(spatial)]
        strides = [int(r.integers(1, 3)) for _ in range(spatial)]
        dilations = [int(r.integers(1, 3)) for _ in range(spatial)]
        start = [int(r.integers(0, 3)) for _ in range(spatial)]
        end = [int(r.integers(0, 3)) for _ in range(spatial)]
        backward = r.random() < 0.35
        # forward: at least the dilated kernel's reach minus the padding, so that large dilations are drawn
        size_in = [max(1, (kernel[i] - 1) * dilations[i] + 1 - start[i] - end[i]) + int(r.integers(0, 3))
                   if not backward else int(r.integers(1, 5)) for i in range(spatial)]
        out = []
        for i in range(spatial):
            reach = (kernel[i] - 1) * dilations[i] + 1
            if backward:
                out.append((size_in[i] - 1) * strides[i] + reach - start[i] - end[i])
            else:
                out.append((size_in[i] + start[i] + end[i] - reach) // strides[i] + 1)
        dtype = int(r.choice([F32, F16]))
        x_sizes = [batch, cin, *size_in]
        f_sizes = [cin, cout // groups, *kernel] if backward else [cout, cin // groups, *kernel]
        y_sizes = [batch, cout, *out]
        x = draw_tensor(r, dtype, x_sizes)
        w = draw_tensor(r, dtype, f_sizes)
        bias = draw_tensor(r, dtype, [1, cout, *[1] * spatial]) if r.random() < 0.6 else None
        y = draw_tensor(r, dtype, y_sizes, role="output") if min(out) >= 1 else None
        fused = draw_fused_activation(r) if r.random() < 0.3 else None
        desc = op.desc_cls(InputTensor=x, FilterTensor=w, BiasTensor=bias, OutputTensor=y,
                           Mode=DML_CONVOLUTION_MODE(int(r.integers(2))),
                           Direction=DML_CONVOLUTION_DIRECTION(int(backward)), DimensionCount=spatial,
                           Strides=strides, Dilations=dilations, StartPadding=start, EndPadding=end,
                           OutputPadding=[0] * spatial, GroupCount=groups, FusedActivation=fused)
        terms = (cin // groups) * math.prod(kernel) + 1
        slope = 9.0 if fused is not None else 1.0

        def bound(values: dict[str, Any]) -> dict[str, Any]:
            from dmlsim.api.structs import DML_OPERATOR_DESC
            from dmlsim.operators.convolution import geometry_of
            from dmlsim.operators.convolution.reference import convolution
            from dmlsim.operators.validation import validate_operator_desc

            v = validate_operator_desc(DML_OPERATOR_DESC(op.type, desc))
            b = values.get("BiasTensor")
            magnitude = convolution(np.abs(values["InputTensor"]), np.abs(values["FilterTensor"]),
                                    None if b is None else np.abs(b), geometry_of(v), tuple(y_sizes[2:]))
            return {"OutputTensor": magnitude * slope}

        return Case(desc, ulps=terms + 2 + (4 if fused else 0), ulps16=1 + (1 if fused else 0), bound=bound,
                    note=f"{spatial}-D {'backward' if backward else 'forward'} groups={groups}")

    return draw_valid(op, rng, attempt)
