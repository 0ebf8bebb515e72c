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
    """A one-node model whose graph inputs are ``inputs`` (name → example array) and outputs ``outputs`` (name →
    (element type, rank))."""
    node = helper.make_node(op, list(inputs), list(outputs), **attributes)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape))
         for k, v in inputs.items()],
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
