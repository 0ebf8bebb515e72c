"""ONNX's MatMulInteger, QLinearMatMul and DynamicQuantizeLinear through dmlsim's ONNX backend (lowered by
dmlsim/onnx/ops_quant.py onto MATRIX_MULTIPLY_INTEGER, QUANTIZED_LINEAR_MATRIX_MULTIPLY and
DYNAMIC_QUANTIZE_LINEAR), on the reference device: the lowering is the same for every device, whose kernels
their own tests prove.

Expected values: onnx's node cases (compared by onnx's own runner, dmlsim.onnx.node_suite.run_case) and
``onnx.reference`` for the layouts the node cases lack (a transposed input, a broadcast batch).
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx_node_cases import node_cases

OPS = ("MatMulInteger", "QLinearMatMul", "DynamicQuantizeLinear")


def test_every_node_case_passes(ref_device):
    """Every MatMulInteger, QLinearMatMul (FLOAT16 scales included: cast to FLOAT32, exactly) and
    DynamicQuantizeLinear case (the max_adjusted/min_adjusted ones included: a 0 is joined to the input so that
    the range includes 0, as ONNX's formula) passes."""
    from dmlsim.onnx.node_suite import run_case

    cases = [case for op in OPS for case in node_cases(op)]
    assert len(cases) >= 12, [c.name for c in cases]
    outcomes = [run_case(case, ref_device) for case in cases]
    assert [o for o in outcomes if o.status != "pass"] == []


def _model(nodes, inputs, outputs, opset=21):
    from onnx import TensorProto, helper

    kinds = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.uint8): TensorProto.UINT8,
             np.dtype(np.int8): TensorProto.INT8, np.dtype(np.int32): TensorProto.INT32}
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, kinds[a.dtype], a.shape)
                                           for n, a in inputs.items()],
                              [helper.make_tensor_value_info(n, kinds[np.dtype(t)], shape) for n, t, shape in outputs])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _compare(model, feeds, ref_device):
    from onnx.reference import ReferenceEvaluator

    import dmlsim.backend as backend

    expected = ReferenceEvaluator(model).run(None, feeds)
    got = backend.prepare(model, ref_device).run([feeds[i.name] for i in model.graph.input])
    for e, g in zip(expected, got, strict=True):
        np.testing.assert_array_equal(np.asarray(g), e)


def test_dynamic_quantize_of_a_transposed_input(ref_device):
    """A transposed (strided) input is made packed before the 0 is joined; every value positive, so the range's
    0 comes from ONNX's widening alone."""
    from onnx import helper

    x = (np.arange(12, dtype=np.float32).reshape(3, 4) * 0.75 + 1)
    nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
             helper.make_node("DynamicQuantizeLinear", ["t"], ["y", "s", "z"])]
    outputs = [("y", np.uint8, [4, 3]), ("s", np.float32, []), ("z", np.uint8, [])]
    _compare(_model(nodes, {"x": x}, outputs), {"x": x}, ref_device)


@pytest.mark.parametrize("op", ["MatMulInteger", "QLinearMatMul"])
def test_matmul_broadcasts_the_batch(ref_device, op):
    """A {2, 3, 4} x B {4, 5}: B is read for both batches (stride 0); a per-column zero point of B (1-D, N values)."""
    from onnx import helper

    rng = np.random.default_rng(3)
    a = rng.integers(0, 256, (2, 3, 4)).astype(np.uint8)
    b = rng.integers(-128, 128, (4, 5)).astype(np.int8)
    feeds = {"a": a, "b": b, "az": np.array(100, np.uint8), "bz": np.array([-3, 0, 127, -128, 5], np.int8)}
    if op == "MatMulInteger":
        nodes = [helper.make_node(op, ["a", "b", "az", "bz"], ["y"])]
        outputs = [("y", np.int32, [2, 3, 5])]
    else:
        feeds |= {"as": np.array([0.5], np.float32), "bs": np.array([0.25], np.float32),
                  "ys": np.array([3.0], np.float32), "yz": np.array([7], np.uint8)}
        feeds["bz"] = np.array(-3, np.int8)  # QLinearMatMul's zero points and scales: per tensor here
        nodes = [helper.make_node(op, ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"])]
        outputs = [("y", np.uint8, [2, 3, 5])]
    _compare(_model(nodes, feeds, outputs), feeds, ref_device)
