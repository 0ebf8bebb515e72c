"""DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION, MEAN_VARIANCE_NORMALIZATION2, LP_NORMALIZATION and
LOCAL_RESPONSE_NORMALIZATION (dmlsim/operators/normalization), on every adapter.

Expected values are literals worked out by hand or the doc's formula written out in float64 numpy
(tests/normalization_support.py; never dmlsim's reference). Tolerances as tests/test_normalization.py's
docstring derives them for MEAN_VARIANCE_NORMALIZATION1 (the same kernel): over groups of n elements, n + 4 ulps
of ``|Scale| * (|x - Mean| + mean|x - x0|) / sqrt(Variance + Epsilon) + |Bias|``; with UseMean FALSE the Mean
is 0 and x is used as it is (no shift term): n + 4 ulps of ``|Scale| * |x| / sqrt(mean(x^2) + Epsilon) +
|Bias|`` (the sum of n squares); FLOAT16 2 ulps (half).

LP_NORMALIZATION over n elements: a sum of n terms (squares for P 2) scaled by the largest |x|, a root, two
divisions: n + 4 ulps of |result|. LOCAL_RESPONSE_NORMALIZATION over a region of n elements: the sum of n squares
(n + 2 ulps) moves ``base^Beta`` by Beta times that, OpenCL's pow may be off by 16 ulps (the spec's bound), a
division: Beta * (n + 2) + 20 ulps of |result| (Beta <= 1 here). FLOAT16 2 ulps (half) for both.

BATCH_NORMALIZATION_TRAINING is MEAN_VARIANCE_NORMALIZATION1's kernel (n + 4 ulps of its bound, plus |FusedAdd|
in the bound and 1 ulp for its addition); its Mean ``K + sum(x - K) / n`` within n + 2 ulps of
``|Mean| + mean|x - x0|``; its Variance ``M^2 * sum((d / M)^2) / n`` within n + 8 ulps of itself (a sum of n
non-negative terms, each d off by the Mean's error only to second order); FLOAT16 2 ulps (half).

BATCH_NORMALIZATION_GRAD and BATCH_NORMALIZATION_TRAINING_GRAD over groups of n elements: plain float32 sums of
n terms, so n + 6 ulps of the same formula on absolute values (tests/normalization_support.py's bn_grad_numpy);
FLOAT16 2 ulps (half). The references are also checked against central finite differences of the forward
formulas in float64 (test_bn_grad_references_match_finite_differences).

LOCAL_RESPONSE_NORMALIZATION_GRAD: for each element, its own region's sum (n squares) and a sum over up to n
regions of terms each with a pow (16 ulps, the OpenCL spec's bound): 2n + 24 ulps of the same sums on absolute
values (lrn_grad_numpy's bound); FLOAT16 2 ulps (half). Its reference is checked against central finite
differences of the forward reference.
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
    bn_grad_desc,
    bn_grad_numpy,
    bnt_desc,
    bnt_numpy,
    lp_desc,
    lp_numpy,
    lrn_desc,
    lrn_grad_desc,
    lrn_grad_numpy,
    lrn_numpy,
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


# --- LP_NORMALIZATION --------------------------------------------------------------------------------------------
def test_lp_by_hand(device):
    """Rows [3, -4] and [0, 0] along axis 1, Epsilon 1e-5. P 2: norm 5: [0.6, -0.8]; the zero row:
    0 / max(0, 1e-5) = 0. P 1: norm 7: [3/7, -4/7] = [0.42857143, -0.5714286]."""
    x = {"InputTensor": np.array([[3, -4], [0, -0.0]], np.float32)}
    got = run_operator(device, lp_desc(tensor(F32, [2, 2]), tensor(F32, [2, 2]), 1, 2, 1e-5), x)["OutputTensor"]
    np.testing.assert_allclose(got, [[0.6, -0.8], [0, 0]], rtol=3e-7)
    assert np.signbit(got[1, 1])
    got = run_operator(device, lp_desc(tensor(F32, [2, 2]), tensor(F32, [2, 2]), 1, 1, 1e-5), x)["OutputTensor"]
    np.testing.assert_allclose(got, [[0.42857143, -0.5714286], [0, 0]], rtol=3e-7)


def test_lp_epsilon_is_a_floor_of_the_norm(device):
    """Output = x / max(norm, Epsilon): [1e-3, 0] with Epsilon 0.5 gives [0.002, 0] (norm 1e-3 < 0.5); with
    Epsilon 0 a zero row is 0 / 0 = NaN."""
    desc = lp_desc(tensor(F32, [2]), tensor(F32, [2]), 0, 2, 0.5)
    got = run_operator(device, desc, {"InputTensor": np.array([1e-3, 0], np.float32)})["OutputTensor"]
    np.testing.assert_allclose(got, [0.002, 0], rtol=3e-7)
    desc = lp_desc(tensor(F32, [2]), tensor(F32, [2]), 0, 1, 0.0)
    got = run_operator(device, desc, {"InputTensor": np.zeros(2, np.float32)})["OutputTensor"]
    assert np.isnan(got).all()


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize(("sizes", "axis", "p"), [
    ((2, 3, 4, 5), 1, 2), ((2, 3, 4, 5), 3, 1), ((7,), 0, 2), ((1, 2, 1, 3, 1, 2, 2, 3), 6, 1),
], ids=["4d-axis1-l2", "4d-axis3-l1", "1d-l2", "8d-l1"])
def test_lp_matches_the_formula(device, data_type, sizes, axis, p):
    rng = np.random.default_rng(len(sizes) + p)
    x = rng.uniform(-4, 4, sizes).astype(NUMPY[data_type])
    got = run_operator(device, lp_desc(tensor(data_type, sizes), tensor(data_type, sizes), axis, p, 1e-5),
                       {"InputTensor": x})["OutputTensor"]
    expected, bound = lp_numpy(x, axis, p, 1e-5)
    assert_close(got, expected, bound, data_type, sizes[axis] + 4)


def test_lp_strides_specials_and_extremes(device):
    """L2 along axis 1 of a column-major input into a padded output. Row 0: a NaN among zeros makes the row NaN.
    Row 1: +inf (no NaN) makes the norm +inf: finite x give 0 (-0 for negative), inf gives NaN. Row 2: values
    near 1e30 (squares overflow float32) and row 3 near 1e-30 (squares underflow): [3, -4] times them gives
    [0.6, -0.8], as in float64 (Epsilon 1e-35 below that norm)."""
    x = np.array([[0, np.nan, 0], [1, -2, np.inf], [3e30, -4e30, 0], [3e-30, -4e-30, 0]], np.float32)
    desc = lp_desc(tensor(F32, [4, 3], [1, 4]), tensor(F32, [4, 3], [5, 1]), 1, 2, 1e-35)
    got = run_operator(device, desc, {"InputTensor": x})["OutputTensor"]
    assert np.isnan(got[0]).all()
    np.testing.assert_array_equal(got[1], [0, -0.0, np.nan])
    assert np.signbit(got[1, 1])
    np.testing.assert_allclose(got[2:], [[0.6, -0.8, 0], [0.6, -0.8, 0]], rtol=5e-7)


def test_lp_float16_store_rounds_to_nearest(device):
    """FLOAT16 storage, computed in float32: |Output| <= 1, and a quotient of halves below 1 never lands exactly
    on a midpoint of halves, so take one near a midpoint: x = [0.99951171875 (1 - 2^-11), 0], P 1, Epsilon
    x / 0.9993 above the norm x: Output 0.9993, between the halves 0.9990234375 and 0.99951171875 (midpoint
    0.999267578125), nearer the upper: stored 0.99951171875 (a truncating store gives 0.9990234375)."""
    x = np.array([0.99951171875, 0], np.float16)
    desc = lp_desc(tensor(F16, [2]), tensor(F16, [2]), 0, 1, 0.99951171875 / 0.9993)
    got = run_operator(device, desc, {"InputTensor": x})["OutputTensor"]
    np.testing.assert_array_equal(got, np.array([0.99951171875, 0], np.float16))


# --- LOCAL_RESPONSE_NORMALIZATION -------------------------------------------------------------------------------
def test_lrn_by_hand(device):
    """x {1, 3, 1, 1} = [1, 2, 3], LocalSize 2 (region [c, c + 1]), Alpha 2 (Alpha / LocalSize = 1), Beta 1,
    Bias 1, across channels: sums of squares 1 + 4 = 5, 4 + 9 = 13, 9: [1/6, 2/14, 3/10]. Within channels
    (CrossChannel FALSE) over a {1, 1, 2, 2} input [1, 2, 3, 4] with LocalSize 3 (region [i - 1, i + 1] along H
    and W, clipped): every region is the whole 2x2, sum 30, Alpha 3 (1 per square), Beta 0.5, Bias 6: x / 6."""
    got = run_operator(device, lrn_desc(tensor(F32, [1, 3, 1, 1]), tensor(F32, [1, 3, 1, 1]), True, 2, 2.0, 1.0,
                                        1.0), {"InputTensor": np.array([1, 2, 3], np.float32)})["OutputTensor"]
    np.testing.assert_allclose(got.reshape(-1), [1 / 6, 2 / 14, 3 / 10], rtol=5e-7)
    got = run_operator(device, lrn_desc(tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 1, 2, 2]), False, 3, 3.0, 0.5,
                                        6.0), {"InputTensor": np.array([1, 2, 3, 4], np.float32)})["OutputTensor"]
    np.testing.assert_allclose(got.reshape(-1), [1 / 6, 2 / 6, 3 / 6, 4 / 6], rtol=5e-7)


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize(("cross", "size", "alpha", "beta", "bias"), [
    (True, 5, 1e-2, 0.75, 1.0), (True, 2, 0.5, 1.0, 2.0), (False, 3, 0.1, 0.5, 1.0), (True, 9, 1e-3, 0.75, 0.5),
], ids=["cross-5", "cross-even-2", "within-3", "cross-wider-than-C"])
def test_lrn_matches_the_formula(device, data_type, cross, size, alpha, beta, bias):
    rng = np.random.default_rng(size)
    x = rng.uniform(-4, 4, (2, 6, 3, 4)).astype(NUMPY[data_type])
    desc = lrn_desc(tensor(data_type, x.shape), tensor(data_type, x.shape), cross, size, alpha, beta, bias)
    got = run_operator(device, desc, {"InputTensor": x})["OutputTensor"]
    expected, bound = lrn_numpy(x, cross, size, alpha, beta, bias)
    taps = min(size, 6) if cross else min(size, 3) * min(size, 4)
    assert_close(got, expected, bound, data_type, beta * (taps + 2) + 20)


def test_lrn_strides_specials_and_large_values(device):
    """Across channels (LocalSize 3) of an NHWC-strided input into a padded output: a NaN poisons its region
    (itself and its neighbours along C), +inf makes its neighbours' sums +inf (x / inf = 0) and itself NaN;
    values near 1e22 whose squares, and Alpha / LocalSize * S (about 5e40), overflow float32 while that to the
    power Beta (about 1e30) does not: the float64 formula within the stated ulps."""
    x = np.ones((1, 4, 1, 3), np.float32)
    x[0, :, 0, 0] = [1, np.nan, 2, 3]
    x[0, :, 0, 1] = [1, 2, 3, np.inf]
    x[0, :, 0, 2] = [1e22, -2e22, 3e22, 4e22]
    desc = lrn_desc(tensor(F32, [1, 4, 1, 3], [12, 1, 12, 4]), tensor(F32, [1, 4, 1, 3], [20, 5, 5, 1]), True, 3,
                    1e-4, 0.75, 1.0)
    got = run_operator(device, desc, {"InputTensor": x})["OutputTensor"]
    assert np.isnan(got[0, :3, 0, 0]).all() and not np.isnan(got[0, 3, 0, 0])
    assert got[0, 0, 0, 1] != 0 and got[0, 1, 0, 1] > 0
    np.testing.assert_array_equal(got[0, 2:, 0, 1], [0, np.nan])
    expected, bound = lrn_numpy(x[:, :, :, 2:], True, 3, 1e-4, 0.75, 1.0)
    assert np.all(np.isfinite(expected)) and np.all(np.abs(expected) > 1e-9)  # not flushed to 0
    assert_close(got[:, :, :, 2:], expected, bound, F32, 0.75 * 5 + 20)


def test_lrn_float16_tie(device):
    """FLOAT16 storage: Alpha 0, Beta 1, Bias 2 make Output x / 2, exact in float32. x = 1, 3 and 5 times
    2^-24 (the smallest half subnormal) give 0.5, 1.5 and 2.5 times it: ties, stored 0, 2 and 2 times 2^-24
    (nearest even; a truncating store gives 0, 1, 2)."""
    tiny = 2.0 ** -24
    x = np.array([tiny, 3 * tiny, 5 * tiny], np.float16)
    desc = lrn_desc(tensor(F16, [1, 3, 1, 1]), tensor(F16, [1, 3, 1, 1]), True, 1, 0.0, 1.0, 2.0)
    got = run_operator(device, desc, {"InputTensor": x})["OutputTensor"]
    np.testing.assert_array_equal(got.reshape(-1), np.array([0, 2 * tiny, 2 * tiny], np.float16))


# --- BATCH_NORMALIZATION_TRAINING --------------------------------------------------------------------------------
def test_bn_training_by_hand(device):
    """x {2, 2} = [[1, 4], [3, 8]] with Scale/Bias {1, 2} (statistics per column, over axis 0): Mean [2, 6],
    Variance [1, 4]; Epsilon 0: (x - Mean) / sqrt(Variance) = [[-1, -1], [1, 1]]; Scale [2, 3], Bias [0, 1]:
    [[-2, -2], [2, 4]]; FusedAdd [[10, 20], [30, 40]]: [[8, 18], [32, 44]]; a fused RELU changes nothing here."""
    two, col = [2, 2], [1, 2]
    desc = bnt_desc(tensor(F32, two), tensor(F32, col), tensor(F32, col), tensor(F32, two), tensor(F32, two),
                    tensor(F32, col), tensor(F32, col), fused=relu())
    got = run_operator(device, desc, {"InputTensor": np.array([[1, 4], [3, 8]], np.float32),
                                      "ScaleTensor": np.array([[2, 3]], np.float32),
                                      "BiasTensor": np.array([[0, 1]], np.float32),
                                      "FusedAddTensor": np.array([[10, 20], [30, 40]], np.float32)})
    np.testing.assert_array_equal(got["OutputTensor"], [[8, 18], [32, 44]])
    np.testing.assert_array_equal(got["OutputMeanTensor"], [[2, 6]])
    np.testing.assert_array_equal(got["OutputVarianceTensor"], [[1, 4]])


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize(("sizes", "param", "fused_add"), [
    ((4, 3, 2, 5), (1, 3, 1, 1), True), ((6, 5), (1, 5), False), ((2, 1, 3, 1, 2, 1, 2, 2), (1, 1, 3, 1, 1, 1, 1, 2),
                                                                    True),
    ((7,), (1,), False),
], ids=["nchw-per-channel", "2d-fused-add-absent", "8d", "1d-all"])
def test_bn_training_matches_the_formula(device, data_type, sizes, param, fused_add):
    rng = np.random.default_rng(len(sizes))
    dtype = NUMPY[data_type]
    x = rng.uniform(-4, 4, sizes).astype(dtype)
    scale, bias = (rng.uniform(-2, 2, param).astype(dtype) for _ in range(2))
    add = rng.uniform(-2, 2, sizes).astype(dtype) if fused_add else None
    desc = bnt_desc(tensor(data_type, sizes), tensor(data_type, param), tensor(data_type, param),
                    tensor(data_type, sizes) if fused_add else None, tensor(data_type, sizes),
                    tensor(data_type, param), tensor(data_type, param), epsilon=1e-4)
    inputs = {"InputTensor": x, "ScaleTensor": scale, "BiasTensor": bias}
    if fused_add:
        inputs["FusedAddTensor"] = add
    got = run_operator(device, desc, inputs)
    y, bound, mean, mean_bound, variance = bnt_numpy(x, scale, bias, add, 1e-4)
    n = math.prod(s for s, p in zip(sizes, param, strict=True) if p == 1)
    assert_close(got["OutputTensor"], y, bound, data_type, n + 5)
    assert_close(got["OutputMeanTensor"], mean, mean_bound, data_type, n + 2, "OutputMeanTensor")
    assert_close(got["OutputVarianceTensor"], variance, variance, data_type, n + 8, "OutputVarianceTensor")


def test_bn_training_large_mean_strides_and_specials(device):
    """Statistics per row of a column-major {3, 64} input into padded outputs: row 0 is 1e4 + noise (the Mean
    within n + 2 ulps of a bound of 1e4 + the noise, the Variance within n + 8 ulps of itself: a float32
    E[x^2] - E[x]^2 would lose it entirely); row 1 holds a NaN: its Output, Mean and Variance are NaN; row 2
    holds +inf first: Mean +inf, Variance NaN (inf - inf), Output NaN."""
    rng = np.random.default_rng(9)
    x = rng.uniform(-1, 1, (3, 64)).astype(np.float32)
    x[0] += 1e4
    x[1, 5] = np.nan
    x[2, 0] = np.inf
    col = [3, 1]
    desc = bnt_desc(tensor(F32, [3, 64], [1, 3]), tensor(F32, col), tensor(F32, col), None,
                    tensor(F32, [3, 64], [70, 1]), tensor(F32, col, [2, 1]), tensor(F32, col, [4, 1]), epsilon=1e-6)
    scale, bias = np.ones((3, 1), np.float32), np.zeros((3, 1), np.float32)
    got = run_operator(device, desc, {"InputTensor": x, "ScaleTensor": scale, "BiasTensor": bias})
    y, bound, mean, mean_bound, variance = bnt_numpy(x[:1], scale[:1], bias[:1], None, 1e-6)
    assert_close(got["OutputTensor"][:1], y, bound, F32, 64 + 5)
    assert_close(got["OutputMeanTensor"][:1], mean, mean_bound, F32, 64 + 2, "OutputMeanTensor")
    assert_close(got["OutputVarianceTensor"][:1], variance, variance, F32, 64 + 8, "OutputVarianceTensor")
    assert np.isnan(got["OutputTensor"][1:]).all()
    assert np.isnan(got["OutputMeanTensor"][1, 0]) and got["OutputMeanTensor"][2, 0] == np.inf
    assert np.isnan(got["OutputVarianceTensor"][1:]).all()


def test_bn_training_float16_tie(device):
    """FLOAT16 storage: Scale of the input's sizes makes every group one element (no axis to reduce): Mean x,
    Variance 0, Epsilon 1, Output 0 * Scale + Bias + FusedAdd = 2048 + 1 = 2049, halfway between the halves
    2048 and 2050: stored 2048 (even); 2050 + 1: 2052."""
    one = [2]
    desc = bnt_desc(tensor(F16, one), tensor(F16, one), tensor(F16, one), tensor(F16, one), tensor(F16, one),
                    tensor(F16, one), tensor(F16, one), epsilon=1.0)
    got = run_operator(device, desc, {"InputTensor": np.array([5, 7], np.float16),
                                      "ScaleTensor": np.ones(2, np.float16),
                                      "BiasTensor": np.array([2048, 2050], np.float16),
                                      "FusedAddTensor": np.ones(2, np.float16)})
    np.testing.assert_array_equal(got["OutputTensor"], np.array([2048, 2052], np.float16))
    np.testing.assert_array_equal(got["OutputMeanTensor"], np.array([5, 7], np.float16))
    np.testing.assert_array_equal(got["OutputVarianceTensor"], np.zeros(2, np.float16))
    # one group of [2050, 2052] (Scale {1}): Mean 2051, halfway between 2050 and 2052: stored 2052 (even; a
    # truncating store gives 2050); Variance 1; Output (x - 2051) / 1 = [-1, 1]
    one = [1]
    desc = bnt_desc(tensor(F16, [2]), tensor(F16, one), tensor(F16, one), None, tensor(F16, [2]),
                    tensor(F16, one), tensor(F16, one))
    got = run_operator(device, desc, {"InputTensor": np.array([2050, 2052], np.float16),
                                      "ScaleTensor": np.ones(1, np.float16), "BiasTensor": np.zeros(1, np.float16)})
    np.testing.assert_array_equal(got["OutputMeanTensor"], np.array([2052], np.float16))
    np.testing.assert_array_equal(got["OutputVarianceTensor"], np.array([1], np.float16))
    np.testing.assert_array_equal(got["OutputTensor"], np.array([-1, 1], np.float16))


# --- BATCH_NORMALIZATION_GRAD / BATCH_NORMALIZATION_TRAINING_GRAD ---------------------------------------------
def test_bn_grad_by_hand(device):
    """x {2, 1} = [1, 3], Mean 2, Variance 1, Epsilon 0, Scale 2, dy [1, 3] (statistics over axis 0).
    GRAD: dx = dy * 2 / 1 = [2, 6]; dScale = sum(dy * (x - 2)) = -1 + 3 = 2; dBias = 4.
    TRAINING_GRAD: mean(dy) = 2, mean(dy * xc) = 1: dx = 2 * ((dy - 2) - xc * 1) = 2 * [-1 + 1, 1 - 1] = [0, 0]
    (the batch's Mean and Variance absorb both directions here); dScale 2, dBias 4 as above."""
    x, p = [2, 1], [1, 1]
    inputs = {"InputTensor": np.array([[1], [3]], np.float32), "InputGradientTensor": np.array([[1], [3]], np.float32),
              "MeanTensor": np.array([[2]], np.float32), "VarianceTensor": np.array([[1]], np.float32),
              "ScaleTensor": np.array([[2]], np.float32)}
    for training, dx in ((False, [2, 6]), (True, [0, 0])):
        desc = bn_grad_desc(training, tensor(F32, x), tensor(F32, x), tensor(F32, p), tensor(F32, p), tensor(F32, p),
                            tensor(F32, x), tensor(F32, p), tensor(F32, p))
        got = run_operator(device, desc, inputs)
        np.testing.assert_array_equal(got["OutputGradientTensor"].reshape(-1), dx, err_msg=f"training {training}")
        np.testing.assert_array_equal(got["OutputScaleGradientTensor"].reshape(-1), [2])
        np.testing.assert_array_equal(got["OutputBiasGradientTensor"].reshape(-1), [4])


@pytest.mark.parametrize("training", [False, True], ids=["GRAD", "TRAINING_GRAD"])
def test_bn_grad_references_match_finite_differences(training):
    """The float64 reference against central differences of the forward formula: loss = sum(dy * y) with
    y = Scale * (x - Mean) / sqrt(Variance + Epsilon) + Bias, Mean and Variance fixed (GRAD) or the batch's own,
    biased (TRAINING_GRAD, where MeanTensor/VarianceTensor hold the batch statistics); d loss / dx, d / dScale and
    d / dBias within 1e-6 relative (step 1e-6, float64)."""
    from dmlsim.operators.normalization.reference import batch_normalization_grad

    rng = np.random.default_rng(4)
    x = rng.uniform(-2, 2, (4, 3, 2))
    dy = rng.uniform(-1, 1, x.shape)
    scale, bias = rng.uniform(0.5, 2, (1, 3, 1)), rng.uniform(-1, 1, (1, 3, 1))
    fixed_mean, fixed_var = rng.uniform(-1, 1, (1, 3, 1)), rng.uniform(0.5, 2, (1, 3, 1))
    eps = 1e-3

    def loss(x, scale, bias):
        mean = x.mean(axis=(0, 2), keepdims=True) if training else fixed_mean
        var = ((x - mean) ** 2).mean(axis=(0, 2), keepdims=True) if training else fixed_var
        return np.sum(dy * (scale * (x - mean) / np.sqrt(var + np.float64(np.float32(eps))) + bias))

    def numeric(f, a):
        out = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            up, down = a.copy(), a.copy()
            up[i] += 1e-6
            down[i] -= 1e-6
            out[i] = (f(up) - f(down)) / 2e-6
        return out

    mean = x.mean(axis=(0, 2), keepdims=True) if training else fixed_mean
    var = ((x - mean) ** 2).mean(axis=(0, 2), keepdims=True) if training else fixed_var
    dx, dscale, dbias = batch_normalization_grad(x, dy, mean, var, scale, eps, training)
    np.testing.assert_allclose(dx, numeric(lambda a: loss(a, scale, bias), x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(dscale, numeric(lambda a: loss(x, a, bias), scale), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(dbias, numeric(lambda a: loss(x, scale, a), bias), rtol=1e-6, atol=1e-8)
    (want_dx, _), (want_ds, _), (want_db, _) = bn_grad_numpy(training, x, dy, mean, var, scale, eps)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(dscale, want_ds, rtol=1e-12)
    np.testing.assert_allclose(dbias, want_db, rtol=1e-12)


@pytest.mark.parametrize("training", [False, True], ids=["GRAD", "TRAINING_GRAD"])
@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize(("sizes", "param"), [
    ((4, 3, 2, 5), (1, 3, 1, 1)), ((6, 5), (1, 5)), ((2, 1, 3, 1, 2, 1, 2, 2), (1, 1, 3, 1, 1, 1, 1, 2)),
], ids=["nchw", "2d", "8d"])
def test_bn_grad_matches_the_formula(device, training, data_type, sizes, param):
    rng = np.random.default_rng(len(sizes) + training)
    dtype = NUMPY[data_type]
    x, dy = (rng.uniform(-3, 3, sizes).astype(dtype) for _ in range(2))
    mean, scale = (rng.uniform(-1, 1, param).astype(dtype) for _ in range(2))
    var = rng.uniform(0.5, 2, param).astype(dtype)
    desc = bn_grad_desc(training, tensor(data_type, sizes), tensor(data_type, sizes), *[tensor(data_type, param)] * 3,
                        tensor(data_type, sizes), tensor(data_type, param), tensor(data_type, param), epsilon=1e-3)
    got = run_operator(device, desc, {"InputTensor": x, "InputGradientTensor": dy, "MeanTensor": mean,
                                      "VarianceTensor": var, "ScaleTensor": scale})
    n = math.prod(s for s, p in zip(sizes, param, strict=True) if p == 1)
    expected = bn_grad_numpy(training, x, dy, mean, var, scale, 1e-3)
    for name, (want, bound) in zip(("OutputGradientTensor", "OutputScaleGradientTensor", "OutputBiasGradientTensor"),
                                   expected, strict=True):
        assert_close(got[name], want, bound, data_type, n + 6, name)


def test_bn_grad_strides_and_broadcast(device):
    """Column-major x, dy with padded rows, Mean/Variance/Scale {1, 3} read through padded strides {0, 2}, padded
    outputs:
    TRAINING_GRAD's three outputs match the formula (n = 4 per group)."""
    rng = np.random.default_rng(8)
    x, dy = (rng.uniform(-3, 3, (4, 3)).astype(np.float32) for _ in range(2))
    mean, scale = (rng.uniform(-1, 1, (1, 3)).astype(np.float32) for _ in range(2))
    var = rng.uniform(0.5, 2, (1, 3)).astype(np.float32)
    desc = bn_grad_desc(True, tensor(F32, [4, 3], [1, 4]), tensor(F32, [4, 3], [4, 1]),
                        *[tensor(F32, [1, 3], [0, 2])] * 3, tensor(F32, [4, 3], [5, 1]), tensor(F32, [1, 3], [3, 3]),
                        tensor(F32, [1, 3], [0, 2]), epsilon=1e-3)
    got = run_operator(device, desc, {"InputTensor": x, "InputGradientTensor": dy, "MeanTensor": mean,
                                      "VarianceTensor": var, "ScaleTensor": scale})
    expected = bn_grad_numpy(True, x, dy, mean, var, scale, 1e-3)
    for name, (want, bound) in zip(("OutputGradientTensor", "OutputScaleGradientTensor", "OutputBiasGradientTensor"),
                                   expected, strict=True):
        assert_close(got[name], want, bound, F32, 4 + 6, name)


def test_bn_grad_float16_tie(device):
    """FLOAT16 storage: GRAD with Mean 0, Variance 1, Epsilon 0, Scale 1: dx = dy, dBias = sum(dy) over the
    two-element groups: [2048, 1] sums to 2049, halfway between the halves 2048 and 2050: stored 2048 (even);
    [2050, 1]: 2051 -> 2052."""
    x, p = [2, 2], [1, 2]
    desc = bn_grad_desc(False, tensor(F16, x), tensor(F16, x), *[tensor(F16, p)] * 3, tensor(F16, x), tensor(F16, p),
                        tensor(F16, p))
    got = run_operator(device, desc, {"InputTensor": np.zeros(x, np.float16),
                                      "InputGradientTensor": np.array([[2048, 2050], [1, 1]], np.float16),
                                      "MeanTensor": np.zeros(p, np.float16), "VarianceTensor": np.ones(p, np.float16),
                                      "ScaleTensor": np.ones(p, np.float16)})
    np.testing.assert_array_equal(got["OutputBiasGradientTensor"], np.array([[2048, 2052]], np.float16))
    np.testing.assert_array_equal(got["OutputGradientTensor"], np.array([[2048, 2050], [1, 1]], np.float16))


# --- LOCAL_RESPONSE_NORMALIZATION_GRAD ---------------------------------------------------------------------------
def test_lrn_grad_by_hand(device):
    """x {1, 2, 1, 1} = [1, 2], dy = [1, 0], LocalSize 2 across channels (regions {0, 1} and {1}), Alpha 2
    (a = 1), Beta 1, Bias 1: B = [1 + 1 + 4, 1 + 4] = [6, 5]. dx_0 = dy_0 / B_0 - 2 * x_0 * (dy_0 x_0 / B_0^2)
    = 1/6 - 2/36 = 1/9; dx_1 = 0 / 5 - 2 * x_1 * (dy_0 x_0 / B_0^2 + dy_1 x_1 / B_1^2) = -4 / 36 = -1/9."""
    shape = [1, 2, 1, 1]
    desc = lrn_grad_desc(tensor(F32, shape), tensor(F32, shape), tensor(F32, shape), True, 2, 2.0, 1.0, 1.0)
    got = run_operator(device, desc, {"InputTensor": np.array([1, 2], np.float32),
                                      "InputGradientTensor": np.array([1, 0], np.float32)})["OutputGradientTensor"]
    np.testing.assert_allclose(got.reshape(-1), [1 / 9, -1 / 9], rtol=2e-6)


@pytest.mark.parametrize("cross", [True, False], ids=["cross", "within"])
def test_lrn_grad_reference_matches_finite_differences(cross):
    """The float64 reference against central differences of the forward reference: d sum(dy * LRN(x)) / dx
    within 1e-6 relative (step 1e-6), LocalSize 3 and an even 2 (the region's asymmetric extents)."""
    from dmlsim.operators.normalization.reference import local_response_normalization as forward
    from dmlsim.operators.normalization.reference import local_response_normalization_grad as grad

    rng = np.random.default_rng(12)
    x = rng.uniform(-2, 2, (1, 4, 3, 3))
    dy = rng.uniform(-1, 1, x.shape)
    for size in (3, 2):
        numeric = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            up, down = x.copy(), x.copy()
            up[i] += 1e-6
            down[i] -= 1e-6
            numeric[i] = (np.sum(dy * forward(up, cross, size, 0.5, 0.75, 1.0)) -
                          np.sum(dy * forward(down, cross, size, 0.5, 0.75, 1.0))) / 2e-6
        np.testing.assert_allclose(grad(x, dy, cross, size, 0.5, 0.75, 1.0), numeric, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize(("cross", "size"), [(True, 5), (True, 2), (False, 3)], ids=["cross-5", "cross-2", "within-3"])
def test_lrn_grad_matches_the_formula(device, data_type, cross, size):
    rng = np.random.default_rng(size + cross)
    dtype = NUMPY[data_type]
    x, dy = (rng.uniform(-3, 3, (2, 5, 3, 3)).astype(dtype) for _ in range(2))
    desc = lrn_grad_desc(tensor(data_type, x.shape), tensor(data_type, x.shape), tensor(data_type, x.shape), cross,
                         size, 0.3, 0.75, 1.0)
    got = run_operator(device, desc, {"InputTensor": x, "InputGradientTensor": dy})["OutputGradientTensor"]
    expected, bound = lrn_grad_numpy(x, dy, cross, size, 0.3, 0.75, 1.0)
    taps = min(size, 5) if cross else min(size, 3) ** 2
    assert_close(got, expected, bound, data_type, 2 * taps + 24)


def test_lrn_grad_strides_and_float16_tie(device):
    """An NHWC-strided input, a column-padded gradient, a padded output: the formula; then FLOAT16 storage with
    Alpha 0 (dx = dy / Bias^Beta): Bias 2, Beta 1, dy = 1, 3, 5 times 2^-24 give ties 0.5, 1.5, 2.5 times it,
    stored 0, 2, 2 times 2^-24 (nearest even)."""
    rng = np.random.default_rng(13)
    x, dy = (rng.uniform(-2, 2, (1, 3, 2, 2)).astype(np.float32) for _ in range(2))
    desc = lrn_grad_desc(tensor(F32, [1, 3, 2, 2], [12, 1, 6, 3]), tensor(F32, [1, 3, 2, 2], [24, 8, 4, 1]),
                         tensor(F32, [1, 3, 2, 2], [15, 5, 2, 1]), True, 3, 0.3, 0.75, 1.0)
    got = run_operator(device, desc, {"InputTensor": x, "InputGradientTensor": dy})["OutputGradientTensor"]
    expected, bound = lrn_grad_numpy(x, dy, True, 3, 0.3, 0.75, 1.0)
    assert_close(got, expected, bound, F32, 2 * 3 + 24)
    tiny = 2.0 ** -24
    desc = lrn_grad_desc(*[tensor(F16, [1, 3, 1, 1])] * 3, True, 1, 0.0, 1.0, 2.0)
    got = run_operator(device, desc, {"InputTensor": np.ones(3, np.float16),
                                      "InputGradientTensor": np.array([tiny, 3 * tiny, 5 * tiny], np.float16)})
    np.testing.assert_array_equal(got["OutputGradientTensor"].reshape(-1), np.array([0, 2 * tiny, 2 * tiny],
                                                                                    np.float16))


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
    (lp_desc(tensor(F32, [2, 3]), tensor(F32, [2, 3]), 1, 3),
     "DML_LP_NORMALIZATION_OPERATOR_DESC.P 3 must be 1 or 2"),
    (lp_desc(tensor(F32, [2, 3]), tensor(F32, [2, 3]), 1, 0),
     "DML_LP_NORMALIZATION_OPERATOR_DESC.P 0 must be 1 or 2"),
    (lp_desc(tensor(F32, [2, 3]), tensor(F32, [2, 3]), 2, 2),
     "DML_LP_NORMALIZATION_OPERATOR_DESC.Axis 2 must be less than InputTensor.DimensionCount 2"),
    (lp_desc(tensor(F32, [2, 3]), tensor(F32, [3, 2]), 0, 2),
     "OutputTensor.Sizes [3, 2] must equal InputTensor.Sizes [2, 3]"),
    (lp_desc(tensor(F32, [2, 3]), tensor(F16, [2, 3]), 0, 2),
     "OutputTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (lp_desc(tensor(U8, [2, 3]), tensor(U8, [2, 3]), 0, 2),
     "InputTensor.DataType UINT8 is not supported by DML_OPERATOR_LP_NORMALIZATION"),
    (lp_desc(tensor(F32, [1] * 9), tensor(F32, [1] * 9), 0, 2),
     "InputTensor.DimensionCount must be 1, 2, 3, 4, 5, 6, 7, 8, got 9"),
    (lrn_desc(tensor(F32, S4), tensor(F32, S4), True, 0, 1e-4, 0.75, 1.0),
     "DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC.LocalSize 0 must be at least 1"),
    (lrn_desc(tensor(F32, [3, 2, 2]), tensor(F32, [3, 2, 2]), True, 3, 1e-4, 0.75, 1.0),
     "InputTensor.DimensionCount 3 is not supported by DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION (supported: 4 to "
     "4)"),
    (lrn_desc(tensor(F32, S4), tensor(F32, [1, 3, 2, 1]), True, 3, 1e-4, 0.75, 1.0),
     "OutputTensor.Sizes [1, 3, 2, 1] must equal InputTensor.Sizes [1, 3, 2, 2]"),
    (lrn_desc(tensor(F16, S4), tensor(F32, S4), True, 3, 1e-4, 0.75, 1.0),
     "OutputTensor.DataType FLOAT32 must equal InputTensor.DataType FLOAT16"),
    (lrn_desc(tensor(U8, S4), tensor(U8, S4), False, 3, 1e-4, 0.75, 1.0),
     "InputTensor.DataType UINT8 is not supported by DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION"),
    (bnt_desc(tensor(F32, [2, 3]), tensor(F32, [1, 3]), tensor(F32, [1, 3]), None, tensor(F32, [2, 3]),
              tensor(F32, [1, 3]), tensor(F32, [3, 1])),
     "OutputVarianceTensor.Sizes [3, 1] must equal ScaleTensor.Sizes [1, 3]"),
    (bnt_desc(tensor(F32, [2, 3]), tensor(F32, [1, 3]), tensor(F32, [1, 1]), None, tensor(F32, [2, 3]),
              tensor(F32, [1, 3]), tensor(F32, [1, 3])),
     "BiasTensor.Sizes [1, 1] must equal ScaleTensor.Sizes [1, 3]"),
    (bnt_desc(tensor(F32, [2, 3]), tensor(F32, [1, 3]), tensor(F32, [1, 3]), tensor(F32, [2, 1]),
              tensor(F32, [2, 3]), tensor(F32, [1, 3]), tensor(F32, [1, 3])),
     "FusedAddTensor.Sizes [2, 1] must equal InputTensor.Sizes [2, 3]"),
    (bnt_desc(tensor(F32, [2, 3]), tensor(F32, [1, 2]), tensor(F32, [1, 2]), None, tensor(F32, [2, 3]),
              tensor(F32, [1, 2]), tensor(F32, [1, 2])),
     "ScaleTensor.Sizes [1, 2]: each size must be 1 (broadcast) or InputTensor's size"),
    (bnt_desc(tensor(F32, [2, 3]), tensor(F32, [1, 3]), tensor(F32, [1, 3]), None, tensor(F32, [2, 3]),
              tensor(F16, [1, 3]), tensor(F32, [1, 3])),
     "OutputMeanTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (bnt_desc(tensor(F32, [2, 3]), tensor(F32, [3]), tensor(F32, [3]), None, tensor(F32, [2, 3]),
              tensor(F32, [3]), tensor(F32, [3])),
     "ScaleTensor.DimensionCount 1 must equal InputTensor.DimensionCount 2"),
    (bnt_desc(tensor(U8, [2, 3]), tensor(U8, [1, 3]), tensor(U8, [1, 3]), None, tensor(U8, [2, 3]),
              tensor(U8, [1, 3]), tensor(U8, [1, 3])),
     "InputTensor.DataType UINT8 is not supported by DML_OPERATOR_BATCH_NORMALIZATION_TRAINING"),
    (bn_grad_desc(False, tensor(F32, [2, 3]), tensor(F32, [2, 3]), tensor(F32, [1, 3]), tensor(F32, [1, 3]),
                  tensor(F32, [3, 1]), tensor(F32, [2, 3]), tensor(F32, [1, 3]), tensor(F32, [1, 3])),
     "ScaleTensor.Sizes [3, 1] must equal MeanTensor.Sizes [1, 3]"),
    (bn_grad_desc(True, tensor(F32, [2, 3]), tensor(F32, [2, 2]), tensor(F32, [1, 3]), tensor(F32, [1, 3]),
                  tensor(F32, [1, 3]), tensor(F32, [2, 3]), tensor(F32, [1, 3]), tensor(F32, [1, 3])),
     "InputGradientTensor.Sizes [2, 2] must equal InputTensor.Sizes [2, 3]"),
    (bn_grad_desc(True, tensor(F32, [2, 3]), tensor(F32, [2, 3]), tensor(F32, [1, 2]), tensor(F32, [1, 2]),
                  tensor(F32, [1, 2]), tensor(F32, [2, 3]), tensor(F32, [1, 2]), tensor(F32, [1, 2])),
     "MeanTensor.Sizes [1, 2]: each size must be 1 (broadcast) or InputTensor's size"),
    (bn_grad_desc(False, tensor(F32, [2, 3]), tensor(F32, [2, 3]), tensor(F32, [1, 3]), tensor(F32, [1, 3]),
                  tensor(F32, [1, 3]), tensor(F32, [2, 3]), tensor(F16, [1, 3]), tensor(F32, [1, 3])),
     "OutputScaleGradientTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (bn_grad_desc(False, tensor(U8, [2, 3]), tensor(U8, [2, 3]), tensor(U8, [1, 3]), tensor(U8, [1, 3]),
                  tensor(U8, [1, 3]), tensor(U8, [2, 3]), tensor(U8, [1, 3]), tensor(U8, [1, 3])),
     "InputTensor.DataType UINT8 is not supported by DML_OPERATOR_BATCH_NORMALIZATION_GRAD"),
    (lrn_grad_desc(tensor(F32, S4), tensor(F32, [1, 3, 2, 1]), tensor(F32, S4), True, 3, 1e-4, 0.75, 1.0),
     "InputGradientTensor.Sizes [1, 3, 2, 1] must equal InputTensor.Sizes [1, 3, 2, 2]"),
    (lrn_grad_desc(tensor(F32, S4), tensor(F32, S4), tensor(F16, S4), True, 3, 1e-4, 0.75, 1.0),
     "OutputGradientTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (lrn_grad_desc(tensor(F32, S4), tensor(F32, S4), tensor(F32, S4), False, 0, 1e-4, 0.75, 1.0),
     "DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC.LocalSize 0 must be at least 1"),
    (lrn_grad_desc(*[tensor(F32, [3, 2, 2])] * 3, True, 3, 1e-4, 0.75, 1.0),
     "InputTensor.DimensionCount 3 is not supported by DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION_GRAD"),
], ids=["mvn0-rank3", "mvn0-scale-rank", "mvn0-type", "mvn0-bias-type", "mvn0-out-sizes", "mvn0-scale-sizes",
        "mvn2-no-axes", "mvn2-axis-range", "mvn2-axis-repeat", "mvn2-bias-rank", "mvn2-scale-sizes",
        "mvn2-out-type", "mvn2-out-sizes", "mvn2-type", "mvn2-rank9", "lp-p3", "lp-p0", "lp-axis", "lp-out-sizes",
        "lp-out-type", "lp-type", "lp-rank9", "lrn-size0", "lrn-rank3", "lrn-out-sizes", "lrn-out-type", "lrn-type",
        "bnt-var-sizes", "bnt-bias-sizes", "bnt-add-sizes", "bnt-scale-sizes", "bnt-mean-type", "bnt-scale-rank",
        "bnt-type", "bng-scale-sizes", "bntg-dy-sizes", "bntg-mean-sizes", "bng-ds-type", "bng-type",
        "lrng-dy-sizes", "lrng-out-type", "lrng-size0", "lrng-rank3"])
def test_validation(ref_device, desc, expected):
    assert expected in refused(ref_device, desc)


def test_registered():
    from dmlsim.operators import implemented_names

    names = implemented_names()
    assert {"DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION", "DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2",
            "DML_OPERATOR_LP_NORMALIZATION", "DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION",
            "DML_OPERATOR_BATCH_NORMALIZATION_TRAINING", "DML_OPERATOR_BATCH_NORMALIZATION_GRAD",
            "DML_OPERATOR_BATCH_NORMALIZATION_TRAINING_GRAD",
            "DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION_GRAD"} <= set(names)
