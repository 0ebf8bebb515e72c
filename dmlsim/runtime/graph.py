"""IDMLDevice1::CompileGraph: several operators compiled into one dispatchable.

A :class:`CompiledGraph` binds the graph's inputs and outputs (``InputCount``/``OutputCount`` slots) and
runs its nodes in dependency order; every intermediate tensor (and every node output no edge reads) lives
in the temporary resource, after which each node's own temporary space is shared by all nodes.

Node inputs and outputs are indexed as DirectML's edges index them: the desc's tensor fields in struct
order, a tensor array counting one index per element. dmlsim's readings where the docs are terse (they say
nothing of the layouts an edge joins): an intermediate edge joins a node output and a node input whose
TotalTensorSizeInBytes is at most the output's, each addressing the bytes with its own desc (sizes, strides,
even the data type), since onnxruntime's DirectML provider compiles Reshape, Flatten, Squeeze and Unsqueeze
into no node at all, only the reader's desc giving the new shape; a graph input read by several nodes is
likewise read through each reader's desc, and its binding must hold the largest TotalTensorSizeInBytes among
them; a graph output is written by exactly one output edge; graph outputs may not alias graph inputs (a graph is not
in-place eligible).

Constant nodes (DML_GRAPH_NODE_TYPE_CONSTANT, DML_FEATURE_LEVEL_6_2; onnxruntime's DirectML provider makes one of
every initializer of a few bytes): a node with no inputs and one output, output 0, whose bytes are copied from
``Data`` when the graph is compiled into a device buffer the compiled graph owns. Only intermediate edges may
leave it (a graph output is written by an operator); each input it feeds reads the bytes with its own layout, so
DataSize must cover the bytes that layout addresses (its span, before DMLCalcBufferTensorSize's rounding to 4).

OWNED_BY_DML inputs inside graphs are DirectML's weights bound once: the node input is fed by a graph input (or
a constant node), that graph input feeds only OWNED_BY_DML inputs of one layout, and it is bound to the
operator initializer (one DML_BUFFER_ARRAY_BINDING per graph with InputCount bindings, a null Buffer for the
other inputs), which copies it into the graph's persistent resource (one slot per such input, each aligned to
DML_PERSISTENT_BUFFER_ALIGNMENT); at execution its binding must be NONE and the persistent resource bound. An
intermediate edge into an OWNED_BY_DML input is refused (an operator's output is not a weight known at
initialization).

One node output may feed several graph outputs (DirectMLX's graph builder emits one output edge per output
expression, the same expression twice included, and refuses only an output wired straight to an input):
the node writes the first of them and an ELEMENT_WISE_IDENTITY on the unsigned integer type of the same
element size copies its elements, bit for bit, into each of the others, so every graph output is written
and bytes between strided elements are left alone, as the node itself leaves them.

A graph input no edge reads is legal (onnxruntime's DirectML provider binds nothing to such inputs): its
slot takes DML_BINDING_TYPE_NONE. Hostile descs cost time linear in the desc: every count is checked
against its array before anything is sized from it, OutputCount against OutputEdgeCount (each graph output
needs an output edge), InputCount is never iterated (its slots are made when a binding asks for them), the
nodes are ordered in O(nodes + edges), and a refusal lists at most :data:`PROBLEMS_LISTED` problems.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

from dmlsim.api.arguments import UINT32_MAX, as_enum, invalid, is_integer, require_flags, shown
from dmlsim.api.directml_schema import DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC
from dmlsim.api.enums import (
    DML_EXECUTION_FLAGS,
    DML_GRAPH_EDGE_TYPE,
    DML_GRAPH_NODE_TYPE,
    DML_OPERATOR_TYPE,
    DML_TENSOR_DATA_TYPE,
)
from dmlsim.api.errors import E_INVALIDARG, E_NOTIMPL, DMLError, Problems
from dmlsim.api.structs import (
    DML_BINDING_PROPERTIES,
    DML_CONSTANT_DATA_GRAPH_NODE_DESC,
    DML_GRAPH_DESC,
    DML_GRAPH_EDGE_DESC,
    DML_GRAPH_NODE_DESC,
    DML_INPUT_GRAPH_EDGE_DESC,
    DML_INTERMEDIATE_GRAPH_EDGE_DESC,
    DML_OPERATOR_DESC,
    DML_OPERATOR_GRAPH_NODE_DESC,
    DML_OUTPUT_GRAPH_EDGE_DESC,
    buffer_tensor,
)
from dmlsim.api.tensor import DML_PERSISTENT_BUFFER_ALIGNMENT, DML_TEMPORARY_BUFFER_ALIGNMENT, TensorLayout
from dmlsim.runtime.binding import BindingSlot, BindingTable, check_hazards
from dmlsim.runtime.dispatchable import CompiledOperator, OperatorObject
from dmlsim.runtime.execution import BoundTensor, Dispatchable, ResolvedDispatch, ResolvedGraph

if TYPE_CHECKING:
    from dmlsim.runtime.device import Device

_E = DML_GRAPH_EDGE_TYPE
EDGE_KINDS = {"InputEdges": (_E.DML_GRAPH_EDGE_TYPE_INPUT, DML_INPUT_GRAPH_EDGE_DESC),
              "OutputEdges": (_E.DML_GRAPH_EDGE_TYPE_OUTPUT, DML_OUTPUT_GRAPH_EDGE_DESC),
              "IntermediateEdges": (_E.DML_GRAPH_EDGE_TYPE_INTERMEDIATE, DML_INTERMEDIATE_GRAPH_EDGE_DESC)}
# each array of DML_GRAPH_DESC and the count field that gives its length
ARRAYS = {"Nodes": "NodeCount", "InputEdges": "InputEdgeCount", "OutputEdges": "OutputEdgeCount",
          "IntermediateEdges": "IntermediateEdgeCount"}
# the edge fields that index something, in struct order
INDEX_FIELDS = {"InputEdges": ("GraphInputIndex", "ToNodeIndex", "ToNodeInputIndex"),
                "OutputEdges": ("FromNodeIndex", "FromNodeOutputIndex", "GraphOutputIndex"),
                "IntermediateEdges": ("FromNodeIndex", "FromNodeOutputIndex", "ToNodeIndex", "ToNodeInputIndex")}
PROBLEMS_LISTED = 100  # a refusal lists this many problems and counts the rest (model-files guide)
_SHOWN_NODES = 10  # nodes named in a cycle's message
# the unsigned type of each element size: what copies a tensor's elements bit for bit
_T = DML_TENSOR_DATA_TYPE
_UINT_OF_SIZE = {1: _T.DML_TENSOR_DATA_TYPE_UINT8, 2: _T.DML_TENSOR_DATA_TYPE_UINT16,
                 4: _T.DML_TENSOR_DATA_TYPE_UINT32, 8: _T.DML_TENSOR_DATA_TYPE_UINT64}


def _align(n: int, alignment: int = DML_TEMPORARY_BUFFER_ALIGNMENT) -> int:
    return -(-n // alignment) * alignment


@dataclass
class ConstantNode:
    """A DML_GRAPH_NODE_TYPE_CONSTANT node: its bytes (copied at compile time) and its place in the graph's
    constant buffer, which CompileGraph fills once the edges say how many bytes its readers address."""

    index: int
    data: bytes
    label: str | None
    offset: int = 0

    @property
    def name(self) -> str:
        return f"constant node {self.index}" + (f" ({self.label!r})" if self.label else "")


def _constant_bytes(desc: Any, where: str, problems: Problems) -> bytes | None:
    """The bytes of a DML_CONSTANT_DATA_GRAPH_NODE_DESC (``Data`` bytes-like, ``DataSize`` of them, at least 1)."""
    if not isinstance(desc, DML_CONSTANT_DATA_GRAPH_NODE_DESC):
        problems.add(f"{where}.Desc must be a DML_CONSTANT_DATA_GRAPH_NODE_DESC for a DML_GRAPH_NODE_TYPE_CONSTANT "
                     f"node, got {type(desc).__name__}")
        return None
    _check_name(desc.Name, f"{where}.Desc", problems)
    size = desc.DataSize
    if not is_integer(size) or not 1 <= size <= UINT32_MAX:
        problems.add(f"{where}.Desc.DataSize must be an integer in [1, {UINT32_MAX}], got {shown(size)}")
        return None
    try:
        view = memoryview(desc.Data).cast("B")
    except TypeError:
        problems.add(f"{where}.Desc.Data must be bytes-like (bytes, bytearray, a numpy array), got "
                     f"{type(desc.Data).__name__}")
        return None
    if len(view) < size:
        problems.add(f"{where}.Desc.Data holds {len(view)} bytes, fewer than DataSize {int(size)}")
        return None
    return bytes(view[:int(size)])


class GraphProblems(Problems):
    """Problems that keeps the first :data:`PROBLEMS_LISTED` and counts the rest, so a desc with a million bad
    edges is refused in linear time with a message of bounded size."""

    def __init__(self) -> None:
        super().__init__()
        self.unlisted = 0

    def add(self, message: str) -> None:
        if len(self.items) >= PROBLEMS_LISTED:
            self.unlisted += 1
            return
        super().add(message)

    def raise_if_any(self, what: str, hresult: int = E_INVALIDARG) -> None:
        if not self.unlisted:
            super().raise_if_any(what, hresult)
            return
        listing = "\n".join(f"  - {p}" for p in self.items)
        raise DMLError(hresult, f"{what}: {len(self.items) + self.unlisted} problems, the first {len(self.items)} "
                                f"listed:\n{listing}", self.items)


@dataclass(frozen=True)
class Port:
    """One flattened input or output of a node: its desc field, the array index (None for a plain
    field) and its layout (None for an absent optional tensor)."""

    field: str
    index: int | None
    layout: TensorLayout | None
    optional: bool

    @property
    def label(self) -> str:
        return self.field if self.index is None else f"{self.field}[{self.index}]"


def node_ports(compiled: CompiledOperator, role: str) -> list[Port]:
    """A node's inputs (``role`` "input") or outputs, indexed as graph edges index them."""
    rows = compiled.operator.input_fields if role == "input" else compiled.operator.output_fields
    ports = []
    for row in rows:
        layouts = compiled.validated.tensors.get(row.name)
        if isinstance(layouts, list):
            ports += [Port(row.name, i, layout, row.spec.optional) for i, layout in enumerate(layouts)]
        else:
            ports.append(Port(row.name, None, layouts, row.spec.optional))
    return ports


def _read_arrays(desc: Any) -> tuple[int, int, dict[str, list[Any]]]:
    """InputCount, OutputCount and the four arrays of ``desc``, every count checked against its array (and
    OutputCount against the output edges) before anything is sized from them; a refusal is raised at once."""
    if not isinstance(desc, DML_GRAPH_DESC):
        raise invalid(f"CompileGraph needs a DML_GRAPH_DESC, got {type(desc).__name__}")
    problems = GraphProblems()
    counts = {}
    for name, minimum in (("InputCount", 0), ("OutputCount", 1)):
        value = getattr(desc, name, None)
        if is_integer(value) and minimum <= value <= UINT32_MAX:
            counts[name] = int(value)
        else:
            problems.add(f"DML_GRAPH_DESC.{name} must be an integer in [{minimum}, {UINT32_MAX}], got "
                         f"{type(value).__name__} {shown(value)}")
    arrays: dict[str, list[Any]] = {}
    for name, count_name in ARRAYS.items():
        items, count = getattr(desc, name, None), getattr(desc, count_name, None)
        if items is None:  # a null array: C's nullptr with a zero count
            items = ()
        if not isinstance(items, (list, tuple)):
            problems.add(f"DML_GRAPH_DESC.{name} must be a list, got {type(items).__name__} {shown(items)}")
        elif not is_integer(count) or not 0 <= count <= UINT32_MAX:
            problems.add(f"DML_GRAPH_DESC.{count_name} must be an integer in [0, {UINT32_MAX}], got "
                         f"{type(count).__name__} {shown(count)}")
        elif count != len(items):
            problems.add(f"DML_GRAPH_DESC.{count_name} {int(count)} must be the number of {name} ({len(items)})")
        else:
            arrays[name] = list(items)
    if arrays.get("Nodes") == []:
        problems.add("DML_GRAPH_DESC.NodeCount must be at least 1")
    output_count, output_edges = counts.get("OutputCount"), arrays.get("OutputEdges")
    if output_count is not None and output_edges is not None and output_count > len(output_edges):
        problems.add(f"DML_GRAPH_DESC.OutputCount {output_count} is more than OutputEdgeCount {len(output_edges)}: "
                     "every graph output is written by an output edge")
    if len(counts) == 2 and counts["InputCount"] + counts["OutputCount"] > UINT32_MAX:
        problems.add(f"DML_GRAPH_DESC.InputCount + OutputCount must be at most {UINT32_MAX} (the binding "
                     "properties' RequiredDescriptorCount is a UINT)")
    problems.raise_if_any("CompileGraph")
    return counts["InputCount"], counts["OutputCount"], arrays


def _check_name(value: Any, where: str, problems: Problems) -> None:
    """The optional Name of a node or edge: a str (C's const char*) or None."""
    if value is not None and not isinstance(value, str):
        problems.add(f"{where}.Name must be a str or None, got {type(value).__name__}")


class _InputSlots(Sequence[BindingSlot]):
    """The graph's input slots, made when asked for: InputCount may be large (unread inputs are legal), and
    nothing but a binding list of that length needs them all."""

    def __init__(self, graph: CompiledGraph) -> None:
        self.graph = graph

    def __len__(self) -> int:
        return self.graph.input_count

    def __iter__(self) -> Iterator[BindingSlot]:
        return (self[i] for i in range(len(self)))

    @overload
    def __getitem__(self, index: int) -> BindingSlot: ...

    @overload
    def __getitem__(self, index: slice) -> list[BindingSlot]: ...

    def __getitem__(self, index: int | slice) -> BindingSlot | list[BindingSlot]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not 0 <= index < len(self):
            raise IndexError(index)
        read = self.graph.inputs.get(index)
        owned = index in self.graph.persistent
        return BindingSlot(f"graph input {index}", self.graph.graph_input_layout(index) if read else None, not read,
                           must_be_none="the graph input feeds OWNED_BY_DML inputs: it is bound to the operator "
                                        "initializer" if owned else None)


class _InitializerLayouts(Sequence[TensorLayout | None]):
    """The layouts an operator initializer binds for a graph, one per graph input, made when asked for."""

    def __init__(self, graph: CompiledGraph) -> None:
        self.graph = graph

    def __len__(self) -> int:
        return self.graph.input_count

    def __iter__(self) -> Iterator[TensorLayout | None]:
        return (self[i] for i in range(len(self)))

    @overload
    def __getitem__(self, index: int) -> TensorLayout | None: ...

    @overload
    def __getitem__(self, index: slice) -> list[TensorLayout | None]: ...

    def __getitem__(self, index: int | slice) -> TensorLayout | list[TensorLayout | None] | None:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not 0 <= index < len(self):
            raise IndexError(index)
        owned = index in self.graph.persistent
        return self.graph.graph_input_layout(index) if owned else None


class CompiledGraph(Dispatchable):
    """IDMLCompiledOperator made by IDMLDevice1::CompileGraph from a DML_GRAPH_DESC."""

    def __init__(self, device: Device, desc: DML_GRAPH_DESC, flags: int) -> None:
        self.device = device
        self.flags = require_flags(flags, DML_EXECUTION_FLAGS, "CompileGraph: flags")
        self.input_count, self.output_count, arrays = _read_arrays(desc)
        problems = GraphProblems()
        self.nodes: list[CompiledOperator | ConstantNode] = self._compile_nodes(arrays["Nodes"], problems)
        problems.raise_if_any("CompileGraph")
        self.in_ports = [[] if isinstance(node, ConstantNode) else node_ports(node, "input") for node in self.nodes]
        self.out_ports = [[Port("Data", None, None, False)] if isinstance(node, ConstantNode)
                          else node_ports(node, "output") for node in self.nodes]
        edges = {kind: self._edges(arrays[kind], kind, problems) for kind in EDGE_KINDS}
        problems.raise_if_any("CompileGraph")
        self.inputs: dict[int, list[tuple[int, int]]] = {}  # graph input → the (node, input)s it feeds
        self.outputs: dict[int, tuple[int, int]] = {}  # graph output → the (node, output) that writes it
        # (node, input) → ("input", i) | ("node", (n, o)) | ("constant", n)
        self.feeds: dict[tuple[int, int], tuple[str, Any]] = {}
        self._connect(edges, problems)
        self._check_owned(problems)
        problems.raise_if_any("CompileGraph")
        self.order = [n for n in self._order(problems) if not isinstance(self.nodes[n], ConstantNode)]
        problems.raise_if_any("CompileGraph")
        self._place_scratch()
        self._place_persistent()
        self._plan_copies()
        self._upload_constants()

    # --- compile-time checks --------------------------------------------------------------------------
    def _compile_nodes(self, nodes: list[Any], problems: Problems) -> list[CompiledOperator | ConstantNode]:
        compiled: list[CompiledOperator | ConstantNode] = []
        for i, node in enumerate(nodes):
            where = f"DML_GRAPH_DESC.Nodes[{i}]"
            if not isinstance(node, DML_GRAPH_NODE_DESC):
                problems.add(f"{where} must be a DML_GRAPH_NODE_DESC, got {type(node).__name__}")
                continue
            kind = as_enum(node.Type, DML_GRAPH_NODE_TYPE)
            if kind == DML_GRAPH_NODE_TYPE.DML_GRAPH_NODE_TYPE_CONSTANT:
                data = _constant_bytes(node.Desc, where, problems)
                if data is not None:
                    compiled.append(ConstantNode(i, data, node.Desc.Name))
                continue
            if kind != DML_GRAPH_NODE_TYPE.DML_GRAPH_NODE_TYPE_OPERATOR:
                problems.add(f"{where}.Type must be DML_GRAPH_NODE_TYPE_OPERATOR or DML_GRAPH_NODE_TYPE_CONSTANT, "
                             f"got {shown(node.Type)}")
                continue
            op = node.Desc.Operator if isinstance(node.Desc, DML_OPERATOR_GRAPH_NODE_DESC) else None
            if not isinstance(op, OperatorObject) or op.device is not self.device:
                problems.add(f"{where}.Desc must be a DML_OPERATOR_GRAPH_NODE_DESC whose Operator was created by "
                             "this device")
                continue
            _check_name(node.Desc.Name, f"{where}.Desc", problems)
            compiled.append(self.device.CompileOperator(op, self.flags))
        return compiled

    def _edges(self, items: list[Any], kind: str, problems: Problems) -> list[tuple[str, Any]]:
        """The well-formed edges of one array, each with the ``where`` its messages name."""
        edge_type, desc_cls = EDGE_KINDS[kind]
        found = []
        for i, edge in enumerate(items):
            where = f"DML_GRAPH_DESC.{kind}[{i}]"
            if (not isinstance(edge, DML_GRAPH_EDGE_DESC) or as_enum(edge.Type, DML_GRAPH_EDGE_TYPE) != edge_type
                    or not isinstance(edge.Desc, desc_cls)):
                problems.add(f"{where} must be a DML_GRAPH_EDGE_DESC of type {edge_type.name} holding a "
                             f"{desc_cls.__name__}")
                continue
            bad = [name for name in INDEX_FIELDS[kind] if not is_integer(getattr(edge.Desc, name))]
            for name in bad:
                value = getattr(edge.Desc, name)
                problems.add(f"{where}.{name} must be an integer, got {type(value).__name__} {shown(value)}")
            _check_name(edge.Desc.Name, where, problems)
            if not bad:
                found.append((where, edge.Desc))
        return found

    def _port(self, node: int, index: int, role: str, where: str, problems: Problems) -> Port | None:
        if not 0 <= node < len(self.nodes):
            problems.add(f"{where} node index {shown(int(node))} is not a node (NodeCount {len(self.nodes)})")
            return None
        ports = (self.in_ports if role == "input" else self.out_ports)[node]
        if not 0 <= index < len(ports):
            problems.add(f"{where} {role} index {shown(int(index))} is not an {role} of node {node} "
                         f"({self.nodes[node].name} has {len(ports)})")
            return None
        if ports[index].layout is None and not isinstance(self.nodes[node], ConstantNode):
            problems.add(f"{where} connects {self.nodes[node].name}.{ports[index].label}, which is null in its desc")
            return None
        return ports[index]

    def _connect(self, edges: dict[str, list[tuple[str, Any]]], problems: Problems) -> None:
        def feed(node: int, index: int, source: tuple[str, Any], where: str) -> None:
            if (node, index) in self.feeds:
                problems.add(f"{where}: input {index} of node {node} is already connected")
            self.feeds[(node, index)] = source

        for where, e in edges["InputEdges"]:
            graph_input, node, index = int(e.GraphInputIndex), int(e.ToNodeIndex), int(e.ToNodeInputIndex)
            if not 0 <= graph_input < self.input_count:
                problems.add(f"{where}.GraphInputIndex {shown(graph_input)} must be below InputCount "
                             f"{self.input_count}")
                continue
            port = self._port(node, index, "input", where, problems)
            if port is None:
                continue
            self.inputs.setdefault(graph_input, []).append((node, index))
            feed(node, index, ("input", graph_input), where)
        for where, e in edges["IntermediateEdges"]:
            source_node, output = int(e.FromNodeIndex), int(e.FromNodeOutputIndex)
            node, index = int(e.ToNodeIndex), int(e.ToNodeInputIndex)
            source = self._port(source_node, output, "output", where, problems)
            target = self._port(node, index, "input", where, problems)
            if source is None or target is None:
                continue
            if isinstance(self.nodes[source_node], ConstantNode):
                self._feed_constant(self.nodes[source_node], node, target, where, problems)
                feed(node, index, ("constant", source_node), where)
                continue
            if target.layout.owned_by_dml:
                problems.add(f"{where}: {self.nodes[node].name}.{target.label} is OWNED_BY_DML: it takes a graph input "
                             "bound to the operator initializer or a constant node, not an operator's output")
            if target.layout.total_bytes > source.layout.total_bytes:
                problems.add(f"{where}: {self.nodes[node].name}.{target.label} ({target.layout.describe()}, "
                             f"TotalTensorSizeInBytes {target.layout.total_bytes}) reads more bytes than "
                             f"{self.nodes[source_node].name}.{source.label} ({source.layout.describe()}, "
                             f"{source.layout.total_bytes}) holds")
            feed(node, index, ("node", (source_node, output)), where)
        for where, e in edges["OutputEdges"]:
            node, output, graph_output = int(e.FromNodeIndex), int(e.FromNodeOutputIndex), int(e.GraphOutputIndex)
            if not 0 <= graph_output < self.output_count:
                problems.add(f"{where}.GraphOutputIndex {shown(graph_output)} must be below OutputCount "
                             f"{self.output_count}")
                continue
            if self._port(node, output, "output", where, problems) is None:
                continue
            if isinstance(self.nodes[node], ConstantNode):
                problems.add(f"{where}: {self.nodes[node].name} cannot write a graph output (only an operator node "
                             "writes one; a constant node feeds operator inputs through intermediate edges)")
                continue
            if graph_output in self.outputs:
                problems.add(f"{where}: graph output {graph_output} already has an output edge")
            self.outputs[graph_output] = (node, output)
        if len(self.outputs) < self.output_count:  # OutputCount ≤ OutputEdgeCount: a loop as long as an array
            for index in range(self.output_count):
                if index not in self.outputs:
                    problems.add(f"DML_GRAPH_DESC.OutputEdges: graph output {index} is written by no output edge")
        for n, ports in enumerate(self.in_ports):
            for i, port in enumerate(ports):
                if port.layout is not None and (n, i) not in self.feeds:
                    problems.add(f"DML_GRAPH_DESC: input {i} ({self.nodes[n].name}.{port.label}) of node {n} is "
                                 "connected by no edge")

    def _feed_constant(self, constant: ConstantNode, node: int, target: Port, where: str, problems: Problems) -> None:
        """A constant node feeding an operator input: its bytes must cover what the input's layout addresses."""
        assert target.layout is not None
        need = target.layout.span_bytes
        if len(constant.data) < need:
            problems.add(f"{where}: {constant.name} holds {len(constant.data)} bytes (DataSize), fewer than the "
                         f"{need} that {self.nodes[node].name}.{target.label} ({target.layout.describe()}) reads")

    def _check_owned(self, problems: Problems) -> None:
        """A graph input feeding an OWNED_BY_DML node input feeds only OWNED_BY_DML inputs."""
        self.owned_inputs: list[int] = []
        for graph_input, ports in sorted(self.inputs.items()):
            owned = [self.input_layout(port).owned_by_dml for port in ports]
            if all(owned):
                self.owned_inputs.append(graph_input)
            elif any(owned):
                problems.add(f"DML_GRAPH_DESC.InputEdges: graph input {graph_input} feeds OWNED_BY_DML and other "
                             "inputs: an OWNED_BY_DML input needs a graph input of its own (bound to the operator "
                             "initializer)")

    def graph_input_layout(self, graph_input: int) -> TensorLayout:
        """The layout a read graph input is bound with: its reader's with the largest TotalTensorSizeInBytes."""
        return max((self.input_layout(port) for port in self.inputs[graph_input]), key=lambda lay: lay.total_bytes)

    def input_layout(self, port: tuple[int, int]) -> TensorLayout:
        """The layout of node input ``port`` = (node, input), which an edge connects (so it is not null)."""
        layout = self.in_ports[port[0]][port[1]].layout
        assert layout is not None
        return layout

    def output_layout(self, port: tuple[int, int]) -> TensorLayout:
        """The layout of node output ``port`` = (node, output), which an edge connects (so it is not null)."""
        layout = self.out_ports[port[0]][port[1]].layout
        assert layout is not None
        return layout

    def _order(self, problems: Problems) -> list[int]:
        """The nodes in an order where each runs after the nodes it reads from (the lowest-numbered ready node
        first: Kahn's algorithm with a heap, O((nodes + edges) log nodes)); a cycle is refused."""
        waiting = [0] * len(self.nodes)  # intermediate edges into each node from nodes not yet ordered
        readers: list[list[int]] = [[] for _ in self.nodes]
        for (to, _), (kind, source) in self.feeds.items():
            if kind == "node":
                waiting[to] += 1
                readers[source[0]].append(to)
        ready = [n for n, count in enumerate(waiting) if count == 0]
        heapq.heapify(ready)
        order: list[int] = []
        while ready:
            n = heapq.heappop(ready)
            order.append(n)
            for reader in readers[n]:
                waiting[reader] -= 1
                if waiting[reader] == 0:
                    heapq.heappush(ready, reader)
        if len(order) < len(self.nodes):
            stuck = [n for n, count in enumerate(waiting) if count]
            shown_nodes = ", ".join(map(str, stuck[:_SHOWN_NODES])) + (", ..." if len(stuck) > _SHOWN_NODES else "")
            problems.add(f"DML_GRAPH_DESC.IntermediateEdges form a cycle through nodes [{shown_nodes}] "
                         f"({len(stuck)} nodes wait on one another)")
        return order

    def _place_scratch(self) -> None:
        """Offsets in the temporary resource: every node output that is not a graph output, then the
        space the node with the largest temporary resource needs (nodes run one after another)."""
        written = set(self.outputs.values())
        self.scratch: dict[tuple[int, int], int] = {}
        offset = 0
        for n, ports in enumerate(self.out_ports):
            if isinstance(self.nodes[n], ConstantNode):
                continue
            for o, port in enumerate(ports):
                if port.layout is not None and (n, o) not in written:
                    self.scratch[(n, o)] = offset
                    offset = _align(offset + port.layout.total_bytes)
        self.node_temporary_offset = offset
        self.temporary_size = offset + max(
            (_align(node.GetBindingProperties().TemporaryResourceSize) for node in self.operator_nodes()), default=0)

    def operator_nodes(self) -> list[CompiledOperator]:
        """The operator nodes (constant nodes dispatch nothing)."""
        return [node for node in self.nodes if isinstance(node, CompiledOperator)]

    def _place_persistent(self) -> None:
        """A persistent-resource slot for each graph input that feeds OWNED_BY_DML inputs."""
        self.persistent: dict[int, int] = {}
        offset = 0
        for graph_input in self.owned_inputs:
            self.persistent[graph_input] = offset
            offset = _align(offset + self.graph_input_layout(graph_input).total_bytes,
                            DML_PERSISTENT_BUFFER_ALIGNMENT)
        self.persistent_size = offset

    def _upload_constants(self) -> None:
        """Every constant node's bytes in one device buffer the compiled graph owns (zero-filled past DataSize up
        to what its readers' TotalTensorSizeInBytes bind), written once, now."""
        reach: dict[int, int] = {}
        for (node, index), (kind, source) in self.feeds.items():
            if kind == "constant":
                reach[source] = max(reach.get(source, 0), self.input_layout((node, index)).total_bytes)
        offset = 0
        for n in sorted(reach):
            constant = self.nodes[n]
            assert isinstance(constant, ConstantNode)
            constant.offset = offset
            offset = _align(offset + max(reach[n], len(constant.data)))
        self.constants = self.device.CreateBuffer(offset) if offset else None
        for n in reach:
            constant = self.nodes[n]
            assert isinstance(constant, ConstantNode) and self.constants is not None
            self.constants.Write(constant.data, constant.offset)
    def _plan_copies(self) -> None:
        """For a node output wired to several graph outputs: the graph output the node writes (the first) and
        the copies into the others, each an ELEMENT_WISE_IDENTITY of the layout's unsigned integer type."""
        self.written: dict[tuple[int, int], int] = {}  # node output → the graph output it is bound to
        self.copies: dict[tuple[int, int], list[tuple[int, CompiledOperator]]] = {}
        identities: dict[tuple[Any, ...], CompiledOperator] = {}
        for index in sorted(self.outputs):
            source = self.outputs[index]
            if source not in self.written:
                self.written[source] = index
                continue
            layout = self.output_layout(source)
            key = (layout.element_bits, layout.sizes, layout.strides, layout.total_bytes, layout.alignment)
            if key not in identities:
                identities[key] = self.device.CompileOperator(self.device.CreateOperator(_identity_desc(layout)),
                                                              self.flags)
            self.copies.setdefault(source, []).append((index, identities[key]))

    # --- IDMLDispatchable ----------------------------------------------------------------------------
    @property
    def name(self) -> str:
        names = ", ".join(node.name for node in self.nodes[:_SHOWN_NODES])
        return f"graph of {len(self.nodes)} ({names}{', ...' if len(self.nodes) > _SHOWN_NODES else ''})"

    def GetBindingProperties(self) -> DML_BINDING_PROPERTIES:
        return DML_BINDING_PROPERTIES(self.input_count + self.output_count, self.temporary_size, self.persistent_size)

    def input_slots(self) -> Sequence[BindingSlot]:
        return _InputSlots(self)

    def output_slots(self) -> list[BindingSlot]:
        return [BindingSlot(f"graph output {i}", self.output_layout(self.outputs[i]), False)
                for i in range(self.output_count)]

    # --- IDMLOperatorInitializer's view ------------------------------------------------------------------
    def initializer_layouts(self) -> Sequence[TensorLayout | None]:
        """What the operator initializer binds for this graph: one entry per graph input, the layout of each
        OWNED_BY_DML one, None for the others (made when asked for, as the input slots are); empty when no
        graph input is owned."""
        return _InitializerLayouts(self) if self.persistent else []

    def initializer_input_count(self) -> int:
        """Bindings of this graph in an initializer's input array: one per graph input."""
        return self.input_count

    def initializer_copies(self, sources: Sequence[BoundTensor | None],
                           persistent: BoundTensor | None) -> list[tuple[BoundTensor, BoundTensor]]:
        """The copies an initializer makes: each bound OWNED_BY_DML graph input into its persistent slot."""
        copies = []
        for graph_input, offset in self.persistent.items():
            source = sources[graph_input] if graph_input < len(sources) else None
            if source is None or persistent is None:
                continue
            copies.append((source, BoundTensor(persistent.buffer, persistent.offset + offset,
                                               source.layout.total_bytes, source.layout)))
        return copies

    def resolve(self, table: BindingTable) -> ResolvedGraph:
        """Check the table; map every node's tensors to graph inputs, outputs or temporary-resource bytes."""
        problems = Problems()
        if table.inputs is None and self.inputs:
            problems.add("BindInputs was never called")
        if table.outputs is None:
            problems.add("BindOutputs was never called")
        if self.temporary_size and table.temporary is None:
            problems.add(f"a {self.temporary_size}-byte temporary resource must be bound")
        if self.persistent_size and table.persistent is None:
            problems.add(f"a {self.persistent_size}-byte persistent resource must be bound (the OWNED_BY_DML graph "
                         "inputs live there)")
        problems.raise_if_any(f"RecordDispatch({self.name})")
        inputs, outputs = dict(table.inputs or {}), dict(table.outputs or {})
        check_hazards(inputs, outputs, set(), {"temporary": table.temporary, "persistent": table.persistent},
                      problems)
        problems.raise_if_any(f"RecordDispatch({self.name}): binding hazard")
        for graph_input, offset in self.persistent.items():
            layout = self.graph_input_layout(graph_input)
            persistent = table.persistent
            inputs[f"graph input {graph_input}"] = BoundTensor(persistent.buffer, persistent.offset + offset,
                                                               layout.total_bytes, layout)
        missing = list(dict.fromkeys(node.name for node in self.operator_nodes() if not node.operator.implemented))
        if missing:
            names = ", ".join(missing[:_SHOWN_NODES]) + (", ..." if len(missing) > _SHOWN_NODES else "")
            raise DMLError(E_NOTIMPL, f"RecordDispatch: the graph's {names} not implemented by dmlsim "
                                      "(the bindings were checked and are valid)")
        dispatches = []
        for n in self.order:
            node = self.nodes[n]
            assert isinstance(node, CompiledOperator)
            bound: dict[str, Any] = {}
            for i, port in enumerate(self.in_ports[n]):
                source = self.feeds.get((n, i))
                tensor = None
                if source is not None and source[0] == "input":
                    tensor = inputs[f"graph input {source[1]}"]
                elif source is not None and source[0] == "constant":
                    constant = self.nodes[source[1]]
                    assert isinstance(constant, ConstantNode) and self.constants is not None and port.layout
                    tensor = BoundTensor(self.constants, constant.offset, port.layout.total_bytes, port.layout)
                elif source is not None:
                    tensor = self._node_output(source[1], outputs, table.temporary)
                if tensor is not None and port.layout is not None and tensor.layout is not port.layout:
                    tensor = BoundTensor(tensor.buffer, tensor.offset, tensor.size, port.layout)  # the reader's desc
                _put(bound, port, tensor)
            for o, port in enumerate(self.out_ports[n]):
                tensor = None if port.layout is None else self._node_output((n, o), outputs, table.temporary)
                _put(bound, port, tensor)
            size = node.GetBindingProperties().TemporaryResourceSize
            temporary = (BoundTensor(table.temporary.buffer, table.temporary.offset + self.node_temporary_offset,
                                     size, None) if size else None)
            dispatches.append(ResolvedDispatch(node, bound, temporary))
            for o in range(len(self.out_ports[n])):
                for index, identity in self.copies.get((n, o), ()):
                    dispatches.append(_copy_dispatch(identity, self._node_output((n, o), outputs, table.temporary),
                                                     outputs[f"graph output {index}"]))
        return ResolvedGraph(dispatches)

    def _node_output(self, source: tuple[int, int], outputs: dict[str, Any],
                     temporary: BoundTensor | None) -> BoundTensor:
        if source in self.written:
            return outputs[f"graph output {self.written[source]}"]
        layout = self.output_layout(source)
        assert temporary is not None
        return BoundTensor(temporary.buffer, temporary.offset + self.scratch[source], layout.total_bytes, layout)


def _identity_desc(layout: TensorLayout) -> DML_OPERATOR_DESC:
    """ELEMENT_WISE_IDENTITY from ``layout`` to the same layout, on the unsigned type of its element size.

    A 4-bit tensor has no such type (the identity moves whole bytes, which would write the nibbles beside
    its elements): wiring one to several graph outputs is refused with E_NOTIMPL."""
    if layout.sub_byte:
        raise DMLError(E_NOTIMPL, "CompileGraph: a 4-bit (INT4/UINT4) node output wired to several graph outputs "
                                  "needs a nibble copy, which dmlsim does not implement")
    tensor = buffer_tensor(_UINT_OF_SIZE[layout.element_size], list(layout.sizes), list(layout.strides),
                           total_size=layout.total_bytes, alignment=layout.alignment)
    return DML_OPERATOR_DESC(DML_OPERATOR_TYPE.DML_OPERATOR_ELEMENT_WISE_IDENTITY,
                             DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(tensor, tensor))


def _copy_dispatch(identity: CompiledOperator, source: BoundTensor, destination: BoundTensor) -> ResolvedDispatch:
    """The identity dispatch copying ``source``'s elements into ``destination`` (both seen as its unsigned type)."""
    layout = identity.validated.tensors["InputTensor"]
    return ResolvedDispatch(identity, {"InputTensor": BoundTensor(source.buffer, source.offset, source.size, layout),
                                       "OutputTensor": BoundTensor(destination.buffer, destination.offset,
                                                                   destination.size, layout)}, None)


def _put(bound: dict[str, Any], port: Port, tensor: BoundTensor | None) -> None:
    if port.index is None:
        bound[port.field] = tensor
    else:
        bound.setdefault(port.field, []).append(tensor)
