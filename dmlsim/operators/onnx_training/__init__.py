"""DMLSIM_OPERATOR_ONNX_ADAGRAD / _ADAM / _MOMENTUM: ONNX's training optimizers as fused multi-tensor ops.

ONNX's ``ai.onnx.preview.training`` operators update many tensors per call, their inputs grouped by
role: ``[R, T, X_1..X_n, G_1..G_n, (V_1..V_n,) (H_1..H_n)]``. The DML-style descs mirror that with a
``TensorCount`` and one tensor-desc array per role (DirectML's JOIN pattern), bound with
``DML_BINDING_TYPE_BUFFER_ARRAY``; R (learning rate) and T (update count) are scalar input tensors read
on the device; the ONNX attributes are FLOAT fields in PascalCase.

Execution is one launch for all tensors (kernel.cl beside this module): a chunk table maps each
work-group to (tensor, first element). Each role can take up to :data:`SLOTS` distinct buffers per
launch; tensors of one role that share a buffer (one flat buffer per role, tensors at offsets — the
usual fused-optimizer layout) share a slot, so any number of them runs in one launch. With more
distinct buffers than slots, the dispatch is split into as many launches as needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any, ClassVar

import numpy as np

from dmlsim.api.enums import DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.schema import FLOAT_TYPES_WITH_64, attribute, infer_array_counts, tensor_input, tensor_output
from dmlsim.api.structs import DML_TENSOR_DESC
from dmlsim.api.tensor import TensorLayout, data_type_name
from dmlsim.operators.base import Operator, ValidatedDesc, register, require_scalar
from dmlsim.operators.onnx_training.reference import onnx_adagrad, onnx_adam, onnx_momentum
from dmlsim.operators.plan import (
    BufferArg,
    Groups,
    HostArray,
    KernelLaunch,
    LaunchTarget,
    NullBuffer,
    Scalar,
    TensorArg,
)

_T = DML_TENSOR_DATA_TYPE
RATE_TYPES = (_T.DML_TENSOR_DATA_TYPE_FLOAT32, _T.DML_TENSOR_DATA_TYPE_FLOAT64)
COUNT_TYPES = (_T.DML_TENSOR_DATA_TYPE_INT64,)
RANKS = tuple(range(1, 9))

SLOTS = 8  # distinct buffers per role in one launch (SLOT_PARAMS in onnx_training.cl)
# Launch shape per device kind: (work-items per group, VEC elements per vector access, elements per
# work-group). PoCL pays per work-group and per work-item context, so on CPUs one work-item walks a
# whole chunk with float8 accesses (measured: ~3x faster than 16 work-items, ~10x faster than 64);
# GPUs want many work-items, consecutive ones reading consecutive vectors (coalesced): on an H100 (NVIDIA's
# OpenCL) 256 work-items per 4096-element chunk ran the three optimizers at 2.41-2.51 TB/s, 64 at 2.20-2.34.
CPU_SHAPE = (1, 8, 8192)
GPU_SHAPE = (256, 4, 4096)
# CPUs: work-groups per compute unit, each walking a run of consecutive chunks (GPUs: one group per chunk)
CPU_GROUPS_PER_UNIT = 8
STRIDED_CHUNK = 2048  # elements per work-group on the strided path (each work-item strides through them)
KERNEL_ROLES = ("X", "G", "V", "H", "OX", "OV", "OH")  # table and argument order of the kernel
PACKED_ENTRY = 9  # ulongs per tensor-table entry: count, 7 offsets, slots
STRIDED_ENTRY = PACKED_ENTRY + 8 + 8 * len(KERNEL_ROLES)  # + 8-D sizes + 8 strides per role


class DMLSIM_ONNX_MOMENTUM_MODE(IntEnum):
    """ONNX Momentum's ``mode`` attribute ("standard" / "nesterov")."""

    DMLSIM_ONNX_MOMENTUM_MODE_STANDARD = 0
    DMLSIM_ONNX_MOMENTUM_MODE_NESTEROV = 1


def _tensors() -> Any:
    return tensor_input(FLOAT_TYPES_WITH_64, dimension_counts=RANKS, array_count="TensorCount")


def _gradients() -> Any:
    return tensor_input(FLOAT_TYPES_WITH_64, dimension_counts=RANKS, array_count="TensorCount",
                        inplace_eligible=False)


def _outputs(aliases: str) -> Any:
    return tensor_output(FLOAT_TYPES_WITH_64, dimension_counts=RANKS, array_count="TensorCount", aliases=aliases)


def _rate() -> Any:
    return tensor_input(RATE_TYPES, dimension_counts=RANKS, inplace_eligible=False)


def _count() -> Any:
    return tensor_input(COUNT_TYPES, dimension_counts=RANKS, inplace_eligible=False)


class _InferTensorCount:
    """TensorCount may be left out: it is then the length of InputParametersTensors (the first array)."""

    def __post_init__(self) -> None:
        infer_array_counts(self)


@dataclass
class DMLSIM_ONNX_ADAGRAD_OPERATOR_DESC(_InferTensorCount):
    """ONNX Adagrad: inputs R, T, X[n], G[n], H[n] → X_new[n], H_new[n]."""

    TensorCount: int | None = None
    LearningRateTensor: DML_TENSOR_DESC | None = _rate()
    UpdateCountTensor: DML_TENSOR_DESC | None = _count()
    InputParametersTensors: list[DML_TENSOR_DESC] | None = _tensors()
    GradientTensors: list[DML_TENSOR_DESC] | None = _gradients()
    InputAccumulatedSquaredGradientTensors: list[DML_TENSOR_DESC] | None = _tensors()
    OutputParametersTensors: list[DML_TENSOR_DESC] | None = _outputs("InputParametersTensors")
    OutputAccumulatedSquaredGradientTensors: list[DML_TENSOR_DESC] | None = _outputs(
        "InputAccumulatedSquaredGradientTensors")
    NormCoefficient: float | None = attribute("FLOAT")
    Epsilon: float | None = attribute("FLOAT")
    DecayFactor: float | None = attribute("FLOAT")


@dataclass
class DMLSIM_ONNX_ADAM_OPERATOR_DESC(_InferTensorCount):
    """ONNX Adam: inputs R, T, X[n], G[n], V[n], H[n] → X_new[n], V_new[n], H_new[n]."""

    TensorCount: int | None = None
    LearningRateTensor: DML_TENSOR_DESC | None = _rate()
    UpdateCountTensor: DML_TENSOR_DESC | None = _count()
    InputParametersTensors: list[DML_TENSOR_DESC] | None = _tensors()
    GradientTensors: list[DML_TENSOR_DESC] | None = _gradients()
    InputFirstMomentTensors: list[DML_TENSOR_DESC] | None = _tensors()
    InputSecondMomentTensors: list[DML_TENSOR_DESC] | None = _tensors()
    OutputParametersTensors: list[DML_TENSOR_DESC] | None = _outputs("InputParametersTensors")
    OutputFirstMomentTensors: list[DML_TENSOR_DESC] | None = _outputs("InputFirstMomentTensors")
    OutputSecondMomentTensors: list[DML_TENSOR_DESC] | None = _outputs("InputSecondMomentTensors")
    NormCoefficient: float | None = attribute("FLOAT")
    NormCoefficientPost: float | None = attribute("FLOAT")
    Alpha: float | None = attribute("FLOAT")
    Beta: float | None = attribute("FLOAT")
    Epsilon: float | None = attribute("FLOAT")


@dataclass
class DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC(_InferTensorCount):
    """ONNX Momentum: inputs R, T, X[n], G[n], V[n] → X_new[n], V_new[n]; standard or Nesterov."""

    TensorCount: int | None = None
    LearningRateTensor: DML_TENSOR_DESC | None = _rate()
    UpdateCountTensor: DML_TENSOR_DESC | None = _count()
    InputParametersTensors: list[DML_TENSOR_DESC] | None = _tensors()
    GradientTensors: list[DML_TENSOR_DESC] | None = _gradients()
    InputMomentumTensors: list[DML_TENSOR_DESC] | None = _tensors()
    OutputParametersTensors: list[DML_TENSOR_DESC] | None = _outputs("InputParametersTensors")
    OutputMomentumTensors: list[DML_TENSOR_DESC] | None = _outputs("InputMomentumTensors")
    NormCoefficient: float | None = attribute("FLOAT")
    Alpha: float | None = attribute("FLOAT")
    Beta: float | None = attribute("FLOAT")
    Mode: DMLSIM_ONNX_MOMENTUM_MODE | int | None = attribute(DMLSIM_ONNX_MOMENTUM_MODE)


R, T, X, G = "LearningRateTensor", "UpdateCountTensor", "InputParametersTensors", "GradientTensors"
OX = "OutputParametersTensors"


class OnnxTrainingOperator(Operator):
    """What the three ONNX optimizers share: validation, the chunk table and the fused launch."""

    roles: ClassVar[dict[str, str]]  # kernel role ("X", "G", "V", "H", "OX", "OV", "OH") → desc field
    optimizer: ClassVar[str]  # OPTIMIZER define of onnx_training.cl

    # --- validation -------------------------------------------------------------------------------
    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        require_scalar(v, problems, R)
        require_scalar(v, problems, T)
        xs = v.tensors[X]
        first = xs[0]
        for i, x in enumerate(xs):
            if x.data_type != first.data_type:
                problems.add(f"{v.struct_name}.{X}[{i}].DataType {data_type_name(x.data_type)} must equal "
                             f"{X}[0].DataType {data_type_name(first.data_type)} (one type for all tensors)")
            for name in self.roles.values():
                if name == X:
                    continue
                other = v.tensors[name][i]
                if other.data_type != x.data_type:
                    problems.add(f"{v.struct_name}.{name}[{i}].DataType {data_type_name(other.data_type)} must "
                                 f"equal {X}[{i}].DataType {data_type_name(x.data_type)}")
                if other.sizes != x.sizes:
                    problems.add(f"{v.struct_name}.{name}[{i}].Sizes {list(other.sizes)} must equal "
                                 f"{X}[{i}].Sizes {list(x.sizes)}")

    # --- execution --------------------------------------------------------------------------------
    def scalars(self, inputs: dict[str, Any]) -> tuple[float, int]:
        """R and T as read from their bound scalar tensors."""
        return float(np.asarray(inputs[R]).reshape(-1)[0]), int(np.asarray(inputs[T]).reshape(-1)[0])

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        count = len(v.tensors[X])
        data_type = v.tensors[X][0].data_type
        rate_type = v.layout(R).data_type
        launches = []
        for strided in (False, True):
            group = [i for i in range(count) if self._is_strided(bound, i) == strided]
            for batch in self._batches(bound, group):
                launches.append(self._launch(v, bound, batch, strided, data_type, rate_type, target))
        return launches

    def _is_strided(self, bound: dict[str, Any], i: int) -> bool:
        return not all(bound[name][i].layout.is_packed for name in self.roles.values())

    def _batches(self, bound: dict[str, Any], tensors: list[int]) -> list[list[tuple[int, dict[str, int]]]]:
        """Split tensors into launches using at most SLOTS distinct buffers per role; give each its slots."""
        batches: list[list[tuple[int, dict[str, int]]]] = []
        slot_of: dict[str, dict[Any, int]] = {}
        for i in tensors:
            buffers = {role: bound[name][i].buffer for role, name in self.roles.items()}
            fits = batches and all(b in slot_of[r] or len(slot_of[r]) < SLOTS for r, b in buffers.items())
            if not fits:
                batches.append([])
                slot_of = {role: {} for role in self.roles}
            for role, buffer in buffers.items():
                slot_of[role].setdefault(buffer, len(slot_of[role]))
            batches[-1].append((i, {role: slot_of[role][buffer] for role, buffer in buffers.items()}))
        return batches

    def _launch(self, v: ValidatedDesc, bound: dict[str, Any], batch: list[tuple[int, dict[str, int]]],
                strided: bool, data_type: int, rate_type: int, target: LaunchTarget) -> KernelLaunch:
        entry_size = STRIDED_ENTRY if strided else PACKED_ENTRY
        local_size, vec, chunk = target.pick(cpu=CPU_SHAPE, gpu=GPU_SHAPE)
        vec = target.vector_width(vec, 8 if data_type == _T.DML_TENSOR_DATA_TYPE_FLOAT64 else 4)
        if strided:
            chunk = STRIDED_CHUNK
        table = np.zeros((len(batch), entry_size), np.uint64)
        # SLOT_PARAMS(q, x) of the kernel: one buffer parameter x0 ... x7 per slot of each role (null if unused)
        slot_buffers: dict[str, list[Any]] = {role: [NullBuffer(f"{role.lower()}{s}") for s in range(SLOTS)]
                                              for role in KERNEL_ROLES}
        chunks = []
        for row, (i, slots) in enumerate(batch):
            x: TensorLayout = v.tensors[X][i]
            n = x.element_count
            table[row, 0] = n
            packed_slots = 0
            for k, role in enumerate(KERNEL_ROLES):
                name = self.roles.get(role)
                if name is None:
                    continue
                tensor = bound[name][i]
                table[row, 1 + k] = tensor.offset // tensor.layout.element_size
                packed_slots |= slots[role] << (8 * k)
                slot_buffers[role][slots[role]] = BufferArg(f"{role.lower()}{slots[role]}", name, i)
                if strided:
                    table[row, 17 + 8 * k:25 + 8 * k] = _pad8(tensor.layout.strides, 0)
            table[row, 8] = packed_slots
            if strided:
                table[row, 9:17] = _pad8(x.sizes, 1)
            starts = np.arange(0, n, chunk, dtype=np.uint32)
            chunks.append(np.stack([np.full_like(starts, row), starts], axis=1))
        chunk_table = np.ascontiguousarray(np.concatenate(chunks), dtype=np.uint32)
        args: list[Any] = [b for role in KERNEL_ROLES for b in slot_buffers[role]]
        args += [TensorArg("r", R, scalar=True), TensorArg("t", T, scalar=True)]
        args += [HostArray("tensors", table), HostArray("chunks", chunk_table), *self.kernel_attributes(v),
                 Scalar("chunk_count", np.uint32(len(chunk_table)))]
        defines = {"OPTIMIZER": self.optimizer, "NESTEROV": self.nesterov(v),
                   "STORE_HALF": data_type == _T.DML_TENSOR_DATA_TYPE_FLOAT16,
                   "STORE_DOUBLE": data_type == _T.DML_TENSOR_DATA_TYPE_FLOAT64,
                   "RATE_DOUBLE": rate_type == _T.DML_TENSOR_DATA_TYPE_FLOAT64,
                   "STRIDED": strided, "TENTRY": entry_size, "CHUNK": chunk, "VEC": vec}
        groups = len(chunk_table)
        if target.is_cpu:
            groups = min(groups, target.compute_units * CPU_GROUPS_PER_UNIT)
        return KernelLaunch(self.kernel_source, "onnx_training", defines, Groups(groups, local_size), args)

    def kernel_attributes(self, v: ValidatedDesc) -> list[Scalar]:
        """The attributes as the kernel's float parameters (0 where the optimizer has none)."""
        a = v.attrs
        params = {"norm_coefficient": "NormCoefficient", "norm_coefficient_post": "NormCoefficientPost",
                  "decay_factor": "DecayFactor", "alpha": "Alpha", "beta": "Beta", "epsilon": "Epsilon"}
        return [Scalar(param, np.float32(a.get(name, 0.0))) for param, name in params.items()]

    def nesterov(self, v: ValidatedDesc) -> bool:
        return False


def _pad8(values: tuple[int, ...], fill: int) -> list[int]:
    return [fill] * (8 - len(values)) + list(values)


@register
class OnnxAdagrad(OnnxTrainingOperator):
    type = DML_OPERATOR_TYPE.DMLSIM_OPERATOR_ONNX_ADAGRAD
    desc_cls = DMLSIM_ONNX_ADAGRAD_OPERATOR_DESC
    optimizer = "ADAGRAD"
    roles: ClassVar[dict[str, str]] = {"X": X, "G": G, "H": "InputAccumulatedSquaredGradientTensors",
                                       "OX": OX, "OH": "OutputAccumulatedSquaredGradientTensors"}

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        r, t = self.scalars(inputs)
        a = v.attrs
        xs, hs = onnx_adagrad(r, t, inputs[X], inputs[G], inputs[self.roles["H"]],
                              norm_coefficient=a["NormCoefficient"], epsilon=a["Epsilon"],
                              decay_factor=a["DecayFactor"])
        return {OX: xs, self.roles["OH"]: hs}


@register
class OnnxAdam(OnnxTrainingOperator):
    type = DML_OPERATOR_TYPE.DMLSIM_OPERATOR_ONNX_ADAM
    desc_cls = DMLSIM_ONNX_ADAM_OPERATOR_DESC
    optimizer = "ADAM"
    roles: ClassVar[dict[str, str]] = {"X": X, "G": G, "V": "InputFirstMomentTensors",
                                       "H": "InputSecondMomentTensors", "OX": OX,
                                       "OV": "OutputFirstMomentTensors", "OH": "OutputSecondMomentTensors"}

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        r, t = self.scalars(inputs)
        a = v.attrs
        xs, vs, hs = onnx_adam(r, t, inputs[X], inputs[G], inputs[self.roles["V"]], inputs[self.roles["H"]],
                               norm_coefficient=a["NormCoefficient"], norm_coefficient_post=a["NormCoefficientPost"],
                               alpha=a["Alpha"], beta=a["Beta"], epsilon=a["Epsilon"])
        return {OX: xs, self.roles["OV"]: vs, self.roles["OH"]: hs}


@register
class OnnxMomentum(OnnxTrainingOperator):
    type = DML_OPERATOR_TYPE.DMLSIM_OPERATOR_ONNX_MOMENTUM
    desc_cls = DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC
    optimizer = "MOMENTUM"
    roles: ClassVar[dict[str, str]] = {"X": X, "G": G, "V": "InputMomentumTensors", "OX": OX,
                                       "OV": "OutputMomentumTensors"}

    def nesterov(self, v: ValidatedDesc) -> bool:
        return v.attrs["Mode"] == DMLSIM_ONNX_MOMENTUM_MODE.DMLSIM_ONNX_MOMENTUM_MODE_NESTEROV

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        r, t = self.scalars(inputs)
        a = v.attrs
        xs, vs = onnx_momentum(r, t, inputs[X], inputs[G], inputs[self.roles["V"]],
                               norm_coefficient=a["NormCoefficient"], alpha=a["Alpha"], beta=a["Beta"],
                               nesterov=self.nesterov(v))
        return {OX: xs, self.roles["OV"]: vs}

