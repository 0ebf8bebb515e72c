"""ONNX lowerings composed of DirectML operators (dmlsim/onnx/ops_onnxc.py, ops_attention.py), on every device.

- QuantizeLinear to INT16/UINT16 (element-wise DIVIDE, ROUND, ADD, CLIP, CAST): expected values are numpy written
  here, ``clip(rint(x / scale) + zero_point)`` in float64 (exact: every x / scale below is a float32 quotient whose
  rounding cannot cross a half, the ties are exact binary fractions), compared exactly (integers).
- MelWeightMatrix (element-wise operators over the band-edge grid): expected values are onnx.reference's, with the
  node case's tolerance (rtol 1e-3, atol 1e-7); the inputs are graph inputs, so a second run with another sample
  rate must reuse the compiled graph (the work is on the device, not folded on the host).
- Attention with a query row that attends no key: onnx defines zeros there (onnx.reference's output, rtol 1e-5,
  atol 1e-6: float32 softmax and matmul over 4 keys), where DirectML's softmax over all -inf scores is NaN; the
  other rows keep their values.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from dmlsim import backend


def _model(node, inputs, outputs, opset):
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                              [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


TIES = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.0, -0.0, np.inf, -np.inf, 1e6, -1e6]


@pytest.mark.parametrize("kind", ["int16", "uint16"])
def test_quantize_linear_16_bit_per_axis(device, kind):
    """x [2, 3, 2] quantized along axis 1 (scale and zero point one per channel, read by strides): ties round to
    even, ±inf and out-of-range values saturate, ±0 give the zero point."""
    dtype = np.dtype(kind)
    onnx_type = TensorProto.INT16 if kind == "int16" else TensorProto.UINT16
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], axis=1)
    model = _model(node, [("x", TensorProto.FLOAT, [2, 3, 2]), ("s", TensorProto.FLOAT, [3]),
                          ("z", onnx_type, [3])], [("y", onnx_type, [2, 3, 2])], 21)
    x = np.array(TIES, np.float32).reshape(2, 3, 2)
    scale = np.array([1.0, 0.25, 2.0], np.float32)
    zero = np.array([-3, 7, 32767], dtype) if kind == "int16" else np.array([3, 65535, 32768], dtype)
    (y,) = backend.prepare(model, device).run([x, scale, zero])
    info = np.iinfo(dtype)
    expected = np.clip(np.rint(x.astype(np.float64) / scale.reshape(1, 3, 1)) + zero.reshape(1, 3, 1), info.min,
                       info.max).astype(dtype)
    assert y.dtype == dtype
    np.testing.assert_array_equal(y, expected)


def test_quantize_linear_16_bit_blocked_and_float16(device):
    """A FLOAT16 x [2, 6] in blocks of 2 along axis 1 (scale and zero point [2, 3], each block's own, read with
    stride 0 over the block), INT16 output; the FLOAT16 values and scales are exact in FLOAT32."""
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], axis=1, block_size=2)
    model = _model(node, [("x", TensorProto.FLOAT16, [2, 6]), ("s", TensorProto.FLOAT16, [2, 3]),
                          ("z", TensorProto.INT16, [2, 3])], [("y", TensorProto.INT16, [2, 6])], 21)
    x = np.array([[2.5, 3.5, -6.0, 7.0, 60000.0, -0.0], [1.0, -1.0, 0.75, -0.75, -np.inf, 5.0]], np.float16)
    scale = np.array([[1.0, 2.0, 0.5], [0.5, 0.25, 0.001]], np.float16)
    zero = np.array([[0, -5, 32000], [100, -32768, 0]], np.int16)
    (y,) = backend.prepare(model, device).run([x, scale, zero])
    spread = np.repeat(scale.astype(np.float32).astype(np.float64), 2, axis=1)
    expected = np.clip(np.rint(x.astype(np.float64) / spread) + np.repeat(zero, 2, axis=1), -32768, 32767)
    np.testing.assert_array_equal(y, expected.astype(np.int16))


def _mel_model(output_type=None):
    attrs = {} if output_type is None else {"output_datatype": output_type}
    node = helper.make_node("MelWeightMatrix", ["n", "d", "r", "lo", "hi"], ["w"], **attrs)
    return _model(node, [("n", TensorProto.INT64, []), ("d", TensorProto.INT64, []), ("r", TensorProto.INT64, []),
                         ("lo", TensorProto.FLOAT, []), ("hi", TensorProto.FLOAT, [])],
                  [("w", output_type or TensorProto.FLOAT, ["bins", "mels"])], 17)


def _mel_feeds(n, d, rate, lo, hi):
    return [np.array(n, np.int64), np.array(d, np.int64), np.array(rate, np.int64), np.array(lo, np.float32),
            np.array(hi, np.float32)]


def test_mel_weight_matrix_is_computed_on_the_device(device):
    """Two sample rates through one compiled graph (the filter bank depends on device values): onnx.reference's
    matrices; the first has bands whose left and center edges coincide (a 1 at the center, nothing left of it)."""
    model = _mel_model()
    names = ["n", "d", "r", "lo", "hi"]
    rep = backend.prepare(model, device)
    for feeds in (_mel_feeds(8, 16, 8192, 0.0, 4096.0), _mel_feeds(8, 16, 6000, 150.0, 2900.0)):
        (w,) = rep.run(feeds)
        (expected,) = ReferenceEvaluator(model).run(None, dict(zip(names, feeds, strict=True)))
        assert w.shape == expected.shape == (9, 8) and w.dtype == np.float32
        np.testing.assert_allclose(w, expected, rtol=1e-3, atol=1e-7)
    assert rep.cache.compiles == 1


def test_mel_weight_matrix_in_float16(device):
    """output_datatype FLOAT16 (a CAST of the FLOAT32 weights): onnx.reference's, which are exact fractions
    (j − l) / (c − l) rounded once to FLOAT16."""
    model = _mel_model(TensorProto.FLOAT16)
    feeds = _mel_feeds(5, 40, 16000, 300.0, 7600.0)
    (w,) = backend.prepare(model, device).run(feeds)
    (expected,) = ReferenceEvaluator(model).run(None, dict(zip(["n", "d", "r", "lo", "hi"], feeds, strict=True)))
    assert w.dtype == np.float16 and w.shape == (21, 5)
    np.testing.assert_allclose(w.astype(np.float64), expected.astype(np.float64), rtol=1e-3, atol=0)


def _attention(device, mask, mask_type, causal=0):
    node = helper.make_node("Attention", ["q", "k", "v", "m"], ["y"], is_causal=causal)
    model = _model(node, [("q", TensorProto.FLOAT, [1, 2, 3, 4]), ("k", TensorProto.FLOAT, [1, 2, 4, 4]),
                          ("v", TensorProto.FLOAT, [1, 2, 4, 4]), ("m", mask_type, list(mask.shape))],
                   [("y", TensorProto.FLOAT, [1, 2, 3, 4])], 23)
    rng = np.random.default_rng(7)
    q, k, v = (rng.standard_normal(shape).astype(np.float32) for shape in ((1, 2, 3, 4), (1, 2, 4, 4), (1, 2, 4, 4)))
    (y,) = backend.prepare(model, device).run([q, k, v, mask])
    (expected,) = ReferenceEvaluator(model).run(None, {"q": q, "k": k, "v": v, "m": mask})
    return y, expected


@pytest.mark.parametrize("causal", [0, 1])
def test_attention_row_without_keys_is_zero_with_a_bool_mask(device, causal):
    """Query row 1 has no True key (with is_causal, row 0's one key is ANDed away too): those rows are 0 in both
    heads; the other rows are onnx.reference's."""
    mask = np.array([[False, True, True, False], [False, False, False, False], [True, True, True, True]])
    y, expected = _attention(device, mask, TensorProto.BOOL, causal)
    assert not np.isnan(y).any()
    np.testing.assert_array_equal(y[:, :, 1], 0.0)
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)


def test_attention_row_without_keys_is_zero_with_a_float_mask(device):
    """A float mask whose row 2 is all -inf (row 0 partly -inf, row 1 finite biases): row 2 is 0."""
    mask = np.array([[0.0, -np.inf, 0.5, 0.0], [1.0, -2.0, 0.0, 3.0], [-np.inf] * 4], np.float32)
    y, expected = _attention(device, mask, TensorProto.FLOAT)
    np.testing.assert_array_equal(y[:, :, 2], 0.0)
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)


def test_attention_batch_without_keys_is_zero_with_nonpad_kv_seqlen(device):
    """nonpad_kv_seqlen (opset 24) [0, 3]: every query of batch 0 has no key (0), batch 1 reads 3 of 4 keys."""
    node = helper.make_node("Attention", ["q", "k", "v", "", "", "", "n"], ["y"])
    model = _model(node, [("q", TensorProto.FLOAT, [2, 2, 3, 4]), ("k", TensorProto.FLOAT, [2, 2, 4, 4]),
                          ("v", TensorProto.FLOAT, [2, 2, 4, 4]), ("n", TensorProto.INT64, [2])],
                   [("y", TensorProto.FLOAT, [2, 2, 3, 4])], 24)
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal(shape).astype(np.float32) for shape in ((2, 2, 3, 4), (2, 2, 4, 4), (2, 2, 4, 4)))
    lengths = np.array([0, 3], np.int64)
    (y,) = backend.prepare(model, device).run([q, k, v, lengths])
    (expected,) = ReferenceEvaluator(model).run(None, {"q": q, "k": k, "v": v, "n": lengths})
    np.testing.assert_array_equal(y[0], 0.0)
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)
