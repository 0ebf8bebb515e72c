"""DML_OPERATOR_ONE_HOT (dmlsim/operators/gather_scatter), on every adapter.

Expected values are literals worked out from the doc page (each sequence along Axis is OffValue but OnValue where
its index points; an index outside the sequence leaves it all OffValue; negative indices of signed types count
from the end). Moves: comparisons are exact (bytes for FLOAT16). ONNX's OneHot node cases are in
tests/test_one_hot_onnx.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import F16, F32, F64, I8, I32, I64, U32, U64, operator, refused, run, tensor, type_id

OUT = "OutputTensor"


def one_hot(i, values, y, axis):
    return operator("ONE_HOT", IndicesTensor=i, ValuesTensor=values, OutputTensor=y, Axis=axis)


@pytest.mark.parametrize("index_type", [I32, I64, U32, U64], ids=type_id)
def test_axis_last_negative_and_out_of_range(device, index_type):
    """Indices [0, 2, -1 (signed) / 9 (unsigned), 3] with depth 3 along the last axis, values [0, 5]: rows
    [5,0,0], [0,0,5], then -1 -> [0,0,5] (signed) or 9 -> [0,0,0], and 3 (outside) -> [0,0,0]."""
    signed = index_type in (I32, I64)
    raw = np.array([0, 2, -1 if signed else 9, 3]).astype({I32: np.int32, I64: np.int64, U32: np.uint32,
                                                           U64: np.uint64}[index_type]).reshape(4, 1)
    desc = one_hot(tensor(index_type, [4, 1]), tensor(F32, [1, 2]), tensor(F32, [4, 3]), 1)
    got = run(device, desc, IndicesTensor=raw, ValuesTensor=np.array([[0, 5]], np.float32))[OUT]
    third = [0, 0, 5] if signed else [0, 0, 0]
    assert got.tolist() == [[5, 0, 0], [0, 0, 5], third, [0, 0, 0]]


def test_axis_0_values_strided_and_float16(device):
    """Axis 0 (sequences down the columns) of a {3, 2} FLOAT16 output; indices {1, 2} [2, 0]; ValuesTensor {2, 2}
    with padded strides [3, 1] holding [[-0.0, 7], [1, 1]] in its elements: OffValue -0.0 (element 0), OnValue 7
    (element 1, the fastest-changing dimension) -> [[-0, 7], [-0, -0], [7, -0]], bit for bit."""
    values = np.array([[-0.0, 7], [1, 1]], np.float16)
    desc = one_hot(tensor(I64, [1, 2]), tensor(F16, [2, 2], strides=[3, 1]), tensor(F16, [3, 2]), 0)
    got = run(device, desc, IndicesTensor=np.array([[2, 0]], np.int64), ValuesTensor=values)[OUT]
    expected = np.array([[-0.0, 7], [-0.0, -0.0], [7, -0.0]], np.float16)
    assert got.tobytes() == expected.tobytes()


def test_values_on_a_later_dimension_and_int8_output_strides(device):
    """ValuesTensor {1, 2, 1} with strides [0, 3, 1]: element 1 lies along the middle dimension (the
    fastest-changing one of size > 1), 3 elements after element 0 in memory: OffValue -1, OnValue 100; INT8 output
    {1, 2, 4} written with padded strides [16, 8, 1]: indices {1, 2, 1} [[3], [1]] -> [[-1, -1, -1, 100],
    [-1, 100, -1, -1]]."""
    desc = one_hot(tensor(U32, [1, 2, 1]), tensor(I8, [1, 2, 1], strides=[0, 3, 1]),
                   tensor(I8, [1, 2, 4], strides=[16, 8, 1]), 2)
    got = run(device, desc, IndicesTensor=np.array([3, 1], np.uint32).reshape(1, 2, 1),
              ValuesTensor=np.array([-1, 100], np.int8).reshape(1, 2, 1))[OUT]
    assert got.tolist() == [[[-1, -1, -1, 100], [-1, 100, -1, -1]]]


@pytest.mark.parametrize(("make", "message"), [
    (lambda: one_hot(tensor(F32, [4, 1]), tensor(F32, [1, 2]), tensor(F32, [4, 3]), 1),
     "DML_ONE_HOT_OPERATOR_DESC.IndicesTensor.DataType FLOAT32 is not supported by DML_OPERATOR_ONE_HOT"),
    (lambda: one_hot(tensor(I32, [4, 1]), tensor(F64, [1, 2]), tensor(F64, [4, 3]), 1),
     "DML_ONE_HOT_OPERATOR_DESC.OutputTensor.DataType FLOAT64 is not supported by DML_OPERATOR_ONE_HOT"),
    (lambda: one_hot(tensor(I32, [4, 1]), tensor(F16, [1, 2]), tensor(F32, [4, 3]), 1),
     "DML_ONE_HOT_OPERATOR_DESC.ValuesTensor.DataType FLOAT16 must equal OutputTensor.DataType FLOAT32"),
    (lambda: one_hot(tensor(I32, [4, 1]), tensor(F32, [1, 1]), tensor(F32, [4, 3]), 1),
     "DML_ONE_HOT_OPERATOR_DESC.ValuesTensor.Sizes [1, 1] must hold at least 2 elements"),
    (lambda: one_hot(tensor(I32, [4, 2]), tensor(F32, [1, 2]), tensor(F32, [4, 3]), 1),
     "DML_ONE_HOT_OPERATOR_DESC.IndicesTensor.Sizes [4, 2] must be [4, 1]"),
    (lambda: one_hot(tensor(I32, [4, 1]), tensor(F32, [1, 2]), tensor(F32, [4, 3]), 2),
     "DML_ONE_HOT_OPERATOR_DESC.Axis 2 must be less than OutputTensor.DimensionCount 2"),
    (lambda: one_hot(tensor(I32, [4, 1]), tensor(F32, [2]), tensor(F32, [4, 3]), 1),
     "DML_ONE_HOT_OPERATOR_DESC.ValuesTensor.DimensionCount 1 must equal OutputTensor.DimensionCount 2"),
], ids=["index-type", "output-type", "values-type", "values-count", "indices-sizes", "axis", "values-rank"])
def test_refusals_name_the_field(ref_device, make, message):
    assert message in refused(ref_device, make())
