"""DML_OPERATOR_GRU against onnx: onnx's generated GRU node cases (mapped as onnxruntime's DirectML provider maps an
ONNX GRU node: X, W, R, B, sequence_lens, initial_h unsqueezed to 4-D, gate order z, r, h unchanged,
linear_before_reset onto LinearBeforeReset; Y/Y_h from OutputSequence/OutputSingle; layout = 1 through the strides
of X and the outputs, dmlsim's mapping) and ``onnx.reference``'s GRU on random values. Tolerance: the error bounds
of test_gru.transcribe's twin below plus 8 float32 ulps of the value (onnx computed in float32)."""

from __future__ import annotations

import numpy as np
import pytest
from dispatch import run
from lstm_support import BACKWARD, BIDIRECTIONAL, DIRECTIONS, EPS, F32, FORWARD, check, tensor
from onnx_node_cases import case_ids, node_attributes, node_cases

import dmlsim as dml

OP = dml.DML_OPERATOR_GRU
GRU_CASES = node_cases("GRU")


def _desc(seq, batch, inputs, hidden, direction, given, strides, linear_before_reset):
    dirs = 2 if direction == BIDIRECTIONAL else 1
    sizes = {"InputTensor": [1, seq, batch, inputs], "WeightTensor": [1, dirs, 3 * hidden, inputs],
             "RecurrenceTensor": [1, dirs, 3 * hidden, hidden], "BiasTensor": [1, 1, dirs, 6 * hidden],
             "HiddenInitTensor": [1, dirs, batch, hidden], "SequenceLengthsTensor": [1, 1, 1, batch],
             "OutputSequenceTensor": [seq, dirs, batch, hidden], "OutputSingleTensor": [1, dirs, batch, hidden]}
    tensors = {name: tensor(dml.DML_TENSOR_DATA_TYPE_UINT32 if name == "SequenceLengthsTensor" else F32, s,
                            strides.get(name)) if name in given else None for name, s in sizes.items()}
    acts = [dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_SIGMOID, dml.DML_ACTIVATION_SIGMOID_OPERATOR_DESC()),
            dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_TANH, dml.DML_ACTIVATION_TANH_OPERATOR_DESC())] * dirs
    return dml.DML_GRU_OPERATOR_DESC(**tensors, ActivationDescCount=len(acts), ActivationDescs=acts,
                                     Direction=direction, LinearBeforeReset=linear_before_reset)


def _bound(values, y):
    """A magnitude bound for onnx's float32 values: each gate sums input + hidden + 2 terms of at most max|W, R, B|
    times max(1, |X|, |H|) (|H| <= max(|h~|, |H_init|) <= max(1, |H_init|) with tanh), over the sequence."""
    peak = max(float(np.max(np.abs(values[k]))) for k in ("WeightTensor", "RecurrenceTensor"))
    scale = max([1.0] + [float(np.max(np.abs(values[k]))) for k in ("InputTensor", "HiddenInitTensor") if k in values])
    n = values["InputTensor"].shape[3] + values["RecurrenceTensor"].shape[3] + 2
    seq = values["InputTensor"].shape[1]
    return np.full(y.shape, 4 * seq * n * (n + 3) * EPS * peak * scale) + 8 * EPS * np.abs(y)


@pytest.mark.formula
@pytest.mark.parametrize("case", GRU_CASES, ids=case_ids(GRU_CASES))
def test_onnx_node_cases(device, case):
    """Every onnx GRU node case maps (none is listed as unmappable): defaults, bias, a longer sequence, batch-first
    layout (through strides), reverse, bidirectional."""
    node = case.model.graph.node[0]
    attrs = node_attributes(case)
    named = {name: a for name, a in zip(node.input, case.data_sets[0][0], strict=False) if name}
    expected = dict(zip([o.name for o in case.model.graph.output], case.data_sets[0][1], strict=True))
    hidden = attrs["hidden_size"]
    direction = {"forward": FORWARD, "reverse": BACKWARD, "bidirectional": BIDIRECTIONAL}[attrs.get("direction",
                                                                                                    "forward")]
    dirs = 2 if direction == BIDIRECTIONAL else 1
    batch_first = attrs.get("layout", 0) == 1
    x = named["X"].transpose(1, 0, 2) if batch_first else named["X"]
    seq, batch, inputs = x.shape
    roles = {"B": "BiasTensor", "initial_h": "HiddenInitTensor", "sequence_lens": "SequenceLengthsTensor"}
    outputs = {field: name for field, name in zip(("OutputSequenceTensor", "OutputSingleTensor"), node.output,
                                                  strict=False) if name in expected}
    given = {"InputTensor", "WeightTensor", "RecurrenceTensor", *(roles[k] for k in named if k in roles), *outputs}
    strides = {}
    if batch_first:
        strides = {"InputTensor": [seq * batch * inputs, inputs, seq * inputs, 1],
                   "OutputSequenceTensor": [dirs * hidden, hidden, seq * dirs * hidden, 1],
                   "OutputSingleTensor": [dirs * batch * hidden, hidden, dirs * hidden, 1]}
    desc = _desc(seq, batch, inputs, hidden, direction, given, strides, bool(attrs.get("linear_before_reset", 0)))
    values = {"InputTensor": x[None], "WeightTensor": named["W"][None], "RecurrenceTensor": named["R"][None]}
    if "B" in named:
        values["BiasTensor"] = named["B"].reshape(1, 1, dirs, -1)
    if "initial_h" in named:
        values["HiddenInitTensor"] = named["initial_h"][None]
    if "sequence_lens" in named:
        values["SequenceLengthsTensor"] = named["sequence_lens"].astype(np.uint32).reshape(1, 1, 1, -1)
    got = run(device, dml.DML_OPERATOR_DESC(OP, desc), values)
    assert outputs
    for field, name in outputs.items():
        y = expected[name]
        if batch_first:
            y = y.transpose(1, 2, 0, 3) if field == "OutputSequenceTensor" else y.transpose(1, 0, 2)
        y = y if field == "OutputSequenceTensor" else y[None]
        check(got[field], (y.astype(np.float64), _bound(values, y)), F32, field)


@pytest.mark.formula
@pytest.mark.parametrize("linear_before_reset", [0, 1], ids=["reset_before", "linear_before_reset"])
@pytest.mark.parametrize("direction", DIRECTIONS.keys())
def test_matches_onnx_reference_gru(device, direction, linear_before_reset):
    """onnx.reference's GRU (sigmoid, tanh) with bias and initial H, every direction, linear_before_reset both ways."""
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    seq, batch, inputs, hidden = 4, 2, 3, 4
    dirs = 2 if direction == "bidirectional" else 1
    rng = np.random.default_rng(11)
    arrays = {"X": rng.uniform(-1, 1, (seq, batch, inputs)), "W": rng.uniform(-1, 1, (dirs, 3 * hidden, inputs)),
              "R": rng.uniform(-1, 1, (dirs, 3 * hidden, hidden)), "B": rng.uniform(-0.5, 0.5, (dirs, 6 * hidden)),
              "initial_h": rng.uniform(-1, 1, (dirs, batch, hidden))}
    arrays = {k: v.astype(np.float32) for k, v in arrays.items()}
    node = helper.make_node("GRU", ["X", "W", "R", "B", "", "initial_h"], ["Y", "Y_h"], hidden_size=hidden,
                            direction={"backward": "reverse"}.get(direction, direction),
                            linear_before_reset=linear_before_reset)
    graph = helper.make_graph([node], "gru", [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape)
                                              for n, a in arrays.items()],
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("Y", "Y_h")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    y, y_h = ReferenceEvaluator(model).run(None, arrays)
    given = {"InputTensor", "WeightTensor", "RecurrenceTensor", "BiasTensor", "HiddenInitTensor",
             "OutputSequenceTensor", "OutputSingleTensor"}
    desc = _desc(seq, batch, inputs, hidden, DIRECTIONS[direction], given, {}, bool(linear_before_reset))
    got = run(device, dml.DML_OPERATOR_DESC(OP, desc), {
        "InputTensor": arrays["X"][None], "WeightTensor": arrays["W"][None], "RecurrenceTensor": arrays["R"][None],
        "BiasTensor": arrays["B"].reshape(1, 1, dirs, -1), "HiddenInitTensor": arrays["initial_h"][None]})
    np.testing.assert_allclose(got["OutputSequenceTensor"], y, rtol=1e-5, atol=2e-6)
    np.testing.assert_allclose(got["OutputSingleTensor"][0], y_h, rtol=1e-5, atol=2e-6)
