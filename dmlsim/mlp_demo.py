"""A whole training step on the device: a small MLP trained with DirectML dispatches only.

    hidden = RELU(X·W1 + b1)            GEMM, ELEMENT_WISE_ADD (b1 broadcast by stride 0), ACTIVATION_RELU
    out    = hidden·W2 + b2             GEMM, ELEMENT_WISE_ADD
    err    = out − Y                    ELEMENT_WISE_SUBTRACT; loss = Σ err² / N (REDUCE SUM_SQUARE)
    dOut   = (2/N)·err                  ELEMENT_WISE_IDENTITY with a DML_SCALE_BIAS
    dW2 = hiddenᵀ·dOut, db2 = Σ dOut    GEMM (TransA), REDUCE SUM
    dHidden = dOut·W2ᵀ                  GEMM (TransB), then ACTIVATION_RELU_GRAD
    dW1 = Xᵀ·dHidden, db1 = Σ dHidden   GEMM (TransA), REDUCE SUM
    every parameter                     DML_OPERATOR_ADAM_OPTIMIZER, in place; then T += 1 (ELEMENT_WISE_ADD)

Every tensor lives in a device buffer for the whole run and one command list holds the whole step,
recorded once: no host round trip between steps. The host reads only the loss, to print it.

Run: ``python -m dmlsim.mlp_demo [--adapter A] [--steps N]``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.quick import Region, bind_regions

F32, U32 = dml.DML_TENSOR_DATA_TYPE_FLOAT32, dml.DML_TENSOR_DATA_TYPE_UINT32
NONE, TRANSPOSE = dml.DML_MATRIX_TRANSFORM_NONE, dml.DML_MATRIX_TRANSFORM_TRANSPOSE
SAMPLES, FEATURES, HIDDEN = 128, 3, 32
PARAMETERS = ("W1", "b1", "W2", "b2")


def make_data(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """y = sin(x0) + 0.5·x1·x2 on x uniform in [-2, 2]^3."""
    x = rng.uniform(-2.0, 2.0, (SAMPLES, FEATURES))
    y = np.sin(x[:, 0]) + 0.5 * x[:, 1] * x[:, 2]
    return x.astype(np.float32), y.reshape(SAMPLES, 1).astype(np.float32)


class Network:
    """The device buffers of every tensor, by name, and the dispatches of one training step."""

    def __init__(self, device: dml.Device, x: np.ndarray, y: np.ndarray, rng: np.random.Generator,
                 learning_rate: float) -> None:
        self.device = device
        self.shapes: dict[str, list[int]] = {
            "X": [SAMPLES, FEATURES], "Y": [SAMPLES, 1], "W1": [FEATURES, HIDDEN], "b1": [1, HIDDEN],
            "W2": [HIDDEN, 1], "b2": [1, 1], "Z1": [SAMPLES, HIDDEN], "P1": [SAMPLES, HIDDEN],
            "H": [SAMPLES, HIDDEN], "Z2": [SAMPLES, 1], "Out": [SAMPLES, 1], "Err": [SAMPLES, 1], "Loss": [1, 1],
            "dOut": [SAMPLES, 1], "dW2": [HIDDEN, 1], "db2": [1, 1], "dH": [SAMPLES, HIDDEN],
            "dP1": [SAMPLES, HIDDEN], "dW1": [FEATURES, HIDDEN], "db1": [1, HIDDEN]}
        for name in PARAMETERS:
            self.shapes[f"m_{name}"] = self.shapes[f"v_{name}"] = self.shapes[name]
        self.buffers = {name: device.CreateBuffer(4 * int(np.prod(shape))) for name, shape in self.shapes.items()}
        self.buffers["T"], self.buffers["One"] = device.CreateBuffer(4), device.CreateBuffer(4)
        self.write("X", x)
        self.write("Y", y)
        self.write("W1", rng.normal(0.0, np.sqrt(2.0 / FEATURES), (FEATURES, HIDDEN)))
        self.write("W2", rng.normal(0.0, np.sqrt(2.0 / HIDDEN), (HIDDEN, 1)))
        self.buffers["T"].Write(np.array([1], np.uint32))
        self.buffers["One"].Write(np.array([1], np.uint32))
        self.learning_rate = learning_rate

    def write(self, name: str, values: Any) -> None:
        self.buffers[name].Write(np.ascontiguousarray(values, np.float32))

    def read(self, name: str) -> np.ndarray:
        return np.frombuffer(self.buffers[name].Read(), np.float32).reshape(self.shapes[name])

    def tensor(self, name: str, sizes: list[int] | None = None, strides: list[int] | None = None) -> Any:
        """The 4-D tensor desc of a named tensor ([1, 1, rows, columns]), or a broadcast view of it."""
        data_type = U32 if name in ("T", "One") else F32
        sizes = [1, 1, *(sizes or self.shapes.get(name, [1, 1]))]
        return dml.buffer_tensor(data_type, sizes, strides)

    def step_dispatches(self) -> list[tuple[dml.DML_OPERATOR_DESC, dict[str, str]]]:
        """Every dispatch of one training step, in order: (operator desc, {tensor field: tensor name})."""
        t = self.tensor
        b1_rows = t("b1", [SAMPLES, HIDDEN], [0, 0, 0, 1])  # b1 broadcast over the samples (stride 0)
        b2_rows = t("b2", [SAMPLES, 1], [0, 0, 0, 1])
        steps = [
            (gemm(t("X"), t("W1"), t("Z1")), {"ATensor": "X", "BTensor": "W1", "OutputTensor": "Z1"}),
            (add(t("Z1"), b1_rows, t("P1")), {"ATensor": "Z1", "BTensor": "b1", "OutputTensor": "P1"}),
            (activation("RELU", t("P1"), t("H")), {"InputTensor": "P1", "OutputTensor": "H"}),
            (gemm(t("H"), t("W2"), t("Z2")), {"ATensor": "H", "BTensor": "W2", "OutputTensor": "Z2"}),
            (add(t("Z2"), b2_rows, t("Out")), {"ATensor": "Z2", "BTensor": "b2", "OutputTensor": "Out"}),
            (element_wise("SUBTRACT", t("Out"), t("Y"), t("Err")),
             {"ATensor": "Out", "BTensor": "Y", "OutputTensor": "Err"}),
            (reduce(dml.DML_REDUCE_FUNCTION_SUM_SQUARE, t("Err"), t("Loss"), [2, 3]),
             {"InputTensor": "Err", "OutputTensor": "Loss"}),
            (scale(t("Err"), t("dOut"), 2.0 / SAMPLES), {"InputTensor": "Err", "OutputTensor": "dOut"}),
            (gemm(t("H"), t("dOut"), t("dW2"), trans_a=TRANSPOSE),
             {"ATensor": "H", "BTensor": "dOut", "OutputTensor": "dW2"}),
            (reduce(dml.DML_REDUCE_FUNCTION_SUM, t("dOut"), t("db2"), [2]),
             {"InputTensor": "dOut", "OutputTensor": "db2"}),
            (gemm(t("dOut"), t("W2"), t("dH"), trans_b=TRANSPOSE),
             {"ATensor": "dOut", "BTensor": "W2", "OutputTensor": "dH"}),
            (relu_grad(t("P1"), t("dH"), t("dP1")),
             {"InputTensor": "P1", "InputGradientTensor": "dH", "OutputGradientTensor": "dP1"}),
            (gemm(t("X"), t("dP1"), t("dW1"), trans_a=TRANSPOSE),
             {"ATensor": "X", "BTensor": "dP1", "OutputTensor": "dW1"}),
            (reduce(dml.DML_REDUCE_FUNCTION_SUM, t("dP1"), t("db1"), [2]),
             {"InputTensor": "dP1", "OutputTensor": "db1"}),
        ]
        for name in PARAMETERS:
            steps.append((adam(t(name), t("T"), self.learning_rate), {
                "InputParametersTensor": name, "InputFirstMomentTensor": f"m_{name}",
                "InputSecondMomentTensor": f"v_{name}", "GradientTensor": f"d{name}", "TrainingStepTensor": "T",
                "OutputParametersTensor": name, "OutputFirstMomentTensor": f"m_{name}",
                "OutputSecondMomentTensor": f"v_{name}"}))
        steps.append((element_wise("ADD", t("T"), t("One"), t("T")),
                      {"ATensor": "T", "BTensor": "One", "OutputTensor": "T"}))
        return steps

    def record(self) -> dml.CommandList:
        """One command list holding the whole training step (recorded once, executed every step)."""
        cmd = self.device.CreateCommandList()
        recorder = self.device.CreateCommandRecorder()
        self.tables = []  # kept alive with the command list
        for op_desc, fields in self.step_dispatches():
            compiled = self.device.CompileOperator(self.device.CreateOperator(op_desc), dml.DML_EXECUTION_FLAG_NONE)
            regions = {field: Region(self.buffers[name], 0, self.buffers[name].size) for field, name in fields.items()}
            table = bind_regions(self.device, compiled, regions)
            self.tables.append(table)
            recorder.RecordDispatch(cmd, compiled, table)
        cmd.Close()
        return cmd


# --- operator descs ----------------------------------------------------------------------------------
def gemm(a: Any, b: Any, out: Any, *, trans_a: int = NONE, trans_b: int = NONE) -> dml.DML_OPERATOR_DESC:
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_GEMM, dml.DML_GEMM_OPERATOR_DESC(
        a, b, None, out, trans_a, trans_b, 1.0, 0.0, None))


def element_wise(name: str, a: Any, b: Any, out: Any) -> dml.DML_OPERATOR_DESC:
    desc_cls = getattr(dml, f"DML_ELEMENT_WISE_{name}_OPERATOR_DESC")
    return dml.DML_OPERATOR_DESC(getattr(dml, f"DML_OPERATOR_ELEMENT_WISE_{name}"), desc_cls(a, b, out))


def add(a: Any, b: Any, out: Any) -> dml.DML_OPERATOR_DESC:
    return element_wise("ADD", a, b, out)


def scale(x: Any, out: Any, factor: float) -> dml.DML_OPERATOR_DESC:
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ELEMENT_WISE_IDENTITY, dml.DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(
        x, out, dml.DML_SCALE_BIAS(factor, 0.0)))


def activation(name: str, x: Any, out: Any) -> dml.DML_OPERATOR_DESC:
    desc_cls = getattr(dml, f"DML_ACTIVATION_{name}_OPERATOR_DESC")
    return dml.DML_OPERATOR_DESC(getattr(dml, f"DML_OPERATOR_ACTIVATION_{name}"), desc_cls(x, out))


def relu_grad(x: Any, gradient: Any, out: Any) -> dml.DML_OPERATOR_DESC:
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_RELU_GRAD,
                                 dml.DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC(x, gradient, out))


def reduce(function: int, x: Any, out: Any, axes: list[int]) -> dml.DML_OPERATOR_DESC:
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_REDUCE, dml.DML_REDUCE_OPERATOR_DESC(
        function, x, out, len(axes), axes))


def adam(param: Any, step: Any, learning_rate: float) -> dml.DML_OPERATOR_DESC:
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ADAM_OPTIMIZER, dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC(
        param, param, param, param, step, param, param, param, learning_rate, 0.9, 0.999, 1e-7))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", default=None, help="adapter spec (default: $DMLSIM_ADAPTER or first usable)")
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--learning-rate", type=float, default=0.02)
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error("--steps must be at least 1")
    try:
        device = dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, adapter=args.adapter)
        rng = np.random.default_rng(3)
        x, y = make_data(rng)
        net = Network(device, x, y, rng, args.learning_rate)
        cmd = net.record()
    except dml.DMLError as exc:
        print(f"mlp demo: {exc}", file=sys.stderr)
        return 2
    print(f"device: {device.description}")
    print(f"MLP {FEATURES}-{HIDDEN}-1, {SAMPLES} samples; each step is {len(net.tables)} DirectML dispatches "
          "in one command list")
    queue = device.CreateCommandQueue()
    losses = []
    for step in range(1, args.steps + 1):
        queue.ExecuteCommandLists([cmd])
        if step == 1 or step % 50 == 0 or step == args.steps:
            queue.WaitForIdle()
            loss = float(net.read("Loss")[0, 0]) / SAMPLES  # the loss of the step's forward pass
            losses.append(loss)
            print(f"step {step:4d}  loss {loss:.5f}")
    queue.WaitForIdle()
    falls = losses[-1] < 0.25 * losses[0]
    print(f"loss {losses[0]:.5f} -> {losses[-1]:.5f}: {'falls' if falls else 'DOES NOT FALL'}")
    return 0 if falls else 1


if __name__ == "__main__":
    sys.exit(main())
