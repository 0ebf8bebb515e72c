"""Float64 references of DML_OPERATOR_DIAGONAL_MATRIX and DML_OPERATOR_DIAGONAL_MATRIX1 (their doc pages'
pseudocode): over the last two dimensions (y the row, x the column; leading dimensions are a batch),
``topX = x - y``; ``useValue = (End >= Begin) ^ (topX >= Begin) ^ (topX < End)``; the output is Value where
useValue, else the input element (or 0 without an input). DIAGONAL_MATRIX is Begin = Offset, End = Offset + 1.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def diagonal_mask(sizes: Sequence[int], begin: int, end: int) -> np.ndarray:
    """The boolean useValue of every element of a tensor of ``sizes`` (broadcast over the leading dimensions)."""
    rows, cols = sizes[-2], sizes[-1]
    top_x = np.arange(cols, dtype=np.int64)[None, :] - np.arange(rows, dtype=np.int64)[:, None]
    mask = (end >= begin) ^ (top_x >= begin) ^ (top_x < end)
    return np.broadcast_to(mask, tuple(sizes))


def diagonal_matrix(sizes: Sequence[int], dtype: np.dtype, value: np.generic, begin: int, end: int,
                    x: np.ndarray | None = None) -> np.ndarray:
    """Value where the mask holds, else ``x`` (or zeros), in ``dtype``; ``value`` already of ``dtype``."""
    base = np.zeros(tuple(sizes), dtype) if x is None else np.array(x, dtype=dtype, copy=True)
    return np.where(diagonal_mask(sizes, begin, end), np.asarray(value, dtype), base)
