"""DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION and MEAN_VARIANCE_NORMALIZATION2 (dmlsim/operators/normalization),
on every adapter.

Expected values are literals worked out by hand or the doc's formula written out in float64 numpy
(tests/normalization_support.py; never dmlsim's reference). Tolerances as tests/test_normalization.py's
docstring derives them for MEAN_VARIANCE_NORMALIZATION1 (the same kernel): over groups of n elements, n + 4 ulps
of ``|Scale| * (|x - Mean| + mean|x - x0|) / sqrt(Variance + Epsilon) + |Bias|``; with UseMean FALSE the Mean
is 0 and x is used as it is (no shift term): n + 4 ulps of ``|Scale| * |x| / sqrt(mean(x^2) + Epsilon) +
|Bias|`` (the sum of n squares); FLOAT16 2 ulps (half).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from normalization_support import (
    F16,
    F32,
    NUMPY,
    assert_close,
    mvn0_desc,
    mvn2_desc,
    mvn_numpy,
    relu,
    tensor,
)

import dmlsim as dml
from dmlsim.quick import run_operator


def inputs_of(x, scale=None, bias=None):
    values = {"InputTensor": x}
    if scale is not None:
        values["ScaleTensor"] = scale
    if bias is not None:
        values["BiasTensor"] = bias
    return values


# --- MEAN_VARIANCE_NORMALIZATION (CrossChannel / NormalizeVariance) -----------------------------------------
def test_mvn0_cross_channel_by_hand(device):
    """x {1, 2, 1, 2} = [[1, 3], [5, 7]] (two channels). CrossChannel FALSE: per channel Mean 2 and 6, Variance
    1 each (Epsilon 0): [-1, 1, -1, 1]. CrossChannel TRUE: one Mean 4, Variance (9 + 1 + 1 + 9) / 4 = 5:
    [-3, -1, 1, 3] / sqrt(5) = [-1.3416408, -0.4472136, 0.4472136, 1.3416408]. NormalizeVariance FALSE with
    Scale 2 and Bias -0: 2 * (x - Mean)."""
    shape = [1, 2, 1, 2]
    x = {"InputTensor": np.array([1, 3, 5, 7], np.float32)}
    got = run_operator(device, mvn0_desc(tensor(F32, shape), None, None, tensor(F32, shape), False), x)
    np.testing.assert_array_equal(got["OutputTensor"].reshape(-1), [-1, 1, -1, 1])
    got = run_operator(device, mvn0_desc(tensor(F32, shape), None, None, tensor(F32, shape), True), x)
    np.testing.assert_allclose(got["OutputTensor"].reshape(-1), [-1.3416408, -0.4472136, 0.4472136, 1.3416408],
                               rtol=4e-7)
    one = [1, 1, 1, 1]
    desc = mvn0_desc(tensor(F32, shape), tensor(F32, one), tensor(F32, one), tensor(F32, shape), True,
                     normalize_variance=False)
    got = run_operator(device, desc, {**x, "ScaleTensor": np.array([2], np.float32),
                                      "BiasTensor": np.array([-0.0], np.float32)})
    np.testing.assert_array_equal(got["OutputTensor"].reshape(-1), [-6, -2, 2, 6])


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize(("cross", "scale_sizes", "bias_sizes", "normalize"), [
    (True, (1, 3, 1, 1), (1, 3, 1, 1), True),
    (False, None, (2, 1, 4, 5), True),
    (False, (1, 1, 1, 5), None, False),
], ids=["cross-per-channel", "instance-bias-only", "centre-scale-only"])
def test_mvn0_matches_the_formula(device, data_type, cross, scale_sizes, bias_sizes, normalize):
    rng = np.random.default_rng(7 + cross)
    dtype = NUMPY[data_type]
    sizes = (2, 3, 4, 5)
    x = rng.uniform(-4, 4, sizes).astype(dtype)
    scale = None if scale_sizes is None else rng.uniform(-2, 2, scale_sizes).astype(dtype)
    bias = None if bias_sizes is None else rng.uniform(-2, 2, bias_sizes).astype(dtype)
    desc = mvn0_desc(tensor(data_type, sizes), None if scale is None else tensor(data_type, scale_sizes),
                     None if bias is None else tensor(data_type, bias_sizes), tensor(data_type, sizes), cross,
                     normalize_variance=normalize, epsilon=1e-4)
    got = run_operator(device, desc, inputs_of(x, scale, bias))["OutputTensor"]
    axes = (1, 2, 3) if cross else (2, 3)
    expected, bound = mvn_numpy(x, scale, bias, axes, normalize, 1e-4)
    assert_close(got, expected, bound, data_type, math.prod(sizes[a] for a in axes) + 4)


def test_mvn0_strides_large_mean_and_fused(device):
    """An NHWC-strided input of 1e4 + noise, a padded output, Bias broadcast by stride 0, a fused RELU: within
    n + 4 ulps of a bound of the noise's scale (a plain float32 Mean of 1e4-sized data would miss by far more)."""
    rng = np.random.default_rng(3)
    x = (1e4 + rng.uniform(-1, 1, (1, 3, 4, 4))).astype(np.float32)
    bias = rng.uniform(-1, 1, 3).astype(np.float32)
    desc = mvn0_desc(tensor(F32, [1, 3, 4, 4], [48, 1, 12, 3]), None, tensor(F32, [1, 3, 4, 4], [0, 1, 0, 0]),
                     tensor(F32, [1, 3, 4, 4], [64, 20, 5, 1]), False, epsilon=1e-5, fused=relu())
    got = run_operator(device, desc, {"InputTensor": x,
                                      "BiasTensor": np.broadcast_to(bias.reshape(1, 3, 1, 1), (1, 3, 4, 4))})
    expected, bound = mvn_numpy(x, None, bias.reshape(1, 3, 1, 1), (2, 3), True, 1e-5)
    assert np.max(bound) < 10
    assert_close(got["OutputTensor"], np.maximum(expected, 0), bound, F32, 16 + 4 + 2)


# --- MEAN_VARIANCE_NORMALIZATION2 (UseMean / UseVariance) ----------------------------------------------------
def test_mvn2_flags_by_hand(device):
    """x = [1, 2, 3, 4] over axis 0, Epsilon 0, Scale 2, Bias 1.
    UseMean, UseVariance: MVN1's 2 * [-1.5, -0.5, 0.5, 1.5] / sqrt(1.25) + 1 = [-1.6832816, 0.1055728,
    1.8944272, 3.6832816]. UseMean only: 2 * (x - 2.5) + 1 = [-2, 0, 2, 4].
    UseVariance only (RMS): mean(x^2) = 30 / 4 = 7.5, 2 * x / sqrt(7.5) + 1 = [1.7302967, 2.4605935, 3.1908902,
    3.9211869]. Neither: 2 * x + 1 = [3, 5, 7, 9]."""
    x = np.array([1, 2, 3, 4], np.float32)
    values = inputs_of(x, np.array([2], np.float32), np.array([1], np.float32))
    expected = {(True, True): [-1.6832816, 0.1055728, 1.8944272, 3.6832816], (True, False): [-2, 0, 2, 4],
                (False, True): [1.7302967, 2.4605935, 3.1908902, 3.9211869], (False, False): [3, 5, 7, 9]}
    for (use_mean, use_variance), want in expected.items():
        desc = mvn2_desc(tensor(F32, [4]), tensor(F32, [1]), tensor(F32, [1]), tensor(F32, [4]), [0],
                         use_mean=use_mean, use_variance=use_variance)
        got = run_operator(device, desc, values)["OutputTensor"]
        np.testing.assert_allclose(got, want, rtol=6e-7, err_msg=f"UseMean {use_mean} UseVariance {use_variance}")


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize(("sizes", "axes", "scale_sizes", "bias_sizes", "use_mean", "use_variance"), [
    ((2, 3, 4, 5), (3,), (1, 1, 1, 5), (1, 1, 1, 5), False, True),
    ((2, 3, 4, 5), (1, 2, 3), (1, 3, 4, 5), None, True, True),
    ((2, 1, 3, 1, 2, 1, 2, 2), (0, 4, 7), (1, 1, 3, 1, 2, 1, 1, 2), (2, 1, 1, 1, 1, 1, 2, 1), False, True),
    ((6,), (0,), None, (6,), False, False),
    ((3, 5, 2), (0, 2), None, None, True, False),
], ids=["rms-4d", "layernorm", "rms-8d", "1d-affine", "3d-centre"])
def test_mvn2_matches_the_formula(device, data_type, sizes, axes, scale_sizes, bias_sizes, use_mean, use_variance):
    rng = np.random.default_rng(sum(sizes) + use_mean)
    dtype = NUMPY[data_type]
    x = rng.uniform(-4, 4, sizes).astype(dtype)
    scale = None if scale_sizes is None else rng.uniform(-2, 2, scale_sizes).astype(dtype)
    bias = None if bias_sizes is None else rng.uniform(-2, 2, bias_sizes).astype(dtype)
    desc = mvn2_desc(tensor(data_type, sizes), None if scale is None else tensor(data_type, scale_sizes),
                     None if bias is None else tensor(data_type, bias_sizes), tensor(data_type, sizes), axes,
                     use_mean=use_mean, use_variance=use_variance, epsilon=1e-4)
    got = run_operator(device, desc, inputs_of(x, scale, bias))["OutputTensor"]
    expected, bound = mvn_numpy(x, scale, bias, axes, use_variance, 1e-4, use_mean=use_mean)
    assert_close(got, expected, bound, data_type, math.prod(sizes[a] for a in axes) + 4)


def test_mvn2_rms_specials_strides_and_large_values(device):
    """UseMean FALSE, a column-major input, a padded output. Row 0: a NaN among zeros makes the row NaN (the
    largest |x| is 0 there, so only an explicit NaN check spreads it). Row 1: +inf (no
    NaN) makes mean(x^2) +inf: finite x give 0 (x / inf, -0 for negative x), +inf gives NaN. Row 2: values near
    1e30, whose squares overflow float32 (the kernel scales by the largest |x|): the float64 formula within
    n + 4 ulps. Row 3: zeros with Epsilon 1e-5: 0 / sqrt(1e-5) = 0."""
    x = np.array([[0, np.nan, 0, -0.0], [1, -2, np.inf, 0], [1e30, -2e30, 3e30, 5e29], [0, 0, -0.0, 0]], np.float32)
    desc = mvn2_desc(tensor(F32, [4, 4], [1, 4]), None, None, tensor(F32, [4, 4], [6, 1]), [1], use_mean=False,
                     epsilon=1e-5)
    got = run_operator(device, desc, {"InputTensor": x})["OutputTensor"]
    assert np.isnan(got[0]).all()
    np.testing.assert_array_equal(got[1], [0, -0.0, np.nan, 0])
    assert np.signbit(got[1, 1])
    np.testing.assert_array_equal(got[3], [0, 0, -0.0, 0])
    expected, bound = mvn_numpy(x[2:3], None, None, [1], True, 1e-5, use_mean=False)
    assert_close(got[2:3], expected, bound, F32, 8)


def test_centring_with_an_infinite_first_element(device):
    """UseMean TRUE, UseVariance FALSE, x = [+inf, 1, 2] and [-inf, 3, +inf]: the float64 Mean is +inf (NaN),
    so x - Mean is [NaN, -inf, -inf] ([NaN, NaN, NaN]). A kernel that shifts by the first element, +inf, would
    compute inf - inf = NaN for the whole first row."""
    x = np.array([[np.inf, 1, 2], [-np.inf, 3, np.inf]], np.float32)
    desc = mvn2_desc(tensor(F32, [2, 3]), None, None, tensor(F32, [2, 3]), [1], use_variance=False)
    got = run_operator(device, desc, {"InputTensor": x})["OutputTensor"]
    np.testing.assert_array_equal(got, [[np.nan, -np.inf, -np.inf], [np.nan] * 3])


def test_mvn2_float16_tie(device):
    """FLOAT16 storage: UseMean and UseVariance FALSE is Scale * x + Bias in float32; 2048 * 1 + 1 = 2049 lies
    halfway between the halves 2048 and 2050 and is stored 2048 (nearest even); 2050 + 1 = 2051 -> 2052."""
    desc = mvn2_desc(tensor(F16, [2]), None, tensor(F16, [1]), tensor(F16, [2]), [0], use_mean=False,
                     use_variance=False)
    got = run_operator(device, desc, {"InputTensor": np.array([2048, 2050], np.float16),
                                      "BiasTensor": np.ones(1, np.float16)})["OutputTensor"]
    np.testing.assert_array_equal(got, np.array([2048, 2052], np.float16))


# --- refusals -------------------------------------------------------------------------------------------------
def refused(ref_device, desc):
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateOperator(desc)
    assert info.value.hresult == dml.E_INVALIDARG, str(info.value)
    return str(info.value)


S4 = [1, 3, 2, 2]
U8 = dml.DML_TENSOR_DATA_TYPE_UINT8


@pytest.mark.parametrize(("desc", "expected"), [
    (mvn0_desc(tensor(F32, [3, 2, 2]), None, None, tensor(F32, [3, 2, 2]), True),
     "DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC.InputTensor.DimensionCount 3 is not supported by "
     "DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION (supported: 4 to 4)"),
    (mvn0_desc(tensor(F32, S4), tensor(F32, [1, 3, 1]), None, tensor(F32, S4), True),
     "ScaleTensor.DimensionCount 3 is not supported"),
    (mvn0_desc(tensor(U8, S4), None, None, tensor(U8, S4), True),
     "InputTensor.DataType UINT8 is not supported by DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION "),
    (mvn0_desc(tensor(F32, S4), None, tensor(F16, [1, 3, 1, 1]), tensor(F32, S4), True),
     "BiasTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (mvn0_desc(tensor(F32, S4), None, None, tensor(F32, [1, 3, 2, 1]), False),
     "OutputTensor.Sizes [1, 3, 2, 1] must equal InputTensor.Sizes [1, 3, 2, 2]"),
    (mvn0_desc(tensor(F32, S4), tensor(F32, [1, 2, 1, 1]), None, tensor(F32, S4), False),
     "ScaleTensor.Sizes [1, 2, 1, 1]: each size must be 1 (broadcast) or InputTensor's size"),
    (mvn2_desc(tensor(F32, [2, 3]), None, None, tensor(F32, [2, 3]), []),
     "DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC.AxisCount 0 must be at least 1"),
    (mvn2_desc(tensor(F32, [2, 3]), None, None, tensor(F32, [2, 3]), [2]),
     "Axes[0] 2 must be in [0, 1]"),
    (mvn2_desc(tensor(F32, [2, 3]), None, None, tensor(F32, [2, 3]), [0, 0]),
     "Axes[1] 0 repeats an axis"),
    (mvn2_desc(tensor(F32, [2, 3]), None, tensor(F32, [2, 3, 1]), tensor(F32, [2, 3]), [1]),
     "BiasTensor.DimensionCount 3 must equal InputTensor.DimensionCount 2"),
    (mvn2_desc(tensor(F32, [2, 3]), tensor(F32, [2, 2]), None, tensor(F32, [2, 3]), [1]),
     "ScaleTensor.Sizes [2, 2]: each size must be 1 (broadcast) or InputTensor's size"),
    (mvn2_desc(tensor(F32, [2, 3]), None, None, tensor(F16, [2, 3]), [1]),
     "OutputTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (mvn2_desc(tensor(F32, [2, 3]), None, None, tensor(F32, [3, 2]), [1]),
     "OutputTensor.Sizes [3, 2] must equal InputTensor.Sizes [2, 3]"),
    (mvn2_desc(tensor(U8, [2, 3]), None, None, tensor(U8, [2, 3]), [1]),
     "InputTensor.DataType UINT8 is not supported by DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2"),
    (mvn2_desc(tensor(F32, [1] * 9), None, None, tensor(F32, [1] * 9), [1]),
     "InputTensor.DimensionCount must be 1, 2, 3, 4, 5, 6, 7, 8, got 9"),
], ids=["mvn0-rank3", "mvn0-scale-rank", "mvn0-type", "mvn0-bias-type", "mvn0-out-sizes", "mvn0-scale-sizes",
        "mvn2-no-axes", "mvn2-axis-range", "mvn2-axis-repeat", "mvn2-bias-rank", "mvn2-scale-sizes",
        "mvn2-out-type", "mvn2-out-sizes", "mvn2-type", "mvn2-rank9"])
def test_validation(ref_device, desc, expected):
    assert expected in refused(ref_device, desc)


def test_registered():
    from dmlsim.operators import implemented_names

    names = implemented_names()
    assert {"DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION", "DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2"} <= set(names)
