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
