"""Float64 references of DML_OPERATOR_FILL_VALUE_CONSTANT and DML_OPERATOR_FILL_VALUE_SEQUENCE.

SEQUENCE (its doc page): ``OutputTensor[elementIndex] = ValueStart + elementIndex * ValueDelta`` over
the row-major element index. Integers are computed exactly and wrapped to the output type (the
doc's UINT8 example, 10 with a delta of -2 read as UInt8 254, gives 10, 8, 6, 4 this way).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def fill_sequence(sizes: Sequence[int], dtype: np.dtype, start: np.generic, delta: np.generic) -> np.ndarray:
    """ValueStart + i * ValueDelta for every element index i, in ``dtype`` (floats rounded once)."""
    count = int(np.prod(sizes))
    if np.issubdtype(dtype, np.floating):
        values = np.float64(start) + np.arange(count, dtype=np.float64) * np.float64(delta)
        return values.reshape(sizes)
    bits = 8 * np.dtype(dtype).itemsize
    exact = [(int(start) + i * int(delta)) % 2**bits for i in range(count)]
    return np.array(exact, np.dtype(f"u{bits // 8}")).view(dtype).reshape(sizes)


def fill_constant(sizes: Sequence[int], dtype: np.dtype, value: np.generic) -> np.ndarray:
    """Every element equal to Value."""
    return np.full(tuple(sizes), value, dtype)
