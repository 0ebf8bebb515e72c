"""DirectML's pooling family (dmlsim/operators/pooling): MAX_POOLING, MAX_POOLING1, MAX_POOLING2, AVERAGE_POOLING,
AVERAGE_POOLING1, LP_POOLING, LP_POOLING1, MAX_UNPOOLING, on every adapter.

Expected values are literals worked out by hand, or the pages' description written out here as a loop over output
elements and window taps (never dmlsim's reference); onnx's node cases are in tests/test_pooling_onnx.py (apart, so
that a selection of this file does not generate them).
Tolerance: max pooling is exact (the output is one of the input elements, stored unchanged, FLOAT16 included;
indices compare exactly). Average pooling sums T terms in float32 and divides once: within T + 2 float32 ulps of
the mean of the terms' magnitudes (compare_ulps' bound); FLOAT16 1 ulp after the half rounding. An Lp norm of T
terms (no cancellation) within T + 8 float32 ulps of itself (pown and rootn are within a few ulps on the drivers
here); FLOAT16 1 ulp.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from datamove_support import (
    F16,
    F32,
    F64,
    I8,
    I16,
    I32,
    I64,
    NUMPY,
    U8,
    U16,
    U32,
    U64,
    operator,
    refused,
    run,
    tensor,
    type_id,
)
from plan_support import planned_entries

from dmlsim.api.numerics import compare_ulps

MAX_MEMBERS = ("MAX_POOLING", "MAX_POOLING1", "MAX_POOLING2")
INTEGER_TYPES = (I64, I32, I16, I8, U64, U32, U16, U8)
ALL_ONES = {U32: 2**32 - 1, U64: 2**64 - 1}


def max_desc(name, x, out, window, strides=None, start=None, end=None, dilations=None, indices=None):
    """A MAX_POOLING* desc; fields the member lacks are left out (dilations must then be all 1)."""
    spatial = len(window)
    fields = {"InputTensor": x, "OutputTensor": out, "DimensionCount": spatial, "Strides": strides or [1] * spatial,
              "WindowSize": list(window), "StartPadding": start or [0] * spatial, "EndPadding": end or [0] * spatial}
    if name != "MAX_POOLING":
        fields["OutputIndicesTensor"] = indices
    if name == "MAX_POOLING2":
        fields["Dilations"] = dilations or [1] * spatial
    return operator(name, **fields)


def max_loops(x, window, strides, start, dilations, out_spatial):
    """The page's max pooling, one output element and one tap at a time: (values, row-major indices). Padding is
    skipped; NaN is ignored unless all are NaN; the first of equal values wins; no element: lowest, all ones."""
    x = np.asarray(x)
    floating = x.dtype.kind == "f"
    spatial = x.shape[2:]
    values = np.zeros((*x.shape[:2], *out_spatial), np.float64 if floating else x.dtype)
    indices = np.zeros(values.shape, np.uint64)
    for out_index in np.ndindex(values.shape):
        n, c, *o = out_index
        best, where = None, 2**64 - 1
        for tap in itertools.product(*(range(k) for k in window)):
            pos = [o[i] * strides[i] + tap[i] * dilations[i] - start[i] for i in range(len(o))]
            if any(p < 0 or p >= s for p, s in zip(pos, spatial, strict=True)):
                continue
            v = x[(n, c, *pos)]
            if best is None or v > best or (floating and math.isnan(best) and not math.isnan(v)):
                best, where = v, int(np.ravel_multi_index((n, c, *pos), x.shape))
        if best is None:
            best = -np.inf if floating else np.iinfo(x.dtype).min
        values[out_index], indices[out_index] = best, where
    return values, indices


# --- by hand --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("with_indices", [True, False], ids=["indices", "values-only"])
@pytest.mark.parametrize("data_type", [F32, F16], ids=type_id)
def test_max_by_hand_ties_signed_zeros_nan_inf(device, data_type, with_indices):
    """A 4 x 4 input in 2 x 2 windows at stride 2. Window (0, 0) = [1, 3, 3, 2]: 3, the first 3 (index 1).
    Window (0, 1) = [-0, 0, -1, -2]: -0 and +0 are equal, the first (-0, index 2) wins. Window (1, 0) =
    [NaN, -5, NaN, -7]: NaN ignored: -5 (index 9). Window (1, 1) = [NaN, NaN, NaN, NaN]: NaN, index 10 (the first).
    Row 0 of a second channel holds -inf and +inf: [-inf, -inf, -inf, -inf] gives -inf (index 16)."""
    nan, inf = np.nan, np.inf
    x = np.array([[1, 3, -0.0, 0.0], [3, 2, -1, -2], [nan, -5, nan, nan], [nan, -7, nan, nan],
                  [-inf, -inf, inf, 1], [-inf, -inf, 2, inf], [4, 4, 4, 4], [4, 4, 4, 4]],
                 NUMPY[data_type]).reshape(1, 2, 4, 4)
    desc = max_desc("MAX_POOLING2", tensor(data_type, [1, 2, 4, 4]), tensor(data_type, [1, 2, 2, 2]), [2, 2],
                    strides=[2, 2], indices=tensor(U32, [1, 2, 2, 2]) if with_indices else None)
    got = run(device, desc, InputTensor=x)
    values = got["OutputTensor"].reshape(-1)
    np.testing.assert_array_equal(values, [3, 0, -5, nan, -inf, inf, 4, 4])
    assert np.signbit(values[1]), "the first of equal zeros (-0) must win"
    if with_indices:
        np.testing.assert_array_equal(got["OutputIndicesTensor"].reshape(-1), [1, 2, 9, 10, 16, 18, 24, 26])


@pytest.mark.parametrize(("name", "data_type"), [("MAX_POOLING", F32), ("MAX_POOLING1", F16), ("MAX_POOLING2", F32),
                                               ("MAX_POOLING2", F16)],
                         ids=["MAX_POOLING-FLOAT32", "MAX_POOLING1-FLOAT16", "MAX_POOLING2-FLOAT32",
                              "MAX_POOLING2-FLOAT16"])
def test_padding_never_wins_and_a_window_of_padding(device, name, data_type):
    """[-3, -1, -2] with StartPadding 2, EndPadding 1 and a window of 2 at stride 1: windows [pad, pad] (no
    element: -inf, index all ones), [pad, -3] = -3 (0), [-3, -1] = -1 (1), [-1, -2] = -1 (1), [-2, pad] = -2 (2).
    Padding is not a 0 that would beat the negative numbers."""
    x = np.array([-3, -1, -2], NUMPY[data_type]).reshape(1, 1, 1, 3)
    has_indices = name != "MAX_POOLING"
    desc = max_desc(name, tensor(data_type, [1, 1, 1, 3]), tensor(data_type, [1, 1, 1, 5]), [1, 2], start=[0, 2],
                    end=[0, 1], indices=tensor(U64, [1, 1, 1, 5]) if has_indices else None)
    got = run(device, desc, InputTensor=x)
    np.testing.assert_array_equal(got["OutputTensor"].reshape(-1), [-np.inf, -3, -1, -1, -2])
    if has_indices:
        np.testing.assert_array_equal(got["OutputIndicesTensor"].reshape(-1), [2**64 - 1, 0, 1, 1, 2])


def test_dilation_steps_over_the_input(device):
    """MAX_POOLING2, width 1, window 2 at dilation 2, StartPadding 1, EndPadding 1: padded [pad, 7, pad]; the only
    window reads positions -1 and 1, both padding: -inf and UINT32 all ones."""
    desc = max_desc("MAX_POOLING2", tensor(F32, [1, 1, 1, 1]), tensor(F32, [1, 1, 1, 1]), [1, 2], start=[0, 1],
                    end=[0, 1], dilations=[1, 2], indices=tensor(U32, [1, 1, 1, 1]))
    got = run(device, desc, InputTensor=np.array([7], np.float32).reshape(1, 1, 1, 1))
    assert got["OutputTensor"].reshape(-1)[0] == -np.inf
    assert got["OutputIndicesTensor"].reshape(-1)[0] == 2**32 - 1


@pytest.mark.parametrize("data_type", INTEGER_TYPES, ids=type_id)
def test_integer_types_with_extremes(device, data_type):
    """Every integer type of the FL 5_0 table: the type's minimum and maximum, compared exactly (an INT64 or
    UINT64 value near 2^63 is not rounded through a float), and a window of only padding (the type's minimum)."""
    info = np.iinfo(NUMPY[data_type])
    x = np.array([info.min, info.max, 0, info.max - 1, info.min + 1, 1, info.max, 5, info.min], NUMPY[data_type])
    x = x.reshape(1, 1, 3, 3)
    desc = max_desc("MAX_POOLING1", tensor(data_type, [1, 1, 3, 3]), tensor(data_type, [1, 1, 3, 3]), [2, 2],
                    strides=[2, 2], start=[1, 1], end=[2, 2], indices=tensor(U32, [1, 1, 3, 3]))
    got = run(device, desc, InputTensor=x)
    expected, where = max_loops(x, [2, 2], [2, 2], [1, 1], [1, 1], (3, 3))
    assert got["OutputTensor"].dtype == NUMPY[data_type]
    np.testing.assert_array_equal(got["OutputTensor"], expected)
    np.testing.assert_array_equal(got["OutputIndicesTensor"], where.astype(np.uint32))
    # output row 2 and column 2 read input rows/columns 3 and 4: only padding
    assert (got["OutputTensor"][0, 0, 2, :] == info.min).all() and (got["OutputTensor"][0, 0, :, 2] == info.min).all()
    assert (got["OutputIndicesTensor"][0, 0, 2, :] == 2**32 - 1).all()


# --- against the description --------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "data_type", "sizes", "window", "strides", "start", "end", "dilations", "index"), [
    ("MAX_POOLING", F32, (2, 3, 5, 6), (2, 3), (1, 2), (1, 0), (0, 2), (1, 1), None),
    ("MAX_POOLING1", F16, (1, 2, 3, 4, 5), (2, 2, 3), (2, 1, 2), (0, 1, 2), (1, 0, 1), (1, 1, 1), U64),
    ("MAX_POOLING2", F32, (1, 2, 4, 3, 7), (2, 2, 2), (1, 2, 3), (1, 1, 0), (0, 2, 2), (2, 1, 3), U32),
    ("MAX_POOLING2", F16, (2, 1, 6, 6), (3, 2), (2, 2), (2, 1), (2, 1), (2, 3), U64),
], ids=["4d-plain", "5d-indices", "5d-dilated", "4d-dilated-f16"])
def test_max_matches_the_description(device, name, data_type, sizes, window, strides, start, end, dilations, index):
    rng = np.random.default_rng(sum(sizes))
    x = rng.integers(-6, 7, sizes).astype(NUMPY[data_type])  # small integers: many ties
    x.reshape(-1)[rng.random(x.size) < 0.15] = np.nan
    out_spatial = tuple((s + a + b - (k - 1) * d - 1) // st + 1
                        for s, a, b, k, d, st in zip(sizes[2:], start, end, window, dilations, strides,
                                                                 strict=True))
    out_sizes = (*sizes[:2], *out_spatial)
    desc = max_desc(name, tensor(data_type, sizes), tensor(data_type, out_sizes), window, list(strides), list(start),
                    list(end), list(dilations), tensor(index, out_sizes) if index else None)
    got = run(device, desc, InputTensor=x)
    expected, where = max_loops(x, window, strides, start, dilations, out_spatial)
    np.testing.assert_array_equal(got["OutputTensor"], expected.astype(NUMPY[data_type]))
    if index:
        np.testing.assert_array_equal(got["OutputIndicesTensor"], where.astype(NUMPY[index]))


def test_strided_broadcast_input_and_padded_outputs(device):
    """An input broadcast along C (stride 0) and NHWC-strided, read into padded value and index outputs: the same
    numbers as the packed layouts, and the indices still count row-major over InputTensor.Sizes."""
    rng = np.random.default_rng(5)
    plane = rng.normal(size=(1, 1, 4, 5)).astype(np.float32)
    x = np.broadcast_to(plane, (1, 3, 4, 5))
    desc = max_desc("MAX_POOLING2", tensor(F32, [1, 3, 4, 5], [20, 0, 5, 1]), tensor(F32, [1, 3, 3, 2], [32, 8, 2, 1]),
                    [2, 3], strides=[1, 2], dilations=[1, 1], indices=tensor(U32, [1, 3, 3, 2], [64, 16, 4, 1]))
    got = run(device, desc, InputTensor=np.ascontiguousarray(x))
    expected, where = max_loops(x, [2, 3], [1, 2], [0, 0], [1, 1], (3, 2))
    np.testing.assert_array_equal(got["OutputTensor"], expected.astype(np.float32))
    np.testing.assert_array_equal(got["OutputIndicesTensor"], where)
    assert where.max() >= 40, "channel 2's indices count past the broadcast plane"


# --- refusals --------------------------------------------------------------------------------------------------

def _mp2(x, out, window=(2, 2), **kw):
    return max_desc("MAX_POOLING2", x, out, list(window), **kw)


@pytest.mark.parametrize(("desc", "expected"), [
    (_mp2(tensor(F32, [1, 1, 4]), tensor(F32, [1, 1, 3]), (2,)),
     "InputTensor.DimensionCount 3 is not supported by DML_OPERATOR_MAX_POOLING2 (supported: 4 to 5)"),
    (max_desc("MAX_POOLING", tensor(F64, [1, 1, 2, 2]), tensor(F64, [1, 1, 1, 1]), [2, 2]),
     "InputTensor.DataType FLOAT64 is not supported by DML_OPERATOR_MAX_POOLING (supported: FLOAT32, FLOAT16, INT64"),
    (_mp2(tensor(F32, [1, 1, 2, 2]), tensor(F16, [1, 1, 1, 1])),
     "OutputTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (_mp2(tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 1, 1, 1]), indices=tensor(I32, [1, 1, 1, 1])),
     "OutputIndicesTensor.DataType INT32 is not supported by DML_OPERATOR_MAX_POOLING2 (supported: UINT32, UINT64)"),
    (_mp2(tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 1, 1, 1]), indices=tensor(U32, [1, 1, 1, 2])),
     "OutputIndicesTensor.Sizes [1, 1, 1, 2] must equal OutputTensor.Sizes [1, 1, 1, 1]"),
    (_mp2(tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 1, 1, 1, 1]), (2, 2)),
     "OutputTensor.DimensionCount 5 must equal InputTensor.DimensionCount 4"),
    (_mp2(tensor(F32, [1, 1, 1, 2, 2]), tensor(F32, [1, 1, 1, 1, 1]), (2, 2)),
     "DimensionCount 2 must be InputTensor.DimensionCount - 2 = 3"),
    (_mp2(tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 1, 1, 1]), strides=[1, 0]),
     "Strides[1] must be at least 1, got 0"),
    (_mp2(tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 1, 1, 1]), (0, 2)),
     "WindowSize[0] must be at least 1, got 0"),
    (_mp2(tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 1, 1, 1]), dilations=[0, 1]),
     "Dilations[0] must be at least 1, got 0"),
    (_mp2(tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 1, 1, 1]), (3, 2)),
     "WindowSize[0] 3 with Dilations[0] 1 spans 3 elements, more than InputTensor.Sizes[2] 2 plus StartPadding[0]"),
    (_mp2(tensor(F32, [1, 1, 5, 5]), tensor(F32, [1, 1, 4, 4]), dilations=[2, 1]),
     "OutputTensor.Sizes [1, 1, 4, 4] must be [1, 1, 3, 4]"),
    (_mp2(tensor(F32, [1, 1, 4, 4]), tensor(F32, [1, 2, 3, 3])),
     "OutputTensor.Sizes [1, 2, 3, 3] must be [1, 1, 3, 3]"),
], ids=["rank-3", "float64", "output-type", "indices-type", "indices-sizes", "output-rank", "dimension-count",
        "stride-0", "window-0", "dilation-0", "window-too-large", "dilated-output-size", "channels"])
def test_max_refusals(ref_device, desc, expected):
    assert expected in refused(ref_device, desc)


def test_max_pooling_registered():
    from dmlsim.operators import implemented_names

    assert {f"DML_OPERATOR_{name}" for name in MAX_MEMBERS} <= set(implemented_names())


# --- AVERAGE_POOLING, AVERAGE_POOLING1 ----------------------------------------------------------------------

AVERAGE_MEMBERS = ("AVERAGE_POOLING", "AVERAGE_POOLING1")


def average_desc(name, x, out, window, strides=None, start=None, end=None, dilations=None, include_padding=False):
    """An AVERAGE_POOLING* desc; AVERAGE_POOLING has no Dilations (they must then be all 1)."""
    spatial = len(window)
    fields = {"InputTensor": x, "OutputTensor": out, "DimensionCount": spatial, "Strides": strides or [1] * spatial,
              "WindowSize": list(window), "StartPadding": start or [0] * spatial, "EndPadding": end or [0] * spatial,
              "IncludePadding": include_padding}
    if name == "AVERAGE_POOLING1":
        fields["Dilations"] = dilations or [1] * spatial
    return operator(name, **fields)


def average_loops(x, window, strides, start, dilations, out_spatial, include_padding):
    """The page's average, one output element at a time: (expected, magnitude bound = mean of |terms|). The divisor
    is every tap of the window (IncludePadding) or the elements read; a window reading nothing gives 0."""
    x = np.asarray(x, np.float64)
    spatial = x.shape[2:]
    expected = np.zeros((*x.shape[:2], *out_spatial))
    bound = np.zeros_like(expected)
    for out_index in np.ndindex(expected.shape):
        n, c, *o = out_index
        terms = []
        for tap in itertools.product(*(range(k) for k in window)):
            pos = [o[i] * strides[i] + tap[i] * dilations[i] - start[i] for i in range(len(o))]
            if all(0 <= p < s for p, s in zip(pos, spatial, strict=True)):
                terms.append(x[(n, c, *pos)])
        divisor = math.prod(window) if include_padding else len(terms)
        if terms:
            with np.errstate(invalid="ignore"):
                expected[out_index] = math.fsum(terms) / divisor if all(map(math.isfinite, terms)) \
                    else sum(terms) / divisor
            bound[out_index] = sum(abs(t) for t in terms) / divisor
    return expected, bound


@pytest.mark.parametrize("name", AVERAGE_MEMBERS)
@pytest.mark.parametrize("include_padding", [False, True], ids=["without-padding", "with-padding"])
def test_average_by_hand(device, name, include_padding):
    """[3, 6, 9, 1] with StartPadding 1, EndPadding 3 and a window of 3: windows [p, 3, 6], [3, 6, 9], [6, 9, 1],
    [9, 1, p], [1, p, p], [p, p, p]: with IncludePadding 9/3, 18/3, 16/3, 10/3, 1/3 and 0; without 9/2, 6, 16/3, 5,
    1 and 0 (a window of only padding: 0, not 0/0). Channel 2 holds [inf, 1, -inf, NaN]: windows [p, inf, 1] = inf,
    [inf, 1, -inf] = NaN, then NaN, NaN, NaN (the NaN), and 0."""
    x = np.array([3, 6, 9, 1, np.inf, 1, -np.inf, np.nan], np.float32).reshape(1, 2, 1, 4)
    desc = average_desc(name, tensor(F32, [1, 2, 1, 4]), tensor(F32, [1, 2, 1, 6]), [1, 3], start=[0, 1], end=[0, 3],
                        include_padding=include_padding)
    got = run(device, desc, InputTensor=x)["OutputTensor"].reshape(2, 6)
    first = [3, 6, 16 / 3, 10 / 3, 1 / 3, 0] if include_padding else [4.5, 6, 16 / 3, 5, 1, 0]
    np.testing.assert_allclose(got[0], first, rtol=6e-7, atol=0)
    np.testing.assert_array_equal(got[1], [np.inf, np.nan, np.nan, np.nan, np.nan, 0])


def test_average_float16_rounds_ties_to_even(device):
    """FLOAT16 storage: the mean of 2048 and 2050 is 2049, halfway between the halves 2048 and 2050: to even, 2048;
    the mean of 2050 and 2052 is 2051: to even, 2052 (a truncating store gives 2050 both times)."""
    x = np.array([2048, 2050, 2050, 2052], np.float16).reshape(1, 1, 1, 4)
    desc = average_desc("AVERAGE_POOLING", tensor(F16, [1, 1, 1, 4]), tensor(F16, [1, 1, 1, 2]), [1, 2],
                        strides=[1, 2])
    got = run(device, desc, InputTensor=x)["OutputTensor"].reshape(-1)
    np.testing.assert_array_equal(got, np.array([2048, 2052], np.float16))


@pytest.mark.parametrize(("name", "data_type", "sizes", "window", "strides", "start", "end", "dilations", "pad"), [
    ("AVERAGE_POOLING", F32, (2, 3, 5, 6), (2, 3), (1, 2), (1, 0), (0, 2), (1, 1), False),
    ("AVERAGE_POOLING", F16, (1, 2, 3, 4, 5), (2, 2, 3), (2, 1, 2), (0, 1, 2), (1, 0, 1), (1, 1, 1), True),
    ("AVERAGE_POOLING1", F32, (1, 2, 4, 3, 7), (2, 2, 2), (1, 2, 3), (1, 1, 0), (0, 2, 2), (2, 1, 3), True),
    ("AVERAGE_POOLING1", F16, (2, 1, 6, 6), (3, 2), (2, 2), (2, 1), (2, 1), (2, 3), False),
], ids=["4d-plain", "5d-f16-padding", "5d-dilated", "4d-dilated-f16"])
def test_average_matches_the_description(device, name, data_type, sizes, window, strides, start, end, dilations,
                                         pad):
    rng = np.random.default_rng(sum(sizes) + 1)
    x = rng.uniform(-4, 4, sizes).astype(NUMPY[data_type])
    out_spatial = tuple((s + a + b - (k - 1) * d - 1) // st + 1
                        for s, a, b, k, d, st in zip(sizes[2:], start, end, window, dilations, strides, strict=True))
    desc = average_desc(name, tensor(data_type, sizes), tensor(data_type, (*sizes[:2], *out_spatial)), window,
                        list(strides), list(start), list(end), list(dilations), pad)
    got = run(device, desc, InputTensor=x)["OutputTensor"]
    expected, bound = average_loops(x, window, strides, start, dilations, out_spatial, pad)
    ulps = 1 if data_type == F16 else math.prod(window) + 2
    report = compare_ulps(got, expected, NUMPY[data_type], ulps, bound)
    assert report.ok, report.describe("OutputTensor")


def test_average_strided_broadcast_input_and_padded_output(device):
    """An input broadcast along N (stride 0), its H and W swapped in memory, read into a padded output."""
    rng = np.random.default_rng(8)
    x = np.broadcast_to(rng.uniform(-2, 2, (1, 2, 3, 4)).astype(np.float32), (2, 2, 3, 4))
    desc = average_desc("AVERAGE_POOLING1", tensor(F32, [2, 2, 3, 4], [0, 12, 1, 3]),
                        tensor(F32, [2, 2, 2, 2], [32, 16, 4, 1]), [2, 2], strides=[1, 2], start=[0, 0], end=[0, 0],
                        dilations=[1, 1], include_padding=True)
    got = run(device, desc, InputTensor=np.ascontiguousarray(x))["OutputTensor"]
    expected, bound = average_loops(x, [2, 2], [1, 2], [0, 0], [1, 1], (2, 2), True)
    report = compare_ulps(got, expected, np.float32, 6, bound)
    assert report.ok, report.describe("OutputTensor")


# --- both kernels: CPU devices' row kernel and the per-element one (every launch shape) -----------------------------

ROW_CASES = {  # sizes, window, strides, start, end, dilations: rows of more than one set of 8 lanes
    # 16 outputs a row: two full sets of 8 lanes, the first set's first tap and the last set's last over the padding
    # (NHWC; and packed, where the row kernel reads a set's span of inputs once: the last set's span ends one past
    # the row)
    "wide-padded": ((2, 3, 3, 16), (2, 3), (1, 1), (1, 1), (0, 1), (1, 1)),
    "wide-padded-packed": ((2, 3, 3, 16), (2, 3), (1, 1), (1, 1), (0, 1), (1, 1)),
    # stride 2 and dilation 2 along W: 19 outputs a row, each set's lanes read every second input
    "wide-strided-dilated": ((1, 2, 5, 37), (2, 3), (1, 2), (0, 2), (1, 2), (2, 2)),
    # windows of only padding at both ends of each row (MAX: LOWEST and index all ones; AVERAGE: 0)
    "padding-only-windows": ((1, 2, 2, 9), (1, 2), (1, 1), (0, 3), (0, 3), (1, 1)),
    "padding-only-windows-packed": ((1, 2, 2, 9), (1, 2), (1, 1), (0, 3), (0, 3), (1, 1)),
    # pooling_vectors (FLOAT32 MAX without indices, AVERAGE; packed input): 40 outputs a row of 40, 3 x 3 / 1 with
    # padding 1: a set of 16 at the padded start, one read as vectors (inputs 15-32), a short last set of 8 at the end
    "wide-interior-packed": ((2, 2, 4, 40), (3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
    # stride 2 and dilation 2 (8 lanes a set): 19 outputs; the second set (inputs 14-33) read as vectors
    "wide-strided-dilated-packed": ((1, 2, 5, 37), (2, 3), (1, 2), (0, 2), (1, 2), (2, 2)),
}
ROW_FUNCTIONS = {  # member, value type, index type (MAX) or IncludePadding (AVERAGE)
    "max-f32-u32": ("MAX_POOLING2", F32, U32), "max-f16-u64": ("MAX_POOLING2", F16, U64),
    "max-i64": ("MAX_POOLING2", I64, None), "max-f32": ("MAX_POOLING2", F32, None),
    "average-f32-padding": ("AVERAGE_POOLING1", F32, True), "average-f32": ("AVERAGE_POOLING1", F32, False),
    "average-f16": ("AVERAGE_POOLING1", F16, False),
}


@pytest.mark.parametrize("function", list(ROW_FUNCTIONS))
@pytest.mark.parametrize("case", list(ROW_CASES))
def test_max_and_average_on_every_launch_shape(shaped_device, case, function):
    """MAX and AVERAGE pooling on every launch shape (DMLSIM_LAUNCH_SHAPE): CPU devices run one work-item per output
    row, 8 outputs at a time (pooling_rows), or 16 (8 at stride 2) as float vectors for FLOAT32 MAX without indices and
    AVERAGE over a packed input (pooling_vectors), GPU shapes one per output element (pooling). The input NHWC-strided
    (or packed), the outputs padded: the page's loops (max_loops, average_loops) on negative numbers with ties and
    NaN (padding is no 0 that would win), indices row-major over the input's sizes."""
    sizes, window, strides, start, end, dilations = ROW_CASES[case]
    name, data_type, extra = ROW_FUNCTIONS[function]
    n, c, h, w = sizes
    out_spatial = tuple((s + a + b - (k - 1) * d - 1) // st + 1
                        for s, a, b, k, d, st in zip(sizes[2:], start, end, window, dilations, strides, strict=True))
    oh, ow = out_spatial
    out_sizes, out_strides = (n, c, oh, ow), (c * oh * (ow + 3), oh * (ow + 3), ow + 3, 1)
    x_tensor = tensor(data_type, sizes, None if case.endswith("packed") else (h * w * c, 1, w * c, c))
    rng = np.random.default_rng(sum(sizes) + len(function))
    if name.startswith("MAX"):
        x = -rng.integers(1, 9, sizes).astype(NUMPY[data_type])  # negative, many ties
        if data_type != I64:
            x.reshape(-1)[rng.random(x.size) < 0.15] = np.nan
        desc = max_desc(name, x_tensor, tensor(data_type, out_sizes, out_strides), window, list(strides), list(start),
                        list(end), list(dilations),
                        tensor(extra, out_sizes, tuple(2 * s for s in out_strides)) if extra else None)
        got = run(shaped_device, desc, InputTensor=x)
        expected, where = max_loops(x, window, strides, start, dilations, out_spatial)
        np.testing.assert_array_equal(got["OutputTensor"], expected.astype(NUMPY[data_type]))
        if extra:
            np.testing.assert_array_equal(got["OutputIndicesTensor"], where.astype(NUMPY[extra]))
    else:
        x = rng.uniform(-4, 4, sizes).astype(NUMPY[data_type])
        desc = average_desc(name, x_tensor, tensor(data_type, out_sizes, out_strides), window, list(strides),
                            list(start), list(end), list(dilations), extra)
        got = run(shaped_device, desc, InputTensor=x)["OutputTensor"]
        expected, bound = average_loops(x, window, strides, start, dilations, out_spatial, extra)
        report = compare_ulps(got, expected, NUMPY[data_type], 1 if data_type == F16 else math.prod(window) + 2,
                              bound)
        assert report.ok, report.describe("OutputTensor")


@pytest.mark.parametrize(("name", "variant", "cpu"), [
    ("MAX_POOLING2", "", "pooling_vectors"), ("AVERAGE_POOLING1", "", "pooling_vectors"),
    ("MAX_POOLING2", "stride-2", "pooling_vectors"), ("MAX_POOLING2", "stride-3", "pooling_rows"),
    ("MAX_POOLING2", "indices", "pooling_rows"), ("MAX_POOLING2", "float16", "pooling_rows"),
    ("AVERAGE_POOLING1", "nhwc-input", "pooling_rows"), ("AVERAGE_POOLING1", "strided-output-w", "pooling_rows"),
    ("LP_POOLING1", "", "pooling")])
def test_planner_choice(ref_device, name, variant, cpu):
    """CPU devices: FLOAT32 MAX without indices and AVERAGE over W-contiguous tensors at W stride 1 or 2 as float
    vectors, other MAX and AVERAGE by rows, LP one work-item per output; GPU devices: one per output for all."""
    data_type = F16 if variant == "float16" else F32
    stride_w = {"stride-2": 2, "stride-3": 3}.get(variant, 1)
    x = tensor(data_type, [1, 2, 3, 20], (120, 1, 40, 2) if variant == "nhwc-input" else None)
    out_w = (20 - 2) // stride_w + 1
    out = tensor(data_type, [1, 2, 2, out_w], (4 * out_w, 2 * out_w, out_w, 1) if variant != "strided-output-w"
                 else (8 * out_w, 4 * out_w, 2 * out_w, 2))
    fields = {"InputTensor": x, "OutputTensor": out, "DimensionCount": 2, "Strides": [1, stride_w],
              "WindowSize": [2, 2], "StartPadding": [0, 0], "EndPadding": [0, 0], "Dilations": [1, 1]}
    if name == "LP_POOLING1":
        fields["P"] = 2
    elif name == "AVERAGE_POOLING1":
        fields["IncludePadding"] = False
    else:
        fields["OutputIndicesTensor"] = tensor(U32, [1, 2, 2, out_w]) if variant == "indices" else None
    desc = operator(name, **fields)
    assert planned_entries(ref_device, desc, True) == [cpu]
    assert planned_entries(ref_device, desc, False) == ["pooling"]


def test_max_keeps_the_first_of_signed_zeros_in_every_lane(device):
    """MAX's first of equal values, bit for bit: -0 and +0 in both orders in every lane of a 16-wide set read as
    vectors (row 40, 3 x 3 / 1, padding 1) and of the sets at the row's ends; the rest negative. Expected from the
    page's loops (max_loops), compared as bits."""
    rng = np.random.default_rng(5)
    x = -rng.integers(1, 9, (1, 2, 4, 40)).astype(np.float32)
    zeros = rng.random(x.shape) < 0.3
    x[zeros] = np.where(rng.random(x.shape) < 0.5, np.float32(0.0), np.float32(-0.0))[zeros]
    desc = max_desc("MAX_POOLING2", tensor(F32, [1, 2, 4, 40]), tensor(F32, [1, 2, 4, 40]), [3, 3], [1, 1], [1, 1],
                    [1, 1], [1, 1], None)
    got = run(device, desc, InputTensor=x)["OutputTensor"]
    expected, _ = max_loops(x, [3, 3], [1, 1], [1, 1], [1, 1], (4, 40))
    assert (np.signbit(expected) & (expected == 0)).any() and ((~np.signbit(expected)) & (expected == 0)).any()
    np.testing.assert_array_equal(got.view(np.uint32), expected.astype(np.float32).view(np.uint32))


def _ap1(x, out, window=(2, 2), **kw):
    return average_desc("AVERAGE_POOLING1", x, out, list(window), **kw)


@pytest.mark.parametrize(("desc", "expected"), [
    (average_desc("AVERAGE_POOLING", tensor(I32, [1, 1, 2, 2]), tensor(I32, [1, 1, 1, 1]), [2, 2]),
     "InputTensor.DataType INT32 is not supported by DML_OPERATOR_AVERAGE_POOLING (supported: FLOAT32, FLOAT16)"),
    (_ap1(tensor(F32, [1, 1, 2, 2, 2, 2]), tensor(F32, [1, 1, 1, 1, 1, 1]), (2, 2, 2, 2)),
     "InputTensor.DimensionCount 6 is not supported by DML_OPERATOR_AVERAGE_POOLING1 (supported: 4 to 5)"),
    (_ap1(tensor(F32, [1, 1, 2, 2]), tensor(F16, [1, 1, 1, 1])),
     "OutputTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (_ap1(tensor(F32, [1, 1, 5, 5]), tensor(F32, [1, 1, 4, 4]), dilations=[1, 2]),
     "OutputTensor.Sizes [1, 1, 4, 4] must be [1, 1, 4, 3]"),
    (_ap1(tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 1, 1, 1]), dilations=[1, 0]),
     "Dilations[1] must be at least 1, got 0"),
], ids=["int32", "rank-6", "output-type", "dilated-output-size", "dilation-0"])
def test_average_refusals(ref_device, desc, expected):
    assert expected in refused(ref_device, desc)


def test_average_pooling_registered():
    from dmlsim.operators import implemented_names

    assert {f"DML_OPERATOR_{name}" for name in AVERAGE_MEMBERS} <= set(implemented_names())


# --- LP_POOLING, LP_POOLING1 ----------------------------------------------------------------------------------

LP_MEMBERS = ("LP_POOLING", "LP_POOLING1")


def lp_desc(name, x, out, window, p, strides=None, start=None, end=None, dilations=None):
    """An LP_POOLING* desc; LP_POOLING has no Dilations (they must then be all 1)."""
    spatial = len(window)
    fields = {"InputTensor": x, "OutputTensor": out, "DimensionCount": spatial, "Strides": strides or [1] * spatial,
              "WindowSize": list(window), "StartPadding": start or [0] * spatial, "EndPadding": end or [0] * spatial,
              "P": p}
    if name == "LP_POOLING1":
        fields["Dilations"] = dilations or [1] * spatial
    return operator(name, **fields)


def lp_loops(x, window, strides, start, dilations, out_spatial, p):
    """(sum |x|^p)^(1/p) over the elements each window reads, in Python floats (x is float32 or float16: no
    power of a moderate value overflows a double); a window reading nothing: 0."""
    x = np.asarray(x, np.float64)
    spatial = x.shape[2:]
    expected = np.zeros((*x.shape[:2], *out_spatial))
    for out_index in np.ndindex(expected.shape):
        n, c, *o = out_index
        total = 0.0
        for tap in itertools.product(*(range(k) for k in window)):
            pos = [o[i] * strides[i] + tap[i] * dilations[i] - start[i] for i in range(len(o))]
            if all(0 <= q < s for q, s in zip(pos, spatial, strict=True)):
                total += abs(float(x[(n, c, *pos)])) ** p
        expected[out_index] = total ** (1.0 / p)
    return expected


@pytest.mark.parametrize("name", LP_MEMBERS)
def test_lp_by_hand(device, name):
    """Windows of 2 over [pad, 3, -4, 1e-30, 1e-30, 1e30, 1e30] (StartPadding 1): P = 2: [pad, 3] = 3, [3, -4] = 5
    (absolute values), [-4, 1e-30] = 4, [1e-30, 1e-30] = sqrt(2) 1e-30 (1e-60 underflows float32: the kernel must
    scale), [1e-30, 1e30] = 1e30, [1e30, 1e30] = sqrt(2) 1e30 (1e60 overflows float32). P = 1: 3, 7, 4, 2e-30, 1e30,
    2e30. A second channel [inf, NaN, 2, -inf, 0, 0]: inf, NaN, NaN, inf, inf, 0."""
    x = np.array([3, -4, 1e-30, 1e-30, 1e30, 1e30, np.inf, np.nan, 2, -np.inf, 0, 0], np.float32).reshape(1, 2, 1, 6)
    for p, first in ((2, [3, 5, 4, math.sqrt(2) * 1e-30, 1e30, math.sqrt(2) * 1e30]),
                     (1, [3, 7, 4, 2e-30, 1e30, 2e30])):
        desc = lp_desc(name, tensor(F32, [1, 2, 1, 6]), tensor(F32, [1, 2, 1, 6]), [1, 2], p, start=[0, 1])
        got = run(device, desc, InputTensor=x)["OutputTensor"].reshape(2, 6)
        np.testing.assert_allclose(got[0], np.array(first, np.float32), rtol=4e-7, atol=0)
        np.testing.assert_array_equal(got[1], [np.inf, np.nan, np.nan, np.inf, np.inf, 0])


@pytest.mark.parametrize(("name", "data_type", "sizes", "window", "strides", "start", "end", "dilations", "p"), [
    ("LP_POOLING", F32, (2, 3, 5, 6), (2, 3), (1, 2), (1, 0), (0, 2), (1, 1), 2),
    ("LP_POOLING", F16, (1, 2, 3, 4, 5), (2, 2, 3), (2, 1, 2), (0, 1, 2), (1, 0, 1), (1, 1, 1), 3),
    ("LP_POOLING1", F32, (1, 2, 4, 3, 7), (2, 2, 2), (1, 2, 3), (1, 1, 0), (0, 2, 2), (2, 1, 3), 1),
    ("LP_POOLING1", F16, (2, 1, 6, 6), (3, 2), (2, 2), (2, 1), (2, 1), (2, 3), 4),
], ids=["4d-p2", "5d-f16-p3", "5d-dilated-p1", "4d-dilated-f16-p4"])
def test_lp_matches_the_description(device, name, data_type, sizes, window, strides, start, end, dilations, p):
    """Tolerance: T + 8 float32 ulps of the result (T scaled powers summed, no cancellation, then a root); FLOAT16 1
    ulp after the half rounding."""
    rng = np.random.default_rng(sum(sizes) + p)
    x = rng.uniform(-4, 4, sizes).astype(NUMPY[data_type])
    out_spatial = tuple((s + a + b - (k - 1) * d - 1) // st + 1
                        for s, a, b, k, d, st in zip(sizes[2:], start, end, window, dilations, strides, strict=True))
    desc = lp_desc(name, tensor(data_type, sizes), tensor(data_type, (*sizes[:2], *out_spatial)), window, p,
                   list(strides), list(start), list(end), list(dilations))
    got = run(device, desc, InputTensor=x)["OutputTensor"]
    expected = lp_loops(x, window, strides, start, dilations, out_spatial, p)
    report = compare_ulps(got, expected, NUMPY[data_type], 1 if data_type == F16 else math.prod(window) + 8)
    assert report.ok, report.describe("OutputTensor")


def test_lp_strided_broadcast_input(device):
    """An input broadcast along W (stride 0) into a padded output: the same norms as the packed layouts."""
    rng = np.random.default_rng(11)
    x = np.broadcast_to(rng.uniform(-3, 3, (1, 2, 3, 1)).astype(np.float32), (1, 2, 3, 4))
    desc = lp_desc("LP_POOLING1", tensor(F32, [1, 2, 3, 4], [6, 3, 1, 0]), tensor(F32, [1, 2, 2, 3], [24, 12, 4, 1]),
                   [2, 2], 2, dilations=[1, 1])
    got = run(device, desc, InputTensor=np.ascontiguousarray(x))["OutputTensor"]
    report = compare_ulps(got, lp_loops(x, [2, 2], [1, 1], [0, 0], [1, 1], (2, 3), 2), np.float32, 12)
    assert report.ok, report.describe("OutputTensor")


@pytest.mark.parametrize(("desc", "expected"), [
    (lp_desc("LP_POOLING", tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 1, 1, 1]), [2, 2], 0),
     "DML_LP_POOLING_OPERATOR_DESC.P must be at least 1, got 0"),
    (lp_desc("LP_POOLING1", tensor(U8, [1, 1, 2, 2]), tensor(U8, [1, 1, 1, 1]), [2, 2], 2),
     "InputTensor.DataType UINT8 is not supported by DML_OPERATOR_LP_POOLING1 (supported: FLOAT32, FLOAT16)"),
    (lp_desc("LP_POOLING1", tensor(F32, [1, 1, 5, 5]), tensor(F32, [1, 1, 4, 4]), [2, 2], 2, dilations=[2, 1]),
     "OutputTensor.Sizes [1, 1, 4, 4] must be [1, 1, 3, 4]"),
], ids=["p-0", "uint8", "dilated-output-size"])
def test_lp_refusals(ref_device, desc, expected):
    assert expected in refused(ref_device, desc)


def test_lp_pooling_registered():
    from dmlsim.operators import implemented_names

    assert {f"DML_OPERATOR_{name}" for name in LP_MEMBERS} <= set(implemented_names())


# --- MAX_UNPOOLING --------------------------------------------------------------------------------------------

def unpool_desc(x, indices, out):
    return operator("MAX_UNPOOLING", InputTensor=x, IndicesTensor=indices, OutputTensor=out)


@pytest.mark.parametrize("data_type", [F32, F16, I64, U8], ids=type_id)
def test_unpooling_by_hand(device, data_type):
    """[1, 2; 3, 4] with indices [5, 7, 13, 16] into a 4 x 4 output: 1 at row 1 column 1, 2 at (1, 3), 3 at (3, 1);
    index 16 is past the output's 16 elements and is skipped; every other element 0 (written, not left as it was)."""
    desc = unpool_desc(tensor(data_type, [1, 1, 2, 2]), tensor(U32, [1, 1, 2, 2]), tensor(data_type, [1, 1, 4, 4]))
    got = run(device, desc, InputTensor=np.array([1, 2, 3, 4], NUMPY[data_type]),
              IndicesTensor=np.array([5, 7, 13, 16], np.uint32))["OutputTensor"]
    expected = np.zeros(16, NUMPY[data_type])
    expected[[5, 7, 13]] = [1, 2, 3]
    assert got.dtype == NUMPY[data_type]
    np.testing.assert_array_equal(got.reshape(-1), expected)


def test_unpooling_strided_tensors_and_extremes(device):
    """A channel-broadcast input (stride 0) with UINT64 indices laid out column-major, into a padded INT64 output:
    the values (INT64 extremes, exact) land at the row-major positions of the output's sizes, whatever its strides."""
    plane = np.array([[np.iinfo(np.int64).min, 7], [np.iinfo(np.int64).max, -1]], np.int64)
    x = np.broadcast_to(plane, (1, 2, 2, 2))
    where = np.array([[[0, 5], [10, 15]], [[16, 21], [26, 31]]], np.uint64).reshape(1, 2, 2, 2)
    desc = unpool_desc(tensor(I64, [1, 2, 2, 2], [0, 0, 2, 1]), tensor(U64, [1, 2, 2, 2], [8, 1, 2, 4]),
                       tensor(I64, [1, 2, 4, 4], [64, 32, 8, 1]))
    got = run(device, desc, InputTensor=np.ascontiguousarray(x), IndicesTensor=where)["OutputTensor"]
    expected = np.zeros(32, np.int64)
    expected[where.reshape(-1).astype(np.int64)] = x.reshape(-1)
    np.testing.assert_array_equal(got.reshape(-1), expected)


@pytest.mark.parametrize(("desc", "expected"), [
    (unpool_desc(tensor(F32, [1, 2, 2]), tensor(U32, [1, 2, 2]), tensor(F32, [1, 4, 4])),
     "InputTensor.DimensionCount 3 is not supported by DML_OPERATOR_MAX_UNPOOLING (supported: 4)"),
    (unpool_desc(tensor(F32, [1, 1, 2, 2]), tensor(I32, [1, 1, 2, 2]), tensor(F32, [1, 1, 4, 4])),
     "IndicesTensor.DataType INT32 is not supported by DML_OPERATOR_MAX_UNPOOLING (supported: UINT32, UINT64)"),
    (unpool_desc(tensor(F64, [1, 1, 2, 2]), tensor(U32, [1, 1, 2, 2]), tensor(F64, [1, 1, 4, 4])),
     "InputTensor.DataType FLOAT64 is not supported by DML_OPERATOR_MAX_UNPOOLING"),
    (unpool_desc(tensor(F32, [1, 1, 2, 2]), tensor(U32, [1, 1, 2, 2]), tensor(F16, [1, 1, 4, 4])),
     "OutputTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (unpool_desc(tensor(F32, [1, 1, 2, 2]), tensor(U32, [1, 1, 2, 1]), tensor(F32, [1, 1, 4, 4])),
     "IndicesTensor.Sizes [1, 1, 2, 1] must equal InputTensor.Sizes [1, 1, 2, 2]"),
], ids=["rank-3", "indices-int32", "float64", "output-type", "indices-sizes"])
def test_unpooling_refusals(ref_device, desc, expected):
    assert expected in refused(ref_device, desc)
