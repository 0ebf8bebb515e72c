"""ONNX's node cases of ScatterElements, Scatter (its deprecated alias) and ScatterND as the external oracle of
DML_OPERATOR_SCATTER_ELEMENTS and SCATTER_ND (dmlsim/operators/gather_scatter), on every adapter.

Each case maps onto a desc the way onnxruntime's DirectML provider maps the node: the four tensors padded with
leading 1s to one rank, the Axis moved by the padding, SCATTER_ND with the real ranks. Cases with a reduction
('add', 'mul', 'max', 'min') do not map: the DirectML descs have no reduction and the provider refuses such
nodes; they are listed (skipped with the reason), not dropped. Expected outputs are onnx's, compared exactly. Kept
apart from tests/test_scatter.py so that the named mutants' selections there do not generate onnx's cases.
"""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import NUMPY, operator, run, tensor
from onnx_node_cases import case_ids, node_attributes, node_cases

OUT = "OutputTensor"


def scatter(x, i, u, y, axis):
    return operator("SCATTER_ELEMENTS", InputTensor=x, IndicesTensor=i, UpdatesTensor=u, OutputTensor=y, Axis=axis)


def scatter_nd(x, i, u, y, r, q):
    return operator("SCATTER_ND", InputTensor=x, IndicesTensor=i, UpdatesTensor=u, OutputTensor=y,
                    InputDimensionCount=r, IndicesDimensionCount=q)


DML_TYPE = {np.dtype(v): k for k, v in NUMPY.items()}
ONNX_CASES = node_cases("ScatterElements") + node_cases("Scatter") + node_cases("ScatterND")


def padded(shape, rank):
    return [1] * (rank - len(shape)) + [int(s) for s in shape]


def unmapped(case):
    """Why onnxruntime's DirectML provider does not map the case onto these descs (None: it does)."""
    reduction = node_attributes(case).get("reduction", "none")
    if reduction != "none":
        return (f"reduction '{reduction}': DML_SCATTER_OPERATOR_DESC / DML_SCATTER_ND_OPERATOR_DESC have no "
                "reduction (the DirectML provider refuses a ScatterElements/ScatterND node with one)")
    return None


@pytest.mark.parametrize("case", ONNX_CASES, ids=case_ids(ONNX_CASES))
def test_onnx_node_cases(device, case):
    why = unmapped(case)
    if why:
        pytest.skip(why)
    data, indices, updates = case.data_sets[0][0]
    expected = case.data_sets[0][1][0]
    rank = max(data.ndim, indices.ndim, updates.ndim)
    descs = [tensor(DML_TYPE[a.dtype], padded(a.shape, rank)) for a in (data, indices, updates, expected)]
    if case.model.graph.node[0].op_type == "ScatterND":
        desc = scatter_nd(*descs, data.ndim, indices.ndim)
    else:
        desc = scatter(*descs, node_attributes(case).get("axis", 0) % data.ndim + rank - data.ndim)
    got = run(device, desc, InputTensor=data.reshape(padded(data.shape, rank)),
              IndicesTensor=indices.reshape(padded(indices.shape, rank)),
              UpdatesTensor=updates.reshape(padded(updates.shape, rank)))[OUT]
    assert got.reshape(expected.shape).tobytes() == expected.tobytes()


def test_onnx_cases_mapped_and_listed():
    """The oracle is not empty, and only reduction cases are listed as unmapped."""
    names = {case.name for case in ONNX_CASES if unmapped(case) is None}
    assert {"test_scatter_elements_with_axis", "test_scatternd"} <= names
    assert all("reduction" in (unmapped(c) or "reduction") for c in ONNX_CASES)
