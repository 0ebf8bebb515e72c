"""Builders shared by tests/test_resample.py and tests/test_resample_onnx.py: tensor descs, the RESAMPLE family's
descs, and one-call runs (dmlsim.quick). They only build descs and move bytes; expected values come from the tests.
"""

from __future__ import annotations

import numpy as np

import dmlsim as dml
from dmlsim.quick import run_operator

F32, F16 = dml.DML_TENSOR_DATA_TYPE_FLOAT32, dml.DML_TENSOR_DATA_TYPE_FLOAT16
I8, U8 = dml.DML_TENSOR_DATA_TYPE_INT8, dml.DML_TENSOR_DATA_TYPE_UINT8
NUMPY = {F32: np.float32, F16: np.float16, I8: np.int8, U8: np.uint8}
NEAREST, LINEAR = dml.DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, dml.DML_INTERPOLATION_MODE_LINEAR
UP, DOWN = dml.DML_AXIS_DIRECTION_INCREASING, dml.DML_AXIS_DIRECTION_DECREASING
FLT_MAX = float(np.finfo(np.float32).max)


def tensor(data_type, sizes, strides=None):
    return dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER, dml.DML_BUFFER_TENSOR_DESC(
        data_type, dml.DML_TENSOR_FLAG_NONE, len(sizes), list(sizes), None if strides is None else list(strides),
        dml.DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides), 0))


def resample0(x, out, mode, scales):
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_RESAMPLE, dml.DML_RESAMPLE_OPERATOR_DESC(
        x, out, mode, len(scales), list(scales)))


def resample1(x, out, mode, scales, input_offsets, output_offsets):
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_RESAMPLE1, dml.DML_RESAMPLE1_OPERATOR_DESC(
        x, out, mode, len(scales), list(scales), list(input_offsets), list(output_offsets)))


def resample2(x, out, mode, rounding, scales, input_offsets, output_offsets):
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_RESAMPLE2, dml.DML_RESAMPLE2_OPERATOR_DESC(
        x, out, mode, rounding, len(scales), list(scales), list(input_offsets), list(output_offsets)))


def run(device, desc, x):
    return run_operator(device, desc, {"InputTensor": x})["OutputTensor"]


def resample_grad0(g, out, mode, scales, input_offsets, output_offsets):
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_RESAMPLE_GRAD, dml.DML_RESAMPLE_GRAD_OPERATOR_DESC(
        g, out, mode, len(scales), list(scales), list(input_offsets), list(output_offsets)))


def resample_grad1(g, out, mode, rounding, scales, input_offsets, output_offsets):
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_RESAMPLE_GRAD1, dml.DML_RESAMPLE_GRAD1_OPERATOR_DESC(
        g, out, mode, rounding, len(scales), list(scales), list(input_offsets), list(output_offsets)))


def run_grad(device, desc, g):
    return run_operator(device, desc, {"InputGradientTensor": g})["OutputGradientTensor"]




def resample3(x, out, mode, rounding, scales, input_offsets, output_offsets, antialiased):
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_RESAMPLE3, dml.DML_RESAMPLE3_OPERATOR_DESC(
        x, out, mode, rounding, len(scales), list(scales), list(input_offsets), list(output_offsets), antialiased))
