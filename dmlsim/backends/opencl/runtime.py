"""The OpenCL backend of a device: buffers, prepared kernel launches, the in-order queue, timings.

Operators describe launches (dmlsim.operators.plan); this module builds, binds and enqueues them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dmlsim.backends.adapters import AdapterInfo
from dmlsim.backends.opencl import hostmem
from dmlsim.backends.opencl.errors import check, import_pyopencl
from dmlsim.backends.opencl.geometry import launch_shape, launch_target, stream_shape, target_options
from dmlsim.backends.opencl.marshal import marshal_arguments
from dmlsim.backends.opencl.programs import ProgramCache
from dmlsim.operators.plan import KernelSource
from dmlsim.runtime.execution import ResolvedDispatch

MEMORY_KERNEL = KernelSource("dmlsim.cl_kernels", "memory.cl")


@dataclass
class PreparedLaunch:
    """A launch whose cl.Kernel already has its arguments set: enqueueing it costs one API call."""

    kernel: Any
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None
    name: str
    args: Sequence[Any] = field(default=(), repr=False)  # keeps buffers made for this launch alive
    source: KernelSource | None = None  # the kernel file, for diagnostics that name a line of it


class Timing:
    """Device time of one executed launch, from OpenCL profiling events (filled in after completion).

    A plain class with slots: one is made per launch on the dispatch hot path."""

    __slots__ = ("event", "name")

    def __init__(self, name: str, event: Any) -> None:
        self.name = name
        self.event = event

    def __repr__(self) -> str:
        return f"Timing({self.name!r})"

    @property
    def device_ns(self) -> int:
        return int(self.event.profile.end - self.event.profile.start)


class OpenCLBackend:
    """Executes dispatches on one OpenCL device through a single in-order, profiling-enabled queue."""

    kind = "opencl"
    build_options: tuple[str, ...] = ()  # added to every kernel build of this backend

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
        self.target = launch_target(device)
        self.programs = ProgramCache(self.context, device, (*self.build_options, *target_options(self.target)))
        self.has_fp64 = "cl_khr_fp64" in device.extensions
        self.max_buffer_size = int(device.max_mem_alloc_size)
        # host memory is the device's own memory only on CPU devices (by device type, not launch shape)
        self.huge_pages = bool(device.type & cl.device_type.CPU) and hostmem.enabled()
        self.is_gpu = bool(device.type & cl.device_type.GPU)  # what it is, whatever launch shape is forced
        self.host_memory = hostmem.HostMemoryKeeper(cl, self.context, self.queue)
        self.driver = f"driver {device.driver_version}"
        self.kernels_enqueued = 0  # kernels submit() has enqueued: tests check every dispatch launched its own

    def on_device_thread(self, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)`` on the thread that makes this backend's OpenCL calls: here the calling
        thread (OpenCL drivers are thread-safe); Oclgrind's backend has a thread of its own
        (:mod:`.oclgrind`). For code that makes its own OpenCL objects on ``context`` (tests, probes)."""
        return function(*args)

    # --- memory -----------------------------------------------------------------------------------
    def allocate(self, size: int) -> Any:
        """A zero-filled buffer: on CPU devices, large ones in huge-page host memory (:mod:`.hostmem`)."""
        cl = self.cl
        with check(f"allocating a {size}-byte buffer"):
            self.host_memory.reap()
            if self.huge_pages and size >= hostmem.MIN_BYTES:
                buffer = self.host_memory.buffer(size)
                self._touch(buffer, size)
            else:
                buffer = cl.Buffer(self.context, cl.mem_flags.READ_WRITE, size)
                cl.enqueue_fill_buffer(self.queue, buffer, np.uint8(0), 0, size)
        return buffer

    def _touch(self, buffer: Any, size: int) -> None:
        """Zero a host-memory buffer with the streaming launch shape: its work-items touch its pages first."""
        global_size, local_size, chunked = stream_shape(self.target, size // 64)
        kernel = self.cl.Kernel(self.programs.program(MEMORY_KERNEL, {"CHUNKED": chunked}), "touch")
        kernel.set_args(buffer, np.uint64(size))
        self.cl.enqueue_nd_range_kernel(self.queue, kernel, (global_size,), (local_size,))

    def write(self, storage: Any, offset: int, data: np.ndarray) -> None:
        with check("writing a buffer"):
            self.cl.enqueue_copy(self.queue, storage, data, dst_offset=offset, is_blocking=True)

    def read(self, storage: Any, offset: int, size: int) -> bytes:
        out = np.empty(size, np.uint8)
        with check("reading a buffer"):
            self.cl.enqueue_copy(self.queue, out, storage, src_offset=offset, is_blocking=True)
        return out.tobytes()

    # --- execution --------------------------------------------------------------------------------
    def prepare(self, dispatch: ResolvedDispatch) -> list[PreparedLaunch]:
        """Build (cached) and bind the kernels of one dispatch; done once per binding-table state. The plan's
        declared argument names are checked against each kernel's parameters (:meth:`ProgramCache.kernel`)."""
        compiled = dispatch.compiled
        launches = compiled.operator.plan_launches(compiled.validated, dispatch.bound, self.target)
        prepared = []
        for launch in launches:
            defines = dict(launch.defines)
            global_size, local_size = launch_shape(self.target, launch.geometry, defines)
            with check(f"creating kernel {launch.entry}"):
                kernel = self.programs.kernel(launch.source, defines, launch.entry, launch.params)
            args = marshal_arguments(self, dispatch, launch)
            with check(f"setting arguments of kernel {launch.entry}"):
                kernel.set_args(*args)
            prepared.append(PreparedLaunch(kernel, (global_size,), (local_size,), launch.entry, args, launch.source))
        return prepared

    def upload(self, array: np.ndarray) -> Any:
        """A read-only device copy of host data (a kernel's lookup table)."""
        cl = self.cl
        with check(f"uploading a {array.nbytes}-byte table"):
            return cl.Buffer(self.context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=array)

    def copy(self, source: Any, destination: Any, size: int) -> None:
        with check("copying between buffers"):
            self.cl.enqueue_copy(self.queue, destination.buffer.storage, source.buffer.storage,
                                 src_offset=source.offset, dst_offset=destination.offset, byte_count=size)

    def admit(self, dispatches: Sequence[Any]) -> None:
        """Nothing to refuse before running: a dispatch's device memory is its buffers, allocated already."""

    def submit(self, dispatch: Any) -> list[Timing]:
        # The hot path of every dispatch: plain try/except (the check() context manager costs a
        # generator per call) and nothing the binding table already checked or prepared.
        enqueue, queue = self.cl.enqueue_nd_range_kernel, self.queue
        try:
            timings = [Timing(launch.name, enqueue(queue, launch.kernel, launch.global_size, launch.local_size))
                       for launch in dispatch.prepared]
            self.kernels_enqueued += len(timings)
            self.host_memory.reap()
            return timings
        except self.cl.Error:
            with check("enqueueing a dispatch"):
                raise

    def run_bare(self, launch: PreparedLaunch) -> None:
        """Enqueue one prepared kernel and wait, with nothing of dmlsim around it (overhead baselines)."""
        self.cl.enqueue_nd_range_kernel(self.queue, launch.kernel, launch.global_size, launch.local_size)
        self.queue.finish()

    @property
    def device_facts(self) -> dict[str, str]:
        """The OpenCL device's name, platform, driver and size, for benchmark records."""
        d = self.device
        kind = "GPU" if self.is_gpu else "CPU" if d.type & self.cl.device_type.CPU else "other"
        return {"device": d.name.strip(), "kind": kind, "platform": d.platform.name.strip(),
                "platform_version": d.platform.version.strip(), "driver": d.driver_version,
                "compute_units": str(d.max_compute_units)}

    @property
    def api_versions(self) -> dict[str, str]:
        """The host API's version, for benchmark records."""
        return {"pyopencl": self.cl.VERSION_TEXT}

    def wait(self) -> None:
        try:
            self.queue.finish()
        except self.cl.Error:
            with check("waiting for the queue"):
                raise
        self.host_memory.drained()
