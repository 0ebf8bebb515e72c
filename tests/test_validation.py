"""CreateOperator refusals: one test per rule of design.md §2 (tensor descs) and §3 (Adam).

Each refusal must carry the right HRESULT and a message naming ``STRUCT.Field`` (and, where there
are two sides, both values), so a user can fix the desc from the message alone. Validation does
not depend on the backend, so these run on the reference device only (``ref_device``); the test
that a refusal leaves a device usable runs on every adapter.
"""

from __future__ import annotations

import numpy as np
import pytest
from adam_support import (
    FLOAT16,
    FLOAT32,
    NP,
    OX,
    STRUCT,
    UINT32,
    AdamDispatch,
    G,
    T,
    X,
    adam_desc,
    adam_struct,
    assert_matches_reference,
    random_state,
    tensor_desc,
)
from unimplemented_support import an_unimplemented_schema, sample_desc

import dmlsim as dml

GRAD = f"{STRUCT}.{G}"


def refused(device, op_desc, hresult=dml.E_INVALIDARG):
    with pytest.raises(dml.DMLError) as info:
        device.CreateOperator(op_desc)
    assert info.value.hresult == hresult, str(info.value)
    return info.value


def assert_names(error, *parts):
    message = str(error)
    for part in parts:
        assert part in message, f"{part!r} not in message:\n{message}"


def grad_desc(**fields):
    """A GradientTensor buffer desc: valid FLOAT32 [1,1,2,3] unless ``fields`` says otherwise."""
    base = dict(DataType=FLOAT32, Flags=0, DimensionCount=4, Sizes=[1, 1, 2, 3], Strides=None,
                TotalTensorSizeInBytes=24, GuaranteedBaseOffsetAlignment=0)
    base.update(fields)
    return dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER, dml.DML_BUFFER_TENSOR_DESC(**base))


def with_grad(tensor, field=G):
    return adam_desc(FLOAT32, (1, 1, 2, 3), **{field: tensor})


# --- tensor desc rules (design.md §2) --------------------------------------------------------------

def test_tensor_type_must_be_buffer(ref_device):
    tensor = grad_desc()
    tensor.Type = dml.DML_TENSOR_TYPE_INVALID
    assert_names(refused(ref_device, with_grad(tensor)), f"{GRAD}.Type", "DML_TENSOR_TYPE_BUFFER")


def test_data_type_not_a_data_type(ref_device):
    assert_names(refused(ref_device, with_grad(grad_desc(DataType=99))), f"{GRAD}.DataType", "99")


@pytest.mark.parametrize("data_type", [dml.DML_TENSOR_DATA_TYPE_INT32, dml.DML_TENSOR_DATA_TYPE_FLOAT64,
                                       dml.DML_TENSOR_DATA_TYPE_UINT32])
def test_data_type_outside_the_allowed_set(ref_device, data_type):
    error = refused(ref_device, with_grad(grad_desc(DataType=data_type, TotalTensorSizeInBytes=48)))
    assert_names(error, f"{GRAD}.DataType", "FLOAT32, FLOAT16",
                 dml.DML_TENSOR_DATA_TYPE(data_type).name.removeprefix("DML_TENSOR_DATA_TYPE_"))


def test_dimension_count_differs_from_sizes(ref_device):
    assert_names(refused(ref_device, with_grad(grad_desc(DimensionCount=3))), f"{GRAD}.DimensionCount", "3", "4")


def test_dimension_count_not_4(ref_device):
    error = refused(ref_device, with_grad(grad_desc(DimensionCount=3, Sizes=[1, 2, 3])))
    assert_names(error, f"{GRAD}.DimensionCount must be 4", "got 3")


def test_size_zero(ref_device):
    assert_names(refused(ref_device, with_grad(grad_desc(Sizes=[1, 0, 2, 3]))), f"{GRAD}.Sizes", "[1, 0, 2, 3]")


def test_more_than_uint32_max_elements(ref_device):
    error = refused(ref_device, with_grad(grad_desc(Sizes=[1, 1, 65536, 65536], TotalTensorSizeInBytes=2**34)))
    assert_names(error, f"{GRAD}.Sizes", str(2**32), "2^32-1")


def test_strides_length_differs_from_dimension_count(ref_device):
    assert_names(refused(ref_device, with_grad(grad_desc(Strides=[3, 1]))), f"{GRAD}.Strides", "[3, 1]", "(4)")


def test_total_size_too_small(ref_device):
    error = refused(ref_device, with_grad(grad_desc(TotalTensorSizeInBytes=20)))
    assert_names(error, f"{GRAD}.TotalTensorSizeInBytes 20", "DMLCalcBufferTensorSize 24")


def test_total_size_too_small_for_strides(ref_device):
    # padded rows [0,0,4,1]: (1·4 + 2·1 + 1)·4 = 28 bytes needed
    error = refused(ref_device, with_grad(grad_desc(Strides=[0, 0, 4, 1], TotalTensorSizeInBytes=24)))
    assert_names(error, f"{GRAD}.TotalTensorSizeInBytes 24", "DMLCalcBufferTensorSize 28")


def test_total_size_not_multiple_of_4(ref_device):
    error = refused(ref_device, with_grad(grad_desc(TotalTensorSizeInBytes=26)))
    assert_names(error, f"{GRAD}.TotalTensorSizeInBytes 26", "multiple of 4")


@pytest.mark.parametrize("alignment", [3, 24, 48])
def test_alignment_not_a_power_of_two(ref_device, alignment):
    error = refused(ref_device, with_grad(grad_desc(GuaranteedBaseOffsetAlignment=alignment)))
    assert_names(error, f"{GRAD}.GuaranteedBaseOffsetAlignment", "power of two", f"got {alignment}")


def test_alignment_smaller_than_the_element_size(ref_device):
    error = refused(ref_device, with_grad(grad_desc(GuaranteedBaseOffsetAlignment=2)))
    assert_names(error, f"{GRAD}.GuaranteedBaseOffsetAlignment", "element size (4)", "got 2")


def test_owned_by_dml_on_an_output(ref_device):
    tensor = tensor_desc(FLOAT32, [1, 1, 2, 3], flags=dml.DML_TENSOR_FLAG_OWNED_BY_DML)
    error = refused(ref_device, with_grad(tensor, OX))
    assert_names(error, f"{STRUCT}.{OX}.Flags", "DML_TENSOR_FLAG_OWNED_BY_DML", "output")


def test_unknown_flag_bits(ref_device):
    assert_names(refused(ref_device, with_grad(grad_desc(Flags=6))), f"{GRAD}.Flags 6", "DML_TENSOR_FLAGS")


# --- Adam rules (design.md §3) ---------------------------------------------------------------------

def test_data_type_mismatch_between_tensors(ref_device):
    error = refused(ref_device, with_grad(tensor_desc(FLOAT16, [1, 1, 2, 3])))
    assert_names(error, f"{GRAD}.DataType FLOAT16", f"{X}.DataType FLOAT32")


def test_dimension_count_mismatch_between_tensors(ref_device):
    # every non-step tensor must be 4-D, so a 3-D GradientTensor is refused by its own rule
    error = refused(ref_device, with_grad(tensor_desc(FLOAT32, [1, 2, 3])))
    assert_names(error, f"{GRAD}.DimensionCount must be 4, got 3")


def test_sizes_mismatch_between_tensors(ref_device):
    error = refused(ref_device, with_grad(tensor_desc(FLOAT32, [1, 1, 2, 4])))
    assert_names(error, f"{GRAD}.Sizes [1, 1, 2, 4]", f"{X}.Sizes [1, 1, 2, 3]")


@pytest.mark.parametrize("output", ["OutputParametersTensor", "OutputFirstMomentTensor", "OutputSecondMomentTensor"])
def test_output_sizes_mismatch(ref_device, output):
    error = refused(ref_device, with_grad(tensor_desc(FLOAT32, [1, 2, 1, 3]), output))
    assert_names(error, f"{STRUCT}.{output}.Sizes [1, 2, 1, 3]", f"{X}.Sizes [1, 1, 2, 3]")


@pytest.mark.parametrize("data_type", [FLOAT32, FLOAT16, dml.DML_TENSOR_DATA_TYPE_INT32])
def test_step_tensor_not_uint32(ref_device, data_type):
    error = refused(ref_device, with_grad(tensor_desc(data_type, [1, 1, 1, 1]), T))
    assert_names(error, f"{STRUCT}.{T}.DataType", "UINT32",
                 dml.DML_TENSOR_DATA_TYPE(data_type).name.removeprefix("DML_TENSOR_DATA_TYPE_"))


def test_step_tensor_not_scalar(ref_device):
    error = refused(ref_device, with_grad(tensor_desc(UINT32, [1, 1, 1, 2]), T))
    assert_names(error, f"{STRUCT}.{T}.Sizes [1, 1, 1, 2]", "must all be 1")


@pytest.mark.parametrize("field", ["InputParametersTensor", "GradientTensor", "TrainingStepTensor",
                                   "OutputSecondMomentTensor"])
def test_null_required_tensor(ref_device, field):
    assert_names(refused(ref_device, with_grad(None, field)), f"{STRUCT}.{field} must not be null")


@pytest.mark.parametrize("field", ["LearningRate", "Beta1", "Beta2", "Epsilon"])
def test_missing_attribute(ref_device, field):
    assert_names(refused(ref_device, with_grad(None, field)), f"{STRUCT}.{field} must be given", "FLOAT")


def test_attribute_of_the_wrong_type(ref_device):
    assert_names(refused(ref_device, with_grad("0.9", "Beta1")), f"{STRUCT}.Beta1", "'0.9'")


def test_unknown_operator_type(ref_device):
    error = refused(ref_device, dml.DML_OPERATOR_DESC(0x7FFF, adam_struct()))
    assert_names(error, "DML_OPERATOR_DESC.Type", str(0x7FFF), "DML_OPERATOR_ADAM_OPTIMIZER")


def test_invalid_operator_type(ref_device):
    error = refused(ref_device, dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_INVALID, adam_struct()))
    assert_names(error, "DML_OPERATOR_DESC.Type", "DML_OPERATOR_INVALID")


def test_unimplemented_header_operator(ref_device):
    """An operator without a kernel: its own desc is checked first (a wrong struct is E_INVALIDARG), and a
    valid one is refused with E_NOTIMPL naming the operator."""
    schema = an_unimplemented_schema()  # the first one, whichever that is when the test runs
    missing = dml.DML_OPERATOR_TYPE(schema.type)
    error = refused(ref_device, dml.DML_OPERATOR_DESC(missing, adam_struct()))
    assert_names(error, "DML_OPERATOR_DESC.Desc", missing.name, "ADAM")
    error = refused(ref_device, dml.DML_OPERATOR_DESC(missing, sample_desc(schema)), dml.E_NOTIMPL)
    assert_names(error, "DML_OPERATOR_DESC.Type", missing.name, "not implemented", "checked and is valid")


def test_desc_of_the_wrong_struct_type(ref_device):
    error = refused(ref_device, dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ADAM_OPTIMIZER, grad_desc().Desc))
    assert_names(error, "DML_OPERATOR_DESC.Desc", STRUCT, "DML_BUFFER_TENSOR_DESC")


def test_not_an_operator_desc(ref_device):
    assert_names(refused(ref_device, adam_struct()), "DML_OPERATOR_DESC", STRUCT)


# --- reporting ------------------------------------------------------------------------------------

def test_every_violation_is_reported_at_once(ref_device):
    op_desc = adam_desc(FLOAT32, (1, 1, 2, 3), **{
        G: grad_desc(Sizes=[1, 0, 2, 3]),
        OX: tensor_desc(FLOAT32, [1, 1, 2, 3], flags=dml.DML_TENSOR_FLAG_OWNED_BY_DML),
        T: tensor_desc(FLOAT32, [1, 1, 1, 1]),
        "Beta1": None,
    })
    error = refused(ref_device, op_desc)
    assert len(error.problems) == 4, error.problems
    for part, problem in zip((f"{GRAD}.Sizes", f"{STRUCT}.{T}.DataType", f"{STRUCT}.{OX}.Flags",
                              f"{STRUCT}.Beta1"), error.problems, strict=True):  # struct field order
        assert part in problem
    assert "4 problems" in str(error)


def test_cross_tensor_mismatches_are_all_reported(ref_device):
    op_desc = adam_desc(FLOAT32, (1, 1, 2, 3), **{
        G: tensor_desc(FLOAT32, [1, 1, 3, 2]),
        "OutputFirstMomentTensor": tensor_desc(FLOAT16, [1, 1, 2, 3]),
        T: tensor_desc(UINT32, [1, 1, 2, 1]),
    })
    error = refused(ref_device, op_desc)
    assert len(error.problems) == 3, error.problems


def test_a_refused_call_leaves_the_device_usable(device):
    refused(device, with_grad(grad_desc(Sizes=[1, 0, 2, 3])))
    with pytest.raises(dml.DMLError):
        device.CompileOperator(None)
    sizes = (1, 1, 2, 3)
    dispatch = AdamDispatch(device, adam_desc(FLOAT32, sizes))
    seen, got = dispatch.step(random_state(np.random.default_rng(0), sizes, NP[FLOAT32]), 1)
    assert_matches_reference(got, seen, 1, FLOAT32, 8)


def test_output_whose_strides_alias_its_own_elements_is_refused(ref_device):
    """Decision: an output with stride 0 (or overlapping strides) would write one place twice, and the
    value left there would depend on write order; it is refused like any other bad desc."""
    good = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_FLOAT32, [1, 1, 2, 4])
    aliased = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_FLOAT32, [1, 1, 2, 4], [0, 0, 0, 1])
    step = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_UINT32, [1, 1, 1, 1])
    desc = dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC(good, good, good, good, step, aliased, good, good,
                                                0.1, 0.9, 0.999, 1e-8)
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateOperator(dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ADAM_OPTIMIZER, desc))
    assert info.value.hresult == dml.E_INVALIDARG
    assert "DML_ADAM_OPTIMIZER_OPERATOR_DESC.OutputParametersTensor.Strides [0, 0, 0, 1]" in str(info.value)
    # the same strides on an input are broadcasting, which is allowed
    desc = dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC(good, good, good, aliased, step, good, good, good,
                                                0.1, 0.9, 0.999, 1e-8)
    ref_device.CreateOperator(dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ADAM_OPTIMIZER, desc))
