"""A transformer encoder block's forward pass on the device, as one DirectML graph (IDMLDevice1::CompileGraph).

    x [1, 8, 16]  (batch 1, sequence 8, hidden 16, 2 heads of 8)
    ln1   MEAN_VARIANCE_NORMALIZATION1 over the hidden axis, scale and bias (LayerNorm)
    q,k,v GEMM ln1·Wq + bq, ln1·Wk + bk, ln1·Wv + bv
    attn  one MULTIHEAD_ATTENTION node: 2 heads of 8 (HeadCount splits the hidden axis), Scale 1/√8, the causal
          mask (0 / −10000) as its RelativePositionBiasTensor (added to the scores, broadcast over the heads by
          stride 0), the softmax over the keys and the weighted sum of v in the [sequence, hidden] layout
    o     GEMM attn·Wo + bo;  h = x + o (ELEMENT_WISE_ADD)
    ln2   MEAN_VARIANCE_NORMALIZATION1
    ffn   GEMM ln2·W1 + b1 → ACTIVATION_GELU → GEMM ·W2 + b2;  y = h + ffn

The attention is DirectML's fused operator, as onnxruntime's DirectML provider maps its Attention and
MultiHeadAttention nodes onto DML_OPERATOR_MULTIHEAD_ATTENTION. Every weight is bound once to the operator initializer
(OWNED_BY_DML graph inputs, as onnxruntime's DirectML provider binds a model's initializers); the activations are
the same bytes read by each node through its own desc ([1, 1, 8, 16] rows). The demo prints
how far the device's output is from the same block in float64 numpy (:func:`forward_float64`).

Run: ``python -m dmlsim.transformer_demo [--adapter A]``.
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np

import dmlsim as dml
from dmlsim.graph_builder import CompiledNetwork, GraphBuilder

F32 = dml.DML_TENSOR_DATA_TYPE_FLOAT32
SEQUENCE, HIDDEN, HEADS, FFN = 8, 16, 2, 32
EPSILON = 1e-5
MASK_FILTER = -10000.0


def _t(*sizes: int, strides: list[int] | None = None) -> dml.DML_TENSOR_DESC:
    return dml.buffer_tensor(F32, list(sizes), strides)


def _row(width: int) -> dml.DML_TENSOR_DESC:
    """A [1, 1, SEQUENCE, width] tensor whose rows all read one bias vector (stride 0)."""
    return _t(1, 1, SEQUENCE, width, strides=[0, 0, 0, 1])


def make_weights(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Seeded weights: Xavier-like projections, small biases, layer-norm gains near 1, a causal mask."""
    weights: dict[str, np.ndarray] = {}
    for name, (rows, cols) in {"wq": (HIDDEN, HIDDEN), "wk": (HIDDEN, HIDDEN), "wv": (HIDDEN, HIDDEN),
                               "wo": (HIDDEN, HIDDEN), "w1": (HIDDEN, FFN), "w2": (FFN, HIDDEN)}.items():
        weights[name] = rng.normal(0, 1 / math.sqrt(rows), (rows, cols))
        weights["b" + name[1:]] = rng.normal(0, 0.05, (cols,))
    for i in (1, 2):
        weights[f"gamma{i}"] = rng.uniform(0.8, 1.2, (HIDDEN,))
        weights[f"beta{i}"] = rng.normal(0, 0.05, (HIDDEN,))
    result = {name: value.astype(np.float32) for name, value in weights.items()}
    causal = np.tril(np.ones((SEQUENCE, SEQUENCE)))  # 1: attend; 0: MASK_FILTER added to the score
    result["mask"] = np.where(causal == 1, 0.0, MASK_FILTER).astype(np.float32)
    return result


def _layer_norm(b: GraphBuilder, source: str, i: int) -> str:
    plane = _t(1, 1, SEQUENCE, HIDDEN)
    gain = _t(1, 1, 1, HIDDEN)
    desc = dml.DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC(plane, gain, gain, plane, 1, [3], 1, EPSILON, None)
    b.node(dml.DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, desc,
           {"InputTensor": source, "ScaleTensor": f"gamma{i}", "BiasTensor": f"beta{i}"}, {"OutputTensor": f"ln{i}"})
    return f"ln{i}"


def _linear(b: GraphBuilder, source: str, weight: str, bias: str, rows: int, cols: int, out: str,
            activation: dml.DML_OPERATOR_DESC | None = None) -> str:
    gemm = dml.DML_GEMM_OPERATOR_DESC(_t(1, 1, SEQUENCE, rows), _t(1, 1, rows, cols), _row(cols),
                                      _t(1, 1, SEQUENCE, cols), dml.DML_MATRIX_TRANSFORM_NONE,
                                      dml.DML_MATRIX_TRANSFORM_NONE, 1.0, 1.0, activation)
    b.node(dml.DML_OPERATOR_GEMM, gemm, {"ATensor": source, "BTensor": weight, "CTensor": bias}, {"OutputTensor": out})
    return out


def _add(b: GraphBuilder, left: str, right: str, out: str) -> str:
    plane = _t(1, 1, SEQUENCE, HIDDEN)
    b.node(dml.DML_OPERATOR_ELEMENT_WISE_ADD, dml.DML_ELEMENT_WISE_ADD_OPERATOR_DESC(plane, plane, plane),
           {"ATensor": left, "BTensor": right}, {"OutputTensor": out})
    return out


def build(device: dml.Device, weights: dict[str, np.ndarray]) -> CompiledNetwork:
    """The encoder block as one compiled DirectML graph, its weights initialized."""
    b = GraphBuilder(device)
    x = b.input("x", _t(1, 1, SEQUENCE, HIDDEN))
    for name, value in weights.items():
        b.weight(name, value)
    ln1 = _layer_norm(b, x, 1)
    for name in "qkv":
        _linear(b, ln1, f"w{name}", f"b{name}", HIDDEN, HIDDEN, name)
    plane = _t(1, 1, SEQUENCE, HIDDEN)  # {batch, sequence, HEADS * head size} with a leading 1
    causal = _t(1, HEADS, SEQUENCE, SEQUENCE, strides=[0, 0, SEQUENCE, 1])  # one mask for every head
    attention = dml.DML_MULTIHEAD_ATTENTION_OPERATOR_DESC(
        QueryTensor=plane, KeyTensor=plane, ValueTensor=plane, RelativePositionBiasTensor=causal, OutputTensor=plane,
        Scale=1 / math.sqrt(HIDDEN // HEADS), MaskFilterValue=MASK_FILTER, HeadCount=HEADS,
        MaskType=dml.DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE)
    b.node(dml.DML_OPERATOR_MULTIHEAD_ATTENTION, attention,
           {"QueryTensor": "q", "KeyTensor": "k", "ValueTensor": "v", "RelativePositionBiasTensor": "mask"},
           {"OutputTensor": "attn"})
    o = _linear(b, "attn", "wo", "bo", HIDDEN, HIDDEN, "o")
    h = _add(b, x, o, "h")
    ln2 = _layer_norm(b, h, 2)
    gelu = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_GELU, dml.DML_ACTIVATION_GELU_OPERATOR_DESC(None, None))
    f1 = _linear(b, ln2, "w1", "b1", HIDDEN, FFN, "f1", gelu)
    f2 = _linear(b, f1, "w2", "b2", FFN, HIDDEN, "f2")
    _add(b, h, f2, "y")
    return b.compile(["y"])


def forward_float64(x: np.ndarray, weights: dict[str, np.ndarray]) -> np.ndarray:
    """The same block in float64 numpy, for the demo's printout (tests use their own transcription)."""
    f = {k: v.astype(np.float64) for k, v in weights.items()}

    def norm(v: np.ndarray, i: int) -> np.ndarray:
        centered = v - v.mean(axis=-1, keepdims=True)
        return centered / np.sqrt((centered ** 2).mean(axis=-1, keepdims=True) + EPSILON) * f[f"gamma{i}"] + \
            f[f"beta{i}"]

    h0 = x.reshape(SEQUENCE, HIDDEN).astype(np.float64)
    ln = norm(h0, 1)
    q, k, v = (ln @ f[f"w{n}"] + f[f"b{n}"] for n in "qkv")
    size = HIDDEN // HEADS
    heads = []
    for head in range(HEADS):
        cols = slice(head * size, (head + 1) * size)
        scores = q[:, cols] @ k[:, cols].T / math.sqrt(size) + f["mask"]
        p = np.exp(scores - scores.max(axis=1, keepdims=True))
        heads.append(p / p.sum(axis=1, keepdims=True) @ v[:, cols])
    h = h0 + np.concatenate(heads, axis=1) @ f["wo"] + f["bo"]
    pre = norm(h, 2) @ f["w1"] + f["b1"]
    gelu = 0.5 * pre * (1 + np.vectorize(math.erf)(pre / math.sqrt(2)))
    return h + gelu @ f["w2"] + f["b2"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dmlsim.transformer_demo", description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", "-a", default=None, help="adapter (default: $DMLSIM_ADAPTER or the first GPU/CPU)")
    args = parser.parse_args(argv)
    try:
        device = dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, adapter=args.adapter)
        rng = np.random.default_rng(5)
        weights = make_weights(rng)
        x = rng.normal(0, 1, (1, SEQUENCE, HIDDEN)).astype(np.float32)
        y = build(device, weights).run({"x": x})["y"].reshape(SEQUENCE, HIDDEN)
    except dml.DMLError as error:
        print(f"transformer demo: {error}", file=sys.stderr)
        return 2
    print(f"device: {device.description}")
    print(f"transformer encoder block (sequence {SEQUENCE}, hidden {HIDDEN}, {HEADS} heads, causal mask): layer "
          "norm, attention (one MULTIHEAD_ATTENTION node), residual, layer norm, GELU feed-forward, residual as one "
          "DirectML graph")
    print(f"  output row 0: {np.array2string(y[0, :6], precision=4)} ...")
    print(f"  largest difference from float64 numpy: {np.abs(y - forward_float64(x, weights)).max():.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
