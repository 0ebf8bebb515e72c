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
NaN-for-NaN and the harness's below-the-smallest-normal rule apply). CAST keeps the generic draw (every type pair,
ranks 1-8, random layouts) with float inputs up to 1e40 in magnitude and half an ulp: it rounds once.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.schema import INPUT, OUTPUT
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import (
    EVERY_TYPE,
    FLOAT_TYPES,
    OWNED_BY_DML,
    Case,
    adversarial,
    draw_same_shape,
    draw_sizes,
    draw_strides,
    draw_tensor,
    draw_valid,
    tensor,
)
from dmlsim.operators.typed import FLOAT16, FLOAT64

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


def _wide(rng: np.random.Generator, sizes: tuple[int, ...], data_type: int) -> np.ndarray:
    """CAST's input: adversarial values; for floats, one in three of magnitude up to 1e40 (saturating conversions
    to integers, overflow to infinity) and one in five just off a FLOAT16 half-way point (FLOAT64 by 2^-20 of a
    half ulp: rounding to float first lands on the half-way point, and rounding that to half goes the wrong way)."""
    values = adversarial(rng, sizes, data_type)
    if data_type in FLOAT_TYPES and data_type != FLOAT16:
        shape = values.shape
        big = rng.choice([-1.0, 1.0], shape) * 10.0 ** rng.uniform(0, 40, shape)
        half = rng.normal(0, 1000, shape).astype(np.float16)
        step = np.spacing(np.abs(half)).astype(np.float64)
        off = np.where(rng.random(shape) < 0.5, -1.0, 1.0) * step * (2.0**-20 if data_type == FLOAT64 else 2.0**-12)
        near = half.astype(np.float64) + np.sign(half) * step / 2 + off
        pick = rng.random(shape)
        with np.errstate(over="ignore"):
            values = np.where(pick < 1 / 3, big.astype(values.dtype), np.where(pick < 8 / 15, near, values))
    return values.astype(values.dtype)


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid case of ``op`` (CAST: the generic same-shape draw, which covers its type pairs, with wider values
    and its own tolerance: a conversion rounds once, to nearest even, so half an ulp)."""
    if op.type == _O.DML_OPERATOR_CAST:
        return dataclasses.replace(draw_same_shape(op, rng), fills={"InputTensor": _wide}, ulps=0.5, ulps16=0.5)
    attempt = _axis_move if op.type in (_O.DML_OPERATOR_JOIN, _O.DML_OPERATOR_SPLIT) else _slice
    return draw_valid(op, rng, lambda r: attempt(op, r))
