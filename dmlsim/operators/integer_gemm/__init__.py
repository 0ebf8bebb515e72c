"""DML_OPERATOR_MATRIX_MULTIPLY_INTEGER (DML_FEATURE_LEVEL_2_1; 2-D and 3-D tensors and 1-D zero points from
5_2), DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY (2_1; 2-D to 4-D from 4_0) and
DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT (6_2): descs, rules, references (reference.py), launches
(kernel.cl, one entry point each).

The descs are DirectML's generated ones. Per leading (BatchCount, ChannelCount) index:
``MATRIX_MULTIPLY_INTEGER: Output = (A - AZeroPoint) x (B - BZeroPoint)`` and
``MATRIX_MULTIPLY_INTEGER_TO_FLOAT: Output = ((A - AZeroPoint) * AScale) x ((B - BZeroPoint) * BScale) + Bias``,
``QUANTIZED_LINEAR_MATRIX_MULTIPLY: Output = quantize(dequantize(A) x dequantize(B), OutputScale, OutputZeroPoint)``.

- Tensors (newest tables): ATensor ``{[BatchCount], [ChannelCount], M, K}``, BTensor
  ``{[BatchCount], [ChannelCount], K, N}``, OutputTensor (and TO_FLOAT's optional BiasTensor)
  ``{[BatchCount], [ChannelCount], M, N}``, of one DimensionCount, 2 to 4; zero points (optional) and scales
  1 to 4 dimensions.
  MATRIX_MULTIPLY_INTEGER: A and B INT8 or UINT8 (each its own), each zero point its tensor's DataType,
  Output INT32. TO_FLOAT: A, B and both zero points of one DataType among INT32, INT16, INT8, UINT32, UINT16,
  UINT8; the scales, the bias and Output of one DataType, FLOAT32 or FLOAT16; the scales and zero points of
  one DimensionCount; BiasTensor has Output's Sizes. QUANTIZED_LINEAR_MATRIX_MULTIPLY (4_0 table): A, B, Output
  and every zero point INT8 or UINT8 (each zero point its tensor's DataType), the three scales FLOAT32; the
  scales and zero points of one DimensionCount; OutputScaleTensor and OutputZeroPointTensor hold one value
  or M (per row, as A's).
- Zero points and scales: A's ``{[1], [1], AZeroPointCount, [1]}`` hold one value (per tensor) or M (per row);
  B's ``{[1], [1], [1], BZeroPointCount}`` one or N (per column). dmlsim's reading of the bracketed sizes:
  every size is 1 but A's next-to-last (its only one when it is 1-D) and B's last, which are the count; a
  null zero point is 0. TO_FLOAT's table writes the scales as ``{ AScaleDimensions[] }``; its member text
  gives them the zero points' forms, which dmlsim requires. (ONNX's per-batch zero points,
  ``[D1, D2, M, 1]``, are not in DirectML's tables: refused.)
- Shapes (the pages' "dimensions should be"): A's M and Output's M, A's K and B's K, B's N and Output's N
  agree, and the leading sizes of A and B equal Output's (dmlsim's decision, as GEMM's: a broadcast batch is
  a stride of 0, which is how onnxruntime's DirectML provider maps ONNX's broadcasting).
- Arithmetic (the pages are silent): MATRIX_MULTIPLY_INTEGER's products are exact and summed modulo 2^32,
  stored as two's-complement INT32 (ONNX's MatMulInteger lets the accumulation overflow only in 32 bits).
  TO_FLOAT dequantizes each element in float32 (the difference exact, converted once, times the scale) and
  sums the products in float32 in order of k (as GEMM; no integer accumulator to overflow with 32-bit
  inputs), then adds the bias; FLOAT16 is storage, the result rounded once to nearest even. A scale of 0 is
  allowed (not undefined on this page).
  QUANTIZED_LINEAR_MATRIX_MULTIPLY ("mathematically equivalent to dequantizing the inputs, then performing
  matrix multiply, and then quantizing the output"; where it rounds, the page is silent): dmlsim computes
  MATRIX_MULTIPLY_INTEGER's INT32 sum S (wrapping as it does), then in float32, each step rounded once:
  ``q = rint(((float)S * (AScale[m] * BScale[n])) / OutputScale[m]) + OutputZeroPoint[m]``, saturated to the
  output type (NaN gives 0), the division correctly rounded and ties to even exactly as QUANTIZE_LINEAR
  (dmlsim/cl_kernels/quantize.h): integer outputs are equal on every device and the reference. A scale of 0 is
  undefined behavior on the page: a debug device refuses it.
- Any strides on every tensor, tensors at any offset. No in-place execution (the schema: no input is eligible).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from dmlsim.api.directml_schema import (
    DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC,
    DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC,
    DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC,
)
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout
from dmlsim.operators.base import Operator, ValidatedDesc, Work, elementwise_work, register, require_same
from dmlsim.operators.integer_gemm.reference import (
    matrix_multiply_integer,
    matrix_multiply_integer_to_float,
    quantized_linear_matrix_multiply,
)
from dmlsim.operators.plan import Argument, Items, KernelLaunch, LaunchTarget, NullBuffer, Scalar, TensorArg, Vector
from dmlsim.operators.typed import (
    CL_TYPE,
    FLOAT16,
    FLOAT32,
    INT8,
    INT16,
    INT32,
    UINT8,
    UINT16,
    UINT32,
    require_type,
)

A, A_ZP, B, B_ZP, OUT = "ATensor", "AZeroPointTensor", "BTensor", "BZeroPointTensor", "OutputTensor"
A_SCALE, B_SCALE, BIAS = "AScaleTensor", "BScaleTensor", "BiasTensor"
OUT_SCALE, OUT_ZP = "OutputScaleTensor", "OutputZeroPointTensor"
LIMITS = {INT8: (-128, 127), UINT8: (0, 255)}
QUANTIZED = (INT8, UINT8)
WIDE_INTEGERS = (INT32, INT16, INT8, UINT32, UINT16, UINT8)
MATRIX_RANKS = range(2, 5)
ZERO_POINT_RANKS = range(1, 5)


def check_rank(v: ValidatedDesc, problems: Problems, name: str, ranks: range) -> bool:
    """Add a problem unless tensor field ``name`` (when present) has a DimensionCount in ``ranks``."""
    layout = v.tensors.get(name)
    if not isinstance(layout, TensorLayout) or len(layout.sizes) in ranks:
        return True
    problems.add(f"{v.struct_name}.{name}.DimensionCount {len(layout.sizes)} is not supported by {v.operator.name} "
                 f"(supported: {ranks.start} to {ranks.stop - 1})")
    return False


def count_axis(rank: int, per_row: bool) -> int:
    """The dimension of a zero-point or scale tensor of ``rank`` dimensions that holds its count: the
    next-to-last for A's (per row; the only one of a 1-D tensor), the last for B's (per column)."""
    return rank - 2 if per_row and rank >= 2 else rank - 1


def check_per_index(v: ValidatedDesc, problems: Problems, name: str, per_row: bool, count: int) -> None:
    """A zero point's or scale's sizes: every size 1 but the count dimension (count_axis), 1 or ``count``."""
    layout = v.tensors.get(name)
    if not isinstance(layout, TensorLayout):
        return
    sizes = list(layout.sizes)
    axis = count_axis(len(sizes), per_row)
    others_one = all(s == 1 for i, s in enumerate(sizes) if i != axis)
    if not others_one or sizes[axis] not in (1, count):
        what = "M (per row)" if per_row else "N (per column)"
        form = "{[1], [1], Count, [1]}" if per_row else "{[1], [1], [1], Count}"
        problems.add(f"{v.struct_name}.{name}.Sizes {sizes} must be {form}: every size 1 except dimension {axis}, "
                     f"which is 1 (per tensor) or {count} = {what}")


def per_index_args(bound: dict[str, Any], name: str, param: str, per_row: bool) -> list[Argument]:
    """``param__base, param__offset`` and ``param_step`` (the stride of the count dimension; 0 for one value)
    of a zero point or scale, or a null buffer the kernel never reads."""
    tensor = bound.get(name)
    if tensor is None:
        return [NullBuffer(f"{param}__base"), Scalar(f"{param}__offset", np.uint64(0)),
                Scalar(f"{param}_step", np.uint64(0))]
    layout = tensor.layout
    axis = count_axis(len(layout.sizes), per_row)
    step = layout.strides[axis] if layout.sizes[axis] > 1 else 0
    return [TensorArg(param, name, scalar=True), Scalar(f"{param}_step", np.uint64(step))]


def matrix_args(bound: dict[str, Any], name: str, param: str) -> list[Argument]:
    """``param__base, param__offset, param__strides`` of a matrix, or a null buffer the kernel never reads."""
    if bound.get(name) is None:
        return [NullBuffer(f"{param}__base"), Scalar(f"{param}__offset", np.uint64(0)), Vector(f"{param}__strides", ())]
    return [TensorArg(param, name)]


class IntegerMatrixBase(Operator):
    """The rules and launch the integer matrix multiplications share (module docstring)."""

    entry: str
    matrices: tuple[str, ...]  # tensor fields of {..., rows, columns}: same DimensionCount, 2 to 4
    per_row: tuple[str, ...]  # zero points and scales of M values (A's; the output's)
    per_column: tuple[str, ...]  # those of N values (B's)
    args: ClassVar[tuple[tuple[str, str, str], ...]]  # (field, kernel parameter, kind: matrix/row/column)

    def check_types(self, v: ValidatedDesc, problems: Problems) -> None:
        raise NotImplementedError

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        ok = all([check_rank(v, problems, name, MATRIX_RANKS) for name in self.matrices]
                 + [check_rank(v, problems, name, ZERO_POINT_RANKS) for name in self.per_row + self.per_column])
        self.check_types(v, problems)
        # "ATensor, BTensor, and OutputTensor must have the same DimensionCount" (and BiasTensor)
        require_same(v, problems, OUT, [m for m in self.matrices if m != OUT], ("DimensionCount",))
        if problems or not ok:
            return
        out, a, b = v.layout(OUT).sizes, v.layout(A).sizes, v.layout(B).sizes
        where = v.struct_name
        for name, sizes in ((A, a), (B, b)):
            if sizes[:-2] != out[:-2]:
                problems.add(f"{where}.{name}.Sizes {list(sizes)}: the leading (BatchCount, ChannelCount) sizes "
                             f"{list(sizes[:-2])} must equal OutputTensor's {list(out[:-2])}")
        if a[-2] != out[-2]:
            problems.add(f"{where}.ATensor.Sizes {list(a)} is {{..., M, K}} with M = {a[-2]}, but "
                         f"OutputTensor.Sizes {list(out)} has M = {out[-2]} rows")
        if b[-1] != out[-1]:
            problems.add(f"{where}.BTensor.Sizes {list(b)} is {{..., K, N}} with N = {b[-1]}, but "
                         f"OutputTensor.Sizes {list(out)} has N = {out[-1]} columns")
        if a[-1] != b[-2]:
            problems.add(f"{where}.BTensor.Sizes {list(b)} is {{..., K, N}} with K = {b[-2]}, but ATensor.Sizes "
                         f"{list(a)} is {{..., M, K}} with K = {a[-1]}")
        for name in self.per_row:
            check_per_index(v, problems, name, True, out[-2])
        for name in self.per_column:
            check_per_index(v, problems, name, False, out[-1])

    def work(self, v: ValidatedDesc) -> Work:
        """Two operations per multiply-add (and two subtractions), K of them per output element."""
        return elementwise_work(v) + Work(4 * v.layout(A).sizes[-1] * v.layout(OUT).element_count, 0)

    def reference_bytes(self, v: ValidatedDesc) -> int:
        """8-byte copies of A and B (broadcast repeats included), the product and the output-sized results."""
        return 8 * (2 * v.layout(A).element_count + 2 * v.layout(B).element_count) + 32 * v.layout(OUT).element_count

    def read(self, v: ValidatedDesc, inputs: dict[str, Any], name: str) -> Any:
        """An input array, or None for a null optional tensor."""
        return inputs.get(name) if v.tensors.get(name) is not None else None

    def defines(self, v: ValidatedDesc, bound: dict[str, Any]) -> dict[str, Any]:
        return {"A_T": CL_TYPE[v.layout(A).data_type], "B_T": CL_TYPE[v.layout(B).data_type],
                "HAS_A_ZP": bound.get(A_ZP) is not None, "HAS_B_ZP": bound.get(B_ZP) is not None}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        out = v.layout(OUT)
        args: list[Argument] = []
        for name, param, kind in self.args:
            if kind == "matrix":
                args += matrix_args(bound, name, param)
            else:
                args += per_index_args(bound, name, param, kind == "row")
        args += [Vector("sizes", out.sizes), Scalar("K", np.uint32(v.layout(A).sizes[-1])),
                 Scalar("count", np.uint32(out.element_count))]
        return [KernelLaunch(self.kernel_source, self.entry, self.defines(v, bound), Items(out.element_count), args)]


@register
class MatrixMultiplyInteger(IntegerMatrixBase):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_MATRIX_MULTIPLY_INTEGER
    desc_cls = DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC
    entry = "matrix_multiply_integer"
    matrices = (A, B, OUT)
    per_row = (A_ZP,)
    per_column = (B_ZP,)
    args = ((A, "a", "matrix"), (A_ZP, "az", "row"), (B, "b", "matrix"), (B_ZP, "bz", "column"),
            (OUT, "y", "matrix"))

    def check_types(self, v: ValidatedDesc, problems: Problems) -> None:
        why = f"by {self.name}"
        for name in (A, A_ZP, B, B_ZP):
            require_type(v, problems, name, QUANTIZED, why)
        require_type(v, problems, OUT, (INT32,), why)
        # "BTensor and BZeroPointTensor must have the same DataType" (A likewise)
        require_same(v, problems, A, (A_ZP,), ("DataType",))
        require_same(v, problems, B, (B_ZP,), ("DataType",))

    def defines(self, v: ValidatedDesc, bound: dict[str, Any]) -> dict[str, Any]:
        return {**super().defines(v, bound), "MATMUL_INTEGER": True}

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {OUT: matrix_multiply_integer(inputs[A], self.read(v, inputs, A_ZP), inputs[B],
                                             self.read(v, inputs, B_ZP))}


@register
class MatrixMultiplyIntegerToFloat(IntegerMatrixBase):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT
    desc_cls = DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC
    entry = "matrix_multiply_integer_to_float"
    matrices = (A, B, BIAS, OUT)
    per_row = (A_SCALE, A_ZP)
    per_column = (B_SCALE, B_ZP)
    args = ((A, "a", "matrix"), (A_SCALE, "as", "row"), (A_ZP, "az", "row"), (B, "b", "matrix"),
            (B_SCALE, "bs", "column"), (B_ZP, "bz", "column"), (BIAS, "c", "matrix"), (OUT, "y", "matrix"))

    def check_types(self, v: ValidatedDesc, problems: Problems) -> None:
        why = f"by {self.name}"
        for name in (A, A_ZP, B, B_ZP):
            require_type(v, problems, name, WIDE_INTEGERS, why)
        for name in (A_SCALE, B_SCALE, BIAS, OUT):
            require_type(v, problems, name, (FLOAT32, FLOAT16), why)
        # "ATensor, AZeroPointTensor, BTensor, and BZeroPointTensor must have the same DataType"
        require_same(v, problems, A, (A_ZP, B, B_ZP), ("DataType",))
        # "AScaleTensor, BiasTensor, BScaleTensor, and OutputTensor must have the same DataType"
        require_same(v, problems, OUT, (A_SCALE, BIAS, B_SCALE), ("DataType",))
        # "AScaleTensor, AZeroPointTensor, BScaleTensor, and BZeroPointTensor must have the same DimensionCount"
        require_same(v, problems, A_SCALE, (A_ZP, B_SCALE, B_ZP), ("DimensionCount",))
        # "BiasTensor and OutputTensor must have the same Sizes"
        require_same(v, problems, OUT, (BIAS,), ("Sizes",))

    def defines(self, v: ValidatedDesc, bound: dict[str, Any]) -> dict[str, Any]:
        return {**super().defines(v, bound), "MATMUL_TO_FLOAT": True,
                "FLOAT_HALF": v.layout(OUT).data_type == FLOAT16, "HAS_BIAS": bound.get(BIAS) is not None}

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        def get(name: str) -> Any:
            return self.read(v, inputs, name)
        return {OUT: matrix_multiply_integer_to_float(inputs[A], inputs[A_SCALE], get(A_ZP), inputs[B],
                                                      inputs[B_SCALE], get(B_ZP), get(BIAS))}



@register
class QuantizedLinearMatrixMultiply(IntegerMatrixBase):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY
    desc_cls = DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC
    entry = "quantized_linear_matrix_multiply"
    matrices = (A, B, OUT)
    per_row = (A_SCALE, A_ZP, OUT_SCALE, OUT_ZP)
    per_column = (B_SCALE, B_ZP)
    scales = (A_SCALE, B_SCALE, OUT_SCALE)
    args = ((A, "a", "matrix"), (A_SCALE, "as", "row"), (A_ZP, "az", "row"), (B, "b", "matrix"),
            (B_SCALE, "bs", "column"), (B_ZP, "bz", "column"), (OUT_SCALE, "ys", "row"), (OUT_ZP, "yz", "row"),
            (OUT, "y", "matrix"))

    def check_types(self, v: ValidatedDesc, problems: Problems) -> None:
        why = f"by {self.name}"
        for name in (A, A_ZP, B, B_ZP, OUT, OUT_ZP):
            require_type(v, problems, name, QUANTIZED, why)
        for name in self.scales:
            require_type(v, problems, name, (FLOAT32,), why)
        # "ATensor and AZeroPointTensor must have the same DataType" (B and Output likewise)
        for tensor, zero_point in ((A, A_ZP), (B, B_ZP), (OUT, OUT_ZP)):
            require_same(v, problems, tensor, (zero_point,), ("DataType",))
        # "AScaleTensor, AZeroPointTensor, BScaleTensor, BZeroPointTensor, OutputScaleTensor, and
        # OutputZeroPointTensor must have the same DimensionCount"
        require_same(v, problems, A_SCALE, (A_ZP, B_SCALE, B_ZP, OUT_SCALE, OUT_ZP), ("DimensionCount",))

    def debug_check(self, v: ValidatedDesc, read: Any, problems: Problems) -> None:
        """A scale of 0 is undefined behavior on the doc page: a debug device refuses it."""
        for name in self.scales:
            zeros = int(np.count_nonzero(np.asarray(read(name)) == 0))
            if zeros:
                problems.add(f"{v.struct_name}.{name} holds 0 at {zeros} element(s): "
                             "a scale of 0 is undefined behavior")

    def defines(self, v: ValidatedDesc, bound: dict[str, Any]) -> dict[str, Any]:
        return {**super().defines(v, bound), "QLINEAR_MATMUL": True,
                "SATURATE_T": CL_TYPE[v.layout(OUT).data_type], "HAS_Y_ZP": bound.get(OUT_ZP) is not None}

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        def get(name: str) -> Any:
            return self.read(v, inputs, name)
        return {OUT: quantized_linear_matrix_multiply(inputs[A], inputs[A_SCALE], get(A_ZP), inputs[B],
                                                      inputs[B_SCALE], get(B_ZP), inputs[OUT_SCALE], get(OUT_ZP),
                                                      LIMITS[v.layout(OUT).data_type])}
