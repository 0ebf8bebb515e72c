"""Builders shared by the DMLSIM_OPERATOR_ADAGRAD_DECAY tests: descs, inputs, the FLOAT64 skip.

Used by tests/test_adagrad_decay.py and tests/test_cross_aliasing.py (a test module never imports another).
"""

from __future__ import annotations

import numpy as np
import pytest

import dmlsim as dml

F32, F16, F64 = dml.DML_TENSOR_DATA_TYPE_FLOAT32, dml.DML_TENSOR_DATA_TYPE_FLOAT16, dml.DML_TENSOR_DATA_TYPE_FLOAT64
U32, I64 = dml.DML_TENSOR_DATA_TYPE_UINT32, dml.DML_TENSOR_DATA_TYPE_INT64
NP = {F32: np.float32, F16: np.float16, F64: np.float64, U32: np.uint32, I64: np.int64}
OP = dml.DMLSIM_OPERATOR_ADAGRAD_DECAY
FIELDS_IN = ("InputParametersTensor", "InputAccumulatorTensor", "InputDecayPowerTensor", "GradientTensor",
             "IndicesTensor", "GlobalStepTensor")
# the state the operator updates: each output bound in place over its input
STATE = {"OutputParametersTensor": "InputParametersTensor", "OutputAccumulatorTensor": "InputAccumulatorTensor",
         "OutputDecayPowerTensor": "InputDecayPowerTensor"}


def make_desc(dtype, rows, row_length, *, step_type=U32, index_type=None, count=None, lr=0.05, decay_step=3,
              rate=0.7, baseline=0.1, var_strides=None):
    """A DMLSIM_ADAGRAD_DECAY_OPERATOR_DESC: dense, or sparse (``index_type`` given) with ``count`` indices."""
    var = dml.buffer_tensor(dtype, [1, 1, rows, row_length], var_strides)
    sparse = index_type is not None
    grad = dml.buffer_tensor(dtype, [1, 1, count, row_length]) if sparse else dml.buffer_tensor(
        dtype, [1, 1, rows, row_length])
    power = dml.buffer_tensor(step_type, [1, 1, rows, 1] if sparse else [1, 1, 1, 1])
    indices = dml.buffer_tensor(index_type, [1, 1, 1, count]) if sparse else None
    step = dml.buffer_tensor(step_type, [1, 1, 1, 1])
    return dml.DMLSIM_ADAGRAD_DECAY_OPERATOR_DESC(var, var, power, grad, indices, step, var, var, power,
                                                  lr, decay_step, rate, baseline)


def skip_without_fp64(device, dtype):
    if dtype == F64 and not device.backend.has_fp64:
        pytest.skip(f"{device.adapter.label} has no cl_khr_fp64: FLOAT64 is refused there (tested separately)")


def sparse_inputs(rows=6, row_length=3, indices=(4, 0, 4), seed=2, index_dtype=np.uint32):
    """Sparse-update inputs (float32/uint32; the dispatch converts them to the desc's types)."""
    rng = np.random.default_rng(seed)
    count = len(indices)
    return {"InputParametersTensor": rng.standard_normal((1, 1, rows, row_length)).astype(np.float32),
            "InputAccumulatorTensor": np.full((1, 1, rows, row_length), 0.3, np.float32),
            "InputDecayPowerTensor": np.arange(rows, dtype=np.uint32) % 2,
            "GradientTensor": rng.standard_normal((1, 1, count, row_length)).astype(np.float32),
            "IndicesTensor": np.array(indices, index_dtype), "GlobalStepTensor": np.uint32(3)}
