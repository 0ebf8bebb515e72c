"""Operator descs from a model file: desc keys are the struct's field names, mapped onto dmlsim's dataclasses.

What a file may leave out follows DxDispatch: a tensor desc may be just ``{DataType, Sizes}``
(``Type`` BUFFER, ``Flags`` NONE, ``DimensionCount`` = len(Sizes), packed strides,
``TotalTensorSizeInBytes`` absent or 0 = DMLCalcBufferTensorSize, alignment 0), enum values may drop
their prefix. Shapes and types are checked here only as far as the file's *syntax* goes (a number
where a number belongs, known enum names, known keys); whether the desc is acceptable is decided by
CreateOperator, so a file can pin a refusal with ``expectError``. ``null`` is a null pointer (for
optional tensors, or to pin the refusal of a missing one); a required field that is absent is a file
error.
"""

from __future__ import annotations

import dataclasses
import difflib
from enum import Enum
from typing import Any

from dmlsim.api.enums import DML_TENSOR_DATA_TYPE, DML_TENSOR_FLAGS, DML_TENSOR_TYPE, _common_prefix, enum_member
from dmlsim.api.schema import ATTRIBUTE, count_fields, infer_array_counts
from dmlsim.api.structs import DML_BUFFER_TENSOR_DESC, DML_TENSOR_DESC
from dmlsim.model.errors import Diagnostics
from dmlsim.model.loader import Node
from dmlsim.model.values import SPECIAL_FLOATS
from dmlsim.operators.base import Operator

BUFFER_DESC_KEYS = [f.name for f in dataclasses.fields(DML_BUFFER_TENSOR_DESC)]


def unknown_key(node: Node, key: str, known: list[str], what: str, problems: Diagnostics) -> None:
    """Report an unknown key, suggesting the closest known one."""
    child = node.get(key)
    close = difflib.get_close_matches(key, known, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else f" (known: {', '.join(known)})"
    problems.add(child.location if child else node.location, f"unknown key '{key}' in {what}{hint}")


def parse_enum(node: Node, enum_cls: type[Enum], problems: Diagnostics) -> Any:
    """An enum member from its full or prefix-less header name (or its number)."""
    try:
        return enum_member(enum_cls, node.value)  # type: ignore[arg-type]
    except (KeyError, ValueError):
        prefix = _common_prefix(enum_cls.__members__)  # type: ignore[attr-defined]
        names = ", ".join(m.name.removeprefix(prefix) for m in enum_cls)  # type: ignore[attr-defined]
        problems.add(node.location, f"unknown {enum_cls.__name__} value {node.value!r} (one of {names})")
        return None


def parse_flags(node: Node, enum_cls: type[Enum], problems: Diagnostics) -> int | None:
    """Flags as DxDispatch writes them: one name or a list of names, OR-ed together."""
    items = list(node.elements()) if node.is_list else [node]
    result = 0
    for item in items:
        member = parse_enum(item, enum_cls, problems)
        if member is None:
            return None
        result |= int(member)
    return result


def parse_uint(node: Node, problems: Diagnostics) -> int | None:
    value = node.value
    if isinstance(value, bool) or not isinstance(value, int):
        problems.add(node.location, f"expected an integer, got {value!r}")
        return None
    return value


def parse_uint_list(node: Node, problems: Diagnostics) -> list[int] | None:
    if not node.is_list:
        problems.add(node.location, f"expected a list of integers, got {node.value!r}")
        return None
    values = [parse_uint(child, problems) for child in node.elements()]
    return None if any(v is None for v in values) else values  # type: ignore[return-value]


def parse_tensor_desc(node: Node, problems: Diagnostics) -> DML_TENSOR_DESC | None:
    """A DML_TENSOR_DESC: short form ``{DataType, Sizes, ...}`` or long form ``{Type, Desc: {...}}``."""
    if not node.is_map:
        problems.add(node.location, f"expected a tensor desc object {{DataType, Sizes}}, got {node.value!r}")
        return None
    tensor_type: Any = DML_TENSOR_TYPE.DML_TENSOR_TYPE_BUFFER
    body = node
    if "Desc" in node:
        for key in node.value:
            if key not in ("Type", "Desc"):
                unknown_key(node, key, ["Type", "Desc"], "a DML_TENSOR_DESC", problems)
        if (type_node := node.get("Type")) is not None:
            tensor_type = parse_enum(type_node, DML_TENSOR_TYPE, problems)
        body = node.get("Desc")  # type: ignore[assignment]
        if not body.is_map:
            problems.add(body.location, f"expected a DML_BUFFER_TENSOR_DESC object, got {body.value!r}")
            return None
    elif "Type" in node:
        tensor_type = parse_enum(node.get("Type"), DML_TENSOR_TYPE, problems)  # type: ignore[arg-type]
    fields: dict[str, Any] = {"Flags": 0, "DimensionCount": None, "Strides": None,
                              "TotalTensorSizeInBytes": None, "GuaranteedBaseOffsetAlignment": 0}
    before = len(problems.items)
    for key, child in body.items():
        if key == "Type" and body is node:
            continue
        if key not in BUFFER_DESC_KEYS:
            unknown_key(body, key, BUFFER_DESC_KEYS, "a DML_BUFFER_TENSOR_DESC", problems)
        elif key == "DataType":
            fields[key] = parse_enum(child, DML_TENSOR_DATA_TYPE, problems)
        elif key == "Flags":
            fields[key] = parse_flags(child, DML_TENSOR_FLAGS, problems)
        elif key in ("Sizes", "Strides"):
            fields[key] = None if child.value is None and key == "Strides" else parse_uint_list(child, problems)
        else:
            fields[key] = parse_uint(child, problems)
    for key in ("DataType", "Sizes"):
        if key not in body:
            problems.add(body.location, f"missing required key '{key}' of the tensor desc")
    if len(problems.items) > before or tensor_type is None:
        return None
    if fields["TotalTensorSizeInBytes"] == 0:  # DxDispatch: 0 means "compute it"
        fields["TotalTensorSizeInBytes"] = None
    return DML_TENSOR_DESC(tensor_type, DML_BUFFER_TENSOR_DESC(**fields))


def parse_attribute(node: Node, attr_type: Any, problems: Diagnostics) -> Any:
    value = node.value
    if isinstance(attr_type, type) and issubclass(attr_type, Enum):
        return parse_enum(node, attr_type, problems)
    if attr_type == "FLOAT":
        if isinstance(value, str) and value.strip().lower() in SPECIAL_FLOATS:
            return SPECIAL_FLOATS[value.strip().lower()]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            problems.add(node.location, f"expected a number (FLOAT), got {value!r}")
            return None
        return float(value)
    if isinstance(value, bool) or not isinstance(value, int):
        problems.add(node.location, f"expected an integer ({attr_type}), got {value!r}")
        return None
    return value


def parse_operator_desc(node: Node, op: Operator, problems: Diagnostics) -> Any:
    """The operator's desc dataclass filled from the file (fields checked for syntax, not semantics)."""
    struct = op.desc_cls.__name__
    if not node.is_map:
        problems.add(node.location, f"expected a {struct} object, got {node.value!r}")
        return None
    fields = {f.name: f for f in dataclasses.fields(op.desc_cls)}
    specs = {row.name: row.spec for row in op.fields()}
    counts = count_fields(op.desc_cls)
    values: dict[str, Any] = {}
    before = len(problems.items)
    for key, child in node.items():
        if key not in fields:
            unknown_key(node, key, list(fields), struct, problems)
            continue
        spec = specs.get(key)
        if child.value is None:
            values[key] = None
        elif spec is None:
            values[key] = parse_uint(child, problems) if key in counts else child.value
        elif spec.role == ATTRIBUTE:
            values[key] = parse_attribute(child, spec.attr_type, problems)
        elif spec.array_count is not None:
            if not child.is_list:
                problems.add(child.location, f"expected a list of tensor descs ({spec.array_count} of them)")
                continue
            values[key] = [parse_tensor_desc(item, problems) for item in child.elements()]
        else:
            values[key] = parse_tensor_desc(child, problems)
    for name, spec in specs.items():
        if name in node:
            continue
        required = not spec.optional if spec.role != ATTRIBUTE else fields[name].default is None
        if required:
            kind = "tensor desc" if spec.role != ATTRIBUTE else spec.attr_type if isinstance(
                spec.attr_type, str) else spec.attr_type.__name__
            problems.add(node.location, f"missing required field '{name}' ({kind}) of {struct}")
    if len(problems.items) > before:
        return None
    desc = op.desc_cls(**values)
    infer_array_counts(desc)  # an absent count: the first array's length (schema.infer_array_counts)
    return desc
