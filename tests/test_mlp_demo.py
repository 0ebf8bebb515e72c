"""The MLP demo (dmlsim/mlp_demo.py): a training step made of DirectML dispatches only, on every adapter.

The parameters after a few device steps are compared with the same training written here in float64 numpy
from the formulas (forward pass, mean squared error, its gradient by the chain rule, DirectML's Adam), not
with dmlsim's reference device. The device computes in float32 over 19 dispatches a step; the tolerance
(relative 2e-4 after 5 steps) is loose against float32 rounding and tight against any wrong formula.
"""

from __future__ import annotations

import numpy as np
import pytest

import dmlsim as dml
from dmlsim import mlp_demo

STEPS = 5


def float64_training(x, y, w1, w2, steps, lr, beta1=0.9, beta2=0.999, eps=1e-7):
    """The demo's network and Adam in float64: returns the parameters and the loss of every step."""
    params = {"W1": w1.astype(np.float64), "b1": np.zeros((1, w1.shape[1])), "W2": w2.astype(np.float64),
              "b2": np.zeros((1, 1))}
    moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in params.items()}
    x, y, n = x.astype(np.float64), y.astype(np.float64), len(x)
    losses = []
    for t in range(1, steps + 1):
        pre = x @ params["W1"] + params["b1"]
        hidden = np.maximum(pre, 0)
        err = hidden @ params["W2"] + params["b2"] - y
        losses.append(float(np.sum(err**2) / n))
        d_out = 2 * err / n
        d_pre = (d_out @ params["W2"].T) * (pre > 0)
        grads = {"W2": hidden.T @ d_out, "b2": d_out.sum(0, keepdims=True), "W1": x.T @ d_pre,
                 "b1": d_pre.sum(0, keepdims=True)}
        for k, g in grads.items():
            m, v = moments[k]
            m, v = beta1 * m + (1 - beta1) * g, beta2 * v + (1 - beta2) * g * g
            alpha = np.sqrt(1 - beta2**t) / (1 - beta1**t)
            params[k] = params[k] - lr * alpha * m / (np.sqrt(v) + eps)
            moments[k] = (m, v)
    return params, losses


def test_device_training_matches_float64_training(device):
    rng = np.random.default_rng(3)
    x, y = mlp_demo.make_data(rng)
    net = mlp_demo.Network(device, x, y, rng, learning_rate=0.02)
    w1, w2 = net.read("W1").copy(), net.read("W2").copy()
    cmd = net.record()
    queue = device.CreateCommandQueue()
    losses = []
    for _ in range(STEPS):
        queue.ExecuteCommandLists([cmd])
        queue.WaitForIdle()
        losses.append(float(net.read("Loss")[0, 0]) / mlp_demo.SAMPLES)
    # Adam's hyperparameters are float32 in the desc: the float64 training uses the same float32 values
    expected, expected_losses = float64_training(x, y, w1, w2, STEPS, float(np.float32(0.02)),
                                                 float(np.float32(0.9)), float(np.float32(0.999)),
                                                 float(np.float32(1e-7)))
    np.testing.assert_allclose(losses, expected_losses, rtol=2e-4)
    for name in mlp_demo.PARAMETERS:
        np.testing.assert_allclose(net.read(name), expected[name], rtol=2e-4, atol=2e-5, err_msg=name)
    assert np.frombuffer(net.buffers["T"].Read(), np.uint32)[0] == STEPS + 1  # T += 1 on the device


def test_the_demo_runs_and_its_loss_falls(capsys):
    assert mlp_demo.main(["--adapter", "reference", "--steps", "60"]) == 0
    out = capsys.readouterr().out
    assert "each step is 19 DirectML dispatches" in out and "falls" in out


@pytest.mark.parametrize("steps", ["0", "x"])
def test_bad_steps_are_refused(steps):
    with pytest.raises(SystemExit) as info:
        mlp_demo.main(["--steps", steps])
    assert info.value.code == 2


def test_every_dispatch_is_a_directml_operator():
    device = dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, adapter="reference")
    rng = np.random.default_rng(0)
    net = mlp_demo.Network(device, *mlp_demo.make_data(rng), rng, 0.01)
    types = {desc.Type for desc, _ in net.step_dispatches()}
    assert types <= {int(t) for t in dml.DML_OPERATOR_TYPE if int(t) < 0x10000}
    names = {dml.DML_OPERATOR_TYPE(t).name for t in types}
    assert {"DML_OPERATOR_GEMM", "DML_OPERATOR_REDUCE", "DML_OPERATOR_ACTIVATION_RELU_GRAD",
            "DML_OPERATOR_ADAM_OPTIMIZER", "DML_OPERATOR_ELEMENT_WISE_ADD"} <= names
