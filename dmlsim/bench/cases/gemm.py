"""Bench cases ``gemm`` and ``gemm-skinny``: DML_OPERATOR_GEMM FLOAT32/FLOAT16, Output = A x B.

``gemm``: square matrices, a size is N (N x N). ``gemm-skinny``: a size is M, the rows of A and of the output,
with K = N = 2048 (M = 1 is a matrix-vector product). Reported: FLOP/s (2·M·N·K per dispatch) beside GB/s of the
elements read and written once, which a GEMM does not stream (it is compute-bound from a few hundred on), and a
note naming the kernel the planner chose (dmlsim.bench.plans). Peers: ``numpy.matmul`` into a preallocated array
and ``torch.matmul(out=...)`` (CPU, and CUDA when present), in float32 also for the FLOAT16 points (numpy has no
float32-accumulating half GEMM: the FLOAT16 point's peer is numpy's float32 one, labelled so in a note).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.bench.peers import torch_devices, torch_module
from dmlsim.bench.plans import planned_kernels
from dmlsim.bench.registry import ELEMENT_BYTES, BenchCase, Workload, register_case
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
    arrays = 3

    def elements_of(self, size: int) -> int:
        return size * size

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        return gemm_workload(device, dtype, elements, elements, elements, peers)


@register_case
class SkinnyGemmCase(BenchCase):
    name = "gemm-skinny"
    description = "DML_OPERATOR_GEMM, Output = A x B with A M x 2048, B 2048 x 2048 (M = 1: matrix-vector)"
    dtypes = ("float32", "float16")
    default_sizes = (1, 8, 64)
    size_unit = "M (rows of A; K = N = 2048)"

    def footprint(self, dtype: str, size: int) -> int | None:
        return (2 * size + SKINNY_KN) * SKINNY_KN * ELEMENT_BYTES[dtype]  # A and the output M x 2048, B 2048 x 2048

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        return gemm_workload(device, dtype, elements, SKINNY_KN, SKINNY_KN, peers)


SKINNY_KN = 2048


def gemm_workload(device: Any, dtype: str, m: int, k: int, n: int, peers: tuple[str, ...]) -> Workload:
    """One GEMM point, M x K times K x N, with its peers and a note of the planner's choice."""
    data_type, np_type = DATA_TYPES[dtype]
    desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_GEMM, dml.DML_GEMM_OPERATOR_DESC(
        dml.buffer_tensor(data_type, [m, k]), dml.buffer_tensor(data_type, [k, n]), None,
        dml.buffer_tensor(data_type, [m, n]), dml.DML_MATRIX_TRANSFORM_NONE, dml.DML_MATRIX_TRANSFORM_NONE, 1.0, 0.0,
        None))
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((m, k)).astype(np_type), rng.standard_normal((k, n)).astype(np_type)
    prepared = prepare_operator(device, desc, {"ATensor": a, "BTensor": b})
    work = Workload(prepared.compiled, prepared.table, (m * k + k * n + m * n) * np.dtype(np_type).itemsize,
                    items=2 * m * n * k, item_unit="FLOP", inplace=False)
    work.notes.append(f"{m}x{k}x{n} {dtype}: planner chose {planned_kernels(prepared)}")
    if dtype == "float16":
        work.notes.append("FLOAT16 points: the peers compute in float32 (numpy has no half GEMM accumulating in "
                          "float32)")
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    if "numpy" in peers:
        out = np.empty((m, n), np.float32)

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
    """torch's matmul on ``where``; on CUDA cuBLAS FLOAT32 without TF32 (issue 25's yardstick), its duration (ns)
    measured by CUDA events: device time, as dmlsim's."""
    ta, tb = torch.from_numpy(a).to(where), torch.from_numpy(b).to(where)
    out = torch.empty((a.shape[0], b.shape[1]), dtype=ta.dtype, device=where)

    def run() -> None:
        torch.matmul(ta, tb, out=out)
    if where != "cuda":
        return run
    torch.backends.cuda.matmul.allow_tf32 = False
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def run_cuda() -> float:
        start.record()
        torch.matmul(ta, tb, out=out)
        end.record()
        end.synchronize()
        return start.elapsed_time(end) * 1e6
    return run_cuda
