"""Float64 reference of DML_OPERATOR_VALUE_SCALE_2D: ``Output = Scale * Input + Bias[channel]`` over a 4-D
``{N, C, H, W}`` tensor (the doc page's formula)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def value_scale_2d(x: np.ndarray, scale: float, bias: Sequence[float]) -> np.ndarray:
    """``scale * x + bias[c]`` in float64, the bias broadcast along the channel dimension (1); Scale and Bias are
    the desc's C FLOATs (float32 values)."""
    with np.errstate(all="ignore"):
        s = np.float64(np.float32(scale))
        b = np.asarray(bias, np.float32).astype(np.float64).reshape(1, -1, 1, 1)
        return s * np.asarray(x, np.float64) + b
