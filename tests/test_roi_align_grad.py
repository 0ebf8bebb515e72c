"""DML_OPERATOR_ROI_ALIGN_GRAD (dmlsim/operators/roi), on every adapter.

Expected values are literals worked out by hand (the page's example among them) or the transpose of ROI_ALIGN1's
sampling written out here in float64 (never dmlsim's reference): per region, along each axis ``n = clamp(ceil(size /
OutputSize), Minimum, Maximum)`` samples per output element at ``(s - OutputPixelOffset) * size / (OutputSize * n) +
x1 - InputPixelOffset`` (corner-aligned: ``s * size / (OutputSize * n - 1) + x1 - InputPixelOffset``); a sample out of
``[-1, size]`` reads nothing; bilinear taps over the clamped coordinate, or nearest ``ceil(t - 0.5)``. The gradient of
output element ``g`` goes to each sample as ``g / (nx * ny)`` (AVERAGE) or wholly to the first largest sample of the
forward input (MAX; NaN ignored unless all are NaN, out-of-bounds samples valued 0), and from a sample to its taps
by their weights. The identity ``<ROI_ALIGN1(x), dy> = <x, ROI_ALIGN_GRAD(dy)>`` (AVERAGE: a linear map) is checked
against dmlsim's own ROI_ALIGN1 too.

Tolerance, in ulps of the sum of the terms' magnitudes (|weight * share| summed): a float32 sum of T terms each
rounded twice: 4 + T ulps FLOAT32 (T <= 64 here); FLOAT16 one half-ulp after the single rounding.

OutputROIGradientTensor (the derivative of ROI_ALIGN1's output by the region corners, contracted with dy) is checked
against central differences of ROI_ALIGN1 transcribed here in float64 (piecewise linear in each corner: exact away
from kinks, which two step sizes agreeing proves), hand-derived literals (the page's floor/ceil at integer
coordinates, corner weights of 0 beside an infinite gradient, regions outside the batch), TensorFlow's
CropAndResizeGradBoxes transcribed here under tensorflow-directml-plugin's mapping, and +0 for NEAREST_NEIGHBOR.
Tolerance: T + 4 float32 ulps of a magnitude bound ``4 * |SpatialScale| * sum|dy[r]| * max|x|`` (T the terms a
region sums), FLOAT16 one half-ulp of the value more.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from datamove_support import F16, F32, NUMPY, U32, U64, operator, refused, run, tensor, type_id
from dispatch import Dispatch

import dmlsim as dml
from dmlsim.api.directml_schema import (
    DML_INTERPOLATION_MODE_LINEAR,
    DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR,
    DML_REDUCE_FUNCTION_AVERAGE,
    DML_REDUCE_FUNCTION_MAX,
    DML_REDUCE_FUNCTION_SUM,
)
from dmlsim.api.numerics import compare_ulps

AVG, MAX = DML_REDUCE_FUNCTION_AVERAGE, DML_REDUCE_FUNCTION_MAX
NEAREST, LINEAR = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, DML_INTERPOLATION_MODE_LINEAR
f32 = np.float32


def grad_desc(dy, rois, batch, dx, x=None, droi=None, reduction=AVG, mode=LINEAR, scale=(1.0, 1.0),
              offsets=(0.5, -0.5), samples=(1, 2**32 - 1), corners=False):
    return operator("ROI_ALIGN_GRAD", InputTensor=x, InputGradientTensor=dy, ROITensor=rois, BatchIndicesTensor=batch,
                    OutputGradientTensor=dx, OutputROIGradientTensor=droi, ReductionFunction=reduction,
                    InterpolationMode=mode, SpatialScaleX=scale[0], SpatialScaleY=scale[1],
                    InputPixelOffset=offsets[0], OutputPixelOffset=offsets[1], MinimumSamplesPerOutput=samples[0],
                    MaximumSamplesPerOutput=samples[1], AlignRegionsToCorners=corners)


def forward_taps(in_shape, rois, batch, out_hw, linear, scale, offsets, samples, corners):
    """ROI_ALIGN1's sampling as taps: for each (r, oy, ox), the samples' taps [[(row, column, weight), ...], ...]
    (an out-of-bounds sample has none) and the region's batch index."""
    _, _, h, w = in_shape
    result = {}

    def count(size, out_size):
        if not size > 0:
            return samples[0]
        q = f32(size) / f32(out_size)
        return samples[1] if not q < samples[1] else min(max(math.ceil(q), samples[0]), samples[1])

    def coordinate(s, size, total, start):
        with np.errstate(all="ignore"):
            if corners:
                t = f32(s) * (f32(size) / f32(total - 1) if total > 1 else f32(0))
            else:
                t = (f32(s) - f32(offsets[1])) * (f32(size) / f32(total))
            return f32(f32(t + f32(start)) - f32(offsets[0]))

    def taps(yy, xx):
        if math.isnan(xx) or math.isnan(yy) or yy < -1 or yy > h or xx < -1 or xx > w:
            return []
        if not linear:
            return [(min(max(math.ceil(f32(yy) - f32(0.5)), 0), h - 1),
                     min(max(math.ceil(f32(xx) - f32(0.5)), 0), w - 1), 1.0)]
        yy, xx = max(f32(yy), f32(0)), max(f32(xx), f32(0))
        y0, x0 = min(math.floor(yy), h - 1), min(math.floor(xx), w - 1)
        ly = f32(0) if y0 >= h - 1 else f32(yy - f32(y0))
        lx = f32(0) if x0 >= w - 1 else f32(xx - f32(x0))
        y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
        return [(yi, xi, float(f32(wy * wx))) for wy, yi in ((f32(1) - ly, y0), (ly, y1))
                for wx, xi in ((f32(1) - lx, x0), (lx, x1))]

    for r, (rx1, ry1, rx2, ry2) in enumerate(np.asarray(rois, f32).reshape(-1, 4)):
        with np.errstate(all="ignore"):
            sx1, sy1, sx2, sy2 = rx1 * f32(scale[0]), ry1 * f32(scale[1]), rx2 * f32(scale[0]), ry2 * f32(scale[1])
        size_x, size_y = f32(sx2 - sx1), f32(sy2 - sy1)
        nx, ny = count(size_x, out_hw[1]), count(size_y, out_hw[0])
        for oy in range(out_hw[0]):
            for ox in range(out_hw[1]):
                result[r, oy, ox] = [taps(coordinate(oy * ny + iy, size_y, out_hw[0] * ny, sy1),
                                          coordinate(ox * nx + ix, size_x, out_hw[1] * nx, sx1))
                                     for iy in range(ny) for ix in range(nx)]
    return result, np.asarray(batch).reshape(-1)


def transpose(dy, x, in_shape, rois, batch, maximum, linear, scale=(1.0, 1.0), offsets=(0.5, -0.5),
              samples=(1, 2**32 - 1), corners=False):
    """The gradient by the transpose of the taps: (expected, magnitude bound, most terms per element)."""
    dy = np.asarray(dy, np.float64)
    out, bound, terms = np.zeros(in_shape), np.zeros(in_shape), np.zeros(in_shape, int)
    taps, indices = forward_taps(in_shape, rois, batch, dy.shape[2:], linear, scale, offsets, samples, corners)
    for (r, oy, ox), sample_taps in taps.items():
        b = int(indices[r])
        if b >= in_shape[0]:
            continue
        for c in range(in_shape[1]):
            g = dy[r, c, oy, ox]
            chosen = list(range(len(sample_taps)))
            share = g / len(sample_taps)
            if maximum:
                values = [sum(wt * float(x[b, c, i, j]) for i, j, wt in t) if t else 0.0 for t in sample_taps]
                best = 0
                for k, value in enumerate(values):
                    if value > values[best] or (math.isnan(values[best]) and not math.isnan(value)):
                        best = k
                chosen, share = [best], g
            for k in chosen:
                for i, j, wt in sample_taps[k]:
                    if wt > 0:
                        out[b, c, i, j] += wt * share
                        bound[b, c, i, j] += abs(wt * share) if math.isfinite(wt * share) else 0.0
                        terms[b, c, i, j] += 1
    return out, bound, int(terms.max())


def check(got, expected, bound, terms, data_type):
    report = compare_ulps(got, expected, NUMPY[data_type], 1 if data_type == F16 else 4 + terms, bound)
    assert report.ok, report.describe("OutputGradientTensor")


PAGE_ROIS = np.array([[0, 0, 2, 2], [2, 0, 4, 2], [0, 2, 2, 4], [2, 2, 4, 4]], np.float32)


# --- the page's example and values by hand -------------------------------------------------------------------
@pytest.mark.parametrize("reduction", [AVG, MAX], ids=["AVERAGE", "MAX"])
@pytest.mark.parametrize("data_type", [F32, F16], ids=type_id)
def test_the_pages_example(device, reduction, data_type):
    """The page: nearest neighbor, one sample per output, regions [0, 0, 2, 2], [2, 0, 4, 2], [0, 2, 2, 4],
    [2, 2, 4, 4] of a 4 x 4 input into 1 x 3 (columns 0, 0, 1 of each region): dy [1, 2, 3] ... [10, 11, 12] gives
    [[3, 3, 9, 6], [0, 0, 0, 0], [15, 9, 21, 12], [0, 0, 0, 0]] (MAX, with one sample each, is the same)."""
    t = NUMPY[data_type]
    dy = np.arange(1, 13, dtype=t).reshape(4, 1, 1, 3)
    desc = grad_desc(tensor(data_type, [4, 1, 1, 3]), tensor(data_type, [4, 4]), tensor(U32, [4]),
                     tensor(data_type, [1, 1, 4, 4]), x=tensor(data_type, [1, 1, 4, 4]), reduction=reduction,
                     mode=NEAREST, samples=(1, 1))
    got = run(device, desc, InputTensor=np.arange(1, 17, dtype=t).reshape(1, 1, 4, 4), InputGradientTensor=dy,
              ROITensor=PAGE_ROIS.astype(t), BatchIndicesTensor=np.zeros(4, np.uint32))["OutputGradientTensor"]
    np.testing.assert_array_equal(got.reshape(4, 4), [[3, 3, 9, 6], [0, 0, 0, 0], [15, 9, 21, 12], [0, 0, 0, 0]])
    assert not np.signbit(got).any(), "elements no sample reads are +0"


def test_bilinear_average_by_hand(device):
    """Region [0, 0, 2, 2] of a 2 x 2 input into 1 x 1, one sample at (0.5, 0.5): weights 1/4 each, so dy 8 gives 2
    everywhere; two regions of the same batch add up (the second, [0, 0, 1, 1] with offsets 0.5/-0.5, samples at
    (0, 0): all of its dy 3 goes to element (0, 0))."""
    desc = grad_desc(tensor(F32, [2, 1, 1, 1]), tensor(F32, [2, 4]), tensor(U32, [2]), tensor(F32, [1, 1, 2, 2]),
                     samples=(1, 1))
    got = run(device, desc, InputGradientTensor=np.array([8, 3], f32).reshape(2, 1, 1, 1),
              ROITensor=np.array([[0, 0, 2, 2], [0, 0, 1, 1]], f32),
              BatchIndicesTensor=np.zeros(2, np.uint32))["OutputGradientTensor"]
    np.testing.assert_array_equal(got.reshape(2, 2), [[5, 2], [2, 2]])


@pytest.mark.parametrize(("x", "expected"), [
    ([[1, 5], [5, 2]], [[0, 7], [0, 0]]),  # the first of the equal largest
    ([[np.nan, 3], [2, np.nan]], [[0, 7], [0, 0]]),  # NaN ignored
    ([[np.nan, np.nan], [np.nan, np.nan]], [[7, 0], [0, 0]]),  # all NaN: the first sample, as ROI_ALIGN1 keeps it
    ([[-0.0, 0.0], [0.0, -1]], [[7, 0], [0, 0]]),  # the first of equal zeros
], ids=["tie", "nan", "all-nan", "zeros"])
def test_max_sends_to_the_selected_sample(device, x, expected):
    """Region [0, 0, 2, 2] into 1 x 1 with 2 x 2 nearest samples at offsets 0.5 / -0.5: samples exactly on the four
    elements (nearest: each reads its element alone; bilinear would also read a NaN neighbor with weight 0, making
    the sample NaN); MAX sends all of dy 7 to the one ROI_ALIGN1's MAX selects."""
    desc = grad_desc(tensor(F32, [1, 1, 1, 1]), tensor(F32, [1, 4]), tensor(U32, [1]), tensor(F32, [1, 1, 2, 2]),
                     x=tensor(F32, [1, 1, 2, 2]), reduction=MAX, mode=NEAREST, samples=(2, 2))
    got = run(device, desc, InputTensor=np.array(x, f32).reshape(1, 1, 2, 2),
              InputGradientTensor=np.full((1, 1, 1, 1), 7, f32), ROITensor=np.array([[0, 0, 2, 2]], f32),
              BatchIndicesTensor=np.zeros(1, np.uint32))["OutputGradientTensor"]
    np.testing.assert_array_equal(got.reshape(2, 2), expected)


def test_out_of_bounds_samples_batch_indices_and_infinite_gradients(device):
    """Region 0 samples below the input (y = 9.5 past its height, x = 0.5 inside: nothing), region 3 past its width
    alike, region 1 names batch 5 of 1 (nothing), region 2 samples exactly element (1, 0) (weights 1, 0, 0, 0) with
    dy inf: inf there, +0 (not NaN) beside it."""
    desc = grad_desc(tensor(F32, [4, 1, 1, 1]), tensor(F32, [4, 4]), tensor(U32, [4]), tensor(F32, [1, 1, 2, 2]),
                     samples=(1, 1))
    got = run(device, desc, InputGradientTensor=np.array([5, 6, np.inf, 4], f32).reshape(4, 1, 1, 1),
              ROITensor=np.array([[0, 9, 2, 11], [0, 0, 2, 2], [0, 1, 1, 2], [9, 0, 11, 2]], f32),
              BatchIndicesTensor=np.array([0, 5, 0, 0], np.uint32))["OutputGradientTensor"]
    np.testing.assert_array_equal(got.reshape(2, 2), [[0, 0], [np.inf, 0]])
    assert not np.signbit(got).any()


# --- the transpose of the sampling, written out here ------------------------------------------------------------
CASES = [  # reduction, mode, scale, offsets, samples, corners
    (AVG, LINEAR, (1.0, 1.0), (0.5, -0.5), (1, 2**32 - 1), False),
    (MAX, LINEAR, (0.5, 1.0), (0.0, 0.0), (2, 3), False),
    (AVG, NEAREST, (1.0, 0.5), (0.25, -0.25), (1, 2), True),
    (MAX, NEAREST, (1.0, 1.0), (0.5, -0.5), (1, 2), False),
]


@pytest.mark.parametrize("data_type", [F32, F16], ids=type_id)
@pytest.mark.parametrize("case", range(len(CASES)), ids=["avg-linear", "max-linear", "avg-nearest-corners",
                                                         "max-nearest"])
def test_matches_the_transpose(device, case, data_type):
    reduction, mode, scale, offsets, samples, corners = CASES[case]
    t = NUMPY[data_type]
    rng = np.random.default_rng(case)
    in_shape, out_hw = (2, 2, 5, 6), (2, 3)
    rois = np.array([[0.3, 0.2, 4.7, 3.9], [5.5, 4.0, 1.0, 0.5], [-1.5, 1.0, 7.0, 6.5], [2.0, 2.0, 2.0, 2.0]], t)
    batch = np.array([0, 1, 1, 0], np.uint32)
    x = rng.uniform(-3, 3, in_shape).astype(t)
    x[0, 0, 1, 2] = x[0, 0, 1, 3]  # a tie for MAX
    dy = rng.uniform(-2, 2, (4, 2, *out_hw)).astype(t)
    dy[0, 0, 0, 0], dy[1, 1, 1, 2] = -0.0, 0.0
    desc = grad_desc(tensor(data_type, dy.shape), tensor(data_type, [4, 4]), tensor(U32, [4]),
                     tensor(data_type, in_shape), x=tensor(data_type, in_shape), reduction=reduction, mode=mode,
                     scale=scale, offsets=offsets, samples=samples, corners=corners)
    got = run(device, desc, InputTensor=x, InputGradientTensor=dy, ROITensor=rois,
              BatchIndicesTensor=batch)["OutputGradientTensor"]
    expected, bound, terms = transpose(dy, x.astype(np.float64), in_shape, rois, batch, reduction == MAX,
                                       mode == LINEAR, scale, offsets, samples, corners)
    check(got, expected, bound, terms, data_type)


def test_dot_product_with_roi_align1(device):
    """The adjoint identity <ROI_ALIGN1(x), dy> = <x, ROI_ALIGN_GRAD(dy)> (AVERAGE, bilinear, adaptive samples,
    OutOfBoundsInputValue 0): both operators run here; the two float64 dot products agree to float32 rounding."""
    rng = np.random.default_rng(9)
    in_shape, out_hw = (2, 3, 6, 5), (3, 2)
    rois = np.array([[0.5, 0.5, 4.0, 5.5], [1.0, 0.0, 4.5, 2.5], [-0.5, -0.5, 6.0, 7.0]], f32)
    batch = np.array([1, 0, 1], np.uint32)
    x = rng.uniform(-1, 1, in_shape).astype(f32)
    dy = rng.uniform(-1, 1, (3, 3, *out_hw)).astype(f32)
    forward = operator("ROI_ALIGN1", InputTensor=tensor(F32, in_shape), ROITensor=tensor(F32, [3, 4]),
                       BatchIndicesTensor=tensor(U32, [3]), OutputTensor=tensor(F32, dy.shape),
                       ReductionFunction=AVG, InterpolationMode=LINEAR, SpatialScaleX=1.0, SpatialScaleY=1.0,
                       InputPixelOffset=0.5, OutputPixelOffset=-0.5, OutOfBoundsInputValue=0.0,
                       MinimumSamplesPerOutput=1, MaximumSamplesPerOutput=2**32 - 1, AlignRegionsToCorners=False)
    y = run(device, forward, InputTensor=x, ROITensor=rois, BatchIndicesTensor=batch)["OutputTensor"]
    backward = grad_desc(tensor(F32, dy.shape), tensor(F32, [3, 4]), tensor(U32, [3]), tensor(F32, in_shape))
    dx = run(device, backward, InputGradientTensor=dy, ROITensor=rois,
             BatchIndicesTensor=batch)["OutputGradientTensor"]
    left = float(np.sum(y.astype(np.float64) * dy))
    right = float(np.sum(x.astype(np.float64) * dx))
    assert abs(left - right) <= 1e-5 * (np.sum(np.abs(y * dy)) + 1), (left, right)


def test_strided_broadcast_inputs_and_padded_output(device):
    """dy broadcast over its channels (stride 0), a ROITensor {1, 1, NumROIs, 4} with padded rows, a 2-D batch
    index tensor, and a padded OutputGradientTensor, all at non-zero offsets of one guard-filled buffer: the
    transpose's values, no byte around the output's elements touched."""
    in_shape = (1, 2, 4, 4)
    dy_sizes, dy_strides = [2, 2, 2, 2], [4, 0, 2, 1]
    roi_sizes, roi_strides = [1, 1, 2, 4], [0, 0, 6, 1]
    dx_strides = [48, 20, 5, 1]
    rng = np.random.default_rng(4)
    dy = np.broadcast_to(rng.uniform(-1, 1, (2, 1, 2, 2)).astype(f32), dy_sizes)
    rois = np.array([[0.5, 0.0, 3.5, 3.0], [0.0, 1.0, 4.0, 4.0]], f32)
    desc = grad_desc(tensor(F32, dy_sizes, dy_strides), tensor(F32, roi_sizes, roi_strides), tensor(U32, [1, 2]),
                     tensor(F32, in_shape, dx_strides), samples=(2, 2))
    place, at = {}, 16
    sizes = {"InputGradientTensor": (dy_sizes, dy_strides, F32), "ROITensor": (roi_sizes, roi_strides, F32),
             "BatchIndicesTensor": ([1, 2], None, U32), "OutputGradientTensor": (list(in_shape), dx_strides, F32)}
    spans = {}
    for field, (s, st, dt) in sizes.items():
        spans[field] = (at, dml.DMLCalcBufferTensorSize(dt, len(s), s, st))
        at += -(-spans[field][1] // 16) * 16 + 32
    shared = device.CreateBuffer(at)
    shared.Write(bytes([0x5A]) * at)
    for field, (offset, _) in spans.items():
        place[field] = (shared, offset)
    dispatch = Dispatch(device, desc, placement=place)
    dispatch.load({"InputGradientTensor": dy, "ROITensor": rois.reshape(roi_sizes),
                   "BatchIndicesTensor": np.zeros((1, 2), np.uint32)})
    dispatch.execute()
    expected, bound, terms = transpose(dy, None, in_shape, rois, [0, 0], False, True, samples=(2, 2))
    check(dispatch.read("OutputGradientTensor"), expected, bound, terms, F32)
    y_at, y_bytes = spans["OutputGradientTensor"]
    raw = np.frombuffer(shared.Read(y_at, y_bytes), np.uint8).reshape(-1, 4)
    written = np.zeros(len(raw), bool)
    for index in np.ndindex(*in_shape):
        written[sum(i * s for i, s in zip(index, dx_strides, strict=True))] = True
    assert np.all(raw[~written] == 0x5A), "padding between output elements was written"
    assert shared.Read(y_at + y_bytes, at - y_at - y_bytes) == bytes([0x5A]) * (at - y_at - y_bytes)


# --- refusals --------------------------------------------------------------------------------------------------
def _rg(dy=(2, 1, 2, 2), rois=(2, 4), batch=(2,), dx=(1, 1, 4, 4), x=None, droi=None, types=(F32, F32, U32, F32),
        **kw):
    return grad_desc(tensor(types[0], dy), tensor(types[1], rois), tensor(types[2], batch),
                     None if dx is None else tensor(types[3], dx), x=None if x is None else tensor(types[0], x),
                     droi=None if droi is None else tensor(types[1], droi), **kw)


@pytest.mark.parametrize(("desc", "expected"), [
    (_rg(types=(U32, U32, U32, U32)),
     "InputGradientTensor.DataType UINT32 is not supported by DML_OPERATOR_ROI_ALIGN_GRAD (supported: FLOAT32, "
     "FLOAT16)"),
    (_rg(types=(F32, F32, U64, F32)),
     "BatchIndicesTensor.DataType UINT64 is not supported by DML_OPERATOR_ROI_ALIGN_GRAD (supported: UINT32)"),
    (_rg(dy=(2, 1, 2, 2, 1)), "InputGradientTensor.DimensionCount 5 is not supported by DML_OPERATOR_ROI_ALIGN_GRAD"),
    (_rg(rois=(8,)), "ROITensor.DimensionCount 1 is not supported by DML_OPERATOR_ROI_ALIGN_GRAD (supported: 2 to 4)"),
    (_rg(types=(F32, F32, U32, F16)), "OutputGradientTensor.DataType FLOAT16 must equal InputGradientTensor.DataType"),
    (_rg(dx=None), "OutputGradientTensor and OutputROIGradientTensor are both null"),
    (_rg(reduction=MAX), "InputTensor must be supplied when ReductionFunction is DML_REDUCE_FUNCTION_MAX"),
    (_rg(rois=(2, 5)), "ROITensor.Sizes [2, 5] must be {NumROIs, 4}"),
    (_rg(batch=(3,)), "BatchIndicesTensor.Sizes [3] must be {NumROIs} = [2]"),
    (_rg(dy=(2, 3, 2, 2)), "InputGradientTensor.Sizes [2, 3, 2, 2] must start with NumROIs 2 and "
                           "OutputGradientTensor's ChannelCount 1"),
    (_rg(x=(1, 1, 4, 5)), "InputTensor.Sizes [1, 1, 4, 5] must equal OutputGradientTensor.Sizes [1, 1, 4, 4]"),
    (_rg(x=(1, 1, 4, 4), droi=(2, 3)), "OutputROIGradientTensor.Sizes [2, 3] must equal ROITensor.Sizes [2, 4]"),
    (_rg(reduction=DML_REDUCE_FUNCTION_SUM), "ReductionFunction DML_REDUCE_FUNCTION_SUM must be"),
    (_rg(samples=(0, 1)), "MinimumSamplesPerOutput must be at least 1"),
    (_rg(samples=(3, 2)), "MinimumSamplesPerOutput 3 must not exceed MaximumSamplesPerOutput 2"),
    (_rg(droi=(2, 4)), "InputTensor must be supplied when ReductionFunction is DML_REDUCE_FUNCTION_MAX or "
                       "OutputROIGradientTensor is supplied"),
    (grad_desc(tensor(F32, [2, 1, 2, 2]), tensor(F32, [2, 4]), tensor(U32, [2]), None, x=tensor(F32, [1, 1, 4, 4]),
               droi=tensor(F16, [2, 4])), "OutputROIGradientTensor.DataType FLOAT16 must equal InputGradientTensor"),
    (_rg(dx=None, x=(1, 3, 4, 4), droi=(2, 4)),
     "InputGradientTensor.Sizes [2, 1, 2, 2] must have InputTensor's ChannelCount 3"),
    (_rg(rois=(1, 1, 1, 2, 4), x=(1, 1, 4, 4), droi=(1, 1, 1, 2, 4)),
     "OutputROIGradientTensor.DimensionCount 5 is not supported by DML_OPERATOR_ROI_ALIGN_GRAD (supported: 2 to 4)"),
], ids=["dy-type", "index-type", "rank", "roi-rank", "types-differ", "no-output", "max-without-input", "roi-sizes",
        "batch-sizes", "dy-sizes", "input-sizes", "roi-gradient-sizes", "reduction", "min-0", "min-above-max",
        "roi-gradient-without-input", "roi-gradient-type", "roi-gradient-channels", "roi-gradient-rank"])
def test_refusals(ref_device, desc, expected):
    assert expected in refused(ref_device, desc)


# --- OutputROIGradientTensor: the derivative of ROI_ALIGN1 by the region corners ---------------------------------
def align1(x, rois, batch, out_hw, maximum, scale, offsets, samples, corners):
    """ROI_ALIGN1's forward (bilinear, OutOfBoundsInputValue 0) transcribed from its page in float64 throughout, the
    coordinates too (so it is smooth in the corners between kinks): per axis ``n = clamp(ceil(size / OutputSize),
    Minimum, Maximum)`` (an empty or inverted size: Minimum) samples per output element at ``(s - OutputPixelOffset)
    * size / (OutputSize * n) + x1 * SpatialScale - InputPixelOffset`` (corner-aligned ``s * size / (OutputSize * n
    - 1) + ...``, a single sample at x1); a sample outside ``[-1, size]`` on either axis is 0, else bilinear over the
    coordinate clamped at 0, a coordinate at or past the last row/column reading that row/column alone; AVERAGE or
    the MAX of the samples."""
    x = np.asarray(x, np.float64)
    _, channels, h, w = x.shape
    out_h, out_w = out_hw

    def count(size, out_size):
        return samples[0] if not size > 0 else min(max(math.ceil(size / out_size), samples[0]), samples[1])

    def coordinates(start, size, out_size, n):
        total = out_size * n
        s = np.arange(total, dtype=np.float64)
        if corners:
            return s * (size / (total - 1) if total > 1 else 0.0) + start - offsets[0]
        return (s - offsets[1]) * size / total + start - offsets[0]

    def sample(plane, yy, xx):
        if yy < -1 or yy > h or xx < -1 or xx > w:
            return 0.0
        yy, xx = max(yy, 0.0), max(xx, 0.0)
        y0, x0 = math.floor(yy), math.floor(xx)
        y1, ly = (h - 1, 0.0) if y0 >= h - 1 else (y0 + 1, yy - y0)
        x1, lx = (w - 1, 0.0) if x0 >= w - 1 else (x0 + 1, xx - x0)
        y0, x0 = min(y0, h - 1), min(x0, w - 1)
        return ((1 - ly) * ((1 - lx) * plane[y0, x0] + lx * plane[y0, x1])
                + ly * ((1 - lx) * plane[y1, x0] + lx * plane[y1, x1]))

    result = np.zeros((len(rois), channels, out_h, out_w))
    for r, (rx1, ry1, rx2, ry2) in enumerate(np.asarray(rois, np.float64)):
        sx1, sy1 = rx1 * scale[0], ry1 * scale[1]
        size_x, size_y = rx2 * scale[0] - sx1, ry2 * scale[1] - sy1
        nx, ny = count(size_x, out_w), count(size_y, out_h)
        xs, ys = coordinates(sx1, size_x, out_w, nx), coordinates(sy1, size_y, out_h, ny)
        for c in range(channels):
            plane = x[int(batch[r]), c]
            for oy in range(out_h):
                for ox in range(out_w):
                    values = [sample(plane, ys[oy * ny + i], xs[ox * nx + j]) for i in range(ny) for j in range(nx)]
                    result[r, c, oy, ox] = max(values) if maximum else sum(values) / len(values)
    return result


def central_differences(x, dy, rois, batch, maximum, scale, offsets, samples, corners):
    """d sum(ROI_ALIGN1(x) * dy) / d rois by central differences in float64. ROI_ALIGN1 is piecewise linear in each
    corner coordinate (a bilinear sample is linear in its x coordinate, which moves linearly with x1 and x2), so
    the difference is exact up to rounding unless a kink (a sample crossing a pixel or a bound, the sample count
    or MAX's choice changing) lies within the step: two steps must agree, which proves the regions stay clear."""
    rois = np.asarray(rois, np.float64)

    def loss(moved):
        return float(np.sum(align1(x, moved, batch, dy.shape[2:], maximum, scale, offsets, samples, corners) * dy))

    result = np.zeros_like(rois)
    for step in (2.0**-22, 2.0**-20):
        previous = result.copy()
        for index in np.ndindex(*rois.shape):
            up, down = rois.copy(), rois.copy()
            up[index] += step
            down[index] -= step
            result[index] = (loss(up) - loss(down)) / (2 * step)
    assert np.allclose(result, previous, rtol=0, atol=1e-6 * (np.abs(result).max() + 1)), "a kink within the step"
    return result


ROI_CASES = [  # reduction, scale, offsets, samples, corners
    (AVG, (1.0, 1.0), (0.5, -0.5), (1, 2**32 - 1), False),
    (MAX, (0.5, 1.0), (0.0, 0.0), (2, 3), False),
    (AVG, (1.0, 0.75), (0.25, -0.25), (1, 2), True),
]
_ROI_EXPECTED = {}


def roi_case(case, data_type):
    """The inputs of ROI_CASES[case] in ``data_type`` and the central differences on those very values (cached:
    the same for every device)."""
    t = NUMPY[data_type]
    rng = np.random.default_rng(40 + case)
    x = rng.uniform(-3, 3, (2, 2, 5, 6)).astype(t)
    dy = rng.uniform(-2, 2, (3, 2, 2, 3)).astype(t)
    rois = np.array([[0.3, 0.2, 4.7, 3.9], [5.3, 4.1, 1.1, 0.55], [-1.3, 0.95, 6.8, 5.7]], t)
    batch = np.array([1, 0, 1], np.uint32)
    key = (case, data_type)
    if key not in _ROI_EXPECTED:
        reduction, scale, offsets, samples, corners = ROI_CASES[case]
        _ROI_EXPECTED[key] = central_differences(x.astype(np.float64), dy.astype(np.float64), rois, batch,
                                                 reduction == MAX, scale, offsets, samples, corners)
    return x, dy, rois, batch, _ROI_EXPECTED[key]


def check_roi_gradient(got, expected, x, dy, batch, scale, terms, data_type):
    """Within ``terms + 4`` float32 ulps of a magnitude bound (FLOAT16: plus one half-ulp of the value): each term
    is ``share * imageGrad * weight``, |imageGrad| <= 2 max|x|, the coordinate weights at most 2 |SpatialScale|,
    the shares of an output element at most its |dy|, so a region's terms sum to at most ``4 * |SpatialScale| *
    sum|dy[r]| * max|x[batch]|``."""
    dy = np.abs(np.asarray(dy, np.float64)).sum(axis=(1, 2, 3))
    largest = np.array([np.abs(np.asarray(x, np.float64)[int(b)]).max() for b in batch])
    bound = 4 * np.outer(dy * largest, [abs(scale[0]), abs(scale[1]), abs(scale[0]), abs(scale[1])])
    got = np.asarray(got, np.float64).reshape(expected.shape)
    tolerance = (terms + 4) * np.spacing(np.float32(bound)).astype(np.float64)
    if data_type == F16:
        tolerance = tolerance + np.spacing(np.abs(expected).astype(np.float16)).astype(np.float64)
    bad = np.abs(got - expected) > tolerance
    assert not bad.any(), f"OutputROIGradientTensor: got {got[bad]}, expected {expected[bad]} (tolerance " \
                          f"{tolerance[bad]})"


@pytest.mark.parametrize(("case", "data_type"), [(0, F32), (1, F32), (2, F32), (0, F16)],
                         ids=["avg-adaptive-FLOAT32", "max-scaled-FLOAT32", "avg-corners-FLOAT32",
                              "avg-adaptive-FLOAT16"])
def test_roi_gradient_matches_central_differences(device, case, data_type):
    """OutputROIGradientTensor (with OutputGradientTensor beside it) against central differences of the ROI_ALIGN1
    transcribed above, on three regions (inside, inverted, past the edges) of two batches."""
    reduction, scale, offsets, samples, corners = ROI_CASES[case]
    x, dy, rois, batch, expected = roi_case(case, data_type)
    desc = grad_desc(tensor(data_type, dy.shape), tensor(data_type, [3, 4]), tensor(U32, [3]),
                     tensor(data_type, x.shape), x=tensor(data_type, x.shape), droi=tensor(data_type, [3, 4]),
                     reduction=reduction, scale=scale, offsets=offsets, samples=samples, corners=corners)
    got = run(device, desc, InputTensor=x, InputGradientTensor=dy, ROITensor=rois, BatchIndicesTensor=batch)
    terms = 2 * 2 * 3 * (1 if reduction == MAX else 3 * 3)  # channels x outputs x samples reaching a region
    check_roi_gradient(got["OutputROIGradientTensor"], expected, x, dy, batch, scale, terms, data_type)


HAND_X = np.array([[1, 2, 4], [8, 16, 32]], np.float32).reshape(1, 1, 2, 3)


@pytest.mark.parametrize("data_type", [F32, F16], ids=type_id)
def test_roi_gradient_by_hand(device, data_type):
    """Input [[1, 2, 4], [8, 16, 32]], one sample per output (offsets 0.5 / -0.5), dy [3, 5] into 1 x 2.
    Region [0.5, 0.5, 2.5, 1.5]: samples (y, x) = (0.5, 0.5) and (0.5, 1.5), f_x = 0.25 and 0.75, f_y = 0.5;
    imageGradX = 0.5 * (2 - 1) + 0.5 * (16 - 8) = 4.5 and 0.5 * (4 - 2) + 0.5 * (32 - 16) = 9, imageGradY = 0.5 * 7
    + 0.5 * 14 = 10.5 and 0.5 * 14 + 0.5 * 28 = 21: x1 = 3 * 4.5 * 0.75 + 5 * 9 * 0.25 = 21.375, x2 = 3 * 4.5 * 0.25
    + 5 * 9 * 0.75 = 37.125, y1 = y2 = 3 * 10.5 * 0.5 + 5 * 21 * 0.5 = 68.25. Region [0, 0, 2, 1] samples (0, 0)
    and (0, 1), integer coordinates: the page's floor == ceil gives no image gradient, [0, 0, 0, 0] (+0). Region
    [0.5, 0.5, 2.5, 1.5] of batch 7 (outside): +0."""
    t = NUMPY[data_type]
    desc = grad_desc(tensor(data_type, [3, 1, 1, 2]), tensor(data_type, [3, 4]), tensor(U32, [3]), None,
                     x=tensor(data_type, [1, 1, 2, 3]), droi=tensor(data_type, [3, 4]), samples=(1, 1))
    got = run(device, desc, InputTensor=HAND_X.astype(t),
              InputGradientTensor=np.array([3, 5, 3, 5, 3, 5], t).reshape(3, 1, 1, 2),
              ROITensor=np.array([[0.5, 0.5, 2.5, 1.5], [0, 0, 2, 1], [0.5, 0.5, 2.5, 1.5]], t),
              BatchIndicesTensor=np.array([0, 0, 7], np.uint32))
    assert set(got) == {"OutputROIGradientTensor"}
    droi = got["OutputROIGradientTensor"]
    np.testing.assert_array_equal(droi, [[21.375, 68.25, 37.125, 68.25], [0, 0, 0, 0], [0, 0, 0, 0]])
    assert not np.signbit(droi).any()


def test_roi_gradient_nearest_is_zero_and_both_outputs(device):
    """NEAREST_NEIGHBOR samples are piecewise constant in the corners: OutputROIGradientTensor is +0 (MAX, with
    inf and NaN in the gradient too), while OutputGradientTensor of the same dispatch is the page's example (columns
    0, 0, 1 of each region: 1 + inf, 3, NaN + 5, 6 in the first row)."""
    dy = np.arange(1, 13, dtype=f32).reshape(4, 1, 1, 3)
    dy[0, 0, 0, 1], dy[1, 0, 0, 0] = np.inf, np.nan
    desc = grad_desc(tensor(F32, [4, 1, 1, 3]), tensor(F32, [4, 4]), tensor(U32, [4]), tensor(F32, [1, 1, 4, 4]),
                     x=tensor(F32, [1, 1, 4, 4]), droi=tensor(F32, [4, 4]), reduction=MAX, mode=NEAREST,
                     samples=(1, 1))
    got = run(device, desc, InputTensor=np.arange(1, 17, dtype=f32).reshape(1, 1, 4, 4), InputGradientTensor=dy,
              ROITensor=PAGE_ROIS, BatchIndicesTensor=np.zeros(4, np.uint32))
    np.testing.assert_array_equal(got["OutputROIGradientTensor"], np.zeros((4, 4)))
    assert not np.signbit(got["OutputROIGradientTensor"]).any()
    np.testing.assert_array_equal(got["OutputGradientTensor"].reshape(4, 4),
                                  [[np.inf, 3, np.nan, 6], [0, 0, 0, 0], [15, 9, 21, 12], [0, 0, 0, 0]])


def test_roi_gradient_strided_and_at_offsets(device):
    """InputTensor broadcast over its channels (stride 0), InputGradientTensor with padded rows, ROITensor and a padded
    OutputROIGradientTensor {1, 1, NumROIs, 4} (rows 6 apart, columns 1), all at non-zero offsets of
    one guard-filled buffer, OutputGradientTensor null: the central differences' values, no byte beside the
    ROI gradient's elements touched."""
    rng = np.random.default_rng(7)
    plane = rng.uniform(-2, 2, (1, 1, 4, 5)).astype(f32)
    x_sizes, x_strides = [1, 2, 4, 5], [20, 0, 5, 1]
    dy_sizes, dy_strides = [2, 2, 2, 2], [16, 8, 4, 1]
    roi_sizes, droi_sizes, droi_strides = [1, 1, 2, 4], [1, 1, 2, 4], [0, 0, 6, 1]
    dy = rng.uniform(-1, 1, dy_sizes).astype(f32)
    rois = np.array([[0.3, 0.4, 3.6, 2.7], [3.7, 0.2, 0.4, 3.3]], f32)
    desc = grad_desc(tensor(F32, dy_sizes, dy_strides), tensor(F32, roi_sizes), tensor(U32, [2]), None,
                     x=tensor(F32, x_sizes, x_strides), droi=tensor(F32, droi_sizes, droi_strides), samples=(2, 2))
    sizes = {"InputTensor": (x_sizes, x_strides, F32), "InputGradientTensor": (dy_sizes, dy_strides, F32),
             "ROITensor": (roi_sizes, None, F32), "BatchIndicesTensor": ([2], None, U32),
             "OutputROIGradientTensor": (droi_sizes, droi_strides, F32)}
    spans, at = {}, 16
    for field, (s, st, dt) in sizes.items():
        spans[field] = (at, dml.DMLCalcBufferTensorSize(dt, len(s), s, st))
        at += -(-spans[field][1] // 16) * 16 + 32
    shared = device.CreateBuffer(at)
    shared.Write(bytes([0x5A]) * at)
    dispatch = Dispatch(device, desc, placement={field: (shared, offset) for field, (offset, _) in spans.items()})
    dispatch.load({"InputTensor": np.broadcast_to(plane, x_sizes), "InputGradientTensor": dy,
                   "ROITensor": rois.reshape(roi_sizes), "BatchIndicesTensor": np.zeros(2, np.uint32)})
    dispatch.execute()
    x = np.broadcast_to(plane, x_sizes).astype(np.float64)
    expected = central_differences(x, dy.astype(np.float64), rois, [0, 0], False, (1.0, 1.0), (0.5, -0.5), (2, 2),
                                   False)
    check_roi_gradient(dispatch.read("OutputROIGradientTensor"), expected, x, dy, [0, 0], (1.0, 1.0),
                       2 * 2 * 2 * 4, F32)
    y_at, y_bytes = spans["OutputROIGradientTensor"]
    raw = np.frombuffer(shared.Read(y_at, y_bytes), np.uint8).reshape(-1, 4)
    written = np.zeros(len(raw), bool)
    written[[r * 6 + k for r in range(2) for k in range(4)]] = True
    assert np.all(raw[~written] == 0x5A), "padding between ROI gradient elements was written"
    assert shared.Read(y_at + y_bytes, at - y_at - y_bytes) == bytes([0x5A]) * (at - y_at - y_bytes)


def test_roi_gradient_corner_weights_of_zero(device):
    """Corner-aligned, pixel offsets 0, one sample per output (tensorflow-directml-plugin's CropAndResizeGradBoxes
    fields): region [0.5, 0.5, 1.5, 0.5] of [[1, 2, 4], [8, 16, 32]] into 1 x 2 samples (0.5, 0.5) with f_x = 0 and
    (0.5, 1.5) with f_x = 1; the empty y extent takes one sample at y1 (f_y = 0). dy [inf, 2]: imageGradX 4.5 and
    9, imageGradY 10.5 and 21, so x1 = inf * 1 (the second sample's x1 weight is 0: nothing), x2 = 2 * 9 * 1 = 18
    (the first sample's x2 weight is 0: no inf * 0), y1 = inf + 2 * 21, y2 = +0 (weight 0 throughout)."""
    desc = grad_desc(tensor(F32, [1, 1, 1, 2]), tensor(F32, [1, 4]), tensor(U32, [1]), None,
                     x=tensor(F32, [1, 1, 2, 3]), droi=tensor(F32, [1, 4]), offsets=(0.0, 0.0), samples=(1, 1),
                     corners=True)
    got = run(device, desc, InputTensor=HAND_X, InputGradientTensor=np.array([np.inf, 2], f32).reshape(1, 1, 1, 2),
              ROITensor=np.array([[0.5, 0.5, 1.5, 0.5]], f32), BatchIndicesTensor=np.zeros(1, np.uint32))
    droi = got["OutputROIGradientTensor"]
    np.testing.assert_array_equal(droi, [[np.inf, np.inf, 18, 0]])
    assert not np.signbit(droi).any()


def test_roi_gradient_is_tensorflows_crop_and_resize_grad_boxes(device):
    """tensorflow-directml-plugin implements TensorFlow's CropAndResizeGradBoxes with this output alone: boxes [y1,
    x1, y2, x2] normalized to the image reordered to [x1, y1, x2, y2], SpatialScaleX = width - 1, SpatialScaleY =
    height - 1, pixel offsets 0, one sample per output, AlignRegionsToCorners, AVERAGE, LINEAR. The expected values
    are TensorFlow's algorithm transcribed here (crop sizes above 1): ``in_y = y1 * (H - 1) + y * (y2 - y1) * (H -
    1) / (crop_h - 1)``, skipped outside ``[0, H - 1]``, corners floor/ceil, ``grad_y = (1 - x_lerp) * (bl - tl) +
    x_lerp * (br - tr)`` times dy, added to y1 times ``H - 1 - y * (H - 1) / (crop_h - 1)`` and to y2 times ``y * (H
    - 1) / (crop_h - 1)``; x alike. A box partly outside the image, one inverted."""
    rng = np.random.default_rng(11)
    height, width, crop_h, crop_w = 5, 6, 2, 3
    image = rng.uniform(-2, 2, (2, 1, height, width)).astype(f32)
    grads = rng.uniform(-1, 1, (3, 1, crop_h, crop_w)).astype(f32)
    boxes = np.array([[0.13, 0.21, 0.71, 0.93], [0.9, 0.55, 0.2, 0.05], [-0.3, 0.37, 0.62, 1.4]])  # y1, x1, y2, x2
    batch = np.array([1, 0, 1], np.uint32)
    expected = np.zeros((3, 4))  # TensorFlow's order y1, x1, y2, x2
    for b, (y1, x1, y2, x2) in enumerate(boxes.astype(f32).astype(np.float64)):
        height_ratio, width_ratio = (height - 1) / (crop_h - 1), (width - 1) / (crop_w - 1)
        for y in range(crop_h):
            in_y = y1 * (height - 1) + y * (y2 - y1) * height_ratio
            if in_y < 0 or in_y > height - 1:
                continue
            top, bottom = math.floor(in_y), math.ceil(in_y)
            y_lerp = in_y - top
            for x in range(crop_w):
                in_x = x1 * (width - 1) + x * (x2 - x1) * width_ratio
                if in_x < 0 or in_x > width - 1:
                    continue
                left, right = math.floor(in_x), math.ceil(in_x)
                x_lerp = in_x - left
                plane = image[batch[b], 0].astype(np.float64)
                tl, tr, bl, br = plane[top, left], plane[top, right], plane[bottom, left], plane[bottom, right]
                grad_y = ((1 - x_lerp) * (bl - tl) + x_lerp * (br - tr)) * grads[b, 0, y, x]
                grad_x = ((1 - y_lerp) * (tr - tl) + y_lerp * (br - bl)) * grads[b, 0, y, x]
                expected[b] += [grad_y * (height - 1 - y * height_ratio), grad_x * (width - 1 - x * width_ratio),
                                grad_y * y * height_ratio, grad_x * x * width_ratio]
    desc = grad_desc(tensor(F32, grads.shape), tensor(F32, [3, 4]), tensor(U32, [3]), None,
                     x=tensor(F32, image.shape), droi=tensor(F32, [3, 4]), scale=(width - 1.0, height - 1.0),
                     offsets=(0.0, 0.0), samples=(1, 1), corners=True)
    got = run(device, desc, InputTensor=image, InputGradientTensor=grads, ROITensor=boxes[:, [1, 0, 3, 2]].astype(f32),
              BatchIndicesTensor=batch)["OutputROIGradientTensor"]
    check_roi_gradient(got[:, [1, 0, 3, 2]], expected, image, grads, batch, (height - 1.0, width - 1.0), 6, F32)
