"""The graph rewrites of dmlsim/onnx/fusion.py: onnxruntime's Conv+BatchNormalization, MatMul+Add, MatMul×scalar
and GELU fusions and its DirectML provider's activation fusion, each checked three ways:

- what was rewritten (the fusion counts and the number of DirectML operators the model became);
- the DirectML graph itself (a fused activation is the operator's FusedActivation; a MatMul+Add is GEMM's C);
- the outputs against onnxruntime's CPU provider (an independent implementation: its own kernels, and its own
  fusions, which it computes in the weights' type) within 16 ulps of the output's largest magnitude, the
  architectures' tolerance for convolutions and gemms (tests/test_onnx_architectures.py).

And every place where a rewrite must not happen (the intermediate read twice or a graph output, a weight that is a
graph input, a training-mode BatchNormalization, a Div whose matrix is the divisor, an activation the provider does
not fuse into Add) lowers the nodes one by one and still matches onnxruntime.
"""

from __future__ import annotations

import numpy as np
import pytest

import dmlsim as dml
from dmlsim.onnx.peer import compare, onnxruntime_outputs
from dmlsim.onnx.run_model import lower

ULPS = 16


def _model(nodes, inputs, outputs, initializers=(), opset=17):
    from onnx import TensorProto, helper, numpy_helper

    def info(name, shape):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))

    graph = helper.make_graph(nodes, "fusion", [info(n, s) for n, s in inputs], [info(n, s) for n, s in outputs],
                              [numpy_helper.from_array(np.asarray(v, np.float32), n) for n, v in initializers])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8  # what every onnxruntime the tests meet reads (a newer onnx writes a newer IR by default)
    return model


def _node(op_type, inputs, outputs, **attrs):
    from onnx import helper

    return helper.make_node(op_type, inputs, outputs, **attrs)


def _run(device, model, feeds):
    """dmlsim's lowering (optimized and not) against onnxruntime: the optimized LoweredGraph."""
    expected = onnxruntime_outputs(model, feeds)
    for optimize in (True, False):
        lowered = lower(model, feeds, device, optimize=optimize)
        got = lowered.run(feeds)
        for output, g, e in zip(model.graph.output, got, expected, strict=True):
            result = compare(output.name, g, e, ULPS)
            assert result.ok, f"optimize={optimize}: {result.message}"
            assert np.max(np.abs(e)) > 0.05, "a degenerate output proves little"
        if optimize:
            fused = lowered
    return fused


def _descs(lowered):
    """(operator type name, desc) of every DirectML node of the lowered graph, in order."""
    return [(dml.DML_OPERATOR_TYPE(node.op_type).name, node.desc) for node in lowered.builder.nodes]


RNG = np.random.default_rng(7)


def _conv_bn(conv_bias=True, extra_reader=False, conv_output_is_graph_output=False, training=False,
             bn_inputs_are_graph_inputs=False):
    c_in, c_out = 3, 5
    weights = [("w", RNG.normal(0, 0.4, (c_out, c_in, 3, 3)))]
    conv_inputs = ["x", "w"]
    if conv_bias:
        weights.append(("b", RNG.normal(0, 0.2, c_out)))
        conv_inputs.append("b")
    stats = [("scale", RNG.uniform(0.5, 1.5, c_out)), ("shift", RNG.normal(0, 0.3, c_out)),
             ("mean", RNG.normal(0, 0.3, c_out)), ("var", RNG.uniform(0.2, 2.0, c_out))]
    inputs = [("x", (2, c_in, 6, 6))]
    if bn_inputs_are_graph_inputs:
        inputs += [(n, v.shape) for n, v in stats]
    else:
        weights += stats
    nodes = [_node("Conv", conv_inputs, ["c"], pads=[1, 1, 1, 1]),
             _node("BatchNormalization", ["c", "scale", "shift", "mean", "var"], ["y"], epsilon=1e-3,
                   **({"training_mode": 1} if training else {}))]
    outputs = [("y", (2, c_out, 6, 6))]
    if extra_reader:
        nodes.append(_node("Neg", ["c"], ["neg"]))
        outputs.append(("neg", (2, c_out, 6, 6)))
    if conv_output_is_graph_output:
        outputs.append(("c", (2, c_out, 6, 6)))
    feeds = {"x": RNG.normal(0, 1, (2, c_in, 6, 6)).astype(np.float32)}
    if bn_inputs_are_graph_inputs:
        feeds.update({n: np.asarray(v, np.float32) for n, v in stats})
    return _model(nodes, inputs, outputs, weights, opset=15 if training else 17), feeds


@pytest.mark.device
@pytest.mark.parametrize("conv_bias", [True, False], ids=["conv_bias", "no_conv_bias"])
def test_batch_normalization_folds_into_the_convolution(device, conv_bias):
    model, feeds = _conv_bn(conv_bias=conv_bias)
    lowered = _run(device, model, feeds)
    assert lowered.fusions.counts == {"Conv+BatchNormalization": 1}
    assert [name for name, _ in _descs(lowered)] == ["DML_OPERATOR_CONVOLUTION"]


def test_the_folded_filter_and_bias_are_the_batch_normalization_by_hand():
    """W' = W·γ/√(σ²+ε) per output channel, B' = (B − μ)·γ/√(σ²+ε) + β: the folded initializers, from the
    formula written here in float64."""
    from onnx import numpy_helper

    from dmlsim.onnx.fusion import fuse

    model, _ = _conv_bn()
    values = {init.name: numpy_helper.to_array(init) for init in model.graph.initializer}
    nodes, fusions = fuse(list(model.graph.node), {"y"}, values.get)
    conv = nodes[0]
    w, b = fusions.constants[conv.input[1]], fusions.constants[conv.input[2]]
    v = {k: values[k].astype(np.float64) for k in values}
    factor = v["scale"] / np.sqrt(v["var"] + 1e-3)
    np.testing.assert_allclose(w, v["w"] * factor[:, None, None, None], rtol=1e-6)
    np.testing.assert_allclose(b, (v["b"] - v["mean"]) * factor + v["shift"], rtol=1e-6, atol=1e-7)
    assert w.dtype == b.dtype == np.float32 and conv.output[0] == "y"


@pytest.mark.device
@pytest.mark.parametrize("case", ["extra_reader", "conv_output_is_graph_output", "bn_inputs_are_graph_inputs"])
def test_batch_normalization_stays_where_it_cannot_fold(device, case):
    model, feeds = _conv_bn(**{case: True})
    lowered = _run(device, model, feeds)
    assert "Conv+BatchNormalization" not in lowered.fusions.counts
    assert "DML_OPERATOR_BATCH_NORMALIZATION" in [name for name, _ in _descs(lowered)]


def test_a_training_mode_batch_normalization_is_not_folded():
    from onnx import numpy_helper

    from dmlsim.onnx.fusion import fuse

    model, _ = _conv_bn(training=True)
    values = {init.name: numpy_helper.to_array(init) for init in model.graph.initializer}
    nodes, fusions = fuse(list(model.graph.node), {"y"}, values.get)
    assert fusions.counts == {} and [n.op_type for n in nodes] == ["Conv", "BatchNormalization"]


ACTIVATION_CASES = {  # ONNX activation (attributes) → the DirectML activation fused
    "Relu": ({}, "DML_OPERATOR_ACTIVATION_RELU"),
    "LeakyRelu": ({"alpha": 0.3}, "DML_OPERATOR_ACTIVATION_LEAKY_RELU"),
    "Sigmoid": ({}, "DML_OPERATOR_ACTIVATION_SIGMOID"),
    "HardSigmoid": ({"alpha": 0.3, "beta": 0.4}, "DML_OPERATOR_ACTIVATION_HARD_SIGMOID"),
    "Tanh": ({}, "DML_OPERATOR_ACTIVATION_TANH"),
    "ThresholdedRelu": ({"alpha": 0.2}, "DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU"),
    "Elu": ({"alpha": 0.7}, "DML_OPERATOR_ACTIVATION_ELU"),
    "Selu": ({"alpha": 1.5, "gamma": 1.1}, "DML_OPERATOR_ACTIVATION_SCALED_ELU"),
    "Softsign": ({}, "DML_OPERATOR_ACTIVATION_SOFTSIGN"),
    "Softplus": ({}, "DML_OPERATOR_ACTIVATION_SOFTPLUS"),
}


@pytest.mark.device
@pytest.mark.parametrize("activation", sorted(ACTIVATION_CASES))
def test_every_fusable_activation_becomes_the_convolutions_fused_activation(device, activation):
    attrs, dml_name = ACTIVATION_CASES[activation]
    w = RNG.normal(0, 0.4, (4, 3, 3, 3))
    model = _model([_node("Conv", ["x", "w"], ["c"]), _node(activation, ["c"], ["y"], **attrs)],
                   [("x", (1, 3, 5, 5))], [("y", (1, 4, 3, 3))], [("w", w)])
    lowered = _run(device, model, {"x": RNG.normal(0, 1, (1, 3, 5, 5)).astype(np.float32)})
    assert lowered.fusions.counts == {f"Conv+{activation}": 1}
    [(name, desc)] = _descs(lowered)
    assert name == "DML_OPERATOR_CONVOLUTION"
    assert dml.DML_OPERATOR_TYPE(desc.FusedActivation.Type).name == dml_name
    for attr, value in attrs.items():
        field = {"alpha": "Alpha", "beta": "Beta", "gamma": "Gamma"}[attr]
        assert getattr(desc.FusedActivation.Desc, field) == pytest.approx(value)


FUSABLE_OPS = {  # op → (nodes before the activation, inputs, initializers, output shape)
    "ConvTranspose": ([_node("ConvTranspose", ["x", "w"], ["t"])], [("x", (1, 2, 3, 3))],
                      [("w", RNG.normal(0, 0.5, (2, 3, 2, 2)))], (1, 3, 4, 4)),
    "BatchNormalization": ([_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["t"])], [("x", (2, 3, 4))],
                           [("s", [1.0, 0.5, 2.0]), ("b", [0.1, -0.2, 0.3]), ("m", [0.0, 0.2, -0.1]),
                            ("v", [1.0, 0.5, 2.0])], (2, 3, 4)),
    "InstanceNormalization": ([_node("InstanceNormalization", ["x", "s", "b"], ["t"])], [("x", (2, 3, 5))],
                              [("s", [1.0, 0.5, 2.0]), ("b", [0.1, -0.2, 0.3])], (2, 3, 5)),
    "MeanVarianceNormalization": ([_node("MeanVarianceNormalization", ["x"], ["t"], axes=[0, 2])],
                                  [("x", (2, 3, 5))], [], (2, 3, 5)),
    "Gemm": ([_node("Gemm", ["x", "w", "b"], ["t"], transB=1)], [("x", (3, 4))],
             [("w", RNG.normal(0, 0.5, (5, 4))), ("b", RNG.normal(0, 0.5, 5))], (3, 5)),
    "MatMul": ([_node("MatMul", ["x", "w"], ["t"])], [("x", (2, 3, 4))], [("w", RNG.normal(0, 0.5, (4, 5)))],
               (2, 3, 5)),
    "Add": ([_node("Add", ["x", "z"], ["t"])], [("x", (2, 3)), ("z", (2, 3))], [], (2, 3)),
    "Sum": ([_node("Sum", ["x", "z"], ["t"])], [("x", (2, 3)), ("z", (2, 3))], [], (2, 3)),
}


@pytest.mark.device
@pytest.mark.parametrize("op", sorted(FUSABLE_OPS))
def test_every_fusable_operator_takes_a_leaky_relu(device, op):
    """LeakyRelu (the one activation every fusable operator takes, Add and Sum included) into each of them: one
    DirectML operator, its FusedActivation the activation with the node's alpha."""
    nodes, inputs, weights, shape = FUSABLE_OPS[op]
    model = _model([*nodes, _node("LeakyRelu", ["t"], ["y"], alpha=0.25)], inputs, [("y", shape)], weights)
    feeds = {name: RNG.normal(0, 1, s).astype(np.float32) for name, s in inputs}
    lowered = _run(device, model, feeds)
    assert lowered.fusions.counts == {f"{op}+LeakyRelu": 1}
    [(_, desc)] = _descs(lowered)
    assert desc.FusedActivation.Type == dml.DML_OPERATOR_ACTIVATION_LEAKY_RELU
    assert desc.FusedActivation.Desc.Alpha == pytest.approx(0.25)


@pytest.mark.device
@pytest.mark.parametrize("case", ["sigmoid_after_add", "sum_of_three", "read_twice", "graph_output"])
def test_activations_stay_separate_where_the_provider_does_not_fuse(device, case):
    nodes = [_node("Add", ["x", "z"], ["t"]), _node("Sigmoid" if case == "sigmoid_after_add" else "Relu", ["t"],
                                                   ["y"])]
    outputs = [("y", (2, 3))]
    if case == "sum_of_three":
        nodes[0] = _node("Sum", ["x", "z", "x"], ["t"])
    if case == "read_twice":
        nodes.append(_node("Neg", ["t"], ["n"]))
        outputs.append(("n", (2, 3)))
    if case == "graph_output":
        outputs.append(("t", (2, 3)))
    model = _model(nodes, [("x", (2, 3)), ("z", (2, 3))], outputs)
    lowered = _run(device, model, {"x": RNG.normal(0, 1, (2, 3)).astype(np.float32),
                                   "z": RNG.normal(0, 1, (2, 3)).astype(np.float32)})
    assert lowered.fusions.counts == {}
    assert all(getattr(desc, "FusedActivation", None) is None for _, desc in _descs(lowered))


def _linear(bias_shape=(5,), batch=(2, 3), scale=None, scale_op="Mul", bias_first=False, scalar_left=False,
            extra_reader=False):
    w = RNG.normal(0, 0.5, (4, 5))
    weights = [("w", w)]
    nodes = [_node("MatMul", ["x", "w"], ["m"])]
    last = "m"
    steps = []
    if bias_shape is not None:
        weights.append(("b", RNG.normal(0, 0.5, bias_shape)))
        steps.append(("Add", "b"))
    if scale is not None:
        weights.append(("s", np.float32(scale)))
        steps.insert(len(steps) if bias_first else 0, (scale_op, "s"))
    for i, (op, other) in enumerate(steps):
        out = "y" if i == len(steps) - 1 else f"step{i}"
        nodes.append(_node(op, [other, last] if scalar_left and op == "Mul" else [last, other], [out]))
        last = out
    outputs = [("y", (*batch, 5))]
    if extra_reader:
        nodes.append(_node("Neg", ["m"], ["n"]))
        outputs.append(("n", (*batch, 5)))
    return _model(nodes, [("x", (*batch, 4))], outputs, weights), {"x": RNG.normal(0, 1, (*batch, 4)).astype(
        np.float32)}


@pytest.mark.device
@pytest.mark.parametrize("bias_shape,batch", [((5,), (2, 3)), ((1, 5), (3,)), ((5,), (2, 2, 3))],
                         ids=["bias_n_batched", "bias_1xn_2d", "bias_n_two_batch_dims"])
def test_a_matmul_and_its_bias_become_one_gemm(device, bias_shape, batch):
    lowered = _run(device, *_linear(bias_shape=bias_shape, batch=batch))
    assert lowered.fusions.counts == {"MatMul+Add": 1}
    [(name, desc)] = _descs(lowered)
    assert name == "DML_OPERATOR_GEMM" and desc.CTensor is not None and desc.Beta == 1.0


@pytest.mark.device
@pytest.mark.parametrize("scale_op,scalar_left", [("Mul", False), ("Mul", True), ("Div", False)])
def test_a_matmul_times_a_scalar_is_gemms_alpha_and_then_takes_its_bias(device, scale_op, scalar_left):
    lowered = _run(device, *_linear(scale=4.0, scale_op=scale_op, scalar_left=scalar_left))
    assert lowered.fusions.counts == {"MatMul×scalar": 1, "MatMul+Add": 1}
    [(_, desc)] = _descs(lowered)
    assert desc.Alpha == pytest.approx(4.0 if scale_op == "Mul" else 0.25) and desc.CTensor is not None


@pytest.mark.device
@pytest.mark.parametrize("case", ["scale_after_bias", "matrix_bias", "read_twice"])
def test_matmul_followers_that_do_not_fuse(device, case):
    """(A·B + c)·s is not s·A·B + c (the scale stays its own node); a bias of M×N values is not a bias; a product
    read twice stays."""
    if case == "scale_after_bias":
        model, feeds = _linear(scale=4.0, bias_first=True)
        expected = {"MatMul+Add": 1}
    elif case == "matrix_bias":
        model, feeds = _linear(bias_shape=(3, 5))
        expected = {}
    else:
        model, feeds = _linear(extra_reader=True)
        expected = {}
    lowered = _run(device, model, feeds)
    assert lowered.fusions.counts == expected


def test_a_div_of_a_scalar_by_the_product_is_not_an_alpha():
    from dmlsim.onnx.fusion import fuse

    nodes = [_node("MatMul", ["x", "w"], ["m"]), _node("Div", ["s", "m"], ["y"])]
    values = {"w": np.ones((4, 5), np.float32), "s": np.float32(2.0)}
    fused, fusions = fuse(nodes, {"y"}, values.get)
    assert fusions.counts == {} and [n.op_type for n in fused] == ["MatMul", "Div"]


def _gelu(form, half_first=False, erf_constant=1.0):
    x = "x"
    if form == "div":
        nodes, weights = [_node("Div", [x, "sqrt2"], ["scaled"])], [("sqrt2", np.float32(np.sqrt(2)))]
    else:
        nodes, weights = [_node("Mul", ["inv_sqrt2", x], ["scaled"])], [("inv_sqrt2", np.float32(1 / np.sqrt(2)))]
    weights += [("one", np.float32(erf_constant)), ("half", np.float32(0.5))]
    nodes += [_node("Erf", ["scaled"], ["e"]), _node("Add", ["e", "one"], ["p"])]
    if half_first:
        nodes += [_node("Mul", [x, "half"], ["h"]), _node("Mul", ["h", "p"], ["y"])]
    else:
        nodes += [_node("Mul", [x, "p"], ["q"]), _node("Mul", ["q", "half"], ["y"])]
    model = _model(nodes, [("x", (3, 7))], [("y", (3, 7))], weights)
    return model, {"x": RNG.normal(0, 2, (3, 7)).astype(np.float32)}


@pytest.mark.device
@pytest.mark.parametrize("form,half_first", [("div", False), ("div", True), ("mul", False), ("mul", True)])
def test_the_erf_gelu_pattern_becomes_one_gelu(device, form, half_first):
    lowered = _run(device, *_gelu(form, half_first))
    assert lowered.fusions.counts == {"GELU": 1}
    assert [name for name, _ in _descs(lowered)] == ["DML_OPERATOR_ACTIVATION_GELU"]


@pytest.mark.device
def test_a_pattern_that_is_not_gelu_stays(device):
    lowered = _run(device, *_gelu("div", erf_constant=1.5))
    assert lowered.fusions.counts == {}


@pytest.mark.device
def test_an_activation_no_emitted_operator_takes_is_applied_as_its_own(device, monkeypatch):
    """A fused node whose lowering made no operator with a FusedActivation field (here Gemm lowered, for the test,
    through an IDENTITY copy) still gets its activation: as an operator of its own after it."""
    from dmlsim.onnx import lowering as lowering_module
    from dmlsim.onnx.ops_elementwise import unary

    nodes, inputs, weights, shape = FUSABLE_OPS["Gemm"]
    model = _model([*nodes, _node("Relu", ["t"], ["y"])], inputs, [("y", shape)], weights)
    feeds = {"x": RNG.normal(0, 1, (3, 4)).astype(np.float32)}
    original = lowering_module.LOWERINGS["Gemm"]

    def through_a_copy(low, node, attrs):
        pending, low.fused_activation = low.fused_activation, None  # GEMM must not take it
        original(low, node, attrs)
        unary(low, "ELEMENT_WISE_IDENTITY", low.views[node.output[0]], node.output[0])
        low.fused_activation = pending

    monkeypatch.setitem(lowering_module.LOWERINGS, "Gemm", through_a_copy)
    lowered = _run(device, model, feeds)
    names = [name for name, _ in _descs(lowered)]
    assert names[-1] == "DML_OPERATOR_ACTIVATION_RELU", names


@pytest.mark.device
def test_a_fused_node_computed_on_the_host_keeps_its_activation(device):
    """Add(Shape(x), [-3, 1]) then Relu: the Add reads a Shape output, so the pass fuses the Relu into it, but the
    node is then computed on the host (shape arithmetic, as onnxruntime places it on its CPU provider), where
    onnx.reference would ignore the fused attributes: it runs as the Add and then the Relu. [2, 3] - gives [-1, 4],
    then [0, 4]."""
    from onnx import TensorProto, helper, numpy_helper

    nodes = [_node("Shape", ["x"], ["s"]), _node("Add", ["s", "c"], ["t"]), _node("Relu", ["t"], ["r"])]
    graph = helper.make_graph(nodes, "host", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("r", TensorProto.INT64, [2])],
                              [numpy_helper.from_array(np.array([-3, 1], np.int64), "c")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    feeds = {"x": np.zeros((2, 3), np.float32)}
    lowered = lower(model, feeds, device)
    assert lowered.fusions.counts == {"Add+Relu": 1}
    np.testing.assert_array_equal(lowered.run(feeds)[0], [0, 4])  # by hand (onnxruntime's CPU has no int64 Relu)


def test_nodes_of_constants_and_malformed_nodes_are_left_to_the_lowering():
    """A node whose inputs are all constants is folded by onnxruntime before any fusion: no rewrite (an Add of two
    initializers and its Relu, a MatMul of a constant A). Malformed nodes (a Conv without a filter, a BatchNormalization
    with three inputs, an Erf or a Relu without input) are not the pass's to judge: no rewrite and no exception (the
    lowering refuses them, naming the node)."""
    from dmlsim.onnx.fusion import fuse

    values = {"a": np.ones(3, np.float32), "b": np.ones(3, np.float32), "w": np.ones((3, 4), np.float32),
              "bias": np.ones(4, np.float32)}
    nodes = [_node("Add", ["a", "b"], ["t"]), _node("Relu", ["t"], ["y"]),
             _node("MatMul", ["a", "w"], ["m"]), _node("Add", ["m", "bias"], ["z"])]
    fused, fusions = fuse(nodes, {"y", "z"}, values.get)
    assert fusions.counts == {} and [n.op_type for n in fused] == ["Add", "Relu", "MatMul", "Add"]
    malformed = [_node("Conv", ["x"], ["c"]), _node("BatchNormalization", ["c", "s", "b"], ["n"]),
                 _node("Erf", [], ["e"]), _node("Relu", [], ["r"]), _node("Add", ["e", "x"], ["q"])]
    fused, fusions = fuse(malformed, {"n", "q", "r"}, values.get)
    assert fusions.counts == {} and len(fused) == len(malformed)
