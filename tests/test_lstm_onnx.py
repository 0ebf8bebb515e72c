"""DML_OPERATOR_LSTM against onnx: onnx's generated LSTM node cases (mapped as onnxruntime's DirectML provider maps
an ONNX LSTM node: X, W, R, B, sequence_lens, initial_h, initial_c, P unsqueezed to 4-D; Y/Y_h/Y_c from
OutputSequence/OutputSingle/OutputCellSingle) and ``onnx.reference``'s LSTM on random values. A module of its own
so that tests/test_lstm.py (and the mutants' selections) do not wait for onnx's case generator. Tolerance: the
error bounds of lstm_support.transcribe (tests/test_lstm.py's docstring) plus 8 float32 ulps of the value, since
onnx's expected values were computed in float32 by numpy."""

from __future__ import annotations

import numpy as np
import pytest
from dispatch import run
from lstm_support import (
    BACKWARD,
    BIDIRECTIONAL,
    DEFAULT,
    DIRECTIONS,
    EPS,
    F32,
    FORWARD,
    INPUTS,
    OP,
    OUTPUTS,
    check,
    make_desc,
    random_inputs,
    transcribe,
)
from onnx_node_cases import case_ids, node_attributes, node_cases

import dmlsim as dml

# --- against onnx's node cases and onnx.reference ---------------------------------------------------------------
LSTM_CASES = node_cases("LSTM")


def _onnx_to_dml(case):
    """An ONNX LSTM node case as (desc, inputs, {dml output: onnx expected}). layout = 1 (batch first) is
    expressed through the strides of X and OutputSequence (dmlsim's mapping)."""
    node = case.model.graph.node[0]
    attrs = node_attributes(case)
    arrays = dict(zip([n for n in node.input], case.data_sets[0][0], strict=False))
    named = {name: arrays[name] for name in node.input if name}
    expected = dict(zip([o.name for o in case.model.graph.output], case.data_sets[0][1], strict=True))
    hidden = attrs["hidden_size"]
    direction = {"forward": FORWARD, "reverse": BACKWARD, "bidirectional": BIDIRECTIONAL}[attrs.get("direction",
                                                                                                    "forward")]
    batch_first = attrs.get("layout", 0) == 1
    x = named["X"].transpose(1, 0, 2) if batch_first else named["X"]
    seq, batch, inputs = x.shape
    dirs = 2 if direction == BIDIRECTIONAL else 1
    roles = {"B": "BiasTensor", "initial_h": "HiddenInitTensor", "initial_c": "CellMemInitTensor",
             "P": "PeepholeTensor", "sequence_lens": "SequenceLengthsTensor"}
    outputs = {field: name if name in expected else "" for field, name in zip(OUTPUTS, node.output, strict=False)}
    given = tuple(roles[k] for k in named if k in roles) + tuple(k for k, v in outputs.items() if v)
    strides = {}
    if batch_first:
        strides = {"InputTensor": [seq * batch * inputs, inputs, seq * inputs, 1],
                   "OutputSequenceTensor": [dirs * hidden, hidden, seq * dirs * hidden, 1]}
    desc = make_desc(F32, seq, batch, inputs, hidden, direction, given=given, lengths="sequence_lens" in named,
                     strides=strides)
    values = {"InputTensor": x[None], "WeightTensor": named["W"][None], "RecurrenceTensor": named["R"][None]}
    for onnx_name, field in roles.items():
        if onnx_name in named:
            a = named[onnx_name]
            values[field] = (a.astype(np.uint32).reshape(1, 1, 1, -1) if onnx_name == "sequence_lens"
                             else a.reshape(1, 1, dirs, -1) if onnx_name in ("B", "P") else a[None])
    wanted = {}
    for field, name in outputs.items():
        if name:
            y = expected[name]
            if field == "OutputSequenceTensor" and batch_first:
                y = y.transpose(1, 2, 0, 3)  # [batch, seq, D, h] -> [seq, D, batch, h]
            elif batch_first:
                y = y.transpose(1, 0, 2)  # [batch, D, h] -> [D, batch, h]
            wanted[field] = y if field == "OutputSequenceTensor" else y[None]
    return desc, values, wanted


@pytest.mark.formula
@pytest.mark.parametrize("case", LSTM_CASES, ids=case_ids(LSTM_CASES))
def test_onnx_node_cases(device, case):
    """Every onnx LSTM node case maps (none is listed as unmappable): defaults, bias, peepholes with
    sequence_lens and initial h/c, batch-first layout (through strides), reverse, bidirectional with Y_c."""
    desc, values, wanted = _onnx_to_dml(case)
    inputs = {k: v for k, v in values.items()}
    got = run(device, dml.DML_OPERATOR_DESC(OP, desc), inputs)
    lengths = values.get("SequenceLengthsTensor")
    backward = {FORWARD: (False,), BACKWARD: (True,), BIDIRECTIONAL: (False, True)}[desc.Direction]
    bounds = transcribe({k: v for k, v in values.items() if k != "SequenceLengthsTensor"},
                        hidden=desc.WeightTensor.Desc.Sizes[2] // 4, backward=backward,
                        activations=[DEFAULT] * len(backward),
                        lengths=None if lengths is None else lengths.reshape(-1))
    assert wanted
    for field, y in wanted.items():
        check(got[field], (y.astype(np.float64), bounds[field][1] + 8 * EPS * np.abs(y)), F32, field)


@pytest.mark.formula
@pytest.mark.parametrize("peepholes", [False, True], ids=["plain", "peepholes"])
@pytest.mark.parametrize("direction", DIRECTIONS.keys())
def test_matches_onnx_reference_lstm(device, direction, peepholes):
    """onnx.reference's LSTM (sigmoid, tanh, tanh; it implements neither clip, input_forget nor sequence_lens)."""
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    seq, batch, inputs, hidden = 4, 2, 3, 4
    given = INPUTS[3:6] + (("PeepholeTensor",) if peepholes else ()) + OUTPUTS
    desc = make_desc(F32, seq, batch, inputs, hidden, DIRECTIONS[direction], given=given)
    values = random_inputs(desc, F32, seed=7)
    names = ["X", "W", "R", "B", "", "initial_h", "initial_c"] + (["P"] if peepholes else [])
    arrays = {"X": values["InputTensor"][0], "W": values["WeightTensor"][0], "R": values["RecurrenceTensor"][0],
              "B": values["BiasTensor"][0, 0], "initial_h": values["HiddenInitTensor"][0],
              "initial_c": values["CellMemInitTensor"][0]}
    if peepholes:
        arrays["P"] = values["PeepholeTensor"][0, 0]
    node = helper.make_node("LSTM", names, ["Y", "Y_h", "Y_c"], hidden_size=hidden,
                            direction={"backward": "reverse"}.get(direction, direction))
    graph = helper.make_graph([node], "lstm", [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape)
                                               for n, a in arrays.items()],
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("Y", "Y_h", "Y_c")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    y, y_h, y_c = ReferenceEvaluator(model).run(None, arrays)
    got = run(device, dml.DML_OPERATOR_DESC(OP, desc), values)
    np.testing.assert_allclose(got["OutputSequenceTensor"], y, rtol=1e-5, atol=2e-6)
    np.testing.assert_allclose(got["OutputSingleTensor"][0], y_h, rtol=1e-5, atol=2e-6)
    np.testing.assert_allclose(got["OutputCellSingleTensor"][0], y_c, rtol=1e-5, atol=2e-6)


