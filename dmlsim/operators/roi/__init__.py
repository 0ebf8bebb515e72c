"""DirectML's region-of-interest operators: DML_OPERATOR_ROI_ALIGN (DML_FEATURE_LEVEL_3_0) and ROI_ALIGN1 (4_0), one
template and one kernel, their backward pass DML_OPERATOR_ROI_ALIGN_GRAD (4_1, :class:`RoiAlignGrad`), and
DML_OPERATOR_ROI_POOLING (1_0, :class:`RoiPooling`) in the same kernel file. The descs are
DirectML's generated ones; the arithmetic is in :mod:`.reference`.

Each region ``r`` of ROITensor (``[x1, y1, x2, y2]``, scaled by SpatialScaleX/SpatialScaleY) is cut from batch
``BatchIndicesTensor[r]`` of InputTensor and resized to OutputTensor's last two sizes (ROI_ALIGN1's page): along each
axis ``n = clamp(ceil(size / OutputSize), MinimumSamplesPerOutput, MaximumSamplesPerOutput)`` samples per output
element, sample ``s`` of ``[0, OutputSize * n)`` at input coordinate ``(s - OutputPixelOffset) * size / (OutputSize *
n) + x1 - InputPixelOffset``, each sample interpolated (InterpolationMode) and the ``nx * ny`` samples of an output
element reduced (ReductionFunction AVERAGE or MAX). ROI_ALIGN is ROI_ALIGN1 with InputPixelOffset 0.5,
OutputPixelOffset -0.5 and AlignRegionsToCorners FALSE (ROI_ALIGN1's page: "the same behavior as
DML_ROI_ALIGN_OPERATOR_DESC").

Data types and ranks (the pages' tensor-support tables at the newest feature level): InputTensor ``{BatchCount,
ChannelCount, InputHeight, InputWidth}`` and OutputTensor ``{NumROIs, ChannelCount, OutputHeight, OutputWidth}`` of 4
dimensions, ROITensor ``{NumROIs, 4}``, ``{1, NumROIs, 4}`` or ``{1, 1, NumROIs, 4}``, all three FLOAT32 or FLOAT16 and
the same DataType; BatchIndicesTensor UINT32 or UINT64 (5_0) of ``{NumROIs}`` with up to three leading 1s. Any DML
strides on every tensor (stride-0 broadcast inputs, padded outputs); no in place (the schema's: no input is eligible).
FLOAT16 is storage: coordinates and samples in float32, the output rounded once to nearest even.

Decisions where the pages are silent, each pinned by tests/test_roi_align.py:

* The sample count is ``ceil`` of the float32 quotient (ONNX RoiAlign's adaptive ``ceil(roi_size / pooled_size)``,
  which onnxruntime's DirectML provider maps to Minimum 1 and Maximum UINT_MAX); an empty, inverted or NaN size gives
  MinimumSamplesPerOutput. MinimumSamplesPerOutput must be at least 1 and at most MaximumSamplesPerOutput (refused
  otherwise: an average over zero samples is 0/0, and the clamp has no answer).
* The pseudo-code's ``sampleX from outputTensorSampleX to <= outputTensorSampleX + inputSamplesPerOutputSampleX``
  takes ``n`` samples (``<``): n + 1 would contradict the sample count it just computed and ONNX's grid. Its
  ``outputSampleToInputScaleY = scaledRegionSizeX / outputSampleSizeX`` is read as the Y axis's own
  (``scaledRegionSizeY / outputSampleSizeY``).
* The geometry is float32 arithmetic, one rounding per operation in the page's order (no fused multiply-add), so
  every device agrees on each sample's coordinate.
* Bounds: a sample whose coordinate (after the pixel offsets) is below -1 or above the input's size on either axis,
  or NaN, reads OutOfBoundsInputValue as its value (ONNX RoiAlign's rule with the provider's value 0); otherwise the
  coordinate is clamped into the input. LINEAR: ONNX's bilinear (a coordinate at or past the last row/column reads
  that row/column alone). NEAREST_NEIGHBOR: ``ceil(t - 0.5)`` (a tie goes to the lower index, as the ROI_ALIGN_GRAD
  page's example: region [0, 2] resized to 3 samples reads columns 0, 0, 1).
* AlignRegionsToCorners: the samples span the region corner to corner, ``t = s * size / (OutputSize * n - 1) + x1 -
  InputPixelOffset`` (OutputPixelOffset unused; one sample sits at x1), as TensorFlow's crop_and_resize.
* MAX ignores NaN unless every sample is NaN (as dmlsim's MAX_POOLING and REDUCE MAX); the first of equal samples
  wins (so a -0 before a +0 stays -0). AVERAGE divides the float32 sum of the ``nx * ny`` samples once.
* A batch index outside ``[0, BatchCount)`` (the pages: undefined behavior) reads every sample as
  OutOfBoundsInputValue: no memory outside InputTensor is read.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import (
    DML_INTERPOLATION_MODE_LINEAR,
    DML_REDUCE_FUNCTION,
    DML_REDUCE_FUNCTION_AVERAGE,
    DML_REDUCE_FUNCTION_MAX,
    DML_ROI_ALIGN1_OPERATOR_DESC,
    DML_ROI_ALIGN_GRAD_OPERATOR_DESC,
    DML_ROI_ALIGN_OPERATOR_DESC,
    DML_ROI_POOLING_OPERATOR_DESC,
)
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout
from dmlsim.operators.base import Operator, ValidatedDesc, Work, add_operator, elementwise_work, require_same
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, TensorArg, Vector
from dmlsim.operators.roi.reference import roi_align, roi_align_grad, roi_align_roi_grad, roi_pooling
from dmlsim.operators.typed import FLOATS, UINT32, UINT64, require_type, typed_defines

X, ROIS, BATCH, OUT = "InputTensor", "ROITensor", "BatchIndicesTensor", "OutputTensor"
INDEX_TYPES = (UINT32, UINT64)
ROI_RANKS = (2, 3, 4)  # ROITensor {NumROIs, 4} with up to two leading 1s
# reference-device steps per sample: a few Python operations per sample and channel
SAMPLE_STEPS = 20


def check_regions(v: ValidatedDesc, problems: Problems) -> int | None:
    """ROITensor's and BatchIndicesTensor's sizes (ROI_ALIGN, ROI_ALIGN1, ROI_ALIGN_GRAD): NumROIs, or None when
    ROITensor's are wrong."""
    where = v.struct_name
    rois, batch = v.layout(ROIS).sizes, v.layout(BATCH).sizes
    if rois[-1] != 4 or any(size != 1 for size in rois[:-2]):
        problems.add(f"{where}.ROITensor.Sizes {list(rois)} must be {{NumROIs, 4}}, {{1, NumROIs, 4}} or "
                     "{1, 1, NumROIs, 4}")
        return None
    count = rois[-2]
    if batch[-1] != count or any(size != 1 for size in batch[:-1]):
        problems.add(f"{where}.BatchIndicesTensor.Sizes {list(batch)} must be {{NumROIs}} = [{count}] with at "
                     "most three leading 1s (NumROIs from ROITensor.Sizes)")
    return count


def check_sampling(v: ValidatedDesc, problems: Problems) -> None:
    """ReductionFunction and the sample bounds (ROI_ALIGN, ROI_ALIGN1, ROI_ALIGN_GRAD)."""
    where, a = v.struct_name, v.attrs
    if a["ReductionFunction"] not in (DML_REDUCE_FUNCTION_AVERAGE, DML_REDUCE_FUNCTION_MAX):
        problems.add(f"{where}.ReductionFunction {DML_REDUCE_FUNCTION(a['ReductionFunction']).name} must be "
                     "DML_REDUCE_FUNCTION_AVERAGE or DML_REDUCE_FUNCTION_MAX")
    if a["MinimumSamplesPerOutput"] < 1:
        problems.add(f"{where}.MinimumSamplesPerOutput must be at least 1, got 0 (an average of no samples)")
    elif a["MinimumSamplesPerOutput"] > a["MaximumSamplesPerOutput"]:
        problems.add(f"{where}.MinimumSamplesPerOutput {a['MinimumSamplesPerOutput']} must not exceed "
                     f"MaximumSamplesPerOutput {a['MaximumSamplesPerOutput']}")


def sampling_defines(a: dict[str, Any]) -> dict[str, Any]:
    """The build defines of the sampling (kernel.cl) from :meth:`RoiAlign.attributes`-style keyword arguments."""
    return {"LINEAR": a["linear"], "MAXIMUM": a["maximum"], "ALIGN_CORNERS": a["align_corners"]}


class RoiAlign(Operator):
    """ROI_ALIGN or ROI_ALIGN1: which fields its desc has decides the pixel offsets and corner alignment."""

    def __init__(self, op_type: int, desc_cls: type) -> None:
        self.type = op_type
        self.desc_cls = desc_cls

    def attributes(self, a: dict[str, Any]) -> dict[str, Any]:
        """The keyword arguments of :func:`.reference.roi_align` from the desc's attributes ``a`` (ROI_ALIGN's fixed
        pixel offsets and corner alignment where it has no field)."""
        return {"maximum": a["ReductionFunction"] == DML_REDUCE_FUNCTION_MAX,
                "linear": a["InterpolationMode"] == DML_INTERPOLATION_MODE_LINEAR,
                "scale_x": a["SpatialScaleX"], "scale_y": a["SpatialScaleY"],
                "input_offset": a.get("InputPixelOffset", 0.5), "output_offset": a.get("OutputPixelOffset", -0.5),
                "oob": a["OutOfBoundsInputValue"], "min_samples": a["MinimumSamplesPerOutput"],
                "max_samples": a["MaximumSamplesPerOutput"], "align_corners": bool(a.get("AlignRegionsToCorners"))}

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        where, why = v.struct_name, f"by {v.operator.name}"
        fine = True
        for name, types, ranks, supported in ((X, FLOATS, (4,), "4"), (ROIS, FLOATS, (2, 3, 4), "2 to 4"),
                                              (BATCH, INDEX_TYPES, (1, 2, 3, 4), "1 to 4"),
                                              (OUT, FLOATS, (4,), "4")):
            layout = v.tensors.get(name)
            if not isinstance(layout, TensorLayout):
                continue
            fine &= require_type(v, problems, name, types, why)
            if len(layout.sizes) not in ranks:
                problems.add(f"{where}.{name}.DimensionCount {len(layout.sizes)} is not supported {why} "
                             f"(supported: {supported})")
                fine = False
        if not fine:
            return
        # "InputTensor, OutputTensor, and ROITensor must have the same DataType"
        require_same(v, problems, X, (OUT, ROIS), ("DataType",))
        x, out = (v.layout(name).sizes for name in (X, OUT))
        count = check_regions(v, problems)
        if count is None:
            return
        if tuple(out[:2]) != (count, x[1]):
            problems.add(f"{where}.OutputTensor.Sizes {list(out)} must start with NumROIs {count} and "
                         f"InputTensor's ChannelCount {x[1]}")
        check_sampling(v, problems)

    def work(self, v: ValidatedDesc) -> Work:
        """At least MinimumSamplesPerOutput^2 samples of four taps per output element (the region sizes, which the
        desc does not know, may ask for more); the reference loops over samples in Python."""
        samples = v.attrs["MinimumSamplesPerOutput"] ** 2
        outputs = v.layout(OUT).element_count
        return elementwise_work(v) + Work(12 * samples * outputs, 0, SAMPLE_STEPS * samples * outputs)

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        out = v.layout(OUT).sizes
        return {OUT: roi_align(inputs[X], inputs[ROIS], inputs[BATCH], (out[2], out[3]), **self.attributes(v.attrs))}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        a = self.attributes(v.attrs)
        x, out = v.layout(X), v.layout(OUT)
        dtype = x.data_type
        defines = {**typed_defines(dtype, dtype), **sampling_defines(a),
                   "INDEX_T": "uint" if v.layout(BATCH).data_type == UINT32 else "ulong"}
        args = [TensorArg("x", X, scalar=True), Vector("x_strides", bound[X].layout.strides, fill=0),
                Vector("x_sizes", x.sizes),
                TensorArg("rois", ROIS, scalar=True), Vector("rois_strides", bound[ROIS].layout.strides, fill=0),
                TensorArg("batch", BATCH, scalar=True), Vector("batch_strides", bound[BATCH].layout.strides, fill=0),
                TensorArg("y", OUT, scalar=True), Vector("y_strides", bound[OUT].layout.strides, fill=0),
                Vector("y_sizes", out.sizes),
                Scalar("scale_x", np.float32(a["scale_x"])), Scalar("scale_y", np.float32(a["scale_y"])),
                Scalar("input_offset", np.float32(a["input_offset"])),
                Scalar("output_offset", np.float32(a["output_offset"])), Scalar("oob_value", np.float32(a["oob"])),
                Scalar("min_samples", np.uint32(a["min_samples"])), Scalar("max_samples", np.uint32(a["max_samples"])),
                Scalar("count", np.uint32(out.element_count))]
        return [KernelLaunch(self.kernel_source, "roi_align", defines, Items(out.element_count), args)]


add_operator(RoiAlign(DML_OPERATOR_TYPE.DML_OPERATOR_ROI_ALIGN, DML_ROI_ALIGN_OPERATOR_DESC))
add_operator(RoiAlign(DML_OPERATOR_TYPE.DML_OPERATOR_ROI_ALIGN1, DML_ROI_ALIGN1_OPERATOR_DESC))

DY, DX, DROIS = "InputGradientTensor", "OutputGradientTensor", "OutputROIGradientTensor"
# ROI_ALIGN_GRAD's tensor-support table (4_1): field, data types, dimension counts, and how the message says them
GRAD_TENSORS = ((X, FLOATS, (4,), "4"), (DY, FLOATS, (4,), "4"), (ROIS, FLOATS, ROI_RANKS, "2 to 4"),
                (BATCH, (UINT32,), (1, 2, 3, 4), "1 to 4"), (DX, FLOATS, (4,), "4"),
                (DROIS, FLOATS, ROI_RANKS, "2 to 4"))


class RoiAlignGrad(Operator):
    """DML_OPERATOR_ROI_ALIGN_GRAD (DML_FEATURE_LEVEL_4_1): the backward pass of ROI_ALIGN1 with the same fields.

    OutputGradientTensor ``{BatchCount, C, H, W}`` (InputTensor's sizes, when it is given) is the exact transpose of
    ROI_ALIGN1's sampling as :mod:`.reference` implements it (:func:`.reference.roi_align_grad`; the geometry,
    sample counts, bounds and taps are the forward's own functions): every element ``dy[r, c, oy, ox]`` of
    InputGradientTensor ``{NumROIs, C, OutputHeight, OutputWidth}`` goes back through the samples of that output
    element, each sample sending its tap weights times its share to the elements it reads, summed over every region
    of the batch. AVERAGE: each of the ``nx * ny`` samples gets ``dy / (nx * ny)``. MAX: ``dy`` goes to the one sample
    ROI_ALIGN1's MAX selects from InputTensor (the first largest, NaN ignored unless every sample is NaN, when the
    first is kept), which is why the page requires InputTensor with MAX. The page's example (nearest neighbor, 4
    regions) is a test.

    Data types and ranks (the page's table, 4_1): InputTensor (optional), InputGradientTensor and OutputGradientTensor
    4-D, ROITensor and OutputROIGradientTensor (optional) ``{NumROIs, 4}`` with up to two leading 1s (the same sizes),
    all FLOAT32 or FLOAT16 and the same DataType;
    BatchIndicesTensor UINT32 ``{NumROIs}`` with up to three leading 1s (the page lists no UINT64). Any DML strides;
    no in place. FLOAT16 is storage: float32 arithmetic, each output rounded once. Either output may be null, not both;
    both given, both are computed (two kernels, each reading only inputs).

    Decisions where the page is silent, pinned by tests/test_roi_align_grad.py:

    * OutputROIGradientTensor ``{NumROIs, 4}`` (ROITensor's sizes) is the exact derivative of ROI_ALIGN1's output
      (the same fields, OutOfBoundsInputValue irrelevant: a constant) by each region's ``[x1, y1, x2, y2]``,
      contracted with InputGradientTensor (:func:`.reference.roi_align_roi_grad`). Along x, a sample at ``t = x1s +
      f * (x2s - x1s) + const`` (``x1s = x1 * SpatialScaleX``; ``f = (s - OutputPixelOffset) / (OutputWidth * nx)``
      for sample ``s`` of the row, corner-aligned ``s / (OutputWidth * nx - 1)``, 0 for a single sample) moves by
      ``SpatialScaleX * (1 - f)`` per unit of x1 and ``SpatialScaleX * f`` per unit of x2, and its bilinear value by
      the page's ``imageGradX = (1 - yLerp) * (topRight - topLeft) + yLerp * (bottomRight - bottomLeft)``; so x1
      gathers ``share * imageGradX * SpatialScaleX * (1 - f)`` over every channel, output element and selected
      sample (AVERAGE: all ``nx * ny`` samples, share ``dy / (nx * ny)``; MAX: the one ROI_ALIGN1's MAX selects from
      InputTensor, share ``dy``), x2 ``... * f``, y1 and y2 alike with ``imageGradY``. The sample counts and MAX's
      selection are piecewise constant in the coordinates (derivative 0, their jumps ignored).
      Evidence and how it meets the page: the page gives pseudo-code only for one sample per output, with undefined
      symbols; its ``imageGradX``/``imageGradY`` (floor/ceil corners, lerps) are the derivative of the bilinear
      sample, and its weights ``inputWidth - inputGradientCoordinate.x`` (x1) and ``inputGradientCoordinate.x``
      (x2) are the shape of ``1 - f`` and ``f`` without the division by the output size, the pixel offsets and the
      spatial scale: transcribed from TensorFlow's CropAndResizeGradBoxes (``image_width - 1 - x * width_ratio`` and
      ``x * width_ratio``, exactly ``SpatialScale * (1 - f)`` and ``SpatialScale * f`` in TensorFlow's geometry).
      tensorflow-directml-plugin, DirectML's own user, implements CropAndResizeGradBoxes with this output alone
      (AVERAGE, LINEAR, SpatialScale ``size - 1``, pixel offsets 0, one sample, AlignRegionsToCorners): under
      those fields the derivative here is TensorFlow's result, so the exact derivative (scale, offsets, ``f`` and
      all) is the reading, pinned by central differences of an independent transcription of ROI_ALIGN1 in the test.
      Where the derivative has kinks the page's floor/ceil decides: along an axis whose coordinate (clamped into
      ``[0, size - 1]``, ROI_ALIGN1's bilinear clamp) is an integer, ``floor == ceil`` and the image gradient is 0
      (so also on the clamped stretches ``[-1, 0]`` and ``[size - 1, size]``, where the value is constant); a row
      or column of lerp weight 0 is not read. A sample out of bounds or of a region outside the batch adds
      nothing, nor does a term whose coordinate weight is 0 (the sample does not move with that corner).
      NEAREST_NEIGHBOR: every element +0 (the sampling is piecewise constant in the coordinates; the page's formula
      is the bilinear one, and tensorflow-directml-plugin asks LINEAR only). The float32 kernel runs one work item
      per region, summing channels, output rows, columns, then samples in that order (deterministic, no atomics);
      the reference sums in float64: judged in ulps of the sum of the terms' magnitudes. InputTensor is required
      (the page), its ChannelCount that of InputGradientTensor.
    * The grad has no OutOfBoundsInputValue: a sample out of bounds (below -1 or past the size on either axis, or a
      NaN coordinate) reads nothing, so it sends no gradient; MAX's selection values such a sample 0 (the value
      onnxruntime's provider gives ROI_ALIGN1), and selecting it sends nothing.
    * A region whose batch index is outside ``[0, BatchCount)`` (the page: undefined) sends nothing. A tap of
      weight 0 carries no gradient (an inf gradient does not become NaN beside it); an element no sample reads
      gets +0. The float32 kernel gathers per output element (regions, then rows, then columns), the reference in
      float64: sums in another order, judged in ulps of the sum of the terms' magnitudes.
    * InputTensor is accepted (and ignored by OutputGradientTensor) with AVERAGE; its sizes must equal
      OutputGradientTensor's. A desc with neither output is E_INVALIDARG (the page: at least one).
    """

    type = DML_OPERATOR_TYPE.DML_OPERATOR_ROI_ALIGN_GRAD
    desc_cls = DML_ROI_ALIGN_GRAD_OPERATOR_DESC
    kernel_file = "kernel.cl"

    def attributes(self, a: dict[str, Any]) -> dict[str, Any]:
        """The keyword arguments of :func:`.reference.roi_align_grad` from the desc's attributes."""
        return {"maximum": a["ReductionFunction"] == DML_REDUCE_FUNCTION_MAX,
                "linear": a["InterpolationMode"] == DML_INTERPOLATION_MODE_LINEAR,
                "scale_x": a["SpatialScaleX"], "scale_y": a["SpatialScaleY"], "input_offset": a["InputPixelOffset"],
                "output_offset": a["OutputPixelOffset"], "min_samples": a["MinimumSamplesPerOutput"],
                "max_samples": a["MaximumSamplesPerOutput"], "align_corners": bool(a["AlignRegionsToCorners"])}

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        where, why = v.struct_name, f"by {v.operator.name}"
        fine = True
        for name, types, ranks, supported in GRAD_TENSORS:
            layout = v.tensors.get(name)
            if not isinstance(layout, TensorLayout):
                continue
            fine &= require_type(v, problems, name, types, why)
            if len(layout.sizes) not in ranks:
                problems.add(f"{where}.{name}.DimensionCount {len(layout.sizes)} is not supported {why} "
                             f"(supported: {supported})")
                fine = False
        present = {name for name in (X, DX, DROIS) if isinstance(v.tensors.get(name), TensorLayout)}
        if not present & {DX, DROIS}:
            problems.add(f"{where}.OutputGradientTensor and OutputROIGradientTensor are both null: at least one "
                         "must be supplied")
        a = v.attrs
        if X not in present and (a["ReductionFunction"] == DML_REDUCE_FUNCTION_MAX or DROIS in present):
            problems.add(f"{where}.InputTensor must be supplied when ReductionFunction is DML_REDUCE_FUNCTION_MAX or "
                         "OutputROIGradientTensor is supplied")
        if not fine or problems:
            return
        # "InputGradientTensor, InputTensor, OutputGradientTensor, OutputROIGradientTensor, and ROITensor must have
        # the same DataType"
        require_same(v, problems, DY, (X, DX, DROIS, ROIS), ("DataType",))
        dy, rois = v.layout(DY).sizes, v.layout(ROIS).sizes
        count = check_regions(v, problems)
        if count is None:
            return
        if DX in present:
            dx = v.layout(DX).sizes
            if tuple(dy[:2]) != (count, dx[1]):
                problems.add(f"{where}.InputGradientTensor.Sizes {list(dy)} must start with NumROIs {count} and "
                             f"OutputGradientTensor's ChannelCount {dx[1]}")
            if X in present:
                require_same(v, problems, DX, (X,), ("Sizes",))
        elif dy[0] != count:
            problems.add(f"{where}.InputGradientTensor.Sizes {list(dy)} must start with NumROIs {count}")
        if X in present and DX not in present and v.layout(X).sizes[1] != dy[1]:
            problems.add(f"{where}.InputGradientTensor.Sizes {list(dy)} must have InputTensor's ChannelCount "
                         f"{v.layout(X).sizes[1]}")
        if DROIS in present and list(v.layout(DROIS).sizes) != list(rois):
            problems.add(f"{where}.OutputROIGradientTensor.Sizes {list(v.layout(DROIS).sizes)} must equal "
                         f"ROITensor.Sizes {list(rois)}")
        check_sampling(v, problems)

    def work(self, v: ValidatedDesc) -> Work:
        """Each OutputGradientTensor element scans every region's samples (MAX: each candidate rescans its output
        element's samples); each region's OutputROIGradientTensor row scans its own samples once (MAX: rescanned per
        output element); at least MinimumSamplesPerOutput^2 samples per output element (the regions may ask for
        more); the reference loops over gradient elements and samples in Python."""
        samples = v.attrs["MinimumSamplesPerOutput"] ** 2
        rescan = samples if v.attrs["ReductionFunction"] == DML_REDUCE_FUNCTION_MAX else 1
        dy = v.layout(DY).element_count
        work = elementwise_work(v) + Work(0, 0, SAMPLE_STEPS * samples * rescan * dy)
        if isinstance(v.tensors.get(DX), TensorLayout):
            per_element = dy // max(v.layout(DY).sizes[1], 1) * samples * rescan  # every region's samples, a channel
            work = work + Work(12 * per_element * v.layout(DX).element_count, 0, 0)
        if isinstance(v.tensors.get(DROIS), TensorLayout):
            work = work + Work(24 * samples * (rescan + 1) * dy, 0, SAMPLE_STEPS * samples * (rescan + 1) * dy)
        return work

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        a = self.attributes(v.attrs)
        results = {}
        if isinstance(v.tensors.get(DX), TensorLayout):
            results[DX] = roi_align_grad(inputs[DY], inputs[ROIS], inputs[BATCH], tuple(v.layout(DX).sizes),
                                         inputs.get(X), **a)
        if isinstance(v.tensors.get(DROIS), TensorLayout):
            results[DROIS] = roi_align_roi_grad(inputs[DY], inputs[ROIS], inputs[BATCH], inputs[X], **a).reshape(
                v.layout(DROIS).sizes)
        return results

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        a = self.attributes(v.attrs)
        dy = v.layout(DY)
        defines = {**typed_defines(dy.data_type, dy.data_type), **sampling_defines(a), "INDEX_T": "uint"}
        common = [TensorArg("rois", ROIS, scalar=True), Vector("rois_strides", bound[ROIS].layout.strides, fill=0),
                  TensorArg("batch", BATCH, scalar=True), Vector("batch_strides", bound[BATCH].layout.strides, fill=0)]
        sampling = [Scalar("scale_x", np.float32(a["scale_x"])), Scalar("scale_y", np.float32(a["scale_y"])),
                    Scalar("input_offset", np.float32(a["input_offset"])),
                    Scalar("output_offset", np.float32(a["output_offset"])),
                    Scalar("min_samples", np.uint32(a["min_samples"])),
                    Scalar("max_samples", np.uint32(a["max_samples"]))]
        gradient = [TensorArg("dy", DY, scalar=True), Vector("dy_strides", bound[DY].layout.strides, fill=0),
                    Vector("dy_sizes", dy.sizes)]
        launches = []
        if isinstance(v.tensors.get(DX), TensorLayout):
            dx = v.layout(DX)
            args = [TensorArg("x", X, scalar=True), Vector("x_strides", bound[X].layout.strides, fill=0)] if \
                a["maximum"] else []
            args += [*gradient, *common, TensorArg("y", DX, scalar=True),
                     Vector("y_strides", bound[DX].layout.strides, fill=0), Vector("y_sizes", dx.sizes), *sampling,
                     Scalar("count", np.uint32(dx.element_count))]
            launches.append(KernelLaunch(self.kernel_source, "roi_align_grad", defines, Items(dx.element_count), args))
        if isinstance(v.tensors.get(DROIS), TensorLayout):
            regions = v.layout(ROIS).sizes[-2]
            args = [TensorArg("x", X, scalar=True), Vector("x_strides", bound[X].layout.strides, fill=0),
                    Vector("x_sizes", v.layout(X).sizes), *gradient, *common, TensorArg("droi", DROIS, scalar=True),
                    Vector("droi_strides", bound[DROIS].layout.strides, fill=0), *sampling,
                    Scalar("count", np.uint32(regions))]
            launches.append(KernelLaunch(self.kernel_source, "roi_align_roi_grad", defines, Items(regions), args))
        return launches


add_operator(RoiAlignGrad())


class RoiPooling(Operator):
    """DML_OPERATOR_ROI_POOLING (DML_FEATURE_LEVEL_1_0): a max pooling over each region of interest (Fast R-CNN's, ONNX
    MaxRoiPool's). ROITensor ``{1, 1, NumROIs, 5}`` holds ``[BatchID, x1, y1, x2, y2]``; the page's integer formulas:
    corners ``round(v * SpatialScale)``, the region ``x2 - x1 + 1`` wide, output element (oy, ox) the largest element of
    rows ``[oy * RegionHeight / PooledSize.Height + y1, ceil((oy + 1) * RegionHeight / PooledSize.Height) + y1)`` and
    the columns alike, "clamped to the input boundaries". InputTensor ``{N, C, H, W}``, OutputTensor ``{NumROIs, C,
    PooledSize.Height, PooledSize.Width}``, all three FLOAT32 or FLOAT16 of 4 dimensions and the same DataType; any DML
    strides; no in place.

    Decisions where the page is silent, pinned by tests/test_roi_pooling.py: ``round`` is C's (halfway away from zero,
    as onnxruntime's MaxRoiPool); a region with x2 < x1 (the page: "x2 >= x1") is 1 wide (Caffe's and onnxruntime's
    ``max(x2 - x1 + 1, 1)``); a window that the clamping leaves empty gives 0 (Caffe's and onnxruntime's); BatchID is
    truncated toward zero, and one outside ``[0, BatchCount)`` or NaN, or a NaN corner, gives 0 for the whole region
    (no element outside InputTensor is read); corners are clamped into ``[-2^30, 2^30]`` before the integer
    arithmetic (64-bit). The max ignores NaN unless every element is NaN and keeps the first of equal elements, as
    dmlsim's MAX_POOLING.
    """

    type = DML_OPERATOR_TYPE.DML_OPERATOR_ROI_POOLING
    desc_cls = DML_ROI_POOLING_OPERATOR_DESC
    kernel_file = "kernel.cl"

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        where, why = v.struct_name, f"by {v.operator.name}"
        fine = True
        for name in (X, ROIS, OUT):
            layout = v.tensors.get(name)
            if not isinstance(layout, TensorLayout):
                continue
            fine &= require_type(v, problems, name, FLOATS, why)
            if len(layout.sizes) != 4:
                problems.add(f"{where}.{name}.DimensionCount {len(layout.sizes)} is not supported {why} "
                             "(supported: 4)")
                fine = False
        if not fine:
            return
        require_same(v, problems, X, (ROIS, OUT), ("DataType",))
        x, rois, out = (v.layout(name).sizes for name in (X, ROIS, OUT))
        if tuple(rois[:2]) != (1, 1) or rois[3] != 5:
            problems.add(f"{where}.ROITensor.Sizes {list(rois)} must be {{1, 1, NumROIs, 5}}")
            return
        pooled = v.attrs["PooledSize"]
        expected = [rois[2], x[1], pooled.Height, pooled.Width]
        if list(out) != expected:
            problems.add(f"{where}.OutputTensor.Sizes {list(out)} must be {expected} ({{NumROIs, InputChannelCount, "
                         "PooledSize.Height, PooledSize.Width}})")
        if pooled.Height == 0 or pooled.Width == 0:
            problems.add(f"{where}.PooledSize {{Width {pooled.Width}, Height {pooled.Height}}} must be at least 1 by 1")

    def work(self, v: ValidatedDesc) -> Work:
        """Each output element scans its window (at most the whole input plane, which the ROI values decide); the
        reference loops over output elements and channels in Python."""
        x, out = v.layout(X).sizes, v.layout(OUT)
        return elementwise_work(v) + Work(2 * x[2] * x[3] * out.element_count, 0, SAMPLE_STEPS * out.element_count)

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        pooled = v.attrs["PooledSize"]
        return {OUT: roi_pooling(inputs[X], inputs[ROIS], (pooled.Height, pooled.Width), v.attrs["SpatialScale"])}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        x, out = v.layout(X), v.layout(OUT)
        defines = {**typed_defines(x.data_type, x.data_type), "INDEX_T": "uint"}
        args = [TensorArg("x", X, scalar=True), Vector("x_strides", bound[X].layout.strides, fill=0),
                Vector("x_sizes", x.sizes),
                TensorArg("rois", ROIS, scalar=True), Vector("rois_strides", bound[ROIS].layout.strides, fill=0),
                TensorArg("y", OUT, scalar=True), Vector("y_strides", bound[OUT].layout.strides, fill=0),
                Vector("y_sizes", out.sizes), Scalar("spatial_scale", np.float32(v.attrs["SpatialScale"])),
                Scalar("count", np.uint32(out.element_count))]
        return [KernelLaunch(self.kernel_source, "roi_pooling", defines, Items(out.element_count), args)]


add_operator(RoiPooling())
