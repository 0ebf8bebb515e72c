"""FLOAT16 stores round to nearest even (vstore_half_rte), on every path that stores halves.

The 1-ulp tolerances of the numerics tests cannot see the rounding direction: rounding toward zero
is also within one ulp. These tests can:
- literal values: ONNX Momentum with R = 1, T = 0 (β_adjusted = 1), α = 0 and no regularization
  computes X_new = X − G exactly in float32; X and G are chosen so that X − G lies between two halves
  (0.75, 0.875 and 1.75 ulp past one, and the 0.5 / 1.5 ulp ties), and the expected halves are
  written out by hand (nearest, ties to the even mantissa);
- any values: with the same half-valued inputs, the FLOAT16 kernel computes in float32 exactly what
  the FLOAT32 kernel computes (same source, same path, no contraction), so its stored result must be
  that float32 result rounded by numpy's astype(float16), which rounds to nearest even.
Element counts cover the vector stores (8 or 4 wide, per launch shape) and the scalar tail; padded
strides cover the strided path's scalar stores. Both launch shapes run on every OpenCL device: CPU targets
convert halves with F16C instructions where clang targets them, GPU ones with vload_halfn/vstore_halfn_rte
(dmlsim/cl_kernels/dmlsim.h). Every one of the 65,536 halves also goes through a vector load and store
unchanged.
"""

from __future__ import annotations

import numpy as np
import pytest
from dispatch import run

import dmlsim as dml

F16, F32 = dml.DML_TENSOR_DATA_TYPE_FLOAT16, dml.DML_TENSOR_DATA_TYPE_FLOAT32

# (X, G, X − G rounded to the nearest half, ties to even); ulp of a half: 2^-10 in [1, 2), 2^-9 in [2, 4)
CASES = [
    (1.0, -3 * 2.0**-12, 1 + 2.0**-10),           # 1 + 0.75 ulp → up (toward zero would give 1)
    (-1.0, 3 * 2.0**-12, -(1 + 2.0**-10)),        # negative: away from zero
    (1.0, -(2.0**-11), 1.0),                      # 1 + 0.5 ulp: a tie, to the even mantissa 1.0
    (1.0, -3 * 2.0**-11, 1 + 2.0**-9),            # 1 + 1.5 ulp: a tie, to the even 1 + 2 ulp
    (2.0, -7 * 2.0**-11, 2 + 2.0**-8),            # 2 + 1.75 ulp → 2 + 2 ulp
    (0.5, -7 * 2.0**-14, 0.5 + 2.0**-11),         # 0.5 + 0.875 ulp → up
    (-3.0, -(2.0**-11), -3.0),                    # −3 + 0.25 ulp → −3 (toward zero would give −3 + 1 ulp)
]


def momentum_desc(shape, strides=None):
    t = dml.buffer_tensor(F16, shape, strides)
    return dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ONNX_MOMENTUM, dml.DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC(
        1, dml.buffer_tensor(F32, [1]), dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_INT64, [1]),
        [t], [t], [t], [t], [t], NormCoefficient=0.0, Alpha=0.0, Beta=0.5,
        Mode=dml.DMLSIM_ONNX_MOMENTUM_MODE_STANDARD))


@pytest.mark.parametrize("n", [7, 19, 64 + 5])
@pytest.mark.parametrize("padded", [False, True], ids=["packed", "padded"])
def test_literal_halves_round_to_nearest_even(device, n, padded):
    x, g, expected = (np.resize(np.array(column, np.float64), n) for column in zip(*CASES, strict=True))
    assert np.array_equal(x.astype(np.float16).astype(np.float64), x)  # the inputs are exact halves
    assert np.array_equal(g.astype(np.float16).astype(np.float64), g)
    got = run(device, momentum_desc([n], [2] if padded else None), {
        "LearningRateTensor": np.float32(1.0), "UpdateCountTensor": np.int64(0),
        "InputParametersTensors": [x.astype(np.float16)], "GradientTensors": [g.astype(np.float16)],
        "InputMomentumTensors": [np.zeros(n, np.float16)]})
    out = got["OutputParametersTensors"][0]
    wrong = np.flatnonzero(out.astype(np.float64) != expected)
    assert wrong.size == 0, [(int(i), float(x[i] - g[i]), float(out[i]), float(expected[i])) for i in wrong[:8]]
    assert np.array_equal(got["OutputMomentumTensors"][0], g.astype(np.float16))


def adam_desc(data_type, n, strides):
    t = dml.buffer_tensor(data_type, [1, 1, 1, n], strides)
    step = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_UINT32, [1, 1, 1, 1])
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ADAM_OPTIMIZER, dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC(
        t, t, t, t, step, t, t, t, 0.01, 0.9, 0.999, 1e-6))


def onnx_adam_desc(data_type, n, strides):
    t = dml.buffer_tensor(data_type, [n], strides)
    return dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ONNX_ADAM, dml.DMLSIM_ONNX_ADAM_OPERATOR_DESC(
        1, dml.buffer_tensor(F32, [1]), dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_INT64, [1]),
        [t], [t], [t], [t], [t], [t], [t], NormCoefficient=0.01, NormCoefficientPost=0.05, Alpha=0.9,
        Beta=0.999, Epsilon=1e-6))


def adam_inputs(halves, dtype):
    x, m, v, g = (a.astype(dtype) for a in halves)
    return {"InputParametersTensor": x, "InputFirstMomentTensor": m, "InputSecondMomentTensor": v,
            "GradientTensor": g, "TrainingStepTensor": np.uint32(5)}


def onnx_inputs(halves, dtype):
    x, v, h, g = (a.astype(dtype) for a in halves)
    return {"LearningRateTensor": np.float32(0.01), "UpdateCountTensor": np.int64(5),
            "InputParametersTensors": [x], "GradientTensors": [g], "InputFirstMomentTensors": [v],
            "InputSecondMomentTensors": [h]}


@pytest.mark.parametrize("op", ["adam", "onnx_adam"])
@pytest.mark.parametrize("n", [13, 1003])
@pytest.mark.parametrize("padded", [False, True], ids=["packed", "padded"])
def test_float16_result_is_the_float32_result_rounded_to_nearest_even(shaped_device, op, n, padded):
    device = shaped_device  # every launch shape: the CPU one stores halves through F16C, the GPU one vstore_halfn_rte
    rng = np.random.default_rng(n)
    halves = [rng.standard_normal(n).astype(np.float16) for _ in range(4)]
    halves[2] = np.abs(halves[2])  # a second moment is never negative
    make_desc, make_inputs = (adam_desc, adam_inputs) if op == "adam" else (onnx_adam_desc, onnx_inputs)
    strides = ([2 * n, 2 * n, 2 * n, 2] if op == "adam" else [2]) if padded else None
    half = run(device, make_desc(F16, n, strides), make_inputs(halves, np.float16))
    single = run(device, make_desc(F32, n, strides), make_inputs(halves, np.float32))
    checked = 0
    for name, got in half.items():
        got, exact = (np.asarray(a[0] if isinstance(a, list) else a).reshape(-1) for a in (got, single[name]))
        expected = exact.astype(np.float16)  # numpy: round to nearest, ties to even
        wrong = np.flatnonzero(got.view(np.uint16) != expected.view(np.uint16))
        assert wrong.size == 0, (name, [(int(i), float(exact[i]), float(got[i]), float(expected[i]))
                                        for i in wrong[:8]])
        # the case must discriminate: some float32 results lie strictly between two halves, above the midpoint
        rounded_up = np.abs(expected.astype(np.float64)) > np.abs(exact.astype(np.float64))
        checked += int(rounded_up.sum())
    assert checked > 0


def test_every_half_passes_through_vector_load_and_store_unchanged(shaped_device):
    # Adam with M = V = G = 0: X - lr * alpha * 0 / (sqrt(0) + eps) = X - 0 = X for every half (-0 stays -0,
    # infinities stay, NaN stays NaN): the widening load and the narrowing store alone decide the result
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    x = bits.view(np.float16)
    zeros = np.zeros(x.size, np.float16)
    got = run(shaped_device, adam_desc(F16, x.size, None), {
        "InputParametersTensor": x, "InputFirstMomentTensor": zeros, "InputSecondMomentTensor": zeros,
        "GradientTensor": zeros, "TrainingStepTensor": np.uint32(1)})
    out = np.asarray(got["OutputParametersTensor"]).reshape(-1)
    nan = np.isnan(x)
    assert np.isnan(out[nan]).all()
    wrong = np.flatnonzero(out.view(np.uint16)[~nan] != bits[~nan])
    assert wrong.size == 0, [(hex(int(bits[~nan][i])), float(out[~nan][i])) for i in wrong[:8]]
    for moment in ("OutputFirstMomentTensor", "OutputSecondMomentTensor"):
        assert not np.asarray(got[moment]).any()
