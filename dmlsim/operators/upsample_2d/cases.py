"""UPSAMPLE_2D cases for the differential harness (dmlsim/operators/harness.py).

Draws 4-D and 5-D FLOAT32/FLOAT16 tensors, integer scales 1-4 on height and width, both interpolation modes,
random layouts (broadcast inputs too). Tolerance (as tests/test_upsample_2d.py): a few float32 roundings of a
convex combination: 4 ulps of the largest |input| used (bound: max |x| over the whole tensor).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_INTERPOLATION_MODE
from dmlsim.api.structs import DML_SIZE_2D
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import Case, draw_sizes, draw_tensor, draw_valid


def draw(op: Operator, rng: np.random.Generator) -> Case:
    def attempt(r: np.random.Generator) -> Case:
        rank = int(r.choice([4, 5]))
        sizes = draw_sizes(r, rank, 48, largest=4)
        scale_h, scale_w = int(r.integers(1, 5)), int(r.integers(1, 5))
        dtype = int(r.choice([1, 2]))
        out = [*sizes[:-2], sizes[-2] * scale_h, sizes[-1] * scale_w]
        desc = op.desc_cls(InputTensor=draw_tensor(r, dtype, sizes),
                           OutputTensor=draw_tensor(r, dtype, out, role="output"),
                           ScaleSize=DML_SIZE_2D(scale_w, scale_h),
                           InterpolationMode=DML_INTERPOLATION_MODE(int(r.integers(2))))

        def bound(values: dict[str, Any]) -> dict[str, Any]:
            x = np.abs(np.asarray(values["InputTensor"], np.float64))
            return {"OutputTensor": np.max(np.where(np.isfinite(x), x, 0.0))}

        return Case(desc, ulps=4, ulps16=1, bound=bound, note=f"scale {scale_h}x{scale_w}")

    return draw_valid(op, rng, attempt)
