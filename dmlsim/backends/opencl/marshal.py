"""Kernel arguments from a launch plan: each declared argument as the pyopencl values of its parameters.

See dmlsim.operators.plan for the conventions (offsets in elements, strides padded to ulong4/ulong8,
every argument named). This is the only place that turns bound tensors into ``cl.Buffer`` arguments; the
names are checked against the built kernel by :meth:`.programs.ProgramCache.kernel`, once per program.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.backends.opencl.errors import import_pyopencl
from dmlsim.operators.plan import (
    BufferArg,
    HostArray,
    KernelLaunch,
    NullBuffer,
    Scalar,
    TemporaryArg,
    TensorArg,
    Vector,
)
from dmlsim.runtime.execution import ResolvedDispatch


def marshal_arguments(backend: Any, dispatch: ResolvedDispatch, launch: KernelLaunch) -> list[Any]:
    """The pyopencl argument list of one launch: one value per name of ``launch.params``, in order."""
    cl = import_pyopencl()
    out: list[Any] = []
    for arg in launch.args:
        if isinstance(arg, TensorArg):
            bound = _bound(dispatch, arg.field, arg.index)
            layout = bound.layout
            out += [bound.buffer.storage, np.uint64(layout.element_offset(bound.offset))]
            if not arg.scalar:
                out.append(_vector(cl, layout.strides, arg.rank, 0))
        elif isinstance(arg, Scalar):
            out.append(arg.value)
        elif isinstance(arg, Vector):
            out.append(_vector(cl, arg.values, arg.rank, arg.fill))
        elif isinstance(arg, BufferArg):
            out.append(_bound(dispatch, arg.field, arg.index).buffer.storage)
        elif isinstance(arg, NullBuffer):
            out.append(None)
        elif isinstance(arg, TemporaryArg):
            temporary = dispatch.temporary
            if temporary is None:
                raise TypeError(f"kernel {launch.entry} needs the temporary resource, but none is bound")
            base = temporary.offset // arg.element_size
            out += [temporary.buffer.storage, *(np.uint64(base + offset) for _, offset in arg.offsets)]
        elif isinstance(arg, HostArray):
            out.append(backend.upload(np.ascontiguousarray(arg.array)))
        else:  # pragma: no cover - KernelLaunch refuses other kinds when it is made
            raise TypeError(f"kernel {launch.entry}: cannot pass {arg!r}")
    return out


def _bound(dispatch: ResolvedDispatch, name: str, index: int | None) -> Any:
    bound = dispatch.bound[name]
    return bound if index is None else bound[index]


def _vector(cl: Any, values: tuple[int, ...], rank: int, fill: int) -> Any:
    padded = (fill,) * (rank - len(values)) + tuple(values)
    return {4: cl.cltypes.make_ulong4, 8: cl.cltypes.make_ulong8}[rank](*padded)
