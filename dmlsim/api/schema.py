"""Operator schemas: each desc field marked input tensor / output tensor / attribute, as DirectML's tables do.

An operator desc is a dataclass whose fields carry a :class:`FieldSpec` in their metadata. Binding
order, validation and kernel arguments all come from that one table, so adding an operator means
writing its desc (with these markers), its kernel and its reference function.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from dmlsim.api.enums import DML_TENSOR_DATA_TYPE

INPUT = "input"
OUTPUT = "output"
ATTRIBUTE = "attribute"

_T = DML_TENSOR_DATA_TYPE
FLOAT_TYPES = (_T.DML_TENSOR_DATA_TYPE_FLOAT32, _T.DML_TENSOR_DATA_TYPE_FLOAT16)
FLOAT_TYPES_WITH_64 = (*FLOAT_TYPES, _T.DML_TENSOR_DATA_TYPE_FLOAT64)


@dataclass(frozen=True)
class FieldSpec:
    """What one desc field is: a tensor (input/output) with its allowed types and ranks, or an attribute.

    ``array_count`` names the UINT field giving the length of a tensor-array field (DirectML's
    ``InputCount`` + ``const DML_TENSOR_DESC*`` pattern); such fields bind as BUFFER_ARRAY.
    ``aliases`` (outputs only) names the input this output may share memory with in place.
    ``attr_type`` for attributes: "FLOAT", "UINT", "INT" or an Enum class.
    """

    role: str
    data_types: tuple[int, ...] = ()
    dimension_counts: tuple[int, ...] = (4,)
    optional: bool = False
    array_count: str | None = None
    inplace_eligible: bool = True
    aliases: str | None = None
    attr_type: Any = None


def tensor_input(data_types: Sequence[int] = FLOAT_TYPES, *, dimension_counts: Sequence[int] = (4,),
                 optional: bool = False, array_count: str | None = None,
                 inplace_eligible: bool = True) -> Any:
    """A ``const DML_TENSOR_DESC*`` input field (default None, reported as missing unless optional)."""
    spec = FieldSpec(INPUT, tuple(data_types), tuple(dimension_counts), optional, array_count, inplace_eligible)
    return dataclasses.field(default=None, metadata={"dml": spec})


def tensor_output(data_types: Sequence[int] = FLOAT_TYPES, *, dimension_counts: Sequence[int] = (4,),
                  optional: bool = False, array_count: str | None = None, aliases: str | None = None) -> Any:
    """A ``const DML_TENSOR_DESC*`` output field; ``aliases`` is the input it may overwrite in place."""
    spec = FieldSpec(OUTPUT, tuple(data_types), tuple(dimension_counts), optional, array_count, False, aliases)
    return dataclasses.field(default=None, metadata={"dml": spec})


def attribute(attr_type: Any = "FLOAT", default: Any = dataclasses.MISSING) -> Any:
    """A scalar attribute field (``FLOAT``/``UINT``/``INT`` or an enum); None default means required."""
    spec = FieldSpec(ATTRIBUTE, attr_type=attr_type)
    return dataclasses.field(default=None if default is dataclasses.MISSING else default,
                             metadata={"dml": spec})


@dataclass(frozen=True)
class DescField:
    """One schema row: the desc field's name and its spec."""

    name: str
    spec: FieldSpec

    @property
    def is_tensor(self) -> bool:
        return self.spec.role in (INPUT, OUTPUT)

    @property
    def is_array(self) -> bool:
        return self.spec.array_count is not None


def desc_fields(desc_cls: type) -> list[DescField]:
    """The schema of an operator desc class, in struct field order (count fields excluded)."""
    rows = []
    for f in dataclasses.fields(desc_cls):
        spec = f.metadata.get("dml")
        if spec is not None:
            rows.append(DescField(f.name, spec))
    return rows


def count_fields(desc_cls: type) -> set[str]:
    """Names of the UINT fields that give tensor-array lengths (``TensorCount``)."""
    return {row.spec.array_count for row in desc_fields(desc_cls) if row.spec.array_count}


def infer_array_counts(desc: Any) -> None:
    """Fill each count field left None with the length of the struct's first array that uses it.

    A Python convenience (C callers always give the count): for the ONNX optimizers, TensorCount is
    then the length of InputParametersTensors, so an array of another length is the one reported.
    """
    for row in desc_fields(type(desc)):
        count = row.spec.array_count
        if count and getattr(desc, count, None) is None and isinstance(getattr(desc, row.name), (list, tuple)):
            setattr(desc, count, len(getattr(desc, row.name)))


def attr_type_name(attr_type: Any) -> str:
    if isinstance(attr_type, type) and issubclass(attr_type, Enum):
        return attr_type.__name__
    return str(attr_type)
