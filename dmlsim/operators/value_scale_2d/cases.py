"""Harness draws of VALUE_SCALE_2D.

What is drawn: FLOAT32 or FLOAT16, a 4-D tensor of 1 or 3 channels (the input packed, padded, permuted or
broadcast, the output packed, padded or permuted, sometimes with slack), a Scale and Biases from ±0, small
values, ±1e30 and the adversarial draw of the harness's inputs (±inf, NaN, subnormals, ties).

Tolerance: one fused multiply-add rounded once to float32 (the reference rounds the float64 value, exact but for
the bias' rounding, once): within 1 ulp of the magnitude bound ``|Scale * x| + |Bias[c]|`` (given per element).
FLOAT16 rounds that float32 result once more: 1 half ulp.
"""

from __future__ import annotations

import numpy as np

from dmlsim.api.enums import DML_TENSOR_DATA_TYPE
from dmlsim.api.schema import OUTPUT
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import Case, draw_sizes, draw_tensor, draw_valid

FLOATS = (DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_FLOAT16)


def number(rng: np.random.Generator) -> float:
    """A Scale or Bias: mostly moderate, sometimes zero, huge or not finite."""
    picks = [0.0, -0.0, 1.0, -0.5, 1e30, -1e30, np.inf, np.nan, float(rng.normal(0.0, 3.0))]
    weights = np.array([1, 1, 1, 1, 0.5, 0.5, 0.25, 0.25, 6])
    return float(picks[int(rng.choice(len(picks), p=weights / weights.sum()))])


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid VALUE_SCALE_2D case."""

    def attempt(r: np.random.Generator) -> Case:
        data_type = FLOATS[int(r.integers(2))]
        channels = int(r.choice([1, 3]))
        n, h, w = draw_sizes(r, 3, 40)
        sizes = [n, channels, h, w]
        scale, bias = number(r), [number(r) for _ in range(channels)]
        desc = op.desc_cls(draw_tensor(r, data_type, sizes), draw_tensor(r, data_type, sizes, role=OUTPUT), scale,
                           channels, bias)

        def bound(inputs: dict) -> dict:
            with np.errstate(all="ignore"):
                magnitude = abs(np.float64(scale)) * np.abs(np.asarray(inputs["InputTensor"], np.float64))
                return {"OutputTensor": magnitude + np.abs(np.asarray(bias, np.float64)).reshape(1, -1, 1, 1)}

        return Case(desc, ulps=1.0, ulps16=1.0, bound=bound, note=f"Scale {scale}, Bias {bias}")

    return draw_valid(op, rng, attempt)
