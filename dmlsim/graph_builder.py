"""Build a DirectML graph by naming tensors, as DirectMLX and onnxruntime's DirectML provider build theirs.

Each operator is added with its ordinary DirectML desc; its tensor fields are wired to named values: a graph
input (:meth:`GraphBuilder.input`, bound at every execution), a weight (:meth:`GraphBuilder.weight`, bound once
to the operator initializer as an OWNED_BY_DML graph input, or a constant node when it holds a few bytes: the
provider's rule), or another node's output. :meth:`GraphBuilder.compile` turns that into a ``DML_GRAPH_DESC``
for ``IDMLDevice1::CompileGraph``, initializes the weights and returns a :class:`CompiledNetwork` that runs the
whole graph as one dispatch on numpy inputs.

    builder = GraphBuilder(device)
    x = builder.input("x", dml.buffer_tensor(F32, [2, 3]))
    w = builder.weight("w", np.ones((3, 4), np.float32))
    builder.node(dml.DML_OPERATOR_GEMM, gemm_desc, {"ATensor": x, "BTensor": w}, {"OutputTensor": "y"})
    network = builder.compile(outputs=["y"])
    y = network.run({"x": data})["y"]

Nothing here is beyond the public API: every byte is placed by ``CreateBuffer``, binding tables and one command
list; the graph is exactly what a C++ program would pass to CompileGraph.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.api.arguments import invalid
from dmlsim.api.enums import (
    DML_BINDING_TYPE,
    DML_GRAPH_EDGE_TYPE,
    DML_GRAPH_NODE_TYPE,
    DML_TENSOR_FLAGS,
)
from dmlsim.api.structs import (
    DML_BINDING_DESC,
    DML_BINDING_TABLE_DESC,
    DML_BUFFER_ARRAY_BINDING,
    DML_BUFFER_BINDING,
    DML_CONSTANT_DATA_GRAPH_NODE_DESC,
    DML_GRAPH_DESC,
    DML_GRAPH_EDGE_DESC,
    DML_GRAPH_NODE_DESC,
    DML_INPUT_GRAPH_EDGE_DESC,
    DML_INTERMEDIATE_GRAPH_EDGE_DESC,
    DML_OPERATOR_DESC,
    DML_OPERATOR_GRAPH_NODE_DESC,
    DML_OUTPUT_GRAPH_EDGE_DESC,
    DML_TENSOR_DESC,
)
from dmlsim.api.tensor import (
    SUB_BYTE_TYPES,
    DMLCalcBufferTensorSize,
    TensorLayout,
    packed_strides,
    store_elements,
    value_dtype,
)
from dmlsim.quick import read_tensor
from dmlsim.runtime.device import Device

CONSTANT_NODE_BYTES = 8  # onnxruntime's DirectML provider makes a constant node of initializers this small


@dataclass
class _Value:
    """A named tensor of the graph: a graph input, a weight, a constant or a node output."""

    kind: str  # "input" | "weight" | "constant" | "output"
    index: int  # graph input index, constant node index, or node index
    field: str = ""  # the node's output field, for kind "output"
    element: int | None = None  # the element of a tensor-array output field
    data: bytes = b""
    tensor: DML_TENSOR_DESC | None = None


@dataclass
class _Node:
    op_type: int
    desc: Any
    inputs: dict[str, str | list[str]]
    outputs: dict[str, str | list[str]]


def _each(wiring: dict[str, str | list[str]]) -> list[tuple[str, int | None, str]]:
    """(field, element or None, name) for every wired tensor, tensor-array fields one entry per element."""
    found: list[tuple[str, int | None, str]] = []
    for field, names in wiring.items():
        if isinstance(names, list):
            found += [(field, i, name) for i, name in enumerate(names)]
        else:
            found.append((field, None, names))
    return found


class GraphBuilder:
    """Collects named graph inputs, weights and operator nodes; :meth:`compile` makes the DirectML graph."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self.values: dict[str, _Value] = {}
        self.nodes: list[_Node] = []
        self.input_count = 0
        self.weights: dict[int, np.ndarray] = {}  # graph input index → the bytes bound at initialization
        self.constants: list[bytes] = []

    def _name(self, name: str) -> str:
        if not isinstance(name, str) or not name:
            raise invalid(f"GraphBuilder: a tensor name must be a non-empty str, got {name!r}")
        if name in self.values:
            raise invalid(f"GraphBuilder: tensor {name!r} is already defined")
        return name

    def input(self, name: str, tensor: DML_TENSOR_DESC) -> str:
        """A graph input, bound at every execution: :meth:`CompiledNetwork.run` writes it packed in ``tensor``'s
        data type and sizes; each node reading it may view those bytes through its own desc (a transpose's
        strides, a broadcast's zeros)."""
        self.values[self._name(name)] = _Value("input", self.input_count, tensor=tensor)
        self.input_count += 1
        return name

    def weight(self, name: str, array: Any) -> str:
        """Bytes fixed for the graph's life: a constant node if at most :data:`CONSTANT_NODE_BYTES` bytes, else an
        OWNED_BY_DML graph input bound to the operator initializer (the nodes reading it get the flag)."""
        data = _bytes_of(array)
        if len(data) <= CONSTANT_NODE_BYTES:
            self.values[self._name(name)] = _Value("constant", len(self.constants), data=data)
            self.constants.append(data)
        else:
            self.values[self._name(name)] = _Value("weight", self.input_count, data=data)
            self.input_count += 1
        return name

    def node(self, op_type: int, desc: Any, inputs: dict[str, str | list[str]],
             outputs: dict[str, str | list[str]]) -> None:
        """An operator node: ``desc`` is its DirectML desc; ``inputs`` maps its input tensor fields to named values
        defined before, ``outputs`` its output fields to new names (a list of names for a tensor-array field)."""
        for field, element, name in _each(inputs):
            if name not in self.values:
                where = field if element is None else f"{field}[{element}]"
                raise invalid(f"GraphBuilder: node {len(self.nodes)} ({type(desc).__name__}).{where} reads "
                              f"{name!r}, which is not defined yet")
        desc = copy.deepcopy(desc)
        for field, element, name in _each(inputs):
            if self.values[name].kind == "weight":
                tensor = getattr(desc, field) if element is None else getattr(desc, field)[element]
                tensor.Desc.Flags = int(tensor.Desc.Flags or 0) | DML_TENSOR_FLAGS.DML_TENSOR_FLAG_OWNED_BY_DML
        for field, element, name in _each(outputs):
            self.values[self._name(name)] = _Value("output", len(self.nodes), field, element)
        self.nodes.append(_Node(op_type, desc, dict(inputs), dict(outputs)))

    def compile(self, outputs: list[str], flags: int = 0) -> CompiledNetwork:
        """CompileGraph of every node, with ``outputs`` (node output names) as the graph outputs in that order;
        the weights are bound to an operator initializer and copied into the persistent resource."""
        constant_base = len(self.nodes)
        nodes, operators = [], []
        input_edges, output_edges, intermediate_edges = [], [], []
        input_layouts: dict[int, TensorLayout] = {}
        for index, node in enumerate(self.nodes):
            op = self.device.CreateOperator(DML_OPERATOR_DESC(node.op_type, node.desc))
            operators.append(op)
            nodes.append(DML_GRAPH_NODE_DESC(DML_GRAPH_NODE_TYPE.DML_GRAPH_NODE_TYPE_OPERATOR,
                                             DML_OPERATOR_GRAPH_NODE_DESC(op, f"node {index}")))
            for field, element, name in _each(node.inputs):
                value, to = self.values[name], _port(op, "input", field, element)
                if value.kind in ("input", "weight"):
                    input_edges.append(_edge(DML_GRAPH_EDGE_TYPE.DML_GRAPH_EDGE_TYPE_INPUT,
                                             DML_INPUT_GRAPH_EDGE_DESC(value.index, index, to, name)))
                    layout = op.validated.tensors[field]
                    layout = layout if element is None else layout[element]
                    if value.index not in input_layouts or layout.total_bytes > input_layouts[value.index].total_bytes:
                        input_layouts[value.index] = layout
                elif value.kind == "constant":
                    intermediate_edges.append(_edge(DML_GRAPH_EDGE_TYPE.DML_GRAPH_EDGE_TYPE_INTERMEDIATE,
                                                    DML_INTERMEDIATE_GRAPH_EDGE_DESC(constant_base + value.index, 0,
                                                                                     index, to, name)))
                else:
                    source = _port(operators[value.index], "output", value.field, value.element)
                    intermediate_edges.append(_edge(DML_GRAPH_EDGE_TYPE.DML_GRAPH_EDGE_TYPE_INTERMEDIATE,
                                                    DML_INTERMEDIATE_GRAPH_EDGE_DESC(value.index, source, index, to,
                                                                                     name)))
        for data in self.constants:
            nodes.append(DML_GRAPH_NODE_DESC(DML_GRAPH_NODE_TYPE.DML_GRAPH_NODE_TYPE_CONSTANT,
                                             DML_CONSTANT_DATA_GRAPH_NODE_DESC(data, len(data))))
        output_layouts = []
        for graph_output, name in enumerate(outputs):
            value = self.values.get(name)
            if value is None or value.kind != "output":
                raise invalid(f"GraphBuilder.compile: output {name!r} is not a node output")
            op = operators[value.index]
            output_edges.append(_edge(DML_GRAPH_EDGE_TYPE.DML_GRAPH_EDGE_TYPE_OUTPUT, DML_OUTPUT_GRAPH_EDGE_DESC(
                value.index, _port(op, "output", value.field, value.element), graph_output, name)))
            layout = op.validated.tensors[value.field]
            output_layouts.append(layout if value.element is None else layout[value.element])
        desc = DML_GRAPH_DESC(self.input_count, len(outputs), Nodes=nodes, InputEdges=input_edges,
                              OutputEdges=output_edges, IntermediateEdges=intermediate_edges)
        compiled = self.device.CompileGraph(desc, flags)
        inputs = {}
        for name, v in self.values.items():
            if v.kind == "input" and v.index in input_layouts:
                declared = v.tensor.Desc
                dtype = value_dtype(int(declared.DataType))
                packed = DMLCalcBufferTensorSize(int(declared.DataType), len(declared.Sizes), list(declared.Sizes))
                inputs[name] = (v.index, tuple(int(n) for n in declared.Sizes), dtype,
                                max(packed, input_layouts[v.index].total_bytes))
        weights = {v.index: (v.data, input_layouts[v.index]) for v in self.values.values() if v.kind == "weight"
                   and v.index in input_layouts}
        network = CompiledNetwork(self.device, compiled, inputs, weights,
                                  dict(zip(outputs, output_layouts, strict=True)))
        for name, v in self.values.items():  # 4-bit graph inputs: run() packs them two values per byte
            declared = v.tensor.Desc if v.kind == "input" and name in inputs else None
            if declared is not None and int(declared.DataType) in SUB_BYTE_TYPES:
                sizes = tuple(int(n) for n in declared.Sizes)
                network.input_layouts[name] = TensorLayout(int(declared.DataType), sizes, packed_strides(sizes), None,
                                                           inputs[name][3], 0, 0)
        return network


def _port(op: Any, role: str, field: str, element: int | None) -> int:
    """The edge index of ``field`` (``element`` of a tensor array) of an operator's inputs or outputs: the desc's
    tensor fields in struct order, a tensor array counting one index per element (as DirectML's edges count)."""
    index = 0
    for row in op.operator.input_fields if role == "input" else op.operator.output_fields:
        layouts = op.validated.tensors.get(row.name)
        if row.name == field:
            return index + (element or 0)
        index += len(layouts) if isinstance(layouts, list) else 1
    raise invalid(f"GraphBuilder: {op.operator.name} has no {role} field {field!r}")


def _edge(kind: DML_GRAPH_EDGE_TYPE, desc: Any) -> DML_GRAPH_EDGE_DESC:
    return DML_GRAPH_EDGE_DESC(kind, desc)


def _bytes_of(array: Any) -> bytes:
    """An array's bytes as a tensor of its type holds them: ONNX's int4/uint4 (ml_dtypes, a value per byte) packed
    two per byte, low nibble first (DML_TENSOR_DATA_TYPE_INT4/UINT4); any other type as numpy stores it."""
    array = np.ascontiguousarray(array)
    if array.dtype.name not in ("int4", "uint4"):
        return array.tobytes()
    nibbles = (array.astype(np.int8).ravel().astype(np.uint8) & 15).tolist() + [0] * (array.size % 2)
    return bytes(nibbles[i] | nibbles[i + 1] << 4 for i in range(0, len(nibbles), 2))


def _buffer_with(device: Device, data: bytes, size: int) -> Any:
    buffer = device.CreateBuffer(size)
    if data:
        buffer.Write(data)
    return buffer


class CompiledNetwork:
    """A compiled graph with its weights initialized: :meth:`run` binds numpy inputs and executes it once."""

    def __init__(self, device: Device, compiled: Any, inputs: dict[str, tuple[int, tuple[int, ...], np.dtype, int]],
                 weights: dict[int, tuple[bytes, TensorLayout]], outputs: dict[str, TensorLayout]) -> None:
        self.device, self.compiled = device, compiled
        self.inputs, self.outputs = inputs, outputs
        self.input_layouts: dict[str, TensorLayout] = {}  # the 4-bit inputs' packed layouts (GraphBuilder.compile)
        props = compiled.GetBindingProperties()
        self.persistent = None
        if props.PersistentResourceSize:
            self.persistent = DML_BUFFER_BINDING(device.CreateBuffer(props.PersistentResourceSize), 0,
                                                 props.PersistentResourceSize)
        self.temporary = None
        if props.TemporaryResourceSize:
            self.temporary = DML_BUFFER_BINDING(device.CreateBuffer(props.TemporaryResourceSize), 0,
                                                props.TemporaryResourceSize)
        self._initialize(weights)
        self.input_buffers = {name: device.CreateBuffer(size) for name, (_, _, _, size) in inputs.items()}
        self.output_buffers = {name: device.CreateBuffer(layout.total_bytes) for name, layout in outputs.items()}
        table = device.CreateBindingTable(DML_BINDING_TABLE_DESC(compiled, None, None, props.RequiredDescriptorCount))
        by_index = {entry[0]: name for name, entry in inputs.items()}
        bindings = []
        for index in range(compiled.input_count):
            name = by_index.get(index)
            if name is None:
                bindings.append(DML_BINDING_DESC(DML_BINDING_TYPE.DML_BINDING_TYPE_NONE, None))
            else:
                buffer = self.input_buffers[name]
                bindings.append(DML_BINDING_DESC(DML_BINDING_TYPE.DML_BINDING_TYPE_BUFFER,
                                                 DML_BUFFER_BINDING(buffer, 0, buffer.size)))
        table.BindInputs(bindings)
        table.BindOutputs([DML_BINDING_DESC(DML_BINDING_TYPE.DML_BINDING_TYPE_BUFFER,
                                            DML_BUFFER_BINDING(b, 0, b.size)) for b in self.output_buffers.values()])
        self.table = table  # bound for good: a caller may record the dispatch itself (dmlsim bench's onnx-resnet)
        if self.temporary:
            table.BindTemporaryResource(DML_BINDING_DESC(DML_BINDING_TYPE.DML_BINDING_TYPE_BUFFER, self.temporary))
        if self.persistent:
            table.BindPersistentResource(DML_BINDING_DESC(DML_BINDING_TYPE.DML_BINDING_TYPE_BUFFER, self.persistent))
        self.command_list = device.CreateCommandList()
        device.CreateCommandRecorder().RecordDispatch(self.command_list, compiled, table)
        self.queue = device.CreateCommandQueue()

    def _initialize(self, weights: dict[int, tuple[bytes, TensorLayout]]) -> None:
        """IDMLOperatorInitializer over the graph: the weights' bytes into the persistent resource."""
        initializer = self.device.CreateOperatorInitializer([self.compiled])
        table = self.device.CreateBindingTable(DML_BINDING_TABLE_DESC(
            initializer, None, None, initializer.GetBindingProperties().RequiredDescriptorCount))
        if weights:
            bindings = []
            for index in range(self.compiled.input_count):
                if index in weights:
                    data, layout = weights[index]
                    buffer = _buffer_with(self.device, data, layout.total_bytes)
                    bindings.append(DML_BUFFER_BINDING(buffer, 0, layout.total_bytes))
                else:
                    bindings.append(DML_BUFFER_BINDING(None, 0, 0))
            table.BindInputs([DML_BINDING_DESC(DML_BINDING_TYPE.DML_BINDING_TYPE_BUFFER_ARRAY,
                                               DML_BUFFER_ARRAY_BINDING(len(bindings), bindings))])
        else:
            table.BindInputs([DML_BINDING_DESC(DML_BINDING_TYPE.DML_BINDING_TYPE_NONE, None)])
        table.BindOutputs([DML_BINDING_DESC(DML_BINDING_TYPE.DML_BINDING_TYPE_BUFFER, self.persistent)
                           if self.persistent else DML_BINDING_DESC(DML_BINDING_TYPE.DML_BINDING_TYPE_NONE, None)])
        cmd = self.device.CreateCommandList()
        self.device.CreateCommandRecorder().RecordDispatch(cmd, initializer, table)
        queue = self.device.CreateCommandQueue()
        queue.ExecuteCommandLists([cmd])
        queue.WaitForIdle()

    def run(self, inputs: dict[str, Any]) -> dict[str, np.ndarray]:
        """Write ``inputs`` (numpy arrays by graph input name), execute the graph once, read every output."""
        missing = set(self.inputs) - set(inputs)
        if missing:
            raise invalid(f"CompiledNetwork.run: inputs {sorted(missing)} not given")
        for name, values in inputs.items():
            if name not in self.inputs:
                raise invalid(f"CompiledNetwork.run: {name!r} is not a graph input ({sorted(self.inputs)})")
            _, sizes, dtype, _ = self.inputs[name]
            array = np.asarray(values, dtype=dtype)
            if array.size != int(np.prod(sizes)):
                raise invalid(f"CompiledNetwork.run: input {name!r} has {array.size} elements, its tensor "
                              f"{list(sizes)} {int(np.prod(sizes))}")
            layout = self.input_layouts.get(name)
            if layout is not None and layout.sub_byte:  # two values per byte, low nibble first
                image = np.zeros(layout.total_bytes, np.uint8)
                store_elements(image, layout, 0, array.reshape(layout.sizes))
                self.input_buffers[name].Write(image.tobytes())
            else:
                self.input_buffers[name].Write(np.ascontiguousarray(array).tobytes())
        self.queue.ExecuteCommandLists([self.command_list])
        self.queue.WaitForIdle()
        return {name: read_tensor(self.output_buffers[name], layout) for name, layout in self.outputs.items()}


__all__ = ["CONSTANT_NODE_BYTES", "CompiledNetwork", "GraphBuilder"]
