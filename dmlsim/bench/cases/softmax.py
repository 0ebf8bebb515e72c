"""Bench cases ``softmax`` and ``softmax1``: DML_OPERATOR_ACTIVATION_SOFTMAX (along the last dimension) and
ACTIVATION_SOFTMAX1 with Axes {1}, FLOAT32/FLOAT16, on an N x N packed tensor (issue 25's memory-bound point).
A size is N.

Traffic: the input read once and the output written once (N² elements each; a row of N is small enough to be
read again from the cache). Peer: numpy's softmax into preallocated arrays (row maximum, x - max, exp in place,
row sum, divide in place; float32 also for FLOAT16, labelled so in a note).
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


def softmax_workload(device: Any, dtype: str, n: int, axes: bool, peers: tuple[str, ...]) -> Workload:
    """SOFTMAX (``axes``: SOFTMAX1 with Axes {1}) of a packed N x N tensor, with numpy's peer."""
    data_type, np_type = DATA_TYPES[dtype]
    tensor = dml.buffer_tensor(data_type, [n, n])
    if axes:
        desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_SOFTMAX1,
                                     dml.DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC(tensor, tensor, 1, [1]))
    else:
        desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_SOFTMAX,
                                     dml.DML_ACTIVATION_SOFTMAX_OPERATOR_DESC(tensor, tensor))
    x = normal(np.random.default_rng(0), n * n, np_type).reshape(n, n)
    prepared = prepare_operator(device, desc, {"InputTensor": x})
    size = np.dtype(np_type).itemsize
    work = Workload(prepared.compiled, prepared.table, 2 * n * n * size, inplace=False,
                    traffic=Traffic(1, 1, size, n * n, False))
    if "numpy" in peers:
        x32 = x.astype(np.float32)
        out, row = np.empty((n, n), np.float32), np.empty((n, 1), np.float32)
        if dtype == "float16":
            work.notes.append("FLOAT16 points: numpy's peer computes in float32")

        def numpy_softmax() -> None:
            np.max(x32, axis=1, keepdims=True, out=row)
            np.subtract(x32, row, out=out)
            np.exp(out, out=out)
            np.sum(out, axis=1, keepdims=True, out=row)
            np.divide(out, row, out=out)
        work.peers["numpy"] = numpy_softmax
    return work


@register_case
class SoftmaxCase(BenchCase):
    name = "softmax"
    description = "DML_OPERATOR_ACTIVATION_SOFTMAX along the last dimension of an N x N tensor"
    dtypes = ("float32", "float16")
    default_sizes = (1024, 4096)
    size_unit = "N (N x N tensor)"

    def elements_of(self, size: int) -> int:
        return size * size

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        return softmax_workload(device, dtype, elements, False, peers)


@register_case
class Softmax1Case(BenchCase):
    name = "softmax1"
    description = "DML_OPERATOR_ACTIVATION_SOFTMAX1 with Axes {1} of an N x N tensor"
    dtypes = ("float32", "float16")
    default_sizes = (1024, 4096)
    size_unit = "N (N x N tensor)"

    def elements_of(self, size: int) -> int:
        return size * size

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        return softmax_workload(device, dtype, elements, True, peers)
