"""DML_OPERATOR_JOIN and DML_OPERATOR_SPLIT (tensor arrays bound as DML_BINDING_TYPE_BUFFER_ARRAY), on every
adapter. Expected values are literals; moves are exact, so every data type is compared bit for bit
(NaN payloads included)."""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import (
    F16,
    F32,
    F64,
    I8,
    I32,
    NUMPY,
    U64,
    operator,
    refused,
    run,
    skip_without_fp64,
    tensor,
    type_id,
)

OUT = "OutputTensor"


def join(inputs, y_desc, axis):
    return operator("JOIN", InputCount=len(inputs), InputTensors=list(inputs), OutputTensor=y_desc, Axis=axis)


def split(x_desc, outputs, axis):
    return operator("SPLIT", InputTensor=x_desc, OutputCount=len(outputs), OutputTensors=list(outputs), Axis=axis)


def test_dxdispatch_join_sample(device):
    a = np.arange(1, 11, dtype=np.float32)
    b = np.array([100, 115], np.float32)
    op = join([tensor(F32, [3]), tensor(F32, [2]), tensor(F32, [5])], tensor(F32, [10]), 0)
    got = run(device, op, InputTensors=[a[:3], b, a[4:9]])[OUT]
    assert got.tolist() == [1, 2, 3, 100, 115, 5, 6, 7, 8, 9]


def test_join_along_columns(device):
    op = join([tensor(F32, [2, 2]), tensor(F32, [2, 1])], tensor(F32, [2, 3]), 1)
    got = run(device, op, InputTensors=[np.array([[1, 2], [3, 4]], np.float32), np.array([[5], [6]], np.float32)])
    assert got[OUT].tolist() == [[1, 2, 5], [3, 4, 6]]


def test_split_dxdispatch_sample(device):
    op = split(tensor(F32, [6]), [tensor(F32, [2])] * 3, 0)
    got = run(device, op, InputTensor=np.arange(1, 7, dtype=np.float32))["OutputTensors"]
    assert [g.tolist() for g in got] == [[1, 2], [3, 4], [5, 6]]


def test_split_uneven_with_strided_outputs(device):
    """2x5 split along columns into 1, 3 and 1 columns; the middle output is column-major."""
    x = np.arange(10, dtype=np.float32).reshape(2, 5)
    outs = [tensor(F32, [2, 1]), tensor(F32, [2, 3], strides=[1, 2]), tensor(F32, [2, 1], strides=[4, 1])]
    got = run(device, split(tensor(F32, [2, 5]), outs, 1), InputTensor=x)["OutputTensors"]
    assert [g.tolist() for g in got] == [[[0], [5]], [[1, 2, 3], [6, 7, 8]], [[4], [9]]]


def bit_patterns(data_type, count, seed):
    """Arbitrary bytes of the type (floats: NaNs with payloads and infinities included)."""
    dtype = np.dtype(NUMPY[data_type])
    raw = np.random.default_rng(seed).integers(0, 256, count * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype)


@pytest.mark.parametrize("data_type", [F64, F32, F16, I32, I8, U64], ids=type_id)
def test_join_then_split_is_bit_exact_8d(device, data_type):
    skip_without_fp64(device, data_type)
    a_sizes, b_sizes, y_sizes = [1, 2, 1, 2, 1, 3, 1, 2], [1, 2, 1, 2, 1, 1, 1, 2], [1, 2, 1, 2, 1, 4, 1, 2]
    a, b = bit_patterns(data_type, 24, 1).reshape(a_sizes), bit_patterns(data_type, 8, 2).reshape(b_sizes)
    joined = run(device, join([tensor(data_type, a_sizes), tensor(data_type, b_sizes)], tensor(data_type, y_sizes), 5),
                 InputTensors=[a, b])[OUT]
    assert joined[:, :, :, :, :, :3].tobytes() == a.tobytes()
    assert np.ascontiguousarray(joined[:, :, :, :, :, 3:]).tobytes() == b.tobytes()
    parts = run(device, split(tensor(data_type, y_sizes), [tensor(data_type, a_sizes), tensor(data_type, b_sizes)], 5),
                InputTensor=joined)["OutputTensors"]
    assert parts[0].tobytes() == a.tobytes() and parts[1].tobytes() == b.tobytes()


def test_join_strided_inputs_and_output(device):
    a_desc = tensor(F32, [2, 2], strides=[1, 2])  # column-major input
    y_desc = tensor(F32, [3, 2], strides=[4, 1])  # padded output rows
    op = join([a_desc, tensor(F32, [1, 2])], y_desc, 0)
    got = run(device, op, InputTensors=[np.array([[1, 2], [3, 4]], np.float32), np.array([[5, 6]], np.float32)])
    assert got[OUT].tolist() == [[1, 2], [3, 4], [5, 6]]


@pytest.mark.parametrize(("make", "message"), [
    (lambda: join([tensor(F32, [2, 2]), tensor(F32, [3, 1])], tensor(F32, [2, 3]), 1),
     "DML_JOIN_OPERATOR_DESC.InputTensors[1].Sizes [3, 1] must equal OutputTensor.Sizes [2, 3] except on Axis 1"),
    (lambda: join([tensor(F32, [2, 2]), tensor(F32, [2, 2])], tensor(F32, [2, 3]), 1),
     "DML_JOIN_OPERATOR_DESC.OutputTensor.Sizes[1] 3 must equal the sum of InputTensors' Sizes[1] (4)"),
    (lambda: join([tensor(F32, [2, 2]), tensor(F16, [2, 1])], tensor(F32, [2, 3]), 1),
     "DML_JOIN_OPERATOR_DESC.InputTensors[1].DataType must equal OutputTensor.DataType"),
    (lambda: join([tensor(F32, [2, 2]), tensor(F32, [2, 1, 1])], tensor(F32, [2, 3]), 1),
     "DML_JOIN_OPERATOR_DESC.InputTensors[1].DimensionCount 3 must equal OutputTensor.DimensionCount 2"),
    (lambda: join([tensor(F32, [2, 2])], tensor(F32, [2, 2]), 2),
     "DML_JOIN_OPERATOR_DESC.Axis 2 must be less than OutputTensor.DimensionCount 2"),
    (lambda: split(tensor(F32, [6]), [tensor(F32, [2]), tensor(F32, [3])], 0),
     "DML_SPLIT_OPERATOR_DESC.InputTensor.Sizes[0] 6 must equal the sum of OutputTensors' Sizes[0] (5)"),
    (lambda: split(tensor(F32, [2, 6]), [tensor(F32, [1, 3]), tensor(F32, [2, 3])], 1),
     "DML_SPLIT_OPERATOR_DESC.OutputTensors[0].Sizes [1, 3] must equal InputTensor.Sizes [2, 6] except on Axis 1"),
    (lambda: split(tensor(F32, [6]), [tensor(F32, [6])], 1),
     "DML_SPLIT_OPERATOR_DESC.Axis 1 must be less than InputTensor.DimensionCount 1"),
    (lambda: split(tensor(F32, [6]), [tensor(I32, [6])], 0),
     "DML_SPLIT_OPERATOR_DESC.OutputTensors[0].DataType must equal InputTensor.DataType"),
], ids=["join-off-axis", "join-sum", "join-type", "join-rank", "join-axis", "split-sum", "split-off-axis",
        "split-axis", "split-type"])
def test_refusals_name_the_field(ref_device, make, message):
    assert message in refused(ref_device, make())


def test_counts_must_match_arrays(ref_device):
    op = join([tensor(F32, [2]), tensor(F32, [2])], tensor(F32, [4]), 0)
    op.Desc.InputCount = 3
    assert "DML_JOIN_OPERATOR_DESC.InputTensors must hold InputCount (3)" in refused(ref_device, op)


def test_counts_must_be_positive(ref_device):
    op = join([], tensor(F32, [2]), 0)
    assert "DML_JOIN_OPERATOR_DESC.InputCount must be a UINT ≥ 1, got 0" in refused(ref_device, op)
    op = split(tensor(F32, [2]), [], 0)
    assert "DML_SPLIT_OPERATOR_DESC.OutputCount must be a UINT ≥ 1, got 0" in refused(ref_device, op)


JOIN_DOC = [np.array([[[[1, 2], [3, 4]]]], np.float32), np.array([[[[5, 6], [7, 8]]]], np.float32),
            np.array([[[[9, 10], [11, 12]]]], np.float32)]  # the doc page's third example


@pytest.mark.parametrize(("axis", "sizes", "expected"), [
    (1, [1, 3, 2, 2], [[[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]]]]),
    (2, [1, 1, 6, 2], [[[[1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12]]]]),
    (3, [1, 1, 2, 6], [[[[1, 2, 5, 6, 9, 10], [3, 4, 7, 8, 11, 12]]]]),
])
def test_join_doc_examples(device, axis, sizes, expected):
    op = join([tensor(F32, [1, 1, 2, 2])] * 3, tensor(F32, sizes), axis)
    assert run(device, op, InputTensors=JOIN_DOC)[OUT].tolist() == expected


def test_split_doc_examples(device):
    x = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 6, 2)
    outs = [tensor(F32, [1, 1, 2, 2]), tensor(F32, [1, 1, 1, 2]), tensor(F32, [1, 1, 3, 2])]
    got = run(device, split(tensor(F32, [1, 1, 6, 2]), outs, 2), InputTensor=x)["OutputTensors"]
    assert [g.tolist() for g in got] == [[[[[1, 2], [3, 4]]]], [[[[5, 6]]]], [[[[7, 8], [9, 10], [11, 12]]]]]
    got = run(device, split(tensor(F32, [1, 1, 6, 2]), [tensor(F32, [1, 1, 6, 1])] * 2, 3), InputTensor=x)
    assert [g.ravel().tolist() for g in got["OutputTensors"]] == [[1, 3, 5, 7, 9, 11], [2, 4, 6, 8, 10, 12]]
