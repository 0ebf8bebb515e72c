"""DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR, _QUANTIZE_LINEAR and _QUANTIZED_LINEAR_ADD, on every adapter.

Expected values are hand-computed literals (round half to even, saturation at the type's limits, worked
out in the comments) or the doc pages' formulas transcribed here in float64 for the layout tests.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from datamove_support import F16, F32, I8, I16, I32, U8, U16, U32, operator, refused, run, tensor

import dmlsim as dml

OUT = "OutputTensor"


def dequantize(x, scale, zero_point, y):
    return operator("ELEMENT_WISE_DEQUANTIZE_LINEAR", InputTensor=x, ScaleTensor=scale,
                    ZeroPointTensor=zero_point, OutputTensor=y)


def quantize(x, scale, zero_point, y):
    return operator("ELEMENT_WISE_QUANTIZE_LINEAR", InputTensor=x, ScaleTensor=scale,
                    ZeroPointTensor=zero_point, OutputTensor=y)


def quantized_add(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, y):
    return operator("ELEMENT_WISE_QUANTIZED_LINEAR_ADD", ATensor=a, AScaleTensor=a_scale,
                    AZeroPointTensor=a_zero_point, BTensor=b, BScaleTensor=b_scale, BZeroPointTensor=b_zero_point,
                    OutputScaleTensor=y_scale, OutputZeroPointTensor=y_zero_point, OutputTensor=y)


def broadcast(data_type, sizes):
    """One value for the whole tensor: DirectML's per-tensor scale (every stride 0)."""
    return tensor(data_type, sizes, [0] * len(sizes))


# --- QUANTIZE_LINEAR ------------------------------------------------------------------------------------------
@pytest.mark.formula
@pytest.mark.parametrize(("x_type", "scale", "zero_point", "y_type", "x", "expected"), [
    # x / 0.5 = [-20, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 200, 400] -> half to even [-20, -2, -2, 0, 0, 2, 2, 200, 400]
    # + 10 = [-10, 8, 8, 10, 10, 12, 12, 210, 410] -> clamp to [0, 255]
    (F32, 0.5, 10, U8, [-10, -1.25, -0.75, -0.25, 0.25, 0.75, 1.25, 100, 200], [0, 8, 8, 10, 10, 12, 12, 210, 255]),
    # half to even [0, 2, 2, 0, -2, -2, 131, -130, 124] - 3 -> clamp to [-128, 127]
    (F32, 1.0, -3, I8, [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 131, -130, 124.5], [-3, -1, -1, -3, -5, -5, 127, -128, 121]),
    # INT32 input, FLOAT32 scale 2: [3.5, -3.5, 500, 2.5] -> [4, -4, 500, 2] -> clamp to [-128, 127]
    (I32, 2.0, 0, I8, [7, -7, 1000, 5], [4, -4, 127, 2]),
    # FLOAT16 input and scale 0.5: [1.5, 2.5, -1.5, 0] + 128
    (F16, 0.5, 128, U8, [0.75, 1.25, -0.75, 0], [130, 130, 126, 128]),
], ids=["float32-uint8", "float32-int8", "int32-int8", "float16-uint8"])
def test_quantize_by_hand(device, x_type, scale, zero_point, y_type, x, expected):
    n = [len(x)]
    scale_type = F32 if x_type == I32 else x_type
    got = run(device, quantize(tensor(x_type, n), broadcast(scale_type, n), broadcast(y_type, n), tensor(y_type, n)),
              InputTensor=x, ScaleTensor=scale, ZeroPointTensor=zero_point)[OUT]
    assert got.tolist() == expected


@pytest.mark.formula
def test_quantize_without_zero_point(device):
    """A null ZeroPointTensor is 0: [2.5, 3.5, -300, 300] -> [2, 4, -128, 127]."""
    got = run(device, quantize(tensor(F32, [4]), broadcast(F32, [4]), None, tensor(I8, [4])),
              InputTensor=[2.5, 3.5, -300, 300], ScaleTensor=1.0)[OUT]
    assert got.tolist() == [2, 4, -128, 127]


@pytest.mark.formula
def test_quantize_nan_and_infinity(device):
    """Infinities saturate; NaN becomes 0 whatever the zero point (dmlsim's decision, README)."""
    got = run(device, quantize(tensor(F32, [3]), broadcast(F32, [3]), broadcast(U8, [3]), tensor(U8, [3])),
              InputTensor=[np.inf, -np.inf, np.nan], ScaleTensor=1.0, ZeroPointTensor=7)[OUT]
    assert got.tolist() == [255, 0, 0]


def test_quantize_nan_is_zero_on_every_output_type(device):
    """NaN quantizes to 0 whatever the zero point and output type (dmlsim's decision, README: D3D's and OpenCL's
    saturating float-to-integer conversions turn NaN into 0; Oclgrind's convert_char_sat gave -128), at every
    position; +infinity saturates to the type's maximum and -infinity to its minimum. Not marked ``formula``,
    so that the Oclgrind tier runs it."""
    nan, inf = np.nan, np.inf
    x = [nan, 1.0, nan, inf, -inf, nan]
    n = [len(x)]
    cases = [(I8, -3, [0, -2, 0, 127, -128, 0]),     # 1 / 1 - 3 = -2
             (I8, None, [0, 1, 0, 127, -128, 0]),
             (U8, 7, [0, 8, 0, 255, 0, 0])]
    for y_type, zero_point, expected in cases:
        z_desc = None if zero_point is None else broadcast(y_type, n)
        inputs = {"InputTensor": x, "ScaleTensor": 1.0}
        if zero_point is not None:
            inputs["ZeroPointTensor"] = zero_point
        for x_type in (F32, F16):
            op = quantize(tensor(x_type, n), broadcast(x_type, n), z_desc, tensor(y_type, n))
            assert run(device, op, **inputs)[OUT].tolist() == expected, (x_type, y_type, zero_point)


# (x, scale, expected) where x / scale rounded to float32 is a tie k + 0.5 but the exact (or float64) quotient
# is not: DirectML's float32 division gives the tie, which rounds half to even. Each scale is a float32 value.
# 0.5 / f32(5/255) = 0.5 / 0.019607843831... = 25.49999910 (exact); floats near it are 25.5 - 2^-19 and 25.5,
#   and 25.5 is 9.0e-7 away (< half its ulp, 2^-20 = 9.5e-7): 25.5 -> 26. In float64: 25.4999991 -> 25.
# 0.7f / f32(7/255) = 0.69999998808 / 0.02745098062 = 25.49999936 -> 25.5 (6.4e-7 away) -> 26. (x * (1/scale)
#   in float32 gives 25: 1/scale rounds first.)
# 0.85f / f32(0.1) = 0.85000002384 / 0.10000000149 = 8.50000011 -> 8.5 (1.1e-7 < 2^-22 = 2.4e-7) -> 8 (float64: 9).
# 11.25 / f32(0.9) = 11.25 / 0.89999997616 = 12.50000033 -> 12.5 (3.3e-7 < 4.8e-7) -> 12 (float64: 13).
# -0.5 / f32(5/255) = -25.49999910 -> -25.5 -> -26 (float64: -25).
# 0.75 / f32(0.1) = 7.49999989 -> 7.5 (1.1e-7 < 2^-22) -> 8 (float64: 7).
FLOAT32_TIES = [(0.5, 5 / 255, 26), (0.7, 7 / 255, 26), (0.85, 0.1, 8), (11.25, 0.9, 12), (-0.5, 5 / 255, -26),
                (0.75, 0.1, 8)]


def test_quantize_rounds_the_float32_quotient(device):
    """x / scale is rounded to float32 before round-half-to-even, on every device and the reference alike: the
    issue's case 0.5 with scale float32(5/255) and zero point 153 gives 179 (ONNX's QuantizeLinear too), not
    the 178 of a float64 quotient; per-element scales give the FLOAT32_TIES cases (worked out above)."""
    n = [1]
    got = run(device, quantize(tensor(F32, n), tensor(F32, n), tensor(U8, n), tensor(U8, n)),
              InputTensor=[0.5], ScaleTensor=np.float32(5 / 255), ZeroPointTensor=153)[OUT]
    assert got.tolist() == [179]
    x, scale, expected = (np.array(column, dtype) for column, dtype in
                          zip(zip(*FLOAT32_TIES, strict=True), (np.float32, np.float32, np.int8), strict=True))
    n = [len(x)]
    got = run(device, quantize(tensor(F32, n), tensor(F32, n), None, tensor(I8, n)), InputTensor=x,
              ScaleTensor=scale)[OUT]
    np.testing.assert_array_equal(got, expected)


def test_quantize_exact_and_near_ties_match_float32(device):
    """Quotients at and around ties k + 0.5: x = float32((k + 0.5) * scale) for many scales, and its float32
    neighbours, against numpy's float32 arithmetic written here (IEEE division, then round half to even)."""
    rng = np.random.default_rng(20261201)
    k = rng.integers(-120, 120, 400).astype(np.float32)
    scale = rng.uniform(0.001, 3.0, 400).astype(np.float32)
    scale[:40] = np.float32(2.0) ** rng.integers(-6, 3, 40).astype(np.float32)  # exact ties: x / scale = k + 0.5
    x = ((k + np.float32(0.5)) * scale).astype(np.float32)
    x = np.concatenate([x, np.nextafter(x, np.float32(np.inf)), np.nextafter(x, np.float32(-np.inf))])
    scale = np.tile(scale, 3)
    expected = np.clip(np.rint(x / scale), -128, 127)   # float32 / float32 -> float32: IEEE, correctly rounded
    assert np.count_nonzero(np.abs(x / scale - np.rint(x / scale)) == 0.5) >= 40  # ties are really exercised
    n = [len(x)]
    got = run(device, quantize(tensor(F32, n), tensor(F32, n), None, tensor(I8, n)), InputTensor=x,
              ScaleTensor=scale)[OUT]
    np.testing.assert_array_equal(got, expected)


def test_quantize_per_channel_padded_3d(device):
    """A scale and zero point per channel (axis 1, strides [0, 1, 0]) and a padded input."""
    sizes = [2, 3, 2]
    x = (np.arange(12, dtype=np.float32) - 5.5).reshape(sizes) * 3
    s = np.broadcast_to(np.array([0.5, 2.0, 4.0], np.float32).reshape(1, 3, 1), sizes)
    z = np.broadcast_to(np.array([-100, 0, 100], np.int8).reshape(1, 3, 1), sizes)
    op = quantize(tensor(F32, sizes, [16, 4, 1]), tensor(F32, sizes, [0, 1, 0]), tensor(I8, sizes, [0, 1, 0]),
                  tensor(I8, sizes))
    got = run(device, op, InputTensor=x, ScaleTensor=s, ZeroPointTensor=z)[OUT]
    expected = np.clip(np.rint(x.astype(np.float64) / s) + z, -128, 127)  # the doc page's formula
    np.testing.assert_array_equal(got, expected)


# --- DEQUANTIZE_LINEAR ----------------------------------------------------------------------------------------
@pytest.mark.formula
@pytest.mark.parametrize(("x_type", "scale_type", "scale", "zero_point", "x", "expected"), [
    (U8, F32, 0.5, 128, [0, 128, 255], [-64, 0, 63.5]),
    (I8, F32, 0.25, -128, [-128, 127, 0], [0, 63.75, 32]),
    # the difference is exact beyond INT32's range: -2^31 - (2^31 - 1) = -(2^32 - 1), rounded to float32 -2^32
    (I32, F32, 1.0, 2**31 - 1, [-2**31, 2**31 - 1], [-2.0**32, 0]),
    (U32, F32, 1.0, 0, [2**32 - 1, 7], [2.0**32, 7]),
    (I16, F16, 0.5, 0, [1000, -1000], [500, -500]),
    (U16, F16, 0.125, None, [65535, 1], [8192, 0.125]),  # 8191.875 rounds to FLOAT16's 8192
], ids=["uint8", "int8", "int32-exact-difference", "uint32", "int16-float16", "uint16-float16-no-zero-point"])
def test_dequantize_by_hand(device, x_type, scale_type, scale, zero_point, x, expected):
    n = [len(x)]
    z_desc = None if zero_point is None else broadcast(x_type, n)
    inputs = {"InputTensor": x, "ScaleTensor": scale}
    if zero_point is not None:
        inputs["ZeroPointTensor"] = zero_point
    got = run(device, dequantize(tensor(x_type, n), broadcast(scale_type, n), z_desc, tensor(scale_type, n)),
              **inputs)[OUT]
    assert got.tolist() == expected


def test_dequantize_8d_per_element_transposed_output(device):
    """A scale and zero point per element, 8 dimensions, the output written with reversed strides."""
    sizes = [1, 2, 1, 2, 1, 2, 1, 3]
    count = int(np.prod(sizes))
    x = (np.arange(count) * 7 % 256).astype(np.uint8).reshape(sizes)
    s = (np.arange(count) % 4 + 1).astype(np.float32).reshape(sizes) / 8
    z = (np.arange(count) * 3 % 200).astype(np.uint8).reshape(sizes)
    y_strides = [int(np.prod(sizes[:i])) for i in range(8)]  # column-major
    op = dequantize(tensor(U8, sizes), tensor(F32, sizes), tensor(U8, sizes), tensor(F32, sizes, y_strides))
    got = run(device, op, InputTensor=x, ScaleTensor=s, ZeroPointTensor=z)[OUT]
    expected = np.zeros(sizes)
    for index in itertools.product(*(range(k) for k in sizes)):  # the doc page's formula, element by element
        expected[index] = (int(x[index]) - int(z[index])) * float(s[index])
    np.testing.assert_array_equal(got, expected)


# --- QUANTIZED_LINEAR_ADD -------------------------------------------------------------------------------------
@pytest.mark.formula
def test_quantized_add_by_hand(device):
    """A: INT8 scale 0.5 zero point 0 -> [5, 10, -50, 50]; B: UINT8 scale 0.25 zero point 128 -> [0.5, 0, -32,
    31.75]; sum [5.5, 10, -82, 81.75] / 0.5 = [11, 20, -164, 163.5] -> half to even [11, 20, -164, 164]
    + 100 = [111, 120, -64, 264] -> clamp to UINT8 [111, 120, 0, 255]. Scales and zero points have one element."""
    one = [1, 1]
    op = quantized_add(tensor(I8, [2, 2]), tensor(F32, one), tensor(I8, one), tensor(U8, [2, 2]), tensor(F32, one),
                       tensor(U8, one), tensor(F32, one), tensor(U8, one), tensor(U8, [2, 2]))
    got = run(device, op, ATensor=[[10, 20], [-100, 100]], AScaleTensor=0.5, AZeroPointTensor=0,
              BTensor=[[130, 128], [0, 255]], BScaleTensor=0.25, BZeroPointTensor=128,
              OutputScaleTensor=0.5, OutputZeroPointTensor=100)[OUT]
    assert got.tolist() == [[111, 120], [0, 255]]


@pytest.mark.formula
def test_quantized_add_ties_without_zero_points(device):
    """A * 0.5 + B * 1 = [0.5, 1.5, 2.5, -1.5, 63.5 + 127] -> half to even [0, 2, 2, -2, 190] -> INT8 127."""
    n = [5]
    op = quantized_add(tensor(I8, n), broadcast(F32, n), None, tensor(I8, n), broadcast(F32, n), None,
                       broadcast(F32, n), None, tensor(I8, n))
    got = run(device, op, ATensor=[1, 3, 5, -3, 127], AScaleTensor=0.5, BTensor=[0, 0, 0, 0, 127],
              BScaleTensor=1.0, OutputScaleTensor=1.0)[OUT]
    assert got.tolist() == [0, 2, 2, -2, 127]


def test_quantized_add_rounds_each_step_to_float32(device):
    """Both products, their sum and the quotient are float32, as DirectML computes them. A = 20 with scale
    f32(0.1) = 0.10000000149: 2.0000000298 -> 2.0; B = -5 with scale f32(0.3) = 0.30000001192: -1.5000000596 =
    -(1.5 + 2^-24), a tie between -1.5 and -(1.5 + 2^-23) -> -1.5 (even); the sum 0.5 is exact.
    0.5 / f32(1/3) = 0.5 / 0.33333334327 = 1.49999995530 -> 1.5 (4.5e-8 < 2^-24 = 6.0e-8) -> 2; 0.5 / f32(5/255)
    -> 25.5 -> 26 (test_quantize_rounds_the_float32_quotient). In float64 the sum is 0.49999997 and the
    quotients 1.4999999 and 25.4999976, which round to 1 and 25."""
    n, one = [2], [1]
    op = quantized_add(tensor(I8, n), tensor(F32, one), None, tensor(I8, n), tensor(F32, one), None,
                       tensor(F32, n), None, tensor(I8, n))
    got = run(device, op, ATensor=[20, 20], AScaleTensor=0.1, BTensor=[-5, -5], BScaleTensor=0.3,
              OutputScaleTensor=np.array([1 / 3, 5 / 255], np.float32))[OUT]
    assert got.tolist() == [2, 26]


def test_quantized_add_strided_4d(device):
    """Padded A, transposed B, per-element output scale: the formula transcribed in float64."""
    sizes = [1, 2, 3, 4]
    rng = np.random.default_rng(11)
    a = rng.integers(0, 256, sizes).astype(np.uint8)
    b = rng.integers(-128, 128, sizes).astype(np.int8)
    ys = (rng.integers(1, 5, sizes) / 4).astype(np.float32)
    one = [1, 1, 1, 1]
    op = quantized_add(tensor(U8, sizes, [64, 32, 8, 1]), tensor(F32, one), tensor(U8, one),
                       tensor(I8, sizes, [24, 1, 2, 6]), tensor(F32, one), tensor(I8, one),
                       tensor(F32, sizes), tensor(I8, one), tensor(I8, sizes))
    got = run(device, op, ATensor=a, AScaleTensor=0.125, AZeroPointTensor=128, BTensor=b, BScaleTensor=0.0625,
              BZeroPointTensor=-4, OutputScaleTensor=ys, OutputZeroPointTensor=3)[OUT]
    total = (a.astype(np.float64) - 128) * 0.125 + (b.astype(np.float64) + 4) * 0.0625
    np.testing.assert_array_equal(got, np.clip(np.rint(total / ys) + 3, -128, 127))


# --- refusals -------------------------------------------------------------------------------------------------
T24, T14 = [2, 4], [1, 4]
DQ, Q, QA = ("DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC", "DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC",
             "DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC")


def qadd(a=I8, a_zp=I8, b=U8, b_zp=U8, a_scale=F32, y=U8, sizes=None):
    sizes = sizes or {}
    t = lambda name, data_type: tensor(data_type, sizes.get(name, [2, 2]))  # noqa: E731
    return quantized_add(t("A", a), t("AS", a_scale), t("AZ", a_zp), t("B", b), t("BS", F32), t("BZ", b_zp),
                         t("YS", F32), t("YZ", y), t("Y", y))


@pytest.mark.parametrize(("make", "message"), [
    (lambda: dequantize(tensor(F32, T24), tensor(F32, T24), None, tensor(F32, T24)),
     f"{DQ}.InputTensor.DataType FLOAT32 is not supported by DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR"),
    (lambda: dequantize(tensor(U8, T24), tensor(F32, T24), tensor(I8, T24), tensor(F32, T24)),
     f"{DQ}.ZeroPointTensor.DataType INT8 must equal InputTensor.DataType UINT8"),
    (lambda: dequantize(tensor(U8, T24), tensor(F16, T24), None, tensor(F32, T24)),
     f"{DQ}.ScaleTensor.DataType FLOAT16 must equal OutputTensor.DataType FLOAT32"),
    (lambda: dequantize(tensor(U8, T24), tensor(F32, T14), None, tensor(F32, T24)),
     f"{DQ}.ScaleTensor.Sizes [1, 4] must equal InputTensor.Sizes [2, 4]"),
    (lambda: dequantize(tensor(U8, T24), tensor(F32, T24), None, tensor(I32, T24)),
     f"{DQ}.OutputTensor.DataType INT32 is not supported"),
    (lambda: quantize(tensor(I32, T24), tensor(F16, T24), None, tensor(U8, T24)),
     f"{Q}.ScaleTensor.DataType FLOAT16 must be FLOAT32"),
    (lambda: quantize(tensor(F16, T24), tensor(F32, T24), None, tensor(U8, T24)),
     f"{Q}.ScaleTensor.DataType FLOAT32 must be FLOAT16"),
    (lambda: quantize(tensor(U8, T24), tensor(F32, T24), None, tensor(U8, T24)),
     f"{Q}.InputTensor.DataType UINT8 is not supported"),
    (lambda: quantize(tensor(F32, T24), tensor(F32, T24), None, tensor(I16, T24)),
     f"{Q}.OutputTensor.DataType INT16 is not supported"),
    (lambda: quantize(tensor(F32, T24), tensor(F32, T24), tensor(U8, T24), tensor(I8, T24)),
     f"{Q}.ZeroPointTensor.DataType UINT8 must equal OutputTensor.DataType INT8"),
    (lambda: quantize(tensor(F32, T24), tensor(F32, T24), tensor(I8, [2, 4, 1]), tensor(I8, T24)),
     f"{Q}.ZeroPointTensor.DimensionCount 3 must equal InputTensor.DimensionCount 2"),
    (lambda: quantize(tensor(F32, T24), tensor(F32, T24), None, tensor(I8, [4, 2])),
     f"{Q}.OutputTensor.Sizes [4, 2] must equal InputTensor.Sizes [2, 4]"),
    (lambda: qadd(b_zp=I8), f"{QA}.BZeroPointTensor.DataType INT8 must equal BTensor.DataType UINT8"),
    (lambda: qadd(a_zp=U8), f"{QA}.AZeroPointTensor.DataType UINT8 must equal ATensor.DataType INT8"),
    (lambda: qadd(a_scale=F16), f"{QA}.AScaleTensor.DataType FLOAT16 is not supported"),
    (lambda: qadd(a=I16, a_zp=I16), f"{QA}.ATensor.DataType INT16 is not supported"),
    (lambda: qadd(y=I32), f"{QA}.OutputTensor.DataType INT32 is not supported"),
    (lambda: qadd(sizes={"B": [2, 1]}), f"{QA}.BTensor.Sizes [2, 1] must equal OutputTensor.Sizes [2, 2]"),
    (lambda: qadd(sizes={"YS": [1, 2]}),
     f"{QA}.OutputScaleTensor.Sizes [1, 2] must equal OutputTensor.Sizes [2, 2] or be all 1"),
    (lambda: qadd(sizes={"AZ": [1]}),
     f"{QA}.AZeroPointTensor.DimensionCount 1 must equal OutputTensor.DimensionCount 2"),
], ids=["dq-input-type", "dq-zero-point-type", "dq-scale-output-type", "dq-sizes", "dq-output-type",
        "q-int32-scale", "q-float16-scale", "q-input-type", "q-output-type", "q-zero-point-type", "q-rank", "q-sizes",
        "qa-b-zero-point", "qa-a-zero-point", "qa-scale-type", "qa-a-type", "qa-output-type", "qa-b-sizes",
        "qa-scale-sizes", "qa-rank"])
def test_refusals_name_the_field(ref_device, make, message):
    assert message in refused(ref_device, make())


def test_accepted_one_element_scales(ref_device):
    """The page's "expected number of elements is 1": Sizes all 1 is accepted beside the output's Sizes."""
    ref_device.CreateOperator(qadd(sizes={"AS": [1, 1], "BZ": [1, 1], "YS": [1, 1]}))


@pytest.mark.parametrize("which", ["quantize", "quantized_add"])
def test_debug_device_refuses_a_zero_scale(debug_device, which):
    """A scale of 0 is undefined behavior on the doc pages: a debug device refuses the execution, naming it."""
    n = [2]
    if which == "quantize":
        op, inputs = quantize(tensor(F32, n), tensor(F32, n), None, tensor(U8, n)), {
            "InputTensor": [1, 2], "ScaleTensor": [1, 0]}
        field = f"{Q}.ScaleTensor"
    else:
        op = quantized_add(tensor(U8, n), tensor(F32, n), None, tensor(U8, n), tensor(F32, n), None,
                           tensor(F32, n), None, tensor(U8, n))
        inputs = {"ATensor": [1, 2], "AScaleTensor": [1, 1], "BTensor": [1, 2], "BScaleTensor": [1, 1],
                  "OutputScaleTensor": [0, 1]}
        field = f"{QA}.OutputScaleTensor"
    with pytest.raises(dml.DMLError) as info:
        run(debug_device, op, **inputs)
    assert info.value.hresult == dml.E_INVALIDARG and f"{field} holds" in str(info.value)
    assert "scale" in str(info.value) and "of 0" in str(info.value)
