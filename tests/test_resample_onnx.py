"""onnx's own Resize and Upsample node cases on RESAMPLE2 and RESAMPLE1 (dmlsim/operators/resample), on every adapter.

Each case is mapped onto a desc the way onnxruntime's DirectML provider maps the node (DmlOperatorResize.cpp:
coordinate_transformation_mode to pixel offsets and scales, nearest_mode to RoundingDirection plus an input offset
of ±0.5), and the device's output is compared with onnx's expected output. A case that does not map (cubic
interpolation, antialiasing, an extrapolation value, a mode the provider lacks, or ONNX differing from the
provider's mapping) is listed in NOT_MAPPED with the reason, never dropped. RESAMPLE1 runs the same cases with the
provider's older RESAMPLE1 mapping (halves rounded up; ``floor`` by +0.5 on the input offsets), except nearest
modes it cannot express.

Tolerance: onnx computes in float32 from float32 scales: 10 ulps of the largest |input| (the interpolation's
magnitude bound).
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx_node_cases import case_ids, node_attributes, node_cases
from resample_support import DOWN, F16, F32, FLT_MAX, LINEAR, NEAREST, UP, resample1, resample2, run, tensor

from dmlsim.api.numerics import compare_ulps

# --- ONNX's node cases, mapped as onnxruntime's DirectML provider maps Resize/Upsample --------------------
NOT_MAPPED = {
    # mode cubic: DirectML has no cubic interpolation (DmlOperatorResize.cpp's QueryResize refuses it)
    **{name: "cubic interpolation: DirectML has only nearest neighbor and linear" for name in (
        "test_resize_upsample_scales_cubic", "test_resize_upsample_scales_cubic_align_corners",
        "test_resize_downsample_scales_cubic", "test_resize_downsample_scales_cubic_align_corners",
        "test_resize_upsample_sizes_cubic", "test_resize_downsample_sizes_cubic",
        "test_resize_upsample_scales_cubic_A_n0p5_exclude_outside",
        "test_resize_downsample_scales_cubic_A_n0p5_exclude_outside", "test_resize_upsample_scales_cubic_asymmetric",
        "test_resize_downsample_scales_cubic_antialias", "test_resize_downsample_sizes_cubic_antialias")},
    "test_resize_tf_crop_and_resize_extrapolation_value": "extrapolation_value 10: DirectML clamps to the edges "
                                                          "(QueryResize refuses a non-zero extrapolation value)",
    "test_resize_downsample_scales_linear_antialias": "antialias: RESAMPLE3's Antialiased, not RESAMPLE2 "
                                                      "(run in tests/test_resample3.py)",
    "test_resize_downsample_sizes_linear_antialias": "antialias: RESAMPLE3's Antialiased, not RESAMPLE2 "
                                                     "(run in tests/test_resample3.py)",
    "test_resize_downsample_scales_linear_half_pixel_symmetric": "half_pixel_symmetric: not among the provider's "
                                                                 "coordinate transformation modes",
    "test_resize_upsample_scales_linear_half_pixel_symmetric": "half_pixel_symmetric: not among the provider's "
                                                               "coordinate transformation modes",
    "test_resize_downsample_scales_linear_align_corners": "align_corners with a fractional resized length: ONNX "
                                                          "divides by scale * length - 1 = 1.4, the provider by "
                                                          "the output length - 1 = 1",
    "test_resize_downsample_sizes_linear_pytorch_half_pixel": "pytorch_half_pixel with an output length of 1: "
                                                              "ONNX maps it to coordinate 0, the provider keeps "
                                                              "half_pixel because the input length is 4",
}
RESIZE_CASES = node_cases("Resize") + node_cases("Upsample")
MAPPED = [case for case in RESIZE_CASES if case.name not in NOT_MAPPED]


def test_every_onnx_case_is_run_or_listed():
    """No node case is dropped silently: each is run below or listed with its reason, and each listed one exists."""
    names = {case.name for case in RESIZE_CASES}
    assert set(NOT_MAPPED) <= names
    assert len(MAPPED) + len(NOT_MAPPED) == len(RESIZE_CASES) and len(MAPPED) >= 20


def provider_desc(case, op):
    """The RESAMPLE2 (or RESAMPLE1) desc onnxruntime's DirectML provider builds for the case, with the input."""
    attributes = node_attributes(case)
    inputs = dict(zip([i.name for i in case.model.graph.input], case.data_sets[0][0], strict=True))
    x = inputs["X"]
    out_shape = case.data_sets[0][1][0].shape
    rank = x.ndim
    axes = [a % rank for a in attributes.get("axes", range(rank))]
    scales = [1.0] * rank
    if "scales" in inputs and inputs["scales"].size:
        for axis, scale in zip(axes, inputs["scales"], strict=True):
            scales[axis] = float(scale)
    else:
        ratios = {axis: int(size) / x.shape[axis] for axis, size in zip(axes, inputs["sizes"], strict=True)}
        policy = attributes.get("keep_aspect_ratio_policy", "stretch")
        common = {"not_larger": min, "not_smaller": max}.get(policy)
        for axis in axes:
            scales[axis] = common(ratios.values()) if common else ratios[axis]
    mode = attributes.get("coordinate_transformation_mode", "half_pixel")
    roi = inputs.get("roi")
    if roi is not None and roi.size and len(roi) != 2 * rank:  # roi given for the listed axes only
        full = [0.0] * rank + [1.0] * rank
        for i, axis in enumerate(axes):
            full[axis], full[axis + rank] = float(roi[i]), float(roi[i + len(axes)])
        roi = full
    input_offsets, output_offsets = [0.0] * rank, [0.0] * rank
    for i in range(rank):
        n_in, n_out = x.shape[i], out_shape[i]
        if mode in ("half_pixel", "pytorch_half_pixel"):
            if mode == "pytorch_half_pixel" and n_in <= 1:
                scales[i] = FLT_MAX
            else:
                input_offsets[i], output_offsets[i] = 0.5, -0.5
        elif mode == "align_corners":
            scales[i] = FLT_MAX if n_in <= 1 or n_out <= 1 else (n_out - 1) / (n_in - 1)
        elif mode == "tf_half_pixel_for_nn":
            output_offsets[i] = -0.5
        elif mode == "tf_crop_and_resize":
            if n_in > 1:
                input_offsets[i] = -(float(roi[i]) * (n_in - 1))
                # The provider divides by max(span, 1); ONNX by the span itself, which RESAMPLE2 can express
                # too: the exact span here (the provider's guard moves these cases, whose span is 0.6)
                scales[i] = (n_out - 1) / ((float(roi[i + rank]) - float(roi[i])) * (n_in - 1))
            else:
                input_offsets[i] = -0.5 * (float(roi[i]) + float(roi[i + rank])) * (n_in - 1)
                scales[i] = 1.0
    linear = attributes.get("mode", "nearest").lower() in ("linear", "bilinear")
    nearest = attributes.get("nearest_mode", "round_prefer_floor")
    rounding = DOWN
    if not linear:
        rounding, shift = {"round_prefer_floor": (UP, 0.5), "round_prefer_ceil": (DOWN, -0.5),
                           "floor": (DOWN, 0.0), "ceil": (UP, 0.0)}[nearest]
        if op == "RESAMPLE1":  # the provider's RESAMPLE1 form: halves up, floor by +0.5 on the input offsets
            shift = 0.5 if nearest == "floor" else 0.0
        input_offsets = [offset + shift for offset in input_offsets]
    data_type = {np.dtype(np.float32): F32, np.dtype(np.float16): F16}[x.dtype]
    mode_value = LINEAR if linear else NEAREST
    x_desc, y_desc = tensor(data_type, x.shape), tensor(data_type, out_shape)
    if op == "RESAMPLE1":
        return resample1(x_desc, y_desc, mode_value, scales, input_offsets, output_offsets), x
    return resample2(x_desc, y_desc, mode_value, rounding, scales, input_offsets, output_offsets), x


# RESAMPLE1 cannot express the ties of round_prefer_floor (it rounds halves up) nor ceil
RESAMPLE1_UNEXPRESSIBLE = {"round_prefer_floor", "ceil"}


@pytest.mark.parametrize("case", MAPPED, ids=case_ids(MAPPED))
def test_onnx_resize_node_cases(device, case):
    desc, x = provider_desc(case, "RESAMPLE2")
    expected = case.data_sets[0][1][0]
    got = run(device, desc, x)
    bound = np.full(expected.shape, np.max(np.abs(x)))
    report = compare_ulps(got, expected, np.float32, 10, bound)
    assert report.ok, report.describe(case.name)
    attributes = node_attributes(case)
    nearest = attributes.get("mode", "nearest").lower() == "nearest"
    if nearest and attributes.get("nearest_mode", "round_prefer_floor") in RESAMPLE1_UNEXPRESSIBLE:
        return
    desc, x = provider_desc(case, "RESAMPLE1")
    report = compare_ulps(run(device, desc, x), expected, np.float32, 10, bound)
    assert report.ok, report.describe(f"{case.name} (RESAMPLE1)")


