"""Float64 reference of DML_OPERATOR_GEMM, transcribed from its DirectML doc page:

    Output = FusedActivation(Alpha * TransA(A) x TransB(B) + Beta * C)

over the last two dimensions, one independent product per leading (batch, channel) index; C is
optional ("values default to 0 when not provided"), so Beta is then ignored.
"""

from __future__ import annotations

import numpy as np


def gemm(a: np.ndarray, b: np.ndarray, c: np.ndarray | None, trans_a: bool, trans_b: bool, alpha: float,
         beta: float) -> np.ndarray:
    """``alpha * op(a) @ op(b) + beta * c`` in float64, op a transpose of the last two axes when asked."""
    a64 = np.asarray(a, np.float64)
    b64 = np.asarray(b, np.float64)
    if trans_a:
        a64 = np.swapaxes(a64, -1, -2)
    if trans_b:
        b64 = np.swapaxes(b64, -1, -2)
    result = np.float64(alpha) * np.matmul(a64, b64)
    if c is not None:
        result = result + np.float64(beta) * np.asarray(c, np.float64)
    return result
