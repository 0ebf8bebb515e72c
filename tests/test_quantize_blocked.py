"""DML_OPERATOR_QUANTIZE and DML_OPERATOR_DEQUANTIZE (feature level 6_3), on every adapter.

Expected values are hand-computed literals (round half to even, saturation, blocks worked out in the
comments), element-by-element transcriptions of the formula written here (each quantization element found
by ``i // (I / S)`` per dimension), or onnx's node cases. QUANTIZE's outputs are integers, compared
exactly; DEQUANTIZE's are exact here (small integers times powers of two), compared exactly too.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from datamove_support import F16, F32, I8, I16, U8, operator, refused, run, tensor
from onnx_node_cases import node_attributes, node_cases

import dmlsim as dml

OUT = "OutputTensor"
SCALE, SCALE_ZP = dml.DML_QUANTIZATION_TYPE_SCALE, dml.DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT


def blocked(name, x, tensors, y, kind=None, count=None):
    """DML_OPERATOR_<name> (QUANTIZE or DEQUANTIZE) with ``tensors`` as its QuantizationTensors."""
    kind = (SCALE_ZP if len(tensors) == 2 else SCALE) if kind is None else kind
    return operator(name, InputTensor=x, QuantizationType=kind,
                    QuantizationTensorCount=len(tensors) if count is None else count,
                    QuantizationTensors=tensors, OutputTensor=y)


# --- QUANTIZE ----------------------------------------------------------------------------------------------------
@pytest.mark.formula
def test_quantize_blocks_by_hand(device):
    """x [3, 4], scale and zero point [3, 2]: blocks of 2 along the last dimension, one row each.
    Row 0, scales [1, 0.5], zero points [0, 1]: [0.5, 1.5] / 1 = [0.5, 1.5] -> half to even [0, 2];
    [2.5, -3] / 0.5 = [5, -6] + 1 = [6, -5] -> clamp [6, 0].
    Row 1, scales [2, 4], zero points [2, 3]: [10, 20] / 2 + 2 = [7, 12]; [30, 40] / 4 = [7.5 -> 8, 10] + 3 = [11, 13].
    Row 2, scales [1, 1], zero points [250, 5]: [inf, -inf] + 250 -> [255, 0]; [nan, 3.5 -> 4] + 5 -> [0, 9]."""
    x = np.array([[0.5, 1.5, 2.5, -3], [10, 20, 30, 40], [np.inf, -np.inf, np.nan, 3.5]], np.float32)
    op = blocked("QUANTIZE", tensor(F32, [3, 4]), [tensor(F32, [3, 2]), tensor(U8, [3, 2])], tensor(U8, [3, 4]))
    got = run(device, op, InputTensor=x, QuantizationTensors=[np.array([[1, 0.5], [2, 4], [1, 1]]),
                                                               np.array([[0, 1], [2, 3], [250, 5]])])[OUT]
    assert got.tolist() == [[0, 2, 6, 0], [7, 12, 11, 13], [255, 0, 0, 9]]


@pytest.mark.formula
def test_quantize_float16_without_zero_point(device):
    """FLOAT16 x [6], scale [3]: B = 6 / 3 = 2, blocks {0, 1}, {2, 3}, {4, 5}, scales [0.5, 2, 8], no zero point,
    INT8: [1.25, -1.75] / 0.5 = [2.5, -3.5] -> [2, -4]; [5, 3] / 2 = [2.5, 1.5] -> [2, 2]; [2000, -0.0] / 8 ->
    [250 -> 127, 0]."""
    op = blocked("QUANTIZE", tensor(F16, [6]), [tensor(F16, [3])], tensor(I8, [6]))
    got = run(device, op, InputTensor=[1.25, -1.75, 5, 3, 2000, -0.0], QuantizationTensors=[[0.5, 2, 8]])[OUT]
    assert got.tolist() == [2, -4, 2, 2, 127, 0]


def _expected(x, scale, zero_point, lo, hi):
    """The formula element by element: each quantization element at i // (I / S) per dimension; x / scale in
    float32 (as DirectML divides), round half to even, + zero point, clamp."""
    out = np.zeros(x.shape)
    blocks = [n // s for n, s in zip(x.shape, scale.shape, strict=True)]
    for index in itertools.product(*(range(n) for n in x.shape)):
        q = tuple(i // b for i, b in zip(index, blocks, strict=True))
        quotient = float(np.float32(x[index]) / np.float32(scale[q]))
        out[index] = min(max(round(quotient) + int(zero_point[q]), lo), hi)  # Python's round: half to even
    return out


def test_quantize_strided_5d(device):
    """5-D, a padded input, a scale blocked on three dimensions read through permuted strides, a zero point in its
    own layout, a column-major output; quarter-integer inputs over scales that are powers of two make ties."""
    sizes, q_sizes = [2, 4, 1, 4, 6], [1, 2, 1, 2, 3]
    rng = np.random.default_rng(5)
    x = (rng.integers(-400, 400, sizes) / 4).astype(np.float32)
    scale = np.array([0.5, 1, 2, 4, 0.25, 8] * 2, np.float32).reshape(q_sizes)
    zero = rng.integers(-20, 20, q_sizes).astype(np.int8)
    x_strides = [200, 40, 40, 8, 1]  # padded
    s_strides = [0, 1, 0, 6, 2]  # permuted
    y_strides = [int(np.prod(sizes[:i])) for i in range(5)]
    op = blocked("QUANTIZE", tensor(F32, sizes, x_strides),
                 [tensor(F32, q_sizes, s_strides), tensor(I8, q_sizes, [0, 6, 6, 3, 1])], tensor(I8, sizes, y_strides))
    got = run(device, op, InputTensor=x, QuantizationTensors=[scale, zero])[OUT]
    np.testing.assert_array_equal(got, _expected(x, scale, zero, -128, 127))


# --- DEQUANTIZE --------------------------------------------------------------------------------------------------
@pytest.mark.formula
@pytest.mark.parametrize("y_type", [F32, F16], ids=["float32", "float16"])
def test_dequantize_per_axis_by_hand(device, y_type):
    """INT8 x [2, 4], a scale per column [1, 4] and a zero point per column: (x - z) * s.
    Row 0 [-128, -1, 0, 127] - [-128, 0, 1, 127] = [0, -1, -1, 0] * [1, 0.5, 2, 0.25] = [0, -0.5, -2, 0];
    row 1 [127, 5, -7, -128] - same = [255, 5, -8, -255] * same = [255, 2.5, -16, -63.75]."""
    op = blocked("DEQUANTIZE", tensor(I8, [2, 4]), [tensor(y_type, [1, 4]), tensor(I8, [1, 4])], tensor(y_type, [2, 4]))
    got = run(device, op, InputTensor=[[-128, -1, 0, 127], [127, 5, -7, -128]],
              QuantizationTensors=[[[1, 0.5, 2, 0.25]], [[-128, 0, 1, 127]]])[OUT]
    assert got.tolist() == [[0, -0.5, -2, 0], [255, 2.5, -16, -63.75]]


@pytest.mark.formula
def test_dequantize_float16_store_rounds_ties_to_even(device):
    """UINT8 x * FLOAT16 scale 1.0625 stored as FLOAT16 (spacing 0.125 in [128, 256), 0.25 in [256, 512)):
    129 * 1.0625 = 137.0625, a tie -> the even 137.0; 131 * 1.0625 = 139.1875, a tie -> the even 139.25 (139.125
    is odd); 255 * 1.0625 = 270.9375 -> 271 (nearest); 0 -> 0."""
    op = blocked("DEQUANTIZE", tensor(U8, [4]), [tensor(F16, [1])], tensor(F16, [4]))
    got = run(device, op, InputTensor=[129, 131, 255, 0], QuantizationTensors=[[1.0625]])[OUT]
    assert got.tolist() == [137.0, 139.25, 271.0, 0.0]


def test_dequantize_blocked_8d_without_zero_point(device):
    """8-D UINT8, a scale blocked by 3 and 3 on two dimensions, no zero point; the scale
    read with padded strides, the output column-major. Expected: x * scale element by element."""
    sizes, q_sizes = [1, 2, 1, 6, 1, 1, 6, 1], [1, 1, 1, 2, 1, 1, 2, 1]
    x = (np.arange(72) * 37 % 256).astype(np.uint8).reshape(sizes)
    scale = np.array([0.5, 2, 0.125, 8], np.float32).reshape(q_sizes)
    s_strides = [0, 0, 0, 4, 0, 0, 1, 0]
    y_strides = [int(np.prod(sizes[:i])) for i in range(8)]
    op = blocked("DEQUANTIZE", tensor(U8, sizes), [tensor(F32, q_sizes, s_strides)], tensor(F32, sizes, y_strides))
    got = run(device, op, InputTensor=x, QuantizationTensors=[scale])[OUT]
    expected = np.zeros(sizes)
    for index in itertools.product(*(range(n) for n in sizes)):
        expected[index] = int(x[index]) * float(scale[0, 0, 0, index[3] // 3, 0, 0, index[6] // 3, 0])
    np.testing.assert_array_equal(got, expected)


# --- onnx's node cases -------------------------------------------------------------------------------------------
# Blocked cases that do not map: INT16 outputs (DML_OPERATOR_QUANTIZE's table has INT8/UINT8 (and INT4/UINT4)).
UNMAPPED = {"test_quantizelinear_blocked_symmetric": "INT16 output: DML_OPERATOR_QUANTIZE takes INT8/UINT8 only"}


def test_onnx_blocked_node_cases(device):
    """onnx's blocked QuantizeLinear/DequantizeLinear cases (``block_size`` > 0) mapped as dmlsim's ONNX lowering
    maps them (dmlsim/onnx/ops_quant.py): x, the scale and the zero point as they are (the scale has x's rank and
    I / block_size elements along ``axis``); expected values: onnx's. Cases in UNMAPPED are refused by
    CreateOperator for the reason given; every other blocked case must map."""
    types = {np.dtype(np.uint8): U8, np.dtype(np.int8): I8, np.dtype(np.int16): I16, np.dtype(np.float32): F32,
             np.dtype(np.float16): F16}
    cases = [c for op in ("QuantizeLinear", "DequantizeLinear") for c in node_cases(op)
             if node_attributes(c).get("block_size", 0)]
    assert len(cases) >= 3, [c.name for c in cases]
    mapped = 0
    for case in cases:
        inputs, (expected,) = case.data_sets[0]
        if not isinstance(expected, np.ndarray):  # onnx stores some expected outputs as TensorProtos
            from onnx import numpy_helper

            expected = numpy_helper.to_array(expected)
        x, scale, *rest = inputs
        quantizing = case.model.graph.node[0].op_type == "QuantizeLinear"
        arrays = [scale, *rest]
        op = blocked("QUANTIZE" if quantizing else "DEQUANTIZE", tensor(types[x.dtype], x.shape),
                     [tensor(types[a.dtype], a.shape) for a in arrays], tensor(types[expected.dtype], expected.shape))
        if case.name in UNMAPPED:
            assert "DataType INT16 is not supported" in refused(device, op), case.name
            continue
        got = run(device, op, InputTensor=x, QuantizationTensors=arrays)[OUT]
        np.testing.assert_array_equal(got, expected, err_msg=case.name)
        mapped += 1
    assert mapped == len(cases) - len(UNMAPPED)


def test_onnx_lowering_of_blocked_node_cases(ref_device):
    """The same cases through dmlsim's ONNX backend (dmlsim.onnx.node_suite.run_case: lowered by ops_quant.py,
    compared with onnx's expected outputs by onnx's own runner): every one passes, the UNMAPPED (INT16) ones composed
    of element-wise operators instead of DML_OPERATOR_QUANTIZE (dmlsim/onnx/ops_onnxc.py)."""
    from dmlsim.onnx.node_suite import run_case

    cases = [c for op in ("QuantizeLinear", "DequantizeLinear") for c in node_cases(op)
             if node_attributes(c).get("block_size", 0)]
    outcomes = {c.name: run_case(c, ref_device) for c in cases}
    assert set(UNMAPPED) <= set(outcomes)
    for outcome in outcomes.values():
        assert outcome.status == "pass", outcome


def test_onnx_lowering_refuses_a_partial_last_block(ref_device):
    """ONNX's block_size 4 on an axis of 6 (blocks {0-3}, {4, 5}: scale of 2 elements) is refused naming the
    reason: DML_OPERATOR_DEQUANTIZE's blocks (I / S = 3 here) would differ from ONNX's."""
    from onnx import TensorProto, helper

    import dmlsim.backend as backend

    node = helper.make_node("DequantizeLinear", ["x", "s"], ["y"], axis=1, block_size=4)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.INT8, [1, 6]),
                                            helper.make_tensor_value_info("s", TensorProto.FLOAT, [1, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 6])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    with pytest.raises(dml.DMLError, match="block_size 4 does not divide the input's size 6"):
        backend.prepare(model, ref_device).run([np.zeros((1, 6), np.int8), np.ones((1, 2), np.float32)])


# --- rules -------------------------------------------------------------------------------------------------------
def _q(x=F32, s=F32, z=U8, y=U8, sizes=(4, 6), q_sizes=(1, 3), y_sizes=None, z_sizes=None, kind=None, count=None,
       q_rank_extra=0):
    tensors = [tensor(s, [1] * q_rank_extra + list(q_sizes))]
    if z is not None:
        tensors.append(tensor(z, list(z_sizes or q_sizes)))
    return blocked("QUANTIZE", tensor(x, list(sizes)), tensors, tensor(y, list(y_sizes or sizes)), kind, count)


def _dq(x=I8, s=F16, z=I8, y=F16):
    return blocked("DEQUANTIZE", tensor(x, [4]), [tensor(s, [2]), tensor(z, [2])], tensor(y, [4]))


@pytest.mark.parametrize(("make", "message"), [
    (lambda: _q(kind=dml.DML_QUANTIZATION_TYPE_NONE),
     "QuantizationType DML_QUANTIZATION_TYPE_NONE must be DML_QUANTIZATION_TYPE_SCALE or"),
    (lambda: _q(z=None, kind=SCALE_ZP, count=1), "QuantizationTensorCount 1 must be 2 for"),
    (lambda: _q(kind=SCALE), "QuantizationTensorCount 2 must be 1 for DML_QUANTIZATION_TYPE_SCALE"),
    (lambda: _q(x=I8, s=I8), "InputTensor.DataType INT8 is not supported by DML_OPERATOR_QUANTIZE"),
    (lambda: _q(y=I16, z=I16), "OutputTensor.DataType INT16 is not supported by DML_OPERATOR_QUANTIZE"),
    (lambda: _dq(x=U8, z=U8, y=I8, s=I8), "OutputTensor.DataType INT8 is not supported by DML_OPERATOR_DEQUANTIZE"),
    (lambda: _dq(x=I16, z=I16), "InputTensor.DataType INT16 is not supported by DML_OPERATOR_DEQUANTIZE"),
    (lambda: _q(s=F16), "QuantizationTensors[0].DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (lambda: _dq(s=F32), "QuantizationTensors[0].DataType FLOAT32 must equal OutputTensor.DataType FLOAT16"),
    (lambda: _q(z=I8), "QuantizationTensors[1].DataType INT8 must equal OutputTensor.DataType UINT8"),
    (lambda: _dq(z=U8), "QuantizationTensors[1].DataType UINT8 must equal InputTensor.DataType INT8"),
    (lambda: _q(y_sizes=(1, 4, 6)), "OutputTensor.DimensionCount 3 must equal InputTensor.DimensionCount 2"),
    (lambda: _q(y_sizes=(4, 5)), "OutputTensor.Sizes [4, 5] must equal InputTensor.Sizes [4, 6]"),
    (lambda: _q(z=None, q_rank_extra=1), "QuantizationTensors[0].DimensionCount 3 must equal InputTensor"),
    (lambda: _q(q_sizes=(1, 4)), "QuantizationTensors[0].Sizes[1] 4 is no block count of InputTensor.Sizes[1] 6"),
    (lambda: _q(q_sizes=(8, 1)), "QuantizationTensors[0].Sizes[0] 8 is no block count of InputTensor.Sizes[0] 4"),
    (lambda: _q(z_sizes=(1, 6)), "QuantizationTensors[1].Sizes [1, 6] (the zero point) must equal"),
], ids=["type-none", "count-zero-point", "count-scale", "input-type", "output-type", "dq-output-type",
        "dq-input-type", "scale-type", "dq-scale-type", "zero-point-type", "dq-zero-point-type", "output-rank",
        "output-sizes", "quantization-rank", "block-count", "larger-than-input", "zero-point-sizes"])
def test_refusals_name_the_field(ref_device, make, message):
    assert message in refused(ref_device, make())


@pytest.mark.parametrize("q_sizes", [(1, 1), (4, 6), (2, 3), (4, 2), (1, 6)])
def test_accepted_block_counts(ref_device, q_sizes):
    """Sizes that divide the input's [4, 6]: per tensor, per element, blocks of 2 by 2, per row by blocks of 3,
    per column."""
    ref_device.CreateOperator(_q(q_sizes=q_sizes))
