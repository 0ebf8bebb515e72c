"""Harness draws of TOP_K and TOP_K1 (rules in this folder's ``__init__``).

What is drawn: every value type (FLOAT32, FLOAT16, the 8-64-bit integers), both index types, 1 to 6 dimensions,
every Axis, K from 1 to the sequence length, both AxisDirections (TOP_K1); the input packed, padded, permuted or
broadcast (a broadcast sequence is all ties), sometimes OWNED_BY_DML; outputs packed, padded or permuted. The
harness's adversarial values bring NaN, ±0, ±inf and repeated values (ties). Tolerance: values are moved and indices
counted, so every output must equal the reference exactly (``ulps=0``).
"""

from __future__ import annotations

import numpy as np

from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.schema import OUTPUT
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import OWNED_BY_DML, Case, draw_sizes, draw_strides, draw_tensor, draw_valid, tensor
from dmlsim.operators.top_k import INDEX_TYPES, VALUE_TYPES


def _attempt(op: Operator, rng: np.random.Generator) -> Case:
    data_type = VALUE_TYPES[int(rng.integers(len(VALUE_TYPES)))]
    index_type = INDEX_TYPES[int(rng.integers(len(INDEX_TYPES)))]
    rank = int(rng.integers(1, 7))
    x = draw_sizes(rng, rank, 80, largest=8)
    axis = int(rng.integers(0, rank))
    k = int(rng.integers(1, x[axis] + 1))
    out = [k if d == axis else s for d, s in enumerate(x)]
    if rng.random() < 0.15:
        x_desc = tensor(data_type, x, draw_strides(rng, x, broadcast=True), flags=OWNED_BY_DML)
    else:
        x_desc = draw_tensor(rng, data_type, x)
    fields = {"InputTensor": x_desc, "OutputValueTensor": draw_tensor(rng, data_type, out, role=OUTPUT),
              "OutputIndexTensor": draw_tensor(rng, index_type, out, role=OUTPUT), "Axis": axis, "K": k}
    if op.type == DML_OPERATOR_TYPE.DML_OPERATOR_TOP_K1:
        fields["AxisDirection"] = int(rng.integers(0, 2))
    return Case(op.desc_cls(**fields), ulps=0.0, ulps16=0.0, note=f"axis {axis}, K {k}, input {x}")


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid case of TOP_K or TOP_K1."""
    return draw_valid(op, rng, lambda r: _attempt(op, r))
