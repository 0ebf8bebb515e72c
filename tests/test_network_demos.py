"""The demos' networks (dmlsim/cnn_demo.py, dmlsim/transformer_demo.py) against float64 numpy, on every device.

Each network runs as one compiled DirectML graph (GraphBuilder: weights as OWNED_BY_DML graph inputs bound to the
operator initializer, reshapes as reader descs). The expected values are this file's own float64 transcriptions
of the layers' documented formulas, written without the demos' helpers (direct loops over the filter taps, not
the demo's einsum; softmax, GELU and attention from their definitions).

Tolerance: the outputs are probabilities or normalized activations of order 1 after a dozen float32 layers whose
sums run over at most 72 terms; each layer adds a few float32 ulps relative to its magnitude bound, so 1e-4
absolute (about 800 float32 ulps at 1.0) holds on every device while a wrong tap, statistic or axis moves the
outputs by 1e-2 or more.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dmlsim import cnn_demo, transformer_demo

TOLERANCE = 1e-4


def _conv3x3(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross-correlation with padding 1, one tap at a time."""
    n, _, h, wd = x.shape
    padded = np.zeros((n, x.shape[1], h + 2, wd + 2))
    padded[:, :, 1:-1, 1:-1] = x
    out = np.zeros((n, w.shape[0], h, wd))
    for i in range(3):
        for j in range(3):
            out += np.tensordot(padded[:, :, i:i + h, j:j + wd], w[:, :, i, j], axes=([1], [1])).transpose(0, 3, 1, 2)
    return out + b.reshape(1, -1, 1, 1)


def _cnn_float64(x: np.ndarray, weights: dict[str, np.ndarray]) -> np.ndarray:
    f = {k: v.astype(np.float64) for k, v in weights.items()}
    h = x.astype(np.float64)
    for i in (1, 2):
        h = _conv3x3(h, f[f"w{i}"], f[f"b{i}"])
        h = f[f"scale{i}"] * (h - f[f"mean{i}"]) / np.sqrt(f[f"var{i}"] + cnn_demo.EPSILON) + f[f"shift{i}"]
        h = np.where(h > 0, h, 0.0)
        if i == 1:
            h = np.maximum.reduce([h[:, :, a::2, b::2] for a in (0, 1) for b in (0, 1)])
    pooled = h.sum(axis=(2, 3)) / (h.shape[2] * h.shape[3])
    logits = pooled @ f["fc"].reshape(pooled.shape[1], -1) + f["fc_bias"].reshape(1, -1)
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def test_cnn_forward_matches_float64(device):
    rng = np.random.default_rng(11)
    weights = cnn_demo.make_weights(rng)
    x = rng.normal(0, 1, (cnn_demo.BATCH, cnn_demo.CHANNELS, cnn_demo.SIDE, cnn_demo.SIDE)).astype(np.float32)
    got = cnn_demo.build(device, weights).run({"x": x})["probs"].reshape(cnn_demo.BATCH, cnn_demo.CLASSES)
    expected = _cnn_float64(x, weights)
    assert math.isclose(float(expected.sum()), cnn_demo.BATCH)
    np.testing.assert_allclose(got, expected, rtol=0, atol=TOLERANCE)


def test_cnn_demo_prints_its_comparison(capsys):
    assert cnn_demo.main(["--adapter", "reference"]) == 0
    out = capsys.readouterr().out
    assert "one DirectML graph" in out and "largest difference from float64 numpy" in out


@pytest.mark.parametrize("argv", [["--adapter", "no-such-adapter"]])
def test_cnn_demo_refuses_a_bad_adapter(argv, capsys):
    assert cnn_demo.main(argv) == 2
    assert "cnn demo:" in capsys.readouterr().err


def _layer_norm(v: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
    mean = v.sum(axis=1, keepdims=True) / v.shape[1]
    variance = ((v - mean) * (v - mean)).sum(axis=1, keepdims=True) / v.shape[1]
    return gamma * (v - mean) / np.sqrt(variance + transformer_demo.EPSILON) + beta


def _transformer_float64(x: np.ndarray, weights: dict[str, np.ndarray]) -> np.ndarray:
    f = {k: v.astype(np.float64) for k, v in weights.items()}
    s, e, heads = transformer_demo.SEQUENCE, transformer_demo.HIDDEN, transformer_demo.HEADS
    d = e // heads
    h0 = x.reshape(s, e).astype(np.float64)
    ln = _layer_norm(h0, f["gamma1"], f["beta1"])
    q, k, v = (ln @ f["w" + n] + f["b" + n] for n in "qkv")
    out = np.zeros((s, e))
    for head in range(heads):
        lo, hi = head * d, (head + 1) * d
        for i in range(s):  # row by row, causal: key j attends query i only if j <= i
            scores = np.array([q[i, lo:hi] @ k[j, lo:hi] / math.sqrt(d)
                               + (0.0 if j <= i else transformer_demo.MASK_FILTER) for j in range(s)])
            p = np.exp(scores - scores.max())
            out[i, lo:hi] = (p / p.sum()) @ v[:, lo:hi]
    h = h0 + out @ f["wo"] + f["bo"]
    pre = _layer_norm(h, f["gamma2"], f["beta2"]) @ f["w1"] + f["b1"]
    gelu = np.array([0.5 * z * math.erfc(-z / math.sqrt(2)) for z in pre.ravel()]).reshape(pre.shape)
    return h + gelu @ f["w2"] + f["b2"]


def test_transformer_block_matches_float64(device):
    rng = np.random.default_rng(13)
    weights = transformer_demo.make_weights(rng)
    x = rng.normal(0, 1, (1, transformer_demo.SEQUENCE, transformer_demo.HIDDEN)).astype(np.float32)
    got = transformer_demo.build(device, weights).run({"x": x})["y"]
    expected = _transformer_float64(x, weights)
    np.testing.assert_allclose(got.reshape(expected.shape), expected, rtol=0, atol=TOLERANCE)


def test_transformer_attention_is_one_multihead_attention_node(ref_device, monkeypatch):
    """The block's attention is one DML_OPERATOR_MULTIHEAD_ATTENTION node, not a GEMM/mask/softmax composition."""
    import dmlsim as dml
    from dmlsim.graph_builder import GraphBuilder

    seen: list[int] = []
    original = GraphBuilder.node

    def spy(self, op_type, desc, inputs, outputs):
        seen.append(int(op_type))
        return original(self, op_type, desc, inputs, outputs)

    monkeypatch.setattr(GraphBuilder, "node", spy)
    transformer_demo.build(ref_device, transformer_demo.make_weights(np.random.default_rng(1)))
    assert seen.count(int(dml.DML_OPERATOR_MULTIHEAD_ATTENTION)) == 1
    assert int(dml.DML_OPERATOR_ACTIVATION_SOFTMAX1) not in seen
    assert seen.count(int(dml.DML_OPERATOR_GEMM)) == 6  # q, k, v, o and the two feed-forward layers


def test_transformer_demo_prints_its_comparison(capsys):
    assert transformer_demo.main(["--adapter", "reference"]) == 0
    assert "largest difference from float64 numpy" in capsys.readouterr().out
