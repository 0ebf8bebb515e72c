"""Operator schemas: each desc field marked input tensor / output tensor / attribute, as DirectML's tables do.

An operator desc is a dataclass whose fields carry a :class:`FieldSpec` in their metadata. Binding
order, validation and kernel arguments all come from that one table, so adding an operator means
writing its desc (with these markers), its kernel and its reference function. Every DirectML
operator's desc is generated from DirectML's own schema into :mod:`dmlsim.api.directml_schema`
(tools/gen_directml_schema.py), with the attribute kinds listed in :data:`ATTRIBUTE_KINDS`.
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
# What a tensor field of a generated desc accepts before an implementation narrows it: every data
# type, 1 to DML_TENSOR_DIMENSION_COUNT_MAX1 (8) dimensions.
ANY_DATA_TYPE = tuple(t for t in _T if t != _T.DML_TENSOR_DATA_TYPE_UNKNOWN)
ANY_DIMENSION_COUNT = tuple(range(1, 9))

# Attribute kinds (DirectML's DML_SCHEMA_FIELD_TYPE for attributes); an Enum class is a UINT enum.
SCALAR_KINDS = ("FLOAT", "UINT", "UINT64", "INT", "INT64", "BOOL")
ARRAY_KINDS = {"UINT_ARRAY": "UINT", "INT_ARRAY": "INT", "FLOAT_ARRAY": "FLOAT",
               "OPERATOR_DESC_ARRAY": "OPERATOR_DESC"}
STRUCT_KINDS = ("SCALE_BIAS", "SIZE_2D", "SCALAR_UNION", "OPERATOR_DESC")
ATTRIBUTE_KINDS = (*SCALAR_KINDS, *ARRAY_KINDS, *STRUCT_KINDS)


@dataclass(frozen=True)
class FieldSpec:
    """What one desc field is: a tensor (input/output) with its allowed types and ranks, or an attribute.

    ``array_count`` names the UINT field giving the length of a tensor-array field (DirectML's
    ``InputCount`` + ``const DML_TENSOR_DESC*`` pattern); such fields bind as BUFFER_ARRAY.
    ``aliases`` (outputs only) names the input this output may share memory with in place.
    ``attr_type`` for attributes: one of :data:`ATTRIBUTE_KINDS` or an Enum class; attribute arrays
    (``UINT_ARRAY``... ``OPERATOR_DESC_ARRAY``) name their count field in ``array_count`` too.
    ``data_type_field`` (``SCALAR_UNION`` only) names the DML_TENSOR_DATA_TYPE field it is read as.
    """

    role: str
    data_types: tuple[int, ...] = ()
    dimension_counts: tuple[int, ...] = (4,)
    optional: bool = False
    array_count: str | None = None
    inplace_eligible: bool = True
    aliases: str | None = None
    attr_type: Any = None
    data_type_field: str | None = None


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


def attribute(attr_type: Any = "FLOAT", default: Any = dataclasses.MISSING, *, optional: bool = False,
              array_count: str | None = None, data_type_field: str | None = None) -> Any:
    """An attribute field of a kind in :data:`ATTRIBUTE_KINDS` or an enum; a None value is reported as
    missing unless ``optional`` (a null ``DML_SCALE_BIAS*``, ``FusedActivation``...)."""
    if not (isinstance(attr_type, type) and issubclass(attr_type, Enum)) and attr_type not in ATTRIBUTE_KINDS:
        raise ValueError(f"unknown attribute kind {attr_type!r}")
    if (array_count is not None) != (attr_type in ARRAY_KINDS):
        raise ValueError(f"an attribute of kind {attr_type!r} {'needs' if array_count is None else 'has no'} "
                         "array_count")
    spec = FieldSpec(ATTRIBUTE, optional=optional, array_count=array_count, attr_type=attr_type,
                     data_type_field=data_type_field)
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
        """A tensor array or an attribute array (both sized by the field ``spec.array_count``)."""
        return self.spec.array_count is not None

    @property
    def is_tensor_array(self) -> bool:
        return self.is_tensor and self.is_array


def desc_fields(desc_cls: type) -> list[DescField]:
    """The schema of an operator desc class, in struct field order (count fields excluded); read once per
    class (a model file may create ten thousand operators), a new list each call."""
    rows = _DESC_FIELDS.get(desc_cls)
    if rows is None:
        rows = _DESC_FIELDS[desc_cls] = tuple(DescField(f.name, f.metadata["dml"]) for f in dataclasses.fields(desc_cls)
                                              if f.metadata.get("dml") is not None)
    return list(rows)


_DESC_FIELDS: dict[type, tuple[DescField, ...]] = {}


def count_fields(desc_cls: type) -> set[str]:
    """Names of the UINT fields that give array lengths (``TensorCount``, ``DimensionCount``, ``AxisCount``)."""
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


class GeneratedDesc:
    """Base of the generated DirectML descs: count fields left None are inferred after construction."""

    def __post_init__(self) -> None:
        infer_array_counts(self)


@dataclass(frozen=True)
class OperatorSchema:
    """One DirectML operator: its DML_OPERATOR_TYPE, desc struct, feature level and in-place support."""

    type: int
    desc_cls: type
    feature_level: int
    supports_in_place: bool
