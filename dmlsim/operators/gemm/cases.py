"""GEMM cases for the differential harness (dmlsim/operators/harness.py).

Draws 2-D to 4-D GEMMs with both transforms, M, N, K from 1 up to past the tiled kernel's 16 (so both the
per-element and the tiled kernel run), broadcast leading dimensions and stride-0 operands, C present or null,
every fusable activation, FLOAT32/FLOAT16. One case in four is past the packed path's threshold on CPU devices
(M, N >= 16, M*N*K >= 32^3: __init__.packs), M and N from 16 to 41 so that edge panels of A (8 rows) and B (16
columns) and vector tails (8 columns) come and go, K from the threshold up by 0 to 8 so that the unrolled loop's
remainders (K mod 4) all occur; draw_tensor's padded, permuted and stride-0 strides reach the packing kernel's
strided and transposed reads. Tolerance (as tests/test_gemm.py): float32 accumulation of K
products, one rounding each, is within K + 2 ulps of the magnitude bound |Alpha|·|A|·|B| + |Beta·C|; a fused
activation's slope is at most 9 for the attributes the harness draws (|Alpha|, |Beta| ≤ 3), so the bound is
multiplied by 9 and its own few ulps added.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_MATRIX_TRANSFORM
from dmlsim.operators.base import Operator
from dmlsim.operators.gemm import PACK_MIN_WORK
from dmlsim.operators.gemm.reference import gemm
from dmlsim.operators.harness import NICE_FLOATS, Case, draw_fused_activation, draw_tensor, draw_valid

F32, F16 = 1, 2


def draw(op: Operator, rng: np.random.Generator) -> Case:
    def attempt(r: np.random.Generator) -> Case:
        rank = int(r.choice([2, 3, 4]))
        kind = r.random()
        big = 0.25 <= kind < 0.5
        if kind < 0.25:
            m, n = int(r.integers(16, 42)), int(r.integers(16, 42))
            k = -(-PACK_MIN_WORK // (m * n)) + int(r.integers(0, 9))
        else:
            m, n, k = (int(r.integers(16, 22)) if big else int(r.integers(1, 6)) for _ in range(3))
        lead = [int(r.integers(1, 3)) for _ in range(rank - 2)]
        dtype = int(r.choice([F32, F16]))
        ta, tb = bool(r.integers(2)), bool(r.integers(2))
        a = draw_tensor(r, dtype, [*lead, *((k, m) if ta else (m, k))])
        b = draw_tensor(r, dtype, [*lead, *((n, k) if tb else (k, n))])
        c = draw_tensor(r, dtype, [*lead, m, n]) if r.random() < 0.6 else None
        out = draw_tensor(r, dtype, [*lead, m, n], role="output")
        alpha, beta = float(r.choice(NICE_FLOATS)), float(r.choice(NICE_FLOATS))
        fused = draw_fused_activation(r) if r.random() < 0.3 else None
        desc = op.desc_cls(ATensor=a, BTensor=b, CTensor=c, OutputTensor=out,
                           TransA=DML_MATRIX_TRANSFORM(int(ta)), TransB=DML_MATRIX_TRANSFORM(int(tb)),
                           Alpha=alpha, Beta=beta, FusedActivation=fused)
        slope = 9.0 if fused is not None else 1.0

        def bound(values: dict[str, Any]) -> dict[str, Any]:
            cv = values.get("CTensor")
            magnitude = gemm(np.abs(values["ATensor"]), np.abs(values["BTensor"]), None if cv is None else np.abs(cv),
                             ta, tb, abs(alpha), abs(beta))
            return {"OutputTensor": magnitude * slope}

        return Case(desc, ulps=k + 2 + (4 if fused else 0), ulps16=1 + (1 if fused else 0), bound=bound,
                    note=f"M={m} N={n} K={k}{' tiled' if big else ' packed' if kind < 0.25 else ''}")

    return draw_valid(op, rng, attempt)
