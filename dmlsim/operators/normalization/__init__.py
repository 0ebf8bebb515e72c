"""The normalization family: DML_OPERATOR_BATCH_NORMALIZATION (DML_FEATURE_LEVEL_1_0),
DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION (1_0), MEAN_VARIANCE_NORMALIZATION1 (2_0) and
MEAN_VARIANCE_NORMALIZATION2 (6_3), LP_NORMALIZATION (1_0), LOCAL_RESPONSE_NORMALIZATION (1_0),
BATCH_NORMALIZATION_TRAINING (4_1), BATCH_NORMALIZATION_GRAD (3_1), BATCH_NORMALIZATION_TRAINING_GRAD (4_1) and
LOCAL_RESPONSE_NORMALIZATION_GRAD (3_1). One folder, one kernel file, DirectML's generated descs.

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

LP_NORMALIZATION: ``Output = Input / max(norm, Epsilon)`` with ``norm = sum(|Input|)`` (P 1) or
``sqrt(sum(Input^2))`` (P 2) along ``Axis``. Rules (its page at DML_FEATURE_LEVEL_3_1 and above): FLOAT32 or
FLOAT16, 1 to 8 dimensions, Input and Output the same DataType, DimensionCount and Sizes; P 1 or 2 (the page:
"either 1 or 2"); Axis less than the DimensionCount. The page says only that Epsilon is "to avoid division by zero";
dmlsim makes it a floor of the norm (``max(norm, Epsilon)``, NaN-propagating), the decomposition onnxruntime's WebNN
provider uses for LpNormalization (microsoft/onnxruntime PR 31197), which keeps ``x / norm`` exact wherever the norm
exceeds Epsilon and gives 0 for an all-zero slice (ONNX's rule for a zero norm) when Epsilon > 0; onnxruntime's
provider passes Epsilon 1e-5 (DefaultEpsilon). Any Epsilon is accepted (0 gives 0 / 0 = NaN for a zero slice). The
kernel scales by the slice's largest |x|, so neither the sum nor its squares overflow or underflow float32 (|x| near
1e30 or 1e-30 normalizes as in float64).

LOCAL_RESPONSE_NORMALIZATION: ``Output = Input / (Bias + (Alpha / LocalSize) * S)^Beta``, S the sum of the squares
over the local region. Rules (its page): FLOAT32 or FLOAT16, exactly 4 dimensions ``{N, C, H, W}``, Input and
Output the same DataType and Sizes; LocalSize at least 1. The region along a dimension of size D around index i is
``[max(0, i - floor((LocalSize - 1) / 2)), min(D - 1, i + ceil((LocalSize - 1) / 2))]`` (the page's remarks
before its 2020 revision, and ONNX's LRN, whose ``alpha / size`` convention is the page's: onnxruntime's
DmlOperatorLocalResponseNormalization passes ONNX's alpha, size, beta and bias unchanged, CrossChannel TRUE).
Decisions where the page is silent: CrossChannel TRUE sums along C only (the ONNX mapping needs exactly that,
though the page's LocalSize text lists "Width, Height, and optionally Channel"); CrossChannel FALSE sums a
LocalSize x LocalSize region of H and W within the channel, still scaled by Alpha / LocalSize (the page's one
formula, not Caffe's Alpha / LocalSize^2); a LocalSize beyond the dimension is clipped like any region; Alpha,
Beta and Bias are any floats (the formula as it stands: a negative base to a fractional Beta is NaN). The kernel
sums the squares scaled by the region's largest |x| and, where ``(Alpha / LocalSize) * S`` overflows float32,
forms ``base^Beta`` as ``M^Beta * M^Beta * (...)^Beta``, so inputs near 1e22 match float64.

BATCH_NORMALIZATION_TRAINING: ``Output = FusedActivation(Scale * ((Input - Mean) / sqrt(Variance + Epsilon)) +
Bias + FusedAdd)`` with Mean and Variance computed over the dimensions where ScaleTensor's (and BiasTensor's) size
is 1, and written to OutputMeanTensor and OutputVarianceTensor (of Scale's Sizes). Rules (its page): all seven
tensors FLOAT32 or FLOAT16 with 1 to 8 dimensions, one DataType and DimensionCount; Bias, OutputMean and
OutputVariance of Scale's Sizes; FusedAdd and Output of Input's Sizes; each size of Scale 1 or Input's. Decisions
where the page is silent: the Variance (used and written) is the biased one, the mean of the squared deviations,
as every other normalization here and as ONNX's training-mode BatchNormalization computes its batch variance; a
Scale with no size-1 dimension makes one-element groups (Mean x, Variance 0, Output ``Scale * 0 / sqrt(Epsilon) +
Bias``: NaN with Epsilon 0); a NaN or infinity in a group writes Mean NaN or ±inf and Variance NaN (the float64
formula); Epsilon is any float (applied as it stands). The kernel is MEAN_VARIANCE_NORMALIZATION1's, so its
accuracy (shifted Mean, scaled two-pass Variance) holds for the outputs and the statistics alike.

BATCH_NORMALIZATION_GRAD and BATCH_NORMALIZATION_TRAINING_GRAD: with ``r = 1 / sqrt(Variance + Epsilon)`` and sums
over the dimensions where MeanTensor's size is 1, ``OutputScaleGradient = sum(dy * (Input - Mean)) * r`` and
``OutputBiasGradient = sum(dy)``; ``OutputGradient = dy * Scale * r`` (GRAD, the derivative of
BATCH_NORMALIZATION with Mean and Variance fixed) or ``Scale * r * ((dy - mean(dy)) - (Input - Mean) *
mean(dy * (Input - Mean)) * r^2)`` (TRAINING_GRAD, the derivative of BATCH_NORMALIZATION_TRAINING, whose Mean and
Variance depend on the input). Rules (their pages): all eight tensors FLOAT32 or FLOAT16 with 1 to 8 dimensions,
one DataType and DimensionCount; Variance, Scale and both parameter gradients of Mean's Sizes; InputGradient and
OutputGradient of Input's Sizes; each size of Mean 1 or Input's. Decisions where the pages are silent:
TRAINING_GRAD's page writes ``mean(Input)`` and ``InputCentered = InputCentered - mean(InputCentered)``; dmlsim
reads both as the given MeanTensor (the forward pass's batch Mean, as the page says the tensor typically is), so
``Input - Mean`` throughout; BATCH_NORMALIZATION_GRAD's Epsilon, optional in DirectML's schema, is 0 when absent.
The references are checked against finite differences of the forward formulas in tests/test_normalization2.py.
The sums are plain float32 sums (n + 6 ulps of the formulas on absolute values).

LOCAL_RESPONSE_NORMALIZATION_GRAD: the derivative of ``sum(InputGradient * LOCAL_RESPONSE_NORMALIZATION(Input))``
with respect to Input, for the same region as the forward operator above (its decisions hold here): with ``a =
Alpha / LocalSize`` and ``B_i = Bias + a * S_i``, ``OutputGradient_k = dy_k * B_k^-Beta - 2 * a * Beta * x_k *
sum(dy_i * x_i * B_i^(-Beta - 1))`` over the elements i whose region holds k. Rules (its page): FLOAT32 or
FLOAT16, exactly 4 dimensions, Input, InputGradient and OutputGradient the same DataType and Sizes; LocalSize at
least 1. Its page says LocalSize is "the width and height of the local region" with CrossChannel TRUE and "the
number of elements" with FALSE, the reverse of the forward page's meaning; dmlsim keeps the forward page's (and
ONNX's) meaning, so the gradient is the forward operator's. Its sums are plain float32 (no scaling: squares above
FLT_MAX overflow, unlike the forward kernel); the reference is checked against finite differences of the forward
reference (tests/test_normalization2.py).

None of the family runs in place (the generated schema makes no input eligible). ONNX's LRN, LpNormalization and
GroupNormalization are lowered onto LOCAL_RESPONSE_NORMALIZATION, LP_NORMALIZATION and
MEAN_VARIANCE_NORMALIZATION1 in dmlsim/onnx/ops_norm2.py (tests/test_normalization2_onnx.py).

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
from collections.abc import Sequence
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import (
    DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC,
    DML_BATCH_NORMALIZATION_OPERATOR_DESC,
    DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC,
    DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC,
    DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC,
    DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC,
    DML_LP_NORMALIZATION_OPERATOR_DESC,
    DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC,
    DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC,
    DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC,
)
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout
from dmlsim.operators.activation.fused import apply_fused, fused_defines
from dmlsim.operators.base import Operator, ValidatedDesc, Work, elementwise_work, register, require_same
from dmlsim.operators.float_rules import require_float_tensors, storage_defines
from dmlsim.operators.normalization.reference import (
    batch_normalization,
    batch_normalization_grad,
    batch_normalization_training,
    local_response_normalization,
    local_response_normalization_grad,
    lp_normalization,
    mean_variance_normalization,
)
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, NullBuffer, Scalar, TensorArg
from dmlsim.operators.typed import check_axes, ulong8

X, MEAN, VAR, SCALE, BIAS, OUT = ("InputTensor", "MeanTensor", "VarianceTensor", "ScaleTensor", "BiasTensor",
                                  "OutputTensor")
FUSED_ADD, OUT_MEAN, OUT_VAR = "FusedAddTensor", "OutputMeanTensor", "OutputVarianceTensor"
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


def run_stride(strides: Sequence[int] | None, red_sizes: Sequence[int]) -> int | None:
    """The stride between consecutive elements of a group when a tensor's reduced elements lie on one line (element
    r at the group's first plus r times it: each reduced axis's stride is the next reduced axis's times that
    axis's size, size-1 axes aside; a broadcast tensor's 0 too), else None. ``strides`` None: no tensor (0)."""
    if strides is None:
        return 0
    axes = [d for d, n in enumerate(red_sizes) if n > 1]
    if not axes:
        return 0
    step = int(strides[axes[-1]])
    span = step
    for d in reversed(axes):
        if int(strides[d]) != span:
            return None
        span *= int(red_sizes[d])
    return step


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
        for param, name in (("x", X), ("s", SCALE), ("b", BIAS), ("a", FUSED_ADD)):
            args += tensor_args(param, name, bound)
        args += [TensorArg("y", OUT, scalar=True), ulong8("y_strides", bound[OUT].layout.strides)]
        for param, name in (("m", OUT_MEAN), ("v", OUT_VAR)):  # BATCH_NORMALIZATION_TRAINING's statistics
            args += tensor_args(param, name, bound)
        runs = [run_stride(broadcast_strides(bound[name].layout) if bound.get(name) is not None else None, red_sizes)
                for name in (X, SCALE, BIAS, FUSED_ADD, OUT)]
        single_run = all(r is not None for r, name in zip(runs, (X, SCALE, BIAS, FUSED_ADD, OUT), strict=True)
                         if bound.get(name) is not None)
        args += [ulong8("group_sizes", group_sizes, fill=1), ulong8("red_sizes", red_sizes, fill=1),
                 ulong8("runs", [*(r or 0 for r in runs), 0, 0, 0]),  # s0..s4: x, Scale, Bias, addend, output
                 Scalar("epsilon", np.float32(v.attrs["Epsilon"])), Scalar("n_groups", np.uint32(n_groups)),
                 Scalar("n_red", np.uint32(math.prod(red_sizes)))]
        defines = {**storage_defines(x), "RUN": single_run, "NORMALIZE_VARIANCE": self.use_variance(v),
                   "NO_MEAN": not self.use_mean(v), "HAS_FUSED_ADD": bound.get(FUSED_ADD) is not None,
                   "WRITE_STATISTICS": bound.get(OUT_MEAN) is not None,
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


class InputOutput(Operator):
    """LP_NORMALIZATION and LOCAL_RESPONSE_NORMALIZATION: one input and one output, FLOAT32 or FLOAT16, of one
    DataType, DimensionCount and Sizes."""

    dimensions: range = DIMENSIONS

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        if not require_float_tensors(v, problems, (X, OUT), self.dimensions):
            return
        require_same(v, problems, X, (OUT,), ("DataType", "DimensionCount", "Sizes"))


@register
class LpNormalization(InputOutput):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_LP_NORMALIZATION
    desc_cls = DML_LP_NORMALIZATION_OPERATOR_DESC

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        super().check(v, problems)
        p = int(v.attrs["P"])
        if p not in (1, 2):
            problems.add(f"{v.struct_name}.P {p} must be 1 or 2 (the order of the normalization)")
        layout = v.tensors.get(X)
        axis = int(v.attrs["Axis"])
        if isinstance(layout, TensorLayout) and axis >= len(layout.sizes):
            problems.add(f"{v.struct_name}.Axis {axis} must be less than InputTensor.DimensionCount "
                         f"{len(layout.sizes)}")

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {OUT: lp_normalization(inputs[X], int(v.attrs["Axis"]), int(v.attrs["P"]), v.attrs["Epsilon"])}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        x = v.layout(X)
        axis = int(v.attrs["Axis"])
        red_sizes = [s if d == axis else 1 for d, s in enumerate(x.sizes)]
        group_sizes = [1 if d == axis else s for d, s in enumerate(x.sizes)]
        n_groups = math.prod(group_sizes)
        args = [TensorArg("x", X, scalar=True), ulong8("x_strides", bound[X].layout.strides),
                TensorArg("y", OUT, scalar=True), ulong8("y_strides", bound[OUT].layout.strides),
                ulong8("group_sizes", group_sizes, fill=1), ulong8("red_sizes", red_sizes, fill=1),
                Scalar("epsilon", np.float32(v.attrs["Epsilon"])), Scalar("n_groups", np.uint32(n_groups)),
                Scalar("n_red", np.uint32(x.sizes[axis]))]
        defines = {**storage_defines(x), "LP_P": int(v.attrs["P"])}
        return [KernelLaunch(self.kernel_source, "lp_normalization", defines, Items(n_groups), args)]


@register
class LocalResponseNormalization(InputOutput):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION
    desc_cls = DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC
    dimensions = range(4, 5)

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        super().check(v, problems)
        self.check_local_size(v, problems)

    def check_local_size(self, v: ValidatedDesc, problems: Problems) -> None:
        """The page's one attribute rule (forward and gradient alike)."""
        if int(v.attrs["LocalSize"]) < 1:
            problems.add(f"{v.struct_name}.LocalSize {v.attrs['LocalSize']} must be at least 1")

    def region_args(self, v: ValidatedDesc) -> list[Any]:
        """The region's extents and the formula's constants (Alpha already divided by LocalSize), for the forward
        and the gradient kernels alike."""
        size = int(v.attrs["LocalSize"])
        alpha_n = np.float32(np.float32(v.attrs["Alpha"]) / np.float32(size))
        return [Scalar("before", np.uint32((size - 1) // 2)), Scalar("after", np.uint32(size // 2)),
                Scalar("alpha_n", alpha_n), Scalar("beta", np.float32(v.attrs["Beta"])),
                Scalar("bias", np.float32(v.attrs["Bias"]))]

    def region_defines(self, v: ValidatedDesc, layout: TensorLayout) -> dict[str, Any]:
        return {**storage_defines(layout), "CROSS_CHANNEL": bool(v.attrs["CrossChannel"])}

    def taps(self, v: ValidatedDesc) -> int:
        """The region's largest element count: LocalSize clipped to C, or to H times to W."""
        sizes, size = v.layout(X).sizes, int(v.attrs["LocalSize"])
        if v.attrs["CrossChannel"]:
            return min(size, sizes[1])
        return min(size, sizes[2]) * min(size, sizes[3])

    def work(self, v: ValidatedDesc) -> Work:
        """Each output element reads its region twice; the reference makes a few numpy calls per window
        offset (LocalSize clipped to the dimension, per summed dimension) over the whole tensor."""
        sizes, size = v.layout(X).sizes, int(v.attrs["LocalSize"])
        dims = (1,) if v.attrs["CrossChannel"] else (2, 3)
        steps = sum(min(size, sizes[d]) for d in dims)
        return elementwise_work(v) + Work(8 * self.taps(v) * v.layout(OUT).element_count, 0, 4 * steps)

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {OUT: local_response_normalization(inputs[X], bool(v.attrs["CrossChannel"]), int(v.attrs["LocalSize"]),
                                                  v.attrs["Alpha"], v.attrs["Beta"], v.attrs["Bias"])}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        out = v.layout(OUT)
        args = [TensorArg("x", X, scalar=True), ulong8("x_strides", bound[X].layout.strides),
                TensorArg("y", OUT, scalar=True), ulong8("y_strides", bound[OUT].layout.strides),
                ulong8("y_sizes", out.sizes, fill=1), *self.region_args(v),
                Scalar("count", np.uint32(out.element_count))]
        return [KernelLaunch(self.kernel_source, "local_response_normalization", self.region_defines(v, out),
                             Items(out.element_count), args)]


@register
class BatchNormalizationTraining(MeanVariance):
    """BATCH_NORMALIZATION_TRAINING (feature level 4_1): MEAN_VARIANCE_NORMALIZATION1 over the dimensions where
    ScaleTensor's size is 1, plus FusedAdd, writing the Mean and Variance it used."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_BATCH_NORMALIZATION_TRAINING
    desc_cls = DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC
    parameters = (SCALE, BIAS)

    def axes(self, v: ValidatedDesc) -> list[int]:
        return [d for d, size in enumerate(v.layout(SCALE).sizes) if size == 1]

    def use_variance(self, v: ValidatedDesc) -> bool:
        return True

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        names = (X, SCALE, BIAS, FUSED_ADD, OUT, OUT_MEAN, OUT_VAR)
        if not require_float_tensors(v, problems, names, self.dimensions):
            return
        require_same(v, problems, X, names[1:], ("DataType", "DimensionCount"))
        require_same(v, problems, SCALE, (BIAS, OUT_MEAN, OUT_VAR), ("Sizes",))
        require_same(v, problems, X, (FUSED_ADD, OUT), ("Sizes",))
        if problems:
            return
        check_broadcast(v, problems, (SCALE,))

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        out, mean, variance = batch_normalization_training(inputs[X], inputs[SCALE], inputs[BIAS],
                                                           inputs.get(FUSED_ADD), v.attrs["Epsilon"])
        return {OUT: apply_fused(out, v.attrs.get("FusedActivation")), OUT_MEAN: mean, OUT_VAR: variance}


DY, DX, DSCALE, DBIAS = "InputGradientTensor", "OutputGradientTensor", "OutputScaleGradientTensor", \
    "OutputBiasGradientTensor"


class BatchNormalizationGradients(Operator):
    """BATCH_NORMALIZATION_GRAD (3_1) and BATCH_NORMALIZATION_TRAINING_GRAD (4_1): one kernel, sums over the
    dimensions where Mean's size is 1."""

    training = False

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        names = (X, DY, MEAN, VAR, SCALE, DX, DSCALE, DBIAS)
        if not require_float_tensors(v, problems, names, DIMENSIONS):
            return
        require_same(v, problems, X, names[1:], ("DataType", "DimensionCount"))
        require_same(v, problems, MEAN, (VAR, SCALE, DSCALE, DBIAS), ("Sizes",))
        require_same(v, problems, X, (DY, DX), ("Sizes",))
        if problems:
            return
        check_broadcast(v, problems, (MEAN,))

    def epsilon(self, v: ValidatedDesc) -> float:
        """Epsilon (BATCH_NORMALIZATION_GRAD's schema marks it optional: absent is 0)."""
        value = v.attrs.get("Epsilon")
        return 0.0 if value is None else float(value)

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        dx, ds, db = batch_normalization_grad(inputs[X], inputs[DY], inputs[MEAN], inputs[VAR], inputs[SCALE],
                                              self.epsilon(v), self.training)
        return {DX: dx, DSCALE: ds, DBIAS: db}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        x = v.layout(X)
        mean_sizes = v.layout(MEAN).sizes
        red_sizes = [s if m == 1 else 1 for s, m in zip(x.sizes, mean_sizes, strict=True)]
        group_sizes = [1 if m == 1 else s for s, m in zip(x.sizes, mean_sizes, strict=True)]
        n_groups = math.prod(group_sizes)
        args: list[Any] = []
        for param, name in (("x", X), ("dy", DY), ("m", MEAN), ("v", VAR), ("s", SCALE), ("dx", DX), ("ds", DSCALE),
                            ("db", DBIAS)):
            args += tensor_args(param, name, bound)
        args += [ulong8("group_sizes", group_sizes, fill=1), ulong8("red_sizes", red_sizes, fill=1),
                 Scalar("epsilon", np.float32(self.epsilon(v))), Scalar("n_groups", np.uint32(n_groups)),
                 Scalar("n_red", np.uint32(math.prod(red_sizes)))]
        defines = {**storage_defines(x), "TRAINING": self.training}
        return [KernelLaunch(self.kernel_source, "batch_normalization_grad", defines, Items(n_groups), args)]


@register
class BatchNormalizationGrad(BatchNormalizationGradients):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_BATCH_NORMALIZATION_GRAD
    desc_cls = DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC


@register
class BatchNormalizationTrainingGrad(BatchNormalizationGradients):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_BATCH_NORMALIZATION_TRAINING_GRAD
    desc_cls = DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC
    training = True


@register
class LocalResponseNormalizationGrad(LocalResponseNormalization):
    """LOCAL_RESPONSE_NORMALIZATION_GRAD (3_1): the gradient of the forward operator above, same region."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION_GRAD
    desc_cls = DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        if not require_float_tensors(v, problems, (X, DY, DX), self.dimensions):
            return
        require_same(v, problems, X, (DY, DX), ("DataType", "Sizes"))
        self.check_local_size(v, problems)

    def work(self, v: ValidatedDesc) -> Work:
        """Each element visits the regions of the elements whose region holds it (taps squared); the reference
        makes a few numpy calls per window offset, twice."""
        sizes, size = v.layout(X).sizes, int(v.attrs["LocalSize"])
        dims = (1,) if v.attrs["CrossChannel"] else (2, 3)
        steps = sum(min(size, sizes[d]) for d in dims)
        return elementwise_work(v) + Work(8 * self.taps(v) ** 2 * v.layout(DX).element_count, 0, 8 * steps)

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {DX: local_response_normalization_grad(inputs[X], inputs[DY], bool(v.attrs["CrossChannel"]),
                                                      int(v.attrs["LocalSize"]), v.attrs["Alpha"], v.attrs["Beta"],
                                                      v.attrs["Bias"])}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        out = v.layout(DX)
        args = [TensorArg("x", X, scalar=True), ulong8("x_strides", bound[X].layout.strides),
                TensorArg("dy", DY, scalar=True), ulong8("dy_strides", bound[DY].layout.strides),
                TensorArg("y", DX, scalar=True), ulong8("y_strides", bound[DX].layout.strides),
                ulong8("y_sizes", out.sizes, fill=1), *self.region_args(v),
                Scalar("count", np.uint32(out.element_count))]
        return [KernelLaunch(self.kernel_source, "local_response_normalization_grad", self.region_defines(v, out),
                             Items(out.element_count), args)]
