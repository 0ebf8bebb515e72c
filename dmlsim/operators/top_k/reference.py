"""The reference of TOP_K and TOP_K1 (exact: values are moved, indices counted), from their doc pages and
dmlsim's decisions (this folder's ``__init__``): the order is by value (largest first for TOP_K and
DML_AXIS_DIRECTION_DECREASING, smallest first for INCREASING), NaN above +inf, -0 equal to +0, ties by the lower
index first whatever the direction.
"""

from __future__ import annotations

import numpy as np


def top_k(x: np.ndarray, axis: int, k: int, decreasing: bool) -> tuple[np.ndarray, np.ndarray]:
    """(values, indices) of the first ``k`` elements of each sequence along ``axis`` in the order above."""
    # dense ranks over the whole tensor keep the order within each sequence: np.unique sorts NaN last (above
    # +inf) and collapses equal values (-0 with +0, every NaN with the others)
    _, rank = np.unique(np.asarray(x).reshape(-1), return_inverse=True)
    rank = rank.reshape(x.shape).astype(np.int64)
    order = np.argsort(-rank if decreasing else rank, axis=axis, kind="stable")  # stable: lower index first
    picked = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, picked, axis=axis), picked
