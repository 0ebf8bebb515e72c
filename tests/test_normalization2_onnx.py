"""onnx's node cases as the external oracle of DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION, LP_NORMALIZATION and
BATCH_NORMALIZATION_TRAINING (LRN, LpNormalization, BatchNormalization with training_mode=1), each mapped onto the
DML desc as onnxruntime's DirectML provider maps the node, on every adapter, and the lowering of
dmlsim/onnx/ops_norm2.py (LRN, LpNormalization, GroupNormalization, training-mode BatchNormalization) run on the
same cases; the expected outputs are onnx's. Tolerances: tests/test_normalization2.py's docstring (LRN Beta * (n +
2) + 20 ulps of |y| over a region of n elements, LpNormalization n + 4 ulps of |y|; GroupNormalization as MVN1,
tests/test_normalization.py: n + 4 ulps of the bound; training-mode BatchNormalization: Y n + 5 ulps of its bound,
the running statistics ``input * momentum + batch * (1 - momentum)`` n + 12 ulps of ``|input| * momentum + |batch| *
(1 - momentum)`` plus the batch Mean's spread term).

Every case maps; none is listed as unmappable.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from normalization_support import F32, bnt_desc, bnt_numpy, lp_desc, lrn_desc, mvn_numpy, tensor
from onnx_node_cases import case_ids, node_attributes, node_cases

from dmlsim.api.numerics import compare_ulps
from dmlsim.onnx.run_model import run_lowered
from dmlsim.quick import run_operator

LRN_CASES = node_cases("LRN")
LP_CASES = node_cases("LpNormalization")
GROUP_CASES = node_cases("GroupNormalization")
TRAINING_CASES = [c for c in node_cases("BatchNormalization") if node_attributes(c).get("training_mode")]


def lrn_attrs(case):
    """ONNX's LRN attributes with their defaults (alpha 1e-4, beta 0.75, bias 1): the provider passes them as
    DirectML's Alpha, Beta, Bias and LocalSize (size), CrossChannel TRUE."""
    attrs = node_attributes(case)
    return attrs["size"], attrs.get("alpha", 1e-4), attrs.get("beta", 0.75), attrs.get("bias", 1.0)


def assert_matches(got, expected, ulps, name="Y"):
    expected = np.asarray(expected, np.float64)
    report = compare_ulps(got.reshape(expected.shape), expected, np.float32, ulps, np.abs(expected))
    assert report.ok, report.describe(name)


@pytest.mark.parametrize("case", LRN_CASES, ids=case_ids(LRN_CASES))
def test_onnx_lrn(device, case):
    """LRN(size, alpha, beta, bias) on X {N, C, H, W}: DML_LOCAL_RESPONSE_NORMALIZATION, CrossChannel TRUE,
    LocalSize size and ONNX's alpha unchanged (its alpha / size is the page's Alpha / LocalSize)."""
    (x,), (y,) = case.data_sets[0]
    size, alpha, beta, bias = lrn_attrs(case)
    desc = lrn_desc(tensor(F32, x.shape), tensor(F32, x.shape), True, size, alpha, beta, bias)
    got = run_operator(device, desc, {"InputTensor": x})["OutputTensor"]
    assert_matches(got, y, beta * (min(size, x.shape[1]) + 2) + 20)


@pytest.mark.parametrize("case", LP_CASES, ids=case_ids(LP_CASES))
def test_onnx_lp_normalization(device, case):
    """LpNormalization(axis default -1, p default 2): DML_LP_NORMALIZATION with Axis counted from the front and
    Epsilon 1e-5 (the provider's DefaultEpsilon; the cases' norms are far above it, and a zero norm gives 0 both
    in ONNX and with max(norm, Epsilon))."""
    attrs = node_attributes(case)
    (x,), (y,) = case.data_sets[0]
    axis = attrs.get("axis", -1) % x.ndim
    desc = lp_desc(tensor(F32, x.shape), tensor(F32, x.shape), axis, attrs.get("p", 2), 1e-5)
    got = run_operator(device, desc, {"InputTensor": x})["OutputTensor"]
    assert_matches(got, y, x.shape[axis] + 4)


def run_node(device, case):
    """The case's model through dmlsim's ONNX lowering (dmlsim/onnx/ops_norm2.py), on the device."""
    inputs, outputs = case.data_sets[0]
    feeds = {i.name: value for i, value in zip(case.model.graph.input, inputs, strict=True)}
    return run_lowered(case.model, feeds, device), outputs


@pytest.mark.parametrize("case", LRN_CASES + LP_CASES, ids=case_ids(LRN_CASES + LP_CASES))
def test_onnx_lowering_of_lrn_and_lp(device, case):
    """The same cases through the lowering: the same numbers as the mapped descs above."""
    (got,), (y,) = run_node(device, case)
    if case.model.graph.node[0].op_type == "LRN":
        size, _, beta, _ = lrn_attrs(case)
        assert_matches(got, y, beta * (min(size, y.shape[1]) + 2) + 20)
    else:
        axis = node_attributes(case).get("axis", -1) % y.ndim
        assert_matches(got, y, y.shape[axis] + 4)


@pytest.mark.parametrize("case", GROUP_CASES, ids=case_ids(GROUP_CASES))
def test_onnx_lowering_of_group_normalization(device, case):
    """GroupNormalization through the lowering: MVN1 over {N, G, C / G, H * W}'s axes 2 and 3 with per-channel
    Scale and Bias, read back in X's shape; bound of tests/normalization_support.py's mvn_numpy."""
    attrs = node_attributes(case)
    (x, scale, bias), (y,) = case.data_sets[0]
    (got,), _ = run_node(device, case)
    groups = attrs["num_groups"]
    n, c = x.shape[:2]
    view = (n, groups, c // groups, math.prod(x.shape[2:]))
    param = (1, groups, c // groups, 1)
    _, bound = mvn_numpy(x.reshape(view), scale.reshape(param), bias.reshape(param), [2, 3], True,
                         attrs.get("epsilon", 1e-5))
    report = compare_ulps(got.reshape(view), y.reshape(view), np.float32, math.prod(view[2:]) + 4, bound)
    assert report.ok, report.describe("Y")


def check_training(case, y_got, mean_got, var_got):
    """Y and the running statistics of a training-mode case against onnx's outputs, given the device's Y and
    running Mean/Variance (each {C})."""
    attrs = node_attributes(case)
    (x, scale, bias, mean, var), (y, out_mean, out_var) = case.data_sets[0]
    momentum = attrs.get("momentum", 0.9)
    param = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    _, bound, _, mean_bound, batch_var = bnt_numpy(x, scale.reshape(param), bias.reshape(param), None,
                                                            attrs.get("epsilon", 1e-5))
    n = x.size // x.shape[1]
    assert compare_ulps(y_got, y, np.float32, n + 5, bound).ok
    for got, want, given, spread in ((mean_got, out_mean, mean, mean_bound), (var_got, out_var, var, batch_var)):
        limit = np.abs(given) * momentum + np.abs(spread.reshape(-1)) * (1 - momentum)
        report = compare_ulps(np.asarray(got).reshape(-1), want, np.float32, n + 12, limit)
        assert report.ok, report.describe("running statistics")


@pytest.mark.parametrize("case", TRAINING_CASES, ids=case_ids(TRAINING_CASES))
def test_onnx_batch_normalization_training(device, case):
    """BatchNormalization(training_mode=1): DML_BATCH_NORMALIZATION_TRAINING over every axis but C (scale and B
    as {1, C, 1, ...}); the running statistics are then the numpy of ONNX's formula on the device's batch Mean and
    Variance (the lowering's element-wise nodes are the next test's)."""
    attrs = node_attributes(case)
    (x, scale, bias, mean, var), _ = case.data_sets[0]
    param = [1, x.shape[1]] + [1] * (x.ndim - 2)
    desc = bnt_desc(tensor(F32, x.shape), tensor(F32, param), tensor(F32, param), None, tensor(F32, x.shape),
                    tensor(F32, param), tensor(F32, param), epsilon=attrs.get("epsilon", 1e-5))
    got = run_operator(device, desc, {"InputTensor": x, "ScaleTensor": scale, "BiasTensor": bias})
    momentum = attrs.get("momentum", 0.9)
    running = [np.float64(given) * momentum + np.float64(got[field]).reshape(-1) * (1 - momentum)
               for given, field in ((mean, "OutputMeanTensor"), (var, "OutputVarianceTensor"))]
    check_training(case, got["OutputTensor"], *running)


@pytest.mark.parametrize("case", TRAINING_CASES, ids=case_ids(TRAINING_CASES))
def test_onnx_lowering_of_batch_normalization_training(device, case):
    """The same cases through the lowering (ops_norm2.lower_batch_norm_training): Y and both running statistics
    from the device."""
    (y_got, mean_got, var_got), _ = run_node(device, case)
    check_training(case, y_got, mean_got, var_got)
