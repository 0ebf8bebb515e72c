"""Det and DeformConv: lowerings composed of DirectML operators (DirectML has neither a determinant nor a
deformable convolution, and onnxruntime's DirectML provider claims neither; these compositions are dmlsim's).

- **Det** is Gaussian elimination with partial pivoting, unrolled over the static matrix order ``n`` (at most
  :data:`DET_MAX_ORDER`; a larger ``n`` is refused naming the limit): see :func:`lower_det`.
- **DeformConv** (2-D) is bilinear sampling of the input at the offset positions (zero outside), times the mask,
  gathered into an im2col tensor, then one GEMM with the weights (+ bias) per group: see :func:`lower_deform_conv`.

Both take FLOAT32 and FLOAT16 (the element-wise operators they are made of take no FLOAT64); FLOAT16 rounds every
step to FLOAT16, as the composed DirectML graph would. The tensors these lowerings read are never at an element
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
