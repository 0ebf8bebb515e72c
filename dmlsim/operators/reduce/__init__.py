"""DML_OPERATOR_REDUCE (every DML_REDUCE_FUNCTION), DML_OPERATOR_ARGMIN and DML_OPERATOR_ARGMAX: one
template, one kernel (one build per function). The descs are DirectML's generated ones.

Rules (the doc pages of DML_REDUCE_OPERATOR_DESC and DML_ARGMIN/ARGMAX_OPERATOR_DESC): each of Axes in
[0, InputTensor.DimensionCount - 1] (and, dmlsim's reading, none repeated); OutputTensor.DimensionCount
equals InputTensor's; OutputTensor.Sizes equal InputTensor.Sizes except on the reduced axes, where they
are 1; the output's data type is the input's, except for ARGMIN/ARGMAX (REDUCE's functions and the two
operators) whose output holds indices: INT32, INT64, UINT32 or UINT64. Data types per function are
those of the doc's tensor-support table at the newest feature level (FLOAT64 is in none of them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_ARGMAX_OPERATOR_DESC, DML_ARGMIN_OPERATOR_DESC, DML_REDUCE_OPERATOR_DESC
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import data_type_name
from dmlsim.operators.base import REFERENCE_BYTES_PER_ELEMENT, Operator, ValidatedDesc, register
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, TensorArg
from dmlsim.operators.reduce.reference import arg_reduce, reduce
from dmlsim.operators.typed import (
    FLOATS,
    INT32,
    INT64,
    INTEGERS,
    UINT32,
    UINT64,
    arithmetic_type,
    check_axes,
    require_type,
    sizes_of,
    typed_defines,
    ulong8,
    wrapping_type,
)

IN, OUT = "InputTensor", "OutputTensor"
INDEX_TYPES = (INT32, INT64, UINT32, UINT64)
WIDE_INTEGERS = (INT32, INT64, UINT32, UINT64)
# Input data types per function (the doc's tensor-support table; the output has the same type, indices
# for ARGMAX/ARGMIN).
FUNCTION_TYPES = {
    "ARGMAX": FLOATS + INTEGERS, "ARGMIN": FLOATS + INTEGERS, "MAX": FLOATS + INTEGERS, "MIN": FLOATS + INTEGERS,
    "AVERAGE": FLOATS, "L2": FLOATS, "LOG_SUM": FLOATS, "LOG_SUM_EXP": FLOATS,
    "L1": FLOATS + WIDE_INTEGERS, "SUM_SQUARE": FLOATS + WIDE_INTEGERS,
    "MULTIPLY": FLOATS + WIDE_INTEGERS, "SUM": FLOATS + WIDE_INTEGERS,
}


class ReduceTemplate(Operator):
    """What REDUCE, ARGMIN and ARGMAX share: axes, output sizes, data types, the kernel launch."""

    def function(self, v: ValidatedDesc) -> str:
        """The reduction's name: a DML_REDUCE_FUNCTION without its prefix."""
        raise NotImplementedError

    def last_index(self, v: ValidatedDesc) -> bool:
        """Whether ties resolve to the last index (ARGMIN/ARGMAX with DML_AXIS_DIRECTION_DECREASING)."""
        return False

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        in_sizes, out_sizes = sizes_of(v, IN), sizes_of(v, OUT)
        if in_sizes is None or out_sizes is None:
            return
        axes = list(v.attrs.get("Axes") or [])
        name = f"{v.struct_name}.{OUT}"
        if not check_axes(v, problems, "Axes", axes, len(in_sizes), IN):
            return
        if len(out_sizes) != len(in_sizes):
            problems.add(f"{name}.DimensionCount {len(out_sizes)} must equal {IN}.DimensionCount {len(in_sizes)}")
        else:
            expected = [1 if d in axes else s for d, s in enumerate(in_sizes)]
            if list(out_sizes) != expected:
                problems.add(f"{name}.Sizes {list(out_sizes)} must be {expected} ({IN}.Sizes {list(in_sizes)} "
                             f"with the reduced Axes {axes} of size 1)")
        function = self.function(v)
        require_type(v, problems, IN, FUNCTION_TYPES[function], f"by {self.name} with {function}")
        if function in ("ARGMAX", "ARGMIN"):
            require_type(v, problems, OUT, INDEX_TYPES, f"for the indices of {function}")
        else:
            in_type, out_type = v.layout(IN).data_type, v.layout(OUT).data_type
            if in_type != out_type:
                problems.add(f"{name}.DataType {data_type_name(out_type)} must equal {IN}.DataType "
                             f"{data_type_name(in_type)} (only ARGMAX/ARGMIN change it)")

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        function, axes = self.function(v), v.attrs["Axes"]
        if function in ("ARGMAX", "ARGMIN"):
            return {OUT: arg_reduce(function == "ARGMAX", inputs[IN], axes, last=self.last_index(v))}
        return {OUT: reduce(function, inputs[IN], axes)}

    def reference_bytes(self, v: ValidatedDesc) -> int:
        """The reference reduces the input without its broadcast repeats (reference.py's docstring)."""
        return REFERENCE_BYTES_PER_ELEMENT * (v.layout(IN).distinct_element_count + v.layout(OUT).element_count)

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        x, y = v.layout(IN), v.layout(OUT)
        axes = set(v.attrs["Axes"])
        red_sizes = [s if d in axes else 1 for d, s in enumerate(x.sizes)]
        function = self.function(v)
        defines = {**typed_defines(x.data_type, y.data_type), f"FUNC_{function}": True,
                   "ACC_FLOAT": arithmetic_type(x.data_type) == "float", "LAST_INDEX": self.last_index(v),
                   "SUM_T": wrapping_type(x.data_type)}
        args = (TensorArg("x", IN, rank=8), TensorArg("y", OUT, rank=8), ulong8("out_sizes", y.sizes, fill=1),
                ulong8("red_sizes", red_sizes, fill=1), Scalar("n_out", np.uint32(y.element_count)),
                Scalar("n_red", np.uint32(int(np.prod(red_sizes)))))
        return [KernelLaunch(self.kernel_source, "reduce", defines, Items(y.element_count), args)]


@register
class Reduce(ReduceTemplate):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_REDUCE
    desc_cls = DML_REDUCE_OPERATOR_DESC

    def function(self, v: ValidatedDesc) -> str:
        return v.attrs["Function"].name.removeprefix("DML_REDUCE_FUNCTION_")


class ArgReduce(ReduceTemplate):
    """DML_OPERATOR_ARGMIN / ARGMAX: the index of the smallest / largest element; AxisDirection says which
    of equal elements: INCREASING the first, DECREASING the last. A NaN is chosen over every number (both
    operators; among NaNs as among equal elements): dmlsim's rule where the pages are silent, README."""

    arg_function: str

    def function(self, v: ValidatedDesc) -> str:
        return self.arg_function

    def last_index(self, v: ValidatedDesc) -> bool:
        return v.attrs["AxisDirection"].name.endswith("DECREASING")


@register
class ArgMin(ArgReduce):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_ARGMIN
    desc_cls = DML_ARGMIN_OPERATOR_DESC
    arg_function = "ARGMIN"


@register
class ArgMax(ArgReduce):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_ARGMAX
    desc_cls = DML_ARGMAX_OPERATOR_DESC
    arg_function = "ARGMAX"
