"""DML_OPERATOR_CAST on every adapter, with dmlsim's conversion rules (README "Decisions": float to integer
rounds toward zero and saturates, NaN gives 0; integer to integer wraps; to floating types rounds to
nearest even, once). Expected values are literals worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from datamove_support import (
    F16,
    F32,
    F64,
    I8,
    I32,
    I64,
    NUMPY,
    U8,
    U32,
    U64,
    operator,
    refused,
    run,
    skip_without_fp64,
    tensor,
    type_id,
)

OUT = "OutputTensor"
INF = math.inf


def cast(x_desc, y_desc):
    return operator("CAST", InputTensor=x_desc, OutputTensor=y_desc)


# Conversions are arithmetic: `formula` (not in the Oclgrind tier, whose simulator converts INT64 to FLOAT32
# through double, rounding twice: 2^60 + 2^36 + 1 becomes 2^60 there).
@pytest.mark.formula
@pytest.mark.parametrize(("source", "target", "x", "expected"), [
    (F32, I32, [1.7, -1.7, 3e9, -3e9, math.nan, 0.5], [1, -1, 2**31 - 1, -(2**31), 0, 0]),
    (F32, U8, [-5, 300, 255.9, 12.5, -0.5, INF], [0, 255, 255, 12, 0, 255]),
    (F16, I8, [-200, 127.5, -128.9, 3.75, -INF, math.nan], [-128, 127, -128, 3, -128, 0]),
    (I32, I8, [300, -129, 127, -1, 256, 2**31 - 1], [44, 127, 127, -1, 0, -1]),
    (U64, I8, [2**64 - 1, 128, 255, 2**63, 7, 0], [-1, -128, -1, 0, 7, 0]),
    (I8, U32, [-1, -128, 127, 0, 1, 5], [2**32 - 1, 2**32 - 128, 127, 0, 1, 5]),
    (I32, F16, [1, 2049, 2051, 70000, -65504, 65519], [1, 2048, 2052, INF, -65504, 65504]),
    (F32, F16, [1 / 3, 65520, 1e-8, -0.0, 6.1035156e-05, 2.0**-24], [0.333251953125, INF, 0, -0.0,
                                                                      6.103515625e-05, 2.0**-24]),
    (F16, F32, [0.1, -65504, 2.0**-24, INF, -0.0, 1.5], [0.0999755859375, -65504, 2.0**-24, INF, -0.0, 1.5]),
    (U32, F32, [16777217, 16777219, 2**32 - 1, 0, 3, 1], [16777216, 16777220, 2.0**32, 0, 3, 1]),
    (I64, F32, [2**60 + 2**36, 2**60 + 2**36 + 1, -(2**24) - 1, 0, -1, 2],  # a tie (to even), just above it
     [2.0**60, 2.0**60 + 2.0**37, -(2.0**24), 0, -1, 2]),
], ids=["f32-i32-saturates", "f32-u8-saturates", "f16-i8", "i32-i8-wraps", "u64-i8-wraps", "i8-u32-wraps",
        "i32-f16-rounds", "f32-f16-rounds", "f16-f32-exact", "u32-f32-rounds", "i64-f32-rounds"])
def test_conversions_by_hand(device, source, target, x, expected):
    got = run(device, cast(tensor(source, [2, 3]), tensor(target, [2, 3])),
              InputTensor=np.array(x, NUMPY[source]).reshape(2, 3))[OUT].ravel()
    assert got.dtype == np.dtype(NUMPY[target])
    assert [float(v) if target in (F16, F32, F64) else int(v) for v in got] == expected
    assert [math.copysign(1, v) for v in got.tolist()] == [math.copysign(1, v) for v in expected]


@pytest.mark.formula
@pytest.mark.parametrize(("source", "target", "x", "expected"), [
    (F64, F16, [1 + 2.0**-11 + 2.0**-40], [1 + 2.0**-10]),  # via float32 it would round twice, to 1.0
    (F64, I64, [1e19, -1e19, math.nan, -2.5], [2**63 - 1, -(2**63), 0, -2]),
    (I64, F64, [2**53 + 1, -(2**53) - 3], [2.0**53, -(2.0**53) - 4]),
    (F64, F32, [1 + 2.0**-24 + 2.0**-52, 1 + 2.0**-24, 1e39], [1 + 2.0**-23, 1, INF]),
], ids=["f64-f16-rounds-once", "f64-i64-saturates", "i64-f64-rounds", "f64-f32-rounds"])
def test_float64_conversions(device, source, target, x, expected):
    skip_without_fp64(device, F64)
    got = run(device, cast(tensor(source, [len(x)]), tensor(target, [len(x)])), InputTensor=np.array(x, NUMPY[source]))
    assert got[OUT].tolist() == expected


def test_cast_8d_strided(device):
    sizes = [1, 2, 1, 2, 1, 2, 1, 2]
    x = np.arange(16, dtype=np.int32).reshape(sizes) - 8
    x_desc = tensor(I32, sizes, strides=[0, 64, 0, 16, 0, 4, 0, 1])
    y_desc = tensor(F16, sizes, strides=[0, 1, 0, 2, 0, 4, 0, 8])  # reversed layout
    got = run(device, cast(x_desc, y_desc), InputTensor=x)[OUT]
    assert got.ravel().tolist() == list(range(-8, 8))


@pytest.mark.parametrize("target", [F32, I64, U8], ids=type_id)
def test_refusals_name_the_field(ref_device, target):
    assert ("DML_CAST_OPERATOR_DESC.OutputTensor.Sizes [3, 2] must equal InputTensor.Sizes [2, 3]"
            in refused(ref_device, cast(tensor(F32, [2, 3]), tensor(target, [3, 2]))))
    assert ("DML_CAST_OPERATOR_DESC.OutputTensor.DimensionCount 3 must equal InputTensor.DimensionCount 2"
            in refused(ref_device, cast(tensor(F32, [2, 3]), tensor(target, [1, 2, 3]))))
