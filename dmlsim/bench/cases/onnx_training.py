"""Bench cases ``onnx-adagrad``, ``onnx-adam``, ``onnx-momentum``: multi-tensor apply, fused vs per tensor.

A point of N elements is N / 4096 tensors of 4096 elements (``--sizes 4000K`` is 1000 tensors;
a remainder becomes one smaller tensor, a size below 4096 one tensor) in the fused-optimizer layout:
one flat buffer per role, tensors at aligned offsets, each bound as one range of a BUFFER_ARRAY
binding. The dmlsim figure is one dispatch (one launch) updating every tensor, at T = 10.

Peers besides numpy and torch:

- ``dmlsim-per-tensor``: the same operator with TensorCount 1, one pre-recorded command list per
  tensor over the same buffers, all submitted by one ExecuteCommandLists + WaitForIdle (the cheapest
  way to issue them). Always timed: it is what multi-tensor apply is for, and its ``x`` ratio is the
  fused speedup (on host time per call, so the fused side also pays for its RecordDispatch).
- ``dmlsim-per-tensor-calls``: one ExecuteCommandLists + WaitForIdle per tensor, as a per-parameter
  optimizer loop in a framework issues them.
- ``numpy-reference``: the float64 references of ``dmlsim.operators.onnx_training.reference``.
- ``torch-fused-*``: ``torch.optim.Adagrad`` / ``Adam`` / ``SGD(momentum, nesterov)`` with ``fused=True``
  over the same tensors (torch's own fused multi-tensor path, its fastest); formulas differ in detail
  (ε placement, regularization), so the comparison is speed only.

Bytes moved per element: every role read once and every output written once (Adagrad and Momentum
5 accesses, Adam 7) of the element size; R and T are not counted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.api.schema import INPUT, desc_fields
from dmlsim.bench.data import normal
from dmlsim.bench.peers import add_torch_peers
from dmlsim.bench.registry import BenchCase, Traffic, Workload, register_case
from dmlsim.operators.onnx_training import (
    DMLSIM_ONNX_ADAGRAD_OPERATOR_DESC,
    DMLSIM_ONNX_ADAM_OPERATOR_DESC,
    DMLSIM_ONNX_MOMENTUM_MODE,
    DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC,
)
from dmlsim.operators.onnx_training.reference import onnx_adagrad, onnx_adam, onnx_momentum
from dmlsim.quick import Region, bind_regions, prepare_operator

TENSOR_ELEMENTS = 4096
RATE, STEP = 1e-3, 10
DATA_TYPES = {"float32": (dml.DML_TENSOR_DATA_TYPE_FLOAT32, np.float32),
              "float16": (dml.DML_TENSOR_DATA_TYPE_FLOAT16, np.float16),
              "float64": (dml.DML_TENSOR_DATA_TYPE_FLOAT64, np.float64)}
R_FIELD, T_FIELD = "LearningRateTensor", "UpdateCountTensor"


@dataclass(frozen=True)
class OnnxOptimizer:
    """What differs between the three cases: the operator, its attributes, its reference and torch's peer."""

    op_type: int
    desc_cls: type
    attributes: dict[str, Any]
    reference: Callable[..., Any]
    torch_optimizer: Callable[[Any, list[Any]], Any]
    accesses: int

    @property
    def reference_kwargs(self) -> dict[str, Any]:
        """The desc's attributes as the reference's keyword arguments (``NormCoefficient`` → ``norm_coefficient``)."""
        kwargs = {re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower(): value for name, value in self.attributes.items()}
        if "mode" in kwargs:
            kwargs["nesterov"] = kwargs.pop("mode") == DMLSIM_ONNX_MOMENTUM_MODE.DMLSIM_ONNX_MOMENTUM_MODE_NESTEROV
        return kwargs


def tensor_sizes(elements: int) -> list[int]:
    """``elements`` as tensors of TENSOR_ELEMENTS (the remainder as one smaller tensor)."""
    full, rest = divmod(elements, TENSOR_ELEMENTS)
    return [TENSOR_ELEMENTS] * full + ([rest] if rest else [])


class OnnxMultiTensorCase(BenchCase):
    """One ONNX training optimizer over many tensors: subclasses set ``name`` and ``optimizer``."""

    dtypes = ("float32", "float16", "float64")
    default_sizes = (1 << 12, 1 << 18, 4000 << 10)
    arrays = 7  # Adam's: parameters, gradients, two moments in, three out (the others move fewer)
    optimizer: OnnxOptimizer

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        opt = self.optimizer
        data_type, np_type = DATA_TYPES[dtype]
        sizes = tensor_sizes(elements)
        tensors = [dml.buffer_tensor(data_type, [n]) for n in sizes]
        arrays = [row.name for row in desc_fields(opt.desc_cls) if row.is_array]
        scalars = {R_FIELD: dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_FLOAT32, [1]),
                   T_FIELD: dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_INT64, [1])}

        def op_desc(descs: list[Any]) -> Any:
            desc = opt.desc_cls(TensorCount=len(descs), **scalars, **dict.fromkeys(arrays, descs), **opt.attributes)
            return dml.DML_OPERATOR_DESC(opt.op_type, desc)

        rng = np.random.default_rng(0)
        roles = [row.name for row in desc_fields(opt.desc_cls) if row.is_array and row.spec.role == INPUT]
        # state and gradients positive and small: every optimizer's square roots stay real, nothing overflows
        host = {role: [normal(rng, n, np_type, 1e-2, absolute=True) for n in sizes] for role in roles}
        fused = prepare_operator(device, op_desc(tensors), {**host, R_FIELD: np.float32(RATE), T_FIELD: np.int64(STEP)},
                                 inplace=inplace, flat_arrays=True)
        size = np.dtype(np_type).itemsize
        # every role read, every state and the parameters written: Adam 4 + 3, Adagrad and Momentum 3 + 2
        traffic = Traffic((opt.accesses + 1) // 2, opt.accesses // 2, size, elements, inplace)
        work = Workload(fused.compiled, fused.table, opt.accesses * elements * size, traffic=traffic)
        work.notes.append(f"{self.name}: {len(sizes)} tensor(s) of up to {TENSOR_ELEMENTS} elements, one flat "
                          "buffer per role; x dmlsim-per-tensor = fused speedup over one dispatch per tensor")
        self._per_tensor_peers(device, work, fused.regions, tensors, op_desc)
        if "numpy" in peers:
            def numpy_reference() -> None:
                opt.reference(RATE, STEP, *host.values(), **opt.reference_kwargs)
            work.peers["numpy-reference"] = numpy_reference
        if "torch" in peers:
            add_torch_peers(work, "fused", host[roles[0]], host[roles[1]], opt.torch_optimizer)
        return work

    @staticmethod
    def _per_tensor_peers(device: Any, work: Workload, regions: dict[str, Any], tensors: list[Any],
                          op_desc: Callable[[list[Any]], Any]) -> None:
        """One TensorCount-1 dispatch per tensor over the fused dispatch's regions, in two submission styles."""
        compiled_by_size: dict[int, Any] = {}
        lists = []
        for i, tensor in enumerate(tensors):
            size = tensor.Desc.Sizes[0]
            if size not in compiled_by_size:
                compiled_by_size[size] = device.CompileOperator(device.CreateOperator(op_desc([tensor])))
            compiled = compiled_by_size[size]
            own: dict[str, Region | list[Region]] = {
                name: [region[i]] if isinstance(region, list) else region for name, region in regions.items()}
            cmd = device.CreateCommandList()
            device.CreateCommandRecorder().RecordDispatch(cmd, compiled, bind_regions(device, compiled, own))
            lists.append(cmd)
        queue = device.CreateCommandQueue()

        def one_submission() -> None:
            queue.ExecuteCommandLists(lists)
            queue.WaitForIdle()

        def one_call_each() -> None:
            for cmd in lists:
                queue.ExecuteCommandLists([cmd])
                queue.WaitForIdle()
        work.peers["dmlsim-per-tensor"] = one_submission
        work.peers["dmlsim-per-tensor-calls"] = one_call_each


@register_case
class OnnxAdagradCase(OnnxMultiTensorCase):
    name = "onnx-adagrad"
    description = "DMLSIM_OPERATOR_ONNX_ADAGRAD, tensors of 4096 elements, one fused dispatch vs one per tensor"
    optimizer = OnnxOptimizer(
        dml.DMLSIM_OPERATOR_ONNX_ADAGRAD, DMLSIM_ONNX_ADAGRAD_OPERATOR_DESC,
        {"NormCoefficient": 1e-3, "Epsilon": 1e-6, "DecayFactor": 0.1}, onnx_adagrad,
        lambda torch, params: torch.optim.Adagrad(params, lr=RATE, lr_decay=0.1, weight_decay=1e-3, eps=1e-6,
                                                  fused=True),
        accesses=5)


@register_case
class OnnxAdamCase(OnnxMultiTensorCase):
    name = "onnx-adam"
    description = "DMLSIM_OPERATOR_ONNX_ADAM, tensors of 4096 elements, one fused dispatch vs one per tensor"
    optimizer = OnnxOptimizer(
        dml.DMLSIM_OPERATOR_ONNX_ADAM, DMLSIM_ONNX_ADAM_OPERATOR_DESC,
        {"NormCoefficient": 1e-3, "NormCoefficientPost": 0.0, "Alpha": 0.9, "Beta": 0.999, "Epsilon": 1e-8},
        onnx_adam,
        lambda torch, params: torch.optim.Adam(params, lr=RATE, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-3,
                                               fused=True),
        accesses=7)


@register_case
class OnnxMomentumCase(OnnxMultiTensorCase):
    name = "onnx-momentum"
    description = "DMLSIM_OPERATOR_ONNX_MOMENTUM (Nesterov), tensors of 4096 elements, fused vs one per tensor"
    optimizer = OnnxOptimizer(
        dml.DMLSIM_OPERATOR_ONNX_MOMENTUM, DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC,
        {"NormCoefficient": 1e-3, "Alpha": 0.9, "Beta": 1.0,
         "Mode": DMLSIM_ONNX_MOMENTUM_MODE.DMLSIM_ONNX_MOMENTUM_MODE_NESTEROV},
        onnx_momentum,
        lambda torch, params: torch.optim.SGD(params, lr=RATE, momentum=0.9, nesterov=True, weight_decay=1e-3,
                                              fused=True),
        accesses=5)
