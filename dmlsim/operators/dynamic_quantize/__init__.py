"""DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR (DML_FEATURE_LEVEL_4_0): desc, rules, reference (reference.py), launch
(kernel.cl).

The desc is DirectML's generated one. The doc page's formula: ``OutputScale = (InputMax - InputMin) / (Max -
Min)``, ``OutputZeroPoint = Min - InputMin / OutputScale``, ``OutputTensor = clamp(round(InputValue /
OutputScale) + OutputZeroPoint, Min, Max)``, with InputMax/InputMin the maximum/minimum of the whole input and
[Min, Max] the output type's range ([0, 255] UINT8, [-128, 127] INT8).

- Tensors: InputTensor FLOAT32 or FLOAT16; OutputTensor INT8 or UINT8; OutputScaleTensor FLOAT32;
  OutputZeroPointTensor the OutputTensor's DataType; all four of one DimensionCount, 1 to 8.
- dmlsim's decisions where the page is silent: OutputTensor has InputTensor's Sizes; OutputScaleTensor and
  OutputZeroPointTensor hold one element (every size 1: the page's "expected number of elements is 1").
  The range is the data's own (the page's formula; ONNX's DynamicQuantizeLinear widens it to include 0,
  which the tests list where ONNX's cases differ). Arithmetic is float32, one rounding per step, the divisions
  correctly rounded (dmlsim/cl_kernels/quantize.h, as QUANTIZE_LINEAR); the zero point is rounded half to even
  and saturated to the output type before it is stored and used. Min and Max ignore NaN (fmin/fmax); a NaN
  element quantizes to 0; an input of one repeated value gives a scale of 0, whose quotients follow IEEE
  (±inf saturates, NaN gives 0) and a zero point of NaN, saturated to 0.
- Any strides on every tensor (an input broadcast through strides of 0 too), tensors at any offset. No
  in-place execution (the schema: the input is not eligible).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.operators.base import Operator, ValidatedDesc, register, require_same, require_scalar
from dmlsim.operators.dynamic_quantize.reference import dynamic_quantize_linear
from dmlsim.operators.plan import Groups, KernelLaunch, LaunchTarget, Scalar, TensorArg
from dmlsim.operators.typed import FLOAT16, FLOAT32, INT8, UINT8, require_type, typed_defines, ulong8

IN, OUT, SCALE, ZP = "InputTensor", "OutputTensor", "OutputScaleTensor", "OutputZeroPointTensor"
LIMITS = {INT8: (-128, 127), UINT8: (0, 255)}
GROUP = 256  # kernel.cl's GROUP: the one work-group's size


@register
class DynamicQuantizeLinear(Operator):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR
    desc_cls = DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        why = f"by {self.name}"
        require_type(v, problems, IN, (FLOAT32, FLOAT16), why)
        require_type(v, problems, OUT, (INT8, UINT8), why)
        require_type(v, problems, SCALE, (FLOAT32,), why)
        require_type(v, problems, ZP, (INT8, UINT8), why)
        # 1 to 8 dimensions: DirectML's own limit, which the generic validation enforces
        # "InputTensor, OutputScaleTensor, OutputTensor, and OutputZeroPointTensor must have the same DimensionCount"
        require_same(v, problems, IN, (OUT, SCALE, ZP), ("DimensionCount",))
        # "OutputTensor and OutputZeroPointTensor must have the same DataType"
        require_same(v, problems, OUT, (ZP,), ("DataType",))
        require_same(v, problems, IN, (OUT,), ("Sizes",))
        require_scalar(v, problems, SCALE)
        require_scalar(v, problems, ZP)

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        y, scale, zero_point = dynamic_quantize_linear(inputs[IN], LIMITS[v.layout(OUT).data_type])
        ones = v.layout(SCALE).sizes
        return {OUT: y, SCALE: np.full(ones, scale, np.float32), ZP: np.full(ones, zero_point)}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        x, y = v.layout(IN), v.layout(OUT)
        low, high = LIMITS[y.data_type]
        args = [TensorArg("x", IN, rank=8), TensorArg("y", OUT, rank=8), TensorArg("s", SCALE, scalar=True),
                TensorArg("z", ZP, scalar=True), ulong8("sizes", x.sizes, fill=1),
                Scalar("count", np.uint32(x.element_count))]
        defines = {**typed_defines(x.data_type, y.data_type, acc="float"), "QMIN": low, "QMAX": high}
        return [KernelLaunch(self.kernel_source, "dynamic_quantize_linear", defines, Groups(1, GROUP), args)]
