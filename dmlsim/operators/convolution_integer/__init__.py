"""DML_OPERATOR_CONVOLUTION_INTEGER and DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION (DML_FEATURE_LEVEL_2_1, 3-D
tensors from 4_0): forward 1-D and 2-D convolution of 8-bit integers, to INT32 sums or requantized to 8 bits.

The descs are DirectML's generated ones; the formulas are in :mod:`.reference`:
CONVOLUTION_INTEGER ``Output = sum((Input - InputZeroPoint) * (Filter - FilterZeroPoint))`` over each output
element's window; QUANTIZED_LINEAR_CONVOLUTION "mathematically equivalent to dequantizing the inputs,
convolving, and then quantizing the output", with an optional INT32 bias.

- Tensors (the newest tables: CONVOLUTION_INTEGER 4_0, QUANTIZED_LINEAR_CONVOLUTION 5_2): InputTensor
  ``{N, C, [H], W}``, FilterTensor ``{OutputChannelCount, C / GroupCount, [H], W}`` and OutputTensor ``{N,
  OutputChannelCount, [H], W}`` INT8 or UINT8 (each its own; CONVOLUTION_INTEGER's output INT32), of one
  DimensionCount, 3 or 4 (QUANTIZED_LINEAR_CONVOLUTION's BiasTensor too, INT32 ``{1, OutputChannelCount, 1...}``);
  ``DimensionCount`` (the attribute) is their DimensionCount - 2 (the pages' "only 2" predates the 3-D
  tensors of 4_0: 1 or 2 spatial dimensions). Zero points 1 to 4 dimensions, each of its tensor's DataType
  (the output's for OutputZeroPointTensor); scales FLOAT32, 1 to 4 dimensions. CONVOLUTION_INTEGER's two zero
  points, when both are given, have one DimensionCount (its page).
- Per tensor and per channel (dmlsim's reading of the pages' ``{1, 1, 1, 1}`` and ``{[1], ChannelCount, [1],
  [1]}``): InputZeroPoint, InputScale, OutputScale and OutputZeroPoint hold one value (every size 1);
  FilterZeroPoint and FilterScale hold one value or OutputChannelCount, every size 1 but dimension 1 (the
  channel's; dimension 0 of a 1-D tensor). A null zero point is 0.
- Rules, as CONVOLUTION's: Strides and Dilations at least 1, GroupCount at least 1 dividing the input and output
  channels, FilterTensor.Sizes[1] * GroupCount = InputChannelCount, the batch equal, the dilated filter within
  the padded input, and the output's spatial sizes exactly ``(in + StartPadding + EndPadding - (kernel - 1) *
  dilation - 1) / stride + 1``.
- Arithmetic (the pages are silent; dmlsim's decisions): the shifted products are exact and summed modulo 2^32,
  stored as two's-complement INT32 (as MATRIX_MULTIPLY_INTEGER, and ONNX's ConvInteger); a tap over padding
  adds nothing (the padding holds the zero point, as in onnxruntime's ConvInteger and QLinearConv).
  QUANTIZED_LINEAR_CONVOLUTION adds the bias to the INT32 sum (ONNX's QLinearConv bias has scale InputScale *
  FilterScale and zero point 0), then computes in float32, each step rounded once, ``rint(((float)S *
  (InputScale * FilterScale[oc])) / OutputScale) + OutputZeroPoint`` saturated to the output type (NaN gives 0),
  the division correctly rounded as QUANTIZE_LINEAR's (dmlsim/cl_kernels/quantize.h): integer outputs are equal
  on every device and the reference. A scale of 0 is undefined behavior on the page: a debug device refuses it.
- Any DML strides on every tensor, tensors at any offset; no in-place execution (the schema).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import (
    DML_CONVOLUTION_INTEGER_OPERATOR_DESC,
    DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC,
)
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout
from dmlsim.operators.base import Operator, ValidatedDesc, Work, elementwise_work, register, require_same
from dmlsim.operators.convolution.reference import ConvolutionGeometry, output_spatial_sizes
from dmlsim.operators.convolution_integer.reference import convolution_integer, quantized_linear_convolution
from dmlsim.operators.plan import Argument, Items, KernelLaunch, LaunchTarget, NullBuffer, Scalar, TensorArg, Vector
from dmlsim.operators.typed import CL_TYPE, FLOAT32, INT8, INT32, UINT8, require_type

X, X_ZP, X_SCALE = "InputTensor", "InputZeroPointTensor", "InputScaleTensor"
F, F_ZP, F_SCALE = "FilterTensor", "FilterZeroPointTensor", "FilterScaleTensor"
BIAS, OUT, OUT_SCALE, OUT_ZP = "BiasTensor", "OutputTensor", "OutputScaleTensor", "OutputZeroPointTensor"
QUANTIZED = (INT8, UINT8)
LIMITS = {INT8: (-128, 127), UINT8: (0, 255)}
TENSOR_RANKS = range(3, 5)
SMALL_RANKS = range(1, 5)


def geometry_of(v: ValidatedDesc) -> ConvolutionGeometry:
    a = v.attrs
    spatial = len(a["Strides"])
    return ConvolutionGeometry(False, False, tuple(a["Strides"]), tuple(a["Dilations"]), tuple(a["StartPadding"]),
                               tuple(a["EndPadding"]), (0,) * spatial, a["GroupCount"])


def as_4d(values: tuple[int, ...], fill: int) -> tuple[int, ...]:
    """{N, C, [H], W} padded to {N, C, H, W}: a missing H is inserted before W."""
    return (*values[:2], *(fill,) * (4 - len(values)), *values[2:])


def spatial_2(values: tuple[int, ...], fill: int) -> tuple[int, ...]:
    """A per-spatial-dimension array as the ulong4 (_, _, H, W) the kernel reads."""
    return (0, 0, *(fill,) * (2 - len(values)), *values)


def channel_axis(rank: int) -> int:
    """The dimension of a per-channel zero point or scale that holds the channel count (module docstring)."""
    return 1 if rank >= 2 else 0


class ConvolutionIntegerBase(Operator):
    """The rules and launch CONVOLUTION_INTEGER and QUANTIZED_LINEAR_CONVOLUTION share."""

    qlinear: bool
    per_tensor: tuple[str, ...]  # one value each
    per_channel: tuple[str, ...]  # one value or OutputChannelCount
    types: tuple[tuple[str, tuple[int, ...]], ...]
    same_type: tuple[tuple[str, str], ...]  # (zero point, its tensor)
    scales: tuple[str, ...] = ()

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        where = v.struct_name
        main = (X, F, OUT, BIAS) if self.qlinear else (X, F, OUT)
        ranks_ok = True
        for name in main + self.per_tensor + self.per_channel:
            layout = v.tensors.get(name)
            ranks = TENSOR_RANKS if name in main else SMALL_RANKS
            if isinstance(layout, TensorLayout) and len(layout.sizes) not in ranks:
                problems.add(f"{where}.{name}.DimensionCount {len(layout.sizes)} is not supported by {self.name} "
                             f"(supported: {ranks.start} to {ranks.stop - 1})")
                ranks_ok = False
        for name, allowed in self.types:
            require_type(v, problems, name, allowed, f"by {self.name}")
        for zero_point, tensor in self.same_type:
            require_same(v, problems, tensor, (zero_point,), ("DataType",))
        require_same(v, problems, X, [m for m in main if m != X], ("DimensionCount",))
        if not self.qlinear:
            require_same(v, problems, X_ZP, (F_ZP,), ("DimensionCount",))
        if problems or not ranks_ok:
            return
        rank = len(v.layout(X).sizes)
        if v.attrs["DimensionCount"] != rank - 2:
            problems.add(f"{where}.DimensionCount {v.attrs['DimensionCount']} must be InputTensor.DimensionCount - 2 "
                         f"= {rank - 2} (the number of spatial dimensions)")
            return
        for name in ("Strides", "Dilations"):
            for i, value in enumerate(v.attrs[name]):
                if value == 0:
                    problems.add(f"{where}.{name}[{i}] must be at least 1, got 0")
        if v.attrs["GroupCount"] == 0:
            problems.add(f"{where}.GroupCount must be at least 1, got 0")
        if problems:
            return
        self._check_shapes(v, problems)

    def _check_shapes(self, v: ValidatedDesc, problems: Problems) -> None:
        where, groups = v.struct_name, v.attrs["GroupCount"]
        x, f, out = v.layout(X).sizes, v.layout(F).sizes, v.layout(OUT).sizes
        if out[0] != x[0]:
            problems.add(f"{where}.OutputTensor.Sizes[0] {out[0]} must equal InputTensor.Sizes[0] {x[0]} (BatchCount)")
        if x[1] % groups:
            problems.add(f"{where}.InputTensor.Sizes[1] {x[1]} (InputChannelCount) must be a multiple of GroupCount "
                         f"{groups}")
        if f[1] * groups != x[1]:
            problems.add(f"{where}.FilterTensor.Sizes[1] {f[1]} * GroupCount {groups} must equal InputTensor.Sizes[1] "
                         f"{x[1]} (InputChannelCount; filters are {{OutputChannelCount, InputChannelCount / "
                         "GroupCount, ...})")
        if f[0] % groups:
            problems.add(f"{where}.FilterTensor.Sizes[0] {f[0]} (OutputChannelCount) must be a multiple of GroupCount "
                         f"{groups}")
        if out[1] != f[0]:
            problems.add(f"{where}.OutputTensor.Sizes[1] {out[1]} must equal FilterTensor.Sizes[0] {f[0]} "
                         "(OutputChannelCount)")
        for name in self.per_tensor:
            layout = v.tensors.get(name)
            if isinstance(layout, TensorLayout) and any(s != 1 for s in layout.sizes):
                problems.add(f"{where}.{name}.Sizes {list(layout.sizes)} must all be 1 (one value: per tensor)")
        for name in self.per_channel:
            layout = v.tensors.get(name)
            if isinstance(layout, TensorLayout):
                axis = channel_axis(len(layout.sizes))
                others = all(s == 1 for i, s in enumerate(layout.sizes) if i != axis)
                if not others or layout.sizes[axis] not in (1, f[0]):
                    problems.add(f"{where}.{name}.Sizes {list(layout.sizes)} must be every size 1 except dimension "
                                 f"{axis}, which is 1 (per tensor) or {f[0]} (OutputChannelCount: per channel)")
        bias = v.tensors.get(BIAS)
        if isinstance(bias, TensorLayout):
            expected = (1, out[1], *(1,) * (len(out) - 2))
            if bias.sizes != expected:
                problems.add(f"{where}.BiasTensor.Sizes {list(bias.sizes)} must be {list(expected)} "
                             "({1, OutputChannelCount, 1...})")
        geometry = geometry_of(v)
        for i, (size, k) in enumerate(zip(x[2:], f[2:], strict=True)):
            extent = (k - 1) * geometry.dilations[i] + 1
            padded = size + geometry.start_padding[i] + geometry.end_padding[i]
            if extent > padded:
                problems.add(f"{where}.FilterTensor.Sizes[{i + 2}] {k} with Dilations[{i}] {geometry.dilations[i]} "
                             f"spans {extent} elements, more than InputTensor.Sizes[{i + 2}] {size} plus StartPadding"
                             f"[{i}] and EndPadding[{i}] ({padded})")
                return
        expected_spatial = output_spatial_sizes(geometry, x[2:], f[2:])
        if tuple(out[2:]) != expected_spatial:
            problems.add(f"{where}.OutputTensor.Sizes {list(out)}: the spatial sizes must be "
                         f"{list(expected_spatial)} ((in + StartPadding + EndPadding - (kernel - 1) * dilation - 1) "
                         "/ stride + 1)")

    def debug_check(self, v: ValidatedDesc, read: Any, problems: Problems) -> None:
        """A scale of 0 is undefined behavior on QUANTIZED_LINEAR_CONVOLUTION's page: a debug device refuses it."""
        for name in self.scales:
            zeros = int(np.count_nonzero(np.asarray(read(name)) == 0))
            if zeros:
                problems.add(f"{v.struct_name}.{name} holds 0 at {zeros} element(s): a scale of 0 is undefined "
                             "behavior")

    def work(self, v: ValidatedDesc) -> Work:
        """Multiply-adds (two subtractions, a product and a sum each): each output element over its group's input
        channels and the filter's taps; the reference makes one numpy call per tap and group."""
        f, out = v.layout(F), v.layout(OUT)
        taps = math.prod(f.sizes[2:])
        macs = taps * out.element_count * f.sizes[1]
        return elementwise_work(v) + Work(4 * macs, 0, 20 * taps * v.attrs["GroupCount"])

    def read(self, v: ValidatedDesc, inputs: dict[str, Any], name: str) -> Any:
        """An input array, or None for a null optional tensor."""
        return inputs.get(name) if v.tensors.get(name) is not None else None

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        geometry = geometry_of(v)
        out = v.layout(OUT)

        def tensor4(param: str, name: str) -> list[Argument]:
            layout = bound[name].layout
            return [TensorArg(param, name, scalar=True), Vector(f"{param}_strides", as_4d(layout.strides, 0)),
                    Vector(f"{param}_sizes", as_4d(layout.sizes, 1))]

        def one(param: str, name: str) -> list[Argument]:
            if bound.get(name) is None:
                return [NullBuffer(f"{param}__base"), Scalar(f"{param}__offset", np.uint64(0))]
            return [TensorArg(param, name, scalar=True)]

        def per_channel(param: str, name: str) -> list[Argument]:
            tensor = bound.get(name)
            if tensor is None:
                return [*one(param, name), Scalar(f"{param}_step", np.uint64(0))]
            layout = tensor.layout
            axis = channel_axis(len(layout.sizes))
            step = layout.strides[axis] if layout.sizes[axis] > 1 else 0
            return [*one(param, name), Scalar(f"{param}_step", np.uint64(step))]

        args = [*tensor4("x", X), *one("xz", X_ZP), *tensor4("f", F), *per_channel("fz", F_ZP)]
        if self.qlinear:
            args += [*one("xs", X_SCALE), *per_channel("fs", F_SCALE), *per_channel("bias", BIAS),
                     *one("ys", OUT_SCALE), *one("yz", OUT_ZP)]
        args += [*tensor4("y", OUT), Vector("strides", spatial_2(geometry.strides, 1)),
                 Vector("dilations", spatial_2(geometry.dilations, 1)),
                 Vector("start_padding", spatial_2(geometry.start_padding, 0)),
                 Scalar("groups", np.uint32(geometry.groups)), Scalar("count", np.uint32(out.element_count))]
        defines = {"X_T": CL_TYPE[v.layout(X).data_type], "F_T": CL_TYPE[v.layout(F).data_type],
                   "HAS_XZ": bound.get(X_ZP) is not None, "HAS_FZ": bound.get(F_ZP) is not None}
        if self.qlinear:
            defines |= {"QLINEAR": True, "Y_T": CL_TYPE[out.data_type], "HAS_BIAS": bound.get(BIAS) is not None,
                        "HAS_YZ": bound.get(OUT_ZP) is not None}
        return [KernelLaunch(self.kernel_source, "convolution_integer", defines, Items(out.element_count), args)]


@register
class ConvolutionInteger(ConvolutionIntegerBase):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_CONVOLUTION_INTEGER
    desc_cls = DML_CONVOLUTION_INTEGER_OPERATOR_DESC
    qlinear = False
    per_tensor = (X_ZP,)
    per_channel = (F_ZP,)
    types = ((X, QUANTIZED), (F, QUANTIZED), (X_ZP, QUANTIZED), (F_ZP, QUANTIZED), (OUT, (INT32,)))
    same_type = ((X_ZP, X), (F_ZP, F))

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {OUT: convolution_integer(inputs[X], self.read(v, inputs, X_ZP), inputs[F], self.read(v, inputs, F_ZP),
                                         geometry_of(v), v.layout(OUT).sizes[2:])}


@register
class QuantizedLinearConvolution(ConvolutionIntegerBase):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION
    desc_cls = DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC
    qlinear = True
    per_tensor = (X_SCALE, X_ZP, OUT_SCALE, OUT_ZP)
    per_channel = (F_SCALE, F_ZP)
    types = ((X, QUANTIZED), (F, QUANTIZED), (X_ZP, QUANTIZED), (F_ZP, QUANTIZED), (OUT, QUANTIZED),
             (OUT_ZP, QUANTIZED), (X_SCALE, (FLOAT32,)), (F_SCALE, (FLOAT32,)), (OUT_SCALE, (FLOAT32,)),
             (BIAS, (INT32,)))
    same_type = ((X_ZP, X), (F_ZP, F), (OUT_ZP, OUT))
    scales = (X_SCALE, F_SCALE, OUT_SCALE)

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        def get(name: str) -> Any:
            return self.read(v, inputs, name)
        return {OUT: quantized_linear_convolution(inputs[X], inputs[X_SCALE], get(X_ZP), inputs[F], inputs[F_SCALE],
                                                  get(F_ZP), get(BIAS), inputs[OUT_SCALE], get(OUT_ZP),
                                                  geometry_of(v), v.layout(OUT).sizes[2:],
                                                  LIMITS[v.layout(OUT).data_type])}
