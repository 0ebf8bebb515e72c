"""The normalization family: DML_OPERATOR_BATCH_NORMALIZATION (DML_FEATURE_LEVEL_1_0),
DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION (1_0), MEAN_VARIANCE_NORMALIZATION1 (2_0) and
MEAN_VARIANCE_NORMALIZATION2 (6_3). One folder, one kernel file, DirectML's generated descs.

BATCH_NORMALIZATION: ``Output = FusedActivation(Scale * ((Input - Mean) / sqrt(Variance + Epsilon)) + Bias)``,
element by element. Rules (the doc page at DML_FEATURE_LEVEL_3_1 and above): every tensor FLOAT32 or FLOAT16 with
1 to 8 dimensions; all six the same DataType and DimensionCount; OutputTensor.Sizes equal InputTensor.Sizes; each
size of MeanTensor, VarianceTensor, ScaleTensor and BiasTensor either 1 (broadcast along that dimension) or the
InputTensor's size. ``Spatial`` was deprecated in DML_FEATURE_LEVEL_4_0 and "has no effect": dmlsim accepts
TRUE and FALSE alike and computes the same (the pre-4_0 rule that Spatial FALSE forbids broadcasting the
Width/Height of Mean and Variance is not enforced at the newest level). ONNX's BatchNormalization (inference)
maps onto it with Mean/Variance/Scale/Bias of sizes ``{1, C, 1, ...}`` (onnxruntime's DirectML provider,
DmlOperatorBatchNormalization).

MEAN_VARIANCE_NORMALIZATION1: Mean and Variance over the dimensions in ``Axes`` (one Mean/Variance per
element of the other dimensions); Variance is the biased one, the mean of the squared deviations; then
``FusedActivation(Scale * ((Input - Mean) / sqrt(Variance + Epsilon)) + Bias)``, and with NormalizeVariance
FALSE ``FusedActivation(Scale * (Input - Mean) + Bias)``. Rules: FLOAT32 or FLOAT16, 1 to 8 dimensions (the
page's table at DML_FEATURE_LEVEL_3_1 and above); Input, Scale, Bias and Output the same DataType and
DimensionCount; Output the Input's Sizes; every size of ScaleTensor and BiasTensor 1 or the Input's (any
dimension may broadcast, DML_FEATURE_LEVEL_4_0 and above); ScaleTensor and BiasTensor each optional on its own
(DML_FEATURE_LEVEL_5_2 and above: dmlsim implements the newest level; a missing Scale is 1, a missing Bias 0).
LayerNormalization and InstanceNormalization map onto it (onnxruntime's DmlOperatorLayerNormalization and
DmlOperatorInstanceNormalization), as do ONNX's MeanVarianceNormalization (Epsilon 0: ONNX adds its 1e-9 to the
standard deviation instead) and GroupNormalization (the input seen as {N, G, C/G, spatial}); see
tests/test_normalization_onnx.py.

MEAN_VARIANCE_NORMALIZATION: MEAN_VARIANCE_NORMALIZATION1's formula over fixed axes of a 4-D
``{BatchCount, ChannelCount, Height, Width}`` input: ``{ChannelCount, Height, Width}`` (axes 1, 2, 3) with
CrossChannel TRUE, ``{Height, Width}`` (2, 3) with FALSE. Rules (its page): every tensor FLOAT32 or FLOAT16 with
exactly 4 dimensions; all four the same DataType; Output the Input's Sizes; each size of ScaleTensor and
BiasTensor 1 (broadcast) or the Input's; each optional on its own (DML_FEATURE_LEVEL_5_2 and above).

MEAN_VARIANCE_NORMALIZATION2: MEAN_VARIANCE_NORMALIZATION1 with two flags for NormalizeVariance's one. Its
page says "TBD" for UseMean and UseVariance; dmlsim follows what onnxruntime's DirectML provider relies on
(SkipLayerNormalization and SimplifiedLayerNormalization set ``UseMean = !simplified, UseVariance = TRUE``):
UseMean FALSE takes the Mean as 0, so the Variance is the mean of the squares and the output
``Scale * Input / sqrt(mean(Input^2) + Epsilon) + Bias`` (RMS normalization); UseVariance FALSE leaves out the
division (``Scale * (Input - Mean) + Bias``, with both FALSE ``Scale * Input + Bias``). Its other rules are
MEAN_VARIANCE_NORMALIZATION1's (the page's tensor table: FLOAT32/FLOAT16, 1 to 8 dimensions; its constraint: one
DataType and DimensionCount), Axes decided the same way (below). Without a Mean, a NaN in a group makes that
group's outputs NaN and an infinity (no NaN) makes Variance +inf, so finite inputs give 0 and infinite ones NaN:
the float64 formula (kernel.cl). It is the one operator here of DML_FEATURE_LEVEL_6_3: implementing it raises the
level GetFeatureLevel answers to 6_3.

Decisions where the pages are silent (pinned in tests/test_normalization.py):

- Axes: each in ``[0, InputTensor.DimensionCount - 1]``, none repeated (as REDUCE), and AxisCount at least 1:
  an empty set of axes is refused, because "normalize over no axis" reads both as the identity grouping and as
  ONNX's "reduce over every axis" (ReduceMean with empty axes), and no provider passes it.
- Epsilon: any float is accepted, negative and NaN included; the formula is applied as it stands (a NaN
  Epsilon, or Variance + Epsilon < 0, gives NaN).
- In place: none (the generated schema makes no input eligible).
- Accuracy: the kernel computes the Mean as ``K + sum(x - K) / n`` with K the group's first element, and the
  Variance in two passes from that Mean, scaled by the largest |deviation| (kernel.cl): accurate for data with
  a large mean (1e4 + small noise) and free of float32 overflow/underflow of the squares. Tolerances are stated
  in tests/test_normalization.py and cases.py in terms of the reduced count n.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import (
    DML_BATCH_NORMALIZATION_OPERATOR_DESC,
    DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC,
    DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC,
    DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC,
)
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout
from dmlsim.operators.activation.fused import apply_fused, fused_defines
from dmlsim.operators.base import Operator, ValidatedDesc, register, require_same
from dmlsim.operators.float_rules import require_float_tensors, storage_defines
from dmlsim.operators.normalization.reference import batch_normalization, mean_variance_normalization
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, NullBuffer, Scalar, TensorArg
from dmlsim.operators.typed import check_axes, ulong8

X, MEAN, VAR, SCALE, BIAS, OUT = ("InputTensor", "MeanTensor", "VarianceTensor", "ScaleTensor", "BiasTensor",
                                  "OutputTensor")
DIMENSIONS = range(1, 9)


def check_broadcast(v: ValidatedDesc, problems: Problems, names: tuple[str, ...]) -> None:
    """Each present tensor of ``names``: every size 1 or InputTensor's size along that dimension (the caller has
    checked the DimensionCounts equal)."""
    x = v.layout(X).sizes
    for name in names:
        layout = v.tensors.get(name)
        if not isinstance(layout, TensorLayout):
            continue
        if any(s not in (1, n) for s, n in zip(layout.sizes, x, strict=True)):
            problems.add(f"{v.struct_name}.{name}.Sizes {list(layout.sizes)}: each size must be 1 (broadcast) or "
                         f"InputTensor's size along that dimension (InputTensor.Sizes {list(x)})")


def broadcast_strides(layout: TensorLayout) -> tuple[int, ...]:
    """``layout``'s strides with 0 on its size-1 dimensions: the same coordinates as the output address it."""
    return tuple(0 if size == 1 else stride for size, stride in zip(layout.sizes, layout.strides, strict=True))


def tensor_args(param: str, name: str, bound: dict[str, Any]) -> list[Any]:
    """``param__base, param__offset, param_strides`` of a bound tensor (broadcast strides, 8-D), or a null
    buffer, offset 0 and zero strides for an absent optional one."""
    if bound.get(name) is None:
        return [NullBuffer(f"{param}__base"), Scalar(f"{param}__offset", np.uint64(0)),
                ulong8(f"{param}_strides", ())]
    return [TensorArg(param, name, scalar=True), ulong8(f"{param}_strides", broadcast_strides(bound[name].layout))]


class Normalization(Operator):
    """What the family shares: FLOAT32/FLOAT16 tensors of 1 to 8 dimensions, one DataType and DimensionCount,
    Output of Input's Sizes, broadcast parameter tensors."""

    parameters: tuple[str, ...] = ()
    dimensions: range = DIMENSIONS

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        names = (X, *self.parameters, OUT)
        if not require_float_tensors(v, problems, names, self.dimensions):
            return
        require_same(v, problems, X, (*self.parameters, OUT), ("DataType", "DimensionCount"))
        require_same(v, problems, X, (OUT,), ("Sizes",))
        if problems:
            return
        check_broadcast(v, problems, self.parameters)


@register
class BatchNormalization(Normalization):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_BATCH_NORMALIZATION
    desc_cls = DML_BATCH_NORMALIZATION_OPERATOR_DESC
    parameters = (MEAN, VAR, SCALE, BIAS)

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        result = batch_normalization(inputs[X], inputs[MEAN], inputs[VAR], inputs[SCALE], inputs[BIAS],
                                     v.attrs["Epsilon"])
        return {OUT: apply_fused(result, v.attrs.get("FusedActivation"))}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        out = v.layout(OUT)
        args: list[Any] = []
        for param, name in (("x", X), ("m", MEAN), ("v", VAR), ("s", SCALE), ("b", BIAS)):
            args += tensor_args(param, name, bound)
        args += [TensorArg("y", OUT, scalar=True), ulong8("y_strides", bound[OUT].layout.strides),
                 ulong8("y_sizes", out.sizes, fill=1), Scalar("epsilon", np.float32(v.attrs["Epsilon"])),
                 Scalar("count", np.uint32(out.element_count))]
        defines = {**storage_defines(out), **fused_defines(v.attrs.get("FusedActivation"))}
        return [KernelLaunch(self.kernel_source, "batch_normalization", defines, Items(out.element_count), args)]


class MeanVariance(Normalization):
    """What MEAN_VARIANCE_NORMALIZATION, MEAN_VARIANCE_NORMALIZATION1 and MEAN_VARIANCE_NORMALIZATION2 share: one
    kernel, told the reduced axes, whether to subtract the Mean and whether to divide by the root of the
    Variance."""

    parameters = (SCALE, BIAS)

    def axes(self, v: ValidatedDesc) -> list[int]:
        """The axes Mean and Variance are computed over."""
        return [int(a) for a in v.attrs.get("Axes") or []]

    def use_mean(self, v: ValidatedDesc) -> bool:
        return True

    def use_variance(self, v: ValidatedDesc) -> bool:
        return bool(v.attrs["NormalizeVariance"])

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        super().check(v, problems)
        layout = v.tensors.get(X)
        if not isinstance(layout, TensorLayout):
            return
        axes = self.axes(v)
        if not axes:
            problems.add(f"{v.struct_name}.AxisCount 0 must be at least 1 (the axes to compute Mean and Variance "
                         "over)")
            return
        check_axes(v, problems, "Axes", axes, len(layout.sizes), X)

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        result = mean_variance_normalization(inputs[X], inputs.get(SCALE), inputs.get(BIAS), self.axes(v),
                                             self.use_variance(v), v.attrs["Epsilon"], self.use_mean(v))
        return {OUT: apply_fused(result, v.attrs.get("FusedActivation"))}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        x = v.layout(X)
        axes = set(self.axes(v))
        red_sizes = [s if d in axes else 1 for d, s in enumerate(x.sizes)]
        group_sizes = [1 if d in axes else s for d, s in enumerate(x.sizes)]
        n_groups = math.prod(group_sizes)
        args: list[Any] = []
        for param, name in (("x", X), ("s", SCALE), ("b", BIAS)):
            args += tensor_args(param, name, bound)
        args += [TensorArg("y", OUT, scalar=True), ulong8("y_strides", bound[OUT].layout.strides),
                 ulong8("group_sizes", group_sizes, fill=1), ulong8("red_sizes", red_sizes, fill=1),
                 Scalar("epsilon", np.float32(v.attrs["Epsilon"])), Scalar("n_groups", np.uint32(n_groups)),
                 Scalar("n_red", np.uint32(math.prod(red_sizes)))]
        defines = {**storage_defines(x), "NORMALIZE_VARIANCE": self.use_variance(v),
                   "NO_MEAN": not self.use_mean(v),
                   "HAS_SCALE": bound.get(SCALE) is not None, "HAS_BIAS": bound.get(BIAS) is not None,
                   **fused_defines(v.attrs.get("FusedActivation"))}
        return [KernelLaunch(self.kernel_source, "mean_variance_normalization", defines, Items(n_groups), args)]


@register
class MeanVarianceNormalization(MeanVariance):
    """MEAN_VARIANCE_NORMALIZATION (feature level 1_0): 4-D tensors, the axes {1, 2, 3} with CrossChannel TRUE,
    {2, 3} with FALSE."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION
    desc_cls = DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC
    dimensions = range(4, 5)

    def axes(self, v: ValidatedDesc) -> list[int]:
        return [1, 2, 3] if v.attrs["CrossChannel"] else [2, 3]


@register
class MeanVarianceNormalization1(MeanVariance):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1
    desc_cls = DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC


@register
class MeanVarianceNormalization2(MeanVariance):
    """MEAN_VARIANCE_NORMALIZATION2 (feature level 6_3): MVN1 with UseMean and UseVariance."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2
    desc_cls = DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC

    def use_mean(self, v: ValidatedDesc) -> bool:
        return bool(v.attrs["UseMean"])

    def use_variance(self, v: ValidatedDesc) -> bool:
        return bool(v.attrs["UseVariance"])
