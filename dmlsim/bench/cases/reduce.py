"""Bench cases ``reduce-sum`` and ``reduce-sum-middle``: DML_OPERATOR_REDUCE with DML_REDUCE_FUNCTION_SUM,
FLOAT32/FLOAT16 (issue 25's memory-bound points).

``reduce-sum``: an N x N packed tensor reduced over its last axis (each output element sums one contiguous row
of N). ``reduce-sum-middle``: a packed [8, N, N/8] tensor reduced over its middle axis (each output element
sums N elements N/8 apart; neighbouring outputs read neighbouring addresses). A size is N (N a multiple of 8
for the middle case).

Traffic: the input read once (N² elements). The N output elements written are left out of the bytes moved and
of the same-traffic limits (``Traffic(1, 0, ...)``: one array streamed, nothing of its size written): 1/N of
the input, 0.02 % at N = 4096. Peer: ``numpy.sum`` over the same axis into a preallocated array (float32
accumulation also for FLOAT16, labelled so in a note: numpy's float16 sum would accumulate in float16).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.bench.data import normal
from dmlsim.bench.registry import BenchCase, Traffic, Workload, register_case
from dmlsim.quick import prepare_operator

DATA_TYPES = {"float32": (dml.DML_TENSOR_DATA_TYPE_FLOAT32, np.float32),
              "float16": (dml.DML_TENSOR_DATA_TYPE_FLOAT16, np.float16)}
MIDDLE_OUTER = 8  # reduce-sum-middle's leading dimension


def reduce_workload(device: Any, dtype: str, shape: tuple[int, ...], axis: int, peers: tuple[str, ...]) -> Workload:
    """REDUCE SUM of a packed ``shape`` tensor over ``axis``, with numpy's peer."""
    data_type, np_type = DATA_TYPES[dtype]
    out_shape = tuple(1 if d == axis else s for d, s in enumerate(shape))
    desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_REDUCE, dml.DML_REDUCE_OPERATOR_DESC(
        Function=dml.DML_REDUCE_FUNCTION_SUM, InputTensor=dml.buffer_tensor(data_type, list(shape)),
        OutputTensor=dml.buffer_tensor(data_type, list(out_shape)), AxisCount=1, Axes=[axis]))
    elements = int(np.prod(shape))
    x = normal(np.random.default_rng(0), elements, np_type).reshape(shape)
    prepared = prepare_operator(device, desc, {"InputTensor": x})
    size = np.dtype(np_type).itemsize
    work = Workload(prepared.compiled, prepared.table, elements * size, inplace=False,
                    traffic=Traffic(1, 0, size, elements, False))
    work.notes.append(f"{'x'.join(map(str, shape))} {dtype} over axis {axis}: the {elements // shape[axis]} outputs "
                      "written are left out of the bytes moved")
    if "numpy" in peers:
        out = np.empty(out_shape, np.float32)
        if dtype == "float16":
            work.notes.append("FLOAT16 points: numpy's peer accumulates in float32 (dtype=float32)")

        def numpy_sum() -> None:
            np.sum(x, axis=axis, dtype=np.float32, keepdims=True, out=out)
        work.peers["numpy"] = numpy_sum
    return work


@register_case
class ReduceSumCase(BenchCase):
    name = "reduce-sum"
    description = "DML_OPERATOR_REDUCE SUM over the last axis of an N x N tensor"
    dtypes = ("float32", "float16")
    default_sizes = (1024, 4096)
    size_unit = "N (N x N tensor)"

    def elements_of(self, size: int) -> int:
        return size * size

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        return reduce_workload(device, dtype, (elements, elements), 1, peers)


@register_case
class ReduceSumMiddleCase(BenchCase):
    name = "reduce-sum-middle"
    description = "DML_OPERATOR_REDUCE SUM over the middle axis of an [8, N, N/8] tensor"
    dtypes = ("float32", "float16")
    default_sizes = (1024, 4096)
    size_unit = "N ([8, N, N/8] tensor, N a multiple of 8)"

    def elements_of(self, size: int) -> int:
        return size * size

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        if elements % MIDDLE_OUTER:
            raise ValueError(f"reduce-sum-middle: N {elements} must be a multiple of {MIDDLE_OUTER}")
        return reduce_workload(device, dtype, (MIDDLE_OUTER, elements, elements // MIDDLE_OUTER), 1, peers)
