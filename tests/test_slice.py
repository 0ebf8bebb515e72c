"""DML_OPERATOR_SLICE and DML_OPERATOR_SLICE1 (negative window strides), on every adapter; expected values
are literals picked by hand from row-major ramps (element (r, c) of a ramp of width W is r * W + c + 1)."""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import F16, F32, I64, U8, operator, refused, run, tensor

OUT = "OutputTensor"
RAMP_5x5 = np.arange(1, 26, dtype=np.float32).reshape(1, 1, 5, 5)
RAMP_4x4 = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)


def slice_op(x_desc, y_desc, offsets, sizes, strides):
    return operator("SLICE", InputTensor=x_desc, OutputTensor=y_desc, DimensionCount=len(offsets),
                    Offsets=list(offsets), Sizes=list(sizes), Strides=list(strides))


def slice1_op(x_desc, y_desc, offsets, sizes, strides):
    return operator("SLICE1", InputTensor=x_desc, OutputTensor=y_desc, DimensionCount=len(offsets),
                    InputWindowOffsets=list(offsets), InputWindowSizes=list(sizes), InputWindowStrides=list(strides))


def test_dxdispatch_slice_sample(device):
    """Rows 1-3, columns 1 and 3 of the 5x5 ramp."""
    op = slice_op(tensor(F32, [1, 1, 5, 5]), tensor(F32, [1, 1, 3, 2]), [0, 0, 1, 1], [1, 1, 3, 2], [1, 1, 1, 2])
    assert run(device, op, InputTensor=RAMP_5x5)[OUT].ravel().tolist() == [7, 9, 12, 14, 17, 19]


def test_slice1_negative_stride_starts_at_the_window_end(device):
    """Window columns 1-3 read with stride -2: columns 3 then 1; rows 0 and 2 with stride 2."""
    op = slice1_op(tensor(F32, [1, 1, 4, 4]), tensor(F32, [1, 1, 2, 2]), [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, 2, -2])
    assert run(device, op, InputTensor=RAMP_4x4)[OUT].tolist() == [[[[4, 2], [12, 10]]]]


@pytest.mark.parametrize(("strides", "expected"), [
    ([1, 1, 1, 1], [[6, 7, 8], [10, 11, 12]]),
    ([1, 1, -1, -1], [[12, 11, 10], [8, 7, 6]]),
    ([1, 1, 1, -3], [[8], [12]]),         # ceil(3 / 3) = 1 column: the window's last
    ([1, 1, -2, 2], [[10, 12]]),          # ceil(2 / 2) = 1 row: the last; ceil(3 / 2) = 2 columns
], ids=["positive", "both-reversed", "stride-wider-than-window", "mixed"])
def test_slice1_window_strides(device, strides, expected):
    sizes = [1, 1, 2, 3]
    out = [1, 1, -(-2 // abs(strides[2])), -(-3 // abs(strides[3]))]
    op = slice1_op(tensor(F32, [1, 1, 4, 4]), tensor(F32, out), [0, 0, 1, 1], sizes, strides)
    assert run(device, op, InputTensor=RAMP_4x4)[OUT][0, 0].tolist() == expected


@pytest.mark.parametrize(("stride", "expected"), [(1, [5, 6]), (-1, [8, 7]), (-2, [8, 6])])
def test_slice1_output_may_take_fewer_than_the_window_reaches(device, stride, expected):
    """Row 1's window of 4 columns, an output of 2: the first two elements of the walk (from the end if < 0)."""
    op = slice1_op(tensor(F32, [1, 1, 4, 4]), tensor(F32, [1, 1, 1, 2]), [0, 0, 1, 0], [1, 1, 1, 4], [1, 1, 1, stride])
    assert run(device, op, InputTensor=RAMP_4x4)[OUT].ravel().tolist() == expected


def test_slice_8d_strided_input_every_type_bits(device):
    """An 8-D window of an INT64 ramp with padded input strides; FLOAT16/UINT8 moved bit for bit."""
    sizes = [1, 2, 1, 3, 1, 4, 1, 5]
    x = np.arange(120, dtype=np.int64).reshape(sizes)
    x_desc = tensor(I64, sizes, strides=[0, 130, 0, 40, 0, 10, 0, 2])
    op = slice_op(x_desc, tensor(I64, [1, 1, 1, 2, 1, 2, 1, 2]), [0, 1, 0, 0, 0, 1, 0, 1],
                  [1, 1, 1, 2, 1, 2, 1, 2], [1, 1, 1, 2, 1, 2, 1, 3])
    got = run(device, op, InputTensor=x)[OUT].ravel().tolist()
    # x[0, 1, 0, r, 0, c, 0, k] = 60 + 20r + 5c + k with r in {0, 2}, c in {1, 3}, k in {1, 4}
    assert got == [66, 69, 76, 79, 106, 109, 116, 119]
    half_bits = (np.arange(16, dtype=np.uint32) * 4099 % 65536).astype(np.uint16)  # NaNs and infinities too
    for data_type, v in ((F16, half_bits.view(np.float16).reshape(4, 4)),
                         (U8, (np.arange(16) * 37 % 256).astype(np.uint8).reshape(4, 4))):
        op = slice1_op(tensor(data_type, [4, 4]), tensor(data_type, [2, 4]), [1, 0], [2, 4], [-1, 1])
        assert run(device, op, InputTensor=v)[OUT].tobytes() == v[[2, 1]].tobytes()


@pytest.mark.parametrize(("make", "message"), [
    (lambda: slice_op(tensor(F32, [4, 4]), tensor(F32, [2, 2]), [0, 0], [2, 2], [1, 0]),
     "DML_SLICE_OPERATOR_DESC.Strides[1] 0 must be at least 1"),
    (lambda: slice_op(tensor(F32, [4, 4]), tensor(F32, [2, 2]), [0, 2], [2, 2], [1, 2]),
     "DML_SLICE_OPERATOR_DESC: the window of dimension 1 (Offsets[1] 2 + (Sizes[1] 2 - 1) * Strides[1] 2) must lie "
     "inside InputTensor.Sizes[1] 4"),
    (lambda: slice_op(tensor(F32, [4, 4]), tensor(F32, [2, 3]), [0, 0], [2, 2], [1, 1]),
     "DML_SLICE_OPERATOR_DESC.OutputTensor.Sizes[1] 3 must equal Sizes[1] 2"),
    (lambda: slice_op(tensor(F32, [4, 4]), tensor(F32, [2, 1]), [0, 0], [2, 0], [1, 1]),
     "DML_SLICE_OPERATOR_DESC.Sizes[1] must be at least 1"),
    (lambda: slice_op(tensor(F32, [4, 4]), tensor(F32, [2, 2]), [0, 0, 0], [2, 2, 1], [1, 1, 1]),
     "DML_SLICE_OPERATOR_DESC.DimensionCount 3 must equal InputTensor.DimensionCount 2"),
    (lambda: slice_op(tensor(F32, [4, 4]), tensor(F16, [2, 2]), [0, 0], [2, 2], [1, 1]),
     "DML_SLICE_OPERATOR_DESC.OutputTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (lambda: slice1_op(tensor(F32, [4, 4]), tensor(F32, [2, 2]), [0, 0], [2, 2], [0, 1]),
     "DML_SLICE1_OPERATOR_DESC.InputWindowStrides[0] must not be 0"),
    (lambda: slice1_op(tensor(F32, [4, 4]), tensor(F32, [2, 2]), [3, 0], [2, 2], [1, 1]),
     "DML_SLICE1_OPERATOR_DESC: InputWindowOffsets[0] 3 + InputWindowSizes[0] 2 must not exceed "
     "InputTensor.Sizes[0] 4"),
    (lambda: slice1_op(tensor(F32, [4, 4]), tensor(F32, [3, 2]), [0, 0], [3, 4], [-2, 3]),
     "DML_SLICE1_OPERATOR_DESC.OutputTensor.Sizes[0] 3 must be at most 2, the elements the window reaches"),
    (lambda: slice1_op(tensor(F32, [4, 4]), tensor(F32, [1, 2]), [0, 0], [0, 4], [1, 1]),
     "DML_SLICE1_OPERATOR_DESC.InputWindowSizes[0] must be at least 1 (the window must not be empty)"),
], ids=["slice-stride-0", "slice-window", "slice-output", "slice-size-0", "slice-rank", "slice-type",
        "slice1-stride-0", "slice1-window", "slice1-output", "slice1-empty-window"])
def test_refusals_name_the_field(ref_device, make, message):
    assert message in refused(ref_device, make())


@pytest.mark.parametrize(("offsets", "sizes", "strides", "expected"), [
    ([0, 0, 1, 2], [1, 1, 3, 2], [1, 1, 1, 1], [[7, 8], [11, 12], [15, 16]]),
    ([0, 0, 1, 0], [1, 1, 2, 2], [1, 1, 2, 3], [[5, 8], [13, 16]]),
], ids=["contiguous", "strided"])
def test_slice_doc_examples(device, offsets, sizes, strides, expected):
    op = slice_op(tensor(F32, [1, 1, 4, 4]), tensor(F32, sizes), offsets, sizes, strides)
    assert run(device, op, InputTensor=RAMP_4x4)[OUT][0, 0].tolist() == expected


@pytest.mark.parametrize(("strides", "expected"), [
    ([1, 1, 2, 2], [[2, 4], [10, 12]]), ([1, 1, -2, 2], [[14, 16], [6, 8]]),
], ids=["positive", "negative"])
def test_slice1_doc_examples(device, strides, expected):
    op = slice1_op(tensor(F32, [1, 1, 4, 4]), tensor(F32, [1, 1, 2, 2]), [0, 0, 0, 1], [1, 1, 4, 3], strides)
    assert run(device, op, InputTensor=RAMP_4x4)[OUT][0, 0].tolist() == expected
