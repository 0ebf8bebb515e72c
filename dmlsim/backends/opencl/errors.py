"""The one place where pyopencl failures become DMLErrors (tinygrad-style ``check`` chokepoint)."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from dmlsim.api.errors import DXGI_ERROR_UNSUPPORTED, E_FAIL, E_OUTOFMEMORY, DMLError

NO_OPENCL_FIX = ("install an OpenCL driver: `pip install 'dmlsim[pocl]'` (PoCL, CPU, no root needed), or "
                 "`pip install 'dmlsim[intel]'` (Intel's OpenCL CPU runtime, no root needed) and then "
                 "`dmlsim doctor --install`, or your distribution's package (Debian/Ubuntu: "
                 "`apt install pocl-opencl-icd`), or use adapter='reference'")


# PoCL's CPU driver pins its worker threads one to a core when POCL_AFFINITY is 1 (read once, when the driver
# starts). Unpinned, Linux's wake-up placement stacked both workers on one core of the 2-core AMD Zen 5 host for
# 100 ms and more after another thread pool had run (or at the start): a ResNet-50 3 x 3 layer took 1.6-1.8 ms a
# call instead of 0.9 ms, and an empty launch waited 50-55 us instead of 20-40 (session 19). A user's own setting wins.
POCL_AFFINITY = "POCL_AFFINITY"


def import_pyopencl():  # noqa: ANN201 - returns the module
    """Import pyopencl, or raise a DMLError that says how to get it. Every OpenCL driver dmlsim starts starts after
    this call, so it sets PoCL's thread pinning default here (:data:`POCL_AFFINITY`)."""
    os.environ.setdefault(POCL_AFFINITY, "1")
    try:
        import pyopencl
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise DMLError(DXGI_ERROR_UNSUPPORTED, f"pyopencl is not importable ({exc}); {NO_OPENCL_FIX}") from None
    return pyopencl


def compiler_output_wanted() -> bool:
    """Whether the user asked to see OpenCL compilers' output: pyopencl's ``PYOPENCL_COMPILER_OUTPUT`` set to a
    true value as pyopencl reads it (1, y, yes, t, true, on, any case)."""
    return os.environ.get("PYOPENCL_COMPILER_OUTPUT", "").strip().lower() in ("1", "y", "yes", "t", "true", "on")


@contextmanager
def quiet_compiler() -> Iterator[None]:
    """Build programs without pyopencl's ``CompilerWarning`` for a non-empty build log (drivers' remarks on
    dmlsim's kernels: 44 of them in ``pytest descriptors/``), unless ``PYOPENCL_COMPILER_OUTPUT`` asks for
    them. A failed build still raises with its log (callers keep it in their DMLError)."""
    if compiler_output_wanted():
        yield
        return
    cl = import_pyopencl()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cl.CompilerWarning)
        yield


@contextmanager
def check(what: str) -> Iterator[None]:
    """Run an OpenCL call, turning any pyopencl error into a DMLError that says what was being done."""
    cl = import_pyopencl()
    try:
        yield
    except cl.Error as exc:
        raise dml_error(what, exc) from None


# OpenCL status codes (cl.h) that mean "out of memory" and "no platform" (cl_khr_icd).
OUT_OF_MEMORY_CODES = frozenset({-4, -5, -6})  # MEM_OBJECT_ALLOCATION_FAILURE, OUT_OF_RESOURCES, OUT_OF_HOST_MEMORY
PLATFORM_NOT_FOUND_KHR = -1001


def dml_error(what: str, exc: Exception) -> DMLError:
    """The DMLError for a pyopencl error, chosen by its status code (``cl.Error.code``)."""
    code = getattr(exc, "code", None)
    if code in OUT_OF_MEMORY_CODES:
        return DMLError(E_OUTOFMEMORY, f"{what}: {exc}")
    if code == PLATFORM_NOT_FOUND_KHR:
        return DMLError(DXGI_ERROR_UNSUPPORTED, f"{what}: no OpenCL platform found; {NO_OPENCL_FIX}")
    return DMLError(E_FAIL, f"{what}: {exc}")
