"""Float64 reference of DML_OPERATOR_GEMM, transcribed from its DirectML doc page:

    Output = FusedActivation(Alpha * TransA(A) x TransB(B) + Beta * C)

over the last two dimensions, one independent product per leading (batch, channel) index; C is
optional ("values default to 0 when not provided"), so Beta is then ignored.

Broadcast operands are not expanded (issue 26 item 4: A and B of one float each, stretched to
K = 2^32 - 1 by stride 0, would be 32 GiB each in float64). A dimension along which an operand repeats one
value (stride 0) is computed once and the result repeated: a broadcast batch index or row of A, or column
of B, gives equal output rows or columns; K broadcast in both A and B makes each output element K equal
terms, K times one product. K broadcast in only one operand, or operands larger than :data:`CHUNK_ELEMENTS`
in float64, are multiplied in slices of K whose float64 copies hold at most about that many elements, the
partial products summed. Each term is the same product a·b either way (an infinite times a zero is still
NaN); only the order of the float64 additions differs.
"""

from __future__ import annotations

import math

import numpy as np

from dmlsim.api.tensor import compact

CHUNK_ELEMENTS = 1 << 22  # float64 elements of A's and B's slices together (32 MiB)


def gemm(a: np.ndarray, b: np.ndarray, c: np.ndarray | None, trans_a: bool, trans_b: bool, alpha: float,
         beta: float) -> np.ndarray:
    """``alpha * op(a) @ op(b) + beta * c`` in float64, op a transpose of the last two axes when asked."""
    if trans_a:
        a = np.swapaxes(a, -1, -2)
    if trans_b:
        b = np.swapaxes(b, -1, -2)
    shape = (*np.broadcast_shapes(a.shape[:-2], b.shape[:-2]), a.shape[-2], b.shape[-1])
    result = np.float64(alpha) * _product(a, b)
    if c is not None:
        result = result + np.float64(beta) * np.asarray(c, np.float64)
    return np.broadcast_to(result, np.broadcast_shapes(shape, result.shape))


def _product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` in float64 with the broadcast dimensions of each operand left at length 1 (module docstring)."""
    k = a.shape[-1]
    small_a, small_b = compact(a), compact(b)
    if small_a.shape[-1] == small_b.shape[-2] == 1 < k:  # K equal terms
        return np.float64(k) * np.matmul(np.asarray(small_a, np.float64), np.asarray(small_b, np.float64))
    step = k_step(small_a.shape, small_b.shape, k)
    if step >= k and small_a.shape[-1] == small_b.shape[-2]:
        return np.matmul(np.asarray(small_a, np.float64), np.asarray(small_b, np.float64))
    # K broadcast in one operand only (expanded slice by slice), or operands too large to convert at once
    small_a = small_a if small_a.shape[-1] == k else np.broadcast_to(small_a, (*small_a.shape[:-1], k))
    small_b = small_b if small_b.shape[-2] == k else np.broadcast_to(small_b, (*small_b.shape[:-2], k,
                                                                                small_b.shape[-1]))
    total = None
    for start in range(0, k, step):
        part = np.matmul(np.asarray(small_a[..., start:start + step], np.float64),
                         np.asarray(small_b[..., start:start + step, :], np.float64))
        total = part if total is None else total + part
    return total


def k_step(a_shape: tuple[int, ...], b_shape: tuple[int, ...], k: int) -> int:
    """How many of the K terms to multiply at once so that A's and B's float64 slices hold at most about
    :data:`CHUNK_ELEMENTS` (at least one term); ``a_shape``/``b_shape``: the operands without their repeats."""
    per_term = math.prod(a_shape[:-1]) + math.prod(b_shape[:-2]) * b_shape[-1]
    return min(k, max(1, CHUNK_ELEMENTS // per_term))


def working_elements(a_shape: tuple[int, ...], b_shape: tuple[int, ...], k: int, out_elements: int) -> int:
    """Float64 elements :func:`gemm` holds at most for operands of these shapes without their repeats (the
    reference device's estimate, before anything is allocated): A's and B's float64 (slices), the product
    and a partial sum, and the output-sized results (alpha·product, the sum with C, the activation)."""
    step = k_step(a_shape, b_shape, k)
    if a_shape[-1] == b_shape[-2] == 1 < k:
        step = 1
    product = math.prod(np.broadcast_shapes(a_shape[:-2], b_shape[:-2])) * a_shape[-2] * b_shape[-1]
    operands = step * (math.prod(a_shape[:-1]) + math.prod(b_shape[:-2]) * b_shape[-1])
    return operands + 2 * product + 3 * out_elements
