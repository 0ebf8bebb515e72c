"""DML_OPERATOR_ACTIVATION_* (dmlsim/operators/activation) and fused activations, on every adapter.

Expected values are literals or float64 transcriptions of the DirectML doc pages written here (the
scalar functions of DOC, with Python's math module; the softmax family by explicit loops), never
dmlsim's reference. Tolerances are in ulps of the computation's magnitude bound: FLOAT32 4 ulps of
(1 + |x|) times the parameters' magnitudes (exp/log/tanh/erfc are accurate to a few ulps in OpenCL);
FLOAT16 is computed in float32 and rounded once: 1 ulp (FLOAT16) of that bound.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

import dmlsim as dml
from dmlsim.api.directml_schema import FUSED_ACTIVATION_TYPES
from dmlsim.api.numerics import compare_ulps
from dmlsim.operators.activation.fused import apply_fused, float_literal, fused_defines, parameter_define
from dmlsim.operators.activation.reference import FORMULAS
from dmlsim.operators.validation import validate_operator_desc
from dmlsim.quick import run_operator

_T = dml.DML_TENSOR_DATA_TYPE
F32, F16 = _T.DML_TENSOR_DATA_TYPE_FLOAT32, _T.DML_TENSOR_DATA_TYPE_FLOAT16
NUMPY = {F32: np.float32, F16: np.float16, _T.DML_TENSOR_DATA_TYPE_INT32: np.int32,
         _T.DML_TENSOR_DATA_TYPE_INT16: np.int16, _T.DML_TENSOR_DATA_TYPE_INT8: np.int8,
         _T.DML_TENSOR_DATA_TYPE_UINT32: np.uint32, _T.DML_TENSOR_DATA_TYPE_UINT16: np.uint16,
         _T.DML_TENSOR_DATA_TYPE_UINT8: np.uint8}
HEADER = Path(dml.__file__).parent / "cl_kernels" / "activations.h"


def f32(value):
    return float(np.float32(value))


# The doc pages' formulas, transcribed once more (scalar, float64), with the parameters each test uses.
DOC = {
    "IDENTITY": ({}, lambda x: x),
    "RELU": ({}, lambda x: max(0.0, x)),
    "LEAKY_RELU": ({"Alpha": 0.1}, lambda x, a: x if x >= 0 else a * x),
    "THRESHOLDED_RELU": ({"Alpha": 0.75}, lambda x, a: x if x > a else 0.0),
    "LINEAR": ({"Alpha": -1.5, "Beta": 0.25}, lambda x, a, b: a * x + b),
    "ELU": ({"Alpha": 0.7}, lambda x, a: x if x >= 0 else a * (math.exp(x) - 1)),
    "CELU": ({"Alpha": 1.3}, lambda x, a: max(0.0, x) + min(0.0, a * (math.exp(x / a) - 1))),
    "SCALED_ELU": ({"Alpha": 1.6732, "Gamma": 1.0507},
                   lambda x, a, g: g * x if x > 0 else g * (a * math.exp(x) - a)),
    "SIGMOID": ({}, lambda x: 1 / (1 + math.exp(-x))),
    "HARD_SIGMOID": ({"Alpha": 0.2, "Beta": 0.5}, lambda x, a, b: max(0.0, min(a * x + b, 1.0))),
    "TANH": ({}, lambda x: (1 - math.exp(-2 * x)) / (1 + math.exp(-2 * x))),
    "SCALED_TANH": ({"Alpha": 1.7, "Beta": 0.6}, lambda x, a, b: a * math.tanh(b * x)),
    "SOFTPLUS": ({"Steepness": 2.0}, lambda x, s: math.log(1 + math.exp(s * x)) / s),
    "PARAMETRIC_SOFTPLUS": ({"Alpha": 0.8, "Beta": 1.5}, lambda x, a, b: a * math.log(1 + math.exp(b * x))),
    "SOFTSIGN": ({}, lambda x: x / (1 + abs(x))),
    "SHRINK": ({"Bias": 0.25, "Threshold": 0.5},
               lambda x, b, t: x - b if x > t else (x + b if x < -t else 0.0)),
    "GELU": ({}, lambda x: 0.5 * x * (1.0 + math.erf(x / math.sqrt(2)))),
    "SWISH": ({"SigmoidInputScale": 1.5}, lambda x, s: x * (1 / (1 + math.exp(-s * x)))),
    "HARD_SWISH": ({"Alpha": 0.2, "Beta": 0.5}, lambda x, a, b: x * max(0.0, min(a * x + b, 1.0))),
}


def tensor(data_type, sizes, strides=None):
    return dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER, dml.DML_BUFFER_TENSOR_DESC(
        data_type, dml.DML_TENSOR_FLAG_NONE, len(sizes), list(sizes), None if strides is None else list(strides),
        dml.DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides), 0))


def activation(name, x_desc, y_desc=None, **attrs):
    desc_cls = getattr(dml, f"DML_ACTIVATION_{name}_OPERATOR_DESC")
    return dml.DML_OPERATOR_DESC(getattr(dml, f"DML_OPERATOR_ACTIVATION_{name}"),
                                 desc_cls(x_desc, x_desc if y_desc is None else y_desc, **attrs))


def expected_of(name, x, params=None):
    """DOC[name] on every element (float64), with its parameters as the desc stores them (float32)."""
    defaults, f = DOC[name]
    values = [f32(v) for v in (params or defaults).values()]
    flat = [f(float(v), *values) for v in np.asarray(x, np.float64).ravel()]
    bound_scale = math.prod(max(1.0, abs(v)) for v in values)
    return np.array(flat).reshape(np.shape(x)), (1 + np.abs(np.asarray(x, np.float64))) * bound_scale


def check(got, expected, bound, data_type, name):
    report = compare_ulps(got, expected, NUMPY[data_type], 4 if data_type == F32 else 1, bound)
    assert report.ok, report.describe(name)


# --- the formula table, the header and the schema agree ----------------------------------------------
def test_formula_table_is_the_fusable_activations():
    fusable = {dml.DML_OPERATOR_TYPE(t).name.removeprefix("DML_OPERATOR_ACTIVATION_") for t in FUSED_ACTIVATION_TYPES}
    assert set(FORMULAS) == fusable == set(DOC)


def test_header_selects_each_activation_once_with_the_tables_parameters():
    text = HEADER.read_text()
    selections = re.findall(r"defined\(FUSED_([A-Z_]+)\)\n#define FUSED_ACTIVATION\(x\) (.*)", text)
    assert sorted(name for name, _ in selections) == sorted(FORMULAS)
    for name, body in selections:
        used = re.findall(r"FUSED_[A-Z_]+", body)
        assert used == [parameter_define(p) for p in FORMULAS[name].params], name
    for name in FORMULAS:  # one formula each: a function, or for RELU the generic macro
        assert text.count(f"inline float activation_{name.lower()}(") <= 1
    assert text.count("#define FUSED_ACTIVATION(x) (x)") == 2  # IDENTITY, and no fused activation


# --- element-wise activations --------------------------------------------------------------------------
X_VALUES = np.concatenate([np.linspace(-6, 6, 97), [0.0, 0.5, -0.5, 0.75, -0.75, 1e-3, -1e-3, 2.5, -2.5]])


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("name", sorted(DOC))
def test_activation_matches_its_doc_formula(device, name, data_type):
    x = X_VALUES.astype(NUMPY[data_type]).reshape(2, 53)
    params = DOC[name][0]
    got = run_operator(device, activation(name, tensor(data_type, x.shape), **params), {"InputTensor": x})
    expected, bound = expected_of(name, x)
    check(got["OutputTensor"], expected, bound, data_type, name)


@pytest.mark.formula
def test_gelu_on_a_dense_grid_and_its_specials(device):
    """GELU goes through dmlsim's own erfc (dmlsim.h: PoCL's builtin took 60 ns an element): 8,193 points over
    [-16, 16] (the far negative tail, where erfc is tiny and then flushed to 0 below FLT_MIN, included) against
    the float64 formula under the table's tolerance; +inf stays +inf, -inf gives NaN (-inf * 0, the formula as
    written), NaN stays NaN, -0 gives -0."""
    x = np.linspace(-16, 16, 8193).astype(np.float32).reshape(3, 2731)
    got = run_operator(device, activation("GELU", tensor(F32, x.shape)), {"InputTensor": x})["OutputTensor"]
    expected, bound = expected_of("GELU", x)
    check(got, expected, bound, F32, "GELU")
    special = np.array([np.inf, -np.inf, np.nan, -0.0], np.float32)
    got = run_operator(device, activation("GELU", tensor(F32, [4])), {"InputTensor": special})["OutputTensor"]
    assert got[0] == np.inf and np.isnan(got[1]) and np.isnan(got[2]) and got[3] == 0 and np.signbit(got[3])


def _raw_dispatch(device, op_desc, inputs, outputs):
    """inputs/outputs: lists of (buffer, offset, size) in field order."""
    compiled = device.CompileOperator(device.CreateOperator(op_desc), dml.DML_EXECUTION_FLAG_NONE)
    table = device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(
        compiled, None, None, compiled.GetBindingProperties().RequiredDescriptorCount))
    table.BindInputs([dml.buffer_binding(*b) for b in inputs])
    table.BindOutputs([dml.buffer_binding(*b) for b in outputs])
    cmd = device.CreateCommandList()
    device.CreateCommandRecorder().RecordDispatch(cmd, compiled, table)
    queue = device.CreateCommandQueue()
    queue.ExecuteCommandLists([cmd])
    queue.WaitForIdle()


def test_broadcast_input_and_padded_8d_output(device):
    """LEAKY_RELU of one row broadcast over 3 rows (input strides 0), written into a padded 8-D output."""
    row = np.array([-4.0, 2.0, -0.5, 8.0], np.float32)
    sizes = [1, 1, 1, 1, 1, 1, 3, 4]
    x_desc = tensor(F32, sizes, [0, 0, 0, 0, 0, 0, 0, 1])
    y_strides = [48, 48, 48, 48, 48, 48, 8, 1]  # rows 8 apart
    y_desc = tensor(F32, sizes, y_strides)
    source, target = device.CreateBuffer(16), device.CreateBuffer(y_desc.Desc.TotalTensorSizeInBytes)
    source.Write(row.tobytes())
    target.Write(np.full(y_desc.Desc.TotalTensorSizeInBytes // 4, 7, np.float32).tobytes())
    _raw_dispatch(device, activation("LEAKY_RELU", x_desc, y_desc, Alpha=0.25),
                  [(source, 0, 16)], [(target, 0, y_desc.Desc.TotalTensorSizeInBytes)])
    got = np.frombuffer(target.Read(), np.float32)
    expected_row = [-1.0, 2.0, -0.125, 8.0]
    for r in range(3):
        np.testing.assert_array_equal(got[8 * r:8 * r + 4], expected_row)
        if r < 2:
            np.testing.assert_array_equal(got[8 * r + 4:8 * r + 8], 7.0)  # the padding is not written


@pytest.mark.parametrize("name", ["ELU", "RELU", "SIGMOID"])
def test_in_place(device, name):
    """OutputTensor aliasing InputTensor (the doc pages allow in-place execution), at an offset."""
    x = (np.arange(67, dtype=np.float32) - 33) / 8
    desc = tensor(F32, [67])
    size = desc.Desc.TotalTensorSizeInBytes
    buffer = device.CreateBuffer(256 + size)
    buffer.Write(x.tobytes(), 256)
    params = DOC[name][0]
    _raw_dispatch(device, activation(name, desc, **params), [(buffer, 256, size)], [(buffer, 256, size)])
    expected, bound = expected_of(name, x)
    check(np.frombuffer(buffer.Read(256, 4 * 67), np.float32), expected, bound, F32, name)
    assert buffer.Read(0, 256) == bytes(256)


@pytest.mark.parametrize("data_type", [_T.DML_TENSOR_DATA_TYPE_INT32, _T.DML_TENSOR_DATA_TYPE_INT16,
                                       _T.DML_TENSOR_DATA_TYPE_INT8], ids=["INT32", "INT16", "INT8"])
def test_relu_and_parameterized_relu_on_integers(device, data_type):
    info = np.iinfo(NUMPY[data_type])
    x = np.array([info.min, -3, -1, 0, 1, 5, info.max], NUMPY[data_type])
    slope = np.array([1, 2, -3, 4, 5, 6, 7], NUMPY[data_type])
    got = run_operator(device, activation("RELU", tensor(data_type, [7])), {"InputTensor": x})["OutputTensor"]
    np.testing.assert_array_equal(got, [0, 0, 0, 0, 1, 5, info.max])
    desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU,
                                 dml.DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC(*[tensor(data_type, [7])] * 3))
    got = run_operator(device, desc, {"InputTensor": x, "SlopeTensor": slope})["OutputTensor"]
    # slope * x for x < 0, in the integer type (the minimum times 1 is itself)
    np.testing.assert_array_equal(got, np.array([info.min, -6, 3, 0, 1, 5, info.max], NUMPY[data_type]))


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
def test_parameterized_relu_slope_broadcast_per_channel(device, data_type):
    """A slope per channel ({1, C, 1, 1} broadcast through strides [0, 1, 0, 0]) over {2, 3, 2, 2}."""
    sizes = [2, 3, 2, 2]
    x = (np.arange(24) - 12).astype(NUMPY[data_type]).reshape(sizes)
    slopes = np.array([0.5, -2.0, 0.25], NUMPY[data_type])
    desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU,
                                 dml.DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC(
                                     tensor(data_type, sizes), tensor(data_type, sizes, [0, 1, 0, 0]),
                                     tensor(data_type, sizes)))
    expected = np.array([[[[v if v >= 0 else slopes[c] * v for v in x[n, c].ravel()]] for c in range(3)]
                         for n in range(2)], np.float64).reshape(sizes)
    x_buf, s_buf, y_buf = device.CreateBuffer(x.nbytes), device.CreateBuffer(16), device.CreateBuffer(x.nbytes)
    x_buf.Write(x.tobytes())
    s_buf.Write(slopes.tobytes())
    _raw_dispatch(device, desc, [(x_buf, 0, x.nbytes), (s_buf, 0, 16)], [(y_buf, 0, x.nbytes)])
    got = np.frombuffer(y_buf.Read(), NUMPY[data_type]).reshape(sizes)
    np.testing.assert_array_equal(got.astype(np.float64), expected)  # products of small integers: exact


def test_relu_grad_passes_dy_where_the_input_is_positive(device):
    """OutputGradientTensor = (X > 0 ? dY : 0): the sign of X decides, never that of dY."""
    x = np.array([-2.0, -0.0, 0.0, 1e-30, 3.0, 4.0, -5.0, 0.5], np.float32)
    dy = np.array([1.5, 2.0, -3.0, -4.0, -0.25, 6.0, 7.0, -8.0], np.float32)
    sizes = [2, 4]
    desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_RELU_GRAD, dml.DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC(
        *[tensor(F32, sizes)] * 3))
    got = run_operator(device, desc, {"InputTensor": x.reshape(sizes), "InputGradientTensor": dy.reshape(sizes)})
    np.testing.assert_array_equal(got["OutputGradientTensor"].ravel(), [0, 0, 0, -4.0, -0.25, 6.0, 0, -8.0])


@pytest.mark.parametrize("data_type", [_T.DML_TENSOR_DATA_TYPE_INT32, _T.DML_TENSOR_DATA_TYPE_INT16,
                                       _T.DML_TENSOR_DATA_TYPE_INT8], ids=["INT32", "INT16", "INT8"])
def test_relu_grad_on_integers(device, data_type):
    """RELU_GRAD INT32/INT16/INT8 (DML_FEATURE_LEVEL_5_1): dY where X > 0, in the integer type."""
    info = np.iinfo(NUMPY[data_type])
    x = np.array([info.min, -1, 0, 1, info.max], NUMPY[data_type])
    dy = np.array([10, 20, 30, info.min, -40], NUMPY[data_type])
    desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_RELU_GRAD, dml.DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC(
        *[tensor(data_type, [5])] * 3))
    got = run_operator(device, desc, {"InputTensor": x, "InputGradientTensor": dy})["OutputGradientTensor"]
    np.testing.assert_array_equal(got, np.array([0, 0, 0, info.min, -40], NUMPY[data_type]))


SHRINK_INTEGER_CASES = {  # (data type, x, Bias, Threshold, expected): worked out by hand
    # x > 2.5: x + 50.5, x < -2.5: x - 50.5, each truncated toward zero and saturated to INT8
    "INT8": (_T.DML_TENSOR_DATA_TYPE_INT8, [-128, -100, -3, -2, 0, 2, 3, 100, 127], -50.5, 2.5,
             [-128, -128, -53, 0, 0, 0, 53, 127, 127]),
    # x > 1: x - 0.75 (5 - 10 saturates to 0); nothing is below -1
    "UINT8": (_T.DML_TENSOR_DATA_TYPE_UINT8, [0, 1, 2, 200, 255], 0.75, 1.0, [0, 0, 1, 199, 254]),
    "UINT16": (_T.DML_TENSOR_DATA_TYPE_UINT16, [5, 11, 65535], 10.0, 1.0, [0, 1, 65525]),
    # exact beyond float32: 2^24 + 1 - 0.5 = 16777216.5 -> 16777216; -2^31 + 0.5 -> -2147483647
    "INT32": (_T.DML_TENSOR_DATA_TYPE_INT32, [2**31 - 1, -(2**31), 16777217, 0], 0.5, 0.0,
              [2**31 - 2, -(2**31) + 1, 16777216, 0]),
    # Threshold -1.5: x > -1.5 takes x - Bias first (-1 - 1.25 -> -2, 0 - 1.25 -> -1, 3 - 1.25 -> 1); -2 is
    # below 1.5 and takes x + Bias (-0.75 -> 0)
    "INT16": (_T.DML_TENSOR_DATA_TYPE_INT16, [-2, -1, 0, 3], 1.25, -1.5, [0, -2, -1, 1]),
    # a NaN Bias: x - NaN is NaN, which converts to 0
    "UINT32": (_T.DML_TENSOR_DATA_TYPE_UINT32, [0, 7, 2**32 - 1], math.nan, 0.5, [0, 0, 0]),
}


@pytest.mark.parametrize("case", sorted(SHRINK_INTEGER_CASES))
def test_shrink_on_integers(device, case):
    """SHRINK on 8-32-bit integers (DML_FEATURE_LEVEL_5_1). The doc gives no integer rule for the FLOAT Bias
    and Threshold; dmlsim compares and subtracts as real numbers and converts as CAST does (toward zero,
    saturating, NaN to 0)."""
    data_type, x, bias, threshold, expected = SHRINK_INTEGER_CASES[case]
    x = np.array(x, NUMPY[data_type])
    got = run_operator(device, activation("SHRINK", tensor(data_type, [len(x)]), Bias=bias, Threshold=threshold),
                       {"InputTensor": x})["OutputTensor"]
    assert got.dtype == NUMPY[data_type]
    np.testing.assert_array_equal(got, np.array(expected, NUMPY[data_type]))


# --- the softmax family --------------------------------------------------------------------------------
DOC_INPUT = np.array([[[12, 0], [-101, 11]], [[3, 234], [0, -101]]], np.float32)  # the doc pages' example


def softmax_loops(x, axes, log=False):
    """exp(x_i) / sum(exp(x_j)), x_j the elements with x_i's coordinates outside ``axes`` (by loops)."""
    x = np.asarray(x, np.float64)
    out = np.empty_like(x)
    for index in np.ndindex(x.shape):
        group = [j for j in np.ndindex(x.shape) if all(j[d] == index[d] for d in range(x.ndim) if d not in axes)]
        top = max(x[j] for j in group)
        total = sum(math.exp(x[j] - top) for j in group)
        out[index] = (x[index] - top) - math.log(total) if log else math.exp(x[index] - top) / total
    return out


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("axes", [[1], [0], [0, 2], [2], [0, 1, 2]], ids=str)
def test_softmax1_and_log_softmax1_along_axes(device, axes, data_type):
    x = (DOC_INPUT / 40).astype(NUMPY[data_type])  # within exp's range after the max is taken off
    for name, log in (("SOFTMAX1", False), ("LOG_SOFTMAX1", True)):
        got = run_operator(device, activation(name, tensor(data_type, [2, 2, 2]), AxisCount=len(axes), Axes=axes),
                           {"InputTensor": x})["OutputTensor"]
        expected = softmax_loops(x, axes, log)
        bound = np.maximum(1.0, np.abs(expected)) * (8 if log else 1)
        check(got, expected, bound, data_type, f"{name} {axes}")


@pytest.mark.parametrize("axes, literal", [
    ([1], [[[1, 0], [0, 1]], [[1, 1], [0, 0]]]),
    ([0], [[[1, 0], [0, 1]], [[0, 1], [1, 0]]]),
    ([0, 2], [[[0, 0], [0, 1]], [[0, 1], [0, 0]]]),
], ids=["doc-example-1", "doc-example-2", "doc-example-3"])
def test_hardmax1_doc_examples(device, axes, literal):
    got = run_operator(device, activation("HARDMAX1", tensor(F32, [2, 2, 2]), AxisCount=len(axes), Axes=axes),
                       {"InputTensor": DOC_INPUT})["OutputTensor"]
    np.testing.assert_array_equal(got, literal)


def test_hardmax_marks_the_first_maximum_of_the_last_dimension(device):
    x = np.array([[[[1, 5, 5, 2], [7, 7, 7, 7], [-3, -1, -2, -1]]]], np.float32)
    got = run_operator(device, activation("HARDMAX", tensor(F32, [1, 1, 3, 4])), {"InputTensor": x})["OutputTensor"]
    np.testing.assert_array_equal(got, [[[[0, 1, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]]]])


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
def test_hardmax_marks_the_first_nan_wherever_it_stands(device, data_type):
    """A NaN counts as the maximum and the first NaN is marked (dmlsim's rule, README "Decisions", as ARGMAX
    chooses it and ONNX's reference Hardmax marks it): NaN first, in the middle, last, twice, everywhere, beside
    infinities; +0 and -0 are equal (the first marked). OpenCL marked the 3 of [1, NaN, 3] but the NaN of
    [NaN, 1, 3]. Not marked ``formula``: the Oclgrind tier runs it."""
    nan, inf = math.nan, math.inf
    rows = [[nan, 1, 2, 3], [1, nan, 3, 2], [1, 2, 3, nan], [4, nan, 5, nan], [nan, nan, nan, nan],
            [inf, -inf, nan, inf], [-0.0, 0.0, -1, -inf]]
    marked = [0, 1, 3, 1, 0, 2, 0]
    x = np.array([[rows]], {F32: np.float32, F16: np.float16}[data_type])
    got = run_operator(device, activation("HARDMAX", tensor(data_type, list(x.shape))),
                       {"InputTensor": x})["OutputTensor"]
    np.testing.assert_array_equal(got[0, 0], np.eye(4)[marked])
    # HARDMAX1 over axes 0 and 2 of a {2, 2, 2} tensor: per column j, the row-major order x[0, j, 0], x[0, j, 1],
    # x[1, j, 0], x[1, j, 1]; j = 0 holds [1, 3, NaN, 2] (the NaN at 2), j = 1 [5, NaN, 7, NaN] (the first at 1)
    x = np.array([[[1, 3], [5, nan]], [[nan, 2], [7, nan]]], np.float32)
    got = run_operator(device, activation("HARDMAX1", tensor(F32, [2, 2, 2]), AxisCount=2, Axes=[0, 2]),
                       {"InputTensor": x})["OutputTensor"]
    np.testing.assert_array_equal(got, [[[0, 0], [0, 1]], [[1, 0], [0, 0]]])


@pytest.mark.parametrize("name, log", [("SOFTMAX", False), ("LOG_SOFTMAX", True)])
def test_softmax_along_the_last_dimension_with_strides(device, name, log):
    """{1, 1, 3, 5} read through transposing strides; each row of 5 is one softmax."""
    raw = np.array([0.5, -1.0, 2.0, 3.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, -4.0, 8.0, 2.5, -0.5, 6.0], np.float32)
    x_desc = tensor(F32, [1, 1, 3, 5], [15, 15, 1, 3])  # element (r, c) at r + 3c
    y_desc = tensor(F32, [1, 1, 3, 5])
    logical = raw.reshape(5, 3).T  # what the desc reads: (r, c) = raw[r + 3c]
    source, target = device.CreateBuffer(60), device.CreateBuffer(60)
    source.Write(raw.tobytes())
    _raw_dispatch(device, activation(name, x_desc, y_desc), [(source, 0, 60)], [(target, 0, 60)])
    got = np.frombuffer(target.Read(), np.float32).reshape(1, 1, 3, 5)
    expected = softmax_loops(logical.reshape(1, 1, 3, 5), [3], log)
    check(got, expected, np.maximum(1.0, np.abs(expected)) * (8 if log else 1), F32, name)


def test_more_groups_than_a_work_group(device):
    """SOFTMAX1 over axes {0, 2} of {3, 67, 5}: 67 groups of 15 (more work-items than one work-group of 64),
    and RELU over 8193 elements (129 work-groups, the last one partly idle)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 67, 5)).astype(np.float32)
    got = run_operator(device, activation("SOFTMAX1", tensor(F32, [3, 67, 5]), AxisCount=2, Axes=[0, 2]),
                       {"InputTensor": x})["OutputTensor"]
    expected = np.empty((3, 67, 5))
    for k in range(67):
        group = [float(v) for v in x[:, k, :].ravel()]
        top = max(group)
        total = sum(math.exp(v - top) for v in group)
        expected[:, k, :] = [[math.exp(float(x[i, k, j]) - top) / total for j in range(5)] for i in range(3)]
    check(got, expected, np.ones_like(expected), F32, "SOFTMAX1")
    y = (np.arange(8193, dtype=np.float32) - 4000) / 7
    got = run_operator(device, activation("RELU", tensor(F32, [8193])), {"InputTensor": y})["OutputTensor"]
    np.testing.assert_array_equal(got, [max(0.0, float(v)) for v in y])


def test_softmax_of_a_large_row_does_not_overflow(device):
    """exp(x - max): inputs of 1000 give finite results (exp(1000) would overflow)."""
    x = np.array([1000.0, 999.0, 998.0, -1000.0], np.float32)
    got = run_operator(device, activation("SOFTMAX", tensor(F32, [4])), {"InputTensor": x})["OutputTensor"]
    e = [1.0, math.exp(-1), math.exp(-2), 0.0]
    check(got, np.array(e) / sum(e), np.ones(4), F32, "SOFTMAX")


# --- validation -----------------------------------------------------------------------------------------
def _refusal(device, op_desc, hresult=dml.E_INVALIDARG):
    with pytest.raises(dml.DMLError) as info:
        device.CreateOperator(op_desc)
    assert info.value.hresult == hresult
    return str(info.value)


def test_validation(ref_device):
    message = _refusal(ref_device, activation("ELU", tensor(F32, [2, 3]), tensor(F16, [2, 4]), Alpha=1.0))
    assert "OutputTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32" in message
    assert "OutputTensor.Sizes [2, 4] must equal InputTensor.Sizes [2, 3]" in message
    int32 = _T.DML_TENSOR_DATA_TYPE_INT32
    assert "InputTensor.DataType INT32 is not supported by DML_OPERATOR_ACTIVATION_SIGMOID" in _refusal(
        ref_device, activation("SIGMOID", tensor(int32, [4])))
    assert "Steepness 0.0 must" in _refusal(ref_device, activation("SOFTPLUS", tensor(F32, [4]), Steepness=0.0))
    assert "InputTensor.DimensionCount" in _refusal(ref_device, activation("RELU", tensor(F32, [1] * 9)))
    # the types of the tables at DML_FEATURE_LEVEL_6_2 and no more
    assert "InputTensor.DataType UINT32 is not supported by DML_OPERATOR_ACTIVATION_RELU_GRAD (supported: FLOAT32, " \
           "FLOAT16, INT32, INT16, INT8)" in _refusal(ref_device, dml.DML_OPERATOR_DESC(
               dml.DML_OPERATOR_ACTIVATION_RELU_GRAD, dml.DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC(
                   *[tensor(_T.DML_TENSOR_DATA_TYPE_UINT32, [4])] * 3)))
    assert "InputTensor.DataType INT64 is not supported by DML_OPERATOR_ACTIVATION_SHRINK" in _refusal(
        ref_device, activation("SHRINK", tensor(_T.DML_TENSOR_DATA_TYPE_INT64, [4]), Bias=0.0, Threshold=0.5))
    assert "InputTensor.DataType UINT8 is not supported by DML_OPERATOR_ACTIVATION_RELU" in _refusal(
        ref_device, activation("RELU", tensor(_T.DML_TENSOR_DATA_TYPE_UINT8, [4])))
    grad = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_RELU_GRAD, dml.DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC(
        tensor(F32, [4]), tensor(F32, [5]), tensor(F32, [4])))
    assert "InputGradientTensor.Sizes [5] must equal InputTensor.Sizes [4]" in _refusal(ref_device, grad)
    prelu = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU,
                                  dml.DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC(
                                      tensor(F32, [4]), tensor(F16, [4]), tensor(F32, [4])))
    assert "SlopeTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32" in _refusal(ref_device, prelu)


def test_softmax_validation(ref_device):
    assert "effective rank of 3" in _refusal(ref_device, activation("SOFTMAX", tensor(F32, [1, 2, 3, 4])))
    assert "effective rank of 3" in _refusal(ref_device, activation("HARDMAX", tensor(F32, [2, 1, 4])))
    ref_device.CreateOperator(activation("LOG_SOFTMAX", tensor(F32, [1, 1, 1, 1, 1, 1, 3, 4])))  # rank 2: fine
    three = tensor(F32, [2, 2, 2])
    assert "Axes[1] 3 must be in [0, InputTensor.DimensionCount - 1] = [0, 2]" in _refusal(
        ref_device, activation("SOFTMAX1", three, AxisCount=2, Axes=[0, 3]))
    assert "Axes [1, 1] must not repeat an axis" in _refusal(
        ref_device, activation("HARDMAX1", three, AxisCount=2, Axes=[1, 1]))
    assert "AxisCount must be at least 1" in _refusal(ref_device, activation("LOG_SOFTMAX1", three, AxisCount=0,
                                                                             Axes=[]))
    assert "must hold AxisCount (2)" in _refusal(ref_device, activation("SOFTMAX1", three, AxisCount=2, Axes=[0]))


# --- fused activations ----------------------------------------------------------------------------------
def _gemm_with(fused):
    t = tensor(F32, [1, 1, 2, 2])
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_GEMM, dml.DML_GEMM_OPERATOR_DESC(
        t, t, None, t, 0, 0, 1.0, 0.0, fused))


def _fused(name, **attrs):
    desc_cls = getattr(dml, f"DML_ACTIVATION_{name}_OPERATOR_DESC")
    nested = dml.DML_OPERATOR_DESC(getattr(dml, f"DML_OPERATOR_ACTIVATION_{name}"), desc_cls(None, None, **attrs))
    return validate_operator_desc(_gemm_with(nested), allow_unimplemented=True).attrs["FusedActivation"]


def test_fused_defines_are_exact_float_literals():
    assert fused_defines(None) == {}
    assert fused_defines(_fused("LEAKY_RELU", Alpha=0.1)) == {"FUSED_LEAKY_RELU": True, "FUSED_ALPHA": "0x1.99999ap-4f"}
    assert fused_defines(_fused("SCALED_ELU", Alpha=-2.5, Gamma=1.0)) == {
        "FUSED_SCALED_ELU": True, "FUSED_ALPHA": "(-0x1.4p+1f)", "FUSED_GAMMA": "0x1p+0f"}
    assert fused_defines(_fused("SWISH", SigmoidInputScale=1.5)) == {"FUSED_SWISH": True,
                                                                     "FUSED_SIGMOID_INPUT_SCALE": "0x1.8p+0f"}
    assert fused_defines(_fused("SIGMOID")) == {"FUSED_SIGMOID": True}
    rng = np.random.default_rng(5)
    for value in [*rng.standard_normal(50) * 1e3, 1e-40, -0.0, 3.4e38, 1 / 3]:
        text = float_literal(value).strip("()").removesuffix("f")
        assert float.fromhex(text) == float(np.float32(value))
    assert [float_literal(v) for v in (math.inf, -math.inf)] == ["INFINITY", "(-INFINITY)"]


@pytest.mark.parametrize("name", sorted(DOC))
def test_apply_fused_is_the_doc_formula(name):
    params = DOC[name][0]
    x = np.linspace(-5, 5, 41)
    expected, bound = expected_of(name, x)
    got = apply_fused(x, _fused(name, **params))
    assert np.allclose(got, expected, rtol=1e-12, atol=1e-12 * bound.max())
    assert apply_fused(x, None) is x


def test_fused_activation_rules_are_checked_at_their_path(ref_device):
    nested = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_SOFTPLUS,
                                   dml.DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC(None, None, -0.25))
    message = _refusal(ref_device, _gemm_with(nested))
    assert "DML_GEMM_OPERATOR_DESC.FusedActivation.Desc.Steepness -0.25 must" in message
    softmax = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_SOFTMAX,
                                    dml.DML_ACTIVATION_SOFTMAX_OPERATOR_DESC(None, None))
    assert "cannot be fused" in _refusal(ref_device, _gemm_with(softmax))


def test_registry():
    from dmlsim.operators import implemented_names

    names = set(implemented_names())
    activations = {n for n in dml.DML_OPERATOR_TYPE.__members__ if n.startswith("DML_OPERATOR_ACTIVATION_")}
    assert len(activations) == 27 and activations <= names


def test_softplus_steepness_below_1_follows_the_reported_feature_level(ref_device, monkeypatch):
    """The feature-level history: DML_FEATURE_LEVEL_6_4 "updated ACTIVATION_SOFTPLUS to allow Steepness < 1"; below
    6_4 the page's rule (not less than 1) holds. 0 is refused at every level."""
    import dmlsim.operators as registry
    x = tensor(F32, [4])
    monkeypatch.setattr(registry, "implemented_feature_level", lambda: dml.DML_FEATURE_LEVEL_6_4)
    ref_device.CreateOperator(activation("SOFTPLUS", x, Steepness=0.5))  # accepted at 6_4
    assert "Steepness 0.0 must be greater than 0" in _refusal(ref_device, activation("SOFTPLUS", x, Steepness=0.0))
    monkeypatch.setattr(registry, "implemented_feature_level", lambda: dml.DML_FEATURE_LEVEL_6_3)
    assert "Steepness 0.5 must not be less than 1" in _refusal(ref_device, activation("SOFTPLUS", x, Steepness=0.5))


# --- the softmax family's fast path (issue 25): runs of every length, strided outputs, the planner ----------------
# shorter than, equal to, one and more past the kernel's sixteen lanes and its step of two such vectors (32)
SOFTMAX_RUN_LENGTHS = [1, 8, 16, 17, 31, 32, 33, 65]


def softmax_rows(n):
    """Three rows of n: distinct values with ±0; -inf in the tail; a NaN (every output NaN)."""
    x = np.array([[((5 * i + 2 * r) % 9 - 4) / 3 for i in range(n)] for r in range(3)])
    x[0, 0], x[0, n - 1] = -0.0, 0.0
    x[1, n - 1] = -math.inf
    x[2, min(3, n - 1)] = math.nan
    return x


@pytest.mark.parametrize("n", SOFTMAX_RUN_LENGTHS)
@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
def test_softmax_runs_of_every_length(device, data_type, n):
    """SOFTMAX, LOG_SOFTMAX and HARDMAX along a contiguous last dimension of n (the 32-element vector steps and their
    tail; tolerance as the module's: 4 FLOAT32 ulps, 1 FLOAT16 ulp, of max(1, |y|), LOG_SOFTMAX 8 times that)."""
    x = softmax_rows(n).astype(NUMPY[data_type])
    for name, log in (("SOFTMAX", False), ("LOG_SOFTMAX", True)):
        got = run_operator(device, activation(name, tensor(data_type, [3, n])), {"InputTensor": x})["OutputTensor"]
        expected = softmax_loops(x[:2], [1], log)
        check(got[:2], expected, np.maximum(1.0, np.abs(expected)) * (8 if log else 1), data_type, f"{name} {n}")
        assert np.isnan(got[2]).all(), f"{name} {n}: a NaN makes every output of its row NaN"
    got = run_operator(device, activation("HARDMAX", tensor(data_type, [3, n])), {"InputTensor": x})["OutputTensor"]
    marked = [int(np.argmax(x[0])), int(np.argmax(x[1])), min(3, n - 1)]  # the first maximum; the NaN
    np.testing.assert_array_equal(got, np.eye(n)[marked])


def test_softmax_run_subtracts_the_largest_of_every_lane(device):
    """Row r of 65 has its largest element at r (every lane of both sixteen-lane vectors in the first and in a later
    step, and the tail's one), 200 above the rest: exp(x - max) overflows unless each lane's maximum reaches the
    row's. Expected: 1 there, the rest exp(-200) / 1, which is 0 in FLOAT32."""
    n = 65
    x = np.full((n, n), -100.0, np.float32)
    np.fill_diagonal(x, 100.0)
    got = run_operator(device, activation("SOFTMAX", tensor(F32, [n, n])), {"InputTensor": x})["OutputTensor"]
    expected = np.eye(n)
    check(got, expected, np.ones_like(expected), F32, "SOFTMAX")


@pytest.mark.parametrize(("name", "sizes", "x_strides", "y_strides", "axes"), [
    ("padded-rows", [3, 37], [40, 1], [38, 1], [1]),          # contiguous runs at unaligned starts (a vector step)
    ("transposed-output", [3, 37], None, [1, 3], [1]),         # the output's run has step 3: one at a time
    ("transposed-input", [3, 37], [1, 3], None, [1]),
    ("nested-axes", [2, 3, 4], None, None, [1, 2]),            # axes 1 and 2: one run of 12
    ("output-not-nested", [2, 3, 4], None, [12, 1, 3], [1, 2]),  # the input's run, not the output's
    ("axes-0-2", [2, 3, 4], None, None, [0, 2]),               # no run: activation_axes
], ids=lambda value: value if isinstance(value, str) else None)
def test_softmax1_runs_through_strides(device, name, sizes, x_strides, y_strides, axes):
    """SOFTMAX1 through DML strides on either tensor (the run kernel where both walk one progression each); the
    output read back through its own strides. Tolerance: 4 ulps of 1 (outputs below 1)."""
    x = np.array([((7 * i) % 11 - 5) / 2 for i in range(int(np.prod(sizes)))]).reshape(sizes).astype(np.float32)
    desc = activation("SOFTMAX1", tensor(F32, sizes, x_strides), tensor(F32, sizes, y_strides),
                      AxisCount=len(axes), Axes=axes)
    got = run_operator(device, desc, {"InputTensor": x})["OutputTensor"]
    expected = softmax_loops(x, axes)
    check(got, expected, np.ones_like(expected), F32, name)


def planned_run(ref_device, op_desc, is_cpu):
    """(entry point, RUN_CONTIGUOUS) of each launch the operator plans for a CPU or GPU target."""
    from dmlsim.operators.plan import LaunchTarget

    compiled = ref_device.CompileOperator(ref_device.CreateOperator(op_desc), dml.DML_EXECUTION_FLAG_NONE)
    table = ref_device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(
        compiled, None, None, compiled.GetBindingProperties().RequiredDescriptorCount))
    layout = compiled.validated.tensors
    buffers = [ref_device.CreateBuffer(layout[name].total_bytes) for name in ("InputTensor", "OutputTensor")]
    table.BindInputs([dml.buffer_binding(buffers[0], 0, layout["InputTensor"].total_bytes)])
    table.BindOutputs([dml.buffer_binding(buffers[1], 0, layout["OutputTensor"].total_bytes)])
    resolved = table.resolved(ref_device.backend)
    launches = resolved.compiled.operator.plan_launches(resolved.compiled.validated, resolved.bound,
                                                        LaunchTarget(is_cpu=is_cpu, compute_units=2))
    return [(launch.entry, bool(launch.defines.get("RUN_CONTIGUOUS"))) for launch in launches]


@pytest.mark.parametrize(("name", "sizes", "y_strides", "axes", "cpu", "gpu"), [
    ("SOFTMAX", [4, 16], None, None, ("activation_run", True), ("activation_run", True)),
    ("LOG_SOFTMAX", [4, 16], [1, 4], None, ("activation_run", False), ("activation_run", False)),  # output step 4
    ("SOFTMAX", [2, 64], None, None, ("activation_run", True), ("activation_group", False)),  # a group's worth
    ("HARDMAX", [2, 64], None, None, ("activation_run", True), ("activation_run", True)),  # walked in order
    ("SOFTMAX1", [2, 3, 4], None, [1, 2], ("activation_run", True), ("activation_run", True)),
    ("SOFTMAX1", [2, 3, 4], [12, 1, 3], [1, 2], ("activation_axes", False), ("activation_axes", False)),
    ("SOFTMAX1", [2, 3, 4], None, [0, 2], ("activation_axes", False), ("activation_axes", False)),
], ids=["softmax-rows", "log-softmax-transposed-output", "softmax-long-rows", "hardmax-long-rows", "softmax1-nested",
        "softmax1-output-not-nested", "softmax1-axes-0-2"])
def test_softmax_planner_choice(ref_device, name, sizes, y_strides, axes, cpu, gpu):
    """The planner's choice per device kind (AxesActivation.plan_launches)."""
    attrs = {} if axes is None else {"AxisCount": len(axes), "Axes": axes}
    desc = activation(name, tensor(F32, sizes), tensor(F32, sizes, y_strides), **attrs)
    assert planned_run(ref_device, desc, True) == [cpu]
    assert planned_run(ref_device, desc, False) == [gpu]


@pytest.mark.parametrize("n", [64, 67, 130])
def test_softmax_long_rows_on_every_launch_shape(shaped_device, n):
    """Rows of a work-group's worth and more: one work-item per row (CPU shape), one work-group per row (GPU
    shapes); a -inf, ±0, and a row of one value 150 above the rest (exp(x - max) overflows unless the maximum is
    found). Tolerance as the module's (4 FLOAT32 ulps of max(1, |y|), LOG_SOFTMAX 8 times that)."""
    x = np.array([[((5 * i + 2 * r) % 9 - 4) / 3 for i in range(n)] for r in range(3)])
    x[0, 5], x[0, 6], x[1, n - 1] = -0.0, 0.0, -math.inf
    x[2, :], x[2, n - 2] = -50.0, 100.0
    x = x.astype(np.float32)
    for name, log in (("SOFTMAX", False), ("LOG_SOFTMAX", True)):
        got = run_operator(shaped_device, activation(name, tensor(F32, [3, n])), {"InputTensor": x})["OutputTensor"]
        expected = softmax_loops(x, [1], log)
        check(got, expected, np.maximum(1.0, np.abs(expected)) * (8 if log else 1), F32, f"{name} {n}")
