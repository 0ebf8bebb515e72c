"""MATRIX_MULTIPLY_INTEGER, MATRIX_MULTIPLY_INTEGER_TO_FLOAT and QUANTIZED_LINEAR_MATRIX_MULTIPLY cases for the
differential harness (dmlsim/operators/harness.py).

Draws 2-D to 4-D products with M, N, K from 1 to 6 (sometimes K up to 40), broadcast leading dimensions and
stride-0 operands (random layouts from draw_tensor), each zero point (and TO_FLOAT's bias) null or present, zero
points and scales per tensor or per row/column at every DimensionCount the pages allow (1 to 4; TO_FLOAT's four
of one DimensionCount), sometimes OWNED_BY_DML. MATRIX_MULTIPLY_INTEGER: INT8/UINT8 for A and B independently,
the harness's adversarial integers (each type's extremes among them); INT32 output compared exactly.

TO_FLOAT: every integer type of the page (A, B and zero points of one type), FLOAT32/FLOAT16 scales, bias and
output. FLOAT32: adversarial values (integer extremes, ±inf, NaN, ±0, subnormal scales). Tolerance (as
tests/test_integer_gemm.py): each dequantized value takes two float32 roundings, their product one more, the
float32 sum one per term and the bias one: K + 6 ulps of the magnitude bound sum_k |a'·b'| + |bias|; a
dequantized value that underflows (a subnormal scale) errs by up to float32's smallest subnormal, amplified by
the other factor: underflow_bound adds that. FLOAT16 outputs take moderate values (integers in [0, 100],
scales in [-0.1, 0.1], so sums stay far below 65504) and 1 half ulp beside the float32 error (the float32 sum
rounded once to half).

QUANTIZED_LINEAR_MATRIX_MULTIPLY: INT8/UINT8 for A, B and the output independently, the six scales and zero
points of one DimensionCount; A's and the output's per row, B's per column. Its integer output is compared
exactly: the reference takes the kernel's float32 steps (reference.py), so the scales are drawn from values
that make ties likely (0.5, 0.25, float32(5/255), 0.1, ...), with ±inf and NaN among them; never 0 (undefined
behavior) nor subnormal (a device may flush float32 subnormals to zero, which OpenCL allows).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import OWNED_BY_DML, Case, draw_tensor, draw_valid, underflow_bound, uniform
from dmlsim.operators.integer_gemm.reference import per_index
from dmlsim.operators.typed import FLOAT16, FLOAT32, INT8, INT16, INT32, UINT8, UINT16, UINT32

_O = DML_OPERATOR_TYPE
WIDE_INTEGERS = (INT32, INT16, INT8, UINT32, UINT16, UINT8)


def _per_index(r: np.random.Generator, data_type: int, count: int, per_row: bool, rank: int) -> Any:
    """A zero point or scale of 1 or ``count`` values at DimensionCount ``rank``."""
    sizes = [1] * rank
    sizes[rank - 2 if per_row and rank >= 2 else rank - 1] = count if r.random() < 0.6 else 1
    desc = draw_tensor(r, data_type, sizes)
    if r.random() < 0.2:
        desc.Desc.Flags = OWNED_BY_DML
    return desc


def _optional(r: np.random.Generator, desc: Any) -> Any:
    return None if r.random() < 0.25 else desc


def _bound(values: dict[str, Any], dtype: int) -> dict[str, Any]:
    """The magnitude bound sum_k |a'·b'| + |bias| and the underflow of a dequantized value."""
    a, b = values["ATensor"], values["BTensor"]
    m, n = a.shape[-2], b.shape[-1]
    with np.errstate(all="ignore"):
        real_a = np.abs((np.asarray(a, np.int64) - per_index(values.get("AZeroPointTensor"), m)[:, None])
                        .astype(np.float64) * per_index(values["AScaleTensor"], m, np.float64)[:, None])
        real_b = np.abs((np.asarray(b, np.int64) - per_index(values.get("BZeroPointTensor"), n)[None, :])
                        .astype(np.float64) * per_index(values["BScaleTensor"], n, np.float64)[None, :])
        bound = np.matmul(real_a, real_b)
        if values.get("BiasTensor") is not None:
            bound = bound + np.abs(np.asarray(values["BiasTensor"], np.float64))
        amplification = real_a.sum(-1)[..., :, None] + real_b.sum(-2)[..., None, :] + 1.0
        return {"OutputTensor": bound + underflow_bound(dtype, amplification)}


SCALES = np.array([0.5, 0.25, 1.0, 2.0, 0.1, 5 / 255, 7 / 255, 0.75, 3.0, -0.5, 1e-3, np.inf, -np.inf, np.nan])


def _scales(rng: np.random.Generator, sizes: tuple[int, ...], data_type: int) -> np.ndarray:
    return rng.choice(SCALES, sizes).astype(np.float32)


def draw(op: Operator, rng: np.random.Generator) -> Case:
    if op.type == _O.DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY:
        return draw_valid(op, rng, lambda r: _attempt_qlinear(op, r))
    to_float = op.type == _O.DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT

    def attempt(r: np.random.Generator) -> Case:
        rank = int(r.choice([2, 3, 4]))
        m, n = int(r.integers(1, 7)), int(r.integers(1, 7))
        k = int(r.integers(1, 41)) if r.random() < 0.3 else int(r.integers(1, 7))
        lead = [int(r.integers(1, 3)) for _ in range(rank - 2)]
        note = f"M={m} N={n} K={k}"
        if not to_float:
            a_type, b_type = int(r.choice([INT8, UINT8])), int(r.choice([INT8, UINT8]))
            desc = op.desc_cls(ATensor=draw_tensor(r, a_type, [*lead, m, k]),
                               AZeroPointTensor=_optional(r, _per_index(r, a_type, m, True, int(r.integers(1, 5)))),
                               BTensor=draw_tensor(r, b_type, [*lead, k, n]),
                               BZeroPointTensor=_optional(r, _per_index(r, b_type, n, False, int(r.integers(1, 5)))),
                               OutputTensor=draw_tensor(r, INT32, [*lead, m, n], role="output"))
            return Case(desc, note=note)
        int_type, float_type = int(r.choice(WIDE_INTEGERS)), int(r.choice([FLOAT32, FLOAT16]))
        scale_rank = int(r.integers(1, 5))
        desc = op.desc_cls(ATensor=draw_tensor(r, int_type, [*lead, m, k]),
                           AScaleTensor=_per_index(r, float_type, m, True, scale_rank),
                           AZeroPointTensor=_optional(r, _per_index(r, int_type, m, True, scale_rank)),
                           BTensor=draw_tensor(r, int_type, [*lead, k, n]),
                           BScaleTensor=_per_index(r, float_type, n, False, scale_rank),
                           BZeroPointTensor=_optional(r, _per_index(r, int_type, n, False, scale_rank)),
                           BiasTensor=_optional(r, draw_tensor(r, float_type, [*lead, m, n])),
                           OutputTensor=draw_tensor(r, float_type, [*lead, m, n], role="output"))
        fills = {}
        if float_type == FLOAT16:
            integers = ("ATensor", "AZeroPointTensor", "BTensor", "BZeroPointTensor")
            fills = {name: uniform(0, 100) for name in integers}
            fills.update({name: uniform(-0.1, 0.1) for name in ("AScaleTensor", "BScaleTensor")})
            fills["BiasTensor"] = uniform(-4, 4)
        return Case(desc, fills=fills, ulps=k + 6, ulps16=1, bound=lambda values: _bound(values, float_type),
                    note=note)

    return draw_valid(op, rng, attempt)


def _attempt_qlinear(op: Operator, r: np.random.Generator) -> Case:
    rank = int(r.choice([2, 3, 4]))
    m, n = int(r.integers(1, 7)), int(r.integers(1, 7))
    k = int(r.integers(1, 41)) if r.random() < 0.3 else int(r.integers(1, 7))
    lead = [int(r.integers(1, 3)) for _ in range(rank - 2)]
    a_type, b_type, y_type = (int(r.choice([INT8, UINT8])) for _ in range(3))
    scale_rank = int(r.integers(1, 5))
    desc = op.desc_cls(ATensor=draw_tensor(r, a_type, [*lead, m, k]),
                       AScaleTensor=_per_index(r, FLOAT32, m, True, scale_rank),
                       AZeroPointTensor=_optional(r, _per_index(r, a_type, m, True, scale_rank)),
                       BTensor=draw_tensor(r, b_type, [*lead, k, n]),
                       BScaleTensor=_per_index(r, FLOAT32, n, False, scale_rank),
                       BZeroPointTensor=_optional(r, _per_index(r, b_type, n, False, scale_rank)),
                       OutputScaleTensor=_per_index(r, FLOAT32, m, True, scale_rank),
                       OutputZeroPointTensor=_optional(r, _per_index(r, y_type, m, True, scale_rank)),
                       OutputTensor=draw_tensor(r, y_type, [*lead, m, n], role="output"))
    fills = {name: _scales for name in ("AScaleTensor", "BScaleTensor", "OutputScaleTensor")}
    return Case(desc, fills=fills, note=f"M={m} N={n} K={k}")
