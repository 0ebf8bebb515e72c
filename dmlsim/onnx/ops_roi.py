"""ONNX RoiAlign and MaxRoiPool lowered onto DirectML's ROI_ALIGN1 and ROI_POOLING (dmlsim/operators/roi).

MaxRoiPool: rois ``(num_rois, 5)`` read as ROI_POOLING's ``{1, 1, NumROIs, 5}``, pooled_shape as PooledSize (height,
width), spatial_scale as SpatialScale (onnxruntime's provider maps it so; onnx has no node case of it).

RoiAlign as onnxruntime's DirectML provider does
(DmlOperatorRegionOfInterestAlign): LINEAR interpolation, SpatialScaleX = SpatialScaleY = spatial_scale,
OutOfBoundsInputValue 0, sampling_ratio 0 as MinimumSamplesPerOutput 1 / MaximumSamplesPerOutput UINT_MAX and n > 0 as
n / n, coordinate_transformation_mode half_pixel as InputPixelOffset 0.5 and output_half_pixel as 0 (OutputPixelOffset
-0.5 both), batch_indices (int64) read as UINT64.

Decisions: an opset-10 node (no coordinate_transformation_mode attribute) is lowered with ONNX's opset-10 semantics,
output_half_pixel (the provider reads the absent attribute as half_pixel); mode "max" is refused (onnx takes the
largest weighted corner term w * x of each bilinear sample, DirectML's MAX the largest interpolated sample: the
provider's mapping would give other numbers). onnx's output_half_pixel also forces a region narrower than 1 to width
1, which no DirectML field expresses: such regions give DirectML's numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.api.structs import DML_SIZE_2D
from dmlsim.onnx.lowering import Lowering, View, lowers


@lowers("RoiAlign")
def lower_roi_align(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x, rois, batch = (low.view(name) for name in node.input[:3])
    if len(x.shape) != 4:
        raise low.refuse(f"X of rank {len(x.shape)}: RoiAlign's X is {{N, C, H, W}}", dml.E_INVALIDARG)
    mode = attrs.get("mode", "avg")
    if mode != "avg":
        raise low.refuse(f"mode {mode!r}: onnx's max takes the largest weighted corner term of each sample, "
                         "DirectML's MAX the largest interpolated sample")
    default = "half_pixel" if low.opset >= 16 else "output_half_pixel"
    transform = attrs.get("coordinate_transformation_mode", default)
    if transform not in ("half_pixel", "output_half_pixel"):
        raise low.refuse(f"coordinate_transformation_mode {transform!r}", dml.E_INVALIDARG)
    ratio = int(attrs.get("sampling_ratio", 0))
    if ratio < 0:
        raise low.refuse(f"sampling_ratio {ratio} must be 0 or positive", dml.E_INVALIDARG)
    batch = View(batch.name, batch.shape, batch.strides, np.dtype(np.uint64), batch.offset)
    shape = (rois.shape[0], x.shape[1], int(attrs.get("output_height", 1)), int(attrs.get("output_width", 1)))
    scale = float(attrs.get("spatial_scale", 1.0))
    low.emit(dml.DML_OPERATOR_ROI_ALIGN1, dml.DML_ROI_ALIGN1_OPERATOR_DESC,
             {"InputTensor": x, "ROITensor": rois, "BatchIndicesTensor": batch},
             {"OutputTensor": low.output(node.output[0], shape, x.dtype)},
             ReductionFunction=dml.DML_REDUCE_FUNCTION_AVERAGE, InterpolationMode=dml.DML_INTERPOLATION_MODE_LINEAR,
             SpatialScaleX=scale, SpatialScaleY=scale, InputPixelOffset=0.5 if transform == "half_pixel" else 0.0,
             OutputPixelOffset=-0.5, OutOfBoundsInputValue=0.0, MinimumSamplesPerOutput=ratio or 1,
             MaximumSamplesPerOutput=ratio or 2**32 - 1, AlignRegionsToCorners=False)


@lowers("MaxRoiPool")
def lower_max_roi_pool(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x, rois = (low.view(name) for name in node.input[:2])
    if len(x.shape) != 4 or len(rois.shape) != 2 or rois.shape[1] != 5:
        raise low.refuse(f"X {list(x.shape)} and rois {list(rois.shape)}: MaxRoiPool takes {{N, C, H, W}} and "
                         "(num_rois, 5)", dml.E_INVALIDARG)
    pooled = [int(v) for v in attrs["pooled_shape"]]
    rois = View(rois.name, (1, 1, *rois.shape), (0, 0, *rois.strides), rois.dtype, rois.offset)
    shape = (rois.shape[2], x.shape[1], *pooled)
    low.emit(dml.DML_OPERATOR_ROI_POOLING, dml.DML_ROI_POOLING_OPERATOR_DESC, {"InputTensor": x, "ROITensor": rois},
             {"OutputTensor": low.output(node.output[0], shape, x.dtype)},
             SpatialScale=float(attrs.get("spatial_scale", 1.0)), PooledSize=DML_SIZE_2D(Width=pooled[1],
                                                                                           Height=pooled[0]))
