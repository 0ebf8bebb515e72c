"""API misuse (issue 12, items 5 and 6): every bad argument to a public entry point is a DMLError with the
HRESULT DirectML would use, and nothing writes silently wrong data. One named test per reported case."""

from __future__ import annotations

import numpy as np
import pytest

import dmlsim as dml
from dmlsim import quick
from dmlsim.api.arguments import shown

F32, U32 = dml.DML_TENSOR_DATA_TYPE_FLOAT32, dml.DML_TENSOR_DATA_TYPE_UINT32


def refused(hresult, call, *args, match=None, **kwargs):
    """Call and require a DMLError with ``hresult`` (and a message matching ``match``); return it."""
    with pytest.raises(dml.DMLError, match=match) as info:
        call(*args, **kwargs)
    assert info.value.hresult == hresult, f"{info.value.hresult_name}: {info.value}"
    return info.value


def adam_desc(n=4, **attributes):
    tensor = dml.buffer_tensor(F32, [1, 1, 1, n])
    step = dml.buffer_tensor(U32, [1, 1, 1, 1])
    values = {"LearningRate": 1e-3, "Beta1": 0.9, "Beta2": 0.999, "Epsilon": 1e-8, **attributes}
    desc = dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC(tensor, tensor, tensor, tensor, step, tensor, tensor, tensor,
                                                **values)
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ADAM_OPTIMIZER, desc)


@pytest.fixture
def compiled(ref_device):
    return ref_device.CompileOperator(ref_device.CreateOperator(adam_desc()))


@pytest.fixture
def table(ref_device, compiled):
    return ref_device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(compiled, SizeInDescriptors=8))


# --- DMLCreateDevice -------------------------------------------------------------------------------------
@pytest.mark.parametrize("adapter", [5, [], b"reference", 1.5, ("reference",)], ids=["int", "list", "bytes",
                                                                                    "float", "tuple"])
def test_create_device_refuses_an_adapter_that_is_not_a_string(adapter):
    refused(dml.E_INVALIDARG, dml.DMLCreateDevice, 0, adapter, match="adapter must be None or a str")


@pytest.mark.parametrize("flags", [2, -1, 1.0, True, None, "DEBUG"])
def test_create_device_refuses_unknown_flags(flags):
    refused(dml.E_INVALIDARG, dml.DMLCreateDevice, flags, "reference", match="DML_CREATE_DEVICE_FLAGS")


# --- CreateBuffer ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [10**15, 2**70, 10**400], ids=["1e15", "2^70", "1e400"])
def test_create_buffer_beyond_the_largest_allocation_is_out_of_memory(device, size):
    error = refused(dml.E_OUTOFMEMORY, device.CreateBuffer, size, match="more than the largest buffer")
    assert len(str(error)) < 400  # 10**400 is described, not printed


@pytest.mark.parametrize("size", [0, -4, 4.0, "16", None, True, np.array([16])])
def test_create_buffer_refuses_sizes_that_are_not_positive_integers(ref_device, size):
    refused(dml.E_INVALIDARG, ref_device.CreateBuffer, size, match="size must be a positive integer")


def test_create_buffer_takes_numpy_integers(ref_device):
    assert ref_device.CreateBuffer(np.uint32(8)).size == 8


# --- Buffer.Write / Read / read_array --------------------------------------------------------------------
@pytest.mark.parametrize("data", ["abc", None, 1.5, [256], [1, 2], 5, np.array([object()])],
                         ids=["str", "None", "float", "list-256", "list", "int", "object-array"])
def test_buffer_write_refuses_what_is_not_bytes_like_or_numpy(device, data):
    buffer = device.CreateBuffer(16)
    refused(dml.E_INVALIDARG, buffer.Write, data, match="Buffer.Write: data must be")
    assert buffer.Read() == bytes(16)  # nothing written


def test_buffer_write_of_an_int_is_refused_not_written_as_zero_bytes(device):
    """Issue 12 item 6: Write(5) used to write bytes(5), five zero bytes; T.Write(1) then set the step to 0."""
    step = device.CreateBuffer(4)
    step.Write(np.array([7], np.uint32))
    refused(dml.E_INVALIDARG, step.Write, 1, match=r"use np.array\(\[\.\.\.\], dtype\) for values")
    assert step.read_array(np.uint32).tolist() == [7]


@pytest.mark.parametrize("data", [b"\x01\x02", bytearray(b"\x01\x02"), memoryview(b"\x01\x02"),
                                  np.array([1, 2], np.uint8), np.uint16(0x0201),
                                  np.array([[1, 9], [2, 9]], np.uint8).T[0]],
                         ids=["bytes", "bytearray", "memoryview", "ndarray", "numpy-scalar", "non-contiguous"])
def test_buffer_write_takes_bytes_like_and_numpy_data(device, data):
    buffer = device.CreateBuffer(4)
    buffer.Write(data)
    assert buffer.Read(0, 2) == b"\x01\x02"


@pytest.mark.parametrize("offset", [None, -1, 1.0, "0", 10**400, 13])
def test_buffer_write_refuses_offsets_outside_the_buffer(ref_device, offset):
    refused(dml.E_INVALIDARG, ref_device.CreateBuffer(16).Write, b"1234", offset, match="does not fit")


@pytest.mark.parametrize(("offset", "size"), [(None, None), (1.0, 4), (0, 17), (-1, 4), (0, "4"), (10**400, 1),
                                              (0, -1), (17, None)])
def test_buffer_read_refuses_bad_ranges(ref_device, offset, size):
    refused(dml.E_INVALIDARG, ref_device.CreateBuffer(16).Read, offset, size)


class HostileRepr:
    """Found by the fuzzer: np.dtype(x) formats repr(x) in its error, which may raise anything."""

    def __repr__(self):
        raise RuntimeError("repr refused")


@pytest.mark.parametrize("dtype", ["S0", "V0", object, "foo", None.__class__, "U", HostileRepr(), 5],
                         ids=["S0", "V0", "object", "unknown", "NoneType", "U0", "hostile-repr", "int"])
def test_read_array_refuses_dtypes_with_no_fixed_size(ref_device, dtype):
    refused(dml.E_INVALIDARG, ref_device.CreateBuffer(16).read_array, dtype, match="read_array: dtype")


@pytest.mark.parametrize(("count", "offset"), [(5, 0), (-1, 0), (1.0, 0), (None, 17), (None, -4), (None, 1.0)])
def test_read_array_refuses_counts_and_offsets_beyond_the_buffer(ref_device, count, offset):
    refused(dml.E_INVALIDARG, ref_device.CreateBuffer(16).read_array, np.float32, count, offset)


# --- descs -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", [10**400, -(10**400), 1e39, np.float64(1e300)])
def test_float_attribute_too_large_for_float32_is_invalid(ref_device, value):
    error = refused(dml.E_INVALIDARG, ref_device.CreateOperator, adam_desc(LearningRate=value),
                    match="LearningRate .* does not fit a FLOAT")
    assert len(str(error)) < 400


@pytest.mark.parametrize("value", [float("inf"), float("nan"), 10**400, 1.5, -1, "1", None, np.array([1])],
                         ids=["inf", "nan", "1e400", "fraction", "negative", "str", "None", "array"])
def test_uint_attribute_that_is_no_uint_is_invalid(ref_device, value):
    """A UINT attribute (TOP_K's Axis) given inf, nan, a huge int...: E_INVALIDARG naming the field."""
    tensor = dml.buffer_tensor(F32, [1, 1, 1, 4])
    desc = dml.DML_TOP_K_OPERATOR_DESC(tensor, tensor, dml.buffer_tensor(U32, [1, 1, 1, 4]), Axis=value, K=1)
    refused(dml.E_INVALIDARG, ref_device.check_operator, dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_TOP_K, desc),
            match="DML_TOP_K_OPERATOR_DESC.Axis")


@pytest.mark.parametrize("value", [np.array([1]), np.array([1, 2]), np.array(1), 1.0, True, 99],
                         ids=["array-1", "array-2", "array-0d", "float", "bool", "unknown"])
def test_numpy_array_or_other_non_enum_in_an_enum_field_is_invalid(ref_device, value):
    tensor = dml.buffer_tensor(F32, [1, 1, 1, 4])
    desc = dml.DML_REDUCE_OPERATOR_DESC(value, tensor, tensor, AxisCount=1, Axes=[3])
    refused(dml.E_INVALIDARG, ref_device.check_operator, dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_REDUCE, desc),
            match="Function .* is not a DML_REDUCE_FUNCTION")


@pytest.mark.parametrize("value", [np.array([136]), np.array([136, 1]), 136.0, None, "ADAM"])
def test_operator_type_that_is_not_an_integer_is_invalid(ref_device, value):
    refused(dml.E_INVALIDARG, ref_device.CreateOperator, dml.DML_OPERATOR_DESC(value, adam_desc().Desc),
            match="is not a DML_OPERATOR_TYPE")


@pytest.mark.parametrize("tensor_type", [np.array([1]), np.array([1, 1]), 1.0, None])
def test_tensor_type_that_is_not_an_integer_is_invalid(ref_device, tensor_type):
    desc = adam_desc()
    desc.Desc.GradientTensor = dml.DML_TENSOR_DESC(tensor_type, desc.Desc.GradientTensor.Desc)
    refused(dml.E_INVALIDARG, ref_device.CreateOperator, desc, match=r"GradientTensor.Type must be DML_TENSOR_TYPE")


def test_sizes_with_a_huge_entry_are_invalid_with_a_bounded_message(ref_device):
    """A 15,000-digit size used to fail formatting its message ("Exceeds the limit (4300 digits)")."""
    desc = adam_desc()
    desc.Desc.GradientTensor.Desc.Sizes = [10**15000, 1, 1, 1]
    error = refused(dml.E_INVALIDARG, ref_device.CreateOperator, desc, match="GradientTensor.Sizes")
    assert "<an integer of 49829 bits>" in str(error) and len(str(error)) < 2000  # 7 problems, each bounded


def test_sizes_with_15000_entries_are_invalid_with_a_bounded_message(ref_device):
    desc = adam_desc()
    desc.Desc.GradientTensor.Desc.Sizes = [2**31] * 15000
    desc.Desc.GradientTensor.Desc.DimensionCount = None
    error = refused(dml.E_INVALIDARG, ref_device.CreateOperator, desc, match="GradientTensor")
    assert len(str(error)) < 4000  # 14 problems, each bounded (the sizes alone print as 150,000 digits)


@pytest.mark.parametrize("sizes", [5, None, "1111", np.array([1, 1, 1, 4])])
def test_buffer_tensor_shorthand_defers_bad_sizes_to_create_operator(ref_device, sizes):
    bad = dml.buffer_tensor(F32, sizes)  # no exception while building the desc
    desc = adam_desc()
    desc.Desc.GradientTensor = bad
    refused(dml.E_INVALIDARG, ref_device.CreateOperator, desc, match="GradientTensor.Sizes must be a list")


@pytest.mark.parametrize(("args", "match"), [((99, 4, [1, 1, 1, 1]), "dataType 99"),
                                              ((F32, 4, None), "sizes must be a list"),
                                              ((F32, 4, [1, 1]), "sizes must hold dimensionCount"),
                                              ((F32, -1, [1]), "dimensionCount"),
                                              ((F32, 2, [2, 2], [1]), "strides must hold"),
                                              ((F32, 1, [1.5]), "sizes must hold"),
                                              ((np.array([1]), 1, [1]), "dataType")])
def test_calc_buffer_tensor_size_refuses_bad_arguments(args, match):
    refused(dml.E_INVALIDARG, dml.DMLCalcBufferTensorSize, *args, match=match)


def test_calc_buffer_tensor_size_still_computes():
    assert dml.DMLCalcBufferTensorSize(F32, 4, [1, 1, 2, 3]) == 24
    assert dml.DMLCalcBufferTensorSize(F32, 2, [2, 3], [4, 1]) == 28


# --- CheckFeatureSupport ---------------------------------------------------------------------------------
@pytest.mark.parametrize("query", [dml.DML_FEATURE_QUERY_FEATURE_LEVELS(1, 5),
                                   dml.DML_FEATURE_QUERY_FEATURE_LEVELS(1, [np.array([0x3000, 0x1000])]),
                                   dml.DML_FEATURE_QUERY_FEATURE_LEVELS(np.array([1]), [0x3000]),
                                   dml.DML_FEATURE_QUERY_FEATURE_LEVELS(1, "0x3000")],
                         ids=["levels-int", "levels-array", "count-array", "levels-str"])
def test_check_feature_support_refuses_malformed_level_queries(ref_device, query):
    refused(dml.E_INVALIDARG, ref_device.CheckFeatureSupport, dml.DML_FEATURE_FEATURE_LEVELS, query)


@pytest.mark.parametrize("feature", [np.array([0]), None, 0.0, "DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT"])
def test_check_feature_support_refuses_a_feature_that_is_not_an_integer(ref_device, feature):
    refused(dml.E_INVALIDARG, ref_device.CheckFeatureSupport, feature,
            dml.DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT(F32), match="unknown DML_FEATURE")


# --- operator initializer, binding tables, recording, queues ---------------------------------------------
@pytest.mark.parametrize("operators", [None, 5, "abc"])
def test_create_operator_initializer_refuses_what_is_not_a_list(ref_device, operators):
    refused(dml.E_INVALIDARG, ref_device.CreateOperatorInitializer, operators, match="operators must be a list")


def test_operator_initializer_reset_refuses_what_is_not_a_list(ref_device, compiled):
    initializer = ref_device.CreateOperatorInitializer([compiled])
    refused(dml.E_INVALIDARG, initializer.Reset, None, match="operators must be a list")
    assert initializer.operators == [compiled]


@pytest.mark.parametrize("bindings", [5, "abcdefgh", 1.5, {"a": 1}])
def test_bind_inputs_refuses_what_is_not_a_list(table, bindings):
    refused(dml.E_INVALIDARG, table.BindInputs, bindings, match="bindings must be a list")
    refused(dml.E_INVALIDARG, table.BindOutputs, bindings, match="bindings must be a list")


@pytest.mark.parametrize("binding_type", [np.array([1]), np.array([1, 2]), 1.0, None, 7])
def test_binding_type_that_is_not_a_binding_type_is_named(ref_device, table, binding_type):
    buffer = ref_device.CreateBuffer(16)
    bindings = [dml.DML_BINDING_DESC(binding_type, dml.DML_BUFFER_BINDING(buffer, 0, 16))] * 5
    refused(dml.E_INVALIDARG, table.BindInputs, bindings, match=r"BindInputs\[0\] .*Type .* is not a DML_BINDING_TYPE")


@pytest.mark.parametrize("binding", [dml.DML_BINDING_DESC(np.array([1, 1]), None), 5, "x"])
def test_bind_temporary_resource_refuses_malformed_bindings(table, binding):
    refused(dml.E_INVALIDARG, table.BindTemporaryResource, binding)


@pytest.mark.parametrize(("offset", "size"), [(10**400, 16), (0, 10**400), (np.array([0]), 16), (0, 1.0)])
def test_buffer_binding_offsets_and_sizes_are_checked_with_bounded_messages(ref_device, table, offset, size):
    buffer = ref_device.CreateBuffer(16)
    error = refused(dml.E_INVALIDARG, table.BindInputs, [dml.buffer_binding(buffer, offset, size)] * 5)
    assert len(str(error)) < 2000


@pytest.mark.parametrize("array", [dml.DML_BUFFER_ARRAY_BINDING(1, 5),
                                   dml.DML_BUFFER_ARRAY_BINDING(np.array([1, 1]), []),
                                   dml.DML_BUFFER_ARRAY_BINDING(1.0, [None])],
                         ids=["bindings-int", "count-array", "count-float"])
def test_buffer_array_bindings_with_malformed_fields_are_invalid(ref_device, array):
    tensor = dml.buffer_tensor(F32, [1, 1, 1, 4])
    scalar = dml.buffer_tensor(F32, [1, 1, 1, 1])
    step = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_INT64, [1, 1, 1, 1])
    desc = dml.DMLSIM_ONNX_ADAGRAD_OPERATOR_DESC(None, scalar, step, [tensor], [tensor], [tensor], [tensor], [tensor],
                                                 NormCoefficient=0.0, Epsilon=1e-6, DecayFactor=0.0)
    compiled = ref_device.CompileOperator(ref_device.CreateOperator(
        dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ONNX_ADAGRAD, desc)))
    table = ref_device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(compiled, SizeInDescriptors=16))
    buffer = ref_device.CreateBuffer(64)
    bindings = [dml.buffer_binding(buffer, 0, 16), dml.buffer_binding(buffer, 16, 16),
                *[dml.DML_BINDING_DESC(dml.DML_BINDING_TYPE_BUFFER_ARRAY, array)] * 3]
    refused(dml.E_INVALIDARG, table.BindInputs, bindings, match="InputParametersTensors")


@pytest.mark.parametrize("entries", [5, [5], [(1, 2, 3, 4)]])
def test_buffer_array_binding_shorthand_refuses_malformed_entries(entries):
    refused(dml.E_INVALIDARG, dml.buffer_array_binding, entries)


def test_record_dispatch_refuses_bad_lists_and_tables_and_records_nothing(ref_device, compiled, table):
    recorder = ref_device.CreateCommandRecorder()
    other = dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, "reference")
    closed = ref_device.CreateCommandList()
    closed.Close()
    refused(dml.E_INVALIDARG, recorder.RecordDispatch, closed, compiled, table, match="closed; Reset it first")
    foreign_list = other.CreateCommandList()
    refused(dml.E_INVALIDARG, recorder.RecordDispatch, foreign_list, compiled, table,
            match="commandList must be a command list of this device")
    cmd = ref_device.CreateCommandList()
    foreign = other.CompileOperator(other.CreateOperator(adam_desc()))
    foreign_table = other.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(foreign, SizeInDescriptors=8))
    refused(dml.E_INVALIDARG, recorder.RecordDispatch, cmd, foreign, foreign_table,
            match="bindings must be a binding table of this device")
    second = ref_device.CompileOperator(ref_device.CreateOperator(adam_desc()))
    refused(dml.E_INVALIDARG, recorder.RecordDispatch, cmd, second, table, match="created \\(or Reset\\) for another")
    assert closed.items == [] and foreign_list.items == [] and cmd.items == []


def test_execute_command_lists_refuses_a_command_list_not_in_a_list(ref_device):
    cmd = ref_device.CreateCommandList()
    refused(dml.E_INVALIDARG, ref_device.CreateCommandQueue().ExecuteCommandLists, cmd, match=r"pass \[commandList\]")


@pytest.mark.parametrize("lists", [None, 5, "cmd", [None], [5]], ids=["None", "int", "str", "list-None", "list-int"])
def test_execute_command_lists_refuses_what_is_not_a_list_of_command_lists(ref_device, lists):
    refused(dml.E_INVALIDARG, ref_device.CreateCommandQueue().ExecuteCommandLists, lists)


def test_execute_command_lists_refuses_a_command_list_of_another_device(ref_device):
    other = dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, "reference")
    queue = ref_device.CreateCommandQueue()
    for lists in ([other.CreateCommandList()], (other.CreateCommandList(),),
                  [ref_device.CreateCommandList(), other.CreateCommandList()]):
        refused(dml.E_INVALIDARG, queue.ExecuteCommandLists, lists, match="not a command list of this device")
    queue.ExecuteCommandLists((ref_device.CreateCommandList(),))  # a tuple is a C array too


@pytest.mark.parametrize("flags", [8, -1, 1.0, None, np.array([0])])
def test_compile_operator_refuses_unknown_execution_flags(ref_device, flags):
    op = ref_device.CreateOperator(adam_desc())
    refused(dml.E_INVALIDARG, ref_device.CompileOperator, op, flags, match="DML_EXECUTION_FLAGS")


# --- quick -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("inputs", [None, 5, [("GradientTensor", np.ones(4))]], ids=["None", "int", "pairs"])
def test_quick_refuses_inputs_that_are_not_a_dict(ref_device, inputs):
    refused(dml.E_INVALIDARG, quick.run_operator, ref_device, adam_desc(), inputs, match="inputs must be a dict")


def test_quick_refuses_an_unknown_input_name_with_a_suggestion(ref_device):
    """Issue 12 item 6: a typo (GradientTensors) used to leave a zero gradient silently."""
    refused(dml.E_INVALIDARG, quick.run_operator, ref_device, adam_desc(),
            {"GradientTensors": np.ones(4, np.float32)}, match="did you mean 'GradientTensor'")


def test_quick_refuses_an_output_name_and_names_that_match_nothing(ref_device):
    refused(dml.E_INVALIDARG, quick.run_operator, ref_device, adam_desc(),
            {"OutputParametersTensor": np.ones(4, np.float32)}, match="is an output of")
    error = refused(dml.E_INVALIDARG, quick.prepare_operator, ref_device, adam_desc(), {"zzz": 1})
    assert "did you mean" not in str(error) and "InputParametersTensor" in str(error)
    refused(dml.E_INVALIDARG, quick.run_operator, ref_device, adam_desc(), {5: 1}, match="keys must be input field")


@pytest.mark.parametrize("value", ["abc", [None, 1, 2, 3], {"a": 1}, HostileRepr(), [[1, 2], [3]], b"1234"],
                         ids=["str", "None-in-list", "dict", "hostile-repr", "ragged", "bytes"])
def test_quick_refuses_values_that_are_not_numbers(ref_device, value):
    refused(dml.E_INVALIDARG, quick.run_operator, ref_device, adam_desc(), {"GradientTensor": value},
            match="GradientTensor: .*(cannot be read as float32|takes a numpy array)")


def test_quick_refuses_a_device_that_is_not_a_device():
    refused(dml.E_INVALIDARG, quick.run_operator, None, adam_desc(), {}, match="device must be a device")


# --- messages stay bounded -------------------------------------------------------------------------------
def test_shown_is_bounded_and_never_raises():
    class Hostile:
        def __repr__(self):
            raise RuntimeError("no")

    nested = []
    for _ in range(1000):
        nested = [nested, nested]
    for value in (10**15000, list(range(10**5)), "x" * 10**6, Hostile(), nested, np.zeros(10**6)):
        assert len(shown(value)) < 200
    assert shown(5) == "5" and shown([1, 2]) == "[1, 2]" and shown("ab") == "'ab'"
