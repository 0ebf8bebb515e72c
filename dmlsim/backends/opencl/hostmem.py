"""Buffer memory placed for streaming: host memory on 2 MiB transparent huge pages (CPU devices).

On a CPU device an OpenCL buffer is host memory either way; what differs is where it lies. A driver's
own allocation sits on 4 KiB pages, so a kernel streaming hundreds of MiB misses the TLB every 4 KiB;
the native same-traffic step measured 30 GB/s that way and 45–50 GB/s on huge pages (benchmarks/README.md).
:func:`huge_page_array` maps anonymous memory, aligns it to 2 MiB and asks the kernel for transparent huge
pages (``madvise(MADV_HUGEPAGE)``; a hint: where THP is off the memory stays usable on 4 KiB pages); the
backend wraps it in a ``CL_MEM_USE_HOST_PTR`` buffer and lets a kernel's work-items touch it first, so
its pages are placed by the threads that stream them.

Only buffers of at least :data:`MIN_BYTES` take this path (smaller ones gain nothing and would each
reserve a huge page's address space); ``DMLSIM_HUGE_PAGES=0`` turns it off (comparisons, odd drivers).
"""

from __future__ import annotations

import mmap
import os

import numpy as np

HUGE_PAGE = 2 << 20
MIN_BYTES = HUGE_PAGE
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
