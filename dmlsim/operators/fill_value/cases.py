"""Harness draws of FILL_VALUE_CONSTANT and FILL_VALUE_SEQUENCE.

What is drawn: every ValueDataType the operator takes (CONSTANT all eleven, SEQUENCE all but FLOAT64), an
output of 1 to 8 dimensions (packed, padded or permuted, sometimes with slack), and values across each type's
range: for floats ±0, ±inf, NaN, ±the largest finite value, ±the smallest normal and subnormal, and random
magnitudes from 1e-30 to 1e30; for integers the minimum, the maximum, 0, ±1 and random values (a SEQUENCE
wraps). Each value is given one of the ways a desc may carry it: the DML_SCALAR_UNION member its data type
reads (FLOAT16: UInt16 holding the half's bits), the union's Bytes, or a plain number.

Tolerance: CONSTANT writes Value (ulps 0). SEQUENCE computes ``start + i·delta`` in float32 (FLOAT16/FLOAT32)
or double: at most one rounding of ``i·delta`` and one of the sum (none with a fused multiply-add), each
within half an ulp of ``|start| + i·|delta|``, the magnitude bound given per element: 1 ulp of that bound.
FLOAT16 rounds that float32 result once more to half: 1 half ulp (the float32 error is 2^-13 of it).
Integers compare exactly (wrapped modulo the type's width).
"""

from __future__ import annotations

import numpy as np

from dmlsim.api.enums import DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE
from dmlsim.api.schema import OUTPUT
from dmlsim.api.structs import DML_SCALAR_UNION
from dmlsim.api.tensor import NUMPY_DTYPE
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import EVERY_TYPE, FLOAT_TYPES, Case, draw_sizes, draw_tensor, draw_valid
from dmlsim.operators.validation import SCALAR_UNION_MEMBER

FLOAT64, FLOAT16 = DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_FLOAT16


def value_of(rng: np.random.Generator, data_type: int) -> np.generic:
    """A value of ``data_type`` from its extremes, specials and random values."""
    dtype = np.dtype(NUMPY_DTYPE[data_type])
    if data_type in FLOAT_TYPES:
        info = np.finfo(dtype)
        picks = [0.0, -0.0, np.inf, -np.inf, np.nan, float(info.max), -float(info.max), float(info.tiny),
                 -float(info.tiny), float(info.smallest_subnormal), -float(info.smallest_subnormal),
                 rng.normal(0.0, 3.0), rng.choice([-1, 1]) * 10.0 ** rng.uniform(-30, 30)]
        with np.errstate(over="ignore"):
            return dtype.type(picks[int(rng.integers(len(picks)))])
    info = np.iinfo(dtype)
    wide = np.int64 if info.min < 0 else np.uint64
    picks = [int(info.min), int(info.max), 0, 1, -1 if info.min < 0 else 2,
             int(rng.integers(int(info.min), int(info.max), endpoint=True, dtype=wide))]
    return dtype.type(picks[int(rng.integers(len(picks)))])


def scalar(rng: np.random.Generator, data_type: int, value: np.generic) -> DML_SCALAR_UNION | float | int:
    """``value`` as a desc carries it: the union member its data type reads, the union's Bytes, or a number."""
    form = rng.integers(3)
    if form == 0:
        return DML_SCALAR_UNION(Bytes=list(value.tobytes()))
    if form == 1:
        return float(value) if data_type in FLOAT_TYPES else int(value)
    member, member_type = SCALAR_UNION_MEMBER[data_type]
    bits = value.view(member_type) if data_type == FLOAT16 else value
    return DML_SCALAR_UNION(**{member: float(bits) if data_type in FLOAT_TYPES and data_type != FLOAT16 else int(bits)})


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid FILL_VALUE_CONSTANT or FILL_VALUE_SEQUENCE case."""
    sequence = op.type == DML_OPERATOR_TYPE.DML_OPERATOR_FILL_VALUE_SEQUENCE
    types = [t for t in EVERY_TYPE if not (sequence and t == FLOAT64)]

    def attempt(r: np.random.Generator) -> Case:
        data_type = types[int(r.integers(len(types)))]
        sizes = draw_sizes(r, int(r.integers(1, 9)), 120)
        out = draw_tensor(r, data_type, sizes, role=OUTPUT)
        if not sequence:
            value = value_of(r, data_type)
            return Case(op.desc_cls(out, data_type, scalar(r, data_type, value)), ulps=0.0, ulps16=0.0,
                        note=f"Value {value!r}")
        start, delta = value_of(r, data_type), value_of(r, data_type)
        index = np.arange(int(np.prod(sizes)), dtype=np.float64).reshape(sizes)
        with np.errstate(all="ignore"):
            magnitude = abs(np.float64(start)) + index * abs(np.float64(delta))
        return Case(op.desc_cls(out, data_type, scalar(r, data_type, start), scalar(r, data_type, delta)),
                    ulps=1.0, ulps16=1.0, bound=lambda values: {"OutputTensor": magnitude},
                    note=f"ValueStart {start!r}, ValueDelta {delta!r}")

    return draw_valid(op, rng, attempt)
