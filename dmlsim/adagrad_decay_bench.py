"""Throughput of DMLSIM_OPERATOR_ADAGRAD_DECAY: dense GB/s and sparse rows/s (a plain function for now).

The ``dmlsim bench`` engine is built elsewhere; until it is merged, ``measure`` is the entry point:
``python -m dmlsim.adagrad_decay_bench [--adapter SPEC]``. State is bound in place and stays on the
device, as in training; times are device times of the launches of one dispatch (OpenCL profiling
events, summed over its launches), median of ``repeats`` after one warm-up.
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

import numpy as np

import dmlsim as dml

# Dense moves 20 bytes per FLOAT32 element: reads parameters, accumulator, gradient; writes parameters, accumulator.
DENSE_BYTES_PER_ELEMENT = 20


def _bound_in_place(device: dml.Device, desc: Any, data: dict[str, np.ndarray]) -> tuple[Any, Any, Any]:
    """Compile ``desc``, bind it in place over buffers holding ``data``; return (command list, queue, compiled)."""
    compiled = device.CompileOperator(device.CreateOperator(dml.DML_OPERATOR_DESC(
        dml.DMLSIM_OPERATOR_ADAGRAD_DECAY, desc)))
    v = compiled.validated
    buffers = {}
    inputs = []
    for row in compiled.operator.input_fields:
        layout = v.tensors.get(row.name)
        if layout is None:
            inputs.append(None)
            continue
        buffers[row.name] = device.CreateBuffer(layout.total_bytes)
        buffers[row.name].Write(np.ascontiguousarray(np.broadcast_to(
            np.asarray(data[row.name], layout.dtype).reshape(-1) if np.size(data[row.name]) > 1
            else np.asarray(data[row.name], layout.dtype), (layout.element_count,))))
        inputs.append(dml.buffer_binding(buffers[row.name]))
    props = compiled.GetBindingProperties()
    table = device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(compiled,
                                                                 SizeInDescriptors=props.RequiredDescriptorCount))
    table.BindInputs(inputs)
    table.BindOutputs([dml.buffer_binding(buffers[row.spec.aliases]) for row in compiled.operator.output_fields])
    if props.TemporaryResourceSize:
        table.BindTemporaryResource(dml.buffer_binding(device.CreateBuffer(props.TemporaryResourceSize)))
    cmd = device.CreateCommandList()
    device.CreateCommandRecorder().RecordDispatch(cmd, compiled, table)
    return cmd, device.CreateCommandQueue(), compiled


def _median_seconds(cmd: Any, queue: Any, repeats: int) -> float:
    times = []
    for i in range(repeats + 1):
        queue.ExecuteCommandLists([cmd])
        queue.WaitForIdle()
        if i:  # the first run is the warm-up (kernel builds, first touch of memory)
            times.append(sum(t.device_ns for t in queue.last_timings) * 1e-9)
    return statistics.median(times)


def sparse_indices(rows: int, count: int, seed: int = 0) -> np.ndarray:
    """``count`` row indices with duplicates: half from 4096 hot rows, half uniform over all rows, shuffled."""
    rng = np.random.default_rng(seed)
    half = count // 2
    indices = np.concatenate([rng.integers(0, min(4096, rows), half), rng.integers(0, rows, count - half)])
    return rng.permutation(indices).astype(np.uint32)


def measure(device: dml.Device, rows: int = 1 << 20, row_length: int = 64, count: int = 1 << 16,
            repeats: int = 5) -> dict[str, float]:
    """Dense GB/s and sparse rows/s of FLOAT32 AdagradDecay on ``device``, state updated in place.

    Dense: the whole rows × row_length tensor each step. Sparse: ``count`` indices with duplicates
    (see :func:`sparse_indices`) into the same tensor; rows/s counts indices (gradient rows) per second.
    """
    f32, u32 = dml.DML_TENSOR_DATA_TYPE_FLOAT32, dml.DML_TENSOR_DATA_TYPE_UINT32
    var = dml.buffer_tensor(f32, [1, 1, rows, row_length])
    scalar = dml.buffer_tensor(u32, [1, 1, 1, 1])
    rng = np.random.default_rng(1)
    params = rng.standard_normal(rows * row_length, dtype=np.float32)
    data = {"InputParametersTensor": params, "InputAccumulatorTensor": np.float32(0.1),
            "InputDecayPowerTensor": np.uint32(0), "GlobalStepTensor": np.uint32(1)}

    dense = dml.DMLSIM_ADAGRAD_DECAY_OPERATOR_DESC(var, var, scalar, var, None, scalar, var, var, scalar,
                                                   0.01, 1000, 0.9, 0.1)
    cmd, queue, _ = _bound_in_place(device, dense, {**data, "GradientTensor": params})
    dense_s = _median_seconds(cmd, queue, repeats)
    del cmd, queue

    indices = sparse_indices(rows, count)
    grad = dml.buffer_tensor(f32, [1, 1, count, row_length])
    power = dml.buffer_tensor(u32, [1, 1, rows, 1])
    sparse = dml.DMLSIM_ADAGRAD_DECAY_OPERATOR_DESC(var, var, power, grad,
                                                    dml.buffer_tensor(u32, [1, 1, 1, count]), scalar,
                                                    var, var, power, 0.01, 1000, 0.9, 0.1)
    cmd, queue, _ = _bound_in_place(device, sparse, {**data, "GradientTensor": params[:count * row_length],
                                                     "IndicesTensor": indices})
    sparse_s = _median_seconds(cmd, queue, repeats)
    return {"dense_seconds": dense_s,
            "dense_gb_per_s": rows * row_length * DENSE_BYTES_PER_ELEMENT / dense_s / 1e9,
            "sparse_seconds": sparse_s, "sparse_rows_per_s": count / sparse_s,
            "sparse_unique_rows": float(np.unique(indices).size)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", default=None,
                        help="adapter spec as for DMLCreateDevice (default: $DMLSIM_ADAPTER)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    device = dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, args.adapter)
    result = measure(device, repeats=args.repeats)
    print(f"device: {device.description}")
    print(f"dense  1M x 64 FLOAT32: {result['dense_seconds'] * 1e3:.2f} ms, {result['dense_gb_per_s']:.1f} GB/s")
    print(f"sparse 64K indices ({int(result['sparse_unique_rows'])} unique rows) into 1M x 64: "
          f"{result['sparse_seconds'] * 1e3:.2f} ms, {result['sparse_rows_per_s'] / 1e6:.2f} M rows/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
