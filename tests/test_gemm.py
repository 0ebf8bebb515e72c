"""DML_OPERATOR_GEMM (dmlsim/operators/gemm), on every adapter.

Expected values are literals worked out by hand, or the doc's formula
``Output = Alpha * TransA(A) x TransB(B) + Beta * C`` written out here as explicit float64 loops over
every batch, row, column and k (never dmlsim's reference). Tolerance: the device accumulates in float32,
one rounding per product and per sum, so a FLOAT32 result is within K + 2 ulps of the magnitude bound
``|Alpha| * sum_k |a * b| + |Beta * c|``; FLOAT16 is rounded once more, to half: 1 ulp (FLOAT16) of that bound.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from dispatch import Dispatch

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps
from dmlsim.operators.plan import LaunchTarget
from dmlsim.quick import run_operator

F32, F16 = dml.DML_TENSOR_DATA_TYPE_FLOAT32, dml.DML_TENSOR_DATA_TYPE_FLOAT16
NUMPY = {F32: np.float32, F16: np.float16}
NONE, TRANSPOSE = dml.DML_MATRIX_TRANSFORM_NONE, dml.DML_MATRIX_TRANSFORM_TRANSPOSE


def tensor(data_type, sizes, strides=None, flags=dml.DML_TENSOR_FLAG_NONE):
    return dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER, dml.DML_BUFFER_TENSOR_DESC(
        data_type, flags, len(sizes), list(sizes), None if strides is None else list(strides),
        dml.DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides), 0))


def gemm_desc(a, b, c, out, trans_a=NONE, trans_b=NONE, alpha=1.0, beta=1.0, fused=None):
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_GEMM, dml.DML_GEMM_OPERATOR_DESC(
        a, b, c, out, trans_a, trans_b, alpha, beta, fused))


def gemm_loops(a, b, c, trans_a, trans_b, alpha, beta):
    """The doc's formula element by element: (expected, magnitude bound), both float64."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    m_size = a.shape[-1] if trans_a else a.shape[-2]
    k_size = a.shape[-2] if trans_a else a.shape[-1]
    n_size = b.shape[-2] if trans_b else b.shape[-1]
    batch = a.shape[:-2]
    expected = np.zeros((*batch, m_size, n_size))
    bound = np.zeros_like(expected)
    for index in itertools.product(*(range(s) for s in batch)):
        for m in range(m_size):
            for n in range(n_size):
                total = magnitude = 0.0
                for k in range(k_size):
                    a_mk = a[index][k, m] if trans_a else a[index][m, k]
                    b_kn = b[index][n, k] if trans_b else b[index][k, n]
                    total += a_mk * b_kn
                    magnitude += abs(a_mk * b_kn)
                value, magnitude = float(alpha) * total, abs(float(alpha)) * magnitude
                if c is not None:
                    value += float(beta) * float(c[index][m, n])
                    magnitude += abs(float(beta) * float(c[index][m, n]))
                expected[index][m, n], bound[index][m, n] = value, magnitude
    return expected, bound


def check(got, expected, bound, data_type, k):
    report = compare_ulps(got, expected, NUMPY[data_type], 1 if data_type == F16 else k + 2, bound)
    assert report.ok, report.describe("OutputTensor")


def test_dxdispatch_sample_outer_product_plus_c(device):
    """DxDispatch's dml_gemm.json: {3,1} x {1,3} + 2 (worked by hand: a_i * b_j + 2)."""
    desc = gemm_desc(tensor(F32, [3, 1]), tensor(F32, [1, 3]), tensor(F32, [3, 3]), tensor(F32, [3, 3]))
    got = run_operator(device, desc, {"ATensor": np.array([1, 2, 3], np.float32),
                                      "BTensor": np.array([4, 5, 6], np.float32),
                                      "CTensor": np.full(9, 2, np.float32)})["OutputTensor"]
    np.testing.assert_array_equal(got, [[6, 7, 8], [10, 12, 14], [14, 17, 20]])


def test_transposes_alpha_beta_by_hand(device):
    """A stored {K, M} = [[1, 2], [3, 4]] with TransA, B stored {N, K} = [[1, 1], [0, 0], [2, 2]] with TransB:
    TransA(A) x TransB(B) = [[1, 3], [2, 4]] x [[1, 0, 2], [1, 0, 2]] = [[4, 0, 8], [6, 0, 12]];
    times Alpha 0.5, plus Beta -1 times C = [[1, 1, 1], [0, 0, 0]]: [[1, -1, 3], [3, 0, 6]]."""
    a = np.array([[1, 2], [3, 4]], np.float32)      # {K=2, M=2}: read transposed
    b = np.array([[1, 1], [0, 0], [2, 2]], np.float32)  # {N=3, K=2}: read transposed
    c = np.array([[1, 1, 1], [0, 0, 0]], np.float32)
    desc = gemm_desc(tensor(F32, [2, 2]), tensor(F32, [3, 2]), tensor(F32, [2, 3]), tensor(F32, [2, 3]),
                     TRANSPOSE, TRANSPOSE, 0.5, -1.0)
    got = run_operator(device, desc, {"ATensor": a, "BTensor": b, "CTensor": c})["OutputTensor"]
    np.testing.assert_array_equal(got, [[1, -1, 3], [3, 0, 6]])


CASES = [  # (batch sizes, M, K, N); GPU launch targets: M, N and K all 16 or more take the tiled kernel (16 x 16
    # tiles). CPU targets (gemm_blocked, 8 x 16 blocks, K unrolled 4 times; M <= 4 blocks of 1, 2 or 4 rows):
    # 10x6x32 two full vector blocks of N, a 2-row edge block and a K remainder of 2; 1x13x48 the one-row (GEMV)
    # path over three vector blocks, K remainder 1; 3x4x24 a 4-row block, a full block then an 8-column tail, no
    # K remainder; 37x50x21 and 17x33x9 edge blocks in M and N; 16x16x16 exactly one block; 1x37x1100 the wide
    # one-row block (128 columns, on devices of up to 4 compute units): 8 full blocks, a 76-column tail, K remainder 1
    ((), 1, 1, 1), ((), 5, 7, 3), ((3,), 4, 9, 2), ((2, 3), 3, 5, 6), ((1, 1), 17, 33, 9),
    ((1, 1), 16, 16, 16), ((2,), 37, 50, 21), ((), 10, 6, 32), ((2,), 1, 13, 48), ((), 3, 4, 24), ((), 1, 37, 1100),
]


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize(("trans_a", "trans_b"), [(NONE, NONE), (TRANSPOSE, NONE), (NONE, TRANSPOSE),
                                                  (TRANSPOSE, TRANSPOSE)], ids=["NN", "TN", "NT", "TT"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "x".join(map(str, (*c[0], *c[1:]))))
@pytest.mark.parametrize("with_c", [True, False], ids=["C", "noC"])
def test_gemm_matches_the_formula(device, data_type, trans_a, trans_b, case, with_c):
    batch, m, k, n = case
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    dtype = NUMPY[data_type]
    a_sizes = (*batch, k, m) if trans_a else (*batch, m, k)
    b_sizes = (*batch, n, k) if trans_b else (*batch, k, n)
    out_sizes = (*batch, m, n)
    a = rng.uniform(-2, 2, a_sizes).astype(dtype)
    b = rng.uniform(-2, 2, b_sizes).astype(dtype)
    c = rng.uniform(-2, 2, out_sizes).astype(dtype) if with_c else None
    alpha, beta = np.float32(0.75), np.float32(-1.5)
    desc = gemm_desc(tensor(data_type, a_sizes), tensor(data_type, b_sizes),
                     tensor(data_type, out_sizes) if with_c else None, tensor(data_type, out_sizes),
                     trans_a, trans_b, alpha, beta)
    inputs = {"ATensor": a, "BTensor": b, **({"CTensor": c} if with_c else {})}
    got = run_operator(device, desc, inputs)["OutputTensor"]
    expected, bound = gemm_loops(a, b, c, trans_a == TRANSPOSE, trans_b == TRANSPOSE, alpha, beta)
    check(got, expected, bound, data_type, k)


@pytest.mark.parametrize(("m", "k", "n"), [(4, 5, 3), (20, 18, 17)], ids=["per-element", "tiled"])
def test_c_broadcast_and_strided_a_and_padded_output(device, m, k, n):
    """C {2, M, N} is one row broadcast over rows and batches (strides [0, 0, 1]); A {2, M, K} is stored
    column-major per batch (strides [M*K, 1, M]); the output has padded rows (strides [M*(N+5), N+5, 1])."""
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (2, m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (2, k, n)).astype(np.float32)
    row = rng.uniform(-2, 2, n).astype(np.float32)
    desc = gemm_desc(tensor(F32, [2, m, k], [m * k, 1, m]), tensor(F32, [2, k, n]),
                     tensor(F32, [2, m, n], [0, 0, 1]), tensor(F32, [2, m, n], [m * (n + 5), n + 5, 1]),
                     alpha=2.0, beta=3.0)
    got = run_operator(device, desc, {"ATensor": a, "BTensor": b, "CTensor": np.broadcast_to(row, (2, m, n))})
    expected, bound = gemm_loops(a, b, np.broadcast_to(row, (2, m, n)), False, False, 2.0, 3.0)
    check(got["OutputTensor"], expected, bound, F32, k)


@pytest.mark.parametrize(("m", "k", "n", "trans_b"), [(37, 50, 21, NONE), (20, 18, 17, TRANSPOSE), (3, 5, 6, NONE)],
                         ids=["37x50x21-NN", "20x18x17-NT", "3x5x6-NN"])
def test_every_launch_shape(shaped_device, m, k, n, trans_b):
    """Each kernel on every OpenCL device: the CPU shape's gemm_blocked, the GPU shape's gemm_tiled (M, N, K all
    16 or more: K = 50 ends in a partial 16-wide slice) and per-element gemm (3x5x6); A stored column-major."""
    rng = np.random.default_rng(m + k + n)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b_sizes = (n, k) if trans_b == TRANSPOSE else (k, n)
    b = rng.uniform(-1, 1, b_sizes).astype(np.float32)
    c = rng.uniform(-1, 1, (m, n)).astype(np.float32)
    desc = gemm_desc(tensor(F32, [m, k], [1, m]), tensor(F32, list(b_sizes)), tensor(F32, [m, n]),
                     tensor(F32, [m, n]), NONE, trans_b, 1.5, 0.5)
    got = run_operator(shaped_device, desc, {"ATensor": a, "BTensor": b, "CTensor": c})["OutputTensor"]
    expected, bound = gemm_loops(a, b, c, False, trans_b == TRANSPOSE, 1.5, 0.5)
    check(got, expected, bound, F32, k)


@pytest.mark.parametrize("column_stride", [1, 2], ids=["B-packed", "B-padded-columns"])
def test_special_values_in_edge_blocks_and_k_remainder(device, column_stride):
    """M = 9, K = 7, N = 17 on CPU targets is a full 8-row block and a 1-row edge block, a full 16-column vector
    block and a 1-column tail, K = 4 + a remainder of 3; B's columns padded (stride 2) take the gathered path
    everywhere. +inf in A's last row (the edge block) times B's +0 column gives NaN there; NaN in B's last column
    (the tail) at k = 6 (the remainder); -inf times a negative in the middle; signed zeros: -0 * 1 + -0 summed
    stays -0 only without C, here C's +0 makes it +0 (IEEE: -0 + +0 = +0)."""
    m, k, n = 9, 7, 17
    rng = np.random.default_rng(9)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    a[8, 2] = np.inf
    b[:, 3] = 0.0
    b[6, 16] = np.nan
    a[4, 5], b[5, 9] = -np.inf, -0.5
    a[0, :], b[:, 0] = -0.0, 1.0
    c = np.zeros((m, n), np.float32)
    b_desc = tensor(F32, [k, n], [n * column_stride, column_stride])
    desc = gemm_desc(tensor(F32, [m, k]), b_desc, tensor(F32, [m, n]), tensor(F32, [m, n]), alpha=1.0, beta=1.0)
    got = run_operator(device, desc, {"ATensor": a, "BTensor": b, "CTensor": c})["OutputTensor"]
    with np.errstate(invalid="ignore"):
        expected, bound = gemm_loops(a, b, c, False, False, 1.0, 1.0)
        assert np.isnan(expected[8, 3]) and np.isnan(expected[3, 16]) and expected[4, 9] == np.inf
    assert np.isnan(got[8, 3]) and np.isnan(got[:, 16]).all() and got[4, 9] == np.inf
    assert got[0, 0] == 0 and not np.signbit(got[0, 0])
    check(got, expected, bound, F32, k)


def test_a_broadcast_over_batches_through_stride_zero(device):
    """One A matrix shared by three batches (strides [0, 2, 1]), B different per batch."""
    a = np.array([[1, 2], [3, 4]], np.float32)
    b = np.arange(12, dtype=np.float32).reshape(3, 2, 2)
    desc = gemm_desc(tensor(F32, [3, 2, 2], [0, 2, 1]), tensor(F32, [3, 2, 2]), None, tensor(F32, [3, 2, 2]))
    got = run_operator(device, desc, {"ATensor": np.broadcast_to(a, (3, 2, 2)), "BTensor": b})["OutputTensor"]
    # by hand: [[1, 2], [3, 4]] x [[0, 1], [2, 3]] = [[4, 7], [8, 15]]; x [[4, 5], [6, 7]] = [[16, 19], [36, 43]];
    # x [[8, 9], [10, 11]] = [[28, 31], [64, 71]]
    np.testing.assert_array_equal(got, [[[4, 7], [8, 15]], [[16, 19], [36, 43]], [[28, 31], [64, 71]]])


def test_beta_is_ignored_without_c(device):
    """The doc: "If CTensor is not provided, then this value is ignored" (even NaN)."""
    desc = gemm_desc(tensor(F32, [1, 2]), tensor(F32, [2, 1]), None, tensor(F32, [1, 1]), beta=float("nan"))
    got = run_operator(device, desc, {"ATensor": np.array([2, 3], np.float32),
                                      "BTensor": np.array([5, 7], np.float32)})["OutputTensor"]
    np.testing.assert_array_equal(got, [[31]])


def test_float16_result_rounds_to_nearest_even(device):
    """1 * 1 + 2048 = 2049 lies halfway between the FLOAT16 neighbours 2048 and 2050: stored 2048 (even);
    3 * 1 + 2048 = 2051, halfway between 2050 and 2052: stored 2052 (even)."""
    desc = gemm_desc(tensor(F16, [2, 1]), tensor(F16, [1, 1]), tensor(F16, [2, 1]), tensor(F16, [2, 1]),
                     alpha=1.0, beta=1.0)
    got = run_operator(device, desc, {"ATensor": np.array([1, 3], np.float16), "BTensor": np.array([1], np.float16),
                                      "CTensor": np.array([2048, 2048], np.float16)})["OutputTensor"]
    np.testing.assert_array_equal(got, np.array([[2048], [2052]], np.float16))


@pytest.mark.parametrize(("m", "k", "n", "trans_b", "cpu", "gpu"), [
    (1, 64, 1000, NONE, "gemm_blocked MR=1 NV=16 B_UNIT_N", "gemm"),
    (1, 64, 500, NONE, "gemm_blocked MR=1 NV=2 B_UNIT_N", "gemm"),
    (2, 64, 8, NONE, "gemm_blocked MR=2 NV=1 B_UNIT_N", "gemm"),
    (3, 64, 9, TRANSPOSE, "gemm_blocked MR=4 NV=2", "gemm"),
    (64, 64, 64, NONE, "gemm_pack gemm_pack gemm_packed MR=8", "gemm_tiled"),
    (16, 15, 64, TRANSPOSE, "gemm_blocked MR=8 NV=2", "gemm"),
], ids=["gemv", "gemv-narrow", "M2-N8", "M3-NT", "square", "K15-NT"])
def test_planner(ref_device, m, k, n, trans_b, cpu, gpu):
    """The planner's choices (the operator's docstring): on CPU targets the register block by M and N (M = 1 the
    GEMV-like one-row block, 128 columns wide where N gives each of the 2 compute units two blocks (N >= 512), M <= 2
    and <= 4 smaller blocks, N <= 8 one vector per row) and vector loads of B only
    when its stride along N is 1; on GPU targets the tiled kernel from 16 x 16 x 16."""
    b_sizes = [n, k] if trans_b == TRANSPOSE else [k, n]
    desc = gemm_desc(tensor(F32, [m, k]), tensor(F32, b_sizes), None, tensor(F32, [m, n]), NONE, trans_b)
    dispatch = Dispatch(ref_device, desc)
    resolved = dispatch.table.resolved(ref_device.backend)
    compiled = resolved.compiled

    def described(is_cpu):
        target = LaunchTarget(is_cpu=is_cpu, compute_units=2)
        *packing, launch = compiled.operator.plan_launches(compiled.validated, resolved.bound, target)
        flags = [f"{name}={launch.defines[name]}" for name in ("MR", "NV") if name in launch.defines]
        return " ".join([*(pack.entry for pack in packing), launch.entry, *flags,
                         *(["B_UNIT_N"] if launch.defines.get("B_UNIT_N") else [])])

    assert described(True) == cpu
    assert described(False) == gpu


def test_onnx_node_cases(device):
    """onnx's Gemm node cases mapped as onnxruntime's DirectML provider maps them: A and B 2-D as they are with
    TransA/TransB, Alpha/Beta from the attributes (default 1), C (scalar, {1}, {1, N}, {M, N}) broadcast to the output's
    sizes through stride 0; expected values: onnx's, within the K + 2 ulps of this file's tolerance (bound from the
    loops). Every Gemm case onnx generates maps (none is listed as unmappable)."""
    from onnx_node_cases import node_attributes, node_cases

    cases = node_cases("Gemm")
    assert len(cases) >= 11, [c.name for c in cases]
    for case in cases:
        attributes = node_attributes(case)
        inputs, (expected,) = case.data_sets[0]
        a, b, c = (*inputs, None)[:3]
        trans_a, trans_b = bool(attributes.get("transA", 0)), bool(attributes.get("transB", 0))
        alpha, beta = float(attributes.get("alpha", 1.0)), float(attributes.get("beta", 1.0))
        m, n = expected.shape
        c_desc = c_full = None
        if c is not None:
            c2 = c.reshape((1,) * (2 - c.ndim) + c.shape)
            c_desc = tensor(F32, [m, n], [n if c2.shape[0] == m else 0, 1 if c2.shape[1] == n else 0])
            c_full = np.broadcast_to(c2, (m, n))
        desc = gemm_desc(tensor(F32, a.shape), tensor(F32, b.shape), c_desc, tensor(F32, [m, n]),
                         TRANSPOSE if trans_a else NONE, TRANSPOSE if trans_b else NONE, alpha, beta)
        got = run_operator(device, desc, {"ATensor": a, "BTensor": b,
                                          **({"CTensor": c_full} if c is not None else {})})["OutputTensor"]
        _, bound = gemm_loops(a, b, c_full, trans_a, trans_b, alpha, beta)
        report = compare_ulps(got, expected, np.float32, a.shape[0 if trans_a else 1] + 2, bound)
        assert report.ok, f"{case.name}: {report.describe('OutputTensor')}"


# --- validation: every rule of the doc page, each refusal naming the field --------------------------
def refused(ref_device, desc, hresult=dml.E_INVALIDARG):
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateOperator(desc)
    assert info.value.hresult == hresult, str(info.value)
    return str(info.value)


def test_validation_data_types_and_dimension_counts(ref_device):
    i32 = dml.DML_TENSOR_DATA_TYPE_INT32
    message = refused(ref_device, gemm_desc(tensor(i32, [2, 2]), tensor(i32, [2, 2]), None, tensor(i32, [2, 2])))
    assert "DML_GEMM_OPERATOR_DESC.ATensor.DataType INT32 is not supported by DML_OPERATOR_GEMM" in message
    assert "OutputTensor.DataType INT32" in message
    message = refused(ref_device, gemm_desc(tensor(F32, [1, 1, 1, 2, 2]), tensor(F32, [1, 1, 1, 2, 2]), None,
                                            tensor(F32, [1, 1, 1, 2, 2])))
    assert "ATensor.DimensionCount 5 is not supported by DML_OPERATOR_GEMM (supported: 2 to 4)" in message
    message = refused(ref_device, gemm_desc(tensor(F32, [2]), tensor(F32, [2, 1]), None, tensor(F32, [1, 1])))
    assert "ATensor.DimensionCount 1 is not supported" in message
    message = refused(ref_device, gemm_desc(tensor(F32, [2, 2]), tensor(F16, [2, 2]), None, tensor(F32, [2, 2])))
    assert "BTensor.DataType FLOAT16 must equal OutputTensor.DataType FLOAT32" in message
    message = refused(ref_device, gemm_desc(tensor(F32, [2, 2]), tensor(F32, [1, 2, 2]), None, tensor(F32, [2, 2])))
    assert "BTensor.DimensionCount 3 must equal OutputTensor.DimensionCount 2" in message


def test_validation_shapes(ref_device):
    message = refused(ref_device, gemm_desc(tensor(F32, [3, 2]), tensor(F32, [2, 4]), tensor(F32, [3, 1]),
                                            tensor(F32, [3, 4])))
    assert "CTensor.Sizes [3, 1] must equal OutputTensor.Sizes [3, 4]" in message
    message = refused(ref_device, gemm_desc(tensor(F32, [3, 2]), tensor(F32, [2, 4]), None, tensor(F32, [2, 4])))
    assert "ATensor.Sizes [3, 2] is {..., M, K} (TransA NONE) with M = 3, but OutputTensor.Sizes [2, 4]" in message
    message = refused(ref_device, gemm_desc(tensor(F32, [3, 2]), tensor(F32, [2, 4]), None, tensor(F32, [3, 4]),
                                            trans_a=TRANSPOSE))
    assert "ATensor.Sizes [3, 2] is {..., K, M} (TransA TRANSPOSE) with M = 2" in message
    assert "with K = 2, but ATensor.Sizes [3, 2] is {..., K, M} (TransA TRANSPOSE) with K = 3" in message
    message = refused(ref_device, gemm_desc(tensor(F32, [3, 2]), tensor(F32, [2, 4]), None, tensor(F32, [3, 5])))
    assert "BTensor.Sizes [2, 4] is {..., K, N} (TransB NONE) with N = 4, but OutputTensor.Sizes [3, 5]" in message
    message = refused(ref_device, gemm_desc(tensor(F32, [2, 3, 2]), tensor(F32, [1, 2, 4]), None,
                                            tensor(F32, [2, 3, 4])))
    assert "BTensor.Sizes [1, 2, 4]: the leading (BatchCount, ChannelCount) sizes [1] must equal OutputTensor's [2]" \
        in message
    message = refused(ref_device, gemm_desc(tensor(F32, [3, 2]), tensor(F32, [2, 4]), None, tensor(F32, [3, 4]),
                                            trans_b=5))
    assert "TransB 5 is not a DML_MATRIX_TRANSFORM" in message


@pytest.mark.formula
def test_fused_activation_applies_to_the_output(device):
    """FusedActivation(Alpha·A×B + Beta·C): [[1, 2], [3, 4]] × [[1, -1], [-1, 1]] = [[-1, 1], [-1, 1]], plus
    C = [[0.5, 0.5], [2, -2]] gives [[-0.5, 1.5], [1, -1]]; LEAKY_RELU with Alpha 0.25 quarters the negatives."""
    leaky = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_LEAKY_RELU,
                                  dml.DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC(None, None, 0.25))
    t = tensor(F32, [2, 2])
    got = run_operator(device, gemm_desc(t, t, t, t, fused=leaky), {
        "ATensor": np.array([[1, 2], [3, 4]], np.float32), "BTensor": np.array([[1, -1], [-1, 1]], np.float32),
        "CTensor": np.array([[0.5, 0.5], [2, -2]], np.float32)})["OutputTensor"]
    np.testing.assert_array_equal(got, [[-0.125, 1.5], [1, -0.25]])
    # an invalid desc with a fused activation is E_INVALIDARG, naming the problem
    relu = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_RELU, dml.DML_ACTIVATION_RELU_OPERATOR_DESC(None, None))
    message = refused(device, gemm_desc(tensor(F32, [2, 3]), tensor(F32, [2, 2]), None, tensor(F32, [2, 2]),
                                        fused=relu))
    assert "with K = 2, but ATensor.Sizes [2, 3]" in message


def test_registered():
    from dmlsim.operators import implemented_names

    assert "DML_OPERATOR_GEMM" in implemented_names()
