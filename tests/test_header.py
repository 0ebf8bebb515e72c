"""The directml.h mirror: enum values, struct field names and order, DMLCalcBufferTensorSize.

Expected values are the header's (design.md §1), written out by hand here; sizes are computed by
hand in the comments, never by the code under test.
"""

from __future__ import annotations

import dataclasses

import pytest

import dmlsim as dml


@pytest.mark.parametrize(("name", "value"), [
    ("DML_TENSOR_DATA_TYPE_UNKNOWN", 0), ("DML_TENSOR_DATA_TYPE_FLOAT32", 1), ("DML_TENSOR_DATA_TYPE_FLOAT16", 2),
    ("DML_TENSOR_DATA_TYPE_UINT32", 3), ("DML_TENSOR_DATA_TYPE_UINT16", 4), ("DML_TENSOR_DATA_TYPE_UINT8", 5),
    ("DML_TENSOR_DATA_TYPE_INT32", 6), ("DML_TENSOR_DATA_TYPE_INT16", 7), ("DML_TENSOR_DATA_TYPE_INT8", 8),
    ("DML_TENSOR_DATA_TYPE_FLOAT64", 9), ("DML_TENSOR_DATA_TYPE_UINT64", 10), ("DML_TENSOR_DATA_TYPE_INT64", 11),
    ("DML_TENSOR_TYPE_INVALID", 0), ("DML_TENSOR_TYPE_BUFFER", 1),
    ("DML_TENSOR_FLAG_NONE", 0), ("DML_TENSOR_FLAG_OWNED_BY_DML", 1),
    ("DML_BINDING_TYPE_NONE", 0), ("DML_BINDING_TYPE_BUFFER", 1), ("DML_BINDING_TYPE_BUFFER_ARRAY", 2),
    ("DML_EXECUTION_FLAG_NONE", 0), ("DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION", 1),
    ("DML_EXECUTION_FLAG_DISABLE_META_COMMANDS", 2), ("DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE", 4),
    ("DML_CREATE_DEVICE_FLAG_NONE", 0), ("DML_CREATE_DEVICE_FLAG_DEBUG", 1),
    ("DML_OPERATOR_INVALID", 0), ("DML_OPERATOR_ELEMENT_WISE_IDENTITY", 1), ("DML_OPERATOR_ADAM_OPTIMIZER", 136),
    ("DML_FEATURE_LEVEL_1_0", 0x1000), ("DML_FEATURE_LEVEL_2_0", 0x2000), ("DML_FEATURE_LEVEL_2_1", 0x2100),
    ("DML_FEATURE_LEVEL_3_0", 0x3000), ("DML_FEATURE_LEVEL_3_1", 0x3100), ("DML_FEATURE_LEVEL_4_0", 0x4000),
    ("DML_FEATURE_LEVEL_4_1", 0x4100), ("DML_FEATURE_LEVEL_5_0", 0x5000),
    ("DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT", 16), ("DML_TEMPORARY_BUFFER_ALIGNMENT", 256),
    ("DML_PERSISTENT_BUFFER_ALIGNMENT", 256),
])
def test_header_constant(name, value):
    assert getattr(dml, name) == value
    assert int(getattr(dml, name)) == value


def test_enum_classes_have_exactly_the_header_members():
    assert {m.name: int(m) for m in dml.DML_TENSOR_DATA_TYPE} == {
        f"DML_TENSOR_DATA_TYPE_{n}": v for v, n in enumerate(
            ["UNKNOWN", "FLOAT32", "FLOAT16", "UINT32", "UINT16", "UINT8", "INT32", "INT16", "INT8",
             "FLOAT64", "UINT64", "INT64", "UINT4", "INT4"])}
    assert {m.name: int(m) for m in dml.DML_BINDING_TYPE} == {
        "DML_BINDING_TYPE_NONE": 0, "DML_BINDING_TYPE_BUFFER": 1, "DML_BINDING_TYPE_BUFFER_ARRAY": 2}
    assert dml.DML_OPERATOR_TYPE.DML_OPERATOR_ADAM_OPTIMIZER == 136
    extensions = [m for m in dml.DML_OPERATOR_TYPE if m.name.startswith("DMLSIM_")]
    assert extensions and all(int(m) >= 0x10000 for m in extensions)
    assert not [m for m in dml.DML_OPERATOR_TYPE if not m.name.startswith(("DML_OPERATOR_", "DMLSIM_OPERATOR_"))]


@pytest.mark.parametrize(("struct", "fields"), [
    (dml.DML_BUFFER_TENSOR_DESC, ["DataType", "Flags", "DimensionCount", "Sizes", "Strides",
                                  "TotalTensorSizeInBytes", "GuaranteedBaseOffsetAlignment"]),
    (dml.DML_TENSOR_DESC, ["Type", "Desc"]),
    (dml.DML_OPERATOR_DESC, ["Type", "Desc"]),
    (dml.DML_BUFFER_BINDING, ["Buffer", "Offset", "SizeInBytes"]),
    (dml.DML_BUFFER_ARRAY_BINDING, ["BindingCount", "Bindings"]),
    (dml.DML_BINDING_DESC, ["Type", "Desc"]),
    (dml.DML_BINDING_TABLE_DESC, ["Dispatchable", "CPUDescriptorHandle", "GPUDescriptorHandle",
                                  "SizeInDescriptors"]),
    (dml.DML_BINDING_PROPERTIES, ["RequiredDescriptorCount", "TemporaryResourceSize", "PersistentResourceSize"]),
    (dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC, [
        "InputParametersTensor", "InputFirstMomentTensor", "InputSecondMomentTensor", "GradientTensor",
        "TrainingStepTensor", "OutputParametersTensor", "OutputFirstMomentTensor", "OutputSecondMomentTensor",
        "LearningRate", "Beta1", "Beta2", "Epsilon"]),
], ids=lambda s: s.__name__ if isinstance(s, type) else None)
def test_struct_fields_in_header_order(struct, fields):
    assert [f.name for f in dataclasses.fields(struct)] == fields


def test_structs_accept_every_field_positionally():
    """The full C-shaped form: every field, positionally, in header order."""
    desc = dml.DML_BUFFER_TENSOR_DESC(dml.DML_TENSOR_DATA_TYPE_FLOAT32, dml.DML_TENSOR_FLAG_NONE, 4,
                                      [1, 1, 2, 3], [6, 6, 3, 1], 24, 16)
    assert (desc.DimensionCount, desc.TotalTensorSizeInBytes, desc.GuaranteedBaseOffsetAlignment) == (4, 24, 16)
    assert dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER, desc).Desc is desc
    binding = dml.DML_BUFFER_BINDING(None, 32, 64)
    assert (binding.Offset, binding.SizeInBytes) == (32, 64)
    array = dml.DML_BUFFER_ARRAY_BINDING(1, [binding])
    assert dml.DML_BINDING_DESC(dml.DML_BINDING_TYPE_BUFFER_ARRAY, array).Desc.Bindings[0] is binding


F32, F16, U8, F64 = (dml.DML_TENSOR_DATA_TYPE_FLOAT32, dml.DML_TENSOR_DATA_TYPE_FLOAT16,
                     dml.DML_TENSOR_DATA_TYPE_UINT8, dml.DML_TENSOR_DATA_TYPE_FLOAT64)


@pytest.mark.parametrize(("data_type", "sizes", "strides", "expected"), [
    (F32, [1, 2, 3, 4], None, 96),                 # 24 elements · 4 bytes
    (F32, [1, 1, 1, 1], None, 4),
    (F64, [1, 1, 1, 3], None, 24),                 # 3 · 8
    (F16, [1, 1, 1, 3], None, 8),                  # 3 · 2 = 6 → rounded up to 8
    (F16, [1, 1, 1, 1], None, 4),                  # 2 → 4
    (F16, [1, 1, 2, 2], None, 8),                  # 4 · 2 = 8, already a multiple of 4
    (U8, [1, 1, 1, 5], None, 8),                   # 5 → 8
    (F32, [1, 1, 2, 3], [6, 6, 3, 1], 24),         # packed strides given explicitly: (1·3 + 2·1 + 1) · 4
    (F32, [1, 1, 2, 3], [0, 0, 4, 1], 28),         # padded rows: (1·4 + 2·1 + 1) · 4
    (F32, [2, 1, 2, 3], [16, 8, 4, 1], 92),        # (1·16 + 0 + 1·4 + 2·1 + 1) · 4 = 23 · 4
    (F32, [1, 1, 4, 8], [0, 0, 0, 1], 32),         # broadcast over rows: (7 + 1) · 4
    (F32, [1, 3, 4, 8], [0, 0, 0, 0], 4),          # everything broadcast from one element
    (F16, [1, 3, 4, 8], [0, 0, 0, 0], 4),          # one half = 2 bytes → 4
    (F16, [1, 1, 3, 3], [0, 0, 4, 1], 24),         # (2·4 + 2·1 + 1) · 2 = 22 → 24
    (F16, [1, 1, 1, 7], [0, 0, 0, 2], 28),         # (6·2 + 1) · 2 = 26 → 28
    (F32, [3], None, 12),                          # 1-D
])
def test_calc_buffer_tensor_size(data_type, sizes, strides, expected):
    assert dml.DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides) == expected


def test_calc_buffer_tensor_size_does_not_wrap_at_32_bits():
    # 2^31 floats = 2^33 bytes: the C helper's UINT accumulator would wrap; the Python value does not.
    assert dml.DMLCalcBufferTensorSize(F32, 4, [1, 2, 1024, 1024 * 1024], None) == 2**33
