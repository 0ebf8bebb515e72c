"""Float64 references of DML_OPERATOR_REDUCE, ARGMIN and ARGMAX, transcribed from the
DML_REDUCE_FUNCTION and DML_ARGMIN/ARGMAX_OPERATOR_DESC doc pages.

Floating-point inputs are reduced in float64; integer inputs in their own type (wrapping, as the
device's integer arithmetic does). Indices (ARGMIN/ARGMAX) count row-major over the reduced axes; a NaN
is chosen over every number (extreme_index).

A broadcast input (stride 0: one value repeated along an axis) is not expanded (issue 26 item 4: a float
stretched to 2^32 - 1 elements would be 32 GiB in float64): each repeat is computed once
(dmlsim.api.tensor.compact), and a reduction over n repeats of the same values is the formula's: the sum
n times the sum (the integers' wrapping product), the product to the n-th power, the same maximum,
minimum and average, LOG_SUM_EXP's sum of exponentials n times; the arg-reductions' first (last) extreme
element lies at the first (last) repeat.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from dmlsim.api.tensor import broadcast_axes, compact


def _float(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, np.float64)


def reduce(function: str, x: np.ndarray, axes: Sequence[int]) -> np.ndarray:
    """The reduction ``function`` (a DML_REDUCE_FUNCTION name without its prefix) of ``x`` over ``axes``,
    keeping the reduced axes as size 1."""
    axes = tuple(axes)
    if function in ("ARGMAX", "ARGMIN"):
        return arg_reduce(function == "ARGMAX", x, axes, last=False)
    repeats = math.prod(x.shape[a] for a in broadcast_axes(x) if a in axes)
    out_shape = tuple(1 if a in axes else n for a, n in enumerate(x.shape))
    return np.broadcast_to(_reduce(function, compact(x), axes, repeats), out_shape)


def _times(total: np.ndarray, repeats: int) -> np.ndarray:
    """``repeats`` copies of ``total`` added: float64 multiplication, or the integer type's wrapping one."""
    if repeats == 1:
        return total
    if np.issubdtype(total.dtype, np.floating):
        return total * np.float64(repeats)
    unsigned = np.dtype(f"u{total.dtype.itemsize}")
    factor = np.array(repeats % 2 ** (8 * total.dtype.itemsize), unsigned).view(total.dtype)
    return total * factor


def _power(product: np.ndarray, repeats: int) -> np.ndarray:
    """``repeats`` copies of ``product`` multiplied: float64 power, or by squaring in the integer type (wrapping)."""
    if repeats == 1:
        return product
    if np.issubdtype(product.dtype, np.floating):
        with np.errstate(over="ignore", under="ignore"):
            return product ** np.float64(repeats)
    result, base = np.ones_like(product), product
    while repeats:
        if repeats & 1:
            result = result * base
        base, repeats = base * base, repeats >> 1
    return result


def _reduce(function: str, x: np.ndarray, axes: tuple[int, ...], repeats: int) -> np.ndarray:
    """:func:`reduce` of an input whose reduced axes hold every value ``repeats`` times, given without the repeats."""
    floating = np.issubdtype(x.dtype, np.floating)
    kept = {"keepdims": True, "axis": axes}
    if function == "SUM":                                    # x1 + x2 + ... + xn
        return _times(np.sum(_float(x), **kept) if floating else np.sum(x, dtype=x.dtype, **kept), repeats)
    if function == "SUM_SQUARE":                             # x1^2 + ... + xn^2
        return _times(np.sum(_float(x) ** 2, **kept) if floating else np.sum(x * x, dtype=x.dtype, **kept), repeats)
    if function == "L1":                                     # |x1| + ... + |xn|
        return _times(np.sum(np.abs(_float(x)), **kept) if floating else np.sum(np.abs(x), dtype=x.dtype, **kept),
                      repeats)
    if function == "MULTIPLY":                               # x1 * x2 * ... * xn
        return _power(np.prod(_float(x), **kept) if floating else np.prod(x, dtype=x.dtype, **kept), repeats)
    if function == "MAX":                                    # max(max(x1, x2), ...)
        return np.fmax.reduce(x, **kept).astype(np.float64) if floating else np.max(x, **kept)
    if function == "MIN":                                    # NaN ignored (fmin), as the kernel's fmin
        return np.fmin.reduce(x, **kept).astype(np.float64) if floating else np.min(x, **kept)
    x = _float(x)
    if function == "AVERAGE":                                # (x1 + ... + xn) / n
        return np.mean(x, **kept)
    if function == "L2":                                     # sqrt(x1^2 + ... + xn^2)
        return np.sqrt(_times(np.sum(x * x, **kept), repeats))
    if function == "LOG_SUM":                                # log(x1 + ... + xn)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(_times(np.sum(x, **kept), repeats))
    if function == "LOG_SUM_EXP":                            # log(exp(x1) + ... + exp(xn))
        m = np.max(x, **kept)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(np.isinf(m), m, m + np.log(_times(np.sum(np.exp(x - m), **kept), repeats)))
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
    equal elements the first (``last``: the last) in increasing index order; NaN as :func:`extreme_index`.

    Computed without the repeats of a broadcast input: of the extreme elements, the first (last) in
    row-major order has the first (last) coordinate on every broadcast axis, since its value repeats there."""
    axes = tuple(sorted(axes))
    out_shape = [1 if a in axes else n for a, n in enumerate(x.shape)]
    sizes = [x.shape[a] for a in axes]
    repeated = set(broadcast_axes(x))
    x = compact(x)
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, kept + list(axes))
    flat = moved.reshape([x.shape[a] for a in kept] + [-1])
    index = np.asarray(extreme_index(flat, largest, last)).astype(np.int64)
    if repeated & set(axes):  # an index among the distinct values: counted again over the full sizes
        coords = np.unravel_index(index, [x.shape[a] for a in axes])
        coords = tuple(np.full_like(c, n - 1 if last else 0) if a in repeated else c
                       for a, n, c in zip(axes, sizes, coords, strict=True))
        index = np.asarray(np.ravel_multi_index(coords, sizes), np.int64)
    return np.broadcast_to(index.reshape([1 if a in axes else n for a, n in enumerate(x.shape)]), out_shape)
