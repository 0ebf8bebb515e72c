"""DML_OPERATOR_CUMULATIVE_SUMMATION and DML_OPERATOR_CUMULATIVE_PRODUCT, on every adapter.

Expected values are hand-written literals (running sums/products of small integers, exact in every
type) or a loop written here that transcribes the doc pages' definition.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from datamove_support import F16, F32, F64, I8, I32, I64, U32, U64, operator, refused, run, tensor

import dmlsim as dml
from dmlsim.quick import run_operator

IN, OUT = "InputTensor", "OutputTensor"
X = np.array([[1, 2, 3], [4, 5, 6]], np.float32)


def cumulative(kind, x_desc, y_desc, axis, direction="INCREASING", exclusive=False):
    flag = "HasExclusiveSum" if kind == "SUMMATION" else "HasExclusiveProduct"
    return operator(f"CUMULATIVE_{kind}", InputTensor=x_desc, OutputTensor=y_desc, Axis=axis,
                    AxisDirection=getattr(dml, f"DML_AXIS_DIRECTION_{direction}"), **{flag: exclusive})


def test_dxdispatch_sample(device):
    x = np.array([2, 4, 8, 3], np.float32)
    got = run(device, cumulative("PRODUCT", tensor(F32, [1, 1, 1, 4]), tensor(F32, [1, 1, 1, 4]), 3), InputTensor=x)
    assert got[OUT].ravel().tolist() == [2, 8, 64, 192]


@pytest.mark.parametrize(("kind", "direction", "exclusive", "expected"), [
    ("SUMMATION", "INCREASING", False, [[1, 3, 6], [4, 9, 15]]),
    ("SUMMATION", "INCREASING", True, [[0, 1, 3], [0, 4, 9]]),
    ("SUMMATION", "DECREASING", False, [[6, 5, 3], [15, 11, 6]]),
    ("SUMMATION", "DECREASING", True, [[5, 3, 0], [11, 6, 0]]),
    ("PRODUCT", "INCREASING", False, [[1, 2, 6], [4, 20, 120]]),
    ("PRODUCT", "INCREASING", True, [[1, 1, 2], [1, 4, 20]]),
    ("PRODUCT", "DECREASING", False, [[6, 6, 3], [120, 30, 6]]),
    ("PRODUCT", "DECREASING", True, [[6, 3, 1], [30, 6, 1]]),
])
def test_direction_and_exclusive_by_hand(device, kind, direction, exclusive, expected):
    got = run(device, cumulative(kind, tensor(F32, [2, 3]), tensor(F32, [2, 3]), 1, direction, exclusive),
              InputTensor=X)[OUT]
    assert got.tolist() == expected


def test_axis_zero(device):
    got = run(device, cumulative("SUMMATION", tensor(F32, [2, 3]), tensor(F32, [2, 3]), 0), InputTensor=X)[OUT]
    assert got.tolist() == [[1, 2, 3], [5, 7, 9]]


@pytest.mark.parametrize(("data_type", "kind", "x", "expected"), [
    (I32, "SUMMATION", [5, -7, 2**31 - 1], [5, -2, 2**31 - 3]),
    (U32, "SUMMATION", [2**32 - 1, 2, 3], [2**32 - 1, 1, 4]),        # wraps like uint32
    (I64, "PRODUCT", [-3, 2**30, 2**30], [-3, -3 * 2**30, -3 * 2**60]),
    (U64, "SUMMATION", [2**63, 2**62, 1], [2**63, 2**63 + 2**62, 2**63 + 2**62 + 1]),
    (F16, "SUMMATION", [0.5, 0.25, 1024], [0.5, 0.75, 1025]),  # 1024.75: halves near 1024 are 1 apart
], ids=["int32", "uint32-wraps", "int64-product", "uint64", "float16"])
def test_data_types(device, data_type, kind, x, expected):
    dtype = dml.api.tensor.NUMPY_DTYPE[data_type]
    got = run(device, cumulative(kind, tensor(data_type, [3]), tensor(data_type, [3]), 0),
              InputTensor=np.array(x, dtype))[OUT]
    assert got.dtype == dtype and got.tolist() == expected


def running_sum(x, axis):
    """The definition, by loops: out[..., j, ...] = sum of x[..., i, ...] for i <= j along ``axis``."""
    out = np.zeros(x.shape, np.float64)
    for index in itertools.product(*(range(s) for s in x.shape)):
        for i in range(index[axis] + 1):
            out[index] += float(x[(*index[:axis], i, *index[axis + 1:])])
    return out


@pytest.mark.parametrize(("sizes", "axis", "x_strides", "y_strides"), [
    ([2, 3, 4], 1, [32, 8, 1], None), ([2, 3, 4], 2, None, [1, 2, 6]),
    ([2, 1, 2, 3, 1, 2, 1, 2], 3, None, None), ([1, 2, 1, 1, 2, 1, 1, 5], 7, None, None),
], ids=["3d-padded-input", "3d-transposed-output", "8d-middle", "8d-last"])
def test_strides_and_ranks(device, sizes, axis, x_strides, y_strides):
    x = (np.arange(int(np.prod(sizes))) % 5 - 2).astype(np.float32).reshape(sizes)
    got = run(device, cumulative("SUMMATION", tensor(F32, sizes, x_strides), tensor(F32, sizes, y_strides), axis),
              InputTensor=x)[OUT]
    np.testing.assert_array_equal(got, running_sum(x, axis))


@pytest.mark.parametrize("direction", ["INCREASING", "DECREASING"])
def test_in_place(device, direction):
    """The output bound over the input (the schema allows it): every element is read before it is written."""
    op = cumulative("PRODUCT", tensor(F32, [2, 3]), tensor(F32, [2, 3]), 1, direction, exclusive=True)
    got = run_operator(device, op, {IN: X}, inplace=True)[OUT]
    assert got.tolist() == ([[1, 1, 2], [1, 4, 20]] if direction == "INCREASING" else [[6, 3, 1], [30, 6, 1]])


@pytest.mark.parametrize(("make", "message"), [
    (lambda: cumulative("SUMMATION", tensor(F32, [2, 3]), tensor(F32, [2, 3]), 2),
     "DML_CUMULATIVE_SUMMATION_OPERATOR_DESC.Axis 2 must be less than InputTensor.DimensionCount 2"),
    (lambda: cumulative("PRODUCT", tensor(F32, [2, 3]), tensor(F32, [3, 2]), 1),
     "DML_CUMULATIVE_PRODUCT_OPERATOR_DESC.OutputTensor.Sizes [3, 2] must equal InputTensor.Sizes [2, 3]"),
    (lambda: cumulative("PRODUCT", tensor(F32, [2, 3]), tensor(F16, [2, 3]), 1),
     "DML_CUMULATIVE_PRODUCT_OPERATOR_DESC.OutputTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (lambda: cumulative("SUMMATION", tensor(I8, [4]), tensor(I8, [4]), 0),
     "DML_CUMULATIVE_SUMMATION_OPERATOR_DESC.InputTensor.DataType INT8 is not supported"),
    (lambda: cumulative("SUMMATION", tensor(F64, [4]), tensor(F64, [4]), 0),
     "InputTensor.DataType FLOAT64 is not supported by DML_OPERATOR_CUMULATIVE_SUMMATION"),
], ids=["axis", "sizes", "data-type-equal", "int8", "float64"])
def test_refusals_name_the_field(ref_device, make, message):
    assert message in refused(ref_device, make())


DOC_INPUT = np.array([[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]], np.float32)  # the doc pages' input


@pytest.mark.parametrize(("kind", "axis", "direction", "exclusive", "expected"), [
    ("SUMMATION", 3, "INCREASING", False, [[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]]),
    ("SUMMATION", 3, "INCREASING", True, [[0, 2, 3, 6], [0, 3, 11, 18], [0, 9, 15, 17]]),
    ("SUMMATION", 3, "DECREASING", False, [[11, 9, 8, 5], [21, 18, 10, 3], [21, 12, 6, 4]]),
    ("SUMMATION", 2, "INCREASING", False, [[2, 1, 3, 5], [5, 9, 10, 8], [14, 15, 12, 12]]),
    ("PRODUCT", 3, "INCREASING", False, [[2, 2, 6, 30], [3, 24, 168, 504], [9, 54, 108, 432]]),
    ("PRODUCT", 3, "INCREASING", True, [[1, 2, 2, 6], [1, 3, 24, 168], [1, 9, 54, 108]]),
    ("PRODUCT", 3, "DECREASING", False, [[30, 15, 15, 5], [504, 168, 21, 3], [432, 48, 8, 4]]),
    ("PRODUCT", 2, "INCREASING", False, [[2, 1, 3, 5], [6, 8, 21, 15], [54, 48, 42, 60]]),
], ids=["sum-1", "sum-2-exclusive", "sum-3-decreasing", "sum-4-axis-2", "product-1", "product-2-exclusive",
        "product-3-decreasing", "product-4-axis-2"])
def test_doc_examples(device, kind, axis, direction, exclusive, expected):
    t = tensor(F32, [1, 1, 3, 4])
    got = run(device, cumulative(kind, t, t, axis, direction, exclusive), InputTensor=DOC_INPUT)[OUT]
    assert got[0, 0].tolist() == expected
