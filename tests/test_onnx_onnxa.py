"""Compositions of dmlsim/onnx/ops_onnxa.py (and the small fixes beside them) on every device.

Each test builds a one-node ONNX model and compares ``dmlsim.backend`` with an independent oracle: onnx's own
``onnx.reference`` evaluator (float32, ONNX's loops written per element) or numpy written here. Tolerance: the
compositions round every step in float32, onnx's evaluator too in another order: rtol 1e-5 and atol 1e-5 times the
largest |input| (the interpolations are convex-ish combinations whose weights sum to 1; cubic weights reach
|w| < 1.2). Integer outputs (indices) compare exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from dmlsim import backend


def _model(op: str, inputs: dict[str, np.ndarray], outputs: dict[str, tuple[int, int]], opset: int = 22,
           **attributes: object):
    """A one-node model whose graph inputs are ``inputs`` (name → example array; the name "" is an absent
    optional input) and outputs ``outputs`` (name → (element type, rank))."""
    node = helper.make_node(op, list(inputs), list(outputs), **attributes)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape))
         for k, v in inputs.items() if k],
        [helper.make_tensor_value_info(o, t, [f"{o}{i}" for i in range(rank)])
         for o, (t, rank) in outputs.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _both(model, inputs: dict[str, np.ndarray], device) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(dmlsim's outputs on ``device``, onnx.reference's outputs)."""
    got = backend.prepare(model, device).run(list(inputs.values()))
    expected = ReferenceEvaluator(model).run(None, inputs)
    return [np.asarray(g) for g in got], [np.asarray(e) for e in expected]


# --- GridSample, cubic ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [0, 1])
def test_grid_sample_cubic_against_onnx_reference(device, padding, align):
    """Cubic GridSample: 16 taps weighted by Keys' A = −0.75; grid points on pixel centres (t = 0: one tap
    weighted 1), between them, at the border and far outside (reflection folds several times, a tap two pixels
    before the first reads the second pixel, not the first as a clamp would)."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 2, 4, 5)).astype(np.float32)
    grid = rng.uniform(-1.6, 1.6, (1, 3, 4, 2)).astype(np.float32)
    grid[0, 0, :, 0] = [-1.0, 1.0, 0.0, -3.7]   # x: the edges, the centre, far left (several reflections)
    grid[0, 0, :, 1] = [-1.0, 1.0, 0.5, 2.9]
    grid[0, 1, 0] = [-0.6, -1.0 / 3.0]           # exactly on a pixel centre of each axis (align_corners=1)
    inputs = {"X": x, "grid": grid}
    model = _model("GridSample", inputs, {"Y": (TensorProto.FLOAT, 4)}, mode="cubic", padding_mode=padding,
                   align_corners=align)
    (got,), (expected,) = _both(model, inputs, device)
    assert got.shape == (1, 2, 3, 4)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * np.abs(x).max())


# --- Resize, tf_crop_and_resize with an extrapolation_value ---------------------------------------------------
@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_resize_crop_extrapolation_value_against_onnx_reference(device, mode):
    """Outputs whose source coordinate leaves [0, in − 1] on any axis are the extrapolation value; the crop's
    edges at exactly 0 and in − 1 are not extrapolated (the roi starts at 0 on H and ends at 1 on W). With
    nearest, a huge input read inside the crop is kept and a NaN read only by extrapolated outputs stays out
    (onnx's evaluator multiplies nearest taps by 0/1 weights, so an inf would read NaN there)."""
    x = np.arange(1, 31, dtype=np.float32).reshape(1, 1, 5, 6)
    if mode == "nearest":
        x[0, 0, 0, 5], x[0, 0, 4, 0] = 3e38, np.nan
    roi = np.array([0.0, -0.4, 1.3, 1.0], np.float32)  # axes 2, 3: H from 0 to 1.3, W from −0.4 to 1
    sizes = np.array([4, 5], np.int64)
    inputs = {"X": x, "roi": roi, "sizes": sizes}
    model = _model("Resize", {"X": x, "roi": roi, "": np.zeros(0, np.float32), "sizes": sizes},
                   {"Y": (TensorProto.FLOAT, 4)}, axes=[2, 3], mode=mode,
                   coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-7.5)
    got = np.asarray(backend.prepare(model, device).run(list(inputs.values()))[0])
    (expected,) = ReferenceEvaluator(model).run(None, inputs)
    assert got.shape == (1, 1, 4, 5)
    assert (got[0, 0, 3] == -7.5).all() and (got[0, 0, :, :2] == -7.5).all()  # H past 1, W before 0
    assert (got[0, 0, :3, 2:] != -7.5).all()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-4)
    assert not np.isnan(got).any()


# --- MaxPool, storage_order=1 -----------------------------------------------------------------------------------
@pytest.mark.parametrize("spatial", [(5, 4), (3, 4, 5)], ids=["2d", "3d"])
def test_max_pool_column_major_indices_against_onnx_reference(device, spatial):
    """Indices over the whole input, column-major inside each (n, c) plane: h + w·H (+ d·H·W); two batches and
    three channels (the plane's base offset), H ≠ W, ties inside a window (the first in row-major scan wins, in
    both orders) and −inf elements. Also checked by hand for one window of the 2-D case."""
    rng = np.random.default_rng(3)
    x = rng.integers(-3, 4, (2, 3, *spatial)).astype(np.float32)  # small integers: many ties
    x[0, 0, ..., 0] = -np.inf
    kernel = [2] * len(spatial)
    inputs = {"x": x}
    model = _model("MaxPool", inputs, {"y": (TensorProto.FLOAT, x.ndim), "i": (TensorProto.INT64, x.ndim)},
                   kernel_shape=kernel, strides=[2] * len(spatial), pads=[0, 1] * len(spatial), storage_order=1)
    (y, i), (y_expected, i_expected) = _both(model, inputs, device)
    np.testing.assert_array_equal(y, y_expected)
    np.testing.assert_array_equal(i, i_expected)
    assert i.dtype == np.int64
    if len(spatial) == 2:  # batch 1, channel 2, output (1, 1): rows 2..3, columns 1..2 (the padding column 0 is −1)
        window = x[1, 2, 2:4, 1:3]
        h, w = np.unravel_index(np.argmax(window), window.shape)
        assert i[1, 2, 1, 1] == (1 * 3 + 2) * 20 + (2 + h) + (1 + w) * 5


# --- AveragePool, count_include_pad with ceil_mode --------------------------------------------------------------
@pytest.mark.parametrize("spatial", [(7,), (4, 7)], ids=["1d", "2d"])
def test_average_pool_counts_pads_but_not_the_ceil_overhang(device, spatial):
    """count_include_pad=1 with ceil_mode=1: the last window runs past the padded input; ONNX divides by the
    window's elements inside the padded input (pads counted, the overhang not). Expected: onnx.reference and numpy
    written here (zero-pad, sum the window's elements inside the padded input, divide by their count); an +inf
    element makes its windows +inf. The overhang is one element per axis: onnx's evaluator puts half of a larger
    overhang at the start (op_pool_common's extra_pad // 2), a shift of every window that neither ONNX's shape
    formula nor PyTorch's ceil_mode makes."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 2, *spatial)).astype(np.float32)
    x[0, 1, ..., 2] = np.inf
    k = len(spatial)
    inputs = {"x": x}
    model = _model("AveragePool", inputs, {"y": (TensorProto.FLOAT, x.ndim)}, kernel_shape=[3] * k,
                   strides=[3] * k, pads=[1] * k + [0] * k, ceil_mode=1, count_include_pad=1)
    (got,), (expected,) = _both(model, inputs, device)
    padded = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(1, 0)] * k)  # 1 + n: windows at 0, 3 (, 6)
    out = [-(-(1 + n - 3) // 3) + 1 for n in spatial]
    numpy_expected = np.empty((1, 2, *out))
    for index in np.ndindex(*out):
        window = padded[(slice(None), slice(None), *[slice(3 * i, 3 * i + 3) for i in index])]
        numpy_expected[(slice(None), slice(None), *index)] = window.sum(axis=tuple(range(2, 2 + k))) / \
            np.prod(window.shape[2:])
    assert got.shape == numpy_expected.shape == expected.shape
    np.testing.assert_allclose(got, numpy_expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    assert np.isinf(got[0, 1, ..., 1]).all()


# --- Resize, align_corners with a fractional resized length: refused, located ------------------------------------
def test_resize_align_corners_with_a_fractional_length_is_refused_and_an_integral_one_runs(device):
    """in·scale = 5·0.5 = 2.5: ONNX divides by 2.5 − 1, DirectML's provider by 2 − 1, so the node is refused with
    both divisors named; in·scale = 3·2 = 6 (an integer) runs, against onnx.reference (x_out · 2/5)."""
    from dmlsim.api.errors import DMLError

    x = np.arange(15, dtype=np.float32).reshape(1, 1, 3, 5)
    inputs = {"X": x, "": np.zeros(0, np.float32), "scales": np.array([1, 1, 2, 0.5], np.float32)}
    model = _model("Resize", inputs, {"Y": (TensorProto.FLOAT, 4)}, opset=19, name="r1", mode="linear",
                   coordinate_transformation_mode="align_corners")
    with pytest.raises(DMLError, match=r"Resize node 'r1' \(opset 19\): align_corners with the fractional resized "
                                       r"length 5·0.5 = 2.5: ONNX divides by it − 1, DirectML's provider by the "
                                       r"output length 2 − 1"):
        backend.prepare(model, device).run([x, inputs["scales"]])
    inputs["scales"] = np.array([1, 1, 2, 1], np.float32)
    feeds = {"X": x, "scales": inputs["scales"]}
    got = np.asarray(backend.prepare(model, device).run(list(feeds.values()))[0])
    (expected,) = ReferenceEvaluator(model).run(None, feeds)
    assert got.shape == (1, 1, 6, 5)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-5)


def test_grid_sample_mode_without_a_composition_is_refused_with_its_location(ref_device):
    """A mode none of the compositions claims is refused, naming node, op, opset and mode (not sampled linearly)."""
    from dmlsim.api.errors import DMLError

    inputs = {"X": np.zeros((1, 1, 2, 2), np.float32), "grid": np.zeros((1, 1, 1, 2), np.float32)}
    model = _model("GridSample", inputs, {"Y": (TensorProto.FLOAT, 4)}, opset=16, name="g1", mode="bicubic")
    model.graph.node[0].attribute[0].s = b"quintic"
    with pytest.raises(DMLError, match=r"GridSample node 'g1' \(opset 16\): mode 'quintic': not composed"):
        backend.prepare(model, ref_device).run(list(inputs.values()))


def test_float16_compositions_round_each_step_in_float16(device):
    """FLOAT16 models through the cubic GridSample and the extrapolating Resize (their element-wise steps store
    FLOAT16, computing in float32): against onnx.reference on the same values in float32. GridSample: within 2⁻⁶
    of the largest |input| (the unnormalized coordinate itself rounds to FLOAT16, up to 2⁻⁹ at 4.x, and the
    cubic interpolant's slope reaches about 3·max|input| per pixel, plus the weights' roundings); Resize: 2⁻⁸
    relative and of the largest |input| (a few FLOAT16 roundings of terms bounded by it)."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((1, 1, 4, 5)).astype(np.float16)
    grid = rng.uniform(-1.2, 1.2, (1, 2, 3, 2)).astype(np.float16)
    model = _model("GridSample", {"X": x, "grid": grid}, {"Y": (TensorProto.FLOAT16, 4)}, mode="cubic",
                   padding_mode="reflection")
    reference = _model("GridSample", {"X": x.astype(np.float32), "grid": grid.astype(np.float32)},
                       {"Y": (TensorProto.FLOAT, 4)}, mode="cubic", padding_mode="reflection")
    (got,) = backend.prepare(model, device).run([x, grid])
    (expected,) = ReferenceEvaluator(reference).run(None, {"X": x.astype(np.float32), "grid": grid.astype(np.float32)})
    assert np.asarray(got).dtype == np.float16
    np.testing.assert_allclose(np.asarray(got, np.float32), expected, rtol=0, atol=2**-6 * np.abs(x).max())
    roi = np.array([-0.2, 0.0, 1.0, 1.4], np.float32)
    sizes = np.array([3, 4], np.int64)
    attrs = {"axes": [2, 3], "mode": "linear", "coordinate_transformation_mode": "tf_crop_and_resize",
             "extrapolation_value": 0.5}
    model = _model("Resize", {"X": x, "roi": roi, "": np.zeros(0, np.float32), "sizes": sizes},
                   {"Y": (TensorProto.FLOAT16, 4)}, **attrs)
    reference = _model("Resize", {"X": x.astype(np.float32), "roi": roi, "": np.zeros(0, np.float32),
                                  "sizes": sizes}, {"Y": (TensorProto.FLOAT, 4)}, **attrs)
    (got,) = backend.prepare(model, device).run([x, roi, sizes])
    (expected,) = ReferenceEvaluator(reference).run(None, {"X": x.astype(np.float32), "roi": roi, "sizes": sizes})
    assert np.asarray(got).dtype == np.float16 and (np.asarray(got)[0, 0, 0] == 0.5).all()
    np.testing.assert_allclose(np.asarray(got, np.float32), expected, rtol=2**-8, atol=2**-8 * np.abs(x).max())
