"""References of DML_OPERATOR_UNFOLD (im2col, exact: it moves elements) and DML_OPERATOR_FOLD (col2im, sums in
float64).

The image is ``{N, C, S_0 .. S_{D-1}}``, the columns ``{N, C * K, L}``: row ``c * K + k`` (k row-major over the
window positions), column ``b`` (row-major over the blocks). Window position k of block b reads the zero-padded
image at ``b[d] * Strides[d] + k[d] * Dilations[d] - StartPadding[d]``; BlocksPerDimension[d] is
``(S_d + StartPadding[d] + EndPadding[d] - Dilations[d] * (WindowSizes[d] - 1) - 1) // Strides[d] + 1``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np


def blocks_per_dimension(spatial: Sequence[int], window: Sequence[int], strides: Sequence[int],
                         dilations: Sequence[int], start: Sequence[int], end: Sequence[int]) -> list[int]:
    """The doc pages' BlocksPerDimension (may be 0 or negative for a window larger than the padded image)."""
    return [(s + a + e - d * (w - 1) - 1) // t + 1
            for s, w, t, d, a, e in zip(spatial, window, strides, dilations, start, end, strict=True)]


def _windows(window: Sequence[int], strides: Sequence[int], dilations: Sequence[int], start: Sequence[int],
             blocks: Sequence[int]) -> list[tuple[np.ndarray, ...]]:
    """For each window position (row-major), the padded-image coordinates each block reads, per dimension (as
    open-mesh index arrays over the blocks, in image coordinates: may lie outside)."""
    grids = []
    for k in itertools.product(*(range(w) for w in window)):
        axes = [np.arange(n, dtype=np.int64) * t + kd * d - a
                for n, t, kd, d, a in zip(blocks, strides, k, dilations, start, strict=True)]
        grids.append(tuple(np.meshgrid(*axes, indexing="ij")))
    return grids


def unfold(x: np.ndarray, window: Sequence[int], strides: Sequence[int], dilations: Sequence[int],
           start: Sequence[int], end: Sequence[int]) -> np.ndarray:
    """im2col: ``{N, C, spatial...}`` to ``{N, C * K, L}``, zeros where a window reads the padding."""
    n, c, *spatial = x.shape
    blocks = blocks_per_dimension(spatial, window, strides, dilations, start, end)
    grids = _windows(window, strides, dilations, start, blocks)
    out = np.zeros((n, c, len(grids), int(np.prod(blocks))), x.dtype)
    for k, grid in enumerate(grids):
        inside = np.ones(grid[0].shape, bool)
        for g, s in zip(grid, spatial, strict=True):
            inside &= (g >= 0) & (g < s)
        clipped = tuple(np.clip(g, 0, s - 1) for g, s in zip(grid, spatial, strict=True))
        values = x[(slice(None), slice(None), *clipped)]
        out[:, :, k, :] = np.where(inside, values, np.zeros((), x.dtype)).reshape(n, c, -1)
    return out.reshape(n, c * len(grids), -1)


def fold(columns: np.ndarray, spatial: Sequence[int], window: Sequence[int], strides: Sequence[int],
         dilations: Sequence[int], start: Sequence[int], end: Sequence[int]) -> np.ndarray:
    """col2im in float64: every columns element added into the image element its window position and block read
    (padding reads dropped)."""
    n, rows, _ = columns.shape[-3:]
    blocks = blocks_per_dimension(spatial, window, strides, dilations, start, end)
    grids = _windows(window, strides, dilations, start, blocks)
    c = rows // len(grids)
    cols = np.asarray(columns, np.float64).reshape(n, c, len(grids), *blocks)
    out = np.zeros((n, c, *spatial))
    for k, grid in enumerate(grids):
        inside = np.ones(grid[0].shape, bool)
        for g, s in zip(grid, spatial, strict=True):
            inside &= (g >= 0) & (g < s)
        index = tuple(g[inside] for g in grid)
        with np.errstate(invalid="ignore"):
            np.add.at(out, (slice(None), slice(None), *index), cols[:, :, k][(slice(None), slice(None), inside)])
    return out
