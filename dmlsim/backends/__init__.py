"""Backends that execute dispatches: ``reference`` (numpy, float64) and ``opencl`` (pyopencl kernels).

:func:`dmlsim.backends.adapters.select_adapter` picks an adapter; :func:`open_backend` makes the
backend that runs on it (Oclgrind's device gets the checking
:class:`~dmlsim.backends.opencl.oclgrind.OclgrindBackend`). pyopencl is imported only under
:mod:`dmlsim.backends.opencl`.
"""

from __future__ import annotations

from dmlsim.backends.adapters import OCLGRIND, REFERENCE, AdapterInfo
from dmlsim.runtime.execution import Backend


def open_backend(adapter: AdapterInfo) -> Backend:
    """The backend that runs dispatches on ``adapter``."""
    if adapter.kind == REFERENCE:
        from dmlsim.backends.reference import ReferenceBackend

        return ReferenceBackend(adapter)
    if adapter.implementation == OCLGRIND:
        from dmlsim.backends.opencl.oclgrind import OclgrindBackend

        return OclgrindBackend(adapter)
    from dmlsim.backends.opencl.runtime import OpenCLBackend

    return OpenCLBackend(adapter)
