"""DML_OPERATOR_FOLD and DML_OPERATOR_UNFOLD, on every adapter (ONNX's Col2Im node cases: tests/test_move_onnx.py).

Expected values: the doc pages' examples transcribed, and loops written here from the pages' formulas (window
position k of block b reads the padded image at ``b * Strides + k * Dilations - StartPadding``), independent of
dmlsim's reference. UNFOLD moves elements: compared exactly, by bits. FOLD sums in float32 over the window
positions: tolerance K ulps (K = the window positions adding into an element, at most prod(WindowSizes)) of the
sum of the terms' magnitudes for FLOAT32; FLOAT16 1 half ulp of that bound after the half rounding (the float32
error is far below it for the small windows here).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from datamove_support import F16, F32, F64, I8, I32, I64, NUMPY, U16, operator, refused, run, skip_without_fp64, tensor

from dmlsim.api.numerics import compare_ulps

OUT = "OutputTensor"


def bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}")


def desc(name, x_desc, y_desc, window, strides=None, dilations=None, start=None, end=None):
    d = len(window)
    return operator(name, InputTensor=x_desc, OutputTensor=y_desc, DimensionCount=d, WindowSizes=list(window),
                    Strides=list(strides or [1] * d), Dilations=list(dilations or [1] * d),
                    StartPadding=list(start or [0] * d), EndPadding=list(end or [0] * d))


def reads(spatial, window, strides, dilations, start, end):
    """(k index, block index, image coordinate or None) for every window position and block, row-major."""
    blocks = [(s + a + e - d * (w - 1) - 1) // t + 1
              for s, w, t, d, a, e in zip(spatial, window, strides, dilations, start, end, strict=True)]
    out = []
    for ki, k in enumerate(itertools.product(*(range(w) for w in window))):
        for bi, b in enumerate(itertools.product(*(range(n) for n in blocks))):
            p = [bd * t + kd * d - a for bd, kd, t, d, a in zip(b, k, strides, dilations, start, strict=True)]
            inside = all(0 <= q < s for q, s in zip(p, spatial, strict=True))
            out.append((ki, bi, tuple(p) if inside else None))
    return out, int(np.prod(blocks))


def unfold_of(x, window, strides, dilations, start, end):
    n, c, *spatial = x.shape
    table, count = reads(spatial, window, strides, dilations, start, end)
    k = int(np.prod(window))
    out = np.zeros((n, c * k, count), x.dtype)
    for ki, bi, p in table:
        if p is not None:
            for ch in range(c):
                out[:, ch * k + ki, bi] = x[(slice(None), ch, *p)]
    return out


def fold_of(cols, spatial, window, strides, dilations, start, end):
    """The sum and the sum of magnitudes (the ulp bound) of each image element."""
    n, rows, _ = cols.shape
    k = int(np.prod(window))
    c = rows // k
    table, _ = reads(spatial, window, strides, dilations, start, end)
    total, bound = np.zeros((n, c, *spatial)), np.zeros((n, c, *spatial))
    for ki, bi, p in table:
        if p is not None:
            for ch in range(c):
                term = cols[:, ch * k + ki, bi].astype(np.float64)
                total[(slice(None), ch, *p)] += term
                bound[(slice(None), ch, *p)] += np.abs(term)
    return total, bound


# --- the pages' examples -----------------------------------------------------------------------------------------
FOLD_EXAMPLE_1 = [[0, 5, 13, 9], [14, 38, 54, 32], [38, 86, 102, 56], [26, 57, 65, 35]]
FOLD_EXAMPLE_2 = [[26, 70, 102, 60], [78, 183, 231, 129], [84, 195, 243, 135], [82, 182, 214, 116]]
FOLD_EXAMPLE_3_CHANNEL_1 = [[170, 358, 390, 204], [294, 615, 663, 345], [300, 627, 675, 351], [226, 470, 502, 260]]


@pytest.mark.parametrize(("rows", "cols", "channels", "pad", "expected"), [
    (9, 4, 1, 0, [FOLD_EXAMPLE_1]),
    (9, 8, 1, 1, [FOLD_EXAMPLE_2]),
    (18, 8, 2, 1, [FOLD_EXAMPLE_2, FOLD_EXAMPLE_3_CHANNEL_1]),
], ids=["example-1", "example-2-padded", "example-3-two-channels"])
def test_fold_doc_examples(device, rows, cols, channels, pad, expected):
    x = np.arange(rows * cols, dtype=np.float32).reshape(1, rows, cols)
    op = desc("FOLD", tensor(F32, [1, rows, cols]), tensor(F32, [1, channels, 4, 4]), [3, 3], start=[pad, 0],
              end=[pad, 0])
    assert run(device, op, InputTensor=x)[OUT].tolist() == [expected]


def test_unfold_doc_example_2_padded(device):
    x = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
    op = desc("UNFOLD", tensor(F32, [1, 1, 5, 5]), tensor(F32, [1, 9, 15]), [3, 3], start=[1, 0], end=[1, 0])
    got = run(device, op, InputTensor=x)[OUT]
    assert got[0, 0].tolist() == [0, 0, 0, 0, 1, 2, 5, 6, 7, 10, 11, 12, 15, 16, 17]
    assert got[0, 8].tolist() == [7, 8, 9, 12, 13, 14, 17, 18, 19, 22, 23, 24, 0, 0, 0]
    assert got.tolist() == unfold_of(x, [3, 3], [1, 1], [1, 1], [1, 0], [1, 0]).tolist()


def test_unfold_doc_example_1_same_dimension_count(device):
    """The pages' constraint read literally: a columns tensor of the image's DimensionCount (a leading 1)."""
    x = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
    got = run(device, desc("UNFOLD", tensor(F32, [1, 1, 5, 5]), tensor(F32, [1, 1, 9, 9]), [3, 3]), InputTensor=x)[OUT]
    assert got[0, 0, 0].tolist() == [0, 1, 2, 5, 6, 7, 10, 11, 12]
    assert got[0, 0, 8].tolist() == [12, 13, 14, 17, 18, 19, 22, 23, 24]


# --- geometry, data types, strides -------------------------------------------------------------------------------
GEOMETRIES = {
    "1d-stride-dilation": ([2, 3, 11], [3], [2], [2], [1], [2]),
    "3d-mixed": ([1, 2, 4, 3, 5], [2, 1, 3], [1, 2, 2], [2, 1, 1], [0, 1, 1], [1, 0, 2]),
}


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=list(GEOMETRIES))
@pytest.mark.parametrize("data_type", (F64, F16, I64, I8, U16), ids=lambda t: NUMPY[t].__name__)
def test_unfold_types_strides_and_specials(device, geometry, data_type):
    """Every width; a permuted image, a padded columns tensor; NaN payloads, -0.0, infinities move unchanged."""
    skip_without_fp64(device, data_type)
    sizes, window, strides, dilations, start, end = GEOMETRIES[geometry]
    dtype = np.dtype(NUMPY[data_type])
    count = int(np.prod(sizes))
    x = (np.arange(count, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)).astype(f"u{dtype.itemsize}")
    x = x.view(dtype).reshape(sizes)
    if dtype.kind == "f":
        x.reshape(-1)[:4] = [np.nan, -0.0, np.inf, -np.inf]
    expected = unfold_of(x, window, strides, dilations, start, end)
    x_strides = [1] + [0] * (len(sizes) - 1)  # the batch innermost in memory
    running = sizes[0]
    for d in range(1, len(sizes)):
        x_strides[d] = running
        running *= sizes[d]
    y_sizes = list(expected.shape)
    y_strides = [y_sizes[1] * (y_sizes[2] + 3), y_sizes[2] + 3, 1]
    op = desc("UNFOLD", tensor(data_type, sizes, x_strides), tensor(data_type, y_sizes, y_strides), window, strides,
              dilations, start, end)
    got = run(device, op, InputTensor=x)[OUT]
    assert bits(got).tolist() == bits(expected).tolist()


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=list(GEOMETRIES))
@pytest.mark.parametrize("data_type", (F32, F16), ids=["FLOAT32", "FLOAT16"])
def test_fold_values_and_strides(device, geometry, data_type):
    """Random values (with ±0 and ±inf) summed over overlapping windows; a transposed columns tensor."""
    sizes, window, strides, dilations, start, end = GEOMETRIES[geometry]
    _, count = reads(sizes[2:], window, strides, dilations, start, end)
    rows = sizes[1] * int(np.prod(window))
    rng = np.random.default_rng(len(sizes))
    cols = rng.normal(0, 10, (sizes[0], rows, count)).astype(NUMPY[data_type])
    cols.reshape(-1)[:3] = [0.0, -0.0, np.inf]
    total, bound = fold_of(cols, sizes[2:], window, strides, dilations, start, end)
    op = desc("FOLD", tensor(data_type, list(cols.shape), [rows * count, 1, rows]), tensor(data_type, sizes),
              window, strides, dilations, start, end)
    got = run(device, op, InputTensor=cols)[OUT]
    report = compare_ulps(got, total, NUMPY[data_type], int(np.prod(window)) if data_type == F32 else 1, bound)
    assert report.ok, report.mismatches


def test_fold_float16_rounds_once(device):
    """Three (window position, block) pairs add into a 1-element image (window 3, padding 2 and 2: block b's
    position k reads b + k - 2): 1 + 2^-11 + 2^-11 summed in float32 is 1 + 2^-10, stored exactly (a sum rounded to
    half after each addition would stay at 1: 1 + 2^-11 is a tie that rounds to even)."""
    cols = np.zeros((1, 3, 3), np.float16)
    cols[0, 2, 0], cols[0, 1, 1], cols[0, 0, 2] = 1.0, 2.0**-11, 2.0**-11
    op = desc("FOLD", tensor(F16, [1, 3, 3]), tensor(F16, [1, 1, 1]), [3], start=[2], end=[2])
    got = run(device, op, InputTensor=cols)[OUT]
    assert got.ravel().tolist() == [1.0 + 2.0**-10]


# --- refusals ----------------------------------------------------------------------------------------------------
def test_refusals_name_the_field(ref_device):
    fold_name, unfold_name = "DML_FOLD_OPERATOR_DESC", "DML_UNFOLD_OPERATOR_DESC"
    image, cols = tensor(F32, [1, 1, 4, 4]), tensor(F32, [1, 9, 4])
    assert f"{fold_name}.InputTensor.DataType INT32 is not supported" in refused(
        ref_device, desc("FOLD", tensor(I32, [1, 9, 4]), tensor(I32, [1, 1, 4, 4]), [3, 3]))
    assert f"{fold_name}.OutputTensor.DataType" in refused(
        ref_device, desc("FOLD", cols, tensor(F16, [1, 1, 4, 4]), [3, 3]))
    assert f"{fold_name}.InputTensor.Sizes [1, 9, 5] must end in [1, 9, 4]" in refused(
        ref_device, desc("FOLD", tensor(F32, [1, 9, 5]), image, [3, 3]))
    assert f"{fold_name}.OutputTensor.DimensionCount 4 must be 2 + DimensionCount 3" in refused(
        ref_device, desc("FOLD", cols, image, [3, 3, 1]))
    assert f"{unfold_name}.Strides[1] 0 must be at least 1" in refused(
        ref_device, desc("UNFOLD", image, cols, [3, 3], strides=[1, 0]))
    assert f"{unfold_name}.Dilations[0] 0 must be at least 1" in refused(
        ref_device, desc("UNFOLD", image, cols, [3, 3], dilations=[0, 1]))
    assert f"{unfold_name}.WindowSizes[0] 0 must be at least 1" in refused(
        ref_device, desc("UNFOLD", image, cols, [0, 3]))
    assert f"{unfold_name}: the window of dimension 1" in refused(
        ref_device, desc("UNFOLD", image, cols, [3, 3], dilations=[1, 2]))
    assert f"{unfold_name}.OutputTensor.Sizes [2, 9, 4] must end in [1, 9, 4]" in refused(
        ref_device, desc("UNFOLD", image, tensor(F32, [2, 9, 4]), [3, 3]))
    assert f"{unfold_name}.DimensionCount 7 must be in [1, 6]" in refused(
        ref_device, desc("UNFOLD", tensor(F32, [1, 1, 1, 1, 1, 1, 1, 1]), cols, [1] * 7))


def test_six_spatial_dimensions(device):
    """DimensionCount 6 (an 8-D image: the batch and channel at the first two of the eight dimensions): UNFOLD,
    then FOLD of its columns (each image element read once per window covering it, so FOLD(UNFOLD(x)) is x times
    that count: computed here by the loops above)."""
    sizes, window = [1, 2, 2, 1, 3, 1, 2, 1], [2, 1, 2, 1, 1, 1]
    ones, zeros = [1] * 6, [0] * 6
    x = np.arange(1, 1 + int(np.prod(sizes)), dtype=np.float32).reshape(sizes)
    cols = unfold_of(x, window, ones, ones, zeros, zeros)
    got = run(device, desc("UNFOLD", tensor(F32, sizes), tensor(F32, list(cols.shape)), window), InputTensor=x)[OUT]
    assert got.tolist() == cols.tolist()
    total, _ = fold_of(cols, sizes[2:], window, ones, ones, zeros, zeros)
    back = run(device, desc("FOLD", tensor(F32, list(cols.shape)), tensor(F32, sizes), window), InputTensor=cols)[OUT]
    assert back.tolist() == total.tolist()
