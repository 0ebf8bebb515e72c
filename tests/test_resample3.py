"""DML_OPERATOR_RESAMPLE3 (dmlsim/operators/resample): RESAMPLE2 plus Antialiased, on every adapter.

Expected values are literals worked out by hand, onnx's own Resize ``antialias=1`` node cases (mapped as
onnxruntime's DirectML provider maps them: half_pixel as input offset 0.5 and output offset -0.5, ``antialias`` as
Antialiased), or the page's description written out here as float64 loops (never dmlsim's reference): per axis,
output ``o`` sits at ``x = (o - OutputPixelOffset) / Scale - InputPixelOffset``; Antialiased LINEAR on an axis of
Scale ``s < 1`` reads every integer ``j`` with ``|j - x| * s < 1`` with weight ``1 - |j - x| * s`` normalized to sum
1, ``j`` clamped to the edges (the filter stretched by ``max(1, 1 / s)``); otherwise RESAMPLE2 (linear with ``x``
clamped to ``[0, size - 1]``, nearest by ``ceil``/``floor``).

Tolerance, in ulps of the magnitude bound (the weighted sum of |input|, finite values only): a float32 sum of T
products of up to four float32 weights and an input (T = the product of the axes' tap counts): 10 + T ulps
FLOAT32, one FLOAT16 ulp after the single rounding to half, INT8/UINT8 exactly (scales 0.5 and 0.25 at pixel
centers make every normalized weight a multiple of 1/32, so the float32 sums are exact).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from dispatch import Dispatch
from onnx_node_cases import case_ids, node_cases
from resample_support import DOWN, F16, F32, I8, LINEAR, NEAREST, NUMPY, U8, UP, resample3, run, tensor

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps


def axis_matrix(out_size, in_size, scale, input_offset, output_offset, linear, rounding, antialiased):
    """One axis of the page's description as an out_size x in_size matrix (float64, from float32 fields)."""
    matrix = np.zeros((out_size, in_size))
    s, i_off, o_off = (float(np.float32(v)) for v in (scale, input_offset, output_offset))
    for o in range(out_size):
        x = (o - o_off) / s - i_off
        if linear and antialiased and s < 1.0:
            for j in range(math.floor(x - 1.0 / s), math.ceil(x + 1.0 / s) + 1):
                matrix[o, min(max(j, 0), in_size - 1)] += max(0.0, 1.0 - abs(j - x) * s)
            matrix[o] /= matrix[o].sum()
        elif linear:
            c = min(max(x, 0.0), in_size - 1.0)
            low = math.floor(c)
            matrix[o, low] += 1.0 - (c - low)
            if c > low:
                matrix[o, low + 1] += c - low
        else:
            i = math.ceil(x) if rounding == UP else math.floor(x)
            matrix[o, min(max(i, 0), in_size - 1)] = 1.0
    return matrix


def describe(x, out_shape, scales, input_offsets, output_offsets, linear, rounding, antialiased):
    """(expected, magnitude bound, taps per output): the axes' matrices applied one at a time, a zero weight never
    reading its element (an inf or NaN outside an output's support does not reach it)."""
    expected = np.asarray(x, np.float64)
    bound = np.where(np.isfinite(expected), np.abs(expected), 0.0)
    taps = 1
    for axis, out_size in enumerate(out_shape):
        matrix = axis_matrix(out_size, expected.shape[axis], scales[axis], input_offsets[axis],
                             output_offsets[axis], linear, rounding, antialiased)
        taps *= int(np.max(np.count_nonzero(matrix, axis=1)))
        moved, moved_bound = np.moveaxis(expected, axis, 0), np.moveaxis(bound, axis, 0)
        rows, row_bounds = [], []
        for o in range(out_size):
            used = np.nonzero(matrix[o])[0]
            with np.errstate(invalid="ignore"):  # inf - inf is NaN, as on the device
                rows.append(np.tensordot(matrix[o, used], moved[used], axes=1))
            row_bounds.append(np.tensordot(matrix[o, used], moved_bound[used], axes=1))
        expected, bound = np.moveaxis(np.stack(rows), 0, axis), np.moveaxis(np.stack(row_bounds), 0, axis)
    return expected, bound, taps


def check(got, expected, bound, taps, data_type):
    if data_type in (I8, U8):
        np.testing.assert_array_equal(got, expected)
        return
    report = compare_ulps(got, expected, NUMPY[data_type], 1 if data_type == F16 else 10 + taps, bound)
    assert report.ok, report.describe("OutputTensor")


# --- literal values ---------------------------------------------------------------------------------------
def test_antialiased_by_hand(device):
    """[1, 2, 3, 4] halved at pixel centers: x = 0.5, 2.5; the filter stretched by 2 reads j = -1..2 and 1..4 with
    weights 1/8, 3/8, 3/8, 1/8 (j = -1 reads index 0, j = 4 index 3): 1.625 and 3.375. Without Antialiased (or
    nearest neighbor, which ignores it) it is RESAMPLE2: 1.5 and 3.5; floor(0.5), floor(2.5) = 1 and 3."""
    x = np.array([1, 2, 3, 4], np.float32)
    desc = resample3(tensor(F32, [4]), tensor(F32, [2]), LINEAR, DOWN, [0.5], [0.5], [-0.5], True)
    np.testing.assert_array_equal(run(device, desc, x), [1.625, 3.375])
    desc = resample3(tensor(F32, [4]), tensor(F32, [2]), LINEAR, DOWN, [0.5], [0.5], [-0.5], False)
    np.testing.assert_array_equal(run(device, desc, x), [1.5, 3.5])
    desc = resample3(tensor(F32, [4]), tensor(F32, [2]), NEAREST, DOWN, [0.5], [0.5], [-0.5], True)
    np.testing.assert_array_equal(run(device, desc, x), [1, 3])


def test_upsampling_axis_keeps_linear_taps(device):
    """An axis with Scale >= 1 is not stretched: [0, 8] doubled at pixel centers is 0, 2, 6, 8 with Antialiased
    (x = -0.25 and 1.25 clamped), and an inf beside an output sitting on a sample does not leak in."""
    x = np.array([0, 8], np.float32)
    desc = resample3(tensor(F32, [2]), tensor(F32, [4]), LINEAR, DOWN, [2], [0.5], [-0.5], True)
    np.testing.assert_array_equal(run(device, desc, x), [0, 2, 6, 8])
    x = np.array([5, np.inf, -1], np.float32)  # x = 0, 1, 2 (scale 1, asymmetric): on the samples
    desc = resample3(tensor(F32, [3]), tensor(F32, [3]), LINEAR, DOWN, [1], [0], [0], True)
    np.testing.assert_array_equal(run(device, desc, x), [5, np.inf, -1])


# --- the description, on every data type ----------------------------------------------------------------
CASES = [  # sizes, out sizes, scales, input offsets, output offsets
    ((2, 3, 7, 9), (2, 3, 3, 6), (1.0, 1.0, 0.4, 0.75), (0.5,) * 4, (-0.5,) * 4),
    ((1, 2, 8, 5), (1, 3, 3, 9), (1.0, 1.5, 0.3, 1.8), (0.5, 0.25, 0.0, 0.5), (-0.5, 0.0, 0.25, -0.5)),
    ((11,), (4,), (0.35,), (2.0,), (-1.0,)),  # the support runs past both edges
]


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("case", range(len(CASES)), ids=["4d", "offsets", "1d-edges"])
def test_matches_the_description(device, data_type, case):
    sizes, out_sizes, scales, input_offsets, output_offsets = CASES[case]
    rng = np.random.default_rng(case)
    x = rng.uniform(-4, 4, sizes).astype(NUMPY[data_type])
    flat = x.reshape(-1)
    flat[:4] = [np.nan, np.inf, -0.0, -np.inf][:flat.size]  # a NaN, ±inf and -0 spread through outputs' supports
    desc = resample3(tensor(data_type, sizes), tensor(data_type, out_sizes), LINEAR, UP, scales, input_offsets,
                     output_offsets, True)
    expected, bound, taps = describe(x, out_sizes, scales, input_offsets, output_offsets, True, UP, True)
    check(run(device, desc, x), expected, bound, taps, data_type)


@pytest.mark.parametrize("data_type", [I8, U8], ids=["INT8", "UINT8"])
def test_integer_antialiased_matches_the_description(device, data_type):
    """Scales 0.5 and 0.25 at pixel centers: exact weights, so rounding (ties to even) and saturation are exact."""
    sizes, out_sizes, scales = (2, 8, 9), (2, 4, 3), (1.0, 0.5, 0.25)
    low, high = (-128, 127) if data_type == I8 else (0, 255)
    x = np.random.default_rng(5).integers(low, high + 1, sizes).astype(NUMPY[data_type])
    x.reshape(-1)[:2] = [low, high]
    desc = resample3(tensor(data_type, sizes), tensor(data_type, out_sizes), LINEAR, DOWN, scales, [0.5] * 3,
                     [-0.5] * 3, True)
    expected, bound, taps = describe(x, out_sizes, scales, [0.5] * 3, [-0.5] * 3, True, DOWN, True)
    check(run(device, desc, x), np.clip(np.rint(expected), low, high), bound, taps, data_type)


def test_strides_broadcast_and_binding_offsets(device):
    """An input broadcast along its first axis (stride 0), permuted, into a padded output, both at non-zero
    offsets of one guard-filled buffer: the description's numbers, no byte around the output touched."""
    sizes, out_sizes, scales = (2, 6, 5), (2, 2, 3), [1.0, 0.4, 0.6]
    x_strides, y_strides = [0, 1, 6], [16, 5, 1]
    x = np.random.default_rng(3).uniform(-2, 2, (1, 6, 5)).astype(np.float32)
    full = np.broadcast_to(x, sizes)
    desc = resample3(tensor(F32, sizes, x_strides), tensor(F32, out_sizes, y_strides), LINEAR, DOWN, scales,
                     [0.5] * 3, [-0.5] * 3, True)
    x_bytes = dml.DMLCalcBufferTensorSize(F32, 3, sizes, x_strides)
    y_bytes = dml.DMLCalcBufferTensorSize(F32, 3, out_sizes, y_strides)
    x_at, y_at = 32, 32 + -(-x_bytes // 16) * 16 + 48
    total = y_at + y_bytes + 64
    shared = device.CreateBuffer(total)
    shared.Write(bytes([0x5A]) * total)
    dispatch = Dispatch(device, desc, placement={"InputTensor": (shared, x_at), "OutputTensor": (shared, y_at)})
    dispatch.load({"InputTensor": full})
    dispatch.execute()
    expected, bound, taps = describe(full, out_sizes, scales, [0.5] * 3, [-0.5] * 3, True, DOWN, True)
    check(dispatch.read("OutputTensor"), expected, bound, taps, F32)
    raw = np.frombuffer(shared.Read(y_at, y_bytes), np.uint8).reshape(-1, 4)
    written = np.zeros(len(raw), bool)
    for index in np.ndindex(*out_sizes):
        written[sum(i * s for i, s in zip(index, y_strides, strict=True))] = True
    assert np.all(raw[~written] == 0x5A), "padding between output elements was written"
    assert shared.Read(y_at + y_bytes, total - y_at - y_bytes) == bytes([0x5A]) * (total - y_at - y_bytes)
    assert shared.Read(0, x_at) == bytes([0x5A]) * x_at


def test_tiny_scale_reads_both_edges(device):
    """A Scale so small that the stretched support covers ~1e30 indices past the edges: the weights beyond each
    edge are summed in closed form. At x = 5e29 (half-pixel, scale 1e-30) the support (-5e29, 1.5e30) puts
    weight 1/8 of the total to the left of the input and the rest to the right: 0.125 * 1 + 0.875 * 4."""
    desc = resample3(tensor(F32, [4]), tensor(F32, [1]), LINEAR, DOWN, [1e-30], [0.5], [-0.5], True)
    got = run(device, desc, np.array([1, 2, 3, 4], np.float32))
    np.testing.assert_allclose(got, [0.125 * 1 + 0.875 * 4], rtol=1e-6)


# --- ONNX's Resize antialias node cases -------------------------------------------------------------------
ANTIALIAS_CASES = [case for case in node_cases("Resize") if "antialias" in case.name]
NOT_MAPPED = {"test_resize_downsample_scales_cubic_antialias": "cubic interpolation: DirectML has none",
              "test_resize_downsample_sizes_cubic_antialias": "cubic interpolation: DirectML has none"}
MAPPED = [case for case in ANTIALIAS_CASES if case.name not in NOT_MAPPED]


def test_every_antialias_case_is_run_or_listed():
    assert {case.name for case in ANTIALIAS_CASES} == {case.name for case in MAPPED} | set(NOT_MAPPED)
    assert len(MAPPED) == 2


@pytest.mark.parametrize("case", MAPPED, ids=case_ids(MAPPED))
def test_onnx_antialias_node_cases(device, case):
    """half_pixel linear antialias by scales or sizes, as the provider maps it: the scale (or output / input)
    per axis, offsets 0.5 and -0.5, Antialiased TRUE."""
    inputs = dict(zip([i.name for i in case.model.graph.input], case.data_sets[0][0], strict=True))
    x, expected = inputs["X"], case.data_sets[0][1][0]
    if "scales" in inputs and inputs["scales"].size:
        scales = [float(s) for s in inputs["scales"]]
    else:
        scales = [int(n) / m for n, m in zip(inputs["sizes"], x.shape, strict=True)]
    rank = x.ndim
    desc = resample3(tensor(F32, x.shape), tensor(F32, expected.shape), LINEAR, DOWN, scales, [0.5] * rank,
                     [-0.5] * rank, True)
    report = compare_ulps(run(device, desc, x), expected, np.float32, 40, np.full(expected.shape, np.max(np.abs(x))))
    assert report.ok, report.describe(case.name)


@pytest.mark.parametrize("case", MAPPED, ids=case_ids(MAPPED))
def test_onnx_lowering_of_antialias(device, case):
    """dmlsim's ONNX backend lowers Resize antialias=1 (linear) onto RESAMPLE3 with Antialiased: onnx's cases."""
    from dmlsim import backend

    inputs = [array for array in case.data_sets[0][0]]
    got = backend.prepare(case.model, device).run(inputs)[0]
    expected = case.data_sets[0][1][0]
    report = compare_ulps(got, expected, np.float32, 40, np.full(expected.shape, np.max(np.abs(inputs[0]))))
    assert report.ok, report.describe(case.name)


def test_onnx_nearest_ignores_antialias(ref_device):
    """ONNX's antialias acts on linear (and cubic) only (the operator's page: "antialias ... is only applicable for
    linear and cubic"): a nearest Resize with antialias=1 is plain nearest (RESAMPLE2, as RESAMPLE3's page says
    nearest ignores Antialiased), judged by onnx.reference on the node without antialias (onnx.reference refuses
    antialias with nearest)."""
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    from dmlsim import backend

    node = helper.make_node("Resize", ["X", "", "scales"], ["Y"], mode="nearest", antialias=1)
    graph = helper.make_graph([node], "resize", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 8]),
                                                 helper.make_tensor_value_info("scales", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    x, scales = np.arange(8, dtype=np.float32).reshape(1, 8) * 3, np.array([1, 0.4], np.float32)
    plain = helper.make_node("Resize", ["X", "", "scales"], ["Y"], mode="nearest")
    judge = helper.make_model(helper.make_graph([plain], "resize", graph.input, graph.output),
                              opset_imports=[helper.make_opsetid("", 19)])
    expected = ReferenceEvaluator(judge).run(None, {"X": x, "scales": scales})[0]
    np.testing.assert_array_equal(backend.prepare(model, ref_device).run([x, scales])[0], expected)


# --- refusals ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("desc", "expected"), [
    (resample3(tensor(dml.DML_TENSOR_DATA_TYPE_INT32, [2]), tensor(dml.DML_TENSOR_DATA_TYPE_INT32, [4]), LINEAR,
               DOWN, [2], [0.5], [-0.5], True),
     "InputTensor.DataType INT32 is not supported by DML_OPERATOR_RESAMPLE3 (supported: FLOAT32, FLOAT16, INT8, "
     "UINT8)"),
    (resample3(tensor(F32, [1, 1, 1, 2, 2]), tensor(F32, [1, 1, 1, 1, 1]), LINEAR, DOWN, [1, 1, 1, 0.5, 0.5],
               [0.5] * 5, [-0.5] * 5, True),
     "InputTensor.DimensionCount 5 is not supported by DML_OPERATOR_RESAMPLE3 (supported: 1 to 4)"),
    (resample3(tensor(F32, [2, 2]), tensor(F32, [1, 1]), LINEAR, DOWN, [0.5], [0.5], [-0.5], True),
     "DML_RESAMPLE3_OPERATOR_DESC.DimensionCount 1 must match InputTensor.DimensionCount and "
     "OutputTensor.DimensionCount 2"),
    (resample3(tensor(F32, [4]), tensor(F32, [2]), LINEAR, DOWN, [0], [0.5], [-0.5], True),
     "DML_RESAMPLE3_OPERATOR_DESC.Scales[0] 0.0 must be finite and greater than 0"),
    (resample3(tensor(F32, [4]), tensor(F16, [2]), LINEAR, DOWN, [0.5], [0.5], [-0.5], True),
     "OutputTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (resample3(tensor(F32, [4]), tensor(F32, [2]), LINEAR, DOWN, [0.5], [0.5], [math.inf], True),
     "DML_RESAMPLE3_OPERATOR_DESC.OutputPixelOffsets[0] inf must be finite"),
])
def test_validation(ref_device, desc, expected):
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateOperator(desc)
    assert info.value.hresult == dml.E_INVALIDARG, str(info.value)
    assert expected in str(info.value)
