"""Multi-tensor apply, measured: N tensors updated by one fused ONNX Adam dispatch vs N one-tensor dispatches.

Both sides use the same operator (DMLSIM_OPERATOR_ONNX_ADAM), the same data and the same API path
(compiled operator, binding table prepared once, ExecuteCommandLists + WaitForIdle), so the figure is
the cost of a launch per tensor against one launch for all: what fused optimizers in PyTorch and apex
buy. The fused side uses the fused-optimizer layout: one flat buffer per role, tensors at offsets.
Timings are hot (after one warm-up run), wall clock of submit-to-idle, best of ``repeats``. The
per-tensor side is timed two ways: all 1000 command lists in one ExecuteCommandLists call (the
cheapest way to issue them: launches pipelined, no host work between them), and one call per tensor
(what a per-parameter optimizer loop in a framework does).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.device import Device, DMLCreateDevice
from dmlsim.enums import DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE
from dmlsim.ops.onnx_training import DMLSIM_ONNX_ADAM_OPERATOR_DESC
from dmlsim.structs import (
    DML_BINDING_TABLE_DESC,
    DML_OPERATOR_DESC,
    buffer_array_binding,
    buffer_binding,
    buffer_tensor,
)

_F32 = DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_FLOAT32
_I64 = DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_INT64
_ROLES = ("X", "G", "V", "H")


@dataclass
class MultiTensorResult:
    """Best-of-``repeats`` wall times (seconds) of the fused dispatch and of the per-tensor dispatches."""

    device: str
    tensors: int
    elements: int
    fused_s: float
    fused_launches: int
    separate_s: float
    separate_launches: int
    per_call_s: float

    @property
    def speedup(self) -> float:
        return self.separate_s / self.fused_s

    def describe(self) -> str:
        moved = 28 * self.tensors * self.elements  # Adam: reads X, G, V, H; writes X, V, H (fp32)
        return (f"{self.tensors} tensors x {self.elements} FLOAT32 elements, ONNX Adam, on {self.device}\n"
                f"  one fused dispatch   : {self.fused_s * 1e3:8.2f} ms ({self.fused_launches} launch, "
                f"{moved / self.fused_s / 1e9:.1f} GB/s)\n"
                f"  {self.tensors} dispatches, one ExecuteCommandLists : {self.separate_s * 1e3:8.2f} ms "
                f"({self.separate_launches} launches) -> fused is {self.speedup:.1f}x faster\n"
                f"  {self.tensors} dispatches, one ExecuteCommandLists each: {self.per_call_s * 1e3:8.2f} ms "
                f"-> fused is {self.per_call_s / self.fused_s:.1f}x faster")


def _adam_desc(count: int, elements: int) -> DML_OPERATOR_DESC:
    t = buffer_tensor(_F32, [elements])
    tensors = [t] * count
    desc = DMLSIM_ONNX_ADAM_OPERATOR_DESC(count, buffer_tensor(_F32, [1]), buffer_tensor(_I64, [1]),
                                          tensors, tensors, tensors, tensors, tensors, tensors, tensors,
                                          NormCoefficient=0.0, NormCoefficientPost=0.0, Alpha=0.9, Beta=0.999,
                                          Epsilon=1e-8)
    return DML_OPERATOR_DESC(DML_OPERATOR_TYPE.DMLSIM_OPERATOR_ONNX_ADAM, desc)


def _scalar(device: Device, value: Any) -> Any:
    buffer = device.CreateBuffer(16)
    buffer.Write(np.array([value]))
    return buffer_binding(buffer, 0, 16)


def _dispatch(device: Device, op_desc: DML_OPERATOR_DESC, buffers: dict[str, Any], first: int, count: int,
              stride: int, rate: Any, step: Any) -> Any:
    """A command list that updates tensors first..first+count of the flat role buffers (in place)."""
    compiled = device.CompileOperator(device.CreateOperator(op_desc))
    props = compiled.GetBindingProperties()
    table = device.CreateBindingTable(DML_BINDING_TABLE_DESC(compiled, SizeInDescriptors=props.RequiredDescriptorCount))

    def array(role: str) -> Any:
        return buffer_array_binding([(buffers[role], (first + i) * stride, stride) for i in range(count)])

    table.BindInputs([rate, step, *(array(role) for role in _ROLES)])
    table.BindOutputs([array(role) for role in ("X", "V", "H")])
    cmd = device.CreateCommandList()
    device.CreateCommandRecorder().RecordDispatch(cmd, compiled, table)
    return cmd


def _best(queue: Any, lists: list[Any], repeats: int, one_call: bool = True) -> tuple[float, int]:
    """Best wall time of executing ``lists`` (in one ExecuteCommandLists call, or one call per list)."""
    queue.ExecuteCommandLists(lists)  # warm-up: kernel build and first-touch costs stay out
    queue.WaitForIdle()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        if one_call:
            queue.ExecuteCommandLists(lists)
        else:
            for cmd in lists:
                queue.ExecuteCommandLists([cmd])
        queue.WaitForIdle()
        best = min(best, time.perf_counter() - start)
    return best, len(queue.last_timings)


def measure_multi_tensor(device: Device | str | None = None, tensors: int = 1000, elements: int = 4096,
                         repeats: int = 5) -> MultiTensorResult:
    """Time ``tensors`` ONNX Adam updates of ``elements`` FLOAT32 each: one dispatch vs one per tensor."""
    if not isinstance(device, Device):
        device = DMLCreateDevice(0, device)
    stride = -(-elements * 4 // 16) * 16
    rng = np.random.default_rng(0)
    buffers = {}
    for role in _ROLES:
        buffers[role] = device.CreateBuffer(stride * tensors)
        data = rng.standard_normal(stride * tensors // 4).astype(np.float32)
        buffers[role].Write(np.abs(data) if role == "H" else data * 1e-3)
    rate, step = _scalar(device, np.float32(1e-3)), _scalar(device, np.int64(1))
    queue = device.CreateCommandQueue()
    fused = _dispatch(device, _adam_desc(tensors, elements), buffers, 0, tensors, stride, rate, step)
    fused_s, fused_launches = _best(queue, [fused], repeats)
    single = _adam_desc(1, elements)
    separate = [_dispatch(device, single, buffers, i, 1, stride, rate, step) for i in range(tensors)]
    separate_s, separate_launches = _best(queue, separate, repeats)
    per_call_s, _ = _best(queue, separate, repeats, one_call=False)
    return MultiTensorResult(device.description, tensors, elements, fused_s, fused_launches, separate_s,
                             separate_launches, per_call_s)
