"""IDMLDevice1::CompileGraph (dmlsim/runtime/graph.py): several operators as one dispatchable, on every adapter.

Expected values are literals worked out by hand from the nodes' documented formulas.
"""

from __future__ import annotations

import numpy as np
import pytest

import dmlsim as dml

F32 = dml.DML_TENSOR_DATA_TYPE_FLOAT32
EDGE = dml.DML_GRAPH_EDGE_DESC


def tensor(sizes=(4,)):
    return dml.buffer_tensor(F32, list(sizes))


def binary(device, name, t=None):
    t = t or tensor()
    desc = getattr(dml, f"DML_ELEMENT_WISE_{name}_OPERATOR_DESC")(t, t, t)
    return device.CreateOperator(dml.DML_OPERATOR_DESC(getattr(dml, f"DML_OPERATOR_ELEMENT_WISE_{name}"), desc))


def node(op):
    return dml.DML_GRAPH_NODE_DESC(dml.DML_GRAPH_NODE_TYPE_OPERATOR, dml.DML_OPERATOR_GRAPH_NODE_DESC(op))


def into(graph_input, to_node, to_input):
    return EDGE(dml.DML_GRAPH_EDGE_TYPE_INPUT, dml.DML_INPUT_GRAPH_EDGE_DESC(graph_input, to_node, to_input))


def out(from_node, from_output, graph_output):
    return EDGE(dml.DML_GRAPH_EDGE_TYPE_OUTPUT, dml.DML_OUTPUT_GRAPH_EDGE_DESC(from_node, from_output, graph_output))


def link(from_node, from_output, to_node, to_input):
    return EDGE(dml.DML_GRAPH_EDGE_TYPE_INTERMEDIATE,
                dml.DML_INTERMEDIATE_GRAPH_EDGE_DESC(from_node, from_output, to_node, to_input))


def execute(device, compiled, inputs, output_count=1, size=16):
    """Bind graph inputs (numpy arrays) and fresh outputs, execute once; the outputs as float32 arrays."""
    props = compiled.GetBindingProperties()
    in_buffers = []
    for values in inputs:
        buffer = device.CreateBuffer(size)
        buffer.Write(np.asarray(values, np.float32))
        in_buffers.append(buffer)
    out_buffers = [device.CreateBuffer(size) for _ in range(output_count)]
    table = device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(compiled, None, None, props.RequiredDescriptorCount))
    table.BindInputs([dml.buffer_binding(b, 0, size) for b in in_buffers])
    table.BindOutputs([dml.buffer_binding(b, 0, size) for b in out_buffers])
    if props.TemporaryResourceSize:
        table.BindTemporaryResource(dml.buffer_binding(device.CreateBuffer(props.TemporaryResourceSize)))
    cmd = device.CreateCommandList()
    device.CreateCommandRecorder().RecordDispatch(cmd, compiled, table)
    queue = device.CreateCommandQueue()
    queue.ExecuteCommandLists([cmd])
    queue.WaitForIdle()
    return [np.frombuffer(b.Read(), np.float32) for b in out_buffers]


def test_two_nodes_and_a_shared_input(device):
    """out = (a + b) * a: graph input 0 feeds both nodes, the sum is an intermediate."""
    graph = dml.DML_GRAPH_DESC(2, 1, Nodes=[node(binary(device, "ADD")), node(binary(device, "MULTIPLY"))],
                               InputEdges=[into(0, 0, 0), into(1, 0, 1), into(0, 1, 1)],
                               OutputEdges=[out(1, 0, 0)], IntermediateEdges=[link(0, 0, 1, 0)])
    compiled = device.CompileGraph(graph, dml.DML_EXECUTION_FLAG_NONE)
    props = compiled.GetBindingProperties()
    assert (props.RequiredDescriptorCount, props.TemporaryResourceSize, props.PersistentResourceSize) == (3, 256, 0)
    (got,) = execute(device, compiled, [[1, 2, 3, 4], [10, 20, 30, 40]])
    np.testing.assert_array_equal(got, [11, 44, 99, 176])


def test_nodes_run_in_dependency_order_whatever_their_index(device):
    """Node 0 reads node 2's output, node 2 reads node 1's: out0 = ((a - b) + a) * b, out1 = a - b."""
    nodes = [node(binary(device, "MULTIPLY")), node(binary(device, "SUBTRACT")), node(binary(device, "ADD"))]
    graph = dml.DML_GRAPH_DESC(2, 2, Nodes=nodes,
                               InputEdges=[into(0, 1, 0), into(1, 1, 1), into(0, 2, 1), into(1, 0, 1)],
                               OutputEdges=[out(0, 0, 0), out(1, 0, 1)],
                               IntermediateEdges=[link(2, 0, 0, 0), link(1, 0, 2, 0)])
    first, second = execute(device, device.CompileGraph(graph), [[5, 6, 7, 8], [1, 2, 3, 4]], output_count=2)
    np.testing.assert_array_equal(second, [4, 4, 4, 4])
    np.testing.assert_array_equal(first, [9, 20, 33, 48])


@pytest.mark.parametrize("change, message", [
    (lambda g: (g.InputEdges.pop(1), g.IntermediateEdges.append(link(1, 0, 0, 1))), "form a cycle"),
    (lambda g: g.OutputEdges.clear(), "graph output 0 is written by no output edge"),
    (lambda g: g.InputEdges.pop(), "input 1 (DML_OPERATOR_ELEMENT_WISE_MULTIPLY.BTensor) of node 1 is connected by "
     "no edge"),
    (lambda g: g.InputEdges.append(into(1, 0, 1)), "input 1 of node 0 is already connected"),
    (lambda g: g.InputEdges.append(into(5, 0, 0)), "GraphInputIndex 5 must be below InputCount 2"),
    (lambda g: g.OutputEdges.append(out(7, 0, 0)), "node index 7 is not a node"),
    (lambda g: g.OutputEdges.append(out(0, 3, 0)), "output index 3 is not an output of node 0"),
    (lambda g: setattr(g, "NodeCount", 5), "NodeCount 5 must be the number of Nodes (2)"),
])
def test_graph_rules(ref_device, change, message):
    add, mul = binary(ref_device, "ADD"), binary(ref_device, "MULTIPLY")
    graph = dml.DML_GRAPH_DESC(2, 1, Nodes=[node(add), node(mul)],
                               InputEdges=[into(0, 0, 0), into(1, 0, 1), into(0, 1, 1)],
                               OutputEdges=[out(1, 0, 0)], IntermediateEdges=[link(0, 0, 1, 0)])
    graph.Nodes, graph.InputEdges = list(graph.Nodes), list(graph.InputEdges)
    graph.OutputEdges, graph.IntermediateEdges = list(graph.OutputEdges), list(graph.IntermediateEdges)
    count_fields = {"InputEdgeCount": "InputEdges", "OutputEdgeCount": "OutputEdges",
                    "IntermediateEdgeCount": "IntermediateEdges"}
    change(graph)
    for count, items in count_fields.items():
        setattr(graph, count, len(getattr(graph, items)))
    with pytest.raises(dml.DMLError) as info:
        ref_device.CompileGraph(graph)
    assert info.value.hresult == dml.E_INVALIDARG
    assert message in str(info.value)


def test_intermediate_layouts_must_match(ref_device):
    wide = binary(ref_device, "ADD", tensor((8,)))
    graph = dml.DML_GRAPH_DESC(2, 1, Nodes=[node(binary(ref_device, "ADD")), node(wide)],
                               InputEdges=[into(0, 0, 0), into(1, 0, 1), into(1, 1, 1)],
                               OutputEdges=[out(1, 0, 0)], IntermediateEdges=[link(0, 0, 1, 0)])
    with pytest.raises(dml.DMLError, match="must have the same layout"):
        ref_device.CompileGraph(graph)


def test_outputs_may_not_alias_inputs_and_constant_nodes_are_not_implemented(ref_device):
    graph = dml.DML_GRAPH_DESC(2, 1, Nodes=[node(binary(ref_device, "ADD"))], InputEdges=[into(0, 0, 0), into(1, 0, 1)],
                               OutputEdges=[out(0, 0, 0)])
    compiled = ref_device.CompileGraph(graph)
    shared = ref_device.CreateBuffer(16)
    table = ref_device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(compiled, None, None, 3))
    table.BindInputs([dml.buffer_binding(shared, 0, 16), dml.buffer_binding(ref_device.CreateBuffer(16), 0, 16)])
    table.BindOutputs([dml.buffer_binding(shared, 0, 16)])
    with pytest.raises(dml.DMLError, match="not eligible for in-place"):
        ref_device.CreateCommandRecorder().RecordDispatch(ref_device.CreateCommandList(), compiled, table)
    constant = dml.DML_GRAPH_NODE_DESC(dml.DML_GRAPH_NODE_TYPE_CONSTANT, None)
    with pytest.raises(dml.DMLError) as info:
        ref_device.CompileGraph(dml.DML_GRAPH_DESC(0, 1, Nodes=[constant], OutputEdges=[out(0, 0, 0)]))
    assert info.value.hresult == dml.E_NOTIMPL


def test_two_intermediates_alive_at_once(device):
    """out = (a + b) * (a - b): both intermediates are read by the last node, so they need their own bytes."""
    nodes = [node(binary(device, "ADD")), node(binary(device, "SUBTRACT")), node(binary(device, "MULTIPLY"))]
    graph = dml.DML_GRAPH_DESC(2, 1, Nodes=nodes,
                               InputEdges=[into(0, 0, 0), into(1, 0, 1), into(0, 1, 0), into(1, 1, 1)],
                               OutputEdges=[out(2, 0, 0)], IntermediateEdges=[link(0, 0, 2, 0), link(1, 0, 2, 1)])
    compiled = device.CompileGraph(graph)
    assert compiled.GetBindingProperties().TemporaryResourceSize == 512
    (got,) = execute(device, compiled, [[5, 6, 7, 8], [1, 2, 3, 4]])
    np.testing.assert_array_equal(got, [24, 32, 40, 48])
