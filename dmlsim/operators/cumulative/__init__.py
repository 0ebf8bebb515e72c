"""DML_OPERATOR_CUMULATIVE_SUMMATION and DML_OPERATOR_CUMULATIVE_PRODUCT: one template, one kernel, the
generated descs. Rules of the doc pages: InputTensor and OutputTensor have the same DataType,
DimensionCount and Sizes; Axis is less than the DimensionCount; 1 to 8 dimensions of FLOAT32, FLOAT16,
INT64, INT32, UINT64 or UINT32 (the newest feature level's table). In place is allowed (the schema marks
the input eligible).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_CUMULATIVE_PRODUCT_OPERATOR_DESC, DML_CUMULATIVE_SUMMATION_OPERATOR_DESC
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.operators.base import Operator, ValidatedDesc, register, require_same
from dmlsim.operators.cumulative.reference import cumulative
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, TensorArg
from dmlsim.operators.typed import (
    FLOATS,
    INT32,
    INT64,
    UINT32,
    UINT64,
    check_axis,
    require_type,
    sizes_of,
    typed_defines,
    ulong8,
    wrapping_type,
)

IN, OUT = "InputTensor", "OutputTensor"
DATA_TYPES = (*FLOATS, INT64, INT32, UINT64, UINT32)


class Cumulative(Operator):
    """The shared template; ``product`` and ``exclusive_field`` tell the members apart."""

    product: bool
    exclusive_field: str

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        require_same(v, problems, IN, (OUT,))
        require_type(v, problems, IN, DATA_TYPES, f"by {self.name}")
        sizes = sizes_of(v, IN)
        if sizes is not None:
            check_axis(v, problems, "Axis", v.attrs["Axis"], len(sizes), IN)

    def decreasing(self, v: ValidatedDesc) -> bool:
        return v.attrs["AxisDirection"].name.endswith("DECREASING")

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {OUT: cumulative(inputs[IN], v.attrs["Axis"], product=self.product, decreasing=self.decreasing(v),
                                exclusive=bool(v.attrs[self.exclusive_field]))}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        x = v.layout(IN)
        axis = v.attrs["Axis"]
        line_sizes = [1 if d == axis else s for d, s in enumerate(x.sizes)]
        lines = int(np.prod(line_sizes))
        defines = {**typed_defines(x.data_type, x.data_type), "SUM_T": wrapping_type(x.data_type),
                   "OP_PRODUCT": self.product,
                   "DECREASING": self.decreasing(v), "EXCLUSIVE": bool(v.attrs[self.exclusive_field])}
        args = (TensorArg("x", IN, rank=8), TensorArg("y", OUT, rank=8), ulong8("line_sizes", line_sizes, fill=1),
                Scalar("lines", np.uint32(lines)), Scalar("axis_length", np.uint32(x.sizes[axis])),
                Scalar("x_axis_stride", np.uint64(bound[IN].layout.strides[axis])),
                Scalar("y_axis_stride", np.uint64(bound[OUT].layout.strides[axis])))
        return [KernelLaunch(self.kernel_source, "cumulative", defines, Items(lines), args)]


@register
class CumulativeSummation(Cumulative):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_CUMULATIVE_SUMMATION
    desc_cls = DML_CUMULATIVE_SUMMATION_OPERATOR_DESC
    product = False
    exclusive_field = "HasExclusiveSum"


@register
class CumulativeProduct(Cumulative):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_CUMULATIVE_PRODUCT
    desc_cls = DML_CUMULATIVE_PRODUCT_OPERATOR_DESC
    product = True
    exclusive_field = "HasExclusiveProduct"
