"""Five whole-model architectures (dmlsim/onnx/architectures.py) lowered onto DirectML and compared with
onnxruntime's CPU execution provider, on the reference device and every OpenCL device.

The peer is onnxruntime (an independent implementation: MLAS kernels, its own exp/erf/tanh); each output must be
within the architecture's stated ulps of the output's largest magnitude (dmlsim.onnx.peer says why that yardstick).
Measured worst on the reference device and PoCL: 2.5 ulps; the tolerances (16 for convolutions and gemms, 32 where
exp, erf, sigmoid and tanh go through several layers) leave room for other runtimes' transcendentals while still
catching a wrong epsilon, a dropped bias or a swapped transpose (the tests below that must fail).
"""

from __future__ import annotations

import numpy as np
import pytest

from dmlsim import backend
from dmlsim.onnx.architectures import ARCHITECTURES, feeds
from dmlsim.onnx.peer import compare, onnxruntime_outputs, ulp_distance

DIMS = {"batch": 2, "seq": 5}


# Oclgrind simulates the two CNNs' convolutions for over a minute: they are left out of its tier (`large`); the
# convolution and pooling kernels have their own Oclgrind-checked tests, and the other three models run there.
SLOW_TO_SIMULATE = {"resnet", "mobilenetv2"}


@pytest.mark.device
@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.large) if name in SLOW_TO_SIMULATE else name
                                  for name in sorted(ARCHITECTURES)])
def test_architecture_matches_onnxruntime(device, name):
    arch = ARCHITECTURES[name]
    model = arch.build(0)
    inputs = feeds(model, seed=1, dims=DIMS)
    expected = onnxruntime_outputs(model, inputs)
    got = backend.prepare(model, device).run(inputs)
    assert len(got) == len(expected) == len(model.graph.output)
    for output, g, e in zip(model.graph.output, got, expected, strict=True):
        result = compare(output.name, g, e, arch.ulps)
        assert result.ok, result.message
        assert np.all(np.isfinite(e)) and np.max(np.abs(e)) > 0.05, f"{output.name}: a degenerate output proves little"


def test_mlp_train_step_is_one_sgd_step_by_hand(ref_device):
    """The exported training step against a numpy transcription of mlp_demo's gradient (independent of both
    onnxruntime and the lowering): loss = mean((relu(X·W1+b1)·W2+b2 − Y)²), W ← W − 0.05·∂loss/∂W."""
    model = ARCHITECTURES["mlp_train"].build(0)
    f = {k: v.astype(np.float64) for k, v in feeds(model, seed=4).items()}
    z1 = f["X"] @ f["W1"] + f["b1"]
    h = np.maximum(z1, 0)
    err = h @ f["W2"] + f["b2"] - f["Y"]
    d_out = 2 * err / len(err)
    d_z1 = (d_out @ f["W2"].T) * (z1 > 0)
    expected = [np.mean(err ** 2), f["W1"] - 0.05 * f["X"].T @ d_z1, f["b1"] - 0.05 * d_z1.sum(0),
                f["W2"] - 0.05 * h.T @ d_out, f["b2"] - 0.05 * d_out.sum(0)]
    got = backend.prepare(model, ref_device).run({k: v.astype(np.float32) for k, v in f.items()})
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def test_a_wrong_model_fails_the_comparison(ref_device):
    """The yardstick can fail: the ResNet's first batch norm epsilon changed from 1e-5 to 1e-3 in dmlsim's copy only
    moves the logits by far more than 16 ulps, and the message locates the first differing element."""
    model = ARCHITECTURES["resnet"].build(0)
    inputs = feeds(model, seed=1)
    expected = onnxruntime_outputs(model, inputs)
    for node in model.graph.node:
        if node.op_type == "BatchNormalization":
            node.attribute[0].f = 1e-3
            break
    (got,) = backend.prepare(model, ref_device).run(inputs)
    result = compare("logits", got, expected[0], ARCHITECTURES["resnet"].ulps)
    assert not result.ok
    assert "first differing element at [0, " in result.message and "ulp apart" in result.message


def test_compare_rules():
    """Literal cases of the peer comparison: ulp distances, NaN/inf matching, integers exact, shapes."""
    assert ulp_distance(1.0, np.nextafter(np.float32(1.0), np.float32(2.0)), np.float32) == 1
    assert ulp_distance(-0.0, 0.0, np.float32) == 0
    assert ulp_distance(-1e-45, 1e-45, np.float32) == 2  # the two smallest subnormals straddle both zeros
    e = np.array([1.0, np.nan, np.inf, -2.0], np.float32)
    assert compare("y", e.copy(), e, 0).ok
    g = e.copy()
    g[3] = np.nextafter(np.float32(-2.0), np.float32(0.0))
    ok = compare("y", g, e, 1)
    assert ok.ok and "[3]" in ok.message and "(1 ulp apart)" in ok.message
    g[2] = -np.inf
    assert not compare("y", g, e, 1).ok
    assert not compare("i", np.array([1, 2]), np.array([1, 3]), 1000).ok
    assert not compare("s", np.zeros(2, np.float32), np.zeros(3, np.float32), 1).ok


def test_symbolic_dimension_without_a_size_is_named():
    from dmlsim.api.errors import DMLError

    with pytest.raises(DMLError, match=r"graph input 'x': dimension 0 is symbolic 'batch'; give its size with "
                                       r"--dim batch=N"):
        feeds(ARCHITECTURES["transformer"].build(0))
