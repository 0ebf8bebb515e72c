"""Harness draws of NONZERO_COORDINATES (rules in this folder's ``__init__``).

What is drawn: every input type but FLOAT64, 2 to 6 dimensions with leading 1s (effective ranks below the
DimensionCount), N from the effective rank to the DimensionCount, the input packed, padded, permuted or broadcast,
sometimes OWNED_BY_DML; the count and coordinates packed or padded. Inputs: the harness's adversarial values with
about half of them replaced by zeros (±0 for floats), so that counts vary. Tolerance: exact (counts and
coordinates are integers).
"""

from __future__ import annotations

import numpy as np

from dmlsim.api.schema import OUTPUT
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import (
    OWNED_BY_DML,
    Case,
    adversarial,
    draw_sizes,
    draw_strides,
    draw_tensor,
    draw_valid,
    tensor,
)
from dmlsim.operators.nonzero_coordinates import INPUT_TYPES
from dmlsim.operators.typed import UINT32


def _sparse(rng: np.random.Generator, sizes: tuple[int, ...], data_type: int) -> np.ndarray:
    values = adversarial(rng, sizes, data_type)
    zero = np.array(-0.0 if values.dtype.kind == "f" else 0).astype(values.dtype)
    return np.where(rng.random(values.shape) < 0.5, zero, values).astype(values.dtype)


def _attempt(op: Operator, rng: np.random.Generator) -> Case:
    data_type = INPUT_TYPES[int(rng.integers(len(INPUT_TYPES)))]
    rank = int(rng.integers(2, 7))
    real = int(rng.integers(1, rank + 1))
    x = [1] * (rank - real) + draw_sizes(rng, real, 40, largest=5)
    effective = rank - next((d for d, s in enumerate(x) if s != 1), rank)
    n = int(rng.integers(max(1, effective), rank + 1))
    count = int(np.prod(x))
    if rng.random() < 0.15:
        x_desc = tensor(data_type, x, draw_strides(rng, x, broadcast=True), flags=OWNED_BY_DML)
    else:
        x_desc = draw_tensor(rng, data_type, x)
    desc = op.desc_cls(InputTensor=x_desc, OutputCountTensor=draw_tensor(rng, UINT32, [1] * rank, role=OUTPUT),
                       OutputCoordinatesTensor=draw_tensor(rng, UINT32, [1] * (rank - 2) + [count, n], role=OUTPUT))
    return Case(desc, fills={"InputTensor": _sparse}, ulps=0.0, ulps16=0.0, note=f"input {x}, N {n}")


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid case of NONZERO_COORDINATES."""
    return draw_valid(op, rng, lambda r: _attempt(op, r))
