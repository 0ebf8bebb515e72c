"""Det and DeformConv composed of DirectML operators (dmlsim/onnx/ops_onnxb.py), on every device.

Det's expected values are numpy.linalg.det in float64 (LAPACK's LU): the composition is Gaussian elimination with
partial pivoting in float32, so it agrees to a few float32 ulps of the pivots' product (rtol 1e-5 for orders up to
5; the matrices here are well conditioned). DeformConv's are onnx.reference's DeformConv (its numpy transcription
through GridSample), or numpy written here; the composition sums the bilinear corners and the GEMM's products in
float32 (rtol/atol 1e-5 on values of order 10).
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from dmlsim import backend
from dmlsim.api.errors import DMLError


def _model(node, inputs, outputs, dtype=TensorProto.FLOAT):
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, dtype, list(s)) for n, s in inputs],
                              [helper.make_tensor_value_info(n, dtype, list(s)) for n, s in outputs])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])


def _det(device, x, dtype=TensorProto.FLOAT):
    model = _model(helper.make_node("Det", ["x"], ["y"]), [("x", x.shape)], [("y", x.shape[:-2])], dtype)
    (y,) = backend.prepare(model, device).run([x])
    return y


DET_CASES = {
    # a zero leading entry and a larger one below it: elimination without pivoting divides by 0
    "needs-pivoting": np.array([[0, 2, 1], [3, 0, 1], [1, 5, 0]], np.float32),
    # p = 2 then p = 1: the cofactor signs (−1)^p of rows that are not the first
    "pivot-last-row": np.array([[1, 2, 0, 1], [2, 1, 1, 0], [4, 0, 1, 3], [0, 1, 3, 2]], np.float32),
    # rank 2: a zero pivot at the last step (numpy: 0)
    "singular": np.array([[1, 2, 3], [2, 4, 6], [1, 0, 1]], np.float32),
    # all zeros: every column's pivot is 0 (0/0 must not make NaN)
    "zero": np.zeros((3, 3), np.float32),
    # equal magnitudes ±1 in the first column: the first is the pivot, as LAPACK's
    "tie": np.array([[1, 2], [-1, 3]], np.float32),
    # ±0 off a permutation: det of [[−0, 1], [1, −0]] is −1
    "signed-zeros": np.array([[-0.0, 1], [1, -0.0]], np.float32),
    "one-by-one": np.array([[-2.5]], np.float32),
    "batch": np.random.default_rng(7).standard_normal((2, 3, 5, 5)).astype(np.float32),
}


@pytest.mark.parametrize("name", DET_CASES)
def test_det_is_gaussian_elimination_with_partial_pivoting(device, name):
    x = DET_CASES[name]
    got = _det(device, x)
    expected = np.linalg.det(x.astype(np.float64))
    assert got.shape == x.shape[:-2] and got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_det_propagates_infinity_and_nan_and_rounds_float16_steps(device):
    """[[inf, 1], [1, 1]]: pivot inf, multiplier 1/inf = 0, det inf (numpy too); a NaN gives NaN. FLOAT16: each
    step rounds to FLOAT16, so 3 FLOAT16 ulps of the result (order 4 matrices near 1)."""
    special = np.array([[[np.inf, 1], [1, 1]], [[1, np.nan], [1, 1]], [[2, 1], [1, 1]]], np.float32)
    got = _det(device, special)
    assert got[0] == np.inf and np.isnan(got[1]) and got[2] == 1.0
    x = (np.eye(4) + 0.25 * np.random.default_rng(3).standard_normal((2, 4, 4))).astype(np.float16)
    half = _det(device, x, TensorProto.FLOAT16)
    assert half.dtype == np.float16
    expected = np.linalg.det(x.astype(np.float64))
    np.testing.assert_allclose(half.astype(np.float64), expected, rtol=3 * 2.0 ** -10)


def test_det_refuses_orders_past_the_unrolled_limit_and_float64(ref_device):
    with pytest.raises(DMLError, match=r"Det node .*a matrix of order 17: .*orders 1 to 16"):
        _det(ref_device, np.eye(17, dtype=np.float32))
    with pytest.raises(DMLError, match=r"Det node .*float64 input"):
        _det(ref_device, np.eye(2), TensorProto.DOUBLE)
