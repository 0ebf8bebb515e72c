"""Bench case ``adam``: DML_OPERATOR_ADAM_OPTIMIZER on packed 1-D tensors.

Bytes moved per element: X, M, V, G read and X, M, V written (7 accesses of the element size:
28 bytes FLOAT32, 14 FLOAT16); the step tensor's 4 bytes are not counted.
Peers: the numpy reference (``dmlsim.operators.adam_optimizer.reference``: the documented formula in float64,
what dmlsim checks against), ``torch.optim.Adam(fused=True)`` (CPU, and CUDA when present; its ε
placement differs from DirectML's, PyTorch adds ε to sqrt(v̂): the comparison is speed only) and
``native-adam-step``: the same step in C (``native_adam_step.c`` beside this module: the operator's kernel.cl
expression per element, float, no contraction, OpenMP, huge pages; FLOAT16 through F16C), the native limit
for the computation as well as the traffic (FLOAT16 Adam is bound by sqrt and division as much as by memory).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.bench.data import normal
from dmlsim.bench.native import NativeArrays, NativeUnavailableError, build
from dmlsim.bench.peers import add_torch_peers
from dmlsim.bench.registry import BenchCase, Traffic, Workload, register_case
from dmlsim.operators.adam_optimizer.reference import adam_optimizer
from dmlsim.quick import prepare_operator

HYPER = {"learning_rate": 1e-3, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8}
DATA_TYPES = {"float32": (dml.DML_TENSOR_DATA_TYPE_FLOAT32, np.float32),
              "float16": (dml.DML_TENSOR_DATA_TYPE_FLOAT16, np.float16)}
STEP = 10
# the C peer lives beside this module (package data, like native_memory.c and native_traffic.c)
NATIVE_STEP_SOURCE = ("dmlsim.bench.cases", "native_adam_step.c")


@register_case
class AdamCase(BenchCase):
    name = "adam"
    description = "DML_OPERATOR_ADAM_OPTIMIZER, packed [1,1,1,N] tensors, T = 10"
    dtypes = ("float32", "float16")
    arrays = 7  # parameters, gradient, first and second moments in, three out (out of place)

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        data_type, np_type = DATA_TYPES[dtype]
        shape = [1, 1, 1, elements]
        tensor = dml.buffer_tensor(data_type, shape)
        step = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_UINT32, [1, 1, 1, 1])
        desc = dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC(tensor, tensor, tensor, tensor, step, tensor, tensor, tensor,
                                                    *HYPER.values())
        rng = np.random.default_rng(0)
        host = {"x": normal(rng, elements, np_type),
                "m": normal(rng, elements, np_type, 0.1),
                "v": normal(rng, elements, np_type, 0.01, absolute=True),
                "g": normal(rng, elements, np_type)}
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
        if "native" in peers:
            add_native_peer(work, host)
        return work


class NativeAdamStep:
    """The Adam step in C (``native_adam_step.c``) over huge-page copies of ``host``'s x, m, v, g; :meth:`run`
    does one step in place and returns its time in ns. NativeUnavailableError where it cannot be built."""

    def __init__(self, host: dict[str, np.ndarray], step: int = STEP) -> None:
        self.lib = build(NATIVE_STEP_SOURCE,
                         ("STORE_HALF",) if host["x"].dtype == np.float16 else ())
        self.lib.adam_step.restype = ctypes.c_double
        self.lib.adam_step.argtypes = [*[ctypes.c_void_p] * 4, ctypes.c_size_t, *[ctypes.c_float] * 4]
        self.arrays = NativeArrays(self.lib, 4, host["x"].nbytes)
        self.names = ("x", "m", "v", "g")
        for k, name in enumerate(self.names):
            self.arrays.view(k, host[name].dtype)[:] = host[name]
        self.dtype = host["x"].dtype
        self.n = host["x"].size
        lr, beta1, beta2, epsilon = (float(np.float32(HYPER[k])) for k in ("learning_rate", "beta1", "beta2",
                                                                           "epsilon"))
        # LearningRate * Alpha once per step, in float64 then rounded (the kernel avoids 1 - b^T cancelling too)
        lr_alpha = float(np.float32(lr * np.sqrt(-np.expm1(step * np.log(beta2))) / -np.expm1(step * np.log(beta1))))
        self.scalars = (lr_alpha, beta1, beta2, epsilon)

    def array(self, name: str) -> np.ndarray:
        return self.arrays.view(self.names.index(name), self.dtype)

    def run(self) -> float:
        return float(self.lib.adam_step(*self.arrays.pointers, self.n, *self.scalars))

    def release(self) -> None:
        self.arrays.release()


def add_native_peer(work: Workload, host: dict[str, np.ndarray]) -> None:
    """``native-adam-step`` (or a note saying why it is left out)."""
    try:
        native = NativeAdamStep(host)
    except NativeUnavailableError as exc:
        work.notes.append(f"native-adam-step skipped: {exc}")
        return
    work.peers["native-adam-step"] = native.run
    previous = work.close

    def close() -> None:
        previous()
        native.release()
    work.close = close
