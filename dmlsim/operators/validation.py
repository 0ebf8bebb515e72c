"""Generic, schema-driven validation of operator descs (CreateOperator's checks).

Everything that is the same for every operator lives here: each tensor desc, tensor and attribute
arrays against their count fields, attribute kinds and ranges (FLOAT, UINT, UINT64, INT, BOOL, enums,
DML_SCALE_BIAS, DML_SIZE_2D, DML_SCALAR_UNION read as its data-type field says), nested operator descs
(fused activations and ``ActivationDescs``, validated recursively), all problems reported at once.
The operator's own cross-field rules (:meth:`dmlsim.operators.base.Operator.check`) run after them.

Every DirectML operator is checked this way, implemented or not: an operator dmlsim has no kernel for
is refused with E_NOTIMPL only once its desc passed every check (an invalid desc is E_INVALIDARG, as
it would be on DirectML).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from enum import Enum
from typing import Any

import numpy as np

from dmlsim.api.arguments import as_enum, is_integer, is_number, is_whole, shown
from dmlsim.api.directml_schema import FUSED_ACTIVATION_TYPES
from dmlsim.api.enums import DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE
from dmlsim.api.errors import E_INVALIDARG, E_NOTIMPL, DMLError, Problems
from dmlsim.api.schema import ARRAY_KINDS, ATTRIBUTE, OUTPUT, DescField, attr_type_name, desc_fields
from dmlsim.api.structs import DML_OPERATOR_DESC, DML_SCALAR_UNION, DML_SCALE_BIAS, DML_SIZE_2D
from dmlsim.api.tensor import UINT32_MAX, TensorLayout, data_type_name, validate_tensor_desc
from dmlsim.operators import implemented_names, lookup_operator
from dmlsim.operators.base import Operator, ValidatedDesc

_T = DML_TENSOR_DATA_TYPE
FLOAT32_MAX = float(np.finfo(np.float32).max)
INTEGER_BOUNDS = {"UINT": (0, UINT32_MAX), "INT": (-(2**31), 2**31 - 1), "UINT64": (0, 2**64 - 1),
                  "INT64": (-(2**63), 2**63 - 1)}
# The DML_SCALAR_UNION member a data type is read from, and that member's numpy type.
SCALAR_UNION_MEMBER = {
    _T.DML_TENSOR_DATA_TYPE_FLOAT32: ("Float32", np.float32), _T.DML_TENSOR_DATA_TYPE_FLOAT16: ("UInt16", np.uint16),
    _T.DML_TENSOR_DATA_TYPE_FLOAT64: ("Float64", np.float64), _T.DML_TENSOR_DATA_TYPE_UINT8: ("UInt8", np.uint8),
    _T.DML_TENSOR_DATA_TYPE_UINT16: ("UInt16", np.uint16), _T.DML_TENSOR_DATA_TYPE_UINT32: ("UInt32", np.uint32),
    _T.DML_TENSOR_DATA_TYPE_UINT64: ("UInt64", np.uint64), _T.DML_TENSOR_DATA_TYPE_INT8: ("Int8", np.int8),
    _T.DML_TENSOR_DATA_TYPE_INT16: ("Int16", np.int16), _T.DML_TENSOR_DATA_TYPE_INT32: ("Int32", np.int32),
    _T.DML_TENSOR_DATA_TYPE_INT64: ("Int64", np.int64),
}


def validate_operator_desc(op_desc: DML_OPERATOR_DESC, *, allow_unimplemented: bool = False) -> ValidatedDesc:
    """Validate a ``DML_OPERATOR_DESC`` completely; raise one DMLError listing every violation.

    A valid desc of a DirectML operator dmlsim does not implement raises E_NOTIMPL naming it, unless
    ``allow_unimplemented`` (checking tools: the result can be bound, never executed).
    """
    if not isinstance(op_desc, DML_OPERATOR_DESC):
        raise DMLError(E_INVALIDARG, f"CreateOperator needs a DML_OPERATOR_DESC, got {type(op_desc).__name__}")
    op = lookup_operator(op_desc.Type)
    desc = _as_desc_of(op, op_desc.Desc, "DML_OPERATOR_DESC.Desc")
    problems = Problems()
    v = validate_fields(op, desc, type(desc).__name__, problems)
    if not problems:
        _refuse_sub_byte_types(op, v, problems)
    if not problems:
        op.check(v, problems)
    what = f"CreateOperator({op.name})" if op.implemented else f"CreateOperator({op.name}, not implemented by dmlsim)"
    problems.raise_if_any(what)
    if not op.implemented and not allow_unimplemented:
        raise DMLError(E_NOTIMPL, f"DML_OPERATOR_DESC.Type {op.name} is not implemented by dmlsim (its "
                                  f"{type(desc).__name__} was checked and is valid; implemented: "
                                  f"{', '.join(implemented_names())})")
    return v


def _refuse_sub_byte_types(op: Operator, v: ValidatedDesc, problems: Problems) -> None:
    """DML_FEATURE_LEVEL_6_3 gave the 4-bit types (UINT4, INT4) to DML_OPERATOR_QUANTIZE and DEQUANTIZE only: any
    other operator refuses them here, with the usual "DataType X is not supported" refusal, whatever its own
    ``check`` lists (its kernels address whole bytes). An operator taking them sets ``Operator.sub_byte_types``."""
    if op.sub_byte_types:
        return
    for name, layout in v.tensors.items():
        for i, item in enumerate(layout if isinstance(layout, list) else [layout]):
            if isinstance(item, TensorLayout) and item.sub_byte:
                where = f"{name}[{i}]" if isinstance(layout, list) else name
                problems.add(f"{v.struct_name}.{where}.DataType {data_type_name(item.data_type)} is not supported by "
                             f"{op.name} (feature level 6_3 gave INT4/UINT4 to DML_OPERATOR_QUANTIZE and "
                             "DML_OPERATOR_DEQUANTIZE only)")


def _as_desc_of(op: Operator, desc: Any, where: str) -> Any:
    """``desc`` as an instance of ``op.desc_cls``: a generated desc of an implemented operator (the same
    struct, field for field) is converted to the operator's own desc class."""
    struct = op.desc_cls.__name__
    if isinstance(desc, op.desc_cls):
        return desc
    if dataclasses.is_dataclass(desc) and type(desc).__name__ == struct:
        names = [f.name for f in dataclasses.fields(desc)]
        if names == [f.name for f in dataclasses.fields(op.desc_cls)]:
            return op.desc_cls(**{name: getattr(desc, name) for name in names})
    raise DMLError(E_INVALIDARG, f"{where} for {op.name} must be a {struct}, got {type(desc).__name__}")


def validate_fields(op: Operator, desc: Any, struct: str, problems: Problems, *, fused: bool = False
                    ) -> ValidatedDesc:
    """Check every field of ``desc`` (named ``struct.Field`` in messages) against ``op``'s schema.

    ``fused``: the desc is a fused activation (or an RNN activation), whose tensor fields must be null.
    """
    v = ValidatedDesc(op, desc)
    for row in op.fields():
        where = f"{struct}.{row.name}"
        value = getattr(desc, row.name)
        if row.spec.role == ATTRIBUTE:
            v.attrs[row.name] = _check_attribute(desc, row, where, struct, problems)
        elif fused:
            if value is not None:
                problems.add(f"{where} must be null: a fused activation's tensors are those of the operator "
                             "it is fused into")
            v.tensors[row.name] = None
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
    _check_fused_output_types(v, struct, problems)
    return v


def _check_fused_output_types(v: ValidatedDesc, struct: str, problems: Problems) -> None:
    """A fused activation may be used only when the output data type is FLOAT32 or FLOAT16."""
    if v.attrs.get("FusedActivation") is None:
        return
    for row in v.operator.output_fields:
        layout = v.tensors.get(row.name)
        if isinstance(layout, TensorLayout) and layout.data_type not in (_T.DML_TENSOR_DATA_TYPE_FLOAT32,
                                                                        _T.DML_TENSOR_DATA_TYPE_FLOAT16):
            problems.add(f"{struct}.FusedActivation needs a FLOAT32 or FLOAT16 output, but {struct}.{row.name}"
                         f".DataType is {data_type_name(layout.data_type)}")


def _count(desc: Any, row: DescField, where: str, problems: Problems, minimum: int) -> int | None:
    """The value of the count field sizing array ``row``; None (and a problem) when it is unusable.

    A count left None that is an attribute of the schema is reported as missing by its own check; the
    array is then reported only if it is missing too.
    """
    count_name = row.spec.array_count
    struct = type(desc).__name__
    count = getattr(desc, count_name, None)
    if count is None and any(r.name == count_name for r in desc_fields(type(desc))):
        if getattr(desc, row.name) is None and not row.spec.optional:
            problems.add(f"{where} must not be null (an array of {count_name} elements)")
        return None
    if not is_integer(count) or not minimum <= count <= UINT32_MAX:
        problems.add(f"{struct}.{count_name} must be a UINT ≥ {minimum}, got {shown(count)}")
        return None
    return int(count)


def _validate_tensor_array(desc: Any, row: DescField, where: str, problems: Problems) -> list[TensorLayout]:
    count_name = row.spec.array_count
    count = _count(desc, row, where, problems, 1)
    items = getattr(desc, row.name)
    if count is None:
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


def _check_attribute(desc: Any, row: DescField, where: str, struct: str, problems: Problems) -> Any:
    """The attribute's value, coerced to what the C struct holds (float32, int, enum member...)."""
    kind = row.spec.attr_type
    value = getattr(desc, row.name)
    if kind in ARRAY_KINDS:
        return _check_array(desc, row, where, struct, problems)
    if value is None:
        if not row.spec.optional:
            problems.add(f"{where} must be given ({attr_type_name(kind)})")
        return None
    if kind == "SCALAR_UNION":
        return _check_scalar_union(desc, row, where, struct, problems)
    if kind == "OPERATOR_DESC":
        return _check_nested_desc(value, where, problems)
    return check_value(value, kind, where, problems)


def check_value(value: Any, kind: Any, where: str, problems: Problems) -> Any:
    """One value of a scalar kind, an enum, DML_SCALE_BIAS or DML_SIZE_2D; None (and a problem) if invalid."""
    if isinstance(kind, type) and issubclass(kind, Enum):
        member = as_enum(value, kind)
        if member is None:
            problems.add(f"{where} {shown(value)} is not a {kind.__name__} "
                         f"({', '.join(f'{m.name}={m.value}' for m in kind)})")
        return member
    if kind == "SCALE_BIAS":
        if not isinstance(value, DML_SCALE_BIAS):
            problems.add(f"{where} must be a DML_SCALE_BIAS (or null), got {type(value).__name__}")
            return None
        scale, bias = (check_value(getattr(value, m), "FLOAT", f"{where}.{m}", problems) for m in ("Scale", "Bias"))
        return None if scale is None or bias is None else DML_SCALE_BIAS(scale, bias)
    if kind == "SIZE_2D":
        if not isinstance(value, DML_SIZE_2D):
            problems.add(f"{where} must be a DML_SIZE_2D, got {type(value).__name__}")
            return None
        width, height = (check_value(getattr(value, m), "UINT", f"{where}.{m}", problems) for m in ("Width", "Height"))
        return None if width is None or height is None else DML_SIZE_2D(width, height)
    if kind == "BOOL":
        if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer)) and value in (0, 1)):
            return bool(value)
        problems.add(f"{where} must be a BOOL (true/false, 0/1), got {shown(value)}")
        return None
    if not is_number(value):
        problems.add(f"{where} must be a {kind}, got {type(value).__name__} {shown(value)}")
        return None
    if kind == "FLOAT":
        if not _fits_float(value, FLOAT32_MAX):
            problems.add(f"{where} {shown(value)} does not fit a FLOAT (float32)")
            return None
        return np.float32(value)
    low, high = INTEGER_BOUNDS[kind]
    if not is_whole(value) or not low <= int(value) <= high:
        problems.add(f"{where} must be a {kind} in [{low}, {high}], got {shown(value)}")
        return None
    return int(value)


def _check_array(desc: Any, row: DescField, where: str, struct: str, problems: Problems) -> list[Any] | None:
    """A UINT/INT/FLOAT array or an array of operator descs, against its count field."""
    kind = row.spec.attr_type
    element = ARRAY_KINDS[kind]
    count_name = row.spec.array_count
    count = _count(desc, row, where, problems, 1 if element == "OPERATOR_DESC" else 0)
    items = getattr(desc, row.name)
    if count is None:
        return None
    if items is None:
        if count:
            problems.add(f"{where} must not be null ({count_name} is {count})")
        return None if count else []
    if isinstance(items, np.ndarray):
        items = items.tolist()
    if not isinstance(items, Sequence) or isinstance(items, (str, bytes)):
        problems.add(f"{where} must be an array of {count_name} {element} values, got {type(items).__name__}")
        return None
    if len(items) != count:
        what = "operator descs" if element == "OPERATOR_DESC" else "values"
        problems.add(f"{where} must hold {count_name} ({count}) {what}, got {len(items)}")
        return None
    if element == "OPERATOR_DESC":
        return [_check_nested_desc(item, f"{where}[{i}]", problems) for i, item in enumerate(items)]
    values = [check_value(item, element, f"{where}[{i}]", problems) for i, item in enumerate(items)]
    return None if any(v is None for v in values) else values


def _check_nested_desc(value: Any, where: str, problems: Problems) -> ValidatedDesc | None:
    """A fused activation (or RNN activation): an element-wise activation desc whose tensors are null."""
    if not isinstance(value, DML_OPERATOR_DESC):
        problems.add(f"{where} must be a DML_OPERATOR_DESC (an activation), got {type(value).__name__}")
        return None
    try:
        op = lookup_operator(value.Type)
    except DMLError:
        op = None
    if op is None or int(op.type) not in FUSED_ACTIVATION_TYPES:
        name = DML_OPERATOR_TYPE(op.type).name if op is not None else repr(value.Type)
        allowed = ", ".join(n.removeprefix("DML_OPERATOR_") for n in fused_activation_names())
        problems.add(f"{where}.Type {name} cannot be fused: it must be one of the element-wise activations "
                     f"({allowed})")
        return None
    try:
        desc = _as_desc_of(op, value.Desc, f"{where}.Desc")
    except DMLError as exc:
        problems.add(exc.problems[0].split(": ", 1)[-1] if exc.problems else str(exc))
        return None
    nested = validate_fields(op, desc, f"{where}.Desc", problems, fused=True)
    op.check_fused(nested, f"{where}.Desc", problems)
    return nested


def _check_scalar_union(desc: Any, row: DescField, where: str, struct: str, problems: Problems) -> Any:
    """A DML_SCALAR_UNION (or a plain number) read as the data type of its ``*DataType`` field.

    Returns the value as a numpy scalar of that data type (FLOAT16: the half whose bits UInt16 holds).
    """
    value = getattr(desc, row.name)
    type_field = row.spec.data_type_field
    raw_type = getattr(desc, type_field, None) if type_field else None
    data_type = as_enum(raw_type, _T)
    if data_type is None:
        return None  # the data-type field itself is reported
    if data_type not in SCALAR_UNION_MEMBER:
        problems.add(f"{where} cannot be read: {struct}.{type_field} is {data_type.name}")
        return None
    member, member_type = SCALAR_UNION_MEMBER[data_type]
    read_as = f"{struct}.{type_field} {data_type_name(data_type)}"
    if isinstance(value, DML_SCALAR_UNION):
        given = value.members()
        if len(given) != 1:
            problems.add(f"{where} must set exactly one member of the union (it is read as {read_as}: "
                         f"{member}), got {', '.join(given) or 'none'}")
            return None
        (name, item), = given.items()
        if name == "Bytes":
            return _union_from_bytes(item, data_type, where, problems)
        if name != member:
            problems.add(f"{where}.{name} is set, but {read_as} reads {where}.{member}")
            return None
        return _fit(item, member_type, f"{where}.{member}", data_type, problems, bits=True)
    if not is_number(value):
        problems.add(f"{where} must be a DML_SCALAR_UNION or a number (read as {read_as}), got "
                     f"{type(value).__name__} {shown(value)}")
        return None
    return _fit(value, member_type, where, data_type, problems, bits=False)


def _fit(value: Any, member_type: Any, where: str, data_type: int, problems: Problems, *, bits: bool) -> Any:
    """``value`` as ``data_type``: integers in range; floats finite-fitting (FLOAT16 from bits or rounded)."""
    if not is_number(value):
        problems.add(f"{where} must be a number, got {shown(value)}")
        return None
    if data_type == _T.DML_TENSOR_DATA_TYPE_FLOAT16 and not bits:
        member_type = np.float16
    if np.issubdtype(member_type, np.integer):
        info = np.iinfo(member_type)
        if (isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer, float))
                or not is_whole(value) or not info.min <= int(value) <= info.max):
            problems.add(f"{where} must be an integer in [{info.min}, {info.max}] (a {np.dtype(member_type).name}), "
                         f"got {shown(value)}")
            return None
        result = member_type(int(value))
        return result.view(np.float16) if data_type == _T.DML_TENSOR_DATA_TYPE_FLOAT16 else result
    if not _fits_float(value, float(np.finfo(member_type).max)):
        problems.add(f"{where} {shown(value)} does not fit a {data_type_name(data_type)}")
        return None
    return member_type(value)


def _fits_float(value: Any, maximum: float) -> bool:
    """A float value (inf and nan included) or an integer no larger than ``maximum`` in magnitude.

    Integers are compared exactly, never converted first: ``float(10**400)`` raises OverflowError.
    """
    if isinstance(value, (float, np.floating)) and not np.isfinite(value):
        return True
    return abs(value) <= maximum


def _union_from_bytes(items: Any, data_type: int, where: str, problems: Problems) -> Any:
    """The value the union's ``Bytes`` (up to 8, little-endian) hold when read as ``data_type``."""
    if (not isinstance(items, (list, tuple, bytes)) or len(items) > 8
            or not all(is_integer(b) and 0 <= b <= 255 for b in items)):
        problems.add(f"{where}.Bytes must be at most 8 byte values (0..255), got {shown(items)}")
        return None
    raw = bytes(items) + bytes(8 - len(items))
    member_type = SCALAR_UNION_MEMBER[_T(data_type)][1]
    value = np.frombuffer(raw[:np.dtype(member_type).itemsize], member_type)[0]
    return value.view(np.float16) if data_type == _T.DML_TENSOR_DATA_TYPE_FLOAT16 else value


def fused_activation_names() -> list[str]:
    """The operator names a FusedActivation may have (for messages and docs)."""
    return [DML_OPERATOR_TYPE(t).name for t in sorted(FUSED_ACTIVATION_TYPES)]

