"""Harness draws of FOLD and UNFOLD.

What is drawn: 1 to 3 spatial dimensions (sizes 1 to 5), WindowSizes 1 to 3, Strides and Dilations 1 to 2,
Start/EndPadding 0 to 2 (the end padding grown until a window fits), N and C of 1 or 2; the columns tensor
sometimes with a leading 1 (the same-DimensionCount reading); every data type for UNFOLD, FLOAT32/FLOAT16 for FOLD;
layouts packed, padded, permuted or (inputs) broadcast, sometimes with slack.

Tolerance: UNFOLD moves bits (ulps 0). FOLD sums at most prod(WindowSizes) <= 27 terms in float32: that many ulps
of the sum of their magnitudes (the bound, given per element), 1 half ulp after FLOAT16's rounding plus the
float32 error (27 * 2^-24 relative, far below a half ulp of 2^-11).
"""

from __future__ import annotations

import numpy as np

from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.schema import OUTPUT
from dmlsim.operators.base import Operator
from dmlsim.operators.fold.reference import blocks_per_dimension, fold
from dmlsim.operators.harness import EVERY_TYPE, FLOAT_TYPES, Case, draw_tensor, draw_valid

FOLD_TYPES = FLOAT_TYPES[:2]  # FLOAT32, FLOAT16


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid FOLD or UNFOLD case."""
    folding = op.type == DML_OPERATOR_TYPE.DML_OPERATOR_FOLD

    def attempt(r: np.random.Generator) -> Case:
        dims = int(r.integers(1, 4))
        spatial = [int(r.integers(1, 6)) for _ in range(dims)]
        window = [int(r.integers(1, 4)) for _ in range(dims)]
        strides = [int(r.integers(1, 3)) for _ in range(dims)]
        dilations = [int(r.integers(1, 3)) for _ in range(dims)]
        start = [int(r.integers(0, 3)) for _ in range(dims)]
        end = [int(r.integers(0, 3)) for _ in range(dims)]
        for d in range(dims):  # grow the end padding until a window fits
            end[d] += max(0, dilations[d] * (window[d] - 1) + 1 - (spatial[d] + start[d] + end[d]))
        blocks = blocks_per_dimension(spatial, window, strides, dilations, start, end)
        n, c = int(r.integers(1, 3)), int(r.integers(1, 3))
        types = FOLD_TYPES if folding else EVERY_TYPE
        data_type = types[int(r.integers(len(types)))]
        image = [n, c, *spatial]
        columns = [n, c * int(np.prod(window)), int(np.prod(blocks))]
        if r.random() < 0.2:
            columns = [1, *columns]
        if folding:
            x, y = draw_tensor(r, data_type, columns), draw_tensor(r, data_type, image, role=OUTPUT)
        else:
            x, y = draw_tensor(r, data_type, image), draw_tensor(r, data_type, columns, role=OUTPUT)
        desc = op.desc_cls(x, y, dims, window, strides, dilations, start, end)
        note = f"image {image}, window {window}, strides {strides}, dilations {dilations}, pads {start}/{end}"
        if not folding:
            return Case(desc, ulps=0.0, ulps16=0.0, note=note)

        def bound(inputs: dict) -> dict:
            magnitudes = np.abs(np.asarray(inputs["InputTensor"], np.float64)).reshape(columns[-3:])
            return {"OutputTensor": fold(magnitudes, spatial, window, strides, dilations, start, end)}

        return Case(desc, ulps=float(np.prod(window)), ulps16=1.0, bound=bound, note=note)

    return draw_valid(op, rng, attempt)
