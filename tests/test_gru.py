"""DML_OPERATOR_GRU (dmlsim/operators/rnn: ``Gru``, gru.cl) on every adapter, and its validation.

Expected values come from :func:`transcribe` (the page's equations, as ONNX's GRU writes them, again with explicit
loops in float64, never dmlsim's reference), from ``onnx.reference``'s GRU (tests/test_gru_onnx.py, with onnx's
node cases) and from hand-computed literals.

Tolerance, per timestep (the error grows along the sequence), as tests/test_lstm.py's: :func:`transcribe` carries
beside each value a bound on the absolute error of a float32 evaluation: a gate's sum of n = input_size +
hidden_size + 2 float32 terms is within (n + 3)·eps·Σ|terms| of the exact one, plus Σ_k |R_jk|·err(H_k) (and, for
h~ without LinearBeforeReset, the error of r⊙H; with it, |r|·err(H·Rhᵀ + Rbh) + |H·Rhᵀ + Rbh|·err(r)); an activation
multiplies its input's error by its largest slope and adds 4 eps of its value; H' = (1 − z)·h~ + z·H adds the
products' errors (first-order) and 4 eps of each. FLOAT32 results must be within 2 float32 ulps of 4·err/eps;
FLOAT16 within 1 FLOAT16 ulp of max(|expected|, err·2¹³).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from dispatch import Dispatch, run
from lstm_support import (
    _T,
    ACTIVATIONS,
    BIDIRECTIONAL,
    DIRECTIONS,
    EPS,
    F16,
    F32,
    FORWARD,
    NUMPY,
    U32,
    activate,
    activation_desc,
    check,
    tensor,
)

import dmlsim as dml

OP = dml.DML_OPERATOR_GRU
DEFAULT = ("SIGMOID", "TANH")  # ONNX's f, g
INPUTS = ("InputTensor", "WeightTensor", "RecurrenceTensor", "BiasTensor", "HiddenInitTensor")
OUTPUTS = ("OutputSequenceTensor", "OutputSingleTensor")


def transcribe(values, *, hidden, backward, activations, lengths=None, linear_before_reset=False):
    """The GRU's equations by explicit loops in float64: {output: (value, error bound)}."""
    x, w, r = (np.asarray(values[k], np.float64) for k in ("InputTensor", "WeightTensor", "RecurrenceTensor"))
    seq, batch, inputs = x.shape[1], x.shape[2], x.shape[3]
    dirs = w.shape[1]
    bias = values.get("BiasTensor")
    out = {"OutputSequenceTensor": np.zeros((seq, dirs, batch, hidden)),
           "OutputSingleTensor": np.zeros((1, dirs, batch, hidden))}
    err = {name: np.zeros_like(a) for name, a in out.items()}
    for d in range(dirs):
        f_name, g_name = activations[d]

        def wb(row, d=d):
            return 0.0 if bias is None else float(bias[0, 0, d, row])

        def rb(row, d=d):
            return 0.0 if bias is None else float(bias[0, 0, d, 3 * hidden + row])

        for b in range(batch):
            length = seq if lengths is None else min(int(lengths[b]), seq)
            h = [float(values["HiddenInitTensor"][0, d, b, j]) if "HiddenInitTensor" in values else 0.0
                 for j in range(hidden)]
            eh = [0.0] * hidden
            steps = range(length - 1, -1, -1) if backward[d] else range(length)
            for t in steps:
                def input_part(row, t=t, b=b, d=d):
                    total = mag = 0.0
                    for k in range(inputs):
                        term = float(x[0, t, b, k]) * float(w[0, d, row, k])
                        total, mag = total + term, mag + abs(term)
                    return total, mag

                gates = []
                for g in range(2):  # z, r for every unit
                    row_values = []
                    for j in range(hidden):
                        row = g * hidden + j
                        total, mag = input_part(row)
                        e_in = 0.0
                        for k in range(hidden):
                            term = h[k] * float(r[0, d, row, k])
                            total, mag = total + term, mag + abs(term)
                            e_in += abs(float(r[0, d, row, k])) * eh[k]
                        total, mag = total + wb(row) + rb(row), mag + abs(wb(row)) + abs(rb(row))
                        value, slope = activate(f_name, total)
                        # an infinite or NaN sum saturates (or is absorbed) exactly: no error to carry
                        e = (inputs + hidden + 5) * EPS * mag + e_in if math.isfinite(total) else 0.0
                        row_values.append((value, slope * e + 4 * EPS * abs(value)))
                    gates.append(row_values)
                (z, ez), (rr, er) = zip(*gates[0], strict=True), zip(*gates[1], strict=True)
                z, ez, rr, er = list(z), list(ez), list(rr), list(er)
                new_h, new_e = [], []
                for j in range(hidden):
                    row = 2 * hidden + j
                    total, mag = input_part(row)
                    if linear_before_reset:
                        hr = rb(row)
                        hr_mag, e_hr = abs(hr), 0.0
                        for k in range(hidden):
                            term = h[k] * float(r[0, d, row, k])
                            hr, hr_mag = hr + term, hr_mag + abs(term)
                            e_hr += abs(float(r[0, d, row, k])) * eh[k]
                        e_hr += (hidden + 3) * EPS * hr_mag
                        total, mag = total + rr[j] * hr + wb(row), mag + abs(rr[j] * hr) + abs(wb(row))
                        e_sum = (inputs + 5) * EPS * mag + abs(rr[j]) * e_hr + abs(hr) * er[j]
                    else:
                        e_in = 0.0
                        for k in range(hidden):
                            term = rr[k] * h[k] * float(r[0, d, row, k])
                            total, mag = total + term, mag + abs(term)
                            e_in += abs(float(r[0, d, row, k])) * (abs(rr[k]) * eh[k] + abs(h[k]) * er[k])
                        total, mag = total + rb(row) + wb(row), mag + abs(rb(row)) + abs(wb(row))
                        e_sum = (inputs + hidden + 6) * EPS * mag + e_in
                    cand, slope = activate(g_name, total)
                    e_sum = e_sum if math.isfinite(total) else 0.0
                    ec = slope * e_sum + 4 * EPS * abs(cand)
                    value = (1.0 - z[j]) * cand + z[j] * h[j]
                    new_h.append(value)
                    new_e.append(abs(1.0 - z[j]) * ec + abs(cand) * ez[j] + abs(z[j]) * eh[j] + abs(h[j]) * ez[j]
                                 + 4 * EPS * (abs((1.0 - z[j]) * cand) + abs(z[j] * h[j])))
                h, eh = new_h, new_e
                out["OutputSequenceTensor"][t, d, b], err["OutputSequenceTensor"][t, d, b] = h, eh
            out["OutputSingleTensor"][0, d, b], err["OutputSingleTensor"][0, d, b] = h, eh
    return {name: (out[name], err[name]) for name in out}


def make_desc(data_type, seq, batch, inputs, hidden, direction, *, given=INPUTS + OUTPUTS, lengths=False,
              activations=None, strides=None, linear_before_reset=False):
    """A DML_GRU_OPERATOR_DESC of the page's sizes; ``given`` names the optional tensors present."""
    dirs = 2 if direction == BIDIRECTIONAL else 1
    strides = strides or {}
    sizes = {"InputTensor": [1, seq, batch, inputs], "WeightTensor": [1, dirs, 3 * hidden, inputs],
             "RecurrenceTensor": [1, dirs, 3 * hidden, hidden], "BiasTensor": [1, 1, dirs, 6 * hidden],
             "HiddenInitTensor": [1, dirs, batch, hidden], "SequenceLengthsTensor": [1, 1, 1, batch],
             "OutputSequenceTensor": [seq, dirs, batch, hidden], "OutputSingleTensor": [1, dirs, batch, hidden]}
    present = set(given) | {"InputTensor", "WeightTensor", "RecurrenceTensor"} | (
        {"SequenceLengthsTensor"} if lengths else set())
    tensors = {name: tensor(U32 if name == "SequenceLengthsTensor" else data_type, s, strides.get(name))
               if name in present else None for name, s in sizes.items()}
    names = [a for pair in (activations or [DEFAULT] * dirs) for a in pair]
    return dml.DML_GRU_OPERATOR_DESC(**tensors, ActivationDescCount=len(names),
                                     ActivationDescs=[activation_desc(a) for a in names], Direction=direction,
                                     LinearBeforeReset=linear_before_reset)


def random_inputs(desc, data_type, seed=0, scale=0.8):
    rng = np.random.default_rng(seed)
    return {name: (rng.uniform(-1, 1, getattr(desc, name).Desc.Sizes) * scale).astype(NUMPY[data_type])
            for name in INPUTS if getattr(desc, name) is not None}


def run_and_check(device, desc, values, data_type, lengths=None, activations=None):
    inputs = dict(values)
    if lengths is not None:
        inputs["SequenceLengthsTensor"] = np.asarray(lengths, np.uint32).reshape(1, 1, 1, -1)
    got = run(device, dml.DML_OPERATOR_DESC(OP, desc), inputs)
    backward = {dml.DML_RECURRENT_NETWORK_DIRECTION_FORWARD: (False,),
                dml.DML_RECURRENT_NETWORK_DIRECTION_BACKWARD: (True,), BIDIRECTIONAL: (False, True)}[desc.Direction]
    expected = transcribe(values, hidden=desc.WeightTensor.Desc.Sizes[2] // 3, backward=backward,
                          activations=activations or [DEFAULT] * len(backward), lengths=lengths,
                          linear_before_reset=desc.LinearBeforeReset)
    for name in OUTPUTS:
        if getattr(desc, name) is not None:
            check(got[name], expected[name], data_type, name)
    return got


# --- the arithmetic, on every adapter ----------------------------------------------------------------------
@pytest.mark.formula
@pytest.mark.parametrize("linear_before_reset", [False, True], ids=["reset_before", "linear_before_reset"])
@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("direction", DIRECTIONS.values(), ids=DIRECTIONS.keys())
def test_every_direction_with_every_optional_tensor(device, direction, data_type, linear_before_reset):
    """Bias, initial H, both outputs, LinearBeforeReset both ways; bidirectional with its own activations."""
    dirs = 2 if direction == BIDIRECTIONAL else 1
    activations = [DEFAULT, ("HARD_SIGMOID", "SOFTSIGN")][:dirs]
    desc = make_desc(data_type, 4, 2, 3, 5, direction, activations=activations,
                     linear_before_reset=linear_before_reset)
    run_and_check(device, desc, random_inputs(desc, data_type, seed=1, scale=1.2), data_type, activations=activations)


@pytest.mark.formula
@pytest.mark.parametrize("direction", DIRECTIONS.values(), ids=DIRECTIONS.keys())
def test_sequence_lengths(device, direction):
    """Lengths 3 (= seq_length), 0, 1, 2: t >= length gives 0, OutputSingle holds the last H computed (the initial
    H for length 0), the backward direction starts at each entry's own last step."""
    desc = make_desc(F32, 3, 4, 2, 3, direction, lengths=True, activations=None)
    values = random_inputs(desc, F32, seed=3)
    got = run_and_check(device, desc, values, F32, lengths=[3, 0, 1, 2])
    assert not got["OutputSequenceTensor"][:, :, 1].any() and not got["OutputSequenceTensor"][2:, :, 3].any()
    np.testing.assert_array_equal(got["OutputSingleTensor"][0, :, 1], values["HiddenInitTensor"][0, :, 1])


@pytest.mark.formula
def test_activations_of_every_slope_and_special_values(device):
    """f = HARD_SIGMOID / SIGMOID, g = RELU / ELU, pre-activations up to ±6; a NaN in X (batch entry 1, t = 1) and
    an infinity (entry 2, t = 2). Backward, the NaN reaches H of entry 1 and stays; forward, HARD_SIGMOID(NaN) = 1
    and RELU(NaN) = 0 absorb it (z = 1: H' = H), so entry 1 stays finite. Entry 0 is finite throughout."""
    activations = [("HARD_SIGMOID", "RELU"), ("SIGMOID", "ELU")]
    desc = make_desc(F32, 3, 3, 3, 4, BIDIRECTIONAL, activations=activations, linear_before_reset=True)
    values = random_inputs(desc, F32, seed=4, scale=1.5)
    values["InputTensor"][0, 1, 1, 0] = np.nan
    values["InputTensor"][0, 2, 2, :] = [np.inf, -0.0, 0.0]
    got = run_and_check(device, desc, values, F32, activations=activations)
    assert np.isfinite(got["OutputSequenceTensor"][:, :, 0]).all()
    assert np.isfinite(got["OutputSingleTensor"][0, 0, 1]).all() and np.isnan(got["OutputSingleTensor"][0, 1, 1]).all()


@pytest.mark.parametrize("case", ["no optional inputs", "sequence only", "single only"])
def test_optional_tensors_absent(device, case):
    given = {"no optional inputs": OUTPUTS, "sequence only": (*INPUTS, "OutputSequenceTensor"),
             "single only": (*INPUTS, "OutputSingleTensor")}[case]
    desc = make_desc(F32, 3, 2, 2, 3, BIDIRECTIONAL, given=given)
    got = run_and_check(device, desc, random_inputs(desc, F32, seed=5), F32)
    assert set(got) >= {name for name in OUTPUTS if getattr(desc, name) is not None}


def test_strides_broadcasts_and_binding_offsets(device):
    """W and R stored transposed, X padded, one bias row and one initial H broadcast (stride 0) to both directions
    and every batch entry, every tensor at its own 16-byte-aligned offset in one guard-filled buffer, hidden_size 3
    (several work-items share the r⊙H of a step)."""
    seq, batch, inputs, hidden = 3, 2, 3, 3
    strides = {"InputTensor": [40, 12, 5, 1], "WeightTensor": [200, 60, 1, 10], "RecurrenceTensor": [200, 50, 1, 11],
               "BiasTensor": [0, 0, 0, 1], "HiddenInitTensor": [0, 0, 0, 1], "OutputSequenceTensor": [30, 14, 4, 1]}
    desc = make_desc(F32, seq, batch, inputs, hidden, BIDIRECTIONAL, strides=strides)
    values = random_inputs(desc, F32, seed=8)
    values["BiasTensor"] = np.broadcast_to(values["BiasTensor"][:, :, :1], (1, 1, 2, 6 * hidden))
    values["HiddenInitTensor"] = np.broadcast_to(values["HiddenInitTensor"][:, :1, :1, :], (1, 2, batch, hidden))
    shared = device.CreateBuffer(16384)
    names = list(INPUTS) + list(OUTPUTS)
    placement = {name: (shared, 48 + 1024 * i) for i, name in enumerate(names)}
    dispatch = Dispatch(device, dml.DML_OPERATOR_DESC(OP, desc), placement=placement)
    dispatch.load(values)
    dispatch.execute()
    expected = transcribe(values, hidden=hidden, backward=(False, True), activations=[DEFAULT] * 2)
    for name in OUTPUTS:
        check(dispatch.read(name), expected[name], F32, name)


@pytest.mark.formula
@pytest.mark.parametrize("linear_before_reset", [False, True], ids=["reset_before", "linear_before_reset"])
def test_hand_computed_literals(device, linear_before_reset):
    """One unit, one input, two steps, f = HARD_SIGMOID(0.25, 0.5) (hs(z) = clamp(z/4 + 1/2, 0, 1)), g = IDENTITY;
    X = [2, -2], W = [z 1, r -1, h 0.5], R = [z 0, r 0, h 2], Rbh = 1, H_init = 1 (rows z, r, h).
    t0: z = hs(2) = 1: H = 1 (whatever h~).  t1: z = hs(-2) = 0, r = hs(2) = 1;
      reset before:        h~ = -1 + (1·1)·2 + 1 = 2;   linear before reset: h~ = -1 + 1·(1·2 + 1) = 2;
    so H = 2 both ways at t1. A second H_init = 0.5 with r = 0.5 (X = [2, 0]) separates the two:
      t1: z = hs(0) = 0.5, r = hs(0) = 0.5; reset before: h~ = 0 + (0.5·0.5)·2 + 1 = 1.5,
      linear before reset: h~ = 0 + 0.5·(0.5·2 + 1) = 1; H = 0.5·h~ + 0.5·0.5 = 1 or 0.75."""
    desc = make_desc(F32, 2, 2, 1, 1, FORWARD, given=("BiasTensor", "HiddenInitTensor", *OUTPUTS),
                     activations=[("HARD_SIGMOID", "IDENTITY")], linear_before_reset=linear_before_reset)
    got = run(device, dml.DML_OPERATOR_DESC(OP, desc), {
        "InputTensor": [2.0, 2.0, -2.0, 0.0], "WeightTensor": [1.0, -1.0, 0.5], "RecurrenceTensor": [0.0, 0.0, 2.0],
        "BiasTensor": [0.0, 0.0, 0.0, 0.0, 0.0, 1.0], "HiddenInitTensor": [1.0, 0.5]})
    # entry 1: t0: z = hs(2) = 1 -> H = 0.5;  t1 as the docstring says
    second = 0.75 if linear_before_reset else 1.0
    assert got["OutputSequenceTensor"].reshape(2, 2).tolist() == [[1.0, 0.5], [2.0, second]]
    assert got["OutputSingleTensor"].reshape(2).tolist() == [2.0, second]


# --- debug device ------------------------------------------------------------------------------------------
def test_debug_device_refuses_lengths_above_seq_length(debug_device):
    desc = make_desc(F32, 3, 2, 2, 3, FORWARD, lengths=True)
    with pytest.raises(dml.DMLError) as info:
        run(debug_device, dml.DML_OPERATOR_DESC(OP, desc),
            {**random_inputs(desc, F32), "SequenceLengthsTensor": np.array([5, 3], np.uint32)})
    assert info.value.hresult == dml.E_INVALIDARG
    assert "SequenceLengthsTensor" in str(info.value) and "[0] = 5" in str(info.value)


# --- validation ----------------------------------------------------------------------------------------------
VALID = make_desc(F32, 3, 2, 4, 5, BIDIRECTIONAL, lengths=True)
S = "DML_GRU_OPERATOR_DESC"
INVALID = {
    "input type": (dict(InputTensor=tensor(_T.DML_TENSOR_DATA_TYPE_INT32, [1, 3, 2, 4])),
                   f"{S}.InputTensor.DataType INT32 is not supported by GRU"),
    "weight type": (dict(WeightTensor=tensor(F16, [1, 2, 15, 4])),
                    f"{S}.WeightTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    "single type": (dict(OutputSingleTensor=tensor(F16, [1, 2, 2, 5])), f"{S}.OutputSingleTensor.DataType FLOAT16"),
    "lengths type": (dict(SequenceLengthsTensor=tensor(_T.DML_TENSOR_DATA_TYPE_INT32, [1, 1, 1, 2])),
                     f"{S}.SequenceLengthsTensor.DataType INT32 must be UINT32"),
    "input rank": (dict(InputTensor=tensor(F32, [3, 2, 4])), f"{S}.InputTensor.DimensionCount 3 must be 4"),
    "weight rows": (dict(WeightTensor=tensor(F32, [1, 2, 16, 4])),
                    f"{S}.WeightTensor.Sizes[2] 16 must be a multiple of 3"),
    "recurrence hidden": (dict(RecurrenceTensor=tensor(F32, [1, 2, 15, 4])),
                          f"{S}.RecurrenceTensor.Sizes [1, 2, 15, 4] must be [1, 2, 15, 5]"),
    "bias width": (dict(BiasTensor=tensor(F32, [1, 1, 2, 10])),
                   f"{S}.BiasTensor.Sizes [1, 1, 2, 10] must be [1, 1, 2, 30]"),
    "init batch": (dict(HiddenInitTensor=tensor(F32, [1, 2, 3, 5])),
                   f"{S}.HiddenInitTensor.Sizes [1, 2, 3, 5] must be [1, 2, 2, 5]"),
    "sequence length": (dict(OutputSequenceTensor=tensor(F32, [1, 2, 2, 5])),
                        f"{S}.OutputSequenceTensor.Sizes [1, 2, 2, 5] must be [3, 2, 2, 5]"),
    "two activations for two directions": (
        dict(ActivationDescCount=2, ActivationDescs=[activation_desc(a) for a in DEFAULT]),
        f"{S}.ActivationDescCount 2 must be 4: f and g per direction"),
    "no outputs": (dict(OutputSequenceTensor=None, OutputSingleTensor=None), "at least one output must be given"),
    "owned by DML": (dict(BiasTensor=tensor(F32, [1, 1, 2, 30], flags=dml.DML_TENSOR_FLAG_OWNED_BY_DML)),
                     f"{S}.BiasTensor.Flags: DML_TENSOR_FLAG_OWNED_BY_DML is not supported by GRU"),
}


def test_the_valid_desc_is_valid(ref_device):
    compiled = ref_device.CompileOperator(ref_device.CreateOperator(dml.DML_OPERATOR_DESC(OP, VALID)), 0)
    assert compiled.GetBindingProperties().TemporaryResourceSize == 4 * 4 * 2 * 2 * 5  # H twice, r⊙H, z
    assert ACTIVATIONS["SIGMOID"][2] == 0.25 and EPS == 2.0**-23


@pytest.mark.parametrize("case", INVALID, ids=INVALID.keys())
def test_each_doc_rule_refuses_naming_the_field(ref_device, case):
    fields, expected = INVALID[case]
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateOperator(dml.DML_OPERATOR_DESC(OP, dataclasses.replace(VALID, **fields)))
    assert info.value.hresult == dml.E_INVALIDARG
    assert expected in str(info.value), str(info.value)
