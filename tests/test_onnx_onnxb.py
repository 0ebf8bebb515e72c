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


def _deform(device, arrays, dtype=TensorProto.FLOAT, **attributes):
    """DeformConv of the named arrays (X, W, offset[, B[, mask]]) as a one-node model: its output and the model."""
    names = list(arrays)
    x, w, offset = arrays["X"], arrays["W"], arrays["offset"]
    out_shape = (x.shape[0], w.shape[0], *offset.shape[2:])
    model = _model(helper.make_node("DeformConv", names, ["Y"], **attributes),
                   [(name, a.shape) for name, a in arrays.items()], [("Y", out_shape)], dtype)
    (y,) = backend.prepare(model, device).run(list(arrays.values()))
    return y, model


def test_deform_conv_samples_bilinearly_with_zeros_outside(device):
    """One channel, a 1 × 1 kernel on a 2 × 2 input, so each output is one sample; offsets put it at (−0.5, 0)
    (half of row 0, half of zero padding), exactly on (1, 1), at (1.5, 0) (half of row 1), at (−1, 0) (outside:
    0), at (0.25, 0.5) (the four corners weighted 3/8, 3/8, 1/8, 1/8) and (0, 1.0) with a mask of −2. Expected: by
    hand."""
    x = np.repeat(np.array([[[[1.0, 2.0], [4.0, 8.0]]]], np.float32), 6, axis=0)  # six batches of one output
    w = np.array([[[[1.0]]]], np.float32)
    # the one output (0, 0) of a stride-2 1 × 1 kernel samples (0, 0) + its offset: the offset is the position
    offsets = np.array([[-0.5, 0], [1, 1], [1.5, 0], [-1, 0], [0.25, 0.5], [0, 1.0]], np.float32).reshape(6, 2, 1, 1)
    mask = np.array([1, 1, 1, 1, 1, -2], np.float32).reshape(6, 1, 1, 1)
    y, _ = _deform(device, {"X": x, "W": w, "offset": offsets, "B": np.zeros(1, np.float32), "mask": mask},
                   kernel_shape=[1, 1], strides=[2, 2])
    expected = [0.5 * 1.0, 8.0, 0.5 * 4.0, 0.0, 0.375 * 1 + 0.375 * 2 + 0.125 * 4 + 0.125 * 8, -2 * 2.0]
    np.testing.assert_allclose(y.reshape(-1), expected, rtol=1e-6)


DEFORM_CASES = {
    # groups 2, offset groups 2, stride 2, dilation 2, asymmetric pads, mask and bias, batch 2
    "groups-mask-bias": dict(c=4, oc=4, size=(5, 6), kernel=(2, 2), attributes=dict(
        group=2, offset_group=2, strides=[2, 1], dilations=[1, 2], pads=[1, 0, 0, 1]), mask=True, bias=True),
    # one group, offset groups 2 over 4 channels, 3 × 2 kernel, no mask or bias
    "offset-groups": dict(c=4, oc=2, size=(4, 4), kernel=(3, 2), attributes=dict(offset_group=2, pads=[1, 1, 1, 1]),
                          mask=False, bias=False),
}


@pytest.mark.parametrize("name", DEFORM_CASES)
def test_deform_conv_matches_onnx_reference(device, name):
    """Offsets up to ±3 pixels (so samples leave the input on every side), integer offsets (corners of weight 0
    and 1) in the first taps. Expected: onnx.reference's DeformConv."""
    from onnx.reference import ReferenceEvaluator

    case = DEFORM_CASES[name]
    rng = np.random.default_rng(11)
    attributes = dict(case["attributes"], kernel_shape=list(case["kernel"]))
    groups = attributes.get("offset_group", 1)
    taps = case["kernel"][0] * case["kernel"][1]
    (height, width), (kh, kw) = case["size"], case["kernel"]
    pads, st, dil = attributes.get("pads", [0] * 4), attributes.get("strides", [1, 1]), attributes.get("dilations",
                                                                                                      [1, 1])
    out = [(s + pads[j] + pads[j + 2] - dil[j] * (k - 1) - 1) // st[j] + 1
           for j, (s, k) in enumerate(((height, kh), (width, kw)))]
    arrays = {"X": rng.standard_normal((2, case["c"], height, width)).astype(np.float32),
              "W": rng.standard_normal((case["oc"], case["c"] // attributes.get("group", 1), kh, kw)).astype(
                  np.float32),
              "offset": rng.uniform(-3, 3, (2, groups * taps * 2, *out)).astype(np.float32)}
    arrays["offset"][:, :2] = np.round(arrays["offset"][:, :2])
    arrays["B"] = rng.standard_normal(case["oc"]).astype(np.float32) if case["bias"] else \
        np.zeros(case["oc"], np.float32)
    if case["mask"]:
        arrays["mask"] = rng.uniform(-1, 1, (2, groups * taps, *out)).astype(np.float32)
    if not case["bias"] and not case["mask"]:
        del arrays["B"]
    y, model = _deform(device, arrays, **attributes)
    (expected,) = ReferenceEvaluator(model).run(None, arrays)
    assert y.shape == expected.shape
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)


def test_deform_conv_float16_rounds_the_samples_and_weights(device):
    """FLOAT16 tensors: expected onnx.reference's DeformConv in float64 on the same half values; the composition
    rounds each step to FLOAT16, so a tolerance of 8 FLOAT16 ulps of the largest term (values near 4)."""
    from onnx.reference import ReferenceEvaluator

    rng = np.random.default_rng(5)
    arrays = {"X": rng.standard_normal((1, 2, 4, 4)).astype(np.float16),
              "W": rng.standard_normal((2, 2, 2, 2)).astype(np.float16),
              "offset": rng.uniform(-2, 2, (1, 8, 3, 3)).astype(np.float16)}
    y, model = _deform(device, arrays, TensorProto.FLOAT16, kernel_shape=[2, 2])
    assert y.dtype == np.float16
    wide = _model(model.graph.node[0], [(k, a.shape) for k, a in arrays.items()], [("Y", y.shape)],
                  TensorProto.DOUBLE)
    (expected,) = ReferenceEvaluator(wide).run(None, {k: a.astype(np.float64) for k, a in arrays.items()})
    np.testing.assert_allclose(y.astype(np.float64), expected, rtol=0, atol=8 * 4 * 2.0 ** -10)


def test_deform_conv_refusals_name_the_node_and_the_reason(ref_device):
    x = np.zeros((1, 1, 3, 3, 3), np.float32)
    with pytest.raises(DMLError, match=r"DeformConv node .*rank 5: composed for 2-D"):
        _deform(ref_device, {"X": x, "W": np.zeros((1, 1, 1, 1, 1), np.float32),
                             "offset": np.zeros((1, 3, 3, 3, 3), np.float32)})
    with pytest.raises(DMLError, match=r"DeformConv node .*offset \[1, 4, 3, 3\] is not \[1, 2, 3, 3\]"):
        _deform(ref_device, {"X": np.zeros((1, 1, 3, 3), np.float32), "W": np.zeros((1, 1, 1, 1), np.float32),
                             "offset": np.zeros((1, 4, 3, 3), np.float32)})
    with pytest.raises(DMLError, match=r"DeformConv node .*4097 × 4096 elements: .*exact up to 16777216"):
        _deform(ref_device, {"X": np.zeros((1, 1, 4097, 4096), np.float32), "W": np.zeros((1, 1, 1, 1), np.float32),
                             "offset": np.zeros((1, 2, 4097, 4096), np.float32)})
    with pytest.raises(DMLError, match=r"DeformConv node .*float64 input"):
        _deform(ref_device, {"X": np.zeros((1, 1, 3, 3)), "W": np.zeros((1, 1, 1, 1)),
                             "offset": np.zeros((1, 2, 3, 3))}, TensorProto.DOUBLE)
