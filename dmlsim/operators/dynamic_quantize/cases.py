"""DYNAMIC_QUANTIZE_LINEAR cases for the differential harness (dmlsim/operators/harness.py).

Draws 1-D to 8-D inputs (sometimes more elements than the kernel's work-group of 256) with random layouts
(broadcast and padded strides, sometimes OWNED_BY_DML), FLOAT32/FLOAT16 inputs, INT8/UINT8 outputs, the scale
and zero point as one-element tensors of the input's DimensionCount. Values: the harness's adversarial floats
(±0, ±inf, NaN, subnormals, rounding ties). Every output is compared exactly (the scale too: ulps 0): the
reference takes the kernel's float32 steps (reference.py).
"""

from __future__ import annotations

import numpy as np

from dmlsim.operators.base import Operator
from dmlsim.operators.harness import OWNED_BY_DML, Case, draw_sizes, draw_tensor, draw_valid
from dmlsim.operators.typed import FLOAT16, FLOAT32, INT8, UINT8


def draw(op: Operator, rng: np.random.Generator) -> Case:
    def attempt(r: np.random.Generator) -> Case:
        rank = int(r.integers(1, 9))
        big = r.random() < 0.25
        sizes = draw_sizes(r, rank, 700 if big else 96, largest=40 if big else 7)
        x_type, y_type = int(r.choice([FLOAT32, FLOAT16])), int(r.choice([INT8, UINT8]))
        x = draw_tensor(r, x_type, sizes)
        if r.random() < 0.2:
            x.Desc.Flags = OWNED_BY_DML
        ones = [1] * rank
        desc = op.desc_cls(InputTensor=x, OutputTensor=draw_tensor(r, y_type, sizes, role="output"),
                           OutputScaleTensor=draw_tensor(r, FLOAT32, ones, role="output"),
                           OutputZeroPointTensor=draw_tensor(r, y_type, ones, role="output"))
        return Case(desc, ulps=0, note=f"{int(np.prod(sizes))} elements")

    return draw_valid(op, rng, attempt)
