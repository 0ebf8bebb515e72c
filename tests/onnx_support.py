"""Builders shared by the ONNX training optimizer tests: descs, inputs, the float64 reference and its bounds.

Used by tests/test_onnx_training.py, tests/test_properties.py, tests/test_cross_aliasing.py and
tests/test_quick.py (a test module never imports another). Tolerances: see tests/test_onnx_training.py.
"""

from __future__ import annotations

import numpy as np

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps
from dmlsim.operators.onnx_training.reference import onnx_adagrad, onnx_adam, onnx_momentum

F16, F32, F64 = dml.DML_TENSOR_DATA_TYPE_FLOAT16, dml.DML_TENSOR_DATA_TYPE_FLOAT32, dml.DML_TENSOR_DATA_TYPE_FLOAT64
I64 = dml.DML_TENSOR_DATA_TYPE_INT64
DTYPES = {F16: np.float16, F32: np.float32, F64: np.float64}
ULPS = {F16: 1, F32: 8, F64: 8}
R_FIELD, T_FIELD, X, G = "LearningRateTensor", "UpdateCountTensor", "InputParametersTensors", "GradientTensors"
OX = "OutputParametersTensors"
MIXED_SHAPES = [[1], [7], [3, 5], [2, 1, 9], [2, 3, 2, 5], [1, 2, 1, 2, 1, 3], [2, 1, 1, 1, 1, 1, 1, 3], [4100]]

# op → (operator type, desc class, state roles in, state roles out, attributes)
OPS = {
    "adagrad": (dml.DMLSIM_OPERATOR_ONNX_ADAGRAD, dml.DMLSIM_ONNX_ADAGRAD_OPERATOR_DESC,
                ["InputAccumulatedSquaredGradientTensors"], ["OutputAccumulatedSquaredGradientTensors"],
                {"NormCoefficient": 0.01, "Epsilon": 1e-5, "DecayFactor": 0.1}),
    "adam": (dml.DMLSIM_OPERATOR_ONNX_ADAM, dml.DMLSIM_ONNX_ADAM_OPERATOR_DESC,
             ["InputFirstMomentTensors", "InputSecondMomentTensors"],
             ["OutputFirstMomentTensors", "OutputSecondMomentTensors"],
             {"NormCoefficient": 0.01, "NormCoefficientPost": 0.05, "Alpha": 0.9, "Beta": 0.999, "Epsilon": 1e-6}),
    "momentum": (dml.DMLSIM_OPERATOR_ONNX_MOMENTUM, dml.DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC,
                 ["InputMomentumTensors"], ["OutputMomentumTensors"],
                 {"NormCoefficient": 0.01, "Alpha": 0.9, "Beta": 0.7,
                  "Mode": dml.DMLSIM_ONNX_MOMENTUM_MODE_STANDARD}),
    "nesterov": (dml.DMLSIM_OPERATOR_ONNX_MOMENTUM, dml.DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC,
                 ["InputMomentumTensors"], ["OutputMomentumTensors"],
                 {"NormCoefficient": 0.01, "Alpha": 0.9, "Beta": 0.7,
                  "Mode": dml.DMLSIM_ONNX_MOMENTUM_MODE_NESTEROV}),
}


def make_desc(op, shapes, data_type=F32, rate_type=F32, attrs=None, strides=None):
    op_type, desc_cls, state_in, state_out, defaults = OPS[op]
    descs = [dml.buffer_tensor(data_type, s, None if strides is None else strides[i]) for i, s in enumerate(shapes)]
    fields = {R_FIELD: dml.buffer_tensor(rate_type, [1]), T_FIELD: dml.buffer_tensor(I64, [1, 1])}
    for name in (X, G, *state_in, OX, *state_out):
        fields[name] = descs
    desc = desc_cls(**fields, **{**defaults, **(attrs or {})})
    return dml.DML_OPERATOR_DESC(op_type, desc)


def make_inputs(op, shapes, dtype, rng, r=0.05, t=3):
    _, _, state_in, _, _ = OPS[op]
    inputs = {R_FIELD: np.float64(r), T_FIELD: np.int64(t)}
    inputs[X] = [rng.standard_normal(s).astype(dtype) for s in shapes]
    inputs[G] = [rng.standard_normal(s).astype(dtype) for s in shapes]
    for name in state_in:
        # Adagrad's H and Adam's second moment are accumulated squares: non-negative
        positive = "Squared" in name or "Second" in name
        inputs[name] = [(np.abs(rng.standard_normal(s)) if positive else rng.standard_normal(s)).astype(dtype)
                        for s in shapes]
    return inputs


def reference(op, inputs, attrs):
    """The float64 reference outputs, keyed by output field, for the attrs as float32 (as the desc holds)."""
    _, _, state_in, state_out, defaults = OPS[op]
    a = {k: np.float32(v) for k, v in {**defaults, **(attrs or {})}.items() if k != "Mode"}
    r, t = float(np.asarray(inputs[R_FIELD])), int(inputs[T_FIELD])
    if op == "adagrad":
        outs = onnx_adagrad(r, t, inputs[X], inputs[G], inputs[state_in[0]], norm_coefficient=a["NormCoefficient"],
                            epsilon=a["Epsilon"], decay_factor=a["DecayFactor"])
    elif op == "adam":
        outs = onnx_adam(r, t, inputs[X], inputs[G], *(inputs[n] for n in state_in),
                         norm_coefficient=a["NormCoefficient"], norm_coefficient_post=a["NormCoefficientPost"],
                         alpha=a["Alpha"], beta=a["Beta"], epsilon=a["Epsilon"])
    else:
        outs = onnx_momentum(r, t, inputs[X], inputs[G], inputs[state_in[0]], norm_coefficient=a["NormCoefficient"],
                             alpha=a["Alpha"], beta=a["Beta"], nesterov=op == "nesterov")
    return dict(zip((OX, *state_out), outs, strict=True))


def bounds(op, inputs, expected, attrs=None):
    """Magnitude bound per output field and tensor (see the module docstring)."""
    _, _, state_in, state_out, _ = OPS[op]
    result = {}
    xs = [np.abs(np.asarray(x, np.float64)) for x in inputs[X]]
    gs = [np.abs(np.asarray(g, np.float64)) for g in inputs[G]]
    # X - update, where the update's own terms may cancel (momentum: alpha·V + beta·G): the reference run
    # on |inputs| with -|R| adds every term with one sign, so it bounds them all (the property tests found
    # a momentum step whose |X| + |X - X_new| was 11 ulps too small)
    absolute = {name: [np.abs(np.asarray(a, np.float64)) for a in value] if isinstance(value, list) else value
                for name, value in inputs.items()}
    absolute[R_FIELD] = -abs(float(np.asarray(inputs[R_FIELD])))
    summed = reference(op, absolute, attrs)[OX]
    result[OX] = [np.maximum(x + np.abs(np.asarray(xi, np.float64) - e), np.abs(s))
                  for x, xi, e, s in zip(xs, inputs[X], expected[OX], summed, strict=True)]
    for name_in, name_out in zip(state_in, state_out, strict=True):
        s = [np.abs(np.asarray(v, np.float64)) for v in inputs[name_in]]
        squared = "Squared" in name_in or "Second" in name_in
        result[name_out] = [si + ((g + x) ** 2 if squared else g + x) for si, g, x in zip(s, gs, xs, strict=True)]
    return result


def check_outputs(op, got, inputs, attrs, data_type):
    expected = reference(op, inputs, attrs)
    bound = bounds(op, inputs, expected, attrs)
    for name, tensors in expected.items():
        assert len(got[name]) == len(tensors)
        for i, (g, e) in enumerate(zip(got[name], tensors, strict=True)):
            assert g.shape == e.shape and g.dtype == DTYPES[data_type]
            report = compare_ulps(g, e, DTYPES[data_type], ULPS[data_type], bound=bound[name][i])
            assert report.ok, report.describe(f"{op} {name}[{i}]")
