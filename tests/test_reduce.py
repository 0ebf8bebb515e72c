"""DML_OPERATOR_REDUCE (every DML_REDUCE_FUNCTION), DML_OPERATOR_ARGMIN and DML_OPERATOR_ARGMAX, on every adapter.

Expected values are literals from the doc pages' examples and hand calculations, or loops written here
that transcribe the documented formula (never dmlsim's reference). FLOAT32 results: the kernels sum in
float32, in index order or (a contiguous run, issue 25) in eight lanes, or on a GPU in 64 interleaved
partials; the tolerance any order meets is n + 4 ulps of the sum of |x| (the harness's, cases.py). Most
inputs here are small integers, whose float sums are exact in any order (assert_array_equal); rtol 1e-6
covers a few roundings of the other magnitudes.
"""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
from datamove_support import F16, F32, I8, I32, I64, U8, U32, U64, operator, refused, run, tensor, type_id
from plan_support import planned_entries

import dmlsim as dml
from dmlsim.operators import reduce as reduce_operator
from dmlsim.operators.reduce import column_vecs

IN, OUT = "InputTensor", "OutputTensor"
NUMPY_OF = {F32: np.float32, F16: np.float16}
DOC_INPUT = np.array([[1, 2, 3], [3, 0, 4], [2, 4, 2]], np.float32)  # the doc page's examples


def reduce_op(function, x_desc, y_desc, axes):
    return operator("REDUCE", Function=getattr(dml, f"DML_REDUCE_FUNCTION_{function}"), InputTensor=x_desc,
                    OutputTensor=y_desc, AxisCount=len(axes), Axes=list(axes))


def arg_op(name, x_desc, y_desc, axes, direction="INCREASING"):
    return operator(name, InputTensor=x_desc, OutputTensor=y_desc, AxisCount=len(axes), Axes=list(axes),
                    AxisDirection=getattr(dml, f"DML_AXIS_DIRECTION_{direction}"))


@pytest.mark.parametrize(("axes", "out_sizes", "expected"), [
    ([0], [1, 3], [[6, 6, 9]]),          # example 1: columns
    ([1], [3, 1], [[6], [7], [8]]),      # example 2: rows
    ([0, 1], [1, 1], [[21]]),            # example 3: the whole tensor
], ids=["columns", "rows", "all"])
def test_doc_examples_sum(device, axes, out_sizes, expected):
    got = run(device, reduce_op("SUM", tensor(F32, [3, 3]), tensor(F32, out_sizes), axes), InputTensor=DOC_INPUT)
    np.testing.assert_array_equal(got[OUT], np.array(expected, np.float32))


ROWS = np.array([[1, -2, 3], [4, 5, -6]], np.float32)
E = math.exp
# Each function over axis 1 of ROWS, by hand (formulas of the DML_REDUCE_FUNCTION page).
BY_HAND = {
    "SUM": [2, 3], "SUM_SQUARE": [14, 77], "L1": [6, 15], "L2": [math.sqrt(14), math.sqrt(77)],
    "AVERAGE": [2 / 3, 1], "MULTIPLY": [-6, -120], "MAX": [3, 5], "MIN": [-2, -6],
    "LOG_SUM_EXP": [math.log(E(1) + E(-2) + E(3)), math.log(E(4) + E(5) + E(-6))],
}


@pytest.fixture(params=["planned", "generic"])
def kernel(request, monkeypatch):
    """Which REDUCE kernel an OpenCL device runs: the planner's choice (a streaming kernel for these single-run
    reductions), or the generic coordinate-walking kernel, which the planner keeps for reductions that are no
    single run (several axes apart); forcing it here runs the hand-worked cases through both."""
    if request.param == "generic":
        monkeypatch.setattr(reduce_operator, "reduction_run", lambda sizes, strides, axes: None)
    return request.param


@pytest.mark.parametrize("function", list(BY_HAND))
def test_every_float_function_by_hand(device, kernel, function):
    got = run(device, reduce_op(function, tensor(F32, [2, 3]), tensor(F32, [2, 1]), [1]), InputTensor=ROWS)[OUT]
    np.testing.assert_allclose(got[:, 0], BY_HAND[function], rtol=1e-6)


def test_log_sum(device, kernel):
    x = np.array([[0.5, 1.5, 1.0], [2.0, 3.0, 5.0]], np.float32)  # sums 3 and 10
    got = run(device, reduce_op("LOG_SUM", tensor(F32, [2, 3]), tensor(F32, [2, 1]), [1]), InputTensor=x)[OUT]
    np.testing.assert_allclose(got[:, 0], [math.log(3), math.log(10)], rtol=1e-6)


def test_log_sum_exp_does_not_overflow(device, kernel):
    """exp(1000) overflows float32 (and float64); the result, 1000 + log 2, does not."""
    x = np.array([1000, 1000], np.float32)
    got = run(device, reduce_op("LOG_SUM_EXP", tensor(F32, [2]), tensor(F32, [1]), [0]), InputTensor=x)[OUT]
    np.testing.assert_allclose(got, [1000 + math.log(2)], rtol=1e-6)


@pytest.mark.parametrize(("function", "expected"), [("ARGMAX", [2, 1]), ("ARGMIN", [1, 2])])
@pytest.mark.parametrize("index_type", [U32, U64, I32, I64], ids=type_id)
def test_reduce_arg_functions_write_indices(device, function, expected, index_type):
    got = run(device, reduce_op(function, tensor(F32, [2, 3]), tensor(index_type, [2, 1]), [1]), InputTensor=ROWS)
    assert got[OUT].dtype == np.dtype(dml.api.tensor.NUMPY_DTYPE[index_type])
    np.testing.assert_array_equal(got[OUT][:, 0], expected)


def sum_over(x, axes):
    """The documented SUM, transcribed: for each output coordinate, add every input element whose
    coordinates agree with it off the reduced axes (loops, no numpy reductions)."""
    out_shape = [1 if d in axes else s for d, s in enumerate(x.shape)]
    out = np.zeros(out_shape, np.float64)
    for index in itertools.product(*(range(s) for s in x.shape)):
        out[tuple(0 if d in axes else i for d, i in enumerate(index))] += float(x[index])
    return out


@pytest.mark.parametrize(("sizes", "axes"), [
    ([2, 3, 4], [0, 2]), ([2, 3, 4], [2, 0]), ([5], [0]), ([2, 1, 3, 1, 2, 1, 2, 3], [0, 5, 7]),
    ([1, 2, 3, 2, 1, 2, 1, 2], [1, 2, 3, 5, 7]), ([3, 130], [1]), ([2, 3, 2, 1, 3], [0, 2, 4]),
    ([2, 3, 2, 2, 3], [1, 3]),
], ids=["3d-outer", "3d-axes-unsorted", "1d", "8d", "8d-many", "long-rows", "5d-alternate", "5d-inner"])
def test_sum_any_axes_any_rank(device, sizes, axes):
    x = (np.arange(int(np.prod(sizes))) % 7 - 3).astype(np.float32).reshape(sizes)
    out_sizes = [1 if d in axes else s for d, s in enumerate(sizes)]
    got = run(device, reduce_op("SUM", tensor(F32, sizes), tensor(F32, out_sizes), axes), InputTensor=x)[OUT]
    np.testing.assert_array_equal(got, sum_over(x, axes))


def test_strided_input_and_output(device):
    """Padded rows on the input and a padded output column: 2x3 rows summed, then MAX."""
    x_desc = tensor(F32, [2, 3], strides=[8, 2])
    y_desc = tensor(F32, [2, 1], strides=[4, 1])
    got = run(device, reduce_op("SUM", x_desc, y_desc, [1]), InputTensor=ROWS)[OUT]
    np.testing.assert_array_equal(got[:, 0], [2, 3])
    got = run(device, reduce_op("MAX", x_desc, tensor(F32, [1, 3], strides=[0 + 3, 1]), [0]), InputTensor=ROWS)[OUT]
    np.testing.assert_array_equal(got[0], [4, 5, 3])


@pytest.mark.parametrize(("data_type", "function", "x", "expected"), [
    (I32, "SUM", [[2_000_000_000, 2_000_000_000, -5]], [(4_000_000_000 - 5) - 2**32]),  # wraps like int32
    (I64, "MULTIPLY", [[-3, 1 << 40, 2]], [-(3 << 41)]),
    (U32, "SUM_SQUARE", [[3, 4, 65536]], [(9 + 16 + 2**32) % 2**32]),
    (I32, "L1", [[-7, 7, -1]], [15]),
    (U8, "MAX", [[7, 255, 0]], [255]),
    (I8, "MIN", [[-128, 127, 0]], [-128]),
], ids=["int32-sum-wraps", "int64-multiply", "uint32-sum-square-wraps", "int32-l1", "uint8-max", "int8-min"])
def test_integer_reductions(device, data_type, function, x, expected):
    dtype = dml.api.tensor.NUMPY_DTYPE[data_type]
    got = run(device, reduce_op(function, tensor(data_type, [1, 3]), tensor(data_type, [1, 1]), [1]),
              InputTensor=np.array(x, dtype))[OUT]
    assert got.dtype == dtype
    assert got.ravel().tolist() == expected


def test_float16_sum_rounds_once(device):
    """2049 is not a half: 2048 + 1 (ties to even: 2048) and 2048 + 3 = 2051 (nearest halves 2050, 2052: 2052)."""
    x = np.array([[2048, 1], [2048, 3]], np.float16)
    got = run(device, reduce_op("SUM", tensor(F16, [2, 2]), tensor(F16, [2, 1]), [1]), InputTensor=x)[OUT]
    assert got.ravel().tolist() == [2048, 2052]


@pytest.mark.parametrize(("name", "direction", "expected"), [
    ("ARGMAX", "INCREASING", 0), ("ARGMAX", "DECREASING", 2),
    ("ARGMIN", "INCREASING", 1), ("ARGMIN", "DECREASING", 3),
])
def test_argmin_argmax_ties_follow_axis_direction(device, name, direction, expected):
    """[3, 1, 3, 1]: the first (INCREASING) or last (DECREASING) of the equal extremes."""
    x = np.array([3, 1, 3, 1], np.float32)
    got = run(device, arg_op(name, tensor(F32, [4]), tensor(U32, [1]), [0], direction), InputTensor=x)[OUT]
    assert got.tolist() == [expected]


@pytest.mark.parametrize(("direction", "expected"), [("INCREASING", 1), ("DECREASING", 2)])
def test_argmax_over_two_axes_counts_row_major(device, direction, expected):
    """[[1, 5], [5, 0]] over both axes: the 5s are at flat indices 1 and 2 of the reduced axes."""
    x = np.array([[[1, 5], [5, 0]], [[9, 0], [0, 0]]], np.int32)
    got = run(device, arg_op("ARGMAX", tensor(I32, [2, 2, 2]), tensor(I64, [2, 1, 1]), [1, 2], direction),
              InputTensor=x)[OUT]
    assert got.ravel().tolist() == [expected, 0]


NAN, INF = math.nan, math.inf
# Rows of five with NaN, ±infinity and ±0, and per row the literal indices (dmlsim's rule, README "Decisions": a
# NaN is chosen over every number, by ARGMAX and ARGMIN alike; among NaNs, as among equal numbers, the first for
# INCREASING and the last for DECREASING; -0 equals +0): (ARGMAX first, ARGMAX last, ARGMIN first, ARGMIN last).
NAN_ROWS = [
    ([NAN, 1, 2, 3, 4], (0, 0, 0, 0)),            # NaN first
    ([1, 2, NAN, 3, 4], (2, 2, 2, 2)),            # NaN in the middle: before the maximum, after the minimum
    ([1, 2, 3, 4, NAN], (4, 4, 4, 4)),            # NaN last
    ([1, NAN, 3, NAN, 0], (1, 3, 1, 3)),          # two NaNs
    ([NAN, NAN, NAN, NAN, NAN], (0, 4, 0, 4)),    # all NaN
    ([INF, 1, NAN, -INF, INF], (2, 2, 2, 2)),     # NaN beats both infinities
    ([-INF, 5, INF, INF, -INF], (2, 3, 0, 4)),    # no NaN: infinities tie among themselves
    ([0.0, -0.0, 0.0, -0.0, -1], (0, 3, 4, 4)),   # +0 and -0 are equal maxima
    ([-0.0, 0.0, 1, 0.0, -0.0], (2, 2, 0, 4)),    # ... and equal minima
]


ARG_CASES = [("ARGMAX", "INCREASING"), ("ARGMAX", "DECREASING"), ("ARGMIN", "INCREASING"), ("ARGMIN", "DECREASING"),
             ("REDUCE ARGMAX", "INCREASING"), ("REDUCE ARGMIN", "INCREASING")]  # REDUCE: no AxisDirection, the first


@pytest.mark.parametrize(("name", "direction"), ARG_CASES, ids=[f"{n.replace(' ', '-')}-{d}" for n, d in ARG_CASES])
@pytest.mark.parametrize("data_type", [F32, F16], ids=type_id)
def test_arg_functions_choose_nan_wherever_it_stands(device, name, direction, data_type):
    """The same index on every device whatever the NaN's position (OpenCL gave 2 for ARGMAX [1, NaN, 3], the
    reference 1; a NaN in front always won there). Not marked ``formula``: the Oclgrind tier runs it."""
    x = np.array([row for row, _ in NAN_ROWS], NUMPY_OF[data_type])
    column = {"ARGMAX": 0, "ARGMIN": 2}[name.split()[-1]] + (direction == "DECREASING")
    expected = [indices[column] for _, indices in NAN_ROWS]
    x_desc, y_desc = tensor(data_type, list(x.shape)), tensor(I64, [len(NAN_ROWS), 1])
    op = reduce_op(name.split()[1], x_desc, y_desc, [1]) if name.startswith("REDUCE") else \
        arg_op(name, x_desc, y_desc, [1], direction)
    assert run(device, op, InputTensor=x)[OUT].ravel().tolist() == expected


@pytest.mark.parametrize(("direction", "expected"), [("INCREASING", [1, 0]), ("DECREASING", [2, 3])])
def test_argmin_nan_over_two_axes_counts_row_major(device, direction, expected):
    """[[1, NaN], [NaN, 0]] over both axes: its NaNs are at flat indices 1 and 2; [[NaN, 2], [3, NaN]]: 0 and 3."""
    x = np.array([[[1, NAN], [NAN, 0]], [[NAN, 2], [3, NAN]]], np.float32)
    got = run(device, arg_op("ARGMIN", tensor(F32, [2, 2, 2]), tensor(U32, [2, 1, 1]), [1, 2], direction),
              InputTensor=x)[OUT]
    assert got.ravel().tolist() == expected


def test_argmin_float16_strided(device):
    x = np.array([[0.5, -1, 2], [-3, -3, 7]], np.float16)
    got = run(device, arg_op("ARGMIN", tensor(F16, [2, 3], strides=[4, 1]), tensor(I32, [2, 1]), [1]),
              InputTensor=x)[OUT]
    assert got.ravel().tolist() == [1, 0]


# --- validation: each rule of the doc pages, each refusal naming the field -----------------------------
@pytest.mark.parametrize(("make", "message"), [
    (lambda: reduce_op("SUM", tensor(F32, [2, 3]), tensor(F32, [2, 1]), [2]),
     r"DML_REDUCE_OPERATOR_DESC.Axes\[0\] 2 must be in \[0, 1\]"),
    (lambda: reduce_op("SUM", tensor(F32, [2, 3]), tensor(F32, [1, 1]), [1, 1]),
     r"DML_REDUCE_OPERATOR_DESC.Axes\[1\] 1 repeats an axis"),
    (lambda: reduce_op("SUM", tensor(F32, [2, 3]), tensor(F32, [2, 1, 1]), [1]),
     r"DML_REDUCE_OPERATOR_DESC.OutputTensor.DimensionCount 3 must equal InputTensor.DimensionCount 2"),
    (lambda: reduce_op("SUM", tensor(F32, [2, 3]), tensor(F32, [2, 3]), [1]),
     r"DML_REDUCE_OPERATOR_DESC.OutputTensor.Sizes \[2, 3\] must be \[2, 1\]"),
    (lambda: reduce_op("SUM", tensor(F32, [2, 3]), tensor(F32, [1, 1]), [1]),
     r"OutputTensor.Sizes \[1, 1\] must be \[2, 1\]"),
    (lambda: reduce_op("AVERAGE", tensor(I32, [2, 3]), tensor(I32, [2, 1]), [1]),
     r"DML_REDUCE_OPERATOR_DESC.InputTensor.DataType INT32 is not supported by DML_OPERATOR_REDUCE with AVERAGE"),
    (lambda: reduce_op("SUM", tensor(I8, [2, 3]), tensor(I8, [2, 1]), [1]),
     r"InputTensor.DataType INT8 is not supported by DML_OPERATOR_REDUCE with SUM"),
    (lambda: reduce_op("SUM", tensor(F32, [2, 3]), tensor(F16, [2, 1]), [1]),
     r"DML_REDUCE_OPERATOR_DESC.OutputTensor.DataType FLOAT16 must equal InputTensor.DataType FLOAT32"),
    (lambda: reduce_op("ARGMAX", tensor(F32, [2, 3]), tensor(F32, [2, 1]), [1]),
     r"DML_REDUCE_OPERATOR_DESC.OutputTensor.DataType FLOAT32 is not supported for the indices of ARGMAX"),
    (lambda: arg_op("ARGMIN", tensor(F32, [2, 3]), tensor(U8, [2, 1]), [1]),
     r"DML_ARGMIN_OPERATOR_DESC.OutputTensor.DataType UINT8 is not supported for the indices of ARGMIN"),
    (lambda: arg_op("ARGMAX", tensor(F32, [2, 3]), tensor(U32, [2, 1]), [5]),
     r"DML_ARGMAX_OPERATOR_DESC.Axes\[0\] 5 must be in \[0, 1\]"),
    (lambda: arg_op("ARGMAX", tensor(dml.DML_TENSOR_DATA_TYPE_FLOAT64, [2, 3]), tensor(U32, [2, 1]), [1]),
     r"DML_ARGMAX_OPERATOR_DESC.InputTensor.DataType FLOAT64 is not supported"),
], ids=["axis-range", "axis-repeated", "rank", "sizes-kept", "sizes-reduced-only", "average-int", "sum-int8",
        "output-type", "argmax-float-output", "argmin-uint8-output", "argmax-axis-range", "argmax-float64"])
def test_refusals_name_the_field(ref_device, make, message):
    assert re.search(message, refused(ref_device, make()))


def test_axes_must_hold_axis_count(ref_device):
    desc = reduce_op("SUM", tensor(F32, [2, 3]), tensor(F32, [2, 1]), [1])
    desc.Desc.AxisCount = 2
    assert "DML_REDUCE_OPERATOR_DESC.Axes must hold AxisCount (2) values" in refused(ref_device, desc)


ARGMAX_DOC = np.array([[1, 2, 3], [3, 0, 4], [2, 5, 2]], np.float32)  # DML_ARGMAX_OPERATOR_DESC's examples


@pytest.mark.parametrize(("axes", "out_sizes", "expected"), [
    ([0], [1, 3], [[1, 2, 1]]), ([1], [3, 1], [[2], [2], [1]]), ([0, 1], [1, 1], [[7]]),
], ids=["columns", "rows", "all"])
def test_argmax_doc_examples(device, axes, out_sizes, expected):
    got = run(device, arg_op("ARGMAX", tensor(F32, [3, 3]), tensor(U32, out_sizes), axes), InputTensor=ARGMAX_DOC)
    assert got[OUT].tolist() == expected


@pytest.mark.parametrize(("direction", "expected"), [("INCREASING", 0), ("DECREASING", 4)])
def test_argmax_doc_tie_examples(device, direction, expected):
    """argmax({3, 2, 1, 2, 3}) is 0 (INCREASING) or 4 (DECREASING)."""
    x = np.array([3, 2, 1, 2, 3], np.float32)
    assert run(device, arg_op("ARGMAX", tensor(F32, [5]), tensor(U32, [1]), [0], direction),
               InputTensor=x)[OUT].tolist() == [expected]


@pytest.mark.parametrize(("function", "expected"), [("SUM", [1, -2, 3]), ("L1", [1, 2, 3]), ("ARGMAX", [0, 0, 0])])
def test_no_axes_reduces_each_element_alone(device, function, expected):
    """AxisCount 0 (dmlsim's reading, README "Decisions"): every output is the function of one element."""
    out_type = U32 if function == "ARGMAX" else F32
    x = np.array([1, -2, 3], np.float32)
    got = run(device, reduce_op(function, tensor(F32, [3]), tensor(out_type, [3]), []), InputTensor=x)[OUT]
    assert got.tolist() == expected


# --- the fast paths (issue 25): runs of every length, strided and broadcast runs, the planner's choice --------
RUN_LENGTHS = [1, 7, 8, 9, 67, 130]  # shorter than, equal to, one past the 8 lanes; past one GPU group of 64


def integer_rows(n, rows):
    """Small integers, different in every row and lane (float sums exact in any order)."""
    return np.array([[(5 * i + 3 * row) % 11 - 5 for i in range(n)] for row in range(rows)], np.float64)


def loop_sum(values):
    total = 0.0
    for value in values:
        total += float(value)
    return total


def loop_max(values):
    """fmax's maximum: NaN ignored unless every element is NaN."""
    numbers = [float(v) for v in values if not math.isnan(v)]
    return max(numbers) if numbers else math.nan


def first_extreme(values):
    """ARGMAX's index: the first NaN, else the first largest element."""
    for i, value in enumerate(values):
        if math.isnan(value):
            return i
    best = max(values)
    return next(i for i, value in enumerate(values) if value == best)


@pytest.mark.parametrize("n", RUN_LENGTHS)
def test_runs_of_every_length_on_every_launch_shape(shaped_device, n):
    """A contiguous last axis of n: the eight-lane stream and its tail (CPU shape), one work-group per row (GPU
    shape, n >= 64), one work-item per row for the selecting functions. Row 1 holds +inf in its last element (the
    tail), row 2 a NaN; FLOAT16 and INT32 (wrapping) take the same paths."""
    x = integer_rows(n, 3)
    x[1, n - 1] = math.inf
    x[2, min(3, n - 1)] = math.nan
    x32 = x.astype(np.float32)

    def reduced(function, data_type, values, out_type=None):
        desc = reduce_op(function, tensor(data_type, list(values.shape)),
                         tensor(out_type or data_type, [values.shape[0], 1]), [1])
        return run(shaped_device, desc, InputTensor=values)[OUT][:, 0]

    np.testing.assert_array_equal(reduced("SUM", F32, x32), [loop_sum(row) for row in x])
    np.testing.assert_array_equal(reduced("MAX", F32, x32), [loop_max(row) for row in x])
    np.testing.assert_allclose(reduced("AVERAGE", F32, x32[:1]), [loop_sum(x[0]) / n], rtol=1e-6)
    np.testing.assert_array_equal(reduced("L1", F32, x32[:1]), [loop_sum(abs(v) for v in x[0])])
    assert reduced("ARGMAX", F32, x32, U32).tolist() == [first_extreme(list(row)) for row in x]
    halves = integer_rows(n, 2).astype(np.float16)
    np.testing.assert_array_equal(reduced("SUM", F16, halves), [loop_sum(row) for row in halves])
    big = np.array([[2**30 + 7 * i + row for i in range(n)] for row in range(2)], np.int64)
    wrapped = [(int(row.sum()) + 2**31) % 2**32 - 2**31 for row in big]  # int32's wrapping sum
    assert reduced("SUM", I32, big.astype(np.int32)).tolist() == wrapped


@pytest.mark.parametrize(("name", "sizes", "strides", "axes"), [
    ("middle-axis", [2, 9, 3], None, [1]),                    # one work-item per output, stride 3
    ("broadcast-rows", [3, 9], [1, 0], [1]),                  # stride 0: each row is one value 9 times
    ("padded-odd-rows", [3, 9], [11, 1], [1]),                # contiguous runs starting at odd elements
    ("nested-axes", [2, 3, 4], None, [1, 2]),                 # axes 1, 2 make one run of 12
    ("nested-strided", [2, 3, 4], [40, 12, 3], [1, 2]),       # one run of 12, stride 3
    ("not-nested", [2, 3, 4], [24, 4, 1], [0, 2]),            # no single run: the generic kernel
    ("columns", [3, 5, 16], None, [1]),                       # CPUs: eight outputs per work-item
    ("columns-padded", [3, 16], [20, 1], [0]),                # the same over padded rows
    ("columns-broadcast", [4, 8], [0, 1], [0]),               # stride 0 along the reduced axis
    ("columns-two-vectors", [9, 3, 16], None, [1]),           # 144 outputs: 16 per work-item (two vectors)
], ids=lambda value: value if isinstance(value, str) else None)
def test_strided_and_broadcast_runs(device, name, sizes, strides, axes):
    """SUM and MAX over runs that are not a packed last axis, read through DML strides."""
    packed = strides or [int(np.prod(sizes[d + 1:])) for d in range(len(sizes))]
    span = sum((s - 1) * st for s, st in zip(sizes, packed, strict=True)) + 1
    flat = np.array([(7 * i) % 13 - 6 for i in range(span)], np.float32)
    flat[5 % span], flat[10 % span] = math.inf, math.nan  # reach some outputs (SUM: inf, NaN; MAX ignores the NaN)
    logical = np.lib.stride_tricks.as_strided(flat, sizes, [st * 4 for st in packed])
    out_sizes = [1 if d in axes else s for d, s in enumerate(sizes)]
    for function, combine in (("SUM", loop_sum), ("MAX", loop_max)):
        desc = reduce_op(function, tensor(F32, sizes, strides), tensor(F32, out_sizes), axes)
        got = run(device, desc, InputTensor=np.ascontiguousarray(logical))[OUT]
        expected = np.zeros(out_sizes)
        for out_index in itertools.product(*(range(s) for s in out_sizes)):
            ranges = [range(sizes[d]) if d in axes else [i] for d, i in enumerate(out_index)]
            expected[out_index] = combine(logical[index] for index in itertools.product(*ranges))
        np.testing.assert_array_equal(got, expected, err_msg=f"{name} {function}")


@pytest.mark.parametrize(("row", "n_out", "vectors"), [
    (512, 4096, 64),   # a whole row per work-item leaves 8 work-items, 4 per compute unit
    (512, 1024, 16),   # fewer outputs: 8 work-items of 16 vectors
    (16, 144, 2),      # tests' columns-two-vectors
    (16, 48, 1),       # too few outputs for 4 work-items per unit: one vector each
    (24, 4096, 1),     # 24 = 3 vectors: only one divides it
])
def test_column_vectors_per_work_item(row, n_out, vectors):
    """reduce_columns' width on a 2-unit CPU: the most vectors dividing the row that leave 4 work-items per unit."""
    assert column_vecs(row, n_out, 2) == vectors


@pytest.mark.parametrize(("function", "sizes", "strides", "axes", "cpu", "gpu"), [
    ("SUM", [4, 64], None, [1], "reduce_run", "reduce_group"),        # a contiguous run of a group or more
    ("MAX", [4, 64], None, [1], "reduce_run", "reduce_group"),
    ("SUM", [4, 63], None, [1], "reduce_run", "reduce_run"),          # shorter than a group
    ("ARGMAX", [4, 64], None, [1], "reduce_run", "reduce_run"),       # the index keeps one work-item per output
    ("LOG_SUM_EXP", [4, 64], None, [1], "reduce_run", "reduce_run"),
    ("SUM", [64, 64], None, [0], "reduce_columns", "reduce_run"),     # strided: eight outputs per item on CPUs
    ("MIN", [3, 64, 16], None, [1], "reduce_columns", "reduce_run"),  # GPUs: neighbouring items read neighbours
    ("SUM", [64, 63], None, [0], "reduce_run", "reduce_run"),         # a row not a multiple of 8
    ("SUM", [64, 64], [1, 64], [0], "reduce_run", "reduce_group"),    # transposed: the reduced axis is contiguous
    ("ARGMAX", [64, 64], None, [0], "reduce_run", "reduce_run"),
    ("SUM", [4, 64], [0, 0], [1], "reduce_run", "reduce_run"),        # broadcast: stride 0
    ("SUM", [2, 3, 4], None, [0, 2], "reduce", "reduce"),             # no single run
], ids=["sum-row", "max-row", "sum-short-row", "argmax-row", "lse-row", "sum-column", "min-middle", "sum-column-63",
        "sum-column-transposed", "argmax-column", "sum-broadcast", "sum-axes-0-2"])
def test_planner_choice(ref_device, function, sizes, strides, axes, cpu, gpu):
    """The planner's choice per device kind (the operator's docstring)."""
    out_type = U32 if function == "ARGMAX" else F32
    out_sizes = [1 if d in axes else s for d, s in enumerate(sizes)]
    desc = reduce_op(function, tensor(F32, sizes, strides), tensor(out_type, out_sizes), axes)
    assert planned_entries(ref_device, desc, True) == [cpu]
    assert planned_entries(ref_device, desc, False) == [gpu]


@pytest.mark.parametrize("function", ["SUM", "MIN", "MULTIPLY"])
def test_columns_of_float16_and_integers(device, function):
    """A middle axis beside a kept innermost one of 8 (CPU devices: reduce_columns), FLOAT16 rounding once and
    INT32 wrapping as the one-work-item walk does. Integers: exact; FLOAT16: the float32 result rounded once."""
    sizes, out_sizes = [2, 3, 8], [2, 1, 8]
    ints = np.array([[[(3 * i + 5 * j + k) % 7 - 3 for k in range(8)] for j in range(3)] for i in range(2)])
    halves = ints.astype(np.float16)
    got = run(device, reduce_op(function, tensor(F16, sizes), tensor(F16, out_sizes), [1]), InputTensor=halves)[OUT]
    combine = {"SUM": sum, "MIN": min, "MULTIPLY": math.prod}[function]
    expected = [[[combine(float(ints[i, j, k]) for j in range(3)) for k in range(8)]] for i in range(2)]
    np.testing.assert_array_equal(got, np.array(expected, np.float16))
    if function == "MIN":
        return  # MIN of INT32 is the integer selection the other tests check
    big = (ints.astype(np.int64) + 2**29) * 3
    wrapped = [[[(combine(int(big[i, j, k]) for j in range(3)) + 2**31) % 2**32 - 2**31 for k in range(8)]]
               for i in range(2)]
    got = run(device, reduce_op(function, tensor(I32, sizes), tensor(I32, out_sizes), [1]),
              InputTensor=big.astype(np.int32))[OUT]
    assert got.tolist() == wrapped
