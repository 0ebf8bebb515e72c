"""IDMLDevice1::CompileGraph: several operators compiled into one dispatchable.

A :class:`CompiledGraph` binds the graph's inputs and outputs (``InputCount``/``OutputCount`` slots) and
runs its nodes in dependency order; every intermediate tensor (and every node output no edge reads) lives
in the temporary resource, after which each node's own temporary space is shared by all nodes.

Node inputs and outputs are indexed as DirectML's edges index them: the desc's tensor fields in struct
order, a tensor array counting one index per element. dmlsim's readings where the docs are terse: an
intermediate edge joins a node output and a node input with the same layout (DataType, Sizes, Strides,
TotalTensorSizeInBytes); a graph input read by several nodes has one layout for all of them; a graph
output is written by exactly one output edge; graph outputs may not alias graph inputs (a graph is not
in-place eligible); OWNED_BY_DML tensors and constant nodes are not supported in graphs (E_NOTIMPL).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dmlsim.api.enums import DML_EXECUTION_FLAGS, DML_GRAPH_EDGE_TYPE, DML_GRAPH_NODE_TYPE
from dmlsim.api.errors import E_INVALIDARG, E_NOTIMPL, DMLError, Problems
from dmlsim.api.structs import (
    DML_BINDING_PROPERTIES,
    DML_GRAPH_DESC,
    DML_INPUT_GRAPH_EDGE_DESC,
    DML_INTERMEDIATE_GRAPH_EDGE_DESC,
    DML_OPERATOR_GRAPH_NODE_DESC,
    DML_OUTPUT_GRAPH_EDGE_DESC,
)
from dmlsim.api.tensor import DML_TEMPORARY_BUFFER_ALIGNMENT, TensorLayout
from dmlsim.runtime.binding import BindingSlot, BindingTable, check_hazards
from dmlsim.runtime.dispatchable import CompiledOperator, OperatorObject
from dmlsim.runtime.execution import BoundTensor, Dispatchable, ResolvedDispatch, ResolvedGraph

if TYPE_CHECKING:
    from dmlsim.runtime.device import Device

_E = DML_GRAPH_EDGE_TYPE
EDGE_KINDS = {"InputEdges": (_E.DML_GRAPH_EDGE_TYPE_INPUT, DML_INPUT_GRAPH_EDGE_DESC),
              "OutputEdges": (_E.DML_GRAPH_EDGE_TYPE_OUTPUT, DML_OUTPUT_GRAPH_EDGE_DESC),
              "IntermediateEdges": (_E.DML_GRAPH_EDGE_TYPE_INTERMEDIATE, DML_INTERMEDIATE_GRAPH_EDGE_DESC)}


def _align(n: int) -> int:
    return -(-n // DML_TEMPORARY_BUFFER_ALIGNMENT) * DML_TEMPORARY_BUFFER_ALIGNMENT


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


class CompiledGraph(Dispatchable):
    """IDMLCompiledOperator made by IDMLDevice1::CompileGraph from a DML_GRAPH_DESC."""

    def __init__(self, device: Device, desc: DML_GRAPH_DESC, flags: int) -> None:
        self.device = device
        self.flags = DML_EXECUTION_FLAGS(flags)
        problems = Problems()
        self.nodes = self._compile_nodes(desc, problems)
        self.input_count = desc.InputCount
        problems.raise_if_any("CompileGraph")
        edges = {kind: self._edges(desc, kind, problems) for kind in EDGE_KINDS}
        problems.raise_if_any("CompileGraph")
        self.inputs: dict[int, list[tuple[int, int]]] = {}  # graph input → the (node, input) it feeds
        self.outputs: dict[int, tuple[int, int]] = {}  # graph output → the (node, output) that writes it
        self.feeds: dict[tuple[int, int], tuple[str, Any]] = {}  # (node, input) → ("input", i) | ("node", (n, o))
        self._connect(desc, edges, problems)
        problems.raise_if_any("CompileGraph")
        self.order = self._order(problems)
        problems.raise_if_any("CompileGraph")
        self._place_scratch()

    # --- compile-time checks --------------------------------------------------------------------------
    def _compile_nodes(self, desc: Any, problems: Problems) -> list[CompiledOperator]:
        if not isinstance(desc, DML_GRAPH_DESC):
            raise DMLError(E_INVALIDARG, f"CompileGraph needs a DML_GRAPH_DESC, got {type(desc).__name__}")
        for name in ("InputCount", "OutputCount"):
            value = getattr(desc, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < (1 if name == "OutputCount" else 0):
                problems.add(f"DML_GRAPH_DESC.{name} must be a UINT{' ≥ 1' if name == 'OutputCount' else ''}, "
                             f"got {value!r}")
        nodes = list(desc.Nodes or ())
        if desc.NodeCount != len(nodes) or not nodes:
            problems.add(f"DML_GRAPH_DESC.NodeCount {desc.NodeCount!r} must be the number of Nodes ({len(nodes)}), "
                         "at least 1")
        compiled = []
        for i, node in enumerate(nodes):
            where = f"DML_GRAPH_DESC.Nodes[{i}]"
            if getattr(node, "Type", None) == DML_GRAPH_NODE_TYPE.DML_GRAPH_NODE_TYPE_CONSTANT:
                raise DMLError(E_NOTIMPL, f"CompileGraph: {where} is a constant node, which dmlsim does not support")
            if getattr(node, "Type", None) != DML_GRAPH_NODE_TYPE.DML_GRAPH_NODE_TYPE_OPERATOR:
                problems.add(f"{where}.Type must be DML_GRAPH_NODE_TYPE_OPERATOR, got {getattr(node, 'Type', node)!r}")
                continue
            op = getattr(node.Desc, "Operator", None) if isinstance(node.Desc, DML_OPERATOR_GRAPH_NODE_DESC) else None
            if not isinstance(op, OperatorObject) or op.device is not self.device:
                problems.add(f"{where}.Desc must be a DML_OPERATOR_GRAPH_NODE_DESC whose Operator was created by "
                             "this device")
                continue
            node_compiled = self.device.CompileOperator(op, self.flags)
            if node_compiled.owned:
                owned = ", ".join(node_compiled.owned)
                raise DMLError(E_NOTIMPL, f"CompileGraph: {where} has OWNED_BY_DML inputs ({owned}), which dmlsim "
                                          "does not support in graphs")
            compiled.append(node_compiled)
        return compiled

    def _edges(self, desc: Any, kind: str, problems: Problems) -> list[Any]:
        edge_type, desc_cls = EDGE_KINDS[kind]
        items = list(getattr(desc, kind) or ())
        count_name = kind.replace("Edges", "EdgeCount")
        if getattr(desc, count_name) != len(items):
            problems.add(f"DML_GRAPH_DESC.{count_name} {getattr(desc, count_name)!r} must be the number of "
                         f"{kind} ({len(items)})")
        found = []
        for i, edge in enumerate(items):
            if getattr(edge, "Type", None) != edge_type or not isinstance(edge.Desc, desc_cls):
                problems.add(f"DML_GRAPH_DESC.{kind}[{i}] must be a DML_GRAPH_EDGE_DESC of type {edge_type.name} "
                             f"holding a {desc_cls.__name__}")
            else:
                found.append(edge.Desc)
        return found

    def _port(self, node: Any, index: Any, role: str, where: str, problems: Problems) -> Port | None:
        if isinstance(node, bool) or not isinstance(node, int) or not 0 <= node < len(self.nodes):
            problems.add(f"{where} node index {node!r} is not a node (NodeCount {len(self.nodes)})")
            return None
        ports = node_ports(self.nodes[node], role)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(ports):
            problems.add(f"{where} {role} index {index!r} is not an {role} of node {node} "
                         f"({self.nodes[node].name} has {len(ports)})")
            return None
        if ports[index].layout is None:
            problems.add(f"{where} connects {self.nodes[node].name}.{ports[index].label}, which is null in its desc")
            return None
        return ports[index]

    def _connect(self, desc: Any, edges: dict[str, list[Any]], problems: Problems) -> None:
        def feed(node: int, index: int, source: tuple[str, Any], where: str) -> None:
            if (node, index) in self.feeds:
                problems.add(f"{where}: input {index} of node {node} is already connected")
            self.feeds[(node, index)] = source

        for i, e in enumerate(edges["InputEdges"]):
            where = f"DML_GRAPH_DESC.InputEdges[{i}]"
            if isinstance(e.GraphInputIndex, bool) or not 0 <= e.GraphInputIndex < desc.InputCount:
                problems.add(f"{where}.GraphInputIndex {e.GraphInputIndex!r} must be below InputCount "
                             f"{desc.InputCount}")
                continue
            port = self._port(e.ToNodeIndex, e.ToNodeInputIndex, "input", where, problems)
            if port is None:
                continue
            first = self.inputs.setdefault(e.GraphInputIndex, [])
            if first and not self._port_layout(*first[0], "input").same_layout(port.layout):
                problems.add(f"{where}: graph input {e.GraphInputIndex} feeds inputs of different layouts")
            first.append((e.ToNodeIndex, e.ToNodeInputIndex))
            feed(e.ToNodeIndex, e.ToNodeInputIndex, ("input", e.GraphInputIndex), where)
        for i, e in enumerate(edges["IntermediateEdges"]):
            where = f"DML_GRAPH_DESC.IntermediateEdges[{i}]"
            source = self._port(e.FromNodeIndex, e.FromNodeOutputIndex, "output", where, problems)
            target = self._port(e.ToNodeIndex, e.ToNodeInputIndex, "input", where, problems)
            if source is None or target is None:
                continue
            if not source.layout.same_layout(target.layout):
                problems.add(f"{where}: {self.nodes[e.FromNodeIndex].name}.{source.label} "
                             f"({source.layout.describe()}) and {self.nodes[e.ToNodeIndex].name}.{target.label} "
                             f"({target.layout.describe()}) must have the same layout")
            feed(e.ToNodeIndex, e.ToNodeInputIndex, ("node", (e.FromNodeIndex, e.FromNodeOutputIndex)), where)
        for i, e in enumerate(edges["OutputEdges"]):
            where = f"DML_GRAPH_DESC.OutputEdges[{i}]"
            if isinstance(e.GraphOutputIndex, bool) or not 0 <= e.GraphOutputIndex < desc.OutputCount:
                problems.add(f"{where}.GraphOutputIndex {e.GraphOutputIndex!r} must be below OutputCount "
                             f"{desc.OutputCount}")
                continue
            if self._port(e.FromNodeIndex, e.FromNodeOutputIndex, "output", where, problems) is None:
                continue
            if e.GraphOutputIndex in self.outputs:
                problems.add(f"{where}: graph output {e.GraphOutputIndex} already has an output edge")
            self.outputs[e.GraphOutputIndex] = (e.FromNodeIndex, e.FromNodeOutputIndex)
        for index in range(desc.OutputCount if isinstance(desc.OutputCount, int) else 0):
            if index not in self.outputs:
                problems.add(f"DML_GRAPH_DESC.OutputEdges: graph output {index} is written by no output edge")
        for n, node in enumerate(self.nodes):
            for i, port in enumerate(node_ports(node, "input")):
                if port.layout is not None and (n, i) not in self.feeds:
                    problems.add(f"DML_GRAPH_DESC: input {i} ({node.name}.{port.label}) of node {n} is connected "
                                 "by no edge")

    def _port_layout(self, node: int, index: int, role: str) -> TensorLayout:
        layout = node_ports(self.nodes[node], role)[index].layout
        assert layout is not None
        return layout

    def _order(self, problems: Problems) -> list[int]:
        """The nodes in an order where each runs after the nodes it reads from; a cycle is refused."""
        after = {n: {src[1][0] for (to, _), src in self.feeds.items() if to == n and src[0] == "node"}
                 for n in range(len(self.nodes))}
        order: list[int] = []
        while len(order) < len(self.nodes):
            ready = [n for n in range(len(self.nodes)) if n not in order and after[n] <= set(order)]
            if not ready:
                stuck = [n for n in range(len(self.nodes)) if n not in order]
                problems.add(f"DML_GRAPH_DESC.IntermediateEdges form a cycle through nodes {stuck}")
                return order
            order.append(ready[0])
        return order

    def _place_scratch(self) -> None:
        """Offsets in the temporary resource: every node output that is not a graph output, then the
        space the node with the largest temporary resource needs (nodes run one after another)."""
        written = set(self.outputs.values())
        self.scratch: dict[tuple[int, int], int] = {}
        offset = 0
        for n, node in enumerate(self.nodes):
            for o, port in enumerate(node_ports(node, "output")):
                if port.layout is not None and (n, o) not in written:
                    self.scratch[(n, o)] = offset
                    offset = _align(offset + port.layout.total_bytes)
        self.node_temporary_offset = offset
        self.temporary_size = offset + max(
            (_align(node.GetBindingProperties().TemporaryResourceSize) for node in self.nodes), default=0)

    # --- IDMLDispatchable ----------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return f"graph of {len(self.nodes)} ({', '.join(node.name for node in self.nodes)})"

    def GetBindingProperties(self) -> DML_BINDING_PROPERTIES:
        count = len(self.input_slots()) + len(self.output_slots())
        return DML_BINDING_PROPERTIES(count, self.temporary_size, 0)

    def input_slots(self) -> list[BindingSlot]:
        return [BindingSlot(f"graph input {i}", self._port_layout(*self.inputs[i][0], "input")
                            if i in self.inputs else None, i not in self.inputs) for i in range(self.input_count)]

    def output_slots(self) -> list[BindingSlot]:
        return [BindingSlot(f"graph output {i}", self._port_layout(*self.outputs[i], "output"), False)
                for i in range(len(self.outputs))]

    def resolve(self, table: BindingTable) -> ResolvedGraph:
        """Check the table; map every node's tensors to graph inputs, outputs or temporary-resource bytes."""
        problems = Problems()
        if table.inputs is None and self.inputs:
            problems.add("BindInputs was never called")
        if table.outputs is None:
            problems.add("BindOutputs was never called")
        if self.temporary_size and table.temporary is None:
            problems.add(f"a {self.temporary_size}-byte temporary resource must be bound")
        problems.raise_if_any(f"RecordDispatch({self.name})")
        inputs, outputs = dict(table.inputs or {}), dict(table.outputs or {})
        check_hazards(inputs, outputs, set(), {"temporary": table.temporary}, problems)
        problems.raise_if_any(f"RecordDispatch({self.name}): binding hazard")
        missing = [node.name for node in self.nodes if not node.operator.implemented]
        if missing:
            raise DMLError(E_NOTIMPL, f"RecordDispatch: the graph's {', '.join(missing)} not implemented by dmlsim "
                                      "(the bindings were checked and are valid)")
        written = {source: index for index, source in self.outputs.items()}
        dispatches = []
        for n in self.order:
            node = self.nodes[n]
            bound: dict[str, Any] = {}
            for i, port in enumerate(node_ports(node, "input")):
                source = self.feeds.get((n, i))
                tensor = None
                if source is not None and source[0] == "input":
                    tensor = inputs[f"graph input {source[1]}"]
                elif source is not None:
                    tensor = self._node_output(source[1], written, outputs, table.temporary)
                _put(bound, port, tensor)
            for o, port in enumerate(node_ports(node, "output")):
                tensor = None if port.layout is None else self._node_output((n, o), written, outputs, table.temporary)
                _put(bound, port, tensor)
            size = node.GetBindingProperties().TemporaryResourceSize
            temporary = (BoundTensor(table.temporary.buffer, table.temporary.offset + self.node_temporary_offset,
                                     size, None) if size else None)
            dispatches.append(ResolvedDispatch(node, bound, temporary))
        return ResolvedGraph(dispatches)

    def _node_output(self, source: tuple[int, int], written: dict[tuple[int, int], int],
                     outputs: dict[str, Any], temporary: BoundTensor | None) -> BoundTensor:
        if source in written:
            return outputs[f"graph output {written[source]}"]
        layout = self._port_layout(*source, "output")
        assert temporary is not None
        return BoundTensor(temporary.buffer, temporary.offset + self.scratch[source], layout.total_bytes, layout)


def _put(bound: dict[str, Any], port: Port, tensor: BoundTensor | None) -> None:
    if port.index is None:
        bound[port.field] = tensor
    else:
        bound.setdefault(port.field, []).append(tensor)
