"""DML_OPERATOR_GEMM's packed path (dmlsim/operators/gemm: CPU devices, M and N of 16 or more and M*N*K >= 32^3):
gemm_pack copies opA(A) into 8-row panels and opB(B) into 32-column panels (two 16-column sub-panels) of float32
in the temporary resource, then gemm_packed runs 8 x 32 register blocks over them (one pass of float16 vectors
where the compiler targets AVX-512, two passes of float8 elsewhere). On every adapter (GPU launch shapes and the
reference device run their own kernels on the same cases).

Expected values: the doc's formula written out as float64 loops here (never dmlsim's reference); tolerance as
tests/test_gemm.py (K + 2 ulps of the magnitude bound FLOAT32, 1 FLOAT16 ulp). The packed path promises more: the
same float32 sums, term by term in order k = 0..K-1, as gemm_blocked, so on one device its results are bitwise
equal to gemm_blocked's on the same rows (``test_packed_path_is_bitwise_equal_to_the_blocked_kernel``).
"""

from __future__ import annotations

import numpy as np
import pytest

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps
from dmlsim.operators.plan import LaunchTarget
from dmlsim.quick import run_operator

F32, F16 = dml.DML_TENSOR_DATA_TYPE_FLOAT32, dml.DML_TENSOR_DATA_TYPE_FLOAT16
NUMPY = {F32: np.float32, F16: np.float16}
NONE, TRANSPOSE = dml.DML_MATRIX_TRANSFORM_NONE, dml.DML_MATRIX_TRANSFORM_TRANSPOSE


def tensor(data_type, sizes, strides=None):
    return dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER, dml.DML_BUFFER_TENSOR_DESC(
        data_type, dml.DML_TENSOR_FLAG_NONE, len(sizes), list(sizes), None if strides is None else list(strides),
        dml.DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides), 0))


def gemm_desc(a, b, c, out, trans_a=NONE, trans_b=NONE, alpha=1.0, beta=1.0):
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_GEMM, dml.DML_GEMM_OPERATOR_DESC(
        a, b, c, out, trans_a, trans_b, alpha, beta, None))


def formula(a, b, c, alpha, beta):
    """opA(A) {batch, M, K} and opB(B) {batch, K, N} already transformed, float64: (expected, magnitude bound),
    each output element's sum written as a loop over k."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    batch, m_size, k_size = a.shape
    n_size = b.shape[2]
    expected = np.zeros((batch, m_size, n_size))
    bound = np.zeros_like(expected)
    with np.errstate(invalid="ignore"):
        for k in range(k_size):
            terms = a[:, :, k, None] * b[:, None, k, :]
            expected += terms
            bound += np.abs(terms)
        expected, bound = alpha * expected + beta * c, abs(alpha) * bound + np.abs(beta * c)
    return expected, bound


# M = 37: four full 8-row A panels and a 5-row edge panel; N = 35: a full 32-column B panel and a 3-column edge
# panel (its second 16-column pass never runs); K = 45: eleven unrolled trips of 4 and a remainder of 1.
# 37 * 35 * 45 = 58,275 multiply-adds: packed.
M, K, N = 37, 45, 35


@pytest.mark.parametrize(("data_type", "trans_a", "trans_b"), [
    (F32, NONE, NONE), (F32, TRANSPOSE, NONE), (F16, NONE, TRANSPOSE), (F16, TRANSPOSE, TRANSPOSE),
], ids=["FLOAT32-NN", "FLOAT32-TN", "FLOAT16-NT", "FLOAT16-TT"])
def test_packed_path_edge_panels_k_remainder_strides_and_special_values(device, data_type, trans_a, trans_b):
    """Two batches; A stored with padded rows (TransA: its K x M matrices padded), B one matrix broadcast over the
    batches (stride 0) with padded columns (every other element), C one row broadcast over rows and batches.
    Special values where the packing has edges: +inf in A's last row (the 5-row edge panel) at the last k (the K
    remainder), NaN in B's last column (the edge B panel) at k = 3, -inf times a negative, a whole +0 column of B
    against the inf (NaN there), signed zeros."""
    rng = np.random.default_rng(37 + trans_a + 2 * trans_b)
    dtype = NUMPY[data_type]
    op_a = rng.uniform(-2, 2, (2, M, K)).astype(dtype)
    op_b = np.broadcast_to(rng.uniform(-2, 2, (K, N)).astype(dtype), (2, K, N)).copy()
    op_a[1, M - 1, K - 1] = np.inf
    op_b[:, 3, N - 1] = np.nan
    op_b[:, :, 20] = 0.0
    op_a[0, 10, 7], op_b[:, 7, 17] = -np.inf, -0.5
    op_a[0, 0, :] = -0.0
    row = rng.uniform(-2, 2, N).astype(dtype)
    c = np.broadcast_to(row, (2, M, N))
    alpha, beta = 0.75, -1.5

    # A: {2, M, K} (TransA: {2, K, M}) with rows padded by 3 elements
    a_sizes = [2, K, M] if trans_a == TRANSPOSE else [2, M, K]
    a_stored = np.swapaxes(op_a, 1, 2) if trans_a == TRANSPOSE else op_a
    a_strides = [a_sizes[1] * (a_sizes[2] + 3), a_sizes[2] + 3, 1]
    a_buffer = np.zeros((2, a_sizes[1], a_sizes[2] + 3), dtype)
    a_buffer[:, :, :a_sizes[2]] = a_stored
    # B: one {K, N} (TransB: {N, K}) matrix, stride 0 over the batches, every other element
    b_sizes = [2, N, K] if trans_b == TRANSPOSE else [2, K, N]
    b_stored = np.swapaxes(op_b, 1, 2)[0] if trans_b == TRANSPOSE else op_b[0]
    b_strides = [0, 2 * b_sizes[2], 2]
    b_buffer = np.zeros((b_sizes[1], 2 * b_sizes[2]), dtype)
    b_buffer[:, ::2] = b_stored
    desc = gemm_desc(tensor(data_type, a_sizes, a_strides), tensor(data_type, b_sizes, b_strides),
                     tensor(data_type, [2, M, N], [0, 0, 1]), tensor(data_type, [2, M, N]), trans_a, trans_b,
                     alpha, beta)
    got = run_operator(device, desc, {"ATensor": np.broadcast_to(a_stored, a_sizes),
                                      "BTensor": np.broadcast_to(b_stored, b_sizes), "CTensor": c})["OutputTensor"]
    expected, bound = formula(op_a, op_b, c, alpha, beta)
    assert np.isnan(expected[:, :, N - 1]).all() and np.isnan(expected[1, M - 1, 20])
    report = compare_ulps(got, expected, dtype, 1 if data_type == F16 else K + 2, bound)
    assert report.ok, report.describe("OutputTensor")


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
def test_packed_path_is_bitwise_equal_to_the_blocked_kernel(device, data_type):
    """A 40 x 45 x 36 product (packed on CPU devices) and the same rows in 8-row slices (M = 8: gemm_blocked)
    give bitwise equal results on one OpenCL device: both sum each output's K terms in order k = 0..K-1 in
    float32. The reference device computes in float64 with numpy's matmul, whose summation order is its BLAS's
    own, so only OpenCL devices are held to it."""
    if device.adapter.kind == "reference":
        pytest.skip("the reference device's float64 matmul sums in its BLAS's order: bitwise equality is not "
                    "promised there")
    rng = np.random.default_rng(40)
    dtype = NUMPY[data_type]
    m, k, n = 40, 45, 36
    a = rng.uniform(-1, 1, (m, k)).astype(dtype)
    b = rng.uniform(-1, 1, (k, n)).astype(dtype)
    c = rng.uniform(-1, 1, (m, n)).astype(dtype)
    whole = run_operator(device, gemm_desc(tensor(data_type, [m, k]), tensor(data_type, [k, n]),
                                           tensor(data_type, [m, n]), tensor(data_type, [m, n]), alpha=1.25,
                                           beta=0.5), {"ATensor": a, "BTensor": b, "CTensor": c})["OutputTensor"]
    for r in range(0, m, 8):
        part = run_operator(device, gemm_desc(tensor(data_type, [8, k]), tensor(data_type, [k, n]),
                                              tensor(data_type, [8, n]), tensor(data_type, [8, n]), alpha=1.25,
                                              beta=0.5),
                            {"ATensor": a[r:r + 8], "BTensor": b, "CTensor": c[r:r + 8]})["OutputTensor"]
        np.testing.assert_array_equal(whole[r:r + 8].view(np.uint32 if data_type == F32 else np.uint16),
                                      part.view(np.uint32 if data_type == F32 else np.uint16))


@pytest.mark.parametrize(("sizes", "m", "k", "n", "launches", "temporary"), [
    ((), 32, 32, 32, "gemm_pack gemm_pack gemm_packed", 4 * (32 * 32 + 32 * 32)),
    ((3,), 17, 121, 16, "gemm_pack gemm_pack gemm_packed", 4 * 3 * (24 * 121 + 32 * 121)),
    ((), 31, 33, 32, "gemm_blocked", 0),
    ((), 15, 4096, 64, "gemm_blocked", 0),
    ((), 64, 4096, 15, "gemm_blocked", 0),
    ((33,), 1024, 1024, 1024, "gemm_blocked", 0),
], ids=["32-cubed", "batch3-edges", "below-work", "M15", "N15", "over-256MiB"])
def test_planner_and_temporary_size(ref_device, sizes, m, k, n, launches, temporary):
    """The packed path from M, N >= 16 and M*N*K >= 32^3 on CPU targets, up to 256 MiB of panels (33 1024^3
    matrices would need 33 * 8 MiB = 264 MiB: unpacked), with its temporary resource: per matrix,
    8-row A panels and 32-column B panels over all K terms (float32), whatever the device (the size is fixed
    before any device is chosen; GPU targets leave it unused and keep their kernels: gemm_tiled from 16 x 16 x 16,
    else gemm)."""
    desc = gemm_desc(tensor(F32, [*sizes, m, k]), tensor(F32, [*sizes, k, n]), None, tensor(F32, [*sizes, m, n]))
    compiled = ref_device.CompileOperator(ref_device.CreateOperator(desc), 0)
    assert compiled.GetBindingProperties().TemporaryResourceSize == temporary
    for is_cpu, wanted in ((True, launches), (False, "gemm_tiled" if min(m, k, n) >= 16 else "gemm")):
        # no CTensor bound: the planner reads nothing else of the bindings
        plan = compiled.operator.plan_launches(compiled.validated, {}, LaunchTarget(is_cpu=is_cpu, compute_units=2))
        assert " ".join(launch.entry for launch in plan) == wanted
