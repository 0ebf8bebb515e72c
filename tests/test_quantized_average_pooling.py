"""DirectML's QUANTIZED_LINEAR_AVERAGE_POOLING (dmlsim/operators/pooling), on every adapter.

Expected values are literals worked out by hand (each test's docstring) or the page's dequantize / average / quantize
written out here as loops in float32 (``quantized_loops``: one element and one tap at a time, the sum in tap order,
one correctly rounded division, round half to even, the zero point added, saturated), never dmlsim's reference. The
outputs are integers: exact on every device.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from datamove_support import F16, F32, I8, I16, NUMPY, U8, operator, refused, run, tensor, type_id

f32 = np.float32
LIMITS = {I8: (-128, 127), U8: (0, 255)}


def q_desc(x, out, window, strides=None, start=None, end=None, dilations=None, include_padding=False,
           in_scale=None, in_zero=None, out_scale=None, out_zero=None):
    spatial = len(window)
    return operator("QUANTIZED_LINEAR_AVERAGE_POOLING", InputTensor=x,
                    InputScaleTensor=in_scale or tensor(F32, [1] * (spatial + 2)), InputZeroPointTensor=in_zero,
                    OutputScaleTensor=out_scale or tensor(F32, [1] * (spatial + 2)), OutputZeroPointTensor=out_zero,
                    OutputTensor=out, DimensionCount=spatial, Strides=list(strides or [1] * spatial),
                    WindowSize=list(window), StartPadding=list(start or [0] * spatial),
                    EndPadding=list(end or [0] * spatial), Dilations=list(dilations or [1] * spatial),
                    IncludePadding=include_padding)


def quantized_loops(x, s_in, z_in, s_out, z_out, window, strides, start, dilations, out_spatial, include_padding,
                    limits):
    """Per-channel arrays s_in, z_in, s_out, z_out of length C (per tensor: repeated)."""
    x = np.asarray(x)
    out = np.zeros((*x.shape[:2], *out_spatial), np.int64)
    for index in np.ndindex(out.shape):
        n, c, *o = index
        total, read = f32(0), 0
        for tap in itertools.product(*(range(k) for k in window)):
            pos = [o[i] * strides[i] + tap[i] * dilations[i] - start[i] for i in range(len(o))]
            if all(0 <= p < s for p, s in zip(pos, x.shape[2:], strict=True)):
                total = f32(total + f32(f32(f32(x[(n, c, *pos)]) - f32(z_in[c])) * f32(s_in[c])))
                read += 1
        divisor = int(np.prod(window)) if include_padding else read
        mean = f32(total / f32(divisor)) if read else f32(0)
        with np.errstate(all="ignore"):
            q = f32(np.rint(f32(mean / f32(s_out[c]))) + f32(z_out[c]))
        out[index] = 0 if np.isnan(q) else int(np.clip(q, *limits))
    return out


def test_ties_round_to_even_by_hand(device):
    """INT8 [-3, 5, 2, 1, 7, 1, 5, 2], scale 0.5, zero point 1: dequantized [-2, 2, 0.5, 0, 3, 0, 2, 0.5]; windows
    of 2 at stride 2 average to 0, 0.25, 1.5, 1.25; over the output scale 0.5: 0, 0.5, 3, 2.5, rounded half to even
    0, 0, 3, 2 (half up would give 1 and 3), plus the output zero point -2: [-2, -2, 1, 0]."""
    x = np.array([-3, 5, 2, 1, 7, 1, 5, 2], np.int8).reshape(1, 1, 1, 8)
    desc = q_desc(tensor(I8, [1, 1, 1, 8]), tensor(I8, [1, 1, 1, 4]), [1, 2], strides=[1, 2],
                  in_zero=tensor(I8, [1, 1, 1, 1]), out_zero=tensor(I8, [1, 1, 1, 1]))
    got = run(device, desc, InputTensor=x, InputScaleTensor=np.full((1, 1, 1, 1), 0.5, np.float32),
              InputZeroPointTensor=np.ones((1, 1, 1, 1), np.int8),
              OutputScaleTensor=np.full((1, 1, 1, 1), 0.5, np.float32),
              OutputZeroPointTensor=np.full((1, 1, 1, 1), -2, np.int8))["OutputTensor"]
    np.testing.assert_array_equal(got.reshape(-1), [-2, -2, 1, 0])


@pytest.mark.parametrize("include_padding", [False, True], ids=["counted", "include-padding"])
def test_per_channel_and_padding_by_hand(device, include_padding):
    """UINT8 {1, 2, 1, 3}, per-channel scales [1, 2] and zero points [10, 20]; windows of 2, StartPadding 1:
    [p, a], [a, b], [b, c]. Channel 0 [12, 14, 18] is [2, 4, 8]: means 2, 3, 6 (with IncludePadding the first is
    2 / 2 = 1); channel 1 [21, 25, 20] is [2, 10, 0]: means 2, 6, 5 (or 1 first). INT8 output, scale 1, no zero point.
    A third run: output scale 0.03125 saturates 6 / 0.03125 = 192 to 127."""
    x = np.array([12, 14, 18, 21, 25, 20], np.uint8).reshape(1, 2, 1, 3)
    desc = q_desc(tensor(U8, [1, 2, 1, 3]), tensor(I8, [1, 2, 1, 3]), [1, 2], start=[0, 1],
                  include_padding=include_padding, in_scale=tensor(F32, [1, 2, 1, 1]),
                  in_zero=tensor(U8, [1, 2, 1, 1]))
    inputs = {"InputTensor": x, "InputScaleTensor": np.array([1, 2], np.float32).reshape(1, 2, 1, 1),
              "InputZeroPointTensor": np.array([10, 20], np.uint8).reshape(1, 2, 1, 1),
              "OutputScaleTensor": np.ones((1, 1, 1, 1), np.float32)}
    got = run(device, desc, **inputs)["OutputTensor"].reshape(2, 3)
    first = 1 if include_padding else 2
    np.testing.assert_array_equal(got, [[first, 3, 6], [first, 6, 5]])
    inputs["OutputScaleTensor"] = np.full((1, 1, 1, 1), 0.03125, np.float32)
    got = run(device, desc, **inputs)["OutputTensor"].reshape(2, 3)
    assert got[0, 2] == 127 and got[1, 1] == 127


@pytest.mark.parametrize(("in_type", "out_type", "sizes", "window", "strides", "start", "end", "dilations", "pad",
                          "per_channel"), [
    (I8, I8, (2, 3, 5, 6), (2, 3), (1, 2), (1, 0), (0, 2), (1, 1), False, True),
    (U8, I8, (1, 2, 3, 4, 5), (2, 2, 3), (2, 1, 2), (0, 1, 2), (1, 0, 1), (1, 1, 1), True, False),
    (I8, U8, (1, 2, 6, 7), (3, 2), (2, 2), (2, 1), (2, 1), (2, 3), False, False),
], ids=["4d-per-channel", "5d-include-padding", "4d-dilated"])
def test_matches_the_pages_formulas(device, in_type, out_type, sizes, window, strides, start, end, dilations, pad,
                                    per_channel):
    rng = np.random.default_rng(sum(sizes))
    lo, hi = LIMITS[in_type]
    x = rng.integers(lo, hi + 1, sizes).astype(NUMPY[in_type])
    channels, rank = sizes[1], len(sizes)
    count = channels if per_channel else 1
    s_in = rng.uniform(0.01, 0.1, count).astype(np.float32)
    z_in = rng.integers(lo, hi + 1, count).astype(NUMPY[in_type])
    s_out = rng.uniform(0.01, 0.2, count).astype(np.float32)
    z_out = rng.integers(*LIMITS[out_type], count).astype(NUMPY[out_type])
    shape = [1, count] + [1] * (rank - 2)
    out_spatial = tuple((s + a + b - (k - 1) * d - 1) // st + 1
                        for s, a, b, k, d, st in zip(sizes[2:], start, end, window, dilations, strides, strict=True))
    desc = q_desc(tensor(in_type, sizes), tensor(out_type, (*sizes[:2], *out_spatial)), window, strides, start, end,
                  dilations, pad, tensor(F32, shape), tensor(in_type, shape), tensor(F32, shape),
                  tensor(out_type, shape))
    got = run(device, desc, InputTensor=x, InputScaleTensor=s_in.reshape(shape),
              InputZeroPointTensor=z_in.reshape(shape), OutputScaleTensor=s_out.reshape(shape),
              OutputZeroPointTensor=z_out.reshape(shape))["OutputTensor"]
    s_in, z_in, s_out, z_out = (np.resize(a, channels) for a in (s_in, z_in, s_out, z_out))
    expected = quantized_loops(x, s_in, z_in, s_out, z_out, window, strides, start, dilations, out_spatial, pad,
                               LIMITS[out_type])
    np.testing.assert_array_equal(got, expected.astype(NUMPY[out_type]))


def test_strided_broadcast_input_and_padded_output(device):
    """InputTensor broadcast along N (stride 0) with H and W swapped in memory, a per-channel scale of stride 2 and
    the per-tensor output zero point as a 1-D tensor, the output padded: the same integers as the loops."""
    rng = np.random.default_rng(4)
    x = np.ascontiguousarray(np.broadcast_to(rng.integers(-128, 128, (1, 2, 3, 4)).astype(np.int8), (2, 2, 3, 4)))
    s_in = np.array([0.05, 0.125], np.float32)
    desc = q_desc(tensor(I8, [2, 2, 3, 4], [0, 12, 1, 3]), tensor(I8, [2, 2, 2, 2], [32, 16, 4, 1]), [2, 2],
                  strides=[1, 2], in_scale=tensor(F32, [1, 2, 1, 1], [4, 2, 1, 1]), out_zero=tensor(I8, [1]))
    got = run(device, desc, InputTensor=x, InputScaleTensor=s_in.reshape(1, 2, 1, 1),
              OutputScaleTensor=np.full((1, 1, 1, 1), 0.1, np.float32),
              OutputZeroPointTensor=np.array([3], np.int8))["OutputTensor"]
    expected = quantized_loops(x, s_in, [0, 0], [0.1, 0.1], [3, 3], [2, 2], [1, 2], [0, 0], [1, 1], (2, 2), False,
                               LIMITS[I8])
    np.testing.assert_array_equal(got, expected.astype(np.int8))


def _qa(x=(1, 2, 4, 4), out=(1, 2, 3, 3), types=(I8, I8), window=(2, 2), **kw):
    return q_desc(tensor(types[0], x), tensor(types[1], out), list(window), **kw)


@pytest.mark.parametrize(("desc", "expected"), [
    (_qa(types=(I16, I8)), "InputTensor.DataType INT16 is not supported by DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE"),
    (_qa(types=(I8, F32)), "OutputTensor.DataType FLOAT32 is not supported"),
    (_qa(in_scale=tensor(F16, [1, 1, 1, 1])), "InputScaleTensor.DataType FLOAT16 is not supported"),
    (_qa(in_zero=tensor(U8, [1, 1, 1, 1])), "InputZeroPointTensor.DataType UINT8 must equal InputTensor.DataType INT8"),
    (_qa(types=(I8, U8), out_zero=tensor(I8, [1])), "OutputZeroPointTensor.DataType INT8 must equal OutputTensor"),
    (_qa(x=(1, 2, 4), out=(1, 2, 3), window=(2,)), "InputTensor.DimensionCount 3 is not supported"),
    (_qa(out=(1, 2, 1, 3, 3)), "OutputTensor.DimensionCount 5 must equal InputTensor.DimensionCount 4"),
    (_qa(out_scale=tensor(F32, [1, 3, 1, 1])), "OutputScaleTensor.Sizes [1, 3, 1, 1] must hold one element"),
    (_qa(out=(1, 2, 3, 2)), "OutputTensor.Sizes [1, 2, 3, 2] must be [1, 2, 3, 3]"),
    (_qa(strides=[0, 1]), "Strides[0] must be at least 1, got 0"),
    (_qa(window=(5, 2), out=(1, 2, 1, 3)), "WindowSize[0] 5 with Dilations[0] 1 spans 5 elements"),
], ids=["input-int16", "output-float32", "scale-float16", "input-zero-type", "output-zero-type", "rank-3",
        "rank-mismatch", "scale-sizes", "output-sizes", "stride-0", "window-too-large"])
def test_refusals(ref_device, desc, expected):
    assert expected in refused(ref_device, desc)


@pytest.mark.parametrize("data_type", [I8, U8], ids=type_id)
def test_window_of_only_padding_is_the_zero_point(device, data_type):
    """Width 1, a window of 2 at dilation 2 with StartPadding 1 and EndPadding 1 reads positions -1 and 1 (both
    padding): the mean is 0 and the output the output zero point, 7."""
    desc = q_desc(tensor(data_type, [1, 1, 1, 1]), tensor(data_type, [1, 1, 1, 1]), [1, 2], start=[0, 1],
                  end=[0, 1], dilations=[1, 2], out_zero=tensor(data_type, [1, 1, 1, 1]))
    got = run(device, desc, InputTensor=np.full((1, 1, 1, 1), 100, NUMPY[data_type]),
              InputScaleTensor=np.ones((1, 1, 1, 1), np.float32), OutputScaleTensor=np.ones((1, 1, 1, 1), np.float32),
              OutputZeroPointTensor=np.full((1, 1, 1, 1), 7, NUMPY[data_type]))["OutputTensor"]
    assert got.reshape(-1)[0] == 7
