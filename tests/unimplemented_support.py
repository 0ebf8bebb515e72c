"""DirectML operators dmlsim does not implement, picked when the test runs, never named in a test.

Operators keep arriving: a test of what happens to an unimplemented operator (E_NOTIMPL, bindings checked
then refused, a model file's items skipped) takes the first entry of DirectML's schema whose registered
operator is not implemented (and fits the test), and skips, saying why, once none is left. A complete desc
for any such operator comes from :func:`sample_desc`: every field a valid value for DirectML's generated
desc (tensors 4-D FLOAT32 ``{1, 1, 2, 2}``, arrays of one element), which is all an unimplemented
operator's generic validation asks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import dmlsim as dml
from dmlsim.api import directml_schema as S  # noqa: N812 - the generated schema
from dmlsim.api.schema import ATTRIBUTE, INPUT, OUTPUT, DescField, OperatorSchema, count_fields, desc_fields
from dmlsim.operators import SCHEMAS, lookup_operator

F32 = dml.DML_TENSOR_DATA_TYPE_FLOAT32
SAMPLE_SIZES = (1, 1, 2, 2)


def unimplemented_schemas(fits: Callable[[OperatorSchema], bool] = lambda schema: True) -> list[OperatorSchema]:
    """DirectML's schema entries (in enum order) whose operator dmlsim does not implement and that ``fits``."""
    return [schema for _, schema in sorted(SCHEMAS.items())
            if not lookup_operator(schema.type).implemented and fits(schema)]


def an_unimplemented_schema(fits: Callable[[OperatorSchema], bool] = lambda schema: True,
                            what: str = "") -> OperatorSchema:
    """The first unimplemented operator that ``fits``; the test is skipped (saying ``what`` it needed) when
    dmlsim implements every such operator."""
    found = unimplemented_schemas(fits)
    if not found:
        pytest.skip("dmlsim implements every DirectML operator" + (f" {what}" if what else "")
                    + ": no unimplemented operator is left to test this with")
    return found[0]


def name_of(schema: OperatorSchema) -> str:
    """``DML_OPERATOR_...``: the header's name of a schema entry."""
    return dml.DML_OPERATOR_TYPE(schema.type).name


def has_plain_tensors(schema: OperatorSchema) -> bool:
    """At least one input and one output tensor, and no tensor arrays (each tensor one BUFFER binding)."""
    rows = desc_fields(schema.desc_cls)
    roles = {row.spec.role for row in rows}
    return {INPUT, OUTPUT} <= roles and not any(row.is_tensor_array for row in rows)


def tensor(sizes: tuple[int, ...] = SAMPLE_SIZES, data_type: Any = F32) -> dml.DML_TENSOR_DESC:
    return dml.buffer_tensor(data_type, list(sizes))


def sample_value(row: DescField) -> Any:
    """A valid value for one field of any generated desc (tensors 4-D FLOAT32, arrays of one element)."""
    spec = row.spec
    if spec.role != ATTRIBUTE:
        return [tensor()] if spec.array_count else tensor()
    kind = spec.attr_type
    if kind is dml.DML_TENSOR_DATA_TYPE:
        return F32
    if isinstance(kind, type):
        return next(iter(kind))
    relu = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_RELU, S.DML_ACTIVATION_RELU_OPERATOR_DESC())
    return {"FLOAT": 0.5, "UINT": 1, "UINT64": 1, "INT": -1, "BOOL": True, "SCALE_BIAS": dml.DML_SCALE_BIAS(1, 0),
            "SIZE_2D": dml.DML_SIZE_2D(2, 2), "SCALAR_UNION": 1.5, "OPERATOR_DESC": relu,
            "UINT_ARRAY": [1], "INT_ARRAY": [-1], "FLOAT_ARRAY": [0.5], "OPERATOR_DESC_ARRAY": [relu]}[kind]


def sample_desc(schema: OperatorSchema) -> Any:
    """A complete desc of ``schema``'s generated struct: every field given a valid value (counts inferred)."""
    counts = count_fields(schema.desc_cls)
    return schema.desc_cls(**{row.name: sample_value(row)
                              for row in desc_fields(schema.desc_cls) if row.name not in counts})
