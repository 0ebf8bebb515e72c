"""Bench case ``gemm``: DML_OPERATOR_GEMM on square N x N FLOAT32/FLOAT16 matrices, Output = A x B.

A size is N (the matrices have N x N elements). Reported: FLOP/s (2·N³ per dispatch) beside GB/s of the
3·N² elements read and written once, which a GEMM does not stream (it is compute-bound from a few hundred
on). Peers: ``numpy.matmul`` into a preallocated array and ``torch.matmul(out=...)`` (CPU, and CUDA when
present), in float32.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.bench.peers import torch_devices, torch_module
from dmlsim.bench.registry import BenchCase, Workload, register_case
from dmlsim.quick import prepare_operator

DATA_TYPES = {"float32": (dml.DML_TENSOR_DATA_TYPE_FLOAT32, np.float32),
              "float16": (dml.DML_TENSOR_DATA_TYPE_FLOAT16, np.float16)}


@register_case
class GemmCase(BenchCase):
    name = "gemm"
    description = "DML_OPERATOR_GEMM, Output = A x B on N x N matrices"
    dtypes = ("float32", "float16")
    default_sizes = (64, 256, 1024)
    size_unit = "N (N x N matrices)"

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        data_type, np_type = DATA_TYPES[dtype]
        n = elements
        tensor = dml.buffer_tensor(data_type, [n, n])
        desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_GEMM, dml.DML_GEMM_OPERATOR_DESC(
            tensor, tensor, None, tensor, dml.DML_MATRIX_TRANSFORM_NONE, dml.DML_MATRIX_TRANSFORM_NONE, 1.0, 0.0, None))
        rng = np.random.default_rng(0)
        a, b = (rng.standard_normal((n, n)).astype(np_type) for _ in range(2))
        prepared = prepare_operator(device, desc, {"ATensor": a, "BTensor": b})
        work = Workload(prepared.compiled, prepared.table, 3 * n * n * np.dtype(np_type).itemsize,
                        items=2 * n**3, item_unit="FLOP", inplace=False)
        a32, b32 = a.astype(np.float32), b.astype(np.float32)
        if "numpy" in peers:
            out = np.empty_like(a32)

            def numpy_matmul() -> None:
                np.matmul(a32, b32, out=out)
            work.peers["numpy"] = numpy_matmul
        if "torch" in peers:
            torch = torch_module()
            if torch is None:
                work.notes.append("torch: not installed")
            else:
                for where in torch_devices(torch):
                    work.peers[f"torch-{where}"] = _torch_matmul(torch, where, a32, b32)
        return work


def _torch_matmul(torch: Any, where: str, a: np.ndarray, b: np.ndarray) -> Any:
    ta, tb = torch.from_numpy(a).to(where), torch.from_numpy(b).to(where)
    out = torch.empty_like(ta)

    def run() -> None:
        torch.matmul(ta, tb, out=out)
        if where == "cuda":
            torch.cuda.synchronize()
    return run
