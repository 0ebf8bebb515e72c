"""DML_OPERATOR_VALUE_SCALE_2D, on every adapter.

Expected values: ``Scale * x + Bias[c]`` written here in float64 from the page's formula (Scale and Bias as the
C FLOATs they are), and literals. Tolerance: the kernel computes one fused multiply-add in float32, rounded once;
1 ulp of the output type at the magnitude bound ``|Scale * x| + |Bias[c]|`` (FLOAT32), 1 half ulp for FLOAT16
(the float32 result rounded once more to half). NaN must match NaN, infinities exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import F16, F32, I32, NUMPY, operator, refused, run, tensor, type_id

from dmlsim.api.numerics import compare_ulps

OUT = "OutputTensor"


def scale_2d(x_desc, scale, bias, y_desc=None, channels=None):
    return operator("VALUE_SCALE_2D", InputTensor=x_desc, OutputTensor=y_desc or x_desc, Scale=scale,
                    ChannelCount=len(bias) if channels is None else channels, Bias=list(bias))


def expected_of(x, scale, bias):
    with np.errstate(all="ignore"):
        b = np.asarray(bias, np.float32).astype(np.float64).reshape(1, -1, 1, 1)
        value = np.float64(np.float32(scale)) * np.asarray(x, np.float64) + b
        bound = np.abs(np.float64(np.float32(scale)) * np.asarray(x, np.float64)) + np.abs(b)
    return value, bound


def test_literal_three_channels(device):
    """Scale 2, biases 1, -1, 0.5 over a {1, 3, 1, 2} input."""
    x = np.array([1, 2, 3, 4, 5, 6], np.float32).reshape(1, 3, 1, 2)
    got = run(device, scale_2d(tensor(F32, [1, 3, 1, 2]), 2.0, [1.0, -1.0, 0.5]), InputTensor=x)[OUT]
    assert got.ravel().tolist() == [3, 5, 5, 7, 10.5, 12.5]


@pytest.mark.parametrize("data_type", (F32, F16), ids=type_id)
@pytest.mark.parametrize("channels", (1, 3))
def test_values_strides_and_specials(device, data_type, channels):
    """Random values with ±0, ±inf, NaN and half-way ties, a permuted input, a padded output."""
    rng = np.random.default_rng(7 + channels)
    sizes = [2, channels, 3, 4]
    x = rng.normal(0, 100, sizes).astype(NUMPY[data_type])
    x.reshape(-1)[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 2049.0 if data_type == F16 else 16777217.0]
    bias = [0.25, -3.5, 1e-3][:channels]
    count = int(np.prod(sizes))
    x_strides = [channels * 12, 1, 4 * channels, channels]  # channels innermost in memory
    op = scale_2d(tensor(data_type, sizes, x_strides), -1.5, bias, tensor(data_type, sizes, [count + 8, 12, 4, 1]))
    got = run(device, op, InputTensor=x)[OUT]
    expected, bound = expected_of(x, -1.5, bias)
    report = compare_ulps(got, expected.astype(NUMPY[data_type]) if data_type == F16 else expected,
                          NUMPY[data_type], 1, bound)
    assert report.ok, report.mismatches


def test_fused_product_does_not_overflow(device):
    """3e38 * 2 - 3e38 is 3e38 exactly: one rounding, no infinite product first."""
    x = np.array([3e38, -3e38], np.float32).reshape(1, 1, 1, 2)
    got = run(device, scale_2d(tensor(F32, [1, 1, 1, 2]), 2.0, [-3e38]), InputTensor=x)[OUT]
    assert got.ravel().tolist() == [np.float32(3e38), -np.inf]


def test_float16_tie_rounds_to_even(device):
    """1 * (1 + 2^-11) + 0 is the tie between 1 and 1 + 2^-10 in FLOAT16: it stores 1; 1 + 3 * 2^-11 stores
    1 + 2^-9 (the even neighbour)."""
    x = np.array([1.0, 1.0], np.float16).reshape(1, 1, 1, 2)
    got = run(device, scale_2d(tensor(F16, [1, 1, 1, 2]), 1.0, [0.0]), InputTensor=x)[OUT]
    assert got.ravel().tolist() == [1.0, 1.0]
    got = run(device, operator("VALUE_SCALE_2D", InputTensor=tensor(F16, [1, 1, 1, 2]),
                               OutputTensor=tensor(F16, [1, 1, 1, 2]), Scale=1.0, ChannelCount=1,
                               Bias=[2.0**-11]), InputTensor=x)[OUT]
    assert got.ravel().tolist() == [1.0, 1.0]
    got = run(device, scale_2d(tensor(F16, [1, 1, 1, 2]), 1.0, [3 * 2.0**-11]), InputTensor=x)[OUT]
    assert got.ravel().tolist() == [1.0 + 2.0**-9, 1.0 + 2.0**-9]


def test_refusals_name_the_field(ref_device):
    name = "DML_VALUE_SCALE_2D_OPERATOR_DESC"
    assert (f"{name}.ChannelCount 2 must be 1 or 3"
            in refused(ref_device, scale_2d(tensor(F32, [1, 2, 2, 2]), 1.0, [0.0, 0.0])))
    assert (f"{name}.ChannelCount 1 must equal InputTensor.Sizes[1] 3"
            in refused(ref_device, scale_2d(tensor(F32, [1, 3, 2, 2]), 1.0, [0.0])))
    assert (f"{name}.InputTensor.DimensionCount 3 is not supported"
            in refused(ref_device, scale_2d(tensor(F32, [1, 2, 2]), 1.0, [0.0])))
    assert (f"{name}.InputTensor.DataType INT32 is not supported"
            in refused(ref_device, scale_2d(tensor(I32, [1, 1, 2, 2]), 1.0, [0.0])))
    assert f"{name}.OutputTensor.DataType" in refused(ref_device, scale_2d(tensor(F32, [1, 1, 2, 2]), 1.0, [0.0],
                                                                            tensor(F16, [1, 1, 2, 2])))
    assert f"{name}.OutputTensor.Sizes" in refused(ref_device, scale_2d(tensor(F32, [1, 1, 2, 2]), 1.0, [0.0],
                                                                         tensor(F32, [1, 1, 2, 3])))
