"""DML_OPERATOR_CONVOLUTION_INTEGER and DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION, on every adapter.

Expected values: hand-computed literals (worked out in the comments), onnx's ConvInteger and QLinearConv node
cases, and the pages' formulas transcribed here as Python loops over every output element and tap (integers
exact; the requantization in numpy float32 steps, each rounded once, as the docstring of
dmlsim/operators/convolution_integer says DirectML rounds). Outputs are integers: compared exactly.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from datamove_support import F32, I8, I32, U8, operator, refused, run, tensor
from onnx_node_cases import node_attributes, node_cases

import dmlsim as dml

OUT = "OutputTensor"


def conv_int(x, xz, f, fz, y, strides=(1, 1), dilations=(1, 1), start=(0, 0), end=(0, 0), groups=1):
    return operator("CONVOLUTION_INTEGER", InputTensor=x, InputZeroPointTensor=xz, FilterTensor=f,
                    FilterZeroPointTensor=fz, OutputTensor=y, DimensionCount=len(strides), Strides=list(strides),
                    Dilations=list(dilations), StartPadding=list(start), EndPadding=list(end), GroupCount=groups)


def qconv(x, xs, xz, f, fs, fz, bias, ys, yz, y, strides=(1, 1), dilations=(1, 1), start=(0, 0), end=(0, 0),
          groups=1):
    return operator("QUANTIZED_LINEAR_CONVOLUTION", InputTensor=x, InputScaleTensor=xs, InputZeroPointTensor=xz,
                    FilterTensor=f, FilterScaleTensor=fs, FilterZeroPointTensor=fz, BiasTensor=bias,
                    OutputScaleTensor=ys, OutputZeroPointTensor=yz, OutputTensor=y, DimensionCount=len(strides),
                    Strides=list(strides), Dilations=list(dilations), StartPadding=list(start),
                    EndPadding=list(end), GroupCount=groups)


def one(data_type, rank=4):
    return tensor(data_type, [1] * rank)


def loops(x, xz, w, wz, strides, dilations, start, out_spatial, groups):
    """The window sums element by element in Python integers: padding taps skipped (their shifted value is 0)."""
    n, c = x.shape[:2]
    oc = w.shape[0]
    out = np.zeros((n, oc, *out_spatial), np.int64)
    for b, o in itertools.product(range(n), range(oc)):
        group = o // (oc // groups)
        for pos in itertools.product(*(range(s) for s in out_spatial)):
            total = 0
            for ic in range(c // groups):
                for tap in itertools.product(*(range(k) for k in w.shape[2:])):
                    src = [p * s + t * d - st
                           for p, s, t, d, st in zip(pos, strides, tap, dilations, start, strict=True)]
                    if all(0 <= i < size for i, size in zip(src, x.shape[2:], strict=True)):
                        total += (int(x[(b, group * (c // groups) + ic, *src)]) - int(xz)) * \
                                 (int(w[(o, ic, *tap)]) - int(wz[o]))
            out[(b, o, *pos)] = total
    return out


# --- CONVOLUTION_INTEGER ---------------------------------------------------------------------------------------
@pytest.mark.formula
def test_convolution_integer_by_hand(device):
    """x [[1, 2, 3], [4, 5, 6], [7, 8, 9]] - 1, filter [[1, 1], [1, 1]] - 0 (a 2x2 box): [[8, 12], [20, 24]];
    the filter zero point 1 on the second output channel of a [2, 1, 2, 2] filter [[3, 1], [1, 1]] - 1 =
    [[2, 0], [0, 0]]: twice the top-left element, [[0, 2], [6, 8]]."""
    x = np.arange(1, 10, dtype=np.uint8).reshape(1, 1, 3, 3)
    w = np.array([[[[1, 1], [1, 1]]], [[[3, 1], [1, 1]]]], np.uint8)
    op = conv_int(tensor(U8, [1, 1, 3, 3]), one(U8), tensor(U8, [2, 1, 2, 2]), tensor(U8, [1, 2, 1, 1]),
                  tensor(I32, [1, 2, 2, 2]))
    got = run(device, op, InputTensor=x, InputZeroPointTensor=1, FilterTensor=w,
              FilterZeroPointTensor=[0, 1])[OUT]
    assert got.tolist() == [[[[8, 12], [20, 24]], [[0, 2], [6, 8]]]]


def test_convolution_integer_groups_padding_dilation_1d_strided(device):
    """1-D (3-D tensors), 2 groups, a per-channel INT8 filter zero point (1-D, its only dimension), padding,
    stride 2, dilation 2; a padded input, a filter read transposed, a column-major output."""
    rng = np.random.default_rng(7)
    x = rng.integers(-128, 128, (2, 4, 9)).astype(np.int8)
    w = rng.integers(-128, 128, (6, 2, 3)).astype(np.int8)
    wz = np.array([-128, 127, 0, 5, -7, 100], np.int8)
    out_spatial = ((9 + 3 + 1 - 2 * 2 - 1) // 2 + 1,)  # 5
    op = conv_int(tensor(I8, [2, 4, 9], [80, 16, 1]), one(I8, 1), tensor(I8, [6, 2, 3], [1, 18, 6]),
                  tensor(I8, [6]), tensor(I32, [2, 6, 5], [1, 2, 12]), strides=(2,), dilations=(2,), start=(3,),
                  end=(1,), groups=2)
    got = run(device, op, InputTensor=x, InputZeroPointTensor=-3, FilterTensor=w, FilterZeroPointTensor=wz)[OUT]
    np.testing.assert_array_equal(got, loops(x, -3, w, wz, (2,), (2,), (3,), out_spatial, 2))


def test_convolution_integer_without_zero_points_broadcast_batch(device):
    """No zero points (0), UINT8 input x INT8 filter, the input's batch broadcast (stride 0), 2-D with end padding."""
    rng = np.random.default_rng(8)
    x1 = rng.integers(0, 256, (1, 3, 4, 5)).astype(np.uint8)
    w = rng.integers(-128, 128, (2, 3, 2, 3)).astype(np.int8)
    op = conv_int(tensor(U8, [2, 3, 4, 5], [0, 20, 5, 1]), None, tensor(I8, [2, 3, 2, 3]), None,
                  tensor(I32, [2, 2, 4, 4]), end=(1, 1))
    got = run(device, op, InputTensor=np.broadcast_to(x1, (2, 3, 4, 5)), FilterTensor=w)[OUT]
    expected = loops(np.broadcast_to(x1, (2, 3, 4, 5)), 0, w, [0, 0], (1, 1), (1, 1), (0, 0), (4, 4), 1)
    np.testing.assert_array_equal(got, expected)


# --- QUANTIZED_LINEAR_CONVOLUTION ------------------------------------------------------------------------------
@pytest.mark.formula
def test_quantized_linear_convolution_by_hand(device):
    """A 1x1 filter on x [10, 11, 12, 13] - 10 = [0, 1, 2, 3] (UINT8, scale 0.5), two output channels:
    channel 0 filter 3 - 1 = 2 (scale 0.25), bias 1: S = [1, 3, 5, 7], * 0.125 = [0.125, 0.375, 0.625, 0.875];
    / OutputScale 0.25 = [0.5, 1.5, 2.5, 3.5] -> half to even [0, 2, 2, 4] + OutputZeroPoint -2 = [-2, 0, 0, 2];
    channel 1 filter 127 - 1 = 126 (scale 2), bias -2^31: S wraps: -2^31 + [0, 126, 252, 378] stays negative,
    * 1 / 0.25 -> huge negative -> saturates to -128. INT8 output."""
    x = np.array([10, 11, 12, 13], np.uint8).reshape(1, 1, 2, 2)
    op = qconv(tensor(U8, [1, 1, 2, 2]), one(F32), one(U8), tensor(I8, [2, 1, 1, 1]), tensor(F32, [1, 2, 1, 1]),
               one(I8), tensor(I32, [1, 2, 1, 1]), one(F32), one(I8), tensor(I8, [1, 2, 2, 2]))
    got = run(device, op, InputTensor=x, InputScaleTensor=0.5, InputZeroPointTensor=10, FilterTensor=[3, 127],
              FilterScaleTensor=[0.25, 2], FilterZeroPointTensor=1, BiasTensor=[1, -2**31], OutputScaleTensor=0.25,
              OutputZeroPointTensor=-2)[OUT]
    assert got.tolist() == [[[[-2, 0], [0, 2]], [[-128, -128], [-128, -128]]]]


@pytest.mark.formula
def test_quantized_linear_convolution_bias_wraps_int32(device):
    """INT32 bias 2^31 - 1 plus a sum of 1 wraps to -2^31 (dmlsim's decision: modulo 2^32, as the sums);
    with scales 1 and no zero points: -2^31 saturates to 0 (UINT8); a sum of 0 keeps 2^31 - 1 -> 255."""
    op = qconv(tensor(U8, [1, 1, 1, 2]), one(F32), None, tensor(U8, [1, 1, 1, 1]), one(F32), None,
               tensor(I32, [1, 1, 1, 1]), one(F32), None, tensor(U8, [1, 1, 1, 2]))
    got = run(device, op, InputTensor=[[[[1, 0]]]], InputScaleTensor=1, FilterTensor=1, FilterScaleTensor=1,
              BiasTensor=2**31 - 1, OutputScaleTensor=1)[OUT]
    assert got.tolist() == [[[[0, 255]]]]


def test_quantized_linear_convolution_strided_per_channel(device):
    """2-D, 3 groups, per-channel filter scales and zero points (4-D {1, C, 1, 1}), a bias, strides and padding,
    a padded input and a column-major output; expected: the loops' sums requantized in numpy float32 steps."""
    rng = np.random.default_rng(9)
    x = rng.integers(0, 256, (1, 3, 5, 5)).astype(np.uint8)
    w = rng.integers(0, 256, (6, 1, 3, 2)).astype(np.uint8)
    wz = rng.integers(100, 150, 6).astype(np.uint8)
    ws = np.array([2**-8, 2**-6, 3 * 2**-9, 2**-7, 5 * 2**-10, 2**-5], np.float32)
    bias = rng.integers(-3000, 3000, 6).astype(np.int32)
    out_spatial = ((5 + 2 - 3) // 2 + 1, (5 + 1 - 2) // 1 + 1)  # (3, 5)
    op = qconv(tensor(U8, [1, 3, 5, 5], [120, 40, 8, 1]), one(F32, 1), one(U8, 2), tensor(U8, [6, 1, 3, 2]),
               tensor(F32, [1, 6, 1, 1]), tensor(U8, [1, 6, 1, 1]), tensor(I32, [1, 6, 1, 1]), one(F32, 3), one(U8),
               tensor(U8, [1, 6, 3, 5], [1, 1, 6, 18]), strides=(2, 1), start=(1, 1), end=(1, 0), groups=3)
    got = run(device, op, InputTensor=x, InputScaleTensor=0.5, InputZeroPointTensor=128, FilterTensor=w,
              FilterScaleTensor=ws, FilterZeroPointTensor=wz, BiasTensor=bias, OutputScaleTensor=0.75,
              OutputZeroPointTensor=120)[OUT]
    sums = loops(x, 128, w, wz, (2, 1), (1, 1), (1, 1), out_spatial, 3) + bias.reshape(1, 6, 1, 1)
    real = sums.astype(np.float32) * (np.float32(0.5) * ws).reshape(1, 6, 1, 1)  # float32 product, rounded once
    expected = np.clip(np.rint(real / np.float32(0.75)) + 120, 0, 255)  # numpy float32 division: correctly rounded
    np.testing.assert_array_equal(got, expected)


# --- onnx's node cases -------------------------------------------------------------------------------------------
def _onnx_type(array):
    return {np.dtype(np.uint8): U8, np.dtype(np.int8): I8, np.dtype(np.float32): F32}[array.dtype]


def _small(array, rank=1):
    """A scale or zero point (ONNX scalar or 1-D) as a DirectML tensor of ``rank`` dimensions."""
    array = np.asarray(array)
    return tensor(_onnx_type(array), [1] * rank if array.size == 1 else [array.size])


def test_onnx_node_cases(device):
    """onnx's ConvInteger and QLinearConv cases mapped as onnxruntime's DirectML provider maps them: the tensors as
    they are (4-D), each scalar scale and zero point as a 1-element tensor, a 1-D per-channel one as a 1-D tensor
    (dmlsim reads its channel along dimension 0), ONNX's pads as StartPadding/EndPadding; expected: onnx's. Every
    case onnx generates maps."""
    cases = node_cases("ConvInteger") + node_cases("QLinearConv")
    assert len(cases) == 3, [c.name for c in cases]
    for case in cases:
        attrs = node_attributes(case)
        inputs, (expected,) = case.data_sets[0]
        rank = expected.ndim
        pads = attrs.get("pads", [0] * (2 * (rank - 2)))
        geometry = dict(strides=tuple(attrs.get("strides", [1] * (rank - 2))), start=tuple(pads[:rank - 2]),
                        end=tuple(pads[rank - 2:]), dilations=tuple(attrs.get("dilations", [1] * (rank - 2))),
                        groups=attrs.get("group", 1))
        y = tensor(I32 if expected.dtype == np.int32 else _onnx_type(expected), expected.shape)
        if case.model.graph.node[0].op_type == "ConvInteger":
            x, w, *zeros = inputs
            xz, wz = [*zeros, None, None][:2]
            op = conv_int(tensor(_onnx_type(x), x.shape), None if xz is None else _small(xz),
                          tensor(_onnx_type(w), w.shape), None if wz is None else _small(wz), y, **geometry)
            got = run(device, op, InputTensor=x, InputZeroPointTensor=xz, FilterTensor=w,
                      FilterZeroPointTensor=wz)[OUT]
        else:
            x, xs, xz, w, ws, wz, ys, yz = inputs[:8]
            bias = inputs[8] if len(inputs) > 8 else None
            op = qconv(tensor(_onnx_type(x), x.shape), _small(xs), _small(xz), tensor(_onnx_type(w), w.shape),
                       _small(ws), _small(wz), None if bias is None else tensor(I32, [1, bias.size, 1, 1]),
                       _small(ys), _small(yz), y, **geometry)
            values = dict(InputTensor=x, InputScaleTensor=xs, InputZeroPointTensor=xz, FilterTensor=w,
                          FilterScaleTensor=ws, FilterZeroPointTensor=wz, OutputScaleTensor=ys,
                          OutputZeroPointTensor=yz)
            if bias is not None:
                values["BiasTensor"] = bias
            got = run(device, op, **values)[OUT]
        np.testing.assert_array_equal(got, expected, err_msg=case.name)


def test_onnx_lowering_of_node_cases(ref_device):
    """The same cases through dmlsim's ONNX backend (dmlsim.onnx.node_suite.run_case: lowered by
    dmlsim/onnx/ops_quant.py, compared with onnx's expected outputs by onnx's own runner): every one passes."""
    from dmlsim.onnx.node_suite import run_case

    cases = node_cases("ConvInteger") + node_cases("QLinearConv")
    outcomes = [run_case(case, ref_device) for case in cases]
    assert [o.status for o in outcomes] == ["pass"] * len(cases), outcomes


# --- rules -------------------------------------------------------------------------------------------------------
def _ci(x=U8, xz=U8, f=U8, fz=U8, y=I32, x_sizes=(1, 2, 4, 4), f_sizes=(3, 2, 2, 2), y_sizes=(1, 3, 3, 3),
        xz_sizes=(1, 1, 1, 1), fz_sizes=(1, 1, 1, 1), **geometry):
    return conv_int(tensor(x, list(x_sizes)), None if xz is None else tensor(xz, list(xz_sizes)),
                    tensor(f, list(f_sizes)), None if fz is None else tensor(fz, list(fz_sizes)),
                    tensor(y, list(y_sizes)), **geometry)


def _ql(y=U8, yz=U8, xs=F32, bias_sizes=(1, 3, 1, 1), bias=I32, fs_sizes=(1, 3, 1, 1), ys_sizes=(1,)):
    return qconv(tensor(U8, [1, 2, 4, 4]), tensor(xs, [1]), one(U8), tensor(I8, [3, 2, 2, 2]),
                 tensor(F32, list(fs_sizes)), None, tensor(bias, list(bias_sizes)), tensor(F32, list(ys_sizes)),
                 tensor(yz, [1]), tensor(y, [1, 3, 3, 3]))


@pytest.mark.parametrize(("make", "message"), [
    (lambda: _ci(x=I32, xz=I32), "InputTensor.DataType INT32 is not supported"),
    (lambda: _ci(y=U8), "OutputTensor.DataType UINT8 is not supported"),
    (lambda: _ci(xz=I8), "InputZeroPointTensor.DataType INT8 must equal InputTensor.DataType UINT8"),
    (lambda: _ci(fz=I8), "FilterZeroPointTensor.DataType INT8 must equal FilterTensor.DataType UINT8"),
    (lambda: _ci(x_sizes=(1, 2, 4, 4, 1), f_sizes=(3, 2, 2, 2, 1), y_sizes=(1, 3, 3, 3, 1)),
     "InputTensor.DimensionCount 5 is not supported"),
    (lambda: _ci(xz_sizes=(1, 1, 1, 1, 1)), "InputZeroPointTensor.DimensionCount 5 is not supported"),
    (lambda: _ci(f_sizes=(3, 2, 2)), "FilterTensor.DimensionCount 3 must equal InputTensor.DimensionCount 4"),
    (lambda: _ci(fz_sizes=(1, 1)), "FilterZeroPointTensor.DimensionCount 2 must equal InputZeroPointTensor"),
    (lambda: conv_int(tensor(U8, [1, 2, 4, 4]), None, tensor(U8, [3, 2, 2, 2]), None, tensor(I32, [1, 3, 3, 3]),
                      strides=(1,), dilations=(1,), start=(0,), end=(0,)), "DimensionCount 1 must be InputTensor"),
    (lambda: _ci(strides=(0, 1)), "Strides[0] must be at least 1"),
    (lambda: _ci(dilations=(1, 0)), "Dilations[1] must be at least 1"),
    (lambda: _ci(groups=0), "GroupCount must be at least 1"),
    (lambda: _ci(y_sizes=(2, 3, 3, 3)), "OutputTensor.Sizes[0] 2 must equal InputTensor.Sizes[0] 1"),
    (lambda: _ci(f_sizes=(3, 1, 2, 2)), "FilterTensor.Sizes[1] 1 * GroupCount 1 must equal InputTensor.Sizes[1] 2"),
    (lambda: _ci(f_sizes=(3, 1, 2, 2), groups=2, y_sizes=(1, 3, 3, 3)), "FilterTensor.Sizes[0] 3 "
                                                                          "(OutputChannelCount) must be a multiple"),
    (lambda: _ci(x_sizes=(1, 3, 4, 4), f_sizes=(2, 1, 2, 2), y_sizes=(1, 2, 3, 3), groups=2),
     "InputTensor.Sizes[1] 3 (InputChannelCount) must be a multiple of GroupCount 2"),
    (lambda: _ci(y_sizes=(1, 4, 3, 3)), "OutputTensor.Sizes[1] 4 must equal FilterTensor.Sizes[0] 3"),
    (lambda: _ci(xz_sizes=(1, 2, 1, 1)), "InputZeroPointTensor.Sizes [1, 2, 1, 1] must all be 1"),
    (lambda: _ci(fz_sizes=(1, 2, 1, 1)), "FilterZeroPointTensor.Sizes [1, 2, 1, 1] must be every size 1 except "
                                         "dimension 1, which is 1 (per tensor) or 3"),
    (lambda: _ci(xz=None, fz_sizes=(3, 1)), "FilterZeroPointTensor.Sizes [3, 1] must be every size 1 except"),
    (lambda: _ci(f_sizes=(3, 2, 5, 2)), "FilterTensor.Sizes[2] 5 with Dilations[0] 1 spans 5 elements"),
    (lambda: _ci(y_sizes=(1, 3, 3, 4)), "the spatial sizes must be [3, 3]"),
    (lambda: _ql(y=I32, yz=I32), "OutputTensor.DataType INT32 is not supported"),
    (lambda: _ql(yz=I8), "OutputZeroPointTensor.DataType INT8 must equal OutputTensor.DataType UINT8"),
    (lambda: _ql(xs=I32), "InputScaleTensor.DataType INT32 is not supported"),
    (lambda: _ql(bias=F32), "BiasTensor.DataType FLOAT32 is not supported"),
    (lambda: _ql(bias_sizes=(1, 3, 1)), "BiasTensor.DimensionCount 3 must equal InputTensor.DimensionCount 4"),
    (lambda: _ql(bias_sizes=(1, 1, 1, 3)), "BiasTensor.Sizes [1, 1, 1, 3] must be [1, 3, 1, 1]"),
    (lambda: _ql(fs_sizes=(3,)), None),  # accepted: per channel, 1-D
    (lambda: _ql(ys_sizes=(3,)), "OutputScaleTensor.Sizes [3] must all be 1"),
], ids=["input-type", "output-type", "input-zero-point-type", "filter-zero-point-type", "rank", "zero-point-rank",
        "same-rank", "zero-point-same-rank", "dimension-count", "strides", "dilations", "groups", "batch",
        "filter-channels", "output-channels-groups", "input-channels-groups", "output-channels",
        "input-zero-point-sizes", "filter-zero-point-sizes", "filter-zero-point-axis", "filter-span", "output-spatial",
        "ql-output-type", "ql-output-zero-point-type", "ql-scale-type", "ql-bias-type", "ql-bias-rank",
        "ql-bias-sizes", "ql-per-channel-1d-accepted", "ql-output-scale-sizes"])
def test_rules(ref_device, make, message):
    if message is None:
        ref_device.CreateOperator(make())
    else:
        assert message in refused(ref_device, make())


def test_debug_device_refuses_a_zero_scale(debug_device):
    """A scale of 0 is undefined behavior on QUANTIZED_LINEAR_CONVOLUTION's page: a debug device refuses it."""
    op = qconv(tensor(U8, [1, 1, 1, 1]), one(F32), None, tensor(U8, [1, 1, 1, 1]), one(F32), None, None, one(F32),
               None, tensor(U8, [1, 1, 1, 1]))
    with pytest.raises(dml.DMLError, match="FilterScaleTensor holds 0"):
        run(debug_device, op, InputTensor=1, InputScaleTensor=1, FilterTensor=1, FilterScaleTensor=0,
            OutputScaleTensor=1)
