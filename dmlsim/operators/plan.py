"""What an operator asks a device to launch, in terms no backend owns.

An operator's :meth:`~dmlsim.operators.base.Operator.plan_launches` returns :class:`KernelLaunch`
objects: which kernel file and entry point, which build defines, which arguments, and a geometry
*kind* (:class:`Stream`, :class:`Items`, :class:`Groups`). The OpenCL backend turns them into
pyopencl calls: it marshals the arguments, picks the launch shape from its one geometry module and
builds the program. Nothing here imports a backend.

Arguments. With ``args=None`` the backend marshals the desc in schema order: every bound tensor
field in struct order (a null optional tensor is left out), then every attribute, then ``extra``.
A tensor is passed as ``name__base, name__offset, name__strides`` (``TENSOR_IN``/``TENSOR_OUT`` of
``dmlsim/cl_kernels/dmlsim.h``), or as ``name__base, name__offset`` for the fields an operator lists in
``scalar_fields``; the strides are a ``ulong4``, or a ``ulong8`` when the launch's ``rank`` is 8
(``TENSOR_IN8``/``TENSOR_OUT8``). Unlike pyopencl's ``VectorArg(with_offset=True)``, whose offset is in bytes, the
offset here is in *elements* (DirectML binding offsets are multiples of 16 bytes, so it is exact).
Attributes go as FLOAT → float, UINT and enums → uint, INT → int, UINT64 → ulong, and a
DML_SCALE_BIAS as two floats ``scale, bias`` (1 and 0 when the optional struct is null).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class KernelSource:
    """A kernel file shipped as package data: ``package`` (dotted) and ``filename`` inside it."""

    package: str
    filename: str = "kernel.cl"


# --- arguments ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TensorArg:
    """A bound tensor field (``index`` picks an element of a tensor array): base, offset, strides.

    ``scalar`` leaves out the strides; ``rank`` pads the strides at the front to 4 (ulong4) or 8 (ulong8).
    """

    field: str
    index: int | None = None
    scalar: bool = False
    rank: int = 4


@dataclass(frozen=True)
class BufferArg:
    """Only the buffer (``__global`` pointer) a tensor field is bound to: slot tables index into it."""

    field: str
    index: int | None = None


@dataclass(frozen=True)
class NullBuffer:
    """An unused buffer slot of a kernel (a null ``__global`` pointer)."""


@dataclass(frozen=True)
class TemporaryArg:
    """The bound temporary resource: its buffer, then its offset in ``element_size`` units plus each of
    ``offsets`` (views into it: ``head[]`` at +0, ``next[]`` at +N, ...)."""

    element_size: int = 4
    offsets: tuple[int, ...] = (0,)


@dataclass(frozen=True, eq=False)
class HostArray:
    """Host data the kernel reads (a lookup table): uploaded read-only once per prepared dispatch."""

    array: np.ndarray


@dataclass(frozen=True)
class Vector:
    """A ``ulong4``/``ulong8`` value, padded at the front with ``fill`` (4-D sizes of a lower-rank tensor)."""

    values: tuple[int, ...]
    rank: int = 4
    fill: int = 1


Argument = TensorArg | BufferArg | NullBuffer | TemporaryArg | HostArray | Vector | np.generic


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
    """One kernel launch of a dispatch. ``args=None``: schema order plus ``extra`` (module docstring),
    with tensor strides padded to ``rank`` (4 or 8)."""

    source: KernelSource
    entry: str
    defines: dict[str, Any]
    geometry: Geometry
    args: Sequence[Argument] | None = None
    extra: Sequence[Argument] = field(default_factory=tuple)
    rank: int = 4
