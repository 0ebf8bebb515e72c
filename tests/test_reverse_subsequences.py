"""DML_OPERATOR_REVERSE_SUBSEQUENCES, on every adapter (ONNX's ReverseSequence node cases:
tests/test_move_onnx.py).

Expected values: the doc page's two examples transcribed, and loops written here from the page's rule (along
Axis the first ``min(length, size)`` elements reversed, the rest copied), independent of dmlsim's reference.
Elements move bit for bit: comparisons are exact, of the bits where NaN or -0.0 appear.
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
    U16,
    U32,
    U64,
    operator,
    refused,
    run,
    skip_without_fp64,
    tensor,
    type_id,
)

OUT = "OutputTensor"
DOC_INPUT = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 3, 4)


def bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}")


def reverse(x_desc, lengths_desc, axis, y_desc=None):
    return operator("REVERSE_SUBSEQUENCES", InputTensor=x_desc, SequenceLengthsTensor=lengths_desc,
                    OutputTensor=y_desc or x_desc, Axis=axis)


def expected_of(x: np.ndarray, lengths: np.ndarray, axis: int) -> np.ndarray:
    """The page's rule, one element at a time."""
    out = np.empty_like(x)
    size = x.shape[axis]
    for index in np.ndindex(*x.shape):
        at = list(index)
        at[axis] = 0
        limit = min(int(lengths[tuple(at)]), size)
        i = index[axis]
        at[axis] = limit - 1 - i if i < limit else i
        out[index] = x[tuple(at)]
    return out


def test_doc_example_1(device):
    lengths = np.array([2, 4, 3], np.uint32).reshape(1, 1, 3, 1)
    got = run(device, reverse(tensor(F32, [1, 1, 3, 4]), tensor(U32, [1, 1, 3, 1]), 3),
              InputTensor=DOC_INPUT, SequenceLengthsTensor=lengths)[OUT]
    assert got.tolist() == [[[[2, 1, 3, 4], [8, 7, 6, 5], [11, 10, 9, 12]]]]


def test_doc_example_2_other_axis_and_nops(device):
    """Lengths 1 and 0 copy their subsequence unchanged."""
    lengths = np.array([2, 3, 1, 0], np.uint32).reshape(1, 1, 1, 4)
    got = run(device, reverse(tensor(F32, [1, 1, 3, 4]), tensor(U32, [1, 1, 1, 4]), 2),
              InputTensor=DOC_INPUT, SequenceLengthsTensor=lengths)[OUT]
    assert got.tolist() == [[[[5, 10, 3, 4], [1, 6, 7, 8], [9, 2, 11, 12]]]]


def test_uint64_lengths_clamp(device):
    """UINT64 lengths (feature level 5_0) above the axis size, up to 2^64 - 1, act as the size: whole rows
    reversed."""
    lengths = np.array([5, 2**64 - 1, 2**32 + 1], np.uint64).reshape(3, 1)
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    got = run(device, reverse(tensor(I32, [3, 4]), tensor(U64, [3, 1]), 1), InputTensor=x,
              SequenceLengthsTensor=lengths)[OUT]
    assert got.tolist() == [[3, 2, 1, 0], [7, 6, 5, 4], [11, 10, 9, 8]]


@pytest.mark.parametrize("data_type", (F64, F32, F16, I64, I8, U16, U8), ids=type_id)
def test_data_types_strides_and_specials(device, data_type):
    """Every width, a 3-D input read through permuted strides, lengths broadcast with stride 0 along the first
    dimension, a padded output; NaN payloads, -0.0 and infinities move unchanged."""
    skip_without_fp64(device, data_type)
    dtype = np.dtype(NUMPY[data_type])
    pattern = (np.arange(30, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)).astype(f"u{dtype.itemsize}")
    x = pattern.view(dtype).reshape(2, 3, 5)
    if dtype.kind == "f":
        x.reshape(-1)[:4] = [np.nan, -0.0, np.inf, -np.inf]
    lengths = np.broadcast_to(np.array([4, 0, 9], np.uint32).reshape(1, 3, 1), (2, 3, 1))
    op = reverse(tensor(data_type, [2, 3, 5], [1, 2, 6]), tensor(U32, [2, 3, 1], [0, 1, 1]), 2,
                 tensor(data_type, [2, 3, 5], [16, 5, 1]))
    got = run(device, op, InputTensor=x, SequenceLengthsTensor=lengths)[OUT]
    assert bits(got).tolist() == bits(expected_of(x, lengths, 2)).tolist()


@pytest.mark.parametrize(("sizes", "axis"), [([7], 0), ([2, 1, 2, 1, 2, 1, 3, 2], 6), ([2, 1, 2, 1, 2, 1, 3, 2], 0)],
                         ids=["1d", "8d-inner", "8d-outer"])
def test_ranks(device, sizes, axis):
    """1 and 8 dimensions (feature level 4_0 on), the axis inner or outer."""
    x = np.arange(int(np.prod(sizes)), dtype=np.uint32).reshape(sizes)
    length_sizes = [1 if d == axis else n for d, n in enumerate(sizes)]
    lengths = (np.arange(int(np.prod(length_sizes)), dtype=np.uint64) % 5).reshape(length_sizes)
    got = run(device, reverse(tensor(U32, sizes), tensor(U64, length_sizes), axis), InputTensor=x,
              SequenceLengthsTensor=lengths)[OUT]
    assert got.tolist() == expected_of(x, lengths, axis).tolist()


def test_refusals_name_the_field(ref_device):
    name = "DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC"
    x = tensor(F32, [2, 3])
    assert (f"{name}.SequenceLengthsTensor.DataType INT32 is not supported"
            in refused(ref_device, reverse(x, tensor(I32, [2, 1]), 1)))
    assert (f"{name}.SequenceLengthsTensor.Sizes [2, 3] must be [2, 1]"
            in refused(ref_device, reverse(x, tensor(U32, [2, 3]), 1)))
    assert (f"{name}.SequenceLengthsTensor.Sizes [1, 1] must be [2, 1]"
            in refused(ref_device, reverse(x, tensor(U32, [1, 1]), 1)))
    assert f"{name}.Axis 2 must be less than InputTensor.DimensionCount 2" in refused(
        ref_device, reverse(x, tensor(U32, [2, 1]), 2))
    assert f"{name}.SequenceLengthsTensor.DimensionCount" in refused(ref_device, reverse(x, tensor(U32, [2]), 1))
    assert f"{name}.OutputTensor.Sizes" in refused(ref_device, reverse(x, tensor(U32, [2, 1]), 1,
                                                                        tensor(F32, [2, 4])))
    assert f"{name}.OutputTensor.DataType" in refused(ref_device, reverse(x, tensor(U32, [2, 1]), 1,
                                                                           tensor(I32, [2, 3])))
