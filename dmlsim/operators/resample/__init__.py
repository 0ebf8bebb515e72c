"""DML_OPERATOR_RESAMPLE (2_0), RESAMPLE1 (2_1), RESAMPLE2 (5_1), RESAMPLE3 (6_4), RESAMPLE_GRAD (3_0),
RESAMPLE_GRAD1 (5_1): desc, rules, reference and kernel launch.

The descs are DirectML's generated ones. Each resamples a 1-D to 4-D tensor along every axis at once, each axis
with its own scale, by nearest neighbor or (bi/tri/quadri)linear interpolation; the formulas are in
:mod:`.reference`. Per axis, output index ``o`` maps to input coordinate
``x = (o - OutputPixelOffset) / Scale - InputPixelOffset``:

* RESAMPLE: ``Scales`` (``ScaleCount`` of them), offsets fixed at pixel centers (InputPixelOffset 0.5,
  OutputPixelOffset -0.5, as RESAMPLE1's page says RESAMPLE behaves); nearest neighbor takes ``floor(x + 0.5)``.
* RESAMPLE1: ``Scales``, ``InputPixelOffsets`` and ``OutputPixelOffsets`` (``DimensionCount`` of each); nearest
  neighbor ``floor(x + 0.5)`` (halves round up: onnxruntime's DirectML provider, DmlOperatorResize.cpp, relies on
  it: "DML's nearest neighbor mode uses round-halves-up ... via floor(input.x + 0.5)", adding 0.5 to the input
  offsets for ONNX's ``floor``).
* RESAMPLE2: RESAMPLE1 plus ``RoundingDirection`` for nearest neighbor: DML_AXIS_DIRECTION_INCREASING rounds the
  coordinate up (``ceil(x)``), DECREASING down (``floor(x)``), as the page says; LINEAR ignores it.
* RESAMPLE3: RESAMPLE2 plus ``Antialiased``. FALSE is RESAMPLE2 (the page's remark). TRUE with LINEAR, on each
  axis whose Scale ``s`` is below 1, stretches the triangle filter by ``1 / s`` (the page: "stretching the
  resampling filter by a factor max(1, 1 / scale)"): output ``o`` at coordinate ``x`` reads every input index
  ``j`` with ``|j - x| * s < 1``, weight ``1 - |j - x| * s`` normalized to sum 1, ``j`` beyond an edge reading the
  edge element (ONNX Resize's ``antialias=1`` linear, which onnxruntime's DirectML provider passes through as
  Antialiased unchanged). An axis with Scale >= 1 keeps RESAMPLE2's linear taps; NEAREST_NEIGHBOR ignores
  Antialiased (the page names LINEAR as its condition).

* RESAMPLE_GRAD / RESAMPLE_GRAD1: the backward pass of RESAMPLE1 / RESAMPLE2 with the same fields: given
  InputGradientTensor shaped like the forward output, OutputGradientTensor (shaped like the forward input) gets,
  at each element, the sum over the forward outputs that read it of their tap weight times their gradient (the
  transpose of the forward resampling; the page's example, RESAMPLE2 rounding down at pixel centers, is a test).

Data types (the pages' tensor-support tables at DML_FEATURE_LEVEL_6_2, the level dmlsim reports): FLOAT32,
FLOAT16, INT8, UINT8 for the forward operators, FLOAT32 and FLOAT16 for the gradients; the two tensors the same
DataType and DimensionCount (1 to 4). Any DML strides on both (broadcast input strides too); no in-place
execution (the schema's inputs are not eligible).

Decisions where the pages are silent:

* The output Sizes are free: the pages say the scales need not be ``OutputSize / InputSize`` (the input is cropped
  or the edges clamped); each Scale must be finite and > 0 and each pixel offset finite, as the float32 the FLOAT
  field holds (a value below float32's smallest subnormal is 0; the generic validation refuses one past its
  range), since a coordinate divides by the scale; onnxruntime passes FLT_MAX as a scale for single-pixel axes,
  which is accepted.
* Nearest neighbor and linear clamp to the edges: a nearest index outside the input takes the edge element; a
  linear coordinate is clamped to ``[0, size - 1]`` before weighting (the pages: "the output edges are
  clamped"; onnxruntime: "DML clamps the input coordinates to the edges").
* A linear tap of weight 0 is not read: an output on an input sample is that sample, even beside inf or NaN.
* Coordinates are computed in float64 from the desc's float32 values, once per axis (the launch plan's tap
  tables), so every device picks the same nearest element at exact ties; weights are float32, the sum float32.
* RESAMPLE2's remark says it equals RESAMPLE1 with DECREASING rounding and OutputPixelOffsets "adjusted an
  additional -0.5"; with a scale other than 1 that only holds when the -0.5 goes to the *input* offset (RESAMPLE1
  rounds ``x + 0.5`` down), which is what onnxruntime's provider does (round_prefer_ceil: DECREASING with the
  input offsets -0.5; round_prefer_floor: INCREASING with +0.5). dmlsim implements the rounding the members
  describe (ceil / floor of ``x``) and RESAMPLE1's ``floor(x + 0.5)``.
* INT8/UINT8 outputs: the float32 result rounded to nearest, ties to even, saturated (a convex combination of
  the inputs never leaves their range).
* A gradient element that no forward output read is +0; the gradient sum starts at +0 (the forward sum at -0).
  The gradient's tables list, per axis, the forward outputs reading each input index (in increasing order).
* RESAMPLE3's page also lists "1/Scales > 2" among the conditions of the antialiasing filter, which contradicts
  its own ``max(1, 1 / scale)`` and ONNX's antialias (onnx's node cases downscale by 0.6, and onnxruntime maps
  ``antialias`` onto Antialiased whatever the scale): dmlsim stretches every axis with Scale < 1, so the filter is
  continuous in the scale. The antialiased coordinate is not clamped before the taps are chosen (ONNX pads with
  the edge element instead); a support far wider than the input (a tiny Scale) sums the weights of the ``j``
  beyond each edge in closed form into the edge's tap.
* RESAMPLE3's data types are RESAMPLE2's (its page's table: FLOAT32, FLOAT16, INT8, UINT8; 1 to 4 dimensions).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import (
    DML_AXIS_DIRECTION,
    DML_INTERPOLATION_MODE,
    DML_RESAMPLE1_OPERATOR_DESC,
    DML_RESAMPLE2_OPERATOR_DESC,
    DML_RESAMPLE3_OPERATOR_DESC,
    DML_RESAMPLE_GRAD1_OPERATOR_DESC,
    DML_RESAMPLE_GRAD_OPERATOR_DESC,
    DML_RESAMPLE_OPERATOR_DESC,
)
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout
from dmlsim.operators.base import Operator, ValidatedDesc, Work, elementwise_work, register, require_same
from dmlsim.operators.plan import HostArray, Items, KernelLaunch, LaunchTarget, Scalar, TensorArg, Vector
from dmlsim.operators.resample.reference import axis_taps, resample, resample_grad, round_to_integer
from dmlsim.operators.typed import CL_TYPE, FLOAT16, FLOAT32, INT8, UINT8, require_type, typed_defines

X, OUT = "InputTensor", "OutputTensor"
GRAD_IN, GRAD_OUT = "InputGradientTensor", "OutputGradientTensor"
LINEAR = DML_INTERPOLATION_MODE.DML_INTERPOLATION_MODE_LINEAR
INCREASING = DML_AXIS_DIRECTION.DML_AXIS_DIRECTION_INCREASING
DATA_TYPES = (FLOAT32, FLOAT16, INT8, UINT8)
LIMITS = {INT8: (-128, 127), UINT8: (0, 255)}
RESAMPLE_OPERATIONS = 200  # per output element (dmlsim.operators.base.Work): the reference's per-axis arrays


def as_float32(value: float) -> float:
    """A desc's FLOAT as the float32 it is in DirectML's struct (beyond float32's range: infinite)."""
    with np.errstate(over="ignore"):
        return float(np.float32(value))


class ResampleFamily(Operator):
    """The rules, reference and launch shared by RESAMPLE, RESAMPLE1, RESAMPLE2 and the gradients; a member says
    where its scales, offsets and rounding come from (:meth:`geometry`). ``x_field``/``y_field`` name the tensor
    read and the tensor written; a gradient (``gradient``) reads the forward output's shape and writes the forward
    input's."""

    count_field = "DimensionCount"
    offset_fields: tuple[str, ...] = ("InputPixelOffsets", "OutputPixelOffsets")
    x_field, y_field = X, OUT
    data_types: tuple[int, ...] = DATA_TYPES
    gradient = False

    def geometry(self, v: ValidatedDesc) -> tuple[list[float], list[float], list[float], str]:
        """Scales, input offsets, output offsets and the nearest-neighbor rounding of a valid desc."""
        attrs = v.attrs
        return (list(attrs["Scales"]), list(attrs["InputPixelOffsets"]), list(attrs["OutputPixelOffsets"]),
                "half_up")

    def antialiased(self, v: ValidatedDesc) -> bool:
        """RESAMPLE3's Antialiased (False for the other members)."""
        return False

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        where = v.struct_name
        ok = True
        for name in (self.x_field, self.y_field):
            layout = v.tensors.get(name)
            if not isinstance(layout, TensorLayout):
                continue
            ok = require_type(v, problems, name, self.data_types, f"by {self.name}") and ok
            if not 1 <= len(layout.sizes) <= 4:
                problems.add(f"{where}.{name}.DimensionCount {len(layout.sizes)} is not supported by {self.name} "
                             f"(supported: 1 to 4)")
                ok = False
        if not ok:
            return
        # "InputTensor and OutputTensor must have the same DataType and DimensionCount"
        require_same(v, problems, self.x_field, (self.y_field,), ("DataType", "DimensionCount"))
        if problems:
            return
        rank = len(v.layout(self.x_field).sizes)
        count = v.attrs[self.count_field]
        if count != rank:
            problems.add(f"{where}.{self.count_field} {count} must match {self.x_field}.DimensionCount and "
                         f"{self.y_field}.DimensionCount {rank}")
            return
        # FLOATs, as float32: a value below the smallest subnormal is 0
        for i, scale in enumerate(v.attrs["Scales"]):
            if not (math.isfinite(as_float32(scale)) and as_float32(scale) > 0.0):
                problems.add(f"{where}.Scales[{i}] {scale} must be finite and greater than 0 (as a FLOAT)")
        for field in self.offset_fields:
            for i, offset in enumerate(v.attrs[field]):
                if not math.isfinite(as_float32(offset)):
                    problems.add(f"{where}.{field}[{i}] {offset} must be finite (as a FLOAT)")

    def work(self, v: ValidatedDesc) -> Work:
        """The default with more operations per element: the reference builds a float64 array per axis and
        adds up to two weighted copies of it (antialiased: one per tap of the widest axis, ``2 / Scale + 2``)."""
        taps = 2.0
        if self.antialiased(v) and v.attrs["InterpolationMode"] == LINEAR:
            taps = max([taps] + [min(2.0 / as_float32(s) + 2.0, 2.0 ** 40) for s in v.attrs["Scales"]])
        return elementwise_work(v, operations_per_element=int(RESAMPLE_OPERATIONS * taps / 2.0))

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        scales, input_offsets, output_offsets, rounding = self.geometry(v)
        geometry = (v.layout(self.y_field).sizes, scales, input_offsets, output_offsets,
                    v.attrs["InterpolationMode"] == LINEAR, rounding)
        if self.gradient:
            out = resample_grad(inputs[self.x_field], *geometry)
        else:
            out = resample(inputs[self.x_field], *geometry, antialiased=self.antialiased(v))
        data_type = v.layout(self.y_field).data_type
        if data_type in LIMITS:
            out = round_to_integer(out, *LIMITS[data_type])
        return {self.y_field: out}

    def tap_tables(self, v: ValidatedDesc) -> tuple[tuple[int, ...], np.ndarray, np.ndarray, np.ndarray]:
        """The kernel's tables (see kernel.cl): each padded axis's first entry, the entries (first tap, tap
        count) and the taps (index of the tensor read, float32 weight); only taps of weight > 0. A gradient's
        tables are the forward ones turned around: each forward input index lists the forward outputs that read
        it, with the same weights."""
        scales, input_offsets, output_offsets, rounding = self.geometry(v)
        x, out = v.layout(self.x_field).sizes, v.layout(self.y_field).sizes
        forward_in, forward_out = (out, x) if self.gradient else (x, out)
        pad = 4 - len(x)
        axes = [(1, 1, 1.0, 0.5, -0.5)] * pad + list(zip(forward_in, forward_out, scales, input_offsets,
                                                         output_offsets, strict=True))
        linear = v.attrs["InterpolationMode"] == LINEAR
        bases, entries, indices, weights = [], [], [], []
        entry_count = tap_count = 0
        for in_size, out_size, scale, input_offset, output_offset in axes:
            index, weight = axis_taps(out_size, in_size, scale, input_offset, output_offset, linear, rounding,
                                      self.antialiased(v))
            keep = weight > 0.0
            counts = keep.sum(axis=1)
            if self.gradient:  # forward output o reads input index[o, k]: list the o of each input index
                readers = np.broadcast_to(np.arange(out_size)[:, None], index.shape)[keep]
                order = np.argsort(index[keep], kind="stable")
                counts = np.bincount(index[keep], minlength=in_size)
                index, weight, keep = readers[order][:, None], weight[keep][order][:, None], np.ones((len(order), 1),
                                                                                                     bool)
                out_size = in_size
            firsts = tap_count + np.concatenate([[0], np.cumsum(counts)[:-1]])
            entries.append(np.stack([firsts, counts], axis=1).reshape(-1))
            indices.append(index[keep])
            weights.append(weight[keep])
            bases.append(entry_count)
            entry_count += out_size
            tap_count += int(counts.sum())
        return (tuple(bases), np.concatenate(entries).astype(np.uint32), np.concatenate(indices).astype(np.uint32),
                np.concatenate(weights).astype(np.float32))

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        x, out = v.layout(self.x_field), v.layout(self.y_field)
        bases, entries, indices, weights = self.tap_tables(v)
        defines: dict[str, Any] = typed_defines(x.data_type, out.data_type, "float")
        if out.data_type in LIMITS:
            defines["CONVERT"] = f"convert_{CL_TYPE[out.data_type]}_sat_rte"
        if self.gradient:
            defines["GRADIENT"] = True
        args = [TensorArg("x", self.x_field, scalar=True),
                Vector("x_strides", bound[self.x_field].layout.strides, fill=0),
                TensorArg("y", self.y_field, scalar=True),
                Vector("y_strides", bound[self.y_field].layout.strides, fill=0),
                Vector("y_sizes", out.sizes), Vector("axis_base", bases), HostArray("entries", entries),
                HostArray("tap_index", indices), HostArray("tap_weight", weights),
                Scalar("count", np.uint32(out.element_count))]
        return [KernelLaunch(self.kernel_source, "resample", defines, Items(out.element_count), args)]


@register
class Resample(ResampleFamily):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_RESAMPLE
    desc_cls = DML_RESAMPLE_OPERATOR_DESC
    count_field = "ScaleCount"
    offset_fields = ()

    def geometry(self, v: ValidatedDesc) -> tuple[list[float], list[float], list[float], str]:
        rank = len(v.attrs["Scales"])
        return list(v.attrs["Scales"]), [0.5] * rank, [-0.5] * rank, "half_up"


@register
class Resample1(ResampleFamily):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_RESAMPLE1
    desc_cls = DML_RESAMPLE1_OPERATOR_DESC


@register
class Resample2(ResampleFamily):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_RESAMPLE2
    desc_cls = DML_RESAMPLE2_OPERATOR_DESC

    def geometry(self, v: ValidatedDesc) -> tuple[list[float], list[float], list[float], str]:
        scales, input_offsets, output_offsets, _ = super().geometry(v)
        rounding = "ceil" if v.attrs["RoundingDirection"] == INCREASING else "floor"
        return scales, input_offsets, output_offsets, rounding


@register
class Resample3(Resample2):
    """RESAMPLE2 plus Antialiased (the module docstring)."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_RESAMPLE3
    desc_cls = DML_RESAMPLE3_OPERATOR_DESC

    def antialiased(self, v: ValidatedDesc) -> bool:
        return bool(v.attrs["Antialiased"])


@register
class ResampleGrad(ResampleFamily):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_RESAMPLE_GRAD
    desc_cls = DML_RESAMPLE_GRAD_OPERATOR_DESC
    x_field, y_field = GRAD_IN, GRAD_OUT
    data_types = (FLOAT32, FLOAT16)
    gradient = True


@register
class ResampleGrad1(Resample2):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_RESAMPLE_GRAD1
    desc_cls = DML_RESAMPLE_GRAD1_OPERATOR_DESC
    x_field, y_field = GRAD_IN, GRAD_OUT
    data_types = (FLOAT32, FLOAT16)
    gradient = True
