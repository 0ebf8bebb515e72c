"""DirectML's ROI_POOLING (dmlsim/operators/roi), on every adapter.

Expected values are literals worked out by hand (in each test's docstring) or the page's integer formulas written out
here as loops (``pool_loops``), never dmlsim's reference. The output is one of the input elements (or 0): exact, FLOAT16
included.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from datamove_support import F16, F32, F64, NUMPY, operator, refused, run, tensor, type_id

from dmlsim.api.structs import DML_SIZE_2D


def pool_desc(x, rois, out, pooled, scale=1.0):
    return operator("ROI_POOLING", InputTensor=x, ROITensor=rois, OutputTensor=out, SpatialScale=scale,
                    PooledSize=DML_SIZE_2D(Width=pooled[1], Height=pooled[0]))


def pool_loops(x, rois, pooled, scale):
    """The page's formulas, one output element at a time (round halfway away from zero; empty windows, bad batch
    ids: 0)."""
    x = np.asarray(x, np.float64)
    n, channels, h, w = x.shape
    out = np.zeros((len(rois), channels, *pooled))
    for r, (b, *corners) in enumerate(np.asarray(rois, np.float32)):
        scaled = [float(np.float32(v) * np.float32(scale)) for v in corners]
        x1, y1, x2, y2 = (int(math.copysign(math.floor(abs(v) + 0.5), v)) for v in scaled)
        if not 0 <= b < n:
            continue
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for c in range(channels):
            for oy in range(pooled[0]):
                for ox in range(pooled[1]):
                    rows = range(min(max(oy * rh // pooled[0] + y1, 0), h),
                                 min(max(-(-(oy + 1) * rh // pooled[0]) + y1, 0), h))
                    cols = range(min(max(ox * rw // pooled[1] + x1, 0), w),
                                 min(max(-(-(ox + 1) * rw // pooled[1]) + x1, 0), w))
                    values = [x[int(b), c, i, j] for i in rows for j in cols]
                    numbers = [v for v in values if not math.isnan(v)]
                    out[r, c, oy, ox] = (max(numbers) if numbers else math.nan) if values else 0.0
    return out


@pytest.mark.parametrize("data_type", [F32, F16], ids=type_id)
def test_windows_by_hand(device, data_type):
    """A 4 x 4 input 1...16, region [0, 0, 3, 3] (4 x 4). Pooled 2 x 2: rows [0, 2) and [2, 4): [[6, 8], [14, 16]].
    Pooled 3 x 3: rows [0, ceil(4/3) = 2), [4/3 = 1, ceil(8/3) = 3), [8/3 = 2, 4) (overlapping): the bottom-right
    elements [[6, 7, 8], [10, 11, 12], [14, 15, 16]]."""
    t = NUMPY[data_type]
    x = np.arange(1, 17, dtype=t).reshape(1, 1, 4, 4)
    rois = np.array([0, 0, 0, 3, 3], t).reshape(1, 1, 1, 5)
    for pooled, expected in (((2, 2), [[6, 8], [14, 16]]), ((3, 3), [[6, 7, 8], [10, 11, 12], [14, 15, 16]])):
        desc = pool_desc(tensor(data_type, [1, 1, 4, 4]), tensor(data_type, [1, 1, 1, 5]),
                         tensor(data_type, [1, 1, *pooled]), pooled)
        got = run(device, desc, InputTensor=x, ROITensor=rois)["OutputTensor"]
        np.testing.assert_array_equal(got.reshape(pooled), expected)


def test_rounding_clamping_empty_inverted_and_batch_ids(device):
    """A 4 x 4 input 1...16 (batch 0) and 17...32 (batch 1), pooled 1 x 1 unless said.
    SpatialScale 0.5, corners [1, 1, 5, 5]: round(0.5) = 1 and round(2.5) = 3 (halfway away from zero; to even would
    give 0 and 2, max 11): rows and columns 1...3, max 16 (and 11 over 16...1). Region [2, 2, 10, 10] pooled 2 x 2
    (9 wide): windows [2, 7) clamped to [2, 4) and [6, 11) clamped to [4, 4) (empty: 0): [[16, 0], [0, 0]].
    Inverted [3, 3, 1, 1]: 1 wide from 3: 16. Batch id 1.7: batch 1 (truncated): 32. Batch ids 2 and NaN: 0."""
    x = np.arange(1, 33, dtype=np.float32).reshape(2, 1, 4, 4)
    rois = np.array([[0, 1, 1, 5, 5]], np.float32).reshape(1, 1, 1, 5)
    desc = pool_desc(tensor(F32, [2, 1, 4, 4]), tensor(F32, [1, 1, 1, 5]), tensor(F32, [1, 1, 1, 1]), (1, 1), 0.5)
    assert run(device, desc, InputTensor=x, ROITensor=rois)["OutputTensor"].reshape(-1)[0] == 16
    # the same window over 16...1 (batch 0) has its max at its top-left corner (1, 1): 11 (rounding x1 = 0.5 to even
    # would start at column 0: 12)
    falling = np.float32(17) - x
    assert run(device, desc, InputTensor=falling, ROITensor=rois)["OutputTensor"].reshape(-1)[0] == 11
    rois = np.array([[0, 2, 2, 10, 10]], np.float32).reshape(1, 1, 1, 5)
    desc = pool_desc(tensor(F32, [2, 1, 4, 4]), tensor(F32, [1, 1, 1, 5]), tensor(F32, [1, 1, 2, 2]), (2, 2))
    got = run(device, desc, InputTensor=x, ROITensor=rois)["OutputTensor"].reshape(2, 2)
    np.testing.assert_array_equal(got, [[16, 0], [0, 0]])
    rois = np.array([[0, 3, 3, 1, 1], [1.7, 0, 0, 3, 3], [2, 0, 0, 3, 3], [np.nan, 0, 0, 3, 3]],
                    np.float32).reshape(1, 1, 4, 5)
    desc = pool_desc(tensor(F32, [2, 1, 4, 4]), tensor(F32, [1, 1, 4, 5]), tensor(F32, [4, 1, 1, 1]), (1, 1))
    got = run(device, desc, InputTensor=x, ROITensor=rois)["OutputTensor"].reshape(-1)
    np.testing.assert_array_equal(got, [16, 32, 0, 0])


@pytest.mark.parametrize("data_type", [F32, F16], ids=type_id)
def test_nan_ignored_first_zero_kept(device, data_type):
    """A 2 x 4 input [[NaN, 3, -0, +0], [NaN, 1, +0, -0]], region [0, 0, 3, 1] pooled 1 x 2: columns [0, 2) max 3
    (NaN ignored), columns [2, 4) the first of the equal zeros, -0; region [0, 0, 0, 1] (column 0: only NaN): NaN."""
    t = NUMPY[data_type]
    x = np.array([[np.nan, 3, -0.0, 0.0], [np.nan, 1, 0.0, -0.0]], t).reshape(1, 1, 2, 4)
    rois = np.array([[0, 0, 0, 3, 1]], t).reshape(1, 1, 1, 5)
    desc = pool_desc(tensor(data_type, [1, 1, 2, 4]), tensor(data_type, [1, 1, 1, 5]),
                     tensor(data_type, [1, 1, 1, 2]), (1, 2))
    got = run(device, desc, InputTensor=x, ROITensor=rois)["OutputTensor"].reshape(-1)
    np.testing.assert_array_equal(got, [3, 0])
    assert np.signbit(got[1]), "the first of equal zeros (-0) must win"
    desc = pool_desc(tensor(data_type, [1, 1, 2, 4]), tensor(data_type, [1, 1, 1, 5]),
                     tensor(data_type, [1, 1, 1, 1]), (1, 1))
    got = run(device, desc, InputTensor=x, ROITensor=np.array([[0, 0, 0, 0, 1]], t).reshape(1, 1, 1, 5))
    assert np.isnan(got["OutputTensor"].reshape(-1)[0])


@pytest.mark.parametrize("data_type", [F32, F16], ids=type_id)
def test_matches_the_pages_formulas(device, data_type):
    rng = np.random.default_rng(5)
    t = NUMPY[data_type]
    x = rng.integers(-5, 6, (2, 3, 6, 7)).astype(t)  # small integers: many ties
    rois = np.concatenate([rng.integers(0, 2, (6, 1)), rng.uniform(-3, 16, (6, 4))], axis=1).astype(t)
    desc = pool_desc(tensor(data_type, [2, 3, 6, 7]), tensor(data_type, [1, 1, 6, 5]),
                     tensor(data_type, [6, 3, 3, 2]), (3, 2), 0.5)
    got = run(device, desc, InputTensor=x, ROITensor=rois.reshape(1, 1, 6, 5))["OutputTensor"]
    np.testing.assert_array_equal(got, pool_loops(x, rois, (3, 2), 0.5).astype(t))


def test_strided_broadcast_input_and_padded_output(device):
    """InputTensor broadcast along C (stride 0) with H and W swapped in memory, ROITensor's values 2 apart, the output
    padded: the same numbers as the formulas over the packed tensors."""
    rng = np.random.default_rng(9)
    x = np.ascontiguousarray(np.broadcast_to(rng.normal(size=(2, 1, 5, 4)).astype(np.float32), (2, 2, 5, 4)))
    rois = np.array([[1, 0, 0, 3, 4], [0, 1, 2, 2, 4], [1, 3, 1, 0, 3]], np.float32)
    desc = pool_desc(tensor(F32, [2, 2, 5, 4], [20, 0, 1, 5]), tensor(F32, [1, 1, 3, 5], [0, 0, 10, 2]),
                     tensor(F32, [3, 2, 2, 2], [16, 8, 4, 1]), (2, 2))
    got = run(device, desc, InputTensor=x, ROITensor=rois.reshape(1, 1, 3, 5))["OutputTensor"]
    np.testing.assert_array_equal(got, pool_loops(x, rois, (2, 2), 1.0).astype(np.float32))


def _rp(x=(1, 2, 4, 4), rois=(1, 1, 3, 5), out=(3, 2, 2, 2), types=(F32, F32, F32), pooled=(2, 2)):
    return pool_desc(tensor(types[0], x), tensor(types[1], rois), tensor(types[2], out), pooled)


@pytest.mark.parametrize(("desc", "expected"), [
    (_rp(types=(F64, F64, F64)), "InputTensor.DataType FLOAT64 is not supported by DML_OPERATOR_ROI_POOLING"),
    (_rp(types=(F32, F16, F32)), "ROITensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (_rp(rois=(3, 5)), "ROITensor.DimensionCount 2 is not supported by DML_OPERATOR_ROI_POOLING (supported: 4)"),
    (_rp(rois=(1, 1, 3, 4)), "ROITensor.Sizes [1, 1, 3, 4] must be {1, 1, NumROIs, 5}"),
    (_rp(out=(3, 2, 2, 3)), "OutputTensor.Sizes [3, 2, 2, 3] must be [3, 2, 2, 2]"),
    (_rp(out=(3, 1, 2, 2)), "OutputTensor.Sizes [3, 1, 2, 2] must be [3, 2, 2, 2]"),
    (_rp(out=(3, 2, 1, 2), pooled=(0, 2)), "PooledSize {Width 2, Height 0} must be at least 1 by 1"),
], ids=["float64", "roi-type", "roi-rank", "roi-width", "pooled-size", "channels", "pooled-0"])
def test_refusals(ref_device, desc, expected):
    assert expected in refused(ref_device, desc)


def test_onnx_max_roi_pool_lowering(device):
    """ONNX MaxRoiPool (onnx has no node case of it) through dmlsim.backend: rois (num_rois, 5) read as ROI_POOLING's
    {1, 1, NumROIs, 5}, pooled_shape (height, width). A 4 x 4 input 1...16 (batch 0) and 17...32 (batch 1): region
    [0, 0, 0, 3, 3] pooled 2 x 3 takes rows [0, 2), [2, 4) and columns [0, 2), [1, 3), [2, 4) (4/3 and ceil(8/3)):
    [[6, 7, 8], [14, 15, 16]]; [1, 1, 1, 2, 2] (2 x 2 from (1, 1) of batch 1, 17 + 4y + x): rows [1, 2), [2, 3),
    columns [1 + 0, 1 + 1), [1 + 0, 1 + 2), [1 + 1, 1 + 2): [[22, 23, 23], [26, 27, 27]]."""
    from onnx import TensorProto, helper

    from dmlsim import backend

    node = helper.make_node("MaxRoiPool", ["X", "rois"], ["Y"], pooled_shape=[2, 3], spatial_scale=1.0)
    graph = helper.make_graph([node], "pool", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 1, 4, 4]),
                                               helper.make_tensor_value_info("rois", TensorProto.FLOAT, [2, 5])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 1, 2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    x = np.arange(1, 33, dtype=np.float32).reshape(2, 1, 4, 4)
    rois = np.array([[0, 0, 0, 3, 3], [1, 1, 1, 2, 2]], np.float32)
    got = backend.prepare(model, device).run([x, rois])[0]
    np.testing.assert_array_equal(got.reshape(2, 2, 3), [[[6, 7, 8], [14, 15, 16]], [[22, 23, 23], [26, 27, 27]]])
