"""ScatterElements and ScatterND with a ``reduction`` (add, mul, max, min; opsets 16 and 18) composed of DirectML
operators.

DirectML's scatter descs (DML_SCATTER_OPERATOR_DESC, DML_SCATTER_ND_OPERATOR_DESC) have no reduction: duplicate
indices leave "no guarantee of which last write wins". onnxruntime's DirectML provider does not run these nodes
either: its DmlOperatorScatter builds the plain scatter descs, and its operator versions list ScatterElements and
ScatterND since opsets 11, 13 and 16 but not 18, so onnxruntime gives an opset-18 node (max/min) to its CPU
provider. The composition here is dmlsim's; it is exact where ONNX is (integers, max, min) and combines duplicate
indices as ONNX defines (every update aimed at an element is combined into it, in order):

- **Per update, not per output element.** For each update ``p`` the lowering computes the final value of the element
  it targets, ``final[p] = data[target(p)] ⊕ reduce{ updates[q] : target(q) = target(p) }``, then writes
  ``final`` with DirectML's plain SCATTER_ELEMENTS / SCATTER_ND. Updates aimed at one element all carry the same
  ``final`` (the same inputs through the same operators), so which duplicate write wins does not matter.
- **The match mask.** ONNX's negative indices are normalised (``IF(index < 0, index + n, index)``: LOGICAL_LESS_THAN,
  ADD, IF). ScatterElements: ``mask[p, k] = (index[p] = index[p with its axis coordinate k])``, shape
  ``indices.shape + (K,)`` with K the indices' extent along ``axis`` (only updates sharing the other coordinates
  can collide), read through stride-0 views of one index tensor (LOGICAL_EQUALS). ScatterND: the index tuples of
  the N = prod(indices.shape[:-1]) rows are flattened to one linear index (MULTIPLY by the row-major strides of
  ``data.shape[:k]``, REDUCE SUM over the tuple), then ``mask[n, m] = (linear[n] = linear[m])``.
- **The reduction.** ``ELEMENT_WISE_IF(mask, update, identity)`` over the mask's shape (ScatterND: N × N × S with
  S the slice size), REDUCE (SUM / MULTIPLY / MAX / MIN) over the update axis, then combined with
  ``GATHER_ELEMENTS`` / ``GATHER_ND1`` of ``data`` at the (raw) indices by ADD / MULTIPLY / MAX / MIN. The
  identities: add −0.0 (so ``x + identity`` is ``x`` for every x, −0 included) or 0, mul 1, max −inf or the
  type's smallest integer, min +inf or its largest. max/min need no "any update matched" step: every update
  matches itself.
- **Budget.** The IF's output (ScatterElements: prod(indices.shape) · K elements; ScatterND: N · N · S) is
  refused above :data:`MATCH_LIMIT` (2^24 elements), naming the limit.

Data types: FLOAT32, FLOAT16 and the 8- to 64-bit integers. REDUCE's SUM and MULTIPLY take only 32- and 64-bit
integers (its doc page's table): INT8/INT16 updates are CAST to INT32 and UINT8/UINT16 to UINT32 for the reduction
and CAST back (DirectML's integer CAST wraps, as ONNX's integer arithmetic does), so integer results are exact
(wrapping as ONNX's numpy reference wraps). Refused, naming the reason: FLOAT64 (neither REDUCE nor the arithmetic
element-wise operators take it; the provider registers no FLOAT64 either), bool (ONNX defines no arithmetic on
it), ScatterElements of rank 8 (the mask needs one more dimension than DirectML's 8) and ScatterElements whose
indices are smaller than the data on an axis other than ``axis`` (ONNX allows it; DirectML's SCATTER_ELEMENTS and
GATHER_ELEMENTS take the data's sizes there, and reduction 'none' is refused by SCATTER_ELEMENTS' own rule).

Floating-point results: ONNX's reference combines the updates one at a time in index order in the data's type;
this composition sums (multiplies) the matched updates first in float32 (REDUCE accumulates in float32, in order)
and then combines that with the data element, so with m updates at one element the two agree to within 2m + 1
ulps of max(|data| + Σ|updates|) (products: 2m + 1 ulps of the result's magnitude); FLOAT16 rounds once per
REDUCE and once per combine where ONNX rounds after every step. Two corner cases differ from the reference's
sequential order: a −0.0 data element whose matched updates are all −0.0 becomes +0.0 (REDUCE's sum starts from
+0), and max/min follow DirectML's MAX/MIN, which ignore a NaN beside a number (fmax/fmin) where ONNX's
references disagree among themselves (ScatterND's ``np.maximum`` propagates NaN; ScatterElements' Python ``max``
depends on the order). Indices outside ``[-n, n - 1]`` are invalid in ONNX; here they take DirectML's gather and
scatter behaviour (dmlsim clamps them) and match only equal indices.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.api.errors import E_INVALIDARG
from dmlsim.api.tensor import packed_strides
from dmlsim.onnx import lowering as registry
from dmlsim.onnx import ops_gather
from dmlsim.onnx.lowering import MAX_RANK, Lowering, View
from dmlsim.onnx.ops_onnxb import _Steps
from dmlsim.onnx.ops_tensor import packed

MATCH_LIMIT = 2 ** 24  # elements of the IF tensor (updates × the updates each one is compared with)
REDUCE_FUNCTION = {"add": "SUM", "mul": "MULTIPLY", "max": "MAX", "min": "MIN"}
COMBINE = {"add": "ELEMENT_WISE_ADD", "mul": "ELEMENT_WISE_MULTIPLY", "max": "ELEMENT_WISE_MAX",
           "min": "ELEMENT_WISE_MIN"}
# REDUCE's SUM and MULTIPLY take 32- and 64-bit integers only: the narrower ones reduce in these (CAST wraps back)
WIDENED = {np.dtype(np.int8): np.dtype(np.int32), np.dtype(np.int16): np.dtype(np.int32),
           np.dtype(np.uint8): np.dtype(np.uint32), np.dtype(np.uint16): np.dtype(np.uint32)}
SUPPORTED = (np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.int8), np.dtype(np.int16),
             np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.uint8), np.dtype(np.uint16),
             np.dtype(np.uint32), np.dtype(np.uint64))


def identity(reduction: str, dtype: np.dtype) -> Any:
    """The value that leaves every element unchanged under ``reduction`` in ``dtype`` (−0.0 for a float sum)."""
    dtype = np.dtype(dtype)
    if reduction == "add":
        return -0.0 if dtype.kind == "f" else 0
    if reduction == "mul":
        return 1
    if dtype.kind == "f":
        return -math.inf if reduction == "max" else math.inf
    info = np.iinfo(dtype)
    return int(info.min) if reduction == "max" else int(info.max)


def _check(low: Lowering, reduction: str, dtype: np.dtype, match_elements: int, what: str) -> None:
    if reduction not in REDUCE_FUNCTION:
        raise low.refuse(f"reduction {reduction!r}: ONNX defines none, add, mul, max and min", E_INVALIDARG)
    if dtype == np.float64:
        raise low.refuse(f"reduction {reduction!r} on float64 data: DirectML's REDUCE and arithmetic element-wise "
                         "operators take no FLOAT64")
    if dtype not in SUPPORTED:
        raise low.refuse(f"reduction {reduction!r} on {dtype} data: ONNX defines no arithmetic on it")
    if match_elements > MATCH_LIMIT:
        raise low.refuse(f"reduction {reduction!r}: the composition compares {what}, a {match_elements}-element "
                         f"match tensor, over its limit of 2^24 = {MATCH_LIMIT} elements (MATCH_LIMIT)")


def _normalised(steps: _Steps, indices: View, sizes: np.ndarray) -> View:
    """``indices`` with ONNX's negative values counted from the end: IF(i < 0, i + n, i), n broadcast from
    ``sizes`` (one per trailing position)."""
    zero = steps.const(0, indices.dtype)
    negative = steps.op("ELEMENT_WISE_LOGICAL_LESS_THAN", indices, zero, np.bool_)
    wrapped = steps.op("ELEMENT_WISE_ADD", indices, steps.const(sizes, indices.dtype))
    return steps.where(negative, wrapped, indices)


def _work_type(reduction: str, dtype: np.dtype) -> np.dtype:
    """The type the reduction runs in: INT32/UINT32 for 8- and 16-bit integer sums and products, else ``dtype``."""
    return WIDENED.get(np.dtype(dtype), np.dtype(dtype)) if reduction in ("add", "mul") else np.dtype(dtype)


def _in_work_type(steps: _Steps, reduction: str, updates: View) -> View:
    """``updates`` CAST to the reduction's work type where that differs (a packed copy), else itself."""
    work = _work_type(reduction, updates.dtype)
    return updates if work == updates.dtype else steps.op("CAST", updates, dtype=work)


def _combined(low: Lowering, steps: _Steps, reduction: str, mask: View, spread: View, axis: int,
              gathered: View) -> View:
    """``gathered ⊕ REDUCE_axis(IF(mask, spread, identity))``: the final value of each update's target.
    ``spread`` is the updates (in the work type) read over the mask's shape; the REDUCE's output, ``axis``
    dropped, has ``gathered``'s shape."""
    work = np.dtype(spread.dtype)
    chosen = steps.where(mask, spread, steps.const(identity(reduction, work), work))
    kept = tuple(1 if d == axis else n for d, n in enumerate(chosen.shape))
    out = low.fresh(steps.prefix)
    low.emit(dml.DML_OPERATOR_REDUCE, dml.DML_REDUCE_OPERATOR_DESC, {"InputTensor": chosen},
             {"OutputTensor": low.output(out, kept, work)},
             Function=getattr(dml, f"DML_REDUCE_FUNCTION_{REDUCE_FUNCTION[reduction]}"), AxisCount=1, Axes=[axis])
    reduced = View(low.views[out].name, gathered.shape, packed_strides(gathered.shape), work)
    if work != gathered.dtype:  # back from INT32/UINT32: CAST wraps, as ONNX's 8/16-bit arithmetic does
        reduced = steps.op("CAST", reduced, dtype=gathered.dtype)
    return steps.op(COMBINE[reduction], gathered, reduced)


def _padded(low: Lowering, op: str, inputs: dict[str, View], shape: tuple[int, ...], dtype: np.dtype, out: str,
            node: Any = None, **attributes: Any) -> View:
    """One gather/scatter node with every tensor padded to one rank (ops_gather's mapping), writing ``out``."""
    ops_gather._emit_padded(low, op, node if node is not None else SimpleNamespace(output=[out]), inputs, shape,
                            dtype, **attributes)
    return low.views[out]


def lower_scatter_elements_reduced(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """ScatterElements with a reduction (module docstring): mask over indices.shape + (K,), IF, REDUCE, combine
    with GATHER_ELEMENTS of the data, SCATTER_ELEMENTS of the final values."""
    reduction = attrs["reduction"]
    data, indices, updates = (low.view(name) for name in node.input[:3])
    rank = len(data.shape)
    axis = attrs.get("axis", 0)
    axis = axis + rank if axis < 0 else axis
    shape = tuple(indices.shape)
    k = shape[axis]
    _check(low, reduction, np.dtype(data.dtype), math.prod(shape) * k,
           f"each of the {math.prod(shape)} updates with the {k} along axis {axis}")
    if rank + 1 > MAX_RANK:
        raise low.refuse(f"reduction {reduction!r} on rank {rank}: the match tensor needs rank {rank + 1}, over "
                         f"DirectML's {MAX_RANK} dimensions")
    if any(n != m for d, (n, m) in enumerate(zip(shape, data.shape, strict=True)) if d != axis):
        raise low.refuse(f"reduction {reduction!r} with indices {list(shape)} smaller than data "
                         f"{list(data.shape)} off axis {axis}: DML_SCATTER_OPERATOR_DESC and GATHER_ELEMENTS take "
                         "indices of the data's sizes on every other axis")
    steps = _Steps(low, f"{node.output[0]}/scatter_{reduction}")
    normal = packed(low, _normalised(steps, indices, np.array(data.shape[axis], np.int64)))

    def along(view: View) -> View:  # view[p with axis coordinate k] over indices.shape + (K,)
        strides = (*tuple(0 if d == axis else st for d, st in enumerate(view.strides)), view.strides[axis])
        return View(view.name, (*shape, k), strides, view.dtype, view.offset)

    mine = View(normal.name, (*shape, k), (*normal.strides, 0), normal.dtype)
    mask = steps.op("ELEMENT_WISE_LOGICAL_EQUALS", mine, along(normal), np.bool_)
    gathered = steps.gather_elements(data, indices, axis)
    final = _combined(low, steps, reduction, mask, along(packed(low, _in_work_type(steps, reduction, updates))),
                      rank, gathered)
    _padded(low, "SCATTER_ELEMENTS", {"InputTensor": data, "IndicesTensor": indices, "UpdatesTensor": final},
            data.shape, data.dtype, node.output[0], node, Axis=axis)


def lower_scatter_nd_reduced(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """ScatterND with a reduction (module docstring): index tuples flattened to linear indices, an N × N × S
    IF, REDUCE over the second axis, combined with GATHER_ND1 of the data, SCATTER_ND of the final values."""
    reduction = attrs["reduction"]
    data, indices, updates = (low.view(name) for name in node.input[:3])
    tuple_size = indices.shape[-1]
    rows = math.prod(indices.shape[:-1])
    slice_shape = tuple(data.shape[tuple_size:])
    size = math.prod(slice_shape)
    _check(low, reduction, np.dtype(data.dtype), rows * rows * size,
           f"each of the {rows} index rows with every row, over slices of {size} elements")
    steps = _Steps(low, f"{node.output[0]}/scatter_nd_{reduction}")
    normal = packed(low, _normalised(steps, indices, np.array(data.shape[:tuple_size], np.int64)))
    if tuple_size > 1:  # the row-major linear index of each tuple: Σ index_j · stride_j (REDUCE SUM)
        strides = np.array(packed_strides(tuple(data.shape[:tuple_size])), np.int64)
        terms = steps.op("ELEMENT_WISE_MULTIPLY", normal, steps.const(strides, normal.dtype))
        out = low.fresh(steps.prefix)
        low.emit(dml.DML_OPERATOR_REDUCE, dml.DML_REDUCE_OPERATOR_DESC, {"InputTensor": terms},
                 {"OutputTensor": low.output(out, (*terms.shape[:-1], 1), terms.dtype)},
                 Function=dml.DML_REDUCE_FUNCTION_SUM, AxisCount=1, Axes=[len(terms.shape) - 1])
        normal = low.views[out]
    linear = normal.name  # packed: one linear index per row
    mask = steps.op("ELEMENT_WISE_LOGICAL_EQUALS", View(linear, (rows, rows, 1), (1, 0, 0), normal.dtype),
                    View(linear, (rows, rows, 1), (0, 1, 0), normal.dtype), np.bool_)
    work = packed(low, _in_work_type(steps, reduction, updates))
    spread = View(work.name, (rows, rows, size), (0, size, 1), work.dtype)
    batch = tuple(indices.shape[:-1])
    gathered = _padded(low, "GATHER_ND1", {"InputTensor": data, "IndicesTensor": indices}, batch + slice_shape,
                       data.dtype, low.fresh(steps.prefix), InputDimensionCount=len(data.shape),
                       IndicesDimensionCount=len(indices.shape), BatchDimensionCount=0)
    final = _combined(low, steps, reduction, mask, spread, 1,
                      View(gathered.name, (rows, 1, size), packed_strides((rows, 1, size)), gathered.dtype))
    final = View(final.name, batch + slice_shape, packed_strides(batch + slice_shape), final.dtype)
    _padded(low, "SCATTER_ND", {"InputTensor": data, "IndicesTensor": indices, "UpdatesTensor": final},
            data.shape, data.dtype, node.output[0], node, InputDimensionCount=len(data.shape),
            IndicesDimensionCount=len(indices.shape))


def _install() -> None:
    """ScatterElements and ScatterND keep ops_gather's lowerings for reduction 'none'; a reduction is composed
    here."""
    plain = {op: registry.LOWERINGS[op] for op in ("ScatterElements", "ScatterND")}
    reduced = {"ScatterElements": lower_scatter_elements_reduced, "ScatterND": lower_scatter_nd_reduced}

    def lower(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
        if attrs.get("reduction", "none") == "none":
            plain[node.op_type](low, node, attrs)
        else:
            reduced[node.op_type](low, node, attrs)

    for op in plain:
        registry.LOWERINGS[op] = lower


_install()
