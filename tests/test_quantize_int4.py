"""DML_TENSOR_DATA_TYPE_UINT4 and INT4 (feature level 6_3) in DML_OPERATOR_QUANTIZE and DML_OPERATOR_DEQUANTIZE,
on every adapter; DMLCalcBufferTensorSize for 4-bit tensors; other operators refusing them.

The storage rule is the DML_TENSOR_DATA_TYPE page's: two elements per byte, the first in the low nibble ("UINT4
[1,2,3,4,5] yields 3 bytes [0x21, 0x43, 0x05] with an ignorable tail nibble"); dmlsim's decisions where the page
is silent (strides in elements, any layout, nibbles that are no output element never written) are in
``dmlsim.api.tensor``'s docstring. Expected values: literals worked out in the docstrings (bytes written by hand),
element-by-element transcriptions of the formula written here, onnx.reference's QuantizeLinear/DequantizeLinear
with int4/uint4, and onnx's node cases. Outputs are integers or exact small multiples of powers of two: compared
exactly.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from datamove_support import F16, F32, I8, U8, operator, refused, run, tensor
from dispatch import Dispatch
from onnx_node_cases import node_attributes, node_cases

import dmlsim as dml

I4, U4 = dml.DML_TENSOR_DATA_TYPE_INT4, dml.DML_TENSOR_DATA_TYPE_UINT4
OUT = "OutputTensor"
RANGE = {I4: (-8, 7), U4: (0, 15)}
NAMES = {I4: "INT4", U4: "UINT4"}


def blocked(name, x, tensors, y):
    """DML_OPERATOR_<name> (QUANTIZE or DEQUANTIZE) with ``tensors`` ([scale] or [scale, zero point])."""
    kind = dml.DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT if len(tensors) == 2 else dml.DML_QUANTIZATION_TYPE_SCALE
    return operator(name, InputTensor=x, QuantizationType=kind, QuantizationTensorCount=len(tensors),
                    QuantizationTensors=tensors, OutputTensor=y)


# --- DMLCalcBufferTensorSize ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("sizes", "strides", "expected"), [
    ([5], None, 4),            # 20 bits -> 3 bytes -> 4
    ([9], None, 8),            # 36 bits -> 5 bytes -> 8
    ([2, 4], None, 4),         # 8 elements, 4 bytes
    ([2, 5], [8, 1], 8),       # last index 1*8 + 4 = 12: 13 elements, 52 bits -> 7 bytes -> 8
    ([3, 3], [1, 3], 8),       # column-major: last index 2 + 6 = 8: 9 elements -> 5 bytes -> 8
    ([4, 4], [0, 1], 4),       # broadcast rows: 4 elements -> 2 bytes -> 4
    ([16, 2], [2, 1], 16),     # 32 elements -> 16 bytes
])
def test_buffer_size_counts_four_bits_per_element(sizes, strides, expected):
    """DirectMLX.h's DMLCalcBufferTensorSize: (last index + 1) · 4 bits, rounded up to bytes, then to 4."""
    for data_type in (I4, U4):
        assert dml.DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides) == expected


# --- QUANTIZE ----------------------------------------------------------------------------------------------------
@pytest.mark.formula
@pytest.mark.parametrize("y_type", [I4, U4], ids=["int4", "uint4"])
def test_quantize_by_hand(device, y_type):
    """x [7] / scale 2 + zero point 1, an odd element count. x / 2: 0 -> 0, 1 -> 0.5 -> 0 (half to even), 3 ->
    1.5 -> 2, 5 -> 2.5 -> 2, -0.0 -> 0, 100 -> 50, NaN; + 1: [1, 1, 3, 3, 1, 51, NaN].
    INT4 clamps to [-8, 7]: [1, 1, 3, 3, 1, 7, 0] (NaN gives 0); UINT4 to [0, 15]: [1, 1, 3, 3, 1, 15, 0].
    Then -inf and -14 (-7 + 1 = -6) on a second run: INT4 [-8, -6], UINT4 [0, 0]."""
    op = blocked("QUANTIZE", tensor(F32, [7]), [tensor(F32, [1]), tensor(y_type, [1])], tensor(y_type, [7]))
    got = run(device, op, InputTensor=[0, 1, 3, 5, -0.0, 100, np.nan], QuantizationTensors=[[2], [1]])[OUT]
    assert got.tolist() == [1, 1, 3, 3, 1, 7 if y_type == I4 else 15, 0]
    op = blocked("QUANTIZE", tensor(F16, [2]), [tensor(F16, [1]), tensor(y_type, [1])], tensor(y_type, [2]))
    got = run(device, op, InputTensor=[-np.inf, -14], QuantizationTensors=[[2], [1]])[OUT]
    assert got.tolist() == ([-8, -6] if y_type == I4 else [0, 0])


@pytest.mark.formula
def test_quantize_writes_low_nibble_first_and_keeps_the_tail_nibble(device):
    """The page's example: UINT4 [1, 2, 3, 4, 5] is the bytes [0x21, 0x43, 0x?5]. x = [2, 4, 6, 8, 10], scale 2,
    no zero point, into a buffer filled with 0xAB at byte 32: bytes 32..34 become 0x21, 0x43, 0xA5 (the tail nibble
    keeps the guard's 0xA), byte 35 (TotalTensorSizeInBytes' padding) and every other byte stay 0xAB; x at byte 64."""
    op = blocked("QUANTIZE", tensor(F32, [5]), [tensor(F32, [1])], tensor(U4, [5]))
    buffer = device.CreateBuffer(128)
    buffer.Write(b"\xab" * 128)
    dispatch = Dispatch(device, op, placement={"InputTensor": (buffer, 64), "QuantizationTensors": [(buffer, 96)],
                                               OUT: (buffer, 32)})
    dispatch.load({"InputTensor": [2, 4, 6, 8, 10], "QuantizationTensors": [[2]]})
    dispatch.execute()
    raw = buffer.Read(0, 128)
    assert raw[32:36] == bytes([0x21, 0x43, 0xA5, 0xAB])
    assert raw[:32] == b"\xab" * 32 and raw[36:64] == b"\xab" * 28


@pytest.mark.formula
def test_quantize_strided_output_writes_only_its_nibbles(device):
    """INT4 output [2, 3] column-major with a padding stride (strides [1, 3]: element (i, j) at nibble i + 3j, so
    nibbles 2 and 5 are gaps; 8 nibbles, 4 bytes): x = [[1, 2, 3], [-1, -2, -3]], scale 1, zero point -1:
    [[0, 1, 2], [-2, -3, -4]]. Nibbles 0..7 over a 0x99 buffer: 0, -2 (0xE), gap (9), 1, -3 (0xD), gap (9), 2, -4
    (0xC): bytes [0xE0, 0x19, 0x9D, 0xC2], the next four (padding to 8) untouched 0x99."""
    op = blocked("QUANTIZE", tensor(F32, [2, 3]), [tensor(F32, [1, 1]), tensor(I4, [1, 1])],
                 tensor(I4, [2, 3], [1, 3]))
    buffer = device.CreateBuffer(96)
    buffer.Write(b"\x99" * 96)
    dispatch = Dispatch(device, op, placement={"InputTensor": (buffer, 48), "QuantizationTensors": [(buffer, 16),
                                               (buffer, 80)], OUT: (buffer, 32)})
    dispatch.load({"InputTensor": [[1, 2, 3], [-1, -2, -3]], "QuantizationTensors": [[[1]], [[-1]]]})
    dispatch.execute()
    assert buffer.Read(32, 8) == bytes([0xE0, 0x19, 0x9D, 0xC2, 0x99, 0x99, 0x99, 0x99])
    assert dispatch.read(OUT).tolist() == [[0, 1, 2], [-2, -3, -4]]


def _expected(x, scale, zero_point, lo, hi):
    """QUANTIZE element by element: each quantization element at i // (I / S) per dimension; x / scale in float32,
    round half to even (Python's round), + zero point, clamp."""
    out = np.zeros(x.shape)
    blocks = [n // s for n, s in zip(x.shape, scale.shape, strict=True)]
    for index in itertools.product(*(range(n) for n in x.shape)):
        q = tuple(i // b for i, b in zip(index, blocks, strict=True))
        quotient = float(np.float32(x[index]) / np.float32(scale[q]))
        out[index] = min(max(round(quotient) + int(zero_point[q]), lo), hi)
    return out


@pytest.mark.parametrize("y_type", [I4, U4], ids=["int4", "uint4"])
def test_quantize_blocked_strided_4d(device, y_type):
    """4-D, odd sizes, a padded input, a scale blocked by 3 along one dimension and per element along another
    (permuted strides), a 4-bit zero point with odd strides, a 4-bit output in permuted padded strides;
    quarter-integer inputs over power-of-two scales make ties."""
    sizes, q_sizes = [3, 1, 5, 6], [3, 1, 5, 2]
    rng = np.random.default_rng(4)
    x = (rng.integers(-120, 120, sizes) / 4).astype(np.float32)
    scale = rng.choice(np.array([0.5, 1, 2, 4], np.float32), q_sizes)
    lo, hi = RANGE[y_type]
    zero = rng.integers(lo, hi + 1, q_sizes).astype(np.int8)
    op = blocked("QUANTIZE", tensor(F32, sizes, [64, 64, 8, 1]),
                 [tensor(F32, q_sizes, [1, 0, 3, 15]), tensor(y_type, q_sizes, [11, 7, 1, 5])],
                 tensor(y_type, sizes, [1, 5, 19, 3]))
    got = run(device, op, InputTensor=x, QuantizationTensors=[scale, zero])[OUT]
    np.testing.assert_array_equal(got, _expected(x, scale, zero, lo, hi))


# --- DEQUANTIZE --------------------------------------------------------------------------------------------------
@pytest.mark.formula
@pytest.mark.parametrize("y_type", [F32, F16], ids=["float32", "float16"])
def test_dequantize_reads_bytes_written_by_hand(device, y_type):
    """INT4 x of 5 elements from the bytes [0x21, 0x43, 0xF5] hand-written at byte 48 (elements 1, 2, 3, 4, 5; the
    tail nibble 0xF is no element), then the bytes [0x8F, 0x07] (elements -1, -8, 7, 0) on a second run; scale 0.5,
    INT4 zero point -1 (bytes [0x0F]): (x + 1) * 0.5 = [1, 1.5, 2, 2.5, 3], then [0, -3.5, 4, 0.5]."""
    for hand, count, expected in (([0x21, 0x43, 0xF5], 5, [1, 1.5, 2, 2.5, 3]), ([0x8F, 0x07], 4, [0, -3.5, 4, 0.5])):
        op = blocked("DEQUANTIZE", tensor(I4, [count]), [tensor(y_type, [1]), tensor(I4, [1])],
                     tensor(y_type, [count]))
        buffer = device.CreateBuffer(128)
        buffer.Write(bytes(hand), 48)
        buffer.Write(bytes([0x0F]), 80)
        dispatch = Dispatch(device, op, placement={"InputTensor": (buffer, 48), "QuantizationTensors": [
            (buffer, 16), (buffer, 80)], OUT: (buffer, 96)})
        dispatch.write("QuantizationTensors", [0.5], 0)
        dispatch.execute()
        assert dispatch.read(OUT).tolist() == expected


@pytest.mark.parametrize("x_type", [I4, U4], ids=["int4", "uint4"])
def test_dequantize_blocked_strided_5d(device, x_type):
    """5-D 4-bit x in padded, permuted strides (odd ones), a scale blocked by 2 and 3, broadcast by stride 0 along
    another dimension, a 4-bit zero point per block: (x - z) * s element by element, exact (small integers times
    powers of two)."""
    sizes, q_sizes = [2, 3, 1, 4, 6], [2, 1, 1, 2, 2]
    lo, hi = RANGE[x_type]
    rng = np.random.default_rng(7)
    x = rng.integers(lo, hi + 1, sizes).astype(np.int8)
    scale = rng.choice(np.array([0.25, 0.5, 2, 8], np.float32), q_sizes)
    zero = rng.integers(lo, hi + 1, q_sizes).astype(np.int8)
    op = blocked("DEQUANTIZE", tensor(x_type, sizes, [1, 2, 99, 7, 29]),
                 [tensor(F32, q_sizes, [4, 0, 0, 2, 1]), tensor(x_type, q_sizes, [1, 0, 3, 5, 2])],
                 tensor(F32, sizes))
    got = run(device, op, InputTensor=x, QuantizationTensors=[scale, zero])[OUT]
    expected = np.zeros(sizes)
    for index in itertools.product(*(range(n) for n in sizes)):
        q = (index[0], 0, 0, index[3] // 2, index[4] // 3)
        expected[index] = (int(x[index]) - int(zero[q])) * float(scale[q])
    np.testing.assert_array_equal(got, expected)


def test_dequantize_broadcast_input(device):
    """A UINT4 input broadcast by stride 0 (Sizes [3, 4], Strides [0, 1]: one row of 4 nibbles, bytes [0x21, 0xF3]
    -> 1, 2, 3, 15) without zero point, scale 0.25 per tensor: every row [0.25, 0.5, 0.75, 3.75]."""
    op = blocked("DEQUANTIZE", tensor(U4, [3, 4], [0, 1]), [tensor(F32, [1, 1])], tensor(F32, [3, 4]))
    buffer = device.CreateBuffer(128)
    buffer.Write(bytes([0x21, 0xF3]), 16)
    dispatch = Dispatch(device, op, placement={"InputTensor": (buffer, 16), "QuantizationTensors": [(buffer, 32)],
                                               OUT: (buffer, 64)})
    dispatch.write("QuantizationTensors", [[0.25]], 0)
    dispatch.execute()
    assert dispatch.read(OUT).tolist() == [[0.25, 0.5, 0.75, 3.75]] * 3


# --- independent oracles: onnx.reference and onnx's node cases ---------------------------------------------------
@pytest.mark.parametrize("onnx_type", ["INT4", "UINT4"])
def test_quantize_then_dequantize_against_onnx_reference(device, onnx_type):
    """onnx.reference's QuantizeLinear (axis 1, block_size 2) to int4/uint4, then its DequantizeLinear, on a [3, 4]
    input with ties, ±0 and saturating values (within int32: onnx.reference casts to int32 before saturating); the
    same descs on the device (the blocked scale [3, 2] and zero
    point as they are). NaN and ±inf are left out: onnx.reference casts them to int32 before saturating, which
    numpy leaves undefined (dmlsim's NaN gives 0 and infinities saturate: test_quantize_by_hand)."""
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    proto_type = getattr(TensorProto, onnx_type)
    y_type = I4 if onnx_type == "INT4" else U4
    x = np.array([[0.5, 1.5, 2.5, -3], [100, -100, 40, -40], [-0.0, 0.0, 7.25, 6.75]], np.float32)
    scale = np.array([[1, 0.5], [2, 4], [0.5, 1]], np.float32)
    zero_values = np.array([[0, 1], [2, 3], [1, 0]], np.int8)
    zero = helper.make_tensor("z", proto_type, [3, 2], zero_values.ravel().tolist())
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=1, block_size=2),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], axis=1, block_size=2)]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4]),
                                           helper.make_tensor_value_info("s", TensorProto.FLOAT, [3, 2])],
                              [helper.make_tensor_value_info("q", proto_type, [3, 4]),
                               helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])], [zero])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    q_expected, y_expected = ReferenceEvaluator(model).run(None, {"x": x, "s": scale})
    q_expected = q_expected.astype(np.int8)
    q_op = blocked("QUANTIZE", tensor(F32, [3, 4]), [tensor(F32, [3, 2]), tensor(y_type, [3, 2])],
                   tensor(y_type, [3, 4]))
    got = run(device, q_op, InputTensor=x, QuantizationTensors=[scale, zero_values])[OUT]
    np.testing.assert_array_equal(got, q_expected)
    dq_op = blocked("DEQUANTIZE", tensor(y_type, [3, 4]), [tensor(F32, [3, 2]), tensor(y_type, [3, 2])],
                    tensor(F32, [3, 4]))
    got = run(device, dq_op, InputTensor=q_expected, QuantizationTensors=[scale, zero_values])[OUT]
    np.testing.assert_array_equal(got, y_expected)


# onnx's 4-bit cases that do not map: none (per-axis and per-tensor scales map as onnxruntime's DirectML provider
# maps them: the scale reshaped to the input's rank, its elements along ``axis``).
UNMAPPED: dict[str, str] = {}


def test_onnx_4_bit_node_cases(device):
    """onnx's test_quantizelinear_int4/uint4 and test_dequantizelinear_int4/uint4: x as it is; a scale and zero point
    of rank 0 (per tensor) become Sizes [1] * rank, of rank 1 (per axis) the input's rank with their elements along
    ``axis``; expected values: onnx's."""
    from onnx import numpy_helper

    types = {"int4": I4, "uint4": U4, "float32": F32, "float16": F16, "int8": I8, "uint8": U8}
    cases = [c for op in ("QuantizeLinear", "DequantizeLinear") for c in node_cases(op)
             if c.name.endswith(("_int4", "_uint4"))]
    assert sorted(c.name for c in cases) == ["test_dequantizelinear_int4", "test_dequantizelinear_uint4",
                                             "test_quantizelinear_int4", "test_quantizelinear_uint4"]
    for case in cases:
        inputs, (expected,) = case.data_sets[0]
        x, scale, zero = (a if isinstance(a, np.ndarray | np.generic) else numpy_helper.to_array(a) for a in inputs)
        expected = expected if isinstance(expected, np.ndarray) else numpy_helper.to_array(expected)
        x, scale, zero = np.asarray(x), np.asarray(scale), np.asarray(zero)
        axis = node_attributes(case).get("axis", 1)
        q_sizes = [1] * x.ndim
        if scale.ndim == 1:
            q_sizes[axis] = scale.size
        quantizing = case.model.graph.node[0].op_type == "QuantizeLinear"
        op = blocked("QUANTIZE" if quantizing else "DEQUANTIZE", tensor(types[x.dtype.name], x.shape),
                     [tensor(types[scale.dtype.name], q_sizes), tensor(types[zero.dtype.name], q_sizes)],
                     tensor(types[expected.dtype.name], expected.shape))
        got = run(device, op, InputTensor=x.astype(np.float32 if quantizing else np.int8),
                  QuantizationTensors=[scale.reshape(q_sizes), zero.astype(np.int8).reshape(q_sizes)])[OUT]
        np.testing.assert_array_equal(got, expected.astype(got.dtype), err_msg=case.name)


# --- rules -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("op", "message"), [
    (blocked("QUANTIZE", tensor(F32, [4]), [tensor(F32, [1]), tensor(I8, [1])], tensor(I4, [4])),
     "QuantizationTensors[1].DataType INT8 must equal OutputTensor.DataType INT4 (the zero point)"),
    (blocked("QUANTIZE", tensor(F32, [4]), [tensor(F32, [1]), tensor(U4, [1])], tensor(I4, [4])),
     "QuantizationTensors[1].DataType UINT4 must equal OutputTensor.DataType INT4"),
    (blocked("DEQUANTIZE", tensor(U4, [4]), [tensor(F32, [1]), tensor(U8, [1])], tensor(F32, [4])),
     "QuantizationTensors[1].DataType UINT8 must equal InputTensor.DataType UINT4"),
    (blocked("QUANTIZE", tensor(I4, [4]), [tensor(I4, [1])], tensor(I4, [4])),
     "InputTensor.DataType INT4 is not supported by DML_OPERATOR_QUANTIZE"),
    (blocked("DEQUANTIZE", tensor(U4, [4]), [tensor(U4, [1])], tensor(U4, [4])),
     "OutputTensor.DataType UINT4 is not supported by DML_OPERATOR_DEQUANTIZE"),
    (blocked("QUANTIZE", tensor(F32, [4]), [tensor(F32, [1])], tensor(U4, [2, 2])),
     "OutputTensor.DimensionCount 2 must equal InputTensor.DimensionCount 1"),
], ids=["zero-point-int8", "zero-point-signedness", "dq-zero-point-uint8", "input-int4", "dq-output-uint4",
        "output-rank"])
def test_refusals_name_the_field(ref_device, op, message):
    assert message in refused(ref_device, op)


def test_a_4_bit_tensor_too_small_for_its_nibbles_is_refused(ref_device):
    """TotalTensorSizeInBytes 4 for UINT4 [9] (5 bytes -> 8) is refused; 8 is accepted."""
    desc = tensor(U4, [9])
    desc.Desc.TotalTensorSizeInBytes = 4
    op = blocked("DEQUANTIZE", desc, [tensor(F32, [1])], tensor(F32, [9]))
    assert "TotalTensorSizeInBytes 4 is less than DMLCalcBufferTensorSize 8" in refused(ref_device, op)
    desc.Desc.TotalTensorSizeInBytes = 8
    ref_device.CreateOperator(op)


@pytest.mark.parametrize(("name", "fields"), [
    ("ELEMENT_WISE_ADD", lambda t: {"ATensor": t, "BTensor": t, "OutputTensor": t}),
    ("ELEMENT_WISE_IDENTITY", lambda t: {"InputTensor": t, "OutputTensor": t}),
    ("CAST", lambda t: {"InputTensor": tensor(F32, [2, 4]), "OutputTensor": t}),
    ("ACTIVATION_RELU", lambda t: {"InputTensor": t, "OutputTensor": t}),
    ("GEMM", lambda t: {"ATensor": t, "BTensor": tensor(U4, [4, 2]), "OutputTensor": tensor(U4, [2, 2]),
                        "TransA": 0, "TransB": 0, "Alpha": 1.0, "Beta": 0.0}),
    ("ELEMENT_WISE_DEQUANTIZE_LINEAR", lambda t: {"InputTensor": t, "ScaleTensor": tensor(F32, [2, 4]),
                                                  "ZeroPointTensor": t, "OutputTensor": tensor(F32, [2, 4])}),
    ("SLICE", lambda t: {"InputTensor": t, "OutputTensor": t, "DimensionCount": 2, "Offsets": [0, 0],
                         "Sizes": [2, 4], "Strides": [1, 1]}),
])
@pytest.mark.parametrize("data_type", [I4, U4], ids=["int4", "uint4"])
def test_other_operators_refuse_4_bit_tensors(ref_device, name, fields, data_type):
    """Feature level 6_3 gave INT4/UINT4 to QUANTIZE and DEQUANTIZE only: other operators answer with their usual
    refusal of a data type not in their page's table (E_INVALIDARG naming the field)."""
    t = tensor(data_type, [2, 4])
    message = refused(ref_device, operator(name, **fields(t)))
    assert f"DataType {NAMES[data_type]}" in message and "not supported" in message, message


def test_a_model_files_resource_of_4_bit_values_is_refused(tmp_path):
    """A DxDispatch-style resource with initialValuesDataType INT4 is refused at its location (values are sized in
    whole bytes there: 4-bit tensors are bound to UINT8 resources holding their bytes, as in
    descriptors/quantize_int4.yaml)."""
    from dmlsim.model import ModelError, load_model

    path = tmp_path / "m.yaml"
    path.write_text("resources:\n  q: {initialValuesDataType: INT4, initialValues: [1, 2]}\ndispatchables: {}\n"
                    "commands: []\n")
    with pytest.raises(ModelError, match=r"m.yaml:2:\d+: resources.q.initialValuesDataType: INT4: 4-bit values are "
                                         "two per byte"):
        load_model(path)


# --- the ONNX lowering -------------------------------------------------------------------------------------------
def test_onnx_lowering_of_the_4_bit_node_cases(ref_device):
    """onnx's four 4-bit cases through dmlsim's ONNX backend (dmlsim/onnx/ops_quant.py: per tensor and per axis onto
    QUANTIZE/DEQUANTIZE), judged by onnx's own runner against onnx's expected outputs (dtype int4/uint4 included)."""
    from dmlsim.onnx.node_suite import run_case

    cases = [c for op in ("QuantizeLinear", "DequantizeLinear") for c in node_cases(op)
             if c.name.endswith(("_int4", "_uint4"))]
    outcomes = [run_case(c, ref_device) for c in cases]
    assert len(outcomes) == 4 and all(o.status == "pass" for o in outcomes), outcomes


def test_onnx_int4_initializer_through_quantize_and_dequantize(device):
    """A model whose int4 zero point is an initializer (a weight, packed two per byte) and whose QuantizeLinear feeds
    DequantizeLinear (a 4-bit intermediate tensor of the graph), per axis 1 of x [2, 3] with scales [1, 2, 4] and
    zero points [1, -2, 7]: q = clamp(round(x / s) + z, -8, 7) and y = (q - z) * s, both compared with onnx.reference
    and q with literals: x = [[2.5, 7, -40], [-100, 3, 12]] -> x / s = [[2.5 -> 2, 3.5 -> 4, -10],
    [-100, 1.5 -> 2, 3]] + z = [[3, 2, -3], [-99 -> -8, 0, 10 -> 7]]."""
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    import dmlsim.backend as backend

    zero = helper.make_tensor("z", TensorProto.INT4, [3], [1, -2, 7])
    scale = helper.make_tensor("s", TensorProto.FLOAT, [3], [1, 2, 4])
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=1),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], axis=1)]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("q", TensorProto.INT4, [2, 3]),
                               helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], [zero, scale])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    x = np.array([[2.5, 7, -40], [-100, 3, 12]], np.float32)
    q, y = backend.prepare(model, device).run([x])
    q_expected, y_expected = ReferenceEvaluator(model).run(None, {"x": x})
    assert q.dtype == q_expected.dtype and q.astype(np.int8).tolist() == [[3, 2, -3], [-8, 0, 7]]
    np.testing.assert_array_equal(q.astype(np.int8), q_expected.astype(np.int8))
    np.testing.assert_array_equal(y, y_expected)


def test_exporting_an_onnx_graph_with_4_bit_tensors_is_refused(ref_device):
    """dmlsim's DxDispatch export of a lowered ONNX graph writes whole-byte resources: a graph holding an int4 tensor
    is refused with E_NOTIMPL naming the tensor, not written wrong."""
    import ml_dtypes
    from onnx import TensorProto, helper

    from dmlsim.onnx.export import export_document
    from dmlsim.onnx.run_model import lower

    node = helper.make_node("DequantizeLinear", ["x", "s"], ["y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.INT4, [4]),
                                            helper.make_tensor_value_info("s", TensorProto.FLOAT, [])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    feeds = {"x": np.array([1, -2, 3, -8], ml_dtypes.int4), "s": np.float32(0.5)}
    lowered = lower(model, feeds, ref_device)
    with pytest.raises(dml.DMLError, match="exporting 'x': a DML_TENSOR_DATA_TYPE_INT4 tensor") as info:
        export_document(lowered, feeds, "m")
    assert info.value.hresult == dml.E_NOTIMPL
