"""DML_OPERATOR_BATCH_NORMALIZATION and DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1
(dmlsim/operators/normalization), on every adapter.

Expected values are literals worked out by hand or the doc's formulas written out in float64 numpy
(tests/normalization_support.py; never dmlsim's reference). onnx's node cases, the external oracle, are in
tests/test_normalization_onnx.py.

Tolerances. BATCH_NORMALIZATION: a handful of float32 roundings (subtraction, add, sqrt, division, multiply,
add): 6 ulps of the magnitude bound ``|Scale| * (|Input| + |Mean|) / sqrt(Variance + Epsilon) + |Bias|``;
FLOAT16 2 ulps (half) of it. MEAN_VARIANCE_NORMALIZATION1 over groups of n elements: the Mean is a float32 sum
of n shifted terms ``x - x0`` (x0 the group's first element), so it is off by at most about n ulps of
``mean|x - x0|``; the Variance is computed in two passes from that Mean, so the Mean's error moves it only to
second order, and its own sum of n squares is within n ulps; so ``(n + 4)`` ulps of the bound
``|Scale| * (|x - Mean| + mean|x - x0|) / sqrt(Variance + Epsilon) + |Bias|`` (FLOAT16: 1 ulp (half) of it
plus the float32 error, 2 ulps). A fused activation multiplies the bound by its largest slope (here at most 1:
RELU) and adds 2 ulps.
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
    bn_desc,
    bn_numpy,
    mvn_desc,
    mvn_numpy,
    relu,
    tensor,
)

import dmlsim as dml
from dmlsim.quick import run_operator


# --- BATCH_NORMALIZATION -------------------------------------------------------------------------------------
def test_batch_normalization_by_hand(device):
    """Two channels: x = [[1, 3], [5, 9]], Mean [2, 5], Variance [4, 16] (Epsilon 0: sqrt 2 and 4), Scale [1, 2],
    Bias [0, 1]: [(1-2)/2, (3-2)/2] = [-0.5, 0.5]; 2 * [0, 4] / 4 + 1 = [1, 3]."""
    c = [1, 2, 1, 1]
    desc = bn_desc(tensor(F32, [1, 2, 1, 2]), tensor(F32, c), tensor(F32, c), tensor(F32, c), tensor(F32, c),
                   tensor(F32, [1, 2, 1, 2]))
    got = run_operator(device, desc, {"InputTensor": np.array([1, 3, 5, 9], np.float32),
                                      "MeanTensor": np.array([2, 5], np.float32),
                                      "VarianceTensor": np.array([4, 16], np.float32),
                                      "ScaleTensor": np.array([1, 2], np.float32),
                                      "BiasTensor": np.array([0, 1], np.float32)})["OutputTensor"]
    np.testing.assert_array_equal(got.reshape(-1), [-0.5, 0.5, 1, 3])


def test_batch_normalization_specials_and_fused_relu(device):
    """Mean 0, Variance 1, Epsilon 0, Scale 1 (a division by sqrt(1) and a product by 1 are exact):
    x = +inf, -inf, NaN, -0 with Bias -0 give +inf, -inf, NaN, -0 (-0 - 0 = -0, -0 + -0 = -0); with RELU the
    negatives and NaN become 0 (dmlsim's RELU of NaN is 0, README "Decisions")."""
    n = [1, 1, 1, 1]
    x = np.array([np.inf, -np.inf, np.nan, -0.0, 2.0, -3.0], np.float32)
    inputs = {"InputTensor": x, "MeanTensor": np.zeros(1, np.float32), "VarianceTensor": np.ones(1, np.float32),
              "ScaleTensor": np.ones(1, np.float32), "BiasTensor": np.array([-0.0], np.float32)}
    shape = [1, 1, 1, 6]
    got = run_operator(device, bn_desc(tensor(F32, shape), *[tensor(F32, n)] * 4, tensor(F32, shape)),
                       inputs)["OutputTensor"].reshape(-1)
    np.testing.assert_array_equal(got, [np.inf, -np.inf, np.nan, -0.0, 2.0, -3.0])
    assert np.signbit(got[3])
    fused = run_operator(device, bn_desc(tensor(F32, shape), *[tensor(F32, n)] * 4, tensor(F32, shape),
                                         fused=relu()), inputs)["OutputTensor"].reshape(-1)
    np.testing.assert_array_equal(fused, [np.inf, 0, 0, 0, 2.0, 0])


def test_batch_normalization_float16_ties(device):
    """FLOAT16 is storage: x + Bias computed in float32 and stored rounded to nearest even. 2048 + 1 = 2049 lies
    halfway between the halves 2048 and 2050: stored 2048 (even); 2050 + 1 = 2051: 2052; 2052 + 1: 2052."""
    n = [1, 1, 1, 1]
    inputs = {"InputTensor": np.array([2048, 2050, 2052], np.float16), "MeanTensor": np.zeros(1, np.float16),
              "VarianceTensor": np.ones(1, np.float16), "ScaleTensor": np.ones(1, np.float16),
              "BiasTensor": np.ones(1, np.float16)}
    desc = bn_desc(tensor(F16, [1, 1, 1, 3]), *[tensor(F16, n)] * 4, tensor(F16, [1, 1, 1, 3]))
    got = run_operator(device, desc, inputs)["OutputTensor"].reshape(-1)
    np.testing.assert_array_equal(got, np.array([2048, 2052, 2052], np.float16))


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize(("sizes", "param_sizes"), [
    ((2, 3, 4, 5), (1, 3, 1, 1)), ((7,), (7,)), ((2, 3, 5), (2, 1, 5)),
    ((1, 2, 1, 2, 1, 2, 3, 2), (1, 2, 1, 1, 1, 2, 1, 2)),
], ids=["4d-per-channel", "1d", "3d-mixed", "8d"])
def test_batch_normalization_matches_the_formula(device, data_type, sizes, param_sizes):
    rng = np.random.default_rng(len(sizes))
    dtype = NUMPY[data_type]
    x = rng.uniform(-4, 4, sizes).astype(dtype)
    mean, scale, bias = (rng.uniform(-2, 2, param_sizes).astype(dtype) for _ in range(3))
    var = rng.uniform(0, 3, param_sizes).astype(dtype)
    epsilon = 1e-3
    desc = bn_desc(tensor(data_type, sizes), *[tensor(data_type, param_sizes)] * 4, tensor(data_type, sizes),
                   epsilon=epsilon)
    got = run_operator(device, desc, {"InputTensor": x, "MeanTensor": mean, "VarianceTensor": var,
                                      "ScaleTensor": scale, "BiasTensor": bias})["OutputTensor"]
    expected, bound = bn_numpy(x, mean, var, scale, bias, epsilon)
    assert_close(got, expected, bound, data_type, 6)


def test_batch_normalization_strides_and_stride0_broadcast(device):
    """An NHWC-strided input, a padded output, and a Mean given as full-size {1, C, H, W} with strides
    {0, 1, 0, 0} (a stride-0 broadcast of C values, as DirectML callers write it): the same numbers as the
    per-channel formula; Spatial FALSE (deprecated at DML_FEATURE_LEVEL_4_0, no effect) changes nothing."""
    rng = np.random.default_rng(11)
    x = rng.uniform(-2, 2, (1, 3, 2, 4)).astype(np.float32)
    mean, var, scale, bias = (rng.uniform(0.5, 2, 3).astype(np.float32) for _ in range(4))
    c = [1, 3, 1, 1]
    desc = bn_desc(tensor(F32, [1, 3, 2, 4], [24, 1, 12, 3]), tensor(F32, [1, 3, 2, 4], [0, 1, 0, 0]),
                   tensor(F32, c), tensor(F32, c), tensor(F32, c), tensor(F32, [1, 3, 2, 4], [40, 12, 5, 1]),
                   epsilon=1e-5, spatial=False)
    full_mean = np.broadcast_to(mean.reshape(1, 3, 1, 1), (1, 3, 2, 4))  # the 24 values the stride 0 repeats
    got = run_operator(device, desc, {"InputTensor": x, "MeanTensor": full_mean, "VarianceTensor": var,
                                      "ScaleTensor": scale, "BiasTensor": bias})["OutputTensor"]
    r = (1, 3, 1, 1)
    expected, bound = bn_numpy(x, mean.reshape(r), var.reshape(r), scale.reshape(r), bias.reshape(r), 1e-5)
    assert_close(got, expected, bound, F32, 6)


# --- MEAN_VARIANCE_NORMALIZATION1 ------------------------------------------------------------------------------
def test_mvn1_by_hand(device):
    """[1, 2, 3, 4] over its one axis: Mean 2.5, Variance (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25 (biased),
    Epsilon 0: (x - 2.5) / sqrt(1.25) = [-1.5, -0.5, 0.5, 1.5] / 1.118034 = [-1.3416408, -0.4472136, 0.4472136,
    1.3416408]; without NormalizeVariance, Scale 2 and Bias 1: 2 * (x - 2.5) + 1 = [-2, 0, 2, 4]; with a fused
    RELU the negatives become 0."""
    x = {"InputTensor": np.array([1, 2, 3, 4], np.float32)}
    got = run_operator(device, mvn_desc(tensor(F32, [4]), None, None, tensor(F32, [4]), [0]), x)["OutputTensor"]
    np.testing.assert_allclose(got, [-1.3416408, -0.4472136, 0.4472136, 1.3416408], rtol=4e-7)
    desc = mvn_desc(tensor(F32, [4]), tensor(F32, [1]), tensor(F32, [1]), tensor(F32, [4]), [0],
                    normalize_variance=False)
    got = run_operator(device, desc, {**x, "ScaleTensor": np.array([2], np.float32),
                                      "BiasTensor": np.array([1], np.float32)})["OutputTensor"]
    np.testing.assert_array_equal(got, [-2, 0, 2, 4])
    fused = mvn_desc(tensor(F32, [4]), None, None, tensor(F32, [4]), [0], fused=relu())
    got = run_operator(device, fused, x)["OutputTensor"]
    np.testing.assert_allclose(got, [0, 0, 0.4472136, 1.3416408], rtol=4e-7)


def test_mvn1_large_mean(device):
    """Data 1e4 + noise of size 1 (n = 64 per group): a Mean from a plain float32 sum of the x (64 * 1e4 =
    6.4e5, ulp 0.0625) or a Variance from E[x^2] - E[x]^2 (1e8, ulp 8) would be wrong in the first digit of
    the output; the kernel must stay within (n + 4) ulps of the bound, whose spread term is the noise's size."""
    rng = np.random.default_rng(5)
    x = (1e4 + rng.uniform(-1, 1, (3, 64))).astype(np.float32)
    desc = mvn_desc(tensor(F32, [3, 64]), None, None, tensor(F32, [3, 64]), [1], epsilon=1e-6)
    got = run_operator(device, desc, {"InputTensor": x})["OutputTensor"]
    expected, bound = mvn_numpy(x, None, None, [1], True, 1e-6)
    assert np.max(bound) < 10  # the bound is the noise's scale, not 1e4
    assert_close(got, expected, bound, F32, 64 + 4)


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize(("sizes", "axes", "scale_sizes", "bias_sizes", "normalize"), [
    ((2, 3, 4, 5), (1, 2, 3), (1, 3, 4, 5), (1, 3, 4, 5), True),
    ((2, 3, 4, 5), (2, 3), (1, 3, 1, 1), None, True),
    ((6,), (0,), None, (6,), False),
    ((2, 1, 3, 1, 2, 1, 2, 2), (0, 4, 7), (1, 1, 3, 1, 2, 1, 1, 2), (2, 1, 1, 1, 1, 1, 2, 1), True),
    ((3, 5, 2), (0, 2), None, None, True),
], ids=["layernorm-4d", "instancenorm", "1d-centre", "8d", "3d-outer-axes"])
def test_mvn1_matches_the_formula(device, data_type, sizes, axes, scale_sizes, bias_sizes, normalize):
    rng = np.random.default_rng(sum(sizes))
    dtype = NUMPY[data_type]
    x = rng.uniform(-4, 4, sizes).astype(dtype)
    scale = None if scale_sizes is None else rng.uniform(-2, 2, scale_sizes).astype(dtype)
    bias = None if bias_sizes is None else rng.uniform(-2, 2, bias_sizes).astype(dtype)
    desc = mvn_desc(tensor(data_type, sizes), None if scale is None else tensor(data_type, scale_sizes),
                    None if bias is None else tensor(data_type, bias_sizes), tensor(data_type, sizes), axes,
                    normalize_variance=normalize, epsilon=1e-4)
    inputs = {"InputTensor": x}
    if scale is not None:
        inputs["ScaleTensor"] = scale
    if bias is not None:
        inputs["BiasTensor"] = bias
    got = run_operator(device, desc, inputs)["OutputTensor"]
    expected, bound = mvn_numpy(x, scale, bias, axes, normalize, 1e-4)
    n = math.prod(sizes[a] for a in axes)
    assert_close(got, expected, bound, data_type, n + 4)


def test_mvn1_strides_specials_and_fused(device):
    """A transposed (column-major) input, a padded output, Scale broadcast by a stride 0; a NaN in one group
    makes that group NaN and leaves the others; +inf likewise (inf - inf in the Variance)."""
    rng = np.random.default_rng(2)
    x = rng.uniform(-3, 3, (4, 6)).astype(np.float32)
    x[1, 2], x[3, 0] = np.nan, np.inf
    scale = rng.uniform(0.5, 2, 6).astype(np.float32)
    desc = mvn_desc(tensor(F32, [4, 6], [1, 4]), tensor(F32, [4, 6], [0, 1]), None, tensor(F32, [4, 6], [8, 1]),
                    [1], epsilon=1e-5)
    got = run_operator(device, desc, {"InputTensor": x,
                                      "ScaleTensor": np.broadcast_to(scale, (4, 6))})["OutputTensor"]
    expected, bound = mvn_numpy(x, scale.reshape(1, 6), None, [1], True, 1e-5)
    assert np.isnan(got[1]).all() and np.isnan(got[3]).all()
    assert_close(got, expected, bound, F32, 6 + 4)


def test_mvn1_constant_group_and_zero_epsilon(device):
    """A constant group: every deviation is 0, Variance 0; Epsilon 1 gives 0 / 1 = 0, then + Bias 3;
    Epsilon 0 gives 0 / 0 = NaN (the formula as it stands)."""
    x = {"InputTensor": np.full(5, 7.5, np.float32), "BiasTensor": np.array([3], np.float32)}
    got = run_operator(device, mvn_desc(tensor(F32, [5]), None, tensor(F32, [1]), tensor(F32, [5]), [0],
                                        epsilon=1.0), x)["OutputTensor"]
    np.testing.assert_array_equal(got, [3] * 5)
    got = run_operator(device, mvn_desc(tensor(F32, [5]), None, None, tensor(F32, [5]), [0]),
                       {"InputTensor": x["InputTensor"]})["OutputTensor"]
    assert np.isnan(got).all()


# --- refusals -------------------------------------------------------------------------------------------------
def refused(ref_device, desc):
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateOperator(desc)
    assert info.value.hresult == dml.E_INVALIDARG, str(info.value)
    return str(info.value)


C4 = [1, 3, 1, 1]
U8 = dml.DML_TENSOR_DATA_TYPE_UINT8


@pytest.mark.parametrize(("desc", "expected"), [
    (bn_desc(tensor(U8, [1, 3, 2, 2]), *[tensor(U8, C4)] * 4, tensor(U8, [1, 3, 2, 2])),
     "InputTensor.DataType UINT8 is not supported by DML_OPERATOR_BATCH_NORMALIZATION (supported: FLOAT32, FLOAT16)"),
    (bn_desc(tensor(F32, [1, 3, 2, 2]), tensor(F16, C4), *[tensor(F32, C4)] * 3, tensor(F32, [1, 3, 2, 2])),
     "MeanTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (bn_desc(tensor(F32, [1, 3, 2, 2]), tensor(F32, C4), tensor(F32, [3, 1, 1]), *[tensor(F32, C4)] * 2,
             tensor(F32, [1, 3, 2, 2])),
     "VarianceTensor.DimensionCount 3 must equal InputTensor.DimensionCount 4"),
    (bn_desc(tensor(F32, [1, 3, 2, 2]), *[tensor(F32, C4)] * 4, tensor(F32, [1, 3, 2, 3])),
     "OutputTensor.Sizes [1, 3, 2, 3] must equal InputTensor.Sizes [1, 3, 2, 2]"),
    (bn_desc(tensor(F32, [1, 3, 2, 2]), *[tensor(F32, C4)] * 2, tensor(F32, [1, 2, 1, 1]), tensor(F32, C4),
             tensor(F32, [1, 3, 2, 2])),
     "ScaleTensor.Sizes [1, 2, 1, 1]: each size must be 1 (broadcast) or InputTensor's size"),
    (bn_desc(tensor(F32, [1, 3, 2, 2]), *[tensor(F32, C4)] * 3, tensor(F32, [1, 3, 2, 4]),
             tensor(F32, [1, 3, 2, 2])),
     "BiasTensor.Sizes [1, 3, 2, 4]: each size must be 1 (broadcast) or InputTensor's size"),
    (bn_desc(tensor(F32, [1, 1, 1, 1, 1, 1, 1, 1, 2]), *[tensor(F32, [1] * 9)] * 4,
             tensor(F32, [1, 1, 1, 1, 1, 1, 1, 1, 2])),
     "InputTensor.DimensionCount must be 1, 2, 3, 4, 5, 6, 7, 8, got 9"),
    (mvn_desc(tensor(F32, [2, 3]), None, None, tensor(F32, [2, 3]), []),
     "AxisCount 0 must be at least 1"),
    (mvn_desc(tensor(F32, [2, 3]), None, None, tensor(F32, [2, 3]), [2]),
     "Axes[0] 2 must be in [0, 1]"),
    (mvn_desc(tensor(F32, [2, 3]), None, None, tensor(F32, [2, 3]), [1, 1]),
     "Axes[1] 1 repeats an axis"),
    (mvn_desc(tensor(F32, [2, 3]), tensor(F32, [2, 2]), None, tensor(F32, [2, 3]), [1]),
     "ScaleTensor.Sizes [2, 2]: each size must be 1 (broadcast) or InputTensor's size"),
    (mvn_desc(tensor(F32, [2, 3]), None, tensor(F32, [1, 3, 1]), tensor(F32, [2, 3]), [1]),
     "BiasTensor.DimensionCount 3 must equal InputTensor.DimensionCount 2"),
    (mvn_desc(tensor(F32, [2, 3]), None, None, tensor(F16, [2, 3]), [1]),
     "OutputTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (mvn_desc(tensor(F32, [2, 3]), None, None, tensor(F32, [3, 2]), [1]),
     "OutputTensor.Sizes [3, 2] must equal InputTensor.Sizes [2, 3]"),
    (mvn_desc(tensor(U8, [2, 3]), None, None, tensor(U8, [2, 3]), [1]),
     "InputTensor.DataType UINT8 is not supported by DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1"),
], ids=["bn-type", "bn-mean-type", "bn-var-rank", "bn-out-sizes", "bn-scale-sizes", "bn-bias-sizes", "bn-rank9",
        "mvn-no-axes", "mvn-axis-range", "mvn-axis-repeat", "mvn-scale-sizes", "mvn-bias-rank", "mvn-out-type",
        "mvn-out-sizes", "mvn-type"])
def test_validation(ref_device, desc, expected):
    assert expected in refused(ref_device, desc)


def test_registered():
    from dmlsim.operators import implemented_names

    names = implemented_names()
    assert "DML_OPERATOR_BATCH_NORMALIZATION" in names and "DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1" in names


def test_mvn_takes_the_single_run_path_only_where_each_tensors_group_lies_on_one_line():
    """The planner's test for -DRUN (each group's element r at its first element plus r times the tensor's run
    stride), worked by hand: packed trailing axes run with stride 1; the outer and inner axes of a packed
    3-D tensor (strides 10 and 1 for sizes 3 and 2) do not; a transposed tensor's reduced axis runs with its
    stride; a broadcast tensor (stride 0 on every reduced axis) runs with 0, one broadcast on only some of them
    does not; size-1 axes do not matter."""
    from dmlsim.operators.normalization import run_stride

    assert run_stride((20, 5, 1), (1, 4, 5)) == 1  # axes 1 and 2 of a packed {3, 4, 5}
    assert run_stride((10, 2, 1), (3, 1, 2)) is None  # axes 0 and 2 of a packed {3, 5, 2}
    assert run_stride((1, 4), (1, 6)) == 4  # axis 1 of a column-major {4, 6}
    assert run_stride((0, 0, 0), (1, 4, 5)) == 0
    assert run_stride((0, 0, 1), (1, 4, 5)) is None
    assert run_stride((7, 99, 1), (1, 1, 5)) == 1
    assert run_stride(None, (1, 4, 5)) == 0  # an absent tensor
