"""The one place where pyopencl failures become DMLErrors (tinygrad-style ``check`` chokepoint)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from dmlsim.api.errors import DXGI_ERROR_UNSUPPORTED, E_FAIL, E_OUTOFMEMORY, DMLError

NO_OPENCL_FIX = ("install an OpenCL driver: `pip install 'dmlsim[pocl]'` (PoCL, CPU, no root needed) or your "
                 "distribution's package (Debian/Ubuntu: `apt install pocl-opencl-icd`), or use adapter='reference'")


def import_pyopencl():  # noqa: ANN201 - returns the module
    """Import pyopencl, or raise a DMLError that says how to get it."""
    try:
        import pyopencl
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise DMLError(DXGI_ERROR_UNSUPPORTED, f"pyopencl is not importable ({exc}); {NO_OPENCL_FIX}") from None
    return pyopencl


@contextmanager
def check(what: str) -> Iterator[None]:
    """Run an OpenCL call, turning any pyopencl error into a DMLError that says what was being done."""
    cl = import_pyopencl()
    try:
        yield
    except cl.Error as exc:
        text = str(exc)
        if "OUT_OF_RESOURCES" in text or "MEM_OBJECT_ALLOCATION_FAILURE" in text or "OUT_OF_HOST" in text:
            raise DMLError(E_OUTOFMEMORY, f"{what}: {text}") from None
        if "PLATFORM_NOT_FOUND" in text:
            raise DMLError(DXGI_ERROR_UNSUPPORTED, f"{what}: no OpenCL platform found; {NO_OPENCL_FIX}") from None
        raise DMLError(E_FAIL, f"{what}: {text}") from None
