"""Builders and the independent float64 transcription shared by tests/test_lstm.py and tests/test_lstm_onnx.py
(DML_OPERATOR_LSTM): the page's equations written again with explicit loops, with the error bound each value
carries (the tolerance is stated in tests/test_lstm.py's docstring). Imports nothing of dmlsim's operators."""

from __future__ import annotations

import math

import numpy as np
from dispatch import run

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps

_T = dml.DML_TENSOR_DATA_TYPE
F32, F16, U32 = _T.DML_TENSOR_DATA_TYPE_FLOAT32, _T.DML_TENSOR_DATA_TYPE_FLOAT16, _T.DML_TENSOR_DATA_TYPE_UINT32
NUMPY = {F32: np.float32, F16: np.float16, U32: np.uint32}
FORWARD = dml.DML_RECURRENT_NETWORK_DIRECTION_FORWARD
BACKWARD = dml.DML_RECURRENT_NETWORK_DIRECTION_BACKWARD
BIDIRECTIONAL = dml.DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL
DIRECTIONS = {"forward": FORWARD, "backward": BACKWARD, "bidirectional": BIDIRECTIONAL}
OP = dml.DML_OPERATOR_LSTM
EPS = 2.0**-23
INPUTS = ("InputTensor", "WeightTensor", "RecurrenceTensor", "BiasTensor", "HiddenInitTensor", "CellMemInitTensor",
          "PeepholeTensor")
OUTPUTS = ("OutputSequenceTensor", "OutputSingleTensor", "OutputCellSingleTensor")


def _sigmoid(z):
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


# --- the activations, transcribed here: name -> (desc attributes, f, largest |slope|) --------------------------
ACTIVATIONS = {
    "SIGMOID": ({}, _sigmoid, 0.25),
    "TANH": ({}, math.tanh, 1.0),
    "RELU": ({}, lambda z: max(0.0, z), 1.0),
    "HARD_SIGMOID": ({"Alpha": 0.25, "Beta": 0.5}, lambda z: max(0.0, min(0.25 * z + 0.5, 1.0)), 0.25),
    "SCALED_TANH": ({"Alpha": 1.5, "Beta": 0.5}, lambda z: 1.5 * math.tanh(0.5 * z), 0.75),
    "LINEAR": ({"Alpha": 0.75, "Beta": -0.25}, lambda z: 0.75 * z - 0.25, 0.75),
    "ELU": ({"Alpha": 0.5}, lambda z: z if z >= 0 else 0.5 * math.expm1(z), 1.0),
    "SOFTSIGN": ({}, lambda z: z / (1 + abs(z)), 1.0),
    "IDENTITY": ({}, lambda z: z, 1.0),
}
NAN_RESULTS = {"RELU": 0.0, "HARD_SIGMOID": 1.0}
DEFAULT = ("SIGMOID", "TANH", "TANH")  # ONNX's f, g, h


def activation_desc(name):
    attrs = ACTIVATIONS[name][0]
    return dml.DML_OPERATOR_DESC(getattr(dml, f"DML_OPERATOR_ACTIVATION_{name}"),
                                 getattr(dml, f"DML_ACTIVATION_{name}_OPERATOR_DESC")(None, None, **attrs))


def activate(name, z):
    """f(z) and its error factor. NaN in gives NaN out, except where DirectML's formulas (as dmlsim's activations
    decide, README) absorb it: RELU(NaN) = 0 (max(0, x) as a comparison), HARD_SIGMOID(NaN) = 1
    (max(0, min(NaN, 1)) with IEEE fmin/fmax)."""
    _, f, slope = ACTIVATIONS[name]
    if math.isnan(z):
        return NAN_RESULTS.get(name, math.nan), slope
    try:
        return f(z), slope
    except OverflowError:
        return f(math.copysign(1e300, z)), slope


def transcribe(values, *, hidden, backward, activations, lengths=None, clip=None, couple=False):
    """The page's equations by explicit loops in float64: {output: (value, error bound)} for the three outputs.

    ``values`` holds the desc's input arrays (absent ones missing); ``activations[d]`` is (f, g, h) by name."""
    x, w, r = (np.asarray(values[k], np.float64) for k in ("InputTensor", "WeightTensor", "RecurrenceTensor"))
    seq, batch, inputs = x.shape[1], x.shape[2], x.shape[3]
    dirs = w.shape[1]
    n = inputs + hidden + 2
    out = {name: np.zeros(shape) for name, shape in (("OutputSequenceTensor", (seq, dirs, batch, hidden)),
                                                      ("OutputSingleTensor", (1, dirs, batch, hidden)),
                                                      ("OutputCellSingleTensor", (1, dirs, batch, hidden)))}
    err = {name: np.zeros_like(a) for name, a in out.items()}

    def clipped(z):
        if clip is None or math.isnan(z):
            return z
        return -clip if z < -clip else (clip if z > clip else z)

    for d in range(dirs):
        f_name, g_name, h_name = activations[d]
        for b in range(batch):
            length = seq if lengths is None else min(int(lengths[b]), seq)
            h = [float(values["HiddenInitTensor"][0, d, b, j]) if "HiddenInitTensor" in values else 0.0
                 for j in range(hidden)]
            c = [float(values["CellMemInitTensor"][0, d, b, j]) if "CellMemInitTensor" in values else 0.0
                 for j in range(hidden)]
            eh, ec = [0.0] * hidden, [0.0] * hidden
            steps = range(length - 1, -1, -1) if backward[d] else range(length)
            for t in steps:
                new = []
                for j in range(hidden):
                    z, ez = [], []
                    for g in range(4):  # i, o, f, c
                        row = g * hidden + j
                        total = mag = e_in = 0.0
                        for k in range(inputs):
                            term = float(x[0, t, b, k]) * float(w[0, d, row, k])
                            total, mag = total + term, mag + abs(term)
                        for k in range(hidden):
                            term = h[k] * float(r[0, d, row, k])
                            total, mag = total + term, mag + abs(term)
                            e_in += abs(float(r[0, d, row, k])) * eh[k]
                        if "BiasTensor" in values:
                            for part in (g, 4 + g):
                                term = float(values["BiasTensor"][0, 0, d, part * hidden + j])
                                total, mag = total + term, mag + abs(term)
                        z.append(total)
                        # an infinite (or NaN) sum saturates the gate exactly: no error to carry
                        ez.append((n + 3) * EPS * mag + e_in if math.isfinite(total) else 0.0)
                    p = ([float(values["PeepholeTensor"][0, 0, d, q * hidden + j]) for q in range(3)]
                         if "PeepholeTensor" in values else None)
                    if p is not None:
                        z[0], ez[0] = z[0] + p[0] * c[j], ez[0] + abs(p[0]) * ec[j] + 2 * EPS * abs(p[0] * c[j])
                        z[2], ez[2] = z[2] + p[2] * c[j], ez[2] + abs(p[2]) * ec[j] + 2 * EPS * abs(p[2] * c[j])
                    gi, si = activate(f_name, clipped(z[0]))
                    ei = si * ez[0] + 4 * EPS * abs(gi)
                    if couple:
                        gf, ef = 1.0 - gi, ei + EPS * abs(1.0 - gi)
                    else:
                        gf, sf = activate(f_name, clipped(z[2]))
                        ef = sf * ez[2] + 4 * EPS * abs(gf)
                    gc, sc = activate(g_name, clipped(z[3]))
                    egc = sc * ez[3] + 4 * EPS * abs(gc)
                    c_new = gf * c[j] + gi * gc
                    ec_new = (abs(gf) * ec[j] + abs(c[j]) * ef + abs(gi) * egc + abs(gc) * ei
                              + 3 * EPS * (abs(gf * c[j]) + abs(gi * gc)))
                    if p is not None:
                        z[1] = z[1] + p[1] * c_new
                        ez[1] = ez[1] + abs(p[1]) * ec_new + 2 * EPS * abs(p[1] * c_new)
                    go, so = activate(f_name, clipped(z[1]))
                    eo = so * ez[1] + 4 * EPS * abs(go)
                    hc, sh = activate(h_name, c_new)
                    ehc = sh * ec_new + 4 * EPS * abs(hc)
                    new.append((go * hc, abs(go) * ehc + abs(hc) * eo + 2 * EPS * abs(go * hc), c_new, ec_new))
                h, eh = [v[0] for v in new], [v[1] for v in new]
                c, ec = [v[2] for v in new], [v[3] for v in new]
                out["OutputSequenceTensor"][t, d, b], err["OutputSequenceTensor"][t, d, b] = h, eh
            out["OutputSingleTensor"][0, d, b], err["OutputSingleTensor"][0, d, b] = h, eh
            out["OutputCellSingleTensor"][0, d, b], err["OutputCellSingleTensor"][0, d, b] = c, ec
    return {name: (out[name], err[name]) for name in out}


def check(got, expected_and_error, data_type, what, extra_ulps=0):
    expected, error = expected_and_error
    error = np.where(np.isfinite(error), error, 0.0)  # beside a NaN or an infinity: exact (checked as such)
    if data_type == F32:
        report = compare_ulps(got, expected, np.float32, 2 + extra_ulps, 4 * error / EPS)
    else:
        report = compare_ulps(got, expected, np.float16, 1, error * 2.0**13)
    assert report.ok, report.describe(what)


def tensor(data_type, sizes, strides=None, flags=dml.DML_TENSOR_FLAG_NONE):
    return dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER, dml.DML_BUFFER_TENSOR_DESC(
        data_type, flags, len(sizes), list(sizes), None if strides is None else list(strides),
        dml.DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides), 0))


def make_desc(data_type, seq, batch, inputs, hidden, direction, *, given=INPUTS + OUTPUTS, lengths=False,
              activations=None, strides=None, clip=None, couple=False):
    """A DML_LSTM_OPERATOR_DESC of the page's sizes; ``given`` names the optional tensors present."""
    dirs = 2 if direction == BIDIRECTIONAL else 1
    strides = strides or {}
    sizes = {"InputTensor": [1, seq, batch, inputs], "WeightTensor": [1, dirs, 4 * hidden, inputs],
             "RecurrenceTensor": [1, dirs, 4 * hidden, hidden], "BiasTensor": [1, 1, dirs, 8 * hidden],
             "HiddenInitTensor": [1, dirs, batch, hidden], "CellMemInitTensor": [1, dirs, batch, hidden],
             "SequenceLengthsTensor": [1, 1, 1, batch], "PeepholeTensor": [1, 1, dirs, 3 * hidden],
             "OutputSequenceTensor": [seq, dirs, batch, hidden], "OutputSingleTensor": [1, dirs, batch, hidden],
             "OutputCellSingleTensor": [1, dirs, batch, hidden]}
    present = set(given) | {"InputTensor", "WeightTensor", "RecurrenceTensor"} | (
        {"SequenceLengthsTensor"} if lengths else set())
    tensors = {name: tensor(U32 if name == "SequenceLengthsTensor" else data_type, s, strides.get(name))
               if name in present else None for name, s in sizes.items()}
    names = [a for triple in (activations or [DEFAULT] * dirs) for a in triple]
    return dml.DML_LSTM_OPERATOR_DESC(**tensors, ActivationDescCount=len(names),
                                      ActivationDescs=[activation_desc(a) for a in names], Direction=direction,
                                      ClipThreshold=0.0 if clip is None else clip, UseClipThreshold=clip is not None,
                                      CoupleInputForget=couple)


def random_inputs(desc, data_type, seed=0, scale=0.8):
    """Values for the desc's float inputs, rounded to their type."""
    rng = np.random.default_rng(seed)
    return {name: (rng.uniform(-1, 1, getattr(desc, name).Desc.Sizes) * scale).astype(NUMPY[data_type])
            for name in INPUTS if getattr(desc, name) is not None}


def run_and_check(device, desc, values, data_type, lengths=None, activations=None, **kw):
    inputs = dict(values)
    if lengths is not None:
        inputs["SequenceLengthsTensor"] = np.asarray(lengths, np.uint32).reshape(1, 1, 1, -1)
    got = run(device, dml.DML_OPERATOR_DESC(OP, desc), inputs)
    backward = {FORWARD: (False,), BACKWARD: (True,), BIDIRECTIONAL: (False, True)}[desc.Direction]
    expected = transcribe(values, hidden=desc.WeightTensor.Desc.Sizes[2] // 4, backward=backward,
                          activations=activations or [DEFAULT] * len(backward), lengths=lengths,
                          clip=float(np.float32(desc.ClipThreshold)) if desc.UseClipThreshold else None,
                          couple=desc.CoupleInputForget)
    for name in OUTPUTS:
        if getattr(desc, name) is not None:
            check(got[name], expected[name], data_type, name)
    return got


