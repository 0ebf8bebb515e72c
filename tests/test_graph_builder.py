"""dmlsim.graph_builder: a DirectML graph built by naming tensors, on every device.

Expected values are float64 numpy written here (GEMM of small integers is exact in float32; softmax within
4 float32 ulps of its value, 1e-6 absolute at these magnitudes).
"""

from __future__ import annotations

import numpy as np
import pytest

import dmlsim as dml
from dmlsim.graph_builder import CONSTANT_NODE_BYTES, GraphBuilder

F32 = dml.DML_TENSOR_DATA_TYPE_FLOAT32


def t(*sizes, strides=None):
    return dml.buffer_tensor(F32, list(sizes), strides)


def _gemm_softmax(device):
    b = GraphBuilder(device)
    x = b.input("x", t(1, 1, 2, 3))
    b.weight("w", np.arange(12, dtype=np.float32).reshape(3, 4))  # 48 bytes: an OWNED_BY_DML graph input
    b.weight("c", np.array([0.5], np.float32))  # 4 bytes: a constant node
    gemm = dml.DML_GEMM_OPERATOR_DESC(t(1, 1, 2, 3), t(1, 1, 3, 4), t(1, 1, 2, 4, strides=[0, 0, 0, 0]),
                                      t(1, 1, 2, 4), 0, 0, 1.0, 1.0, None)
    b.node(dml.DML_OPERATOR_GEMM, gemm, {"ATensor": x, "BTensor": "w", "CTensor": "c"}, {"OutputTensor": "y"})
    b.node(dml.DML_OPERATOR_ACTIVATION_SOFTMAX, dml.DML_ACTIVATION_SOFTMAX_OPERATOR_DESC(t(1, 1, 2, 4), t(1, 1, 2, 4)),
           {"InputTensor": "y"}, {"OutputTensor": "p"})
    return b


def test_weights_constants_and_two_outputs(device):
    network = _gemm_softmax(device).compile(["p", "y"])
    assert network.compiled.GetBindingProperties().PersistentResourceSize == 256  # the 48-byte weight's slot
    x = np.array([[1, 2, 3], [0, -1, 1]], np.float32)
    for _ in range(2):  # the recorded command list runs again with new inputs
        out = network.run({"x": x})
        y = x.astype(np.float64) @ np.arange(12, dtype=np.float64).reshape(3, 4) + 0.5
        np.testing.assert_array_equal(out["y"].reshape(2, 4), y)
        e = np.exp(y - y.max(axis=1, keepdims=True))
        np.testing.assert_allclose(out["p"].reshape(2, 4), e / e.sum(axis=1, keepdims=True), rtol=0, atol=1e-6)
        x = x[::-1].copy()


def test_a_weight_of_a_few_bytes_is_a_constant_node(device):
    """8 bytes or fewer (onnxruntime's DirectML provider's threshold): no persistent resource, no initializer input."""
    b = GraphBuilder(device)
    x = b.input("x", t(4))
    b.weight("k", np.array([2.0, 3.0], np.float32))
    add = dml.DML_ELEMENT_WISE_ADD_OPERATOR_DESC(t(4), t(4, strides=[0]), t(4))
    b.node(dml.DML_OPERATOR_ELEMENT_WISE_ADD, add, {"ATensor": x, "BTensor": "k"}, {"OutputTensor": "y"})
    network = b.compile(["y"])
    assert CONSTANT_NODE_BYTES == 8
    assert network.compiled.GetBindingProperties().PersistentResourceSize == 0
    np.testing.assert_array_equal(network.run({"x": [1, 2, 3, 4]})["y"], [3, 4, 5, 6])


@pytest.mark.parametrize("change, message", [
    (lambda b: b.input("x", t(1)), "tensor 'x' is already defined"),
    (lambda b: b.node(dml.DML_OPERATOR_ACTIVATION_RELU, dml.DML_ACTIVATION_RELU_OPERATOR_DESC(t(1), t(1)),
                      {"InputTensor": "nope"}, {"OutputTensor": "r"}), "reads 'nope', which is not defined yet"),
    (lambda b: b.compile(["x"]), "output 'x' is not a node output"),
    (lambda b: b.compile(["p"]).run({}), r"inputs \['x'\] not given"),
    (lambda b: b.compile(["p"]).run({"x": np.zeros(6), "z": 1}), "'z' is not a graph input"),
])
def test_builder_errors_name_the_tensor(ref_device, change, message):
    with pytest.raises(dml.DMLError, match=message):
        change(_gemm_softmax(ref_device))
