"""DML_OPERATOR_CONVOLUTION (dmlsim/operators/convolution), on every adapter.

Expected values are literals worked out by hand, or the doc's definitions written out here as explicit
float64 loops (never dmlsim's reference): FORWARD gathers, for each output element, every input element a
filter tap reads through strides, dilations and start padding; BACKWARD (transposed) scatters each input
element through each tap to output position ``i * stride + k * dilation - StartPadding`` (the opposite
direction to the kernel's gather). Tolerance: float32 accumulation of T terms (T = taps times channels
per group, plus the bias): T + 2 ulps of the sum of the terms' magnitudes; FLOAT16 1 ulp (half) of it.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps
from dmlsim.quick import run_operator

F32, F16 = dml.DML_TENSOR_DATA_TYPE_FLOAT32, dml.DML_TENSOR_DATA_TYPE_FLOAT16
NUMPY = {F32: np.float32, F16: np.float16}
FORWARD, BACKWARD = dml.DML_CONVOLUTION_DIRECTION_FORWARD, dml.DML_CONVOLUTION_DIRECTION_BACKWARD
XCORR, CONV = dml.DML_CONVOLUTION_MODE_CROSS_CORRELATION, dml.DML_CONVOLUTION_MODE_CONVOLUTION


def tensor(data_type, sizes, strides=None):
    return dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER, dml.DML_BUFFER_TENSOR_DESC(
        data_type, dml.DML_TENSOR_FLAG_NONE, len(sizes), list(sizes), None if strides is None else list(strides),
        dml.DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides), 0))


def conv_desc(x, f, bias, out, *, mode=XCORR, direction=FORWARD, strides=None, dilations=None, start=None,
              end=None, output_padding=None, groups=1, fused=None, dimension_count=None):
    spatial = len(x.Desc.Sizes) - 2
    ones, zeros = [1] * spatial, [0] * spatial
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_CONVOLUTION, dml.DML_CONVOLUTION_OPERATOR_DESC(
        x, f, bias, out, mode, direction, spatial if dimension_count is None else dimension_count,
        strides or ones, dilations or ones, start or zeros, end or zeros, output_padding or zeros, groups, fused))


def conv_loops(x, w, bias, *, backward, flip, strides, dilations, start, output_padding, groups, out_sizes):
    """The doc's convolution element by element: (expected, magnitude bound, terms per element)."""
    x, w = np.asarray(x, np.float64), np.asarray(w, np.float64)
    kernel = w.shape[2:]
    out = np.zeros(out_sizes)
    bound = np.zeros(out_sizes)

    def tap(k):
        return tuple(kk - 1 - t for t, kk in zip(k, kernel, strict=True)) if flip else tuple(k)

    if not backward:
        cout_group, cin_group = w.shape[0] // groups, w.shape[1]
        valid = [o - p for o, p in zip(out_sizes[2:], output_padding, strict=True)]
        for n, o, *p in itertools.product(*(range(s) for s in out_sizes)):
            if any(pi >= vi for pi, vi in zip(p, valid, strict=True)):
                continue  # OutputPadding: zeros appended to the result
            g = o // cout_group
            for c in range(cin_group):
                for k in itertools.product(*(range(s) for s in kernel)):
                    i = [pi * s + ki * d - sp for pi, ki, s, d, sp in zip(p, k, strides, dilations, start, strict=True)]
                    if all(0 <= ii < size for ii, size in zip(i, x.shape[2:], strict=True)):
                        term = x[(n, g * cin_group + c, *i)] * w[(o, c, *tap(k))]
                        out[(n, o, *p)] += term
                        bound[(n, o, *p)] += abs(term)
        terms = cin_group * int(np.prod(kernel))
    else:
        cout_group, cin_group = w.shape[1], x.shape[1] // groups
        for n, c, *i in itertools.product(*(range(s) for s in x.shape)):
            g = c // cin_group
            for o in range(cout_group):
                for k in itertools.product(*(range(s) for s in kernel)):
                    p = [ii * s + ki * d - sp for ii, ki, s, d, sp in zip(i, k, strides, dilations, start, strict=True)]
                    if all(0 <= pi < size for pi, size in zip(p, out_sizes[2:], strict=True)):
                        term = x[(n, c, *i)] * w[(c, o, *tap(k))]
                        out[(n, g * cout_group + o, *p)] += term
                        bound[(n, g * cout_group + o, *p)] += abs(term)
        terms = cin_group * int(np.prod(kernel))
    if bias is not None:
        b = np.asarray(bias, np.float64).reshape(-1)
        for n, o, *p in itertools.product(*(range(s) for s in out_sizes)):
            out[(n, o, *p)] += b[o]
            bound[(n, o, *p)] += abs(b[o])
    return out, bound, terms + 1


# --- literals ----------------------------------------------------------------------------------------
def test_dxdispatch_samples(device):
    """dml_convolution_2d.json: 1..9 in 3x3, a 2x2 filter of 0.5: (1+2+4+5)/2 = 6, 8, 12, 14;
    dml_convolution_3d.json: 27 ones, a 2x2x2 filter of 0.5: 8 * 0.5 = 4 everywhere."""
    desc = conv_desc(tensor(F32, [1, 1, 3, 3]), tensor(F32, [1, 1, 2, 2]), None, tensor(F32, [1, 1, 2, 2]))
    got = run_operator(device, desc, {"InputTensor": np.arange(1, 10, dtype=np.float32),
                                      "FilterTensor": np.full(4, 0.5, np.float32)})["OutputTensor"]
    np.testing.assert_array_equal(got.reshape(-1), [6, 8, 12, 14])
    desc = conv_desc(tensor(F32, [1, 1, 3, 3, 3]), tensor(F32, [1, 1, 2, 2, 2]), None, tensor(F32, [1, 1, 2, 2, 2]))
    got = run_operator(device, desc, {"InputTensor": np.ones(27, np.float32),
                                      "FilterTensor": np.full(8, 0.5, np.float32)})["OutputTensor"]
    np.testing.assert_array_equal(got.reshape(-1), [4] * 8)


@pytest.mark.parametrize(("mode", "expected"), [(XCORR, [-3, -6]), (CONV, [3, 6])], ids=["XCORR", "CONV"])
def test_mode_flips_the_filter(device, mode, expected):
    """x = [1, 2, 4, 8], filter [1, 0, -1]: cross-correlation 1 - 4 = -3, 2 - 8 = -6; convolution reads
    the filter reversed, [-1, 0, 1]: 3, 6."""
    desc = conv_desc(tensor(F32, [1, 1, 4]), tensor(F32, [1, 1, 3]), None, tensor(F32, [1, 1, 2]), mode=mode)
    got = run_operator(device, desc, {"InputTensor": np.array([1, 2, 4, 8], np.float32),
                                      "FilterTensor": np.array([1, 0, -1], np.float32)})["OutputTensor"]
    np.testing.assert_array_equal(got.reshape(-1), expected)


@pytest.mark.parametrize(("mode", "expected"), [(XCORR, [10, 102, 20, 200]), (CONV, [10, 201, 20, 2])],
                         ids=["XCORR", "CONV"])
def test_backward_by_hand(device, mode, expected):
    """Transposed 1-D, stride 2: x = [1, 2] scattered through filter [1, 10, 100] gives the full result
    [1, 10, 1*100 + 2*1, 20, 200]; StartPadding 1 and EndPadding 1 crop one at each end, OutputPadding 1
    gives the end one back: [10, 102, 20, 200]. CONVOLUTION mode reads the filter reversed [100, 10, 1]:
    full [100, 10, 1 + 200, 20, 2] -> [10, 201, 20, 2]."""
    desc = conv_desc(tensor(F32, [1, 1, 2]), tensor(F32, [1, 1, 3]), None, tensor(F32, [1, 1, 4]), mode=mode,
                     direction=BACKWARD, strides=[2], start=[1], end=[1], output_padding=[1])
    got = run_operator(device, desc, {"InputTensor": np.array([1, 2], np.float32),
                                      "FilterTensor": np.array([1, 10, 100], np.float32)})["OutputTensor"]
    np.testing.assert_array_equal(got.reshape(-1), expected)


def test_forward_output_padding_and_bias_by_hand(device):
    """[1, 2, 3] with filter [1, 1]: [3, 5]; OutputPadding 2 appends two zeros; the bias 0.5 is added to
    every element of the channel: [3.5, 5.5, 0.5, 0.5]."""
    desc = conv_desc(tensor(F32, [1, 1, 3]), tensor(F32, [1, 1, 2]), tensor(F32, [1, 1, 1]), tensor(F32, [1, 1, 4]),
                     output_padding=[2])
    got = run_operator(device, desc, {"InputTensor": np.array([1, 2, 3], np.float32),
                                      "FilterTensor": np.array([1, 1], np.float32),
                                      "BiasTensor": np.array([0.5], np.float32)})["OutputTensor"]
    np.testing.assert_array_equal(got.reshape(-1), [3.5, 5.5, 0.5, 0.5])


def test_groups_by_hand(device):
    """Two groups of one channel each, two output channels per group: channel 0 = [1, 2] feeds outputs 0
    and 1 (filters [1] and [2]); channel 1 = [3, 4] feeds outputs 2 and 3 (filters [10] and [-1])."""
    desc = conv_desc(tensor(F32, [1, 2, 2]), tensor(F32, [4, 1, 1]), None, tensor(F32, [1, 4, 2]), groups=2)
    got = run_operator(device, desc, {"InputTensor": np.array([1, 2, 3, 4], np.float32),
                                      "FilterTensor": np.array([1, 2, 10, -1], np.float32)})["OutputTensor"]
    np.testing.assert_array_equal(got.reshape(4, 2), [[1, 2], [2, 4], [30, 40], [-3, -4]])


# --- the formula on every configuration ----------------------------------------------------------------
CASES = {
    # name: (direction, mode, x sizes, filter sizes, strides, dilations, start, end, output padding, groups, bias)
    "1d-forward-strided-padded": (FORWARD, XCORR, (2, 3, 9), (4, 3, 3), [2], [1], [1], [2], [0], 1, True),
    "1d-forward-dilated": (FORWARD, CONV, (1, 2, 11), (3, 2, 3), [1], [3], [0], [1], [0], 1, False),
    "2d-forward-groups-dilation": (FORWARD, CONV, (2, 4, 6, 7), (6, 2, 3, 2), [1, 2], [2, 1], [1, 0], [0, 1],
                                   [0, 0], 2, True),
    "2d-depthwise-multiplier": (FORWARD, XCORR, (1, 3, 5, 5), (6, 1, 2, 2), [1, 1], [1, 1], [1, 1], [1, 1],
                                [0, 0], 3, True),
    "2d-forward-output-padding": (FORWARD, XCORR, (1, 2, 4, 5), (2, 2, 3, 3), [2, 1], [1, 1], [1, 1], [1, 0],
                                  [1, 2], 1, True),
    "3d-forward": (FORWARD, XCORR, (1, 2, 4, 5, 4), (2, 2, 2, 3, 2), [2, 1, 1], [1, 1, 2], [0, 1, 1], [1, 1, 0],
                   [0, 0, 0], 1, True),
    "1d-backward": (BACKWARD, XCORR, (1, 2, 4), (2, 3, 3), [2], [1], [1], [1], [1], 1, True),
    "2d-backward-groups": (BACKWARD, CONV, (2, 4, 3, 4), (4, 2, 2, 3), [2, 3], [1, 2], [0, 1], [1, 0], [1, 0], 2,
                           True),
    "2d-backward-dilation-crop": (BACKWARD, XCORR, (1, 3, 4, 3), (3, 2, 3, 3), [1, 2], [2, 1], [2, 1], [1, 2],
                                  [0, 1], 1, False),
    "3d-backward": (BACKWARD, XCORR, (1, 2, 2, 3, 2), (2, 1, 2, 2, 3), [2, 1, 2], [1, 1, 1], [0, 1, 0],
                    [1, 0, 0], [1, 0, 1], 2, True),
}


def out_sizes_for(direction, x_sizes, f_sizes, strides, dilations, start, end, output_padding, groups):
    """The output sizes from the forward and transposed size formulas (the literal tests above pin them)."""
    spatial = []
    for i, (size, k) in enumerate(zip(x_sizes[2:], f_sizes[2:], strict=True)):
        extent = (k - 1) * dilations[i] + 1
        if direction == FORWARD:
            spatial.append((size + start[i] + end[i] - extent) // strides[i] + 1 + output_padding[i])
        else:
            spatial.append((size - 1) * strides[i] + extent - start[i] - end[i] + output_padding[i])
    channels = f_sizes[0] if direction == FORWARD else f_sizes[1] * groups
    return (x_sizes[0], channels, *spatial)


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("name", list(CASES))
def test_convolution_matches_the_definition(device, data_type, name):
    direction, mode, x_sizes, f_sizes, strides, dilations, start, end, output_padding, groups, has_bias = CASES[name]
    out_sizes = out_sizes_for(direction, x_sizes, f_sizes, strides, dilations, start, end, output_padding, groups)
    rng = np.random.default_rng(len(name))
    dtype = NUMPY[data_type]
    x = rng.uniform(-1, 1, x_sizes).astype(dtype)
    w = rng.uniform(-1, 1, f_sizes).astype(dtype)
    bias = rng.uniform(-1, 1, out_sizes[1]).astype(dtype) if has_bias else None
    bias_sizes = (1, out_sizes[1], *(1,) * (len(x_sizes) - 2))
    desc = conv_desc(tensor(data_type, x_sizes), tensor(data_type, f_sizes),
                     tensor(data_type, bias_sizes) if has_bias else None, tensor(data_type, out_sizes), mode=mode,
                     direction=direction, strides=strides, dilations=dilations, start=start, end=end,
                     output_padding=output_padding, groups=groups)
    inputs = {"InputTensor": x, "FilterTensor": w, **({"BiasTensor": bias} if has_bias else {})}
    got = run_operator(device, desc, inputs)["OutputTensor"]
    expected, bound, terms = conv_loops(x, w, bias, backward=direction == BACKWARD, flip=mode == CONV,
                                        strides=strides, dilations=dilations, start=start,
                                        output_padding=output_padding, groups=groups, out_sizes=out_sizes)
    report = compare_ulps(got, expected, dtype, 1 if data_type == F16 else terms + 2, bound)
    assert report.ok, report.describe("OutputTensor")


def test_strided_tensors(device):
    """NHWC-strided input and output (channels innermost) and a bias broadcast from one value per channel
    through strides: the same numbers as the packed layout."""
    rng = np.random.default_rng(9)
    x = rng.uniform(-1, 1, (1, 2, 4, 3)).astype(np.float32)
    w = rng.uniform(-1, 1, (3, 2, 2, 2)).astype(np.float32)
    bias = np.array([0.25, -0.5, 1.0], np.float32)
    nhwc_in, nhwc_out = [24, 1, 6, 2], [18, 1, 9, 3]  # {N, C, H, W} addressed as N, H, W, C
    desc = conv_desc(tensor(F32, [1, 2, 4, 3], nhwc_in), tensor(F32, [3, 2, 2, 2]),
                     tensor(F32, [1, 3, 1, 1]), tensor(F32, [1, 3, 3, 2], nhwc_out))
    got = run_operator(device, desc, {"InputTensor": x, "FilterTensor": w, "BiasTensor": bias})["OutputTensor"]
    expected, bound, terms = conv_loops(x, w, bias, backward=False, flip=False, strides=[1, 1], dilations=[1, 1],
                                        start=[0, 0], output_padding=[0, 0], groups=1, out_sizes=(1, 3, 3, 2))
    report = compare_ulps(got, expected, np.float32, terms + 2, bound)
    assert report.ok, report.describe("OutputTensor")


# --- validation: every rule of the doc page, each refusal naming the field --------------------------
def refused(ref_device, desc, hresult=dml.E_INVALIDARG):
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateOperator(desc)
    assert info.value.hresult == hresult, str(info.value)
    return str(info.value)


T = tensor


@pytest.mark.parametrize(("desc", "expected"), [
    (conv_desc(T(dml.DML_TENSOR_DATA_TYPE_INT32, [1, 1, 3]), T(F32, [1, 1, 2]), None, T(F32, [1, 1, 2])),
     "InputTensor.DataType INT32 is not supported by DML_OPERATOR_CONVOLUTION (supported: FLOAT32, FLOAT16)"),
    (conv_desc(T(F32, [1, 3]), T(F32, [1, 3]), None, T(F32, [1, 1]), dimension_count=1, strides=[1], dilations=[1],
               start=[0], end=[0], output_padding=[0]),
     "InputTensor.DimensionCount 2 is not supported by DML_OPERATOR_CONVOLUTION (supported: 3 to 5)"),
    (conv_desc(T(F32, [1, 1, 1, 1, 1, 3]), T(F32, [1, 1, 1, 1, 1, 2]), None, T(F32, [1, 1, 1, 1, 1, 2])),
     "InputTensor.DimensionCount 6 is not supported"),
    (conv_desc(T(F32, [1, 1, 3]), T(F16, [1, 1, 2]), None, T(F32, [1, 1, 2])),
     "FilterTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (conv_desc(T(F32, [1, 1, 3]), T(F32, [1, 1, 2]), T(F32, [1, 1, 1, 1]), T(F32, [1, 1, 2])),
     "BiasTensor.DimensionCount 4 must equal InputTensor.DimensionCount 3"),
    (conv_desc(T(F32, [1, 1, 3, 3]), T(F32, [1, 1, 2, 2]), None, T(F32, [1, 1, 2, 2]), dimension_count=3,
               strides=[1, 1, 1], dilations=[1, 1, 1], start=[0, 0, 0], end=[0, 0, 0], output_padding=[0, 0, 0]),
     "DimensionCount 3 must be InputTensor.DimensionCount - 2 = 2"),
    (conv_desc(T(F32, [1, 1, 3]), T(F32, [1, 1, 2]), None, T(F32, [1, 1, 2]), strides=[0]),
     "Strides[0] must be at least 1, got 0"),
    (conv_desc(T(F32, [1, 1, 3]), T(F32, [1, 1, 2]), None, T(F32, [1, 1, 2]), dilations=[0]),
     "Dilations[0] must be at least 1, got 0"),
    (conv_desc(T(F32, [1, 1, 3]), T(F32, [1, 1, 2]), None, T(F32, [1, 1, 2]), groups=0),
     "GroupCount must be at least 1, got 0"),
    (conv_desc(T(F32, [1, 1, 3]), T(F32, [1, 1, 2]), None, T(F32, [1, 1, 2]), strides=[1, 1]),
     "Strides must hold DimensionCount (1) values, got 2"),
    (conv_desc(T(F32, [2, 1, 3]), T(F32, [1, 1, 2]), None, T(F32, [1, 1, 2])),
     "OutputTensor.Sizes[0] 1 must equal InputTensor.Sizes[0] 2 (BatchCount)"),
    (conv_desc(T(F32, [1, 3, 3]), T(F32, [2, 1, 2]), None, T(F32, [1, 2, 2]), groups=2),
     "InputTensor.Sizes[1] 3 (InputChannelCount) must be a multiple of GroupCount 2"),
    (conv_desc(T(F32, [1, 4, 3]), T(F32, [2, 4, 2]), None, T(F32, [1, 2, 2]), groups=2),
     "FilterTensor.Sizes[1] 4 * GroupCount 2 must equal InputTensor.Sizes[1] 4"),
    (conv_desc(T(F32, [1, 4, 3]), T(F32, [3, 2, 2]), None, T(F32, [1, 3, 2]), groups=2),
     "FilterTensor.Sizes[0] 3 (OutputChannelCount) must be a multiple of GroupCount 2"),
    (conv_desc(T(F32, [1, 1, 3]), T(F32, [2, 1, 2]), None, T(F32, [1, 1, 2])),
     "OutputTensor.Sizes[1] 1 must equal FilterTensor.Sizes[0] 2 (OutputChannelCount)"),
    (conv_desc(T(F32, [1, 2, 3]), T(F32, [1, 1, 2]), None, T(F32, [1, 1, 4]), direction=BACKWARD),
     "FilterTensor.Sizes[0] 1 must equal InputTensor.Sizes[1] 2 (InputChannelCount; BACKWARD filters are"),
    (conv_desc(T(F32, [1, 2, 3]), T(F32, [2, 3, 2]), None, T(F32, [1, 3, 4]), direction=BACKWARD, groups=2),
     "OutputTensor.Sizes[1] 3 must equal FilterTensor.Sizes[1] 3 * GroupCount 2 = 6 (OutputChannelCount)"),
    (conv_desc(T(F32, [1, 1, 3]), T(F32, [2, 1, 2]), T(F32, [1, 1, 1]), T(F32, [1, 2, 2])),
     "BiasTensor.Sizes [1, 1, 1] must be [1, 2, 1]"),
    (conv_desc(T(F32, [1, 1, 3]), T(F32, [1, 1, 3]), None, T(F32, [1, 1, 1]), dilations=[2]),
     "FilterTensor.Sizes[2] 3 with Dilations[0] 2 spans 5 elements, more than InputTensor.Sizes[2] 3 plus "
     "StartPadding[0] and EndPadding[0] (3)"),
    (conv_desc(T(F32, [1, 1, 2]), T(F32, [1, 1, 2]), None, T(F32, [1, 1, 1]), direction=BACKWARD, start=[2],
               end=[1]),
     "StartPadding[0] + EndPadding[0] must be less than the full transposed output size"),
    (conv_desc(T(F32, [1, 1, 5]), T(F32, [1, 1, 2]), None, T(F32, [1, 1, 4]), strides=[2]),
     "OutputTensor.Sizes [1, 1, 4]: the spatial sizes must be [2]"),
    (conv_desc(T(F32, [1, 1, 3]), T(F32, [1, 1, 2]), None, T(F32, [1, 1, 4]), direction=BACKWARD, strides=[2]),
     "OutputTensor.Sizes [1, 1, 4]: the spatial sizes must be [6] ((in - 1) * stride"),
    (conv_desc(T(F32, [1, 1, 3]), T(F32, [1, 1, 2]), None, T(F32, [1, 1, 2]), output_padding=[1]),
     "OutputTensor.Sizes [1, 1, 2]: the spatial sizes must be [3]"),
])
def test_validation(ref_device, desc, expected):
    assert expected in refused(ref_device, desc)


@pytest.mark.formula
def test_fused_activation_applies_to_the_output(device):
    """FusedActivation(conv(x) + bias): [1, -2, 3, -4] cross-correlated with [1, 1] is -1, 1, -1; plus the bias
    -1: -2, 0, -2; a LEAKY_RELU with Alpha 0.5 halves the negatives."""
    leaky = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_LEAKY_RELU,
                                  dml.DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC(None, None, 0.5))
    desc = conv_desc(T(F32, [1, 1, 4]), T(F32, [1, 1, 2]), T(F32, [1, 1, 1]), T(F32, [1, 1, 3]), fused=leaky)
    got = run_operator(device, desc, {"InputTensor": np.array([1, -2, 3, -4], np.float32).reshape(1, 1, 4),
                                      "FilterTensor": np.ones((1, 1, 2), np.float32),
                                      "BiasTensor": np.full((1, 1, 1), -1, np.float32)})["OutputTensor"]
    np.testing.assert_array_equal(got.ravel(), [-1, 0, -1])
    relu = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_RELU, dml.DML_ACTIVATION_RELU_OPERATOR_DESC(None, None))
    desc = conv_desc(T(F32, [1, 1, 4]), T(F32, [1, 1, 2]), None, T(F32, [1, 1, 3]), fused=relu)
    got = run_operator(device, desc, {"InputTensor": np.array([1, 2, -3, 4], np.float32).reshape(1, 1, 4),
                                      "FilterTensor": np.ones((1, 1, 2), np.float32)})["OutputTensor"]
    np.testing.assert_array_equal(got.ravel(), [3, 0, 1])


def test_registered():
    from dmlsim.operators import implemented_names

    assert "DML_OPERATOR_CONVOLUTION" in implemented_names()
