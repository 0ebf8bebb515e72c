"""Harness draws of DIAGONAL_MATRIX and DIAGONAL_MATRIX1.

What is drawn: every data type, an output of 2 to 4 dimensions (packed, padded or permuted, sometimes with
slack) whose matrices are up to 7 x 7; DIAGONAL_MATRIX1 with and without an InputTensor (its layout drawn
separately: padded, permuted or stride-0 broadcast); spans across the matrix (``Begin`` and ``End`` in
[-8, 8], inverted spans, empty spans, and the INT32 extremes onnxruntime's Trilu passes); values across each
type's range (fill_value's draw: ±0, ±inf, NaN, extremes, subnormals) given the ways a desc carries them;
DIAGONAL_MATRIX's FLOAT Value from the same draw (converted to the output type at CreateOperator).

Tolerance: none. Elements and Value move bit for bit (ulps 0, integers exact).
"""

from __future__ import annotations

import numpy as np

from dmlsim.api.enums import DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE
from dmlsim.api.schema import OUTPUT
from dmlsim.operators.base import Operator
from dmlsim.operators.fill_value.cases import scalar, value_of
from dmlsim.operators.harness import EVERY_TYPE, Case, draw_sizes, draw_tensor, draw_valid

FLOAT32 = DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_FLOAT32
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def bound(rng: np.random.Generator) -> int:
    """A span limit: mostly across a small matrix, sometimes an INT32 extreme."""
    return int(rng.choice([INT32_MIN, INT32_MAX])) if rng.random() < 0.15 else int(rng.integers(-8, 9))


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid DIAGONAL_MATRIX or DIAGONAL_MATRIX1 case."""
    first = op.type == DML_OPERATOR_TYPE.DML_OPERATOR_DIAGONAL_MATRIX

    def attempt(r: np.random.Generator) -> Case:
        data_type = EVERY_TYPE[int(r.integers(len(EVERY_TYPE)))]
        rank = int(r.integers(2, 5))
        sizes = draw_sizes(r, rank, 120)
        out = draw_tensor(r, data_type, sizes, role=OUTPUT)
        if first:
            value = float(value_of(r, FLOAT32))
            offset = bound(r) if r.random() < 0.5 else int(r.integers(-3, 4))
            return Case(op.desc_cls(out, offset, value), ulps=0.0, ulps16=0.0, note=f"Offset {offset}, Value {value}")
        value = value_of(r, data_type)
        x = draw_tensor(r, data_type, sizes) if r.random() < 0.7 else None
        begin, end = bound(r), bound(r)
        desc = op.desc_cls(x, out, data_type, scalar(r, data_type, value), begin, end)
        return Case(desc, ulps=0.0, ulps16=0.0,
                    note=f"Begin {begin}, End {end}, Value {value!r}, {'with' if x else 'no'} input")

    return draw_valid(op, rng, attempt)
