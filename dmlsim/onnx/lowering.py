"""ONNX graphs lowered onto DirectML operators and one CompileGraph, as onnxruntime's DirectML provider does.

A model is lowered for the shapes (and the host-read input values) of one run:

- **Host values.** Initializers, ``Constant`` nodes, ``Shape``/``Size`` and nodes whose inputs are all known on
  the host and whose work is shape arithmetic (:data:`HOST_FOLDABLE`) are computed on the host, as the provider
  keeps them on the CPU; so are the inputs the provider reads on the CPU (Reshape's shape, Slice's starts, Clip's
  bounds, ...: each lowering asks for them with :meth:`Lowering.host`). Nothing else is computed on the host.
- **Read back.** A CPU input computed on the device (a Range limit cast from a graph input, a Loop's trip count)
  is read back: the graph built so far is compiled and run up to that value, as onnxruntime copies it to the host
  before the node that reads it (at most :data:`READ_BACK_ELEMENTS` elements; the host still computes nothing).
- **Views, not copies.** Reshape, Flatten, Squeeze, Unsqueeze and Identity rename the bytes; Transpose permutes
  strides and Expand broadcasts with stride 0; a node reads its input through such a view's desc.
- **One graph.** Every other node becomes one or more DirectML operator nodes in a :class:`GraphBuilder`;
  host values read by device nodes become weights (OWNED_BY_DML graph inputs bound to the operator initializer,
  or constant nodes when a few bytes), graph inputs are bound at execution.

- **Function bodies.** A node no lowering claims, whose schema defines a function body at the model's opset, is
  replaced by the body's nodes (fresh names, attribute references resolved), as onnxruntime inlines it before the
  DirectML provider takes the primitives (:mod:`dmlsim.onnx.functions`); a direct lowering always wins.

A node that DirectML cannot express raises a DMLError naming the node, its op type, the opset and the reason.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.api.enums import DML_TENSOR_DATA_TYPE
from dmlsim.api.errors import E_INVALIDARG, E_NOTIMPL, DMLError
from dmlsim.api.structs import buffer_tensor
from dmlsim.api.tensor import NUMPY_DTYPE, packed_strides
from dmlsim.graph_builder import GraphBuilder
from dmlsim.runtime.device import Device

MAX_RANK = 8
READ_BACK_ELEMENTS = 4096  # a CPU input read back from the device is a shape, a bound, a count: small
DATA_TYPES = {np.dtype(v): k for k, v in NUMPY_DTYPE.items()}
# ONNX's int4/uint4 (numpy arrays of ml_dtypes' int4/uint4, by dtype name): DirectML's 4-bit types (feature level 6_3)
FOUR_BIT = {"int4": DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_INT4,
            "uint4": DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_UINT4}


@dataclass(frozen=True)
class View:
    """How a node reads a device value: the builder's tensor name, the ONNX shape, the element strides and
    the element offset of the view's first element (views share their source's bytes)."""

    name: str
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: np.dtype
    offset: int = 0

    @property
    def packed(self) -> bool:
        return self.offset == 0 and all(st == ps for n, st, ps in zip(self.shape, self.strides,
                                                                        packed_strides(self.shape), strict=True)
                                         if n > 1)


class NodeError(DMLError):
    """A node the lowering cannot express: the message names the node, op type and opset."""


class UnmappedError(NodeError):
    """A node whose form its DirectML lowering does not cover (e.g. Attention's softcap): the DirectML provider
    would not claim it, so onnxruntime inlines its function body; dmlsim lowers that body instead, and raises
    this refusal only when there is none."""


def dml_type(dtype: np.dtype, where: str) -> int:
    """The DML_TENSOR_DATA_TYPE of a numpy dtype (bool as UINT8); DMLError for types DirectML lacks."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        dtype = np.dtype(np.uint8)
    if dtype.name in FOUR_BIT:  # ml_dtypes' int4/uint4 (one value per byte in numpy, two per byte on the device)
        return FOUR_BIT[dtype.name]
    found = DATA_TYPES.get(dtype.newbyteorder("<") if dtype.byteorder == ">" else dtype)
    if found is None:
        raise DMLError(E_NOTIMPL, f"{where}: data type {dtype} has no DirectML tensor data type (DirectML has "
                                  "FLOAT16/32/64, 8- to 64-bit integers and 4-bit ones for QUANTIZE/DEQUANTIZE; no "
                                  "bfloat16, float8, float4, 2-bit integers or strings)")
    return found


class Lowering:
    """One model lowered for one set of input shapes: a GraphBuilder and the values known on the host."""

    def __init__(self, device: Device, opset: int) -> None:
        self.device = device
        self.opset = opset
        self.builder = GraphBuilder(device)
        self.host: dict[str, np.ndarray] = {}
        self.views: dict[str, View] = {}
        self.node: Any = None
        self._counter = 0
        self.constants: set[str] = set()  # host values onnxruntime would fold: initializers, Constant, Shape, ...
        self.graph_inputs: set[str] = set()  # the model's graph inputs (their values are on the host too)
        self.cpu_values: set[str] = set()  # Shape/Size outputs and what onnxruntime computes on its CPU from them
        # runs the graph built so far and reads a device value back (run_model sets it): a CPU input computed on
        # the device, which onnxruntime copies to the host before the node that reads it
        self.read_back: Callable[[str], np.ndarray] | None = None
        # lowers one more ONNX node in this model (run_model sets it): If branches, unrolled Loop/Scan bodies
        self.lower_more: Callable[[Any], None] | None = None
        # the FusedActivation of the node being lowered (dmlsim.onnx.fusion): the first operator it emits whose desc
        # has a FusedActivation field takes it (run_model applies it as its own node if none did)
        self.fused_activation: Any = None

    # --- naming and errors ------------------------------------------------------------------------------------
    def where(self) -> str:
        node = self.node
        return f"{node.op_type} node {node.name!r} (opset {self.opset})" if node is not None else "the model"

    def refuse(self, reason: str, hresult: int = E_NOTIMPL) -> NodeError:
        return NodeError(hresult, f"{self.where()}: {reason}")

    def unmapped(self, reason: str) -> UnmappedError:
        """The refusal of a form the lowering does not map, before it has made any node: the caller lowers the
        node's function body instead where the op has one (:class:`UnmappedError`)."""
        return UnmappedError(E_NOTIMPL, f"{self.where()}: {reason}")

    def fresh(self, hint: str) -> str:
        self._counter += 1
        return f"{hint}#{self._counter}"

    # --- values -----------------------------------------------------------------------------------------------
    def is_host(self, name: str) -> bool:
        return name in self.host

    def host_value(self, name: str, what: str) -> np.ndarray:
        """An input the provider reads on the CPU (a shape, starts, bounds): it must be known on the host."""
        if name not in self.host and name in self.views and self.read_back is not None:
            self.host[name] = self.read_back(name)
        if name not in self.host:
            raise self.refuse(f"its {what} ({name!r}) must be known when the graph is built (an initializer, a "
                              "constant or a graph input read on the host), as DirectML's provider requires")
        return self.host[name]

    def value_dtype(self, name: str) -> np.dtype:
        """The element type of a value, on the host or the device."""
        if name in self.views:
            return self.views[name].dtype
        if name in self.host:
            return self.host[name].dtype
        raise self.refuse(f"input {name!r} has no value", E_INVALIDARG)

    def value_shape(self, name: str) -> tuple[int, ...]:
        """The shape of a value, on the host or the device."""
        if name in self.views:
            return self.views[name].shape
        if name in self.host:
            return tuple(self.host[name].shape)
        raise self.refuse(f"input {name!r} has no value", E_INVALIDARG)

    def view(self, name: str) -> View:
        """The device view of a value; a host value read by a device node becomes a weight."""
        if name in self.views:
            return self.views[name]
        if name in self.host:
            array = np.array(self.host[name], order="C")  # ascontiguousarray would make a 0-d array 1-d
            if array.dtype == np.bool_:
                array = array.astype(np.uint8)
            dml_type(array.dtype, self.where())
            weight = self.builder.weight(self.fresh(name), array if array.ndim else array.reshape(1))
            shape = tuple(array.shape)
            self.views[name] = View(weight, shape, packed_strides(shape), array.dtype)
            return self.views[name]
        raise self.refuse(f"input {name!r} has no value (not a graph input, initializer or earlier output)",
                          E_INVALIDARG)

    def tensor(self, view: View, shape: Sequence[int] | None = None,
               strides: Sequence[int] | None = None) -> Any:
        """A DML_TENSOR_DESC reading ``view`` (or the given shape/strides over its bytes), rank ≥ 1."""
        shape = tuple(view.shape if shape is None else shape)
        strides = tuple(view.strides if strides is None else strides)
        if not shape:
            shape, strides = (1,), (1,)
        if len(shape) > MAX_RANK:
            raise self.refuse(f"a tensor of rank {len(shape)}: DirectML tensors have at most {MAX_RANK} dimensions")
        if 0 in shape:
            raise self.refuse(f"an empty tensor {list(shape)}: DirectML tensors have no size-0 dimension")
        if view.offset:
            raise self.refuse("a view at an element offset (DirectML binds it through a tensor at that offset: "
                              "not lowered yet)")
        packed = tuple(packed_strides(shape))
        return buffer_tensor(dml_type(view.dtype, self.where()), list(shape),
                             None if strides == packed else list(strides))

    def output(self, name: str, shape: Sequence[int], dtype: np.dtype) -> tuple[str, Any]:
        """A new packed device value ``name`` of ``shape``: the builder name and the output tensor desc."""
        shape = tuple(int(n) for n in shape)
        view = View(self.fresh(name), shape, packed_strides(shape), np.dtype(dtype))
        self.views[name] = view
        return view.name, self.tensor(view)

    def emit(self, op_type: int, desc_cls: type, inputs: dict[str, View | list[View]],
             outputs: dict[str, tuple[str, Any] | list[tuple[str, Any]]], **attributes: Any) -> None:
        """One DirectML node: ``inputs`` maps desc fields to views (lists for tensor arrays), each read through
        its own desc; ``outputs`` maps fields to (builder name, desc) pairs (lists for tensor arrays); absent
        fields are None, ``attributes`` fill the rest."""
        fields: dict[str, Any] = {f.name: None for f in dataclasses.fields(desc_cls)}
        wiring_in: dict[str, Any] = {}
        for field, view in inputs.items():
            if isinstance(view, list):
                fields[field] = [self.tensor(v) for v in view]
                wiring_in[field] = [v.name for v in view]
            else:
                fields[field] = self.tensor(view)
                wiring_in[field] = view.name
        wiring_out: dict[str, Any] = {}
        for field, made in outputs.items():
            if isinstance(made, list):
                fields[field] = [desc for _, desc in made]
                wiring_out[field] = [name for name, _ in made]
            else:
                fields[field] = made[1]
                wiring_out[field] = made[0]
        fields.update(attributes)
        if self.fused_activation is not None and "FusedActivation" in fields and "FusedActivation" not in attributes:
            fields["FusedActivation"], self.fused_activation = self.fused_activation, None
        self.builder.node(op_type, desc_cls(**fields), wiring_in, wiring_out)


# --- the registry ---------------------------------------------------------------------------------------------
LOWERINGS: dict[str, Callable[[Lowering, Any, dict[str, Any]], None]] = {}


def lowers(*op_types: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register a lowering for ONNX op types of the default domain."""
    def register(function: Callable[..., None]) -> Callable[..., None]:
        for op_type in op_types:
            LOWERINGS[op_type] = function
        return function
    return register


def broadcast_shape(lowering: Lowering, shapes: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """Numpy's multidirectional broadcast of ``shapes``; DMLError naming the node if they disagree."""
    try:
        return tuple(np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError:
        raise lowering.refuse(f"input shapes {[list(s) for s in shapes]} do not broadcast", E_INVALIDARG) from None


def broadcast_view(lowering: Lowering, view: View, shape: Sequence[int]) -> View:
    """``view`` read as ``shape`` (numpy broadcasting: stride 0 on every broadcast axis)."""
    shape = tuple(shape)
    pad = len(shape) - len(view.shape)
    strides = []
    for axis, size in enumerate(shape):
        source = axis - pad
        if source < 0 or (view.shape[source] == 1 and size != 1):
            strides.append(0)
        else:
            strides.append(view.strides[source])
    return dataclasses.replace(view, shape=shape, strides=tuple(strides))


def attributes_of(node: Any) -> dict[str, Any]:
    """The node's attributes as Python values (bytes decoded, tensors as arrays)."""
    from onnx import helper, numpy_helper

    out: dict[str, Any] = {}
    for attr in node.attribute:
        value = helper.get_attribute_value(attr)
        if isinstance(value, bytes):
            value = value.decode()
        elif hasattr(value, "dims") and hasattr(value, "data_type"):
            value = numpy_helper.to_array(value)
        out[attr.name] = value
    return out
