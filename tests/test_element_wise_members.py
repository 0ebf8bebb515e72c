"""Every member of the element-wise family, on every adapter, against values written here.

Expected values are literals from the DirectML doc pages (ROUND's table, the formulas' worked cases) or
float64 transcriptions of the documented formulas made in this file with Python's ``math`` module, never
dmlsim's reference. Float32 tolerances are the OpenCL 1.2 full-profile accuracy bounds of the built-in the
kernel calls, plus 1 ulp for the float64 reference's rounding (exact functions: 0); FLOAT16 results, computed
in float32 and rounded once on store: 1 ulp of FLOAT16.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest
from dispatch import Dispatch, run

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps

_T = dml.DML_TENSOR_DATA_TYPE
F32, F16 = _T.DML_TENSOR_DATA_TYPE_FLOAT32, _T.DML_TENSOR_DATA_TYPE_FLOAT16
NUMPY = {F32: np.float32, F16: np.float16, _T.DML_TENSOR_DATA_TYPE_INT8: np.int8,
         _T.DML_TENSOR_DATA_TYPE_INT16: np.int16, _T.DML_TENSOR_DATA_TYPE_INT32: np.int32,
         _T.DML_TENSOR_DATA_TYPE_INT64: np.int64, _T.DML_TENSOR_DATA_TYPE_UINT8: np.uint8,
         _T.DML_TENSOR_DATA_TYPE_UINT16: np.uint16, _T.DML_TENSOR_DATA_TYPE_UINT32: np.uint32,
         _T.DML_TENSOR_DATA_TYPE_UINT64: np.uint64}
TYPE_OF = {np.dtype(v): k for k, v in NUMPY.items()}


def tensor(data_type, sizes, strides=None):
    return dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER, dml.DML_BUFFER_TENSOR_DESC(
        data_type, dml.DML_TENSOR_FLAG_NONE, len(sizes), list(sizes), None if strides is None else list(strides),
        dml.DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides), 0))


def op(name, **fields):
    """DML_OPERATOR_ELEMENT_WISE_<name> with the generated desc, fields by name."""
    desc_cls = getattr(dml, f"DML_ELEMENT_WISE_{name}_OPERATOR_DESC")
    return dml.DML_OPERATOR_DESC(getattr(dml, f"DML_OPERATOR_ELEMENT_WISE_{name}"), desc_cls(**fields))


def stored(expected, data_type):
    """A float64 result as the tensor type can hold it: beyond the type's range it is ±inf (RTE overflow)."""
    expected = np.asarray(expected, np.float64)
    limit = float(np.finfo(NUMPY[data_type]).max) * (1 + 2.0 ** -(np.finfo(NUMPY[data_type]).nmant + 1))
    return np.where(np.abs(expected) >= limit, np.copysign(np.inf, expected), expected)


def unary(device, name, x, out_type=None, **attrs):
    x = np.asarray(x)
    t = tensor(TYPE_OF[x.dtype], x.shape)
    o = t if out_type is None else tensor(out_type, x.shape)
    return run(device, op(name, InputTensor=t, OutputTensor=o, **attrs), {"InputTensor": x})["OutputTensor"]


def binary(device, name, a, b, out_type=None, **attrs):
    """A two-input member: ATensor and BTensor (POW: InputTensor and ExponentTensor)."""
    a, b = np.asarray(a), np.asarray(b)
    t = tensor(TYPE_OF[a.dtype], a.shape)
    o = t if out_type is None else tensor(out_type, a.shape)
    first, second = ("InputTensor", "ExponentTensor") if name == "POW" else ("ATensor", "BTensor")
    return run(device, op(name, **{first: t, second: t}, OutputTensor=o, **attrs),
               {first: a, second: b})["OutputTensor"]


# --- float functions: name -> (math transcription, input domain, OpenCL float32 ulp bound) ---------------
def _erf(x):
    return math.erf(x)


FLOAT_UNARY = {
    "ABS": (abs, (-50, 50), 0), "NEGATE": (lambda x: -x, (-50, 50), 0),
    "ACOS": (math.acos, (-1, 1), 4), "ASIN": (math.asin, (-1, 1), 4), "ATAN": (math.atan, (-20, 20), 5),
    "COS": (math.cos, (-10, 10), 4), "SIN": (math.sin, (-10, 10), 4), "TAN": (math.tan, (-1.5, 1.5), 5),
    "EXP": (math.exp, (-20, 20), 3), "LOG": (math.log, (1e-3, 1e3), 3), "SQRT": (math.sqrt, (0, 1e4), 3),
    "RECIP": (lambda x: 1 / x, (0.01, 100), 2.5), "CEIL": (math.ceil, (-50, 50), 0),
    "FLOOR": (math.floor, (-50, 50), 0), "ERF": (_erf, (-4, 4), 16),
    "SINH": (math.sinh, (-10, 10), 4), "COSH": (math.cosh, (-10, 10), 4), "TANH": (math.tanh, (-10, 10), 5),
    "ASINH": (math.asinh, (-50, 50), 4), "ACOSH": (math.acosh, (1, 50), 4), "ATANH": (math.atanh, (-0.99, 0.99), 5),
}


FLOAT16_SAMPLE = ["ABS", "ERF", "EXP", "SIN", "SQRT"]  # FLOAT16 storage is shared by every member
UNARY_CASES = [(n, F32) for n in sorted(FLOAT_UNARY)] + [(n, F16) for n in FLOAT16_SAMPLE]


@pytest.mark.formula
@pytest.mark.parametrize("name, data_type", UNARY_CASES, ids=[f"{n}-{_T(t).name[21:]}" for n, t in UNARY_CASES])
def test_float_functions(device, name, data_type):
    f, (low, high), ulps = FLOAT_UNARY[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    x = rng.uniform(low, high, 37).astype(NUMPY[data_type])
    got = unary(device, name, x)
    expected = stored([f(float(v)) for v in x], data_type)
    report = compare_ulps(got, expected, NUMPY[data_type], (ulps + 1) if data_type == F32 else 1)
    assert report.ok, report.describe(name)


@pytest.mark.formula
@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
def test_scale_bias_is_applied_before_the_function(device, data_type):
    x = np.linspace(-2, 2, 11).astype(NUMPY[data_type])
    got = unary(device, "EXP", x, ScaleBias=dml.DML_SCALE_BIAS(0.5, -1.0))
    expected = [math.exp(float(v) * 0.5 - 1.0) for v in x]
    report = compare_ulps(got, expected, NUMPY[data_type], 4 if data_type == F32 else 1)
    assert report.ok, report.describe("EXP(0.5x - 1)")


# g(x) = x * Scale + Bias is float32 arithmetic (each step rounded, no fma), as the kernels compute it; the function
# after it can turn one rounding into a whole unit, so the reference must round g(x) the same way. Each case:
# (member, Scale, Bias, x, FLOAT32 x, expected), worked out by hand:
#  0.1f * 10 = 0.10000000149 * 10 = 1.0000000149 -> float32 1.0 (the ulp above 1 is 1.2e-7): CEIL 1 (float64: 2);
#  0.3f * 10 = 3 + 2^-23 exactly, a tie between 3 and 3 + 2^-22 -> 3 (even): CEIL 3 (float64: 4); 1.5 * 10 = 15;
#  -0.1f * 10 -> -1.0: CEIL -1.
#  0.7f * 10 = 0.69999998808 * 10 = 6.9999998808 -> 7.0 (the ulp below 7 is 4.8e-7): FLOOR 7 (float64: 6);
#  -0.3f * 10 = -(3 + 2^-23) -> -3: FLOOR -3 (float64: -4).
#  1 + f32(1e-8) -> 1 (1e-8 is below half the ulp above 1, 6e-8): CEIL 1 (float64: 2); 2 + 1e-8 -> 2;
#  -1 + 1e-8 -> -1: CEIL -1 (float64: CEIL(-0.99999999) = -0).
#  0.1f * -10 + 1 -> -1.0 + 1 = 0: SQRT 0 (float64: SQRT(-1.5e-8) = NaN).
SCALE_BIAS_ROUNDING = [
    ("CEIL", 10, 0, [0.1, 0.3, 1.5, -0.1], [1, 3, 15, -1]),
    ("FLOOR", 10, 0, [0.7, 0.1, -0.3], [7, 1, -3]),
    ("CEIL", 1, 1e-8, [1, 2, -1], [1, 2, -1]),
    ("SQRT", -10, 1, [0.1], [0]),
]


@pytest.mark.parametrize("name, scale, bias, x, expected", SCALE_BIAS_ROUNDING,
                         ids=["ceil-product", "floor-product", "ceil-sum", "sqrt-zero"])
def test_scale_bias_rounds_to_float32_before_the_function(device, name, scale, bias, x, expected):
    """Not marked ``formula``: the Oclgrind tier runs it too."""
    got = unary(device, name, np.array(x, np.float32), ScaleBias=dml.DML_SCALE_BIAS(scale, bias))
    assert got.tolist() == expected


def test_scale_bias_on_float16_is_float32_arithmetic(device):
    """FLOAT16 is storage: 1 + f32(1e-8) is float32's 1, so CEIL gives 1 (float64 would give 2)."""
    got = unary(device, "CEIL", np.array([1, -1, 2], np.float16), ScaleBias=dml.DML_SCALE_BIAS(1, 1e-8))
    assert got.tolist() == [1, -1, 2]


@pytest.mark.formula
def test_round_matches_the_docs_table(device):
    """DML_ROUNDING_MODE's remarks: each mode on -2.5, -1.75, -1.5, -1.25, 0, 1.25, 1.5, 1.75, 2.5."""
    x = np.array([-2.5, -1.75, -1.5, -1.25, 0, 1.25, 1.5, 1.75, 2.5], np.float32)
    table = {dml.DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN: [-2, -2, -2, -1, 0, 1, 2, 2, 2],
             dml.DML_ROUNDING_MODE_TOWARD_ZERO: [-2, -1, -1, -1, 0, 1, 1, 1, 2],
             dml.DML_ROUNDING_MODE_TOWARD_INFINITY: [-3, -2, -2, -1, 0, 1, 2, 2, 3]}
    for mode, expected in table.items():
        np.testing.assert_array_equal(unary(device, "ROUND", x, RoundingMode=mode), expected, err_msg=str(mode))
        np.testing.assert_array_equal(unary(device, "ROUND", x.astype(np.float16), RoundingMode=mode), expected)


@pytest.mark.formula
def test_nan_and_infinity_tests(device):
    x = np.array([0.0, np.nan, np.inf, -np.inf, -1.0, 3e38], np.float32)
    u8 = _T.DML_TENSOR_DATA_TYPE_UINT8
    np.testing.assert_array_equal(unary(device, "IS_NAN", x, u8), [0, 1, 0, 0, 0, 0])
    modes = {dml.DML_IS_INFINITY_MODE_EITHER: [0, 0, 1, 1, 0, 0], dml.DML_IS_INFINITY_MODE_POSITIVE: [0, 0, 1, 0, 0, 0],
             dml.DML_IS_INFINITY_MODE_NEGATIVE: [0, 0, 0, 1, 0, 0]}
    for mode, expected in modes.items():
        np.testing.assert_array_equal(unary(device, "IS_INFINITY", x, u8, InfinityMode=mode), expected)


@pytest.mark.formula
def test_sign_abs_negate_on_integers(device):
    x = np.array([-128, -3, 0, 5, 127], np.int8)
    np.testing.assert_array_equal(unary(device, "SIGN", x), [-1, -1, 0, 1, 1])
    np.testing.assert_array_equal(unary(device, "ABS", x), [-128, 3, 0, 5, 127])  # |-128| wraps in INT8
    np.testing.assert_array_equal(unary(device, "NEGATE", x), [-128, 3, 0, -5, -127])
    np.testing.assert_array_equal(unary(device, "SIGN", np.array([0, 7], np.uint16)), [0, 1])
    np.testing.assert_array_equal(unary(device, "SIGN", np.array([-0.0, 2.5, -1e-30], np.float32)), [0, 1, -1])


@pytest.mark.formula
def test_attribute_members(device):
    x = np.array([-3, -0.5, 0, 0.5, 2, 9], np.float32)
    np.testing.assert_array_equal(unary(device, "THRESHOLD", x, Min=0.25), [0.25, 0.25, 0.25, 0.5, 2, 9])
    np.testing.assert_array_equal(unary(device, "CLIP", x, Min=-1, Max=1), [-1, -0.5, 0, 0.5, 1, 1])
    np.testing.assert_array_equal(unary(device, "CONSTANT_POW", x, Exponent=2), [9, 0.25, 0, 0.25, 4, 81])
    np.testing.assert_array_equal(unary(device, "CLIP", x, ScaleBias=dml.DML_SCALE_BIAS(2, 1), Min=0, Max=4),
                                  [0, 0, 1, 2, 4, 4])


@pytest.mark.formula
def test_clip1_every_integer_type_and_float16(device):
    """CLIP1 reads Min/Max as MinMaxDataType (DML_SCALAR_UNION), which must match the tensors' type."""
    for dtype in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64):
        info = np.iinfo(dtype)
        x = np.array([info.min, info.min + 1, 0 if info.min < 0 else 1, 5, info.max - 1, info.max], dtype)
        data_type = TYPE_OF[np.dtype(dtype)]
        low, high = int(info.min) + 1, int(info.max) - 1
        got = unary(device, "CLIP1", x, MinMaxDataType=data_type, Min=low, Max=high)
        np.testing.assert_array_equal(got, np.clip(x, dtype(low), dtype(high)), err_msg=np.dtype(dtype).name)
    # DxDispatch's dml_scalar_union_fp16 sample: 1..5 clipped to [2, 4] in FLOAT16
    got = unary(device, "CLIP1", np.arange(1, 6, dtype=np.float16), MinMaxDataType=F16, Min=2, Max=4)
    np.testing.assert_array_equal(got, [2, 2, 3, 4, 4])


@pytest.mark.formula
def test_clip_grad_passes_the_gradient_strictly_inside(device):
    """f(x, g) = 0 if x <= Min or x >= Max, else g (the doc's pseudo-code)."""
    x = np.array([-2, -1, -0.5, 0, 0.999, 1, 3], np.float32)
    g = np.arange(1, 8, dtype=np.float32)
    t = tensor(F32, [7])
    desc = op("CLIP_GRAD", InputTensor=t, InputGradientTensor=t, OutputGradientTensor=t, Min=-1, Max=1)
    got = run(device, desc, {"InputTensor": x, "InputGradientTensor": g})["OutputGradientTensor"]
    np.testing.assert_array_equal(got, [0, 0, 3, 4, 5, 0, 0])
    xi = np.array([-3, -2, -1, 0, 1, 2, 3], np.int32)
    ti = tensor(_T.DML_TENSOR_DATA_TYPE_INT32, [7])
    desc = op("CLIP_GRAD", InputTensor=ti, InputGradientTensor=ti, OutputGradientTensor=ti, Min=-1.5, Max=2.0)
    got = run(device, desc, {"InputTensor": xi, "InputGradientTensor": xi * 10})["OutputGradientTensor"]
    np.testing.assert_array_equal(got, [0, 0, -10, 0, 10, 0, 0])  # -1 > -1.5 passes, 2 >= 2.0 blocks
    desc = op("CLIP_GRAD1", InputTensor=ti, InputGradientTensor=ti, OutputGradientTensor=ti,
              MinMaxDataType=_T.DML_TENSOR_DATA_TYPE_INT32, Min=-1, Max=2)
    got = run(device, desc, {"InputTensor": xi, "InputGradientTensor": xi * 10})["OutputGradientTensor"]
    np.testing.assert_array_equal(got, [0, 0, 0, 0, 10, 0, 0])


FLOAT_BINARY = {
    "ADD": (lambda a, b: a + b, 0), "SUBTRACT": (lambda a, b: a - b, 0), "MULTIPLY": (lambda a, b: a * b, 0),
    "DIVIDE": (lambda a, b: a / b, 2.5), "MAX": (max, 0), "MIN": (min, 0), "MEAN": (lambda a, b: (a + b) / 2, 0),
    "POW": (lambda a, b: math.pow(abs(a), b), 16), "ATAN_YX": (math.atan2, 6),
    "DIFFERENCE_SQUARE": (lambda a, b: (a - b) ** 2, 1),
}


@pytest.mark.formula
@pytest.mark.parametrize("name, data_type", [(n, F32) for n in sorted(FLOAT_BINARY)] + [("DIVIDE", F16), ("POW", F16)],
                         ids=[f"{n}-FLOAT32" for n in sorted(FLOAT_BINARY)] + ["DIVIDE-FLOAT16", "POW-FLOAT16"])
def test_float_binary(device, name, data_type):
    f, ulps = FLOAT_BINARY[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    a = rng.uniform(-8, 8, 41).astype(NUMPY[data_type])
    b = rng.uniform(0.5, 4, 41).astype(NUMPY[data_type]) * rng.choice([-1, 1], 41).astype(NUMPY[data_type])
    if name == "POW":
        a = np.abs(a)
    got = binary(device, name, a, b)
    expected = stored([f(float(x), float(y)) for x, y in zip(a, b, strict=True)], data_type)
    report = compare_ulps(got, expected, NUMPY[data_type], (ulps + 1) if data_type == F32 else 1)
    assert report.ok, report.describe(name)


@pytest.mark.formula
def test_max_min_ignore_nan(device):
    a = np.array([np.nan, 1.0, np.nan], np.float32)
    b = np.array([2.0, np.nan, np.nan], np.float32)
    np.testing.assert_array_equal(binary(device, "MAX", a, b), [2.0, 1.0, np.nan])
    np.testing.assert_array_equal(binary(device, "MIN", a, b), [2.0, 1.0, np.nan])


@pytest.mark.formula
def test_integer_arithmetic_wraps_and_truncates(device):
    a = np.array([7, -7, 7, -7, 100, -128, 5], np.int8)
    b = np.array([2, 2, -2, -2, 100, -1, 0], np.int8)
    np.testing.assert_array_equal(binary(device, "ADD", a, b), [9, -5, 5, -9, -56, 127, 5])
    np.testing.assert_array_equal(binary(device, "SUBTRACT", a, b), [5, -9, 9, -5, 0, -127, 5])
    np.testing.assert_array_equal(binary(device, "MULTIPLY", a, b), [14, -14, -14, 14, 16, -128, 0])
    # truncation toward zero; -128 / -1 wraps; a zero divisor gives 0 (dmlsim's choice)
    np.testing.assert_array_equal(binary(device, "DIVIDE", a, b), [3, -3, -3, 3, 1, -128, 0])
    np.testing.assert_array_equal(binary(device, "MAX", a, b), [7, 2, 7, -2, 100, -1, 5])
    u = np.array([0, 1, 2**32 - 1], np.uint32)
    np.testing.assert_array_equal(binary(device, "SUBTRACT", u, np.array([1, 1, 2**32 - 1], np.uint32)),
                                  [2**32 - 1, 0, 0])
    big = np.array([2**62, -(2**63)], np.int64)
    np.testing.assert_array_equal(binary(device, "ADD", big, np.array([2**62, -1], np.int64)), [-(2**63), 2**63 - 1])


@pytest.mark.formula
def test_modulus(device):
    """MODULUS_TRUNCATE: a - b * trunc(a / b) (sign of a); MODULUS_FLOOR: a - b * floor(a / b) (sign of b)."""
    a = np.array([7, -7, 7, -7, 6], np.int32)
    b = np.array([3, 3, -3, -3, 3], np.int32)
    np.testing.assert_array_equal(binary(device, "MODULUS_TRUNCATE", a, b), [1, -1, 1, -1, 0])
    np.testing.assert_array_equal(binary(device, "MODULUS_FLOOR", a, b), [1, 2, -2, -1, 0])
    af = np.array([5.5, -5.5, 5.5, -5.5], np.float32)
    bf = np.array([2, 2, -2, -2], np.float32)
    np.testing.assert_array_equal(binary(device, "MODULUS_TRUNCATE", af, bf), [1.5, -1.5, 1.5, -1.5])
    np.testing.assert_array_equal(binary(device, "MODULUS_FLOOR", af, bf), [1.5, 0.5, -0.5, -1.5])


@pytest.mark.formula
def test_comparisons_write_uint8(device):
    u8 = _T.DML_TENSOR_DATA_TYPE_UINT8
    a = np.array([1, 2, 3, np.nan], np.float32)
    b = np.array([2, 2, 2, np.nan], np.float32)
    expected = {"LOGICAL_EQUALS": [0, 1, 0, 0], "LOGICAL_GREATER_THAN": [0, 0, 1, 0],
                "LOGICAL_LESS_THAN": [1, 0, 0, 0], "LOGICAL_GREATER_THAN_OR_EQUAL": [0, 1, 1, 0],
                "LOGICAL_LESS_THAN_OR_EQUAL": [1, 1, 0, 0]}
    for name, values in expected.items():
        got = binary(device, name, a, b, u8)
        assert got.dtype == np.uint8
        np.testing.assert_array_equal(got, values, err_msg=name)
    ints = binary(device, "LOGICAL_LESS_THAN", np.array([-1, 5], np.int16), np.array([0, 5], np.int16), u8)
    np.testing.assert_array_equal(ints, [1, 0])


@pytest.mark.formula
def test_logical_and_bit_operators(device):
    a = np.array([0, 0, 1, 7], np.uint8)
    b = np.array([0, 3, 0, 255], np.uint8)
    np.testing.assert_array_equal(binary(device, "LOGICAL_AND", a, b), [0, 0, 0, 1])
    np.testing.assert_array_equal(binary(device, "LOGICAL_OR", a, b), [0, 1, 1, 1])
    np.testing.assert_array_equal(binary(device, "LOGICAL_XOR", a, b), [0, 1, 1, 0])
    np.testing.assert_array_equal(unary(device, "LOGICAL_NOT", a), [1, 1, 0, 0])
    x = np.array([0b1100, 0b1010, -1, 0], np.int32)
    y = np.array([0b1010, 0b0110, 5, 0], np.int32)
    np.testing.assert_array_equal(binary(device, "BIT_AND", x, y), [0b1000, 0b0010, 5, 0])
    np.testing.assert_array_equal(binary(device, "BIT_OR", x, y), [0b1110, 0b1110, -1, 0])
    np.testing.assert_array_equal(binary(device, "BIT_XOR", x, y), [0b0110, 0b1100, -6, 0])
    np.testing.assert_array_equal(unary(device, "BIT_NOT", x), [-13, -11, 0, -1])
    np.testing.assert_array_equal(unary(device, "BIT_COUNT", x, _T.DML_TENSOR_DATA_TYPE_UINT8), [2, 2, 32, 0])
    s = np.array([1, 0x80, 3, 1], np.uint8)
    n = np.array([3, 1, 9, 8], np.uint8)  # shift amounts modulo 8 (dmlsim's choice, as OpenCL/HLSL)
    np.testing.assert_array_equal(binary(device, "BIT_SHIFT_LEFT", s, n), [8, 0, 6, 1])
    np.testing.assert_array_equal(binary(device, "BIT_SHIFT_RIGHT", s, n), [0, 0x40, 1, 1])


@pytest.mark.formula
def test_if_selects_by_condition(device):
    cond = np.array([1, 0, 255, 0], np.uint8)
    a = np.array([1.5, 2.5, 3.5, 4.5], np.float32)
    b = np.array([-1, -2, -3, -4], np.float32)
    t, c = tensor(F32, [2, 2]), tensor(_T.DML_TENSOR_DATA_TYPE_UINT8, [2, 2])
    got = run(device, op("IF", ConditionTensor=c, ATensor=t, BTensor=t, OutputTensor=t),
              {"ConditionTensor": cond.reshape(2, 2), "ATensor": a.reshape(2, 2), "BTensor": b.reshape(2, 2)})
    np.testing.assert_array_equal(got["OutputTensor"].ravel(), [1.5, -2, 3.5, -4])


def test_binary_broadcast_through_stride_zero_and_in_place(device):
    """A [3, 4] plus a [4] row broadcast over the rows (BTensor strides [0, 1]), written over ATensor."""
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    row = np.array([10, 20, 30, 40], np.float32)
    t = tensor(F32, [3, 4])
    desc = op("ADD", ATensor=t, BTensor=tensor(F32, [3, 4], [0, 1]), OutputTensor=t)
    dispatch = Dispatch(device, desc, inplace={"OutputTensor": "ATensor"})
    dispatch.write("ATensor", a)
    dispatch.write("BTensor", row)
    dispatch.execute()
    np.testing.assert_array_equal(dispatch.read("OutputTensor"), a + row)
    np.testing.assert_array_equal(dispatch.read("ATensor"), a + row)


@pytest.mark.parametrize("count", [3, 8, 9, 8193])
def test_packed_path_covers_every_element(device, count):
    """Sizes around the vector width and the CPU stream chunk: every element computed, none twice."""
    a = np.arange(count, dtype=np.int32)
    np.testing.assert_array_equal(binary(device, "MULTIPLY", a, a), a * a)
    h = (np.arange(count) % 97).astype(np.float16)
    np.testing.assert_array_equal(binary(device, "SUBTRACT", h, h), np.zeros(count, np.float16))


def test_member_rules(ref_device):
    def refused(desc, *parts):
        with pytest.raises(dml.DMLError) as info:
            ref_device.CreateOperator(desc)
        assert info.value.hresult == dml.E_INVALIDARG
        for part in parts:
            assert part in str(info.value), str(info.value)

    f32, i32 = tensor(F32, [4]), tensor(_T.DML_TENSOR_DATA_TYPE_INT32, [4])
    refused(op("EXP", InputTensor=i32, OutputTensor=i32), "InputTensor.DataType INT32 is not supported by "
            "DML_OPERATOR_ELEMENT_WISE_EXP (supported: FLOAT32, FLOAT16)")
    refused(op("ADD", ATensor=f32, BTensor=tensor(F16, [4]), OutputTensor=f32), "BTensor.DataType FLOAT16 must equal")
    refused(op("ADD", ATensor=f32, BTensor=tensor(F32, [2, 2]), OutputTensor=f32), "BTensor.DimensionCount 2")
    refused(op("LOGICAL_EQUALS", ATensor=f32, BTensor=f32, OutputTensor=f32), "OutputTensor.DataType FLOAT32 is "
            "not supported by DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS (supported: UINT8)")
    refused(op("IF", ConditionTensor=f32, ATensor=f32, BTensor=f32, OutputTensor=f32), "ConditionTensor.DataType")
    refused(op("CLIP1", InputTensor=i32, OutputTensor=i32, MinMaxDataType=F32, Min=0.0, Max=1.0),
            "MinMaxDataType FLOAT32 must match OutputTensor.DataType INT32")
    refused(op("BIT_SHIFT_LEFT", ATensor=i32, BTensor=i32, OutputTensor=i32), "supported: UINT32, UINT16, UINT8")
    refused(op("ABS", InputTensor=i32, OutputTensor=i32, ScaleBias=dml.DML_SCALE_BIAS(1, 1)), "ScaleBias must be null")


def test_add1_sums_in_float32_before_a_discontinuous_activation(device):
    """ADD1's a + b is float32 arithmetic and its FusedActivation sees that sum, on every device: with
    THRESHOLDED_RELU (Alpha 1), 1 + f32(1e-8) is 1.0 in float32 (1e-8 is below half the ulp above 1, 6e-8), not
    above 1: 0 (a float64 sum, 1.00000001, would pass 1.0); 1 + f32(2e-7) = 1.0000002 rounds to 1 + 2^-22 (the
    nearer float), kept; 2 - 1e-8 -> 2.0; 0.5 + 0.5 = 1, not above: 0. With SHRINK (Bias 0.5, Threshold 1):
    -1 - 1e-8 -> -1.0, not below -1: 0 (float64: -0.5); -3 + 0 -> -3 + 0.5 = -2.5. Not marked ``formula``."""
    t = tensor(F32, [4])
    thresholded = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU,
                                        dml.DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC(None, None, 1.0))
    got = run(device, op("ADD1", ATensor=t, BTensor=t, OutputTensor=t, FusedActivation=thresholded),
              {"ATensor": np.array([1, 1, 2, 0.5], np.float32),
               "BTensor": np.array([1e-8, 2e-7, -1e-8, 0.5], np.float32)})["OutputTensor"]
    assert got.tolist() == [0, 1 + 2.0 ** -22, 2, 0]
    shrink = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_SHRINK,
                                   dml.DML_ACTIVATION_SHRINK_OPERATOR_DESC(None, None, 0.5, 1.0))
    got = run(device, op("ADD1", ATensor=t, BTensor=t, OutputTensor=t, FusedActivation=shrink),
              {"ATensor": np.array([-1, -3, 1, 0], np.float32),
               "BTensor": np.array([-1e-8, 0, 1e-8, 0], np.float32)})["OutputTensor"]
    assert got.tolist() == [0, -2.5, 0, 0]


@pytest.mark.formula
def test_add1_applies_its_fused_activation(device):
    """ADD1: FusedActivation(a + b). DxDispatch's dml_element_wise_add1 sample: ELU with Alpha 0.5 on
    [1, 2, 3] + [5, 8, -5] = [6, 10, -2]: x for x >= 0, else 0.5 * (e^x - 1)."""
    t = tensor(F32, [3])
    elu = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_ELU, dml.DML_ACTIVATION_ELU_OPERATOR_DESC(None, None, 0.5))
    desc = op("ADD1", ATensor=t, BTensor=t, OutputTensor=t, FusedActivation=elu)
    got = run(device, desc, {"ATensor": np.array([1, 2, 3], np.float32),
                             "BTensor": np.array([5, 8, -5], np.float32)})["OutputTensor"]
    report = compare_ulps(got, [6, 10, 0.5 * math.expm1(-2)], np.float32, 4)
    assert report.ok, report.describe("ADD1 + ELU")
    i32 = tensor(_T.DML_TENSOR_DATA_TYPE_INT32, [2])
    plain = op("ADD1", ATensor=i32, BTensor=i32, OutputTensor=i32)
    got = run(device, plain, {"ATensor": np.array([2, -7], np.int32), "BTensor": np.array([3, 4], np.int32)})
    np.testing.assert_array_equal(got["OutputTensor"], [5, -3])
