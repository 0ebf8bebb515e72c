"""DML_OPERATOR_ELEMENT_WISE_* (the element-wise family, dmlsim/operators/element_wise), on every adapter.

Expected values are literals or float64 transcriptions written here from the DirectML doc pages
(IDENTITY: f(x) = x; ScaleBias: g(x) = x * scale + bias applied first), never dmlsim's reference.
Tolerances: without ScaleBias, IDENTITY is exact (bit for bit, every data type). With ScaleBias a
FLOAT32 result is rounded twice (product, sum): at most 1 ulp of |x*scale| + |bias|; FLOAT16 is
computed in float32 and rounded once to nearest even on store: at most 1 ulp (FLOAT16) of that bound.
"""

from __future__ import annotations

import numpy as np
import pytest

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps
from dmlsim.quick import run_operator

_T = dml.DML_TENSOR_DATA_TYPE
NUMPY = {_T.DML_TENSOR_DATA_TYPE_FLOAT32: np.float32, _T.DML_TENSOR_DATA_TYPE_FLOAT16: np.float16,
         _T.DML_TENSOR_DATA_TYPE_FLOAT64: np.float64, _T.DML_TENSOR_DATA_TYPE_INT64: np.int64,
         _T.DML_TENSOR_DATA_TYPE_INT32: np.int32, _T.DML_TENSOR_DATA_TYPE_INT16: np.int16,
         _T.DML_TENSOR_DATA_TYPE_INT8: np.int8, _T.DML_TENSOR_DATA_TYPE_UINT64: np.uint64,
         _T.DML_TENSOR_DATA_TYPE_UINT32: np.uint32, _T.DML_TENSOR_DATA_TYPE_UINT16: np.uint16,
         _T.DML_TENSOR_DATA_TYPE_UINT8: np.uint8}
F32, F16, F64 = _T.DML_TENSOR_DATA_TYPE_FLOAT32, _T.DML_TENSOR_DATA_TYPE_FLOAT16, _T.DML_TENSOR_DATA_TYPE_FLOAT64
# Sizes around the packed path's vector widths (4, 8) and the CPU stream chunk (16 items x 64 vectors x 8).
SIZES = [[1], [7], [9], [2, 3, 5], [8193], [1, 2, 1, 2, 1, 3, 1, 5]]


def tensor(data_type, sizes, strides=None):
    return dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER, dml.DML_BUFFER_TENSOR_DESC(
        data_type, dml.DML_TENSOR_FLAG_NONE, len(sizes), list(sizes), None if strides is None else list(strides),
        dml.DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides), 0))


def identity(x_desc, y_desc=None, scale_bias=None):
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ELEMENT_WISE_IDENTITY, dml.DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(
        x_desc, x_desc if y_desc is None else y_desc, scale_bias))


def skip_without_fp64(device, data_type):
    if data_type == F64 and not device.backend.has_fp64:
        pytest.skip(f"{device.adapter.label} has no cl_khr_fp64: FLOAT64 is refused there "
                    "(test_float64_refused_without_fp64)")


def sample(data_type, sizes, seed=0):
    """Values that use the whole range of the type (integers: extremes included; floats: ±, subnormal, 0)."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(NUMPY[data_type])
    count = int(np.prod(sizes))
    if dtype.kind == "f":
        values = rng.standard_normal(count) * 100
        values[:4] = [0.0, -0.0, float(np.finfo(dtype).smallest_subnormal), float(np.finfo(dtype).max)][:count]
        return values.astype(dtype).reshape(sizes)
    info = np.iinfo(dtype)
    values = rng.integers(info.min, info.max, count, dtype=dtype, endpoint=True)
    values[:2] = [info.min, info.max][:count]
    return values.reshape(sizes)


@pytest.mark.parametrize("data_type", list(NUMPY), ids=lambda t: _T(t).name.removeprefix("DML_TENSOR_DATA_TYPE_"))
@pytest.mark.parametrize("sizes", SIZES, ids=lambda s: "x".join(map(str, s)))
def test_identity_copies_every_data_type_bit_for_bit(device, data_type, sizes):
    skip_without_fp64(device, data_type)
    x = sample(data_type, sizes)
    got = run_operator(device, identity(tensor(data_type, sizes)), {"InputTensor": x})["OutputTensor"]
    assert got.dtype == x.dtype and got.shape == x.shape
    assert got.tobytes() == x.tobytes()


def test_identity_transposes_through_strides(device):
    """The doc's remark: IDENTITY transforms layouts through strides. A 2x3 matrix read column-major."""
    x_desc = tensor(F32, [3, 2], strides=[1, 3])  # element (i, j) at i + 3j: the transpose of a packed 2x3
    raw = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    got = run_operator(device, identity(x_desc, tensor(F32, [3, 2])), {"InputTensor": raw.T})["OutputTensor"]
    np.testing.assert_array_equal(got, [[1, 4], [2, 5], [3, 6]])


PADDED, PACKED = [20, 20, 6, 1], None
PADDED_OUT = [1, 1, 2, 6]


@pytest.mark.parametrize("data_type", [F32, F16, _T.DML_TENSOR_DATA_TYPE_INT16],
                         ids=["FLOAT32", "FLOAT16", "INT16"])
@pytest.mark.parametrize("strides", [(PADDED, PADDED_OUT), (PACKED, PADDED_OUT), (PADDED, PACKED)],
                         ids=["padded-both", "packed-in-padded-out", "padded-in-packed-out"])
def test_identity_padded_strides(device, data_type, strides):
    """Padding between rows on either side (the strided kernel path, 8-D strides marshalled): the packed
    fast path is right only when both tensors are packed."""
    sizes = [2, 1, 3, 4]
    x = sample(data_type, sizes, seed=3)
    x_desc, y_desc = tensor(data_type, sizes, strides[0]), tensor(data_type, sizes, strides[1])
    got = run_operator(device, identity(x_desc, y_desc), {"InputTensor": x})["OutputTensor"]
    assert got.tobytes() == x.tobytes()


def _raw_dispatch(device, op_desc, buffer_x, offset_x, buffer_y, offset_y):
    compiled = device.CompileOperator(device.CreateOperator(op_desc), dml.DML_EXECUTION_FLAG_NONE)
    table = device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(
        compiled, None, None, compiled.GetBindingProperties().RequiredDescriptorCount))
    sizes = [desc.Desc.TotalTensorSizeInBytes for desc in (op_desc.Desc.InputTensor, op_desc.Desc.OutputTensor)]
    table.BindInputs([dml.buffer_binding(buffer_x, offset_x, sizes[0])])
    table.BindOutputs([dml.buffer_binding(buffer_y, offset_y, sizes[1])])
    cmd = device.CreateCommandList()
    device.CreateCommandRecorder().RecordDispatch(cmd, compiled, table)
    queue = device.CreateCommandQueue()
    queue.ExecuteCommandLists([cmd])
    queue.WaitForIdle()


def test_broadcast_input_through_stride_zero(device):
    """A [1, 4] row broadcast over 3 rows (input strides [0, 1]), with a scale and bias."""
    row = np.array([1.0, -2.0, 0.5, 8.0], np.float32)
    x_desc = tensor(F32, [3, 4], strides=[0, 1])
    y_desc = tensor(F32, [3, 4])
    source, target = device.CreateBuffer(16), device.CreateBuffer(48)
    source.Write(row.tobytes())
    _raw_dispatch(device, identity(x_desc, y_desc, dml.DML_SCALE_BIAS(3.0, 0.25)), source, 0, target, 0)
    got = np.frombuffer(target.Read(), np.float32).reshape(3, 4)
    np.testing.assert_array_equal(got, np.tile([3.25, -5.75, 1.75, 24.25], (3, 1)))


@pytest.mark.parametrize("count", [5, 4099])
def test_in_place_with_scale_bias(device, count):
    """OutputTensor aliasing InputTensor (the doc: IDENTITY supports in-place execution), at an offset."""
    x = (np.arange(count, dtype=np.float32) - 7) / 4
    desc = tensor(F32, [count])
    size = desc.Desc.TotalTensorSizeInBytes
    buffer = device.CreateBuffer(256 + size)
    buffer.Write(x.tobytes(), 256)
    _raw_dispatch(device, identity(desc, desc, dml.DML_SCALE_BIAS(-2.0, 1.0)), buffer, 256, buffer, 256)
    got = np.frombuffer(buffer.Read(256, 4 * count), np.float32)
    np.testing.assert_array_equal(got, x * -2.0 + 1.0)  # exact: quarters times -2 plus 1
    assert buffer.Read(0, 256) == bytes(256)


@pytest.mark.parametrize("data_type", [F32, F16, F64], ids=["FLOAT32", "FLOAT16", "FLOAT64"])
@pytest.mark.parametrize("sizes", [[9], [3, 7, 11], [8193]], ids=lambda s: "x".join(map(str, s)))
def test_scale_bias_matches_the_documented_formula(device, data_type, sizes):
    skip_without_fp64(device, data_type)
    rng = np.random.default_rng(11)
    x = (rng.standard_normal(sizes) * 10).astype(NUMPY[data_type])
    scale, bias = np.float32(1.7), np.float32(-0.3)
    got = run_operator(device, identity(tensor(data_type, sizes), scale_bias=dml.DML_SCALE_BIAS(scale, bias)),
                       {"InputTensor": x})["OutputTensor"]
    x64 = x.astype(np.float64)
    expected = x64 * np.float64(scale) + np.float64(bias)  # g(x) = x * scale + bias, then f(x) = x
    bound = np.abs(x64 * np.float64(scale)) + abs(np.float64(bias))
    report = compare_ulps(got, expected, NUMPY[data_type], 1, bound)
    assert report.ok, report.describe("OutputTensor")


def test_float16_store_rounds_to_nearest_even(device):
    """x * 1 + 2^-11 lands exactly halfway between two FLOAT16 values: the even one is stored
    (round-toward-zero would store the other one for the second element, away-from-zero for the first)."""
    x = np.array([1.0, 1.0 + 2.0**-10, 2.0, -1.0], np.float16)
    got = run_operator(device, identity(tensor(F16, [4]), scale_bias=dml.DML_SCALE_BIAS(1.0, 2.0**-11)),
                       {"InputTensor": x})["OutputTensor"]
    # 1 + 2^-11 -> 1 (even); 1 + 3*2^-11 -> 1 + 2^-9 (even); 2 + 2^-11 -> 2; -1 + 2^-11 -> -1 + 2^-11 (exact)
    np.testing.assert_array_equal(got, np.array([1.0, 1.0 + 2.0**-9, 2.0, -1.0 + 2.0**-11], np.float16))


def test_validation(ref_device):
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateOperator(identity(tensor(F32, [2, 3]), tensor(F16, [2, 4])))
    assert info.value.hresult == dml.E_INVALIDARG
    message = str(info.value)
    assert "OutputTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32" in message
    assert "OutputTensor.Sizes [2, 4] must equal InputTensor.Sizes [2, 3]" in message
    with pytest.raises(dml.DMLError, match=r"ScaleBias must be null for INT32"):
        ref_device.CreateOperator(identity(tensor(_T.DML_TENSOR_DATA_TYPE_INT32, [4]),
                                           scale_bias=dml.DML_SCALE_BIAS(2.0, 0.0)))
    with pytest.raises(dml.DMLError, match=r"InputTensor.DimensionCount"):
        ref_device.CreateOperator(identity(tensor(F32, [1] * 9)))
    with pytest.raises(dml.DMLError, match=r"ScaleBias.Scale"):
        ref_device.CreateOperator(identity(tensor(F32, [4]), scale_bias=dml.DML_SCALE_BIAS(1e39, 0.0)))


def test_float64_refused_without_fp64(device):
    if device.backend.has_fp64:
        pytest.skip(f"{device.adapter.label} has cl_khr_fp64: FLOAT64 runs there (tested above)")
    with pytest.raises(dml.DMLError) as info:
        device.CompileOperator(device.CreateOperator(identity(tensor(F64, [4]))), 0)
    assert info.value.hresult == dml.DXGI_ERROR_UNSUPPORTED


def test_feature_level_and_registry():
    from dmlsim.operators import implemented_names

    assert "DML_OPERATOR_ELEMENT_WISE_IDENTITY" in implemented_names()


def _run_guarded(device, op_desc, inputs, output_desc, guard=0xAB):
    """``op_desc`` with each input (array, its strides) written through its strides into a buffer of its own and
    the output at byte offset 64 of a buffer filled with ``guard``: the output's elements as an array of its
    sizes, and the bytes outside the output's elements (all must still be the guard)."""
    from dmlsim.api.tensor import packed_strides

    def strides_of(desc):
        return list(desc.Desc.Strides) if desc.Desc.Strides is not None else list(packed_strides(desc.Desc.Sizes))

    compiled = device.CompileOperator(device.CreateOperator(op_desc), dml.DML_EXECUTION_FLAG_NONE)
    table = device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(
        compiled, None, None, compiled.GetBindingProperties().RequiredDescriptorCount))
    bindings = []
    for array, desc in inputs:
        strides = strides_of(desc)
        buffer = device.CreateBuffer(desc.Desc.TotalTensorSizeInBytes)
        image = np.zeros(desc.Desc.TotalTensorSizeInBytes // array.itemsize, array.dtype)
        for index in np.ndindex(*array.shape):
            image[sum(i * s for i, s in zip(index, strides, strict=True))] = array[index]
        buffer.Write(image.tobytes())
        bindings.append(dml.buffer_binding(buffer, 0, desc.Desc.TotalTensorSizeInBytes))
    table.BindInputs(bindings)
    size = output_desc.Desc.TotalTensorSizeInBytes
    target = device.CreateBuffer(64 + size + 64)
    target.Write(bytes([guard]) * (size + 128))
    table.BindOutputs([dml.buffer_binding(target, 64, size)])
    cmd = device.CreateCommandList()
    device.CreateCommandRecorder().RecordDispatch(cmd, compiled, table)
    queue = device.CreateCommandQueue()
    queue.ExecuteCommandLists([cmd])
    queue.WaitForIdle()
    raw = np.frombuffer(target.Read(), np.uint8).copy()
    strides, itemsize = strides_of(output_desc), 4  # a FLOAT32 output
    values = np.frombuffer(raw[64:64 + size].tobytes(), np.float32)
    sizes = list(output_desc.Desc.Sizes)
    got = np.empty(sizes, np.float32)
    touched = np.zeros(len(raw), bool)
    for index in np.ndindex(*sizes):
        element = sum(i * s for i, s in zip(index, strides, strict=True))
        got[index] = values[element]
        touched[64 + element * itemsize: 64 + (element + 1) * itemsize] = True
    return got, raw[~touched]


def test_rows_of_broadcast_and_strided_tensors(device):
    """The CPU's ROWS path (a row of the innermost dimension per work-item, each tensor stepped with its own
    innermost stride), as a transformer's attention mask meets it: IF with a [3, 1, 1, 9] condition broadcast over
    heads and queries, a packed A, a scalar B (every stride 0); 30 rows, so work-items past the last row exist;
    then ADD of a column-major A (innermost stride 4) and a row broadcast B into a padded output (innermost
    stride 1, rows 16 apart). Expected values by numpy; no byte outside the output's elements may change."""
    rng = np.random.default_rng(11)
    sizes = [3, 2, 5, 9]
    condition = (rng.random((3, 1, 1, 9)) < 0.5).astype(np.uint8)
    a = rng.standard_normal(sizes).astype(np.float32)
    b = np.array(-1e4, np.float32)
    cond_desc = tensor(_T.DML_TENSOR_DATA_TYPE_UINT8, sizes, [9, 0, 0, 1])
    a_desc, b_desc, y_desc = tensor(F32, sizes), tensor(F32, sizes, [0, 0, 0, 0]), tensor(F32, sizes)
    op_desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ELEMENT_WISE_IF, dml.DML_ELEMENT_WISE_IF_OPERATOR_DESC(
        cond_desc, a_desc, b_desc, y_desc))
    got, outside = _run_guarded(device, op_desc, [(np.broadcast_to(condition, sizes), cond_desc), (a, a_desc),
                                                  (np.broadcast_to(b, sizes), b_desc)], y_desc)
    np.testing.assert_array_equal(got, np.where(np.broadcast_to(condition, sizes) != 0, a, b))
    assert (outside == 0xAB).all()

    x = rng.standard_normal((4, 10)).astype(np.float32)
    row = rng.standard_normal((1, 10)).astype(np.float32)
    x_desc, row_desc, out_desc = tensor(F32, [4, 10], [1, 4]), tensor(F32, [4, 10], [0, 1]), tensor(F32, [4, 10],
                                                                                                    [16, 1])
    op_desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ELEMENT_WISE_ADD, dml.DML_ELEMENT_WISE_ADD_OPERATOR_DESC(
        x_desc, row_desc, out_desc))
    got, outside = _run_guarded(device, op_desc, [(x, x_desc), (np.broadcast_to(row, (4, 10)), row_desc)], out_desc)
    np.testing.assert_array_equal(got, x + row)
    assert (outside == 0xAB).all()
