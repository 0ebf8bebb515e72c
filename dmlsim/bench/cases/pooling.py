"""Bench cases ``max-pooling`` and ``average-pooling``: DML_OPERATOR_MAX_POOLING and AVERAGE_POOLING (IncludePadding
false), FLOAT32/FLOAT16, a 3 x 3 window at stride 1 with padding 1 over ResNet-50's stage-1 feature maps,
[N, 64, 56, 56] (issue 25's memory-bound pooling point). A size is the batch N.

The window keeps the spatial size (as Inception's pooling branches do), so that the traffic is exactly one array
read and one of the same size written (``Traffic(1, 1, ...)``): the 9 taps of a window come from the cache. Peer:
torch's ``max_pool2d`` / ``avg_pool2d`` (``count_include_pad=False``) in float32, when torch is installed (FLOAT16
points labelled so in a note).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.bench.data import normal
from dmlsim.bench.peers import torch_module
from dmlsim.bench.plans import planned_kernels
from dmlsim.bench.registry import BenchCase, Traffic, Workload, register_case
from dmlsim.quick import prepare_operator

DATA_TYPES = {"float32": (dml.DML_TENSOR_DATA_TYPE_FLOAT32, np.float32),
              "float16": (dml.DML_TENSOR_DATA_TYPE_FLOAT16, np.float16)}
CHANNELS, SIDE = 64, 56  # ResNet-50's stage-1 feature maps
WINDOW, STRIDE, PADDING = 3, 1, 1


def pooling_workload(device: Any, dtype: str, batch: int, function: str, peers: tuple[str, ...]) -> Workload:
    """MAX or AVERAGE pooling of a packed [batch, 64, 56, 56] tensor, 3 x 3 windows at stride 1, padding 1."""
    data_type, np_type = DATA_TYPES[dtype]
    sizes = [batch, CHANNELS, SIDE, SIDE]
    tensor = dml.buffer_tensor(data_type, sizes)
    window, strides, padding = [WINDOW] * 2, [STRIDE] * 2, [PADDING] * 2
    if function == "max":
        desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_MAX_POOLING, dml.DML_MAX_POOLING_OPERATOR_DESC(
            tensor, tensor, 2, strides, window, padding, padding))
    else:
        desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_AVERAGE_POOLING, dml.DML_AVERAGE_POOLING_OPERATOR_DESC(
            tensor, tensor, 2, strides, window, padding, padding, False))
    elements = int(np.prod(sizes))
    x = normal(np.random.default_rng(0), elements, np_type).reshape(sizes)
    prepared = prepare_operator(device, desc, {"InputTensor": x})
    size = np.dtype(np_type).itemsize
    work = Workload(prepared.compiled, prepared.table, 2 * elements * size, inplace=False,
                    traffic=Traffic(1, 1, size, elements, False))
    work.notes.append(f"{function} pooling {'x'.join(map(str, sizes))} {dtype}, 3 x 3 / 1, padding 1: planner chose "
                      f"{planned_kernels(prepared)}")
    if "torch" in peers:
        torch = torch_module()
        if torch is None:
            work.notes.append("torch: not installed")
        else:
            if dtype == "float16":
                work.notes.append("FLOAT16 points: torch's peer computes in float32")
            tx = torch.from_numpy(x.astype(np.float32))
            functional = torch.nn.functional

            def torch_pooling() -> None:
                if function == "max":
                    functional.max_pool2d(tx, WINDOW, STRIDE, PADDING)
                else:
                    functional.avg_pool2d(tx, WINDOW, STRIDE, PADDING, count_include_pad=False)
            work.peers["torch-cpu"] = torch_pooling
    return work


class PoolingCase(BenchCase):
    """A pooling function over [N, 64, 56, 56], 3 x 3 / 1, padding 1: subclasses set ``name`` and ``function``."""

    dtypes = ("float32", "float16")
    default_sizes = (1, 8)
    size_unit = "batch N ([N, 64, 56, 56] tensor)"
    function = ""

    def elements_of(self, size: int) -> int:
        return size * CHANNELS * SIDE * SIDE

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        return pooling_workload(device, dtype, elements, self.function, peers)


@register_case
class MaxPoolingCase(PoolingCase):
    name = "max-pooling"
    description = "DML_OPERATOR_MAX_POOLING, 3 x 3 / 1, padding 1, over [N, 64, 56, 56]"
    function = "max"


@register_case
class AveragePoolingCase(PoolingCase):
    name = "average-pooling"
    description = "DML_OPERATOR_AVERAGE_POOLING (padding not counted), 3 x 3 / 1, padding 1, over [N, 64, 56, 56]"
    function = "average"
