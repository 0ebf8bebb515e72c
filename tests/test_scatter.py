"""DML_OPERATOR_SCATTER_ELEMENTS (= DML_OPERATOR_SCATTER) and SCATTER_ND (dmlsim/operators/gather_scatter), on
every adapter.

Expected values are literals worked out by hand from the doc pages' pseudo-code (``output = input``, then each
update stored where its index points), the pages' own examples, or ONNX's node cases (ScatterElements, Scatter,
ScatterND) mapped as onnxruntime's DirectML provider maps them (tensors padded with leading 1s to one rank).
dmlsim's decisions pinned here: among updates aimed at one element the last in row-major order of the updates
wins (the SCATTER page's example 1 shows it), on every device; an update whose index lies outside its dimension
is dropped (a debug device refuses it). Moves: comparisons are exact (bytes for FLOAT16).
ONNX's node cases are in tests/test_scatter_onnx.py (kept apart: generating them takes seconds, which every named
mutant's selection here would pay).
"""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import F16, F32, I8, I32, I64, NUMPY, U32, U64, operator, refused, run, tensor, type_id

import dmlsim as dml

IN, IDX, UPD, OUT = "InputTensor", "IndicesTensor", "UpdatesTensor", "OutputTensor"


def scatter(x, i, u, y, axis):
    return operator("SCATTER_ELEMENTS", InputTensor=x, IndicesTensor=i, UpdatesTensor=u, OutputTensor=y, Axis=axis)


def scatter_nd(x, i, u, y, r, q):
    return operator("SCATTER_ND", InputTensor=x, IndicesTensor=i, UpdatesTensor=u, OutputTensor=y,
                    InputDimensionCount=r, IndicesDimensionCount=q)


def test_scatter_is_scatter_elements():
    """directml.h: DML_OPERATOR_SCATTER is DML_OPERATOR_SCATTER_ELEMENTS (94), with the same desc."""
    assert dml.DML_OPERATOR_SCATTER == dml.DML_OPERATOR_SCATTER_ELEMENTS == 94
    assert dml.DML_SCATTER_OPERATOR_DESC is dml.DML_SCATTER_ELEMENTS_OPERATOR_DESC


@pytest.mark.parametrize("index_type", [U32, I32, I64, U64], ids=type_id)
def test_doc_example_1_last_write_wins(device, index_type):
    """The page's example 1: input [0,1,2,3,4], indices [3,1,3,0], updates [5,6,7,8] -> [8,6,2,7,4] (index 3
    twice: the later update, 7, wins)."""
    desc = scatter(tensor(F32, [5]), tensor(index_type, [4]), tensor(F32, [4]), tensor(F32, [5]), 0)
    got = run(device, desc, InputTensor=np.arange(5, dtype=np.float32),
              IndicesTensor=np.array([3, 1, 3, 0], NUMPY[index_type]),
              UpdatesTensor=np.array([5, 6, 7, 8], np.float32))[OUT]
    assert got.tolist() == [8, 6, 2, 7, 4]


def test_axis_1_negative_dropped_and_strided(device):
    """Axis 1 of a 2 x 4 INT8 input [[10] * 4, [20] * 4] with a padded output (row stride 6): row 0 indices
    [-1, 0] with updates [1, 2] -> [2, 10, 10, 1]; row 1 indices [9, -9] (both outside [-4, 4): dropped) keeps
    [20, 20, 20, 20]; the updates broadcast from one row (stride 0)."""
    desc = scatter(tensor(I8, [2, 4]), tensor(I64, [2, 2]), tensor(I8, [2, 2], strides=[0, 1]),
                   tensor(I8, [2, 4], strides=[6, 1]), 1)
    got = run(device, desc, InputTensor=np.repeat(np.array([[10], [20]], np.int8), 4, axis=1),
              IndicesTensor=np.array([[-1, 0], [9, -9]], np.int64),
              UpdatesTensor=np.array([[1, 2], [1, 2]], np.int8))[OUT]
    assert got.tolist() == [[2, 10, 10, 1], [20, 20, 20, 20]]


def test_float16_bits_kept(device):
    """FLOAT16 updates (NaN with payload 0x7E01, -0, the largest finite) land bit for bit at indices [2, 0, 3] of a
    4-element input [1, 1, 1, 1]; element 1 keeps the input."""
    updates = np.array([0x7E01, 0x8000, 0x7BFF], np.uint16).view(np.float16)
    desc = scatter(tensor(F16, [4]), tensor(U32, [3]), tensor(F16, [3]), tensor(F16, [4]), 0)
    got = run(device, desc, InputTensor=np.ones(4, np.float16), IndicesTensor=np.array([2, 0, 3], np.uint32),
              UpdatesTensor=updates)[OUT]
    assert got.view(np.uint16).tolist() == [0x8000, 0x3C00, 0x7E01, 0x7BFF]


def test_scatter_nd_rows_and_elements(device):
    """SCATTER_ND on a 3 x 2 zero input: tuples of length 1 replace rows ([[2], [0]] with updates [[1, 2], [3, 4]]
    -> [[3, 4], [0, 0], [1, 2]]); tuples of length 2 replace elements ([[1, 1], [-1, 0], [1, 1]] with [5, 6, 7]:
    (1, 1) twice, the later 7 wins; (-1, 0) is (2, 0))."""
    zeros = np.zeros((3, 2), np.float32)
    desc = scatter_nd(tensor(F32, [3, 2]), tensor(I32, [2, 1]), tensor(F32, [2, 2]), tensor(F32, [3, 2]), 2, 2)
    got = run(device, desc, InputTensor=zeros, IndicesTensor=np.array([[2], [0]], np.int32),
              UpdatesTensor=np.array([[1, 2], [3, 4]], np.float32))[OUT]
    assert got.tolist() == [[3, 4], [0, 0], [1, 2]]
    desc = scatter_nd(tensor(F32, [3, 2]), tensor(I64, [3, 2]), tensor(F32, [1, 3]), tensor(F32, [3, 2]), 2, 2)
    got = run(device, desc, InputTensor=zeros, IndicesTensor=np.array([[1, 1], [-1, 0], [1, 1]], np.int64),
              UpdatesTensor=np.array([[5, 6, 7]], np.float32))[OUT]
    assert got.tolist() == [[0, 0], [0, 7], [6, 0]]


def test_debug_device_refuses_dropped_updates(debug_device):
    desc = scatter(tensor(F32, [3]), tensor(I32, [2]), tensor(F32, [2]), tensor(F32, [3]), 0)
    x, u = np.zeros(3, np.float32), np.ones(2, np.float32)
    with pytest.raises(dml.DMLError) as info:
        run(debug_device, desc, InputTensor=x, IndicesTensor=np.array([0, -4], np.int32), UpdatesTensor=u)
    assert info.value.hresult == dml.E_INVALIDARG
    assert "IndicesTensor holds -4 at [1]" in str(info.value)
    assert run(debug_device, desc, InputTensor=x, IndicesTensor=np.array([0, -3], np.int32),
               UpdatesTensor=u)[OUT].tolist() == [1, 0, 0]


@pytest.mark.parametrize(("make", "message"), [
    (lambda: scatter(tensor(F32, [3]), tensor(F32, [2]), tensor(F32, [2]), tensor(F32, [3]), 0),
     "DML_SCATTER_OPERATOR_DESC.IndicesTensor.DataType FLOAT32 is not supported by DML_OPERATOR_SCATTER_ELEMENTS"),
    (lambda: scatter(tensor(F32, [3]), tensor(I32, [2]), tensor(F16, [2]), tensor(F32, [3]), 0),
     "DML_SCATTER_OPERATOR_DESC.UpdatesTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (lambda: scatter(tensor(F32, [3]), tensor(I32, [2]), tensor(F32, [2]), tensor(F32, [4]), 0),
     "DML_SCATTER_OPERATOR_DESC.OutputTensor.Sizes [4] must equal InputTensor.Sizes [3]"),
    (lambda: scatter(tensor(F32, [3]), tensor(I32, [2]), tensor(F32, [3]), tensor(F32, [3]), 0),
     "DML_SCATTER_OPERATOR_DESC.UpdatesTensor.Sizes [3] must equal IndicesTensor.Sizes [2]"),
    (lambda: scatter(tensor(F32, [3, 2]), tensor(I32, [2, 1]), tensor(F32, [2, 1]), tensor(F32, [3, 2]), 0),
     "DML_SCATTER_OPERATOR_DESC.IndicesTensor.Sizes [2, 1] must equal InputTensor.Sizes [3, 2] on every dimension "
     "but Axis 0"),
    (lambda: scatter(tensor(F32, [3]), tensor(I32, [2]), tensor(F32, [2]), tensor(F32, [3]), 1),
     "DML_SCATTER_OPERATOR_DESC.Axis 1 must be less than InputTensor.DimensionCount 1"),
    (lambda: scatter_nd(tensor(F32, [3, 2]), tensor(I32, [2, 3]), tensor(F32, [1, 2]), tensor(F32, [3, 2]), 2, 2),
     "DML_SCATTER_ND_OPERATOR_DESC.IndicesTensor.Sizes[1] 3 (the index tuple length) must be at most "
     "InputDimensionCount 2"),
    (lambda: scatter_nd(tensor(F32, [3, 2]), tensor(I32, [2, 1]), tensor(F32, [2, 3]), tensor(F32, [3, 2]), 2, 2),
     "DML_SCATTER_ND_OPERATOR_DESC.UpdatesTensor.Sizes [2, 3] must be [2, 2]"),
    (lambda: scatter_nd(tensor(F32, [3, 2]), tensor(I32, [2, 1]), tensor(F32, [2, 2]), tensor(F32, [3, 2]), 3, 2),
     "DML_SCATTER_ND_OPERATOR_DESC.InputDimensionCount 3 must be in [1, 2]"),
    (lambda: scatter_nd(tensor(F32, [3, 2]), tensor(I32, [2, 1]), tensor(F32, [2, 2]), tensor(F32, [3, 2]), 2, 1),
     "DML_SCATTER_ND_OPERATOR_DESC.IndicesTensor.Sizes [2, 1]: the 1 leading dimension(s) before the last "
     "IndicesDimensionCount 1 must be 1"),
], ids=["index-type", "updates-type", "output-sizes", "updates-sizes", "indices-sizes", "axis", "nd-tuple",
        "nd-updates", "nd-input-count", "nd-leading"])
def test_refusals_name_the_field(ref_device, make, message):
    assert message in refused(ref_device, make())
