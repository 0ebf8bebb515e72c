"""Harness draws of GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1, SCATTER_ELEMENTS, SCATTER_ND and ONE_HOT (rules in
this folder's ``__init__``).

What is drawn: every data type of InputTensor/OutputTensor and every index type (INT32, UINT32, INT64, UINT64);
1 to 6 dimensions with real ranks below them (leading 1s); inputs packed, padded, permuted or broadcast (stride
0), sometimes OWNED_BY_DML; outputs packed, padded or permuted, with TotalTensorSizeInBytes slack.
- GATHER: every Axis of the real input, IndexDimensions 0..DimensionCount (outputs longer than DimensionCount
  whose dropped leading sizes are 1 included).
- GATHER_ELEMENTS: every Axis, the indices 1 to 4 long on it.
- GATHER_ND / ND1: real ranks, tuple lengths 1..r - BatchDimensionCount, every batch count.
- SCATTER_ELEMENTS / SCATTER_ND: as their gather twins, with small index ranges so that updates collide.
- ONE_HOT: every Axis, depths 1..6, ValuesTensor of 2..6 elements along any dimension (every type but FLOAT64).
Indices: mostly in range, negative ones for signed types, about one in eight outside ``[-size, size)`` (the
clamp). Tolerance: these operators move bits: every output must equal the reference exactly (``ulps=0``).
"""

from __future__ import annotations

import numpy as np

from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.schema import OUTPUT
from dmlsim.api.tensor import NUMPY_DTYPE
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import (
    EVERY_TYPE,
    OWNED_BY_DML,
    Case,
    Fill,
    draw_sizes,
    draw_strides,
    draw_tensor,
    draw_valid,
    tensor,
)
from dmlsim.operators.typed import FLOAT64, INT32, INT64, SIGNED, UINT32, UINT64

_O = DML_OPERATOR_TYPE
INDEX_TYPES = (INT32, UINT32, INT64, UINT64)


def index_fill(bounds: list[int], along_last: bool) -> Fill:
    """Indices for dimensions of ``bounds`` (one bound, or one per position of the last dimension): in range,
    negative from the end for signed types, one in eight out of range (clamped by the kernel)."""

    def fill(rng: np.random.Generator, sizes: tuple[int, ...], data_type: int) -> np.ndarray:
        bound = np.broadcast_to(np.array(bounds, np.int64) if along_last else np.int64(bounds[0]), sizes)
        signed = data_type in SIGNED
        low = -bound if signed else np.zeros_like(bound)
        values = np.floor(low + rng.random(sizes) * (bound - low)).astype(np.int64)
        wild = rng.random(sizes) < 0.125
        far = rng.choice([-(2**31), -1000, 1000, 2**31 - 1], sizes) if signed else rng.choice([1000, 2**32 - 1], sizes)
        values = np.where(wild, np.where(rng.random(sizes) < 0.5, bound + rng.integers(0, 3, sizes), far), values)
        dtype = NUMPY_DTYPE[data_type]
        info = np.iinfo(dtype)
        return np.clip(values, info.min, info.max).astype(dtype)

    return fill


def _input(rng: np.random.Generator, data_type: int, sizes: list[int]) -> object:
    if rng.random() < 0.15:
        return tensor(data_type, sizes, draw_strides(rng, sizes, broadcast=True), flags=OWNED_BY_DML)
    return draw_tensor(rng, data_type, sizes)


def _right_aligned(entries: list[int], rank: int) -> list[int] | None:
    if len(entries) > rank:
        return entries[len(entries) - rank:] if all(s == 1 for s in entries[:len(entries) - rank]) else None
    return [1] * (rank - len(entries)) + entries


def _attempt(op: Operator, rng: np.random.Generator) -> Case:
    data_type = EVERY_TYPE[int(rng.integers(len(EVERY_TYPE)))]
    index_type = INDEX_TYPES[int(rng.integers(len(INDEX_TYPES)))]
    rank = int(rng.integers(1, 7))
    real = int(rng.integers(1, rank + 1))
    x = [1] * (rank - real) + draw_sizes(rng, real, 60, largest=5)
    attrs: dict[str, int]
    if op.type == _O.DML_OPERATOR_GATHER:
        axis = int(rng.integers(rank - real, rank))
        k = int(rng.integers(0, rank + 1))
        i = [1] * (rank - k) + draw_sizes(rng, k, 12, largest=4)
        out = _right_aligned(x[:axis] + i[rank - k:] + x[axis + 1:], rank)
        attrs, bounds, along = {"Axis": axis, "IndexDimensions": k}, [x[axis]], False
    elif op.type == _O.DML_OPERATOR_GATHER_ELEMENTS:
        axis = int(rng.integers(0, rank))
        i = list(x)
        i[axis] = int(rng.integers(1, 5))
        out, attrs, bounds, along = i, {"Axis": axis}, [x[axis]], False
    else:
        nd1 = op.type == _O.DML_OPERATOR_GATHER_ND1
        q = int(rng.integers(1, rank + 1))
        b = int(rng.integers(0, min(real, q))) if nd1 else 0
        m = int(rng.integers(1, real - b + 1))
        i = [1] * (rank - q) + x[rank - real:rank - real + b] + draw_sizes(rng, q - b - 1, 12, largest=3) + [m]
        if len(i) != rank:
            i = [1] * rank  # q - b - 1 < 0 cannot happen (b < q); kept total for the type checker
        out = _right_aligned(i[rank - q:rank - 1] + x[rank - real + b + m:], rank)
        attrs = {"InputDimensionCount": real, "IndicesDimensionCount": q, **({"BatchDimensionCount": b} if nd1 else {})}
        bounds, along = x[rank - real + b:rank - real + b + m], True
    if out is None:
        out = [7] * (rank + 1)  # a refused desc: draw_valid draws again
    desc = op.desc_cls(InputTensor=_input(rng, data_type, x), IndicesTensor=_input(rng, index_type, i),
                       OutputTensor=draw_tensor(rng, data_type, out, role=OUTPUT), **attrs)
    return Case(desc, fills={"IndicesTensor": index_fill(bounds, along)}, ulps=0.0, ulps16=0.0,
                note=f"{attrs}, input {x}, indices {i}")


def _scatter_attempt(op: Operator, rng: np.random.Generator) -> Case:
    """SCATTER_ELEMENTS (every Axis, indices 1..4 long on it) or SCATTER_ND (real ranks, tuple lengths 1..r);
    indices with repeats (small bounds) so that several updates target one element."""
    data_type = EVERY_TYPE[int(rng.integers(len(EVERY_TYPE)))]
    index_type = INDEX_TYPES[int(rng.integers(len(INDEX_TYPES)))]
    rank = int(rng.integers(1, 7))
    real = int(rng.integers(1, rank + 1))
    x = [1] * (rank - real) + draw_sizes(rng, real, 60, largest=5)
    if op.type == _O.DML_OPERATOR_SCATTER_ELEMENTS:
        axis = int(rng.integers(0, rank))
        i = list(x)
        i[axis] = int(rng.integers(1, 5))
        u, attrs, bounds, along = i, {"Axis": axis}, [x[axis]], False
    else:
        q = int(rng.integers(1, rank + 1))
        m = int(rng.integers(1, real + 1))
        i = [1] * (rank - q) + draw_sizes(rng, q - 1, 12, largest=4) + [m]
        u = _right_aligned(i[rank - q:rank - 1] + x[rank - real + m:], rank) or [7] * (rank + 1)
        attrs = {"InputDimensionCount": real, "IndicesDimensionCount": q}
        bounds, along = x[rank - real:rank - real + m], True
    desc = op.desc_cls(InputTensor=_input(rng, data_type, x), IndicesTensor=_input(rng, index_type, i),
                       UpdatesTensor=_input(rng, data_type, u),
                       OutputTensor=draw_tensor(rng, data_type, x, role=OUTPUT), **attrs)
    return Case(desc, fills={"IndicesTensor": index_fill(bounds, along)}, ulps=0.0, ulps16=0.0,
                note=f"{attrs}, input {x}, indices {i}, updates {u}")


ONE_HOT_TYPES = tuple(t for t in EVERY_TYPE if t != FLOAT64)


def _one_hot_attempt(op: Operator, rng: np.random.Generator) -> Case:
    """ONE_HOT: every Axis, depths 1..6, ValuesTensor of any shape with 2..6 elements (OnValue on any dimension)."""
    data_type = ONE_HOT_TYPES[int(rng.integers(len(ONE_HOT_TYPES)))]
    index_type = INDEX_TYPES[int(rng.integers(len(INDEX_TYPES)))]
    rank = int(rng.integers(1, 7))
    y = draw_sizes(rng, rank, 60, largest=6)
    axis = int(rng.integers(0, rank))
    i = [1 if d == axis else s for d, s in enumerate(y)]
    values = [1] * rank
    values[int(rng.integers(0, rank))] = int(rng.integers(2, 7))
    desc = op.desc_cls(IndicesTensor=_input(rng, index_type, i), ValuesTensor=_input(rng, data_type, values),
                       OutputTensor=draw_tensor(rng, data_type, y, role=OUTPUT), Axis=axis)
    return Case(desc, fills={"IndicesTensor": index_fill([y[axis]], False)}, ulps=0.0, ulps16=0.0,
                note=f"axis {axis}, output {y}, values {values}")


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid case of ``op`` (a gather or scatter member)."""
    if op.type == _O.DML_OPERATOR_ONE_HOT:
        return draw_valid(op, rng, lambda r: _one_hot_attempt(op, r))
    if op.type in (_O.DML_OPERATOR_SCATTER_ELEMENTS, _O.DML_OPERATOR_SCATTER_ND):
        return draw_valid(op, rng, lambda r: _scatter_attempt(op, r))
    return draw_valid(op, rng, lambda r: _attempt(op, r))
