"""DMLSIM_OPERATOR_ADAGRAD_DECAY on every adapter against the float64 transcription of DeepRec's kernels.

State (parameters, accumulator, decay power) stays in device buffers across steps, bound in place,
as TensorFlow keeps its variables; each step is checked against the reference applied to the state
the device held before it (read back, never written back), so errors cannot compound unnoticed.

Tolerances (ulps of the stored type, of the magnitude bound |a·rate| + g² for the accumulator and
|x| + |lr·g/sqrt(a)| for the parameters, design of dmlsim.api.numerics):
- FLOAT32: accumulator ≤ 1.5 ulp (a·rate, g·g, + each round once; the clamp is exact); parameters:
  OpenCL allows 3 ulp for sqrt and 2.5 for division, + 0.5 (lr·g) + 0.75 (the accumulator's error
  through sqrt) + 0.5 (the subtraction) ≈ 7.25 → 8 ulp. Summing k duplicate gradients in float32 adds
  (k − 1)/2 ulp of Σ|g| to g, i.e. about k ulp to g², so sparse runs with duplicates get 8 + k_max.
- FLOAT16 (storage only, float32 compute): one rounding to half per result, float32 errors are
  2^-13 of a half ulp → 1 ulp.
- FLOAT64: sqrt and division are correctly rounded for double in OpenCL; the reference rounds too
  → 4 ulp (+ k_max for duplicates).
The decay power is an integer and must match exactly; rows not indexed must be bitwise unchanged.
"""

from __future__ import annotations

import numpy as np
import pytest
from adagrad_decay_support import (
    F16,
    F32,
    F64,
    FIELDS_IN,
    I64,
    NP,
    OP,
    STATE,
    U32,
    make_desc,
    skip_without_fp64,
    sparse_inputs,
)
from dispatch import Dispatch, run

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps
from dmlsim.operators.adagrad_decay.reference import adagrad_decay

BASE_ULPS = {F32: 8, F16: 1, F64: 4}
ACC_ULPS = {F32: 2, F16: 1, F64: 4}


class Session(Dispatch):
    """A compiled operator whose state buffers live on the device and are updated in place, step by step."""

    def __init__(self, device, desc, var, accum, power):
        super().__init__(device, dml.DML_OPERATOR_DESC(OP, desc), inplace=STATE)
        self.desc = desc
        self.write("InputParametersTensor", var)
        self.write("InputAccumulatorTensor", accum)
        self.write("InputDecayPowerTensor", power)

    def state(self):
        return tuple(self.read(n) for n in FIELDS_IN[:3])

    def step(self, grad, global_step, indices=None):
        self.write("GradientTensor", grad)
        if indices is not None:
            self.write("IndicesTensor", indices)
        self.write("GlobalStepTensor", global_step)
        self.execute()


def hyper(desc):
    return {"learning_rate": np.float32(desc.LearningRate), "decay_step": desc.AccumulatorDecayStep,
            "decay_rate": np.float32(desc.AccumulatorDecayRate), "baseline": np.float32(desc.AccumulatorBaseline)}


def check_step(session, before, grad, global_step, indices=None, extra_ulps=0):
    """Compare the device's state after one step with the reference applied to ``before``; return the reference."""
    var, acc, power = before
    rows, row_length = var.shape[2], var.shape[3]
    g = np.asarray(grad, np.float64).reshape(-1, row_length)
    ref_var, ref_acc, ref_pow = adagrad_decay(var.reshape(rows, row_length), acc.reshape(rows, row_length),
                                              power.reshape(-1), g, global_step, indices=indices, **hyper(session.desc))
    got_var, got_acc, got_pow = session.state()
    dtype = session.layouts["InputParametersTensor"].data_type
    np_type = NP[dtype]
    assert np.array_equal(got_pow.reshape(-1), ref_pow.reshape(-1)), \
        f"step {global_step}: decay power {got_pow.ravel()} != {ref_pow.ravel()}"
    # magnitude bounds: every accumulator term is positive; the parameter bound adds |x| and |lr·g/sqrt(a)|
    if indices is None:
        gsum = np.abs(g)
    else:
        gsum = np.zeros((rows, row_length))
        for i, index in enumerate(np.asarray(indices, np.int64)):
            if 0 <= index < rows:
                gsum[index] += np.abs(g[i])
    acc_bound = np.abs(ref_acc)
    step_term = np.float64(session.desc.LearningRate) * gsum / np.sqrt(ref_acc)
    var_bound = np.abs(var.reshape(rows, row_length).astype(np.float64)) + step_term
    report = compare_ulps(got_acc.reshape(rows, row_length), ref_acc, np_type, ACC_ULPS[dtype] + extra_ulps, acc_bound)
    assert report.ok, report.describe(f"accumulator after step {global_step}")
    report = compare_ulps(got_var.reshape(rows, row_length), ref_var, np_type, BASE_ULPS[dtype] + extra_ulps, var_bound)
    assert report.ok, report.describe(f"parameters after step {global_step}")
    return ref_var, ref_acc, ref_pow


# --- dense ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [F32, F16, F64])
@pytest.mark.parametrize("step_type", [U32, I64])
def test_dense_multi_step_crosses_decay_periods_and_clamps(device, dtype, step_type):
    skip_without_fp64(device, dtype)
    rows, row_length = 5, 37  # 185 elements: the vector path and its scalar remainder
    desc = make_desc(dtype, rows, row_length, step_type=step_type, decay_step=3, rate=0.7, baseline=0.1)
    rng = np.random.default_rng(7)
    var = rng.standard_normal((1, 1, rows, row_length))
    # rows 0-1 get tiny gradients (the accumulator decays below the baseline: clamped); rows 2-4 large ones
    scale = np.array([1e-3, 1e-3, 1.0, 2.0, 0.5])[None, None, :, None]
    session = Session(device, desc, var, np.full(var.shape, 0.1), 0)
    clamped = unclamped = 0
    for step in range(1, 13):  # global steps 1..12: four decay periods of 3
        grad = (rng.standard_normal(var.shape) * scale).astype(NP[dtype])
        before = session.state()
        session.step(grad, step)
        check_step(session, before, grad, step)
        if step % 3 == 0:
            decayed = before[1].astype(np.float64) * np.float32(0.7)
            clamped += int(np.sum(decayed < np.float32(0.1)))
            unclamped += int(np.sum(decayed >= np.float32(0.1)))
    assert clamped > 0 and unclamped > 0, "the run must exercise both the baseline clamp and plain decay"
    assert int(session.read("InputDecayPowerTensor").ravel()[0]) == 4


def test_dense_decays_once_per_update_even_after_many_periods(device):
    desc = make_desc(F32, 1, 4, decay_step=10, rate=0.5, baseline=0.01)
    session = Session(device, desc, np.zeros(4), np.ones(4), 0)
    # global step 100 is ten periods in, but DeepRec decays once per update and bumps the power by one
    for expected_power, expected_acc in ((1, 0.5), (2, 0.25), (3, 0.125)):
        session.step(np.zeros(4), 100)
        _, acc, power = session.state()
        assert int(power.ravel()[0]) == expected_power
        np.testing.assert_array_equal(acc.ravel(), np.full(4, expected_acc, np.float32))
    # once the power has caught up with the step, no more decay
    for _ in range(10):
        session.step(np.zeros(4), 100)
    _, acc, power = session.state()
    assert int(power.ravel()[0]) == 10
    np.testing.assert_array_equal(acc.ravel(), np.full(4, 0.01, np.float32))  # 0.5**10 < baseline: clamped


def test_dense_strided_tensors(device):
    rows, row_length = 3, 5
    desc = make_desc(F32, rows, row_length, var_strides=[64, 64, 8, 1])
    rng = np.random.default_rng(3)
    var, grad = rng.standard_normal((2, 1, 1, rows, row_length))
    inputs = {"InputParametersTensor": var, "InputAccumulatorTensor": np.full(var.shape, 0.2, np.float32),
              "InputDecayPowerTensor": np.uint32(0), "GradientTensor": grad, "GlobalStepTensor": np.uint32(6)}
    out = run(device, dml.DML_OPERATOR_DESC(OP, desc), inputs)
    ref_var, ref_acc, _ = adagrad_decay(var.astype(np.float32), np.full(var.shape, 0.2, np.float32), [0],
                                              grad.astype(np.float32), 6, **hyper(desc))
    assert int(out["OutputDecayPowerTensor"].ravel()[0]) == 1
    assert compare_ulps(out["OutputAccumulatorTensor"], ref_acc, np.float32, 2).ok
    report = compare_ulps(out["OutputParametersTensor"], ref_var, np.float32, 8,
                          np.abs(var) + np.float32(0.05) * np.abs(grad) / np.sqrt(ref_acc))
    assert report.ok, report.describe()


# --- sparse -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [F32, F16, F64])
@pytest.mark.parametrize(("step_type", "index_type"), [(U32, U32), (I64, I64), (U32, I64)])
def test_sparse_multi_step_repeated_indices_in_place(device, dtype, step_type, index_type):
    skip_without_fp64(device, dtype)
    rows, row_length, count = 40, 9, 24
    desc = make_desc(dtype, rows, row_length, step_type=step_type, index_type=index_type, count=count,
                     decay_step=4, rate=0.6, baseline=0.1)
    rng = np.random.default_rng(11)
    var = rng.standard_normal((1, 1, rows, row_length))
    session = Session(device, desc, var, np.full(var.shape, 0.1), np.zeros(rows))
    touched = np.zeros(rows, bool)
    for step in range(1, 15):  # three decay periods and a bit
        # rows 0..29 only (30..39 never touched); row 3 listed 4 times each step
        indices = np.concatenate([[3, 3], rng.integers(0, 30, count - 4), [3, 3]])
        grad = (rng.standard_normal((1, 1, count, row_length)) * rng.choice([1e-3, 1.0], (1, 1, count, 1))
                ).astype(NP[dtype])
        before = session.state()
        session.step(grad, step, indices)
        k_max = int(np.bincount(indices).max())
        check_step(session, before, grad, step, indices, extra_ulps=k_max)
        after = session.state()
        untouched = np.setdiff1d(np.arange(rows), indices)
        for b, a in zip(before, after, strict=True):
            assert np.array_equal(b[0, 0, untouched].view(np.uint8), a[0, 0, untouched].view(np.uint8)), \
                "rows not indexed must stay bitwise unchanged, decay power included"
        touched[indices] = True
    power = session.read("InputDecayPowerTensor").ravel()
    assert np.all(power[30:] == 0) and power[3] == 3


def test_sparse_row_listed_many_times_is_deterministic(device):
    rows, row_length, count = 8, 16, 3000
    desc = make_desc(F32, rows, row_length, index_type=U32, count=count, decay_step=1)
    rng = np.random.default_rng(5)
    indices = np.where(rng.random(count) < 0.9, 2, rng.integers(0, rows, count)).astype(np.uint32)
    grad = (rng.standard_normal((1, 1, count, row_length)) * 1e-2).astype(np.float32)
    var = rng.standard_normal((1, 1, rows, row_length)).astype(np.float32)
    inputs = {"InputParametersTensor": var, "InputAccumulatorTensor": np.full(var.shape, 0.1, np.float32),
              "InputDecayPowerTensor": np.zeros(rows, np.uint32), "GradientTensor": grad, "IndicesTensor": indices,
              "GlobalStepTensor": np.uint32(1)}
    first = run(device, dml.DML_OPERATOR_DESC(OP, desc), inputs)
    for _ in range(2):
        again = run(device, dml.DML_OPERATOR_DESC(OP, desc), inputs)
        for name, value in first.items():
            assert np.array_equal(value.view(np.uint8), again[name].view(np.uint8)), f"{name} differs between runs"
    ref_var, ref_acc, _ = adagrad_decay(var.reshape(rows, -1), np.full((rows, row_length), 0.1, np.float32),
                                        np.zeros(rows), grad.reshape(count, -1), 1, indices=indices, **hyper(desc))
    # ~2700 float32 additions in index order: error ≤ (k−1)/2 ulp of Σ|g| on g — bound by Σ|g| itself
    gsum = np.zeros((rows, row_length))
    np.add.at(gsum, indices, np.abs(grad.reshape(count, -1)).astype(np.float64))
    k = int(np.bincount(indices).max())
    report = compare_ulps(first["OutputAccumulatorTensor"].reshape(rows, -1), ref_acc, np.float32, 2 + k,
                          np.float32(0.07) + gsum**2)
    assert report.ok, report.describe("accumulator")
    report = compare_ulps(first["OutputParametersTensor"].reshape(rows, -1), ref_var, np.float32, 8 + k,
                          np.abs(var.reshape(rows, -1)) + np.float32(0.05) * gsum / np.sqrt(ref_acc))
    assert report.ok, report.describe("parameters")


def test_sparse_duplicates_are_summed_in_index_order(device):
    """The contract that makes the float32 sum deterministic: duplicates are added in index order.

    Gradients 1, 1e8, −1e8 for one row: in index order float32 gives (1 + 1e8) − 1e8 = 0 (1 is below
    half an ulp of 1e8), so nothing changes; any order that cancels the big ones first would give 1.
    """
    if device.adapter.kind == "reference":
        pytest.skip("the reference device sums duplicates in float64, where every order gives 1")
    desc = make_desc(F32, 2, 1, index_type=U32, count=5, lr=1.0, decay_step=100)
    inputs = {"InputParametersTensor": np.array([5.0, 7.0], np.float32),
              "InputAccumulatorTensor": np.array([0.5, 0.5], np.float32),
              "InputDecayPowerTensor": np.zeros(2, np.uint32),
              "GradientTensor": np.array([0.0, 1.0, 1e8, 0.0, -1e8], np.float32),
              "IndicesTensor": np.array([0, 1, 1, 0, 1], np.uint32), "GlobalStepTensor": np.uint32(1)}
    out = run(device, dml.DML_OPERATOR_DESC(OP, desc), inputs, inplace=True)
    np.testing.assert_array_equal(out["OutputParametersTensor"].ravel(), [5.0, 7.0])
    np.testing.assert_array_equal(out["OutputAccumulatorTensor"].ravel(), [0.5, 0.5])


def test_sparse_out_of_place_outputs_are_complete_and_equal_in_place(device):
    inputs = sparse_inputs()
    desc = make_desc(F32, 6, 3, index_type=U32, count=3, decay_step=3)
    op_desc = dml.DML_OPERATOR_DESC(OP, desc)
    out = run(device, op_desc, inputs)
    inplace = run(device, op_desc, inputs, inplace=True)
    for name in out:
        assert np.array_equal(out[name].view(np.uint8), inplace[name].view(np.uint8)), name
    untouched = [1, 2, 3, 5]
    for field, name in (("InputParametersTensor", "OutputParametersTensor"),
                        ("InputAccumulatorTensor", "OutputAccumulatorTensor"),
                        ("InputDecayPowerTensor", "OutputDecayPowerTensor")):
        src = inputs[field].reshape(6, -1)
        assert np.array_equal(out[name].reshape(6, -1)[untouched], src[untouched]), \
            f"{name}: rows not indexed must be copied from {field} when bound out of place"
    # rows 0 and 4 decayed (power 0 < 3/3 = 1), each once; row 1 (power 1) was not indexed
    assert out["OutputDecayPowerTensor"].ravel().tolist() == [1, 1, 0, 1, 1, 1]


def test_sparse_mixed_in_place_and_out_of_place(device):
    """Parameters in place, accumulator and power out of place: each output is complete."""
    inputs = sparse_inputs(rows=5, row_length=4, indices=(2, 2, 0))
    desc = make_desc(F32, 5, 4, index_type=U32, count=3, decay_step=3)
    dispatch = Dispatch(device, dml.DML_OPERATOR_DESC(OP, desc),
                        inplace={"OutputParametersTensor": "InputParametersTensor"})
    dispatch.load(inputs)
    dispatch.execute()
    expected = run(device, dml.DML_OPERATOR_DESC(OP, desc), inputs)
    np.testing.assert_array_equal(dispatch.read("InputParametersTensor"), expected["OutputParametersTensor"])
    np.testing.assert_array_equal(dispatch.read("OutputAccumulatorTensor"), expected["OutputAccumulatorTensor"])
    np.testing.assert_array_equal(dispatch.read("OutputDecayPowerTensor"), expected["OutputDecayPowerTensor"])
    # the out-of-place inputs are untouched
    np.testing.assert_array_equal(dispatch.read("InputAccumulatorTensor"), inputs["InputAccumulatorTensor"])


def test_sparse_strided_tensors(device):
    rows, row_length = 4, 3
    desc = make_desc(F32, rows, row_length, index_type=U32, count=3, var_strides=[64, 64, 4, 1])
    inputs = sparse_inputs(rows=rows, row_length=row_length, indices=(1, 3, 1))
    out = run(device, dml.DML_OPERATOR_DESC(OP, desc), inputs)
    plain = run(device, dml.DML_OPERATOR_DESC(OP, make_desc(F32, rows, row_length, index_type=U32, count=3)),
                         inputs)
    for name in out:
        np.testing.assert_array_equal(out[name], plain[name])


@pytest.mark.parametrize(("index_dtype", "index_type", "bad"), [(np.uint32, U32, 6), (np.uint32, U32, 0xFFFFFFFF),
                                                                 (np.int64, I64, -1), (np.int64, I64, 1 << 40)])
def test_sparse_out_of_range_index_is_never_written(device, index_dtype, index_type, bad):
    inputs = sparse_inputs(indices=(4, bad, 0), index_dtype=index_dtype)
    desc = make_desc(F32, 6, 3, index_type=index_type, count=3)
    out = run(device, dml.DML_OPERATOR_DESC(OP, desc), inputs, inplace=True)
    ref = adagrad_decay(inputs["InputParametersTensor"].reshape(6, 3), inputs["InputAccumulatorTensor"].reshape(6, 3),
                        inputs["InputDecayPowerTensor"], inputs["GradientTensor"].reshape(3, 3), 3,
                        indices=inputs["IndicesTensor"], **hyper(desc))
    np.testing.assert_array_equal(out["OutputDecayPowerTensor"].ravel(), ref[2])
    untouched = [1, 2, 3, 5]
    np.testing.assert_array_equal(out["OutputParametersTensor"].reshape(6, 3)[untouched],
                                  inputs["InputParametersTensor"].reshape(6, 3)[untouched])
    assert compare_ulps(out["OutputAccumulatorTensor"].reshape(6, 3), ref[1], np.float32, 2).ok


def test_debug_device_refuses_out_of_range_index(debug_device):
    inputs = sparse_inputs(indices=(4, 6, 0, 9))
    desc = make_desc(F32, 6, 3, index_type=U32, count=4)
    with pytest.raises(dml.DMLError) as info:
        run(debug_device, dml.DML_OPERATOR_DESC(OP, desc), inputs)
    message = str(info.value)
    assert info.value.hresult == dml.E_INVALIDARG
    assert "IndicesTensor" in message and "[1] = 6" in message and "[3] = 9" in message and "[0, 6)" in message
    # in range: the debug device runs it
    out = run(debug_device, dml.DML_OPERATOR_DESC(OP, desc), sparse_inputs(indices=(4, 5, 0, 5)))
    assert out["OutputDecayPowerTensor"].shape == (1, 1, 6, 1)


# --- DeepRec's own tests (adagrad_decay_test.py), expected values re-derived and pinned ---------------------------
# TF's assertAllCloseAccordingToType tolerances: half 1e-3, float32/float64 1e-6.
TF_TOL = {F16: 1e-3, F32: 1e-6, F64: 1e-6}
# testBasic: lr 1, initial accumulator (= baseline) 0.1, decay step 3, rate 0.9, grads 0.1 / 0.2, four updates
# seeing global steps 1..4 (DeepRec passes global_step + 1): one decay, at the third update.
BASIC_V0, BASIC_V1 = -0.16080623122984106, 1.1425210218032642
BASIC_ACC0, BASIC_ACC1 = 0.12800000000000003, 0.24200000000000005
# testBaseline: initial accumulator (= baseline) 1.0, rate 0.6 → the decay clamps to the baseline.
BASELINE_ACC0, BASELINE_ACC1 = 1.02, 1.08


def run_deeprec_dense(device, dtype, step_type, init, rate, var0, grad):
    desc = make_desc(dtype, 1, 2, step_type=step_type, lr=1.0, decay_step=3, rate=rate, baseline=init)
    session = Session(device, desc, var0, np.full(2, init), 0)
    for global_step in range(4):
        session.step(np.full(2, grad), global_step + 1)
    return session.state()


@pytest.mark.parametrize("dtype", [F16, F32, F64])
@pytest.mark.parametrize("step_type", [U32, I64])
def test_deeprec_basic_dense(device, dtype, step_type):
    skip_without_fp64(device, dtype)
    tol = TF_TOL[dtype]
    var0, acc0, power0 = run_deeprec_dense(device, dtype, step_type, 0.1, 0.9, [1.0, 2.0], 0.1)
    var1, acc1, _ = run_deeprec_dense(device, dtype, step_type, 0.1, 0.9, [3.0, 4.0], 0.2)
    np.testing.assert_allclose(var0.ravel(), [BASIC_V0, BASIC_V0 + 1], rtol=tol, atol=tol)
    np.testing.assert_allclose(var1.ravel(), [BASIC_V1, BASIC_V1 + 1], rtol=tol, atol=tol)
    np.testing.assert_allclose(acc0.ravel(), [BASIC_ACC0] * 2, rtol=tol, atol=tol)
    np.testing.assert_allclose(acc1.ravel(), [BASIC_ACC1] * 2, rtol=tol, atol=tol)
    assert int(power0.ravel()[0]) == 1


@pytest.mark.parametrize("dtype", [F16, F32, F64])
@pytest.mark.parametrize("step_type", [U32, I64])
def test_deeprec_baseline_dense(device, dtype, step_type):
    skip_without_fp64(device, dtype)
    tol = TF_TOL[dtype]
    _, acc0, _ = run_deeprec_dense(device, dtype, step_type, 1.0, 0.6, [1.0, 2.0], 0.1)
    _, acc1, _ = run_deeprec_dense(device, dtype, step_type, 1.0, 0.6, [3.0, 4.0], 0.2)
    np.testing.assert_allclose(acc0.ravel(), [BASELINE_ACC0] * 2, rtol=tol, atol=tol)
    np.testing.assert_allclose(acc1.ravel(), [BASELINE_ACC1] * 2, rtol=tol, atol=tol)


def run_deeprec_sparse(device, dtype, step_type, init, rate, var, row, grad, lr=1.0, decay_step=3, steps=4,
                       indices=None, grads=None):
    indices = [row] if indices is None else indices
    grads = [grad] if grads is None else grads
    desc = make_desc(dtype, 2, 1, step_type=step_type, index_type=I64, count=len(indices), lr=lr,
                     decay_step=decay_step, rate=rate, baseline=init)
    session = Session(device, desc, var, np.full(2, init), np.zeros(2))
    history = []
    for global_step in range(steps):
        session.step(np.array(grads), global_step + 1, indices)
        history.append(session.state())
    return history


@pytest.mark.parametrize("dtype", [F16, F32, F64])
@pytest.mark.parametrize("step_type", [U32, I64])
def test_deeprec_sparse_basic_and_baseline(device, dtype, step_type):
    skip_without_fp64(device, dtype)
    tol = TF_TOL[dtype]
    var0, acc0, power0 = run_deeprec_sparse(device, dtype, step_type, 0.1, 0.9, [1.0, 2.0], 0, 0.1)[-1]
    var1, acc1, power1 = run_deeprec_sparse(device, dtype, step_type, 0.1, 0.9, [3.0, 4.0], 1, 0.2)[-1]
    np.testing.assert_allclose(var0.ravel(), [BASIC_V0, 2.0], rtol=tol, atol=tol)
    np.testing.assert_allclose(var1.ravel(), [3.0, BASIC_V1 + 1], rtol=tol, atol=tol)
    np.testing.assert_allclose(acc0.ravel(), [BASIC_ACC0, 0.1], rtol=tol, atol=tol)
    assert power0.ravel().tolist() == [1, 0] and power1.ravel().tolist() == [0, 1]
    _, acc0, _ = run_deeprec_sparse(device, dtype, step_type, 1.0, 0.6, [1.0, 2.0], 0, 0.1)[-1]
    _, acc1, _ = run_deeprec_sparse(device, dtype, step_type, 1.0, 0.6, [3.0, 4.0], 1, 0.2)[-1]
    np.testing.assert_allclose(acc0.ravel(), [BASELINE_ACC0, 1.0], rtol=tol, atol=tol)
    np.testing.assert_allclose(acc1.ravel(), [1.0, BASELINE_ACC1], rtol=tol, atol=tol)


# testSparseRepeatedIndices: lr 3, defaults (initial accumulator 0.1, rate 0.9), decay step 2; grads
# [0.1, 0.1] at [1, 1] must equal 0.2 at [1]. Re-derived per-update values of row 1 (row 0 stays 1.0):
REPEATED = [(0.3964325485254536, 0.14, 0), (-1.0762095324959944, 0.16600000000000004, 1),
            (-2.3981674802136896, 0.20600000000000004, 1)]


@pytest.mark.parametrize("dtype", [F16, F32, F64])
def test_deeprec_sparse_repeated_indices(device, dtype):
    skip_without_fp64(device, dtype)
    tol = TF_TOL[dtype]
    args = {"init": 0.1, "rate": 0.9, "var": [1.0, 2.0], "row": 1, "lr": 3.0, "decay_step": 2, "steps": 3}
    repeated = run_deeprec_sparse(device, dtype, I64, grad=None, indices=[1, 1], grads=[0.1, 0.1], **args)
    aggregated = run_deeprec_sparse(device, dtype, I64, grad=0.2, **args)
    for (rv, ra, rp), (av, aa, ap), (var1, acc1, power1) in zip(repeated, aggregated, REPEATED, strict=True):
        np.testing.assert_allclose(rv, av, rtol=tol, atol=tol)
        np.testing.assert_allclose(ra, aa, rtol=tol, atol=tol)
        np.testing.assert_allclose(rv.ravel(), [1.0, var1], rtol=tol, atol=tol)
        np.testing.assert_allclose(ra.ravel(), [0.1, acc1], rtol=tol, atol=tol)
        assert rp.ravel().tolist() == [0, power1] == ap.ravel().tolist()


# --- validation (the same on every device) ----------------------------------------------------------------------

def refused(device, desc):
    with pytest.raises(dml.DMLError) as info:
        device.CreateOperator(dml.DML_OPERATOR_DESC(OP, desc))
    assert info.value.hresult == dml.E_INVALIDARG
    return str(info.value)


def test_attribute_checks_are_deeprecs_and_reported_together(ref_device):
    message = refused(ref_device, make_desc(F32, 2, 2, decay_step=0, rate=1.0, baseline=0.0))
    assert "AccumulatorDecayStep must be > 0, got 0" in message
    assert "AccumulatorDecayRate must be in (0, 1), got 1.0" in message
    assert "AccumulatorBaseline must be > 0, got 0.0" in message
    assert "AccumulatorDecayRate must be in (0, 1), got 0.0" in refused(ref_device, make_desc(F32, 2, 2, rate=0.0))
    assert "AccumulatorDecayRate" in refused(ref_device, make_desc(F32, 2, 2, rate=float("nan")))
    assert "AccumulatorBaseline must be > 0" in refused(ref_device, make_desc(F32, 2, 2, baseline=-1.0))


def test_shape_and_type_rules(ref_device):
    desc = make_desc(F32, 4, 3, index_type=U32, count=2)
    desc.GradientTensor = dml.buffer_tensor(F32, [1, 1, 3, 3])
    desc.InputDecayPowerTensor = dml.buffer_tensor(U32, [1, 1, 1, 1])
    desc.OutputDecayPowerTensor = dml.buffer_tensor(U32, [1, 1, 1, 1])
    message = refused(ref_device, desc)
    assert "GradientTensor.Sizes [1, 1, 3, 3] must be [1, 1, 2, 3]" in message
    assert "InputDecayPowerTensor.Sizes [1, 1, 1, 1] must be [1, 1, 4, 1]" in message

    desc = make_desc(F32, 4, 3)
    desc.InputDecayPowerTensor = dml.buffer_tensor(I64, [1, 1, 1, 1])  # step is UINT32
    desc.GradientTensor = dml.buffer_tensor(F32, [1, 1, 4, 2])
    message = refused(ref_device, desc)
    assert "InputDecayPowerTensor.DataType INT64 must equal GlobalStepTensor.DataType UINT32" in message
    assert "GradientTensor.Sizes [1, 1, 4, 2] must equal InputParametersTensor.Sizes [1, 1, 4, 3]" in message

    desc = make_desc(F32, 4, 3)
    desc.InputParametersTensor = desc.InputAccumulatorTensor = dml.buffer_tensor(F32, [2, 1, 4, 3])
    desc.OutputParametersTensor = desc.OutputAccumulatorTensor = dml.buffer_tensor(F32, [2, 1, 4, 3])
    desc.GradientTensor = dml.buffer_tensor(F32, [2, 1, 4, 3])
    assert "must be {1, 1, Rows, RowLength}" in refused(ref_device, desc)

    desc = make_desc(F32, 4, 3, index_type=U32, count=2)
    desc.IndicesTensor = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_INT32, [1, 1, 1, 2])
    assert "IndicesTensor" in refused(ref_device, desc)
    desc = make_desc(F32, 4, 3, step_type=dml.DML_TENSOR_DATA_TYPE_FLOAT32)
    assert "GlobalStepTensor" in refused(ref_device, desc)


def test_gradient_may_not_alias_an_output(ref_device):
    desc = make_desc(F32, 2, 4)
    over = {**STATE, "OutputParametersTensor": "GradientTensor"}
    with pytest.raises(dml.DMLError, match="GradientTensor, which is not eligible"):
        Dispatch(ref_device, dml.DML_OPERATOR_DESC(OP, desc), inplace=over)


def test_sparse_needs_a_temporary_resource_dense_does_not(ref_device):
    dense = ref_device.CompileOperator(ref_device.CreateOperator(dml.DML_OPERATOR_DESC(OP, make_desc(F32, 10, 4))))
    assert dense.GetBindingProperties().TemporaryResourceSize == 0
    sparse = ref_device.CompileOperator(ref_device.CreateOperator(
        dml.DML_OPERATOR_DESC(OP, make_desc(F32, 1000, 4, index_type=U32, count=7))))
    assert sparse.GetBindingProperties().TemporaryResourceSize >= (1000 + 7) * 4


def test_values_are_shown_as_the_float_the_desc_holds_and_a_bad_indices_shape_is_not_echoed(ref_device):
    desc = make_desc(F32, 4, 2, index_type=U32, count=2, rate=0.99999999, baseline=-0.1)
    desc.IndicesTensor = dml.buffer_tensor(U32, [1, 1, 2, 1])
    message = refused(ref_device, desc)
    assert "AccumulatorDecayRate must be in (0, 1), got 1.0 (as FLOAT)" in message  # 0.99999999 rounds to 1
    assert "AccumulatorBaseline must be > 0, got -0.1 (as FLOAT)" in message
    assert "IndicesTensor.Sizes [1, 1, 2, 1] must be {1, 1, 1, N}" in message
    assert "GradientTensor" not in message
