"""DML_OPERATOR_UPSAMPLE_2D (DML_FEATURE_LEVEL_1_0): desc, rules, reference and kernel launch.

The desc is DirectML's generated one: a 4-D ``{N, C, H, W}`` or 5-D ``{N, C, D, H, W}`` FLOAT32/FLOAT16
tensor whose height and width are scaled by the integers of ``ScaleSize`` (DML_SIZE_2D), with
NEAREST_NEIGHBOR or (bi)LINEAR interpolation (see :mod:`.reference`); any DML strides on both tensors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_INTERPOLATION_MODE, DML_UPSAMPLE_2D_OPERATOR_DESC
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import UINT32_MAX
from dmlsim.operators.base import Operator, ValidatedDesc, Work, elementwise_work, register, require_same
from dmlsim.operators.float_rules import require_float_tensors, storage_defines
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, TensorArg, Vector
from dmlsim.operators.upsample_2d.reference import upsample_2d

X, OUT = "InputTensor", "OutputTensor"
LINEAR = DML_INTERPOLATION_MODE.DML_INTERPOLATION_MODE_LINEAR


def as_5d(values: tuple[int, ...], fill: int) -> tuple[int, ...]:
    """{N, C, [D], H, W} padded to {N, C, D, H, W}."""
    return values if len(values) == 5 else (*values[:2], fill, *values[2:])


UPSAMPLE_OPERATIONS = 300  # per element touched (dmlsim.operators.base.Work): the reference's index arrays


@register
class Upsample2D(Operator):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_UPSAMPLE_2D
    desc_cls = DML_UPSAMPLE_2D_OPERATOR_DESC

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        # Tensor support: 4 to 5 dimensions, FLOAT32 or FLOAT16
        if not require_float_tensors(v, problems, (X, OUT), range(4, 6)):
            return
        # "InputTensor and OutputTensor must have the same DataType and DimensionCount"
        require_same(v, problems, X, (OUT,), ("DataType", "DimensionCount"))
        if problems:
            return
        where, scale = v.struct_name, v.attrs["ScaleSize"]
        x, out = v.layout(X).sizes, v.layout(OUT).sizes
        # "0 < ScaleSize.Height <= UINT_MAX / InputHeight and 0 < ScaleSize.Width <= UINT_MAX / InputWidth"
        for member, size in (("Height", x[-2]), ("Width", x[-1])):
            value = getattr(scale, member)
            if not 0 < value <= UINT32_MAX // size:
                problems.add(f"{where}.ScaleSize.{member} {value} must be in (0, UINT_MAX / Input{member} = "
                             f"{UINT32_MAX // size}]")
        if problems:
            return
        expected = (*x[:-2], x[-2] * scale.Height, x[-1] * scale.Width)
        if out != expected:
            problems.add(f"{where}.OutputTensor.Sizes {list(out)} must be {list(expected)} (InputTensor.Sizes "
                         f"{list(x)} with height times ScaleSize.Height {scale.Height} and width times "
                         f"ScaleSize.Width {scale.Width})")

    def work(self, v: ValidatedDesc) -> Work:
        """The default with more operations per element: the reference interpolates through float64 index and
        weight arrays, about 375 ns per output element (LINEAR, 67M elements, 2 cores)."""
        return elementwise_work(v, operations_per_element=UPSAMPLE_OPERATIONS)

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        scale = v.attrs["ScaleSize"]
        return {OUT: upsample_2d(inputs[X], scale.Height, scale.Width, v.attrs["InterpolationMode"] == LINEAR)}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        x, out = v.layout(X), v.layout(OUT)
        scale = v.attrs["ScaleSize"]
        args = [TensorArg("x", X, scalar=True), Vector("x_strides", as_5d(bound[X].layout.strides, 0), rank=8, fill=0),
                TensorArg("y", OUT, scalar=True),
                Vector("y_strides", as_5d(bound[OUT].layout.strides, 0), rank=8, fill=0),
                Vector("y_sizes", as_5d(out.sizes, 1), rank=8), Scalar("in_h", np.uint32(x.sizes[-2])),
                Scalar("in_w", np.uint32(x.sizes[-1])), Scalar("scale_h", np.uint32(scale.Height)),
                Scalar("scale_w", np.uint32(scale.Width)), Scalar("count", np.uint32(out.element_count))]
        defines = {**storage_defines(out), "LINEAR": v.attrs["InterpolationMode"] == LINEAR}
        return [KernelLaunch(self.kernel_source, "upsample_2d", defines, Items(out.element_count), args)]
