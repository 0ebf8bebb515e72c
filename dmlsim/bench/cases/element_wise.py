"""Bench case ``add``: DML_OPERATOR_ELEMENT_WISE_ADD on packed 1-D tensors (the element-wise family's
streaming path).

Bytes moved per element: A and B read, the output written (3 accesses of the element size: 12 bytes
FLOAT32, 6 FLOAT16); in place, the output is written over A. Peers: ``numpy.add`` into a preallocated
array and ``torch.add(out=...)`` (CPU, and CUDA when present), the same traffic.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.bench.data import normal
from dmlsim.bench.peers import torch_devices, torch_module
from dmlsim.bench.registry import BenchCase, Traffic, Workload, register_case
from dmlsim.quick import bind_regions, prepare_operator

DATA_TYPES = {"float32": (dml.DML_TENSOR_DATA_TYPE_FLOAT32, np.float32),
              "float16": (dml.DML_TENSOR_DATA_TYPE_FLOAT16, np.float16)}


@register_case
class AddCase(BenchCase):
    name = "add"
    description = "DML_OPERATOR_ELEMENT_WISE_ADD, packed [N] tensors"
    dtypes = ("float32", "float16")
    arrays = 3

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        data_type, np_type = DATA_TYPES[dtype]
        tensor = dml.buffer_tensor(data_type, [elements])
        desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ELEMENT_WISE_ADD,
                                     dml.DML_ELEMENT_WISE_ADD_OPERATOR_DESC(tensor, tensor, tensor))
        rng = np.random.default_rng(0)
        a, b = (normal(rng, elements, np_type) for _ in range(2))
        prepared = prepare_operator(device, desc, {"ATensor": a, "BTensor": b})
        table = prepared.table
        if inplace:
            regions = {**prepared.regions, "OutputTensor": prepared.regions["ATensor"]}
            table = bind_regions(device, prepared.compiled, regions)
        size = np.dtype(np_type).itemsize
        work = Workload(prepared.compiled, table, 3 * elements * size, traffic=Traffic(2, 1, size, elements, inplace))
        if "numpy" in peers:
            out = a if inplace else np.empty_like(a)

            def numpy_add() -> None:
                np.add(a, b, out=out)
            work.peers["numpy"] = numpy_add
        if "torch" in peers:
            torch = torch_module()
            if torch is None:
                work.notes.append("torch: not installed")
            else:
                for where in torch_devices(torch):
                    work.peers[f"torch-{where}"] = _torch_add(torch, where, a, b, inplace)
        return work


def _torch_add(torch: Any, where: str, a: np.ndarray, b: np.ndarray, inplace: bool) -> Any:
    ta, tb = torch.from_numpy(a.copy()).to(where), torch.from_numpy(b).to(where)
    out = ta if inplace else torch.empty_like(ta)

    def run() -> None:
        torch.add(ta, tb, out=out)
        if where == "cuda":
            torch.cuda.synchronize()
    return run
