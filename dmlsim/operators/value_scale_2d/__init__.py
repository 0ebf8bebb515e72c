"""DML_OPERATOR_VALUE_SCALE_2D: ``Output = Scale * Input + Bias[channel]``, a scale for the whole tensor and a
bias per channel, from one kernel and DirectML's generated desc.

Rules (the doc page): InputTensor and OutputTensor are 4-D ``{BatchCount, ChannelCount, Height, Width}``, FLOAT32
or FLOAT16, with the same DataType and Sizes; ``ChannelCount`` (the Bias array's size) is 1 or 3 and equals
``InputTensor.Sizes[1]``.

Numerics: computed in float32 as one fused multiply-add, ``fma(Scale, x, Bias[c])`` (the exact value rounded
once; the reference rounds the float64 result once to the output type), FLOAT16 as storage (loaded exactly,
stored rounded to nearest even). Any DML strides on both tensors (padded, permuted, a stride-0 broadcast input),
tensors at any binding offset; not in place (the schema: the input is not eligible).

Decisions where the page is silent: a NaN or infinite Scale or Bias is accepted and propagates by IEEE arithmetic
(``0 * inf`` is NaN); the product is not rounded before the bias is added (the page gives the formula, not its
roundings).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_VALUE_SCALE_2D_OPERATOR_DESC
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.operators.base import Operator, ValidatedDesc, register, require_same
from dmlsim.operators.float_rules import require_float_tensors, storage_defines
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, TensorArg
from dmlsim.operators.typed import sizes_of, ulong8
from dmlsim.operators.value_scale_2d.reference import value_scale_2d

IN, OUT = "InputTensor", "OutputTensor"


@register
class ValueScale2D(Operator):
    """VALUE_SCALE_2D (module docstring)."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_VALUE_SCALE_2D
    desc_cls = DML_VALUE_SCALE_2D_OPERATOR_DESC

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        if not require_float_tensors(v, problems, (IN, OUT), range(4, 5)):
            return
        require_same(v, problems, IN, (OUT,), ("DataType", "Sizes"))
        channels = v.attrs["ChannelCount"]
        if channels not in (1, 3):
            problems.add(f"{v.struct_name}.ChannelCount {channels} must be 1 or 3")
        x = sizes_of(v, IN)
        if x is not None and x[1] != channels:
            problems.add(f"{v.struct_name}.ChannelCount {channels} must equal {IN}.Sizes[1] {x[1]} (the channel "
                         "dimension)")

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {OUT: value_scale_2d(inputs[IN], v.attrs["Scale"], v.attrs["Bias"])}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        y = v.layout(OUT)
        bias = [np.float32(b) for b in v.attrs["Bias"]]
        bias += [np.float32(0.0)] * (3 - len(bias))
        args = (TensorArg("x", IN, rank=8), TensorArg("y", OUT, rank=8), ulong8("sizes", y.sizes, fill=1),
                Scalar("scale", np.float32(v.attrs["Scale"])), Scalar("bias0", bias[0]), Scalar("bias1", bias[1]),
                Scalar("bias2", bias[2]), Scalar("n", np.uint32(y.element_count)))
        return [KernelLaunch(self.kernel_source, "value_scale_2d", storage_defines(y), Items(y.element_count), args)]
