"""Builders shared by the tests of REDUCE/ARGMIN/ARGMAX, CUMULATIVE_*, FILL_VALUE_*, JOIN/SPLIT/SLICE/SLICE1
and CAST: tensor descs in the full C shape, one-call operator runs, data types by numpy type.

Nothing here computes an expected value: each test writes its own (literals, or loops transcribing
the doc page's formula).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import dmlsim as dml
from dmlsim.quick import run_operator

_T = dml.DML_TENSOR_DATA_TYPE
F32, F16, F64 = _T.DML_TENSOR_DATA_TYPE_FLOAT32, _T.DML_TENSOR_DATA_TYPE_FLOAT16, _T.DML_TENSOR_DATA_TYPE_FLOAT64
I64, I32, I16, I8 = (_T.DML_TENSOR_DATA_TYPE_INT64, _T.DML_TENSOR_DATA_TYPE_INT32, _T.DML_TENSOR_DATA_TYPE_INT16,
                     _T.DML_TENSOR_DATA_TYPE_INT8)
U64, U32, U16, U8 = (_T.DML_TENSOR_DATA_TYPE_UINT64, _T.DML_TENSOR_DATA_TYPE_UINT32, _T.DML_TENSOR_DATA_TYPE_UINT16,
                     _T.DML_TENSOR_DATA_TYPE_UINT8)
NUMPY = {F32: np.float32, F16: np.float16, F64: np.float64, I64: np.int64, I32: np.int32, I16: np.int16,
         I8: np.int8, U64: np.uint64, U32: np.uint32, U16: np.uint16, U8: np.uint8}


def type_id(data_type: int) -> str:
    return _T(data_type).name.removeprefix("DML_TENSOR_DATA_TYPE_")


def tensor(data_type: int, sizes: Sequence[int], strides: Sequence[int] | None = None) -> dml.DML_TENSOR_DESC:
    """A buffer tensor desc with every field given (strides None: packed)."""
    return dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER, dml.DML_BUFFER_TENSOR_DESC(
        data_type, dml.DML_TENSOR_FLAG_NONE, len(sizes), list(sizes), None if strides is None else list(strides),
        dml.DMLCalcBufferTensorSize(data_type, len(sizes), list(sizes), strides), 0))


def operator(name: str, **fields: Any) -> dml.DML_OPERATOR_DESC:
    """``DML_OPERATOR_<name>`` with its ``DML_<name>_OPERATOR_DESC`` built from keyword fields."""
    desc_cls = getattr(dml, f"DML_{name}_OPERATOR_DESC")
    return dml.DML_OPERATOR_DESC(getattr(dml, f"DML_OPERATOR_{name}"), desc_cls(**fields))


def run(device: dml.Device, op_desc: dml.DML_OPERATOR_DESC, **inputs: Any) -> dict[str, Any]:
    """One dispatch; the outputs as numpy arrays by field name."""
    return run_operator(device, op_desc, inputs)


def skip_without_fp64(device: dml.Device, data_type: int) -> None:
    if data_type == F64 and not device.backend.has_fp64:
        pytest.skip(f"{device.adapter.label} has no cl_khr_fp64: FLOAT64 tensors are refused there")


def refused(device: dml.Device, op_desc: dml.DML_OPERATOR_DESC) -> str:
    """The message of the E_INVALIDARG DMLError CreateOperator raises for ``op_desc`` (fails if it accepts it)."""
    with pytest.raises(dml.DMLError) as info:
        device.CreateOperator(op_desc)
    assert info.value.hresult == dml.E_INVALIDARG, str(info.value)
    return str(info.value)
