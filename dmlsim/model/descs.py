"""Operator descs from a model file: desc keys are the struct's field names, mapped onto dmlsim's dataclasses.

What a file may leave out follows DxDispatch: a tensor desc may be just ``{DataType, Sizes}``
(``Type`` BUFFER, ``Flags`` NONE, ``DimensionCount`` = len(Sizes), packed strides,
``TotalTensorSizeInBytes`` absent or 0 = DMLCalcBufferTensorSize, alignment 0), enum values may drop
their prefix. Shapes and types are checked here only as far as the file's *syntax* goes (a number
where a number belongs, known enum names, known keys); whether the desc is acceptable is decided by
CreateOperator, so a file can pin a refusal with ``expectError``. ``null`` is a null pointer (for
optional tensors, or to pin the refusal of a missing one); a required field that is absent is a file
error. Every attribute kind of DirectML's schema is read: numbers, enums (with or without prefix),
booleans, ``{Scale, Bias}``, ``{Width, Height}``, scalar unions (a number, read as the desc's
``*DataType``, or ``{"UInt16": 15360}``), arrays, and nested operator descs (fused activations,
``ActivationDescs``) as ``{"Type": ..., "Desc": {...}}`` or with the fields beside ``Type``.
"""

from __future__ import annotations

import dataclasses
import difflib
from enum import Enum
from typing import Any

from dmlsim.api.enums import (
    DML_OPERATOR_TYPE,
    DML_TENSOR_DATA_TYPE,
    DML_TENSOR_FLAGS,
    DML_TENSOR_TYPE,
    enum_member,
    enum_prefix,
)
from dmlsim.api.errors import DMLError
from dmlsim.api.schema import ARRAY_KINDS, ATTRIBUTE, attr_type_name, count_fields, infer_array_counts
from dmlsim.api.structs import (
    DML_BUFFER_TENSOR_DESC,
    DML_OPERATOR_DESC,
    DML_SCALAR_UNION,
    DML_SCALE_BIAS,
    DML_SIZE_2D,
    DML_TENSOR_DESC,
    SCALAR_UNION_MEMBERS,
)
from dmlsim.model.errors import Diagnostics, show
from dmlsim.model.loader import Node
from dmlsim.model.values import as_float
from dmlsim.operators import lookup_operator
from dmlsim.operators.base import Operator

BUFFER_DESC_KEYS = [f.name for f in dataclasses.fields(DML_BUFFER_TENSOR_DESC)]
# Sizes/Strides longer than this are refused while parsing (DirectML allows 8 dimensions; a longer list
# still reaches CreateOperator, so a file can pin that refusal, but not one of thousands of entries)
MAX_TENSOR_DIMENSIONS = 64
# integers of a desc beyond 64 bits are refused while parsing (a UINT64 field is the widest there is)
INTEGER_RANGE = (-(2**63), 2**64 - 1)


def unknown_key(node: Node, key: str, known: list[str], what: str, problems: Diagnostics) -> None:
    """Report an unknown key, suggesting the closest known one."""
    child = node.get(key)
    close = difflib.get_close_matches(key, known, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else f" (known: {', '.join(known)})"
    problems.add(child.location if child else node.location, f"unknown key '{key}' in {what}{hint}")


def missing_type(node: Node, key: str, what: str, problems: Diagnostics) -> None:
    """Report a missing ``type`` key, and any key that looks like a misspelling of it, where it is."""
    problems.add(node.location, f"missing required key '{key}' of {what}")
    for other in node.value:
        if other != key and difflib.get_close_matches(other.lower(), [key.lower()], n=1, cutoff=0.6):
            unknown_key(node, other, [key], what, problems)


def parse_enum(node: Node, enum_cls: type[Enum], problems: Diagnostics) -> Any:
    """An enum member from its full or prefix-less header name (or its number)."""
    try:
        return enum_member(enum_cls, node.value)  # type: ignore[arg-type]
    except (KeyError, ValueError):
        prefix = enum_prefix(enum_cls)  # type: ignore[arg-type]
        names = ", ".join(m.name.removeprefix(prefix) for m in enum_cls)  # type: ignore[attr-defined]
        problems.add(node.location, f"unknown {enum_cls.__name__} value {show(node.value)} (one of {names})")
        return None


def parse_flags(node: Node, enum_cls: type[Enum], problems: Diagnostics) -> int | None:
    """Flags as DxDispatch writes them: one name or a list of names, OR-ed together."""
    items = list(node.elements()) if node.is_list else [node]
    known = 0
    for member in enum_cls:  # type: ignore[attr-defined]
        known |= int(member)
    result = 0
    for item in items:
        member = parse_enum(item, enum_cls, problems)
        if member is None:
            return None
        if int(member) & ~known:
            problems.add(item.location, f"{show(item.value)} has bits that are not {enum_cls.__name__} "
                                        f"(known bits: {known:#x})")
            return None
        result |= int(member)
    return result


def parse_uint(node: Node, problems: Diagnostics) -> int | None:
    """An integer (its range is CreateOperator's to check)."""
    value = node.value
    if isinstance(value, bool) or not isinstance(value, int):
        problems.add(node.location, f"expected an integer, got {show(value)}")
        return None
    if not INTEGER_RANGE[0] <= value <= INTEGER_RANGE[1]:
        problems.add(node.location, f"{show(value)} does not fit 64 bits")
        return None
    return value


def parse_uint_list(node: Node, problems: Diagnostics, max_length: int | None = None) -> list[int] | None:
    if not node.is_list:
        problems.add(node.location, f"expected a list of integers, got {show(node.value)}")
        return None
    if max_length is not None and len(node.value) > max_length:
        problems.add(node.location, f"{len(node.value)} entries: at most {max_length} are accepted "
                                    "(DirectML allows 8 dimensions)")
        return None
    values = [parse_uint(child, problems) for child in node.elements()]
    return None if any(v is None for v in values) else values  # type: ignore[return-value]


def parse_tensor_desc(node: Node, problems: Diagnostics) -> DML_TENSOR_DESC | None:
    """A DML_TENSOR_DESC: short form ``{DataType, Sizes, ...}`` or long form ``{Type, Desc: {...}}``."""
    if not node.is_map:
        problems.add(node.location, f"expected a tensor desc object {{DataType, Sizes}}, got {show(node.value)}")
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
            problems.add(body.location, f"expected a DML_BUFFER_TENSOR_DESC object, got {show(body.value)}")
            return None
    elif "Type" in node:
        tensor_type = parse_enum(node.get("Type"), DML_TENSOR_TYPE, problems)  # type: ignore[arg-type]
    fields: dict[str, Any] = {"Flags": 0, "DimensionCount": None, "Strides": None,
                              "TotalTensorSizeInBytes": None, "GuaranteedBaseOffsetAlignment": 0}
    before = problems.count
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
            fields[key] = (None if child.value is None and key == "Strides"
                           else parse_uint_list(child, problems, MAX_TENSOR_DIMENSIONS))
        else:
            fields[key] = parse_uint(child, problems)
    for key in ("DataType", "Sizes"):
        if key not in body:
            problems.add(body.location, f"missing required key '{key}' of the tensor desc")
    if problems.count > before or tensor_type is None:
        return None
    if fields["TotalTensorSizeInBytes"] == 0:  # DxDispatch: 0 means "compute it"
        fields["TotalTensorSizeInBytes"] = None
    return DML_TENSOR_DESC(tensor_type, DML_BUFFER_TENSOR_DESC(**fields))


def parse_number(node: Node, what: str, problems: Diagnostics) -> float | None:
    """A FLOAT (also ``"nan"``, ``"inf"``, ``"-inf"``)."""
    return as_float(node, what, problems)


def _parse_struct(node: Node, struct: type, kinds: dict[str, str], problems: Diagnostics) -> Any:
    """A small header struct (DML_SCALE_BIAS, DML_SIZE_2D) from an object with every member."""
    name = struct.__name__
    if not node.is_map:
        problems.add(node.location, f"expected a {name} object {{{', '.join(kinds)}}}, got {show(node.value)}")
        return None
    before = problems.count
    values = {}
    for key, child in node.items():
        if key not in kinds:
            unknown_key(node, key, list(kinds), f"a {name}", problems)
        else:
            values[key] = parse_attribute(child, kinds[key], problems)
    for key in kinds:
        if key not in node:
            problems.add(node.location, f"missing required key '{key}' of {name}")
    return struct(**values) if problems.count == before else None


def _parse_scalar_union(node: Node, problems: Diagnostics) -> Any:
    """A number (read later as the desc's ``*DataType``) or ``{Member: value}`` (``{"UInt16": 15360}``)."""
    if node.is_map:
        keys = list(node.value)
        if len(keys) != 1 or keys[0] not in SCALAR_UNION_MEMBERS:
            for key in keys:
                if key not in SCALAR_UNION_MEMBERS:
                    unknown_key(node, key, list(SCALAR_UNION_MEMBERS), "a DML_SCALAR_UNION", problems)
            if all(k in SCALAR_UNION_MEMBERS for k in keys):
                problems.add(node.location, f"a DML_SCALAR_UNION sets one member, got {', '.join(keys) or 'none'}")
            return None
        member, child = next(node.items())
        if member == "Bytes":
            value = parse_uint_list(child, problems)
        elif member.startswith("Float"):
            value = parse_number(child, member, problems)
        else:
            value = parse_uint(child, problems)
        return None if value is None else DML_SCALAR_UNION(**{member: value})
    return parse_number(node, "DML_SCALAR_UNION: a number or {Member: value}", problems)


def parse_attribute(node: Node, attr_type: Any, problems: Diagnostics) -> Any:
    """One attribute value of any schema kind (dmlsim.api.schema.ATTRIBUTE_KINDS or an enum)."""
    value = node.value
    if isinstance(attr_type, type) and issubclass(attr_type, Enum):
        return parse_enum(node, attr_type, problems)
    if attr_type == "FLOAT":
        return parse_number(node, "FLOAT", problems)
    if attr_type == "BOOL":
        if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
            return bool(value)
        problems.add(node.location, f"expected true or false (BOOL), got {show(value)}")
        return None
    if attr_type == "SCALE_BIAS":
        return _parse_struct(node, DML_SCALE_BIAS, {"Scale": "FLOAT", "Bias": "FLOAT"}, problems)
    if attr_type == "SIZE_2D":
        return _parse_struct(node, DML_SIZE_2D, {"Width": "UINT", "Height": "UINT"}, problems)
    if attr_type == "SCALAR_UNION":
        return _parse_scalar_union(node, problems)
    if attr_type == "OPERATOR_DESC":
        return parse_nested_operator_desc(node, problems)
    if attr_type in ARRAY_KINDS:
        element = ARRAY_KINDS[attr_type]
        if not node.is_list:
            what = "operator descs" if element == "OPERATOR_DESC" else f"{element} values"
            problems.add(node.location, f"expected a list of {what}, got {show(value)}")
            return None
        items = [parse_attribute(child, element, problems) for child in node.elements()]
        return None if any(item is None for item in items) else items
    if isinstance(value, bool) or not isinstance(value, int):
        problems.add(node.location, f"expected an integer ({attr_type}), got {show(value)}")
        return None
    return parse_uint(node, problems)


def parse_nested_operator_desc(node: Node, problems: Diagnostics) -> DML_OPERATOR_DESC | None:
    """A fused activation as DxDispatch writes it: ``{"Type": "DML_OPERATOR_ACTIVATION_RELU", "Desc": {...}}``
    or with the desc's fields beside ``Type`` (``{"Type": "ACTIVATION_ELU", "Alpha": 0.5}``); its tensors
    are those of the operator it is fused into, so it has none."""
    if not node.is_map:
        problems.add(node.location, f"expected an operator desc object {{Type, Desc}}, got {show(node.value)}")
        return None
    type_key = "Type" if "Type" in node else "type" if "type" in node else None
    if type_key is None:
        missing_type(node, "Type", "the operator desc", problems)
        return None
    type_node = node.get(type_key)
    assert type_node is not None
    op = parse_operator_type(type_node, problems)
    if op is None:
        return None
    desc_key = "Desc" if "Desc" in node else "desc" if "desc" in node else None
    if desc_key is not None:
        for key in node.value:
            if key not in (type_key, desc_key):
                unknown_key(node, key, [type_key, desc_key], "an operator desc", problems)
        body = node.get(desc_key)
    else:
        body = node.without(type_key)
    desc = parse_operator_desc(body, op, problems, fused=True)  # type: ignore[arg-type]
    return None if desc is None else DML_OPERATOR_DESC(op.type, desc)


def parse_operator_type(node: Node, problems: Diagnostics) -> Operator | None:
    """The operator (implemented or not) a ``Type`` names: full name, without ``DML_OPERATOR_``, or number."""
    try:
        return lookup_operator(enum_member(DML_OPERATOR_TYPE, node.value))
    except (KeyError, ValueError):
        problems.add(node.location, f"unknown operator type {show(node.value)}{operator_type_hint(node.value)}")
    except DMLError as exc:
        problems.add(node.location, str(exc))
    return None


def operator_type_hint(value: object) -> str:
    """``; did you mean 'DML_OPERATOR_ADAM_OPTIMIZER'?`` for a misspelt operator type (with or without the
    ``DML_OPERATOR_`` prefix, any case), or nothing when no name is close."""
    if not isinstance(value, str):
        return ""
    names = [m.name for m in DML_OPERATOR_TYPE if m.name != "DML_OPERATOR_INVALID"]
    text = value.strip().upper()
    short = {name.removeprefix("DML_OPERATOR_"): name for name in names}
    close = difflib.get_close_matches(text.removeprefix("DML_OPERATOR_"), list(short), n=1, cutoff=0.75)
    return f"; did you mean '{short[close[0]]}'?" if close else ""


def parse_operator_desc(node: Node, op: Operator, problems: Diagnostics, *, fused: bool = False) -> Any:
    """The operator's desc dataclass filled from the file (fields checked for syntax, not semantics).

    ``fused``: a fused activation, whose tensor fields are absent (DirectML wants them null).
    """
    struct = op.desc_cls.__name__
    if not node.is_map:
        problems.add(node.location, f"expected a {struct} object, got {show(node.value)}")
        return None
    fields = {f.name: f for f in dataclasses.fields(op.desc_cls)}
    specs = {row.name: row.spec for row in op.fields()}
    counts = count_fields(op.desc_cls)
    values: dict[str, Any] = {}
    before = problems.count
    for key, child in node.items():
        spec = specs.get(key)
        if key not in fields:
            unknown_key(node, key, list(fields), struct, problems)
        elif child.value is None:
            values[key] = None
        elif spec is None:
            values[key] = parse_uint(child, problems) if key in counts else child.value
        elif fused and spec.role != ATTRIBUTE:
            problems.add(child.location, f"{key}: a fused activation has no tensors of its own (DirectML wants "
                                         "them null; DxDispatch ignores them): leave it out")
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
        if name in node or name in counts or spec.optional or (fused and spec.role != ATTRIBUTE):
            continue
        if spec.role == ATTRIBUTE and fields[name].default is not None:
            continue
        kind = "tensor desc" if spec.role != ATTRIBUTE else attr_type_name(spec.attr_type)
        problems.add(node.location, f"missing required field '{name}' ({kind}) of {struct}")
    if problems.count > before:
        return None
    desc = op.desc_cls(**values)
    infer_array_counts(desc)  # an absent count: the first array's length (schema.infer_array_counts)
    return desc
