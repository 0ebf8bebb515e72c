"""DML_OPERATOR_FILL_VALUE_SEQUENCE and DML_OPERATOR_FILL_VALUE_CONSTANT, on every adapter.

Expected values: the doc page's two examples, and hand-written literals of
``OutputTensor[elementIndex] = ValueStart + elementIndex * ValueDelta`` (integers wrap to the type).
"""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import (
    F16,
    F32,
    F64,
    I8,
    I32,
    I64,
    U8,
    U16,
    U64,
    operator,
    refused,
    run,
    skip_without_fp64,
    tensor,
)

import dmlsim as dml

OUT = "OutputTensor"


def sequence(data_type, sizes, start, delta, strides=None, value_type=None):
    return operator("FILL_VALUE_SEQUENCE", OutputTensor=tensor(data_type, sizes, strides),
                    ValueDataType=data_type if value_type is None else value_type, ValueStart=start, ValueDelta=delta)


def constant(data_type, sizes, value, strides=None):
    return operator("FILL_VALUE_CONSTANT", OutputTensor=tensor(data_type, sizes, strides), ValueDataType=data_type,
                    Value=value)


def test_doc_example_1_ascending(device):
    assert run(device, sequence(F32, [1, 1, 1, 3], 3.0, 2.0))[OUT].ravel().tolist() == [3, 5, 7]


def test_doc_example_2_uint8_descending(device):
    """ValueDelta -2 as a UINT8 union holds 254: 10 + i * 254 wraps to 10, 8, 6, 4."""
    got = run(device, sequence(U8, [1, 1, 2, 2], 10, dml.DML_SCALAR_UNION(UInt8=254)))[OUT]
    assert got.tolist() == [[[[10, 8], [6, 4]]]]


def test_dxdispatch_sample_values(device):
    got = run(device, sequence(F32, [1, 1, 1, 5], 3.2, 1.5))[OUT].ravel()
    np.testing.assert_allclose(got, [3.2, 4.7, 6.2, 7.7, 9.2], rtol=1e-6)


@pytest.mark.parametrize(("data_type", "start", "delta", "expected"), [
    (I32, 10, -2, [10, 8, 6, 4, 2, 0, -2, -4]),
    (I64, 2**40, 2**38, [2**40 + i * 2**38 for i in range(8)]),
    (U16, 65530, 3, [65530, 65533, 0, 3, 6, 9, 12, 15]),
    (I8, 120, 5, [120, 125, -126, -121, -116, -111, -106, -101]),
    (U64, 2**64 - 2, 1, [2**64 - 2, 2**64 - 1, 0, 1, 2, 3, 4, 5]),
    (F16, 0.5, 0.25, [0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25]),
], ids=["int32-negative", "int64", "uint16-wraps", "int8-wraps", "uint64-wraps", "float16"])
def test_sequence_data_types(device, data_type, start, delta, expected):
    got = run(device, sequence(data_type, [8], start, delta))[OUT]
    assert got.tolist() == expected


def test_sequence_counts_logical_elements_through_strides(device):
    """A [2, 3] output with padded rows (strides [4, 1]): element (1, 0) is the 4th of the sequence."""
    got = run(device, sequence(F32, [2, 3], 1.0, 1.0, strides=[4, 1]))[OUT]
    assert got.tolist() == [[1, 2, 3], [4, 5, 6]]


def test_sequence_8d(device):
    sizes = [2, 1, 2, 1, 2, 1, 2, 3]
    got = run(device, sequence(I32, sizes, 0, 1))[OUT]
    assert got.ravel().tolist() == list(range(48))


@pytest.mark.parametrize(("data_type", "value", "expected"), [
    (F32, 2.5, 2.5), (I8, -7, -7), (U64, 2**64 - 1, 2**64 - 1), (F16, dml.DML_SCALAR_UNION(UInt16=0x3C00), 1.0),
], ids=["float32", "int8", "uint64-max", "float16-bits"])
def test_constant(device, data_type, value, expected):
    got = run(device, constant(data_type, [3, 5], value, strides=[8, 1]))[OUT]
    assert got.shape == (3, 5) and (got == expected).all()


def test_doc_example_constant(device):
    assert run(device, constant(F32, [1, 1, 2, 4], 13.0))[OUT].tolist() == [[[[13.0] * 4] * 2]]


def test_constant_float64(device):
    """FILL_VALUE_CONSTANT takes FLOAT64 (feature level 4_1); FILL_VALUE_SEQUENCE does not."""
    skip_without_fp64(device, F64)
    got = run(device, constant(F64, [3], 0.1))[OUT]
    assert got.dtype == np.float64 and got.tolist() == [0.1, 0.1, 0.1]


def test_refusals_name_the_field(ref_device):
    assert ("DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC.ValueDataType INT32 must match OutputTensor.DataType FLOAT32"
            in refused(ref_device, sequence(F32, [4], 1, 1, value_type=I32)))
    assert ("DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC.OutputTensor.DataType FLOAT64 is not supported"
            in refused(ref_device, sequence(F64, [4], 1.0, 1.0)))
    bad_member = constant(F16, [4], dml.DML_SCALAR_UNION(Float32=1.0))
    assert "Value.Float32 is set" in refused(ref_device, bad_member)


@pytest.mark.parametrize(("data_type", "value", "bits"), [
    (F32, -0.0, 0x80000000), (F16, -0.0, 0x8000), (F64, -0.0, 0x8000000000000000),
    (F32, dml.DML_SCALAR_UNION(Bytes=[1, 0, 0xC0, 0x7F]), 0x7FC00001),
    (F16, dml.DML_SCALAR_UNION(UInt16=0x7E01), 0x7E01),
], ids=["float32-negative-zero", "float16-negative-zero", "float64-negative-zero", "float32-nan-payload",
        "float16-nan-payload"])
def test_constant_writes_value_bits(device, data_type, value, bits):
    """CONSTANT writes Value as given, bit for bit: -0.0 stays -0.0 (computing ``Value + i * 0`` makes it +0.0,
    which an ulp comparison cannot see) and a NaN keeps its payload."""
    skip_without_fp64(device, data_type)
    got = run(device, constant(data_type, [2, 3], value, strides=[4, 1]))[OUT]
    unsigned = {2: np.uint16, 4: np.uint32, 8: np.uint64}[got.itemsize]
    assert got.view(unsigned).tolist() == [[bits] * 3] * 2
