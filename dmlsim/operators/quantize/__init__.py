"""DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR, DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR and
DML_OPERATOR_ELEMENT_WISE_QUANTIZED_LINEAR_ADD: their generated descs, the rules of their doc pages, one
kernel file (kernel.cl, an entry point each) and references (reference.py: DEQUANTIZE in float64,
QUANTIZE and QUANTIZED_LINEAR_ADD in float32 arithmetic, as their integer outputs depend on its rounding).

Rules (newest feature level's tables; every tensor 1 to 8 dimensions):
- DEQUANTIZE: InputTensor INT32/INT16/INT8/UINT32/UINT16/UINT8; ScaleTensor FLOAT32/FLOAT16; ZeroPointTensor
  (optional) the InputTensor's DataType; OutputTensor FLOAT32/FLOAT16, the ScaleTensor's DataType.
- QUANTIZE: InputTensor FLOAT32/FLOAT16/INT32; ScaleTensor FLOAT32 when InputTensor is INT32, else the
  InputTensor's DataType; ZeroPointTensor (optional) INT8/UINT8, the OutputTensor's DataType; OutputTensor
  INT8/UINT8.
- Both: InputTensor, ScaleTensor, ZeroPointTensor and OutputTensor have the same DimensionCount and Sizes
  (a per-tensor scale is broadcast through strides of 0, as DirectML does).
- QUANTIZED_LINEAR_ADD: ATensor/BTensor/OutputTensor and the zero points INT8/UINT8, the scales FLOAT32;
  each zero point has its tensor's DataType; every tensor has the same DimensionCount. dmlsim's decisions
  where the page is silent: ATensor and BTensor have the OutputTensor's Sizes; each scale and zero point
  (whose "expected number of elements is 1") has either the OutputTensor's Sizes or every size 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from dmlsim.api.directml_schema import (
    DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC,
    DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC,
    DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC,
)
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout, data_type_name
from dmlsim.operators.base import Operator, ValidatedDesc, register, require_same
from dmlsim.operators.plan import Argument, Items, KernelLaunch, LaunchTarget, NullBuffer, Scalar, TensorArg
from dmlsim.operators.quantize.reference import dequantize_linear, quantize_linear, quantized_linear_add
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
    typed_defines,
    ulong8,
)

IN, SCALE, ZP, OUT = "InputTensor", "ScaleTensor", "ZeroPointTensor", "OutputTensor"
A, A_SCALE, A_ZP = "ATensor", "AScaleTensor", "AZeroPointTensor"
B, B_SCALE, B_ZP = "BTensor", "BScaleTensor", "BZeroPointTensor"
OUT_SCALE, OUT_ZP = "OutputScaleTensor", "OutputZeroPointTensor"
QUANTIZED = (INT8, UINT8)
SCALES = (FLOAT32, FLOAT16)
LIMITS = {INT8: (-128, 127), UINT8: (0, 255)}
TypeTable = tuple[tuple[str, Sequence[int]], ...]  # (tensor field, its supported data types)


def check_types(v: ValidatedDesc, problems: Problems, table: TypeTable, name: str) -> None:
    """Each tensor field of ``table`` has one of its listed data types (a null optional field passes)."""
    for field, allowed in table:
        require_type(v, problems, field, allowed, f"by {name}")


def check_one_or_same_sizes(v: ValidatedDesc, problems: Problems, names: Sequence[str], reference: str) -> None:
    """Each field of ``names`` has ``reference``'s Sizes or a single element (every size 1)."""
    ref = v.tensors.get(reference)
    for name in names:
        layout = v.tensors.get(name)
        if isinstance(ref, TensorLayout) and isinstance(layout, TensorLayout) \
                and len(layout.sizes) == len(ref.sizes) and layout.sizes != ref.sizes \
                and any(s != 1 for s in layout.sizes):
            problems.add(f"{v.struct_name}.{name}.Sizes {list(layout.sizes)} must equal {reference}.Sizes "
                         f"{list(ref.sizes)} or be all 1 (one element for the whole tensor)")


def strided(bound: dict[str, Any], name: str, param: str, sizes: Sequence[int]) -> list[Argument]:
    """Kernel arguments ``param__base, param__offset, param__strides`` of a tensor addressed at the output's
    coordinates: 8-D strides with 0 where the tensor has size 1 (broadcast); a null one is a null buffer that
    the kernel never reads."""
    tensor = bound.get(name)
    if tensor is None:
        return [NullBuffer(f"{param}__base"), Scalar(f"{param}__offset", np.uint64(0)), ulong8(f"{param}__strides", [])]
    layout = tensor.layout
    strides = [0 if s == 1 and n != 1 else st for s, n, st in zip(layout.sizes, sizes, layout.strides, strict=True)]
    return [TensorArg(param, name, scalar=True), ulong8(f"{param}__strides", strides)]


class QuantizeBase(Operator):
    """The shared launch: one work-item per output element, every tensor strided at the output's coordinates."""

    entry: str
    tensors: ClassVar[dict[str, str]]  # tensor field -> kernel parameter, in the kernel's order (output last)
    scales: tuple[str, ...]  # the scale tensor fields

    def debug_check(self, v: ValidatedDesc, read: Any, problems: Problems) -> None:
        """A scale of 0 is undefined behavior on the doc pages: a debug device refuses it."""
        for name in self.scales:
            zeros = int(np.count_nonzero(np.asarray(read(name)) == 0))
            if zeros:
                problems.add(f"{v.struct_name}.{name} holds 0 at {zeros} element(s): "
                             "a scale of 0 is undefined behavior")

    def defines(self, v: ValidatedDesc) -> dict[str, Any]:
        raise NotImplementedError

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        sizes = v.layout(OUT).sizes
        args = [arg for name, param in self.tensors.items() for arg in strided(bound, name, param, sizes)]
        count = int(np.prod(sizes))
        args += [ulong8("sizes", sizes, fill=1), Scalar("count", np.uint32(count))]
        return [KernelLaunch(self.kernel_source, self.entry, self.defines(v), Items(count), args)]

    def read(self, v: ValidatedDesc, inputs: dict[str, Any], name: str) -> Any:
        """An input array, or None for a null optional tensor."""
        return inputs.get(name) if v.tensors.get(name) is not None else None


class LinearBase(QuantizeBase):
    """DEQUANTIZE_LINEAR and QUANTIZE_LINEAR: the four fields, same DimensionCount and Sizes."""

    tensors: ClassVar[dict[str, str]] = {IN: "x", SCALE: "s", ZP: "z", OUT: "y"}
    scales = (SCALE,)
    types: TypeTable

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        require_same(v, problems, IN, (SCALE, ZP, OUT), ("DimensionCount", "Sizes"))
        check_types(v, problems, self.types, self.name)



@register
class DequantizeLinear(LinearBase):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR
    desc_cls = DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC
    entry = "dequantize_linear"
    types = ((IN, (INT32, INT16, INT8, UINT32, UINT16, UINT8)), (SCALE, SCALES), (OUT, SCALES))

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        super().check(v, problems)
        require_same(v, problems, IN, (ZP,), ("DataType",))
        require_same(v, problems, OUT, (SCALE,), ("DataType",))

    def defines(self, v: ValidatedDesc) -> dict[str, Any]:
        x = v.layout(IN).data_type
        return {**typed_defines(x, v.layout(OUT).data_type, acc="long"), "DEQUANTIZE": True,
                "SCALE_HALF": v.layout(SCALE).data_type == FLOAT16, "ZP_T": CL_TYPE[x],
                "NO_ZP": v.tensors.get(ZP) is None}

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {OUT: dequantize_linear(inputs[IN], inputs[SCALE], self.read(v, inputs, ZP))}


@register
class QuantizeLinear(LinearBase):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR
    desc_cls = DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC
    entry = "quantize_linear"
    types = ((IN, (FLOAT32, FLOAT16, INT32)), (SCALE, SCALES), (OUT, QUANTIZED))

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        super().check(v, problems)
        require_same(v, problems, OUT, (ZP,), ("DataType",))
        x, scale = v.tensors.get(IN), v.tensors.get(SCALE)
        if isinstance(x, TensorLayout) and isinstance(scale, TensorLayout):
            wanted = FLOAT32 if x.data_type == INT32 else x.data_type
            if scale.data_type != wanted:
                problems.add(f"{v.struct_name}.{SCALE}.DataType {data_type_name(scale.data_type)} must be "
                             f"{data_type_name(wanted)} (FLOAT32 for an INT32 {IN}, else {IN}.DataType)")

    def defines(self, v: ValidatedDesc) -> dict[str, Any]:
        y = v.layout(OUT).data_type
        return {**typed_defines(v.layout(IN).data_type, y, acc="float"), "QUANTIZE": True,
                "SCALE_HALF": v.layout(SCALE).data_type == FLOAT16, "ZP_T": CL_TYPE[y],
                "NO_ZP": v.tensors.get(ZP) is None}

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {OUT: quantize_linear(inputs[IN], inputs[SCALE], self.read(v, inputs, ZP),
                                     LIMITS[v.layout(OUT).data_type])}


@register
class QuantizedLinearAdd(QuantizeBase):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_ELEMENT_WISE_QUANTIZED_LINEAR_ADD
    desc_cls = DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC
    entry = "quantized_linear_add"
    tensors: ClassVar[dict[str, str]] = {A: "a", A_SCALE: "as", A_ZP: "az", B: "b", B_SCALE: "bs", B_ZP: "bz",
                                         OUT_SCALE: "ys", OUT_ZP: "yz", OUT: "y"}
    scales = (A_SCALE, B_SCALE, OUT_SCALE)
    types = tuple((name, (FLOAT32,) if name.endswith("ScaleTensor") else QUANTIZED) for name in tensors)

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        require_same(v, problems, OUT, [t for t in self.tensors if t != OUT], ("DimensionCount",))
        require_same(v, problems, OUT, (A, B), ("Sizes",))
        check_one_or_same_sizes(v, problems, (A_SCALE, A_ZP, B_SCALE, B_ZP, OUT_SCALE, OUT_ZP), OUT)
        for tensor, zero_point in ((A, A_ZP), (B, B_ZP), (OUT, OUT_ZP)):
            require_same(v, problems, tensor, (zero_point,), ("DataType",))
        check_types(v, problems, self.types, self.name)

    def defines(self, v: ValidatedDesc) -> dict[str, Any]:
        y = v.layout(OUT).data_type
        return {**typed_defines(v.layout(A).data_type, y, acc="int"), "QUANTIZED_ADD": True,
                "B_T": CL_TYPE[v.layout(B).data_type], "NO_A_ZP": v.tensors.get(A_ZP) is None,
                "NO_B_ZP": v.tensors.get(B_ZP) is None, "NO_OUT_ZP": v.tensors.get(OUT_ZP) is None}

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        def get(name: str) -> Any:
            return self.read(v, inputs, name)
        return {OUT: quantized_linear_add(inputs[A], inputs[A_SCALE], get(A_ZP), inputs[B], inputs[B_SCALE],
                                          get(B_ZP), inputs[OUT_SCALE], get(OUT_ZP),
                                          LIMITS[v.layout(OUT).data_type])}
