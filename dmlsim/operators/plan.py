"""What an operator asks a device to launch, in terms no backend owns.

An operator's :meth:`~dmlsim.operators.base.Operator.plan_launches` returns :class:`KernelLaunch`
objects: which kernel file and entry point, which build defines, which arguments, and a geometry
*kind* (:class:`Stream`, :class:`Items`, :class:`Groups`). The OpenCL backend turns them into
pyopencl calls: it marshals the arguments, picks the launch shape from its one geometry module and
builds the program. Nothing here imports a backend.

Arguments are declared once, by name. Each argument of a launch names the kernel parameter(s) it binds
to, beside its value: ``TensorArg("a", "ATensor")`` is the parameters ``a__base, a__offset, a__strides``
(``TENSOR_IN(a)``/``TENSOR_OUT(a)`` of ``dmlsim/cl_kernels/dmlsim.h``), ``Scalar("alpha", np.float32(2))`` is
``float alpha``, ``Vector("sizes", out.sizes)`` is ``ulong4 sizes``. The first field of every argument kind is
its kernel parameter name (or the prefix of its names), as in a C call written ``param = value``; its
:attr:`params` are the names it expands to, in order, and :attr:`KernelLaunch.params` is the whole
expansion of a launch. There is no positional or schema-order default: every launch lists its ``args``. The
OpenCL backend builds with ``-cl-kernel-arg-info``, asks each launched kernel for its parameter names
(``CL_KERNEL_ARG_NAME``) once per program and entry point, and refuses a launch whose expansion differs in a
name, in the order or in the count (:class:`KernelSignatureError`, a dmlsim bug, never a user's error) — so
an argument can no longer land on the wrong parameter by its position. Kernel parameters must not be named
after OpenCL built-in functions: PoCL's headers ``#define`` them (``length`` becomes ``_cl_length``).

Conventions. A tensor is passed as ``name__base, name__offset, name__strides``, or as ``name__base,
name__offset`` with ``scalar=True``; the strides are a ``ulong4``, or a ``ulong8`` when the argument's
``rank`` is 8 (``TENSOR_IN8``/``TENSOR_OUT8``). Unlike pyopencl's ``VectorArg(with_offset=True)``, whose offset
is in bytes, the offset here is in *elements* (DirectML binding offsets are multiples of 16 bytes, so it is
exact). Scalars are numpy scalars of the kernel parameter's type (``np.float32`` for ``float``, ``np.uint32``
for ``uint``, ``np.uint64`` for ``ulong``), so their width is never guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class KernelSource:
    """A kernel file shipped as package data: ``package`` (dotted) and ``filename`` inside it."""

    package: str
    filename: str = "kernel.cl"


# --- arguments ------------------------------------------------------------------------------------------
# Every kind's first field is the kernel parameter it binds (or their common prefix); ``params`` is the
# tuple of parameter names it expands to, in the kernel's order.
@dataclass(frozen=True)
class TensorArg:
    """A bound tensor field (``index`` picks an element of a tensor array) as ``param__base, param__offset,
    param__strides``.

    ``scalar`` leaves out the strides; ``rank`` pads the strides at the front to 4 (ulong4) or 8 (ulong8).
    """

    param: str
    field: str
    index: int | None = None
    scalar: bool = False
    rank: int = 4

    @property
    def params(self) -> tuple[str, ...]:
        names = (f"{self.param}__base", f"{self.param}__offset")
        return names if self.scalar else (*names, f"{self.param}__strides")


@dataclass(frozen=True)
class BufferArg:
    """Only the buffer (``__global`` pointer ``param``) a tensor field is bound to: slot tables index into it."""

    param: str
    field: str
    index: int | None = None

    @property
    def params(self) -> tuple[str, ...]:
        return (self.param,)


@dataclass(frozen=True)
class NullBuffer:
    """An unused ``__global`` pointer parameter ``param`` (passed as a null pointer)."""

    param: str

    @property
    def params(self) -> tuple[str, ...]:
        return (self.param,)


@dataclass(frozen=True)
class TemporaryArg:
    """The bound temporary resource: its buffer as ``param``, then one ``ulong`` per entry of ``offsets``,
    ``(name, elements)``: the resource's binding offset in ``element_size`` units plus ``elements`` (views
    into it: ``head__offset`` at +0, ``next__offset`` at +N, ...)."""

    param: str
    offsets: tuple[tuple[str, int], ...]
    element_size: int = 4

    @property
    def params(self) -> tuple[str, ...]:
        return (self.param, *(name for name, _ in self.offsets))


@dataclass(frozen=True, eq=False)
class HostArray:
    """Host data the kernel reads as ``__global`` pointer ``param`` (a lookup table): uploaded read-only once
    per prepared dispatch."""

    param: str
    array: np.ndarray

    @property
    def params(self) -> tuple[str, ...]:
        return (self.param,)


@dataclass(frozen=True)
class Vector:
    """A ``ulong4``/``ulong8`` parameter ``param``, padded at the front with ``fill`` (4-D sizes of a
    lower-rank tensor)."""

    param: str
    values: tuple[int, ...]
    rank: int = 4
    fill: int = 1

    @property
    def params(self) -> tuple[str, ...]:
        return (self.param,)


@dataclass(frozen=True)
class Scalar:
    """A scalar parameter ``param``: ``value`` is a numpy scalar of the kernel parameter's type (``np.float32``
    for ``float``, ``np.uint32`` for ``uint``...), never a Python number whose width would be guessed."""

    param: str
    value: np.generic

    def __post_init__(self) -> None:
        if not isinstance(self.value, np.generic):
            raise TypeError(f"Scalar({self.param!r}, {self.value!r}): the value must be a numpy scalar of the "
                            "kernel parameter's type (np.float32, np.uint32, ...)")

    @property
    def params(self) -> tuple[str, ...]:
        return (self.param,)


Argument = TensorArg | BufferArg | NullBuffer | TemporaryArg | HostArray | Vector | Scalar
ARGUMENT_KINDS = (TensorArg, BufferArg, NullBuffer, TemporaryArg, HostArray, Vector, Scalar)


class KernelSignatureError(RuntimeError):
    """A launch's declared arguments differ from the built kernel's parameters (names, order or count).

    A bug of dmlsim (a plan and its kernel.cl disagree), not of the caller: it is deliberately not a DMLError,
    so that no test expecting a refusal can pass because of it."""


def signature_mismatch(declared: Sequence[str], actual: Sequence[str]) -> str | None:
    """Where a launch's declared parameter names differ from a kernel's, in words; None when they agree.

    Names the first differing position (0-based, as ``clSetKernelArg`` counts) with both names, and the
    parameters one side has beyond the other."""
    if tuple(declared) == tuple(actual):
        return None
    for i, (mine, theirs) in enumerate(zip(declared, actual, strict=False)):
        if mine != theirs:
            hint = ""
            if theirs == f"_cl_{mine}":
                hint = (f" (PoCL's headers #define the OpenCL built-in {mine}() as _cl_{mine}, renaming a parameter "
                        "of that name: give the parameter another name)")
            return (f"argument {i} is declared {mine!r} in the launch plan, but the kernel's parameter {i} is "
                    f"{theirs!r}{hint}")
    if len(declared) > len(actual):
        extra = ", ".join(repr(name) for name in declared[len(actual):])
        return (f"the launch plan declares {len(declared)} arguments, the kernel takes {len(actual)}: argument "
                f"{len(actual)} onwards ({extra}) has no parameter")
    missing = ", ".join(repr(name) for name in actual[len(declared):])
    return (f"the launch plan declares {len(declared)} arguments, the kernel takes {len(actual)}: parameter "
            f"{len(declared)} onwards ({missing}) is not declared")


# --- geometry kinds -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Stream:
    """A packed streaming kernel over ``vectors`` VEC-wide vectors; the backend chooses chunked work-items
    (CPUs) or a grid-stride loop (GPUs) and defines ``CHUNKED`` for the former."""

    vectors: int


@dataclass(frozen=True)
class Items:
    """One work-item per item (at least ``count``), work-groups of ``local``; the kernel skips the excess."""

    count: int
    local: int = 64


def spread_local(count: int, target: LaunchTarget, local: int = 64) -> int:
    """Work-items per work-group for ``count`` heavy work-items (a row each): ``local``, halved while that
    leaves fewer than four work-groups per compute unit (a small layer's few rows would otherwise all run on one
    core of a CPU device)."""
    while local > 1 and count < 4 * target.compute_units * local:
        local //= 2
    return local


@dataclass(frozen=True)
class Groups:
    """Exactly ``count`` work-groups of ``local`` work-items (a kernel that maps groups to a table)."""

    count: int
    local: int


Geometry = Stream | Items | Groups


# Elements per vector access of a packed streaming kernel (a Stream geometry), per device kind: float8 was the
# fastest width on PoCL's CPU devices; on an H100 through NVIDIA's OpenCL float8 ran Adam at half the memory
# bandwidth, float4 and float2 at the copy bandwidth (benchmarks/README.md, "GPU").
STREAM_VEC_CPU = 8
STREAM_VEC_GPU = 4
# The widest vector a kernel may use on a CPU: 256 bits. PyPI's PoCL 3.0 (LLVM 14) compiles for the CPU its
# LLVM names (znver3 on an AMD Zen 4) but links the kernel library built for what cpuid reports (avx512): a
# library call taking a 512-bit vector (double8, float16, long8) then breaks the calling convention, and the
# kernel computes garbage, is missing after a "successful" build (INVALID_KERNEL_NAME) or crashes LLVM
# ("Cannot select: fsqrt"). Memory-bound kernels lose nothing by staying at 256 bits.
CPU_VECTOR_BYTES = 32


@dataclass(frozen=True)
class LaunchTarget:
    """What an operator may know of the device when planning: its kind and size, nothing of its API."""

    is_cpu: bool
    compute_units: int = 1
    # whether the compiler makes neighbouring work-items SIMD lanes (a preferred float vector width of 1: Intel's
    # CPU runtime, GPUs), so that a kernel whose work-items read neighbouring elements gets vector loads; PoCL's
    # CPU devices (width 16) rather vectorize the loops inside one work-item
    vectorizes_items: bool = False

    def pick(self, cpu: Any, gpu: Any) -> Any:
        """``cpu`` on CPU devices, else ``gpu``: for per-kind tuning constants."""
        return cpu if self.is_cpu else gpu

    def vector_width(self, wanted: int, element_bytes: int) -> int:
        """``wanted`` elements per vector, capped on CPUs at CPU_VECTOR_BYTES of ``element_bytes`` elements
        (the size of the type the kernel computes in: 8 for FLOAT64, 4 for FLOAT32 and FLOAT16)."""
        return max(1, min(wanted, CPU_VECTOR_BYTES // element_bytes)) if self.is_cpu else wanted

    def stream_vec(self, element_bytes: int = 4) -> int:
        """VEC, the elements per vector access, of a packed streaming kernel on this kind of device."""
        return self.vector_width(self.pick(STREAM_VEC_CPU, STREAM_VEC_GPU), element_bytes)


@dataclass
class KernelLaunch:
    """One kernel launch of a dispatch: every argument in ``args`` names its kernel parameter(s) (module
    docstring); :attr:`params` is their expansion, which must equal the kernel's parameter list."""

    source: KernelSource
    entry: str
    defines: dict[str, Any]
    geometry: Geometry
    args: Sequence[Argument]

    def __post_init__(self) -> None:
        for i, arg in enumerate(self.args):
            if not isinstance(arg, ARGUMENT_KINDS):
                raise TypeError(f"kernel {self.entry}: argument {i} {arg!r} names no kernel parameter (plan "
                                "arguments are dmlsim.operators.plan argument kinds; a number is Scalar(name, value))")

    @property
    def params(self) -> tuple[str, ...]:
        """The kernel parameter names the arguments expand to, in order."""
        return tuple(name for arg in self.args for name in arg.params)
