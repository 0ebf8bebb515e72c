"""Kernel arguments from a launch plan: the desc's schema order, or the plan's own list.

See dmlsim.operators.plan for the conventions (offsets in elements, strides padded to ulong4/ulong8,
attributes by kind). This is the only place that turns bound tensors into ``cl.Buffer`` arguments.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

import numpy as np

from dmlsim.api.schema import ATTRIBUTE
from dmlsim.backends.opencl.errors import import_pyopencl
from dmlsim.operators.plan import (
    Argument,
    BufferArg,
    HostArray,
    KernelLaunch,
    NullBuffer,
    TemporaryArg,
    TensorArg,
    Vector,
)
from dmlsim.runtime.execution import ResolvedDispatch

ATTRIBUTE_TYPES = {"FLOAT": np.float32, "UINT": np.uint32, "INT": np.int32, "UINT64": np.uint64, "INT64": np.int64}


def schema_arguments(dispatch: ResolvedDispatch, launch: KernelLaunch) -> list[Argument]:
    """Every bound tensor field in struct order (null optional ones left out), then every attribute."""
    operator = dispatch.compiled.operator
    validated = dispatch.compiled.validated
    args: list[Argument] = []
    for row in operator.fields():
        if row.spec.role == ATTRIBUTE:
            kind = row.spec.attr_type
            value = validated.attrs[row.name]
            if kind == "SCALE_BIAS":
                args += [np.float32(1), np.float32(0)] if value is None else [value.Scale, value.Bias]
                continue
            to = np.uint32 if isinstance(kind, type) and issubclass(kind, Enum) else ATTRIBUTE_TYPES[kind]
            args.append(to(value))
        elif row.is_array:
            raise TypeError(f"{operator.name}: tensor arrays have no schema-order form; list the arguments")
        elif dispatch.bound.get(row.name) is not None:
            args.append(TensorArg(row.name, scalar=row.name in operator.scalar_fields, rank=launch.rank))
    return [*args, *launch.extra]


def marshal_arguments(backend: Any, dispatch: ResolvedDispatch, launch: KernelLaunch) -> list[Any]:
    """The pyopencl argument list of one launch."""
    cl = import_pyopencl()
    planned = schema_arguments(dispatch, launch) if launch.args is None else list(launch.args)
    out: list[Any] = []
    for arg in planned:
        if isinstance(arg, TensorArg):
            bound = _bound(dispatch, arg.field, arg.index)
            layout = bound.layout
            out += [bound.buffer.storage, np.uint64(bound.offset // layout.element_size)]
            if not arg.scalar:
                out.append(_vector(cl, layout.strides, arg.rank, 0))
        elif isinstance(arg, BufferArg):
            out.append(_bound(dispatch, arg.field, arg.index).buffer.storage)
        elif isinstance(arg, NullBuffer):
            out.append(None)
        elif isinstance(arg, TemporaryArg):
            temporary = dispatch.temporary
            if temporary is None:
                raise TypeError(f"kernel {launch.entry} needs the temporary resource, but none is bound")
            base = temporary.offset // arg.element_size
            out += [temporary.buffer.storage, *(np.uint64(base + offset) for offset in arg.offsets)]
        elif isinstance(arg, HostArray):
            out.append(backend.upload(np.ascontiguousarray(arg.array)))
        elif isinstance(arg, Vector):
            out.append(_vector(cl, arg.values, arg.rank, arg.fill))
        elif isinstance(arg, np.generic):
            out.append(arg)
        else:
            raise TypeError(f"kernel {launch.entry}: cannot pass {arg!r} (plan arguments are numpy scalars or "
                            "dmlsim.operators.plan argument kinds)")
    return out


def _bound(dispatch: ResolvedDispatch, name: str, index: int | None) -> Any:
    bound = dispatch.bound[name]
    return bound if index is None else bound[index]


def _vector(cl: Any, values: tuple[int, ...], rank: int, fill: int) -> Any:
    padded = (fill,) * (rank - len(values)) + tuple(values)
    return {4: cl.cltypes.make_ulong4, 8: cl.cltypes.make_ulong8}[rank](*padded)
