"""The reference of NONZERO_COORDINATES (exact): the coordinates of the non-zero input elements in row-major
order (±0 are zero, NaN is not), their count, and zero rows after the count (dmlsim's decision)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def nonzero_coordinates(x: np.ndarray, count_sizes: Sequence[int],
                        coordinate_sizes: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(count, coordinates): coordinates row r holds the last N coordinates of the r-th non-zero element."""
    found = np.argwhere(np.asarray(x) != 0)
    rows, n = coordinate_sizes[-2], coordinate_sizes[-1]
    coordinates = np.zeros((rows, n), np.uint32)
    coordinates[:len(found)] = found[:, x.ndim - n:]
    count = np.full(tuple(count_sizes), len(found), np.uint32)
    return count, coordinates.reshape(tuple(coordinate_sizes))
