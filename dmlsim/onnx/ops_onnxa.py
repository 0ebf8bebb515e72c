"""GridSample's cubic taps and border rule, Resize's extrapolation_value, MaxPool's column-major indices,
AveragePool's counted pads under ceil_mode: compositions of DirectML operators for forms no single DirectML
operator has.

- **GridSample, cubic** (``mode='cubic'``, opset 16's ``'bicubic'``): the GridSample composition of
  :func:`dmlsim.onnx.ops_onnxcov.lower_grid_sample` with 4^D taps per output instead of linear's 2^D corners
  (:func:`cubic_corners`): the taps ``floor(x) − 1 … floor(x) + 2`` of each axis, weighted by Keys' cubic
  convolution with ONNX's A = −0.75 evaluated at the fraction ``t = x − floor(x)`` (element-wise MULTIPLY/ADD,
  Horner's form as ONNX writes it); zeros padding weights a tap outside the input 0, border padding clamps it,
  reflection padding reflects the tap's index by the near border (ONNX reflects each integer tap, so the tap two
  before the first pixel reads the second one, where a clamp would read the first).
- **GridSample, border padding** (every mode): ONNX clamps a position to [0, size − 1] only when it lies outside
  the border range ([−0.5, size − 0.5] without align_corners), so −0.3 stays −0.3 (``grid_border``: CLIP,
  comparisons, ELEMENT_WISE_IF, in dmlsim/onnx/ops_onnxcov.py); linear and nearest read the same pixels either
  way, cubic's taps do not.
- **Resize, tf_crop_and_resize with a non-zero extrapolation_value** (onnxruntime's provider declines it: DirectML
  clamps to the edges): the Resize lowering without the value (RESAMPLE2, or the cubic GEMMs), then
  ELEMENT_WISE_IF between the value and the resampled element, the condition a host-made UINT8 constant of where
  ONNX's source coordinate leaves [0, in − 1] on some axis (it depends on the shapes and the roi only, so it is
  constant folding, not host compute on tensor data; a roi computed on the device is read back, as the provider
  reads it on the CPU). Inside the crop RESAMPLE2 never clamps, so both agree there.
- **Resize, align_corners with a fractional resized length** (``in · scale`` not an integer, scales given) is
  refused, located: ONNX's expected outputs divide by ``in · scale − 1``, DirectML's provider by ``out − 1``
  (:func:`refuse_fractional_align_corners`); a mismatch would hide a known difference.
- **MaxPool, storage_order=1**: ONNX's column-major Indices (``h + w·H`` inside each (n, c) plane, ``+ d·H·W`` in
  3-D) from MAX_POOLING2's row-major UINT64 ones by integer element-wise operators (:func:`column_major_indices`,
  called from dmlsim/onnx/ops_pool.py); ties keep DirectML's choice, the first in row-major scan order, which is
  also ONNX's (its loops scan row-major and only store the index column-major). A 1-D pooling needs nothing.
- **AveragePool, count_include_pad=1 with ceil_mode's overhang**: ONNX divides by the window's elements inside the
  padded input (its pads counted, the ceil overhang not, as PyTorch does); AVERAGE_POOLING1's IncludePadding counts
  all of a window's padding, and ops_pool passes the overhang as EndPadding. So the pads become real zeros
  (PADDING1) and AVERAGE_POOLING1 reads them with the overhang alone as EndPadding and IncludePadding FALSE
  (:func:`pad_for_counted_pads`, called from dmlsim/onnx/ops_pool.py). dmlsim was not wrong against DirectML's
  page (IncludePadding counts the padding it is given); the mapping of ceil_mode onto padding was.

Left refused: MaxUnpool with an ``output_shape`` larger than the default (see
:func:`dmlsim.onnx.ops_onnxcov.lower_max_unpool`: onnx's case pads the default-shaped result, onnxruntime and its
DirectML provider unpool into the given shape).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dmlsim.onnx import ops_onnxcov  # noqa: F401  (wraps Resize first: _install_resize wraps its lowering)
from dmlsim.onnx.lowering import Lowering, View, broadcast_view
from dmlsim.onnx.ops_onnxcov import GRID_CORNERS, _scalar, grid_reflect

CUBIC_A = -0.75  # ONNX GridSample's cubic-convolution coefficient (Keys; PyTorch's value)


def _cubic_weights(step: Callable[..., View], const: Callable[[float], View], t: View) -> list[View]:
    """The four cubic-convolution weights of the taps −1, 0, +1, +2 at fraction ``t`` in [0, 1), each an
    element-wise composition of ONNX's polynomials: w(d) = ((A·d − 5A)·d + 8A)·d − 4A for 1 ≤ d < 2 and
    ((A + 2)·d − (A + 3))·d·d + 1 for d < 1, at the distances d = t + 1, t, 1 − t, 2 − t."""
    a = CUBIC_A

    def mul(u: View, v: View) -> View:
        return step("ELEMENT_WISE_MULTIPLY", u, v)

    def add(u: View, value: float) -> View:
        return step("ELEMENT_WISE_ADD", u, const(value))

    def scaled(u: View, factor: float) -> View:
        return mul(u, const(factor))

    def far(d: View) -> View:  # 1 ≤ d < 2
        return add(mul(add(mul(add(scaled(d, a), -5 * a), d), 8 * a), d), -4 * a)

    def near(d: View) -> View:  # d < 1
        return add(mul(mul(add(scaled(d, a + 2), -(a + 3)), d), d), 1.0)

    one_minus = step("ELEMENT_WISE_SUBTRACT", const(1.0), t)
    two_minus = step("ELEMENT_WISE_SUBTRACT", const(2.0), t)
    return [far(add(t, 1.0)), near(t), near(one_minus), far(two_minus)]


def cubic_corners(step: Callable[..., View], const: Callable[[float], View], coordinates: Sequence[View],
                  spatial: Sequence[int], padding: str, align: bool) -> list[tuple[list[View], View | None]]:
    """GridSample's cubic taps: for each of the 4^D combinations, the per-axis tap positions (float, before the
    gather's zeros mask or clamp) and the product of their weights. ``step``/``const`` are the GridSample
    lowering's node and constant makers, ``coordinates`` its unnormalized (padded) positions per input axis."""
    taps: list[list[View]] = []
    weights: list[list[View]] = []
    for position, size in zip(coordinates, spatial, strict=True):
        floor = step("ELEMENT_WISE_FLOOR", position)
        t = step("ELEMENT_WISE_SUBTRACT", position, floor)
        weights.append(_cubic_weights(step, const, t))
        axis_taps = []
        for offset in (-1.0, 0.0, 1.0, 2.0):
            tap = step("ELEMENT_WISE_ADD", floor, const(offset)) if offset else floor
            if padding == "reflection":  # ONNX reflects each tap's index into the border range
                lo, hi = (0.0, size - 1.0) if align else (-0.5, size - 0.5)
                tap = grid_reflect(step, const, tap, lo, hi)
            axis_taps.append(tap)
        taps.append(axis_taps)
    corners: list[tuple[list[View], View | None]] = []
    dims = len(coordinates)
    for combination in range(4 ** dims):
        picks, weight = [], None
        for j in range(dims):
            k = combination // 4 ** j % 4
            picks.append(taps[j][k])
            weight = weights[j][k] if weight is None else step("ELEMENT_WISE_MULTIPLY", weight, weights[j][k])
        corners.append((picks, weight))
    return corners


GRID_CORNERS["cubic"] = GRID_CORNERS["bicubic"] = cubic_corners  # GridSample's lowering takes its taps from here


def _like(low: Lowering, like: View, value: float) -> View:
    """A constant of ``like``'s type broadcast to its shape (a constant node of a few bytes)."""
    return _scalar(low, value, like)


# --- Resize: tf_crop_and_resize's extrapolation_value -----------------------------------------------------------
def extrapolated_mask(in_shape: Sequence[int], out_shape: Sequence[int], roi: np.ndarray) -> np.ndarray:
    """Which outputs of a tf_crop_and_resize Resize ONNX extrapolates: those whose source coordinate on some axis,
    ``start·(in − 1) + x·(end − start)·(in − 1)/(out − 1)`` (``(start + end)/2·(in − 1)`` for one output), falls
    outside [0, in − 1]. A bool array broadcastable to ``out_shape`` (size 1 on axes where nothing falls outside):
    a function of the shapes and the roi only. Rounded as ONNX's evaluator (whence its expected outputs) rounds:
    ``end − start`` and ``start · (in − 1)`` in the roi's type (float32 in onnx's cases), the rest in float64,
    which decides coordinates that land exactly on 0 or in − 1 in exact arithmetic (a roi of −0.2 … 1 over 4 → 3
    pixels puts the last at 3.0000001: extrapolated)."""
    rank = len(in_shape)
    mask = np.zeros([1] * rank, bool)
    roi = np.asarray(roi) if np.asarray(roi).dtype.kind == "f" else np.asarray(roi, np.float32)
    kind = roi.dtype.type
    for axis, (n_in, n_out) in enumerate(zip(in_shape, out_shape, strict=True)):
        start, end = roi[axis], roi[axis + rank]
        span = float(kind(end - start))
        origin = float(kind(start * kind(n_in - 1)))
        positions = np.arange(n_out, dtype=np.float64)
        source = (positions * span * (n_in - 1) / max(n_out - 1, 1) if n_out > 1  # ONNX's order of operations
                  else np.full(1, span * (n_in - 1) / 2)) + origin
        outside = (source < 0) | (source > n_in - 1)
        if outside.any():
            shape = [1] * rank
            shape[axis] = n_out
            mask = mask | outside.reshape(shape)
    return mask


def lower_resize_extrapolated(low: Lowering, node: Any, attrs: dict[str, Any],
                              resize: Callable[[Lowering, Any, dict[str, Any]], None]) -> None:
    """tf_crop_and_resize with a non-zero extrapolation_value: ``resize`` (RESAMPLE2, or the cubic GEMMs) without
    the value, then ELEMENT_WISE_IF choosing the value where ONNX extrapolates (:func:`extrapolated_mask`, a
    host-made UINT8 constant of the shapes and the roi, broadcast with stride 0) and the resampled element
    elsewhere. Inside the crop RESAMPLE2 never clamps, so the two agree there; ONNX's separable passes give the
    value wherever any axis extrapolates, as the mask does."""
    import dmlsim as dml

    x = low.view(node.input[0])
    rank = len(x.shape)
    roi = np.asarray(low.host_value(node.input[1], "roi")).reshape(-1)
    axes = [a + rank if a < 0 else a for a in attrs.get("axes", range(rank))]
    if len(roi) == 2 * len(axes) and len(axes) != rank:
        full = np.asarray([0.0] * rank + [1.0] * rank, roi.dtype)
        for i, axis in enumerate(axes):
            full[axis], full[axis + rank] = roi[i], roi[i + len(axes)]
        roi = full
    inner = type(node)()
    inner.CopyFrom(node)
    inner.output[0] = low.fresh(f"{node.output[0]}/resampled")
    resize(low, inner, {k: v for k, v in attrs.items() if k != "extrapolation_value"})
    resampled = low.views[inner.output[0]]
    mask = extrapolated_mask(x.shape, resampled.shape, roi)
    if not mask.any():
        low.views[node.output[0]] = resampled
        return
    name = low.fresh(f"{node.output[0]}/extrapolated")
    low.host[name] = mask.astype(np.uint8)
    condition = broadcast_view(low, low.view(name), resampled.shape)
    low.emit(dml.DML_OPERATOR_ELEMENT_WISE_IF, dml.DML_ELEMENT_WISE_IF_OPERATOR_DESC,
             {"ConditionTensor": condition, "ATensor": _like(low, resampled, float(attrs["extrapolation_value"])),
              "BTensor": resampled},
             {"OutputTensor": low.output(node.output[0], resampled.shape, resampled.dtype)})


def refuse_fractional_align_corners(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """Refuse align_corners Resize given by ``scales`` where some axis's ``in · scale`` is not the integer output
    length: ONNX (its reference, whence its expected outputs) maps x_out to ``x_out · (in − 1) / (in · scale − 1)``
    with the unrounded length, DirectML's provider sets RESAMPLE's Scale to ``(out − 1) / (in − 1)`` from the
    integer output length (DmlOperatorResize.cpp), and both are what their documents define. Axes of one input or
    one output element read element 0 either way. (Cubic resizing is ONNX's own matrices: not refused.)"""
    if attrs.get("coordinate_transformation_mode", "half_pixel") != "align_corners" or len(node.input) < 3 or \
            not node.input[2] or (len(node.input) > 3 and node.input[3]):
        return
    scales = np.asarray(low.host_value(node.input[2], "scales"), np.float32).reshape(-1)
    if not scales.size:
        return
    shape = low.value_shape(node.input[0])
    rank = len(shape)
    axes = [a + rank if a < 0 else a for a in attrs.get("axes", range(rank))]
    for axis, scale in zip(axes, scales, strict=False):
        n_in = shape[axis]
        length = n_in * float(scale)
        out = int(np.floor(length))
        if n_in > 1 and out > 1 and length != out:
            raise low.refuse(f"align_corners with the fractional resized length {n_in}·{float(scale):g} = "
                             f"{length:g}: ONNX divides by it − 1, DirectML's provider by the output length {out} − 1")


def _install_resize() -> None:
    """Resize keeps its lowerings (RESAMPLE2/3 in ops_resize, cubic in ops_onnxcov); tf_crop_and_resize with a
    non-zero extrapolation_value is routed through :func:`lower_resize_extrapolated` around them."""
    from dmlsim.onnx import lowering as registry

    resize = registry.LOWERINGS["Resize"]

    def lower_resize(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
        if node.op_type == "Resize" and str(attrs.get("mode", "nearest")).lower() != "cubic":
            refuse_fractional_align_corners(low, node, attrs)
        if attrs.get("coordinate_transformation_mode") == "tf_crop_and_resize" and \
                float(attrs.get("extrapolation_value", 0.0)) != 0.0:
            lower_resize_extrapolated(low, node, attrs, resize)
        else:
            resize(low, node, attrs)

    registry.LOWERINGS["Resize"] = lower_resize


_install_resize()


# --- MaxPool: column-major indices (storage_order=1) ------------------------------------------------------------
def column_major_indices(low: Lowering, indices: View, spatial: Sequence[int]) -> View:
    """MAX_POOLING2's row-major flat indices r (UINT64, over the whole input) turned into ONNX's column-major
    ones (storage_order=1): with s = r mod (D1·…·Dk) the offset inside the (n, c) plane, each spatial coordinate
    is (s div (D(i+1)·…·Dk)) mod Di, and the column-major index is (r − s) + Σ coordinate_i · (D1·…·D(i−1)).
    Integer element-wise operators only (MODULUS_TRUNCATE, DIVIDE, MULTIPLY, SUBTRACT, ADD on UINT64)."""
    from dmlsim.onnx.ops_elementwise import binary

    def step(kind: str, a: View, value: int | None = None, b: View | None = None) -> View:
        out = low.fresh("indices/column_major")
        binary(low, f"ELEMENT_WISE_{kind}", a, b if b is not None else _like(low, a, value), out)
        return low.views[out]

    sizes = [int(n) for n in spatial]
    plane = int(np.prod(sizes))
    offset = step("MODULUS_TRUNCATE", indices, plane)
    result = step("SUBTRACT", indices, b=offset)
    for axis, size in enumerate(sizes):
        row_stride, column_stride = int(np.prod(sizes[axis + 1:])), int(np.prod(sizes[:axis]))
        coordinate = step("DIVIDE", offset, row_stride) if row_stride != 1 else offset
        if axis:  # the first coordinate is already below its size (offset < plane)
            coordinate = step("MODULUS_TRUNCATE", coordinate, size)
        term = step("MULTIPLY", coordinate, column_stride) if column_stride != 1 else coordinate
        result = step("ADD", result, b=term)
    return result


# --- AveragePool: count_include_pad with ceil_mode's overhang ---------------------------------------------------
def pad_for_counted_pads(low: Lowering, x: View, common: dict[str, Any],
                         overhang: Sequence[int]) -> tuple[View, dict[str, Any], int]:
    """AveragePool with count_include_pad whose ceil_mode windows run past the padded input: ONNX divides by the
    window's elements inside the padded input (the pads count, the overhang does not), while AVERAGE_POOLING1's
    IncludePadding counts every padding element of the window, the overhang dmlsim adds as EndPadding included.
    So the pads become real zeros (PADDING1, constant 0) and the pooling reads that padded tensor with the
    overhang alone as EndPadding and IncludePadding FALSE. Returns the input, the pooling's fields and
    IncludePadding."""
    import dmlsim as dml
    from dmlsim.onnx.lowering import dml_type

    begin, end = list(common["StartPadding"]), list(common["EndPadding"])
    pads_end = [e - o for e, o in zip(end, overhang, strict=True)]
    shape = (*x.shape[:2], *[n + b + e for n, b, e in zip(x.shape[2:], begin, pads_end, strict=True)])
    name = low.fresh("pool/padded")
    low.emit(dml.DML_OPERATOR_PADDING1, dml.DML_PADDING1_OPERATOR_DESC, {"InputTensor": x},
             {"OutputTensor": low.output(name, shape, x.dtype)}, PaddingMode=dml.DML_PADDING_MODE_CONSTANT,
             PaddingValueDataType=dml_type(x.dtype, low.where()), PaddingValue=0.0, DimensionCount=len(shape),
             StartPadding=[0, 0, *begin], EndPadding=[0, 0, *pads_end])
    fields = {**common, "StartPadding": [0] * len(begin), "EndPadding": list(overhang)}
    return low.views[name], fields, 0
