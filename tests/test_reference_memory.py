"""The reference device never expands a broadcast, and charges its working arrays before allocating them
(issue 26 item 4).

A GEMM whose A and B are one float each, stretched to K = 2^32 - 1 by stride 0, made the reference device
allocate 32 GiB per operand, then fail with numpy's bare MemoryError (a traceback through ``dmlsim run``).
Now a broadcast dimension is computed once where the formula allows (GEMM's K, M, N and batch, every
reduction over a broadcast axis), and any other dispatch whose float64 arrays would be too large is refused
with E_OUTOFMEMORY naming the operator before anything is allocated. Expected values are literals worked
out by hand, or numpy written here over the expanded arrays of small cases.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import dmlsim as dml
from dmlsim.cli import main
from dmlsim.operators.gemm import reference as gemm_reference
from dmlsim.operators.reduce.reference import arg_reduce, reduce
from dmlsim.quick import prepare_operator, run_operator

# The model's GEMM sums 2^32 - 1 broadcast products: the reference device does it in one step, but the compute
# budget (counting every multiply-add, as a kernel would do them) refuses it; these tests are about memory.
NO_COMPUTE_LIMIT = str(10**16)

F32 = dml.DML_TENSOR_DATA_TYPE_FLOAT32
K_MAX = 2**32 - 1


def _gemm_desc(k, *, a_strides=(0, 0, 0, 0), b_strides=(0, 0, 0, 0)):
    a = dml.buffer_tensor(F32, [1, 1, 1, k], strides=list(a_strides))
    b = dml.buffer_tensor(F32, [1, 1, k, 1], strides=list(b_strides))
    out = dml.buffer_tensor(F32, [1, 1, 1, 1])
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_GEMM, dml.DML_GEMM_OPERATOR_DESC(
        a, b, None, out, dml.DML_MATRIX_TRANSFORM_NONE, dml.DML_MATRIX_TRANSFORM_NONE, 1.0, 0.0, None))


def _peak_bytes(function):
    """``function()``'s result and the peak of numpy's (and Python's) allocations while it ran."""
    tracemalloc.start()
    try:
        result = function()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_gemm_of_two_floats_stretched_to_k_2_32_minus_1(ref_device):
    """The issue's repro: 2 x 3 summed over K = 2^32 - 1 terms is 6 * 2^32 - 6, 6 * 2^32 in float32."""
    out, peak = _peak_bytes(lambda: run_operator(ref_device, _gemm_desc(K_MAX),
                                                 {"ATensor": np.float32(2), "BTensor": np.float32(3)}))
    assert out["OutputTensor"].ravel().tolist() == [6.0 * 2**32]
    assert peak < 16 << 20, f"{peak} bytes allocated"


def test_a_broadcast_k_is_not_expanded(ref_device):
    """K = 2^24 (128 MiB per operand in float64, were it expanded): a few bytes are held; 2^24 * 2 * 3."""
    out, peak = _peak_bytes(lambda: run_operator(ref_device, _gemm_desc(1 << 24),
                                                 {"ATensor": np.float32(2), "BTensor": np.float32(3)}))
    assert out["OutputTensor"].ravel().tolist() == [6.0 * 2**24]
    assert peak < 16 << 20, f"{peak} bytes allocated: a broadcast operand was expanded"


def _expanded(shape, rng, broadcast=0.4, positive=False):
    """A random float32 array of ``shape`` viewed with stride 0 on some axes (the view a broadcast tensor binds)."""
    base = rng.standard_normal(shape).astype(np.float32)
    if positive:
        base = np.abs(base) + np.float32(0.5)
    strides = [0 if n > 1 and rng.random() < broadcast else s for n, s in zip(shape, base.strides, strict=True)]
    return np.lib.stride_tricks.as_strided(base, shape, strides, writeable=False)


@pytest.mark.parametrize("chunk", [1, 5, 1 << 22], ids=["one-term-slices", "small-slices", "one-slice"])
def test_gemm_with_broadcast_dimensions_equals_the_expanded_product(monkeypatch, chunk):
    """Random batch/M/K/N broadcasts on A and B (K in one operand only included), multiplied in slices of K
    of every size: equal to float64 numpy over the expanded arrays, to float64 rounding."""
    monkeypatch.setattr(gemm_reference, "CHUNK_ELEMENTS", chunk)
    rng = np.random.default_rng(26)
    for _ in range(60):
        batch, m, k, n = (int(v) for v in rng.integers(1, 6, 4))
        a = _expanded((batch, 1, m, k), rng)
        b = _expanded((batch, 1, k, n), rng)
        trans_a, trans_b = bool(rng.integers(2)), bool(rng.integers(2))
        a_in = np.swapaxes(a, -1, -2) if trans_a else a
        b_in = np.swapaxes(b, -1, -2) if trans_b else b
        got = gemm_reference.gemm(a_in, b_in, None, trans_a, trans_b, 1.5, 0.0)
        expected = 1.5 * np.einsum("bcmk,bckn->bcmn", a.astype(np.float64), b.astype(np.float64))
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_each_term_of_a_broadcast_k_is_its_own_product():
    """inf x 0 is NaN in the sum even when A's inf is broadcast along K (no inf x sum(B) shortcut)."""
    a = np.lib.stride_tricks.as_strided(np.array([np.inf], np.float32), (1, 4), (0, 0))
    b = np.array([[1], [0], [2], [3]], np.float32)
    with np.errstate(invalid="ignore"):
        assert np.isnan(gemm_reference.gemm(a, b, None, False, False, 1.0, 0.0)).all()
    assert gemm_reference.gemm(a[:, :3], b[[0, 2, 3]], None, False, False, 1.0, 0.0).tolist() == [[np.inf]]


def _reduce_desc(function, size, data_type=F32):
    x = dml.buffer_tensor(data_type, [1, 1, 1, size], strides=[0, 0, 0, 0])
    y = dml.buffer_tensor(data_type, [1, 1, 1, 1])
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_REDUCE, dml.DML_REDUCE_OPERATOR_DESC(
        getattr(dml, f"DML_REDUCE_FUNCTION_{function}"), x, y, AxisCount=1, Axes=[3]))


# 0.5 repeated 2^32 - 1 times; float32 results, worked out by hand
REDUCTIONS = [("SUM", 2.0**31),                 # 2^31 - 0.5 rounds to 2^31
              ("AVERAGE", 0.5), ("MAX", 0.5), ("MIN", 0.5),
              ("L1", 2.0**31), ("SUM_SQUARE", 2.0**30),  # 0.25 * (2^32 - 1) = 2^30 - 0.25
              ("L2", 32768.0),                  # sqrt(0.25 * (2^32 - 1)) = 32767.999996...
              ("MULTIPLY", 0.0),                # 0.5^(2^32 - 1) underflows
              ("LOG_SUM", float(np.float32(np.log(2.0**31))))]  # log(2^31 - 0.5) rounds as log(2^31)


@pytest.mark.parametrize(("function", "expected"), REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_reductions_over_a_broadcast_axis_of_2_32_minus_1_elements(ref_device, function, expected):
    out, peak = _peak_bytes(lambda: run_operator(ref_device, _reduce_desc(function, K_MAX),
                                                 {"InputTensor": np.float32(0.5)}))
    assert out["OutputTensor"].ravel().tolist() == [expected]
    assert peak < 16 << 20, f"{peak} bytes allocated"


def test_a_reduction_over_a_broadcast_axis_is_not_expanded(ref_device):
    """2^24 repeats (128 MiB in float64, were they expanded): a few bytes are held; 2^24 * 0.5 = 2^23."""
    out, peak = _peak_bytes(lambda: run_operator(ref_device, _reduce_desc("SUM", 1 << 24),
                                                 {"InputTensor": np.float32(0.5)}))
    assert out["OutputTensor"].ravel().tolist() == [2.0**23]
    assert peak < 16 << 20, f"{peak} bytes allocated: a broadcast input was expanded"


def test_integer_sum_over_a_broadcast_axis_wraps_as_repeated_addition(ref_device):
    """INT32 3 added 2^32 - 1 times: 3 * (2^32 - 1) mod 2^32 = -3."""
    out = run_operator(ref_device, _reduce_desc("SUM", K_MAX, dml.DML_TENSOR_DATA_TYPE_INT32),
                       {"InputTensor": np.int32(3)})
    assert out["OutputTensor"].ravel().tolist() == [-3]


@pytest.mark.parametrize(("direction", "expected"), [("INCREASING", 0), ("DECREASING", K_MAX - 1)])
def test_argmax_over_a_broadcast_axis_takes_the_first_or_last_repeat(ref_device, direction, expected):
    x = dml.buffer_tensor(F32, [1, 1, 1, K_MAX], strides=[0, 0, 0, 0])
    y = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_UINT32, [1, 1, 1, 1])
    desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ARGMAX, dml.DML_ARGMAX_OPERATOR_DESC(
        x, y, AxisCount=1, Axes=[3], AxisDirection=getattr(dml, f"DML_AXIS_DIRECTION_{direction}")))
    out = run_operator(ref_device, desc, {"InputTensor": np.float32(1)})
    assert out["OutputTensor"].ravel().tolist() == [expected]


# each DML_REDUCE_FUNCTION over float64 values, written from its doc page's formula (expanded arrays)
FORMULAS = {
    "SUM": lambda x, ax: x.sum(ax, keepdims=True), "SUM_SQUARE": lambda x, ax: (x * x).sum(ax, keepdims=True),
    "L1": lambda x, ax: np.abs(x).sum(ax, keepdims=True), "MULTIPLY": lambda x, ax: x.prod(ax, keepdims=True),
    "MAX": lambda x, ax: x.max(ax, keepdims=True), "MIN": lambda x, ax: x.min(ax, keepdims=True),
    "AVERAGE": lambda x, ax: x.mean(ax, keepdims=True), "L2": lambda x, ax: np.sqrt((x * x).sum(ax, keepdims=True)),
    "LOG_SUM": lambda x, ax: np.log(x.sum(ax, keepdims=True)),
    "LOG_SUM_EXP": lambda x, ax: np.log(np.exp(x).sum(ax, keepdims=True)),
}


def test_reductions_of_broadcast_inputs_equal_the_expanded_formulas():
    rng = np.random.default_rng(4)
    for _ in range(200):
        shape = tuple(int(n) for n in rng.integers(1, 5, int(rng.integers(1, 5))))
        x = _expanded(shape, rng, broadcast=0.5, positive=True)  # positive: every formula is defined
        axes = sorted(int(a) for a in rng.choice(len(shape), int(rng.integers(1, len(shape) + 1)), replace=False))
        dense = x.astype(np.float64)
        for function, formula in FORMULAS.items():
            with np.errstate(all="ignore"):
                got = reduce(function, x, axes)
            np.testing.assert_allclose(got, formula(dense, tuple(axes)), rtol=1e-9, err_msg=function)
        for largest in (True, False):
            for last in (False, True):
                kept = [a for a in range(x.ndim) if a not in axes]
                rows = np.transpose(x, kept + axes).reshape([x.shape[a] for a in kept] + [-1])
                flip = rows[..., ::-1] if last else rows
                pick = (np.argmax if largest else np.argmin)(flip, axis=-1)
                expected = (rows.shape[-1] - 1 - pick) if last else pick
                got = arg_reduce(largest, x, axes, last)
                assert got.ravel().tolist() == np.ravel(expected).tolist(), (shape, axes, largest, last)


def test_integer_reductions_of_broadcast_inputs_wrap_as_the_expanded_ones():
    rng = np.random.default_rng(5)
    for dtype in (np.int8, np.uint8, np.int32, np.uint32, np.int64):
        info = np.iinfo(dtype)
        base = rng.integers(info.min, info.max, (3, 1), endpoint=True, dtype=dtype)
        x = np.lib.stride_tricks.as_strided(base, (3, 7), (base.strides[0], 0))
        dense = np.ascontiguousarray(x)
        assert reduce("SUM", x, [1]).tolist() == dense.sum(1, dtype=dtype, keepdims=True).tolist()
        assert reduce("MULTIPLY", x, [0, 1]).tolist() == dense.prod(dtype=dtype, keepdims=True).tolist()
        assert reduce("SUM_SQUARE", x, [1]).tolist() == (dense * dense).sum(1, dtype=dtype, keepdims=True).tolist()


def _cast_desc(size):
    x = dml.buffer_tensor(F32, [1, 1, 1, size], strides=[0, 0, 0, 0])
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_CAST, dml.DML_CAST_OPERATOR_DESC(
        x, dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_INT32, [1, 1, 1, size])))


@pytest.fixture
def small_reference():
    """A fresh reference device whose working arrays may take 1 MiB (a machine with 2 MiB of memory)."""
    device = dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, adapter="reference")
    device.backend.working_limit = 1 << 20
    return device


def test_a_dispatch_over_the_working_limit_is_refused_naming_it(small_reference):
    """CAST expands its input (one float broadcast to 2^18 elements): about 16 MiB of working arrays."""
    prepared = prepare_operator(small_reference, _cast_desc(1 << 18), {"InputTensor": np.float32(7)})
    queue = small_reference.CreateCommandQueue()
    with pytest.raises(dml.DMLError) as info:
        queue.ExecuteCommandLists([prepared.record()])
    assert info.value.hresult == dml.E_OUTOFMEMORY
    message = str(info.value)
    assert "DML_OPERATOR_CAST" in message and "1 MiB (1048576 bytes)" in message
    assert "half of this machine's physical memory" in message and "nothing was executed" in message
    assert not prepared.read("OutputTensor").any()  # nothing was written
    small_reference.backend.working_limit = 16 << 20  # enough: it runs
    queue.ExecuteCommandLists([prepared.record()])
    assert (prepared.read("OutputTensor") == 7).all()


def test_a_refused_dispatch_stops_its_whole_call_before_anything_runs(small_reference):
    """Two dispatches in one command list, the second over the limit: the first does not run either."""
    fits = prepare_operator(small_reference, _cast_desc(4), {"InputTensor": np.float32(7)})
    too_big = prepare_operator(small_reference, _cast_desc(1 << 18), {"InputTensor": np.float32(7)})
    cmd = small_reference.CreateCommandList()
    recorder = small_reference.CreateCommandRecorder()
    for prepared in (fits, too_big):
        recorder.RecordDispatch(cmd, prepared.compiled, prepared.table)
    with pytest.raises(dml.DMLError) as info:
        small_reference.CreateCommandQueue().ExecuteCommandLists([cmd])
    assert info.value.hresult == dml.E_OUTOFMEMORY
    assert not fits.read("OutputTensor").any()


def test_the_estimate_counts_no_broadcast_repeat_the_reference_does_not_expand(small_reference):
    """GEMM over K = 2^32 - 1 and a REDUCE over 2^32 - 1 repeats run within 1 MiB of working arrays."""
    out = run_operator(small_reference, _gemm_desc(K_MAX), {"ATensor": np.float32(1), "BTensor": np.float32(1)})
    assert out["OutputTensor"].ravel().tolist() == [2.0**32]
    out = run_operator(small_reference, _reduce_desc("MAX", K_MAX), {"InputTensor": np.float32(4)})
    assert out["OutputTensor"].ravel().tolist() == [4.0]


def test_a_memory_error_of_numpy_is_an_e_outofmemory_naming_the_dispatch(ref_device, monkeypatch):
    """Should the estimate fall short, numpy's MemoryError still reaches nobody bare."""
    prepared = prepare_operator(ref_device, _cast_desc(4), {"InputTensor": np.float32(1)})
    operator = prepared.compiled.operator

    def exhausted(*args):
        raise MemoryError("Unable to allocate 32.0 GiB")

    monkeypatch.setattr(type(operator), "evaluate", exhausted)
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateCommandQueue().ExecuteCommandLists([prepared.record()])
    assert info.value.hresult == dml.E_OUTOFMEMORY and "DML_OPERATOR_CAST" in str(info.value)


MODEL = """\
resources:
  A: {initialValuesDataType: FLOAT32, initialValues: [2]}
  B: {initialValuesDataType: FLOAT32, initialValues: [3]}
  Out: {initialValuesDataType: FLOAT32, initialValues: [0]}
  Wide: {initialValuesDataType: INT32, initialValues: {valueCount: 262144, value: 0}}
dispatchables:
  k:
    type: GEMM
    desc: {ATensor: {DataType: FLOAT32, Sizes: [1, 4294967295], Strides: [0, 0]},
           BTensor: {DataType: FLOAT32, Sizes: [4294967295, 1], Strides: [0, 0]},
           OutputTensor: {DataType: FLOAT32, Sizes: [1, 1]}, TransA: NONE, TransB: NONE, Alpha: 1, Beta: 0}
  cast:
    type: CAST
    desc: {InputTensor: {DataType: FLOAT32, Sizes: [1, 262144], Strides: [0, 0]},
           OutputTensor: {DataType: INT32, Sizes: [1, 262144]}}
commands:
  - {type: dispatch, dispatchable: k, bindings: {ATensor: A, BTensor: B, OutputTensor: Out}}
  - {type: expect, resource: Out, values: [25769803776], ulp: 0}
  - {type: dispatch, dispatchable: cast, bindings: {InputTensor: A, OutputTensor: Wide}}
"""


def test_dmlsim_run_on_the_reference_device_charges_the_models_budget(tmp_path, capsys):
    """Through `dmlsim run -a reference`: the GEMM runs; the CAST's 16 MiB of working arrays are more than a
    4 MiB budget leaves after the 1 MiB of resources: refused where the dispatch is, exit 2, no traceback."""
    model = tmp_path / "broadcast.yaml"
    model.write_text(MODEL)
    assert main(["run", "-a", "reference", "--memory-budget", "4M", "--compute-budget", NO_COMPUTE_LIMIT,
                 str(model)]) == 2
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "Traceback" not in text and "MemoryError" not in text
    assert f"{model}:19:5: command 2 (dispatch 'cast'): invalid" in text
    assert "E_OUTOFMEMORY" in text and "DML_OPERATOR_CAST" in text and "--memory-budget" in text
    assert "Expect 'Out' (command 1): ok" in text
    assert main(["run", "-a", "reference", "--memory-budget", "20M", "--compute-budget", NO_COMPUTE_LIMIT,
                 str(model)]) == 0  # 16 MiB fit now


def test_a_model_runs_charge_leaves_the_device_as_it_was(tmp_path):
    """The budget is the model's: charged while its dispatch runs, never the device's limit afterwards."""
    from dmlsim.model.limits import Limits
    from dmlsim.model.model import load_model
    from dmlsim.model.runner import Runner

    model = tmp_path / "broadcast.yaml"
    model.write_text(MODEL)
    device = dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, adapter="reference")
    limit = device.backend.working_limit
    loaded = load_model(model, limits=Limits(budget=4 << 20, compute=int(NO_COMPUTE_LIMIT)))
    resources = loaded.budget.used
    result = Runner(loaded, device).run()
    assert result.outcomes["command-2"].status == "invalid" and "E_OUTOFMEMORY" in result.outcomes["command-2"].message
    assert loaded.budget.used == resources  # the GEMM's arrays were charged while it ran only
    assert device.backend.working_limit == limit
