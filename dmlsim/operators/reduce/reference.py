"""Float64 references of DML_OPERATOR_REDUCE, ARGMIN and ARGMAX, transcribed from the
DML_REDUCE_FUNCTION and DML_ARGMIN/ARGMAX_OPERATOR_DESC doc pages.

Floating-point inputs are reduced in float64; integer inputs in their own type (wrapping, as the
device's integer arithmetic does). Indices (ARGMIN/ARGMAX) count row-major over the reduced axes; a NaN
is chosen over every number (extreme_index).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _float(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, np.float64)


def reduce(function: str, x: np.ndarray, axes: Sequence[int]) -> np.ndarray:
    """The reduction ``function`` (a DML_REDUCE_FUNCTION name without its prefix) of ``x`` over ``axes``,
    keeping the reduced axes as size 1."""
    axes = tuple(axes)
    if function in ("ARGMAX", "ARGMIN"):
        return arg_reduce(function == "ARGMAX", x, axes, last=False)
    floating = np.issubdtype(x.dtype, np.floating)
    kept = {"keepdims": True, "axis": axes}
    if function == "SUM":                                    # x1 + x2 + ... + xn
        return np.sum(_float(x), **kept) if floating else np.sum(x, dtype=x.dtype, **kept)
    if function == "SUM_SQUARE":                             # x1^2 + ... + xn^2
        return np.sum(_float(x) ** 2, **kept) if floating else np.sum(x * x, dtype=x.dtype, **kept)
    if function == "L1":                                     # |x1| + ... + |xn|
        return np.sum(np.abs(_float(x)), **kept) if floating else np.sum(np.abs(x), dtype=x.dtype, **kept)
    if function == "MULTIPLY":                               # x1 * x2 * ... * xn
        return np.prod(_float(x), **kept) if floating else np.prod(x, dtype=x.dtype, **kept)
    if function == "MAX":                                    # max(max(x1, x2), ...)
        return np.fmax.reduce(x, **kept).astype(np.float64) if floating else np.max(x, **kept)
    if function == "MIN":                                    # NaN ignored (fmin), as the kernel's fmin
        return np.fmin.reduce(x, **kept).astype(np.float64) if floating else np.min(x, **kept)
    x = _float(x)
    if function == "AVERAGE":                                # (x1 + ... + xn) / n
        return np.mean(x, **kept)
    if function == "L2":                                     # sqrt(x1^2 + ... + xn^2)
        return np.sqrt(np.sum(x * x, **kept))
    if function == "LOG_SUM":                                # log(x1 + ... + xn)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(np.sum(x, **kept))
    if function == "LOG_SUM_EXP":                            # log(exp(x1) + ... + exp(xn))
        m = np.max(x, **kept)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(np.isinf(m), m, m + np.log(np.sum(np.exp(x - m), **kept)))
    raise KeyError(function)


def extreme_index(flat: np.ndarray, largest: bool, last: bool = False) -> np.ndarray:
    """The index along the last axis of ``flat`` of its largest (or smallest) element; among equal elements
    the first (``last``: the last). A NaN is chosen over every number, for the smallest as for the largest,
    and among NaNs the first (``last``: the last): dmlsim's rule where DirectML's pages are silent (the
    README's "Decisions"), as numpy's argmax/argmin, torch and ONNX's reference ArgMax/ArgMin choose. ±0 are
    equal. numpy's argmax and argmin follow exactly this rule (each returns the index of the first NaN); the
    last of equal elements is the first of the reversed row."""
    if last:
        flat = flat[..., ::-1]
    index = np.argmax(flat, axis=-1) if largest else np.argmin(flat, axis=-1)
    return flat.shape[-1] - 1 - index if last else index


def arg_reduce(largest: bool, x: np.ndarray, axes: Sequence[int], last: bool) -> np.ndarray:
    """The index (row-major over ``axes``) of the largest (or smallest) element of each reduction; among
    equal elements the first (``last``: the last) in increasing index order; NaN as :func:`extreme_index`."""
    axes = tuple(sorted(axes))
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, kept + list(axes))
    flat = moved.reshape([x.shape[a] for a in kept] + [-1])
    index = extreme_index(flat, largest, last)
    out_shape = [1 if a in axes else s for a, s in enumerate(x.shape)]
    return np.asarray(index).reshape(out_shape).astype(np.int64)
