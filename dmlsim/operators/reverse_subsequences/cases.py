"""Harness draws of REVERSE_SUBSEQUENCES.

What is drawn: every data type of the input/output, UINT32 or UINT64 lengths, 1 to 8 dimensions (packed,
padded, permuted or broadcast inputs, packed/padded/permuted outputs, sometimes with slack), any axis; lengths
from 0 to one past the axis size, or the harness's adversarial integers (0, 1, the type's maximum, ...), which
clamp to the axis size.

Tolerance: none. Elements move bit for bit (ulps 0, integers exact).
"""

from __future__ import annotations

import numpy as np

from dmlsim.api.enums import DML_TENSOR_DATA_TYPE
from dmlsim.api.schema import OUTPUT
from dmlsim.api.tensor import NUMPY_DTYPE
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import EVERY_TYPE, Case, adversarial, draw_sizes, draw_tensor, draw_valid

LENGTH_TYPES = (DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_UINT64)


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid REVERSE_SUBSEQUENCES case."""

    def attempt(r: np.random.Generator) -> Case:
        data_type = EVERY_TYPE[int(r.integers(len(EVERY_TYPE)))]
        length_type = LENGTH_TYPES[int(r.integers(2))]
        rank = int(r.integers(1, 9))
        sizes = draw_sizes(r, rank, 120)
        axis = int(r.integers(rank))
        length_sizes = [1 if d == axis else n for d, n in enumerate(sizes)]
        extent = sizes[axis]

        def lengths(g: np.random.Generator, shape: tuple[int, ...], t: int) -> np.ndarray:
            if g.random() < 0.3:
                return adversarial(g, shape, t)
            return g.integers(0, extent + 2, shape).astype(NUMPY_DTYPE[t])

        desc = op.desc_cls(draw_tensor(r, data_type, sizes), draw_tensor(r, length_type, length_sizes),
                           draw_tensor(r, data_type, sizes, role=OUTPUT), axis)
        return Case(desc, fills={"SequenceLengthsTensor": lengths}, ulps=0.0, ulps16=0.0,
                    note=f"Axis {axis} of {sizes}")

    return draw_valid(op, rng, attempt)
