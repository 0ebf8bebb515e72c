"""DML_OPERATOR_NONZERO_COORDINATES (dmlsim/operators/nonzero_coordinates), on every adapter.

Expected values are literals: the page's example (±0 are zero) and hand-listed coordinates pinning dmlsim's
decisions (NaN is non-zero; rows after the count are 0, pinned on a pre-filled output by
descriptors/nonzero_coordinates.yaml; N below the DimensionCount keeps the last N coordinates).
Counts and coordinates are integers: exact. ONNX's NonZero node cases are in tests/test_nonzero_coordinates_onnx.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import F16, F32, F64, I8, I32, U32, operator, refused, run, tensor

COUNT, COORDS = "OutputCountTensor", "OutputCoordinatesTensor"


def nonzero(x, count, coordinates):
    return operator("NONZERO_COORDINATES", InputTensor=x, OutputCountTensor=count, OutputCoordinatesTensor=coordinates)


def test_doc_example_signed_zero(device):
    """The page's example: {1, 1, 2, 4} [[1, 0, 0, 2], [-0, 3.5, 0, -5]] -> count 4, coordinates
    [[0, 0], [0, 3], [1, 1], [1, 3]] (N 2), then rows of 0 (dmlsim's decision)."""
    x = np.array([[1, 0, 0, 2], [-0.0, 3.5, 0, -5]], np.float32).reshape(1, 1, 2, 4)
    got = run(device, nonzero(tensor(F32, [1, 1, 2, 4]), tensor(U32, [1, 1, 1, 1]), tensor(U32, [1, 1, 8, 2])),
              InputTensor=x)
    assert got[COUNT].ravel().tolist() == [4]
    assert got[COORDS].reshape(8, 2).tolist() == [[0, 0], [0, 3], [1, 1], [1, 3]] + [[0, 0]] * 4


def test_nan_counts_and_full_coordinates_strided(device):
    """FLOAT16 {2, 3} read with padded strides [4, 1]: [[NaN, 0, -0], [0, 7, 0]] -> count 2, rows [0, 0] (NaN is not
    zero) and [1, 1]; the coordinates {6, 2} written with padded strides [3, 1]."""
    x = np.array([[np.nan, 0, -0.0], [0, 7, 0]], np.float16)
    got = run(device, nonzero(tensor(F16, [2, 3], strides=[4, 1]), tensor(U32, [1, 1]),
                              tensor(U32, [6, 2], strides=[3, 1])), InputTensor=x)
    assert got[COUNT].ravel().tolist() == [2]
    assert got[COORDS].tolist() == [[0, 0], [1, 1], [0, 0], [0, 0], [0, 0], [0, 0]]


def test_last_n_coordinates_of_a_padded_input(device):
    """INT8 {1, 2, 2} (effective rank 2) with N = 2: the last two coordinates; [[0, -1], [3, 0]] -> count 2,
    rows [0, 1] and [1, 0]; N = 3 keeps the leading 0."""
    x = np.array([[[0, -1], [3, 0]]], np.int8)
    got = run(device, nonzero(tensor(I8, [1, 2, 2]), tensor(U32, [1, 1, 1]), tensor(U32, [1, 4, 2])), InputTensor=x)
    assert got[COORDS].reshape(4, 2)[:2].tolist() == [[0, 1], [1, 0]]
    got = run(device, nonzero(tensor(I8, [1, 2, 2]), tensor(U32, [1, 1, 1]), tensor(U32, [1, 4, 3])), InputTensor=x)
    assert got[COORDS].reshape(4, 3)[:2].tolist() == [[0, 0, 1], [0, 1, 0]]


@pytest.mark.parametrize(("make", "message"), [
    (lambda: nonzero(tensor(F32, [2, 2]), tensor(I32, [1, 1]), tensor(U32, [4, 2])),
     "DML_NONZERO_COORDINATES_OPERATOR_DESC.OutputCountTensor.DataType INT32 is not supported"),
    (lambda: nonzero(tensor(F32, [2, 2]), tensor(U32, [1, 2]), tensor(U32, [4, 2])),
     "DML_NONZERO_COORDINATES_OPERATOR_DESC.OutputCountTensor.Sizes [1, 2] must all be 1"),
    (lambda: nonzero(tensor(F32, [2, 2]), tensor(U32, [1, 1]), tensor(U32, [3, 2])),
     "DML_NONZERO_COORDINATES_OPERATOR_DESC.OutputCoordinatesTensor.Sizes [3, 2] must be {1, ..., 1, M, N} with M 4"),
    (lambda: nonzero(tensor(F32, [2, 2]), tensor(U32, [1, 1]), tensor(U32, [4, 1])),
     "and 2 <= N <= 2"),
    (lambda: nonzero(tensor(F64, [2, 2]), tensor(U32, [1, 1]), tensor(U32, [4, 2])),
     "DML_NONZERO_COORDINATES_OPERATOR_DESC.InputTensor.DataType FLOAT64 is not supported"),
    (lambda: nonzero(tensor(F32, [4]), tensor(U32, [1]), tensor(U32, [4])),
     "DML_NONZERO_COORDINATES_OPERATOR_DESC.InputTensor.DimensionCount 1 must be at least 2"),
    (lambda: nonzero(tensor(F32, [2, 2]), tensor(U32, [1, 1]), tensor(I32, [4, 2])),
     "DML_NONZERO_COORDINATES_OPERATOR_DESC.OutputCoordinatesTensor.DataType INT32 is not supported"),
], ids=["count-type", "count-scalar", "rows", "columns", "float64", "rank", "coordinates-type"])
def test_refusals_name_the_field(ref_device, make, message):
    assert message in refused(ref_device, make())
