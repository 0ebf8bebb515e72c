"""DML_OPERATOR_CONVOLUTION (dmlsim/operators/convolution), on every adapter.

Expected values are literals worked out by hand, or the doc's definitions written out here as explicit
float64 loops (never dmlsim's reference): FORWARD gathers, for each output element, every input element a
filter tap reads through strides, dilations and start padding; BACKWARD (transposed) scatters each input
element through each tap to output position ``i * stride + k * dilation - StartPadding`` (the opposite
direction to the kernel's gather), at every output position before the OutputPadding, however far the output
reaches past the size formula (the desc onnxruntime's DirectML provider sends: OutputPadding zeroed, the output
sized for ONNX's output_padding). In both directions the OutputPadding positions hold zeros before the bias (the
doc: "OutputPadding applies a zero padding to the result of the convolution"). onnx.reference's ConvTranspose and
literals from onnxruntime's own ConvTranspose tests check the provider's desc independently of these loops.
Tolerance: float32 accumulation of T terms (T = taps times channels per group, plus the bias): T + 2 ulps of the
sum of the terms' magnitudes; FLOAT16 1 ulp (half) of it.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from dispatch import Dispatch
from plan_support import planned_entries, planned_launches

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps
from dmlsim.operators.plan import LaunchTarget
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

    computed = [o - p for o, p in zip(out_sizes[2:], output_padding, strict=True)]  # OutputPadding: zeros after
    if not backward:
        cout_group, cin_group = w.shape[0] // groups, w.shape[1]
        for n, o, *p in itertools.product(*(range(s) for s in out_sizes)):
            if any(pi >= ci for pi, ci in zip(p, computed, strict=True)):
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
                    if all(0 <= pi < size for pi, size in zip(p, computed, strict=True)):
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


BACKWARD_BY_HAND = {
    # name: (output size, OutputPadding, bias, XCORR expected, CONV expected)
    "output-padding-zeros": (4, 1, None, [10, 102, 20, 0], [10, 201, 20, 0]),
    "provider-sums": (4, 0, None, [10, 102, 20, 200], [10, 201, 20, 2]),
    "provider-past-the-full-result": (6, 0, 0.5, [10.5, 102.5, 20.5, 200.5, 0.5, 0.5],
                                      [10.5, 201.5, 20.5, 2.5, 0.5, 0.5]),
    "provider-and-output-padding": (5, 1, None, [10, 102, 20, 200, 0], [10, 201, 20, 2, 0]),
}


@pytest.mark.parametrize("mode", [XCORR, CONV], ids=["XCORR", "CONV"])
@pytest.mark.parametrize("name", list(BACKWARD_BY_HAND))
def test_backward_by_hand(device, mode, name):
    """Transposed 1-D, stride 2: x = [1, 2] scattered through filter [1, 10, 100] gives the full result
    [1, 10, 1*100 + 2*1, 20, 200] (CONVOLUTION mode reads the filter reversed, [100, 10, 1]: [100, 10, 1 + 200,
    20, 2]); StartPadding 1 and EndPadding 1 crop one at each end: the size formula gives 3 + OutputPadding.
    OutputPadding 1 on a 4-element output appends a zero (the doc) where ONNX's output_padding would put 200.
    OutputPadding 0 on a 4-element output (onnxruntime's DirectML provider's desc for output_padding 1) gets
    the transposed sum there: 200. A 6-element output reaches past the full result, where nothing lands: 0,
    then the bias 0.5 everywhere. A 5-element output with OutputPadding 1: the sums up to 4, then a zero."""
    size, output_padding, bias, xcorr, conv = BACKWARD_BY_HAND[name]
    desc = conv_desc(tensor(F32, [1, 1, 2]), tensor(F32, [1, 1, 3]), None if bias is None else tensor(F32, [1, 1, 1]),
                     tensor(F32, [1, 1, size]), mode=mode, direction=BACKWARD, strides=[2], start=[1], end=[1],
                     output_padding=[output_padding])
    inputs = {"InputTensor": np.array([1, 2], np.float32), "FilterTensor": np.array([1, 10, 100], np.float32)}
    if bias is not None:
        inputs["BiasTensor"] = np.array([bias], np.float32)
    got = run_operator(device, desc, inputs)["OutputTensor"]
    np.testing.assert_array_equal(got.reshape(-1), xcorr if mode == XCORR else conv)


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
    # 1 x 1 FORWARD: one GEMM over views (the planner); on CPU devices 9 output channels are an 8-row block and
    # a 1-row edge, 5 input channels a K remainder of 1, 21 positions a 16-column vector block and a 5-column tail
    "2d-forward-1x1-gemm": (FORWARD, CONV, (2, 5, 3, 7), (9, 5, 1, 1), [1, 1], [1, 1], [0, 0], [0, 0], [0, 0], 1,
                            True),
    "1d-forward-1x1-gemm": (FORWARD, XCORR, (1, 3, 17), (4, 3, 1), [1], [1], [0], [0], [0], 1, False),
    # 1 x 1 but strided, padded or grouped: the direct kernel
    "2d-forward-1x1-strided": (FORWARD, XCORR, (1, 3, 5, 5), (2, 3, 1, 1), [2, 2], [1, 1], [0, 0], [0, 0], [0, 0], 1,
                               True),
    "2d-forward-1x1-padded": (FORWARD, XCORR, (1, 2, 3, 3), (2, 2, 1, 1), [1, 1], [1, 1], [1, 0], [0, 1], [0, 0], 1,
                              True),
    "2d-forward-1x1-groups": (FORWARD, XCORR, (1, 4, 2, 3), (4, 2, 1, 1), [1, 1], [1, 1], [0, 0], [0, 0], [0, 0], 2,
                              True),
    "3d-forward": (FORWARD, XCORR, (1, 2, 4, 5, 4), (2, 2, 2, 3, 2), [2, 1, 1], [1, 1, 2], [0, 1, 1], [1, 1, 0],
                   [0, 0, 0], 1, True),
    "1d-backward": (BACKWARD, XCORR, (1, 2, 4), (2, 3, 3), [2], [1], [1], [1], [1], 1, True),
    "2d-backward-groups": (BACKWARD, CONV, (2, 4, 3, 4), (4, 2, 2, 3), [2, 3], [1, 2], [0, 1], [1, 0], [1, 0], 2,
                           True),
    "2d-backward-dilation-crop": (BACKWARD, XCORR, (1, 3, 4, 3), (3, 2, 3, 3), [1, 2], [2, 1], [2, 1], [1, 2],
                                  [0, 1], 1, False),
    "3d-backward": (BACKWARD, XCORR, (1, 2, 2, 3, 2), (2, 1, 2, 2, 3), [2, 1, 2], [1, 1, 1], [0, 1, 0],
                    [1, 0, 0], [1, 0, 1], 2, True),
    # CPU devices' packed path (GEMM's panels: M = output channels in 8-row panels, N = positions in 32-column
    # panels, K = Cin x taps; edge panels and K remainders): 19 channels (2 panels + 3 rows), 72 positions
    # (2 panels + 8), K = 45 (a remainder of 1), padding (the non-finite flag and recompute), a batch of 2
    "2d-forward-packed-padded": (FORWARD, XCORR, (2, 5, 9, 8), (19, 5, 3, 3), [1, 1], [1, 1], [1, 1], [1, 1], [0, 0],
                                 1, True),
    # 1 x 1 without padding: no flag; 18 channels, 49 positions, K = 41
    "2d-forward-packed-1x1": (FORWARD, CONV, (2, 41, 7, 7), (18, 41, 1, 1), [1, 1], [1, 1], [0, 0], [0, 0], [0, 0], 1,
                              False),
    # stride 2 along W (the unchecked strided copy) and H: 16 channels, 7 x 15 positions, K = 27
    "2d-forward-packed-stride2": (FORWARD, XCORR, (1, 3, 14, 30), (16, 3, 3, 3), [2, 2], [1, 1], [1, 1], [1, 1],
                                  [0, 0], 1, False),
    # 3-D, flipped, strided, dilated, uneven padding: 16 channels, 160 positions, K = 36
    "3d-forward-packed-strided-dilated": (FORWARD, CONV, (1, 3, 6, 7, 8), (16, 3, 2, 2, 3), [1, 2, 1], [2, 1, 1],
                                          [1, 0, 1], [0, 1, 1], [0, 0, 0], 1, True),
    # CPU devices' row kernel (groups, FORWARD): 8 outputs along W at a time, the taps inside the row unchecked:
    # rows of 24 (three full sets, the last one's right tap over the padding), stride 2 with dilation 2 (rows of
    # 20: two full sets and 4), and 3-D rows of 17
    "2d-depthwise-wide": (FORWARD, XCORR, (2, 3, 5, 24), (3, 1, 3, 3), [1, 1], [1, 1], [1, 1], [1, 1], [0, 0], 3,
                          True),
    "2d-groups-strided-dilated-wide": (FORWARD, CONV, (1, 4, 4, 40), (4, 2, 2, 3), [1, 2], [1, 2], [0, 2], [1, 1],
                                       [0, 0], 2, True),
    "3d-groups-rows": (FORWARD, XCORR, (1, 2, 3, 3, 17), (4, 1, 2, 2, 3), [1, 1, 1], [1, 1, 1], [1, 0, 1], [0, 1, 1],
                       [0, 0, 0], 2, False),
    # 11 output channels a group: a block of 8 and one of 3 (whose 5 clamped channels store nothing); rows of 32,
    # 16 outputs at a time: two full sets, the first one's left tap and the last one's right tap over the padding
    "2d-rows-channel-blocks-wide": (FORWARD, XCORR, (2, 6, 4, 32), (22, 3, 3, 3), [1, 1], [1, 1], [1, 1], [1, 1],
                                    [0, 0], 2, True),
    # depthwise row kernel, 8 output rows a work-item (RH) where the H stride is 1: 11 rows (a set of 8 and one of 3),
    # H dilation 2 with 2 rows of padding above and 1 below, flipped; 3-D rows of 17, 6 rows a plane (one set of 8
    # short of 2) over 3 depths with padding; an H stride of 2 (one row a work-item)
    "2d-depthwise-dilated-rows": (FORWARD, CONV, (1, 2, 12, 20), (2, 1, 3, 3), [1, 1], [2, 1], [2, 1], [1, 1], [0, 0],
                                  2, True),
    "3d-depthwise-rows": (FORWARD, XCORR, (1, 2, 3, 6, 17), (2, 1, 2, 3, 3), [1, 1, 1], [1, 1, 1], [1, 1, 1],
                          [0, 1, 1], [0, 0, 0], 2, False),
    "2d-depthwise-h-stride2": (FORWARD, XCORR, (1, 2, 7, 18), (2, 1, 3, 3), [2, 1], [1, 1], [1, 1], [1, 1], [0, 0], 2,
                               True),
    # rows wide enough that some sets of 16 lie wholly inside the row (their taps read without masks: on CPU devices'
    # FLOAT32 straight from the row): rows of 50 (sets at 0 and 48 masked, 16 and 32 inside), depthwise and in blocks
    # of 8 + 3 channels; rows of 60 with a W dilation of 2 and 2 columns of padding each side
    "2d-depthwise-rows-inside": (FORWARD, XCORR, (1, 2, 5, 50), (2, 1, 3, 3), [1, 1], [1, 1], [1, 1], [1, 1], [0, 0],
                                 2, True),
    "2d-rows-blocks-inside": (FORWARD, CONV, (1, 4, 3, 50), (22, 2, 3, 3), [1, 1], [1, 1], [1, 1], [1, 1], [0, 0], 2,
                              False),
    "2d-depthwise-dilated-inside": (FORWARD, XCORR, (1, 2, 4, 60), (2, 1, 3, 3), [1, 1], [1, 2], [1, 2], [1, 2],
                                    [0, 0], 2, True),
    # stride 2 along W (inputs read lane by lane): rows of 16, one full set whose last lane's right tap is padding
    "2d-rows-strided-wide-full-set": (FORWARD, XCORR, (1, 2, 3, 31), (4, 1, 2, 3), [1, 2], [1, 1], [0, 1], [0, 1],
                                      [0, 0], 2, True),
    # one group too small to pack: 9 channels (8 + 1), flipped, rows of 4 (4 outputs at a time)
    "2d-rows-narrow-blocks": (FORWARD, CONV, (1, 2, 5, 3), (9, 2, 2, 2), [1, 1], [1, 1], [1, 1], [1, 1], [0, 0], 1,
                              False),
    # onnxruntime's DirectML provider's desc: OutputPadding 0, the output larger than the formula (PAST_FORMULA)
    "1d-backward-provider": (BACKWARD, XCORR, (1, 2, 5), (2, 3, 3), [3], [1], [1], [2], [0], 1, True),
    "2d-backward-provider-groups-dilation": (BACKWARD, CONV, (2, 4, 3, 3), (4, 1, 2, 3), [2, 2], [2, 1], [1, 0],
                                             [0, 2], [0, 0], 4, True),
    "3d-backward-provider": (BACKWARD, XCORR, (1, 2, 2, 2, 3), (2, 2, 2, 2, 2), [2, 1, 2], [1, 2, 1], [0, 1, 1],
                             [1, 0, 0], [0, 0, 0], 1, False),
    # both: a larger output and non-zero OutputPadding, with EndPadding large enough that ONNX's output_padding
    # would put non-zero sums where the doc's OutputPadding puts zeros; groups and dilation
    "2d-backward-provider-and-output-padding": (BACKWARD, XCORR, (1, 4, 3, 3), (4, 3, 3, 2), [2, 3], [1, 2],
                                                [1, 1], [3, 4], [1, 2], 2, True),
}
# output positions past the size formula's, per spatial dimension (BACKWARD only; past stride - 1 reaches beyond
# the full transposed result, as ONNX's output_shape can)
PAST_FORMULA = {
    "1d-backward-provider": [2],
    "2d-backward-provider-groups-dilation": [1, 3],
    "3d-backward-provider": [1, 2, 0],
    "2d-backward-provider-and-output-padding": [1, 1],
}


def out_sizes_for(direction, x_sizes, f_sizes, strides, dilations, start, end, output_padding, groups, past=None):
    """The output sizes from the forward and transposed size formulas (the literal tests above pin them), plus
    ``past`` positions per spatial dimension."""
    spatial = []
    for i, (size, k) in enumerate(zip(x_sizes[2:], f_sizes[2:], strict=True)):
        extent = (k - 1) * dilations[i] + 1
        if direction == FORWARD:
            spatial.append((size + start[i] + end[i] - extent) // strides[i] + 1 + output_padding[i])
        else:
            spatial.append((size - 1) * strides[i] + extent - start[i] - end[i] + output_padding[i])
        spatial[-1] += past[i] if past else 0
    channels = f_sizes[0] if direction == FORWARD else f_sizes[1] * groups
    return (x_sizes[0], channels, *spatial)


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("name", list(CASES))
def test_convolution_matches_the_definition(device, data_type, name):
    check_against_the_definition(device, data_type, name)


# one case of each path the planner takes on either kind of device (test_planner_choice): GPU targets take im2col +
# GEMM and the direct kernel for what CPU targets run packed or by rows
SHAPE_CASES = ["1d-forward-strided-padded", "3d-forward", "1d-forward-dilated", "2d-forward-1x1-gemm",
               "2d-forward-packed-padded", "2d-depthwise-wide", "2d-backward-groups", "2d-forward-output-padding",
               "2d-rows-channel-blocks-wide"]


@pytest.mark.parametrize("name", SHAPE_CASES)
def test_convolution_on_every_launch_shape(shaped_device, name):
    """The definition on every launch shape (DMLSIM_LAUNCH_SHAPE): a CPU device forced to GPU shapes runs the GPU
    plans (im2col + GEMM, the direct kernel), which its own shape never takes."""
    check_against_the_definition(shaped_device, F32, name)


def check_against_the_definition(device, data_type, name):
    """CASES[name] on ``device`` against the definition's loops (conv_loops), within its ulp bound."""
    direction, mode, x_sizes, f_sizes, strides, dilations, start, end, output_padding, groups, has_bias = CASES[name]
    out_sizes = out_sizes_for(direction, x_sizes, f_sizes, strides, dilations, start, end, output_padding, groups,
                              PAST_FORMULA.get(name))
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


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
def test_depthwise_nhwc(device, data_type):
    """A depthwise 3 x 3 convolution (CPU devices' row kernel) over NHWC input and output, rows of 19 (two full sets
    of 8 and 3), padding 1, a bias broadcast through strides: the same numbers as the definition's loops."""
    rng = np.random.default_rng(13)
    dtype = NUMPY[data_type]
    n, c, h, w = 2, 5, 4, 19
    x = rng.uniform(-1, 1, (n, c, h, w)).astype(dtype)
    f = rng.uniform(-1, 1, (c, 1, 3, 3)).astype(dtype)
    bias = rng.uniform(-1, 1, c).astype(dtype)
    nhwc = [h * w * c, 1, w * c, c]
    desc = conv_desc(tensor(data_type, [n, c, h, w], nhwc), tensor(data_type, [c, 1, 3, 3]),
                     tensor(data_type, [1, c, 1, 1], [0, 1, 0, 0]), tensor(data_type, [n, c, h, w], nhwc),
                     start=[1, 1], end=[1, 1], groups=c)
    got = run_operator(device, desc, {"InputTensor": x, "FilterTensor": f, "BiasTensor": bias})["OutputTensor"]
    expected, bound, terms = conv_loops(x, f, bias, backward=False, flip=False, strides=[1, 1], dilations=[1, 1],
                                        start=[1, 1], output_padding=[0, 0], groups=c, out_sizes=(n, c, h, w))
    report = compare_ulps(got, expected, dtype, 1 if data_type == F16 else terms + 2, bound)
    assert report.ok, report.describe("OutputTensor")


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
def test_packed_nhwc(device, data_type):
    """A 3 x 3 convolution large enough for CPU devices' packed path (16 output channels, 12 x 12 positions, K = 36)
    over an NHWC input at padding 1: im2col_pack gathers each window's inputs through the W stride."""
    rng = np.random.default_rng(17)
    dtype = NUMPY[data_type]
    n, ci, co, h, w = 1, 4, 16, 12, 12
    x = rng.uniform(-1, 1, (n, ci, h, w)).astype(dtype)
    f = rng.uniform(-1, 1, (co, ci, 3, 3)).astype(dtype)
    desc = conv_desc(tensor(data_type, [n, ci, h, w], [h * w * ci, 1, w * ci, ci]), tensor(data_type, [co, ci, 3, 3]),
                     None, tensor(data_type, [n, co, h, w]), start=[1, 1], end=[1, 1])
    got = run_operator(device, desc, {"InputTensor": x, "FilterTensor": f})["OutputTensor"]
    expected, bound, terms = conv_loops(x, f, None, backward=False, flip=False, strides=[1, 1], dilations=[1, 1],
                                        start=[1, 1], output_padding=[0, 0], groups=1, out_sizes=(n, co, h, w))
    report = compare_ulps(got, expected, dtype, 1 if data_type == F16 else terms + 2, bound)
    assert report.ok, report.describe("OutputTensor")


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("layout", ["NHWC", "NCHW-padded-rows"])
def test_1x1_gemm_over_strided_views(device, data_type, layout):
    """A 1 x 1 convolution runs as a GEMM over views of its tensors: NHWC input and output (the positions one run of
    stride C: B gathered), or NCHW with padded rows (H stride W + 2: not one run, the direct kernel); a bias
    broadcast through strides; special values: +inf in one input channel times a zero weight gives NaN in every
    output channel at that position, -0 inputs with +0 bias stay +0."""
    rng = np.random.default_rng(11)
    dtype = NUMPY[data_type]
    n, ci, co, h, w = 2, 3, 10, 3, 6
    x = rng.uniform(-1, 1, (n, ci, h, w)).astype(dtype)
    f = rng.uniform(-1, 1, (co, ci, 1, 1)).astype(dtype)
    bias = rng.uniform(-1, 1, co).astype(dtype)
    x[1, 2, 2, 5], f[:, 2] = np.inf, 0.0
    x[0, :, 0, 0], bias[0] = -0.0, 0.0
    if layout == "NHWC":
        x_strides, y_strides = [h * w * ci, 1, w * ci, ci], [h * w * co, 1, w * co, co]
    else:
        x_strides, y_strides = [ci * h * (w + 2), h * (w + 2), w + 2, 1], [co * h * w, h * w, w, 1]
    desc = conv_desc(tensor(data_type, [n, ci, h, w], x_strides), tensor(data_type, [co, ci, 1, 1]),
                     tensor(data_type, [1, co, 1, 1], [0, 1, 0, 0]), tensor(data_type, [n, co, h, w], y_strides))
    got = run_operator(device, desc, {"InputTensor": x, "FilterTensor": f, "BiasTensor": bias})["OutputTensor"]
    with np.errstate(invalid="ignore"):
        expected, bound, terms = conv_loops(x, f, bias, backward=False, flip=False, strides=[1, 1],
                                            dilations=[1, 1], start=[0, 0], output_padding=[0, 0], groups=1,
                                            out_sizes=(n, co, h, w))
    assert np.isnan(got[1, :, 2, 5]).all() and np.isnan(expected[1, :, 2, 5]).all()
    assert got[0, 0, 0, 0] == 0 and not np.signbit(got[0, 0, 0, 0])
    report = compare_ulps(got, expected, dtype, 1 if data_type == F16 else terms + 2, bound)
    assert report.ok, report.describe("OutputTensor")


@pytest.mark.parametrize(("side", "channels"), [(3, 1), (16, 16)], ids=["small", "packed"])
@pytest.mark.parametrize("mode", [XCORR, CONV], ids=["XCORR", "CONV"])
def test_infinite_filter_weight_next_to_the_padding(device, mode, side, channels):
    check_infinite_filter_weight(device, mode, side, channels)


@pytest.mark.parametrize("mode", [XCORR, CONV], ids=["XCORR", "CONV"])
def test_infinite_filter_weight_on_every_launch_shape(shaped_device, mode):
    """The same on every launch shape: GPU shapes take im2col + GEMM and the non-finite flag here."""
    check_infinite_filter_weight(shaped_device, mode, 3, 1)


def check_infinite_filter_weight(device, mode, side, channels):
    """The GEMM paths keep the padding decision (reference.py: a tap over the padding adds nothing): a 3 x 3 filter,
    padding 1, whose corner weight is +inf, on a side x side input of ones (16 x 16 with 16 output channels reaches
    CPU devices' packed path; 3 x 3, GPU devices' im2col + GEMM). Expected by hand: output (0, 0)'s window puts the
    inf tap (XCORR: tap (0, 0); CONV reads the filter reversed, so tap (2, 2) meets weight [0][0]) over the padding
    for XCORR, so the sum is finite; every output where that tap reads an input of 1 is +inf."""
    x = np.ones((1, 1, side, side), np.float32)
    w = np.zeros((channels, 1, 3, 3), np.float32)
    w[:, 0, 0, 0], w[:, 0, 1, 1] = np.inf, 0.5
    desc = conv_desc(tensor(F32, [1, 1, side, side]), tensor(F32, [channels, 1, 3, 3]), None,
                     tensor(F32, [1, channels, side, side]), mode=mode, start=[1, 1], end=[1, 1])
    got = run_operator(device, desc, {"InputTensor": x, "FilterTensor": w})["OutputTensor"][0]
    # XCORR: output (i, j) reads input (i - 1 + a, j - 1 + b) through weight [a][b]; weight [0][0] reads (i-1, j-1),
    # inside for i, j >= 1. CONV: weight [0][0] multiplies tap (2, 2), input (i + 1, j + 1), inside for i, j <= side-2.
    inside = np.zeros((side, side), bool)
    if mode == XCORR:
        inside[1:, 1:] = True
    else:
        inside[:-1, :-1] = True
    np.testing.assert_array_equal(got, np.broadcast_to(np.where(inside, np.inf, 0.5), got.shape))


def test_onnx_conv_node_cases(device):
    """onnx's Conv node cases mapped as onnxruntime's DirectML provider maps them: X and W as they are, ``pads``
    [begin..., end...] as StartPadding/EndPadding, ``auto_pad`` SAME_LOWER as the padding the provider computes
    (total = (ceil(in / stride) - 1) * stride + dilated kernel - in, the larger half first), strides, dilations and
    group as given, CROSS_CORRELATION; expected values: onnx's, within T + 2 ulps of the loops' magnitude bound.
    Every Conv case onnx generates maps (none is listed as unmappable); they take the im2col + GEMM path on CPU
    devices."""
    from onnx_node_cases import node_attributes, node_cases

    cases = node_cases("Conv")
    assert len(cases) >= 6, [c.name for c in cases]
    for case in cases:
        attributes = node_attributes(case)
        inputs, (expected,) = case.data_sets[0]
        x, w, bias = (*inputs, None)[:3]
        spatial = x.ndim - 2
        strides = list(attributes.get("strides", [1] * spatial))
        dilations = list(attributes.get("dilations", [1] * spatial))
        pads = list(attributes.get("pads", [0] * 2 * spatial))
        if attributes.get("auto_pad", "NOTSET") in ("SAME_LOWER", "SAME_UPPER"):
            pads = [0] * 2 * spatial
            for i in range(spatial):
                extent = (w.shape[2 + i] - 1) * dilations[i] + 1
                total = max((-(-x.shape[2 + i] // strides[i]) - 1) * strides[i] + extent - x.shape[2 + i], 0)
                lower = attributes["auto_pad"] == "SAME_LOWER"
                pads[i] = (total + 1) // 2 if lower else total // 2
                pads[spatial + i] = total - pads[i]
        groups = int(attributes.get("group", 1))
        desc = conv_desc(tensor(F32, x.shape), tensor(F32, w.shape),
                         None if bias is None else tensor(F32, (1, w.shape[0], *(1,) * spatial)),
                         tensor(F32, expected.shape), strides=strides, dilations=dilations, start=pads[:spatial],
                         end=pads[spatial:], groups=groups)
        got = run_operator(device, desc, {"InputTensor": x, "FilterTensor": w,
                                          **({"BiasTensor": bias} if bias is not None else {})})["OutputTensor"]
        _, bound, terms = conv_loops(x, w, bias, backward=False, flip=False, strides=strides, dilations=dilations,
                                     start=pads[:spatial], output_padding=[0] * spatial, groups=groups,
                                     out_sizes=expected.shape)
        report = compare_ulps(got, expected, np.float32, terms + 2, bound)
        assert report.ok, f"{case.name}: {report.describe('OutputTensor')}"


# CPU targets: the row kernel (cheaper than unfolding where GEMM's packed path is not taken); GPU targets: im2col into
# the temporary resource, the filter's non-finite flag, one GEMM, the direct kernel where the flag is set
UNFOLD = (["convolution_rows"], ["im2col", "nonfinite", "gemm", "convolution"])
PACKED = ["gemm_pack", "im2col_pack", "nonfinite_panels", "gemm_packed", "convolution_rows"]
PLANNED = {  # the planner's choice per case (the operator's docstring): (CPU target, GPU target); GPU: gemm_blocked
    # -> gemm at these sizes
    "2d-forward-1x1-gemm": ["gemm_blocked"], "1d-forward-1x1-gemm": ["gemm_blocked"],  # pointwise: one GEMM
    # FORWARD, one group, no OutputPadding, too small to pack
    "1d-forward-strided-padded": UNFOLD, "1d-forward-dilated": UNFOLD, "2d-forward-1x1-strided": UNFOLD,
    "2d-forward-1x1-padded": UNFOLD, "3d-forward": UNFOLD,
    # large enough for GEMM's packed path on CPU devices: the filter packed, the input unfolded into B panels,
    # gemm_packed; the flag and recompute where a window reads padding. GPU targets: im2col + gemm_tiled, or the
    # 1 x 1 GEMM over views
    "2d-forward-packed-padded": (PACKED, ["im2col", "nonfinite", "gemm_tiled", "convolution"]),
    "2d-forward-packed-1x1": (["gemm_pack", "gemm_pack", "gemm_packed"], ["gemm_tiled"]),  # B: the input itself
    "3d-forward-packed-strided-dilated": (PACKED, ["im2col", "nonfinite", "gemm_tiled", "convolution"]),
    "2d-forward-packed-stride2": (PACKED, ["im2col", "nonfinite", "gemm_tiled", "convolution"]),
    # FORWARD with groups, no OutputPadding: CPU devices' row kernel; GPU targets the direct kernel
    "2d-forward-groups-dilation": (["convolution_rows"], ["convolution"]),
    "2d-depthwise-multiplier": (["convolution_rows"], ["convolution"]),
    "2d-forward-1x1-groups": (["convolution_rows"], ["convolution"]),
    "2d-depthwise-wide": (["convolution_rows"], ["convolution"]),
    "2d-groups-strided-dilated-wide": (["convolution_rows"], ["convolution"]),
    "3d-groups-rows": (["convolution_rows"], ["convolution"]),
    "2d-rows-channel-blocks-wide": (["convolution_rows"], ["convolution"]),
    "2d-rows-narrow-blocks": UNFOLD,
    "2d-rows-strided-wide-full-set": (["convolution_rows"], ["convolution"]),
    "2d-depthwise-dilated-rows": (["convolution_rows"], ["convolution"]),
    "3d-depthwise-rows": (["convolution_rows"], ["convolution"]),
    "2d-depthwise-h-stride2": (["convolution_rows"], ["convolution"]),
    "2d-depthwise-rows-inside": (["convolution_rows"], ["convolution"]),
    "2d-rows-blocks-inside": (["convolution_rows"], ["convolution"]),
    "2d-depthwise-dilated-inside": (["convolution_rows"], ["convolution"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_planner_choice(ref_device, name):
    """The planner's choice (the operator's docstring). CPU devices: a FORWARD convolution of one group without
    OutputPadding whose GEMM is large enough (GEMM's own threshold): the packed path; else 1 x 1, unit strides, no
    padding: one GEMM over views; else FORWARD without OutputPadding: the row kernel. GPU devices: the GEMM over
    views, else im2col + GEMM (FORWARD, one group, no OutputPadding). The rest (OutputPadding, BACKWARD, GPU
    groups): the direct kernel."""
    direction, mode, x_sizes, f_sizes, strides, dilations, start, end, output_padding, groups, has_bias = CASES[name]
    out_sizes = out_sizes_for(direction, x_sizes, f_sizes, strides, dilations, start, end, output_padding, groups,
                              PAST_FORMULA.get(name))
    desc = conv_desc(tensor(F32, x_sizes), tensor(F32, f_sizes),
                     tensor(F32, (1, out_sizes[1], *(1,) * (len(x_sizes) - 2))) if has_bias else None,
                     tensor(F32, out_sizes), mode=mode, direction=direction, strides=strides, dilations=dilations,
                     start=start, end=end, output_padding=output_padding, groups=groups)
    expected = PLANNED.get(name, ["convolution"])
    cpu, gpu = expected if isinstance(expected, tuple) else (expected, [{"gemm_blocked": "gemm"}.get(e, e)
                                                                        for e in expected])
    assert planned_entries(ref_device, desc, True) == cpu
    assert planned_entries(ref_device, desc, False) == gpu


@pytest.mark.parametrize("vectorizes_items", [False, True])
def test_row_kernel_work_items(ref_device, vectorizes_items):
    """The row kernel's launch for 2 images x 2 groups of 11 channels (blocks of 8 and 3) x 4 rows of 32: one work-item
    per row of a block, 16 outputs at a time, also where the compiler makes neighbouring work-items SIMD lanes
    (Intel's CPU runtime, LaunchTarget.vectorizes_items: the kernel's lanes are explicit vectors)."""
    direction, mode, x_sizes, f_sizes, strides, dilations, start, end, output_padding, groups, _ = \
        CASES["2d-rows-channel-blocks-wide"]
    out_sizes = out_sizes_for(direction, x_sizes, f_sizes, strides, dilations, start, end, output_padding, groups)
    desc = conv_desc(tensor(F32, x_sizes), tensor(F32, f_sizes), None, tensor(F32, out_sizes), mode=mode,
                     direction=direction, strides=strides, dilations=dilations, start=start, end=end,
                     output_padding=output_padding, groups=groups)
    (launch,) = planned_launches(ref_device, desc, LaunchTarget(True, 2, vectorizes_items))
    assert launch.entry == "convolution_rows"
    assert launch.geometry.count == 2 * 2 * 4 * 2
    assert (launch.defines["RW"], launch.defines["OCB"]) == (16, 8)


def test_depthwise_rows_on_every_cpu(ref_device):
    """A depthwise layer (one channel a block) runs by rows also where work-items are SIMD lanes, 16 outputs at a time
    for rows of 24 on both kinds of CPU device."""
    direction, mode, x_sizes, f_sizes, strides, dilations, start, end, output_padding, groups, _ = \
        CASES["2d-depthwise-wide"]
    out_sizes = out_sizes_for(direction, x_sizes, f_sizes, strides, dilations, start, end, output_padding, groups)
    desc = conv_desc(tensor(F32, x_sizes), tensor(F32, f_sizes), None, tensor(F32, out_sizes), mode=mode,
                     direction=direction, strides=strides, dilations=dilations, start=start, end=end,
                     output_padding=output_padding, groups=groups)
    for vectorizes_items in (False, True):
        (launch,) = planned_launches(ref_device, desc, LaunchTarget(True, 2, vectorizes_items))
        assert (launch.defines["OCB"], launch.defines["RW"]) == (1, 16)


@pytest.mark.parametrize(("name", "rows", "work_items"), [
    ("2d-depthwise-wide", 8, 2 * 3),  # 2 images x 3 channels x one set of rows (5 of 8)
    ("2d-depthwise-dilated-rows", 8, 2 * 2),  # 11 rows: 8 + 3
    ("3d-depthwise-rows", 8, 2 * 3),  # 2 channels x 3 depths x one set (6 of 8)
    ("2d-depthwise-h-stride2", 1, 2 * 4),  # H stride 2: a row a work-item
    ("2d-rows-channel-blocks-wide", 1, 2 * 2 * 2 * 4),  # blocks of several channels: a row a work-item
])
def test_depthwise_rows_go_eight_output_rows_a_work_item(ref_device, name, rows, work_items):
    """Where a block is one channel and the H stride 1, a work-item runs 8 output rows (RH), each input row read
    once for all of them (KH and DH then build constants)."""
    direction, mode, x_sizes, f_sizes, strides, dilations, start, end, output_padding, groups, _ = CASES[name]
    out_sizes = out_sizes_for(direction, x_sizes, f_sizes, strides, dilations, start, end, output_padding, groups)
    desc = conv_desc(tensor(F32, x_sizes), tensor(F32, f_sizes), None, tensor(F32, out_sizes), mode=mode,
                     direction=direction, strides=strides, dilations=dilations, start=start, end=end,
                     output_padding=output_padding, groups=groups)
    (launch,) = planned_launches(ref_device, desc, LaunchTarget(True, 2))
    assert launch.defines["RH"] == rows and launch.geometry.count == work_items
    if rows > 1:
        assert (launch.defines["KH"], launch.defines["DH"]) == (f_sizes[-2], dilations[-2])


@pytest.mark.parametrize(("name", "temporary"), [
    # packed: filter panels 3 x 8 rows x K 45 (once), input panels 2 images x 3 x 32 columns x 45, float32, then
    # one FLOAT32 flag: (1080 + 8640) x 4 + 4; more than im2col's (2 x 45 x 72 + 1) x 4 = 25924
    ("2d-forward-packed-padded", (3 * 8 * 45 + 2 * 3 * 32 * 45) * 4 + 4),
    # 1 x 1: no im2col workspace (GPUs run the GEMM over views); panels 3 x 8 x 41 + 2 x 2 x 32 x 41, and the flag
    ("2d-forward-packed-1x1", (3 * 8 * 41 + 2 * 2 * 32 * 41) * 4 + 4),
    ("1d-forward-strided-padded", (2 * 9 * 5 + 1) * 4),  # too small to pack: im2col's workspace and flag
], ids=["packed-padded", "packed-1x1", "im2col"])
def test_temporary_size(ref_device, name, temporary):
    """TemporaryResourceSize covers the larger of the paths the planner may take (decided from the desc alone)."""
    direction, mode, x_sizes, f_sizes, strides, dilations, start, end, output_padding, groups, has_bias = CASES[name]
    out_sizes = out_sizes_for(direction, x_sizes, f_sizes, strides, dilations, start, end, output_padding, groups)
    desc = conv_desc(tensor(F32, x_sizes), tensor(F32, f_sizes),
                     tensor(F32, (1, out_sizes[1], *(1,) * (len(x_sizes) - 2))) if has_bias else None,
                     tensor(F32, out_sizes), mode=mode, direction=direction, strides=strides, dilations=dilations,
                     start=start, end=end, output_padding=output_padding, groups=groups)
    compiled = ref_device.CompileOperator(ref_device.CreateOperator(desc), 0)
    assert compiled.GetBindingProperties().TemporaryResourceSize == temporary


# --- ONNX's ConvTranspose through the desc onnxruntime's DirectML provider builds --------------------------
def provider_desc(x_sizes, w_sizes, has_bias, *, strides, dilations, pads, output_padding, groups=1):
    """DmlOperatorConvolution's desc for an ONNX ConvTranspose: StartPadding/EndPadding from ``pads``,
    OutputPadding zeroed, the output sized by the transposed formula plus ONNX's ``output_padding``."""
    spatial = len(x_sizes) - 2
    start, end = pads[:spatial], pads[spatial:]
    out = out_sizes_for(BACKWARD, x_sizes, w_sizes, strides, dilations, start, end, [0] * spatial, groups,
                        output_padding)
    bias = tensor(F32, (1, out[1], *(1,) * spatial)) if has_bias else None
    return conv_desc(tensor(F32, x_sizes), tensor(F32, w_sizes), bias, tensor(F32, out), direction=BACKWARD,
                     strides=strides, dilations=dilations, start=start, end=end, output_padding=[0] * spatial,
                     groups=groups), out


def onnx_conv_transpose(x, w, bias, **attributes):
    """onnx.reference's ConvTranspose in float64. Group 1 only: its grouped path slices W by output channel
    (the loops above cover groups)."""
    pytest.importorskip("onnx", reason="onnx is not installed (pip install 'dmlsim[test]'): the onnx.reference "
                                       "cross-check of the provider's ConvTranspose desc cannot run")
    from onnx import TensorProto, helper, reference

    double = TensorProto.DOUBLE
    names = ["X", "W"] + (["B"] if bias is not None else [])
    graph = helper.make_graph([helper.make_node("ConvTranspose", names, ["Y"], **attributes)], "conv_transpose",
                              [helper.make_tensor_value_info(n, double, None) for n in names],
                              [helper.make_tensor_value_info("Y", double, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    feeds = dict(zip(names, [np.asarray(a, np.float64) for a in (x, w, bias) if a is not None], strict=True))
    return reference.ReferenceEvaluator(model).run(None, feeds)[0]


ONNX_CASES = {
    # name: (x sizes, w sizes, strides, dilations, pads, output_padding, bias)
    "1d": ((2, 3, 5), (3, 2, 3), [2], [1], [1, 1], [1], True),
    "1d-dilated": ((1, 2, 4), (2, 3, 2), [3], [2], [0, 2], [2], False),
    "2d": ((1, 2, 4, 3), (2, 3, 3, 3), [2, 3], [1, 1], [1, 0, 2, 1], [1, 2], True),
    "2d-dilated": ((2, 1, 3, 4), (1, 2, 2, 3), [2, 2], [2, 1], [0, 1, 1, 0], [1, 0], True),
    "3d": ((1, 2, 2, 3, 2), (2, 2, 2, 2, 3), [2, 1, 2], [1, 2, 1], [1, 0, 0, 0, 1, 1], [1, 0, 1], True),
}


@pytest.mark.parametrize("name", list(ONNX_CASES))
def test_onnx_conv_transpose_through_the_provider_desc(device, name):
    """ONNX's output_padding positions hold the transposed sums (onnx.reference), and so does the output the
    provider asks for with OutputPadding zeroed (the desc dmlsim once refused). Magnitude bound: the same
    ConvTranspose of |x|, |w|, |bias|."""
    x_sizes, w_sizes, strides, dilations, pads, output_padding, has_bias = ONNX_CASES[name]
    desc, out = provider_desc(x_sizes, w_sizes, has_bias, strides=strides, dilations=dilations, pads=pads,
                              output_padding=output_padding)
    rng = np.random.default_rng(len(name) + 40)
    x = rng.uniform(-1, 1, x_sizes).astype(np.float32)
    w = rng.uniform(-1, 1, w_sizes).astype(np.float32)
    bias = rng.uniform(-1, 1, out[1]).astype(np.float32) if has_bias else None
    attributes = {"strides": strides, "dilations": dilations, "pads": pads, "output_padding": output_padding}
    expected = onnx_conv_transpose(x, w, bias, **attributes)
    bound = onnx_conv_transpose(np.abs(x), np.abs(w), None if bias is None else np.abs(bias), **attributes)
    assert expected.shape == tuple(out)
    inputs = {"InputTensor": x, "FilterTensor": w, **({"BiasTensor": bias} if has_bias else {})}
    got = run_operator(device, desc, inputs)["OutputTensor"]
    terms = x_sizes[1] * int(np.prod(w_sizes[2:])) + 1
    report = compare_ulps(got, expected, np.float32, terms + 2, bound)
    assert report.ok, report.describe("OutputTensor")


def test_onnxruntime_conv_transpose_2d_literals(device):
    """onnxruntime's own test ConvTranspose_2D (conv_transpose_op_test.cc: pads 1, strides 2, output_padding
    1, a 3x3 input and filter; its 6x6 expected values transcribed), run as its DirectML provider sends it:
    StartPadding = EndPadding = 1, OutputPadding 0, a 6x6 output where the formula gives 5x5."""
    x = [0.16857791, -0.15161794, 0.08540368, 0.1820628, -0.21746576, 0.08245695, 0.1431433, -0.43156421,
         0.30591947]
    w = [-0.06230065, 0.37932432, -0.25388849, 0.33878803, 0.43709868, -0.22477469, 0.04118127, -0.44696793,
         0.06373066]
    expected = [0.07368518, -0.08925839, -0.06627201, 0.06301362, 0.03732984, -0.01919658,
                -0.00628807, -0.02817563, -0.01472169, 0.04392925, -0.00689478, -0.01549204,
                0.07957941, -0.11459791, -0.09505399, 0.07681622, 0.03604182, -0.01853423,
                -0.0270785, -0.00680824, -0.06650258, 0.08004665, 0.07918708, -0.0724144,
                0.06256775, -0.17838378, -0.18863615, 0.20064656, 0.133717, -0.06876295,
                -0.06398046, -0.00864975, 0.19289537, -0.01490572, -0.13673618, 0.01949645]
    desc, out = provider_desc((1, 1, 3, 3), (1, 1, 3, 3), False, strides=[2, 2], dilations=[1, 1],
                              pads=[1, 1, 1, 1], output_padding=[1, 1])
    assert out == (1, 1, 6, 6)
    got = run_operator(device, desc, {"InputTensor": np.array(x, np.float32),
                                      "FilterTensor": np.array(w, np.float32)})["OutputTensor"]
    # the literals are rounded at 1e-8; float32 sums of at most 4 terms below 0.5 err by under 1e-7
    np.testing.assert_allclose(got.reshape(-1), expected, rtol=0, atol=5e-7)


@pytest.mark.parametrize("name", ["2d-backward-provider-and-output-padding", "2d-rows-narrow-blocks"])
def test_binding_offsets(device, name):
    """Every tensor at a non-zero offset of one shared buffer: the same numbers as the loops, and the bytes around
    the output left alone. The provider's desc with a non-zero OutputPadding, and (CPU devices) the row kernel's
    last block of channels, most of whose clamped channels lie past the output's last and store nothing."""
    direction, mode, x_sizes, f_sizes, strides, dilations, start, end, output_padding, groups, _ = CASES[name]
    out_sizes = out_sizes_for(direction, x_sizes, f_sizes, strides, dilations, start, end, output_padding, groups,
                              PAST_FORMULA.get(name))
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, x_sizes).astype(np.float32)
    w = rng.uniform(-1, 1, f_sizes).astype(np.float32)
    bias = rng.uniform(-1, 1, out_sizes[1]).astype(np.float32)
    bias_sizes = (1, out_sizes[1], 1, 1)
    desc = conv_desc(tensor(F32, x_sizes), tensor(F32, f_sizes), tensor(F32, bias_sizes), tensor(F32, out_sizes),
                     mode=mode, direction=direction, strides=strides, dilations=dilations, start=start, end=end,
                     output_padding=output_padding, groups=groups)
    offsets, at = {}, 48
    for field, sizes in (("InputTensor", x_sizes), ("FilterTensor", f_sizes), ("BiasTensor", bias_sizes),
                         ("OutputTensor", out_sizes)):
        offsets[field] = at
        at += -(-dml.DMLCalcBufferTensorSize(F32, len(sizes), sizes, None) // 16) * 16 + 32
    shared = device.CreateBuffer(at)
    shared.Write(bytes([0xA5]) * at)
    dispatch = Dispatch(device, desc, placement={field: (shared, offset) for field, offset in offsets.items()})
    dispatch.load({"InputTensor": x, "FilterTensor": w, "BiasTensor": bias})
    dispatch.execute()
    got = dispatch.read("OutputTensor")
    expected, bound, terms = conv_loops(x, w, bias, backward=direction == BACKWARD, flip=mode == CONV,
                                        strides=strides, dilations=dilations, start=start,
                                        output_padding=output_padding, groups=groups, out_sizes=out_sizes)
    report = compare_ulps(got, expected, np.float32, terms + 2, bound)
    assert report.ok, report.describe("OutputTensor")
    end_of_output = offsets["OutputTensor"] + int(np.prod(out_sizes)) * 4
    assert shared.Read(end_of_output, at - end_of_output) == bytes([0xA5]) * (at - end_of_output)
    gap = offsets["OutputTensor"] - 32
    assert shared.Read(gap, 32) == bytes([0xA5]) * 32


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
     "OutputTensor.Sizes [1, 1, 4]: the spatial sizes must be at least [6] ((in - 1) * stride"),
    (conv_desc(T(F32, [1, 1, 3, 3]), T(F32, [1, 1, 2, 2]), None, T(F32, [1, 1, 9, 5]), direction=BACKWARD,
               strides=[2, 2], output_padding=[1, 1]),
     "OutputTensor.Sizes [1, 1, 9, 5]: the spatial sizes must be at least [7, 7]"),
    (conv_desc(T(F32, [1, 1, 5]), T(F32, [1, 1, 2]), None, T(F32, [1, 1, 3]), strides=[2]),
     "OutputTensor.Sizes [1, 1, 3]: the spatial sizes must be [2] ((in + StartPadding"),
    # onnxruntime's desc for ConvTranspose with output_shape [4] and dilations [2] (in 3, kernel 2): it computes
    # the paddings from the undilated kernel, (3 - 1) + 2 - 4 = 0, so the output is smaller than the formula
    (conv_desc(T(F32, [1, 1, 3]), T(F32, [1, 1, 2]), None, T(F32, [1, 1, 4]), direction=BACKWARD, dilations=[2]),
     "OutputTensor.Sizes [1, 1, 4]: the spatial sizes must be at least [5]"),
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
    # two groups (the direct kernel, not a GEMM path): [1, -2, 3] and [-1, -1, 2] with [1, 1] each are
    # [-1, 1] and [-2, 1]; the RELU zeroes the negatives
    desc = conv_desc(T(F32, [1, 2, 3]), T(F32, [2, 1, 2]), None, T(F32, [1, 2, 2]), groups=2, fused=relu)
    got = run_operator(device, desc, {"InputTensor": np.array([1, -2, 3, -1, -1, 2], np.float32).reshape(1, 2, 3),
                                      "FilterTensor": np.ones((2, 1, 2), np.float32)})["OutputTensor"]
    np.testing.assert_array_equal(got.ravel(), [0, 1, 0, 1])


def test_registered():
    from dmlsim.operators import implemented_names

    assert "DML_OPERATOR_CONVOLUTION" in implemented_names()
