"""Resize and Upsample onto RESAMPLE2 (RESAMPLE3 with ``antialias=1``), as onnxruntime's DirectML provider
(DmlOperatorResize.cpp) maps them.

coordinate_transformation_mode becomes pixel offsets and scales (half_pixel: input +0.5, output −0.5;
align_corners: scale (out − 1)/(in − 1); tf_half_pixel_for_nn: output −0.5; tf_crop_and_resize: the roi as an
input offset and a scale over its span; pytorch_half_pixel of a length-1 axis: FLT_MAX), nearest_mode becomes
RoundingDirection plus ±0.5 on the input offsets, ``antialias`` becomes RESAMPLE3's Antialiased (linear only: ONNX's
antialias does nothing to nearest). Refused here, as the provider refuses them: cubic interpolation,
exclude_outside and a non-zero extrapolation value (cubic resizing, with or without antialiasing, is composed of
per-axis GEMMs instead by dmlsim/onnx/ops_onnxcov.py, which routes it there). half_pixel_symmetric (opset 19) is
half_pixel's offsets with the input offset moved by ONNX's centring term ``n_in/2 · (1 − n_out/(scale · n_in))``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.onnx.lowering import Lowering, lowers

FLT_MAX = float(np.finfo(np.float32).max)
NEAREST_MODES = {"round_prefer_floor": (dml.DML_AXIS_DIRECTION_INCREASING, 0.5),
                 "round_prefer_ceil": (dml.DML_AXIS_DIRECTION_DECREASING, -0.5),
                 "floor": (dml.DML_AXIS_DIRECTION_DECREASING, 0.0), "ceil": (dml.DML_AXIS_DIRECTION_INCREASING, 0.0)}


def _optional_host(low: Lowering, node: Any, index: int, what: str) -> np.ndarray | None:
    if len(node.input) > index and node.input[index]:
        value = low.host_value(node.input[index], what)
        return value if value.size else None
    return None


@lowers("Resize", "Upsample")
def lower_resize(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x = low.view(node.input[0])
    rank = len(x.shape)
    mode = str(attrs.get("mode", "nearest")).lower()
    if mode == "cubic":
        raise low.refuse("cubic interpolation: DirectML's RESAMPLE has nearest neighbor and linear only")
    if attrs.get("exclude_outside", 0):
        raise low.refuse("exclude_outside applies to cubic interpolation, which DirectML lacks")
    if node.op_type == "Upsample":
        scales_in = np.asarray(attrs["scales"]) if "scales" in attrs else _optional_host(low, node, 1, "scales")
        sizes_in, roi, transform = None, None, "asymmetric"
        axes = list(range(rank))
    else:
        roi = _optional_host(low, node, 1, "roi")
        scales_in = _optional_host(low, node, 2, "scales")
        sizes_in = _optional_host(low, node, 3, "sizes")
        transform = attrs.get("coordinate_transformation_mode", "half_pixel")
        axes = [a + rank if a < 0 else a for a in attrs.get("axes", range(rank))]
    scales, out = [1.0] * rank, list(x.shape)
    if scales_in is not None:
        for axis, scale in zip(axes, scales_in.reshape(-1), strict=True):
            scales[axis] = float(scale)
            out[axis] = int(np.floor(x.shape[axis] * float(np.float32(scale))))
    elif sizes_in is not None:
        ratios = {axis: int(size) / x.shape[axis] for axis, size in zip(axes, sizes_in.reshape(-1), strict=True)}
        common = {"not_larger": min, "not_smaller": max}.get(attrs.get("keep_aspect_ratio_policy", "stretch"))
        for axis, size in zip(axes, sizes_in.reshape(-1), strict=True):
            scales[axis] = common(ratios.values()) if common else ratios[axis]
            out[axis] = int(np.round(scales[axis] * x.shape[axis])) if common else int(size)
    else:
        raise low.refuse("neither scales nor sizes given", 0x80070057)
    if roi is not None and transform == "tf_crop_and_resize" and len(roi) != 2 * rank:
        full = [0.0] * rank + [1.0] * rank
        for i, axis in enumerate(axes):
            full[axis], full[axis + rank] = float(roi[i]), float(roi[i + len(axes)])
        roi = np.asarray(full)
    if transform == "tf_crop_and_resize" and float(attrs.get("extrapolation_value", 0.0)) != 0.0:
        raise low.refuse("a non-zero extrapolation_value: DirectML clamps to the edges")
    input_offsets, output_offsets = [0.0] * rank, [0.0] * rank
    for i in range(rank):
        n_in, n_out = x.shape[i], out[i]
        if transform == "half_pixel_symmetric":
            # ONNX: x_in = c·(1 − n_out / (scale·n_in)) + (x_out + 0.5) / scale − 0.5 with c = n_in / 2: half_pixel's
            # offsets, the input one moved by the centring term
            centre = n_in / 2 * (1 - n_out / (scales[i] * n_in))
            input_offsets[i], output_offsets[i] = 0.5 - centre, -0.5
        elif transform in ("half_pixel", "pytorch_half_pixel"):
            if transform == "pytorch_half_pixel" and n_out <= 1:
                scales[i] = FLT_MAX
            else:
                input_offsets[i], output_offsets[i] = 0.5, -0.5
        elif transform == "align_corners":
            scales[i] = FLT_MAX if n_in <= 1 or n_out <= 1 else (n_out - 1) / (n_in - 1)
        elif transform == "tf_half_pixel_for_nn":
            output_offsets[i] = -0.5
        elif transform == "tf_crop_and_resize":
            if roi is None:
                raise low.refuse("tf_crop_and_resize without a roi", 0x80070057)
            if n_in > 1:
                input_offsets[i] = -(float(roi[i]) * (n_in - 1))
                scales[i] = (n_out - 1) / ((float(roi[i + rank]) - float(roi[i])) * (n_in - 1))
            else:
                input_offsets[i] = -0.5 * (float(roi[i]) + float(roi[i + rank])) * (n_in - 1)
                scales[i] = 1.0
        elif transform != "asymmetric":
            raise low.refuse(f"coordinate_transformation_mode {transform!r} is not one DirectML's provider maps")
    linear = mode in ("linear", "bilinear")
    rounding = dml.DML_AXIS_DIRECTION_DECREASING
    if not linear:
        default = "floor" if node.op_type == "Upsample" else "round_prefer_floor"  # Upsample: floor(x / scale)
        rounding, shift = NEAREST_MODES.get(attrs.get("nearest_mode", default), (None, 0.0))
        if rounding is None:
            raise low.refuse(f"nearest_mode {attrs.get('nearest_mode')!r} is not one ONNX defines", 0x80070057)
        input_offsets = [offset + shift for offset in input_offsets]
    antialiased = {"Antialiased": True} if linear and attrs.get("antialias", 0) else {}
    low.emit(dml.DML_OPERATOR_RESAMPLE3 if antialiased else dml.DML_OPERATOR_RESAMPLE2,
             dml.DML_RESAMPLE3_OPERATOR_DESC if antialiased else dml.DML_RESAMPLE2_OPERATOR_DESC, {"InputTensor": x},
             {"OutputTensor": low.output(node.output[0], out, x.dtype)},
             InterpolationMode=dml.DML_INTERPOLATION_MODE_LINEAR if linear else
             dml.DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, RoundingDirection=rounding, DimensionCount=rank,
             Scales=scales, InputPixelOffsets=input_offsets, OutputPixelOffsets=output_offsets, **antialiased)
