"""End-to-end demo: fit a cubic polynomial where every parameter update is a DirectML Adam dispatch.

The parameters, both moments and the training step live in device buffers for the whole run; the
command list is recorded once and executed every step, in place (parameters and moments are bound as
input and output at once). The host computes the loss and gradient (reading the parameters back and
writing the gradient), as a training loop whose backward pass ran elsewhere would.

Run: ``python -m dmlsim.demo [--adapter A] [--steps N]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import dmlsim as dml

TRUE_COEFFICIENTS = np.array([0.5, -2.0, 1.0, 3.0])  # y = 0.5x^3 - 2x^2 + x + 3


def make_data(rng: np.random.Generator, count: int = 256) -> tuple[np.ndarray, np.ndarray]:
    x = rng.uniform(-2.0, 2.0, count)
    features = np.stack([x**3, x**2, x, np.ones_like(x)], axis=1)
    y = features @ TRUE_COEFFICIENTS + rng.normal(0.0, 0.05, count)
    return features, y


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", default=None, help="adapter spec (default: $DMLSIM_ADAPTER or first usable)")
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args(argv)

    try:
        device = dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, adapter=args.adapter)
    except dml.DMLError as exc:
        print(f"demo: {exc}", file=sys.stderr)
        return 2
    print(f"device: {device.description}")

    rng = np.random.default_rng(7)
    features, y = make_data(rng)
    count = features.shape[1]
    sizes = [1, 1, 1, count]
    tensor = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_FLOAT32, sizes)
    step_tensor = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_UINT32, [1, 1, 1, 1])
    desc = dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC(
        InputParametersTensor=tensor, InputFirstMomentTensor=tensor, InputSecondMomentTensor=tensor,
        GradientTensor=tensor, TrainingStepTensor=step_tensor, OutputParametersTensor=tensor,
        OutputFirstMomentTensor=tensor, OutputSecondMomentTensor=tensor,
        LearningRate=0.05, Beta1=0.9, Beta2=0.999, Epsilon=1e-8)
    op = device.CreateOperator(dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ADAM_OPTIMIZER, desc))
    compiled = device.CompileOperator(op, dml.DML_EXECUTION_FLAG_NONE)
    props = compiled.GetBindingProperties()
    initializer = device.CreateOperatorInitializer([compiled])
    assert initializer.GetBindingProperties().TemporaryResourceSize == 0

    size = dml.DMLCalcBufferTensorSize(dml.DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes)
    params, moment1, moment2, grad = (device.CreateBuffer(size) for _ in range(4))
    step = device.CreateBuffer(4)
    params.Write(np.zeros(count, np.float32))

    table = device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(
        Dispatchable=compiled, SizeInDescriptors=props.RequiredDescriptorCount))
    binding = [dml.DML_BINDING_DESC(dml.DML_BINDING_TYPE_BUFFER, dml.DML_BUFFER_BINDING(b, 0, size))
               for b in (params, moment1, moment2)]
    table.BindInputs([*binding, dml.buffer_binding(grad, 0, size), dml.buffer_binding(step, 0, 4)])
    table.BindOutputs(binding)  # in place: outputs alias their inputs
    recorder = device.CreateCommandRecorder()
    cmd = device.CreateCommandList()
    recorder.RecordDispatch(cmd, compiled, table)
    cmd.Close()
    queue = device.CreateCommandQueue()

    device_ns: list[int] = []
    host_s: list[float] = []
    for t in range(1, args.steps + 1):
        theta = params.read_array(np.float32, count).astype(np.float64)
        residual = features @ theta - y
        loss = float(np.mean(residual**2))
        gradient = 2.0 * features.T @ residual / len(y)
        grad.Write(gradient.astype(np.float32))
        step.Write(np.array([t], np.uint32))
        start = time.perf_counter()
        queue.ExecuteCommandLists([cmd])
        queue.WaitForIdle()
        host_s.append(time.perf_counter() - start)
        device_ns += [timing.device_ns for timing in queue.last_timings]
        if t == 1 or t % 50 == 0:
            print(f"step {t:4d}  loss {loss:.6f}")
    theta = params.read_array(np.float32, count)
    print(f"fitted coefficients {np.round(theta.astype(np.float64), 3).tolist()} (true {TRUE_COEFFICIENTS.tolist()})")
    print(f"Adam dispatch: {len(device_ns)} dispatches, median {statistics.median(device_ns) / 1e3:.1f} µs device "
          f"time, median {statistics.median(host_s) * 1e6:.1f} µs host time (execute + wait)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
