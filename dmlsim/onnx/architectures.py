"""Five small whole-model architectures built in code with ``onnx.helper`` (seeded random weights), for tests,
the CLI and benchmarks: each is an ordinary ONNX model that dmlsim lowers onto DirectML and onnxruntime's CPU
provider runs as the independent peer.

- ``resnet``: a ResNet-style CNN: Conv, BatchNormalization, Relu, MaxPool, a residual block (two 3×3 convolutions,
  Add of the skip, Relu), GlobalAveragePool, Flatten, Gemm.
- ``mobilenetv2``: a MobileNetV2 inverted-residual block: 1×1 expand Conv, BatchNormalization, Clip(0, 6) as
  ReLU6, depthwise 3×3 Conv (group = channels), 1×1 project Conv, Add of the input.
- ``transformer``: a pre-norm transformer encoder layer in standard ops (no Attention op): LayerNormalization,
  Q/K/V MatMul + Add, Reshape/Transpose into heads, MatMul scores scaled by 1/√d, a key mask (Where), Softmax,
  MatMul with V, the output projection, residual Add, a feed-forward block with GELU in its erf form, residual.
  Its inputs have the symbolic dimensions ``batch`` and ``seq``.
- ``recurrent``: an LSTM over the sequence, Squeeze of its direction axis, a GRU over the LSTM's outputs, and a
  Gemm on the GRU's last hidden state.
- ``mlp_train``: :mod:`dmlsim.mlp_demo`'s training step as ONNX: forward (Gemm, Relu, Gemm), mean squared error,
  its gradient written out in standard ops (Sub, Mul, Gemm with transposes, ReduceSum, Where on Z1 > 0 as ReLU's
  derivative) and one SGD update; the outputs are the loss and the updated W1, b1, W2, b2 (the weights are graph
  inputs, so the outputs feed the next step).

Every model uses opset 17 and float32; :func:`feeds` draws seeded inputs of the model's shapes. Tolerances against
onnxruntime are each architecture's :attr:`Architecture.ulps`: ulps of the largest magnitude of the output tensor
(accumulation order differs between dmlsim's kernels and onnxruntime's MLAS, so errors scale with the terms summed,
not with each small result).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

OPSET = 17


@dataclass(frozen=True)
class Architecture:
    """One architecture: its builder, a line saying what it is and its tolerance against onnxruntime."""

    name: str
    summary: str
    build: Callable[[int], object]
    ulps: float
    why: str


class _Graph:
    """Nodes, initializers and value infos being collected, with seeded random weights."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list = []
        self.initializers: list = []
        self.count = 0

    def weight(self, name: str, shape: tuple[int, ...], scale: float | None = None) -> str:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else int(shape[0])
        std = scale if scale is not None else float(np.sqrt(2.0 / max(fan_in, 1)))
        return self.const(name, self.rng.normal(0.0, std, shape).astype(np.float32))

    def const(self, name: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def node(self, op: str, inputs: list[str], outputs: int | list[str] = 1, **attributes: object) -> list[str]:
        from onnx import helper

        self.count += 1
        name = f"{op.lower()}{self.count}"
        names = [f"{name}_out{i}" for i in range(outputs)] if isinstance(outputs, int) else outputs
        self.nodes.append(helper.make_node(op, inputs, names, name=name, **attributes))
        return names

    def one(self, op: str, inputs: list[str], **attributes: object) -> str:
        return self.node(op, inputs, 1, **attributes)[0]

    def batch_norm(self, x: str, channels: int, tag: str) -> str:
        scale = self.const(f"{tag}_scale", self.rng.uniform(0.5, 1.5, channels).astype(np.float32))
        bias = self.const(f"{tag}_bias", self.rng.normal(0, 0.1, channels).astype(np.float32))
        mean = self.const(f"{tag}_mean", self.rng.normal(0, 0.1, channels).astype(np.float32))
        var = self.const(f"{tag}_var", self.rng.uniform(0.5, 1.5, channels).astype(np.float32))
        return self.one("BatchNormalization", [x, scale, bias, mean, var], epsilon=1e-5)

    def conv(self, x: str, c_in: int, c_out: int, kernel: int, tag: str, group: int = 1, stride: int = 1) -> str:
        w = self.weight(f"{tag}_w", (c_out, c_in // group, kernel, kernel))
        b = self.const(f"{tag}_b", self.rng.normal(0, 0.05, c_out).astype(np.float32))
        pad = kernel // 2
        return self.one("Conv", [x, w, b], kernel_shape=[kernel, kernel], pads=[pad] * 4, group=group,
                        strides=[stride, stride])

    def model(self, name: str, inputs: list, outputs: list) -> object:
        from onnx import checker, helper

        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="dmlsim")
        model.ir_version = 8
        checker.check_model(model, full_check=True)
        return model


def _f32(name: str, shape: list) -> object:
    from onnx import TensorProto, helper

    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def resnet(seed: int = 0, batch: int = 2) -> object:
    """[batch, 3, 16, 16] → stem conv 3→8, BN, Relu, MaxPool 2 → residual block → GAP → Flatten → Gemm →
    [batch, 10]."""
    g = _Graph(seed)
    x = g.one("Relu", [g.batch_norm(g.conv("image", 3, 8, 3, "stem"), 8, "stem_bn")])
    x = g.one("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    y = g.one("Relu", [g.batch_norm(g.conv(x, 8, 8, 3, "block_a"), 8, "block_a_bn")])
    y = g.batch_norm(g.conv(y, 8, 8, 3, "block_b"), 8, "block_b_bn")
    y = g.one("Relu", [g.one("Add", [y, x])])
    y = g.one("Flatten", [g.one("GlobalAveragePool", [y])], axis=1)
    g.node("Gemm", [y, g.weight("fc_w", (10, 8)), g.const("fc_b", np.zeros(10, np.float32))], ["logits"],
           transB=1)
    return g.model("resnet", [_f32("image", [batch, 3, 16, 16])], [_f32("logits", [batch, 10])])


def mobilenetv2(seed: int = 0) -> object:
    """[1, 8, 8, 8] → 1×1 expand to 24, BN, ReLU6 → depthwise 3×3, BN, ReLU6 → 1×1 project to 8, BN → + input."""
    g = _Graph(seed)
    low, high = g.const("relu6_min", np.float32(0.0)), g.const("relu6_max", np.float32(6.0))
    y = g.one("Clip", [g.batch_norm(g.conv("features", 8, 24, 1, "expand"), 24, "expand_bn"), low, high])
    y = g.one("Clip", [g.batch_norm(g.conv(y, 24, 24, 3, "depthwise", group=24), 24, "depthwise_bn"), low, high])
    y = g.batch_norm(g.conv(y, 24, 8, 1, "project"), 8, "project_bn")
    g.node("Add", [y, "features"], ["block_out"])
    return g.model("mobilenetv2", [_f32("features", [1, 8, 8, 8])], [_f32("block_out", [1, 8, 8, 8])])


def transformer(seed: int = 0, d_model: int = 16, heads: int = 2, d_ff: int = 32) -> object:
    """x [batch, seq, 16] and mask [batch, 1, 1, seq] (bool: True = attend) → one pre-norm encoder layer."""
    from onnx import TensorProto, helper

    g = _Graph(seed)
    d_head = d_model // heads

    def layer_norm(x: str, tag: str) -> str:
        gamma = g.const(f"{tag}_gamma", g.rng.uniform(0.8, 1.2, d_model).astype(np.float32))
        beta = g.const(f"{tag}_beta", g.rng.normal(0, 0.05, d_model).astype(np.float32))
        return g.one("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=1e-5)

    def linear(x: str, n_in: int, n_out: int, tag: str) -> str:
        w = g.weight(f"{tag}_w", (n_in, n_out), scale=float(1 / np.sqrt(n_in)))
        b = g.const(f"{tag}_b", g.rng.normal(0, 0.02, n_out).astype(np.float32))
        return g.one("Add", [g.one("MatMul", [x, w]), b])

    heads_shape = g.const("heads_shape", np.array([0, 0, heads, d_head], np.int64))
    h = layer_norm("x", "ln1")
    q = g.one("Transpose", [g.one("Reshape", [linear(h, d_model, d_model, "q"), heads_shape])], perm=[0, 2, 1, 3])
    k = g.one("Transpose", [g.one("Reshape", [linear(h, d_model, d_model, "k"), heads_shape])], perm=[0, 2, 3, 1])
    v = g.one("Transpose", [g.one("Reshape", [linear(h, d_model, d_model, "v"), heads_shape])], perm=[0, 2, 1, 3])
    scores = g.one("Mul", [g.one("MatMul", [q, k]), g.const("inv_sqrt_d", np.float32(1 / np.sqrt(d_head)))])
    scores = g.one("Where", ["mask", scores, g.const("masked", np.float32(-1e4))])
    context = g.one("MatMul", [g.one("Softmax", [scores], axis=-1), v])
    context = g.one("Reshape", [g.one("Transpose", [context], perm=[0, 2, 1, 3]),
                                g.const("model_shape", np.array([0, 0, d_model], np.int64))])
    x1 = g.one("Add", ["x", linear(context, d_model, d_model, "o")])
    f = linear(layer_norm(x1, "ln2"), d_model, d_ff, "ff1")
    erf = g.one("Erf", [g.one("Mul", [f, g.const("inv_sqrt2", np.float32(1 / np.sqrt(2)))])])
    gelu = g.one("Mul", [g.one("Mul", [f, g.const("half", np.float32(0.5))]),
                         g.one("Add", [erf, g.const("one", np.float32(1.0))])])
    g.node("Add", [x1, linear(gelu, d_ff, d_model, "ff2")], ["encoded"])
    mask = helper.make_tensor_value_info("mask", TensorProto.BOOL, ["batch", 1, 1, "seq"])
    return g.model("transformer", [_f32("x", ["batch", "seq", d_model]), mask],
                   [_f32("encoded", ["batch", "seq", d_model])])


def recurrent(seed: int = 0, steps: int = 5, batch: int = 2, features: int = 6, hidden: int = 8) -> object:
    """sequence [5, 2, 6] → LSTM (8) → Squeeze → GRU (8) → last hidden state → Gemm → [2, 3]; also Y_h of the
    LSTM."""
    g = _Graph(seed)
    scale = float(1 / np.sqrt(hidden))
    w = g.weight("lstm_W", (1, 4 * hidden, features), scale)
    r = g.weight("lstm_R", (1, 4 * hidden, hidden), scale)
    b = g.weight("lstm_B", (1, 8 * hidden), 0.1)
    y, _ = g.node("LSTM", ["sequence", w, r, b], ["lstm_Y", "lstm_Y_h"], hidden_size=hidden)
    y = g.one("Squeeze", [y, g.const("direction_axis", np.array([1], np.int64))])
    w = g.weight("gru_W", (1, 3 * hidden, hidden), scale)
    r = g.weight("gru_R", (1, 3 * hidden, hidden), scale)
    b = g.weight("gru_B", (1, 6 * hidden), 0.1)
    _, h = g.node("GRU", [y, w, r, b], 2, hidden_size=hidden, linear_before_reset=1)
    h = g.one("Reshape", [h, g.const("batch_hidden", np.array([batch, hidden], np.int64))])
    g.node("Gemm", [h, g.weight("head_w", (hidden, 3)), g.const("head_b", np.zeros(3, np.float32))],
           ["scores"])
    return g.model("recurrent", [_f32("sequence", [steps, batch, features])],
                   [_f32("scores", [batch, 3]), _f32("lstm_Y_h", [1, batch, hidden])])


def mlp_train(seed: int = 0, samples: int = 16, features: int = 3, hidden: int = 8,
              learning_rate: float = 0.05) -> object:
    """One SGD step of mlp_demo's network on the mean squared error: inputs X, Y, W1, b1, W2, b2; outputs loss and
    the updated W1, b1, W2, b2."""
    g = _Graph(seed)
    z1 = g.one("Gemm", ["X", "W1", "b1"])
    h = g.one("Relu", [z1])
    out = g.one("Gemm", [h, "W2", "b2"])
    err = g.one("Sub", [out, "Y"])
    g.node("ReduceMean", [g.one("Mul", [err, err])], ["loss"], keepdims=0)
    d_out = g.one("Mul", [err, g.const("two_over_n", np.float32(2.0 / samples))])
    rows = g.const("rows", np.array([0], np.int64))
    d_w2 = g.one("Gemm", [h, d_out], transA=1)
    d_b2 = g.one("ReduceSum", [d_out, rows], keepdims=0)
    d_h = g.one("Gemm", [d_out, "W2"], transB=1)
    d_z1 = g.one("Where", [g.one("Greater", [z1, g.const("zero", np.float32(0.0))]), d_h,
                           g.const("no_gradient", np.float32(0.0))])
    d_w1 = g.one("Gemm", ["X", d_z1], transA=1)
    d_b1 = g.one("ReduceSum", [d_z1, rows], keepdims=0)
    lr = g.const("learning_rate", np.float32(learning_rate))
    for param, grad in (("W1", d_w1), ("b1", d_b1), ("W2", d_w2), ("b2", d_b2)):
        g.node("Sub", [param, g.one("Mul", [grad, lr])], [f"{param}_new"])
    shapes = {"W1": [features, hidden], "b1": [hidden], "W2": [hidden, 1], "b2": [1]}
    inputs = [_f32("X", [samples, features]), _f32("Y", [samples, 1])]
    inputs += [_f32(name, shape) for name, shape in shapes.items()]
    outputs = [_f32("loss", [])] + [_f32(f"{name}_new", shape) for name, shape in shapes.items()]
    return g.model("mlp_train", inputs, outputs)


ARCHITECTURES: dict[str, Architecture] = {a.name: a for a in (
    Architecture("resnet", "ResNet-style CNN: conv, batch norm, relu, max pool, residual block, GAP, gemm",
                 resnet, 16, "3×3×8 convolutions and a 10×8 gemm summed in another order than MLAS's"),
    Architecture("mobilenetv2", "MobileNetV2 block: 1×1 expand, depthwise 3×3, ReLU6 clips, 1×1 project, residual",
                 mobilenetv2, 16, "three convolutions with folded batch norms, sums in another order"),
    Architecture("transformer", "transformer encoder layer: layer norm, Q/K/V, heads, masked softmax, GELU (erf)",
                 transformer, 32, "layer norms, softmax exp and erf (each a few ulps apart from onnxruntime's "
                 "implementations) through five matmuls"),
    Architecture("recurrent", "LSTM (8) → GRU (8) → gemm over a 5-step sequence", recurrent, 32,
                 "sigmoid/tanh a few ulps apart from onnxruntime's, carried through 5 recurrent steps twice"),
    Architecture("mlp_train", "mlp_demo's training step: forward, MSE gradient in standard ops, SGD update",
                 mlp_train, 16, "gradient gemms over 16 samples summed in another order"),
)}


def feeds(model: object, seed: int = 0, dims: dict[str, int] | None = None) -> dict[str, np.ndarray]:
    """Seeded random inputs for every graph input that is not an initializer: floats normal(0, 1), bools and
    integers uniform over {0, 1} (a bool mask all False would mask every key); a symbolic dimension takes
    ``dims[name]`` (DMLError naming it when missing)."""
    from onnx import helper

    from dmlsim.api.errors import E_INVALIDARG, DMLError

    dims = dims or {}
    rng = np.random.default_rng(seed)
    graph = model.graph  # type: ignore[attr-defined]
    constants = {init.name for init in graph.initializer}
    out: dict[str, np.ndarray] = {}
    for value in graph.input:
        if value.name in constants:
            continue
        if value.type.WhichOneof("value") != "tensor_type":
            raise DMLError(E_INVALIDARG, f"graph input {value.name!r} is not a tensor: give it with --input")
        tensor = value.type.tensor_type
        shape = []
        for i, dim in enumerate(tensor.shape.dim):
            if dim.HasField("dim_value"):
                shape.append(int(dim.dim_value))
            elif dim.dim_param and dim.dim_param in dims:
                shape.append(int(dims[dim.dim_param]))
            else:
                label = repr(dim.dim_param) if dim.dim_param else "(unnamed)"
                raise DMLError(E_INVALIDARG, f"graph input {value.name!r}: dimension {i} is symbolic {label}; give "
                                             f"its size with --dim {dim.dim_param or 'NAME'}=N or the input with "
                                             f"--input {value.name}=FILE.npy")
        dtype = helper.tensor_dtype_to_np_dtype(tensor.elem_type)
        if dtype == np.bool_:
            array = rng.random(shape) < 0.75
            if array.ndim:  # at least one key attended in every row of a mask
                array[..., 0] = True
        elif np.issubdtype(dtype, np.floating):
            array = rng.standard_normal(shape).astype(dtype)
        elif np.issubdtype(dtype, np.integer):
            array = rng.integers(0, 2, shape).astype(dtype)
        else:
            raise DMLError(E_INVALIDARG, f"graph input {value.name!r} has type {dtype}: give it with --input")
        out[value.name] = array
    return out
