"""Constant nodes and OWNED_BY_DML tensors inside graphs (IDMLDevice1::CompileGraph), on every adapter.

DML_GRAPH_NODE_TYPE_CONSTANT (DML_FEATURE_LEVEL_6_2) is how onnxruntime's DirectML provider passes initializers of a
few bytes; larger initializers become graph inputs flagged OWNED_BY_DML, bound once to the operator initializer.
dmlsim's readings (docstring of dmlsim/runtime/graph.py): a constant node has one output and no input, only
intermediate edges leave it, DataSize covers the bytes each reader addresses, the bytes are copied at compile time;
an OWNED_BY_DML input is fed by a graph input that feeds only OWNED_BY_DML inputs (or by a constant node), bound to
the initializer (Buffer null for the other graph inputs) and NONE at execution.

Expected values are literals worked out by hand (float32 sums and products of small integers are exact).
"""

from __future__ import annotations

import numpy as np
import pytest

import dmlsim as dml

F32 = dml.DML_TENSOR_DATA_TYPE_FLOAT32
EDGE = dml.DML_GRAPH_EDGE_DESC


def tensor(sizes=(4,), strides=None, owned=False):
    t = dml.buffer_tensor(F32, list(sizes), None if strides is None else list(strides))
    if owned:
        t.Desc.Flags = dml.DML_TENSOR_FLAG_OWNED_BY_DML
    return t


def binary(device, name, a=None, b=None, o=None):
    desc = getattr(dml, f"DML_ELEMENT_WISE_{name}_OPERATOR_DESC")(a or tensor(), b or tensor(), o or tensor())
    return device.CreateOperator(dml.DML_OPERATOR_DESC(getattr(dml, f"DML_OPERATOR_ELEMENT_WISE_{name}"), desc))


def node(op):
    return dml.DML_GRAPH_NODE_DESC(dml.DML_GRAPH_NODE_TYPE_OPERATOR, dml.DML_OPERATOR_GRAPH_NODE_DESC(op))


def constant(values, size=None, name=None):
    data = np.asarray(values, np.float32).tobytes()
    return dml.DML_GRAPH_NODE_DESC(dml.DML_GRAPH_NODE_TYPE_CONSTANT,
                                   dml.DML_CONSTANT_DATA_GRAPH_NODE_DESC(data, len(data) if size is None else size,
                                                                         name))


def into(graph_input, to_node, to_input):
    return EDGE(dml.DML_GRAPH_EDGE_TYPE_INPUT, dml.DML_INPUT_GRAPH_EDGE_DESC(graph_input, to_node, to_input))


def out(from_node, from_output, graph_output):
    return EDGE(dml.DML_GRAPH_EDGE_TYPE_OUTPUT, dml.DML_OUTPUT_GRAPH_EDGE_DESC(from_node, from_output, graph_output))


def link(from_node, from_output, to_node, to_input):
    return EDGE(dml.DML_GRAPH_EDGE_TYPE_INTERMEDIATE,
                dml.DML_INTERMEDIATE_GRAPH_EDGE_DESC(from_node, from_output, to_node, to_input))


def run(device, compiled, inputs, *, initialize=None, none_inputs=()):
    """Initialize (binding ``initialize``: graph input → values, the OWNED_BY_DML ones) and execute once, the
    other graph inputs bound at offset 64 of a guard-filled buffer; the single graph output as float32."""
    props = compiled.GetBindingProperties()
    recorder, queue = device.CreateCommandRecorder(), device.CreateCommandQueue()
    persistent = None
    if props.PersistentResourceSize:
        persistent = dml.DML_BUFFER_BINDING(device.CreateBuffer(256 + props.PersistentResourceSize), 256,
                                            props.PersistentResourceSize)
    initializer = device.CreateOperatorInitializer([compiled])
    init_table = device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(
        initializer, None, None, initializer.GetBindingProperties().RequiredDescriptorCount))
    if initialize:
        bindings = []
        for i in range(compiled.input_count):
            if i in initialize:
                buffer = device.CreateBuffer(16)
                buffer.Write(np.asarray(initialize[i], np.float32))
                bindings.append(dml.DML_BUFFER_BINDING(buffer, 0, 16))
            else:
                bindings.append(dml.DML_BUFFER_BINDING(None, 0, 0))
        init_table.BindInputs([dml.DML_BINDING_DESC(dml.DML_BINDING_TYPE_BUFFER_ARRAY,
                                                    dml.DML_BUFFER_ARRAY_BINDING(len(bindings), bindings))])
    else:
        init_table.BindInputs([dml.DML_BINDING_DESC(dml.DML_BINDING_TYPE_NONE, None)])
    init_table.BindOutputs([dml.DML_BINDING_DESC(dml.DML_BINDING_TYPE_BUFFER, persistent) if persistent
                            else dml.DML_BINDING_DESC(dml.DML_BINDING_TYPE_NONE, None)])
    cmd = device.CreateCommandList()
    recorder.RecordDispatch(cmd, initializer, init_table)
    queue.ExecuteCommandLists([cmd])
    table = device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(compiled, None, None, props.RequiredDescriptorCount))
    bindings = []
    for i in range(compiled.input_count):
        if i in none_inputs:
            bindings.append(dml.DML_BINDING_DESC(dml.DML_BINDING_TYPE_NONE, None))
            continue
        buffer = device.CreateBuffer(128)
        buffer.Write(np.full(32, -7.5, np.float32))
        buffer.Write(np.asarray(inputs[i], np.float32), 64)
        bindings.append(dml.buffer_binding(buffer, 64, 16))
    table.BindInputs(bindings)
    output = device.CreateBuffer(128)
    output.Write(np.full(32, -7.5, np.float32))
    table.BindOutputs([dml.buffer_binding(output, 64, 16)])
    if props.TemporaryResourceSize:
        table.BindTemporaryResource(dml.buffer_binding(device.CreateBuffer(props.TemporaryResourceSize)))
    if persistent:
        table.BindPersistentResource(dml.DML_BINDING_DESC(dml.DML_BINDING_TYPE_BUFFER, persistent))
    cmd = device.CreateCommandList()
    recorder.RecordDispatch(cmd, compiled, table)
    queue.ExecuteCommandLists([cmd])
    queue.WaitForIdle()
    raw = np.frombuffer(output.Read(), np.float32)
    np.testing.assert_array_equal(raw[:16], -7.5)  # nothing written before the output's offset
    np.testing.assert_array_equal(raw[20:], -7.5)  # nor after its 4 elements
    return raw[16:20]


# --- constant nodes -------------------------------------------------------------------------------------------
def test_constant_nodes_feed_operators_each_reading_with_its_own_layout(device):
    """out = (a + c0) * c1[0]: node 1 is a constant [1, 2, 3, 4] read by ADD; node 3 a constant [3, 9, 9, 9]
    read by MULTIPLY through a broadcast layout (stride 0: every element is c1[0] = 3); a constant node sits
    between the operators in the node list, and two constants occupy distinct bytes."""
    add = binary(device, "ADD")
    mul = binary(device, "MULTIPLY", b=tensor(strides=(0,)))
    graph = dml.DML_GRAPH_DESC(1, 1, Nodes=[node(add), constant([1, 2, 3, 4], name="c0"), node(mul),
                                            constant([3, 9, 9, 9])],
                               InputEdges=[into(0, 0, 0)], OutputEdges=[out(2, 0, 0)],
                               IntermediateEdges=[link(1, 0, 0, 1), link(0, 0, 2, 0), link(3, 0, 2, 1)])
    compiled = device.CompileGraph(graph)
    assert compiled.GetBindingProperties().PersistentResourceSize == 0
    got = run(device, compiled, [[10, 20, 30, 40]])
    np.testing.assert_array_equal(got, [33, 66, 99, 132])


def test_constant_bytes_are_copied_when_the_graph_is_compiled(device):
    data = bytearray(np.asarray([1, 2, 3, 4], np.float32).tobytes())
    const = dml.DML_GRAPH_NODE_DESC(dml.DML_GRAPH_NODE_TYPE_CONSTANT, dml.DML_CONSTANT_DATA_GRAPH_NODE_DESC(data, 16))
    graph = dml.DML_GRAPH_DESC(1, 1, Nodes=[const, node(binary(device, "ADD"))], InputEdges=[into(0, 1, 0)],
                               OutputEdges=[out(1, 0, 0)], IntermediateEdges=[link(0, 0, 1, 1)])
    compiled = device.CompileGraph(graph)
    data[:] = bytes(16)  # the caller's memory may go away once CompileGraph returns
    np.testing.assert_array_equal(run(device, compiled, [[5, 5, 5, 5]]), [6, 7, 8, 9])


def test_a_constant_of_one_element_read_by_a_broadcast_input(ref_device):
    """DataSize 4 covers a stride-0 reader's span (4 bytes), though its TotalTensorSizeInBytes is 16."""
    mul = binary(ref_device, "MULTIPLY", b=tensor(strides=(0,)))
    graph = dml.DML_GRAPH_DESC(1, 1, Nodes=[node(mul), constant([2.5])], InputEdges=[into(0, 0, 0)],
                               OutputEdges=[out(0, 0, 0)], IntermediateEdges=[link(1, 0, 0, 1)])
    np.testing.assert_array_equal(run(ref_device, ref_device.CompileGraph(graph), [[2, 4, 6, 8]]), [5, 10, 15, 20])


def _constant_graph(device, const, edges=None):
    return dml.DML_GRAPH_DESC(1, 1, Nodes=[node(binary(device, "ADD")), const], InputEdges=[into(0, 0, 0)],
                              OutputEdges=[out(0, 0, 0)],
                              IntermediateEdges=edges if edges is not None else [link(1, 0, 0, 1)])


@pytest.mark.parametrize("const, edges, message", [
    (constant([1, 2, 3]), None, "constant node 1 holds 12 bytes (DataSize), fewer than the 16 that "
     "DML_OPERATOR_ELEMENT_WISE_ADD.BTensor (FLOAT32 [4]) reads"),
    (constant([1, 2, 3, 4], size=20), None, "Nodes[1].Desc.Data holds 16 bytes, fewer than DataSize 20"),
    (constant([1, 2, 3, 4], size=0), None, "Nodes[1].Desc.DataSize must be an integer in [1, 4294967295], got 0"),
    (dml.DML_GRAPH_NODE_DESC(dml.DML_GRAPH_NODE_TYPE_CONSTANT, dml.DML_CONSTANT_DATA_GRAPH_NODE_DESC(1.5, 4)),
     None, "Nodes[1].Desc.Data must be bytes-like"),
    (dml.DML_GRAPH_NODE_DESC(dml.DML_GRAPH_NODE_TYPE_CONSTANT, None), None,
     "Nodes[1].Desc must be a DML_CONSTANT_DATA_GRAPH_NODE_DESC"),
    (constant([1, 2, 3, 4]), [link(1, 1, 0, 1)], "output index 1 is not an output of node 1"),
    (constant([1, 2, 3, 4]), [link(1, 0, 0, 1), link(0, 0, 1, 0)], "input index 0 is not an input of node 1"),
])
def test_constant_node_rules(ref_device, const, edges, message):
    with pytest.raises(dml.DMLError) as info:
        ref_device.CompileGraph(_constant_graph(ref_device, const, edges))
    assert info.value.hresult == dml.E_INVALIDARG
    assert message in str(info.value)


def test_a_constant_node_writes_no_graph_output(ref_device):
    graph = dml.DML_GRAPH_DESC(2, 2, Nodes=[node(binary(ref_device, "ADD")), constant([1, 2, 3, 4], name="k")],
                               InputEdges=[into(0, 0, 0), into(1, 0, 1)], OutputEdges=[out(0, 0, 0), out(1, 0, 1)])
    with pytest.raises(dml.DMLError, match=r"constant node 1 \('k'\) cannot write a graph output"):
        ref_device.CompileGraph(graph)


# --- OWNED_BY_DML inside graphs -------------------------------------------------------------------------------
def _owned_graph(device):
    """out = (a + w) * b, w an OWNED_BY_DML input of ADD fed by graph input 1."""
    add = binary(device, "ADD", b=tensor(owned=True))
    graph = dml.DML_GRAPH_DESC(3, 1, Nodes=[node(add), node(binary(device, "MULTIPLY"))],
                               InputEdges=[into(0, 0, 0), into(1, 0, 1), into(2, 1, 1)], OutputEdges=[out(1, 0, 0)],
                               IntermediateEdges=[link(0, 0, 1, 0)])
    return device.CompileGraph(graph)


def test_owned_by_dml_graph_inputs_are_bound_at_initialization(device):
    compiled = _owned_graph(device)
    props = compiled.GetBindingProperties()
    assert (props.RequiredDescriptorCount, props.PersistentResourceSize) == (4, 256)
    got = run(device, compiled, {0: [1, 2, 3, 4], 2: [2, 2, 3, 3]}, initialize={1: [10, 20, 30, 40]},
              none_inputs={1})
    np.testing.assert_array_equal(got, [22, 44, 99, 132])


def test_owned_by_dml_graph_input_binding_rules(ref_device):
    compiled = _owned_graph(ref_device)
    table = ref_device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(compiled, None, None, 4))
    buffers = [ref_device.CreateBuffer(16) for _ in range(3)]
    with pytest.raises(dml.DMLError, match=r"graph input 1.*OWNED_BY_DML"):
        table.BindInputs([dml.buffer_binding(b, 0, 16) for b in buffers])
    table.BindInputs([dml.buffer_binding(buffers[0], 0, 16), dml.DML_BINDING_DESC(dml.DML_BINDING_TYPE_NONE, None),
                      dml.buffer_binding(buffers[2], 0, 16)])
    table.BindOutputs([dml.buffer_binding(ref_device.CreateBuffer(16), 0, 16)])
    table.BindTemporaryResource(dml.buffer_binding(ref_device.CreateBuffer(256)))
    with pytest.raises(dml.DMLError, match="256-byte persistent resource must be bound"):
        ref_device.CreateCommandRecorder().RecordDispatch(ref_device.CreateCommandList(), compiled, table)


@pytest.mark.parametrize("shape, message", [
    ("intermediate", "is OWNED_BY_DML: it takes a graph input bound to the operator initializer or a constant node"),
    ("mixed", "graph input 1 feeds OWNED_BY_DML and other inputs"),
])
def test_owned_by_dml_inputs_take_graph_inputs_of_their_own(ref_device, shape, message):
    add = binary(ref_device, "ADD", b=tensor(owned=True))
    if shape == "intermediate":  # ADD's owned B would be MULTIPLY's output
        graph = dml.DML_GRAPH_DESC(3, 1, Nodes=[node(binary(ref_device, "MULTIPLY")), node(add)],
                                   InputEdges=[into(0, 0, 0), into(1, 0, 1), into(2, 1, 0)],
                                   OutputEdges=[out(1, 0, 0)], IntermediateEdges=[link(0, 0, 1, 1)])
    else:  # graph input 1 feeds ADD's owned B and MULTIPLY's plain B
        graph = dml.DML_GRAPH_DESC(2, 1, Nodes=[node(add), node(binary(ref_device, "MULTIPLY"))],
                                   InputEdges=[into(0, 0, 0), into(1, 0, 1), into(1, 1, 1)],
                                   OutputEdges=[out(1, 0, 0)], IntermediateEdges=[link(0, 0, 1, 0)])
    with pytest.raises(dml.DMLError) as info:
        ref_device.CompileGraph(graph)
    assert info.value.hresult == dml.E_INVALIDARG
    assert message in str(info.value)


def test_a_constant_node_may_feed_an_owned_by_dml_input(ref_device):
    add = binary(ref_device, "ADD", b=tensor(owned=True))
    graph = dml.DML_GRAPH_DESC(1, 1, Nodes=[constant([1, 1, 2, 2]), node(add)], InputEdges=[into(0, 1, 0)],
                               OutputEdges=[out(1, 0, 0)], IntermediateEdges=[link(0, 0, 1, 1)])
    compiled = ref_device.CompileGraph(graph)
    assert compiled.GetBindingProperties().PersistentResourceSize == 0
    np.testing.assert_array_equal(run(ref_device, compiled, [[1, 2, 3, 4]]), [2, 3, 5, 6])
