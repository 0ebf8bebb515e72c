"""Harness draws of JOIN, SPLIT, SLICE, SLICE1 (and CAST, which keeps the generic same-shape draw).

What is drawn (the rules are in this folder's ``__init__``): every data type, 1 to 8 dimensions, inputs
packed, padded, permuted or broadcast (stride 0), outputs packed, padded or permuted, sometimes with
TotalTensorSizeInBytes slack; a single input sometimes OWNED_BY_DML (elements of JOIN's tensor array never:
dmlsim's operator initializer only takes single tensors).
- JOIN / SPLIT: every Axis, 1 to 5 tensors in the array, each 1 to 3 long on Axis.
- SLICE: per dimension an offset, a size and a stride 1..4, the window anywhere inside the input.
- SLICE1: per dimension a window (offset, size), a stride of ±1..±4 (larger than the window too), and an
  output of any length up to the elements the window reaches.
Tolerance: these operators move bits, so every output must equal the formula exactly (``ulps=0``: only
NaN-for-NaN and the harness's below-the-smallest-normal rule apply).
"""

from __future__ import annotations

import numpy as np

from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.schema import INPUT, OUTPUT
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import (
    EVERY_TYPE,
    OWNED_BY_DML,
    Case,
    draw_same_shape,
    draw_sizes,
    draw_strides,
    draw_tensor,
    draw_valid,
    tensor,
)

_O = DML_OPERATOR_TYPE


def _input(rng: np.random.Generator, data_type: int, sizes: list[int]) -> object:
    """An input tensor with a random layout, OWNED_BY_DML one time in five."""
    if rng.random() < 0.2:
        return tensor(data_type, sizes, draw_strides(rng, sizes, broadcast=True), flags=OWNED_BY_DML)
    return draw_tensor(rng, data_type, sizes)


def _axis_move(op: Operator, rng: np.random.Generator) -> Case:
    """JOIN or SPLIT: the array's tensors are consecutive pieces of the single tensor along Axis."""
    data_type = EVERY_TYPE[int(rng.integers(len(EVERY_TYPE)))]
    rank = int(rng.integers(1, 9))
    axis = int(rng.integers(rank))
    pieces = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(1, 6)))]
    sizes = draw_sizes(rng, rank, 48)
    many = []
    for length in pieces:
        piece = [*sizes[:axis], length, *sizes[axis + 1:]]
        many.append(draw_tensor(rng, data_type, piece, role=OUTPUT if op.type == _O.DML_OPERATOR_SPLIT else INPUT))
    whole = [*sizes[:axis], sum(pieces), *sizes[axis + 1:]]
    if op.type == _O.DML_OPERATOR_JOIN:
        desc = op.desc_cls(len(many), many, draw_tensor(rng, data_type, whole, role=OUTPUT), axis)
    else:
        desc = op.desc_cls(_input(rng, data_type, whole), len(many), many, axis)
    return Case(desc, ulps=0.0, ulps16=0.0, note=f"axis {axis}, {len(many)} tensor(s)")


def _slice(op: Operator, rng: np.random.Generator) -> Case:
    """SLICE or SLICE1: a random window per dimension of a random input."""
    data_type = EVERY_TYPE[int(rng.integers(len(EVERY_TYPE)))]
    rank = int(rng.integers(1, 9))
    extents = draw_sizes(rng, rank, 400, largest=12)
    offsets, sizes, strides, out_sizes = [], [], [], []
    for extent in extents:
        if op.type == _O.DML_OPERATOR_SLICE:
            stride = int(rng.integers(1, 5))
            size = int(rng.integers(1, (extent - 1) // stride + 2))
            offset = int(rng.integers(0, extent - (size - 1) * stride))
            out = size
        else:
            size = int(rng.integers(1, extent + 1))
            offset = int(rng.integers(0, extent - size + 1))
            stride = int(rng.choice([-1, 1])) * int(rng.choice([1, 1, 2, 3, 4]))
            reachable = 1 + (size - 1) // abs(stride)
            out = reachable if rng.random() < 0.6 else int(rng.integers(1, reachable + 1))
        offsets.append(offset)
        sizes.append(size)
        strides.append(stride)
        out_sizes.append(out)
    desc = op.desc_cls(_input(rng, data_type, extents), draw_tensor(rng, data_type, out_sizes, role=OUTPUT),
                       rank, offsets, sizes, strides)
    return Case(desc, ulps=0.0, ulps16=0.0, note=f"window {offsets} {sizes} {strides}")


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid case of ``op`` (CAST: the generic same-shape draw, which covers its type pairs)."""
    if op.type == _O.DML_OPERATOR_CAST:
        return draw_same_shape(op, rng)
    attempt = _axis_move if op.type in (_O.DML_OPERATOR_JOIN, _O.DML_OPERATOR_SPLIT) else _slice
    return draw_valid(op, rng, lambda r: attempt(op, r))
