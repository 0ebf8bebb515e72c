"""ONNX's TopK node cases as the external oracle of DML_OPERATOR_TOP_K1 (dmlsim/operators/top_k), on every adapter.

A case maps onto a desc as onnxruntime's DirectML provider maps the node: Axis normalized, K from the K input,
AxisDirection DECREASING for largest=1 and INCREASING for largest=0, the indices output as UINT64 (ONNX's are
INT64: the values 0..size-1 are the same bits) and compared as int64. sorted=0 asks for no order; DirectML's
outputs are always sorted, which ONNX allows (its expected outputs are sorted too). Expected outputs are onnx's,
compared exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import NUMPY, U64, operator, run, tensor
from onnx_node_cases import case_ids, node_attributes, node_cases

import dmlsim as dml

DML_TYPE = {np.dtype(v): k for k, v in NUMPY.items()}
ONNX_CASES = node_cases("TopK")


@pytest.mark.parametrize("case", ONNX_CASES, ids=case_ids(ONNX_CASES))
def test_onnx_node_cases(device, case):
    x, k = case.data_sets[0][0]
    values, indices = case.data_sets[0][1]
    attrs = node_attributes(case)
    axis = attrs.get("axis", -1) % x.ndim
    direction = dml.DML_AXIS_DIRECTION_DECREASING if attrs.get("largest", 1) else dml.DML_AXIS_DIRECTION_INCREASING
    desc = operator("TOP_K1", InputTensor=tensor(DML_TYPE[x.dtype], list(x.shape)),
                    OutputValueTensor=tensor(DML_TYPE[values.dtype], list(values.shape)),
                    OutputIndexTensor=tensor(U64, list(indices.shape)), Axis=axis, K=int(k.reshape(-1)[0]),
                    AxisDirection=direction)
    got = run(device, desc, InputTensor=x)
    assert got["OutputValueTensor"].tobytes() == values.tobytes()
    assert got["OutputIndexTensor"].astype(np.int64).tolist() == indices.tolist()


def test_onnx_cases_found():
    assert len(ONNX_CASES) >= 5
