"""RESAMPLE, RESAMPLE1, RESAMPLE2, RESAMPLE3, RESAMPLE_GRAD and RESAMPLE_GRAD1 cases for the differential harness
(dmlsim/operators/harness.py).

Draws 1-D to 4-D tensors of every data type (FLOAT32, FLOAT16, INT8, UINT8), both interpolation modes, both
rounding directions, per-axis scales (up, down, non-integer, 1), pixel offsets around the pixel centers, output
sizes near ``input * scale`` (cropped or clamped edges too), random layouts (broadcast inputs too).

INT8/UINT8 outputs compare exactly, so their linear cases keep the float32 arithmetic exact: scales 1, 2, 4 or 0.5
with offsets 0 or ±0.5 make every weight a multiple of 1/8, every product of four weights times an 8-bit
integer and every sum of 16 such products exact in float32 (rounding ties then fall the same way everywhere).

Tolerance: the output is a float32 sum of at most 16 terms, each a product of at most four float32 weights
(summing to 1) and an input: at most 4 roundings per term and 16 in the sum, each half an ulp of at most the
largest |input| used: 10 ulps of that bound (the bound: max finite |x| over the whole tensor); FLOAT16 one half
ulp after the single rounding to half. A gradient element sums the weighted gradients of every forward output that
read it (at most ``ceil(2 * scale + 2)`` per axis): 10 ulps plus one per term, of the sum of the terms'
magnitudes (the gradient of |incoming gradient|, finite values only). The gradients take FLOAT32 and FLOAT16.

RESAMPLE3 draws Antialiased both ways (its downscaling axes then read up to ``2 / scale + 1`` taps, summed to
weights that add up to 1): 10 ulps plus one per term of the product of the axes' tap counts, of the largest |x|.
Its INT8/UINT8 linear cases keep the exact scales, whose normalized antialiased weights are multiples of 1/32.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_AXIS_DIRECTION, DML_INTERPOLATION_MODE
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import Case, draw_sizes, draw_tensor, draw_valid
from dmlsim.operators.resample.reference import resample_grad
from dmlsim.operators.typed import FLOAT16, FLOAT32, INT8, UINT8

GRADIENTS = (DML_OPERATOR_TYPE.DML_OPERATOR_RESAMPLE_GRAD, DML_OPERATOR_TYPE.DML_OPERATOR_RESAMPLE_GRAD1)
FLOAT_SCALES = (0.5, 1.0, 1.5, 2.0, 3.0, 0.75, 2.5, 0.4)
EXACT_SCALES = (0.5, 1.0, 2.0, 4.0)
FLOAT_OFFSETS = (0.0, 0.5, -0.5, 0.25, 1.0)
EXACT_OFFSETS = (0.0, 0.5, -0.5)


def draw(op: Operator, rng: np.random.Generator) -> Case:
    def attempt(r: np.random.Generator) -> Case:
        rank = int(r.integers(1, 5))
        sizes = draw_sizes(r, rank, 24, largest=5)
        gradient = op.type in GRADIENTS
        data_type = int(r.choice([FLOAT32, FLOAT16] if gradient else [FLOAT32, FLOAT16, INT8, UINT8]))
        if op.type == DML_OPERATOR_TYPE.DML_OPERATOR_RESAMPLE3:  # mostly LINEAR, where Antialiased acts
            mode = DML_INTERPOLATION_MODE(int(r.random() < 0.8))
        else:
            mode = DML_INTERPOLATION_MODE(int(r.integers(2)))
        exact = data_type in (INT8, UINT8) and mode == DML_INTERPOLATION_MODE.DML_INTERPOLATION_MODE_LINEAR
        scales = [float(r.choice(EXACT_SCALES if exact else FLOAT_SCALES)) if r.random() < 0.7 else 1.0
                  for _ in range(rank)]
        offsets = EXACT_OFFSETS if exact else FLOAT_OFFSETS
        input_offsets = [float(r.choice(offsets)) for _ in range(rank)]
        output_offsets = [float(r.choice(offsets)) for _ in range(rank)]
        out = [max(1, round(n * s) + int(r.choice([0, 0, 0, -1, 1]))) for n, s in zip(sizes, scales, strict=True)]
        x, y = draw_tensor(r, data_type, sizes), draw_tensor(r, data_type, out, role="output")
        if gradient:  # the incoming gradient is shaped like the forward output, the result like its input
            x, y = draw_tensor(r, data_type, out), draw_tensor(r, data_type, sizes, role="output")
        tensors = {"InputGradientTensor": x, "OutputGradientTensor": y} if gradient else {"InputTensor": x,
                                                                                       "OutputTensor": y}
        extra: dict[str, Any] = {}
        if op.type == DML_OPERATOR_TYPE.DML_OPERATOR_RESAMPLE:
            desc = op.desc_cls(**tensors, InterpolationMode=mode, ScaleCount=rank, Scales=scales)
        else:
            if op.type in (DML_OPERATOR_TYPE.DML_OPERATOR_RESAMPLE2, DML_OPERATOR_TYPE.DML_OPERATOR_RESAMPLE_GRAD1,
                           DML_OPERATOR_TYPE.DML_OPERATOR_RESAMPLE3):
                extra["RoundingDirection"] = DML_AXIS_DIRECTION(int(r.integers(2)))
            if op.type == DML_OPERATOR_TYPE.DML_OPERATOR_RESAMPLE3:
                extra["Antialiased"] = bool(r.random() < 0.8)
            desc = op.desc_cls(**tensors, InterpolationMode=mode, DimensionCount=rank, Scales=scales,
                               InputPixelOffsets=input_offsets, OutputPixelOffsets=output_offsets, **extra)
        linear = mode == DML_INTERPOLATION_MODE.DML_INTERPOLATION_MODE_LINEAR
        rounding = "ceil" if extra.get("RoundingDirection") == 0 else "floor" if "RoundingDirection" in extra else \
            "half_up"

        def bound(values: dict[str, Any]) -> dict[str, Any]:
            magnitude = np.abs(np.asarray(values[next(iter(tensors))], np.float64))
            magnitude = np.where(np.isfinite(magnitude), magnitude, 0.0)
            if not gradient:
                return {"OutputTensor": np.max(magnitude)}
            offsets = (input_offsets, output_offsets) if op.type != DML_OPERATOR_TYPE.DML_OPERATOR_RESAMPLE else \
                ([0.5] * rank, [-0.5] * rank)
            return {"OutputGradientTensor": resample_grad(magnitude, sizes, scales, *offsets, linear, rounding)}

        # a gradient element sums the forward outputs that read it: at most 2 * scale + 2 per axis
        terms = math.prod(math.ceil(2 * s + 2) for s in scales) if gradient else 16
        if extra.get("Antialiased") and linear:
            terms = math.prod(math.ceil(2 / s + 1) if s < 1 else 2 for s in scales)
        return Case(desc, ulps=10 + terms, ulps16=1, bound=bound, note=f"scales {scales} -> {out}")

    return draw_valid(op, rng, attempt)
