"""The structs of directml.h as dataclasses, with the header's field names and field order.

Pointers become object references, ``const T*`` arrays become Python sequences, and ``UINT``/``FLOAT``
fields are ints/floats. A few fields may be left out as a convenience (``DimensionCount`` and
``TotalTensorSizeInBytes`` of a buffer tensor desc are inferred when None); the full C-shaped form,
every field given positionally in header order, always works.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dmlsim.api.arguments import invalid, require_sequence
from dmlsim.api.enums import (
    DML_BINDING_TYPE,
    DML_FEATURE_LEVEL,
    DML_GRAPH_EDGE_TYPE,
    DML_GRAPH_NODE_TYPE,
    DML_OPERATOR_TYPE,
    DML_TENSOR_DATA_TYPE,
    DML_TENSOR_FLAGS,
    DML_TENSOR_TYPE,
)


@dataclass
class DML_BUFFER_TENSOR_DESC:
    DataType: DML_TENSOR_DATA_TYPE | int
    Flags: DML_TENSOR_FLAGS | int = 0
    DimensionCount: int | None = None
    Sizes: Sequence[int] = ()
    Strides: Sequence[int] | None = None
    TotalTensorSizeInBytes: int | None = None
    GuaranteedBaseOffsetAlignment: int = 0


@dataclass
class DML_TENSOR_DESC:
    Type: DML_TENSOR_TYPE | int
    Desc: DML_BUFFER_TENSOR_DESC | None


@dataclass
class DML_OPERATOR_DESC:
    Type: DML_OPERATOR_TYPE | int
    Desc: Any


@dataclass
class DML_SCALE_BIAS:
    Scale: float
    Bias: float


@dataclass
class DML_SIZE_2D:
    Width: int
    Height: int


# DML_SCALAR_UNION's members in header order; the one a desc reads follows the data type its
# ``*DataType`` field names (FLOAT16 is read from UInt16: the half's bits).
SCALAR_UNION_MEMBERS = ("Bytes", "Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64",
                        "Float32", "Float64")


@dataclass
class DML_SCALAR_UNION:
    """``union DML_SCALAR_UNION``: set exactly one member (``DML_SCALAR_UNION(Float32=0.5)``), or ``Bytes``.

    A desc field of this type also accepts a plain number, read as the data type its ``*DataType``
    field names (a FLOAT16 number is rounded to half precision), as DxDispatch's model files write it.
    """

    Bytes: Sequence[int] | None = None
    Int8: int | None = None
    UInt8: int | None = None
    Int16: int | None = None
    UInt16: int | None = None
    Int32: int | None = None
    UInt32: int | None = None
    Int64: int | None = None
    UInt64: int | None = None
    Float32: float | None = None
    Float64: float | None = None

    def members(self) -> dict[str, Any]:
        """The members that are set (not None), in header order."""
        return {name: getattr(self, name) for name in SCALAR_UNION_MEMBERS if getattr(self, name) is not None}


@dataclass
class DML_BUFFER_BINDING:
    Buffer: Any  # dmlsim.runtime.device.Buffer (an ID3D12Resource stand-in)
    Offset: int = 0
    SizeInBytes: int | None = None  # None: the rest of the buffer after Offset (convenience)


@dataclass
class DML_BUFFER_ARRAY_BINDING:
    BindingCount: int
    Bindings: Sequence[DML_BUFFER_BINDING]


@dataclass
class DML_BINDING_DESC:
    Type: DML_BINDING_TYPE | int
    Desc: DML_BUFFER_BINDING | DML_BUFFER_ARRAY_BINDING | None = None


@dataclass
class DML_BINDING_TABLE_DESC:
    Dispatchable: Any  # a compiled operator or an operator initializer (IDMLDispatchable)
    CPUDescriptorHandle: Any = None  # descriptor heaps do not exist here; accepted and ignored
    GPUDescriptorHandle: Any = None
    SizeInDescriptors: int = 0


@dataclass
class DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT:
    DataType: DML_TENSOR_DATA_TYPE | int


@dataclass(frozen=True)
class DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT:
    IsSupported: bool


@dataclass
class DML_FEATURE_QUERY_FEATURE_LEVELS:
    RequestedFeatureLevelCount: int
    RequestedFeatureLevels: Sequence[DML_FEATURE_LEVEL | int]


@dataclass(frozen=True)
class DML_FEATURE_DATA_FEATURE_LEVELS:
    MaxSupportedFeatureLevel: DML_FEATURE_LEVEL | int


@dataclass(frozen=True)
class DML_BINDING_PROPERTIES:
    RequiredDescriptorCount: int
    TemporaryResourceSize: int
    PersistentResourceSize: int


# --- IDMLDevice1::CompileGraph ------------------------------------------------------------------------
@dataclass
class DML_OPERATOR_GRAPH_NODE_DESC:
    Operator: Any  # an IDMLOperator (CreateOperator's result)
    Name: str | None = None


@dataclass
class DML_CONSTANT_DATA_GRAPH_NODE_DESC:
    """A graph node holding constant bytes (DML_FEATURE_LEVEL_6_2): ``Data`` is any bytes-like object (C's
    ``const void*``) of at least ``DataSize`` bytes, copied when the graph is compiled."""

    Data: Any
    DataSize: int
    Name: str | None = None


@dataclass
class DML_GRAPH_NODE_DESC:
    Type: DML_GRAPH_NODE_TYPE | int
    Desc: Any


@dataclass
class DML_INPUT_GRAPH_EDGE_DESC:
    GraphInputIndex: int
    ToNodeIndex: int
    ToNodeInputIndex: int
    Name: str | None = None


@dataclass
class DML_OUTPUT_GRAPH_EDGE_DESC:
    FromNodeIndex: int
    FromNodeOutputIndex: int
    GraphOutputIndex: int
    Name: str | None = None


@dataclass
class DML_INTERMEDIATE_GRAPH_EDGE_DESC:
    FromNodeIndex: int
    FromNodeOutputIndex: int
    ToNodeIndex: int
    ToNodeInputIndex: int
    Name: str | None = None


@dataclass
class DML_GRAPH_EDGE_DESC:
    Type: DML_GRAPH_EDGE_TYPE | int
    Desc: Any


@dataclass
class DML_GRAPH_DESC:
    """``*Count`` fields left None are the lengths of their arrays (a Python convenience)."""

    InputCount: int
    OutputCount: int
    NodeCount: int | None = None
    Nodes: Sequence[DML_GRAPH_NODE_DESC] = ()
    InputEdgeCount: int | None = None
    InputEdges: Sequence[DML_GRAPH_EDGE_DESC] = ()
    OutputEdgeCount: int | None = None
    OutputEdges: Sequence[DML_GRAPH_EDGE_DESC] = ()
    IntermediateEdgeCount: int | None = None
    IntermediateEdges: Sequence[DML_GRAPH_EDGE_DESC] = ()

    def __post_init__(self) -> None:
        for count, items in (("NodeCount", "Nodes"), ("InputEdgeCount", "InputEdges"),
                             ("OutputEdgeCount", "OutputEdges"), ("IntermediateEdgeCount", "IntermediateEdges")):
            if getattr(self, count) is None and isinstance(getattr(self, items), Sequence):
                setattr(self, count, len(getattr(self, items)))


def buffer_tensor(
    data_type: DML_TENSOR_DATA_TYPE | int,
    sizes: Sequence[int],
    strides: Sequence[int] | None = None,
    *,
    flags: DML_TENSOR_FLAGS | int = 0,
    total_size: int | None = None,
    alignment: int = 0,
) -> DML_TENSOR_DESC:
    """Shorthand for ``DML_TENSOR_DESC(DML_TENSOR_TYPE_BUFFER, DML_BUFFER_TENSOR_DESC(...))``.

    Values are stored as given (lists copied) and checked where the desc is used (CreateOperator).
    """
    sizes = list(sizes) if isinstance(sizes, (list, tuple)) else sizes
    strides = list(strides) if isinstance(strides, (list, tuple)) else strides
    return DML_TENSOR_DESC(
        DML_TENSOR_TYPE.DML_TENSOR_TYPE_BUFFER,
        DML_BUFFER_TENSOR_DESC(data_type, flags, len(sizes) if isinstance(sizes, list) else None, sizes,
                               strides, total_size, alignment),
    )


def buffer_binding(buffer: Any, offset: int = 0, size: int | None = None) -> DML_BINDING_DESC:
    """Shorthand for ``DML_BINDING_DESC(DML_BINDING_TYPE_BUFFER, DML_BUFFER_BINDING(...))``."""
    return DML_BINDING_DESC(DML_BINDING_TYPE.DML_BINDING_TYPE_BUFFER, DML_BUFFER_BINDING(buffer, offset, size))


def buffer_array_binding(bindings: Sequence[DML_BUFFER_BINDING | tuple]) -> DML_BINDING_DESC:
    """Shorthand for a ``DML_BINDING_TYPE_BUFFER_ARRAY`` binding of several buffer ranges.

    Each entry is a DML_BUFFER_BINDING, a ``(buffer, offset, size)`` tuple (offset and size optional) or None.
    """
    items = []
    for i, b in enumerate(require_sequence(bindings, "buffer_array_binding: bindings")):
        if b is None or isinstance(b, DML_BUFFER_BINDING):
            items.append(b)
        elif isinstance(b, tuple) and 1 <= len(b) <= 3:
            items.append(DML_BUFFER_BINDING(*b))
        else:
            raise invalid(f"buffer_array_binding: entry {i} must be a DML_BUFFER_BINDING or a (buffer, offset, "
                          f"size) tuple, got {type(b).__name__}")
    return DML_BINDING_DESC(DML_BINDING_TYPE.DML_BINDING_TYPE_BUFFER_ARRAY,
                            DML_BUFFER_ARRAY_BINDING(len(items), items))


NO_BINDING = DML_BINDING_DESC(DML_BINDING_TYPE.DML_BINDING_TYPE_NONE, None)
