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


def depth_to_space(x: np.ndarray, block: int, column_row_depth: bool) -> np.ndarray:
    """DEPTH_TO_SPACE(1): {B, C*b*b, H, W} to {B, C, H*b, W*b}; the depth dimension read as (bh, bw, C)
    (DEPTH_COLUMN_ROW) or (C, bh, bw) (COLUMN_ROW_DEPTH)."""
    n, depth, h, w = x.shape
    c = depth // (block * block)
    if column_row_depth:
        v = x.reshape(n, c, block, block, h, w).transpose(0, 1, 4, 2, 5, 3)
    else:
        v = x.reshape(n, block, block, c, h, w).transpose(0, 3, 4, 1, 5, 2)
    return np.ascontiguousarray(v).reshape(n, c, h * block, w * block)


def space_to_depth(x: np.ndarray, block: int, column_row_depth: bool) -> np.ndarray:
    """SPACE_TO_DEPTH(1): the inverse of depth_to_space: {B, C, H*b, W*b} to {B, C*b*b, H, W}."""
    n, c, hb, wb = x.shape
    h, w = hb // block, wb // block
    v = x.reshape(n, c, h, block, w, block)
    v = v.transpose(0, 1, 3, 5, 2, 4) if column_row_depth else v.transpose(0, 3, 5, 1, 2, 4)
    return np.ascontiguousarray(v).reshape(n, c * block * block, h, w)
