"""Float64-free reference of DML_OPERATOR_SLICE_GRAD (it moves elements: the result is exact).

The gradient of SLICE1: an OutputGradientTensor of the slice's input sizes, zero everywhere but where the slice
read, which takes the InputGradientTensor element read from there. SLICE1's pseudocode reads input coordinate
``start + stride * c`` along each dimension (``start`` the window's offset, or its last element for a negative
stride).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def slice_grad(dy: np.ndarray, out_sizes: Sequence[int], offsets: Sequence[int], window_sizes: Sequence[int],
               strides: Sequence[int]) -> np.ndarray:
    """Zeros of ``out_sizes`` with ``dy`` scattered to the coordinates SLICE1's window reads."""
    out = np.zeros(tuple(out_sizes), dy.dtype)
    index = []
    for o, w, s, n in zip(offsets, window_sizes, strides, dy.shape, strict=True):
        start = o + w - 1 if s < 0 else o
        index.append(start + s * np.arange(n, dtype=np.int64))
    out[np.ix_(*index)] = dy
    return out
