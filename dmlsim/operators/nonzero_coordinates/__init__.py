"""DML_OPERATOR_NONZERO_COORDINATES: the coordinates of every non-zero element of InputTensor, in row-major order
(increasing element index, the page's guarantee), and their count. One kernel (``nonzero_coordinates``: one
work-item per input element). The desc is DirectML's generated one.

Rules (the page): OutputCountTensor is a UINT32 scalar (every size 1); OutputCoordinatesTensor is UINT32 with
Sizes {1, ..., 1, M, N}: M the input's element count, N at least the input's effective rank (its DimensionCount
without leading 1s) and at most its DimensionCount; row r holds the last N coordinates of the r-th non-zero
element. ±0 are zero (the page, for FLOAT32/FLOAT16); NaN is not zero (dmlsim's decision: NaN != 0, as ONNX and
numpy count it). dmlsim's readings where the page is silent: InputTensor and OutputCoordinatesTensor have the same
DimensionCount, 2 to 8 (the page's examples are 4-D and 5-D; the coordinates need two dimensions); InputTensor
of any data type but FLOAT64. Rows after the count: the page leaves them undefined; dmlsim writes 0 there, so
every output element is deterministic on every device. Any strides, any binding offsets; no in-place.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_NONZERO_COORDINATES_OPERATOR_DESC
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout
from dmlsim.operators.base import (
    Operator,
    ValidatedDesc,
    Work,
    elementwise_work,
    register,
    require_same,
    require_scalar,
)
from dmlsim.operators.nonzero_coordinates.reference import nonzero_coordinates
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, TensorArg
from dmlsim.operators.typed import EVERY_TYPE, FLOAT64, UINT32, require_type, typed_defines, ulong8

IN, COUNT, COORDINATES = "InputTensor", "OutputCountTensor", "OutputCoordinatesTensor"
INPUT_TYPES = tuple(t for t in EVERY_TYPE if t != FLOAT64)


@register
class NonzeroCoordinates(Operator):
    """DML_NONZERO_COORDINATES."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_NONZERO_COORDINATES
    desc_cls = DML_NONZERO_COORDINATES_OPERATOR_DESC

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        require_type(v, problems, IN, INPUT_TYPES, f"by {self.name}")
        require_type(v, problems, COUNT, (UINT32,), f"by {self.name}")
        require_type(v, problems, COORDINATES, (UINT32,), f"by {self.name}")
        require_scalar(v, problems, COUNT)
        require_same(v, problems, IN, (COORDINATES,), ("DimensionCount",))
        x, c = v.tensors.get(IN), v.tensors.get(COORDINATES)
        if not isinstance(x, TensorLayout) or not isinstance(c, TensorLayout) or len(x.sizes) != len(c.sizes):
            return
        rank = len(x.sizes)
        if rank < 2:
            problems.add(f"{v.struct_name}.{IN}.DimensionCount {rank} must be at least 2 (the coordinates tensor "
                         "has the same DimensionCount and needs two dimensions)")
            return
        effective = rank - next((d for d, s in enumerate(x.sizes) if s != 1), rank)
        n = c.sizes[-1]
        if any(s != 1 for s in c.sizes[:-2]) or c.sizes[-2] != x.element_count or not effective <= n <= rank:
            problems.add(f"{v.struct_name}.{COORDINATES}.Sizes {list(c.sizes)} must be {{1, ..., 1, M, N}} with M "
                         f"{x.element_count} ({IN}'s element count) and {effective} <= N <= {rank} ({IN}'s "
                         "effective rank and DimensionCount)")

    def work(self, v: ValidatedDesc) -> Work:
        """The default plus the kernel's scan: every input element counts the whole input."""
        count = v.layout(IN).element_count
        return elementwise_work(v) + Work(4 * count * count, 0)

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        count, coordinates = nonzero_coordinates(inputs[IN], v.layout(COUNT).sizes, v.layout(COORDINATES).sizes)
        return {COUNT: count, COORDINATES: coordinates}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        x, c = bound[IN].layout, bound[COORDINATES].layout
        args = (TensorArg("x", IN, rank=8), TensorArg("count", COUNT, scalar=True),
                TensorArg("c", COORDINATES, scalar=True), ulong8("sizes", x.sizes, fill=1),
                Scalar("row_stride", np.uint64(c.strides[-2])), Scalar("column_stride", np.uint64(c.strides[-1])),
                Scalar("n", np.uint32(c.sizes[-1])), Scalar("total", np.uint32(x.element_count)))
        return [KernelLaunch(self.kernel_source, "nonzero_coordinates", typed_defines(x.data_type, x.data_type),
                             Items(x.element_count), args)]
