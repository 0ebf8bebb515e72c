"""OpenCL yardsticks of `dmlsim bench`, measured on the operator's own device in the same run.

- :class:`SameTraffic` (dmlsim/cl_kernels/traffic.cl): exactly the operator point's traffic — the same
  number of arrays read and written, of the same element size and length, in place when the point is —
  with nothing computed. The limit an OpenCL kernel can reach on this device and driver.
- :class:`Roofline` (dmlsim/cl_kernels/copy.cl): a plain copy of the same byte count (B/2 read, B/2
  written). A weaker yardstick, kept as an extra column: on CPUs a copy's stores to a fresh destination
  also read that destination into the cache first (write-allocate), traffic that an in-place update,
  whose stores hit lines it just read, does not pay; an in-place operator can exceed 100 % of it.

Both try several variants (vector width, chunked vs grid-stride work-items) and keep the fastest, so
the yardstick is the best plain kernel, not one arbitrary choice. Buffers come from the backend's own
``allocate``, placed as the operator's buffers are. :class:`CacheFlush` gives every timed run on a GPU the
same start.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.backends.opencl.geometry import stream_shape
from dmlsim.operators.plan import KernelSource

COPY_KERNEL = KernelSource("dmlsim.cl_kernels", "copy.cl")
TRAFFIC_KERNEL = KernelSource("dmlsim.cl_kernels", "traffic.cl")

# (vector width, chunked): 8/16 chunked suit CPUs, 4 grid-stride suits GPUs.
VARIANTS = ((8, True), (16, True), (4, False))
TRAFFIC_SLOTS = 8  # traffic.cl's pointer arguments per direction
ELEMENT_TYPES = {1: "uchar", 2: "ushort", 4: "uint", 8: "ulong"}
WORD = 4


@dataclass
class CopyKernel:
    """One built, bound variant and how to time it once (returns its device time in ns)."""

    label: str
    run: Callable[[], float]


class _Variants:
    """Built variants of one yardstick over buffers this object owns."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.buffers: list[Any] = []
        self.kernels: list[CopyKernel] = []

    def _add(self, label: str, kernel: Any, vectors: int) -> None:
        global_size, local, _ = stream_shape(self.backend.target, vectors)
        cl, queue = self.backend.cl, self.backend.queue

        def run() -> float:
            event = cl.enqueue_nd_range_kernel(queue, kernel, (global_size,), (local,))
            event.wait()
            return float(event.profile.end - event.profile.start)
        self.kernels.append(CopyKernel(label, run))

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
        for buffer in self.buffers:
            buffer.release()
        self.buffers = []


class Roofline(_Variants):
    """Copy kernels over two device buffers of ``bytes_moved / 2`` bytes each."""

    def __init__(self, backend: Any, bytes_moved: int) -> None:
        super().__init__(backend)
        half = max(64, -(-bytes_moved // 2 // 64) * 64)
        self.bytes_moved = 2 * half
        src, dst = backend.allocate(half), backend.allocate(half)
        self.buffers = [src, dst]
        floats = half // 4
        for vec, chunked in VARIANTS:
            program = backend.programs.program(COPY_KERNEL, {"VEC": vec, "CHUNKED": chunked})
            kernel = backend.cl.Kernel(program, "copy")
            kernel.set_args(src, dst, np.uint64(floats))
            self._add(f"float{vec} {'chunked' if chunked else 'grid-stride'}", kernel, floats // vec)


class SameTraffic(_Variants):
    """``reads`` arrays read and ``writes`` written (over the first inputs when ``inplace``), each of
    ``elements`` elements of ``element_size`` bytes: the operator point's traffic, nothing computed.
    Elements narrower than 4 bytes are moved as 4-byte words where the bytes divide evenly
    (``element_size`` then says 4): the same bytes, without a driver's slow narrow vectors."""

    def __init__(self, backend: Any, reads: int, writes: int, element_size: int, elements: int,
                 inplace: bool) -> None:
        super().__init__(backend)
        if not (1 <= reads <= TRAFFIC_SLOTS and 0 <= writes <= TRAFFIC_SLOTS) or element_size not in ELEMENT_TYPES:
            raise ValueError(f"no same-traffic kernel for {reads} read(s), {writes} write(s) of "
                             f"{element_size}-byte elements")
        self.bytes_moved = (reads + writes) * element_size * elements
        size = max(64, elements * element_size)
        if element_size < WORD and elements * element_size % WORD == 0:
            # the same bytes as 4-byte words: PoCL runs ushort/uchar vectors at a fraction of uint speed
            element_size, elements = WORD, elements * element_size // WORD
        self.element_size = element_size
        self.buffers = [backend.allocate(size) for _ in range(reads + (0 if inplace else writes))]
        sources = self.buffers[:reads]
        outputs = self.buffers[:writes] if inplace else self.buffers[reads:]
        args = [*sources, *[None] * (TRAFFIC_SLOTS - reads), *outputs, *[None] * (TRAFFIC_SLOTS - writes),
                np.uint64(elements)]
        element = ELEMENT_TYPES[element_size]
        for vec, chunked in VARIANTS:
            program = backend.programs.program(TRAFFIC_KERNEL, {"READS": reads, "WRITES": writes, "ELEM": element,
                                                                "VEC": vec, "CHUNKED": chunked})
            kernel = backend.cl.Kernel(program, "traffic")
            if writes == 0:  # a reduction's traffic: each work-item leaves its sum in d0, a sink of one vector each
                items = stream_shape(backend.target, elements // vec)[0]
                self.buffers.append(backend.allocate(max(64, items * vec * element_size)))
                args[TRAFFIC_SLOTS] = self.buffers[-1]
            kernel.set_args(*args)
            self._add(f"{element}{vec} {'chunked' if chunked else 'grid-stride'}", kernel, elements // vec)


class CacheFlush:
    """Run before each timed call on a GPU: fills a scratch buffer of four times the device's global memory
    cache (at least 64 MiB) and waits for it.

    Every contestant then starts with the caches holding none of its data (an H100's 50 MB L2 would otherwise
    hold most of a 4000K-element ONNX Adagrad's 49 MB of inputs from the run before), and with the GPU busy
    just before it: a GPU left idle for the length of a host-only peer (torch's CPU Adagrad, 65 ms) ran the
    same ONNX Adagrad dispatch at 55 % of the copy bandwidth instead of 97 %. Triton's do_bench flushes the
    same way."""

    MIN_BYTES = 64 << 20

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.size = max(self.MIN_BYTES, 4 * int(backend.device.global_mem_cache_size))
        self.buffer = backend.cl.Buffer(backend.context, backend.cl.mem_flags.READ_WRITE, self.size)
        self.flushes = 0

    def __call__(self) -> None:
        cl = self.backend.cl
        cl.enqueue_fill_buffer(self.backend.queue, self.buffer, np.uint32(self.flushes), 0, self.size)
        self.backend.queue.finish()
        self.flushes += 1

    def release(self) -> None:
        self.buffer.release()
