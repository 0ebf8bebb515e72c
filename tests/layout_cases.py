"""One dispatch of each optimizer with a chosen layout per role, checked against tests/oracles.py.

Shared by tests/test_strided_roles.py (every adapter) and tests/test_launch_shapes.py (each launch
shape on each OpenCL device). Strides are given per *role* (``X``, ``G``, ``V``, ``H``, ``OX``,
``OV``, ``OH`` for the ONNX optimizers; the desc fields for Adam and AdagradDecay): a kernel or plan
that addresses one role with another role's layout, or takes a packed path because only some roles
are packed, writes the wrong elements.
"""

from __future__ import annotations

import numpy as np
from dispatch import run
from oracles import adagrad_decay_dense, assert_close, dml_adam, onnx_adagrad, onnx_adam, onnx_momentum

import dmlsim as dml

F16, F32 = dml.DML_TENSOR_DATA_TYPE_FLOAT16, dml.DML_TENSOR_DATA_TYPE_FLOAT32
NP = {F16: np.float16, F32: np.float32}
ULPS = {F16: 1, F32: 8}  # float16: float32 compute, one rounding to half; float32: ≤ 8 roundings of the bound

def broadcast_like(array, strides):
    """``array`` with every dimension of stride 0 made constant (what such a tensor holds: one value along it)."""
    for axis, stride in enumerate(strides or ()):
        if stride == 0:
            array = np.broadcast_to(np.take(array, [0], axis=axis), array.shape)
    return np.ascontiguousarray(array)


# --- ONNX training optimizers ---------------------------------------------------------------------------
ONNX_FIELDS = {
    "adagrad": {"X": "InputParametersTensors", "G": "GradientTensors", "H": "InputAccumulatedSquaredGradientTensors",
                "OX": "OutputParametersTensors", "OH": "OutputAccumulatedSquaredGradientTensors"},
    "adam": {"X": "InputParametersTensors", "G": "GradientTensors", "V": "InputFirstMomentTensors",
             "H": "InputSecondMomentTensors", "OX": "OutputParametersTensors", "OV": "OutputFirstMomentTensors",
             "OH": "OutputSecondMomentTensors"},
    "momentum": {"X": "InputParametersTensors", "G": "GradientTensors", "V": "InputMomentumTensors",
                 "OX": "OutputParametersTensors", "OV": "OutputMomentumTensors"},
}
ONNX_ATTRS = {
    "adagrad": {"NormCoefficient": 0.01, "Epsilon": 1e-5, "DecayFactor": 0.1},
    "adam": {"NormCoefficient": 0.01, "NormCoefficientPost": 0.05, "Alpha": 0.9, "Beta": 0.999, "Epsilon": 1e-6},
    "momentum": {"NormCoefficient": 0.01, "Alpha": 0.9, "Beta": 0.7, "Mode": 0},
    "nesterov": {"NormCoefficient": 0.01, "Alpha": 0.9, "Beta": 0.7, "Mode": 1},
}
ONNX_TYPES = {"adagrad": (dml.DMLSIM_OPERATOR_ONNX_ADAGRAD, dml.DMLSIM_ONNX_ADAGRAD_OPERATOR_DESC),
              "adam": (dml.DMLSIM_OPERATOR_ONNX_ADAM, dml.DMLSIM_ONNX_ADAM_OPERATOR_DESC),
              "momentum": (dml.DMLSIM_OPERATOR_ONNX_MOMENTUM, dml.DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC),
              "nesterov": (dml.DMLSIM_OPERATOR_ONNX_MOMENTUM, dml.DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC)}


def check_onnx(device, op, shapes, strides=None, *, data_type=F32, t=3, r=0.05, seed=0, inplace=False):
    """Run ONNX ``op`` on tensors of ``shapes``; ``strides[role][i]`` (None: packed) per role and tensor."""
    fields = ONNX_FIELDS["momentum" if op == "nesterov" else op]
    strides = strides or {}
    op_type, desc_cls = ONNX_TYPES[op]
    descs = {role: [dml.buffer_tensor(data_type, s, strides.get(role, [None] * len(shapes))[i])
                    for i, s in enumerate(shapes)] for role in fields}
    desc = desc_cls(LearningRateTensor=dml.buffer_tensor(F32, [1]),
                    UpdateCountTensor=dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_INT64, [1]),
                    **{fields[role]: descs[role] for role in fields}, **ONNX_ATTRS[op])
    rng = np.random.default_rng(seed)
    dtype = NP[data_type]
    data = {role: [broadcast_like(rng.standard_normal(s).astype(dtype), strides.get(role, [None] * len(shapes))[i])
                   for i, s in enumerate(shapes)] for role in fields if role[0] != "O"}
    if "H" in data:  # accumulated squares are never negative
        data["H"] = [np.abs(h) for h in data["H"]]
    inputs = {"LearningRateTensor": np.float32(r), "UpdateCountTensor": np.int64(t),
              **{fields[role]: arrays for role, arrays in data.items()}}
    got = run(device, dml.DML_OPERATOR_DESC(op_type, desc), inputs, inplace=inplace)
    a = ONNX_ATTRS[op]
    for i in range(len(shapes)):
        x, g = data["X"][i], data["G"][i]
        if op == "adam":
            expected = onnx_adam(np.float32(r), t, x, g, data["V"][i], data["H"][i], nc=a["NormCoefficient"],
                                 ncp=a["NormCoefficientPost"], alpha=a["Alpha"], beta=a["Beta"], eps=a["Epsilon"])
        elif op == "adagrad":
            expected = onnx_adagrad(np.float32(r), t, x, g, data["H"][i], nc=a["NormCoefficient"], eps=a["Epsilon"],
                                    decay=a["DecayFactor"])
        else:
            expected = onnx_momentum(np.float32(r), t, x, g, data["V"][i], nc=a["NormCoefficient"],
                                     alpha=a["Alpha"], beta=a["Beta"], nesterov=op == "nesterov")
        for role, (value, bound) in expected.items():
            assert_close(got[fields["O" + role]][i], value, bound, dtype, ULPS[data_type],
                         what=f"{op} {fields['O' + role]}[{i}] shape {shapes[i]}")


# --- DML_OPERATOR_ADAM_OPTIMIZER ------------------------------------------------------------------------
ADAM_FIELDS = {"X": "InputParametersTensor", "M": "InputFirstMomentTensor", "V": "InputSecondMomentTensor",
               "G": "GradientTensor", "OX": "OutputParametersTensor", "OM": "OutputFirstMomentTensor",
               "OV": "OutputSecondMomentTensor"}
ADAM_HP = {"LearningRate": 0.01, "Beta1": 0.9, "Beta2": 0.999, "Epsilon": 1e-6}


def check_adam(device, sizes, strides=None, *, data_type=F32, t=7, seed=0, inplace=False):
    """One DirectML Adam dispatch; ``strides`` maps a role (X, M, V, G, OX, OM, OV) to DML strides."""
    strides = strides or {}
    tensors = {role: dml.buffer_tensor(data_type, list(sizes), strides.get(role)) for role in ADAM_FIELDS}
    step = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_UINT32, [1, 1, 1, 1])
    desc = dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC(
        tensors["X"], tensors["M"], tensors["V"], tensors["G"], step, tensors["OX"], tensors["OM"], tensors["OV"],
        ADAM_HP["LearningRate"], ADAM_HP["Beta1"], ADAM_HP["Beta2"], ADAM_HP["Epsilon"])
    rng = np.random.default_rng(seed)
    dtype = NP[data_type]
    x, m, g = (broadcast_like(rng.standard_normal(sizes).astype(dtype), strides.get(role)) for role in "XMG")
    v = broadcast_like(np.abs(rng.standard_normal(sizes)).astype(dtype), strides.get("V"))
    inputs = {ADAM_FIELDS["X"]: x, ADAM_FIELDS["M"]: m, ADAM_FIELDS["V"]: v, ADAM_FIELDS["G"]: g,
              "TrainingStepTensor": np.uint32(t)}
    got = run(device, dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ADAM_OPTIMIZER, desc), inputs,
                       inplace=inplace)
    expected = dml_adam(x, m, v, g, t, lr=ADAM_HP["LearningRate"], beta1=ADAM_HP["Beta1"],
                        beta2=ADAM_HP["Beta2"], eps=ADAM_HP["Epsilon"])
    for role, (value, bound) in expected.items():
        assert_close(got[ADAM_FIELDS["O" + role]], value, bound, dtype, ULPS[data_type],
                     what=f"Adam {ADAM_FIELDS['O' + role]} sizes {list(sizes)}")
    return got


# --- DMLSIM_OPERATOR_ADAGRAD_DECAY (dense) ---------------------------------------------------------------
DECAY_HP = {"lr": 0.05, "decay_step": 3, "rate": 0.7, "baseline": 0.1}


def check_adagrad_decay_dense(device, rows, row_length, strides=None, *, data_type=F32, step=7, power=1, seed=0):
    """One dense AdagradDecay dispatch; ``strides`` maps VAR, ACC, GRAD, OVAR, OACC to DML strides.
    step 7 // decay_step 3 = 2 > power 1: the accumulator decays (some elements to the baseline)."""
    strides = strides or {}
    shape = [1, 1, rows, row_length]
    roles = ("VAR", "ACC", "GRAD", "OVAR", "OACC")
    t = {role: dml.buffer_tensor(data_type, shape, strides.get(role)) for role in roles}
    u32 = dml.DML_TENSOR_DATA_TYPE_UINT32
    scalar = dml.buffer_tensor(u32, [1, 1, 1, 1])
    desc = dml.DMLSIM_ADAGRAD_DECAY_OPERATOR_DESC(
        t["VAR"], t["ACC"], scalar, t["GRAD"], None, scalar, t["OVAR"], t["OACC"], scalar,
        DECAY_HP["lr"], DECAY_HP["decay_step"], DECAY_HP["rate"], DECAY_HP["baseline"])
    rng = np.random.default_rng(seed)
    dtype = NP[data_type]
    x, g = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
    acc = rng.uniform(0.01, 0.5, shape).astype(dtype)  # a·0.7 falls below the 0.1 baseline for some
    inputs = {"InputParametersTensor": x, "InputAccumulatorTensor": acc, "InputDecayPowerTensor": np.uint32(power),
              "GradientTensor": g, "GlobalStepTensor": np.uint32(step)}
    got = run(device, dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ADAGRAD_DECAY, desc), inputs)
    expected, new_power = adagrad_decay_dense(x, acc, power, g, step, **DECAY_HP)
    assert_close(got["OutputParametersTensor"], *expected["X"], dtype, ULPS[data_type], what="AdagradDecay var")
    assert_close(got["OutputAccumulatorTensor"], *expected["A"], dtype, ULPS[data_type], what="AdagradDecay accum")
    assert int(np.asarray(got["OutputDecayPowerTensor"]).reshape(-1)[0]) == new_power
