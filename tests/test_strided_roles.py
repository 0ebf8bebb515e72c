"""Every role of an optimizer may have its own layout: strides per role, on every adapter.

Expected values come from tests/oracles.py (independent float64 transcriptions of the specs). A
plan or kernel that addresses one role with another role's strides (the ONNX chunk table), or that
takes a packed fast path because only the *inputs* are packed while an output is padded, writes the
wrong elements and fails here.
"""

from __future__ import annotations

import pytest
from layout_cases import F16, F32, check_adagrad_decay_dense, check_adam, check_onnx

DTYPES = pytest.mark.parametrize("data_type", [F32, F16], ids=["f32", "f16"])
ONNX_OPS = pytest.mark.parametrize("op", ["adagrad", "adam", "momentum", "nesterov"])

# three tensors [3, 4], [5], [2, 3, 4]: the first has a different layout in every role (padded rows of
# different widths, a transposed order, G broadcast along its rows), the second packed inputs and
# padded outputs, the third packed everywhere
ROLE_STRIDES = {
    "X": [None, None, None],
    "G": [[0, 1], None, None],
    "V": [[7, 1], None, [16, 4, 1]],
    "H": [[1, 3], None, None],
    "OX": [[8, 1], [2], None],
    "OV": [[1, 3], [3], None],
    "OH": [[6, 1], [2], [24, 1, 3]],
}
SHAPES = [[3, 4], [5], [2, 3, 4]]


@ONNX_OPS
@DTYPES
def test_onnx_strides_differ_per_role(device, op, data_type):
    check_onnx(device, op, SHAPES, ROLE_STRIDES, data_type=data_type, seed=11)


@ONNX_OPS
def test_onnx_packed_inputs_padded_outputs(device, op):
    """Inputs packed, every output padded: the packed path would write the outputs contiguously."""
    shapes = [[37], [4, 9]]
    strides = {"OX": [[2], [12, 1]], "OV": [[3], [10, 1]], "OH": [[2], [11, 1]]}
    check_onnx(device, op, shapes, strides, seed=12)


@DTYPES
@pytest.mark.parametrize("output", ["OX", "OM", "OV"])
def test_adam_packed_inputs_one_padded_output(device, data_type, output):
    """X, M, V, G packed, one output padded: the packed vector path must not be taken."""
    sizes = (1, 2, 3, 21)
    check_adam(device, sizes, {output: [2 * 3 * 24, 3 * 24, 24, 1]}, data_type=data_type, seed=13)


@DTYPES
def test_adam_strides_differ_per_role(device, data_type):
    sizes = (1, 2, 3, 5)
    strides = {"M": [0, 0, 5, 1], "V": [30, 1, 10, 2], "G": [0, 15, 5, 1], "OX": [40, 20, 6, 1],
               "OM": [30, 1, 10, 2], "OV": [60, 30, 10, 2]}
    check_adam(device, sizes, strides, data_type=data_type, seed=14)


@DTYPES
@pytest.mark.parametrize("output", ["OVAR", "OACC"])
def test_adagrad_decay_packed_inputs_one_padded_output(device, data_type, output):
    check_adagrad_decay_dense(device, 5, 27, {output: [5 * 30, 5 * 30, 30, 1]}, data_type=data_type, seed=15)
