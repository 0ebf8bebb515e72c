"""DML_OPERATOR_QUANTIZE and DML_OPERATOR_DEQUANTIZE (feature level 6_3): linear (de)quantization with a scale,
or a scale and a zero point, per tensor, per axis or per block, given as an array of quantization tensors.

Semantics (the doc pages are "TBD" beyond their tensor tables; what follows is dmlsim's reading, pinned by
``tests/test_quantize_blocked.py``):

- QuantizationType DML_QUANTIZATION_TYPE_SCALE: QuantizationTensors is ``[scale]`` (QuantizationTensorCount 1);
  DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT: ``[scale, zero point]`` (count 2), the order onnxruntime's DirectML
  provider passes them in; DML_QUANTIZATION_TYPE_NONE is refused (nothing to quantize with).
- QUANTIZE: ``clamp(round_half_to_even(x / scale) + zero_point, Min, Max)``, Min/Max the output type's range,
  computed exactly as DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR computes it in dmlsim (float32, the quotient
  correctly rounded, NaN gives 0, infinities saturate), so integer outputs are equal on every device.
  DEQUANTIZE: ``(x - zero_point) * scale`` (the difference exact, the product in float32, rounded once).
- Blocks: a quantization tensor broadcasts to the InputTensor by its Sizes. Along dimension k, with ``I_k`` the
  input's size and ``S_k`` the quantization tensor's, input element ``i`` uses quantization element
  ``i // B_k``, ``B_k = I_k / S_k``: ``S_k = 1`` is per tensor along k, ``S_k = I_k`` per element, and any
  other divisor blocked. ``S_k`` must divide ``I_k``: with only Sizes to go by, a partial last block is
  ambiguous (I = 6, S = 2 is ONNX's block_size 3, 4 or 5), so dmlsim refuses it rather than guess (its ONNX
  lowering refuses a block_size that does not divide the input's size). Strides of the quantization tensors
  are honoured as given (0 broadcasts too).
- Rules: InputTensor, OutputTensor and every quantization tensor have the same DimensionCount (the page);
  OutputTensor has the InputTensor's Sizes, and the zero point has the scale's Sizes (dmlsim's decisions, as
  ONNX's QuantizeLinear/DequantizeLinear require).
- Data types (the pages' tables): QUANTIZE: InputTensor FLOAT32/FLOAT16, OutputTensor INT8/UINT8/INT4/UINT4;
  DEQUANTIZE: InputTensor INT8/UINT8/INT4/UINT4, OutputTensor FLOAT32/FLOAT16. The scale is FLOAT32/FLOAT16 of
  the float tensor's DataType (QUANTIZE's InputTensor, DEQUANTIZE's OutputTensor, as in the element-wise forms
  and ONNX), the zero point of the integer tensor's DataType (so a 4-bit zero point with 4-bit data, as ONNX's
  QuantizeLinear/DequantizeLinear and onnxruntime's DirectML provider, which binds INT4/UINT4 zero points to
  DEQUANTIZE for DequantizeLinear and MatMulNBits, have it). QUANTIZE saturates to -8..7 (INT4) / 0..15 (UINT4).
- 4-bit tensors (DML_TENSOR_DATA_TYPE_UINT4/INT4, feature level 6_3) are stored as the DML_TENSOR_DATA_TYPE page
  says and ``dmlsim.api.tensor`` decides in full: two elements per byte, element ``n`` (from the binding offset)
  in the low nibble of byte ``n // 2`` when ``n`` is even, the high nibble when odd; Sizes and Strides in
  elements (nibbles), any strides (odd ones, padding, stride-0 broadcast of inputs), odd sizes (the tail nibble
  is no element); TotalTensorSizeInBytes from DMLCalcBufferTensorSize counting 4 bits per element. The page
  requires no packed or byte-aligned layout, and onnxruntime binds 4-bit tensors packed, so dmlsim refuses no
  layout the other types accept. The kernel writes a 4-bit output one nibble per work-item with two 32-bit
  atomics on the word holding it (clear its 4 bits, then set them): no work-item races another on a shared byte,
  whatever the strides, and no nibble that is not an output element (an odd tensor's tail, a padding stride's
  gap, a neighbouring tensor's) changes. Scale and zero-point tensors follow the same rules.
- 1 to 8 dimensions, any strides, no in-place execution (the schema's); a scale of 0 gives what float32
  division gives (the page does not call it undefined): no debug-device check.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import (
    DML_DEQUANTIZE_OPERATOR_DESC,
    DML_QUANTIZATION_TYPE,
    DML_QUANTIZE_OPERATOR_DESC,
)
from dmlsim.api.enums import DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout, data_type_name
from dmlsim.operators.base import REFERENCE_BYTES_PER_ELEMENT, Operator, ValidatedDesc, register
from dmlsim.operators.plan import Items, KernelLaunch, NullBuffer, Scalar, TensorArg
from dmlsim.operators.quantize_blocked.reference import block_sizes, dequantize, quantize
from dmlsim.operators.typed import CL_TYPE, FLOAT16, FLOAT32, INT8, UINT8, typed_defines, ulong8

INT4, UINT4 = DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_INT4, DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_UINT4
IN, QT, OUT = "InputTensor", "QuantizationTensors", "OutputTensor"
FLOATS, QUANTIZED = (FLOAT32, FLOAT16), (INT8, UINT8, INT4, UINT4)
LIMITS = {INT8: (-128, 127), UINT8: (0, 255), INT4: (-8, 7), UINT4: (0, 15)}
NIBBLES = (INT4, UINT4)
COUNTS = {DML_QUANTIZATION_TYPE.DML_QUANTIZATION_TYPE_SCALE: 1,
          DML_QUANTIZATION_TYPE.DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT: 2}


class BlockedBase(Operator):
    """QUANTIZE and DEQUANTIZE: the shared rules and launch."""

    float_side: str  # the field whose DataType the scale has
    integer_side: str  # the field whose DataType the zero point has
    in_types: tuple[int, ...]
    out_types: tuple[int, ...]
    quantizing: bool
    sub_byte_types = True  # INT4/UINT4 on the integer side (feature level 6_3)

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        name = v.struct_name
        kind = v.attrs.get("QuantizationType")
        wanted = COUNTS.get(kind)
        tensors = v.tensors.get(QT)
        tensors = tensors if isinstance(tensors, list) else []
        if wanted is None:
            problems.add(f"{name}.QuantizationType {shown_type(kind)} must be DML_QUANTIZATION_TYPE_SCALE or "
                         "DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT")
        elif len(tensors) != wanted:
            problems.add(f"{name}.QuantizationTensorCount {len(tensors)} must be {wanted} for "
                         f"{shown_type(kind)} ([scale{', zero point' if wanted == 2 else ''}])")
        x, y = v.tensors.get(IN), v.tensors.get(OUT)
        if not isinstance(x, TensorLayout) or not isinstance(y, TensorLayout):
            return
        for field, layout, allowed in ((IN, x, self.in_types), (OUT, y, self.out_types)):
            if layout.data_type not in allowed:
                problems.add(f"{name}.{field}.DataType {data_type_name(layout.data_type)} is not supported by "
                             f"{self.name} (supported: {', '.join(data_type_name(t) for t in allowed)})")
        if len(y.sizes) != len(x.sizes):
            problems.add(f"{name}.{OUT}.DimensionCount {len(y.sizes)} must equal {IN}.DimensionCount {len(x.sizes)}")
        elif y.sizes != x.sizes:
            problems.add(f"{name}.{OUT}.Sizes {list(y.sizes)} must equal {IN}.Sizes {list(x.sizes)}")
        roles = (("scale", v.layout(self.float_side).data_type), ("zero point", v.layout(self.integer_side).data_type))
        for i, (t, (role, data_type)) in enumerate(zip(tensors, roles, strict=False)):
            where = f"{name}.{QT}[{i}]"
            if t.data_type != data_type:
                problems.add(f"{where}.DataType {data_type_name(t.data_type)} must equal "
                             f"{self.float_side if i == 0 else self.integer_side}.DataType "
                             f"{data_type_name(data_type)} (the {role})")
            if len(t.sizes) != len(x.sizes):
                problems.add(f"{where}.DimensionCount {len(t.sizes)} must equal {IN}.DimensionCount {len(x.sizes)}")
                continue
            for k, (s, n) in enumerate(zip(t.sizes, x.sizes, strict=True)):
                if n % s:
                    problems.add(f"{where}.Sizes[{k}] {s} is no block count of {IN}.Sizes[{k}] {n}: it must "
                                 f"divide it (1 per tensor, {n} per element, a divisor between per block)")
                    break
            if i == 1 and t.sizes != tensors[0].sizes:
                problems.add(f"{where}.Sizes {list(t.sizes)} (the zero point) must equal {QT}[0].Sizes "
                             f"{list(tensors[0].sizes)} (the scale)")

    def reference_bytes(self, v: ValidatedDesc) -> int:
        """The reference expands the scale and zero point to the input's Sizes: four input-sized arrays."""
        return REFERENCE_BYTES_PER_ELEMENT * 4 * v.layout(IN).element_count

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: Any) -> list[KernelLaunch]:
        x, y, scale = v.layout(IN), v.layout(OUT), v.tensors[QT][0]
        zero_point = v.tensors[QT][1] if len(v.tensors[QT]) == 2 else None
        z_args: list[Any] = ([TensorArg("z", QT, index=1, scalar=True), ulong8("z__strides", zero_point.strides)]
                             if zero_point is not None else
                             [NullBuffer("z__base"), Scalar("z__offset", np.uint64(0)), ulong8("z__strides", [])])
        count = x.element_count
        args = [TensorArg("x", IN, rank=8), TensorArg("s", QT, index=0, scalar=True),
                ulong8("s__strides", scale.strides), *z_args,
                ulong8("blocks", block_sizes(x.sizes, scale.sizes), fill=1), TensorArg("y", OUT, rank=8),
                ulong8("sizes", x.sizes, fill=1), Scalar("count", np.uint32(count))]
        integer = v.layout(self.integer_side).data_type
        storage = UINT8 if integer in NIBBLES else integer  # 4-bit tensors are bytes to the kernel
        in_type, out_type = (x.data_type, storage) if self.quantizing else (storage, y.data_type)
        low, high = LIMITS[integer]
        defines = {**typed_defines(in_type, out_type, acc="float" if self.quantizing else "long"),
                   "QUANTIZE": self.quantizing, "SCALE_HALF": scale.data_type == FLOAT16, "ZP_T": CL_TYPE[storage],
                   "NO_ZP": zero_point is None, "NIBBLES": integer in NIBBLES, "NIBBLE_SIGNED": integer == INT4,
                   "Q_MIN": f"{low}.0f", "Q_MAX": f"{high}.0f"}
        return [KernelLaunch(self.kernel_source, "quantize_blocked", defines, Items(count), args)]

    @staticmethod
    def parts(inputs: dict[str, Any]) -> tuple[Any, Any]:
        """(scale, zero point or None) from the QuantizationTensors list."""
        arrays = inputs[QT]
        return arrays[0], (arrays[1] if len(arrays) > 1 else None)


def shown_type(kind: Any) -> str:
    return kind.name if isinstance(kind, DML_QUANTIZATION_TYPE) else str(kind)


@register
class Quantize(BlockedBase):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_QUANTIZE
    desc_cls = DML_QUANTIZE_OPERATOR_DESC
    float_side, integer_side = IN, OUT
    in_types, out_types = FLOATS, QUANTIZED
    quantizing = True

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        scale, zero_point = self.parts(inputs)
        return {OUT: quantize(inputs[IN], scale, zero_point, LIMITS[v.layout(OUT).data_type])}


@register
class Dequantize(BlockedBase):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_DEQUANTIZE
    desc_cls = DML_DEQUANTIZE_OPERATOR_DESC
    float_side, integer_side = OUT, IN
    in_types, out_types = QUANTIZED, FLOATS
    quantizing = False

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        scale, zero_point = self.parts(inputs)
        return {OUT: dequantize(inputs[IN], scale, zero_point)}
