"""Harness draws of ELEMENT_WISE_DEQUANTIZE_LINEAR, ELEMENT_WISE_QUANTIZE_LINEAR and
ELEMENT_WISE_QUANTIZED_LINEAR_ADD.

What is drawn: every data-type combination the rules in this folder's ``__init__`` accept, 1 to 8 dimensions,
inputs with random layouts (sometimes OWNED_BY_DML), zero points present or absent, and each scale or zero point
per tensor (every stride 0; QUANTIZED_LINEAR_ADD also as a tensor of sizes 1), per axis (a stride on one
dimension only) or per element (any layout, broadcast included).

Values: integers adversarial (the types' extremes: shifts of up to 2^32 for DEQUANTIZE), scales never 0 (a
scale of 0 is undefined behavior on the doc pages). DEQUANTIZE keeps adversarial scales (±inf, NaN,
subnormals). QUANTIZE and QUANTIZED_LINEAR_ADD round ``x / scale`` to an integer output compared exactly,
and how NaN and a float32 ``x / scale`` that lands on (or rounds onto) a half-way point should come out is
being decided apart (QUANTIZE numerics): their fills avoid both. Inputs carry no NaN, scales are finite
normal numbers from a small set drawn per case, and every input whose quotient by any of those scales lies
within 2^-16 (relative) of a half-way point below 1024 is drawn again (beyond 1024 the output saturates
anyway); QUANTIZED_LINEAR_ADD takes the output scale Y and A's and B's scales of the forms Y·m/3 and Y·m/5,
so the sum divided by Y is a multiple of 1/15: at least 1/30 from any half-way point, far beyond float32's
error on sums below 4000. ±inf, ±0, subnormal and huge inputs are kept: none of them is a tie.

Tolerance: quantized outputs are integers, compared exactly. DEQUANTIZE computes ``(float)(x - zp) * scale``:
two float32 roundings, 0.5 ulp each of the shift and of the result: 2 ulps (1.5 plus margin). FLOAT16 output:
that float32 result rounded once to half: 1 half ulp.
"""

from __future__ import annotations

import numpy as np

from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.schema import OUTPUT
from dmlsim.api.tensor import NUMPY_DTYPE
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import (
    OWNED_BY_DML,
    Case,
    Fill,
    adversarial,
    draw_sizes,
    draw_tensor,
    draw_valid,
    tensor,
)
from dmlsim.operators.typed import FLOAT16, FLOAT32, INT8, INT16, INT32, UINT8, UINT16, UINT32

_O = DML_OPERATOR_TYPE


def _operand(rng: np.random.Generator, data_type: int, sizes: list[int], *, ones: bool = False) -> object:
    """A scale, zero point or input: per tensor, per axis or per element, OWNED_BY_DML one time in five."""
    flags = OWNED_BY_DML if rng.random() < 0.2 else 0
    mode = rng.choice(["tensor", "axis", "element"])
    if mode == "tensor":
        if ones and rng.random() < 0.5:
            return tensor(data_type, [1] * len(sizes), flags=flags)
        return tensor(data_type, sizes, [0] * len(sizes), flags=flags)
    if mode == "axis":
        strides = [0] * len(sizes)
        strides[int(rng.integers(len(sizes)))] = int(rng.integers(1, 3))
        return tensor(data_type, sizes, strides, flags=flags)
    desc = draw_tensor(rng, data_type, sizes)
    desc.Desc.Flags = flags
    return desc


def _scale_set(rng: np.random.Generator, data_type: int) -> np.ndarray:
    """One to three finite, normal, non-zero scales of ``data_type`` (the type's extremes among the picks)."""
    info = np.finfo(NUMPY_DTYPE[data_type])
    picks = [10.0 ** rng.uniform(-3, 3), 2.0 ** int(rng.integers(-10, 11)), 1.0, float(info.max) / 4,
             float(info.tiny) * 4, rng.uniform(0.1, 3)]
    chosen = rng.choice(picks, int(rng.integers(1, 4))) * rng.choice([-1.0, 1.0, 1.0], 1)
    return chosen.astype(NUMPY_DTYPE[data_type])


def _pick(values: np.ndarray) -> Fill:
    return lambda rng, sizes, data_type: rng.choice(values, sizes)


def _no_ties(scales: np.ndarray) -> Fill:
    """Adversarial inputs without NaN whose quotients by every scale of ``scales`` keep away from half-way points."""

    def fill(rng: np.random.Generator, sizes: tuple[int, ...], data_type: int) -> np.ndarray:
        dtype = NUMPY_DTYPE[data_type]
        values = adversarial(rng, sizes, data_type).reshape(-1)
        spread = rng.choice(scales, values.size).astype(np.float64) * rng.normal(0, 150, values.size)
        with np.errstate(all="ignore"):
            if np.dtype(dtype).kind == "i":
                spread = np.clip(np.rint(spread), np.iinfo(dtype).min, np.iinfo(dtype).max)
            values = np.where(rng.random(values.size) < 0.5, spread.astype(dtype), values)
            for _ in range(100):
                t = values.astype(np.float64)[:, None] / scales.astype(np.float64)[None, :]
                near = (np.abs(np.abs(t - np.floor(t)) - 0.5) <= 2.0**-16 * np.maximum(1.0, np.abs(t)))
                bad = np.isnan(values) | (near & (np.abs(t) < 1024)).any(axis=1)
                if not bad.any():
                    return values.reshape(sizes)
                values[bad] = rng.normal(0, 100, int(bad.sum())).astype(dtype)
        raise AssertionError("no tie-free input values found")

    return fill


def _nonzero(rng: np.random.Generator, sizes: tuple[int, ...], data_type: int) -> np.ndarray:
    values = adversarial(rng, sizes, data_type)
    return np.where(values == 0, values.dtype.type(1.5), values)


def _attempt(op: Operator, rng: np.random.Generator) -> Case:
    sizes = draw_sizes(rng, int(rng.integers(1, 9)), 96)
    zero_point = rng.random() < 0.6
    if op.type == _O.DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR:
        x_type = [INT32, INT16, INT8, UINT32, UINT16, UINT8][int(rng.integers(6))]
        scale_type = [FLOAT32, FLOAT16][int(rng.integers(2))]
        desc = op.desc_cls(_operand(rng, x_type, sizes), _operand(rng, scale_type, sizes),
                           _operand(rng, x_type, sizes) if zero_point else None,
                           draw_tensor(rng, scale_type, sizes, role=OUTPUT))
        return Case(desc, fills={"ScaleTensor": _nonzero}, ulps=2.0, ulps16=1.0)
    out_type = [INT8, UINT8][int(rng.integers(2))]
    if op.type == _O.DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR:
        x_type = [FLOAT32, FLOAT16, INT32][int(rng.integers(3))]
        scale_type = FLOAT32 if x_type == INT32 else x_type
        scales = _scale_set(rng, scale_type)
        desc = op.desc_cls(_operand(rng, x_type, sizes), _operand(rng, scale_type, sizes),
                           _operand(rng, out_type, sizes) if zero_point else None,
                           draw_tensor(rng, out_type, sizes, role=OUTPUT))
        return Case(desc, fills={"InputTensor": _no_ties(scales), "ScaleTensor": _pick(scales)},
                    note=f"scales {scales.tolist()}")
    y = float(_scale_set(rng, FLOAT32)[0])
    while abs(y) > 1e30 or abs(y) < 1e-30:
        y = float(_scale_set(rng, FLOAT32)[0])
    thirds, fifths = (np.array([y * m / d for m in (*range(-12, 0), *range(1, 13))], np.float32) for d in (3, 5))
    a_type, b_type = (int(rng.choice([INT8, UINT8])) for _ in range(2))
    fields = {}
    for name, data_type, present in (("A", a_type, True), ("B", b_type, True), ("Output", out_type, False)):
        fields[f"{name}Tensor"] = _operand(rng, data_type, sizes) if present else None
        fields[f"{name}ScaleTensor"] = _operand(rng, FLOAT32, sizes, ones=True)
        fields[f"{name}ZeroPointTensor"] = _operand(rng, data_type, sizes, ones=True) if rng.random() < 0.6 else None
    fields["OutputTensor"] = draw_tensor(rng, out_type, sizes, role=OUTPUT)
    fills = {"AScaleTensor": _pick(thirds), "BScaleTensor": _pick(fifths),
             "OutputScaleTensor": _pick(np.array([y], np.float32))}
    return Case(op.desc_cls(**fields), fills=fills, note=f"output scale {y!r}")


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid case of one of the three quantized element-wise operators."""
    return draw_valid(op, rng, lambda r: _attempt(op, r))
