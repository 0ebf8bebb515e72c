"""Launch geometry: the one place that knows what launch shape suits a device.

The device kind is detected once per backend (:func:`launch_target`); ``DMLSIM_LAUNCH_SHAPE=cpu|gpu``
overrides it so that the tests run every kernel's GPU shape on CPU devices too (and vice versa).
An operator's plan names a geometry kind (dmlsim.operators.plan); :func:`launch_shape` turns it
into global and local sizes.

Streaming kernels (packed element-wise fast paths such as the optimizers) loop over VEC-wide vectors.
What is fast differs by device kind (measured on PoCL CPU devices, see benchmarks/README.md):

- CPU: one element (or one vector) per work-item is slow — every work-item recomputes its
  per-dispatch scalars (Adam's bias correction: two logs, two expm1, a sqrt) and PoCL pays a cost
  per work-group. Few long work-items, each streaming a contiguous chunk (``CHUNKED``), run at
  memory bandwidth; a few work-groups per compute unit keep both cores busy on a noisy machine.
- GPU and others: a grid-stride loop keeps memory accesses coalesced. On an H100 (NVIDIA's OpenCL) one
  vector per work-item, i.e. as many work-groups as the data needs, was fastest (Adam 16M FLOAT32: 2.87 TB/s
  vs 2.76 TB/s with 32 work-groups per compute unit); the cap only bounds the launch for huge tensors.
"""

from __future__ import annotations

import os
from typing import Any

from dmlsim.api.errors import E_INVALIDARG, DMLError
from dmlsim.operators.plan import Geometry, Groups, Items, LaunchTarget, Stream

CPU_LOCAL = 16
CPU_MIN_VECTORS_PER_ITEM = 64
CPU_GROUPS_PER_UNIT = 16
GPU_LOCAL = 256
GPU_GROUPS_PER_UNIT = 1024
CL_DEVICE_TYPE_CPU = 2
SHAPE_VARIABLE = "DMLSIM_LAUNCH_SHAPE"


def launch_target(device: Any) -> LaunchTarget:
    """The device's kind and size, read once; ``$DMLSIM_LAUNCH_SHAPE`` (cpu/gpu) forces the kind."""
    units = max(1, int(getattr(device, "max_compute_units", 1) or 1))
    forced = os.environ.get(SHAPE_VARIABLE, "").strip().lower()
    if forced not in ("", "cpu", "gpu"):
        raise DMLError(E_INVALIDARG, f"{SHAPE_VARIABLE}={forced!r}: use 'cpu' or 'gpu' (or leave it unset)")
    is_cpu = forced == "cpu" if forced else bool(getattr(device, "type", 0) & CL_DEVICE_TYPE_CPU)
    vectorizes_items = int(getattr(device, "preferred_vector_width_float", 0) or 0) == 1
    return LaunchTarget(is_cpu, units, vectorizes_items)


def target_options(target: LaunchTarget) -> tuple[str, ...]:
    """Build options every kernel of a launch target gets: ``-DDMLSIM_CPU`` for CPU targets, where
    dmlsim/cl_kernels/dmlsim.h then moves packed vectors by plain dereference instead of vloadn/vstoren
    (PyPI's PoCL 3.0 compiles those as library calls, which halved Adam's speed there)."""
    return ("-DDMLSIM_CPU",) if target.is_cpu else ()


def launch_shape(target: LaunchTarget, geometry: Geometry, defines: dict[str, Any]) -> tuple[int, int]:
    """(global size, local size) of a 1-D launch; a :class:`Stream` also sets ``defines['CHUNKED']``."""
    if isinstance(geometry, Stream):
        global_size, local_size, chunked = stream_shape(target, geometry.vectors)
        defines["CHUNKED"] = chunked
        return global_size, local_size
    if isinstance(geometry, Items):
        return max(1, -(-geometry.count // geometry.local)) * geometry.local, geometry.local
    if isinstance(geometry, Groups):
        return max(1, geometry.count) * geometry.local, geometry.local
    raise TypeError(f"unknown geometry {geometry!r}")


def stream_shape(target: LaunchTarget, vectors: int) -> tuple[int, int, bool]:
    """(global size, local size, chunked) for a packed kernel over ``vectors`` VEC-wide vectors."""
    vectors = max(1, vectors)
    if target.is_cpu:
        groups = min(-(-vectors // (CPU_LOCAL * CPU_MIN_VECTORS_PER_ITEM)), target.compute_units * CPU_GROUPS_PER_UNIT)
        return max(1, groups) * CPU_LOCAL, CPU_LOCAL, True
    groups = min(-(-vectors // GPU_LOCAL), target.compute_units * GPU_GROUPS_PER_UNIT)
    return max(1, groups) * GPU_LOCAL, GPU_LOCAL, False
