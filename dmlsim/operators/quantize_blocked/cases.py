"""Harness draws of DML_OPERATOR_QUANTIZE and DML_OPERATOR_DEQUANTIZE.

What is drawn: every data-type combination the rules in this folder's ``__init__`` accept (INT4/UINT4 among the
integer types: their nibbles at odd strides and offsets, the harness checking the nibbles beside them), 1 to 8
dimensions, inputs and outputs with random layouts (inputs sometimes OWNED_BY_DML), DML_QUANTIZATION_TYPE_SCALE and
_SCALE_ZERO_POINT, and quantization tensors whose size along each dimension is 1 (per tensor), the input's
(per element) or a block count ``I / B`` for a random divisor B of I, in random layouts (padded, permuted,
stride-0 broadcast).

Values: QUANTIZE's integer output depends on where ``x / scale`` falls relative to a tie; as for
ELEMENT_WISE_QUANTIZE_LINEAR (``dmlsim.operators.quantize.cases``, whose fills are reused), scales are finite
normal numbers from a small set drawn per case and inputs avoid near-ties and NaN (ties and NaN are pinned by
literal tests in ``tests/test_quantize_blocked.py``); ±inf, ±0 and huge inputs are kept. DEQUANTIZE takes
adversarial integers and scales (±inf, NaN, subnormals).

Tolerance: quantized outputs are integers, compared exactly. DEQUANTIZE computes ``(float)(x - zp) * scale``:
the shift is exact (|x - zp| <= 255), the product rounded once to float32 (0.5 ulp): 2 ulps with margin; a
FLOAT16 output rounds that float32 once more: 1 half ulp.
"""

from __future__ import annotations

import numpy as np

from dmlsim.api.directml_schema import DML_QUANTIZATION_TYPE
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.schema import OUTPUT
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import OWNED_BY_DML, Case, Fill, adversarial, draw_sizes, draw_tensor, draw_valid
from dmlsim.operators.quantize.cases import _no_ties, _scale_set
from dmlsim.operators.quantize_blocked import INT4, UINT4
from dmlsim.operators.typed import FLOAT16, FLOAT32, INT8, UINT8


def _quantization_sizes(rng: np.random.Generator, sizes: list[int]) -> list[int]:
    """Per dimension: 1, the input's size, or I / B for a block size B drawn among the divisors of I."""
    out = []
    for n in sizes:
        mode = rng.choice(["one", "same", "block"])
        if mode == "one":
            out.append(1)
        elif mode == "same":
            out.append(n)
        else:
            out.append(n // int(rng.choice([b for b in range(1, n + 1) if n % b == 0])))
    return out


def _input(rng: np.random.Generator, data_type: int, sizes: list[int]) -> object:
    desc = draw_tensor(rng, data_type, sizes)
    if rng.random() < 0.2:
        desc.Desc.Flags = OWNED_BY_DML
    return desc


def _quantization_fill(scales: np.ndarray | None) -> Fill:
    """The scale (a float tensor) from ``scales`` when given; a zero point (or any DEQUANTIZE scale) adversarial."""

    def fill(rng: np.random.Generator, sizes: tuple[int, ...], data_type: int) -> np.ndarray:
        if scales is not None and data_type in (FLOAT32, FLOAT16):
            return rng.choice(scales, sizes)
        return adversarial(rng, sizes, data_type)

    return fill


def _attempt(op: Operator, rng: np.random.Generator) -> Case:
    sizes = draw_sizes(rng, int(rng.integers(1, 9)), 96)
    q_sizes = _quantization_sizes(rng, sizes)
    with_zero_point = rng.random() < 0.6
    float_type = [FLOAT32, FLOAT16][int(rng.integers(2))]
    int_type = [INT8, UINT8, INT4, UINT4][int(rng.integers(4))]
    quantizing = op.type == DML_OPERATOR_TYPE.DML_OPERATOR_QUANTIZE
    x_type, y_type = (float_type, int_type) if quantizing else (int_type, float_type)
    tensors = [_input(rng, float_type, q_sizes)]
    if with_zero_point:
        tensors.append(_input(rng, int_type, q_sizes))
    kind = (DML_QUANTIZATION_TYPE.DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT if with_zero_point
            else DML_QUANTIZATION_TYPE.DML_QUANTIZATION_TYPE_SCALE)
    desc = op.desc_cls(_input(rng, x_type, sizes), kind, len(tensors), tensors,
                       draw_tensor(rng, y_type, sizes, role=OUTPUT))
    note = f"quantization sizes {q_sizes} of {sizes}"
    if quantizing:
        scales = _scale_set(rng, float_type)
        return Case(desc, fills={"InputTensor": _no_ties(scales), "QuantizationTensors": _quantization_fill(scales)},
                    note=f"{note}, scales {scales.tolist()}")
    return Case(desc, fills={"QuantizationTensors": _quantization_fill(None)}, ulps=2.0, ulps16=1.0, note=note)


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid case of QUANTIZE or DEQUANTIZE."""
    return draw_valid(op, rng, lambda r: _attempt(op, r))
