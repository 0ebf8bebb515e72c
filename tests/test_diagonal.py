"""DML_OPERATOR_DIAGONAL_MATRIX and DML_OPERATOR_DIAGONAL_MATRIX1, on every adapter (ONNX's EyeLike and Trilu node
cases: tests/test_move_onnx.py).

Expected values: the doc pages' examples transcribed, and masks written here from the pages' pseudocode
(``topX = x - y``; ``useValue = (End >= Begin) ^ (topX >= Begin) ^ (topX < End)``) with numpy, independently of
dmlsim's reference. Elements move bit for bit: every comparison is exact (of the bits where NaN or -0.0 appear).
"""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import (
    F16,
    F32,
    F64,
    I8,
    I32,
    I64,
    NUMPY,
    U8,
    U64,
    operator,
    refused,
    run,
    skip_without_fp64,
    tensor,
    type_id,
)

import dmlsim as dml

OUT = "OutputTensor"
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
EVERY = (F64, F32, F16, I64, I32, I8, U64, U8)
DOC_INPUT = np.array([[4, 7, 3, 7, 9], [1, 2, 8, 6, 9], [9, 4, 1, 8, 7], [4, 3, 4, 2, 4]], np.float32)


def bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}")


def diag(data_type, sizes, offset, value, strides=None):
    return operator("DIAGONAL_MATRIX", OutputTensor=tensor(data_type, sizes, strides), Offset=offset, Value=value)


def diag1(out_desc, value, begin, end, x_desc=None, value_type=None):
    return operator("DIAGONAL_MATRIX1", InputTensor=x_desc, OutputTensor=out_desc,
                    ValueDataType=out_desc.Desc.DataType if value_type is None else value_type, Value=value,
                    DiagonalFillBegin=begin, DiagonalFillEnd=end)


def mask(rows, cols, begin, end):
    """The pages' useValue, one matrix, written from the pseudocode with Python ints."""
    return np.array([[(end >= begin) ^ (x - y >= begin) ^ (x - y < end) for x in range(cols)] for y in range(rows)])


# --- DIAGONAL_MATRIX: the page's four examples --------------------------------------------------------------------
@pytest.mark.parametrize(("offset", "sizes", "expected"), [
    (0, [1, 1, 3, 3], [[1, 0, 0], [0, 1, 0], [0, 0, 1]]),
    (1, [1, 1, 3, 3], [[0, 1, 0], [0, 0, 1], [0, 0, 0]]),
    (-1, [1, 1, 3, 2], [[0, 0], [1, 0], [0, 1]]),
    (-3, [1, 1, 3, 2], [[0, 0], [0, 0], [0, 0]]),
], ids=["identity", "right-up", "left-down", "all-zero"])
def test_diagonal_matrix_doc_examples(device, offset, sizes, expected):
    got = run(device, diag(F32, sizes, offset, 1.0))[OUT]
    assert got.tolist() == [[expected]]


@pytest.mark.parametrize(("data_type", "value", "on"), [
    (I32, 10.6, 10), (I8, -300.0, -128), (U8, -2.5, 0), (U8, float("nan"), 0), (I64, 2.0**70, 2**63 - 1),
    (F16, 1.0 + 2.0**-11, 1.0), (F16, 65520.0, np.inf), (U64, 7.9, 7),
], ids=["int32-truncates", "int8-saturates", "uint8-negative", "uint8-nan", "int64-saturates",
        "float16-tie-to-even", "float16-overflows", "uint64"])
def test_diagonal_matrix_value_conversion(device, data_type, value, on):
    """Value is a FLOAT: truncated toward zero and saturated for integers (the page: "10.6 will become 10"; NaN
    is 0), rounded to nearest even for FLOAT16 (1 + 2^-11 is the tie between 1 and 1 + 2^-10; 65520 rounds to
    infinity)."""
    got = run(device, diag(data_type, [2, 4], 1, value))[OUT]
    expected = np.zeros((2, 4), NUMPY[data_type])
    expected[0, 1] = expected[1, 2] = on
    assert bits(got).tolist() == bits(expected).tolist()


def test_diagonal_matrix_float64_and_strides(device):
    """FLOAT64 (feature level 5_1), 3-D with a batch, padded and permuted output strides; -0.0 kept."""
    skip_without_fp64(device, F64)
    got = run(device, diag(F64, [2, 3, 4], -1, -0.0, strides=[1, 16, 4]))[OUT]
    expected = np.zeros((2, 3, 4))
    expected[:, 1, 0] = expected[:, 2, 1] = -0.0
    assert bits(got).tolist() == bits(expected).tolist()


# --- DIAGONAL_MATRIX1: the page's examples -----------------------------------------------------------------------
@pytest.mark.parametrize(("value", "begin", "end", "with_input", "expected"), [
    (7.0, 0, 3, False, [[7, 7, 7, 0, 0], [0, 7, 7, 7, 0], [0, 0, 7, 7, 7], [0, 0, 0, 7, 7]]),
    (1.0, 0, 1, False, [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0]]),
    (0.0, INT32_MIN, 1, True, [[0, 7, 3, 7, 9], [0, 0, 8, 6, 9], [0, 0, 0, 8, 7], [0, 0, 0, 0, 4]]),
    (0.0, 1, 0, True, [[4, 0, 0, 0, 0], [0, 2, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 2, 0]]),
], ids=["strip", "identity", "strict-upper", "inverted-keeps-diagonal"])
def test_diagonal_matrix1_doc_examples(device, value, begin, end, with_input, expected):
    """The page's examples (its first gives Value 7 and shows ones: the identity is written here with Value 1)."""
    x_desc = tensor(F32, [4, 5]) if with_input else None
    inputs = {"InputTensor": DOC_INPUT} if with_input else {}
    got = run(device, diag1(tensor(F32, [4, 5]), value, begin, end, x_desc), **inputs)[OUT]
    assert got.tolist() == expected


@pytest.mark.parametrize("data_type", EVERY, ids=type_id)
@pytest.mark.parametrize(("begin", "end"), [(-1, 2), (2, -1), (INT32_MAX, INT32_MIN), (5, 5)],
                         ids=["band", "inverted", "everything", "empty"])
def test_diagonal_matrix1_types_strides_and_specials(device, data_type, begin, end):
    """Every type, 4-D, a permuted-and-padded input and a padded output; Value's bits and the input's bits
    (NaN payloads, -0.0, integer extremes) both move unchanged."""
    skip_without_fp64(device, data_type)
    dtype = np.dtype(NUMPY[data_type])
    sizes = [2, 1, 3, 4]
    pattern = (np.arange(24, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)).astype(f"u{dtype.itemsize}")
    x = pattern.view(dtype).reshape(sizes)
    if dtype.kind == "f":
        x.reshape(-1)[:4] = [np.nan, -0.0, np.inf, -np.inf]
    value = np.array(np.iinfo(dtype).min if dtype.kind in "iu" else -0.0, dtype)
    member = dml.DML_SCALAR_UNION(Bytes=list(value.tobytes()))
    x_strides = [12, 12, 1, 3]  # the last two dimensions transposed in memory
    op = diag1(tensor(data_type, sizes, [24, 24, 8, 1]), member, begin, end, tensor(data_type, sizes, x_strides))
    got = run(device, op, InputTensor=x)[OUT]
    expected = np.where(mask(3, 4, begin, end), value, x)
    assert bits(got).tolist() == bits(expected).tolist()


def test_diagonal_matrix1_broadcast_input(device):
    """A stride-0 input (one row read by every row): each row keeps its own diagonal."""
    x = np.tile(np.array([1, 2, 3, 4], np.int32), (3, 1))  # the logical tensor: one stored row
    got = run(device, diag1(tensor(I32, [3, 4]), -5, 0, 1, tensor(I32, [3, 4], [0, 1])), InputTensor=x)[OUT]
    assert got.tolist() == [[-5, 2, 3, 4], [1, -5, 3, 4], [1, 2, -5, 4]]


# --- refusals ----------------------------------------------------------------------------------------------------
def test_refusals_name_the_field(ref_device):
    assert ("DML_DIAGONAL_MATRIX_OPERATOR_DESC.OutputTensor.DimensionCount 5 is not supported"
            in refused(ref_device, diag(F32, [1, 1, 1, 2, 2], 0, 1.0)))
    assert ("DML_DIAGONAL_MATRIX_OPERATOR_DESC.OutputTensor.DimensionCount 1 is not supported"
            in refused(ref_device, diag(F32, [4], 0, 1.0)))
    assert ("DML_DIAGONAL_MATRIX1_OPERATOR_DESC.OutputTensor.DimensionCount 1 is not supported"
            in refused(ref_device, diag1(tensor(F32, [4]), 1.0, 0, 1)))
    assert ("DML_DIAGONAL_MATRIX1_OPERATOR_DESC.ValueDataType INT32 must match OutputTensor.DataType FLOAT32"
            in refused(ref_device, diag1(tensor(F32, [2, 2]), 1, 0, 1, value_type=I32)))
    assert ("DML_DIAGONAL_MATRIX1_OPERATOR_DESC.InputTensor.DataType"
            in refused(ref_device, diag1(tensor(F32, [2, 2]), 1.0, 0, 1, tensor(I32, [2, 2]))))
    assert ("DML_DIAGONAL_MATRIX1_OPERATOR_DESC.InputTensor.Sizes"
            in refused(ref_device, diag1(tensor(F32, [2, 2]), 1.0, 0, 1, tensor(F32, [2, 3]))))
    assert ("DML_DIAGONAL_MATRIX1_OPERATOR_DESC.InputTensor.DimensionCount"
            in refused(ref_device, diag1(tensor(F32, [2, 2]), 1.0, 0, 1, tensor(F32, [1, 2, 2]))))
