"""Builders shared by the Adam tests: descs in the full C shape, tensors placed at chosen offsets.

Everything here goes through the public C-shaped API (DML_TENSOR_DESC/DML_BUFFER_TENSOR_DESC with every
field given, binding tables, command lists), so the tests exercise what a DirectML user would write.
Expected values always come from :func:`dmlsim.operators.adam_optimizer.reference.adam_optimizer`; this module
only decides where the bytes go.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps
from dmlsim.api.tensor import strided_array
from dmlsim.operators.adam_optimizer.reference import adam_optimizer

FLOAT32 = dml.DML_TENSOR_DATA_TYPE_FLOAT32
FLOAT16 = dml.DML_TENSOR_DATA_TYPE_FLOAT16
UINT32 = dml.DML_TENSOR_DATA_TYPE_UINT32
NP = {FLOAT32: np.float32, FLOAT16: np.float16}
STRUCT = "DML_ADAM_OPTIMIZER_OPERATOR_DESC"

X, M, V, G, T = ("InputParametersTensor", "InputFirstMomentTensor", "InputSecondMomentTensor",
                 "GradientTensor", "TrainingStepTensor")
OX, OM, OV = "OutputParametersTensor", "OutputFirstMomentTensor", "OutputSecondMomentTensor"
INPUTS = (X, M, V, G, T)
OUTPUTS = (OX, OM, OV)
ALIAS = {OX: X, OM: M, OV: V}
TENSORS = INPUTS + OUTPUTS
HP = {"LearningRate": 0.05, "Beta1": 0.9, "Beta2": 0.999, "Epsilon": 1e-8}


def tensor_desc(data_type: int, sizes: Sequence[int], strides: Sequence[int] | None = None, *,
                flags: int = 0, total: int | None = None, alignment: int = 0) -> dml.DML_TENSOR_DESC:
    """A DML_TENSOR_DESC with every DML_BUFFER_TENSOR_DESC field given, as C code writes it."""
    if total is None:
        total = dml.DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides)
    return dml.DML_TENSOR_DESC(
        dml.DML_TENSOR_TYPE_BUFFER,
        dml.DML_BUFFER_TENSOR_DESC(data_type, flags, len(sizes), list(sizes),
                                   None if strides is None else list(strides), total, alignment))


def adam_struct(data_type: int = FLOAT32, sizes: Sequence[int] = (1, 2, 3, 5), *,
                strides: Mapping[str, Sequence[int]] | None = None, hp: Mapping[str, float] | None = None,
                **overrides: Any) -> Any:
    """A valid DML_ADAM_OPTIMIZER_OPERATOR_DESC; ``strides`` per field, ``overrides`` replace whole fields."""
    strides = strides or {}
    fields: dict[str, Any] = {name: tensor_desc(data_type, sizes, strides.get(name)) for name in TENSORS}
    fields[T] = tensor_desc(UINT32, [1, 1, 1, 1])
    fields.update(hp or HP)
    fields.update(overrides)
    return dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC(**fields)


def adam_desc(*args: Any, **kwargs: Any) -> dml.DML_OPERATOR_DESC:
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ADAM_OPTIMIZER, adam_struct(*args, **kwargs))


def padded_strides(sizes: Sequence[int], pad: int = 3) -> list[int]:
    """Row-major strides with ``pad`` unused elements after every innermost row (padding bytes)."""
    strides = [0] * len(sizes)
    step = 1
    for i in range(len(sizes) - 1, -1, -1):
        strides[i] = step
        step *= sizes[i] + (pad if i == len(sizes) - 1 else 0)
    return strides


class AdamDispatch:
    """One Adam dispatch with each tensor at a chosen (buffer, offset), recorded once, executable repeatedly.

    ``placement`` maps a field to ``(buffer, offset)``; fields left out get their own zero-filled
    buffer, or (``inplace``: True for every output, or the outputs to alias) the buffer of the input
    they alias.
    """

    def __init__(self, device: dml.Device, op_desc: dml.DML_OPERATOR_DESC, *,
                 placement: Mapping[str, tuple[Any, int]] | None = None, inplace: bool | Sequence[str] = False,
                 flags: int = 0) -> None:
        self.device = device
        self.compiled = device.CompileOperator(device.CreateOperator(op_desc), flags)
        self.layouts = {name: self.compiled.validated.layout(name) for name in TENSORS}
        self.placement: dict[str, tuple[Any, int]] = dict(placement or {})
        aliased = set(ALIAS) if inplace is True else set(inplace or ())
        for name in TENSORS:
            if name in self.placement:
                continue
            if name in aliased:
                self.placement[name] = self.placement[ALIAS[name]]
            else:
                self.placement[name] = (device.CreateBuffer(self.layouts[name].total_bytes), 0)
        props = self.compiled.GetBindingProperties()
        self.table = device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(
            self.compiled, None, None, props.RequiredDescriptorCount))
        self.table.BindInputs([self.binding(name) for name in INPUTS])
        self.table.BindOutputs([self.binding(name) for name in OUTPUTS])
        self.cmd = device.CreateCommandList()
        device.CreateCommandRecorder().RecordDispatch(self.cmd, self.compiled, self.table)
        self.cmd.Close()
        self.queue = device.CreateCommandQueue()

    def binding(self, name: str) -> dml.DML_BINDING_DESC:
        buffer, offset = self.placement[name]
        return dml.DML_BINDING_DESC(dml.DML_BINDING_TYPE_BUFFER,
                                    dml.DML_BUFFER_BINDING(buffer, offset, self.layouts[name].total_bytes))

    def write(self, name: str, values: Any) -> np.ndarray:
        """Store ``values`` into the tensor's elements (other bytes kept); return what the tensor now holds."""
        buffer, offset = self.placement[name]
        layout = self.layouts[name]
        raw = bytearray(buffer.Read(offset, layout.span_bytes))
        view = strided_array(raw, layout)
        view[...] = np.broadcast_to(np.asarray(values, layout.dtype), layout.sizes)
        buffer.Write(bytes(raw), offset)
        return self.read(name)

    def read(self, name: str) -> np.ndarray:
        buffer, offset = self.placement[name]
        layout = self.layouts[name]
        return np.array(strided_array(buffer.Read(offset, layout.span_bytes), layout))

    def execute(self) -> None:
        self.queue.ExecuteCommandLists([self.cmd])
        self.queue.WaitForIdle()

    def step(self, state: Mapping[str, Any], t: int) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Write X, M, V, G and T, execute; return (the inputs as the device saw them, the outputs)."""
        seen = {name: self.write(name, state[name]) for name in (X, M, V, G)}
        self.write(T, np.uint32(t))
        self.execute()
        return seen, {name: self.read(name) for name in OUTPUTS}


def random_state(rng: np.random.Generator, sizes: Sequence[int], dtype: Any) -> dict[str, np.ndarray]:
    """Typical Adam inputs: X, M, G standard normal, V ≥ 0 (a second moment is never negative)."""
    shape = tuple(sizes)
    return {X: rng.standard_normal(shape).astype(dtype), M: (0.1 * rng.standard_normal(shape)).astype(dtype),
            V: np.abs(0.01 * rng.standard_normal(shape)).astype(dtype), G: rng.standard_normal(shape).astype(dtype)}


def hyper(hp: Mapping[str, float] | None = None, *, sign: float = 1.0) -> dict[str, np.float32]:
    """The reference's keyword arguments, as the float32 values the desc holds."""
    hp = hp or HP
    lr = np.float32(hp["LearningRate"])
    return {"learning_rate": np.float32(sign * abs(lr)) if sign < 0 else lr, "beta1": np.float32(hp["Beta1"]),
            "beta2": np.float32(hp["Beta2"]), "epsilon": np.float32(hp["Epsilon"])}


def reference(seen: Mapping[str, np.ndarray], t: int, hp: Mapping[str, float] | None = None
              ) -> dict[str, np.ndarray]:
    """The float64 reference outputs for the inputs the device saw."""
    return dict(zip(OUTPUTS, adam_optimizer(seen[X], seen[M], seen[V], seen[G], t, **hyper(hp)), strict=True))


def magnitude_bound(seen: Mapping[str, np.ndarray], t: int, hp: Mapping[str, float] | None = None
                    ) -> dict[str, np.ndarray]:
    """The reference run on |inputs| with −|LearningRate|: every term added with the same sign.

    For M that is β1|M|+(1−β1)|G|, for X it is |X| + |lr·α|·|M|/(sqrt V+ε): the size of the largest
    quantity whose rounding errors can show in the result (the condition-number trick).
    """
    absolute = {name: np.abs(np.asarray(seen[name], np.float64)) for name in (X, M, V, G)}
    return dict(zip(OUTPUTS, adam_optimizer(absolute[X], absolute[M], absolute[V], absolute[G], t,
                                            **hyper(hp, sign=-1.0)), strict=True))


def assert_matches_reference(got: Mapping[str, np.ndarray], seen: Mapping[str, np.ndarray], t: int,
                             data_type: int, n_ulps: float, hp: Mapping[str, float] | None = None,
                             what: str = "") -> None:
    """Every output within ``n_ulps`` ulps (of the storage type) of the magnitude bound."""
    expected = reference(seen, t, hp)
    bound = magnitude_bound(seen, t, hp)
    for name in OUTPUTS:
        report = compare_ulps(got[name], expected[name], NP[data_type], n_ulps, bound[name])
        assert report.ok, report.describe(f"{what} {name}".strip())
