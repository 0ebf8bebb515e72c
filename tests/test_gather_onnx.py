"""ONNX's node cases of Gather, GatherElements and GatherND as the external oracle of DML_OPERATOR_GATHER,
GATHER_ELEMENTS and GATHER_ND1 (dmlsim/operators/gather_scatter), on every adapter.

Each case maps onto a desc the way onnxruntime's DirectML provider maps the node: every tensor padded with leading
1s to the largest rank of data, indices and output; GATHER's Axis moved by the padding and IndexDimensions = the
indices' rank; GatherElements' Axis likewise; GatherND as GATHER_ND1 with the real ranks and batch_dims. The
expected outputs are onnx's (exact: these operators move bits). Kept apart from tests/test_gather.py so that the
named mutants' selections there do not generate onnx's cases (seconds per run).
"""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import NUMPY, operator, run, tensor
from onnx_node_cases import case_ids, node_attributes, node_cases

OUT = "OutputTensor"
DML_TYPE = {np.dtype(v): k for k, v in NUMPY.items()}


def gather(x, i, y, axis, index_dims):
    return operator("GATHER", InputTensor=x, IndicesTensor=i, OutputTensor=y, Axis=axis, IndexDimensions=index_dims)


def elements(x, i, y, axis):
    return operator("GATHER_ELEMENTS", InputTensor=x, IndicesTensor=i, OutputTensor=y, Axis=axis)


def gather_nd1(x, i, y, r, q, b):
    return operator("GATHER_ND1", InputTensor=x, IndicesTensor=i, OutputTensor=y, InputDimensionCount=r,
                    IndicesDimensionCount=q, BatchDimensionCount=b)




def padded(shape, rank):
    return [1] * (rank - len(shape)) + [int(s) for s in shape]


def onnx_desc(case):
    """The DML desc onnxruntime's DirectML provider builds for the case's node, and its inputs."""
    node = case.model.graph.node[0]
    data, indices = case.data_sets[0][0]
    expected = case.data_sets[0][1][0]
    attrs = node_attributes(case)
    rank = max(data.ndim, indices.ndim, expected.ndim, 1)
    x = tensor(DML_TYPE[data.dtype], padded(data.shape, rank))
    i = tensor(DML_TYPE[indices.dtype], padded(indices.shape, rank))
    y = tensor(DML_TYPE[expected.dtype], padded(expected.shape, rank))
    axis = attrs.get("axis", 0) % max(data.ndim, 1) + rank - data.ndim
    if node.op_type == "Gather":
        desc = gather(x, i, y, axis, indices.ndim)
    elif node.op_type == "GatherElements":
        desc = elements(x, i, y, axis)
    else:
        desc = gather_nd1(x, i, y, data.ndim, indices.ndim, attrs.get("batch_dims", 0))
    return desc, data.reshape(padded(data.shape, rank)), indices.reshape(padded(indices.shape, rank)), expected


ONNX_CASES = node_cases("Gather") + node_cases("GatherElements") + node_cases("GatherND")
# Cases that do not map onto the DirectML descs, with the reason (none so far: every case above maps).
UNMAPPED: dict[str, str] = {}


@pytest.mark.parametrize("case", ONNX_CASES, ids=case_ids(ONNX_CASES))
def test_onnx_node_cases(device, case):
    if case.name in UNMAPPED:
        pytest.skip(UNMAPPED[case.name])
    desc, data, indices, expected = onnx_desc(case)
    got = run(device, desc, InputTensor=data, IndicesTensor=indices)[OUT]
    assert got.reshape(expected.shape).tobytes() == expected.tobytes()


def test_onnx_cases_are_found():
    """The oracle is not empty: onnx generates cases of all three operators (names as onnx 1.23 writes them)."""
    names = set(case_ids(ONNX_CASES))
    assert {"test_gather_0", "test_gather_elements_0", "test_gathernd_example_int32_batch_dim1"} <= names
