"""DirectML's pooling gradients (dmlsim/operators/pooling): MAX_POOLING_GRAD and AVERAGE_POOLING_GRAD, on every
adapter.

Expected values are the pages' examples and literals worked out by hand, or an independent scatter written here:
one forward window at a time (its max chosen as the page says, the first of equal values; or its average's divisor),
its gradient added to the input elements it took (never dmlsim's reference, which is cross-checked by the same tests
on the reference device).
Tolerance: an OutputGradientTensor element sums at most T = prod(WindowSize) float32 terms (a max gradient adds the
gradients unchanged; an average gradient divides each once): within T + 2 float32 ulps of the sum of the terms'
magnitudes (compare_ulps' bound); FLOAT16 1 ulp after the half rounding. Sums of small integers are exact.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from datamove_support import F16, F32, F64, I32, NUMPY, operator, refused, run, tensor, type_id

from dmlsim.api.numerics import compare_ulps


def max_grad_desc(x, dy, dx, window, strides=None, start=None, end=None, dilations=None):
    spatial = len(window)
    return operator("MAX_POOLING_GRAD", InputTensor=x, InputGradientTensor=dy, OutputGradientTensor=dx,
                    DimensionCount=spatial, Strides=list(strides or [1] * spatial), WindowSize=list(window),
                    StartPadding=list(start or [0] * spatial), EndPadding=list(end or [0] * spatial),
                    Dilations=list(dilations or [1] * spatial))


def average_grad_desc(dy, dx, window, strides=None, start=None, end=None, include_padding=False):
    spatial = len(window)
    return operator("AVERAGE_POOLING_GRAD", InputGradientTensor=dy, OutputGradientTensor=dx, DimensionCount=spatial,
                    Strides=list(strides or [1] * spatial), WindowSize=list(window),
                    StartPadding=list(start or [0] * spatial), EndPadding=list(end or [0] * spatial),
                    IncludePadding=include_padding)


def scatter_loops(x_shape, dy, window, strides, start, dilations, choose):
    """The gradient one window at a time: ``choose(n, c, positions)`` gives [(position, weight), ...] for the input
    positions (inside the input) the window's taps read; dy times each weight is added there. Returns (sum, bound)."""
    dy = np.asarray(dy, np.float64)
    total, bound = np.zeros(x_shape), np.zeros(x_shape)
    for index in np.ndindex(dy.shape):
        n, c, *o = index
        taps = []
        for tap in itertools.product(*(range(k) for k in window)):
            pos = tuple(o[i] * strides[i] + tap[i] * dilations[i] - start[i] for i in range(len(o)))
            if all(0 <= p < s for p, s in zip(pos, x_shape[2:], strict=True)):
                taps.append(pos)
        for pos, weight in choose(n, c, taps):
            term = dy[index] * weight
            total[(n, c, *pos)] += term
            bound[(n, c, *pos)] += abs(term)
    return total, bound


def first_max(x):
    """The page's choice: the window's largest element, the first (lowest index) of equal ones; NaN ignored unless
    all are NaN (then the first NaN)."""
    def choose(n, c, taps):
        best = None
        for pos in taps:
            v = float(x[(n, c, *pos)])
            if best is None or v > best[1] or (math.isnan(best[1]) and not math.isnan(v)):
                best = (pos, v)
        return [] if best is None else [(best[0], 1.0)]
    return choose


def averaged(window, include_padding):
    def choose(n, c, taps):
        divisor = math.prod(window) if include_padding else len(taps)
        return [(pos, 1.0 / divisor) for pos in taps]
    return choose


def out_spatial(sizes, window, strides, start, end, dilations):
    return tuple((s + a + b - (k - 1) * d - 1) // st + 1
                 for s, a, b, k, d, st in zip(sizes[2:], start, end, window, dilations, strides, strict=True))


# --- the pages' examples and values by hand -----------------------------------------------------------------

@pytest.mark.parametrize("data_type", [F32, F16], ids=type_id)
def test_the_pages_examples(device, data_type):
    """MAX_POOLING_GRAD's page: 2x2 windows at stride 1 over [[1, 2, 3], [2, 4, 2], [5, 6, 7]] choose 4, 4, 6, 7;
    gradients [[1, 2], [4, 5]] give [[0, 0, 0], [0, 3, 0], [0, 4, 5]]. AVERAGE_POOLING_GRAD's page: the same windows
    and gradients [[1, 2], [3, 4]] give [[0.25, 0.75, 0.5], [1, 2.5, 1.5], [0.75, 1.75, 1]]."""
    t = NUMPY[data_type]
    x = np.array([[1, 2, 3], [2, 4, 2], [5, 6, 7]], t).reshape(1, 1, 3, 3)
    desc = max_grad_desc(tensor(data_type, [1, 1, 3, 3]), tensor(data_type, [1, 1, 2, 2]),
                         tensor(data_type, [1, 1, 3, 3]), [2, 2])
    got = run(device, desc, InputTensor=x, InputGradientTensor=np.array([1, 2, 4, 5], t).reshape(1, 1, 2, 2))
    np.testing.assert_array_equal(got["OutputGradientTensor"].reshape(3, 3), [[0, 0, 0], [0, 3, 0], [0, 4, 5]])
    desc = average_grad_desc(tensor(data_type, [1, 1, 2, 2]), tensor(data_type, [1, 1, 3, 3]), [2, 2])
    got = run(device, desc, InputGradientTensor=np.array([1, 2, 3, 4], t).reshape(1, 1, 2, 2))
    np.testing.assert_array_equal(got["OutputGradientTensor"].reshape(3, 3),
                                  [[0.25, 0.75, 0.5], [1, 2.5, 1.5], [0.75, 1.75, 1]])
    assert got["OutputGradientTensor"].dtype == t


@pytest.mark.parametrize("data_type", [F32, F16], ids=type_id)
def test_max_grad_ties_nan_signed_zeros_by_hand(device, data_type):
    """Windows of 2 at stride 1. Row 0, [5, 5, 5, 1]: windows [5, 5], [5, 5], [5, 1] choose elements 0, 1, 2 (the
    first of equal values), gradients [1, 2, 4] give [1, 2, 4, 0]. Row 1, [NaN, 3, -0, +0, NaN, NaN] with
    StartPadding 1 and EndPadding 1 (the window count 7): [p, NaN] takes the NaN (0), [NaN, 3] and [3, -0] take 3 (1),
    [-0, +0] the first zero (2), [+0, NaN] the zero (3), [NaN, NaN] the first (4), [NaN, p] 5: gradients
    [1, 2, 4, 8, 16, 32, 64] give [1, 6, 8, 16, 32, 64]."""
    t, nan = NUMPY[data_type], np.nan
    x = np.array([5, 5, 5, 1], t).reshape(1, 1, 1, 4)
    desc = max_grad_desc(tensor(data_type, [1, 1, 1, 4]), tensor(data_type, [1, 1, 1, 3]),
                         tensor(data_type, [1, 1, 1, 4]), [1, 2])
    got = run(device, desc, InputTensor=x, InputGradientTensor=np.array([1, 2, 4], t).reshape(1, 1, 1, 3))
    np.testing.assert_array_equal(got["OutputGradientTensor"].reshape(-1), [1, 2, 4, 0])
    x = np.array([nan, 3, -0.0, 0.0, nan, nan], t).reshape(1, 1, 1, 6)
    desc = max_grad_desc(tensor(data_type, [1, 1, 1, 6]), tensor(data_type, [1, 1, 1, 7]),
                         tensor(data_type, [1, 1, 1, 6]), [1, 2], start=[0, 1], end=[0, 1])
    got = run(device, desc, InputTensor=x,
              InputGradientTensor=np.array([1, 2, 4, 8, 16, 32, 64], t).reshape(1, 1, 1, 7))
    np.testing.assert_array_equal(got["OutputGradientTensor"].reshape(-1), [1, 6, 8, 16, 32, 64])


def test_max_grad_window_of_padding_sends_nothing(device):
    """Width 1, a window of 2 at dilation 2, StartPadding 1, EndPadding 1: the one window reads positions -1 and 1,
    both padding; its gradient 7 goes nowhere and the element's gradient is 0."""
    desc = max_grad_desc(tensor(F32, [1, 1, 1, 1]), tensor(F32, [1, 1, 1, 1]), tensor(F32, [1, 1, 1, 1]), [1, 2],
                         start=[0, 1], end=[0, 1], dilations=[1, 2])
    got = run(device, desc, InputTensor=np.full((1, 1, 1, 1), 3, np.float32),
              InputGradientTensor=np.full((1, 1, 1, 1), 7, np.float32))
    assert got["OutputGradientTensor"].reshape(-1)[0] == 0


@pytest.mark.parametrize("include_padding", [False, True], ids=["counted", "include-padding"])
def test_average_grad_padding_and_infinities_by_hand(device, include_padding):
    """Width 3, a window of 2, StartPadding 1, EndPadding 1: windows [p, a], [a, b], [b, c], [c, p]. Row 0's
    gradients [2, 4, 8, 6]: with IncludePadding every divisor is 2: [1 + 2, 2 + 4, 4 + 3] = [3, 6, 7]; without, the
    windows of one element divide by 1: [2 + 2, 2 + 4, 4 + 6] = [4, 6, 10]. Row 1's gradients [0, inf, -inf, NaN]:
    a takes inf/2, b inf/2 - inf/2 = NaN, c -inf/2 + NaN = NaN."""
    dy = np.array([2, 4, 8, 6, 0, np.inf, -np.inf, np.nan], np.float32).reshape(1, 2, 1, 4)
    desc = average_grad_desc(tensor(F32, [1, 2, 1, 4]), tensor(F32, [1, 2, 1, 3]), [1, 2], start=[0, 1],
                             end=[0, 1], include_padding=include_padding)
    got = run(device, desc, InputGradientTensor=dy)["OutputGradientTensor"].reshape(2, 3)
    np.testing.assert_array_equal(got[0], [3, 6, 7] if include_padding else [4, 6, 10])
    np.testing.assert_array_equal(got[1], [np.inf, np.nan, np.nan])


def test_float16_store_rounds_to_nearest_even(device):
    """FLOAT16 storage, the sum in float32 rounded once: [5, 1] in windows of 2 with StartPadding 1: windows [p, 5]
    and [5, 1] both choose the 5. Channel 0's gradients 2048 + 3 = 2051, halfway between the halves 2050 and 2052:
    to even, 2052 (truncation gives 2050); channel 1's 2048 + 1 = 2049: to even, 2048 (rounding half up gives
    2050)."""
    x = np.array([5, 1, 5, 1], np.float16).reshape(1, 2, 1, 2)
    dy = np.array([2048, 3, 2048, 1], np.float16).reshape(1, 2, 1, 2)
    desc = max_grad_desc(tensor(F16, [1, 2, 1, 2]), tensor(F16, [1, 2, 1, 2]), tensor(F16, [1, 2, 1, 2]), [1, 2],
                         start=[0, 1])
    got = run(device, desc, InputTensor=x, InputGradientTensor=dy)["OutputGradientTensor"].reshape(-1)
    np.testing.assert_array_equal(got, np.array([2052, 0, 2048, 0], np.float16))


# --- against an independent scatter ---------------------------------------------------------------------------

GEOMETRIES = [
    (F32, (2, 2, 5, 6), (2, 3), (1, 2), (1, 0), (0, 2), (1, 1)),
    (F16, (1, 2, 3, 4, 5), (2, 2, 3), (2, 1, 2), (0, 1, 2), (1, 0, 1), (1, 1, 1)),
    (F32, (1, 2, 7, 9), (2, 3), (1, 3), (1, 0), (0, 2), (2, 3)),
    (F16, (2, 1, 6, 6), (3, 2), (2, 2), (2, 1), (2, 1), (2, 3)),
]
GEOMETRY_IDS = ["4d-overlapping", "5d-f16", "4d-dilated", "4d-dilated-f16"]


@pytest.mark.parametrize(("data_type", "sizes", "window", "strides", "start", "end", "dilations"),
                         [GEOMETRIES[i] for i in (0, 2, 3)], ids=[GEOMETRY_IDS[i] for i in (0, 2, 3)])
def test_max_grad_matches_a_scatter(device, data_type, sizes, window, strides, start, end, dilations):
    """Small integers (many ties) with NaNs; gradients of a few bits: the sums are exact."""
    rng = np.random.default_rng(sum(sizes))
    t = NUMPY[data_type]
    x = rng.integers(-3, 4, sizes).astype(t)
    x.reshape(-1)[rng.random(x.size) < 0.1] = np.nan
    dy_sizes = (*sizes[:2], *out_spatial(sizes, window, strides, start, end, dilations))
    dy = rng.integers(-8, 9, dy_sizes).astype(t) / 4
    desc = max_grad_desc(tensor(data_type, sizes), tensor(data_type, dy_sizes), tensor(data_type, sizes), window,
                         strides, start, end, dilations)
    got = run(device, desc, InputTensor=x, InputGradientTensor=dy)["OutputGradientTensor"]
    expected, _ = scatter_loops(sizes, dy, window, strides, start, dilations, first_max(x))
    np.testing.assert_array_equal(got, expected.astype(t))


@pytest.mark.parametrize("include_padding", [False, True], ids=["counted", "include-padding"])
@pytest.mark.parametrize(("data_type", "sizes", "window", "strides", "start", "end"),
                         [(g[0], *g[1:6]) for g in GEOMETRIES[:2]], ids=GEOMETRY_IDS[:2])
def test_average_grad_matches_a_scatter(device, data_type, sizes, window, strides, start, end, include_padding):
    rng = np.random.default_rng(sum(sizes) + 1)
    t = NUMPY[data_type]
    ones = (1,) * len(window)
    dy_sizes = (*sizes[:2], *out_spatial(sizes, window, strides, start, end, ones))
    dy = rng.uniform(-4, 4, dy_sizes).astype(t)
    desc = average_grad_desc(tensor(data_type, dy_sizes), tensor(data_type, sizes), window, strides, start, end,
                             include_padding)
    got = run(device, desc, InputGradientTensor=dy)["OutputGradientTensor"]
    expected, bound = scatter_loops(sizes, dy, window, strides, start, ones, averaged(window, include_padding))
    report = compare_ulps(got, expected, t, 1 if data_type == F16 else math.prod(window) + 2, bound)
    assert report.ok, report.describe("OutputGradientTensor")


def test_strided_broadcast_inputs_and_padded_output(device):
    """InputTensor broadcast along C (stride 0) with H and W swapped in memory, InputGradientTensor NHWC-strided, the
    output padded: the same numbers as the scatter of the packed tensors."""
    rng = np.random.default_rng(3)
    plane = rng.integers(-3, 4, (1, 1, 4, 5)).astype(np.float32)
    x = np.ascontiguousarray(np.broadcast_to(plane, (1, 3, 4, 5)))
    dy = rng.integers(-4, 5, (1, 3, 3, 2)).astype(np.float32)
    desc = max_grad_desc(tensor(F32, [1, 3, 4, 5], [20, 0, 1, 4]), tensor(F32, [1, 3, 3, 2], [18, 1, 6, 3]),
                         tensor(F32, [1, 3, 4, 5], [96, 32, 8, 1]), [2, 3], strides=[1, 2])
    got = run(device, desc, InputTensor=x, InputGradientTensor=dy)["OutputGradientTensor"]
    expected, _ = scatter_loops(x.shape, dy, [2, 3], [1, 2], [0, 0], [1, 1], first_max(x))
    np.testing.assert_array_equal(got, expected.astype(np.float32))
    desc = average_grad_desc(tensor(F32, [1, 3, 3, 2], [0, 0, 2, 1]), tensor(F32, [1, 3, 4, 5], [96, 32, 8, 1]),
                             [2, 3], strides=[1, 2], include_padding=True)
    plane_dy = np.ascontiguousarray(np.broadcast_to(dy[:, :1], dy.shape))
    got = run(device, desc, InputGradientTensor=plane_dy)["OutputGradientTensor"]
    expected, bound = scatter_loops(x.shape, plane_dy, [2, 3], [1, 2], [0, 0], [1, 1], averaged([2, 3], True))
    report = compare_ulps(got, expected, np.float32, 8, bound)
    assert report.ok, report.describe("OutputGradientTensor")


# --- refusals --------------------------------------------------------------------------------------------------

def _mg(x=(1, 1, 4, 4), dy=(1, 1, 3, 3), dx=(1, 1, 4, 4), types=(F32, F32, F32), window=(2, 2), **kw):
    return max_grad_desc(tensor(types[0], x), tensor(types[1], dy), tensor(types[2], dx), list(window), **kw)


def _ag(dy=(1, 1, 3, 3), dx=(1, 1, 4, 4), types=(F32, F32), window=(2, 2), **kw):
    return average_grad_desc(tensor(types[0], dy), tensor(types[1], dx), list(window), **kw)


@pytest.mark.parametrize(("desc", "expected"), [
    (_mg(types=(F64, F64, F64)), "InputTensor.DataType FLOAT64 is not supported by DML_OPERATOR_MAX_POOLING_GRAD"),
    (_mg(types=(I32, I32, I32)), "InputTensor.DataType INT32 is not supported"),
    (_mg(x=(1, 4, 4), dy=(1, 3, 3), dx=(1, 4, 4), window=(2,)),
     "InputTensor.DimensionCount 3 is not supported by DML_OPERATOR_MAX_POOLING_GRAD (supported: 4)"),
    (_mg(x=(1, 1, 2, 4, 4), dy=(1, 1, 1, 3, 3), dx=(1, 1, 2, 4, 4), window=(2, 2, 2)),
     "InputTensor.DimensionCount 5 is not supported by DML_OPERATOR_MAX_POOLING_GRAD (supported: 4)"),
    (_ag(dy=(1, 3, 3), dx=(1, 4, 4), window=(2,)),
     "InputGradientTensor.DimensionCount 3 is not supported by DML_OPERATOR_AVERAGE_POOLING_GRAD (supported: 4 to 5)"),
    (_mg(types=(F32, F16, F32)), "InputGradientTensor.DataType FLOAT16 must equal OutputGradientTensor.DataType"),
    (_mg(types=(F16, F32, F32)), "InputTensor.DataType FLOAT16 must equal OutputGradientTensor.DataType"),
    (_mg(x=(1, 1, 4, 5)), "InputTensor.Sizes [1, 1, 4, 5] must equal OutputGradientTensor.Sizes [1, 1, 4, 4]"),
    (_mg(dy=(1, 1, 3, 2)), "InputGradientTensor.Sizes [1, 1, 3, 2] must be [1, 1, 3, 3]"),
    (_mg(dilations=[2, 1]),
     "InputGradientTensor.Sizes [1, 1, 3, 3] must be [1, 1, 2, 3]"),
    (_mg(strides=[0, 1]), "Strides[0] must be at least 1, got 0"),
    (_mg(window=(5, 2)), "WindowSize[0] 5 with Dilations[0] 1 spans 5 elements, more than OutputGradientTensor"),
    (_ag(types=(F64, F64)),
     "InputGradientTensor.DataType FLOAT64 is not supported by DML_OPERATOR_AVERAGE_POOLING_GRAD"),
    (_ag(dy=(1, 1, 1, 3, 3), window=(2, 2)), "InputGradientTensor.DimensionCount 5 must equal OutputGradientTensor"),
    (_ag(dy=(1, 1, 2, 3, 3), dx=(1, 1, 3, 4, 4)), "DimensionCount 2 must be OutputGradientTensor.DimensionCount - 2"),
    (_ag(dy=(1, 1, 4, 3)), "InputGradientTensor.Sizes [1, 1, 4, 3] must be [1, 1, 3, 3]"),
    (_ag(window=(0, 2)), "WindowSize[0] must be at least 1, got 0"),
], ids=["float64", "int32", "rank-3", "rank-5", "average-rank-3", "gradient-type", "input-type", "input-sizes",
        "gradient-sizes", "gradient-sizes-dilated", "stride-0", "window-too-large", "average-float64",
        "average-rank-mismatch", "average-dimension-count", "average-gradient-sizes", "average-window-0"])
def test_refusals(ref_device, desc, expected):
    assert expected in refused(ref_device, desc)
