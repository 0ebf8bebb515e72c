"""Harness draws of the layout operators (PADDING, PADDING1, TILE, SPACE_TO_DEPTH(1), DEPTH_TO_SPACE(1)).

What is drawn (the rules are in this folder's ``__init__``): every data type the operator's table allows, 1 to 8
dimensions, inputs packed, padded, permuted or broadcast (stride 0), sometimes OWNED_BY_DML; outputs packed, padded
or permuted, sometimes with TotalTensorSizeInBytes slack.
- PADDING / PADDING1: every DML_PADDING_MODE; per dimension start and end paddings of 0 to 5 (often larger than the
  dimension: the periodic folds); PADDING's FLOAT value from a list with fractions, negatives, a huge value and
  NaN (its conversion rules), PADDING1's union value an adversarial value of the tensor's type.
- TILE: per dimension 1 to 3 repeats.
- SPACE_TO_DEPTH(1) / DEPTH_TO_SPACE(1): 4-D, every data type, BlockSize 1 to 3, both orders (the 1 versions),
  batch, channels, height and width of 1 to 3 (in block units).
Tolerance: these operators move bits, so every output must equal the formula exactly (``ulps=0``).
"""

from __future__ import annotations

import numpy as np

from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.schema import OUTPUT
from dmlsim.api.structs import DML_SCALAR_UNION
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import (
    EVERY_TYPE,
    OWNED_BY_DML,
    Case,
    adversarial,
    draw_sizes,
    draw_strides,
    draw_tensor,
    draw_valid,
    tensor,
)
from dmlsim.operators.typed import FLOAT64

_O = DML_OPERATOR_TYPE
PADDING_VALUES = (0.0, 1.5, -2.75, 10.6, -0.0, 3e9, -1e40, float("nan"), float("inf"))


def _input(rng: np.random.Generator, data_type: int, sizes: list[int]) -> object:
    """An input tensor with a random layout, OWNED_BY_DML one time in five."""
    if rng.random() < 0.2:
        return tensor(data_type, sizes, draw_strides(rng, sizes, broadcast=True), flags=OWNED_BY_DML)
    return draw_tensor(rng, data_type, sizes)


def _attempt(op: Operator, rng: np.random.Generator) -> Case:
    types = [t for t in EVERY_TYPE if t != FLOAT64 or op.type == _O.DML_OPERATOR_PADDING1]
    data_type = types[int(rng.integers(len(types)))]
    rank = int(rng.integers(1, 9))
    sizes = draw_sizes(rng, rank, 48, largest=5)
    x = _input(rng, data_type, sizes)
    if op.type == _O.DML_OPERATOR_TILE:
        repeats = [int(rng.integers(1, 4)) for _ in sizes]
        out = [s * r for s, r in zip(sizes, repeats, strict=True)]
        if np.prod(out) > 600:
            repeats = [1] * rank
            out = sizes
        desc = op.desc_cls(x, draw_tensor(rng, data_type, out, role=OUTPUT), rank, repeats)
        return Case(desc, ulps=0.0, ulps16=0.0, note=f"repeats {repeats}")
    mode = int(rng.integers(5))
    start = [int(rng.integers(0, 6)) if rng.random() < 0.6 else 0 for _ in sizes]
    end = [int(rng.integers(0, 6)) if rng.random() < 0.6 else 0 for _ in sizes]
    out = [s + a + b for s, a, b in zip(sizes, start, end, strict=True)]
    while np.prod(out) > 600:  # keep the case small: drop the paddings of the most padded dimension
        d = int(np.argmax(np.add(start, end)))
        start[d] = end[d] = 0
        out[d] = sizes[d]
    y = draw_tensor(rng, data_type, out, role=OUTPUT)
    if op.type == _O.DML_OPERATOR_PADDING:
        value = PADDING_VALUES[int(rng.integers(len(PADDING_VALUES)))]
        desc = op.desc_cls(x, y, mode, value, rank, start, end)
    else:
        raw = adversarial(rng, (1,), data_type).reshape(-1)[:1].tobytes()
        desc = op.desc_cls(x, y, mode, data_type, DML_SCALAR_UNION(Bytes=list(raw)), rank, start, end)
    return Case(desc, ulps=0.0, ulps16=0.0, note=f"mode {mode}, start {start}, end {end}")


DEPTH_SPACE = (_O.DML_OPERATOR_SPACE_TO_DEPTH, _O.DML_OPERATOR_SPACE_TO_DEPTH1, _O.DML_OPERATOR_DEPTH_TO_SPACE,
               _O.DML_OPERATOR_DEPTH_TO_SPACE1)


def _depth_space(op: Operator, rng: np.random.Generator) -> Case:
    """A 4-D depth/space pair of a random block size; the input is the depth form for DEPTH_TO_SPACE."""
    data_type = EVERY_TYPE[int(rng.integers(len(EVERY_TYPE)))]
    block = int(rng.integers(1, 4))
    n, c, h, w = (int(rng.integers(1, 4)) for _ in range(4))
    depth, space = [n, c * block * block, h, w], [n, c, h * block, w * block]
    x_sizes, y_sizes = (depth, space) if op.type in DEPTH_SPACE[2:] else (space, depth)
    x, y = _input(rng, data_type, x_sizes), draw_tensor(rng, data_type, y_sizes, role=OUTPUT)
    if op.type in (_O.DML_OPERATOR_SPACE_TO_DEPTH1, _O.DML_OPERATOR_DEPTH_TO_SPACE1):
        order = int(rng.integers(2))
        return Case(op.desc_cls(x, y, block, order), ulps=0.0, ulps16=0.0, note=f"block {block}, order {order}")
    return Case(op.desc_cls(x, y, block), ulps=0.0, ulps16=0.0, note=f"block {block}")


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid case of ``op`` (module docstring)."""
    attempt = _depth_space if op.type in DEPTH_SPACE else _attempt
    return draw_valid(op, rng, lambda r: attempt(op, r))
