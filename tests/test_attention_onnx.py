"""onnx's node cases of Attention (opset 23-25) through DML_OPERATOR_MULTIHEAD_ATTENTION(1), on every adapter.

Each case is mapped onto a desc as a DirectML lowering does it (written here, independently of dmlsim/onnx):
4-D ``Q {B, Hq, S, D}``, ``K``/``V {B, Hkv, L, *}`` are transposed to DirectML's ``{B, S, H * D}`` (onnxruntime's
DirectML provider puts an IDENTITY transpose in front); 3-D ones pass as they are, with q_num_heads/kv_num_heads;
Hq = Hkv gives MULTIHEAD_ATTENTION, grouped heads MULTIHEAD_ATTENTION1; past_key/past_value and the present
outputs map onto the desc's own tensors; ``scale`` (default 1/sqrt(D)) is Scale; a float attn_mask and is_causal
(bottom-right aligned: key j is allowed for query i when j <= i + past, as onnx's reference aligns it) become
the additive RelativePositionBiasTensor (0 or -inf); a bool attn_mask becomes a BOOLEAN MaskTensor with
MaskFilterValue -inf (or, beside is_causal or nonpad_kv_seqlen, joins the additive bias); nonpad_kv_seqlen
becomes a KEY_SEQUENCE_LENGTH MaskTensor. Cases the desc cannot express are listed with the reason.

Tolerance: onnx's FLOAT32 expectations are float32 computations themselves (sqrt(scale) applied to Q and K
apart, numpy's matmul order), of inputs below 3 in magnitude: T + D + 8 ulps of the largest |input| (the
float32 sums of D products and T weighted values, each side; 4 ulps are seen at most). FLOAT16 expectations
are computed in float16 throughout (every product, sum and the softmax rounded to half), so they are judged to
a relative and absolute 1e-3 (two FLOAT16 ulps at the values' magnitude 1; one is seen).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from onnx_node_cases import case_ids, node_attributes, node_cases

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps
from dmlsim.quick import run_operator

F32, F16, I32 = dml.DML_TENSOR_DATA_TYPE_FLOAT32, dml.DML_TENSOR_DATA_TYPE_FLOAT16, dml.DML_TENSOR_DATA_TYPE_INT32
DATA_TYPES = {np.dtype(np.float32): F32, np.dtype(np.float16): F16}

SOFTCAP = "softcap (a tanh on the scores before the mask): MULTIHEAD_ATTENTION has no such step"
QK_OUTPUT = "qk_matmul_output (the scores as a 4th output): MULTIHEAD_ATTENTION outputs no intermediate"
BFLOAT16 = "BFLOAT16: not a DirectML data type"
WINDOW = "left_window_size/right_window_size (sliding window, opset 25): no such field"
FULLY_MASKED = ("a fully masked row: ONNX defines its output as 0, DirectML's softmax over scores that are all "
                "MaskFilterValue is uniform (finite) or NaN (-inf)")


def unmapped_reason(case) -> str | None:
    """Why the case does not map onto a MULTIHEAD_ATTENTION(1) desc (None: it maps)."""
    attrs = node_attributes(case)
    node = case.model.graph.node[0]
    if any(np.asarray(x).dtype.name == "bfloat16" or "bfloat16" in str(np.asarray(x).dtype)
           for x in case.data_sets[0][0]) or "bf16" in case.name:
        return BFLOAT16
    if attrs.get("softcap", 0.0):
        return SOFTCAP
    if len(node.output) > 3 and node.output[3]:
        return QK_OUTPUT
    if attrs.get("left_window_size", -1) >= 0 or attrs.get("right_window_size", -1) >= 0:
        return WINDOW
    return FULLY_MASKED if case.name in FULLY_MASKED_CASES else None


# cases with a query row whose every key is masked (found by the mapping below: each is checked to have one)
FULLY_MASKED_CASES = {
    "test_attention_23_boolmask_fullymasked_row_nan_robustness",
    "test_attention_causal_boolmask_nan_robustness",
    "test_attention_4d_causal_nonpad_negative_offset_structural_empty",
}


def tensor(data_type, sizes):
    return dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER, dml.DML_BUFFER_TENSOR_DESC(
        data_type, dml.DML_TENSOR_FLAG_NONE, len(sizes), list(sizes), None,
        dml.DMLCalcBufferTensorSize(data_type, len(sizes), sizes, None), 0))


def node_inputs(case) -> dict[str, np.ndarray]:
    """The node's inputs by their ONNX role (Q, K, V, attn_mask, past_key, past_value, nonpad_kv_seqlen)."""
    by_name = {i.name: x for i, x in zip(case.model.graph.input, case.data_sets[0][0], strict=False)}
    roles = ("Q", "K", "V", "attn_mask", "past_key", "past_value", "nonpad_kv_seqlen")
    node = case.model.graph.node[0]
    return {role: np.asarray(by_name[name]) for role, name in zip(roles, node.input, strict=False) if name}


def onnx_attention(case):
    """(operator desc, DirectML inputs, output converter, key-mask {B, Hq, S, T} of allowed scores)."""
    attrs = node_attributes(case)
    x = node_inputs(case)
    q, k, v = x["Q"], x["K"], x["V"]
    data_type = DATA_TYPES[q.dtype]
    four_d = q.ndim == 4
    if four_d:
        batch, hq, seq, d = q.shape
        hkv, kv_seq, dv = k.shape[1], k.shape[2], v.shape[3]
        q3 = q.transpose(0, 2, 1, 3).reshape(batch, seq, hq * d)
        k3 = k.transpose(0, 2, 1, 3).reshape(batch, kv_seq, hkv * d)
        v3 = v.transpose(0, 2, 1, 3).reshape(batch, kv_seq, hkv * dv)
    else:
        hq, hkv = int(attrs["q_num_heads"]), int(attrs["kv_num_heads"])
        batch, seq = q.shape[:2]
        kv_seq = k.shape[1]
        d, dv = q.shape[2] // hq, v.shape[2] // hkv
        q3, k3, v3 = q, k, v
    past = x["past_key"].shape[2] if "past_key" in x else 0
    total = past + kv_seq
    dtype = q.dtype
    additive = np.zeros((batch, hq, seq, total), np.float64)
    has_additive = False
    mask = x.get("attn_mask")
    if mask is not None and mask.shape[-1] < total:  # onnx pads a short mask with -inf (bool: False)
        pad = [(0, 0)] * (mask.ndim - 1) + [(0, total - mask.shape[-1])]
        mask = np.pad(mask, pad, constant_values=False if mask.dtype == np.bool_ else -np.inf)
    tensors = {"QueryTensor": tensor(data_type, [batch, seq, hq * d]),
               "KeyTensor": tensor(data_type, [batch, kv_seq, hkv * d]),
               "ValueTensor": tensor(data_type, [batch, kv_seq, hkv * dv]),
               "OutputTensor": tensor(data_type, [batch, seq, hq * dv])}
    inputs = {"QueryTensor": q3, "KeyTensor": k3, "ValueTensor": v3}
    mask_type, mask_filter = dml.DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE, -np.inf
    nonpad = x.get("nonpad_kv_seqlen")
    causal = bool(attrs.get("is_causal", 0))
    if nonpad is not None:
        mask_type = dml.DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH
        tensors["MaskTensor"] = tensor(I32, [1, batch])
        inputs["MaskTensor"] = nonpad.astype(np.int32)
    if mask is not None and mask.dtype == np.bool_ and not causal and nonpad is None:
        mask_type = dml.DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN
        tensors["MaskTensor"] = tensor(I32, [batch, hq, seq, total])
        inputs["MaskTensor"] = np.broadcast_to(mask, (batch, hq, seq, total)).astype(np.int32)
    elif mask is not None:
        has_additive = True
        additive = additive + (np.where(mask, 0.0, -np.inf) if mask.dtype == np.bool_ else mask.astype(np.float64))
    if causal:
        has_additive = True
        offset = (nonpad.astype(np.int64) - seq).reshape(-1, 1, 1, 1) if nonpad is not None and not past else past
        i, j = np.arange(seq).reshape(-1, 1), np.arange(total).reshape(1, -1)
        additive = additive + np.where(j <= i + offset, 0.0, -np.inf)
    if has_additive:
        tensors["RelativePositionBiasTensor"] = tensor(data_type, [batch, hq, seq, total])
        inputs["RelativePositionBiasTensor"] = np.broadcast_to(additive, (batch, hq, seq, total)).astype(dtype)
    if past:
        tensors["PastKeyTensor"] = tensor(data_type, list(x["past_key"].shape))
        tensors["PastValueTensor"] = tensor(data_type, list(x["past_value"].shape))
        inputs["PastKeyTensor"], inputs["PastValueTensor"] = x["past_key"], x["past_value"]
    node = case.model.graph.node[0]
    if len(node.output) > 1 and node.output[1]:
        tensors["OutputPresentKeyTensor"] = tensor(data_type, [batch, hkv, total, d])
    if len(node.output) > 2 and node.output[2]:
        tensors["OutputPresentValueTensor"] = tensor(data_type, [batch, hkv, total, dv])
    scale = float(attrs.get("scale", 1.0 / np.sqrt(d)))
    common = {"Scale": scale, "MaskFilterValue": mask_filter, "MaskType": mask_type}
    if hq == hkv:
        desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_MULTIHEAD_ATTENTION, dml.DML_MULTIHEAD_ATTENTION_OPERATOR_DESC(
            **tensors, **common, HeadCount=hq))
    else:
        desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_MULTIHEAD_ATTENTION1, dml.DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC(
            **tensors, **common, QueryHeadCount=hq, KeyValueHeadCount=hkv))

    def output(y: np.ndarray) -> np.ndarray:
        y = y.reshape(batch, seq, hq * dv)
        return y.reshape(batch, seq, hq, dv).transpose(0, 2, 1, 3) if four_d else y

    allowed = np.isfinite(additive) if has_additive else np.ones_like(additive, bool)
    if mask_type == dml.DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN:
        allowed = allowed & (inputs["MaskTensor"] != 0)
    if nonpad is not None:
        allowed = allowed & (np.arange(total) < nonpad.reshape(-1, 1, 1, 1))
    return desc, inputs, output, allowed, {"D": d, "T": total, "scale": scale, "q": q3, "k": k3}


# multiply-adds (B·Hq·S·Dv·T·D) from which a node case is marked large: Oclgrind simulates each of them a few
# times; the small cases (and tests/test_attention.py) take the same kernel paths there
ONNX_LARGE = 5_000


def case_work(case) -> int:
    x = node_inputs(case)
    q, k, v = x["Q"], x["K"], x["V"]
    past = x["past_key"].shape[2] if "past_key" in x else 0
    total = past + (k.shape[2] if k.ndim == 4 else k.shape[1])
    return int(q.size) * total * int(v.shape[-1])  # (3-D: times the value heads, an upper estimate)


def params():
    cases = node_cases("Attention")
    return [pytest.param(case, id=case_id, marks=[pytest.mark.large] if case_work(case) > ONNX_LARGE else [])
            for case, case_id in zip(cases, case_ids(cases), strict=True)]


@pytest.mark.parametrize("case", params())
def test_onnx_attention_node_cases(device, case):
    """onnx's expected Y (and present key/value) through MULTIHEAD_ATTENTION(1); tolerance as the module's."""
    reason = unmapped_reason(case)
    if reason is not None:
        pytest.skip(f"{case.name} does not map onto DML: {reason}")
    desc, inputs, output, _, info = onnx_attention(case)
    got = run_operator(device, desc, inputs)
    expected = case.data_sets[0][1]
    names = ["OutputTensor", "OutputPresentKeyTensor", "OutputPresentValueTensor"]
    for index, want in enumerate(expected[:3]):
        name = names[index]
        mine = output(got[name]) if index == 0 else got[name].reshape(want.shape)
        if want.dtype == np.float16:
            np.testing.assert_allclose(mine.astype(np.float64), want.astype(np.float64), rtol=1e-3, atol=1e-3,
                                       err_msg=name)
            continue
        if index:
            np.testing.assert_array_equal(mine, want, err_msg=name)  # a copy
            continue
        values = np.abs(np.concatenate([np.asarray(a, np.float64).reshape(-1) for a in case.data_sets[0][0]
                                        if np.asarray(a).dtype.kind == "f"]))
        largest = float(np.max(values[np.isfinite(values)]))
        ulps = info["T"] + info["D"] + 8
        report = compare_ulps(mine, want, np.float32, ulps, np.full(want.shape, largest))
        assert report.ok, report.describe(name)


def test_onnx_unmapped_cases_have_their_reason():
    """Each listed fully masked case has a row without an allowed key under the mapping (and is still one of
    onnx's cases); every mapped case has none (its rows are never NaN or uniform by accident)."""
    cases = {case.name: case for case in node_cases("Attention")}
    assert set(cases) >= FULLY_MASKED_CASES, FULLY_MASKED_CASES - set(cases)
    for name, case in cases.items():
        reason = unmapped_reason(case)
        if reason not in (None, FULLY_MASKED):
            continue
        allowed = onnx_attention(case)[3]
        fully_masked = bool((~allowed.any(axis=-1)).any())
        assert fully_masked == (name in FULLY_MASKED_CASES), name


def test_onnx_reasons_cover_all_cases():
    """The 93 node cases of onnx 1.23: how many map, and every unmapped one has a stated reason."""
    cases = node_cases("Attention")
    reasons = [unmapped_reason(case) for case in cases]
    assert len(cases) >= 93
    assert sum(r is None for r in reasons) >= 50, sum(r is None for r in reasons)


# --- the lowering (dmlsim/onnx/ops_attention.py) -------------------------------------------------------------------
# one node case per rule of the lowering, through dmlsim.backend (onnx's expected outputs and tolerances)
LOWERED = [
    "test_attention_4d",  # 4-D Q/K/V copied to {B, S, H * D}, Y a strided view
    "test_attention_3d_gqa",  # 3-D, q_num_heads 9 over kv_num_heads 3: MULTIHEAD_ATTENTION1
    "test_attention_4d_attn_mask_bool_4d",  # a bool mask: CAST to INT32, BOOLEAN
    "test_attention_4d_attn_mask_3d_causal",  # a float mask plus the causal weight: ELEMENT_WISE_ADD, additive bias
    "test_attention_3d_with_past_and_present",  # past key/value, present outputs
    "test_attention_4d_causal_with_past_and_present",  # causal aligned after the past (opset 24)
    "test_attention_4d_gqa_with_past_and_present_fp16",  # FLOAT16
]
REFUSED = {
    "test_attention_4d_softcap": "softcap",
    "test_attention_4d_with_qk_matmul": "qk_matmul_output",
    "test_attention_local_window": "sliding window",
    "test_attention_4d_diff_heads_mask4d_padded_kv": "onnx pads a shorter mask",
    "test_attention_4d_causal_nonpad_batch_prefill": "is_causal with nonpad_kv_seqlen",
}


@functools.cache
def _by_name():
    return {case.name: case for case in node_cases("Attention")}  # generated once per process (onnx_node_cases)


@pytest.mark.parametrize("name", [pytest.param(n, marks=[] if n == LOWERED[0] else [pytest.mark.large])
                                  for n in LOWERED])  # one on Oclgrind: the same kernels as test_attention.py
def test_lowering(device, name):
    from dmlsim.onnx.node_suite import run_case

    outcome = run_case(_by_name()[name], device)
    assert outcome.status == "pass", f"{name}: {outcome.status} ({outcome.reason})"


@pytest.mark.parametrize(("name", "reason"), list(REFUSED.items()), ids=list(REFUSED))
def test_a_form_multihead_attention_does_not_map_runs_through_the_function_body(ref_device, monkeypatch, name,
                                                                                 reason):
    """MULTIHEAD_ATTENTION cannot express these forms: the lowering refuses them (UnmappedError, the reason named),
    and the node is lowered through Attention's function body instead, as onnxruntime inlines a node no provider
    claims; onnx's expected outputs judge it. Without the body the reason is what the user sees."""
    from dmlsim.onnx import run_model
    from dmlsim.onnx.node_suite import run_case

    outcome = run_case(_by_name()[name], ref_device)
    assert outcome.status == "pass", f"{outcome.status}: {outcome.reason}"
    monkeypatch.setattr(run_model, "expand", lambda *args, **kwargs: False)
    outcome = run_case(_by_name()[name], ref_device)
    assert outcome.status == "refused" and reason in outcome.reason, f"{outcome.status}: {outcome.reason}"


def attention_model(with_bool_mask: bool):
    """An opset-24 Attention node over 4-D Q, K, V {1, 2, 3, 2} with nonpad_kv_seqlen (no case of onnx's uses it
    without is_causal), or with a bool attn_mask {3, 3} and is_causal (LOGICAL_AND with the causal pattern)."""
    from onnx import TensorProto, helper

    shape = [1, 2, 3, 2]
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n in ("Q", "K", "V")]
    if with_bool_mask:
        inputs.append(helper.make_tensor_value_info("M", TensorProto.BOOL, [3, 3]))
        node = helper.make_node("Attention", ["Q", "K", "V", "M"], ["Y"], is_causal=1)
    else:
        inputs.append(helper.make_tensor_value_info("L", TensorProto.INT64, [1]))
        node = helper.make_node("Attention", ["Q", "K", "V", "", "", "", "L"], ["Y"])
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("Y", TensorProto.FLOAT, shape)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 24)])


@pytest.mark.parametrize("with_bool_mask", [False, True], ids=["nonpad_kv_seqlen", "bool_mask_causal"])
def test_lowering_masks_against_onnx_reference(device, with_bool_mask):
    """nonpad_kv_seqlen [2] as KEY_SEQUENCE_LENGTH (keys 0-1 of 3), and a bool mask ANDed with is_causal, against
    onnx.reference's answer (float32; T + D + 8 ulps of the largest input, as the node cases)."""
    from onnx.reference import ReferenceEvaluator

    from dmlsim import backend

    model = attention_model(with_bool_mask)
    rng = np.random.default_rng(3)
    q, k, v = (rng.uniform(-1, 1, (1, 2, 3, 2)).astype(np.float32) for _ in range(3))
    extra = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1]], bool) if with_bool_mask else np.array([2], np.int64)
    expected = ReferenceEvaluator(model).run(None, {"Q": q, "K": k, "V": v, ("M" if with_bool_mask else "L"): extra})
    got = backend.prepare(model, device).run([q, k, v, extra])[0]
    report = compare_ulps(np.asarray(got), expected[0], np.float32, 3 + 2 + 8, np.full(expected[0].shape, 1.0))
    assert report.ok, report.describe("Y")
