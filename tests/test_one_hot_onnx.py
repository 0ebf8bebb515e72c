"""ONNX's OneHot node cases as the external oracle of DML_OPERATOR_ONE_HOT (dmlsim/operators/gather_scatter), on
every adapter.

A case maps onto a desc as onnxruntime's DirectML provider maps the node: the output (rank r + 1, depth on the
normalized axis) padded with leading 1s; the indices reshaped with a 1 inserted at the axis, padded the same way;
the values [off, on] as a {1, ..., 1, 2} tensor. Cases whose indices are not integers (the desc takes
INT32/UINT32/INT64/UINT64 indices) or whose values are bfloat16 (no DirectML data type) do not map and are listed
(skipped with the reason), not dropped. Expected outputs are onnx's, compared exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import NUMPY, operator, run, tensor
from onnx_node_cases import case_ids, node_attributes, node_cases

OUT = "OutputTensor"
DML_TYPE = {np.dtype(v): k for k, v in NUMPY.items()}
ONNX_CASES = node_cases("OneHot")


def unmapped(case):
    indices, _depth, values = case.data_sets[0][0]
    if values.dtype not in DML_TYPE:
        return f"{values.dtype} values: DirectML has no such tensor data type"
    if indices.dtype.kind not in "iu":
        return f"{indices.dtype} indices: DML_ONE_HOT_OPERATOR_DESC takes INT32, UINT32, INT64 or UINT64 indices"
    return None


@pytest.mark.parametrize("case", ONNX_CASES, ids=case_ids(ONNX_CASES))
def test_onnx_node_cases(device, case):
    why = unmapped(case)
    if why:
        pytest.skip(why)
    indices, _depth, values = case.data_sets[0][0]
    expected = case.data_sets[0][1][0]
    rank = expected.ndim
    axis = node_attributes(case).get("axis", -1) % rank
    index_shape = list(expected.shape)
    index_shape[axis] = 1
    desc = operator("ONE_HOT", IndicesTensor=tensor(DML_TYPE[indices.dtype], index_shape),
                    ValuesTensor=tensor(DML_TYPE[values.dtype], [1] * (rank - 1) + [2]),
                    OutputTensor=tensor(DML_TYPE[expected.dtype], list(expected.shape)), Axis=axis)
    got = run(device, desc, IndicesTensor=indices.reshape(index_shape),
              ValuesTensor=values.reshape([1] * (rank - 1) + [2]))[OUT]
    assert got.tobytes() == expected.tobytes()


def test_onnx_cases_mapped_and_listed():
    """The oracle is not empty: some cases map (integer indices), the others are listed with a reason."""
    mapped = [case.name for case in ONNX_CASES if unmapped(case) is None]
    assert "test_onehot_negative_indices" in mapped
