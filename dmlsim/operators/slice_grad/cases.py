"""Harness draws of SLICE_GRAD.

What is drawn: every data type, 1 to 8 dimensions; an OutputGradientTensor (packed, padded or permuted, sometimes
with slack) and per dimension a window inside it (offset, a non-empty size), a stride from -3 to 3 but 0 (a
negative one flips the window), and an InputGradientTensor (packed, padded, permuted or broadcast) of the elements
the window reaches or fewer.

Tolerance: none. Elements move bit for bit (ulps 0, integers exact).
"""

from __future__ import annotations

import numpy as np

from dmlsim.api.schema import OUTPUT
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import EVERY_TYPE, Case, draw_sizes, draw_tensor, draw_valid


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid SLICE_GRAD case."""

    def attempt(r: np.random.Generator) -> Case:
        data_type = EVERY_TYPE[int(r.integers(len(EVERY_TYPE)))]
        rank = int(r.integers(1, 9))
        out_sizes = draw_sizes(r, rank, 160)
        offsets, sizes, strides, dy_sizes = [], [], [], []
        for n in out_sizes:
            size = int(r.integers(1, n + 1))
            offset = int(r.integers(0, n - size + 1))
            stride = int(r.choice([-3, -2, -1, 1, 2, 3]))
            reachable = 1 + (size - 1) // abs(stride)
            offsets.append(offset)
            sizes.append(size)
            strides.append(stride)
            dy_sizes.append(reachable if r.random() < 0.8 else int(r.integers(1, reachable + 1)))
        desc = op.desc_cls(draw_tensor(r, data_type, dy_sizes), draw_tensor(r, data_type, out_sizes, role=OUTPUT),
                           rank, offsets, sizes, strides)
        return Case(desc, ulps=0.0, ulps16=0.0, note=f"offsets {offsets}, sizes {sizes}, strides {strides}")

    return draw_valid(op, rng, attempt)
