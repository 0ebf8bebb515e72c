"""DML_OPERATOR_CONVOLUTION (DML_FEATURE_LEVEL_1_0; 1-D spatial from 4_0): desc, rules, reference, launch.

The desc is DirectML's generated one. Input, filter, bias and output are ``{N, C, [D], [H], W}`` FLOAT32/FLOAT16
tensors of 3 to 5 dimensions (``DimensionCount`` = spatial dimensions = their DimensionCount - 2); forward and
backward (transposed) direction, CROSS_CORRELATION and CONVOLUTION (flipped filter) modes, strides, dilations,
start/end/output padding and groups, optional bias; any DML strides on every tensor. The semantics are in
:mod:`.reference`.

Output sizes: FORWARD's spatial sizes must be exactly the size formula's; BACKWARD's at least the formula's
(OutputPadding included), since DirectML's users size a transposed convolution's output themselves and zero
OutputPadding (onnxruntime's provider for ONNX's ``output_padding``/``output_shape``, Chromium's WebNN and
TensorFlow-DirectML for their explicit output sizes): every position before the OutputPadding gets the transposed
sum; the OutputPadding positions get zeros (the doc), in either direction.

The planner (:meth:`Convolution.plan_launches`):

- CPU devices, a FORWARD convolution of one group without OutputPadding, whose filter's {Cin, taps} and output's
  positions are each one strided run and whose GEMM (M = output channels, N = output positions, K = input channels x
  taps) GEMM's packed path would take (:func:`dmlsim.operators.gemm.packs`, panels of at most ``PACK_MAX_BYTES``):
  GEMM's packed path (:func:`packed_shape`). ``gemm_pack`` copies the filter once into 8-row A panels (shared by
  every image of the batch: ``A_SHARED``); ``im2col_pack`` unfolds each image straight into 32-column B panels
  (im2col's columns, float32, zeros over the padding; no separate workspace, no second pass over it), or for a
  pointwise layer (1 x 1, unit strides, no padding, the input's positions one run) ``gemm_pack`` copies the input
  itself into them, as GEMM's B (10.5 -> 2.7 ms for ResNet-50's 256 -> 64 layer at batch 8 on PoCL); ``gemm_packed``
  writes the output through its strides, the bias added as C. Where a window can read padding, ``nonfinite_panels``
  scans the packed filter for an infinite or NaN weight into a flag and a last ``convolution_rows`` launch recomputes
  the outputs when it is set (the padding decision below). The sum over {Cin, taps} is accumulated in float32 in
  that order.
- Every device, a 1 x 1 FORWARD convolution (every filter spatial size 1, Strides 1, no padding of any kind,
  GroupCount 1) whose input's and output's spatial positions are each one evenly strided run (packed NCHW, NHWC,
  ...): one GEMM over views of its own tensors, no copy (:func:`pointwise_gemm`: GEMM's planner, ``gemm_blocked`` on
  CPU devices), the bias added as GEMM's C, its sum over the input channels in channel order.
- GPU devices, another FORWARD convolution of one group without OutputPadding whose filter's {Cin, taps} and
  output's positions are each one strided run and whose workspace (batch x Cin·taps x output positions elements,
  plus one) fits ``IM2COL_WORKSPACE_BYTES`` (64 MiB): im2col + GEMM. ``im2col`` unfolds the input into the temporary
  resource (0 where a window reads padding), GEMM multiplies the filter by it (its sum in the order channel, tap).
  The padding decision (reference.py: a tap over the padding adds nothing, not 0 x W) would break where a filter
  weight is infinite or NaN (GEMM multiplies it by the padding's zeros): a one-work-item ``nonfinite`` launch scans
  the filter into a flag after the workspace, and a last launch of the direct kernel recomputes every output when
  it is set (each work-item returns at once otherwise).
- CPU devices, every other FORWARD convolution without OutputPadding (groups and depthwise, one-group ones too small
  to pack: unfolding cost a ResNet-style model's 8-channel 3 x 3 layers 0.5-0.7 ms in im2col alone, the row kernel 0.2
  ms): ``convolution_rows``, one work-item per output row of up to ``ROW_CHANNELS`` (8) output channels of one group
  (each input read serves them all), 16, 8 or 4 outputs along W at a time (:func:`row_outputs`), the row's taps and
  pointers found once, inputs read without bounds checks where they all lie inside the row (as one contiguous run
  where the stride and the input's W stride are 1: ``UNIT_W``, vector loads for the compiler), a lane over the padding
  adding -0.0f (nothing) in place of its product; its sums are the direct kernel's, term for term. Where ``UNIT_W``
  holds and the filter's width KW and W dilation DW are build constants (``ROW_TAPS``: the span of outputs + (KW - 1)
  x DW inputs at most ``ROW_SPAN_MAX``), a row's span is read once per input row into private memory (unchecked inside
  the row, else clamped with a per-element mask) and every tap reads its lanes from there (FLOAT32 spans inside the
  row read their taps straight from it instead: a private copy read back as vectors stalls on store-to-load
  forwarding, and MobileNetV2's depthwise layer at batch 8 went 3.2 -> 2.6 ms on PoCL, 4.5 -> 3.1 ms on Intel's):
  checking each tap's lanes at the row's ends had cost the 8-wide rows of the ResNet-style model 2 of their 3 taps (40
  -> 18 us a layer at batch 8 on PoCL 3.1). Where moreover a block is one channel (depthwise) and the H stride 1, a
  work-item runs ``ROW_SETS`` (8) output rows (RH; KH and DH build constants), each input row read once for every
  output row it serves, each output's taps still in kh order. Work-groups shrink for layers of few rows
  (:func:`dmlsim.operators.plan.spread_local`) so that every core gets some. A work-item's RW lanes are explicit
  vectors (float4/8/16 accumulators, masks by ``select``) and the kernel carries ``vec_type_hint`` of that vector:
  Intel's CPU runtime otherwise makes neighbouring work-items (rows) SIMD lanes as well (the ResNet-style model's 3 ->
  8 channel layer at batch 8 took 177 us there), and with the hint it compiles scalar lanes written as arrays as
  scalar code (73-118 us; 43 us as float8 vectors, 31 us as float16, session 19).
- The rest (OutputPadding, BACKWARD, GPU devices' groups): the direct kernel, one work-item per output element
  (``convolution`` in kernel.cl).

The temporary resource is the larger of the packed path's panels (+ the flag) and the im2col workspace (+ the flag),
since its size is fixed from the desc before any device is.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_CONVOLUTION_DIRECTION, DML_CONVOLUTION_MODE, DML_CONVOLUTION_OPERATOR_DESC
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout
from dmlsim.operators.activation.fused import apply_fused, fused_defines
from dmlsim.operators.base import Operator, ValidatedDesc, Work, elementwise_work, register, require_same
from dmlsim.operators.convolution.reference import (
    ConvolutionGeometry,
    computed_spatial_sizes,
    convolution,
    output_spatial_sizes,
)
from dmlsim.operators.float_rules import require_float_tensors, storage_defines
from dmlsim.operators.gemm import (
    PACK_MAX_BYTES,
    PANEL_COLUMNS,
    PANEL_SUB,
    Packing,
    gemm_launches,
    pack_launch,
    packed_multiply,
    packs,
    view_args,
)
from dmlsim.operators.plan import (
    Items,
    KernelLaunch,
    LaunchTarget,
    Scalar,
    TemporaryArg,
    TensorArg,
    Vector,
    spread_local,
)

X, F, BIAS, OUT = "InputTensor", "FilterTensor", "BiasTensor", "OutputTensor"
ARRAYS = ("Strides", "Dilations", "StartPadding", "EndPadding", "OutputPadding")
BACKWARD = DML_CONVOLUTION_DIRECTION.DML_CONVOLUTION_DIRECTION_BACKWARD
FLIPPED = DML_CONVOLUTION_MODE.DML_CONVOLUTION_MODE_CONVOLUTION
# convolution_rows (CPU devices' direct kernel): outputs along W per accumulator set
ROW_OUTPUTS = 8
# convolution_rows: output channels of one group per work-item (each input read serves them all)
ROW_CHANNELS = 8
# convolution_rows' ROW_TAPS build: the most inputs along W (outputs + (KW - 1) x DW) it keeps in private memory
ROW_SPAN_MAX = 40
# convolution_rows: output rows per work-item where a block is one channel (depthwise), the H stride 1 and the build
# has ROW_TAPS: each input row read once serves up to RH output rows (MobileNetV2's depthwise layer at batch 1: 0.69
# ms a row a work-item, 0.52 / 0.42 / 0.38 / 0.44 ms with 2 / 4 / 8 / 16 rows on PoCL 3.1, 0.78 -> 0.34 ms with 8 on
# Intel's runtime; session 19)
ROW_SETS = 8
# reference-device steps (dmlsim.operators.base.Work) of one numpy einsum call of the reference: one per tap and group
EINSUM_STEPS = 20


def geometry_of(v: ValidatedDesc) -> ConvolutionGeometry:
    a = v.attrs
    return ConvolutionGeometry(a["Direction"] == BACKWARD, a["Mode"] == FLIPPED, tuple(a["Strides"]),
                               tuple(a["Dilations"]), tuple(a["StartPadding"]), tuple(a["EndPadding"]),
                               tuple(a["OutputPadding"]), a["GroupCount"])


def as_5d(values: tuple[int, ...], fill: int) -> tuple[int, ...]:
    """{N, C, spatial...} padded to {N, C, D, H, W}: missing spatial dimensions are inserted before the first."""
    return (*values[:2], *(fill,) * (5 - len(values)), *values[2:])


def spatial_3(values: tuple[int, ...], fill: int) -> tuple[int, ...]:
    """A per-spatial-dimension array padded at the front to (D, H, W)."""
    return (fill,) * (3 - len(values)) + tuple(values)


@register
class Convolution(Operator):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_CONVOLUTION
    desc_cls = DML_CONVOLUTION_OPERATOR_DESC

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        # Tensor support (DML_FEATURE_LEVEL_4_0 and above): 3 to 5 dimensions, FLOAT32 or FLOAT16
        if not require_float_tensors(v, problems, (X, F, BIAS, OUT), range(3, 6)):
            return
        # "BiasTensor, FilterTensor, InputTensor, and OutputTensor must have the same DataType and DimensionCount"
        require_same(v, problems, X, (F, BIAS, OUT), ("DataType", "DimensionCount"))
        where = v.struct_name
        rank = len(v.layout(X).sizes)
        if v.attrs["DimensionCount"] != rank - 2:
            problems.add(f"{where}.DimensionCount {v.attrs['DimensionCount']} must be InputTensor.DimensionCount - 2 "
                         f"= {rank - 2} (the number of spatial dimensions)")
        for name in ("Strides", "Dilations"):
            for i, value in enumerate(v.attrs[name]):
                if value == 0:
                    problems.add(f"{where}.{name}[{i}] must be at least 1, got 0")
        if v.attrs["GroupCount"] == 0:
            problems.add(f"{where}.GroupCount must be at least 1, got 0")
        if problems:
            return
        self._check_channels(v, problems)
        self._check_spatial(v, problems)

    @staticmethod
    def _check_channels(v: ValidatedDesc, problems: Problems) -> None:
        where, groups = v.struct_name, v.attrs["GroupCount"]
        x, f, out = v.layout(X).sizes, v.layout(F).sizes, v.layout(OUT).sizes
        if out[0] != x[0]:
            problems.add(f"{where}.OutputTensor.Sizes[0] {out[0]} must equal InputTensor.Sizes[0] {x[0]} (BatchCount)")
        if x[1] % groups:
            problems.add(f"{where}.InputTensor.Sizes[1] {x[1]} (InputChannelCount) must be a multiple of GroupCount "
                         f"{groups}")
        if v.attrs["Direction"] == BACKWARD:
            # filter {InputChannelCount, OutputChannelCount / GroupCount, kernel...}
            if f[0] != x[1]:
                problems.add(f"{where}.FilterTensor.Sizes[0] {f[0]} must equal InputTensor.Sizes[1] {x[1]} "
                             "(InputChannelCount; BACKWARD filters are {InputChannelCount, OutputChannelCount / "
                             "GroupCount, ...})")
            if out[1] != f[1] * groups:
                problems.add(f"{where}.OutputTensor.Sizes[1] {out[1]} must equal FilterTensor.Sizes[1] {f[1]} * "
                             f"GroupCount {groups} = {f[1] * groups} (OutputChannelCount)")
        else:
            # filter {OutputChannelCount, InputChannelCount / GroupCount, kernel...}
            if f[1] * groups != x[1]:
                problems.add(f"{where}.FilterTensor.Sizes[1] {f[1]} * GroupCount {groups} must equal "
                             f"InputTensor.Sizes[1] {x[1]} (InputChannelCount; FORWARD filters are "
                             "{OutputChannelCount, InputChannelCount / GroupCount, ...})")
            if f[0] % groups:
                problems.add(f"{where}.FilterTensor.Sizes[0] {f[0]} (OutputChannelCount) must be a multiple of "
                             f"GroupCount {groups}")
            if out[1] != f[0]:
                problems.add(f"{where}.OutputTensor.Sizes[1] {out[1]} must equal FilterTensor.Sizes[0] {f[0]} "
                             "(OutputChannelCount)")
        bias = v.tensors.get(BIAS)
        if isinstance(bias, TensorLayout):
            expected = (1, out[1], *(1,) * (len(out) - 2))
            if bias.sizes != expected:
                problems.add(f"{where}.BiasTensor.Sizes {list(bias.sizes)} must be {list(expected)} "
                             "({1, OutputChannelCount, 1...})")

    @staticmethod
    def _check_spatial(v: ValidatedDesc, problems: Problems) -> None:
        where, geometry = v.struct_name, geometry_of(v)
        x, f, out = v.layout(X).sizes, v.layout(F).sizes, v.layout(OUT).sizes
        for i, (size, k) in enumerate(zip(x[2:], f[2:], strict=True)):
            extent = (k - 1) * geometry.dilations[i] + 1
            padded = size + geometry.start_padding[i] + geometry.end_padding[i]
            if not geometry.backward and extent > padded:
                problems.add(f"{where}.FilterTensor.Sizes[{i + 2}] {k} with Dilations[{i}] {geometry.dilations[i]} "
                             f"spans {extent} elements, more than InputTensor.Sizes[{i + 2}] {size} plus StartPadding"
                             f"[{i}] and EndPadding[{i}] ({padded})")
            if geometry.backward and geometry.start_padding[i] + geometry.end_padding[i] >= (size - 1) * \
                    geometry.strides[i] + extent:
                problems.add(f"{where}.StartPadding[{i}] + EndPadding[{i}] must be less than the full transposed "
                             f"output size (InputTensor.Sizes[{i + 2}] - 1) * Strides[{i}] + dilated filter size = "
                             f"{(size - 1) * geometry.strides[i] + extent}")
        if problems:
            return
        expected = output_spatial_sizes(geometry, x[2:], f[2:])
        if geometry.backward:
            # at least the formula's size: the positions past it get the transposed sums too (onnxruntime's
            # DirectML provider zeroes OutputPadding and sizes the output for ONNX's output_padding/output_shape)
            if any(o < e for o, e in zip(out[2:], expected, strict=True)):
                problems.add(f"{where}.OutputTensor.Sizes {list(out)}: the spatial sizes must be at least "
                             f"{list(expected)} ((in - 1) * stride + (kernel - 1) * dilation + 1 - StartPadding - "
                             "EndPadding + OutputPadding; a larger output gets the transposed sums before its "
                             "OutputPadding)")
        elif tuple(out[2:]) != expected:
            problems.add(f"{where}.OutputTensor.Sizes {list(out)}: the spatial sizes must be {list(expected)} "
                         "((in + StartPadding + EndPadding - (kernel - 1) * dilation - 1) / stride + 1 + "
                         "OutputPadding)")

    def work(self, v: ValidatedDesc) -> Work:
        """Multiply-adds: each output element over its group's input channels and the filter's taps (what the
        kernel and, FORWARD, the reference compute); BACKWARD, the reference scatters each input element over
        the filter's output channels and taps instead, whichever is more. The reference makes one numpy call per
        tap and group (about ``EINSUM_STEPS`` microseconds each, whatever the channels)."""
        x, f, out = v.layout(X), v.layout(F), v.layout(OUT)
        groups = v.attrs["GroupCount"]
        taps = math.prod(f.sizes[2:])
        macs = taps * out.element_count * (x.sizes[1] // groups)
        if v.attrs["Direction"] == BACKWARD:
            macs = max(macs, taps * x.element_count * f.sizes[1])
        # per multiply-add, measured on 2 cores: FORWARD 2-4 ns on PoCL (the kernel's window walk, not tiled);
        # BACKWARD 4 ns on PoCL, 12 ns on Intel's runtime (each tap's source element found by integer divisions)
        per_mac = 16 if v.attrs["Direction"] == BACKWARD else 4
        return elementwise_work(v) + Work(per_mac * macs, 0, EINSUM_STEPS * taps * groups)

    def temporary_size(self, v: ValidatedDesc) -> int:
        """The larger of what the planner's paths use, decided from the desc alone (the size is known before any
        device is): the packed panels and a flag (:func:`packed_shape`, CPU devices), the im2col workspace and a
        flag (:func:`im2col_shape`, other devices); none when neither path is taken."""
        size = v.layout(OUT).element_size
        unfolded, packed = im2col_shape(v), packed_shape(v)
        workspace = 0 if unfolded is None else (unfolded.elements + 1) * size
        panels = 0 if packed is None else (flag_index(packed, size) + 1) * size
        return max(workspace, panels)

    def _packed(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget,
                packing: Packing) -> list[KernelLaunch]:
        """The packed path of CPU devices (module docstring): the filter packed once into GEMM's A panels,
        ``im2col_pack`` unfolding each image straight into B panels, ``gemm_packed`` writing the output (+ Bias);
        where a window reads padding, the non-finite filter check and the direct kernel's recompute as on the
        im2col path."""
        geometry = geometry_of(v)
        x, f, y = bound[X].layout, bound[F].layout, bound[OUT].layout
        size = y.element_size
        storage = storage_defines(y)
        sizes = (y.sizes[0], 1, packing.m, packing.n)
        filter_run = spatial_run(f, 1)
        pack_a = pack_launch(view_args("x", F, (0, 0, f.strides[0], filter_run)), (1, 1, packing.m, packing.n),
                             f.strides[0], filter_run, packing, False, storage)
        x_run = spatial_run(x)
        if (x_run is not None and all(k == 1 for k in f.sizes[2:]) and all(s == 1 for s in geometry.strides)
                and not reads_padding(geometry)):
            # pointwise: B is the input itself, {Ci, positions} of each image, copied into panels as GEMM's B is
            # (ResNet-50's 1 x 1 256 -> 64 layer at batch 8: 10.5 ms in im2col_pack, 2.7 here, on PoCL 3.1)
            unfold = pack_launch(view_args("x", X, (x.strides[0], 0, x.strides[1], x_run)),
                                 (y.sizes[0], 1, packing.k, packing.n), x_run, x.strides[1], packing, True, storage)
        else:
            unfold = self._unfold_into_panels(bound, geometry, packing, storage)
        has_bias = bound.get(BIAS) is not None
        outputs = view_args("c", BIAS, (0, 0, bound[BIAS].layout.strides[1], 0)) if has_bias else []
        outputs += view_args("y", OUT, (y.strides[0], 0, y.strides[1], spatial_run(y)))
        defines = {**storage, **fused_defines(v.attrs.get("FusedActivation"))}
        multiply = packed_multiply(packing, outputs, sizes, 1.0, 1.0, has_bias, defines)
        if not reads_padding(geometry):
            return [pack_a, unfold, multiply]
        flag_at = flag_index(packing, size)
        # the filter's weights, widened to float32 in its packed panels (zero rows past the last output channel)
        check = KernelLaunch(self.kernel_source, "nonfinite_panels", storage, Items(1, 1), [
            TemporaryArg("pack", (("pa__offset", 0),), 4), TemporaryArg("flag", (("flag__offset", flag_at),), size),
            Scalar("count", np.uint32(packing.a_elements))])
        return [pack_a, unfold, check, multiply, self._rows(v, bound, target, flag_at)]

    def _unfold_into_panels(self, bound: dict[str, Any], geometry: ConvolutionGeometry, packing: Packing,
                            storage: dict[str, Any]) -> KernelLaunch:
        """``im2col_pack``: each image unfolded straight into GEMM's B panels of the temporary resource."""
        x, f, y = bound[X].layout, bound[F].layout, bound[OUT].layout
        # one work-item per image, panel and KW-long slice of K (kernel.cl)
        slices = packing.matrices * packing.panels_n * packing.k // f.sizes[-1]
        return KernelLaunch(self.kernel_source, "im2col_pack",
                            {**storage, "FLIP": geometry.flip, "PW": PANEL_COLUMNS, "PS": PANEL_SUB}, Items(slices), [
            TensorArg("x", X, scalar=True), Vector("x_strides", as_5d(x.strides, 0), rank=8, fill=0),
            Vector("x_sizes", as_5d(x.sizes, 1), rank=8),
            TemporaryArg("pack", (("pack__offset", packing.a_elements),), 4),
            Vector("kernel_sizes", spatial_3(f.sizes[2:], 1)), Vector("out_sizes", spatial_3(y.sizes[2:], 1)),
            Vector("strides", spatial_3(geometry.strides, 1)), Vector("dilations", spatial_3(geometry.dilations, 1)),
            Vector("start_padding", spatial_3(geometry.start_padding, 0)),
            Scalar("taps", np.uint32(math.prod(f.sizes[2:]))), Scalar("rows", np.uint32(packing.k)),
            Scalar("positions", np.uint32(packing.n)), Scalar("panels", np.uint32(packing.panels_n)),
            Scalar("count", np.uint32(slices))])

    def _nonfinite(self, bound: dict[str, Any], flag_at: int, size: int) -> KernelLaunch:
        """The one-work-item scan of the filter for an infinite or NaN weight into the temporary's flag."""
        f = bound[F].layout
        return KernelLaunch(self.kernel_source, "nonfinite", storage_defines(bound[OUT].layout), Items(1, 1), [
            TensorArg("f", F, scalar=True), Vector("f_strides", as_5d(f.strides, 0), rank=8, fill=0),
            Vector("f_sizes", as_5d(f.sizes, 1), rank=8), TemporaryArg("flag", (("flag__offset", flag_at),), size),
            Scalar("count", np.uint32(f.element_count))])

    def _im2col_gemm(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget,
                     unfolded: Unfolded) -> list[KernelLaunch]:
        """im2col into the temporary resource, a flag of non-finite filter weights after it, one GEMM: Filter
        {Cout, K} x col {K, P} per batch + Bias, then the direct kernel where the flag is set."""
        geometry = geometry_of(v)
        x, f, y = bound[X].layout, bound[F].layout, bound[OUT].layout
        batch, rows, positions = unfolded.batch, unfolded.rows, unfolded.positions
        storage = storage_defines(y)
        size = y.element_size
        unfold_defines = {**storage, "FLIP": geometry.flip}
        unfold = KernelLaunch(self.kernel_source, "im2col", unfold_defines, Items(unfolded.elements), [
            TensorArg("x", X, scalar=True), Vector("x_strides", as_5d(x.strides, 0), rank=8, fill=0),
            Vector("x_sizes", as_5d(x.sizes, 1), rank=8), TemporaryArg("col", (("col__offset", 0),), size),
            Vector("kernel_sizes", spatial_3(f.sizes[2:], 1)), Vector("out_sizes", spatial_3(y.sizes[2:], 1)),
            Vector("strides", spatial_3(geometry.strides, 1)), Vector("dilations", spatial_3(geometry.dilations, 1)),
            Vector("start_padding", spatial_3(geometry.start_padding, 0)),
            Scalar("taps", np.uint32(math.prod(f.sizes[2:]))), Scalar("rows", np.uint32(rows)),
            Scalar("positions", np.uint32(positions)), Scalar("count", np.uint32(unfolded.elements))])
        has_bias = bound.get(BIAS) is not None
        operands = [*view_args("a", F, (0, 0, f.strides[0], unfolded.filter_run)),
                    TemporaryArg("b__base", (("b__offset", 0),), size),
                    Vector("b__strides", (rows * positions, 0, positions, 1), fill=0)]
        if has_bias:
            operands += view_args("c", BIAS, (0, 0, bound[BIAS].layout.strides[1], 0))
        operands += view_args("y", OUT, (y.strides[0], 0, y.strides[1], unfolded.output_run))
        defines = {**storage, **fused_defines(v.attrs.get("FusedActivation"))}
        check = self._nonfinite(bound, unfolded.elements, size)
        return [unfold, check, *gemm_launches(target, operands, (batch, 1, y.sizes[1], positions), rows, False, False,
                                              1.0, 1.0, has_bias, True, defines),
                self._direct(v, bound, unfolded.elements)]

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        result = convolution(inputs[X], inputs[F], inputs.get(BIAS), geometry_of(v), v.layout(OUT).sizes[2:])
        return {OUT: apply_fused(result, v.attrs.get("FusedActivation"))}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        packing = packed_shape(v) if target.is_cpu else None
        if packing is not None:
            return self._packed(v, bound, target, packing)
        pointwise = pointwise_gemm(v, bound, target)
        if pointwise is not None:
            return pointwise
        unfolded = None if target.is_cpu else im2col_shape(v)
        if unfolded is not None:
            return self._im2col_gemm(v, bound, target, unfolded)
        geometry = geometry_of(v)
        if target.is_cpu and not geometry.backward and not any(geometry.output_padding):
            return [self._rows(v, bound, target)]
        return [self._direct(v, bound, None)]

    def _rows(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget,
              flag_at: int | None = None) -> KernelLaunch:
        """CPU devices' direct kernel, one work-item per output row (``convolution_rows``: module docstring);
        ``flag_at``: only where the temporary resource's element there is non-zero (the GEMM paths' recompute)."""
        geometry = geometry_of(v)
        out = v.layout(OUT)
        has_bias = bound.get(BIAS) is not None
        cout_group = out.sizes[1] // geometry.groups
        block = min(ROW_CHANNELS, cout_group)
        unit_w = geometry.strides[-1] == 1 and bound[X].layout.strides[-1] == 1
        outputs = row_outputs(out.sizes[-1])
        kw, dw = v.layout(F).sizes[-1], geometry.dilations[-1]
        span = outputs + (kw - 1) * dw  # the inputs a set of outputs reads along W
        row_taps = unit_w and span <= ROW_SPAN_MAX
        out_h = out.sizes[-2] if len(out.sizes) > 3 else 1
        row_sets = ROW_SETS if row_taps and block == 1 and len(out.sizes) > 3 and geometry.strides[-2] == 1 \
            and out_h > 1 else 1
        rows = (out.element_count // out.sizes[-1] // out.sizes[1] // out_h * -(-out_h // row_sets)
                * geometry.groups * -(-cout_group // block))
        args = [*direct_operands(bound, geometry),
                Scalar("groups", np.uint32(geometry.groups)), Scalar("count", np.uint32(rows))]
        defines = {**storage_defines(out), "FLIP": geometry.flip, "HAS_BIAS": has_bias,
                   "RW": outputs, "OCB": block, "RH": row_sets,
                   "UNIT_W": unit_w, "IF_FLAGGED": flag_at is not None,
                   **({"ROW_TAPS": True, "KW": kw, "DW": dw, "ROW_SPAN": span} if row_taps else {}),
                   **({"KH": v.layout(F).sizes[-2], "DH": geometry.dilations[-2]} if row_sets > 1 else {}),
                   **fused_defines(v.attrs.get("FusedActivation"))}
        if flag_at is not None:
            args.append(TemporaryArg("flag", (("flag__offset", flag_at),), out.element_size))
        return KernelLaunch(self.kernel_source, "convolution_rows", defines, Items(rows, spread_local(rows, target)),
                            args)

    def _direct(self, v: ValidatedDesc, bound: dict[str, Any], flag_at: int | None) -> KernelLaunch:
        """The direct kernel, one work-item per output element; ``flag_at``: only where the temporary resource's
        element there is non-zero (the im2col + GEMM path's fallback)."""
        geometry = geometry_of(v)
        out = v.layout(OUT)
        computed = computed_spatial_sizes(geometry, out.sizes[2:])
        has_bias = bound.get(BIAS) is not None
        args = [*direct_operands(bound, geometry), Vector("computed", spatial_3(computed, 1)),
                Scalar("groups", np.uint32(geometry.groups)), Scalar("count", np.uint32(out.element_count))]
        defines = {**storage_defines(out), "BACKWARD": geometry.backward, "FLIP": geometry.flip, "HAS_BIAS": has_bias,
                   **fused_defines(v.attrs.get("FusedActivation")), "IF_FLAGGED": flag_at is not None}
        if flag_at is not None:
            args.append(TemporaryArg("flag", (("flag__offset", flag_at),), out.element_size))
        return KernelLaunch(self.kernel_source, "convolution", defines, Items(out.element_count), args)


def row_outputs(out_w: int) -> int:
    """Outputs along W per accumulator set of ``convolution_rows``: ``ROW_OUTPUTS``, twice that for rows at least
    that long (a 16-wide row in one pass measured 1.3-1.7x the 8-wide passes' speed on PoCL; on Intel's runtime,
    once the lanes were explicit vectors, MobileNetV2's depthwise layer 0.78 ms 16 wide, 0.87 ms 8 wide), half for
    shorter ones."""
    if out_w >= 2 * ROW_OUTPUTS:
        return 2 * ROW_OUTPUTS
    return ROW_OUTPUTS if out_w > ROW_OUTPUTS // 2 else ROW_OUTPUTS // 2


def direct_operands(bound: dict[str, Any], geometry: ConvolutionGeometry) -> list[Any]:
    """The arguments the direct and the row kernels share: input, filter, [bias], output as 5-D strides and sizes,
    then strides, dilations and start padding per spatial dimension."""
    args: list[Any] = []
    for param, name in (("x", X), ("f", F)):
        layout = bound[name].layout
        args += [TensorArg(param, name, scalar=True),
                 Vector(f"{param}_strides", as_5d(layout.strides, 0), rank=8, fill=0),
                 Vector(f"{param}_sizes", as_5d(layout.sizes, 1), rank=8)]
    if bound.get(BIAS) is not None:
        args += [TensorArg("bias", BIAS, scalar=True),
                 Scalar("bias_channel_stride", np.uint64(bound[BIAS].layout.strides[1]))]
    y = bound[OUT].layout
    return [*args, TensorArg("y", OUT, scalar=True), Vector("y_strides", as_5d(y.strides, 0), rank=8, fill=0),
            Vector("y_sizes", as_5d(y.sizes, 1), rank=8), Vector("strides", spatial_3(geometry.strides, 1)),
            Vector("dilations", spatial_3(geometry.dilations, 1)),
            Vector("start_padding", spatial_3(geometry.start_padding, 0))]


def spatial_run(layout: TensorLayout, first: int = 2) -> int | None:
    """The stride that walks a tensor's dimensions from ``first`` on (the spatial ones) in row-major order when
    they are one evenly strided run (each stride the next one's times its size; dimensions of size 1 skipped),
    else None. 0 when there is one position."""
    dims = [(size, stride) for size, stride in zip(layout.sizes[first:], layout.strides[first:], strict=True)
            if size != 1]
    for (_, outer), (size, inner) in itertools.pairwise(dims):
        if outer != inner * size:
            return None
    return dims[-1][1] if dims else 0


def pointwise_gemm(v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch] | None:
    """A 1 x 1 FORWARD convolution as one GEMM over views of its own tensors (module docstring), or None when the
    desc is not one: ``Output[n, co, s] = sum_ci Filter[co, ci] * Input[n, ci, s] + Bias[co]`` over the spatial
    positions ``s`` flattened, batch ``n``: A the filter {Co, Ci} (broadcast over the batch), B the input
    {Ci, positions}, C the bias (one value per row), no copy."""
    geometry = geometry_of(v)
    x, f, y = bound[X].layout, bound[F].layout, bound[OUT].layout
    if (geometry.backward or geometry.groups != 1 or any(k != 1 for k in f.sizes[2:])
            or any(s != 1 for s in geometry.strides) or any(geometry.start_padding) or any(geometry.end_padding)
            or any(geometry.output_padding)):
        return None
    x_run, y_run = spatial_run(x), spatial_run(y)
    if x_run is None or y_run is None:
        return None
    has_bias = bound.get(BIAS) is not None
    operands = [*view_args("a", F, (0, 0, f.strides[0], f.strides[1])),
                *view_args("b", X, (x.strides[0], 0, x.strides[1], x_run))]
    if has_bias:
        operands += view_args("c", BIAS, (0, 0, bound[BIAS].layout.strides[1], 0))
    operands += view_args("y", OUT, (y.strides[0], 0, y.strides[1], y_run))
    positions = math.prod(y.sizes[2:])
    defines = {**storage_defines(y), **fused_defines(v.attrs.get("FusedActivation"))}
    return gemm_launches(target, operands, (y.sizes[0], 1, y.sizes[1], positions), x.sizes[1], False, False, 1.0,
                         1.0, has_bias, x_run == 1, defines)


# The largest im2col workspace the planner takes (bytes); a larger one runs the direct kernel instead.
IM2COL_WORKSPACE_BYTES = 64 << 20


@dataclass(frozen=True)
class Unfolded:
    """The im2col + GEMM path's shape: ``batch`` images of ``rows`` (input channels x taps, GEMM's K) by
    ``positions`` (output positions, GEMM's N), and the strides that walk the filter's rows and the output's
    positions as single runs."""

    batch: int
    rows: int
    positions: int
    filter_run: int
    output_run: int

    @property
    def elements(self) -> int:
        return self.batch * self.rows * self.positions


def im2col_shape(v: ValidatedDesc) -> Unfolded | None:
    """The im2col + GEMM path's shape when the planner takes it (module docstring), else None: a FORWARD
    convolution of one group, no OutputPadding, not a pointwise GEMM, its filter's {Cin, taps} and its output's
    positions each one strided run, and a workspace of at most ``IM2COL_WORKSPACE_BYTES``."""
    geometry = geometry_of(v)
    x, f, y = v.layout(X), v.layout(F), v.layout(OUT)
    if geometry.backward or geometry.groups != 1 or any(geometry.output_padding):
        return None
    pointwise = (all(k == 1 for k in f.sizes[2:]) and all(s == 1 for s in geometry.strides)
                 and not any(geometry.start_padding) and not any(geometry.end_padding))
    filter_run, output_run = spatial_run(f, 1), spatial_run(y)
    if pointwise or filter_run is None or output_run is None:
        return None
    unfolded = Unfolded(x.sizes[0], x.sizes[1] * math.prod(f.sizes[2:]), math.prod(y.sizes[2:]), filter_run,
                        output_run)
    return unfolded if unfolded.elements * y.element_size <= IM2COL_WORKSPACE_BYTES else None


def reads_padding(geometry: ConvolutionGeometry) -> bool:
    """Whether some window may read the padding (then a non-finite weight times the unfolded zeros would differ
    from the direct kernel, which skips those taps: the flag and recompute launches)."""
    return any(geometry.start_padding) or any(geometry.end_padding)


def flag_index(packing: Packing, element_size: int) -> int:
    """The element (of the output's size) of the temporary resource after the packed panels that holds the
    non-finite filter flag."""
    return -(-packing.bytes // element_size)


def packed_shape(v: ValidatedDesc) -> Packing | None:
    """The CPU packed path's panels when the planner takes it (module docstring), else None: a FORWARD
    convolution of one group, no OutputPadding, its filter's {Cin, taps} and its output's positions each one
    strided run, an output GEMM's packed path takes (:func:`dmlsim.operators.gemm.packs`: M = output channels,
    N = positions, K = input channels x taps) and panels of at most ``PACK_MAX_BYTES``; the filter's panels are
    packed once for the batch."""
    geometry = geometry_of(v)
    x, f, y = v.layout(X), v.layout(F), v.layout(OUT)
    if geometry.groups != 1 or geometry.backward or any(geometry.output_padding):
        return None
    if spatial_run(f, 1) is None or spatial_run(y) is None:
        return None
    m, n, k = y.sizes[1], math.prod(y.sizes[2:]), x.sizes[1] * math.prod(f.sizes[2:])
    if not packs(m, n, k):
        return None
    packing = Packing(y.sizes[0], m, n, k, shared_a=True)
    return None if packing.bytes > PACK_MAX_BYTES else packing
