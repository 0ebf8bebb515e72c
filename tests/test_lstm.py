"""DML_OPERATOR_LSTM (dmlsim/operators/rnn/lstm.py) on every adapter, and its validation.

Expected values come from :func:`transcribe` (the page's equations, read as the operator's docstring decides,
written again here with explicit loops in float64, never dmlsim's reference), from onnx's generated LSTM node
cases (mapped as onnxruntime's DirectML provider maps an ONNX LSTM node: X, W, R, B, sequence_lens, initial_h,
initial_c, P unsqueezed to 4-D, Y/Y_h/Y_c from OutputSequence/OutputSingle/OutputCellSingle), from
``onnx.reference``'s LSTM (sigmoid, tanh, tanh; peepholes; every direction) and from hand-computed literals.

Tolerance, per timestep (the error grows along the sequence): :func:`transcribe` carries beside each value a
bound on the absolute error of a float32 evaluation, step by step: a gate's pre-activation sum of n = input_size +
hidden_size + 2 float32 terms is within (n + 3)·eps·Σ|terms| of the exact one, plus Σ_k |R_jk|·err(H_k) from the
previous H and |P|·err(C) from the peephole; an activation multiplies its input's error by its largest slope and
adds 4 eps of its value (libm's tanh/exp are within a few ulps); C' = f·C + i·g and H = o·h(C') add the products'
errors (first-order) and 3 eps of each product. FLOAT32 results must be within 2 float32 ulps of E = 2·err / eps
(i.e. within 2·err, never less than 2 ulps of the value). FLOAT16 is computed in float32 and rounded once: 1 FLOAT16
ulp of max(|expected|, err·2¹³), so that half an ulp is left beside the rounding. Onnx's node cases carry float32
expected values computed in float32 by numpy; they are compared at the same bound plus 8 float32 ulps of the value.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from dispatch import Dispatch, run
from lstm_support import (
    _T,
    BIDIRECTIONAL,
    DEFAULT,
    DIRECTIONS,
    F16,
    F32,
    FORWARD,
    INPUTS,
    OP,
    OUTPUTS,
    activation_desc,
    check,
    make_desc,
    random_inputs,
    run_and_check,
    tensor,
    transcribe,
)

import dmlsim as dml


# --- the arithmetic, on every adapter ----------------------------------------------------------------------
@pytest.mark.formula
@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("direction", DIRECTIONS.values(), ids=DIRECTIONS.keys())
def test_every_direction_with_every_optional_tensor(device, direction, data_type):
    """Bias, initial H and C, peepholes, all three outputs; bidirectional with its own activations backward."""
    seq, batch, inputs, hidden = 4, 2, 3, 5
    dirs = 2 if direction == BIDIRECTIONAL else 1
    activations = [DEFAULT, ("HARD_SIGMOID", "SOFTSIGN", "SCALED_TANH")][:dirs]
    desc = make_desc(data_type, seq, batch, inputs, hidden, direction, activations=activations)
    run_and_check(device, desc, random_inputs(desc, data_type, seed=1), data_type, activations=activations)


@pytest.mark.formula
@pytest.mark.parametrize("direction", DIRECTIONS.values(), ids=DIRECTIONS.keys())
def test_sequence_lengths(device, direction):
    """Lengths 3 (= seq_length), 0, 1, 2: t >= length gives 0, the single outputs hold the last H and C computed
    (the initial ones for length 0), and the backward direction starts at each entry's own last step."""
    dirs = 2 if direction == BIDIRECTIONAL else 1
    desc = make_desc(F32, 3, 4, 2, 3, direction, lengths=True)
    values = random_inputs(desc, F32, seed=3)
    got = run_and_check(device, desc, values, F32, lengths=[3, 0, 1, 2])
    assert not got["OutputSequenceTensor"][:, :, 1].any() and not got["OutputSequenceTensor"][2:, :, 3].any()
    np.testing.assert_array_equal(got["OutputSingleTensor"][0, :, 1], values["HiddenInitTensor"][0, :, 1])
    np.testing.assert_array_equal(got["OutputCellSingleTensor"][0, :, 1], values["CellMemInitTensor"][0, :, 1])
    assert dirs == got["OutputSingleTensor"].shape[1]


@pytest.mark.formula
@pytest.mark.parametrize("case", ["clip", "couple", "clip and couple"])
def test_clip_and_coupled_input_forget(device, case):
    """Pre-activations up to ±6 against ClipThreshold 0.75 (so clipping changes most gates), CoupleInputForget
    (f = 1 − i: no forget-gate rows are read: they hold NaN here), both; activations of every slope; one NaN in X
    (batch entry 1, t = 1) reaches H of that entry in both directions, and nothing else."""
    clip = 0.75 if "clip" in case else None
    couple = "couple" in case
    activations = [("SIGMOID", "RELU", "ELU"), ("HARD_SIGMOID", "LINEAR", "TANH")]
    desc = make_desc(F32, 3, 2, 3, 4, BIDIRECTIONAL, activations=activations, clip=clip, couple=couple)
    values = random_inputs(desc, F32, seed=4, scale=1.5)
    if couple:
        values["WeightTensor"][0, :, 8:12] = np.nan
        values["RecurrenceTensor"][0, :, 8:12] = np.nan
        values["BiasTensor"][0, 0, :, 8:12] = np.nan
        values["BiasTensor"][0, 0, :, 24:28] = np.nan
        values["PeepholeTensor"][0, 0, :, 8:12] = np.nan
    values["InputTensor"][0, 1, 1, 0] = np.nan  # clip keeps a NaN (fmin/fmax would make it -ClipThreshold)
    got = run_and_check(device, desc, values, F32, activations=activations)
    assert np.isfinite(got["OutputSequenceTensor"][:, :, 0]).all()
    assert np.isnan(got["OutputSingleTensor"][0, :, 1]).all()


@pytest.mark.parametrize("case", ["no optional inputs", "sequence only", "single only", "cell only"])
def test_optional_tensors_absent(device, case):
    given = {"no optional inputs": OUTPUTS, "sequence only": (*INPUTS, "OutputSequenceTensor"),
             "single only": (*INPUTS, "OutputSingleTensor"), "cell only": (*INPUTS, "OutputCellSingleTensor")}[case]
    desc = make_desc(F32, 3, 2, 2, 3, BIDIRECTIONAL, given=given)
    got = run_and_check(device, desc, random_inputs(desc, F32, seed=5), F32)
    assert set(got) >= {name for name in OUTPUTS if getattr(desc, name) is not None}


@pytest.mark.formula
def test_special_values(device):
    """±inf, NaN and ±0 in X: a NaN propagates to H and C through every gate (and on to the next steps); +inf
    saturates the sigmoid/tanh gates; an infinite C' gives H = o·tanh(±inf) = ±o. Peepholes absent (no 0·inf)."""
    desc = make_desc(F32, 3, 4, 2, 2, FORWARD, given=("OutputSequenceTensor", "OutputSingleTensor",
                                                       "OutputCellSingleTensor"))
    values = random_inputs(desc, F32, seed=6)
    values["WeightTensor"][...] = np.abs(values["WeightTensor"]) + 0.25  # every gate sees +inf as +inf
    values["InputTensor"][0, :, 0] = [[np.nan, 1.0], [0.5, 0.5], [1.0, -1.0]]
    values["InputTensor"][0, :, 1] = [[np.inf, 0.0], [-0.0, 0.0], [0.0, -0.0]]
    values["InputTensor"][0, :, 2] = [[-np.inf, 0.0], [0.0, 0.0], [0.0, 0.0]]
    got = run_and_check(device, desc, values, F32)
    assert np.isnan(got["OutputSequenceTensor"][:, 0, 0]).all()
    assert np.isnan(got["OutputCellSingleTensor"][0, 0, 0]).all()


def test_strides_broadcasts_and_binding_offsets(device):
    """W and R stored transposed, X padded, one bias row and one initial C broadcast (stride 0) to both
    directions and every batch entry, every tensor bound at its own 16-byte-aligned offset in one buffer (the
    guard bytes around the outputs must survive), hidden_size 3 (several units per work-group)."""
    seq, batch, inputs, hidden = 3, 2, 3, 3
    strides = {"InputTensor": [40, 12, 5, 1], "WeightTensor": [200, 60, 1, 13], "RecurrenceTensor": [200, 50, 1, 14],
               "BiasTensor": [0, 0, 0, 1], "CellMemInitTensor": [0, 0, 0, 1],
               "OutputSequenceTensor": [30, 14, 4, 1]}
    desc = make_desc(F32, seq, batch, inputs, hidden, BIDIRECTIONAL, strides=strides)
    values = random_inputs(desc, F32, seed=8)
    values["BiasTensor"] = np.broadcast_to(values["BiasTensor"][:, :, :1], (1, 1, 2, 8 * hidden))
    values["CellMemInitTensor"] = np.broadcast_to(values["CellMemInitTensor"][:, :1, :1, :], (1, 2, batch, hidden))
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
def test_hand_computed_literals(device):
    """One unit, one step, forward, identity-free literals: X = 1, W = [i 0, o 0, f 0, c 1] (rows i, o, f, c),
    R = 0, no bias, C0 = 0.5, peepholes [i 0, o 2, f 0]. Gates: i = σ(0) = 0.5, f = σ(0) = 0.5,
    c = tanh(1); C' = 0.25 + 0.5·tanh(1) = 0.630797078; o = σ(2·C') = 0.779300411 (the new C: ONNX's reading;
    the old C would give σ(1) = 0.731058579); H = o·tanh(C') = 0.779300411 · 0.558600822 = 0.435317850."""
    desc = make_desc(F32, 1, 1, 1, 1, FORWARD, given=("CellMemInitTensor", "PeepholeTensor", "OutputSingleTensor",
                                                       "OutputCellSingleTensor"))
    got = run(device, dml.DML_OPERATOR_DESC(OP, desc), {
        "InputTensor": [1.0], "WeightTensor": [0.0, 0.0, 0.0, 1.0], "RecurrenceTensor": [0.0] * 4,
        "CellMemInitTensor": [0.5], "PeepholeTensor": [0.0, 2.0, 0.0]})
    assert got["OutputCellSingleTensor"].item() == pytest.approx(0.630797078, abs=2e-7)
    assert got["OutputSingleTensor"].item() == pytest.approx(0.435317850, abs=2e-7)


# --- debug device ------------------------------------------------------------------------------------------
def test_debug_device_refuses_lengths_above_seq_length(debug_device):
    desc = make_desc(F32, 3, 2, 2, 3, FORWARD, lengths=True)
    with pytest.raises(dml.DMLError) as info:
        run(debug_device, dml.DML_OPERATOR_DESC(OP, desc),
            {**random_inputs(desc, F32), "SequenceLengthsTensor": np.array([5, 3], np.uint32)})
    assert info.value.hresult == dml.E_INVALIDARG
    assert "SequenceLengthsTensor" in str(info.value) and "[0] = 5" in str(info.value)


# --- validation ----------------------------------------------------------------------------------------------
def _refusal(device, desc, hresult=dml.E_INVALIDARG):
    with pytest.raises(dml.DMLError) as info:
        device.CreateOperator(dml.DML_OPERATOR_DESC(OP, desc))
    assert info.value.hresult == hresult
    return str(info.value)


VALID = make_desc(F32, 3, 2, 4, 5, BIDIRECTIONAL, lengths=True)
S = "DML_LSTM_OPERATOR_DESC"
INVALID = {
    "input type": (dict(InputTensor=tensor(_T.DML_TENSOR_DATA_TYPE_INT32, [1, 3, 2, 4])),
                   f"{S}.InputTensor.DataType INT32 is not supported by LSTM"),
    "weight type": (dict(WeightTensor=tensor(F16, [1, 2, 20, 4])),
                    f"{S}.WeightTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    "cell init type": (dict(CellMemInitTensor=tensor(F16, [1, 2, 2, 5])), f"{S}.CellMemInitTensor.DataType FLOAT16"),
    "peephole type": (dict(PeepholeTensor=tensor(F16, [1, 1, 2, 15])), f"{S}.PeepholeTensor.DataType FLOAT16"),
    "cell output type": (dict(OutputCellSingleTensor=tensor(F16, [1, 2, 2, 5])),
                         f"{S}.OutputCellSingleTensor.DataType FLOAT16"),
    "lengths type": (dict(SequenceLengthsTensor=tensor(_T.DML_TENSOR_DATA_TYPE_INT32, [1, 1, 1, 2])),
                     f"{S}.SequenceLengthsTensor.DataType INT32 must be UINT32"),
    "input rank": (dict(InputTensor=tensor(F32, [3, 2, 4])), f"{S}.InputTensor.DimensionCount 3 must be 4"),
    "weight rows": (dict(WeightTensor=tensor(F32, [1, 2, 18, 4])),
                    f"{S}.WeightTensor.Sizes[2] 18 must be a multiple of 4"),
    "recurrence hidden": (dict(RecurrenceTensor=tensor(F32, [1, 2, 20, 4])),
                          f"{S}.RecurrenceTensor.Sizes [1, 2, 20, 4] must be [1, 2, 20, 5]"),
    "bias width": (dict(BiasTensor=tensor(F32, [1, 1, 2, 10])),
                   f"{S}.BiasTensor.Sizes [1, 1, 2, 10] must be [1, 1, 2, 40]"),
    "peephole width": (dict(PeepholeTensor=tensor(F32, [1, 1, 2, 20])),
                       f"{S}.PeepholeTensor.Sizes [1, 1, 2, 20] must be [1, 1, 2, 15]"),
    "cell init batch": (dict(CellMemInitTensor=tensor(F32, [1, 2, 3, 5])),
                        f"{S}.CellMemInitTensor.Sizes [1, 2, 3, 5] must be [1, 2, 2, 5]"),
    "cell output directions": (dict(OutputCellSingleTensor=tensor(F32, [1, 1, 2, 5])),
                               f"{S}.OutputCellSingleTensor.Sizes [1, 1, 2, 5] must be [1, 2, 2, 5]"),
    "sequence length": (dict(OutputSequenceTensor=tensor(F32, [1, 2, 2, 5])),
                        f"{S}.OutputSequenceTensor.Sizes [1, 2, 2, 5] must be [3, 2, 2, 5]"),
    "three activations for two directions": (
        dict(ActivationDescCount=3, ActivationDescs=[activation_desc(a) for a in DEFAULT]),
        f"{S}.ActivationDescCount 3 must be 6: f, g and h per direction"),
    "activation not fusable": (dict(ActivationDescs=[activation_desc("TANH")] * 5 + [dml.DML_OPERATOR_DESC(
        dml.DML_OPERATOR_ELEMENT_WISE_ADD, dml.DML_ELEMENT_WISE_ADD_OPERATOR_DESC(None, None, None))]),
        f"{S}.ActivationDescs[5].Type DML_OPERATOR_ELEMENT_WISE_ADD cannot be fused"),
    "negative clip": (dict(UseClipThreshold=True, ClipThreshold=-1.0),
                      f"{S}.ClipThreshold -1.0 must be >= 0 when UseClipThreshold is TRUE"),
    "NaN clip": (dict(UseClipThreshold=True, ClipThreshold=float("nan")),
                 f"{S}.ClipThreshold nan must be >= 0 when UseClipThreshold is TRUE"),
    "no outputs": (dict(OutputSequenceTensor=None, OutputSingleTensor=None, OutputCellSingleTensor=None),
                   "at least one output must be given"),
    "owned by DML": (dict(PeepholeTensor=tensor(F32, [1, 1, 2, 15], flags=dml.DML_TENSOR_FLAG_OWNED_BY_DML)),
                     f"{S}.PeepholeTensor.Flags: DML_TENSOR_FLAG_OWNED_BY_DML is not supported by LSTM"),
}


def test_the_valid_desc_is_valid(ref_device):
    compiled = ref_device.CompileOperator(ref_device.CreateOperator(dml.DML_OPERATOR_DESC(OP, VALID)), 0)
    assert compiled.GetBindingProperties().TemporaryResourceSize == 4 * 3 * 2 * 2 * 5  # H twice and C, float32
    # a negative threshold is fine while UseClipThreshold is FALSE (the field is then ignored)
    ref_device.CreateOperator(dml.DML_OPERATOR_DESC(OP, dataclasses.replace(VALID, ClipThreshold=-1.0)))


@pytest.mark.parametrize("case", INVALID, ids=INVALID.keys())
def test_each_doc_rule_refuses_naming_the_field(ref_device, case):
    fields, expected = INVALID[case]
    message = _refusal(ref_device, dataclasses.replace(VALID, **fields))
    assert expected in message, message
