"""Float64-free reference of DML_OPERATOR_REVERSE_SUBSEQUENCES (it moves elements: the result is exact).

Along ``axis``, the first ``L = min(length, size)`` elements of each subsequence are reversed (``length`` from
SequenceLengthsTensor, whose ``axis`` dimension is 1), the rest copied unchanged.
"""

from __future__ import annotations

import numpy as np


def reverse_subsequences(x: np.ndarray, lengths: np.ndarray, axis: int) -> np.ndarray:
    """``x`` with each subsequence along ``axis`` reversed over its first ``min(length, size)`` elements."""
    size = x.shape[axis]
    shape = [1] * x.ndim
    shape[axis] = size
    i = np.arange(size, dtype=np.int64).reshape(shape)
    limit = np.minimum(np.asarray(lengths).astype(np.uint64), np.uint64(size)).astype(np.int64)
    source = np.broadcast_to(np.where(i < limit, limit - 1 - i, i), x.shape)
    return np.take_along_axis(x, source, axis)
