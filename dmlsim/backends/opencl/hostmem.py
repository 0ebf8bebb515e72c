"""Buffer memory placed for streaming: host memory on 2 MiB transparent huge pages (CPU devices).

On a CPU device an OpenCL buffer is host memory either way; what differs is where it lies. A driver's
own allocation sits on 4 KiB pages, so a kernel streaming hundreds of MiB misses the TLB every 4 KiB;
the native same-traffic step measured 30 GB/s that way and 45–50 GB/s on huge pages (benchmarks/README.md).
:func:`huge_page_array` maps anonymous memory, aligns it to 2 MiB and asks the kernel for transparent huge
pages (``madvise(MADV_HUGEPAGE)``; a hint: where THP is off the memory stays usable on 4 KiB pages); the
backend wraps it in a ``CL_MEM_USE_HOST_PTR`` buffer and lets a kernel's work-items touch it first, so
its pages are placed by the threads that stream them.

Host memory outlives its buffer's Python object until the queue is past every command enqueued before
its release (:class:`HostMemoryKeeper`): pyopencl lets go of a ``USE_HOST_PTR`` buffer's host array when
the object dies, while the driver may still be running a kernel on it (the first-touch launch of a
buffer created and dropped at once, a dispatch nobody waited for); unmapped under the driver's worker
threads, that memory would be a segfault.

Only buffers of at least :data:`MIN_BYTES` take this path (smaller ones gain nothing and would each
reserve a huge page's address space); ``DMLSIM_HUGE_PAGES=0`` turns it off (comparisons, odd drivers).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import weakref
from typing import Any

import numpy as np

HUGE_PAGE = 2 << 20
MIN_BYTES = HUGE_PAGE
KEPT_BYTES_LIMIT = 1 << 30  # beyond this much released-but-queued memory, allocating waits for the queue
VARIABLE = "DMLSIM_HUGE_PAGES"


def enabled() -> bool:
    """Whether large buffers go on huge-page host memory (default yes; ``DMLSIM_HUGE_PAGES=0`` says no)."""
    return os.environ.get(VARIABLE, "1").strip().lower() not in ("0", "no", "off", "false")


def huge_page_array(size: int) -> np.ndarray:
    """``size`` zero bytes, 2 MiB aligned, with transparent huge pages requested (not yet touched).

    The array keeps its mapping alive; the mapping is unmapped when the last view of it is gone.
    """
    span = -(-size // HUGE_PAGE) * HUGE_PAGE
    # private: a shared anonymous mapping is shmem, whose huge pages follow a different (usually off) setting
    mapping = mmap.mmap(-1, span + HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    whole = np.frombuffer(mapping, np.uint8)
    start = -whole.ctypes.data % HUGE_PAGE
    if hasattr(mmap, "MADV_HUGEPAGE"):
        mapping.madvise(mmap.MADV_HUGEPAGE, start, span)
    return whole[start:start + size]


class HostMemoryKeeper:
    """Makes host-memory buffers on one in-order queue, and keeps each one's memory until the queue is past it.

    A buffer's release only records its host array; :meth:`reap` (called as the backend allocates and
    submits) enqueues one marker for everything released since its last call and frees what earlier
    markers have passed; :meth:`drained` frees everything once the queue has finished. A program that
    drops large buffers faster than the queue runs would pile up memory: past :data:`KEPT_BYTES_LIMIT`,
    :meth:`reap` waits for the oldest markers (as a driver stalls an allocation it has no memory for).
    When the keeper itself goes (its device dropped, or the interpreter exiting) it first waits for the
    queue: the memory it still keeps is freed with it.
    """

    def __init__(self, cl: Any, context: Any, queue: Any) -> None:
        self.cl, self.context, self.queue = cl, context, queue
        # a Python subclass, so that a finalizer can watch the object (pyopencl's own class takes no weakref)
        self._buffer_class = type("HostMemoryBuffer", (cl.Buffer,), {"__doc__": "A buffer over huge-page host memory."})
        self._released: list[np.ndarray] = []
        self._draining: list[tuple[Any, list[np.ndarray]]] = []  # (marker event, host arrays it frees)
        weakref.finalize(self, _finish, cl, queue)

    def buffer(self, size: int) -> Any:
        """A ``USE_HOST_PTR`` buffer over :func:`huge_page_array` memory (not yet touched)."""
        host = huge_page_array(size)
        buffer = self._buffer_class(self.context, self.cl.mem_flags.READ_WRITE | self.cl.mem_flags.USE_HOST_PTR,
                                    hostbuf=host)
        weakref.finalize(buffer, self._release, host)  # holds the keeper: it outlives its buffers
        return buffer

    def _release(self, host: np.ndarray) -> None:
        self._released.append(host)  # looked up at release time: reap() swaps in a new list

    @property
    def kept_bytes(self) -> int:
        """Bytes of host memory whose buffers are gone but which the queue may still use."""
        return sum(h.nbytes for h in self._released) + sum(h.nbytes for _, kept in self._draining for h in kept)

    def reap(self) -> None:
        """Mark the queue's position for memory released since the last call; free what the queue has passed."""
        if self._released:
            # the marker first: whatever is released after it was enqueued was used only by earlier commands
            marker = self.cl.enqueue_marker(self.queue)
            released, self._released = self._released, []
            self._draining.append((marker, released))
        if self._draining:
            complete = self.cl.command_execution_status.COMPLETE  # 0; a failed command's status is negative
            self._draining = [(m, kept) for m, kept in self._draining if m.command_execution_status > complete]
            while self._draining and self.kept_bytes > KEPT_BYTES_LIMIT:
                self._draining[0][0].wait()  # then let go: its memory is past use
                del self._draining[0]

    def drained(self) -> None:
        """The queue has finished every command: no released memory is in use any more."""
        if self._released or self._draining:  # after every wait: no new lists when there is nothing to free
            self._released, self._draining = [], []


def _finish(cl: Any, queue: Any) -> None:
    """Wait for ``queue`` (a keeper is going): no kernel may still run on the memory freed with it."""
    with contextlib.suppress(cl.Error):  # a queue already in error has nothing left to run
        queue.finish()
