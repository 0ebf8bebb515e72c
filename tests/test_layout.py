"""DML_OPERATOR_PADDING, PADDING1 and TILE on every adapter.

Expected values are the doc pages' examples transcribed as literals, numpy's own ``np.pad``/``np.tile`` written in
the test (an implementation independent of dmlsim's index mapping), and onnx's node cases (Pad, Tile) mapped the
way onnxruntime's DirectML provider maps them. These operators move elements: every comparison is exact, bit
for bit (a float tensor is compared through its unsigned-integer view, so NaN payloads and -0.0 count).
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
from onnx_node_cases import case_ids, node_cases

import dmlsim as dml

OUT = "OutputTensor"
CONSTANT, EDGE, REFLECTION, SYMMETRIC, WRAP = range(5)
NP_MODE = {CONSTANT: "constant", EDGE: "edge", REFLECTION: "reflect", SYMMETRIC: "symmetric", WRAP: "wrap"}
EVERY = (F64, F32, F16, I64, I32, I16, I8, U64, U32, U16, U8)
DOC_INPUT = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [1, 2, 3, 4], [5, 6, 7, 8]], np.float32).reshape(1, 1, 4, 4)


def bits(a: np.ndarray) -> np.ndarray:
    """The elements as unsigned integers of their width (exact comparison, NaN payloads included)."""
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}")


def pattern(count: int, dtype: np.dtype) -> np.ndarray:
    """``count`` scrambled bit patterns of ``dtype``'s width (a multiplicative hash of 0, 1, 2, ...)."""
    hashed = np.arange(count, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)  # wraps modulo 2^64
    return hashed.astype(f"u{dtype.itemsize}")


def padding(x_desc, y_desc, mode, start, end, value=0.0, *, version=1, value_type=None):
    fields = dict(InputTensor=x_desc, OutputTensor=y_desc, PaddingMode=mode, DimensionCount=len(start),
                  StartPadding=list(start), EndPadding=list(end))
    if version == 1:
        fields.update(PaddingValueDataType=value_type if value_type is not None else x_desc.Desc.DataType,
                      PaddingValue=value)
        return operator("PADDING1", **fields)
    return operator("PADDING", PaddingValue=value, **fields)


def tile_op(x_desc, y_desc, repeats):
    return operator("TILE", InputTensor=x_desc, OutputTensor=y_desc, RepeatsCount=len(repeats), Repeats=list(repeats))


# The doc pages' four examples (PADDING1's page; PADDING's has the same), transcribed.
DOC_EXAMPLES = {
    CONSTANT: [[9] * 10, [9, 9, 1, 2, 3, 4, 9, 9, 9, 9], [9, 9, 5, 6, 7, 8, 9, 9, 9, 9], [9, 9, 1, 2, 3, 4, 9, 9, 9, 9],
               [9, 9, 5, 6, 7, 8, 9, 9, 9, 9], [9] * 10, [9] * 10, [9] * 10],
    EDGE: [[1, 1, 1, 2, 3, 4, 4, 4, 4, 4], [1, 1, 1, 2, 3, 4, 4, 4, 4, 4], [5, 5, 5, 6, 7, 8, 8, 8, 8, 8],
           [1, 1, 1, 2, 3, 4, 4, 4, 4, 4], [5, 5, 5, 6, 7, 8, 8, 8, 8, 8], [5, 5, 5, 6, 7, 8, 8, 8, 8, 8],
           [5, 5, 5, 6, 7, 8, 8, 8, 8, 8], [5, 5, 5, 6, 7, 8, 8, 8, 8, 8]],
    REFLECTION: [[7, 6, 5, 6, 7, 8, 7, 6, 5, 6], [3, 2, 1, 2, 3, 4, 3, 2, 1, 2]] * 4,
    SYMMETRIC: [[2, 1, 1, 2, 3, 4, 4, 3, 2, 1], [2, 1, 1, 2, 3, 4, 4, 3, 2, 1], [6, 5, 5, 6, 7, 8, 8, 7, 6, 5],
                [2, 1, 1, 2, 3, 4, 4, 3, 2, 1], [6, 5, 5, 6, 7, 8, 8, 7, 6, 5], [6, 5, 5, 6, 7, 8, 8, 7, 6, 5],
                [2, 1, 1, 2, 3, 4, 4, 3, 2, 1], [6, 5, 5, 6, 7, 8, 8, 7, 6, 5]],
}


@pytest.mark.parametrize("version", [0, 1], ids=["PADDING", "PADDING1"])
@pytest.mark.parametrize("mode", list(DOC_EXAMPLES), ids=["constant", "edge", "reflection", "symmetric"])
def test_doc_examples(device, version, mode):
    op = padding(tensor(F32, [1, 1, 4, 4]), tensor(F32, [1, 1, 8, 10]), mode, [0, 0, 1, 2], [0, 0, 3, 4], 9.0,
                 version=version)
    assert run(device, op, InputTensor=DOC_INPUT)[OUT][0, 0].tolist() == DOC_EXAMPLES[mode]


@pytest.mark.parametrize("mode", [CONSTANT, EDGE, REFLECTION, SYMMETRIC, WRAP], ids=list(NP_MODE.values()))
def test_paddings_larger_than_the_input_fold_periodically(device, mode):
    """Paddings of several periods on a 3-long and a 1-long dimension, against np.pad (which pads period by
    period); the 1-long dimension under REFLECTION repeats its element (the docstring's decision)."""
    x = np.array([[10.0], [-0.0], [np.inf]], np.float32)  # 3 x 1
    start, end = [7, 2], [5, 3]
    op = padding(tensor(F32, [3, 1]), tensor(F32, [15, 6]), mode, start, end, -2.5)
    expected = np.pad(x, list(zip(start, end, strict=True)), NP_MODE[mode],
                      **({"constant_values": -2.5} if mode == CONSTANT else {}))
    assert bits(run(device, op, InputTensor=x)[OUT]).tolist() == bits(expected).tolist()


@pytest.mark.parametrize("data_type", EVERY, ids=type_id)
def test_every_data_type_moves_bit_for_bit(device, data_type):
    """PADDING1 (CONSTANT with the union's bits, then SYMMETRIC) over every data type's bit patterns: float NaNs
    with payloads, infinities and -0.0 move unchanged; the constant is written as given."""
    skip_without_fp64(device, data_type)
    dtype = np.dtype(NUMPY[data_type])
    raw = pattern(24, dtype)
    x = raw.view(dtype).reshape(2, 3, 4)
    if dtype.kind == "f":  # a quiet NaN with a payload, a signalling-looking one, infinities, -0.0
        specials = {2: [0x7E01, 0xFC00, 0x8000], 4: [0x7FC00001, 0xFF800000, 0x80000000],
                    8: [0x7FF8000000000001, 0xFFF0000000000000, 0x8000000000000000]}[dtype.itemsize]
        x.reshape(-1).view(f"u{dtype.itemsize}")[:3] = specials
    fill_bits = {1: 0xA5, 2: 0x7E05, 4: 0x7FC00005, 8: 0x7FF8000000000005}[dtype.itemsize]
    # FLOAT16 by its UInt16 member (as onnxruntime and DxDispatch's files give it), the others by their bytes
    value = (dml.DML_SCALAR_UNION(UInt16=fill_bits) if data_type == F16
             else dml.DML_SCALAR_UNION(Bytes=list(fill_bits.to_bytes(dtype.itemsize, "little"))))
    start, end = [1, 0, 2], [0, 2, 1]
    for mode in (CONSTANT, SYMMETRIC):
        op = padding(tensor(data_type, [2, 3, 4]), tensor(data_type, [3, 5, 7]), mode, start, end, value)
        got = run(device, op, InputTensor=x)[OUT]
        kwargs = {"constant_values": fill_bits} if mode == CONSTANT else {}
        expected = np.pad(bits(x), list(zip(start, end, strict=True)), NP_MODE[mode], **kwargs)
        assert bits(got).tolist() == expected.tolist(), NP_MODE[mode]


@pytest.mark.parametrize(("data_type", "value", "expected"), [
    (I32, 10.6, 10), (I32, -3.7, -3), (I8, 1000.0, 127), (I8, -1e30, -128), (U8, -5.0, 0), (U16, float("nan"), 0),
    (U32, float("inf"), 2**32 - 1), (F16, 2049.0, 2048.0), (F16, 2051.0, 2052.0), (F16, 1e6, float("inf")),
    (F32, -0.0, -0.0),
], ids=["trunc", "trunc-negative", "saturate-high", "saturate-low", "unsigned-negative", "nan", "inf", "half-tie-even",
        "half-tie-up", "half-overflow", "negative-zero"])
def test_padding_float_value_in_the_tensor_type(device, data_type, value, expected):
    """PADDING's FLOAT PaddingValue converted once (module docstring): truncated and saturated to integers,
    NaN -> 0, rounded to nearest even to FLOAT16 (2049 and 2051 are ties between representable halves)."""
    x = np.array([7, 8], NUMPY[data_type])
    op = padding(tensor(data_type, [2]), tensor(data_type, [4]), CONSTANT, [1], [1], value, version=0)
    got = run(device, op, InputTensor=x)[OUT]
    want = np.array([expected, 7, 8, expected], NUMPY[data_type])
    assert bits(got).tolist() == bits(want).tolist()


def test_strided_broadcast_input_and_padded_output(device):
    """A permuted, padded input with a stride-0 (broadcast) dimension and an output with padded strides: each
    role addressed with its own strides (np.pad of the logical input is the expectation)."""
    logical = np.arange(1, 13, dtype=np.int32).reshape(3, 1, 4)
    x = np.ascontiguousarray(np.broadcast_to(logical, (3, 2, 4)))
    x_desc = tensor(I32, [3, 2, 4], strides=[1, 0, 5])   # column-major-ish and broadcast along dimension 1
    y_desc = tensor(I32, [5, 3, 9], strides=[40, 12, 1])  # rows padded to 12, planes to 40
    for mode in (CONSTANT, REFLECTION, WRAP):
        op = padding(x_desc, y_desc, mode, [1, 0, 3], [1, 1, 2], dml.DML_SCALAR_UNION(Int32=-1))
        got = run(device, op, InputTensor=x)[OUT]
        kwargs = {"constant_values": -1} if mode == CONSTANT else {}
        assert got.tolist() == np.pad(x, [(1, 1), (0, 1), (3, 2)], NP_MODE[mode], **kwargs).tolist(), NP_MODE[mode]


def test_tile_doc_example(device):
    op = tile_op(tensor(F32, [1, 1, 2, 3]), tensor(F32, [1, 1, 6, 9]), [1, 1, 3, 3])
    got = run(device, op, InputTensor=np.arange(1, 7, dtype=np.float32).reshape(1, 1, 2, 3))[OUT][0, 0]
    assert got.tolist() == [[1, 2, 3, 1, 2, 3, 1, 2, 3], [4, 5, 6, 4, 5, 6, 4, 5, 6]] * 3


@pytest.mark.parametrize("data_type", [F16, I64, U8], ids=type_id)
def test_tile_8d_strided_bits(device, data_type):
    """An 8-D TILE of a strided input (padded strides, output permuted) against np.tile, bit for bit."""
    dtype = np.dtype(NUMPY[data_type])
    sizes = [1, 2, 1, 3, 1, 1, 2, 1]
    raw = pattern(12, dtype)
    x = raw.view(dtype).reshape(sizes)
    repeats = [2, 1, 1, 2, 3, 1, 2, 1]
    out_sizes = [s * r for s, r in zip(sizes, repeats, strict=True)]
    y_strides = [1, 2, 4, 4, 24, 72, 72, 144]  # dimension 0 fastest
    x_desc = tensor(data_type, sizes, strides=[0, 20, 0, 6, 0, 0, 2, 0])
    op = tile_op(x_desc, tensor(data_type, out_sizes, strides=y_strides), repeats)
    assert bits(run(device, op, InputTensor=x)[OUT]).tolist() == bits(np.tile(x, repeats)).tolist()


def _pad(x_type, y_type, x_sizes, y_sizes, mode=CONSTANT, start=(1,), end=(1,), version=1, value_type=None):
    return lambda: padding(tensor(x_type, x_sizes), tensor(y_type, y_sizes), mode, list(start), list(end),
                           version=version, value_type=value_type)


@pytest.mark.parametrize(("make", "message"), [
    (_pad(F32, F32, [4], [5]), "DML_PADDING1_OPERATOR_DESC.OutputTensor.Sizes[0] 5 must equal InputTensor.Sizes[0] "
                               "4 + StartPadding[0] 1 + EndPadding[0] 1"),
    (_pad(F32, F16, [4], [6]), "DML_PADDING1_OPERATOR_DESC.OutputTensor.DataType FLOAT16 must equal "
                               "InputTensor.DataType FLOAT32"),
    (_pad(F32, F32, [4], [6], value_type=I32), "DML_PADDING1_OPERATOR_DESC.PaddingValueDataType INT32 must match "
                                               "OutputTensor.DataType FLOAT32"),
    (_pad(F32, F32, [4], [1, 6]), "DML_PADDING1_OPERATOR_DESC.OutputTensor.DimensionCount 2 must equal "
                                  "InputTensor.DimensionCount 1"),
    (_pad(F32, F32, [4], [6], start=(1, 0), end=(1, 0)), "DML_PADDING1_OPERATOR_DESC.DimensionCount 2 must equal "
                                                         "InputTensor.DimensionCount 1"),
    (_pad(F64, F64, [4], [6], version=0), "DML_PADDING_OPERATOR_DESC.InputTensor.DataType FLOAT64 is not supported "
                                          "by DML_PADDING_OPERATOR"),
    (_pad(I8, I8, [2, 2], [2, 3], start=(0, 0), end=(0, 2), version=0),
     "DML_PADDING_OPERATOR_DESC.OutputTensor.Sizes[1] 3 must equal InputTensor.Sizes[1] 2 + StartPadding[1] 0 + "
     "EndPadding[1] 2"),
    (lambda: tile_op(tensor(F32, [2, 3]), tensor(F32, [2, 3]), [1, 0]), "DML_TILE_OPERATOR_DESC.Repeats[1] must be "
                                                                         "larger than 0"),
    (lambda: tile_op(tensor(F32, [2, 3]), tensor(F32, [4, 3]), [2]), "DML_TILE_OPERATOR_DESC.RepeatsCount 1 must "
                                                                     "equal InputTensor.DimensionCount 2"),
    (lambda: tile_op(tensor(F32, [2, 3]), tensor(F32, [4, 3]), [2, 2]),
     "DML_TILE_OPERATOR_DESC.OutputTensor.Sizes[1] 3 must equal InputTensor.Sizes[1] 3 * Repeats[1] 2"),
    (lambda: tile_op(tensor(F64, [2]), tensor(F64, [4]), [2]), "DML_TILE_OPERATOR_DESC.InputTensor.DataType FLOAT64 "
                                                               "is not supported by DML_TILE_OPERATOR"),
    (lambda: tile_op(tensor(F32, [2]), tensor(I32, [4]), [2]), "DML_TILE_OPERATOR_DESC.OutputTensor.DataType INT32 "
                                                               "must equal InputTensor.DataType FLOAT32"),
], ids=["pad-sizes", "pad-type", "pad-value-type", "pad-rank", "pad-count", "pad-float64", "pad0-sizes",
        "tile-zero", "tile-count", "tile-sizes", "tile-float64", "tile-type"])
def test_refusals_name_the_field(ref_device, make, message):
    assert message in refused(ref_device, make())


# --- onnx's node cases, mapped as onnxruntime's DirectML provider maps them ------------------------------------
ONNX_TYPE = {np.dtype(v): k for k, v in NUMPY.items()}
ONNX_PAD_MODES = {"constant": CONSTANT, "edge": EDGE, "reflect": REFLECTION, "wrap": WRAP}
# Every Pad and Tile case of onnx 1.23 maps (none has negative pads, which DML's UINT paddings cannot express:
# onnxruntime runs those on the CPU); a case that would not map is listed here with its reason.
UNMAPPED: dict[str, str] = {}
LARGE = {"test_tile"}  # 40,320 output elements: too slow under Oclgrind; test_tile_precomputed takes the same path


def _params(op_type: str) -> list:
    cases = node_cases(op_type)
    return [pytest.param(c, id=i, marks=[pytest.mark.large] if i in LARGE else [])
            for c, i in zip(cases, case_ids(cases), strict=True) if i not in UNMAPPED]


def test_onnx_cases_are_all_accounted_for():
    """Every Pad/Tile node case either runs below or is listed in UNMAPPED with its reason."""
    names = {c.name for op in ("Pad", "Tile") for c in node_cases(op)}
    assert names and set(UNMAPPED) <= names
    assert len(_params("Pad")) + len(_params("Tile")) + len(UNMAPPED) == len(names)


@pytest.mark.parametrize("case", _params("Pad"))
def test_onnx_pad(device, case):
    """ONNX Pad (opset 11+): pads [begin..., end...] over ``axes`` (default all; negative counted from the end),
    the value input as PADDING1's PaddingValue in the input's type (0 when absent), mode constant/edge/reflect/
    wrap."""
    node = case.model.graph.node[0]
    inputs, (expected,) = case.data_sets[0]
    named = dict(zip(node.input, inputs, strict=False))
    x = named["x"]
    rank = x.ndim
    axes = [int(a) % rank for a in named.get("axes", range(rank))]
    pads = [int(p) for p in named["pads"]]
    start, end = [0] * rank, [0] * rank
    for k, axis in enumerate(axes):
        start[axis], end[axis] = pads[k], pads[k + len(axes)]
    data_type = ONNX_TYPE[x.dtype]
    value = np.asarray(named.get("value", 0), x.dtype).item()
    mode = ONNX_PAD_MODES[{a.name: a.s.decode() for a in node.attribute}.get("mode", "constant")]
    op = padding(tensor(data_type, x.shape), tensor(data_type, expected.shape), mode, start, end, value)
    assert bits(run(device, op, InputTensor=x)[OUT]).tolist() == bits(expected).tolist()


@pytest.mark.parametrize("case", _params("Tile"))
def test_onnx_tile(device, case):
    """ONNX Tile: the repeats input as DML_TILE's Repeats."""
    (x, repeats), (expected,) = case.data_sets[0]
    data_type = ONNX_TYPE[x.dtype]
    op = tile_op(tensor(data_type, x.shape), tensor(data_type, expected.shape), [int(r) for r in repeats])
    assert bits(run(device, op, InputTensor=x)[OUT]).tolist() == bits(expected).tolist()


# --- SPACE_TO_DEPTH(1), DEPTH_TO_SPACE(1) ------------------------------------------------------------------------
DCR, CRD = 0, 1  # DML_DEPTH_SPACE_ORDER
# The doc pages' example: depth channel k of {1, 8, 2, 3} holds 9k + 0..5; its space forms, transcribed.
DEPTH = (np.arange(8)[:, None] * 9 + np.arange(6)).reshape(1, 8, 2, 3).astype(np.uint32)
SPACE = {
    DCR: [[[0, 18, 1, 19, 2, 20], [36, 54, 37, 55, 38, 56], [3, 21, 4, 22, 5, 23], [39, 57, 40, 58, 41, 59]],
          [[9, 27, 10, 28, 11, 29], [45, 63, 46, 64, 47, 65], [12, 30, 13, 31, 14, 32], [48, 66, 49, 67, 50, 68]]],
    CRD: [[[0, 9, 1, 10, 2, 11], [18, 27, 19, 28, 20, 29], [3, 12, 4, 13, 5, 14], [21, 30, 22, 31, 23, 32]],
          [[36, 45, 37, 46, 38, 47], [54, 63, 55, 64, 56, 65], [39, 48, 40, 49, 41, 50], [57, 66, 58, 67, 59, 68]]],
}


def depth_space(name, x_desc, y_desc, block, order=None):
    fields = dict(InputTensor=x_desc, OutputTensor=y_desc, BlockSize=block)
    if order is not None:
        fields["Order"] = order
    return operator(name, **fields)


@pytest.mark.parametrize(("name", "order"), [("DEPTH_TO_SPACE", None), ("DEPTH_TO_SPACE1", DCR),
                                             ("DEPTH_TO_SPACE1", CRD)], ids=["v0", "dcr", "crd"])
def test_depth_to_space_doc_examples(device, name, order):
    op = depth_space(name, tensor(U32, [1, 8, 2, 3]), tensor(U32, [1, 2, 4, 6]), 2, order)
    assert run(device, op, InputTensor=DEPTH)[OUT][0].tolist() == SPACE[order or DCR]


@pytest.mark.parametrize(("name", "order"), [("SPACE_TO_DEPTH", None), ("SPACE_TO_DEPTH1", DCR),
                                             ("SPACE_TO_DEPTH1", CRD)], ids=["v0", "dcr", "crd"])
def test_space_to_depth_doc_examples(device, name, order):
    op = depth_space(name, tensor(U32, [1, 2, 4, 6]), tensor(U32, [1, 8, 2, 3]), 2, order)
    space = np.array([SPACE[order or DCR]], np.uint32)
    assert run(device, op, InputTensor=space)[OUT].tolist() == DEPTH.tolist()


@pytest.mark.parametrize("data_type", [F64, F16, I8, U64], ids=type_id)
def test_depth_space_strided_bits_round_trip(device, data_type):
    """Block 3, two batches, strided (padded, permuted) input and output: DEPTH_TO_SPACE1 (CRD) against numpy's
    reshape/transpose written here, then SPACE_TO_DEPTH1 (CRD) of that gives the input back, bit for bit."""
    skip_without_fp64(device, data_type)
    dtype = np.dtype(NUMPY[data_type])
    x = pattern(2 * 18 * 2 * 1, dtype).view(dtype).reshape(2, 18, 2, 1)
    if data_type == F16:  # signalling NaNs with payloads, a quiet one, -0.0, infinity: as bits
        x.reshape(-1).view(np.uint16)[:5] = [0x7C01, 0xFD55, 0x7E01, 0x8000, 0x7C00]
    space_sizes = [2, 2, 6, 3]
    x_desc = tensor(data_type, [2, 18, 2, 1], strides=[1, 2, 40, 80])
    y_desc = tensor(data_type, space_sizes, strides=[80, 36, 6, 1])
    got = run(device, depth_space("DEPTH_TO_SPACE1", x_desc, y_desc, 3, CRD), InputTensor=x)[OUT]
    # CRD: depth channel c*9 + i*3 + j holds space (c, h*3 + i, w*3 + j)
    expected = x.reshape(2, 2, 3, 3, 2, 1).transpose(0, 1, 4, 2, 5, 3).reshape(space_sizes)
    assert bits(got).tolist() == bits(expected).tolist()
    back = run(device, depth_space("SPACE_TO_DEPTH1", y_desc, x_desc, 3, CRD), InputTensor=got)[OUT]
    assert bits(back).tolist() == bits(x).tolist()


@pytest.mark.parametrize(("make", "message"), [
    (lambda: depth_space("DEPTH_TO_SPACE", tensor(F32, [1, 6, 2, 2]), tensor(F32, [1, 1, 4, 4]), 2),
     "DML_DEPTH_TO_SPACE_OPERATOR_DESC.InputTensor.Sizes[1] 6 must be a multiple of BlockSize * BlockSize 4"),
    (lambda: depth_space("DEPTH_TO_SPACE1", tensor(F32, [1, 8, 2, 2]), tensor(F32, [1, 2, 4, 2]), 2, DCR),
     "DML_DEPTH_TO_SPACE1_OPERATOR_DESC.OutputTensor.Sizes [1, 2, 4, 2] must be [1, 2, 4, 4]"),
    (lambda: depth_space("SPACE_TO_DEPTH1", tensor(F32, [1, 1, 4, 3]), tensor(F32, [1, 4, 2, 1]), 2, CRD),
     "DML_SPACE_TO_DEPTH1_OPERATOR_DESC.InputTensor.Sizes [1, 1, 4, 3]: Height and Width must be multiples of "
     "BlockSize 2"),
    (lambda: depth_space("SPACE_TO_DEPTH", tensor(F32, [1, 1, 4, 4]), tensor(F32, [1, 4, 2, 2]), 0),
     "DML_SPACE_TO_DEPTH_OPERATOR_DESC.BlockSize 0 must be at least 1"),
    (lambda: depth_space("SPACE_TO_DEPTH", tensor(F32, [1, 4, 4]), tensor(F32, [1, 4, 2, 2]), 2),
     "DML_SPACE_TO_DEPTH_OPERATOR_DESC.InputTensor.DimensionCount 3 is not supported"),
    (lambda: depth_space("SPACE_TO_DEPTH", tensor(F32, [1, 1, 4, 4]), tensor(F16, [1, 4, 2, 2]), 2),
     "DML_SPACE_TO_DEPTH_OPERATOR_DESC.OutputTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
], ids=["d2s-channels", "d2s-output", "s2d-spatial", "block-0", "rank", "type"])
def test_depth_space_refusals_name_the_field(ref_device, make, message):
    assert message in refused(ref_device, make())




def _depth_space_params() -> list:
    cases = node_cases("DepthToSpace") + node_cases("SpaceToDepth")
    return [pytest.param(c, id=c.name) for c in cases]


def test_onnx_depth_space_cases_exist():
    """onnx has DepthToSpace (DCR and CRD modes) and SpaceToDepth node cases; each runs below (none is dropped)."""
    names = [p.id for p in _depth_space_params()]
    assert any("crd" in n for n in names) and any("spacetodepth" in n for n in names)


@pytest.mark.parametrize("case", _depth_space_params())
def test_onnx_depth_space(device, case):
    """ONNX DepthToSpace and SpaceToDepth (mode DCR, the default, or CRD, which onnx 1.23's SpaceToDepth cases
    have too) as DEPTH_TO_SPACE1 / SPACE_TO_DEPTH1 with Order DEPTH_COLUMN_ROW / COLUMN_ROW_DEPTH, as onnxruntime's
    DirectML provider maps DepthToSpace. Every case of onnx 1.23 maps; none is left out."""
    node = case.model.graph.node[0]
    attrs = {a.name: a for a in node.attribute}
    block = attrs["blocksize"].i
    order = CRD if "mode" in attrs and attrs["mode"].s.decode() == "CRD" else DCR
    (x,), (expected,) = case.data_sets[0]
    data_type = ONNX_TYPE[x.dtype]
    name = "DEPTH_TO_SPACE1" if node.op_type == "DepthToSpace" else "SPACE_TO_DEPTH1"
    op = depth_space(name, tensor(data_type, x.shape), tensor(data_type, expected.shape), block, order)
    assert bits(run(device, op, InputTensor=x)[OUT]).tolist() == bits(expected).tolist()
