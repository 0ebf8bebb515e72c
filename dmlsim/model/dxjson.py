"""Parsed model values written back as plain DxDispatch JSON (what ``dmlsim export`` emits).

Everything is written in the one form DxDispatch's parser reads without any dmlsim leniency: full
enum names, every desc field DirectML needs spelled out (count fields included, as DxDispatch
requires them), optional fields left out rather than ``null``, tensor descs as ``{DataType, Sizes,
...}`` with only the non-default members, nested operator descs as ``{"Type", "Desc"}``, scalar unions
as ``{Member: value}`` for the member the desc's ``*DataType`` reads, and floats as the exact double
of the stored value (``"nan"``/``"inf"``/``"-inf"`` as strings), so no value is rounded twice.
"""

from __future__ import annotations

import dataclasses
import math
from enum import Enum, IntFlag
from typing import Any

import numpy as np

from dmlsim.api.enums import DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE, DML_TENSOR_FLAGS
from dmlsim.api.schema import ARRAY_KINDS, ATTRIBUTE, FieldSpec, desc_fields
from dmlsim.api.structs import DML_OPERATOR_DESC, DML_SCALAR_UNION, DML_TENSOR_DESC
from dmlsim.api.tensor import NUMPY_DTYPE

_T = DML_TENSOR_DATA_TYPE
FLOATS = {_T.DML_TENSOR_DATA_TYPE_FLOAT16, _T.DML_TENSOR_DATA_TYPE_FLOAT32, _T.DML_TENSOR_DATA_TYPE_FLOAT64}
# the DML_SCALAR_UNION member DxDispatch reads for each data type (FLOAT16: its bits, as UInt16)
UNION_MEMBER = {_T.DML_TENSOR_DATA_TYPE_FLOAT16: "UInt16", _T.DML_TENSOR_DATA_TYPE_FLOAT32: "Float32",
                _T.DML_TENSOR_DATA_TYPE_FLOAT64: "Float64", _T.DML_TENSOR_DATA_TYPE_UINT8: "UInt8",
                _T.DML_TENSOR_DATA_TYPE_UINT16: "UInt16", _T.DML_TENSOR_DATA_TYPE_UINT32: "UInt32",
                _T.DML_TENSOR_DATA_TYPE_UINT64: "UInt64", _T.DML_TENSOR_DATA_TYPE_INT8: "Int8",
                _T.DML_TENSOR_DATA_TYPE_INT16: "Int16", _T.DML_TENSOR_DATA_TYPE_INT32: "Int32",
                _T.DML_TENSOR_DATA_TYPE_INT64: "Int64"}


def number(value: Any) -> float | int | str:
    """A JSON number (the exact double of a float), or DxDispatch's ``"nan"``/``"inf"``/``"-inf"``."""
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def values(array: np.ndarray) -> list[float | int | str]:
    """Every element of ``array`` as :func:`number` writes it."""
    return [number(v) for v in array.reshape(-1).tolist()]


def enum_name(enum_cls: type[Enum], value: Any) -> str:
    """The full header name of an enum value (``DML_TENSOR_DATA_TYPE_FLOAT32``)."""
    return enum_cls(int(value)).name


def flag_names(enum_cls: type[IntFlag], value: int) -> list[str]:
    """The full names of the flags set in ``value`` (DxDispatch ORs a list of them)."""
    return [m.name for m in enum_cls if m.value and int(value) & m.value == m.value]  # type: ignore[misc]


def tensor_desc(desc: DML_TENSOR_DESC) -> dict[str, Any]:
    """``{DataType, Sizes, ...}``: members left at DxDispatch's defaults are left out."""
    body = desc.Desc
    out: dict[str, Any] = {"DataType": enum_name(DML_TENSOR_DATA_TYPE, body.DataType),
                           "Sizes": [int(s) for s in body.Sizes]}
    if body.DimensionCount is not None and body.DimensionCount != len(body.Sizes):
        out["DimensionCount"] = int(body.DimensionCount)
    if body.Strides is not None:
        out["Strides"] = [int(s) for s in body.Strides]
    if body.Flags:
        out["Flags"] = flag_names(DML_TENSOR_FLAGS, body.Flags)
    if body.TotalTensorSizeInBytes:
        out["TotalTensorSizeInBytes"] = int(body.TotalTensorSizeInBytes)
    if body.GuaranteedBaseOffsetAlignment:
        out["GuaranteedBaseOffsetAlignment"] = int(body.GuaranteedBaseOffsetAlignment)
    return out


def operator_desc(op_desc: DML_OPERATOR_DESC) -> dict[str, Any]:
    """The fields of ``op_desc.Desc`` (without the operator's type), every non-null one."""
    desc = op_desc.Desc
    specs = {row.name: row.spec for row in desc_fields(type(desc))}
    out: dict[str, Any] = {}
    for f in dataclasses.fields(desc):
        value = getattr(desc, f.name)
        if value is None:
            continue  # a null pointer: DxDispatch leaves an absent optional field null
        spec = specs.get(f.name)
        out[f.name] = int(value) if spec is None else _field(value, spec, desc)
    return out


def nested_operator(op_desc: DML_OPERATOR_DESC) -> dict[str, Any]:
    """A fused activation (or an ``ActivationDescs`` item) as ``{"Type": ..., "Desc": {...}}``."""
    return {"Type": enum_name(DML_OPERATOR_TYPE, op_desc.Type), "Desc": operator_desc(op_desc)}


def _field(value: Any, spec: FieldSpec, desc: Any) -> Any:
    if spec.role != ATTRIBUTE:
        return [tensor_desc(t) for t in value] if spec.array_count else tensor_desc(value)
    return _attribute(value, spec.attr_type, spec, desc)


def _attribute(value: Any, kind: Any, spec: FieldSpec, desc: Any) -> Any:
    if isinstance(kind, type) and issubclass(kind, Enum):
        return enum_name(kind, value)
    if kind in ARRAY_KINDS:
        return [_attribute(item, ARRAY_KINDS[kind], spec, desc) for item in value]
    if kind == "BOOL":
        return bool(value)
    if kind == "FLOAT":
        return number(value)
    if kind == "SCALE_BIAS":
        return {"Scale": number(value.Scale), "Bias": number(value.Bias)}
    if kind == "SIZE_2D":
        return {"Width": int(value.Width), "Height": int(value.Height)}
    if kind == "SCALAR_UNION":
        return scalar_union(value, getattr(desc, spec.data_type_field or "", None))
    if kind == "OPERATOR_DESC":
        return nested_operator(value)
    return int(value)


def scalar_union(value: Any, data_type: Any) -> Any:
    """A DML_SCALAR_UNION as DxDispatch reads it for ``data_type``: a plain number stays a number (read as
    the data type on both sides); a union becomes ``{Member: value}`` of the member that type reads."""
    data_type = _T(int(data_type))
    if not isinstance(value, DML_SCALAR_UNION):  # DxDispatch reads an integer type's number as a JSON integer
        return number(value) if data_type in FLOATS or not float(value).is_integer() else int(value)
    member = UNION_MEMBER[data_type]
    (name, item), = value.members().items()
    if name == "Bytes":  # the union's bytes, read as the member's type
        raw = bytes(item) + bytes(8 - len(item))
        dtype = np.dtype(np.uint16) if member == "UInt16" else NUMPY_DTYPE[data_type]
        item = np.frombuffer(raw[:dtype.itemsize], dtype)[0]
    return {member: number(item)}

