"""DirectML operators dmlsim does not implement, picked when the test runs, never named in a test.

Operators keep arriving: a test of what happens to an unimplemented operator (E_NOTIMPL, bindings checked
then refused, a model file's items skipped) takes the first entry of DirectML's schema whose registered
operator is not implemented (and fits the test). Now that every DirectML operator runs, it takes the first
entry that fits and unregisters its operator for that test only (:func:`restore_unregistered`, called by an
autouse fixture of conftest.py, puts it back), so the code paths for unimplemented operators stay tested; a
pytest run in a subprocess gets the same through :func:`unregistering_conftest`. A complete desc
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
from dmlsim.operators import OPERATORS, SCHEMAS, lookup_operator

F32 = dml.DML_TENSOR_DATA_TYPE_FLOAT32
SAMPLE_SIZES = (1, 1, 2, 2)


def unimplemented_schemas(fits: Callable[[OperatorSchema], bool] = lambda schema: True) -> list[OperatorSchema]:
    """DirectML's schema entries (in enum order) whose operator dmlsim does not implement and that ``fits``."""
    return [schema for _, schema in sorted(SCHEMAS.items())
            if not lookup_operator(schema.type).implemented and fits(schema)]


_UNREGISTERED: list[tuple[int, Any]] = []


def an_unimplemented_schema(fits: Callable[[OperatorSchema], bool] = lambda schema: True,
                            what: str = "") -> OperatorSchema:
    """The first unimplemented operator that ``fits``; when dmlsim implements every one, the first operator that
    fits, unregistered until the test ends (as if it had no kernel); skipped, saying ``what`` it needed, only if
    no schema entry fits at all."""
    found = unimplemented_schemas(fits)
    if found:
        return found[0]
    fitting = [schema for _, schema in sorted(SCHEMAS.items()) if fits(schema)]
    if not fitting:
        pytest.skip("no DirectML operator" + (f" {what}" if what else "") + " to test this with")
    schema = fitting[0]
    _UNREGISTERED.append((int(schema.type), OPERATORS.pop(int(schema.type))))
    return schema


def restore_unregistered() -> None:
    """Register again the operators :func:`an_unimplemented_schema` unregistered (after each test)."""
    while _UNREGISTERED:
        key, op = _UNREGISTERED.pop()
        OPERATORS[key] = op


def unregistering_conftest(schema: OperatorSchema) -> str:
    """A conftest.py for a pytest subprocess in which ``schema``'s operator is unregistered, as in this one."""
    return ("from dmlsim.operators import OPERATORS, load_all\n\n"
            f"load_all()\nOPERATORS.pop({int(schema.type)}, None)\n")


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
