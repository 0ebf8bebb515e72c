"""DML_OPERATOR_DIAGONAL_MATRIX and DML_OPERATOR_DIAGONAL_MATRIX1: identity-like matrices, from one kernel and
DirectML's generated descs.

Semantics (their doc pages): the output is a stack of 2-D matrices (the last two dimensions, row y and column
x; leading dimensions are a batch). With ``topX = x - y``, DIAGONAL_MATRIX1 writes ``Value`` where
``(DiagonalFillEnd >= DiagonalFillBegin) ^ (topX >= DiagonalFillBegin) ^ (topX < DiagonalFillEnd)`` and
``InputTensor[coordinate]`` elsewhere, or 0 without an InputTensor: the diagonals ``[Begin, End)`` are filled,
and with ``Begin > End`` everything but ``[End, Begin)`` is. DIAGONAL_MATRIX writes ``Value`` where
``y + Offset == x`` and 0 elsewhere (DIAGONAL_MATRIX1 with Begin = Offset, End = Offset + 1, the page's remark).

Data types and ranks (the newest feature level's tables, 5_1): 2 to 4 dimensions; every data type, FLOAT64,
INT64 and UINT64 included. DIAGONAL_MATRIX1: ``ValueDataType`` must equal ``OutputTensor.DataType``; an
InputTensor must have the output's DataType and DimensionCount. Any DML strides on both tensors (padded,
permuted, a stride-0 broadcast input), tensors at any binding offset; elements move as unsigned integers of
their width (a NaN payload or -0.0 in the input or in Value is kept bit for bit); not in place (the schema:
the input is not eligible).

Decisions where the pages are silent:

- DIAGONAL_MATRIX1's InputTensor must also have the output's Sizes (the pseudocode reads
  ``InputTensor[coordinate]`` for every output coordinate; onnxruntime's Trilu passes one shape for both).
- DIAGONAL_MATRIX's FLOAT ``Value`` "might be truncated (10.6 will become 10)" for types other than FLOAT16 and
  FLOAT32: it is converted once, at CreateOperator, as PADDING's ``PaddingValue`` is (to FLOAT16 rounding to
  nearest even, to an integer type truncating toward zero and saturating to the type's range, NaN to 0).
- The page's first DIAGONAL_MATRIX1 example gives ``Value: 7`` with an output of ones: a typo of the page (its
  second example, the same desc with End 3, writes 7s); dmlsim writes Value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_DIAGONAL_MATRIX1_OPERATOR_DESC, DML_DIAGONAL_MATRIX_OPERATOR_DESC
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout, data_type_name
from dmlsim.operators.base import Operator, ValidatedDesc, register, require_same
from dmlsim.operators.diagonal.reference import diagonal_matrix
from dmlsim.operators.layout import float_to, value_bits
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, TensorArg
from dmlsim.operators.typed import EVERY_TYPE, bits_defines, require_type, ulong8

IN, OUT = "InputTensor", "OutputTensor"
RANKS = (2, 3, 4)


class Diagonal(Operator):
    """The shared rules and launch; a member says its Value (as the output's numpy type) and its span."""

    def value(self, v: ValidatedDesc) -> np.generic:
        raise NotImplementedError

    def span(self, v: ValidatedDesc) -> tuple[int, int]:
        """(DiagonalFillBegin, DiagonalFillEnd)."""
        raise NotImplementedError

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        why = f"by {v.struct_name.removesuffix('_DESC')}"
        require_type(v, problems, OUT, EVERY_TYPE, why)
        out = v.tensors.get(OUT)
        if isinstance(out, TensorLayout) and len(out.sizes) not in RANKS:
            problems.add(f"{v.struct_name}.{OUT}.DimensionCount {len(out.sizes)} is not supported (supported: "
                         "2 to 4, {[Batch1, [Batch2,]] Height, Width})")

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        y = v.layout(OUT)
        begin, end = self.span(v)
        return {OUT: diagonal_matrix(y.sizes, y.dtype, self.value(v), begin, end, inputs.get(IN))}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        y = v.layout(OUT)
        begin, end = self.span(v)
        has_input = isinstance(v.tensors.get(IN), TensorLayout)
        args = ((TensorArg("x", IN, rank=8),) if has_input else ()) + (
            TensorArg("y", OUT, rank=8), ulong8("sizes", y.sizes, fill=1), Scalar("begin", np.int64(begin)),
            Scalar("end", np.int64(end)), Scalar("value", np.uint64(value_bits(self.value(v)))),
            Scalar("n", np.uint32(y.element_count)))
        defines = {**bits_defines(y.element_size), "HAS_INPUT": has_input}
        return [KernelLaunch(self.kernel_source, "diagonal", defines, Items(y.element_count), args)]


@register
class DiagonalMatrix(Diagonal):
    """DIAGONAL_MATRIX (module docstring)."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_DIAGONAL_MATRIX
    desc_cls = DML_DIAGONAL_MATRIX_OPERATOR_DESC

    def value(self, v: ValidatedDesc) -> np.generic:
        return float_to(float(v.attrs["Value"]), v.layout(OUT).dtype)

    def span(self, v: ValidatedDesc) -> tuple[int, int]:
        offset = int(v.attrs["Offset"])
        return offset, offset + 1


@register
class DiagonalMatrix1(Diagonal):
    """DIAGONAL_MATRIX1 (module docstring)."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_DIAGONAL_MATRIX1
    desc_cls = DML_DIAGONAL_MATRIX1_OPERATOR_DESC

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        super().check(v, problems)
        value_type, out = v.attrs.get("ValueDataType"), v.tensors.get(OUT)
        if value_type is not None and isinstance(out, TensorLayout) and value_type != out.data_type:
            problems.add(f"{v.struct_name}.ValueDataType {data_type_name(value_type)} must match "
                         f"{OUT}.DataType {data_type_name(out.data_type)}")
        if isinstance(v.tensors.get(IN), TensorLayout):
            require_same(v, problems, OUT, (IN,))

    def value(self, v: ValidatedDesc) -> np.generic:
        """The union member's bytes read as the output's type (a FLOAT16 value arrives as its UInt16 bits)."""
        return np.frombuffer(np.asarray(v.attrs["Value"]).tobytes(), v.layout(OUT).dtype)[0]

    def span(self, v: ValidatedDesc) -> tuple[int, int]:
        return int(v.attrs["DiagonalFillBegin"]), int(v.attrs["DiagonalFillEnd"])
