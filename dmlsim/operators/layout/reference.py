"""Float64-free references of the layout operators (they move elements: every result is exact, bit for bit).

PADDING / PADDING1 / TILE: each output coordinate maps, dimension by dimension, onto an input coordinate
(``source_indices``); DML_PADDING_MODE_CONSTANT writes the padding value where a coordinate falls outside.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

CONSTANT, EDGE, REFLECTION, SYMMETRIC, WRAP = range(5)  # DML_PADDING_MODE values


def source_indices(out_size: int, in_size: int, start: int, mode: int) -> np.ndarray:
    """The input coordinate of each output coordinate along one dimension (CONSTANT: may lie outside)."""
    i = np.arange(out_size, dtype=np.int64) - start
    if mode == EDGE:
        return np.clip(i, 0, in_size - 1)
    if mode == REFLECTION:
        if in_size == 1:
            return np.zeros_like(i)
        period = 2 * (in_size - 1)
        m = np.mod(i, period)
        return np.where(m < in_size, m, period - m)
    if mode == SYMMETRIC:
        m = np.mod(i, 2 * in_size)
        return np.where(m < in_size, m, 2 * in_size - 1 - m)
    if mode == WRAP:
        return np.mod(i, in_size)
    return i


def pad(x: np.ndarray, start: Sequence[int], end: Sequence[int], mode: int, value: np.generic) -> np.ndarray:
    """PADDING/PADDING1: ``x`` grown by ``start``/``end`` elements per dimension, filled per ``mode``;
    ``value`` (of x's data type) is the CONSTANT fill."""
    index, inside = [], np.ones((), bool)
    for d, n in enumerate(x.shape):
        i = source_indices(n + start[d] + end[d], n, start[d], mode)
        ok = (i >= 0) & (i < n)
        index.append(np.clip(i, 0, n - 1))
        inside = inside[..., None] & ok.reshape((1,) * d + (-1,))
    out = np.array(x[np.ix_(*index)])
    if mode == CONSTANT:
        out[~np.broadcast_to(inside, out.shape)] = value
    return out


def tile(x: np.ndarray, repeats: Sequence[int]) -> np.ndarray:
    """TILE: output[c] = x[c mod InputTensor.Sizes], the input repeated ``repeats[d]`` times along dimension d."""
    index = [source_indices(n * r, n, 0, WRAP) for n, r in zip(x.shape, repeats, strict=True)]
    return np.array(x[np.ix_(*index)])
