"""ONNX's node cases as the external oracle of the data-movement operators: Trilu and EyeLike onto
DML_DIAGONAL_MATRIX1 / DML_DIAGONAL_MATRIX (dmlsim/operators/diagonal), ReverseSequence onto
DML_REVERSE_SUBSEQUENCES (dmlsim/operators/reverse_subsequences), Col2Im onto DML_FOLD (dmlsim/operators/fold), each
case mapped as onnxruntime's DirectML
provider maps the node and run on every adapter, and a third of them through dmlsim's ONNX lowering
(dmlsim/onnx/ops_move.py) on the reference device. Cases that do not map are listed with the reason (skipped
saying it), never dropped. Expected outputs are onnx's, compared exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import NUMPY, operator, run, tensor
from onnx_node_cases import case_ids, node_attributes, node_cases

import dmlsim as dml

OUT = "OutputTensor"
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
DML_TYPE = {np.dtype(v): k for k, v in NUMPY.items()}


def diag(data_type, sizes, offset, value):
    return operator("DIAGONAL_MATRIX", OutputTensor=tensor(data_type, sizes), Offset=offset, Value=value)


def diag1(out_desc, value, begin, end, x_desc):
    return operator("DIAGONAL_MATRIX1", InputTensor=x_desc, OutputTensor=out_desc,
                    ValueDataType=out_desc.Desc.DataType, Value=value, DiagonalFillBegin=begin,
                    DiagonalFillEnd=end)


# --- Trilu and EyeLike ------------------------------------------------------------------------------------------
TRILU = node_cases("Trilu")
EYE_LIKE = node_cases("EyeLike")
# Trilu cases that do not map, with the reason (run below, skipped with it: listed, never dropped).
UNMAPPED = {
    "test_triu_zero": "a (0, 5) input: DirectML tensors have no size-0 dimension",
    "test_tril_zero": "a (3, 0, 5) input: DirectML tensors have no size-0 dimension",
}


def trilu_span(case):
    """(Begin, End) as onnxruntime's provider sets them (upper: [INT32_MIN, k); lower: [k + 1, INT32_MAX))."""
    inputs = case.data_sets[0][0]
    k = int(inputs[1]) if len(inputs) > 1 else 0
    upper = node_attributes(case).get("upper", 1)
    return (INT32_MIN, k) if upper else (k + 1, INT32_MAX)


@pytest.mark.parametrize("case", TRILU, ids=case_ids(TRILU))
def test_onnx_trilu(device, case):
    if case.name in UNMAPPED:
        pytest.skip(UNMAPPED[case.name])
    x, expected = case.data_sets[0][0][0], case.data_sets[0][1][0]
    data_type = DML_TYPE[x.dtype]
    begin, end = trilu_span(case)
    op = diag1(tensor(data_type, x.shape), dml.DML_SCALAR_UNION(Int64=0), begin, end, tensor(data_type, x.shape))
    assert run(device, op, InputTensor=x)[OUT].tolist() == expected.tolist()


@pytest.mark.parametrize("case", EYE_LIKE, ids=case_ids(EYE_LIKE))
def test_onnx_eye_like(device, case):
    expected = case.data_sets[0][1][0]
    k = node_attributes(case).get("k", 0)
    got = run(device, diag(DML_TYPE[expected.dtype], list(expected.shape), k, 1.0))[OUT]
    assert got.dtype == expected.dtype and got.tolist() == expected.tolist()


REVERSE_SEQUENCE = node_cases("ReverseSequence")
UNMAPPED["test_reversesequence_bfloat16"] = "bfloat16 input: DirectML has no bfloat16 tensor data type"


@pytest.mark.parametrize("case", REVERSE_SEQUENCE, ids=case_ids(REVERSE_SEQUENCE))
def test_onnx_reverse_sequence(device, case):
    """sequence_lens (INT64, per batch) as UINT64 lengths of the input's sizes with 1 along time_axis, broadcast
    (stride 0) along every axis but batch_axis, as onnxruntime's provider reads it."""
    if case.name in UNMAPPED:
        pytest.skip(UNMAPPED[case.name])
    (x, lengths), (expected,) = case.data_sets[0]
    attrs = node_attributes(case)
    time_axis, batch_axis = attrs.get("time_axis", 0), attrs.get("batch_axis", 1)
    shape = [1 if d == time_axis else n for d, n in enumerate(x.shape)]
    strides = [1 if d == batch_axis else 0 for d in range(x.ndim)]
    data_type = DML_TYPE[x.dtype]
    op = operator("REVERSE_SUBSEQUENCES", InputTensor=tensor(data_type, x.shape),
                  SequenceLengthsTensor=tensor(DML_TYPE[np.dtype(np.uint64)], shape, strides),
                  OutputTensor=tensor(data_type, x.shape), Axis=time_axis)
    lengths = np.broadcast_to(lengths.astype(np.uint64).reshape([-1 if d == batch_axis else 1 for d in range(x.ndim)]),
                              shape)
    got = run(device, op, InputTensor=x, SequenceLengthsTensor=lengths)[OUT]
    assert got.tobytes() == expected.tobytes()


COL2IM = node_cases("Col2Im")


@pytest.mark.parametrize("case", COL2IM, ids=case_ids(COL2IM))
def test_onnx_col2im(device, case):
    """image_shape and block_shape as the output's spatial sizes and WindowSizes, pads [begin..., end...] as
    Start/EndPadding. FLOAT32 sums of up to prod(block_shape) terms: that many ulps of the sum of magnitudes
    (onnx's expected values are float32 sums too)."""
    from dmlsim.api.numerics import compare_ulps

    (x, image, block), (expected,) = case.data_sets[0]
    attrs = node_attributes(case)
    dims = len(image)
    pads = list(attrs.get("pads", [0] * (2 * dims)))
    op = operator("FOLD", InputTensor=tensor(DML_TYPE[x.dtype], x.shape),
                  OutputTensor=tensor(DML_TYPE[expected.dtype], expected.shape), DimensionCount=dims,
                  WindowSizes=[int(b) for b in block], Strides=list(attrs.get("strides", [1] * dims)),
                  Dilations=list(attrs.get("dilations", [1] * dims)), StartPadding=pads[:dims], EndPadding=pads[dims:])
    got = run(device, op, InputTensor=x)[OUT]
    report = compare_ulps(got, expected, np.float32, float(np.prod(block)), np.abs(expected) + 1)
    assert got.shape == expected.shape and report.ok, report.mismatches


LOWERED = [c for c in TRILU + EYE_LIKE if c.name not in UNMAPPED][::3] + [
    c for c in REVERSE_SEQUENCE + COL2IM if c.name not in UNMAPPED]


@pytest.mark.parametrize("case", LOWERED, ids=case_ids(LOWERED))
def test_onnx_lowering(ref_device, case):
    """dmlsim's ONNX lowering (dmlsim/onnx/ops_move.py) of a third of the mapped Trilu/EyeLike cases and every
    mapped ReverseSequence case, on the reference device (the direct mappings above run them on every adapter)."""
    from dmlsim.onnx.run_model import run_lowered

    graph = case.model.graph
    feeds = {i.name: value for i, value in zip(graph.input, case.data_sets[0][0], strict=True)}
    (got,) = run_lowered(case.model, feeds, ref_device)
    expected = case.data_sets[0][1][0]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5 if case.name.startswith("test_col2im") else 0, atol=0)


def test_onnx_cases_accounted_for():
    """18 Trilu, 3 EyeLike, 3 ReverseSequence and 5 Col2Im cases; only the listed ones do not map, and they are
    real case names."""
    names = {c.name for c in TRILU + REVERSE_SEQUENCE}
    counts = (len(TRILU), len(EYE_LIKE), len(REVERSE_SEQUENCE), len(COL2IM))
    assert counts == (18, 3, 3, 5) and set(UNMAPPED) <= names
