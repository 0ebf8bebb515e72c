"""DML_OPERATOR_RNN (dmlsim/operators/rnn) on every adapter, and its validation.

Expected values come from :func:`transcribe`, the doc page's equations written once more here with
explicit loops in float64 (never dmlsim's reference), from ``onnx.reference``'s RNN (ONNX's RNN is the
same function: Y and Y_h are OutputSequenceTensor and OutputSingleTensor), and from literals.

Tolerance: each output element has a magnitude bound E, the sum of the absolute values of every term of
its pre-activation sum plus the bound of the previous H carried through |R|, times the activation's
largest slope. A float32 sum of n terms is within n·eps·E of the exact one, so FLOAT32 results must be
within 2·(n + 2) ulps of E (n = input_size + hidden_size). FLOAT16 is computed in float32 and rounded
once: 1 ulp (FLOAT16) of max(|expected|, c·E) with c = 2·(n + 2)·2⁻¹², so that the half ulp left beside the
rounding covers the float32 error bound (a FLOAT16 ulp is 2¹³ float32 ulps).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from dispatch import Dispatch, run

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps

_T = dml.DML_TENSOR_DATA_TYPE
F32, F16, U32 = _T.DML_TENSOR_DATA_TYPE_FLOAT32, _T.DML_TENSOR_DATA_TYPE_FLOAT16, _T.DML_TENSOR_DATA_TYPE_UINT32
NUMPY = {F32: np.float32, F16: np.float16, U32: np.uint32}
FORWARD = dml.DML_RECURRENT_NETWORK_DIRECTION_FORWARD
BACKWARD = dml.DML_RECURRENT_NETWORK_DIRECTION_BACKWARD
BIDIRECTIONAL = dml.DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL
DIRECTIONS = {"forward": FORWARD, "backward": BACKWARD, "bidirectional": BIDIRECTIONAL}
OP = dml.DML_OPERATOR_RNN


# --- the doc's activations, transcribed here: (desc attributes, f, largest |slope|) ------------------------
def _elu(alpha):
    return lambda z: z if z >= 0 else alpha * (math.exp(z) - 1)


ACTIVATIONS = {
    "TANH": ({}, math.tanh, 1.0),
    "SIGMOID": ({}, lambda z: 1 / (1 + math.exp(-z)), 0.25),
    "RELU": ({}, lambda z: max(0.0, z), 1.0),
    "ELU_0.5": ({"Alpha": 0.5}, _elu(0.5), 1.0),
    "ELU_3.5": ({"Alpha": 3.5}, _elu(3.5), 3.5),
    "LINEAR": ({"Alpha": 0.75, "Beta": -0.25}, lambda z: 0.75 * z - 0.25, 0.75),
    "SCALED_TANH": ({"Alpha": 1.5, "Beta": 0.5}, lambda z: 1.5 * math.tanh(0.5 * z), 0.75),
}


def activation_desc(key):
    attrs, _, _ = ACTIVATIONS[key]
    name = key.split("_")[0] if key.startswith("ELU") else key
    desc_cls = getattr(dml, f"DML_ACTIVATION_{name}_OPERATOR_DESC")
    return dml.DML_OPERATOR_DESC(getattr(dml, f"DML_OPERATOR_ACTIVATION_{name}"), desc_cls(None, None, **attrs))


def transcribe(x, w, r, bias=None, h0=None, lengths=None, activations=("TANH",), backward=(False,)):
    """The doc page's equations by explicit loops, in float64: (OutputSequence, OutputSingle) and their
    magnitude bounds. Lengths are clamped to seq_length; t >= length gives 0 in OutputSequence;
    OutputSingle is the last H computed (the initial H for a length of 0)."""
    seq, batch, inputs = x.shape[1], x.shape[2], x.shape[3]
    dirs, hidden = w.shape[1], w.shape[2]
    y_seq, e_seq = np.zeros((seq, dirs, batch, hidden)), np.zeros((seq, dirs, batch, hidden))
    y_one, e_one = np.zeros((1, dirs, batch, hidden)), np.zeros((1, dirs, batch, hidden))
    for d in range(dirs):
        _, f, slope = ACTIVATIONS[activations[d]]
        for b in range(batch):
            length = seq if lengths is None else min(int(lengths[b]), seq)
            h = [0.0 if h0 is None else float(h0[0, d, b, j]) for j in range(hidden)]
            e = [abs(v) for v in h]
            steps = range(length - 1, -1, -1) if backward[d] else range(length)
            for t in steps:
                new_h, new_e = [], []
                for j in range(hidden):
                    z = mag = 0.0
                    for k in range(inputs):
                        term = float(x[0, t, b, k]) * float(w[0, d, j, k])
                        z, mag = z + term, mag + abs(term)
                    for k in range(hidden):
                        term = h[k] * float(r[0, d, j, k])
                        z, mag = z + term, mag + abs(term) + e[k] * abs(float(r[0, d, j, k]))
                    if bias is not None:
                        wb, rb = float(bias[0, 0, d, j]), float(bias[0, 0, d, hidden + j])
                        z, mag = z + wb + rb, mag + abs(wb) + abs(rb)
                    new_h.append(f(z))
                    new_e.append(slope * mag + abs(f(z)))
                h, e = new_h, new_e
                y_seq[t, d, b], e_seq[t, d, b] = h, e
            y_one[0, d, b], e_one[0, d, b] = h, e
    return (y_seq, e_seq), (y_one, e_one)


def tensor(data_type, sizes, strides=None, flags=dml.DML_TENSOR_FLAG_NONE):
    return dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER, dml.DML_BUFFER_TENSOR_DESC(
        data_type, flags, len(sizes), list(sizes), None if strides is None else list(strides),
        dml.DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides), 0))


def make_desc(data_type, seq, batch, inputs, hidden, direction, *, bias=True, h0=True, lengths=False,
              sequence=True, single=True, activations=None, strides=None):
    """A DML_RNN_OPERATOR_DESC of the doc page's sizes; ``strides`` maps a field to its DML strides."""
    dirs = 2 if direction == BIDIRECTIONAL else 1
    strides = strides or {}
    sizes = {"InputTensor": [1, seq, batch, inputs], "WeightTensor": [1, dirs, hidden, inputs],
             "RecurrenceTensor": [1, dirs, hidden, hidden], "BiasTensor": [1, 1, dirs, 2 * hidden],
             "HiddenInitTensor": [1, dirs, batch, hidden], "SequenceLengthsTensor": [1, 1, 1, batch],
             "OutputSequenceTensor": [seq, dirs, batch, hidden], "OutputSingleTensor": [1, dirs, batch, hidden]}
    given = {"BiasTensor": bias, "HiddenInitTensor": h0, "SequenceLengthsTensor": lengths,
             "OutputSequenceTensor": sequence, "OutputSingleTensor": single}
    tensors = {name: tensor(U32 if name == "SequenceLengthsTensor" else data_type, s, strides.get(name))
               if given.get(name, True) else None for name, s in sizes.items()}
    keys = activations or ["TANH"] * dirs
    return dml.DML_RNN_OPERATOR_DESC(**tensors, ActivationDescCount=len(keys),
                                     ActivationDescs=[activation_desc(k) for k in keys], Direction=direction)


def random_inputs(data_type, seq, batch, inputs, hidden, dirs, seed=0, scale=0.6):
    """Inputs rounded to the tensors' type; the test computes its expectations from these values."""
    rng = np.random.default_rng(seed)
    dtype = NUMPY[data_type]

    def draw(*shape):
        return (rng.uniform(-1, 1, shape) * scale).astype(dtype)

    return {"InputTensor": draw(1, seq, batch, inputs), "WeightTensor": draw(1, dirs, hidden, inputs),
            "RecurrenceTensor": draw(1, dirs, hidden, hidden), "BiasTensor": draw(1, 1, dirs, 2 * hidden),
            "HiddenInitTensor": draw(1, dirs, batch, hidden)}


def expectations(desc, values, lengths=None):
    """:func:`transcribe` for a desc and its inputs."""
    backward = {FORWARD: (False,), BACKWARD: (True,), BIDIRECTIONAL: (False, True)}[desc.Direction]
    keys = [_key(a) for a in desc.ActivationDescs]
    return transcribe(values["InputTensor"], values["WeightTensor"], values["RecurrenceTensor"],
                      values.get("BiasTensor") if desc.BiasTensor else None,
                      values.get("HiddenInitTensor") if desc.HiddenInitTensor else None,
                      lengths, keys, backward)


def _key(op_desc):
    name = dml.DML_OPERATOR_TYPE(op_desc.Type).name.removeprefix("DML_OPERATOR_ACTIVATION_")
    return f"ELU_{op_desc.Desc.Alpha}" if name == "ELU" else name


def check(got, expected_and_bound, data_type, n, what):
    expected, bound = expected_and_bound
    if data_type == F32:
        report = compare_ulps(got, expected, np.float32, 2 * (n + 2), bound)
    else:  # 0.5 ulp (FLOAT16) of c·E covers the float32 error bound: c = 2(n + 2) ulps of float32 in FLOAT16 ulps
        report = compare_ulps(got, expected, np.float16, 1, bound * 2 * (n + 2) * 2.0**-12)
    assert report.ok, report.describe(what)


def run_and_check(device, desc, values, data_type, lengths=None):
    inputs = {k: v for k, v in values.items() if getattr(desc, k) is not None}
    if lengths is not None:
        inputs["SequenceLengthsTensor"] = np.asarray(lengths, np.uint32).reshape(1, 1, 1, -1)
    got = run(device, dml.DML_OPERATOR_DESC(OP, desc), inputs)
    (seq_expected, single_expected) = expectations(desc, values, lengths)
    n = desc.InputTensor.Desc.Sizes[3] + desc.WeightTensor.Desc.Sizes[2]
    if desc.OutputSequenceTensor is not None:
        check(got["OutputSequenceTensor"], seq_expected, data_type, n, "OutputSequenceTensor")
    if desc.OutputSingleTensor is not None:
        check(got["OutputSingleTensor"], single_expected, data_type, n, "OutputSingleTensor")
    return got


# --- the arithmetic, on every adapter ------------------------------------------------------------------
@pytest.mark.formula
@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("direction", DIRECTIONS.values(), ids=DIRECTIONS.keys())
def test_every_direction_with_every_optional_tensor(device, direction, data_type):
    seq, batch, inputs, hidden = 5, 3, 4, 6
    dirs = 2 if direction == BIDIRECTIONAL else 1
    keys = ["TANH", "SIGMOID"][:dirs]
    desc = make_desc(data_type, seq, batch, inputs, hidden, direction, activations=keys)
    run_and_check(device, desc, random_inputs(data_type, seq, batch, inputs, hidden, dirs, seed=1), data_type)


@pytest.mark.formula
@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
def test_each_direction_has_its_own_activation(device, data_type):
    """Bidirectional with ELU(0.5) forward and ELU(3.5) backward, on pre-activations of both signs."""
    desc = make_desc(data_type, 3, 2, 3, 4, BIDIRECTIONAL, activations=["ELU_0.5", "ELU_3.5"])
    values = random_inputs(data_type, 3, 2, 3, 4, 2, seed=2, scale=1.5)
    got = run_and_check(device, desc, values, data_type)
    single = got["OutputSingleTensor"].astype(np.float64)
    assert single[0, 0].min() > -0.5 and single[0, 1].min() < -0.5  # ELU(0.5) > -0.5; ELU(3.5) went below


@pytest.mark.formula
@pytest.mark.parametrize("direction", DIRECTIONS.values(), ids=DIRECTIONS.keys())
def test_sequence_lengths(device, direction):
    """Lengths 4 (= seq_length), 0, 1, 2: the backward direction starts at each entry's own last step."""
    dirs = 2 if direction == BIDIRECTIONAL else 1
    desc = make_desc(F32, 4, 4, 3, 5, direction, lengths=True, activations=["TANH", "RELU"][:dirs])
    values = random_inputs(F32, 4, 4, 3, 5, dirs, seed=3)
    got = run_and_check(device, desc, values, F32, lengths=[4, 0, 1, 2])
    assert not got["OutputSequenceTensor"][:, :, 1].any() and not got["OutputSequenceTensor"][2:, :, 3].any()
    np.testing.assert_array_equal(got["OutputSingleTensor"][0, :, 1], values["HiddenInitTensor"][0, :, 1])


@pytest.mark.formula
@pytest.mark.parametrize("case", ["no bias, no init", "sequence only", "single only"])
def test_optional_tensors_absent(device, case):
    bias = h0 = case != "no bias, no init"
    desc = make_desc(F32, 3, 2, 2, 3, BIDIRECTIONAL, bias=bias, h0=h0, sequence=case != "single only",
                     single=case != "sequence only", activations=["SCALED_TANH", "LINEAR"])
    run_and_check(device, desc, random_inputs(F32, 3, 2, 2, 3, 2, seed=4), F32)


def test_more_hidden_units_than_work_items_and_padded_strides(device):
    """hidden_size 70 (> the 64 work-items of a group: each work-item takes several units), every tensor
    padded or permuted through its strides (W and R stored transposed in memory)."""
    seq, batch, inputs, hidden = 3, 2, 5, 70
    strides = {"InputTensor": [200, 60, 7, 1], "WeightTensor": [1000, 400, 1, 71],
               "RecurrenceTensor": [20000, 7000, 1, 75], "BiasTensor": [400, 400, 150, 1],
               "HiddenInitTensor": [1000, 400, 80, 1], "OutputSequenceTensor": [500, 240, 72, 1],
               "OutputSingleTensor": [1000, 300, 100, 1]}
    desc = make_desc(F32, seq, batch, inputs, hidden, BIDIRECTIONAL, strides=strides, activations=["TANH", "TANH"])
    values = random_inputs(F32, seq, batch, inputs, hidden, 2, seed=5, scale=0.2)
    run_and_check(device, desc, values, F32)


@pytest.mark.formula
def test_broadcast_inputs_and_binding_offsets(device):
    """Stride 0 broadcasts: one bias row for both directions, one initial H for every batch entry, X's one
    time step repeated; every tensor bound at its own 16-byte-aligned offset inside one shared buffer."""
    seq, batch, inputs, hidden = 3, 2, 3, 4
    strides = {"InputTensor": [0, 0, 3, 1], "BiasTensor": [0, 0, 0, 1], "HiddenInitTensor": [0, 4, 0, 1]}
    desc = make_desc(F32, seq, batch, inputs, hidden, BIDIRECTIONAL, strides=strides, activations=["TANH", "TANH"])
    values = random_inputs(F32, seq, batch, inputs, hidden, 2, seed=8)
    values["InputTensor"] = np.broadcast_to(values["InputTensor"][:, :1], (1, seq, batch, inputs))
    values["BiasTensor"] = np.broadcast_to(values["BiasTensor"][:, :, :1], (1, 1, 2, 2 * hidden))
    values["HiddenInitTensor"] = np.broadcast_to(values["HiddenInitTensor"][:, :, :1], (1, 2, batch, hidden))
    shared = device.CreateBuffer(4096)
    names = ["InputTensor", "WeightTensor", "RecurrenceTensor", "BiasTensor", "HiddenInitTensor",
             "OutputSequenceTensor", "OutputSingleTensor"]
    placement = {name: (shared, 48 + 512 * i) for i, name in enumerate(names)}
    dispatch = Dispatch(device, dml.DML_OPERATOR_DESC(OP, desc), placement=placement)
    dispatch.load(values)
    dispatch.execute()
    seq_expected, single_expected = expectations(desc, values)
    check(dispatch.read("OutputSequenceTensor"), seq_expected, F32, inputs + hidden, "OutputSequenceTensor")
    check(dispatch.read("OutputSingleTensor"), single_expected, F32, inputs + hidden, "OutputSingleTensor")


@pytest.mark.formula
def test_dxdispatch_sample_equivalent(device):
    """DxDispatch's dml_rnn model: X = 1..32 as {1,1,8,4}, W = 1 + 0.4·i as {1,2,5,4}, R = 0.3, ELU(0.5) and
    ELU(3.5), bidirectional, OutputSingle only: every sum is positive, so H = X·Wᵀ (literals checked by hand:
    18 = 1·1 + 2·1.4 + 3·1.8 + 4·2.2, 1954 = 29·15.4 + 30·15.8 + 31·16.2 + 32·16.6)."""
    desc = dml.DML_RNN_OPERATOR_DESC(
        tensor(F32, [1, 1, 8, 4]), tensor(F32, [1, 2, 5, 4]), tensor(F32, [1, 2, 5, 5]), None, None, None, None,
        tensor(F32, [1, 2, 8, 5]), 2, [activation_desc("ELU_0.5"), activation_desc("ELU_3.5")], BIDIRECTIONAL)
    got = run(device, dml.DML_OPERATOR_DESC(OP, desc), {
        "InputTensor": np.arange(1, 33, dtype=np.float32), "WeightTensor": (1 + 0.4 * np.arange(40)).astype(np.float32),
        "RecurrenceTensor": np.full(50, 0.3, np.float32)})["OutputSingleTensor"]
    x = np.arange(1, 33, dtype=np.float64).reshape(8, 4)
    w = np.float32(1 + 0.4 * np.arange(40)).astype(np.float64).reshape(2, 5, 4)
    expected = [[[sum(x[b, k] * w[d, j, k] for k in range(4)) for j in range(5)] for b in range(8)] for d in range(2)]
    np.testing.assert_allclose(got[0], expected, rtol=2e-7)
    assert got[0, 0, 0, 0] == 18 and got[0, 1, 7, 4] == pytest.approx(1954, rel=1e-7)


# --- against onnx.reference ------------------------------------------------------------------------------
@pytest.mark.formula
@pytest.mark.parametrize("activation", ["TANH", "LINEAR"])
@pytest.mark.parametrize("direction", DIRECTIONS.keys())
def test_matches_onnx_reference_rnn(device, direction, activation):
    """onnx.reference's RNN (Tanh and Affine, the activations it implements; it applies the first one to both
    directions, so both get the same one here)."""
    pytest.importorskip("onnx", reason="onnx is not installed (pip install 'dmlsim[test]'): the onnx.reference "
                                       "cross-check of RNN cannot run")
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    seq, batch, inputs, hidden = 4, 3, 3, 4
    dirs = 2 if direction == "bidirectional" else 1
    values = random_inputs(F32, seq, batch, inputs, hidden, dirs, seed=6)
    attrs, _, _ = ACTIVATIONS[activation]
    onnx_name = {"TANH": "Tanh", "LINEAR": "Affine"}[activation]
    extra = ({"activation_alpha": [attrs["Alpha"]] * dirs, "activation_beta": [attrs["Beta"]] * dirs}
             if activation == "LINEAR" else {})
    node = helper.make_node("RNN", ["X", "W", "R", "B", "", "initial_h"], ["Y", "Y_h"], hidden_size=hidden,
                            direction={"backward": "reverse"}.get(direction, direction),
                            activations=[onnx_name] * dirs, **extra)
    names = ["X", "W", "R", "B", "initial_h"]
    arrays = [values["InputTensor"][0], values["WeightTensor"][0], values["RecurrenceTensor"][0],
              values["BiasTensor"][0, 0], values["HiddenInitTensor"][0]]
    graph = helper.make_graph([node], "rnn", [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape)
                                              for n, a in zip(names, arrays, strict=True)],
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("Y", "Y_h")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    y, y_h = ReferenceEvaluator(model).run(None, dict(zip(names, arrays, strict=True)))
    desc = make_desc(F32, seq, batch, inputs, hidden, DIRECTIONS[direction], activations=[activation] * dirs)
    got = run(device, dml.DML_OPERATOR_DESC(OP, desc), values)
    np.testing.assert_allclose(got["OutputSequenceTensor"], y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["OutputSingleTensor"][0], y_h, rtol=1e-5, atol=1e-6)


# --- debug device ---------------------------------------------------------------------------------------
def test_debug_device_refuses_lengths_above_seq_length(debug_device, device):
    desc = make_desc(F32, 3, 2, 2, 3, FORWARD, lengths=True)
    values = random_inputs(F32, 3, 2, 2, 3, 1, seed=7)
    with pytest.raises(dml.DMLError) as info:
        run(debug_device, dml.DML_OPERATOR_DESC(OP, desc),
            {**values, "SequenceLengthsTensor": np.array([5, 3], np.uint32)})
    assert info.value.hresult == dml.E_INVALIDARG
    assert "SequenceLengthsTensor" in str(info.value) and "[0] = 5" in str(info.value)
    assert "seq_length 3" in str(info.value)
    # a plain device clamps a length to seq_length
    run_and_check(device, desc, values, F32, lengths=[5, 3])


# --- validation -----------------------------------------------------------------------------------------
def _refusal(device, desc, hresult=dml.E_INVALIDARG):
    with pytest.raises(dml.DMLError) as info:
        device.CreateOperator(dml.DML_OPERATOR_DESC(OP, desc))
    assert info.value.hresult == hresult
    return str(info.value)


def _with(desc, **fields):
    return dataclasses.replace(desc, **fields)


VALID = make_desc(F32, 3, 2, 4, 5, BIDIRECTIONAL, lengths=True, activations=["TANH", "TANH"])
S = "DML_RNN_OPERATOR_DESC"
INVALID = {
    "input type": (dict(InputTensor=tensor(_T.DML_TENSOR_DATA_TYPE_INT32, [1, 3, 2, 4])),
                   f"{S}.InputTensor.DataType INT32 is not supported by RNN"),
    "weight type": (dict(WeightTensor=tensor(F16, [1, 2, 5, 4])),
                    f"{S}.WeightTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    "recurrence type": (dict(RecurrenceTensor=tensor(F16, [1, 2, 5, 5])), f"{S}.RecurrenceTensor.DataType FLOAT16"),
    "bias type": (dict(BiasTensor=tensor(F16, [1, 1, 2, 10])), f"{S}.BiasTensor.DataType FLOAT16"),
    "init type": (dict(HiddenInitTensor=tensor(F16, [1, 2, 2, 5])), f"{S}.HiddenInitTensor.DataType FLOAT16"),
    "sequence type": (dict(OutputSequenceTensor=tensor(F16, [3, 2, 2, 5])),
                      f"{S}.OutputSequenceTensor.DataType FLOAT16"),
    "single type": (dict(OutputSingleTensor=tensor(F16, [1, 2, 2, 5])), f"{S}.OutputSingleTensor.DataType FLOAT16"),
    "lengths type": (dict(SequenceLengthsTensor=tensor(_T.DML_TENSOR_DATA_TYPE_INT32, [1, 1, 1, 2])),
                     f"{S}.SequenceLengthsTensor.DataType INT32 must be UINT32"),
    "input rank": (dict(InputTensor=tensor(F32, [3, 2, 4])), f"{S}.InputTensor.DimensionCount 3 must be 4"),
    "single rank": (dict(OutputSingleTensor=tensor(F32, [1, 1, 2, 2, 5])),
                    f"{S}.OutputSingleTensor.DimensionCount 5 must be 4"),
    "input leading size": (dict(InputTensor=tensor(F32, [2, 3, 2, 4])),
                           f"{S}.InputTensor.Sizes [2, 3, 2, 4] must be [1, 3, 2, 4]"),
    "weight directions": (dict(WeightTensor=tensor(F32, [1, 1, 5, 4])),
                          f"{S}.WeightTensor.Sizes [1, 1, 5, 4] must be [1, 2, 5, 4]"),
    "weight input size": (dict(WeightTensor=tensor(F32, [1, 2, 5, 3])),
                          f"{S}.WeightTensor.Sizes [1, 2, 5, 3] must be [1, 2, 5, 4]"),
    "recurrence hidden": (dict(RecurrenceTensor=tensor(F32, [1, 2, 5, 4])),
                          f"{S}.RecurrenceTensor.Sizes [1, 2, 5, 4] must be [1, 2, 5, 5]"),
    "bias width": (dict(BiasTensor=tensor(F32, [1, 1, 2, 5])),
                   f"{S}.BiasTensor.Sizes [1, 1, 2, 5] must be [1, 1, 2, 10]"),
    "init batch": (dict(HiddenInitTensor=tensor(F32, [1, 2, 3, 5])),
                   f"{S}.HiddenInitTensor.Sizes [1, 2, 3, 5] must be [1, 2, 2, 5]"),
    "lengths batch": (dict(SequenceLengthsTensor=tensor(U32, [1, 1, 2, 1])),
                      f"{S}.SequenceLengthsTensor.Sizes [1, 1, 2, 1] must be [1, 1, 1, 2]"),
    "sequence length": (dict(OutputSequenceTensor=tensor(F32, [1, 2, 2, 5])),
                        f"{S}.OutputSequenceTensor.Sizes [1, 2, 2, 5] must be [3, 2, 2, 5]"),
    "single directions": (dict(OutputSingleTensor=tensor(F32, [1, 1, 2, 5])),
                          f"{S}.OutputSingleTensor.Sizes [1, 1, 2, 5] must be [1, 2, 2, 5]"),
    "one activation for two directions": (dict(ActivationDescCount=1, ActivationDescs=[activation_desc("TANH")]),
                                          f"{S}.ActivationDescCount 1 must be 2: one activation per direction"),
    "two activations for one direction": (dict(Direction=FORWARD, WeightTensor=tensor(F32, [1, 1, 5, 4]),
                                               RecurrenceTensor=tensor(F32, [1, 1, 5, 5]),
                                               BiasTensor=None, HiddenInitTensor=None, OutputSequenceTensor=None,
                                               OutputSingleTensor=tensor(F32, [1, 1, 2, 5])),
                                          f"{S}.ActivationDescCount 2 must be 1: one activation per direction "
                                          f"({S}.Direction is DML_RECURRENT_NETWORK_DIRECTION_FORWARD)"),
    "count against the array": (dict(ActivationDescCount=3), f"{S}.ActivationDescs must hold ActivationDescCount"),
    "activation not fusable": (dict(ActivationDescs=[activation_desc("TANH"), dml.DML_OPERATOR_DESC(
        dml.DML_OPERATOR_ELEMENT_WISE_ADD, dml.DML_ELEMENT_WISE_ADD_OPERATOR_DESC(None, None, None))]),
        f"{S}.ActivationDescs[1].Type DML_OPERATOR_ELEMENT_WISE_ADD cannot be fused"),
    "activation with a tensor": (dict(ActivationDescs=[activation_desc("TANH"), dml.DML_OPERATOR_DESC(
        dml.DML_OPERATOR_ACTIVATION_RELU, dml.DML_ACTIVATION_RELU_OPERATOR_DESC(tensor(F32, [1, 2, 2, 5]), None))]),
        f"{S}.ActivationDescs[1].Desc.InputTensor must be null"),
    "direction": (dict(Direction=3), f"{S}.Direction 3 is not a DML_RECURRENT_NETWORK_DIRECTION"),
    "no weights": (dict(WeightTensor=None), f"{S}.WeightTensor must not be null"),
    "no outputs": (dict(OutputSequenceTensor=None, OutputSingleTensor=None),
                   f"{S}.OutputSequenceTensor and {S}.OutputSingleTensor are both null: at least one output"),
    "owned by DML": (dict(WeightTensor=tensor(F32, [1, 2, 5, 4], flags=dml.DML_TENSOR_FLAG_OWNED_BY_DML)),
                     f"{S}.WeightTensor.Flags: DML_TENSOR_FLAG_OWNED_BY_DML is not supported by RNN"),
}


def test_the_valid_desc_is_valid(ref_device):
    compiled = ref_device.CompileOperator(ref_device.CreateOperator(dml.DML_OPERATOR_DESC(OP, VALID)), 0)
    assert compiled.GetBindingProperties().TemporaryResourceSize > 0  # H lives in the temporary resource


@pytest.mark.parametrize("case", INVALID, ids=INVALID.keys())
def test_each_doc_rule_refuses_naming_the_field(ref_device, case):
    fields, expected = INVALID[case]
    message = _refusal(ref_device, _with(VALID, **fields))
    assert expected in message, message


def test_every_problem_is_reported_at_once(ref_device):
    message = _refusal(ref_device, _with(VALID, BiasTensor=tensor(F32, [1, 1, 2, 5]),
                                         HiddenInitTensor=tensor(F32, [1, 2, 3, 5])))
    assert "BiasTensor.Sizes" in message and "HiddenInitTensor.Sizes" in message


@pytest.mark.formula
@pytest.mark.parametrize("direction", DIRECTIONS.values(), ids=DIRECTIONS.keys())
def test_hand_computed_literals(device, direction):
    """One unit, two steps, RELU: X = [2, -1], W = 1.5, R = 0.5, Wb = 0.25, Rb = -0.5, H_init = 1.
    Forward:  t0: 2·1.5 + 1·0.5 + 0.25 − 0.5 = 3.25;     t1: −1.5 + 3.25·0.5 − 0.25 = −0.125 → 0.
    Backward: t1: −1.5 + 1·0.5 − 0.25 = −1.25 → 0;       t0: 3 + 0·0.5 − 0.25 = 2.75."""
    dirs = 2 if direction == BIDIRECTIONAL else 1
    desc = make_desc(F32, 2, 1, 1, 1, direction, activations=["RELU"] * dirs)
    got = run(device, dml.DML_OPERATOR_DESC(OP, desc), {
        "InputTensor": [2.0, -1.0], "WeightTensor": [1.5] * dirs, "RecurrenceTensor": [0.5] * dirs,
        "BiasTensor": [0.25, -0.5] * dirs, "HiddenInitTensor": [1.0] * dirs})
    forward, backward = ([3.25, 0.0], 0.0), ([2.75, 0.0], 2.75)
    chosen = {FORWARD: [forward], BACKWARD: [backward], BIDIRECTIONAL: [forward, backward]}[direction]
    assert got["OutputSequenceTensor"].reshape(2, dirs).T.tolist() == [c[0] for c in chosen]
    assert got["OutputSingleTensor"].reshape(dirs).tolist() == [c[1] for c in chosen]
