"""Float64 references of JOIN, SPLIT, SLICE, SLICE1 (moves: exact) and CAST, from their doc pages.

CAST's conversion rules (dmlsim's decisions where the doc page is silent, README "Decisions"): float to
integer rounds toward zero and saturates to the integer type's range, NaN gives 0; integer to integer
keeps the low bits (two's-complement wrap, as a C cast); to a floating type rounds to nearest even
(FLOAT16 from FLOAT64: rounded once; beyond the largest finite value: infinity).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def join(xs: Sequence[np.ndarray], axis: int) -> np.ndarray:
    """The inputs concatenated along ``axis`` in order."""
    return np.concatenate(list(xs), axis=axis)


def split(x: np.ndarray, lengths: Sequence[int], axis: int) -> list[np.ndarray]:
    """Consecutive pieces of ``x`` along ``axis`` with the given lengths."""
    bounds = np.cumsum(lengths)[:-1]
    return np.split(x, bounds, axis=axis)


def slice_window(x: np.ndarray, offsets: Sequence[int], sizes: Sequence[int], strides: Sequence[int]) -> np.ndarray:
    """DML_SLICE: output[i] = x[offsets + i * strides] with ``sizes`` elements per dimension."""
    index = tuple(slice(o, o + (n - 1) * s + 1, s) for o, n, s in zip(offsets, sizes, strides, strict=True))
    return x[index]


def slice1_window(x: np.ndarray, offsets: Sequence[int], out_sizes: Sequence[int], strides: Sequence[int],
                  window_sizes: Sequence[int]) -> np.ndarray:
    """DML_SLICE1's pseudo-code: CopyStart = offsets, moved to the window's last element in each dimension whose
    stride is negative; output[c] = x[CopyStart + strides * c] for the output's sizes."""
    index = []
    for o, n, s, w in zip(offsets, out_sizes, strides, window_sizes, strict=True):
        start = o + w - 1 if s < 0 else o
        index.append(np.array([start + s * c for c in range(n)]))
    return x[np.ix_(*index)]


def cast(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """CAST with dmlsim's conversion rules (module docstring)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        with np.errstate(over="ignore"):  # beyond the type's range: rounds to infinity, as documented above
            return np.asarray(x).astype(dtype)
    if x.dtype.kind == "f":
        info = np.iinfo(dtype)
        t = np.trunc(np.asarray(x, np.float64))
        exact = [0 if np.isnan(v) else int(min(max(v, info.min), info.max)) if np.isfinite(v)
                 else (info.max if v > 0 else info.min) for v in t.ravel()]
        return np.array(exact, dtype).reshape(x.shape)
    bits = 8 * dtype.itemsize
    wrapped = [int(v) % 2**bits for v in np.asarray(x).ravel()]
    return np.array(wrapped, np.dtype(f"u{dtype.itemsize}")).view(dtype).reshape(x.shape)
