"""The OpenCL backend of a device: buffers, prepared kernel launches, the in-order queue, timings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dmlsim.opencl.adapters import AdapterInfo
from dmlsim.opencl.errors import check, import_pyopencl
from dmlsim.opencl.programs import ProgramCache


@dataclass
class Launch:
    """One kernel launch as an operator describes it: which kernel, which build, which arguments."""

    kernel: str  # file stem in cl_kernels/
    entry: str  # __kernel function name
    defines: dict[str, Any]
    args: Sequence[Any]
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None = None


@dataclass
class PreparedLaunch:
    """A launch whose cl.Kernel already has its arguments set: enqueueing it costs one API call."""

    kernel: Any
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None
    name: str
    args: Sequence[Any] = field(default=(), repr=False)  # keeps buffers made for this launch alive


@dataclass
class Timing:
    """Device time of one executed launch, from OpenCL profiling events (filled in after completion)."""

    name: str
    event: Any = field(repr=False)

    @property
    def device_ns(self) -> int:
        return int(self.event.profile.end - self.event.profile.start)


class OpenCLBackend:
    """Executes dispatches on one OpenCL device through a single in-order, profiling-enabled queue."""

    kind = "opencl"

    def __init__(self, adapter: AdapterInfo) -> None:
        cl = import_pyopencl()
        self.cl = cl
        self.adapter = adapter
        device = adapter.cl_device
        with check(f"creating an OpenCL context on {adapter.label}"):
            self.context = cl.Context([device])
            self.queue = cl.CommandQueue(self.context, device,
                                         properties=cl.command_queue_properties.PROFILING_ENABLE)
        self.device = device
        self.programs = ProgramCache(self.context, device)
        self.has_fp64 = "cl_khr_fp64" in device.extensions
        self.driver = f"driver {device.driver_version}"

    # --- memory -----------------------------------------------------------------------------------
    def allocate(self, size: int) -> Any:
        cl = self.cl
        with check(f"allocating a {size}-byte buffer"):
            buffer = cl.Buffer(self.context, cl.mem_flags.READ_WRITE, size)
            cl.enqueue_fill_buffer(self.queue, buffer, np.uint8(0), 0, size)
        return buffer

    def write(self, storage: Any, offset: int, data: np.ndarray) -> None:
        with check("writing a buffer"):
            self.cl.enqueue_copy(self.queue, storage, data, dst_offset=offset, is_blocking=True)

    def read(self, storage: Any, offset: int, size: int) -> bytes:
        out = np.empty(size, np.uint8)
        with check("reading a buffer"):
            self.cl.enqueue_copy(self.queue, out, storage, src_offset=offset, is_blocking=True)
        return out.tobytes()

    # --- execution --------------------------------------------------------------------------------
    def prepare(self, dispatch: Any) -> list[PreparedLaunch]:
        """Build (cached) and bind the kernels of one dispatch; done once per binding-table state."""
        bound = dispatch.bound
        if dispatch.temporary is not None:  # as the reference backend does: the temporary under "__temporary__"
            bound = {**bound, "__temporary__": dispatch.temporary}
        launches = dispatch.compiled.operator.opencl_launches(dispatch.compiled.validated, bound, self)
        prepared = []
        for launch in launches:
            program = self.programs.program(launch.kernel, launch.defines)
            with check(f"setting arguments of kernel {launch.entry}"):
                kernel = self.cl.Kernel(program, launch.entry)
                kernel.set_args(*launch.args)
            prepared.append(PreparedLaunch(kernel, launch.global_size, launch.local_size, launch.entry, launch.args))
        return prepared

    def copy(self, source: Any, destination: Any, size: int) -> None:
        with check("copying between buffers"):
            self.cl.enqueue_copy(self.queue, destination.buffer.storage, source.buffer.storage,
                                 src_offset=source.offset, dst_offset=destination.offset, byte_count=size)

    def submit(self, dispatch: Any) -> list[Timing]:
        # The hot path of every dispatch: plain try/except (the check() context manager costs a
        # generator per call) and nothing the binding table already checked or prepared.
        cl, queue = self.cl, self.queue
        try:
            return [Timing(launch.name, cl.enqueue_nd_range_kernel(queue, launch.kernel, launch.global_size,
                                                                    launch.local_size))
                    for launch in dispatch.prepared]
        except cl.Error:
            with check("enqueueing a dispatch"):
                raise

    def wait(self) -> None:
        try:
            self.queue.finish()
        except self.cl.Error:
            with check("waiting for the queue"):
                raise


def tensor_args(bound: Any, rank: int = 4) -> list[Any]:
    """``name__base, name__offset, name__strides`` kernel arguments for one bound tensor.

    The offset is in elements (DirectML binding offsets are multiples of 16 bytes, so it is exact);
    strides are padded at the front to ``rank`` (4 → ulong4, 8 → ulong8).
    """
    cl = import_pyopencl()
    layout = bound.layout
    strides = (0,) * (rank - len(layout.strides)) + tuple(layout.strides)
    make = {4: cl.cltypes.make_ulong4, 8: cl.cltypes.make_ulong8}[rank]
    return [bound.buffer.storage, np.uint64(bound.offset // layout.element_size), make(*strides)]


def scalar_args(bound: Any) -> list[Any]:
    """``name__base, name__offset`` kernel arguments for a bound scalar tensor (a step count, a rate)."""
    return [bound.buffer.storage, np.uint64(bound.offset // bound.layout.element_size)]


def sizes_arg(sizes: Sequence[int], rank: int = 4) -> Any:
    cl = import_pyopencl()
    padded = (1,) * (rank - len(sizes)) + tuple(sizes)
    return {4: cl.cltypes.make_ulong4, 8: cl.cltypes.make_ulong8}[rank](*padded)
