"""Float64 references of DML_OPERATOR_CUMULATIVE_SUMMATION and DML_OPERATOR_CUMULATIVE_PRODUCT, from their
doc pages: along Axis, each output element is the sum (product) of the input elements before it in the
AxisDirection, itself included unless HasExclusiveSum (HasExclusiveProduct), where the first is 0 (1).
Floats in float64; integers in their own type (wrapping)."""

from __future__ import annotations

import numpy as np


def cumulative(x: np.ndarray, axis: int, *, product: bool, decreasing: bool, exclusive: bool) -> np.ndarray:
    """The running sum (``product``: product) of ``x`` along ``axis``."""
    x = np.asarray(x, np.float64) if np.issubdtype(x.dtype, np.floating) else np.asarray(x)
    if decreasing:
        x = np.flip(x, axis)
    run = (np.cumprod if product else np.cumsum)(x, axis=axis, dtype=x.dtype)
    if exclusive:
        first = np.full_like(np.take(x, [0], axis=axis), 1 if product else 0)
        run = np.concatenate([first, np.delete(run, -1, axis=axis)], axis=axis)
    return np.flip(run, axis) if decreasing else run
