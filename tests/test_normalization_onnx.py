"""onnx's node cases as the external oracle of DML_OPERATOR_BATCH_NORMALIZATION and
MEAN_VARIANCE_NORMALIZATION1 (BatchNormalization, LayerNormalization, InstanceNormalization,
MeanVarianceNormalization, GroupNormalization), each mapped onto the DML desc as onnxruntime's DirectML provider
maps the node, on every adapter; the expected outputs are onnx's. A separate module from
tests/test_normalization.py because generating onnx's cases takes seconds (tens under load), which the mutants'
narrow selections there should not pay. Tolerances: tests/test_normalization.py's docstring.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from normalization_support import F32, assert_close, bn_desc, bn_numpy, mvn_desc, mvn_numpy, tensor
from onnx_node_cases import case_ids, node_attributes, node_cases

from dmlsim.api.numerics import compare_ulps
from dmlsim.quick import run_operator

BN_CASES = node_cases("BatchNormalization")


@pytest.mark.parametrize("case", BN_CASES, ids=case_ids(BN_CASES))
def test_onnx_batch_normalization(device, case):
    """onnx's node cases: X {N, C, ...}; scale, B, input_mean, input_var of sizes {C} become {1, C, 1, ...}
    (onnxruntime's DmlOperatorBatchNormalization). training_mode cases compute the batch's own statistics:
    DML_OPERATOR_BATCH_NORMALIZATION_TRAINING, checked in tests/test_normalization2_onnx.py."""
    attrs = node_attributes(case)
    if attrs.get("training_mode"):
        pytest.skip("training_mode=1 maps to DML_OPERATOR_BATCH_NORMALIZATION_TRAINING: checked in "
                    "tests/test_normalization2_onnx.py")
    (x, scale, bias, mean, var), (y,) = case.data_sets[0]
    rank = x.ndim
    param = [1, x.shape[1], *[1] * (rank - 2)]
    desc = bn_desc(tensor(F32, x.shape), *[tensor(F32, param)] * 4, tensor(F32, x.shape),
                   epsilon=attrs.get("epsilon", 1e-5))
    got = run_operator(device, desc, {"InputTensor": x, "MeanTensor": mean, "VarianceTensor": var,
                                      "ScaleTensor": scale, "BiasTensor": bias})["OutputTensor"]
    r = param
    _, bound = bn_numpy(x, mean.reshape(r), var.reshape(r), scale.reshape(r), bias.reshape(r),
                        attrs.get("epsilon", 1e-5))
    assert_close(got, y, bound, F32, 8)


def run_mvn_case(device, x, scale, bias, axes, epsilon, expected, ulps):
    """MVN1 over ``axes`` with Scale/Bias already shaped to x's rank, compared with onnx's ``expected``."""
    desc = mvn_desc(tensor(F32, x.shape), None if scale is None else tensor(F32, scale.shape),
                    None if bias is None else tensor(F32, bias.shape), tensor(F32, x.shape), axes, epsilon=epsilon)
    inputs = {"InputTensor": np.ascontiguousarray(x, np.float32)}
    if scale is not None:
        inputs["ScaleTensor"] = np.ascontiguousarray(scale, np.float32)
    if bias is not None:
        inputs["BiasTensor"] = np.ascontiguousarray(bias, np.float32)
    got = run_operator(device, desc, inputs)["OutputTensor"]
    _, bound = mvn_numpy(x, scale, bias, axes, True, epsilon)
    report = compare_ulps(got, expected.reshape(x.shape), np.float32, ulps, bound)
    assert report.ok, report.describe("OutputTensor")


LAYER_CASES = node_cases("LayerNormalization")


@pytest.mark.parametrize("case", LAYER_CASES, ids=case_ids(LAYER_CASES))
def test_onnx_layer_normalization(device, case):
    """LayerNormalization(axis) as onnxruntime's DmlOperatorLayerNormalization sends it: MVN1 over axes
    [axis, rank), Scale and B left-padded with 1s to X's rank. Only Y is compared: the optional Mean and
    InvStdDev outputs have no DML_MEAN_VARIANCE_NORMALIZATION1 counterpart (the provider refuses nodes that use
    them)."""
    attrs = node_attributes(case)
    x, scale, bias = case.data_sets[0][0]
    y = case.data_sets[0][1][0]
    axis = attrs.get("axis", -1) % x.ndim
    pad = (1,) * (x.ndim - scale.ndim)
    axes = list(range(axis, x.ndim))
    n = math.prod(x.shape[axis:])
    run_mvn_case(device, x, scale.reshape(pad + scale.shape), bias.reshape(pad + bias.shape), axes,
                 attrs.get("epsilon", 1e-5), y, n + 4)


INSTANCE_CASES = node_cases("InstanceNormalization")


@pytest.mark.parametrize("case", INSTANCE_CASES, ids=case_ids(INSTANCE_CASES))
def test_onnx_instance_normalization(device, case):
    """InstanceNormalization: MVN1 over the spatial axes [2, rank), scale and B as {1, C, 1, ...}
    (DmlOperatorInstanceNormalization)."""
    attrs = node_attributes(case)
    (x, scale, bias), (y,) = case.data_sets[0]
    param = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    n = math.prod(x.shape[2:])
    run_mvn_case(device, x, scale.reshape(param), bias.reshape(param), list(range(2, x.ndim)),
                 attrs.get("epsilon", 1e-5), y, n + 4)


MVN_CASES = node_cases("MeanVarianceNormalization")


@pytest.mark.parametrize("case", MVN_CASES, ids=case_ids(MVN_CASES))
def test_onnx_mean_variance_normalization(device, case):
    """MeanVarianceNormalization(axes, default [0, 2, 3]): MVN1 over those axes, no Scale/Bias. ONNX adds 1e-9
    to the standard deviation rather than Epsilon under the root: Epsilon 0 here, and the 1e-9 moves a result
    of size ~1 by ~1e-9, under the float32 tolerance."""
    attrs = node_attributes(case)
    (x,), (y,) = case.data_sets[0]
    axes = list(attrs.get("axes", [0, 2, 3]))
    n = math.prod(x.shape[a] for a in axes)
    run_mvn_case(device, x, None, None, axes, 0.0, y, n + 4)


GROUP_CASES = node_cases("GroupNormalization")


@pytest.mark.parametrize("case", GROUP_CASES, ids=case_ids(GROUP_CASES))
def test_onnx_group_normalization(device, case):
    """GroupNormalization(num_groups G) on X {N, C, H, W}: the same memory seen as {N, G, C/G, H * W}, MVN1 over
    axes [2, 3], scale and bias (per channel, opset 21) as {1, G, C/G, 1}."""
    attrs = node_attributes(case)
    (x, scale, bias), (y,) = case.data_sets[0]
    groups = attrs["num_groups"]
    n, c = x.shape[:2]
    view = (n, groups, c // groups, math.prod(x.shape[2:]))
    param = (1, groups, c // groups, 1)
    run_mvn_case(device, x.reshape(view), scale.reshape(param), bias.reshape(param), [2, 3],
                 attrs.get("epsilon", 1e-5), y, math.prod(view[2:]) + 4)
