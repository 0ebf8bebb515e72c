"""Generic, schema-driven validation of operator descs (CreateOperator's checks).

Everything that is the same for every operator lives here: each tensor desc, tensor-array counts,
attribute kinds and ranges, all problems reported at once; the operator's own cross-field rules
(:meth:`dmlsim.operators.base.Operator.check`) run after them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import Enum
from typing import Any

import numpy as np

from dmlsim.api.errors import E_INVALIDARG, DMLError, Problems
from dmlsim.api.schema import ATTRIBUTE, OUTPUT, DescField, attr_type_name
from dmlsim.api.structs import DML_OPERATOR_DESC
from dmlsim.api.tensor import UINT32_MAX, TensorLayout, validate_tensor_desc
from dmlsim.operators import operator_for
from dmlsim.operators.base import ValidatedDesc


def validate_operator_desc(op_desc: DML_OPERATOR_DESC) -> ValidatedDesc:
    """Validate a ``DML_OPERATOR_DESC`` completely; raise one DMLError listing every violation."""
    if not isinstance(op_desc, DML_OPERATOR_DESC):
        raise DMLError(E_INVALIDARG, f"CreateOperator needs a DML_OPERATOR_DESC, got {type(op_desc).__name__}")
    op = operator_for(op_desc.Type)
    desc = op_desc.Desc
    struct = op.desc_cls.__name__
    if not isinstance(desc, op.desc_cls):
        raise DMLError(E_INVALIDARG, f"DML_OPERATOR_DESC.Desc for {op.name} must be a {struct}, "
                                     f"got {type(desc).__name__}")
    problems = Problems()
    v = ValidatedDesc(op, desc)
    for row in op.fields():
        where = f"{struct}.{row.name}"
        value = getattr(desc, row.name)
        if row.spec.role == ATTRIBUTE:
            v.attrs[row.name] = _coerce_attribute(value, row, where, problems)
        elif row.is_array:
            v.tensors[row.name] = _validate_tensor_array(desc, row, where, problems)
        elif value is None:
            if not row.spec.optional:
                problems.add(f"{where} must not be null")
            v.tensors[row.name] = None
        else:
            v.tensors[row.name] = validate_tensor_desc(
                value, where, problems, data_types=row.spec.data_types,
                dimension_counts=row.spec.dimension_counts, is_output=row.spec.role == OUTPUT)
    if not problems:
        op.check(v, problems)
    problems.raise_if_any(f"CreateOperator({op.name})")
    return v


def _validate_tensor_array(desc: Any, row: DescField, where: str, problems: Problems) -> list[TensorLayout]:
    count_name = row.spec.array_count
    count = getattr(desc, count_name)
    items = getattr(desc, row.name)
    struct = type(desc).__name__
    if not isinstance(count, (int, np.integer)) or isinstance(count, bool) or not 1 <= count <= UINT32_MAX:
        problems.add(f"{struct}.{count_name} must be a UINT ≥ 1, got {count!r}")
        return []
    if items is None:
        problems.add(f"{where} must not be null (an array of {count_name} tensor descs)")
        return []
    if not isinstance(items, Sequence) or len(items) != count:
        got = len(items) if isinstance(items, Sequence) else type(items).__name__
        problems.add(f"{where} must hold {count_name} ({count}) tensor descs, got {got}")
        return []
    layouts = []
    for i, item in enumerate(items):
        layout = validate_tensor_desc(item, f"{where}[{i}]", problems, data_types=row.spec.data_types,
                                      dimension_counts=row.spec.dimension_counts,
                                      is_output=row.spec.role == OUTPUT)
        layouts.append(layout)
    return layouts


def _coerce_attribute(value: Any, row: DescField, where: str, problems: Problems) -> Any:
    kind = row.spec.attr_type
    if value is None:
        problems.add(f"{where} must be given ({attr_type_name(kind)})")
        return None
    if isinstance(kind, type) and issubclass(kind, Enum):
        try:
            return kind(value)
        except ValueError:
            problems.add(f"{where} {value!r} is not a {kind.__name__} "
                         f"({', '.join(f'{m.name}={m.value}' for m in kind)})")
            return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        problems.add(f"{where} must be a {kind}, got {type(value).__name__} {value!r}")
        return None
    if kind == "FLOAT":
        if math.isfinite(value) and abs(value) > float(np.finfo(np.float32).max):
            problems.add(f"{where} {value!r} does not fit a FLOAT (float32)")
            return None
        return np.float32(value)
    bounds = {"UINT": (0, UINT32_MAX), "INT": (-(2**31), 2**31 - 1),
              "UINT64": (0, 2**64 - 1), "INT64": (-(2**63), 2**63 - 1)}[kind]
    if float(value) != int(value) or not bounds[0] <= int(value) <= bounds[1]:
        problems.add(f"{where} must be a {kind} in [{bounds[0]}, {bounds[1]}], got {value!r}")
        return None
    return int(value)
