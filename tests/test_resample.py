"""DML_OPERATOR_RESAMPLE, RESAMPLE1, RESAMPLE2, RESAMPLE_GRAD and RESAMPLE_GRAD1 (dmlsim/operators/resample), on
every adapter.

Expected values are literals worked out by hand or the pages' description written out here as float64 loops (never
dmlsim's reference; onnx's Resize/Upsample node cases are in tests/test_resample_onnx.py): per axis, output index
``o`` sits at input coordinate ``x = (o - OutputPixelOffset) / Scale - InputPixelOffset``; nearest neighbor takes
``floor(x + 0.5)`` (RESAMPLE/RESAMPLE1) or ``ceil(x)``/``floor(x)`` (RESAMPLE2 INCREASING/DECREASING), clamped to
the edges; linear clamps ``x`` to ``[0, size - 1]`` and weights the two elements around it by distance, on every axis.

Tolerance, in ulps of the interpolation's magnitude bound (the largest |input| that enters the output): a float32
sum of at most 16 products of four float32 weights and an input: 10 ulps FLOAT32; FLOAT16 one half ulp after
the single rounding to half; INT8/UINT8 exactly (the cases keep the weights exact: multiples of 1/8). The
gradients: the transpose of the forward description's per-axis matrices, applied axis by axis (tolerances at
their tests).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from dispatch import Dispatch
from resample_support import (
    DOWN,
    F16,
    F32,
    FLT_MAX,
    I8,
    LINEAR,
    NEAREST,
    NUMPY,
    U8,
    UP,
    resample0,
    resample1,
    resample2,
    resample_grad0,
    resample_grad1,
    run,
    run_grad,
    tensor,
)

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps


def resample_loops(x, out_shape, scales, input_offsets, output_offsets, linear, rounding="half_up"):
    """Each output element from the pages' description, one at a time: (expected, magnitude bound)."""
    x = np.asarray(x, np.float64)
    out = np.zeros(out_shape)
    bound = np.zeros(out_shape)
    for index in np.ndindex(*out_shape):
        per_axis = []
        for axis, o in enumerate(index):
            size = x.shape[axis]
            s, i_off, o_off = (float(np.float32(v)) for v in (scales[axis], input_offsets[axis],
                                                               output_offsets[axis]))
            c = (o - o_off) / s - i_off
            if not linear:
                i = {"half_up": math.floor(c + 0.5), "ceil": math.ceil(c), "floor": math.floor(c)}[rounding]
                per_axis.append([(min(max(i, 0), size - 1), 1.0)])
                continue
            c = min(max(c, 0.0), size - 1.0)
            low = math.floor(c)
            f = c - low
            per_axis.append([(low, 1.0 - f)] + ([(low + 1, f)] if f > 0 else []))
        total, largest = 0.0, 0.0
        for combination in itertools.product(*per_axis):
            weight = math.prod(w for _, w in combination)
            value = x[tuple(i for i, _ in combination)]
            total += weight * value
            largest = max(largest, abs(value)) if np.isfinite(value) else largest
        out[index] = total
        bound[index] = largest
    return out, bound


def check(got, expected, bound, data_type):
    if data_type in (I8, U8):
        np.testing.assert_array_equal(got, expected)
        return
    report = compare_ulps(got, expected, NUMPY[data_type], 1 if data_type == F16 else 10, bound)
    assert report.ok, report.describe("OutputTensor")


# --- literal values ---------------------------------------------------------------------------------------
def test_resample_linear_by_hand(device):
    """RESAMPLE [[1, 2], [3, 4]] scaled 2 x 2 (pixel centers): coordinates along each axis -0.25 (clamped to 0),
    0.25, 0.75, 1.25 (clamped to 1): row 0 = [1, 1.25, 1.75, 2], row 1 (a quarter of the way to [3, 4]) =
    [1.5, 1.75, 2.25, 2.5], row 2 = [2.5, 2.75, 3.25, 3.5], row 3 = [3, 3.25, 3.75, 4]."""
    desc = resample0(tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 1, 4, 4]), LINEAR, [1, 1, 2, 2])
    got = run(device, desc, np.array([1, 2, 3, 4], np.float32))
    np.testing.assert_array_equal(got.reshape(-1), [1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5,
                                                    3, 3.25, 3.75, 4])


def test_resample_nearest_downsample_by_hand(device):
    """RESAMPLE 1-D [10, 11, 12, 13, 14, 15] at scale 0.5 into 3: output o sits at 2o + 0.5, rounded half up:
    inputs 1, 3, 5 -> [11, 13, 15]."""
    desc = resample0(tensor(F32, [6]), tensor(F32, [3]), NEAREST, [0.5])
    got = run(device, desc, np.arange(10, 16, dtype=np.float32))
    np.testing.assert_array_equal(got, [11, 13, 15])


def test_resample1_asymmetric_and_crop_by_hand(device):
    """RESAMPLE1 with both offsets 0 (ONNX's "asymmetric"): x = o / 1.5 for o = 0..4 = 0, 2/3, 4/3, 2, 8/3.
    Nearest (floor(x + 0.5)): inputs 0, 1, 1, 2, 3 of [0, 10, 20, 30] -> [0, 10, 10, 20, 30]. Linear: [0, 6.667,
    13.333, 20, 26.667]; a 2-element output crops: [0, 6.667]."""
    x = np.array([0, 10, 20, 30], np.float32)
    got = run(device, resample1(tensor(F32, [4]), tensor(F32, [5]), NEAREST, [1.5], [0], [0]), x)
    np.testing.assert_array_equal(got, [0, 10, 10, 20, 30])
    got = run(device, resample1(tensor(F32, [4]), tensor(F32, [5]), LINEAR, [1.5], [0], [0]), x)
    np.testing.assert_allclose(got, [0, 20 / 3, 40 / 3, 20, 80 / 3], rtol=0, atol=10 * 2**-23 * 30)
    got = run(device, resample1(tensor(F32, [4]), tensor(F32, [2]), LINEAR, [1.5], [0], [0]), x)
    np.testing.assert_allclose(got, [0, 20 / 3], rtol=0, atol=10 * 2**-23 * 30)


def test_resample2_rounding_direction_by_hand(device):
    """RESAMPLE2, scale 2 with both offsets 0: x = o / 2 = 0, 0.5, 1, 1.5, 2, 2.5 over [1, 2, 3]. DECREASING
    (floor): inputs 0, 0, 1, 1, 2, 2 -> [1, 1, 2, 2, 3, 3]; INCREASING (ceil): 0, 1, 1, 2, 2, 3 clamped to 2
    -> [1, 2, 2, 3, 3, 3]; RESAMPLE1 (halves up) gives the ceil answer at these ties."""
    x = np.array([1, 2, 3], np.float32)
    got = run(device, resample2(tensor(F32, [3]), tensor(F32, [6]), NEAREST, DOWN, [2], [0], [0]), x)
    np.testing.assert_array_equal(got, [1, 1, 2, 2, 3, 3])
    got = run(device, resample2(tensor(F32, [3]), tensor(F32, [6]), NEAREST, UP, [2], [0], [0]), x)
    np.testing.assert_array_equal(got, [1, 2, 2, 3, 3, 3])
    got = run(device, resample1(tensor(F32, [3]), tensor(F32, [6]), NEAREST, [2], [0], [0]), x)
    np.testing.assert_array_equal(got, [1, 2, 2, 3, 3, 3])
    # LINEAR ignores RoundingDirection: [1, 1.5, 2, 2.5, 3, 3] either way
    for rounding in (UP, DOWN):
        got = run(device, resample2(tensor(F32, [3]), tensor(F32, [6]), LINEAR, rounding, [2], [0], [0]), x)
        np.testing.assert_array_equal(got, [1, 1.5, 2, 2.5, 3, 3])


@pytest.mark.parametrize(("data_type", "x", "expected"), [
    (U8, [0, 2, 255, 250], [0, 0, 2, 65, 192, 254, 251, 250]),
    (I8, [-128, 1, 127, -3], [-128, -96, -31, 32, 96, 94, 30, -3]),
], ids=["UINT8", "INT8"])
def test_integer_rounding_by_hand(device, data_type, x, expected):
    """RESAMPLE LINEAR 1-D at scale 2 (pixel centers): x = (o + 0.5) / 2 - 0.5 clamped = 0, 0.25, 0.75, 1.25,
    1.75, 2.25, 2.75, 3. UINT8 [0, 2, 255, 250]: 0, 0.5 (tie: 0), 1.5 (tie: 2), 2 + 253/4 = 65.25, 2 + 759/4 =
    191.75, 255 - 5/4 = 253.75, 255 - 15/4 = 251.25, 250. INT8 [-128, 1, 127, -3]: -128, -95.75, -31.25, 32.5
    (tie: 32), 95.5 (tie: 96), 94.5 (tie: 94), 29.5 (tie: 30), -3. Ties go to even."""
    desc = resample0(tensor(data_type, [4]), tensor(data_type, [8]), LINEAR, [2])
    got = run(device, desc, np.array(x, NUMPY[data_type]))
    np.testing.assert_array_equal(got, expected)


def test_linear_exact_sample_ignores_inf_beside_it(device):
    """An output exactly on an input sample is that sample: [5, inf, NaN] at scale 1 is [5, inf, NaN], and at
    scale 2 (pixel centers, x = -0.25, 0.25, ...) the output at 0 clamps onto 5 (no 0 * inf): [5, inf, inf, NaN,
    NaN, NaN]; -0 stays -0."""
    x = np.array([5, np.inf, np.nan], np.float32)
    got = run(device, resample0(tensor(F32, [3]), tensor(F32, [3]), LINEAR, [1]), x)
    np.testing.assert_array_equal(got, x)
    got = run(device, resample0(tensor(F32, [3]), tensor(F32, [6]), LINEAR, [2]), x)
    np.testing.assert_array_equal(got, [5, np.inf, np.inf, np.nan, np.nan, np.nan])
    got = run(device, resample0(tensor(F32, [2]), tensor(F32, [4]), LINEAR, [2]), np.array([-0.0, -0.0], np.float32))
    assert np.all(np.signbit(got)) and np.all(got == 0)


# --- the description written out, every data type, rank and scale kind -----------------------------------
CASES = {
    "1d-up-1.5": ((5,), (8,), [1.5], [0.5], [-0.5]),
    "2d-down-non-integer": ((5, 7), (3, 3), [0.6, 0.45], [0.5, 0.25], [-0.5, 0.0]),
    "3d-channels-too": ((3, 2, 3), (5, 4, 4), [1.7, 2.0, 1.25], [0.5, 0.0, 0.5], [-0.5, 0.0, 0.25]),
    "4d-quadrilinear": ((2, 3, 2, 3), (3, 4, 4, 2), [1.5, 1.4, 2.0, 0.7], [0.5, 0.5, 0.5, 0.5],
                        [-0.5, -0.5, -0.5, -0.5]),
}


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("mode", [NEAREST, LINEAR], ids=["NEAREST", "LINEAR"])
@pytest.mark.parametrize("name", list(CASES))
def test_resample1_matches_the_description(device, data_type, mode, name):
    sizes, out_sizes, scales, input_offsets, output_offsets = CASES[name]
    rng = np.random.default_rng(len(name))
    x = rng.uniform(-4, 4, sizes).astype(NUMPY[data_type])
    flat = x.reshape(-1)
    flat[:4] = [np.inf, -0.0, np.nan, 0.0]
    desc = resample1(tensor(data_type, sizes), tensor(data_type, out_sizes), mode, scales, input_offsets,
                     output_offsets)
    expected, bound = resample_loops(x, out_sizes, scales, input_offsets, output_offsets, mode == LINEAR)
    check(run(device, desc, x), expected, bound, data_type)


@pytest.mark.parametrize("rounding", [UP, DOWN], ids=["INCREASING", "DECREASING"])
@pytest.mark.parametrize("data_type", [F32, U8], ids=["FLOAT32", "UINT8"])
def test_resample2_nearest_matches_the_description(device, rounding, data_type):
    """Scales with exact ties (0.5, 2, 4) and offsets 0 or ±0.5, so rounding up and down differ."""
    sizes, out_sizes = (3, 4, 2), (4, 9, 5)
    scales, input_offsets, output_offsets = [2.0, 2.0, 4.0], [0.0, 0.5, 0.0], [0.0, 0.0, -0.5]
    x = np.arange(24).reshape(sizes).astype(NUMPY[data_type])
    desc = resample2(tensor(data_type, sizes), tensor(data_type, out_sizes), NEAREST, rounding, scales,
                     input_offsets, output_offsets)
    expected, bound = resample_loops(x, out_sizes, scales, input_offsets, output_offsets, False,
                                     "ceil" if rounding == UP else "floor")
    check(run(device, desc, x), expected, bound, data_type)


@pytest.mark.parametrize("data_type", [I8, U8], ids=["INT8", "UINT8"])
def test_integer_linear_matches_the_description(device, data_type):
    """Weights multiples of 1/8 (scales 2 and 4, pixel centers): exact float32 sums, ties rounded to even."""
    sizes, out_sizes, scales = (3, 2, 3), (3, 4, 12), [1.0, 2.0, 4.0]
    info = np.iinfo(NUMPY[data_type])
    rng = np.random.default_rng(7)
    x = rng.integers(info.min, info.max + 1, sizes).astype(NUMPY[data_type])
    x.reshape(-1)[:2] = [info.min, info.max]
    desc = resample0(tensor(data_type, sizes), tensor(data_type, out_sizes), LINEAR, scales)
    expected, _ = resample_loops(x, out_sizes, scales, [0.5] * 3, [-0.5] * 3, True)
    np.testing.assert_array_equal(run(device, desc, x), np.clip(np.rint(expected), info.min, info.max))


def test_strides_broadcast_and_binding_offsets(device):
    """An input broadcast along its channel axis (stride 0) and permuted, into a padded output, both at
    non-zero offsets of one guard-filled buffer: the same numbers as the loops, no byte around the output
    touched."""
    sizes, out_sizes = (2, 3, 2, 3), (2, 3, 3, 5)
    scales, input_offsets, output_offsets = [1.0, 1.0, 1.5, 1.6], [0.5] * 4, [-0.5] * 4
    x_strides, y_strides = [6, 0, 1, 2], [64, 20, 6, 1]
    rng = np.random.default_rng(11)
    x = rng.uniform(-2, 2, (2, 1, 2, 3)).astype(np.float32)
    full = np.broadcast_to(x, sizes)
    desc = resample1(tensor(F32, sizes, x_strides), tensor(F32, out_sizes, y_strides), LINEAR, scales,
                     input_offsets, output_offsets)
    x_bytes = dml.DMLCalcBufferTensorSize(F32, 4, sizes, x_strides)
    y_bytes = dml.DMLCalcBufferTensorSize(F32, 4, out_sizes, y_strides)
    x_at, y_at = 32, 32 + -(-x_bytes // 16) * 16 + 48
    total = y_at + y_bytes + 64
    shared = device.CreateBuffer(total)
    shared.Write(bytes([0x5A]) * total)
    dispatch = Dispatch(device, desc, placement={"InputTensor": (shared, x_at), "OutputTensor": (shared, y_at)})
    dispatch.load({"InputTensor": full})
    dispatch.execute()
    got = dispatch.read("OutputTensor")
    expected, bound = resample_loops(full, out_sizes, scales, input_offsets, output_offsets, True)
    check(got, expected, bound, F32)
    raw = np.frombuffer(shared.Read(y_at, y_bytes), np.uint8).reshape(-1, 4)
    written = np.zeros(len(raw), bool)
    for index in np.ndindex(*out_sizes):
        written[sum(i * s for i, s in zip(index, y_strides, strict=True))] = True
    assert np.all(raw[~written] == 0x5A), "padding between output elements was written"
    assert shared.Read(y_at + y_bytes, total - y_at - y_bytes) == bytes([0x5A]) * (total - y_at - y_bytes)
    assert shared.Read(x_at + x_bytes, y_at - x_at - x_bytes) == bytes([0x5A]) * (y_at - x_at - x_bytes)


# --- RESAMPLE_GRAD and RESAMPLE_GRAD1: the forward resampling's transpose ---------------------------------
def forward_matrix(out_size, in_size, scale, input_offset, output_offset, linear, rounding):
    """One axis of the forward resampling as an out_size x in_size matrix, from the pages' description."""
    matrix = np.zeros((out_size, in_size))
    s, i_off, o_off = (float(np.float32(v)) for v in (scale, input_offset, output_offset))
    for o in range(out_size):
        c = (o - o_off) / s - i_off
        if not linear:
            i = {"half_up": math.floor(c + 0.5), "ceil": math.ceil(c), "floor": math.floor(c)}[rounding]
            matrix[o, min(max(i, 0), in_size - 1)] = 1.0
            continue
        c = min(max(c, 0.0), in_size - 1.0)
        low = math.floor(c)
        matrix[o, low] += 1.0 - (c - low)
        if c > low:
            matrix[o, low + 1] += c - low
    return matrix


def transpose_loops(g, in_shape, scales, input_offsets, output_offsets, linear, rounding="half_up"):
    """The gradient as the forward matrices' transposes applied axis by axis: (expected, magnitude bound)."""
    expected, bound = np.asarray(g, np.float64), np.abs(np.asarray(g, np.float64))
    for axis, in_size in enumerate(in_shape):
        matrix = forward_matrix(expected.shape[axis], in_size, scales[axis], input_offsets[axis],
                                output_offsets[axis], linear, rounding)
        expected = np.moveaxis(np.tensordot(matrix.T, np.moveaxis(expected, axis, 0), axes=1), 0, axis)
        bound = np.moveaxis(np.tensordot(matrix.T, np.moveaxis(bound, axis, 0), axes=1), 0, axis)
    return expected, bound


def test_resample_grad1_doc_example(device):
    """The page's example: RESAMPLE2 nearest, 1.5x in width and 0.5x in height (pixel centers, rounding down)
    took [[1, 2], [3, 4]] to [1, 1, 2]; the gradient [4, 5, 6] goes back as [[4 + 5, 6], [0, 0]]."""
    desc = resample_grad1(tensor(F32, [1, 3]), tensor(F32, [2, 2]), NEAREST, DOWN, [0.5, 1.5], [0.5, 0.5],
                          [-0.5, -0.5])
    got = run_grad(device, desc, np.array([[4, 5, 6]], np.float32))
    np.testing.assert_array_equal(got, [[9, 6], [0, 0]])
    assert not np.any(np.signbit(got)), "an element no output read is +0"


def test_resample_grad_linear_by_hand(device):
    """RESAMPLE_GRAD of a linear 1-D scale 2 (pixel centers): the forward outputs read a, 0.75a + 0.25b,
    0.25a + 0.75b, b; the gradient [1, 2, 3, 4] gives a 1 + 1.5 + 0.75 = 3.25 and b 0.5 + 2.25 + 4 = 6.75."""
    desc = resample_grad0(tensor(F32, [4]), tensor(F32, [2]), LINEAR, [2], [0.5], [-0.5])
    got = run_grad(device, desc, np.array([1, 2, 3, 4], np.float32))
    np.testing.assert_array_equal(got, [3.25, 6.75])


GRAD_CASES = {
    "1d-up-2.5": ((4,), (10,), [2.5], [0.5], [-0.5]),
    "2d-down-and-up": ((6, 3), (4, 5), [0.6, 1.75], [0.5, 0.0], [-0.5, 0.25]),
    "4d-every-axis": ((2, 2, 3, 3), (3, 2, 5, 2), [1.5, 1.0, 1.8, 0.7], [0.5] * 4, [-0.5] * 4),
}


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("mode", [NEAREST, LINEAR], ids=["NEAREST", "LINEAR"])
@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_resample_grad_matches_the_transpose(device, data_type, mode, name):
    """Tolerance: a gradient element sums at most ceil(2 * scale + 2) terms per axis: 10 ulps plus one per term
    of the sum of their magnitudes (FLOAT32); FLOAT16 one half ulp."""
    in_sizes, out_sizes, scales, input_offsets, output_offsets = GRAD_CASES[name]
    rng = np.random.default_rng(len(name) + mode)
    g = rng.uniform(-4, 4, out_sizes).astype(NUMPY[data_type])
    g.reshape(-1)[:2] = [-0.0, 0.0]
    desc = resample_grad0(tensor(data_type, out_sizes), tensor(data_type, in_sizes), mode, scales, input_offsets,
                          output_offsets)
    expected, bound = transpose_loops(g, in_sizes, scales, input_offsets, output_offsets, mode == LINEAR)
    terms = math.prod(math.ceil(2 * s + 2) for s in scales)
    report = compare_ulps(run_grad(device, desc, g), expected, NUMPY[data_type],
                          1 if data_type == F16 else 10 + terms, bound)
    assert report.ok, report.describe("OutputGradientTensor")


@pytest.mark.parametrize("rounding", [UP, DOWN], ids=["INCREASING", "DECREASING"])
def test_resample_grad1_rounding_matches_the_transpose(device, rounding):
    """Exact ties (scales 2 and 0.5, offsets 0): the two directions send the gradient to different elements."""
    in_sizes, out_sizes, scales = (3, 6), (6, 3), [2.0, 0.5]
    g = np.arange(18, dtype=np.float32).reshape(out_sizes)
    desc = resample_grad1(tensor(F32, out_sizes), tensor(F32, in_sizes), NEAREST, rounding, scales, [0, 0], [0, 0])
    expected, _ = transpose_loops(g, in_sizes, scales, [0, 0], [0, 0], False, "ceil" if rounding == UP else "floor")
    np.testing.assert_array_equal(run_grad(device, desc, g), expected)


# --- validation: every rule of the pages, each refusal naming the field -----------------------------------
def refused(ref_device, desc):
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateOperator(desc)
    assert info.value.hresult == dml.E_INVALIDARG, str(info.value)
    return str(info.value)


@pytest.mark.parametrize(("desc", "expected"), [
    (resample0(tensor(dml.DML_TENSOR_DATA_TYPE_INT32, [2]), tensor(dml.DML_TENSOR_DATA_TYPE_INT32, [4]), NEAREST,
               [2]),
     "InputTensor.DataType INT32 is not supported by DML_OPERATOR_RESAMPLE (supported: FLOAT32, FLOAT16, INT8, "
     "UINT8)"),
    (resample1(tensor(F32, [1, 1, 1, 2, 2]), tensor(F32, [1, 1, 1, 4, 4]), NEAREST, [1, 1, 1, 2, 2], [0.5] * 5,
               [-0.5] * 5),
     "InputTensor.DimensionCount 5 is not supported by DML_OPERATOR_RESAMPLE1 (supported: 1 to 4)"),
    (resample0(tensor(F32, [2, 2]), tensor(F16, [4, 4]), NEAREST, [2, 2]),
     "OutputTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (resample0(tensor(F32, [2, 2]), tensor(F32, [1, 4, 4]), NEAREST, [2, 2]),
     "OutputTensor.DimensionCount 3 must equal InputTensor.DimensionCount 2"),
    (resample0(tensor(F32, [2, 2]), tensor(F32, [4, 4]), NEAREST, [1, 2, 2]),
     "DML_RESAMPLE_OPERATOR_DESC.ScaleCount 3 must match InputTensor.DimensionCount and OutputTensor.DimensionCount 2"),
    (resample1(tensor(F32, [2, 2]), tensor(F32, [4, 4]), NEAREST, [2], [0.5], [-0.5]),
     "DML_RESAMPLE1_OPERATOR_DESC.DimensionCount 1 must match InputTensor.DimensionCount and "
     "OutputTensor.DimensionCount 2"),
    (resample0(tensor(F32, [2, 2]), tensor(F32, [4, 4]), NEAREST, [2, 0]),
     "DML_RESAMPLE_OPERATOR_DESC.Scales[1] 0.0 must be finite and greater than 0"),
    (resample2(tensor(F32, [2]), tensor(F32, [4]), LINEAR, UP, [-2], [0.5], [-0.5]),
     "DML_RESAMPLE2_OPERATOR_DESC.Scales[0] -2.0 must be finite and greater than 0"),
    (resample1(tensor(F32, [2]), tensor(F32, [4]), LINEAR, [math.inf], [0.5], [-0.5]),
     "DML_RESAMPLE1_OPERATOR_DESC.Scales[0] inf must be finite and greater than 0"),
    (resample1(tensor(F32, [2]), tensor(F32, [4]), LINEAR, [2], [math.nan], [-0.5]),
     "DML_RESAMPLE1_OPERATOR_DESC.InputPixelOffsets[0] nan must be finite"),
    (resample2(tensor(F32, [2]), tensor(F32, [4]), LINEAR, DOWN, [2], [0.5], [-math.inf]),
     "DML_RESAMPLE2_OPERATOR_DESC.OutputPixelOffsets[0] -inf must be finite"),
    (resample1(tensor(F32, [2]), tensor(F32, [4]), LINEAR, [1e-46], [0.5], [-0.5]),  # 0 as a float32
     "DML_RESAMPLE1_OPERATOR_DESC.Scales[0] 0.0 must be finite and greater than 0 (as a FLOAT)"),
    (resample2(tensor(F32, [2]), tensor(F32, [4]), LINEAR, 2, [2], [0.5], [-0.5]),
     "RoundingDirection 2 is not a DML_AXIS_DIRECTION"),
    (resample0(tensor(F32, [2]), tensor(F32, [4]), 2, [2]), "InterpolationMode 2 is not a DML_INTERPOLATION_MODE"),
])
def test_validation(ref_device, desc, expected):
    assert expected in refused(ref_device, desc)


@pytest.mark.parametrize(("desc", "expected"), [
    (resample_grad0(tensor(U8, [4]), tensor(U8, [2]), LINEAR, [2], [0.5], [-0.5]),
     "InputGradientTensor.DataType UINT8 is not supported by DML_OPERATOR_RESAMPLE_GRAD (supported: FLOAT32, "
     "FLOAT16)"),
    (resample_grad1(tensor(F32, [4]), tensor(F16, [2]), LINEAR, UP, [2], [0.5], [-0.5]),
     "OutputGradientTensor.DataType FLOAT16 must equal InputGradientTensor.DataType FLOAT32"),
    (resample_grad1(tensor(F32, [1, 4]), tensor(F32, [1, 2]), LINEAR, UP, [2], [0.5], [-0.5]),
     "DML_RESAMPLE_GRAD1_OPERATOR_DESC.DimensionCount 1 must match InputGradientTensor.DimensionCount and "
     "OutputGradientTensor.DimensionCount 2"),
    (resample_grad0(tensor(F32, [4]), tensor(F32, [2]), LINEAR, [0], [0.5], [-0.5]),
     "DML_RESAMPLE_GRAD_OPERATOR_DESC.Scales[0] 0.0 must be finite and greater than 0"),
    (resample_grad1(tensor(F32, [1, 1, 1, 1, 4]), tensor(F32, [1, 1, 1, 1, 2]), LINEAR, UP, [1, 1, 1, 1, 2],
                    [0.5] * 5, [-0.5] * 5),
     "InputGradientTensor.DimensionCount 5 is not supported by DML_OPERATOR_RESAMPLE_GRAD1 (supported: 1 to 4)"),
])
def test_grad_validation(ref_device, desc, expected):
    assert expected in refused(ref_device, desc)


def test_tiny_scale_is_accepted(ref_device):
    """onnxruntime passes FLT_MAX as the scale of a single-pixel axis: accepted (every output reads index 0)."""
    ref_device.CreateOperator(resample1(tensor(F32, [1, 3]), tensor(F32, [1, 3]), LINEAR, [FLT_MAX, 1], [0, 0.5],
                                       [0, -0.5]))


def test_registered():
    from dmlsim.operators import implemented_names

    names = implemented_names()
    assert {"DML_OPERATOR_RESAMPLE", "DML_OPERATOR_RESAMPLE1", "DML_OPERATOR_RESAMPLE2", "DML_OPERATOR_RESAMPLE_GRAD",
            "DML_OPERATOR_RESAMPLE_GRAD1"} <= set(names)
