"""ONNX's NonZero node cases as the external oracle of DML_OPERATOR_NONZERO_COORDINATES, on every adapter.

A case maps onto a desc as onnxruntime's DirectML provider maps the node: the input (padded with leading 1s to
2 dimensions where it has fewer), a UINT32 count scalar, coordinates {M, N} with N the input's rank; ONNX's output
(rank x count, INT64) is the transpose of the first count rows. Boolean inputs map onto UINT8 (the same bytes).
Expected outputs are onnx's, compared exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import NUMPY, U8, U32, operator, run, tensor
from onnx_node_cases import case_ids, node_cases

DML_TYPE = {np.dtype(v): k for k, v in NUMPY.items()}
ONNX_CASES = node_cases("NonZero")


@pytest.mark.parametrize("case", ONNX_CASES, ids=case_ids(ONNX_CASES))
def test_onnx_node_cases(device, case):
    (x,) = case.data_sets[0][0]
    (expected,) = case.data_sets[0][1]
    if x.dtype == np.bool_:
        x, data_type = x.astype(np.uint8), U8
    else:
        data_type = DML_TYPE[x.dtype]
    rank = x.ndim
    shape = [1] * max(0, 2 - rank) + list(x.shape)
    desc = operator("NONZERO_COORDINATES", InputTensor=tensor(data_type, shape),
                    OutputCountTensor=tensor(U32, [1] * len(shape)),
                    OutputCoordinatesTensor=tensor(U32, [1] * (len(shape) - 2) + [x.size, rank]))
    got = run(device, desc, InputTensor=x.reshape(shape))
    count = int(got["OutputCountTensor"].ravel()[0])
    rows = got["OutputCoordinatesTensor"].reshape(x.size, rank)[:count]
    assert rows.T.astype(np.int64).tolist() == expected.tolist()


def test_onnx_cases_found():
    assert len(ONNX_CASES) >= 1
