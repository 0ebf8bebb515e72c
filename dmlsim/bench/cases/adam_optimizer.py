"""Bench case ``adam``: DML_OPERATOR_ADAM_OPTIMIZER on packed 1-D tensors.

Bytes moved per element: X, M, V, G read and X, M, V written (7 accesses of the element size:
28 bytes FLOAT32, 14 FLOAT16); the step tensor's 4 bytes are not counted.
Peers: the numpy reference (``dmlsim.reference.adam_optimizer``: the documented formula in float64,
what dmlsim checks against) and ``torch.optim.Adam(fused=True)`` (CPU, and CUDA when present). Their
ε placement differs from DirectML's (PyTorch adds ε to sqrt(v̂)): the comparison is speed only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.bench.peers import torch_devices, torch_module
from dmlsim.bench.registry import BenchCase, Workload, register_case
from dmlsim.reference.adam_optimizer import adam_optimizer

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
        compiled = device.CompileOperator(device.CreateOperator(
            dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ADAM_OPTIMIZER, desc)))
        size = compiled.validated.layout("InputParametersTensor").total_bytes
        rng = np.random.default_rng(0)
        host = {"x": rng.standard_normal(elements).astype(np_type),
                "m": (0.1 * rng.standard_normal(elements)).astype(np_type),
                "v": (0.01 * np.abs(rng.standard_normal(elements))).astype(np_type),
                "g": rng.standard_normal(elements).astype(np_type)}
        inputs = []
        for name in ("x", "m", "v", "g"):
            buffer = device.CreateBuffer(size)
            buffer.Write(host[name])
            inputs.append(buffer)
        step_buffer = device.CreateBuffer(16)
        step_buffer.Write(np.array([STEP], np.uint32))
        outputs = inputs[:3] if inplace else [device.CreateBuffer(size) for _ in range(3)]
        props = compiled.GetBindingProperties()
        table = device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(compiled,
                                                                     SizeInDescriptors=props.RequiredDescriptorCount))
        table.BindInputs([dml.buffer_binding(b) for b in (*inputs, step_buffer)])
        table.BindOutputs([dml.buffer_binding(b) for b in outputs])
        work = Workload(compiled, table, 7 * elements * np.dtype(np_type).itemsize)
        if "numpy" in peers:
            def numpy_reference() -> None:
                adam_optimizer(host["x"], host["m"], host["v"], host["g"], STEP, **HYPER)
            work.peers["numpy-reference"] = numpy_reference
        if "torch" in peers:
            self._torch_peers(work, host)
        return work

    @staticmethod
    def _torch_peers(work: Workload, host: dict[str, np.ndarray]) -> None:
        torch = torch_module()
        if torch is None:
            work.notes.append("torch peer: torch is not installed (pip install torch)")
            return
        for where in torch_devices(torch):
            param = torch.tensor(host["x"], device=where).requires_grad_(True)
            param.grad = torch.tensor(host["g"], device=where)
            optimizer = torch.optim.Adam([param], lr=HYPER["learning_rate"],
                                         betas=(HYPER["beta1"], HYPER["beta2"]), eps=HYPER["epsilon"], fused=True)
            optimizer.step()  # creates the state (exp_avg, exp_avg_sq): later steps are the steady state

            def step(optimizer: Any = optimizer, where: str = where) -> None:
                optimizer.step()
                if where == "cuda":
                    torch.cuda.synchronize()
            work.peers[f"torch-fused-{where}"] = step
