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
], ids=["dy-type", "index-type", "rank", "roi-rank", "types-differ", "no-output", "max-without-input", "roi-sizes",
        "batch-sizes", "dy-sizes", "input-sizes", "roi-gradient-sizes", "reduction", "min-0", "min-above-max"])
def test_refusals(ref_device, desc, expected):
    assert expected in refused(ref_device, desc)


def test_roi_gradient_is_not_implemented(ref_device):
    """A valid OutputROIGradientTensor is E_NOTIMPL (the operator's docstring says why), with or without
    OutputGradientTensor."""
    for dx in ((1, 1, 4, 4), None):
        with pytest.raises(dml.DMLError) as info:
            ref_device.CreateOperator(_rg(x=(1, 1, 4, 4), dx=dx, droi=(2, 4)))
        assert info.value.hresult == dml.E_NOTIMPL, str(info.value)
        assert "OutputROIGradientTensor" in str(info.value)
