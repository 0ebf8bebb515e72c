"""The roofline: a plain OpenCL copy (dmlsim/cl_kernels/copy.cl) moving the same bytes on the same device.

A copy of B/2 bytes reads B/2 and writes B/2: B bytes moved, the same count as the operator's point.
Several copy variants are tried (vector width, chunked vs grid-stride work-items) and the fastest is
the roofline, so the yardstick is the best plain copy, not one arbitrary kernel. On CPUs a copy's
stores to a fresh destination also read that destination into the cache first (write-allocate),
traffic that an in-place update, whose stores hit lines it just read, does not pay: an in-place
operator can then exceed 100 % of this roofline.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.backends.opencl.geometry import stream_shape
from dmlsim.operators.plan import KernelSource

COPY_KERNEL = KernelSource("dmlsim.cl_kernels", "copy.cl")

# (vector width, chunked): float8/float16 chunked suit CPUs, float4 grid-stride suits GPUs.
VARIANTS = ((8, True), (16, True), (4, False))


@dataclass
class CopyKernel:
    """One built, bound copy variant and how to time it once."""

    label: str
    run: Callable[[], float]


class Roofline:
    """Copy kernels over two device buffers of ``bytes_moved / 2`` bytes each."""

    def __init__(self, backend: Any, bytes_moved: int) -> None:
        cl = backend.cl
        self.backend = backend
        half = max(64, -(-bytes_moved // 2 // 64) * 64)
        self.bytes_moved = 2 * half
        self.src = backend.allocate(half)
        self.dst = backend.allocate(half)
        floats = half // 4
        self.kernels: list[CopyKernel] = []
        for vec, chunked in VARIANTS:
            program = backend.programs.program(COPY_KERNEL, {"VEC": vec, "CHUNKED": chunked})
            kernel = cl.Kernel(program, "copy")
            kernel.set_args(self.src, self.dst, np.uint64(floats))
            global_size, local, _ = stream_shape(backend.target, floats // vec)
            label = f"float{vec} {'chunked' if chunked else 'grid-stride'}"
            self.kernels.append(CopyKernel(label, self._timer(kernel, global_size, local)))

    def _timer(self, kernel: Any, global_size: int, local: int) -> Callable[[], float]:
        cl, queue = self.backend.cl, self.backend.queue

        def run() -> float:
            event = cl.enqueue_nd_range_kernel(queue, kernel, (global_size,), (local,))
            event.wait()
            return float(event.profile.end - event.profile.start)
        return run

    def best(self, trials: int = 3) -> CopyKernel:
        """The fastest variant by its best of ``trials`` runs (after one warm-up run each)."""
        best_time: dict[str, float] = {}
        for kernel in self.kernels:
            kernel.run()
        for _ in range(trials):
            for kernel in self.kernels:
                elapsed = kernel.run()
                best_time[kernel.label] = min(best_time.get(kernel.label, elapsed), elapsed)
        return min(self.kernels, key=lambda k: best_time[k.label])

    def release(self) -> None:
        for buffer in (self.src, self.dst):
            buffer.release()
