"""ONNX's default-domain Attention (opset 23-24) onto DirectML's MULTIHEAD_ATTENTION / MULTIHEAD_ATTENTION1.

- Q, K, V: 3-D ``{B, S, H * D}`` are read as they are (q_num_heads, kv_num_heads give the heads); 4-D
  ``{B, H, S, D}`` are transposed to ``{B, S, H, D}`` and copied packed (ELEMENT_WISE_IDENTITY, as onnxruntime's
  DirectML provider puts an IDENTITY in front), then read as ``{B, S, H * D}``. The same head counts give
  MULTIHEAD_ATTENTION, grouped ones (q_num_heads a multiple of kv_num_heads) MULTIHEAD_ATTENTION1.
- Y is DirectML's ``{B, S, Hq * Dv}``; a 4-D Y ``{B, Hq, S, Dv}`` is a strided view of it (no copy).
- past_key/past_value and present_key/present_value are the desc's PastKey/PastValue and OutputPresentKey/Value.
- ``scale`` (default ``1/sqrt(D)``) is Scale.
- A float attn_mask is added to the scores: RelativePositionBiasTensor, broadcast to ``{B, Hq, S, T}`` by stride 0;
  is_causal (key j allowed for query i when ``j <= i + past``, onnx's bottom-right alignment) is a host-made
  ``{S, T}`` 0/-inf weight, added to a float mask by ELEMENT_WISE_ADD or passed alone. A bool attn_mask is
  a BOOLEAN MaskTensor (CAST to INT32, MaskFilterValue -inf); with is_causal it is first ANDed with the causal
  pattern (LOGICAL_AND). nonpad_kv_seqlen is a KEY_SEQUENCE_LENGTH MaskTensor (CAST to INT32, read as {1, B}).
- Refused, with the reason: softcap, the qk_matmul_output output, the sliding window (opset 25), a mask shorter
  than the key sequence (onnx pads it), nonpad_kv_seqlen with a bool mask or with is_causal (one MaskTensor;
  a causal offset per batch from device values), data types other than FLOAT32/FLOAT16.
- A query row whose every key is masked (all False in a bool mask, all -inf in a float one, a nonpad_kv_seqlen of
  0) is 0 in onnx (its softmax is defined as zero probabilities), where MULTIHEAD_ATTENTION's softmax over scores
  that are all MaskFilterValue (-inf) is NaN. So a mask adds REDUCE MAX of the mask over the keys (then > -inf
  for a float mask, LOGICAL_GREATER_THAN; the lengths > 0), and ELEMENT_WISE_IF selects 0 for the rows without a
  key (a select, not a multiply: NaN · 0 is NaN). is_causal alone adds nothing: it always leaves a query key 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.api.tensor import packed_strides
from dmlsim.onnx.lowering import Lowering, View, broadcast_view, lowers
from dmlsim.onnx.ops_elementwise import binary, unary
from dmlsim.onnx.ops_tensor import packed

FLOATS = (np.dtype(np.float32), np.dtype(np.float16))


def _three_d(low: Lowering, view: View) -> tuple[View, int]:
    """A {B, H, L, D} view copied to packed {B, L, H * D}; a 3-D view as it is. Returns (view, heads or 0)."""
    if len(view.shape) == 3:
        return view, 0
    b, h, length, d = view.shape
    s = view.strides
    copy = packed(low, View(view.name, (b, length, h, d), (s[0], s[2], s[1], s[3]), view.dtype, view.offset))
    shape = (b, length, h * d)
    return View(copy.name, shape, packed_strides(shape), copy.dtype), h


def _weight(low: Lowering, array: np.ndarray, hint: str) -> View:
    name = low.fresh(hint)
    low.host[name] = array
    return low.view(name)


@lowers("Attention")
def lower_attention(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    names = list(node.input) + [""] * (7 - len(node.input))
    outs = list(node.output) + [""] * (4 - len(node.output))
    if attrs.get("softcap", 0.0):
        raise low.unmapped("softcap (a tanh cap on the scores): MULTIHEAD_ATTENTION has no such step")
    if outs[3]:
        raise low.unmapped("qk_matmul_output (the scores as an output): MULTIHEAD_ATTENTION outputs no intermediate")
    if attrs.get("left_window_size", -1) >= 0 or attrs.get("right_window_size", -1) >= 0:
        raise low.unmapped("a sliding window (left/right_window_size): MULTIHEAD_ATTENTION has no such field")
    q_in, k_in, v_in = (low.view(n) for n in names[:3])
    if q_in.dtype not in FLOATS:
        raise low.refuse(f"data type {q_in.dtype}: MULTIHEAD_ATTENTION takes FLOAT32 or FLOAT16")
    four_d = len(q_in.shape) == 4
    q, hq = _three_d(low, q_in)
    k, hkv = _three_d(low, k_in)
    v, _ = _three_d(low, v_in)
    if not four_d:
        if "q_num_heads" not in attrs or "kv_num_heads" not in attrs:
            raise low.refuse("3-D Q, K, V need q_num_heads and kv_num_heads", 0x80070057)
        hq, hkv = int(attrs["q_num_heads"]), int(attrs["kv_num_heads"])
    batch, seq = q.shape[:2]
    kv_seq = k.shape[1]
    d, dv = q.shape[2] // hq, v.shape[2] // hkv
    past = low.value_shape(names[4])[2] if names[4] else 0
    total = past + kv_seq
    dtype = q.dtype
    inputs: dict[str, View] = {"QueryTensor": q, "KeyTensor": k, "ValueTensor": v}
    if names[4]:
        inputs["PastKeyTensor"] = low.view(names[4])
        inputs["PastValueTensor"] = low.view(names[5])
    causal = bool(attrs.get("is_causal", 0))
    mask_type = dml.DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE
    full = (batch, hq, seq, total)
    additive: View | None = None
    kept: View | None = None  # a bool mask (ANDed with the causal pattern): which keys each query attends
    allowed = np.arange(total)[None, :] <= np.arange(seq)[:, None] + past  # the causal pattern {S, T}
    if names[3] and low.value_shape(names[3])[-1] != total:  # before any node is made (Unmapped's contract)
        raise low.unmapped(f"an attn_mask of {low.value_shape(names[3])[-1]} keys for {total}: onnx pads a shorter "
                           "mask (not lowered)")
    if names[6]:
        if causal:
            raise low.unmapped("is_causal with nonpad_kv_seqlen: the causal offset per batch comes from device values")
        if names[3] and low.value_dtype(names[3]) == np.bool_:
            raise low.refuse("a bool attn_mask with nonpad_kv_seqlen: DirectML's desc has one MaskTensor")
        lengths = low.fresh("nonpad")
        unary(low, "CAST", low.view(names[6]), lengths, np.dtype(np.int32))
        inputs["MaskTensor"] = View(low.views[lengths].name, (1, batch), (0, 1), np.dtype(np.int32))
        mask_type = dml.DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH
    if names[3]:
        mask = low.view(names[3])
        if mask.dtype == np.bool_:
            if causal:
                both = low.fresh("mask")
                binary(low, "ELEMENT_WISE_LOGICAL_AND", mask, _weight(low, allowed, "causal"), both)
                mask = low.views[both]
            kept = mask
            cast = low.fresh("mask")
            unary(low, "CAST", mask, cast, np.dtype(np.int32))
            inputs["MaskTensor"] = broadcast_view(low, low.views[cast], full)
            mask_type = dml.DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN
        elif causal:
            summed = low.fresh("bias")
            binary(low, "ELEMENT_WISE_ADD", mask, _weight(low, np.where(allowed, 0.0, -np.inf).astype(dtype), "causal"),
                   summed)
            additive = low.views[summed]
        else:
            additive = mask
    elif causal:
        additive = _weight(low, np.where(allowed, 0.0, -np.inf).astype(dtype), "causal")
    if additive is not None:
        inputs["RelativePositionBiasTensor"] = broadcast_view(low, additive, full)
    conditions: list[View] = []  # {B, Hq, S, 1} (or broadcastable) UINT8: the query row attends some key
    if names[6]:
        counts = low.views[lengths]
        conditions.append(_compare(low, "ELEMENT_WISE_LOGICAL_GREATER_THAN",
                                   View(counts.name, (batch, 1, 1, 1), (1, 0, 0, 0), counts.dtype),
                                   _weight(low, np.zeros(1, np.int32), "zero")))
    if kept is not None:
        conditions.append(_any_key(low, broadcast_view(low, kept, full), full))
    if additive is not None and names[3]:  # is_causal alone leaves every query key 0 (j <= i + past)
        conditions.append(_compare(low, "ELEMENT_WISE_LOGICAL_GREATER_THAN", _any_key(low, broadcast_view(
            low, additive, full), full), _weight(low, np.full(1, -np.inf, dtype), "minus_inf")))
    y_name = low.fresh(outs[0] or "Y")
    outputs: dict[str, Any] = {"OutputTensor": low.output(y_name, (batch, seq, hq * dv), dtype)}
    if outs[1]:
        outputs["OutputPresentKeyTensor"] = low.output(outs[1], (batch, hkv, total, d), dtype)
    if outs[2]:
        outputs["OutputPresentValueTensor"] = low.output(outs[2], (batch, hkv, total, dv), dtype)
    common = {"Scale": float(attrs.get("scale", 1.0 / np.sqrt(d))), "MaskFilterValue": float("-inf"),
              "MaskType": mask_type}
    if hq == hkv:
        low.emit(dml.DML_OPERATOR_MULTIHEAD_ATTENTION, dml.DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, inputs, outputs,
                 HeadCount=hq, **common)
    else:
        low.emit(dml.DML_OPERATOR_MULTIHEAD_ATTENTION1, dml.DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, inputs, outputs,
                 QueryHeadCount=hq, KeyValueHeadCount=hkv, **common)
    y = low.views[y_name]
    if conditions:
        y = _zero_rows(low, y, conditions, (batch, hq, seq, dv))
    if four_d:  # {B, S, Hq * Dv} read as {B, Hq, S, Dv}
        s = packed_strides((batch, seq, hq, dv))
        low.views[outs[0]] = View(y.name, (batch, hq, seq, dv), (s[0], s[2], s[1], s[3]), y.dtype)
    else:
        low.views[outs[0]] = y


def _compare(low: Lowering, name: str, a: View, b: View) -> View:
    """A comparison or LOGICAL_AND of two broadcast views: a new bool (UINT8) value."""
    out = low.fresh("rows")
    binary(low, name, a, b, out, np.dtype(np.bool_))
    return low.views[out]


def _any_key(low: Lowering, scores: View, full: tuple[int, ...]) -> View:
    """REDUCE MAX of a {B, Hq, S, T} view over the keys: {B, Hq, S, 1} (a bool mask: whether any key is kept)."""
    out = low.fresh("any_key")
    low.emit(dml.DML_OPERATOR_REDUCE, dml.DML_REDUCE_OPERATOR_DESC, {"InputTensor": scores},
             {"OutputTensor": low.output(out, (*full[:3], 1), scores.dtype)}, Function=dml.DML_REDUCE_FUNCTION_MAX,
             AxisCount=1, Axes=[3])
    return low.views[out]


def _zero_rows(low: Lowering, y: View, conditions: list[View], sizes: tuple[int, int, int, int]) -> View:
    """Y {B, S, Hq * Dv} with the rows of queries that attend no key set to 0: ELEMENT_WISE_IF over Y read as
    {B, S, Hq, Dv}, the conditions ({B, Hq, S, 1}, ANDed by LOGICAL_AND) read through strides."""
    batch, hq, seq, dv = sizes
    condition = conditions[0]
    for other in conditions[1:]:
        condition = _compare(low, "ELEMENT_WISE_LOGICAL_AND", condition, other)
    spread = broadcast_view(low, condition, (batch, hq, seq, 1))
    by_row = View(spread.name, (batch, seq, hq, dv), (spread.strides[0], spread.strides[2], spread.strides[1], 0),
                  spread.dtype, spread.offset)
    shape = (batch, seq, hq, dv)
    zero = _weight(low, np.zeros(1, y.dtype), "zero")
    out = low.fresh("Y")
    low.emit(dml.DML_OPERATOR_ELEMENT_WISE_IF, dml.DML_ELEMENT_WISE_IF_OPERATOR_DESC,
             {"ConditionTensor": by_row, "ATensor": View(y.name, shape, packed_strides(shape), y.dtype),
              "BTensor": broadcast_view(low, zero, shape)},
             {"OutputTensor": low.output(out, shape, y.dtype)})
    made = low.views[out]
    return View(made.name, y.shape, y.strides, y.dtype)
