"""ScatterElements and ScatterND with a reduction (add, mul, max, min) composed of DirectML operators
(dmlsim/onnx/ops_scatred.py), on every device.

Expected values are onnx.reference's (its ScatterElements/ScatterND: the updates applied one at a time, in order, in
the data's type) or numpy written here. Where the inputs make every partial result exact (small integers, halves,
infinities, integer types), the composition must equal the reference bit for bit, whatever order it combines the
duplicates in. Random float32 sums are judged in ulps: with m updates at one element the composition (the matched
updates summed in float32, then added to the data element) and ONNX's sequential sum are each within m ulps of the
magnitude bound |data| + Σ|updates|, so they agree within 2m + 1 ulps of it. FLOAT16 rounds the reduction and the
combine once each (float32 arithmetic inside): within 1.5 FLOAT16 ulps of the bound from the float64 sum.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from dmlsim import backend
from dmlsim.api.errors import DMLError
from dmlsim.api.numerics import compare_ulps


def _model(op, data, indices, updates, opset=18, transpose=(), **attributes):
    """A one-node model (``transpose``: the named inputs go through a Transpose first, so the scatter reads them
    through strided views)."""
    kind = helper.np_dtype_to_tensor_dtype(data.dtype)
    names = {"data": "data", "indices": "indices", "updates": "updates"}
    nodes = []
    for name in transpose:
        names[name] = f"{name}_t"
        nodes.append(helper.make_node("Transpose", [name], [names[name]]))
    nodes.append(helper.make_node(op, [names["data"], names["indices"], names["updates"]], ["y"], **attributes))
    out_shape = data.shape[::-1] if "data" in transpose else data.shape
    inputs = [helper.make_tensor_value_info("data", kind, list(data.shape)),
              helper.make_tensor_value_info("indices", helper.np_dtype_to_tensor_dtype(indices.dtype),
                                            list(indices.shape)),
              helper.make_tensor_value_info("updates", kind, list(updates.shape))]
    graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info("y", kind, list(out_shape))])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _both(device, model, *arrays):
    """(dmlsim's output on ``device``, onnx.reference's output)."""
    from onnx.reference import ReferenceEvaluator

    (got,) = backend.prepare(model, device).run(list(arrays))
    with np.errstate(all="ignore"):
        (expected,) = ReferenceEvaluator(model).run(None, dict(zip(("data", "indices", "updates"), arrays,
                                                                   strict=True)))
    return got, expected


def test_scatter_elements_add_combines_duplicates_and_negative_indices(device):
    """Row 0: element 1 gets two updates, element 4 one as 4 and one as −1 (5 + 1 − inf = −inf); row 1: element 2
    three (one as −3: −0 + 1.5 + 2.5 + 4 = 8), element 0 a NaN. Elements without updates keep data (inf, −0)."""
    inf, nan = np.inf, np.nan
    data = np.array([[1.0, -0.0, 2.0, inf, 5.0], [0.5, 3.0, -0.0, 7.0, -0.0]], np.float32)
    indices = np.array([[1, 4, -1, 1], [2, 2, 0, -3]], np.int64)
    updates = np.array([[0.25, 1.0, -inf, 0.5], [1.5, 2.5, nan, 4.0]], np.float32)
    got, expected = _both(device, _model("ScatterElements", data, indices, updates, axis=1, reduction="add"),
                          data, indices, updates)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, expected)
    assert got[0, 1] == 0.75 and got[0, 4] == -inf and np.isnan(got[1, 0]) and got[1, 2] == 8.0
    assert np.signbit(got[1, 4]) and got[0, 3] == inf  # untouched elements keep their bits


@pytest.mark.parametrize("reduction", ["mul", "max", "min"])
def test_scatter_elements_mul_max_min_on_a_middle_axis_of_strided_inputs(device, reduction):
    """Axis −2 of a 3-D tensor, data and updates read through Transposes (strided views), duplicates at several
    places; values are halves and small integers (products exact), negatives and ±inf (max/min identities)."""
    rng = np.random.default_rng(5)
    data = rng.integers(-4, 5, (4, 3, 2)).astype(np.float32) / 2  # transposed to (2, 3, 4)
    data[0, 1, 1] = -np.inf
    indices = np.array([[[0, 2, -1, 1], [-3, 2, 2, 0]], [[1, 1, 1, 0], [0, -2, 2, 2]], [[2, 0, 0, 1], [1, 1, 1, 1]]],
                       np.int64).transpose(1, 0, 2)  # (2, 3, 4): 3 along axis −2
    updates = (rng.integers(-6, 7, (4, 3, 2)).astype(np.float32) / 2)
    updates[2, 1, 0] = np.inf
    got, expected = _both(device, _model("ScatterElements", data, indices, updates, transpose=("data", "updates"),
                                         axis=-2, reduction=reduction), data, indices, updates)
    np.testing.assert_array_equal(got, expected)


def _ints(rows, dtype):
    """Python integers as ``dtype``, wrapped to its width (250 as int8 is −6)."""
    dtype = np.dtype(dtype)
    wrapped = [[v % 2 ** (8 * dtype.itemsize) for v in row] for row in np.atleast_2d(np.array(rows, object))]
    return np.array(wrapped, f"u{dtype.itemsize}").view(dtype).reshape(np.shape(rows))


@pytest.mark.parametrize(("dtype", "reduction"), [(np.int8, "add"), (np.uint8, "mul"), (np.int16, "mul"),
                                                  (np.int32, "max"), (np.int64, "min"), (np.uint64, "add")])
def test_integer_reductions_are_exact_and_wrap(device, dtype, reduction):
    """Integers combine exactly, wrapping as ONNX's numpy reference wraps: int8 sums past 127, uint8 and int16
    products past their range (REDUCE multiplies in UINT32/INT32 and CAST wraps back), the extremes of int32/int64
    (the max/min identities are the type's extremes: an update equal to one must still win), uint64 past 2^64."""
    info = np.iinfo(dtype)
    data = _ints([[100, 7, int(info.max), 3], [int(info.min), 2, 5, 9]], dtype)
    indices = np.array([[0, 0, 1, 0], [0, 1, 1, -2]], np.int64)  # axis 0: duplicates in columns 0, 2 and 3
    updates = _ints([[120, int(info.min), 250, 9], [3, int(info.max), 17, 1]], dtype)
    got, expected = _both(device, _model("ScatterElements", data, indices, updates, reduction=reduction),
                          data, indices, updates)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, expected)
    # the same on ScatterND, whose rows here name the elements one by one
    rows = np.array([[0, 0], [1, -4], [-2, 0], [1, 1], [0, 1], [1, 1]], np.int64)
    values = _ints([120, 3, 100, int(info.max), 1, 200], dtype)
    got, expected = _both(device, _model("ScatterND", data, rows, values, reduction=reduction), data, rows, values)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("reduction", ["add", "mul", "max", "min"])
def test_scatter_nd_slices_with_duplicate_tuples(device, reduction):
    """Tuples of 2 into (3, 2, 4) data: [0, 1] three times (as [−3, 1] and [0, −1] too), [2, 0] twice, [1, 0] once;
    slices of 4. Halves and small integers: every partial sum and product is exact."""
    rng = np.random.default_rng(11)
    data = (rng.integers(-6, 7, (3, 2, 4)) / 2).astype(np.float32)
    indices = np.array([[0, 1], [-3, 1], [2, 0], [0, -1], [2, -2], [1, 0]], np.int64)
    updates = (rng.integers(-6, 7, (6, 4)) / 2).astype(np.float32)
    got, expected = _both(device, _model("ScatterND", data, indices, updates, reduction=reduction),
                          data, indices, updates)
    np.testing.assert_array_equal(got, expected)


def test_random_float32_sums_agree_within_the_stated_ulps(device):
    """8 rows of updates into 4 with random float32 values: up to 8 updates at one element, 2·8 + 1 ulps of the
    bound |data| + Σ|updates| from the float64 sum written here (np.add.at)."""
    rng = np.random.default_rng(3)
    data = rng.standard_normal((4, 6)).astype(np.float32)
    indices = rng.integers(-4, 4, (8, 6)).astype(np.int64)
    updates = (rng.standard_normal((8, 6)) * 100).astype(np.float32)
    (got,) = backend.prepare(_model("ScatterElements", data, indices, updates, reduction="add"), device).run(
        [data, indices, updates])
    columns = np.broadcast_to(np.arange(6), indices.shape)
    exact, bound = data.astype(np.float64), np.abs(data.astype(np.float64))
    np.add.at(exact, (indices % 4, columns), updates.astype(np.float64))
    np.add.at(bound, (indices % 4, columns), np.abs(updates.astype(np.float64)))
    report = compare_ulps(got, exact, np.float32, 17, bound)
    assert report.ok, report.mismatches[:5]


def test_float16_scatter_nd_add_rounds_to_the_stated_ulps(device):
    """FLOAT16 data: within 1.5 FLOAT16 ulps of the bound from the float64 sum (written here)."""
    rng = np.random.default_rng(8)
    data = rng.standard_normal((5, 3)).astype(np.float16)
    indices = np.array([[1], [3], [1], [-4], [0], [1]], np.int64)
    updates = rng.standard_normal((6, 3)).astype(np.float16)
    (got,) = backend.prepare(_model("ScatterND", data, indices, updates, reduction="add"), device).run(
        [data, indices, updates])
    assert got.dtype == np.float16
    exact, bound = data.astype(np.float64), np.abs(data.astype(np.float64))
    np.add.at(exact, indices[:, 0] % 5, updates.astype(np.float64))
    np.add.at(bound, indices[:, 0] % 5, np.abs(updates.astype(np.float64)))
    report = compare_ulps(got, exact, np.float16, 1.5, bound)
    assert report.ok, report.mismatches[:5]


def test_max_min_ignore_a_nan_beside_a_number_as_directml_does(device):
    """dmlsim's decision (ONNX's references disagree): DirectML's MAX/MIN (fmax/fmin) keep the number beside a NaN
    update; a NaN data element with no update stays NaN; a NaN data element with an update takes the update."""
    nan = np.nan
    data = np.array([[1.0, nan], [3.0, 4.0]], np.float32)
    indices = np.array([[0, 0], [0, 0], [1, 1], [-1, 0]], np.int64)
    updates = np.array([nan, 2.0, nan, -5.0], np.float32)
    for reduction, expected in (("max", [[2.0, nan], [3.0, 4.0]]), ("min", [[1.0, nan], [-5.0, 4.0]])):
        (got,) = backend.prepare(_model("ScatterND", data, indices, updates, reduction=reduction), device).run(
            [data, indices, updates])
        np.testing.assert_array_equal(got, np.array(expected, np.float32), err_msg=reduction)
    data[0, 1] = nan
    one, six = np.array([[0, 1]], np.int64), np.array([6.0], np.float32)
    (got,) = backend.prepare(_model("ScatterND", data, one, six, reduction="max"), device).run([data, one, six])
    assert got[0, 1] == 6.0


def test_refusals_name_the_node_and_the_reason(ref_device):
    """FLOAT64 (no DirectML arithmetic), bool, ScatterElements indices smaller than the data off the axis, and a
    match tensor over 2^24 elements (4097 rows compared with 4097) are refused by the lowering with located
    messages; reduction 'none' keeps the plain scatter."""
    def run(data, indices, updates, op="ScatterND", **attributes):
        return backend.prepare(_model(op, data, indices, updates, **attributes), ref_device).run(
            [data, indices, updates])

    with pytest.raises(DMLError, match=r"ScatterND node .*opset 18.*'add' on float64 data: .*no FLOAT64"):
        run(np.zeros(3), np.array([[0]]), np.ones(1), reduction="add")
    with pytest.raises(DMLError, match=r"ScatterElements node .*'max' on bool data: ONNX defines no arithmetic"):
        run(np.zeros(3, np.bool_), np.array([0]), np.ones(1, np.bool_), op="ScatterElements", reduction="max")
    with pytest.raises(DMLError, match=r"ScatterElements node .*indices \[1, 2\] smaller than data \[3, 2\] off"):
        run(np.zeros((3, 2), np.float32), np.array([[0, 0]]), np.ones((1, 2), np.float32), op="ScatterElements",
            axis=1, reduction="mul")
    rows = np.zeros((4097, 1), np.int64)
    with pytest.raises(DMLError, match=r"ScatterND node .*16785409-element match tensor, over its limit of 2\^24"):
        run(np.zeros(4097, np.float32), rows, np.ones(4097, np.float32), reduction="min")
    got = run(np.zeros(4, np.float32), np.array([[1], [1]]), np.array([2.0, 3.0], np.float32))[0]
    assert got[1] in (2.0, 3.0) and got[0] == 0.0  # no reduction: one of the writes wins


def test_a_negative_zero_sum_ends_positive_as_the_reduce_starts_from_zero(device):
    """The documented corner where the composition's order shows: −0 data with only −0 updates is +0 here (REDUCE's
    sum starts from +0 on every device; ONNX's sequential −0 + −0 keeps −0). Data elements without updates keep
    their −0."""
    data = np.array([-0.0, -0.0, 1.0], np.float32)
    indices, updates = np.array([[0], [0], [2]], np.int64), np.array([-0.0, -0.0, -0.0], np.float32)
    (got,) = backend.prepare(_model("ScatterND", data, indices, updates, reduction="add"), device).run(
        [data, indices, updates])
    assert got[0] == 0.0 and not np.signbit(got[0]) and np.signbit(got[1]) and got[2] == 1.0
