"""A small CNN's forward pass on the device, as one DirectML graph (IDMLDevice1::CompileGraph).

    x [2, 3, 12, 12]
    conv1  CONVOLUTION 3→8, 3×3, padding 1, bias      → [2, 8, 12, 12]
           BATCH_NORMALIZATION (per channel), ACTIVATION_RELU
    pool1  MAX_POOLING 2×2, stride 2                    → [2, 8, 6, 6]
    conv2  CONVOLUTION 8→16, 3×3, padding 1, bias     → [2, 16, 6, 6]
           BATCH_NORMALIZATION, ACTIVATION_RELU
    pool2  AVERAGE_POOLING 6×6 (global average pool)   → [2, 16, 1, 1]
    fc     GEMM [2, 16]·[16, 10] + bias (the pooled tensor read as a matrix: a reshape is no node)
    probs  ACTIVATION_SOFTMAX                           → [2, 10]

The weights are seeded random numbers, bound once to the operator initializer (OWNED_BY_DML graph inputs) the
way onnxruntime's DirectML provider binds a model's initializers; the graph runs as one dispatch. The demo
prints each image's most likely class and how far the device's probabilities are from the same network
computed in float64 numpy (:func:`forward_float64`).

Run: ``python -m dmlsim.cnn_demo [--adapter A]``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import dmlsim as dml
from dmlsim.graph_builder import CompiledNetwork, GraphBuilder

F32 = dml.DML_TENSOR_DATA_TYPE_FLOAT32
BATCH, CHANNELS, SIDE, CLASSES = 2, 3, 12, 10
WIDTHS = (8, 16)
EPSILON = 1e-5


def _t(*sizes: int, strides: list[int] | None = None) -> dml.DML_TENSOR_DESC:
    return dml.buffer_tensor(F32, list(sizes), strides)


def make_weights(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Seeded weights: He-initialized filters, small biases, batch-norm statistics of a trained-looking net."""
    weights: dict[str, np.ndarray] = {}
    channels = CHANNELS
    for i, width in enumerate(WIDTHS, 1):
        weights[f"w{i}"] = rng.normal(0, np.sqrt(2 / (channels * 9)), (width, channels, 3, 3))
        weights[f"b{i}"] = rng.normal(0, 0.1, (1, width, 1, 1))
        weights[f"mean{i}"] = rng.normal(0, 0.2, (1, width, 1, 1))
        weights[f"var{i}"] = rng.uniform(0.5, 1.5, (1, width, 1, 1))
        weights[f"scale{i}"] = rng.uniform(0.8, 1.2, (1, width, 1, 1))
        weights[f"shift{i}"] = rng.normal(0, 0.1, (1, width, 1, 1))
        channels = width
    weights["fc"] = rng.normal(0, np.sqrt(1 / channels), (1, 1, channels, CLASSES))
    weights["fc_bias"] = rng.normal(0, 0.1, (1, 1, 1, CLASSES))
    return {name: value.astype(np.float32) for name, value in weights.items()}


def build(device: dml.Device, weights: dict[str, np.ndarray]) -> CompiledNetwork:
    """The CNN as one compiled DirectML graph, its weights initialized."""
    b = GraphBuilder(device)
    x = b.input("x", _t(BATCH, CHANNELS, SIDE, SIDE))
    for name, value in weights.items():
        b.weight(name, value)
    channels, side = CHANNELS, SIDE
    for i, width in enumerate(WIDTHS, 1):
        conv = dml.DML_CONVOLUTION_OPERATOR_DESC(
            _t(BATCH, channels, side, side), _t(width, channels, 3, 3), _t(1, width, 1, 1),
            _t(BATCH, width, side, side), dml.DML_CONVOLUTION_MODE_CROSS_CORRELATION,
            dml.DML_CONVOLUTION_DIRECTION_FORWARD, 2, [1, 1], [1, 1], [1, 1], [1, 1], [0, 0], 1, None)
        b.node(dml.DML_OPERATOR_CONVOLUTION, conv, {"InputTensor": x, "FilterTensor": f"w{i}", "BiasTensor": f"b{i}"},
               {"OutputTensor": f"conv{i}"})
        plane = _t(BATCH, width, side, side)
        per_channel = _t(1, width, 1, 1)
        norm = dml.DML_BATCH_NORMALIZATION_OPERATOR_DESC(plane, per_channel, per_channel, per_channel, per_channel,
                                                         plane, 1, EPSILON, None)
        b.node(dml.DML_OPERATOR_BATCH_NORMALIZATION, norm,
               {"InputTensor": f"conv{i}", "MeanTensor": f"mean{i}", "VarianceTensor": f"var{i}",
                "ScaleTensor": f"scale{i}", "BiasTensor": f"shift{i}"}, {"OutputTensor": f"norm{i}"})
        b.node(dml.DML_OPERATOR_ACTIVATION_RELU, dml.DML_ACTIVATION_RELU_OPERATOR_DESC(plane, plane),
               {"InputTensor": f"norm{i}"}, {"OutputTensor": f"relu{i}"})
        if i == 1:
            half = side // 2
            pool = dml.DML_MAX_POOLING_OPERATOR_DESC(plane, _t(BATCH, width, half, half), 2, [2, 2], [2, 2], [0, 0],
                                                     [0, 0])
            b.node(dml.DML_OPERATOR_MAX_POOLING, pool, {"InputTensor": "relu1"}, {"OutputTensor": "pool1"})
            x, side = "pool1", half
        channels = width
    pool = dml.DML_AVERAGE_POOLING_OPERATOR_DESC(_t(BATCH, channels, side, side), _t(BATCH, channels, 1, 1), 2,
                                                 [1, 1], [side, side], [0, 0], [0, 0], 0)
    b.node(dml.DML_OPERATOR_AVERAGE_POOLING, pool, {"InputTensor": "relu2"}, {"OutputTensor": "gap"})
    gemm = dml.DML_GEMM_OPERATOR_DESC(_t(1, 1, BATCH, channels), _t(1, 1, channels, CLASSES),
                                      _t(1, 1, BATCH, CLASSES, strides=[0, 0, 0, 1]), _t(1, 1, BATCH, CLASSES),
                                      dml.DML_MATRIX_TRANSFORM_NONE, dml.DML_MATRIX_TRANSFORM_NONE, 1.0, 1.0, None)
    b.node(dml.DML_OPERATOR_GEMM, gemm, {"ATensor": "gap", "BTensor": "fc", "CTensor": "fc_bias"},
           {"OutputTensor": "logits"})
    logits = _t(1, 1, BATCH, CLASSES)
    b.node(dml.DML_OPERATOR_ACTIVATION_SOFTMAX, dml.DML_ACTIVATION_SOFTMAX_OPERATOR_DESC(logits, logits),
           {"InputTensor": "logits"}, {"OutputTensor": "probs"})
    return b.compile(["probs"])


def forward_float64(x: np.ndarray, weights: dict[str, np.ndarray]) -> np.ndarray:
    """The same network in float64 numpy, for the demo's printout (tests use their own transcription)."""
    h = x.astype(np.float64)
    for i in (1, 2):
        w = weights[f"w{i}"].astype(np.float64)
        padded = np.pad(h, ((0, 0), (0, 0), (1, 1), (1, 1)))
        windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(2, 3))
        h = np.einsum("nchwij,ocij->nohw", windows, w) + weights[f"b{i}"]
        h = (h - weights[f"mean{i}"]) / np.sqrt(weights[f"var{i}"].astype(np.float64) + EPSILON)
        h = np.maximum(h * weights[f"scale{i}"] + weights[f"shift{i}"], 0)
        if i == 1:
            n, c, s, _ = h.shape
            h = h.reshape(n, c, s // 2, 2, s // 2, 2).max(axis=(3, 5))
    logits = h.mean(axis=(2, 3)) @ weights["fc"][0, 0] + weights["fc_bias"][0, 0]
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dmlsim.cnn_demo", description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", "-a", default=None, help="adapter (default: $DMLSIM_ADAPTER or the first GPU/CPU)")
    args = parser.parse_args(argv)
    try:
        device = dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, adapter=args.adapter)
        rng = np.random.default_rng(7)
        weights = make_weights(rng)
        x = rng.normal(0, 1, (BATCH, CHANNELS, SIDE, SIDE)).astype(np.float32)
        network = build(device, weights)
        probs = network.run({"x": x})["probs"].reshape(BATCH, CLASSES)
    except dml.DMLError as error:
        print(f"cnn demo: {error}", file=sys.stderr)
        return 2
    expected = forward_float64(x, weights)
    print(f"device: {device.description}")
    print("CNN forward: conv, batch norm, relu, max pool, conv, batch norm, relu, global average pool, gemm, "
          "softmax as one DirectML graph")
    for image in range(BATCH):
        print(f"  image {image}: class {int(probs[image].argmax())} with p = {probs[image].max():.4f}")
    print(f"  largest difference from float64 numpy: {np.abs(probs - expected).max():.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
