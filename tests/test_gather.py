"""DML_OPERATOR_GATHER, GATHER_ELEMENTS, GATHER_ND and GATHER_ND1 (dmlsim/operators/gather_scatter), on every
adapter.

Expected values are literals worked out by hand from the doc pages' pseudo-code, numpy indexing written here
(``x[rows]``, ``np.take_along_axis`` of literal index arrays), or ONNX's own node cases (Gather, GatherElements,
GatherND) mapped onto the descs the way onnxruntime's DirectML provider maps the nodes: every tensor padded
with leading 1s to the largest rank, GATHER's Axis moved by the padding and IndexDimensions = the indices'
rank, GATHER_ND1 with the real ranks and batch_dims. These operators move bits: every comparison is exact
(bytes for FLOAT16/FLOAT64, so NaN payloads and signed zeros count).
ONNX's node cases are in tests/test_gather_onnx.py (kept apart: generating them takes seconds, which every named
mutant's selection here would pay).
"""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import (
    F16,
    F32,
    F64,
    I8,
    I16,
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

import dmlsim as dml

IN, IDX, OUT = "InputTensor", "IndicesTensor", "OutputTensor"
INDEX_TYPES = (I32, U32, I64, U64)
# FLOAT32 values that break careless copies: signed zeros, infinities, a NaN with a payload, a subnormal
SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, 1.5, -2.5, 1e-45, 3.0], np.float32)
SPECIALS[6] = np.frombuffer(np.uint32(0x7FC01234).tobytes(), np.float32)[0]


def gather(x, i, y, axis, index_dims):
    return operator("GATHER", InputTensor=x, IndicesTensor=i, OutputTensor=y, Axis=axis, IndexDimensions=index_dims)


def elements(x, i, y, axis):
    return operator("GATHER_ELEMENTS", InputTensor=x, IndicesTensor=i, OutputTensor=y, Axis=axis)


def gather_nd1(x, i, y, r, q, b):
    return operator("GATHER_ND1", InputTensor=x, IndicesTensor=i, OutputTensor=y, InputDimensionCount=r,
                    IndicesDimensionCount=q, BatchDimensionCount=b)


@pytest.mark.parametrize("index_type", INDEX_TYPES, ids=type_id)
def test_embedding_lookup_specials_and_negative_indices(device, index_type):
    """GATHER of rows of a 4 x 2 table (an embedding lookup): indices [[3, 0], [1, 3], [0, 2]] (signed types:
    -1 for 3, counted from the end) pick rows; IndexDimensions 2 gives Sizes {3, 2, 2} (the input's {4} on
    Axis 0 replaced by the indices' {3, 2})."""
    table = SPECIALS.reshape(4, 2)
    picks = [[3, 0], [1, 3], [0, 2]]
    raw = [[-1 if index_type in (I32, I64) and p == 3 else p for p in row] for row in picks]
    desc = gather(tensor(F32, [1, 4, 2]), tensor(index_type, [1, 3, 2]), tensor(F32, [3, 2, 2]), 1, 2)
    got = run(device, desc, InputTensor=table.reshape(1, 4, 2), IndicesTensor=np.array(raw, NUMPY[index_type]))[OUT]
    assert got.tobytes() == table[np.array(picks)].tobytes()


def test_gather_along_inner_axis_and_scalar_index(device):
    """x = [[0, 1, 2], [10, 11, 12]]: Axis 1 with indices {2} [2, 0] gives [[2, 0], [12, 10]]; IndexDimensions 0
    (one index, the output keeps a leading 1) with index 1 gives [[1, 11]] right-aligned into {1, 2}."""
    x = np.array([[0, 1, 2], [10, 11, 12]], np.int16)
    got = run(device, gather(tensor(I16, [2, 3]), tensor(I64, [1, 2]), tensor(I16, [2, 2]), 1, 1),
              InputTensor=x, IndicesTensor=np.array([[2, 0]], np.int64))[OUT]
    assert got.tolist() == [[2, 0], [12, 10]]
    got = run(device, gather(tensor(I16, [2, 3]), tensor(U32, [1, 1]), tensor(I16, [1, 2]), 1, 0),
              InputTensor=x, IndicesTensor=np.array([[1]], np.uint32))[OUT]
    assert got.tolist() == [[1, 11]]


def test_gather_strided_broadcast_and_padded(device):
    """Input {2, 3, 4} with a stride-0 first dimension (both planes are the same 3 x 4 ramp r[c][w] = 4c + w)
    gathered on Axis 2 by indices {1, 1, 3} [3, 3, 0] read with stride 2 (padding), into an output padded
    between rows: output[n][c][j] = r[c][[3, 3, 0][j]] = 4c + [3, 3, 0][j]."""
    x = np.arange(12, dtype=np.float32).reshape(1, 3, 4)
    x_desc = tensor(F32, [2, 3, 4], strides=[0, 4, 1])
    i_desc = tensor(U64, [1, 1, 3], strides=[0, 0, 2])
    y_desc = tensor(F32, [2, 3, 3], strides=[12, 4, 1])
    got = run(device, gather(x_desc, i_desc, y_desc, 2, 1), InputTensor=np.broadcast_to(x, (2, 3, 4)),
              IndicesTensor=np.array([3, 3, 0], np.uint64).reshape(1, 1, 3))[OUT]
    expected = [[[4 * c + w for w in (3, 3, 0)] for c in range(3)]] * 2
    assert got.tolist() == expected


def test_out_of_range_indices_are_clamped(device):
    """dmlsim's decision: an index outside [-size, size) reads the nearest end (GATHER's page: reads stay in
    the input). Row indices 7 and 2^64 - 1 (UINT64) read row 2; INT32 -100 reads row 0 (after -100 + 3 < 0)."""
    x = np.array([[1, 2], [3, 4], [5, 6]], np.uint8)
    got = run(device, gather(tensor(U8, [3, 2]), tensor(U64, [1, 2]), tensor(U8, [2, 2]), 0, 1),
              InputTensor=x, IndicesTensor=np.array([[7, 2**64 - 1]], np.uint64))[OUT]
    assert got.tolist() == [[5, 6], [5, 6]]
    got = run(device, elements(tensor(U8, [3, 2]), tensor(I32, [1, 2]), tensor(U8, [1, 2]), 0),
              InputTensor=x, IndicesTensor=np.array([[-100, 5]], np.int32))[OUT]
    assert got.tolist() == [[1, 6]]


def test_debug_device_refuses_out_of_range_indices(debug_device):
    """A debug device refuses to execute a dispatch whose indices the kernel would clamp, naming the index."""
    desc = gather(tensor(F32, [3, 2]), tensor(I32, [1, 2]), tensor(F32, [2, 2]), 0, 1)
    x = np.zeros((3, 2), np.float32)
    with pytest.raises(dml.DMLError) as info:
        run(debug_device, desc, InputTensor=x, IndicesTensor=np.array([[-3, 3]], np.int32))
    assert info.value.hresult == dml.E_INVALIDARG
    assert "IndicesTensor holds 3 at [0, 1]" in str(info.value)
    out = run(debug_device, desc, InputTensor=x, IndicesTensor=np.array([[-3, 2]], np.int32))[OUT]
    assert out.shape == (2, 2)


def test_gather_elements_doc_example(device):
    """The page's example: input [[1,2,3],[4,5,6],[7,8,9]], indices [[1,2,0],[2,0,0]], Axis 0 ->
    [[4,8,3],[7,2,3]]."""
    x = np.arange(1, 10, dtype=np.float32).reshape(3, 3)
    got = run(device, elements(tensor(F32, [3, 3]), tensor(U32, [2, 3]), tensor(F32, [2, 3]), 0), InputTensor=x,
              IndicesTensor=np.array([[1, 2, 0], [2, 0, 0]], np.uint32))[OUT]
    assert got.tolist() == [[4, 8, 3], [7, 2, 3]]


@pytest.mark.parametrize("data_type", [F64, F16, I64, I8, U16, U64], ids=type_id)
def test_gather_elements_every_width_bit_exact(device, data_type):
    """Axis 1 of a {2, 2, 3} tensor of bit patterns (FLOAT16/FLOAT64: NaNs and infinities among them), indices
    {2, 1, 3} [[[1, 0, -1]], [[0, -2, 1]]] (INT64): output[a][0][c] = x[a][index][c]."""
    skip_without_fp64(device, data_type)
    dtype = np.dtype(NUMPY[data_type])
    bits = (np.arange(12, dtype=np.uint64) * 0x9E3779B97F4A7C15 >> np.uint64(64 - 8 * dtype.itemsize))
    x = bits.astype(f"u{dtype.itemsize}").view(dtype).reshape(2, 2, 3)
    idx = np.array([[[1, 0, -1]], [[0, -2, 1]]], np.int64)
    got = run(device, elements(tensor(data_type, [2, 2, 3]), tensor(I64, [2, 1, 3]), tensor(data_type, [2, 1, 3]),
                               1), InputTensor=x, IndicesTensor=idx)[OUT]
    expected = np.take_along_axis(x, idx % 2, axis=1)
    assert got.tobytes() == expected.tobytes()


def test_gather_nd1_batch_and_tuples(device):
    """GATHER_ND1 with BatchDimensionCount 1: input {2, 2, 2} ramp x[b][r][c] = 4b + 2r + c, indices {2, 1, 2}
    holding one (r, c) tuple per batch: [[1, 0]] and [[0, -1]] -> [x[0][1][0], x[1][0][1]] = [2, 5]; GATHER_ND
    (no batch) with tuples of length 1 picks whole rows: indices {1, 2, 1} [[1], [0]] of input {1, 2, 2} ramp
    -> [[2, 3], [0, 1]]."""
    x = np.arange(8, dtype=np.int32).reshape(2, 2, 2)
    got = run(device, gather_nd1(tensor(I32, [2, 2, 2]), tensor(I64, [2, 1, 2]), tensor(I32, [1, 2, 1]), 3, 3, 1),
              InputTensor=x, IndicesTensor=np.array([[[1, 0]], [[0, -1]]], np.int64))[OUT]
    assert got.ravel().tolist() == [2, 5]
    desc = operator("GATHER_ND", InputTensor=tensor(I32, [1, 2, 2]), IndicesTensor=tensor(U32, [1, 2, 1]),
                    OutputTensor=tensor(I32, [1, 2, 2]), InputDimensionCount=2, IndicesDimensionCount=2)
    got = run(device, desc, InputTensor=x[:1], IndicesTensor=np.array([[[1], [0]]], np.uint32))[OUT]
    assert got.tolist() == [[[2, 3], [0, 1]]]


@pytest.mark.parametrize(("make", "message"), [
    (lambda: gather(tensor(F32, [3, 2]), tensor(F32, [1, 2]), tensor(F32, [2, 2]), 0, 1),
     "DML_GATHER_OPERATOR_DESC.IndicesTensor.DataType FLOAT32 is not supported by DML_OPERATOR_GATHER"),
    (lambda: gather(tensor(F32, [3, 2]), tensor(I32, [1, 2]), tensor(F16, [2, 2]), 0, 1),
     "DML_GATHER_OPERATOR_DESC.OutputTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (lambda: gather(tensor(F32, [3, 2]), tensor(I32, [2]), tensor(F32, [2, 2]), 0, 1),
     "DML_GATHER_OPERATOR_DESC.IndicesTensor.DimensionCount 1 must equal InputTensor.DimensionCount 2"),
    (lambda: gather(tensor(F32, [3, 2]), tensor(I32, [1, 2]), tensor(F32, [2, 2]), 2, 1),
     "DML_GATHER_OPERATOR_DESC.Axis 2 must be less than InputTensor.DimensionCount 2"),
    (lambda: gather(tensor(F32, [3, 2]), tensor(I32, [1, 2]), tensor(F32, [2, 2]), 0, 3),
     "DML_GATHER_OPERATOR_DESC.IndexDimensions 3 must be at most IndicesTensor.DimensionCount 2"),
    (lambda: gather(tensor(F32, [3, 2]), tensor(I32, [2, 2]), tensor(F32, [2, 2]), 0, 1),
     "DML_GATHER_OPERATOR_DESC.IndicesTensor.Sizes [2, 2]: the 1 leading dimension(s) before the last "
     "IndexDimensions 1 must be 1"),
    (lambda: gather(tensor(F32, [3, 2]), tensor(I32, [1, 2]), tensor(F32, [2, 3]), 0, 1),
     "DML_GATHER_OPERATOR_DESC.OutputTensor.Sizes [2, 3] must be [2, 2]"),
    (lambda: gather(tensor(F32, [3, 2]), tensor(I32, [2, 2]), tensor(F32, [2, 2]), 0, 2),
     "DML_GATHER_OPERATOR_DESC: the output's Sizes [2, 2, 2] have more than OutputTensor.DimensionCount 2"),
    (lambda: elements(tensor(F32, [3, 2]), tensor(I32, [2, 3]), tensor(F32, [2, 3]), 0),
     "DML_GATHER_ELEMENTS_OPERATOR_DESC.IndicesTensor.Sizes [2, 3] must equal InputTensor.Sizes [3, 2] on every "
     "dimension but Axis 0"),
    (lambda: elements(tensor(F32, [3, 2]), tensor(I32, [2, 2]), tensor(F32, [2, 1]), 0),
     "DML_GATHER_ELEMENTS_OPERATOR_DESC.OutputTensor.Sizes [2, 1] must be [2, 2]"),
    (lambda: gather_nd1(tensor(F32, [2, 2]), tensor(I32, [2, 3]), tensor(F32, [1, 2]), 2, 2, 0),
     "DML_GATHER_ND1_OPERATOR_DESC.IndicesTensor.Sizes[1] 3 (the index tuple length) must be at most "
     "InputDimensionCount 2"),
    (lambda: gather_nd1(tensor(F32, [2, 2]), tensor(I32, [2, 1]), tensor(F32, [1, 2]), 2, 2, 2),
     "DML_GATHER_ND1_OPERATOR_DESC.BatchDimensionCount 2 must be less than InputDimensionCount 2"),
    (lambda: gather_nd1(tensor(F32, [2, 2]), tensor(I32, [3, 1]), tensor(F32, [1, 3]), 2, 2, 1),
     "DML_GATHER_ND1_OPERATOR_DESC.IndicesTensor.Sizes[0] 3 must equal InputTensor.Sizes[0] 2 (batch dimension 0)"),
    (lambda: gather_nd1(tensor(F32, [2, 2]), tensor(I32, [2, 1]), tensor(F32, [1, 2]), 3, 2, 0),
     "DML_GATHER_ND1_OPERATOR_DESC.InputDimensionCount 3 must be in [1, 2]"),
    (lambda: gather_nd1(tensor(F32, [2, 2]), tensor(I32, [2, 1]), tensor(F32, [1, 2]), 1, 2, 0),
     "DML_GATHER_ND1_OPERATOR_DESC.InputTensor.Sizes [2, 2]: the 1 leading dimension(s) before the last "
     "InputDimensionCount 1 must be 1"),
], ids=["index-type", "output-type", "rank", "axis", "index-dims", "index-leading", "output-sizes", "output-crop",
        "elements-sizes", "elements-output", "nd-tuple", "nd-batch-count", "nd-batch-sizes", "nd-input-count",
        "nd-leading"])
def test_refusals_name_the_field(ref_device, make, message):
    assert message in refused(ref_device, make())
