"""DML_OPERATOR_TOP_K and DML_OPERATOR_TOP_K1: the K largest (TOP_K; TOP_K1 with DML_AXIS_DIRECTION_DECREASING) or
smallest (TOP_K1 with DML_AXIS_DIRECTION_INCREASING) elements of each sequence along Axis, sorted that way, with
their indices within the sequence. One kernel (``top_k``: one work-item per input element, which counts the
elements of its sequence that come before it and writes itself to that rank if it is below K). The descs are
DirectML's generated ones.

Rules (the pages): OutputValueTensor and OutputIndexTensor have InputTensor's Sizes except K on Axis; Axis is
less than InputTensor.DimensionCount; every tensor has the same DimensionCount, 1 to 8 (dmlsim's reading of the
newest feature level); OutputValueTensor has InputTensor's DataType: FLOAT32, FLOAT16, INT64, INT32, INT16, INT8,
UINT64, UINT32, UINT16 or UINT8 (no FLOAT64 in the tables); OutputIndexTensor is UINT32 or UINT64. K: the pages say
"greater than 0 but less than the number of elements" along Axis; onnxruntime's DirectML provider passes ONNX's K,
which may equal the axis size (ONNX allows it, and its node cases use it), so dmlsim accepts 1 <= K <= size.
Any strides, tensors at any offset; no in-place (the schema marks no input eligible).

Order (dmlsim's decisions where the pages are silent, pinned by tests/test_top_k.py): ties (equal values) keep
the lower index first whatever the direction (the pages' rule); -0 and +0 are equal (a tie); NaN ranks above
+inf (so first among the largest, last among the smallest), all NaNs equal to one another (ties by index), as
torch.topk and numpy's sort order them. Values are compared in float32 (FLOAT16, FLOAT32) or their integer type
and moved bit for bit (NaN payloads kept); indices count from the start of the sequence.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_TOP_K1_OPERATOR_DESC, DML_TOP_K_OPERATOR_DESC
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout
from dmlsim.operators.base import Operator, ValidatedDesc, Work, elementwise_work, register, require_same
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, TensorArg
from dmlsim.operators.top_k.reference import top_k
from dmlsim.operators.typed import (
    BITS_TYPE,
    CL_TYPE,
    FLOAT16,
    FLOAT32,
    FLOATS,
    INT8,
    INT16,
    INT32,
    INT64,
    UINT8,
    UINT16,
    UINT32,
    UINT64,
    check_axis,
    require_type,
    typed_defines,
    ulong8,
)

IN, VALUES, INDICES = "InputTensor", "OutputValueTensor", "OutputIndexTensor"
VALUE_TYPES = (FLOAT32, FLOAT16, INT64, INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8)
INDEX_TYPES = (UINT32, UINT64)


class TopK(Operator):
    """The shared template; TOP_K always takes the largest."""

    def decreasing(self, v: ValidatedDesc) -> bool:
        return True

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        require_same(v, problems, IN, (VALUES, INDICES), ("DimensionCount",))
        require_same(v, problems, IN, (VALUES,), ("DataType",))
        require_type(v, problems, IN, VALUE_TYPES, f"by {self.name}")
        require_type(v, problems, INDICES, INDEX_TYPES, f"by {self.name}")
        x, y, i = (v.tensors.get(f) for f in (IN, VALUES, INDICES))
        if not all(isinstance(t, TensorLayout) for t in (x, y, i)):
            return
        assert isinstance(x, TensorLayout) and isinstance(y, TensorLayout) and isinstance(i, TensorLayout)
        axis, k = v.attrs["Axis"], v.attrs["K"]
        if not check_axis(v, problems, "Axis", axis, len(x.sizes), IN):
            return
        if not 1 <= k <= x.sizes[axis]:
            problems.add(f"{v.struct_name}.K {k} must be in [1, {x.sizes[axis]}] ({IN}.Sizes[{axis}], the "
                         "sequence length)")
        expected = [k if d == axis else s for d, s in enumerate(x.sizes)]
        for name, t in ((VALUES, y), (INDICES, i)):
            if len(t.sizes) == len(x.sizes) and list(t.sizes) != expected:
                problems.add(f"{v.struct_name}.{name}.Sizes {list(t.sizes)} must be {expected} ({IN}.Sizes with K "
                             f"on Axis {axis})")

    def work(self, v: ValidatedDesc) -> Work:
        """The default plus the kernel's count: each input element compares its whole sequence."""
        x = v.layout(IN)
        return elementwise_work(v) + Work(4 * x.element_count * x.sizes[v.attrs["Axis"]], 0)

    def reference_bytes(self, v: ValidatedDesc) -> int:
        """The default plus reference.top_k's int64 arrays the size of the input: np.unique's sorted copy and
        inverse, the ranks, their negation and the argsort (40 bytes per input element)."""
        return super().reference_bytes(v) + 40 * v.layout(IN).element_count

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        values, indices = top_k(inputs[IN], v.attrs["Axis"], v.attrs["K"], self.decreasing(v))
        return {VALUES: values, INDICES: indices.astype(v.layout(INDICES).dtype)}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        x, i = bound[IN].layout, bound[INDICES].layout
        axis = v.attrs["Axis"]
        defines = {**typed_defines(x.data_type, x.data_type), "IDX_OUT_T": CL_TYPE[i.data_type],
                   "BITS_T": BITS_TYPE[x.element_size],
                   "VALUE_FLOAT": x.data_type in FLOATS, "DECREASING": self.decreasing(v)}
        args = (TensorArg("x", IN, rank=8), TensorArg("v", VALUES, rank=8), TensorArg("i", INDICES, rank=8),
                ulong8("sizes", x.sizes, fill=1), Scalar("axis8", np.uint32(8 - len(x.sizes) + axis)),
                Scalar("x_axis_stride", np.uint64(x.strides[axis])), Scalar("sequence", np.uint32(x.sizes[axis])),
                Scalar("k", np.uint32(v.attrs["K"])), Scalar("n", np.uint32(x.element_count)))
        return [KernelLaunch(self.kernel_source, "top_k", defines, Items(x.element_count), args)]


@register
class TopKOp(TopK):
    """DML_TOP_K: the K largest of each sequence, largest first."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_TOP_K
    desc_cls = DML_TOP_K_OPERATOR_DESC


@register
class TopK1(TopK):
    """DML_TOP_K1: the K largest (DECREASING) or smallest (INCREASING) of each sequence, in that order."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_TOP_K1
    desc_cls = DML_TOP_K1_OPERATOR_DESC

    def decreasing(self, v: ValidatedDesc) -> bool:
        return v.attrs["AxisDirection"].name.endswith("DECREASING")
