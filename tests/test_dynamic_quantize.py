"""DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR (dmlsim/operators/dynamic_quantize), on every adapter.

Expected values: literals worked out by hand, onnx's DynamicQuantizeLinear node case where its range agrees
with the page's, or the page's formula written out here with numpy float32 scalars (``page_formula``: one
rounding per step, the decisions of the operator's docstring), never dmlsim's reference. Outputs are integers
and a float32 scale: compared exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import F16, F32, I8, I32, U8, operator, refused, run, tensor
from onnx_node_cases import node_cases

LIMITS = {U8: (0, 255), I8: (-128, 127)}


def dql(x, y, scale, zero_point):
    return operator("DYNAMIC_QUANTIZE_LINEAR", InputTensor=x, OutputTensor=y, OutputScaleTensor=scale,
                    OutputZeroPointTensor=zero_point)


def page_formula(x, limits):
    """The page's formula in float32 steps: (outputs, scale, zero point)."""
    f = np.float32
    values = np.asarray(x, f).reshape(-1)
    finite = values[~np.isnan(values)]
    low, high = f(finite.min()), f(finite.max())
    with np.errstate(all="ignore"):
        scale = f(high - low) / f(limits[1] - limits[0])
        zero = np.rint(f(limits[0]) - low / scale)
        zero = 0 if np.isnan(zero) else int(np.clip(zero, *limits))
        out = []
        for v in values:
            q = np.rint(v / scale) + f(zero)
            out.append(0 if np.isnan(q) else int(np.clip(q, *limits)))
    return np.array(out).reshape(np.shape(x)), scale, zero


def test_by_hand_int8(device):
    """[-1, 0, 1, 3] to INT8: scale = 4 / 255 = 0.015686275; zero point = rint(-128 + 1 / scale) = rint(-128 + 63.75)
    = -64; outputs rint(x / scale) - 64: [-64 - 64, -64, 64 - 64, 191 - 64] = [-128, -64, 0, 127]."""
    n = [4]
    got = run(device, dql(tensor(F32, n), tensor(I8, n), tensor(F32, [1]), tensor(I8, [1])),
              InputTensor=[-1, 0, 1, 3])
    assert got["OutputTensor"].tolist() == [-128, -64, 0, 127]
    assert got["OutputScaleTensor"].tolist() == [np.float32(4) / np.float32(255)]
    assert got["OutputZeroPointTensor"].tolist() == [-64]


def test_by_hand_zero_point_rounds_to_nearest(device):
    """[-1, 1, 0.5] to INT8: scale float32(2) / 255 = 0.007843138; -1 / scale is the float32 -127.49999, so the zero
    point is rint(-128 + 127.49999) = rint(-0.5000076) = -1 (truncation would give 0); outputs rint(-127.49999) - 1
    = -128, rint(127.49999) - 1 = 126, rint(63.749996) - 1 = 63."""
    got = run(device, dql(tensor(F32, [3]), tensor(I8, [3]), tensor(F32, [1]), tensor(I8, [1])),
              InputTensor=[-1, 1, 0.5])
    assert got["OutputTensor"].tolist() == [-128, 126, 63]
    assert got["OutputZeroPointTensor"].tolist() == [-1]


def test_positive_inputs_keep_their_own_range(device):
    """[2, 4, 6] to INT8: the page's range is the data's own, [2, 6] (ONNX would widen it to [0, 6]): scale 4 / 255
    = 0.015686275; 2 / scale is the float32 127.49999, so the zero point rint(-128 - 127.49999) = -255 saturates
    to -128; outputs rint(127.49999) - 128 = -1, rint(254.99998) - 128 = 127, rint(382.49997) - 128 -> 127."""
    got = run(device, dql(tensor(F32, [3]), tensor(I8, [3]), tensor(F32, [1]), tensor(I8, [1])),
              InputTensor=[2, 4, 6])
    assert got["OutputTensor"].tolist() == [-1, 127, 127]
    assert got["OutputZeroPointTensor"].tolist() == [-128]


def test_nan_is_ignored(device):
    """[NaN, 1, -1] to UINT8: Min and Max ignore the NaN: scale float32(2) / 255 = 0.007843138 (a little above
    2/255), so 1 / scale is the float32 127.49999, below the tie: the zero point is rint(0 + 127.49999) = 127;
    outputs [NaN -> 0, 127 + 127 = 254, -127 + 127 = 0]."""
    got = run(device, dql(tensor(F32, [3]), tensor(U8, [3]), tensor(F32, [1]), tensor(U8, [1])),
              InputTensor=[np.nan, 1, -1])
    assert got["OutputTensor"].tolist() == [0, 254, 0]
    assert got["OutputZeroPointTensor"].tolist() == [127]


def test_one_repeated_value_gives_scale_zero(device):
    """[2, 2, 2] (UINT8): scale (2 - 2) / 255 = 0; zero point rint(0 - 2 / 0 = -inf) saturated to 0; outputs
    2 / 0 = inf, saturated to 255 (the operator's decision: IEEE arithmetic, saturated)."""
    got = run(device, dql(tensor(F32, [3]), tensor(U8, [3]), tensor(F32, [1]), tensor(U8, [1])),
              InputTensor=[2, 2, 2])
    assert got["OutputTensor"].tolist() == [255, 255, 255]
    assert got["OutputScaleTensor"].tolist() == [0.0] and got["OutputZeroPointTensor"].tolist() == [0]


@pytest.mark.parametrize(("x_type", "y_type"), [(F32, U8), (F16, I8)], ids=["float32-uint8", "float16-int8"])
def test_strided_many_elements(device, x_type, y_type):
    """{7, 100} (more elements than the kernel's work-group, so each work-item takes several): the input stored
    transposed, the output padded, the scale and zero point 2-D {1, 1}; expected: page_formula."""
    rng = np.random.default_rng(5)
    x = rng.uniform(-3, 7, (7, 100)).astype(np.float16 if x_type == F16 else np.float32)
    x[3, 50] = -5.5
    x[6, 99] = 9.25
    op = dql(tensor(x_type, [7, 100], [1, 7]), tensor(y_type, [7, 100], [104, 1]), tensor(F32, [1, 1]),
             tensor(y_type, [1, 1]))
    got = run(device, op, InputTensor=x)
    expected, scale, zero = page_formula(x, LIMITS[y_type])
    assert got["OutputScaleTensor"].tolist() == [[scale]]
    assert got["OutputZeroPointTensor"].tolist() == [[zero]]
    assert got["OutputTensor"].tolist() == expected.tolist()


# onnx's DynamicQuantizeLinear cases whose expected values differ from the page's formula, and why.
ONNX_DIFFERS = {
    "test_dynamicquantizelinear_max_adjusted": "ONNX widens the range to include 0 (every input is negative); "
                                               "DirectML's formula takes the data's own maximum",
    "test_dynamicquantizelinear_min_adjusted": "ONNX widens the range to include 0 (every input is positive); "
                                               "DirectML's formula takes the data's own minimum",
}


def test_onnx_node_cases(device):
    """onnx's DynamicQuantizeLinear cases (UINT8): the input as a tensor of its shape, the scalar scale and zero
    point as {1, ..., 1} tensors of the input's DimensionCount; expected: onnx's. The cases listed in
    ONNX_DIFFERS are skipped for the reason given; every other case must map."""
    mapped = 0
    for case in node_cases("DynamicQuantizeLinear"):
        if case.name in ONNX_DIFFERS:
            continue
        (x,), (y, scale, zero) = case.data_sets[0]
        ones = [1] * x.ndim
        got = run(device, dql(tensor(F32, x.shape), tensor(U8, x.shape), tensor(F32, ones), tensor(U8, ones)),
                  InputTensor=x)
        assert got["OutputTensor"].tolist() == y.tolist(), case.name
        assert got["OutputScaleTensor"].reshape(()) == scale and got["OutputZeroPointTensor"].reshape(()) == zero
        mapped += 1
    assert mapped >= 1


def _refusals():
    def make(x=F32, y=U8, s=F32, z=U8, x_sizes=(4,), y_sizes=(4,), s_sizes=(1,), z_sizes=(1,)):
        return dql(tensor(x, list(x_sizes)), tensor(y, list(y_sizes)), tensor(s, list(s_sizes)),
                   tensor(z, list(z_sizes)))
    return [
        (lambda: make(x=I32), "InputTensor.DataType INT32 is not supported"),
        (lambda: make(y=F32, z=F32), "OutputTensor.DataType FLOAT32 is not supported"),
        (lambda: make(s=F16), "OutputScaleTensor.DataType FLOAT16 is not supported"),
        (lambda: make(z=I8), "OutputZeroPointTensor.DataType INT8 must equal OutputTensor.DataType UINT8"),
        (lambda: make(s_sizes=(2,)), "OutputScaleTensor.Sizes [2] must all be 1"),
        (lambda: make(z_sizes=(4,)), "OutputZeroPointTensor.Sizes [4] must all be 1"),
        (lambda: make(y_sizes=(5,)), "OutputTensor.Sizes [5] must equal InputTensor.Sizes [4]"),
        (lambda: make(s_sizes=(1, 1)), "OutputScaleTensor.DimensionCount 2 must equal InputTensor.DimensionCount 1"),
        (lambda: make(x_sizes=(1,) * 9, y_sizes=(1,) * 9, s_sizes=(1,) * 9, z_sizes=(1,) * 9),
         "InputTensor.DimensionCount must be 1, 2, 3, 4, 5, 6, 7, 8, got 9"),
    ]


@pytest.mark.parametrize(("make", "message"), _refusals(), ids=lambda x: x if isinstance(x, str) else "")
def test_refusals_name_the_field(ref_device, make, message):
    assert message in refused(ref_device, make())
