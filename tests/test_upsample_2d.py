"""DML_OPERATOR_UPSAMPLE_2D (dmlsim/operators/upsample_2d), on every adapter.

Expected values are literals worked out by hand, or the doc's algorithms written out here as float64
loops (never dmlsim's reference): NEAREST_NEIGHBOR takes the input element nearest to each output pixel
center; LINEAR (bilinear) weights the 2 x 2 nearest input elements by distance from the center
``(o + 0.5) / scale - 0.5``, clamped to the borders. Tolerance: a FLOAT32 result is a few float32
roundings of a convex combination: 4 ulps of the largest |input| used; FLOAT16 1 ulp (half).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps
from dmlsim.quick import run_operator

F32, F16 = dml.DML_TENSOR_DATA_TYPE_FLOAT32, dml.DML_TENSOR_DATA_TYPE_FLOAT16
NUMPY = {F32: np.float32, F16: np.float16}
NEAREST, LINEAR = dml.DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, dml.DML_INTERPOLATION_MODE_LINEAR


def tensor(data_type, sizes, strides=None):
    return dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER, dml.DML_BUFFER_TENSOR_DESC(
        data_type, dml.DML_TENSOR_FLAG_NONE, len(sizes), list(sizes), None if strides is None else list(strides),
        dml.DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides), 0))


def upsample_desc(x, out, width, height, mode):
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_UPSAMPLE_2D, dml.DML_UPSAMPLE_2D_OPERATOR_DESC(
        x, out, dml.DML_SIZE_2D(width, height), mode))


def upsample_loops(x, scale_h, scale_w, linear):
    """Each output element from the doc's description, one at a time: (expected, magnitude bound)."""
    x = np.asarray(x, np.float64)
    height, width = x.shape[-2:]
    out = np.zeros((*x.shape[:-2], height * scale_h, width * scale_w))
    bound = np.zeros_like(out)
    for index in np.ndindex(out.shape):
        *lead, oh, ow = index
        plane = x[tuple(lead)]
        ch = (oh + 0.5) / scale_h - 0.5  # the output pixel center in input coordinates
        cw = (ow + 0.5) / scale_w - 0.5
        if not linear:
            out[index] = plane[round(ch), round(cw)]  # never a tie with integer scales
            bound[index] = abs(out[index])
            continue
        ch, cw = min(max(ch, 0.0), height - 1.0), min(max(cw, 0.0), width - 1.0)
        h0, w0 = math.floor(ch), math.floor(cw)
        h1, w1 = min(h0 + 1, height - 1), min(w0 + 1, width - 1)
        dh, dw = ch - h0, cw - w0
        corners = [(h0, w0, (1 - dh) * (1 - dw)), (h0, w1, (1 - dh) * dw), (h1, w0, dh * (1 - dw)), (h1, w1, dh * dw)]
        out[index] = sum(weight * plane[h, w] for h, w, weight in corners)
        bound[index] = max(abs(plane[h, w]) for h, w, _ in corners)
    return out, bound


def test_dxdispatch_sample_linear(device):
    """dml_upsample_2d.json: [[1, 2], [3, 4]] scaled 2 x 2. Centers along each axis: -0.25 (clamped to 0),
    0.25, 0.75, 1.25 (clamped to 1): row 0 = [1, 1.25, 1.75, 2]; row 1 (a quarter of the way to [3, 4]) =
    [1.5, 1.75, 2.25, 2.5]; row 2 = [2.5, 2.75, 3.25, 3.5]; row 3 = [3, 3.25, 3.75, 4] (DxDispatch's own
    expected output)."""
    desc = upsample_desc(tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 1, 4, 4]), 2, 2, LINEAR)
    got = run_operator(device, desc, {"InputTensor": np.array([1, 2, 3, 4], np.float32)})["OutputTensor"]
    np.testing.assert_array_equal(got.reshape(-1), [1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5,
                                                    3, 3.25, 3.75, 4])


def test_nearest_by_hand(device):
    """[[1, 2], [3, 4]] with Width 3, Height 2: each element repeated 3 times across and 2 times down."""
    desc = upsample_desc(tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 1, 4, 6]), 3, 2, NEAREST)
    got = run_operator(device, desc, {"InputTensor": np.array([1, 2, 3, 4], np.float32)})["OutputTensor"]
    np.testing.assert_array_equal(got.reshape(4, 6), [[1, 1, 1, 2, 2, 2], [1, 1, 1, 2, 2, 2],
                                                     [3, 3, 3, 4, 4, 4], [3, 3, 3, 4, 4, 4]])


def test_linear_scale_three_by_hand(device):
    """[0, 6] scaled 3 along the width: centers -1/3 (clamped: 0), 0, 1/3, 2/3, 1, 4/3 (clamped: 1):
    [0, 0, 2, 4, 6, 6]."""
    desc = upsample_desc(tensor(F32, [1, 1, 1, 2]), tensor(F32, [1, 1, 1, 6]), 3, 1, LINEAR)
    got = run_operator(device, desc, {"InputTensor": np.array([0, 6], np.float32)})["OutputTensor"]
    np.testing.assert_allclose(got.reshape(-1), [0, 0, 2, 4, 6, 6], rtol=0, atol=4e-7 * 6)


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("mode", [NEAREST, LINEAR], ids=["NEAREST", "LINEAR"])
@pytest.mark.parametrize(("sizes", "scale"), [((2, 3, 3, 4), (2, 3)), ((1, 2, 5, 1), (4, 1)),
                                              ((1, 1, 1, 7), (3, 5)), ((2, 2, 3, 2, 3), (2, 2))],
                         ids=["4d-2x3", "4d-4x1", "4d-3x5", "5d-2x2"])
def test_upsample_matches_the_description(device, data_type, mode, sizes, scale):
    scale_h, scale_w = scale
    rng = np.random.default_rng(sum(sizes))
    x = rng.uniform(-4, 4, sizes).astype(NUMPY[data_type])
    out_sizes = (*sizes[:-2], sizes[-2] * scale_h, sizes[-1] * scale_w)
    desc = upsample_desc(tensor(data_type, sizes), tensor(data_type, out_sizes), scale_w, scale_h, mode)
    got = run_operator(device, desc, {"InputTensor": x})["OutputTensor"]
    expected, bound = upsample_loops(x, scale_h, scale_w, mode == LINEAR)
    report = compare_ulps(got, expected, NUMPY[data_type], 1 if data_type == F16 else 4, bound)
    assert report.ok, report.describe("OutputTensor")


def test_strided_input_and_output(device):
    """An NHWC-strided input read into a padded output: the same numbers as the packed layouts."""
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (1, 2, 2, 3)).astype(np.float32)
    desc = upsample_desc(tensor(F32, [1, 2, 2, 3], [12, 1, 6, 2]), tensor(F32, [1, 2, 4, 6], [64, 32, 8, 1]),
                         2, 2, LINEAR)
    got = run_operator(device, desc, {"InputTensor": x})["OutputTensor"]
    expected, bound = upsample_loops(x, 2, 2, True)
    report = compare_ulps(got, expected, np.float32, 4, bound)
    assert report.ok, report.describe("OutputTensor")


def refused(ref_device, desc):
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateOperator(desc)
    assert info.value.hresult == dml.E_INVALIDARG, str(info.value)
    return str(info.value)


@pytest.mark.parametrize(("desc", "expected"), [
    (upsample_desc(tensor(dml.DML_TENSOR_DATA_TYPE_UINT8, [1, 1, 2, 2]), tensor(F32, [1, 1, 4, 4]), 2, 2, NEAREST),
     "InputTensor.DataType UINT8 is not supported by DML_OPERATOR_UPSAMPLE_2D (supported: FLOAT32, FLOAT16)"),
    (upsample_desc(tensor(F32, [1, 2, 2]), tensor(F32, [1, 4, 4]), 2, 2, NEAREST),
     "InputTensor.DimensionCount 3 is not supported by DML_OPERATOR_UPSAMPLE_2D (supported: 4 to 5)"),
    (upsample_desc(tensor(F32, [1, 1, 2, 2]), tensor(F16, [1, 1, 4, 4]), 2, 2, NEAREST),
     "OutputTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (upsample_desc(tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 1, 1, 4, 4]), 2, 2, NEAREST),
     "OutputTensor.DimensionCount 5 must equal InputTensor.DimensionCount 4"),
    (upsample_desc(tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 1, 2, 4]), 2, 0, NEAREST),
     "ScaleSize.Height 0 must be in (0, UINT_MAX / InputHeight = 2147483647]"),
    (upsample_desc(tensor(F32, [1, 1, 2, 3]), tensor(F32, [1, 1, 2, 3]), 2**31, 1, NEAREST),
     "ScaleSize.Width 2147483648 must be in (0, UINT_MAX / InputWidth = 1431655765]"),
    (upsample_desc(tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 1, 4, 6]), 2, 2, LINEAR),
     "OutputTensor.Sizes [1, 1, 4, 6] must be [1, 1, 4, 4]"),
    (upsample_desc(tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 2, 4, 4]), 2, 2, LINEAR),
     "OutputTensor.Sizes [1, 2, 4, 4] must be [1, 1, 4, 4]"),
    (upsample_desc(tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 1, 4, 4]), 2, 2, 7),
     "InterpolationMode 7 is not a DML_INTERPOLATION_MODE"),
])
def test_validation(ref_device, desc, expected):
    assert expected in refused(ref_device, desc)


def test_registered():
    from dmlsim.operators import implemented_names

    assert "DML_OPERATOR_UPSAMPLE_2D" in implemented_names()
