"""DML_OPERATOR_REDUCE (every DML_REDUCE_FUNCTION), DML_OPERATOR_ARGMIN and DML_OPERATOR_ARGMAX: one
template, one kernel (one build per function). The descs are DirectML's generated ones.

Rules (the doc pages of DML_REDUCE_OPERATOR_DESC and DML_ARGMIN/ARGMAX_OPERATOR_DESC): each of Axes in
[0, InputTensor.DimensionCount - 1] (and, dmlsim's reading, none repeated); OutputTensor.DimensionCount
equals InputTensor's; OutputTensor.Sizes equal InputTensor.Sizes except on the reduced axes, where they
are 1; the output's data type is the input's, except for ARGMIN/ARGMAX (REDUCE's functions and the two
operators) whose output holds indices: INT32, INT64, UINT32 or UINT64. Data types per function are
those of the doc's tensor-support table at the newest feature level (FLOAT64 is in none of them).

Launch plan (issue 25; kernel.cl's header): when the reduced axes walk the input as one arithmetic progression
(:func:`reduction_run`: one reduced axis of size > 1, several whose strides nest row-major, or broadcast ones),
``reduce_run`` reduces it with one work-item per output element, streaming a contiguous run (stride 1) eight
elements at a time into eight lane accumulators for the accumulating functions (SUM, AVERAGE, L1, L2,
SUM_SQUARE, MULTIPLY, LOG_SUM, LOG_SUM_EXP's sum); on GPUs a contiguous run of at least GROUP_SIZE elements
is reduced by one work-group per output element (``reduce_group``: SUM-like functions and MAX/MIN); on CPUs a
strided run beside a kept innermost dimension of input stride 1 and a multiple of 8 elements is reduced eight
neighbouring outputs per work-item with vector loads (``reduce_columns``: each output's elements in index
order, the same bits as one work-item per output; SUM-like functions and MAX/MIN). Any other
set of axes takes the generic ``reduce`` kernel (coordinates per element). A float sum's order is then not the
index order: the stated tolerance (n + 4 ulps of the sum of |x|, cases.py) holds for every order; integer
sums and products wrap, so any order gives the same bits; MAX/MIN/ARGMAX/ARGMIN and LOG_SUM_EXP's maximum
keep the index order.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_ARGMAX_OPERATOR_DESC, DML_ARGMIN_OPERATOR_DESC, DML_REDUCE_OPERATOR_DESC
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import data_type_name
from dmlsim.operators.base import REFERENCE_BYTES_PER_ELEMENT, Operator, ValidatedDesc, register
from dmlsim.operators.plan import Groups, Items, KernelLaunch, LaunchTarget, Scalar, TensorArg
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
# Functions reduce_run streams RED_VEC elements at a time over a contiguous run (the selecting ones walk it in order).
VECTOR_FUNCTIONS = {"SUM", "AVERAGE", "L1", "L2", "SUM_SQUARE", "MULTIPLY", "LOG_SUM", "LOG_SUM_EXP"}
# Functions reduce_group takes (GPUs, contiguous runs); ARGMAX/ARGMIN and LOG_SUM_EXP stay one work-item per output.
GROUP_FUNCTIONS = VECTOR_FUNCTIONS - {"LOG_SUM_EXP"} | {"MAX", "MIN"}
GROUP_SIZE = 64  # reduce_group's work-items per output element (its reqd_work_group_size)
# Functions reduce_columns takes (CPUs, strided runs beside a contiguous innermost dimension).
COLUMN_FUNCTIONS = GROUP_FUNCTIONS
# reduce_columns' vectors of RED_VEC outputs per work-item: the most that divide the innermost size while leaving
# COLUMN_ITEMS_PER_UNIT work-items per compute unit (a whole 512-wide row per item streams a [8, 4096, 512] input's
# slices at 0.8-0.95x the native limit on PoCL and Intel's runtime; one vector per item walks 2 KB-strided
# 32-byte pieces at 0.15-0.6x).
COLUMN_VECS = (64, 32, 16, 8, 4, 2, 1)
COLUMN_ITEMS_PER_UNIT = 4
RED_VEC = 8  # kernel.cl's RED_VEC: lanes of reduce_run's contiguous stream, outputs per reduce_columns work-item


def reduction_run(sizes: Sequence[int], strides: Sequence[int], axes: Sequence[int]) -> tuple[int, int] | None:
    """``(n_red, red_stride)`` when the input elements of each reduction, in row-major order over ``axes``, lie
    ``red_stride`` elements apart from the first (element r at r·red_stride); None when they do not (the generic
    kernel then walks the coordinates). Reduced axes of size 1 take no part."""
    dims = [d for d in sorted(axes) if sizes[d] > 1]
    if not dims:
        return 1, 0
    for outer, inner in itertools.pairwise(dims):
        if strides[outer] != strides[inner] * sizes[inner]:
            return None
    return math.prod(sizes[d] for d in dims), strides[dims[-1]]


def column_vecs(row: int, n_out: int, compute_units: int) -> int:
    """reduce_columns' vectors per work-item for an innermost axis of ``row`` (a multiple of RED_VEC) outputs:
    the most of COLUMN_VECS dividing it with COLUMN_ITEMS_PER_UNIT work-items per compute unit, else one."""
    fitting = [k for k in COLUMN_VECS if row % (RED_VEC * k) == 0]
    return next((k for k in fitting if n_out // (RED_VEC * k) >= COLUMN_ITEMS_PER_UNIT * compute_units), fitting[-1])


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
        run = reduction_run(x.sizes, bound[IN].layout.strides, axes)
        if run is not None:
            n_red, red_stride = run
            args = (TensorArg("x", IN, rank=8), TensorArg("y", OUT, rank=8), ulong8("out_sizes", y.sizes, fill=1),
                    Scalar("n_out", np.uint32(y.element_count)), Scalar("n_red", np.uint32(n_red)),
                    Scalar("red_stride", np.uint64(red_stride)))
            contiguous = red_stride == 1 and n_red > 1
            if not target.is_cpu and contiguous and n_red >= GROUP_SIZE and function in GROUP_FUNCTIONS:
                return [KernelLaunch(self.kernel_source, "reduce_group", {**defines, "GROUP_SIZE": GROUP_SIZE},
                                     Groups(y.element_count, GROUP_SIZE), args)]
            strides = bound[IN].layout.strides
            last = len(x.sizes) - 1
            if (target.is_cpu and n_red > 1 and last not in axes and strides[last] == 1
                    and x.sizes[last] % RED_VEC == 0 and function in COLUMN_FUNCTIONS):
                vecs = column_vecs(x.sizes[last], y.element_count, target.compute_units)
                return [KernelLaunch(self.kernel_source, "reduce_columns", {**defines, "COLUMN_VECS": vecs},
                                     Items(y.element_count // (RED_VEC * vecs), 1), args)]
            defines["RED_CONTIGUOUS"] = contiguous and function in VECTOR_FUNCTIONS
            return [KernelLaunch(self.kernel_source, "reduce_run", defines, Items(y.element_count), args)]
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
