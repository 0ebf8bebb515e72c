"""ROI_ALIGN / ROI_ALIGN1 cases for the differential harness (dmlsim/operators/harness.py).

Draws FLOAT32 and FLOAT16, AVERAGE and MAX, NEAREST_NEIGHBOR and LINEAR, spatial scales, pixel offsets (ROI_ALIGN1:
the 0 / 0.5 and -0.5 / 0 pairs and others), OutOfBoundsInputValue, sample bounds (Minimum 1-2, Maximum up to 4 or
UINT_MAX), AlignRegionsToCorners, ROITensor of 2-4 dimensions and BatchIndicesTensor of 1-4, UINT32/UINT64, every
tensor in a random layout. ROITensor holds moderate coordinates (regions inside, across, past and inverted over the
input; the adversarial fill would ask for 2^31 samples with Maximum UINT_MAX) with a few NaN, inf and exact ties
mixed in; batch indices include one past the batch. Tolerance: a sample is 4 float32 products, an output the average
of S <= 16 samples: 24 ulps of the average of the samples' magnitudes (the bound: the same operator on |InputTensor|
with OutOfBoundsInputValue |v|), FLOAT16 1 ulp; nearest and MAX pick an element: exact within that tolerance.
ROI_POOLING (draw_pooling): FLOAT32/FLOAT16, pooled sizes 1-3, spatial scales, ROITensor rows [BatchID, x1, y1, x2, y2]
with batch ids inside, fractional and past the batch, corners inside, across and past the input, inverted, halves
(rounding ties), NaN and inf; the output is an input element or 0: exact.
ROI_ALIGN_GRAD (draw_grad): the same regions, fields and layouts as ROI_ALIGN1 (UINT32 indices only, InputTensor
present with MAX or OutputROIGradientTensor and sometimes with AVERAGE; OutputGradientTensor, OutputROIGradientTensor
or both). Tolerance: an OutputGradientTensor element sums at most 64 terms (regions x outputs x samples reaching it,
each a float32 product of a weight and a share): 4 + 64 ulps of the sum of the terms' magnitudes (the bound: the same
operator on |InputGradientTensor|), FLOAT16 1 ulp. An OutputROIGradientTensor element sums at most 192 terms (2
channels x 6 outputs x 16 samples), each ``share * imageGrad * weight`` with about 7 roundings: 199 ulps of the sum of
the terms' magnitudes (reference.roi_align_roi_grad's ``absolute`` on |InputGradientTensor| and the finite
|InputTensor|), written as 68 ulps of 3 times that sum (ROI_BOUND_SCALE), FLOAT16 1 ulp.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import (
    DML_INTERPOLATION_MODE_LINEAR,
    DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR,
    DML_REDUCE_FUNCTION_AVERAGE,
    DML_REDUCE_FUNCTION_MAX,
)
from dmlsim.api.structs import DML_SIZE_2D
from dmlsim.operators.harness import Case, draw_tensor, draw_valid
from dmlsim.operators.typed import FLOAT16, FLOAT32, UINT32, UINT64


def draw_pooling(op: Any, rng: np.random.Generator) -> Case:
    def attempt(r: np.random.Generator) -> Case:
        dtype = int(r.choice([FLOAT32, FLOAT16]))
        batch, channels, height, width = (int(r.integers(1, 3)), int(r.integers(1, 3)), int(r.integers(1, 6)),
                                          int(r.integers(1, 6)))
        count, pooled_h, pooled_w = int(r.integers(1, 4)), int(r.integers(1, 4)), int(r.integers(1, 4))
        desc = op.desc_cls(InputTensor=draw_tensor(r, dtype, [batch, channels, height, width]),
                           ROITensor=draw_tensor(r, dtype, [1, 1, count, 5]),
                           OutputTensor=draw_tensor(r, dtype, [count, channels, pooled_h, pooled_w], role="output"),
                           SpatialScale=float(r.choice([1.0, 0.5, 0.25, 2.0])),
                           PooledSize=DML_SIZE_2D(Width=pooled_w, Height=pooled_h))

        def rois(rr: np.random.Generator, sizes: tuple[int, ...], data_type: int) -> np.ndarray:
            values = rr.uniform(-3, 2 * max(height, width) + 3, sizes)
            values = np.where(rr.random(sizes) < 0.3, np.round(values * 2) / 2, values)  # halves: rounding ties
            special = rr.random(sizes)
            values = np.where(special < 0.03, np.nan, np.where(special < 0.05, np.inf, values))
            ids = rr.choice([0.0, 0.0, 1.0, 0.5, 1.75, float(batch), -1.0], sizes[:-1])
            values[..., 0] = np.where(rr.random(sizes[:-1]) < 0.05, np.nan, ids)
            return values.astype(np.float32 if data_type == FLOAT32 else np.float16)

        return Case(desc, fills={"ROITensor": rois}, ulps=0, ulps16=0,
                    note=f"{count} regions of {batch}x{channels}x{height}x{width} to {pooled_h}x{pooled_w}")

    return draw_valid(op, rng, attempt)


# OutputROIGradientTensor sums up to 2 channels x 6 outputs x 16 samples = 192 terms, each about 7 roundings: 199
# ulps of the terms' magnitudes; its bound is scaled so that the case's 68 ulps cover that
ROI_BOUND_SCALE = 3.0


def draw_grad(op: Any, rng: np.random.Generator) -> Case:
    def attempt(r: np.random.Generator) -> Case:
        dtype = int(r.choice([FLOAT32, FLOAT16]))
        batch, channels, height, width = int(r.integers(1, 3)), int(r.integers(1, 3)), int(r.integers(1, 5)), \
            int(r.integers(1, 6))
        count, out_h, out_w = int(r.integers(1, 4)), int(r.integers(1, 3)), int(r.integers(1, 4))
        minimum = int(r.integers(1, 3))
        maximum = int(r.choice([minimum, minimum + 1, 4]))
        reduction = r.choice([DML_REDUCE_FUNCTION_AVERAGE, DML_REDUCE_FUNCTION_MAX])
        shape = [batch, channels, height, width]
        outputs = r.choice(["both", "input", "regions"])  # which gradients: both, OutputGradientTensor, the ROIs'
        with_regions = outputs != "input"
        with_input = reduction == DML_REDUCE_FUNCTION_MAX or with_regions or r.random() < 0.3
        roi_sizes = [1] * int(r.integers(0, 3)) + [count, 4]
        values: dict[str, Any] = {
            "InputTensor": draw_tensor(r, dtype, shape) if with_input else None,
            "InputGradientTensor": draw_tensor(r, dtype, [count, channels, out_h, out_w]),
            "ROITensor": draw_tensor(r, dtype, roi_sizes),
            "BatchIndicesTensor": draw_tensor(r, UINT32, [1] * int(r.integers(0, 4)) + [count]),
            "OutputGradientTensor": draw_tensor(r, dtype, shape, role="output") if outputs != "regions" else None,
            "OutputROIGradientTensor": draw_tensor(r, dtype, roi_sizes, role="output") if with_regions else None,
            "ReductionFunction": reduction,
            "InterpolationMode": r.choice([DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, DML_INTERPOLATION_MODE_LINEAR]),
            "SpatialScaleX": float(r.choice([1.0, 0.5, 2.0, 0.75])), "SpatialScaleY": float(r.choice([1.0, 0.5, 1.5])),
            "InputPixelOffset": float(r.choice([0.5, 0.0, 0.25])),
            "OutputPixelOffset": float(r.choice([-0.5, 0.0, -0.25])),
            "MinimumSamplesPerOutput": minimum, "MaximumSamplesPerOutput": maximum,
            "AlignRegionsToCorners": bool(r.random() < 0.3)}
        desc = op.desc_cls(**values)

        def rois(rr: np.random.Generator, sizes: tuple[int, ...], data_type: int) -> np.ndarray:
            corners = rr.uniform(-2, max(height, width) + 2, sizes)
            corners = np.where(rr.random(sizes) < 0.25, np.round(corners * 2) / 2, corners)  # ties of nearest
            special = rr.random(sizes)
            corners = np.where(special < 0.03, np.nan, np.where(special < 0.05, np.inf, corners))
            return corners.astype(np.float32 if data_type == FLOAT32 else np.float16)

        def indices(rr: np.random.Generator, sizes: tuple[int, ...], data_type: int) -> np.ndarray:
            return rr.integers(0, batch + 1 if rr.random() < 0.3 else batch, sizes).astype(np.uint32)

        def bound(inputs: dict[str, Any]) -> dict[str, Any]:
            from dmlsim.operators.roi.reference import roi_align_grad, roi_align_roi_grad

            magnitude = np.abs(np.asarray(inputs["InputGradientTensor"], np.float64))
            magnitude = np.where(np.isfinite(magnitude), magnitude, 0.0)
            bounds = {}
            if outputs != "regions":
                bounds["OutputGradientTensor"] = roi_align_grad(magnitude, inputs["ROITensor"],
                                                                inputs["BatchIndicesTensor"], tuple(shape),
                                                                inputs.get("InputTensor"), **op.attributes(values))
            if with_regions:
                data = np.abs(np.asarray(inputs["InputTensor"], np.float64))
                terms = roi_align_roi_grad(magnitude, inputs["ROITensor"], inputs["BatchIndicesTensor"],
                                           np.where(np.isfinite(data), data, 0.0), **op.attributes(values),
                                           absolute=True)
                bounds["OutputROIGradientTensor"] = ROI_BOUND_SCALE * terms.reshape(roi_sizes)
            return bounds

        note = f"{count} regions into {batch}x{channels}x{height}x{width} from {out_h}x{out_w}, samples " \
               f"{minimum}-{maximum}"
        return Case(desc, fills={"ROITensor": rois, "BatchIndicesTensor": indices}, ulps=68, ulps16=1, bound=bound,
                    note=note)

    return draw_valid(op, rng, attempt)


def draw(op: Any, rng: np.random.Generator) -> Case:
    if "PooledSize" in op.desc_cls.__dataclass_fields__:
        return draw_pooling(op, rng)
    if "OutputROIGradientTensor" in op.desc_cls.__dataclass_fields__:
        return draw_grad(op, rng)

    def attempt(r: np.random.Generator) -> Case:
        fields = op.desc_cls.__dataclass_fields__
        dtype = int(r.choice([FLOAT32, FLOAT16]))
        batch, channels, height, width = int(r.integers(1, 3)), int(r.integers(1, 3)), int(r.integers(1, 5)), \
            int(r.integers(1, 6))
        count, out_h, out_w = int(r.integers(1, 4)), int(r.integers(1, 3)), int(r.integers(1, 4))
        roi_sizes = [1] * int(r.integers(0, 3)) + [count, 4]
        index_sizes = [1] * int(r.integers(0, 4)) + [count]
        minimum = int(r.integers(1, 3))
        maximum = int(r.choice([minimum, minimum + 1, 4, 2**32 - 1]))
        values: dict[str, Any] = {
            "InputTensor": draw_tensor(r, dtype, [batch, channels, height, width]),
            "ROITensor": draw_tensor(r, dtype, roi_sizes),
            "BatchIndicesTensor": draw_tensor(r, int(r.choice([UINT32, UINT64])), index_sizes),
            "OutputTensor": draw_tensor(r, dtype, [count, channels, out_h, out_w], role="output"),
            "ReductionFunction": r.choice([DML_REDUCE_FUNCTION_AVERAGE, DML_REDUCE_FUNCTION_MAX]),
            "InterpolationMode": r.choice([DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, DML_INTERPOLATION_MODE_LINEAR]),
            "SpatialScaleX": float(r.choice([1.0, 0.5, 2.0, 0.75])), "SpatialScaleY": float(r.choice([1.0, 0.5, 1.5])),
            "OutOfBoundsInputValue": float(r.choice([0.0, -1.5, 7.0])),
            "MinimumSamplesPerOutput": minimum, "MaximumSamplesPerOutput": maximum}
        if "InputPixelOffset" in fields:
            values["InputPixelOffset"] = float(r.choice([0.5, 0.0, 0.25]))
            values["OutputPixelOffset"] = float(r.choice([-0.5, 0.0, -0.25]))
            values["AlignRegionsToCorners"] = bool(r.random() < 0.3)
        desc = op.desc_cls(**values)

        def rois(rr: np.random.Generator, sizes: tuple[int, ...], data_type: int) -> np.ndarray:
            extent = max(height, width)
            corners = rr.uniform(-2, extent + 2, sizes)
            corners = np.where(rr.random(sizes) < 0.25, np.round(corners * 2) / 2, corners)  # ties of nearest
            special = rr.random(sizes)
            corners = np.where(special < 0.03, np.nan, corners)
            if maximum <= 4:  # an infinite region takes Maximum samples: 2^32 of them would never finish
                corners = np.where((special >= 0.03) & (special < 0.05), np.inf, corners)
            return corners.astype(np.float32 if data_type == FLOAT32 else np.float16)

        def indices(rr: np.random.Generator, sizes: tuple[int, ...], data_type: int) -> np.ndarray:
            picked = rr.integers(0, batch + 1 if rr.random() < 0.3 else batch, sizes)
            return picked.astype(np.uint32 if data_type == UINT32 else np.uint64)

        def bound(inputs: dict[str, Any]) -> dict[str, Any]:
            magnitude = {**inputs, "InputTensor": np.abs(np.asarray(inputs["InputTensor"], np.float64))}
            attributes = op.attributes(values)
            attributes["oob"] = abs(attributes["oob"])
            from dmlsim.operators.roi.reference import roi_align

            return {"OutputTensor": roi_align(magnitude["InputTensor"], inputs["ROITensor"],
                                              inputs["BatchIndicesTensor"], (out_h, out_w), **attributes)}

        note = f"{count} regions of {batch}x{channels}x{height}x{width} to {out_h}x{out_w}, samples {minimum}-{maximum}"
        return Case(desc, fills={"ROITensor": rois, "BatchIndicesTensor": indices}, ulps=24, ulps16=1, bound=bound,
                    note=note)

    return draw_valid(op, rng, attempt)
