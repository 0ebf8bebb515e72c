"""Pooling cases for the differential harness (dmlsim/operators/harness.py).

Draws 4-D and 5-D pooling over every data type the member's page allows, windows of 1-3 taps per axis, strides,
dilations (members with Dilations), start/end paddings up to a window's size or more (windows that read only
padding included), OutputIndicesTensor present or null and UINT32/UINT64 (members with it), IncludePadding both
ways, P 1-4, every tensor in a random layout (broadcast inputs too). Tolerance: max is exact (a chosen element,
stored unchanged; indices compare exactly); average sums at most 27 float32 terms, within 27 + 2 ulps of the mean
of their magnitudes (the bound), FLOAT16 1 ulp after the half rounding; Lp sums T scaled powers (pown) and takes a
root (rootn), no cancellation: T + 8 ulps of the result (pown and rootn each within a few ulps on the drivers
here; OpenCL allows 16), FLOAT16 1 ulp. MAX_UNPOOLING (draw_unpooling) moves values: exact. MAX_POOLING_GRAD and
AVERAGE_POOLING_GRAD (draw_grad): an element sums at most T = prod(WindowSize) terms in float32 (the max gradient's
unchanged, the average's each divided once), within T + 2 ulps of the sum of the terms' magnitudes (the bound: the same
gradient of |InputGradientTensor|), FLOAT16 1 ulp; InputTensor of small integers, so ties are many.
QUANTIZED_LINEAR_AVERAGE_POOLING (draw_quantized): INT8/UINT8 in and out (mixed), 4-D and 5-D, per-tensor and
per-channel scales (moderate positive floats; the page leaves a scale of 0 undefined) and zero points present or
absent; the integer outputs compare exactly (the reference repeats the kernel's float32 steps).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.operators.harness import Case, draw_tensor, draw_valid
from dmlsim.operators.typed import FLOAT16, FLOAT32, INT8, INTEGERS, UINT8, UINT32, UINT64


def draw_unpooling(op: Any, rng: np.random.Generator) -> Case:
    """MAX_UNPOOLING: 4-D tensors, every data type, UINT32/UINT64 indices (never broadcast: repeated indices leave
    the landing element unspecified), distinct index values, a few past the output's end (skipped)."""

    def attempt(r: np.random.Generator) -> Case:
        x_sizes = [int(r.integers(1, 3)), int(r.integers(1, 3)), int(r.integers(1, 4)), int(r.integers(1, 4))]
        out_sizes = [*x_sizes[:2], x_sizes[2] * int(r.integers(1, 3)) + int(r.integers(0, 2)),
                     x_sizes[3] * int(r.integers(1, 3)) + int(r.integers(0, 2))]
        dtype = int(r.choice([FLOAT32, FLOAT16, *INTEGERS]))
        out_count = int(np.prod(out_sizes))

        def indices(rr: np.random.Generator, sizes: tuple[int, ...], data_type: int) -> np.ndarray:
            values = rr.permutation(out_count + 3)[:int(np.prod(sizes))]
            return values.astype(np.uint32 if data_type == UINT32 else np.uint64).reshape(sizes)

        desc = op.desc_cls(InputTensor=draw_tensor(r, dtype, x_sizes),
                           IndicesTensor=draw_tensor(r, int(r.choice([UINT32, UINT64])), x_sizes, broadcast=False),
                           OutputTensor=draw_tensor(r, dtype, out_sizes, role="output"))
        return Case(desc, fills={"IndicesTensor": indices}, ulps=0, ulps16=0, note=f"{x_sizes} -> {out_sizes}")

    return draw_valid(op, rng, attempt)


def draw_grad(op: Any, rng: np.random.Generator) -> Case:
    """MAX_POOLING_GRAD (4-D) / AVERAGE_POOLING_GRAD (4-D and 5-D): FLOAT32/FLOAT16, windows of 1-3 taps, strides,
    dilations (the max gradient), paddings (windows of only padding included), IncludePadding both ways, any layouts."""

    def attempt(r: np.random.Generator) -> Case:
        fields = op.desc_cls.__dataclass_fields__
        spatial = 2 if "InputTensor" in fields else int(r.choice([2, 3]))  # MAX_POOLING_GRAD: 4-D only
        window = [int(r.integers(1, 4)) for _ in range(spatial)]
        strides = [int(r.integers(1, 3)) for _ in range(spatial)]
        dilations = [int(r.integers(1, 3)) for _ in range(spatial)] if "Dilations" in fields else [1] * spatial
        start = [int(r.integers(0, 3)) for _ in range(spatial)]
        end = [int(r.integers(0, 3)) for _ in range(spatial)]
        size_in = [max(1, (window[i] - 1) * dilations[i] + 1 - start[i] - end[i]) + int(r.integers(0, 3))
                   for i in range(spatial)]
        out = [(size_in[i] + start[i] + end[i] - (window[i] - 1) * dilations[i] - 1) // strides[i] + 1
               for i in range(spatial)]
        lead = [int(r.integers(1, 3)), int(r.integers(1, 3))]
        dtype = int(r.choice([FLOAT32, FLOAT16]))
        values: dict[str, Any] = {
            "InputGradientTensor": draw_tensor(r, dtype, [*lead, *out]),
            "OutputGradientTensor": draw_tensor(r, dtype, [*lead, *size_in], role="output"),
            "DimensionCount": spatial, "Strides": strides, "WindowSize": window, "StartPadding": start,
            "EndPadding": end}
        fills: dict[str, Any] = {}
        if "Dilations" in fields:
            values["Dilations"] = dilations
        if "InputTensor" in fields:
            values["InputTensor"] = draw_tensor(r, dtype, [*lead, *size_in])
            if r.random() < 0.7:
                fills["InputTensor"] = lambda rr, sizes, data_type: rr.integers(-2, 3, sizes).astype(
                    np.float32 if data_type == FLOAT32 else np.float16)
        if "IncludePadding" in fields:
            values["IncludePadding"] = bool(r.random() < 0.5)
        desc = op.desc_cls(**values)

        def bound(inputs: dict[str, Any]) -> dict[str, Any]:
            from dmlsim.operators.pooling.reference import PoolingGeometry, average_pooling_grad, max_pooling_grad

            g = PoolingGeometry(tuple(strides), tuple(window), tuple(start), tuple(end), tuple(dilations))
            magnitude = np.abs(np.asarray(inputs["InputGradientTensor"], np.float64))
            if "InputTensor" in values:
                return {"OutputGradientTensor": max_pooling_grad(inputs["InputTensor"], magnitude, g)}
            return {"OutputGradientTensor": average_pooling_grad(magnitude, g, tuple(size_in),
                                                                 values["IncludePadding"])}

        note = f"{spatial}-D window {window} strides {strides} dilations {dilations} pads {start}/{end}"
        return Case(desc, fills=fills, ulps=int(np.prod(window)) + 2, ulps16=1, bound=bound, note=note)

    return draw_valid(op, rng, attempt)


def draw_quantized(op: Any, rng: np.random.Generator) -> Case:
    def attempt(r: np.random.Generator) -> Case:
        spatial = int(r.choice([2, 3]))
        window = [int(r.integers(1, 4)) for _ in range(spatial)]
        strides = [int(r.integers(1, 3)) for _ in range(spatial)]
        dilations = [int(r.integers(1, 3)) for _ in range(spatial)]
        start = [int(r.integers(0, 3)) for _ in range(spatial)]
        end = [int(r.integers(0, 3)) for _ in range(spatial)]
        size_in = [max(1, (window[i] - 1) * dilations[i] + 1 - start[i] - end[i]) + int(r.integers(0, 3))
                   for i in range(spatial)]
        out = [(size_in[i] + start[i] + end[i] - (window[i] - 1) * dilations[i] - 1) // strides[i] + 1
               for i in range(spatial)]
        batch, channels = int(r.integers(1, 3)), int(r.integers(1, 4))
        in_type, out_type = int(r.choice([INT8, UINT8])), int(r.choice([INT8, UINT8]))

        def side() -> list[int]:
            """Per channel ({1, C, 1...}) or per tensor (one element, 1 to DimensionCount dimensions)."""
            return [1, channels] + [1] * spatial if r.random() < 0.5 else [1] * int(r.integers(1, spatial + 3))

        in_sizes, out_sizes = side(), side()
        desc = op.desc_cls(
            InputTensor=draw_tensor(r, in_type, [batch, channels, *size_in]),
            InputScaleTensor=draw_tensor(r, FLOAT32, in_sizes),
            InputZeroPointTensor=draw_tensor(r, in_type, in_sizes) if r.random() < 0.7 else None,
            OutputScaleTensor=draw_tensor(r, FLOAT32, out_sizes),
            OutputZeroPointTensor=draw_tensor(r, out_type, out_sizes) if r.random() < 0.7 else None,
            OutputTensor=draw_tensor(r, out_type, [batch, channels, *out], role="output"),
            DimensionCount=spatial, Strides=strides, WindowSize=window, StartPadding=start, EndPadding=end,
            Dilations=dilations, IncludePadding=bool(r.random() < 0.5))

        def scales(rr: np.random.Generator, sizes: tuple[int, ...], data_type: int) -> np.ndarray:
            return rr.choice([0.5, 0.25, 0.1, 0.03125, 1.0, 3.0, 0.007], sizes).astype(np.float32)

        return Case(desc, fills={"InputScaleTensor": scales, "OutputScaleTensor": scales}, ulps=0, ulps16=0,
                    note=f"{spatial}-D window {window} strides {strides} dilations {dilations} pads {start}/{end}")

    return draw_valid(op, rng, attempt)


def draw(op: Any, rng: np.random.Generator) -> Case:
    if op.function == "UNPOOL":
        return draw_unpooling(op, rng)
    if op.function == "QAVERAGE":
        return draw_quantized(op, rng)
    if op.function.endswith("_GRAD"):
        return draw_grad(op, rng)

    def attempt(r: np.random.Generator) -> Case:
        fields = op.desc_cls.__dataclass_fields__
        spatial = int(r.choice([2, 3]))
        window = [int(r.integers(1, 4)) for _ in range(spatial)]
        strides = [int(r.integers(1, 3)) for _ in range(spatial)]
        dilations = [int(r.integers(1, 3)) for _ in range(spatial)] if "Dilations" in fields else [1] * spatial
        start = [int(r.integers(0, 3)) for _ in range(spatial)]
        end = [int(r.integers(0, 3)) for _ in range(spatial)]
        size_in = [max(1, (window[i] - 1) * dilations[i] + 1 - start[i] - end[i]) + int(r.integers(0, 3))
                   for i in range(spatial)]
        out = [(size_in[i] + start[i] + end[i] - (window[i] - 1) * dilations[i] - 1) // strides[i] + 1
               for i in range(spatial)]
        batch, channels = int(r.integers(1, 3)), int(r.integers(1, 3))
        if op.function == "MAX":
            dtype = int(r.choice([FLOAT32, FLOAT32, FLOAT16, FLOAT16, *INTEGERS]))
        else:
            dtype = int(r.choice([FLOAT32, FLOAT16]))
        values: dict[str, Any] = {
            "InputTensor": draw_tensor(r, dtype, [batch, channels, *size_in]),
            "OutputTensor": draw_tensor(r, dtype, [batch, channels, *out], role="output"),
            "DimensionCount": spatial, "Strides": strides, "WindowSize": window, "StartPadding": start,
            "EndPadding": end}
        if "Dilations" in fields:
            values["Dilations"] = dilations
        if "OutputIndicesTensor" in fields:
            values["OutputIndicesTensor"] = (draw_tensor(r, int(r.choice([UINT32, UINT64])), [batch, channels, *out],
                                                         role="output") if r.random() < 0.7 else None)
        if "IncludePadding" in fields:
            values["IncludePadding"] = bool(r.random() < 0.5)
        if "P" in fields:
            values["P"] = int(r.integers(1, 5))
        desc = op.desc_cls(**values)
        note = f"{spatial}-D window {window} strides {strides} dilations {dilations} pads {start}/{end}"
        if op.function == "MAX":
            return Case(desc, ulps=0, ulps16=0, note=note)
        if op.function == "LP":  # no cancellation: the result is its own magnitude bound
            return Case(desc, ulps=int(np.prod(window)) + 8, ulps16=1, note=f"{note} P {values['P']}")

        def bound(inputs: dict[str, Any]) -> dict[str, Any]:
            from dmlsim.operators.pooling.reference import PoolingGeometry, average_pooling

            g = PoolingGeometry(tuple(strides), tuple(window), tuple(start), tuple(end), tuple(dilations))
            magnitude = np.abs(np.asarray(inputs["InputTensor"], np.float64))
            return {"OutputTensor": average_pooling(magnitude, g, tuple(out), values["IncludePadding"])}

        return Case(desc, ulps=int(np.prod(window)) + 2, ulps16=1, bound=bound, note=note)

    return draw_valid(op, rng, attempt)

