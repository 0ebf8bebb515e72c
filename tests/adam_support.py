"""Builders shared by the Adam tests: descs in the full C shape, a training step over tests/dispatch.py.

Descs are written as C code writes them (DML_TENSOR_DESC/DML_BUFFER_TENSOR_DESC with every field given);
where the bytes go is :class:`dispatch.Dispatch`'s job (the public C-shaped flow). Expected values come
from :func:`dmlsim.operators.adam_optimizer.reference.adam_optimizer`, never from the dispatch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from dispatch import Dispatch

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps
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


class AdamDispatch(Dispatch):
    """A :class:`dispatch.Dispatch` of an Adam desc, with a training step on top.

    ``inplace``: True binds every output over the input it updates (X, M, V), a sequence of outputs
    does so for those; the pairs are this module's ALIAS, not read back from dmlsim's schema.
    """

    def __init__(self, device: dml.Device, op_desc: dml.DML_OPERATOR_DESC, *,
                 placement: Mapping[str, tuple[Any, int]] | None = None, inplace: bool | Sequence[str] = False,
                 flags: int = 0) -> None:
        aliased = OUTPUTS if inplace is True else tuple(inplace or ())
        super().__init__(device, op_desc, placement=placement, inplace={name: ALIAS[name] for name in aliased},
                         flags=flags)

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
