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


@pytest.mark.formula
def test_erf_on_a_dense_grid_and_its_specials(device):
    """ERF is dmlsim's own float32 erf (dmlsim.h; tools/fit_erf.py emulates it within 2.3 ulps): 16,385 points
    over [-6, 6] and 64 tiny ones (down to 1e-30, where erf(x) = 2x/sqrt(pi)) within 4 ulps of math.erf;
    erf(+-inf) = +-1, erf(-0) = -0, NaN stays NaN."""
    x = np.concatenate([np.linspace(-6, 6, 16385), np.geomspace(1e-30, 1e-3, 64)]).astype(np.float32)
    got = unary(device, "ERF", x)
    report = compare_ulps(got, stored([math.erf(float(v)) for v in x], F32), np.float32, 4)
    assert report.ok, report.describe("ERF")
    got = unary(device, "ERF", np.array([np.inf, -np.inf, -0.0, np.nan], np.float32))
    assert got[0] == 1 and got[1] == -1 and got[2] == 0 and np.signbit(got[2]) and np.isnan(got[3])


@pytest.mark.formula
def test_exp_on_a_dense_grid_and_its_specials(device):
    """EXP is dmlsim's own float32 exp (dmlsim.h's dml_exp; tools/fit_erf.py emulates it within 1.2 ulps): 65,537
    points over [-104.5, 88.72] (results from subnormal to near FLT_MAX) and 2,049 over [-1, 1] within 2 ulps of
    math.exp (a subnormal's ulp is the smallest); exp(+-0) = 1, exp(88.73) and exp(inf) = inf, exp(-104.5) and
    exp(-inf) = 0, NaN stays NaN."""
    x = np.concatenate([np.linspace(-104.5, 88.72, 65537), np.linspace(-1, 1, 2049)]).astype(np.float32)
    got = unary(device, "EXP", x)
    report = compare_ulps(got, stored([math.exp(float(v)) for v in x], F32), np.float32, 2)
    assert report.ok, report.describe("EXP")
    got = unary(device, "EXP", np.array([0.0, -0.0, 88.73, np.inf, -104.5, -np.inf, np.nan], np.float32))
    np.testing.assert_array_equal(got[:6], [1, 1, np.inf, np.inf, 0, 0])
    assert np.isnan(got[6])


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
def test_scale_bias_rounds_as_float32(device):
    """g(x) = x * Scale + Bias is computed in float32 (one rounding after each operation), as DirectML computes
    FLOAT16/FLOAT32 operators: 2^-24 * (-0.5) + 1 is 1 - 2^-25 exactly, which rounds to 1.0f, so
    pow(g, NaN) = pow(1, NaN) = 1 (C99/IEEE pow) -- a float64 g < 1 would give NaN -- and floor(g) = 1
    where a float64 g would give 0."""
    x = np.array([2.0**-24, 5.0], np.float32)
    got = binary(device, "POW", x, np.array([np.nan, 1.0], np.float32),
                 ScaleBias=dml.DML_SCALE_BIAS(-0.5, 1.0))
    np.testing.assert_array_equal(got, [1.0, -1.5])
    got = unary(device, "FLOOR", x, ScaleBias=dml.DML_SCALE_BIAS(-0.5, 1.0))
    np.testing.assert_array_equal(got, [1.0, -2.0])


def test_pow_of_minus_infinity_follows_c99(device):
    """pow(-inf, y) for y not an integer: +inf for y > 0, +0 for y < 0 (C99 Annex F, IEEE 754, OpenCL's pow),
    where numpy gives NaN (its power takes sqrt for a scalar exponent of 0.5): the reference follows the
    kernels (found by the differential harness)."""
    x = np.array([-np.inf, -np.inf, -np.inf, -np.inf], np.float32)
    y = np.array([0.5, -0.5, 3.0, -3.0], np.float32)
    np.testing.assert_array_equal(binary(device, "POW", x, y), [np.inf, 0.0, -np.inf, -0.0])
    np.testing.assert_array_equal(unary(device, "CONSTANT_POW", x, Exponent=0.5), [np.inf] * 4)  # numpy: sqrt(-inf)


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
            "not supported by DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS (supported: UINT32, UINT8)")
    refused(op("IF", ConditionTensor=f32, ATensor=f32, BTensor=f32, OutputTensor=f32), "ConditionTensor.DataType")
    refused(op("CLIP1", InputTensor=i32, OutputTensor=i32, MinMaxDataType=F32, Min=0.0, Max=1.0),
            "MinMaxDataType FLOAT32 must match OutputTensor.DataType INT32")
    refused(op("BIT_SHIFT_LEFT", ATensor=i32, BTensor=i32, OutputTensor=i32),
            "supported: UINT64, UINT32, UINT16, UINT8")
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
    h = tensor(F16, [2])
    plain = op("ADD1", ATensor=h, BTensor=h, OutputTensor=h)
    got = run(device, plain, {"ATensor": np.array([2, -7], np.float16), "BTensor": np.array([3, 4.5], np.float16)})
    np.testing.assert_array_equal(got["OutputTensor"], [5, -2.5])


# --- data types of the doc pages' tensor-support tables at DML_FEATURE_LEVEL_6_2 --------------------------
# Expected values are literals worked out by hand (wrapping arithmetic modulo 2^bits, truncating division);
# the 64-bit cases use values whose low 32 bits alone would give another answer.
I8, I16, I32, I64 = (_T.DML_TENSOR_DATA_TYPE_INT8, _T.DML_TENSOR_DATA_TYPE_INT16, _T.DML_TENSOR_DATA_TYPE_INT32,
                     _T.DML_TENSOR_DATA_TYPE_INT64)
U8, U16, U32, U64 = (_T.DML_TENSOR_DATA_TYPE_UINT8, _T.DML_TENSOR_DATA_TYPE_UINT16, _T.DML_TENSOR_DATA_TYPE_UINT32,
                     _T.DML_TENSOR_DATA_TYPE_UINT64)
F64 = _T.DML_TENSOR_DATA_TYPE_FLOAT64
INT64_MIN, INT64_MAX, UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1


def _require_fp64(device):
    if not device.backend.has_fp64:
        pytest.skip(f"{device.adapter.label} has no cl_khr_fp64: FLOAT64 is refused there (CheckFeatureSupport)")


@pytest.mark.formula
def test_64_bit_min_max(device):
    """MIN/MAX INT64/UINT64 (DML_FEATURE_LEVEL_5_0), packed and with BTensor broadcast through stride 0."""
    a = np.array([INT64_MIN, -1, 2**32 + 1, INT64_MAX], np.int64)
    b = np.array([INT64_MAX, 0, 2, INT64_MIN], np.int64)
    np.testing.assert_array_equal(binary(device, "MIN", a, b), [INT64_MIN, -1, 2, INT64_MIN])
    np.testing.assert_array_equal(binary(device, "MAX", a, b), [INT64_MAX, 0, 2**32 + 1, INT64_MAX])
    u = np.array([UINT64_MAX, 2**63, 5, 2**32], np.uint64)
    v = np.array([0, 2**63 - 1, 2**32 + 4, 1], np.uint64)
    np.testing.assert_array_equal(binary(device, "MIN", u, v), np.array([0, 2**63 - 1, 5, 1], np.uint64))
    np.testing.assert_array_equal(binary(device, "MAX", u, v), np.array([UINT64_MAX, 2**63, 2**32 + 4, 2**32],
                                                                        np.uint64))
    t = tensor(U64, [2, 2])
    desc = op("MIN", ATensor=t, BTensor=tensor(U64, [2, 2], [0, 1]), OutputTensor=t)  # strided path
    got = run(device, desc, {"ATensor": u.reshape(2, 2), "BTensor": np.array([2**63 + 1, 3], np.uint64)})
    np.testing.assert_array_equal(got["OutputTensor"].ravel(), np.array([2**63 + 1, 3, 5, 3], np.uint64))


@pytest.mark.formula
def test_64_bit_divide_and_modulus(device):
    """DIVIDE, MODULUS_TRUNCATE, MODULUS_FLOOR INT64/UINT64 (DML_FEATURE_LEVEL_6_0): truncating division,
    INT64 MIN / -1 wraps, a zero divisor gives 0 (dmlsim's choice, as for the narrower types)."""
    a = np.array([INT64_MIN, INT64_MIN, 7, -7, 7, -7, 2**40 + 3, 5], np.int64)
    b = np.array([-1, 2, 2, 2, -2, -2, 2**20, 0], np.int64)
    np.testing.assert_array_equal(binary(device, "DIVIDE", a, b), [INT64_MIN, -(2**62), 3, -3, -3, 3, 2**20, 0])
    np.testing.assert_array_equal(binary(device, "MODULUS_TRUNCATE", a, b), [0, 0, 1, -1, 1, -1, 3, 0])
    np.testing.assert_array_equal(binary(device, "MODULUS_FLOOR", a, b), [0, 0, 1, 1, -1, -1, 3, 0])
    u = np.array([UINT64_MAX, UINT64_MAX, 2**63, 10, 9], np.uint64)
    v = np.array([2, 2**63, 3, 0, 2**32], np.uint64)
    np.testing.assert_array_equal(binary(device, "DIVIDE", u, v),
                                  np.array([2**63 - 1, 1, 3074457345618258602, 0, 0], np.uint64))
    remainders = np.array([1, 2**63 - 1, 2, 0, 9], np.uint64)
    np.testing.assert_array_equal(binary(device, "MODULUS_TRUNCATE", u, v), remainders)
    np.testing.assert_array_equal(binary(device, "MODULUS_FLOOR", u, v), remainders)


@pytest.mark.formula
@pytest.mark.parametrize("out_type", [U32, U8], ids=["UINT32", "UINT8"])
def test_comparisons_of_64_bit_integers(device, out_type):
    """The comparisons take INT64/UINT64 (DML_FEATURE_LEVEL_4_1) and write UINT32 or UINT8."""
    a = np.array([INT64_MIN, 2**32, -1, 5], np.int64)
    b = np.array([INT64_MAX, 1, -1, 2**33 + 5], np.int64)
    u = np.array([UINT64_MAX, 0, 2**63], np.uint64)
    v = np.array([1, 2**63, 2**63], np.uint64)
    expected = {"LOGICAL_EQUALS": ([0, 0, 1, 0], [0, 0, 1]), "LOGICAL_GREATER_THAN": ([0, 1, 0, 0], [1, 0, 0]),
                "LOGICAL_LESS_THAN": ([1, 0, 0, 1], [0, 1, 0]),
                "LOGICAL_GREATER_THAN_OR_EQUAL": ([0, 1, 1, 0], [1, 0, 1]),
                "LOGICAL_LESS_THAN_OR_EQUAL": ([1, 0, 1, 1], [0, 1, 1])}
    for name, (signed, unsigned) in expected.items():
        got = binary(device, name, a, b, out_type)
        assert got.dtype == NUMPY[out_type], name
        np.testing.assert_array_equal(got, signed, err_msg=f"{name} INT64")
        np.testing.assert_array_equal(binary(device, name, u, v, out_type), unsigned, err_msg=f"{name} UINT64")


@pytest.mark.formula
def test_float_predicates_write_uint32(device):
    """Comparisons and IS_NAN may write UINT32 (their tables: UINT32, UINT8)."""
    a = np.array([1, 2, np.nan], np.float32)
    b = np.array([2, 2, 0], np.float32)
    got = binary(device, "LOGICAL_GREATER_THAN_OR_EQUAL", a, b, U32)
    assert got.dtype == np.uint32
    np.testing.assert_array_equal(got, [0, 1, 0])
    np.testing.assert_array_equal(unary(device, "IS_NAN", np.array([np.nan, 1, np.inf], np.float16), U32), [1, 0, 0])


@pytest.mark.formula
def test_abs_negate_sign_64_bit(device):
    """ABS and SIGN INT64 (DML_FEATURE_LEVEL_4_1), NEGATE INT64 (5_0), SIGN UINT64 (4_1)."""
    x = np.array([INT64_MIN, -(2**40), 0, 2**40 + 1, INT64_MAX], np.int64)
    np.testing.assert_array_equal(unary(device, "ABS", x), [INT64_MIN, 2**40, 0, 2**40 + 1, INT64_MAX])
    np.testing.assert_array_equal(unary(device, "NEGATE", x), [INT64_MIN, 2**40, 0, -(2**40 + 1), -INT64_MAX])
    np.testing.assert_array_equal(unary(device, "SIGN", x), [-1, -1, 0, 1, 1])
    u = np.array([0, 1, 2**63, UINT64_MAX, 2**32], np.uint64)
    np.testing.assert_array_equal(unary(device, "SIGN", u), np.array([0, 1, 1, 1, 1], np.uint64))


def _bits(values, width):
    return np.array(values, {2: np.uint16, 4: np.uint32, 8: np.uint64}[width])


# (data type, A bits, B bits, AND, OR, XOR, NOT A, BIT_COUNT A): hand-worked hex; NaN payloads must survive
BITWISE_CASES = {
    "FLOAT32": (F32, [0x3F800000, 0x7FC00001, 0xFFFFFFFF], [0xBF800000, 0x0000FFFF, 0x12345678],
                [0x3F800000, 0x00000001, 0x12345678], [0xBF800000, 0x7FC0FFFF, 0xFFFFFFFF],
                [0x80000000, 0x7FC0FFFE, 0xEDCBA987], [0xC07FFFFF, 0x803FFFFE, 0x00000000], [7, 10, 32]),
    "FLOAT16": (F16, [0x3C00, 0x7E01, 0xFFFF], [0xBC00, 0x00FF, 0x1234], [0x3C00, 0x0001, 0x1234],
                [0xBC00, 0x7EFF, 0xFFFF], [0x8000, 0x7EFE, 0xEDCB], [0xC3FF, 0x81FE, 0x0000], [4, 7, 16]),
    "FLOAT64": (F64, [0x3FF0000000000000, 0xFFFFFFFFFFFFFFFF], [0xBFF0000000000000, 0x0123456789ABCDEF],
                [0x3FF0000000000000, 0x0123456789ABCDEF], [0xBFF0000000000000, 0xFFFFFFFFFFFFFFFF],
                [0x8000000000000000, 0xFEDCBA9876543210], [0xC00FFFFFFFFFFFFF, 0], [10, 64]),
    "INT64": (I64, [0xF0F0F0F0F0F0F0F0, 0x8000000000000001], [0x0FF00FF00FF00FF0, 0x7FFFFFFFFFFFFFFF],
              [0x00F000F000F000F0, 0x0000000000000001], [0xFFF0FFF0FFF0FFF0, 0xFFFFFFFFFFFFFFFF],
              [0xFF00FF00FF00FF00, 0xFFFFFFFFFFFFFFFE], [0x0F0F0F0F0F0F0F0F, 0x7FFFFFFFFFFFFFFE], [32, 2]),
    "UINT64": (U64, [0xF0F0F0F0F0F0F0F0, 0x8000000000000001], [0x0FF00FF00FF00FF0, 0x7FFFFFFFFFFFFFFF],
               [0x00F000F000F000F0, 0x0000000000000001], [0xFFF0FFF0FFF0FFF0, 0xFFFFFFFFFFFFFFFF],
               [0xFF00FF00FF00FF00, 0xFFFFFFFFFFFFFFFE], [0x0F0F0F0F0F0F0F0F, 0x7FFFFFFFFFFFFFFE], [32, 2]),
}


@pytest.mark.formula
@pytest.mark.parametrize("case", sorted(BITWISE_CASES))
def test_bitwise_members_on_every_data_type(device, case):
    """BIT_AND/OR/XOR/NOT/COUNT on every type (DML_FEATURE_LEVEL_4_1): "the tensor data type is ignored except
    for determining the width of each element" -- float data is operated on as its bits, bit for bit."""
    data_type, a_bits, b_bits, and_, or_, xor, not_a, count = BITWISE_CASES[case]
    if data_type == F64:
        _require_fp64(device)
    width = 2 if data_type == F16 else (8 if data_type in (F64, I64, U64) else 4)
    storage = {F32: np.float32, F16: np.float16, F64: np.float64, I64: np.int64, U64: np.uint64}[data_type]
    a, b = _bits(a_bits, width).view(storage), _bits(b_bits, width).view(storage)
    t = tensor(data_type, [len(a_bits)])

    def bits_of(name, *inputs):
        fields = dict(zip(("ATensor", "BTensor") if len(inputs) == 2 else ("InputTensor",), inputs, strict=True))
        got = run(device, op(name, **{k: t for k in fields}, OutputTensor=t), fields)["OutputTensor"]
        assert got.dtype == np.dtype(storage), name
        return got.view(_bits([0], width).dtype)

    np.testing.assert_array_equal(bits_of("BIT_AND", a, b), _bits(and_, width), err_msg="AND")
    np.testing.assert_array_equal(bits_of("BIT_OR", a, b), _bits(or_, width), err_msg="OR")
    np.testing.assert_array_equal(bits_of("BIT_XOR", a, b), _bits(xor, width), err_msg="XOR")
    np.testing.assert_array_equal(bits_of("BIT_NOT", a), _bits(not_a, width), err_msg="NOT")
    for out_type in (U32, U8):
        got = run(device, op("BIT_COUNT", InputTensor=t, OutputTensor=tensor(out_type, [len(a_bits)])),
                  {"InputTensor": a})["OutputTensor"]
        np.testing.assert_array_equal(got, count, err_msg=f"BIT_COUNT to {_T(out_type).name}")


@pytest.mark.formula
def test_shifts_uint64(device):
    """BIT_SHIFT_LEFT/RIGHT UINT64 (DML_FEATURE_LEVEL_4_1). The doc does not say what a shift by the width
    or more does: dmlsim takes the amount modulo 64 (as OpenCL and HLSL do), so 64 shifts by 0 and 65 by 1."""
    s = np.array([1, 2**63, 0xF0, 1, 3], np.uint64)
    n = np.array([63, 1, 64, 65, 2**32 + 4], np.uint64)
    np.testing.assert_array_equal(binary(device, "BIT_SHIFT_LEFT", s, n), np.array([2**63, 0, 0xF0, 2, 48], np.uint64))
    np.testing.assert_array_equal(binary(device, "BIT_SHIFT_RIGHT", s, n), np.array([0, 2**62, 0xF0, 0, 0], np.uint64))


@pytest.mark.formula
def test_clip_and_threshold_on_integers(device):
    """CLIP on every integer type (DML_FEATURE_LEVEL_5_0), THRESHOLD on 8-32-bit ones (3_0), with their FLOAT
    bounds read as real numbers (dmlsim's reading): x ends in [ceil(Min), floor(Max)], bounds beyond the type
    saturate, a NaN bound is no bound."""
    x = np.array([-10, -3, -2, 0, 2, 3, 10], np.int32)
    np.testing.assert_array_equal(unary(device, "CLIP", x, Min=-2.5, Max=2.5), [-2, -2, -2, 0, 2, 2, 2])
    s = np.array([-5, -1, 0, 1, 5], np.int16)  # ceil and floor, not truncation toward zero
    np.testing.assert_array_equal(unary(device, "CLIP", s, Min=0.5, Max=4.5), [1, 1, 1, 1, 4])
    np.testing.assert_array_equal(unary(device, "CLIP", s, Min=-10, Max=-1.5), [-5, -2, -2, -2, -2])
    np.testing.assert_array_equal(unary(device, "CLIP", np.array([0, 7, 255], np.uint8), Min=-5, Max=300),
                                  [0, 7, 255])
    big = np.array([INT64_MIN, 2**62 + 1, 5], np.int64)
    np.testing.assert_array_equal(unary(device, "CLIP", big, Min=-1e30, Max=2.0**62), [INT64_MIN, 2**62, 5])
    huge = np.array([0, UINT64_MAX], np.uint64)
    np.testing.assert_array_equal(unary(device, "CLIP", huge, Min=2.0**63, Max=math.inf),
                                  np.array([2**63, UINT64_MAX], np.uint64))
    np.testing.assert_array_equal(unary(device, "CLIP", np.array([-128, 5], np.int8), Min=math.nan, Max=0), [-128, 0])
    np.testing.assert_array_equal(unary(device, "THRESHOLD", np.array([-7, 0, 7], np.int16), Min=-0.5), [0, 0, 7])
    np.testing.assert_array_equal(unary(device, "THRESHOLD", np.array([0, 5], np.uint32), Min=1e10),
                                  [2**32 - 1, 2**32 - 1])
    np.testing.assert_array_equal(unary(device, "THRESHOLD", np.array([-128, 3], np.int8), Min=math.nan), [-128, 3])


@pytest.mark.formula
def test_clip_grad_64_bit(device):
    """CLIP_GRAD INT64/UINT64 (DML_FEATURE_LEVEL_5_0): the gradient passes for Min < x < Max as real numbers."""
    def clip_grad(x, g, low, high):
        t = tensor(TYPE_OF[x.dtype], [len(x)])
        desc = op("CLIP_GRAD", InputTensor=t, InputGradientTensor=t, OutputGradientTensor=t, Min=low, Max=high)
        return run(device, desc, {"InputTensor": x, "InputGradientTensor": g})["OutputGradientTensor"]

    g = np.array([1, 2, 3, 4], np.int64)
    x = np.array([2**40, 2**40 + 1, -(2**40), 0], np.int64)
    np.testing.assert_array_equal(clip_grad(x, g, -(2.0**40), 2.0**40), [0, 0, 0, 4])
    u = np.array([2**63, UINT64_MAX, 5, 0], np.uint64)
    np.testing.assert_array_equal(clip_grad(u, g.astype(np.uint64), 0.5, 2.0**64), np.array([1, 2, 3, 0], np.uint64))
    i = np.array([3, 4], np.int32)
    np.testing.assert_array_equal(clip_grad(i, i * 10, 3.0, 3.5), [0, 0])  # no integer strictly inside
    np.testing.assert_array_equal(clip_grad(i, i * 10, 3.0, 4.5), [0, 40])


@pytest.mark.formula
def test_mean_and_difference_square_on_integers(device):
    """MEAN and DIFFERENCE_SQUARE INT32/UINT32 (their tables). MEAN: the exact sum halved toward zero, as
    integer DIVIDE truncates (dmlsim's reading); DIFFERENCE_SQUARE wraps as SUBTRACT and MULTIPLY do."""
    a = np.array([2**31 - 1, -(2**31), 3, -3, -(2**31)], np.int32)
    b = np.array([2**31 - 1, -(2**31), 0, 0, 2**31 - 1], np.int32)
    np.testing.assert_array_equal(binary(device, "MEAN", a, b), [2**31 - 1, -(2**31), 1, -1, 0])
    u = np.array([2**32 - 1, 1], np.uint32)
    np.testing.assert_array_equal(binary(device, "MEAN", u, np.array([2**32 - 1, 2], np.uint32)), [2**32 - 1, 1])
    d = binary(device, "DIFFERENCE_SQUARE", np.array([5, -3, 70000], np.int32), np.array([2, 4, 0], np.int32))
    np.testing.assert_array_equal(d, [9, 49, 605032704])  # 70000^2 = 4900000000 - 2^32
    d = binary(device, "DIFFERENCE_SQUARE", np.array([0, 10], np.uint32), np.array([1, 3], np.uint32))
    np.testing.assert_array_equal(d, [1, 49])  # (0 - 1)^2 = (2^32 - 1)^2 = 1 modulo 2^32


def power(device, x, e):
    """POW with InputTensor and ExponentTensor of their own data types (DML_FEATURE_LEVEL_3_0)."""
    x, e = np.asarray(x), np.asarray(e)
    t = tensor(TYPE_OF[x.dtype], x.shape)
    desc = op("POW", InputTensor=t, ExponentTensor=tensor(TYPE_OF[e.dtype], e.shape), OutputTensor=t)
    return run(device, desc, {"InputTensor": x, "ExponentTensor": e})["OutputTensor"]


@pytest.mark.formula
def test_pow_integer_and_mixed_types(device):
    """POW on FLOAT32/16 and 8-32-bit integers with an exponent of any of them (DML_FEATURE_LEVEL_3_0).
    dmlsim's reading of the cases the doc leaves open: integer ^ integer exactly in the type (wrapping), a
    negative power 1 / x^|e| truncated (0 for |x| > 1 and for x = 0); a FLOAT base takes any exponent as a
    real number (an integer exponent keeps its parity); an integer base with a FLOAT exponent is exact when
    the exponent is integral, else the real power truncated toward zero and saturated (NaN: 0)."""
    i = power(device, np.array([2, -3, 3, 0, 1, -1, -1, 2, 5, 0], np.int32),
              np.array([10, 3, 21, 0, -5, -3, -4, -1, 0, -2], np.int32))
    np.testing.assert_array_equal(i, [1024, -27, 1870418611, 1, 1, -1, 1, 0, 1, 0])  # 3^21 modulo 2^32
    u = power(device, np.array([3, 2, 255], np.uint8), np.array([5, 8, 2**32 - 1], np.uint32))
    np.testing.assert_array_equal(u, [243, 0, 255])  # 2^8 wraps to 0; 255 = -1 modulo 2^8, odd power
    # FLOAT results: within pow's OpenCL accuracy (16 ulp) + 1; signs, zeros and infinities exactly
    f = power(device, np.array([2, -2, -1.5, 0.5, -0.5, 3], np.float32), np.array([-2, 3, 2, 9, -3, 5], np.int32))
    report = compare_ulps(f, [0.25, -8, 2.25, 2.0**-9, -8, 243], np.float32, 17)
    assert report.ok, report.describe("FLOAT32 ^ INT32")
    special = power(device, np.array([0, -0.0, -1, 1, 0.5, -2, -1], np.float32),
                    np.array([2**32 - 1, 2**32 - 1, 2**32 - 1, 2**32 - 2, 2**32 - 1, 2**31 + 1, 2**31], np.uint32))
    np.testing.assert_array_equal(special, [0, -0.0, -1, 1, 0, -np.inf, 1])
    np.testing.assert_array_equal(np.signbit(special), [False, True, True, False, False, True, False])
    h = power(device, np.array([4, 9], np.float16), np.array([0.5, 1.5], np.float32))
    assert h.dtype == np.float16
    np.testing.assert_array_equal(h, [2, 27])
    m = power(device, np.array([2, 10, -8, 7, 3, -1, 10, 0], np.int32),
              np.array([3.0, 0.5, 1 / 3, -1.0, 2.0**40, 2.0**41, 9.5, math.nan], np.float32))
    # 8; 10^0.5 = 3.16 -> 3; (-8)^(1/3) is NaN -> 0; 7^-1 -> 0; 3^(2^40) = 1 modulo 2^32 (3 has order 2^30);
    # (-1)^(2^41) = 1; 10^9.5 = 3.16e9 saturates to INT32 max; 0^NaN is NaN -> 0
    np.testing.assert_array_equal(m, [8, 3, 0, 0, 1, 1, 2**31 - 1, 0])


@pytest.mark.formula
def test_logical_members_on_uint32(device):
    """LOGICAL_AND/OR/XOR/NOT take UINT32 as well as UINT8 (their tables), every tensor the same type."""
    a = np.array([0, 0, 2**31, 7], np.uint32)
    b = np.array([0, 256, 0, 2**32 - 1], np.uint32)
    np.testing.assert_array_equal(binary(device, "LOGICAL_AND", a, b), [0, 0, 0, 1])
    np.testing.assert_array_equal(binary(device, "LOGICAL_OR", a, b), [0, 1, 1, 1])
    np.testing.assert_array_equal(binary(device, "LOGICAL_XOR", a, b), [0, 1, 1, 0])
    np.testing.assert_array_equal(unary(device, "LOGICAL_NOT", b), [1, 0, 1, 0])


@pytest.mark.formula
def test_if_float64(device):
    """IF on FLOAT64 (DML_FEATURE_LEVEL_5_0): values selected bit for bit."""
    _require_fp64(device)
    a = np.array([1 + 2.0**-52, -0.0, np.inf], np.float64)
    b = np.array([2.0**-1074, 3.0, np.nan], np.float64)
    t, c = tensor(F64, [3]), tensor(U8, [3])
    got = run(device, op("IF", ConditionTensor=c, ATensor=t, BTensor=t, OutputTensor=t),
              {"ConditionTensor": np.array([0, 1, 0], np.uint8), "ATensor": a, "BTensor": b})["OutputTensor"]
    np.testing.assert_array_equal(got.view(np.uint64), np.array([1, 0x8000000000000000, 0x7FF8000000000000],
                                                                np.uint64))


def test_data_types_beyond_the_tables_are_refused(ref_device):
    """Types the doc pages' tables do not list at DML_FEATURE_LEVEL_6_2 stay refused, the field named."""
    def refused(desc, part):
        with pytest.raises(dml.DMLError) as info:
            ref_device.CreateOperator(desc)
        assert info.value.hresult == dml.E_INVALIDARG
        assert part in str(info.value), str(info.value)

    def t(data_type):
        return tensor(data_type, [4])

    supported = "is not supported by DML_OPERATOR_ELEMENT_WISE_"
    refused(op("ADD1", ATensor=t(I32), BTensor=t(I32), OutputTensor=t(I32)),
            f"ATensor.DataType INT32 {supported}ADD1 (supported: FLOAT32, FLOAT16)")
    refused(op("ABS", InputTensor=t(U32), OutputTensor=t(U32)), f"InputTensor.DataType UINT32 {supported}ABS")
    refused(op("NEGATE", InputTensor=t(U64), OutputTensor=t(U64)), f"InputTensor.DataType UINT64 {supported}NEGATE")
    refused(op("THRESHOLD", InputTensor=t(I64), OutputTensor=t(I64), Min=0.0),
            f"InputTensor.DataType INT64 {supported}THRESHOLD")
    refused(op("MEAN", ATensor=t(I16), BTensor=t(I16), OutputTensor=t(I16)), f"ATensor.DataType INT16 {supported}MEAN")
    refused(op("DIFFERENCE_SQUARE", ATensor=t(U64), BTensor=t(U64), OutputTensor=t(U64)),
            f"ATensor.DataType UINT64 {supported}DIFFERENCE_SQUARE")
    refused(op("CONSTANT_POW", InputTensor=t(I32), OutputTensor=t(I32), Exponent=2.0),
            f"InputTensor.DataType INT32 {supported}CONSTANT_POW (supported: FLOAT32, FLOAT16)")
    refused(op("POW", InputTensor=t(I64), ExponentTensor=t(I32), OutputTensor=t(I64)),
            f"InputTensor.DataType INT64 {supported}POW")
    refused(op("POW", InputTensor=t(F32), ExponentTensor=t(U64), OutputTensor=t(F32)),
            f"ExponentTensor.DataType UINT64 {supported}POW")
    refused(op("POW", InputTensor=t(F32), ExponentTensor=t(I32), OutputTensor=t(I32)),
            "OutputTensor.DataType INT32 must equal InputTensor.DataType FLOAT32")
    refused(op("LOGICAL_AND", ATensor=t(I8), BTensor=t(I8), OutputTensor=t(I8)),
            f"ATensor.DataType INT8 {supported}LOGICAL_AND (supported: UINT32, UINT8)")
    refused(op("LOGICAL_OR", ATensor=t(U32), BTensor=t(U8), OutputTensor=t(U32)),
            "BTensor.DataType UINT8 must equal ATensor.DataType UINT32")
    refused(op("LOGICAL_LESS_THAN", ATensor=t(I64), BTensor=t(I64), OutputTensor=t(U16)),
            f"OutputTensor.DataType UINT16 {supported}LOGICAL_LESS_THAN (supported: UINT32, UINT8)")
    refused(op("IS_INFINITY", InputTensor=t(F32), OutputTensor=t(U32), InfinityMode=dml.DML_IS_INFINITY_MODE_EITHER),
            f"OutputTensor.DataType UINT32 {supported}IS_INFINITY (supported: UINT8)")
    refused(op("BIT_COUNT", InputTensor=t(F64), OutputTensor=t(U64)),
            f"OutputTensor.DataType UINT64 {supported}BIT_COUNT (supported: UINT32, UINT8)")
    refused(op("BIT_SHIFT_RIGHT", ATensor=t(I64), BTensor=t(I64), OutputTensor=t(I64)),
            f"ATensor.DataType INT64 {supported}BIT_SHIFT_RIGHT (supported: UINT64, UINT32, UINT16, UINT8)")
    refused(op("SQRT", InputTensor=t(F64), OutputTensor=t(F64)), f"InputTensor.DataType FLOAT64 {supported}SQRT")
    refused(op("ADD", ATensor=t(F64), BTensor=t(F64), OutputTensor=t(F64)), f"ATensor.DataType FLOAT64 {supported}ADD")
