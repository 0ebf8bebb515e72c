"""Det and DeformConv: lowerings composed of DirectML operators (DirectML has neither a determinant nor a
deformable convolution, and onnxruntime's DirectML provider claims neither; these compositions are dmlsim's).

- **Det** is Gaussian elimination with partial pivoting, unrolled over the static matrix order ``n`` (at most
  :data:`DET_MAX_ORDER`; a larger ``n`` is refused naming the limit): see :func:`lower_det`.
- **DeformConv** (2-D) is bilinear sampling of the input at the offset positions (zero outside), times the mask,
  gathered into an im2col tensor, then one GEMM node (batched over the images and the groups) with the weights
  (+ bias): see :func:`lower_deform_conv`.

Both take FLOAT32 and FLOAT16 (the element-wise operators they are made of take no FLOAT64); with FLOAT16 every
step of Det, and DeformConv's positions, samples and products, round to FLOAT16, as the composed DirectML graph
would (DeformConv's index and weight arithmetic is FLOAT32). The tensors these lowerings read are never at an element
offset (the lowering binds views at offset 0), so rows and columns are dropped by GATHER_ELEMENTS copies with
index tensors, not by offset views.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.api.tensor import packed_strides
from dmlsim.onnx.lowering import Lowering, View, broadcast_shape, broadcast_view, lowers
from dmlsim.onnx.ops_elementwise import binary, unary
from dmlsim.onnx.ops_tensor import packed

FLOATS = (np.dtype(np.float32), np.dtype(np.float16))
FLAT_INDEX_LIMIT = 2 ** 24  # DeformConv's flat sample indices are computed in FLOAT32: exact up to here
DET_MAX_ORDER = 16  # about 15 DirectML nodes per elimination step: 16 × 16 is some 225 nodes per Det


class _Steps:
    """Fresh values of one node's composition: element-wise steps, constants, IF and GATHER_ELEMENTS."""

    def __init__(self, low: Lowering, prefix: str) -> None:
        self.low = low
        self.prefix = prefix

    def op(self, kind: str, a: View, b: View | None = None, dtype: Any = None, **attributes: Any) -> View:
        out = self.low.fresh(self.prefix)
        if b is None:
            unary(self.low, kind, a, out, dtype, **attributes)
        else:
            binary(self.low, kind, a, b, out, dtype)
        return self.low.views[out]

    def const(self, value: Any, dtype: Any, shape: tuple[int, ...] | None = None) -> View:
        """A host constant (a DirectML weight or constant node), broadcast to ``shape`` when given."""
        name = self.low.fresh(f"{self.prefix}/const")
        array = np.asarray(value, dtype)
        self.low.host[name] = array if array.ndim else array.reshape(1)
        view = self.low.view(name)
        return view if shape is None else broadcast_view(self.low, view, shape)

    def where(self, condition: View, a: View, b: View) -> View:
        """ELEMENT_WISE_IF: ``a`` where ``condition`` is nonzero, else ``b`` (broadcast to one shape)."""
        shape = broadcast_shape(self.low, [condition.shape, a.shape, b.shape])
        out = self.low.fresh(self.prefix)
        self.low.emit(dml.DML_OPERATOR_ELEMENT_WISE_IF, dml.DML_ELEMENT_WISE_IF_OPERATOR_DESC,
                      {"ConditionTensor": broadcast_view(self.low, condition, shape),
                       "ATensor": broadcast_view(self.low, a, shape), "BTensor": broadcast_view(self.low, b, shape)},
                      {"OutputTensor": self.low.output(out, shape, a.dtype)})
        return self.low.views[out]

    def gather_elements(self, source: View, indices: View, axis: int) -> View:
        """GATHER_ELEMENTS of ``source`` along ``axis`` (the output has the indices' shape)."""
        out = self.low.fresh(self.prefix)
        self.low.emit(dml.DML_OPERATOR_GATHER_ELEMENTS, dml.DML_GATHER_ELEMENTS_OPERATOR_DESC,
                      {"InputTensor": source, "IndicesTensor": indices},
                      {"OutputTensor": self.low.output(out, indices.shape, source.dtype)}, Axis=axis)
        return self.low.views[out]


def _reshaped(view: View, shape: tuple[int, ...]) -> View:
    """A packed view read as ``shape`` (same element count)."""
    return View(view.name, shape, packed_strides(shape), view.dtype)


# --- Det --------------------------------------------------------------------------------------------------------
@lowers("Det")
def lower_det(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """Det of ``[..., n, n]`` (FLOAT32, FLOAT16) as Gaussian elimination with partial pivoting, unrolled over the
    static ``n`` (1 ≤ n ≤ :data:`DET_MAX_ORDER`), every batch matrix at once. Each step, on the working matrix M
    ``[B, m, m]`` (B the flattened batch, m = n − k):

    1. the pivot row p = ARGMAX(ABS(M[:, :, 0])) (the first of equal magnitudes, as LAPACK's i?amax);
    2. the pivot row r = GATHER_ELEMENTS(M, p) and the pivot d = r[0];
    3. the multipliers f = M[:, :, 0] / d' where d' = IF(d == 0, 1, d): a zero pivot means the whole column is 0
       (it is the largest magnitude), so f = 0 and the determinant's factor d = 0, as LAPACK's getrf leaves it;
    4. the update U = M − f ⊗ r (MULTIPLY, SUBTRACT; row p becomes 0);
    5. the next working matrix: U without row p and column 0, in the rows' own order (GATHER_ELEMENTS of the
       flattened U, the flat indices chosen by IF(i ≥ p, ...) from two host index tables), whose determinant is
       the cofactor's: det M = (−1)^p · d · det M' (the sign GATHER_ELEMENTS from a host table of ±1).

    The signed pivots are multiplied in order, the last 1 × 1 matrix last. numpy's det (LAPACK getrf, then the
    pivots' product through slogdet) rounds differently: the values agree to float32 rounding of the product
    of pivots, not bit for bit. NaN and ±inf propagate through the same arithmetic as getrf's. A larger n is
    refused (a located error giving the limit), so are FLOAT64 (no DirectML element-wise operator takes it) and
    a matrix of order 0."""
    x = low.view(node.input[0])
    if x.dtype not in FLOATS:
        raise low.refuse(f"{x.dtype} input: composed for FLOAT32 and FLOAT16 (DirectML's element-wise operators "
                         "take no FLOAT64)")
    if len(x.shape) < 2 or x.shape[-1] != x.shape[-2]:
        raise low.refuse(f"input shape {list(x.shape)}: Det needs [..., n, n]", 0x80070057)
    n = x.shape[-1]
    if not 1 <= n <= DET_MAX_ORDER:
        raise low.refuse(f"a matrix of order {n}: the unrolled elimination is composed for orders 1 to "
                         f"{DET_MAX_ORDER}")
    batch = x.shape[:-2]
    b = int(np.prod(batch))
    s = _Steps(low, f"{node.output[0]}/det")
    m_view = _reshaped(packed(low, x), (b, n, n))
    det: View | None = None
    for m in range(n, 1, -1):
        column = View(m_view.name, (b, m), (m * m, m), x.dtype)
        pivot_index, magnitudes = low.fresh(s.prefix), s.op("ELEMENT_WISE_ABS", column)
        low.emit(dml.DML_OPERATOR_ARGMAX, dml.DML_ARGMAX_OPERATOR_DESC, {"InputTensor": magnitudes},
                 {"OutputTensor": low.output(pivot_index, (b, 1), np.dtype(np.int64))}, AxisCount=1, Axes=[1],
                 AxisDirection=dml.DML_AXIS_DIRECTION_INCREASING)
        p = low.views[pivot_index]
        row = s.gather_elements(m_view, View(p.name, (b, 1, m), (1, 0, 0), p.dtype), axis=1)
        pivot = View(row.name, (b, 1, 1), (m, 1, 1), x.dtype)
        zero = s.op("ELEMENT_WISE_LOGICAL_EQUALS", pivot, s.const(0, x.dtype), np.uint8)
        divisor = s.where(zero, s.const(1, x.dtype, (b, 1, 1)), pivot)
        factors = s.op("ELEMENT_WISE_DIVIDE", View(m_view.name, (b, m, 1), (m * m, m, 1), x.dtype), divisor)
        update = s.op("ELEMENT_WISE_SUBTRACT", m_view, s.op("ELEMENT_WISE_MULTIPLY", factors, row))
        # the kept rows i' = i + (i ≥ p) and columns j' = j + 1 of U, as flat indices into U's m · m elements
        i, j = np.arange(m - 1).reshape(-1, 1), np.arange(m - 1).reshape(1, -1)
        below, above = s.const(i * m + j + 1, np.int64), s.const((i + 1) * m + j + 1, np.int64)
        after = s.op("ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL", s.const(i.reshape(1, -1, 1), np.int64),
                     View(p.name, (b, 1, 1), (1, 1, 1), p.dtype), np.uint8)
        flat = s.where(after, View(above.name, (1, m - 1, m - 1), (0, m - 1, 1), above.dtype),
                       View(below.name, (1, m - 1, m - 1), (0, m - 1, 1), below.dtype))
        kept = s.gather_elements(_reshaped(update, (b, m * m)), _reshaped(flat, (b, (m - 1) ** 2)), axis=1)
        signs = s.const([1 - 2 * (k % 2) for k in range(m)], x.dtype)
        sign = s.gather_elements(View(signs.name, (b, m), (0, 1), x.dtype), p, axis=1)
        signed = s.op("ELEMENT_WISE_MULTIPLY", View(row.name, (b, 1), (m, 1), x.dtype), sign)
        det = signed if det is None else s.op("ELEMENT_WISE_MULTIPLY", det, signed)
        m_view = _reshaped(kept, (b, m - 1, m - 1))
    last = View(m_view.name, (b, 1), (1, 1), x.dtype)
    result = last if det is None else s.op("ELEMENT_WISE_MULTIPLY", det, last)
    if det is None:  # n = 1: the determinant is the element (a copy, so the output is a value of its own)
        result = s.op("ELEMENT_WISE_IDENTITY", last)
    low.views[node.output[0]] = View(result.name, batch, packed_strides(batch), x.dtype)


# --- DeformConv -------------------------------------------------------------------------------------------------
@lowers("DeformConv")
def lower_deform_conv(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """DeformConv (2-D; FLOAT32, FLOAT16) as sampling, im2col and GEMM. With X ``[N, C, H, W]``, T = kH · kW taps,
    Q = oH · oW output positions, G groups and og offset groups:

    1. the offsets read as ``[N, og, T, 2, Q]`` (ONNX's layout: per offset group, per tap, (Δy, Δx)); each
       component a GATHER_ELEMENTS along the pair axis, plus the tap's base position ``o · stride − pad_begin +
       tap · dilation`` (a host constant of the attributes), gives the sampling positions (ADD);
    2. bilinear sampling as ONNX's reference defines it (its GridSample with align_corners=1 in pixel units, zeros
       padding): FLOOR, the fractions (SUBTRACT), and for each of the 4 corners the weight (MULTIPLY of the
       fractions, times 0 for a corner outside the input: comparisons CAST to the type), times the mask when
       given; the corner's clamped (CLIP) flat index y · W + x CAST to INT64;
    3. GATHER_ELEMENTS of X read as ``[N, og, C/og, H · W]`` at the corner indices (read with stride 0 over an
       offset group's channels) times the weight, the 4 corners added: the im2col tensor ``[N, C · T, Q]``;
    4. one GEMM node batched over the images and the groups: W read as ``[1, G, oC/G, (C/G) · T]`` (stride 0
       over the images) times the im2col tensor read as ``[N, G, (C/G) · T, Q]``, plus the bias read with strides
       (0, oC/G, 1, 0) (Beta 1): the output ``[N, oC, oH, oW]``.

    The index and weight arithmetic is FLOAT32 (flat indices exact below 2^24 elements); with FLOAT16 tensors the
    positions are FLOAT16 sums (as ONNX computes them in the tensor's type), and the weights are rounded to FLOAT16
    before they scale the FLOAT16 samples. Refused: an input plane of more than 2^24 elements (the indices would
    not be exact), other than 2 spatial dimensions (onnx's reference defines 2-D
    only), FLOAT64 (no DirectML element-wise operator takes it), shapes ONNX's rules reject (channels that the
    groups or offset groups do not divide, an offset or mask shape other than the attributes give)."""
    x, w, offset = low.view(node.input[0]), low.view(node.input[1]), low.view(node.input[2])
    bias = low.view(node.input[3]) if len(node.input) > 3 and node.input[3] else None
    mask = low.view(node.input[4]) if len(node.input) > 4 and node.input[4] else None
    if x.dtype not in FLOATS:
        raise low.refuse(f"{x.dtype} input: composed for FLOAT32 and FLOAT16 (DirectML's element-wise operators "
                         "take no FLOAT64)")
    if len(x.shape) != 4:
        raise low.refuse(f"an input of rank {len(x.shape)}: composed for 2-D DeformConv (X [N, C, H, W]; onnx's "
                         "reference defines 2-D only)")
    n, c, height, width = x.shape
    kernel = [int(k) for k in attrs.get("kernel_shape", w.shape[2:])]
    strides = [int(v) for v in attrs.get("strides", [1, 1])]
    dilations = [int(v) for v in attrs.get("dilations", [1, 1])]
    pads = [int(v) for v in attrs.get("pads", [0, 0, 0, 0])]
    group, offset_group = int(attrs.get("group", 1)), int(attrs.get("offset_group", 1))
    oc = w.shape[0]
    taps = kernel[0] * kernel[1]
    out_spatial = tuple((size + pads[j] + pads[j + 2] - dilations[j] * (kernel[j] - 1) - 1) // strides[j] + 1
                        for j, size in enumerate((height, width)))
    problems = []
    if len(w.shape) != 4 or c != w.shape[1] * group or oc % group or list(w.shape[2:]) != kernel:
        problems.append(f"W {list(w.shape)} does not fit X {list(x.shape)}, group {group} and kernel {kernel}")
    if c % offset_group:
        problems.append(f"offset_group {offset_group} does not divide the {c} input channels")
    if tuple(offset.shape) != (n, offset_group * taps * 2, *out_spatial):
        problems.append(f"offset {list(offset.shape)} is not [{n}, {offset_group * taps * 2}, "
                        f"{out_spatial[0]}, {out_spatial[1]}]")
    if mask is not None and tuple(mask.shape) != (n, offset_group * taps, *out_spatial):
        problems.append(f"mask {list(mask.shape)} is not [{n}, {offset_group * taps}, {out_spatial[0]}, "
                        f"{out_spatial[1]}]")
    if bias is not None and tuple(bias.shape) != (oc,):
        problems.append(f"B {list(bias.shape)} is not [{oc}]")
    if height * width > FLAT_INDEX_LIMIT:
        raise low.refuse(f"an input plane of {height} × {width} elements: the sampling's flat indices are FLOAT32, "
                         f"exact up to {FLAT_INDEX_LIMIT} elements")
    if problems:
        raise low.refuse("; ".join(problems), 0x80070057)
    q = out_spatial[0] * out_spatial[1]
    cg = c // offset_group
    s = _Steps(low, f"{node.output[0]}/deform")
    f32 = np.dtype(np.float32)
    grid = (n, offset_group, taps, q)
    pairs = _reshaped(packed(low, offset), (n, offset_group, taps, 2, q))
    oy, ox = np.divmod(np.arange(q), out_spatial[1])
    ky, kx = np.divmod(np.arange(taps), kernel[1])
    bases = [oy[None, :] * strides[0] - pads[0] + ky[:, None] * dilations[0],
             ox[None, :] * strides[1] - pads[1] + kx[:, None] * dilations[1]]
    per_dim = []  # for y and x: [(weight, flat index term) for the low and the high corner]
    for j, size in enumerate((height, width)):
        pick = s.const(j, np.int64)
        component = s.gather_elements(pairs, View(pick.name, (n, offset_group, taps, 1, q), (0,) * 5, pick.dtype),
                                      axis=3)
        position = s.op("ELEMENT_WISE_ADD", _reshaped(component, grid), s.const(bases[j], x.dtype))
        if x.dtype != f32:
            position = s.op("CAST", position, dtype=f32)
        low_corner = s.op("ELEMENT_WISE_FLOOR", position)
        high_weight = s.op("ELEMENT_WISE_SUBTRACT", position, low_corner)
        corners = []
        for corner, weight in ((low_corner, s.op("ELEMENT_WISE_SUBTRACT", s.const(1.0, f32), high_weight)),
                               (s.op("ELEMENT_WISE_ADD", low_corner, s.const(1.0, f32)), high_weight)):
            inside = s.op("ELEMENT_WISE_LOGICAL_AND",
                          s.op("ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL", corner, s.const(0.0, f32), np.uint8),
                          s.op("ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL", corner, s.const(size - 1.0, f32),
                               np.uint8), np.uint8)
            weight = s.op("ELEMENT_WISE_MULTIPLY", weight, s.op("CAST", inside, dtype=f32))
            term = s.op("ELEMENT_WISE_CLIP", corner, Min=0.0, Max=float(size - 1))
            if j == 0:
                term = s.op("ELEMENT_WISE_MULTIPLY", term, s.const(float(width), f32))
            corners.append((weight, term))
        per_dim.append(corners)
    if mask is not None:
        mask_view = _reshaped(packed(low, mask), grid)
        mask_view = s.op("CAST", mask_view, dtype=f32) if x.dtype != f32 else mask_view
    source = _reshaped(packed(low, x), (n, offset_group, cg, height * width))
    spread = (n, offset_group, cg, taps * q)
    columns: View | None = None
    for (weight_y, term_y) in per_dim[0]:
        for (weight_x, term_x) in per_dim[1]:
            weight = s.op("ELEMENT_WISE_MULTIPLY", weight_y, weight_x)
            if mask is not None:
                weight = s.op("ELEMENT_WISE_MULTIPLY", weight, mask_view)
            if x.dtype != f32:
                weight = s.op("CAST", weight, dtype=x.dtype)
            index = s.op("CAST", s.op("ELEMENT_WISE_ADD", term_y, term_x), dtype=np.int64)
            sample = s.gather_elements(source, View(index.name, spread, (offset_group * taps * q, taps * q, 0, 1),
                                                    index.dtype), axis=3)
            value = s.op("ELEMENT_WISE_MULTIPLY", sample,
                         View(weight.name, spread, (offset_group * taps * q, taps * q, 0, 1), weight.dtype))
            columns = value if columns is None else s.op("ELEMENT_WISE_ADD", columns, value)
    assert columns is not None
    from dmlsim.onnx.ops_math import _gemm

    depth = (c // group) * taps
    ocg = oc // group
    weights = packed(low, w)
    a = View(weights.name, (n, group, ocg, depth), (0, ocg * depth, depth, 1), x.dtype)
    b = _reshaped(columns, (n, group, depth, q))
    bias_view = None if bias is None else View(bias.name, (n, group, ocg, q), (0, ocg * bias.strides[0],
                                                                               bias.strides[0], 0), bias.dtype)
    product = low.fresh(f"{node.output[0]}/gemm")
    _gemm(low, a, b, bias_view, product, (n, group, ocg, q), beta=1.0 if bias is not None else 0.0)
    shape = (n, oc, *out_spatial)
    low.views[node.output[0]] = _reshaped(low.views[product], shape)
