"""Does an OpenCL device actually build and run kernels? (Some do not: PyPI's PoCL 3.0, with LLVM 14,
rejects CPUs that LLVM 14 does not know — "unknown target CPU 'generic'" — and builds nothing.)"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from dmlsim.backends.opencl.errors import import_pyopencl, quiet_compiler

if TYPE_CHECKING:  # type-only: adapters.py calls probe(), never the reverse
    from dmlsim.backends.adapters import AdapterInfo

_PROBE_SOURCE = "__kernel void dmlsim_probe(__global float *a) { a[get_global_id(0)] += 1.0f; }"


@functools.cache
def _probe(index: str, cl_device: object) -> str | None:
    cl = import_pyopencl()
    try:
        context = cl.Context([cl_device])
        queue = cl.CommandQueue(context)
        with quiet_compiler():
            program = cl.Program(context, _PROBE_SOURCE).build()
        data = np.zeros(4, np.float32)
        buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=data)
        program.dmlsim_probe(queue, (4,), None, buffer)
        cl.enqueue_copy(queue, data, buffer)
        queue.finish()
    except cl.Error as exc:
        lines = [line.strip() for line in str(exc).splitlines() if "error" in line.lower()]
        return lines[-1] if lines else str(exc).splitlines()[0]
    if not np.array_equal(data, np.ones(4, np.float32)):
        return f"a probe kernel computed {data.tolist()} instead of [1, 1, 1, 1]"
    return None


def probe(adapter: AdapterInfo) -> str | None:
    """None if ``adapter`` builds and runs a trivial kernel correctly, else why not (cached per process)."""
    return _probe(adapter.index, adapter.cl_device)
