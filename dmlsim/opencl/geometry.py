"""Launch geometry of packed, element-wise fast paths ("streaming" kernels such as the optimizers).

A packed kernel loops over VEC-wide vectors; the global size G decides how many vectors each
work-item does. What is fast differs by device kind (measured on PoCL CPU devices, see
benchmarks/README.md):

- CPU: one element (or one vector) per work-item is slow — every work-item recomputes its
  per-dispatch scalars (Adam's bias correction: two logs, two expm1, a sqrt) and PoCL pays a cost
  per work-group. Few long work-items, each streaming a contiguous chunk (``CHUNKED``), run at
  memory bandwidth; a few work-groups per compute unit keep both cores busy on a noisy machine.
- GPU and others: a grid-stride loop over enough work-groups to fill the device keeps memory
  accesses coalesced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CPU_LOCAL = 16
CPU_MIN_VECTORS_PER_ITEM = 64
CPU_GROUPS_PER_UNIT = 16
GPU_LOCAL = 256
GPU_GROUPS_PER_UNIT = 32


@dataclass(frozen=True)
class StreamGeometry:
    """Global and local size of one streaming launch, and whether work-items take contiguous chunks."""

    global_size: int
    local_size: int
    chunked: bool


def stream_geometry(device: Any, vectors: int) -> StreamGeometry:
    """The geometry for a packed kernel over ``vectors`` VEC-wide vectors on an OpenCL ``device``."""
    cl_type = getattr(device, "type", 0)
    units = max(1, int(getattr(device, "max_compute_units", 1) or 1))
    is_cpu = bool(cl_type & 2)  # CL_DEVICE_TYPE_CPU
    vectors = max(1, vectors)
    if is_cpu:
        groups = min(-(-vectors // (CPU_LOCAL * CPU_MIN_VECTORS_PER_ITEM)), units * CPU_GROUPS_PER_UNIT)
        return StreamGeometry(max(1, groups) * CPU_LOCAL, CPU_LOCAL, True)
    groups = min(-(-vectors // GPU_LOCAL), units * GPU_GROUPS_PER_UNIT)
    return StreamGeometry(max(1, groups) * GPU_LOCAL, GPU_LOCAL, False)
