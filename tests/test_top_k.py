"""DML_OPERATOR_TOP_K and TOP_K1 (dmlsim/operators/top_k), on every adapter.

Expected values are literals: the pages' examples and hand-sorted sequences pinning dmlsim's decisions (ties by
the lower index first in both directions, -0 equal to +0, NaN above +inf). Values are moved and indices counted:
comparisons are exact (bytes for FLOAT16). ONNX's TopK node cases are in tests/test_top_k_onnx.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import F16, F32, F64, I8, I64, U16, U32, U64, operator, refused, run, tensor, type_id

import dmlsim as dml

IN, VAL, IDX = "InputTensor", "OutputValueTensor", "OutputIndexTensor"
DECREASING, INCREASING = dml.DML_AXIS_DIRECTION_DECREASING, dml.DML_AXIS_DIRECTION_INCREASING
RAMP = np.array([[0, 1, 10, 11], [3, 2, 9, 8], [4, 5, 6, 7]], np.float32).reshape(1, 1, 3, 4)


def top_k(x, values, indices, axis, k):
    return operator("TOP_K", InputTensor=x, OutputValueTensor=values, OutputIndexTensor=indices, Axis=axis, K=k)


def top_k1(x, values, indices, axis, k, direction):
    return operator("TOP_K1", InputTensor=x, OutputValueTensor=values, OutputIndexTensor=indices, Axis=axis, K=k,
                    AxisDirection=direction)


def test_doc_examples(device):
    """TOP_K's examples: Axis 3, K 2 -> values [[11, 10], [9, 8], [7, 6]], indices [[3, 2], [2, 3], [3, 2]];
    Axis 2, K 2 -> values [[4, 5, 10, 11], [3, 2, 9, 8]], indices [[2, 2, 0, 0], [1, 1, 1, 1]]."""
    got = run(device, top_k(tensor(F32, [1, 1, 3, 4]), tensor(F32, [1, 1, 3, 2]), tensor(U32, [1, 1, 3, 2]), 3, 2),
              InputTensor=RAMP)
    assert got[VAL][0, 0].tolist() == [[11, 10], [9, 8], [7, 6]]
    assert got[IDX][0, 0].tolist() == [[3, 2], [2, 3], [3, 2]]
    got = run(device, top_k(tensor(F32, [1, 1, 3, 4]), tensor(F32, [1, 1, 2, 4]), tensor(U64, [1, 1, 2, 4]), 2, 2),
              InputTensor=RAMP)
    assert got[VAL][0, 0].tolist() == [[4, 5, 10, 11], [3, 2, 9, 8]]
    assert got[IDX][0, 0].tolist() == [[2, 2, 0, 0], [1, 1, 1, 1]]


@pytest.mark.parametrize(("direction", "values", "indices"), [
    (DECREASING, [np.nan, np.nan, np.inf, 2, 0, -0.0, -np.inf], [2, 6, 4, 1, 0, 3, 5]),
    (INCREASING, [-np.inf, 0, -0.0, 2, np.inf, np.nan, np.nan], [5, 0, 3, 1, 4, 2, 6]),
], ids=["decreasing", "increasing"])
def test_nan_signed_zero_and_ties_float16(device, direction, values, indices):
    """x = [0, 2, NaN, -0, inf, -inf, NaN] (FLOAT16), K = 7: NaN ranks above +inf, the two NaNs tie (index 2
    before 6), 0 and -0 tie (index 0 before 3) in both directions."""
    x = np.array([0, 2, np.nan, -0.0, np.inf, -np.inf, np.nan], np.float16)
    got = run(device, top_k1(tensor(F16, [7]), tensor(F16, [7]), tensor(U32, [7]), 0, 7, direction), InputTensor=x)
    assert got[VAL].tobytes() == np.array(values, np.float16).tobytes()
    assert got[IDX].tolist() == indices


@pytest.mark.parametrize("data_type", [I8, U16, I64], ids=type_id)
def test_integers_strided_input_and_outputs(device, data_type):
    """Columns (Axis 0) of a {3, 2} integer input read with padded strides [4, 1]: column 0 [5, 100, 5], column 1
    [7, 7, 1]; K 2 smallest (INCREASING): values [[5, 1], [5, 7]], indices [[0, 2], [2, 0]]; outputs padded too."""
    dtype = {I8: np.int8, U16: np.uint16, I64: np.int64}[data_type]
    x = np.array([[5, 7], [100, 7], [5, 1]], dtype)
    desc = top_k1(tensor(data_type, [3, 2], strides=[4, 1]), tensor(data_type, [2, 2], strides=[3, 1]),
                  tensor(U32, [2, 2], strides=[1, 2]), 0, 2, INCREASING)
    got = run(device, desc, InputTensor=x)
    assert got[VAL].tolist() == [[5, 1], [5, 7]]
    assert got[IDX].tolist() == [[0, 2], [2, 0]]


@pytest.mark.parametrize(("make", "message"), [
    (lambda: top_k(tensor(F32, [4]), tensor(F32, [5]), tensor(U32, [5]), 0, 5),
     "DML_TOP_K_OPERATOR_DESC.K 5 must be in [1, 4]"),
    (lambda: top_k(tensor(F32, [4]), tensor(F32, [2]), tensor(U32, [2]), 0, 0),
     "DML_TOP_K_OPERATOR_DESC.K 0 must be in [1, 4]"),
    (lambda: top_k(tensor(F32, [4]), tensor(F32, [2]), tensor(U32, [3]), 0, 2),
     "DML_TOP_K_OPERATOR_DESC.OutputIndexTensor.Sizes [3] must be [2]"),
    (lambda: top_k(tensor(F32, [4, 2]), tensor(F32, [4, 1]), tensor(U32, [4, 1]), 0, 1),
     "DML_TOP_K_OPERATOR_DESC.OutputValueTensor.Sizes [4, 1] must be [1, 2]"),
    (lambda: top_k(tensor(F32, [4]), tensor(F32, [2]), tensor(U32, [2]), 1, 2),
     "DML_TOP_K_OPERATOR_DESC.Axis 1 must be less than InputTensor.DimensionCount 1"),
    (lambda: top_k(tensor(F32, [4]), tensor(F16, [2]), tensor(U32, [2]), 0, 2),
     "DML_TOP_K_OPERATOR_DESC.OutputValueTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (lambda: top_k(tensor(F64, [4]), tensor(F64, [2]), tensor(U32, [2]), 0, 2),
     "DML_TOP_K_OPERATOR_DESC.InputTensor.DataType FLOAT64 is not supported by DML_OPERATOR_TOP_K"),
    (lambda: top_k1(tensor(F32, [4]), tensor(F32, [2]), tensor(I64, [2]), 0, 2, INCREASING),
     "DML_TOP_K1_OPERATOR_DESC.OutputIndexTensor.DataType INT64 is not supported by DML_OPERATOR_TOP_K1"),
], ids=["k-large", "k-zero", "index-sizes", "value-sizes", "axis", "value-type", "float64", "index-type"])
def test_refusals_name_the_field(ref_device, make, message):
    assert message in refused(ref_device, make())
