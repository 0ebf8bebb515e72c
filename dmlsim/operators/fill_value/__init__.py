"""DML_OPERATOR_FILL_VALUE_CONSTANT and DML_OPERATOR_FILL_VALUE_SEQUENCE: one kernel, DirectML's generated
descs. Rules of the doc pages: ValueDataType must match OutputTensor.DataType; the output is 1 to 8-D, any
size, of any data type for CONSTANT (FLOAT64 included, feature level 4_1) and of every type but FLOAT64 for
SEQUENCE (its table at 5_0). The DML_SCALAR_UNION values are read as ValueDataType by the generic validation.
CONSTANT stores Value's bits unchanged (-0.0 stays -0.0, a NaN keeps its payload); SEQUENCE computes the doc's
``ValueStart + elementIndex * ValueDelta``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_FILL_VALUE_CONSTANT_OPERATOR_DESC, DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import data_type_name
from dmlsim.operators.base import Operator, ValidatedDesc, Work, elementwise_work, register
from dmlsim.operators.fill_value.reference import fill_constant, fill_sequence
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, TensorArg
from dmlsim.operators.typed import (
    EVERY_TYPE,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    FLOATS,
    INTEGERS,
    bits_defines,
    require_type,
    typed_defines,
    ulong8,
)

OUT = "OutputTensor"


class FillValue(Operator):
    """The shared template: the data-type rules and the launch of ``start + i * delta``."""

    data_types: tuple[int, ...]
    bit_pattern = False  # True: store ``start``'s bits unchanged (delta 0), no arithmetic

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        if not require_type(v, problems, OUT, self.data_types, f"by {self.name}"):
            return
        value_type = v.attrs.get("ValueDataType")
        out_type = v.layout(OUT).data_type
        if value_type is not None and value_type != out_type:
            problems.add(f"{v.struct_name}.ValueDataType {data_type_name(value_type)} must match "
                         f"{OUT}.DataType {data_type_name(out_type)}")

    def start_delta(self, v: ValidatedDesc) -> tuple[np.generic, np.generic]:
        raise NotImplementedError

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        y = v.layout(OUT)
        start, delta = self.start_delta(v)
        if self.bit_pattern:  # the value's bytes as an unsigned integer of the element's width, moved unchanged
            defines = {**bits_defines(y.element_size), "ACC_T": "ulong"}
            start, delta = int.from_bytes(start.tobytes(), "little"), 0
            scalar = np.uint64
        else:
            if y.data_type in (FLOAT32, FLOAT16):
                acc, scalar = "float", np.float32
            elif y.data_type == FLOAT64:
                acc, scalar = "double", np.float64
            else:
                acc, scalar = "ulong", lambda x: np.uint64(int(x) % 2**64)
            defines = typed_defines(y.data_type, y.data_type, acc=acc)
        args = (TensorArg("y", OUT, rank=8), Scalar("start", scalar(start)), Scalar("delta", scalar(delta)),
                ulong8("sizes", y.sizes, fill=1), Scalar("n", np.uint32(y.element_count)))
        return [KernelLaunch(self.kernel_source, "fill_value", defines, Items(y.element_count), args)]


@register
class FillValueSequence(FillValue):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_FILL_VALUE_SEQUENCE
    desc_cls = DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC
    data_types = FLOATS + INTEGERS

    def start_delta(self, v: ValidatedDesc) -> tuple[np.generic, np.generic]:
        return v.attrs["ValueStart"], v.attrs["ValueDelta"]

    def work(self, v: ValidatedDesc) -> Work:
        """The default, plus a reference-device step per element of an integer sequence (exact Python integers)."""
        return elementwise_work(v, host_steps_per_element=int(v.layout(OUT).dtype.kind in "iu"))

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        y = v.layout(OUT)
        return {OUT: fill_sequence(y.sizes, y.dtype, v.attrs["ValueStart"], v.attrs["ValueDelta"])}


@register
class FillValueConstant(FillValue):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_FILL_VALUE_CONSTANT
    desc_cls = DML_FILL_VALUE_CONSTANT_OPERATOR_DESC
    data_types = EVERY_TYPE
    # Value is written as given, bit for bit: -0.0 stays -0.0 (``-0.0 + i * 0.0`` would be +0.0) and a NaN
    # keeps its payload; a FLOAT16 value never goes through float.
    bit_pattern = True

    def start_delta(self, v: ValidatedDesc) -> tuple[np.generic, np.generic]:
        value = v.attrs["Value"]
        return value, type(value)(0)

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        y = v.layout(OUT)
        return {OUT: fill_constant(y.sizes, y.dtype, v.attrs["Value"])}
