"""Input values for bench workloads, made without large temporaries.

A workload's host arrays are made before its device buffers. Making them as float64 and then casting
frees a temporary twice their size just before those buffers are allocated, and on the shared VMs
these benchmarks run on (a sandboxed kernel) memory reused right after such a release streamed at half
speed: the same native kernel over a 2^26-element Adam workload's own buffers took 61 ms against
31 ms over the next workload's (benchmarks/README.md, "Memory placement"). Values here are drawn in
float32 (float64 for FLOAT64) straight into the destination, one chunk at a time.
"""

from __future__ import annotations

import numpy as np

CHUNK = 1 << 20  # elements drawn at a time: the largest temporary is 4 MiB


def normal(rng: np.random.Generator, count: int, dtype: np.dtype | type, scale: float = 1.0,
           absolute: bool = False) -> np.ndarray:
    """``count`` values ``scale * N(0, 1)`` (``abs`` of them with ``absolute``) in ``dtype``."""
    out = np.empty(count, dtype)
    draw = np.float64 if out.dtype == np.float64 else np.float32
    for start in range(0, count, CHUNK):
        part = rng.standard_normal(min(CHUNK, count - start), dtype=draw)
        if absolute:
            np.abs(part, out=part)
        if scale != 1.0:
            part *= draw(scale)
        out[start:start + part.size] = part
    return out
