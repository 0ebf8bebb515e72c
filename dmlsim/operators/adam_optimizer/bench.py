"""Bench case ``adam``: DML_OPERATOR_ADAM_OPTIMIZER on packed 1-D tensors.

Bytes moved per element: X, M, V, G read and X, M, V written (7 accesses of the element size:
28 bytes FLOAT32, 14 FLOAT16); the step tensor's 4 bytes are not counted.
Peers: the numpy reference (``dmlsim.operators.adam_optimizer.reference``: the documented formula in float64,
what dmlsim checks against) and ``torch.optim.Adam(fused=True)`` (CPU, and CUDA when present). Their
ε placement differs from DirectML's (PyTorch adds ε to sqrt(v̂)): the comparison is speed only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.bench.peers import add_torch_peers
from dmlsim.bench.registry import BenchCase, Traffic, Workload, register_case
from dmlsim.operators.adam_optimizer.reference import adam_optimizer
from dmlsim.quick import prepare_operator

HYPER = {"learning_rate": 1e-3, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8}
DATA_TYPES = {"float32": (dml.DML_TENSOR_DATA_TYPE_FLOAT32, np.float32),
              "float16": (dml.DML_TENSOR_DATA_TYPE_FLOAT16, np.float16)}
STEP = 10


@register_case
class AdamCase(BenchCase):
    name = "adam"
    description = "DML_OPERATOR_ADAM_OPTIMIZER, packed [1,1,1,N] tensors, T = 10"
    dtypes = ("float32", "float16")

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        data_type, np_type = DATA_TYPES[dtype]
        shape = [1, 1, 1, elements]
        tensor = dml.buffer_tensor(data_type, shape)
        step = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_UINT32, [1, 1, 1, 1])
        desc = dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC(tensor, tensor, tensor, tensor, step, tensor, tensor, tensor,
                                                    *HYPER.values())
        rng = np.random.default_rng(0)
        host = {"x": rng.standard_normal(elements).astype(np_type),
                "m": (0.1 * rng.standard_normal(elements)).astype(np_type),
                "v": (0.01 * np.abs(rng.standard_normal(elements))).astype(np_type),
                "g": rng.standard_normal(elements).astype(np_type)}
        fields = ("InputParametersTensor", "InputFirstMomentTensor", "InputSecondMomentTensor", "GradientTensor")
        prepared = prepare_operator(device, dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ADAM_OPTIMIZER, desc),
                                    {**dict(zip(fields, host.values(), strict=True)),
                                     "TrainingStepTensor": np.uint32(STEP)}, inplace=inplace)
        size = np.dtype(np_type).itemsize
        work = Workload(prepared.compiled, prepared.table, 7 * elements * size,
                        traffic=Traffic(4, 3, size, elements, inplace))  # X, M, V, G read; X, M, V written
        if "numpy" in peers:
            def numpy_reference() -> None:
                adam_optimizer(host["x"], host["m"], host["v"], host["g"], STEP, **HYPER)
            work.peers["numpy-reference"] = numpy_reference
        if "torch" in peers:
            add_torch_peers(work, "fused", [host["x"]], [host["g"]], lambda torch, params: torch.optim.Adam(
                params, lr=HYPER["learning_rate"], betas=(HYPER["beta1"], HYPER["beta2"]), eps=HYPER["epsilon"],
                fused=True))
        return work
