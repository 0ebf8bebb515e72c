"""Enumerations of directml.h with the header's names and values.

Every member is also exported at module level under its full header name
(``DML_TENSOR_DATA_TYPE_FLOAT32``), as C code spells it. Extension operators that are not part of
DirectML use the ``DMLSIM_`` prefix and values from 0x10000 up, far above the header's range.
"""

from __future__ import annotations

import functools
from enum import IntEnum, IntFlag

from dmlsim.api.operator_types import DML_OPERATOR_TYPE_ALIASES, DML_OPERATOR_TYPE_NAMES


class DML_TENSOR_DATA_TYPE(IntEnum):
    DML_TENSOR_DATA_TYPE_UNKNOWN = 0
    DML_TENSOR_DATA_TYPE_FLOAT32 = 1
    DML_TENSOR_DATA_TYPE_FLOAT16 = 2
    DML_TENSOR_DATA_TYPE_UINT32 = 3
    DML_TENSOR_DATA_TYPE_UINT16 = 4
    DML_TENSOR_DATA_TYPE_UINT8 = 5
    DML_TENSOR_DATA_TYPE_INT32 = 6
    DML_TENSOR_DATA_TYPE_INT16 = 7
    DML_TENSOR_DATA_TYPE_INT8 = 8
    DML_TENSOR_DATA_TYPE_FLOAT64 = 9
    DML_TENSOR_DATA_TYPE_UINT64 = 10
    DML_TENSOR_DATA_TYPE_INT64 = 11
    DML_TENSOR_DATA_TYPE_UINT4 = 12  # DML_FEATURE_LEVEL_6_3: two elements per byte, low nibble first
    DML_TENSOR_DATA_TYPE_INT4 = 13


class DML_TENSOR_TYPE(IntEnum):
    DML_TENSOR_TYPE_INVALID = 0
    DML_TENSOR_TYPE_BUFFER = 1


class DML_TENSOR_FLAGS(IntFlag):
    DML_TENSOR_FLAG_NONE = 0
    DML_TENSOR_FLAG_OWNED_BY_DML = 1


class DML_BINDING_TYPE(IntEnum):
    DML_BINDING_TYPE_NONE = 0
    DML_BINDING_TYPE_BUFFER = 1
    DML_BINDING_TYPE_BUFFER_ARRAY = 2


class DML_GRAPH_NODE_TYPE(IntEnum):
    DML_GRAPH_NODE_TYPE_INVALID = 0
    DML_GRAPH_NODE_TYPE_OPERATOR = 1
    DML_GRAPH_NODE_TYPE_CONSTANT = 2


class DML_GRAPH_EDGE_TYPE(IntEnum):
    DML_GRAPH_EDGE_TYPE_INVALID = 0
    DML_GRAPH_EDGE_TYPE_INPUT = 1
    DML_GRAPH_EDGE_TYPE_OUTPUT = 2
    DML_GRAPH_EDGE_TYPE_INTERMEDIATE = 3


class DML_EXECUTION_FLAGS(IntFlag):
    DML_EXECUTION_FLAG_NONE = 0
    DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION = 1
    DML_EXECUTION_FLAG_DISABLE_META_COMMANDS = 2
    DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE = 4


class DML_CREATE_DEVICE_FLAGS(IntFlag):
    DML_CREATE_DEVICE_FLAG_NONE = 0
    DML_CREATE_DEVICE_FLAG_DEBUG = 1


class DML_FEATURE(IntEnum):
    DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT = 0
    DML_FEATURE_FEATURE_LEVELS = 1


class DML_FEATURE_LEVEL(IntEnum):
    DML_FEATURE_LEVEL_1_0 = 0x1000
    DML_FEATURE_LEVEL_2_0 = 0x2000
    DML_FEATURE_LEVEL_2_1 = 0x2100
    DML_FEATURE_LEVEL_3_0 = 0x3000
    DML_FEATURE_LEVEL_3_1 = 0x3100
    DML_FEATURE_LEVEL_4_0 = 0x4000
    DML_FEATURE_LEVEL_4_1 = 0x4100
    DML_FEATURE_LEVEL_5_0 = 0x5000
    DML_FEATURE_LEVEL_5_1 = 0x5100
    DML_FEATURE_LEVEL_5_2 = 0x5200
    DML_FEATURE_LEVEL_6_0 = 0x6000
    DML_FEATURE_LEVEL_6_1 = 0x6100
    DML_FEATURE_LEVEL_6_2 = 0x6200
    DML_FEATURE_LEVEL_6_3 = 0x6300
    DML_FEATURE_LEVEL_6_4 = 0x6400


# The header's operator list, then dmlsim's extension operators (not in directml.h).
DMLSIM_EXTENSION_OPERATOR_BASE = 0x10000
DMLSIM_EXTENSION_OPERATOR_NAMES: tuple[tuple[str, int], ...] = (
    ("DMLSIM_OPERATOR_ONNX_ADAGRAD", DMLSIM_EXTENSION_OPERATOR_BASE + 0),
    ("DMLSIM_OPERATOR_ONNX_ADAM", DMLSIM_EXTENSION_OPERATOR_BASE + 1),
    ("DMLSIM_OPERATOR_ONNX_MOMENTUM", DMLSIM_EXTENSION_OPERATOR_BASE + 2),
    ("DMLSIM_OPERATOR_ADAGRAD_DECAY", DMLSIM_EXTENSION_OPERATOR_BASE + 3),
)
DML_OPERATOR_TYPE = IntEnum(  # type: ignore[misc]
    "DML_OPERATOR_TYPE",
    DML_OPERATOR_TYPE_NAMES + DML_OPERATOR_TYPE_ALIASES + DMLSIM_EXTENSION_OPERATOR_NAMES,
    module=__name__,
)

ALL_ENUMS = (
    DML_TENSOR_DATA_TYPE,
    DML_TENSOR_TYPE,
    DML_TENSOR_FLAGS,
    DML_BINDING_TYPE,
    DML_GRAPH_NODE_TYPE,
    DML_GRAPH_EDGE_TYPE,
    DML_EXECUTION_FLAGS,
    DML_CREATE_DEVICE_FLAGS,
    DML_FEATURE,
    DML_FEATURE_LEVEL,
    DML_OPERATOR_TYPE,
)
for _enum in ALL_ENUMS:
    globals().update(_enum.__members__)

# Every enum member's full header name, exported at module level as C spells it (``from dmlsim import *``).
HEADER_CONSTANTS: tuple[str, ...] = tuple(name for enum in ALL_ENUMS for name in enum.__members__)


def enum_member(enum_cls: type[IntEnum], value: object, *, prefix: str | None = None) -> IntEnum:
    """Look up ``value`` in ``enum_cls``: an int, a full header name, or the name without its prefix.

    Used by the descriptor-file loader, where ``FLOAT32`` and ``DML_TENSOR_DATA_TYPE_FLOAT32`` both
    mean the same member. Raises KeyError (with the choices) or ValueError for unknown values.
    """
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a {enum_cls.__name__}")
    if isinstance(value, int):
        return enum_cls(value)
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not a {enum_cls.__name__}")
    members = enum_cls.__members__
    if value in members:
        return members[value]
    return _short_names(enum_cls, prefix)[value]


@functools.cache
def _short_names(enum_cls: type[IntEnum], prefix: str | None) -> dict[str, IntEnum]:
    """Each member's name without each known prefix → the first member (in definition order) it names; made
    once per enum, so a model file of ten thousand operators looks each type up in constant time."""
    members = enum_cls.__members__
    prefixes = [p for p in (prefix, enum_prefix(enum_cls), _common_prefix(members), "DML_OPERATOR_",
                            "DMLSIM_OPERATOR_") if p]
    table: dict[str, IntEnum] = {}
    for name, member in members.items():
        for p in prefixes:
            if name.startswith(p):
                table.setdefault(name[len(p):], member)
    return table


def enum_prefix(enum_cls: type[IntEnum]) -> str:
    """The prefix a file may leave off a member's name: the enum's own name and ``_`` where every member
    starts with it (``DML_RANDOM_GENERATOR_TYPE_``, so its one member is ``PHILOX_4X32_10``, not ``10``),
    else the members' shared ``DML_..._`` prefix."""
    own = enum_cls.__name__ + "_"
    members = enum_cls.__members__
    if all(name.startswith(own) for name in members):
        return own
    return _common_prefix(members)


def _common_prefix(names: object) -> str:
    """The shared ``DML_..._`` prefix of an enum's member names (``DML_TENSOR_FLAG_``)."""
    names = list(names)  # type: ignore[call-overload]
    first = names[0]
    end = len(first)
    for name in names[1:]:
        end = min(end, len(name))
        for i in range(end):
            if name[i] != first[i]:
                end = i
                break
    return first[: first.rfind("_", 0, end + 1) + 1]
