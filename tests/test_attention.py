"""DML_OPERATOR_MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1 (dmlsim/operators/attention), on every adapter.

Expected values: literals worked out by hand, or :func:`attention_loops` below, the doc page's decomposition
written out as float64 loops over batch, head and query row (bias added to query/key/value, scores
``Scale * q . k``, plus the relative position bias, the mask, a softmax, the weighted sum of values),
never dmlsim's reference.

Tolerance: a FLOAT32 score is a float32 dot product of D terms, a scale, a bias and a mask value: within
``(D + 3) ulps`` of its magnitude ``M_j = |Scale|·Σ_d|q_d k_d| + |rpb| + |MaskFilterValue|`` (where the mask
applies); exp turns an absolute error e of ``s_j - max`` into a relative error e of ``p_j``, and the sums of T
terms add T + 4 roundings. So ``|got − expected| ≤ ε · Σ_j p_j |v_j| · (T + 4 + (D + 3)(M_j + M_max))``,
which the tests pass to ``compare_ulps`` as the magnitude bound at 4 ulps (an ulp of x is at least x·ε/2).
FLOAT16: inputs are exact in float32, so the same bound plus the final rounding: 1 FLOAT16 ulp at that bound.
Present key/value: a copy (plus a bias: one float32 rounding, then the storage rounding): 1 ulp.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps
from dmlsim.quick import run_operator

F32, F16, I32 = dml.DML_TENSOR_DATA_TYPE_FLOAT32, dml.DML_TENSOR_DATA_TYPE_FLOAT16, dml.DML_TENSOR_DATA_TYPE_INT32
NUMPY = {F32: np.float32, F16: np.float16}
MHA, MHA1 = dml.DML_OPERATOR_MULTIHEAD_ATTENTION, dml.DML_OPERATOR_MULTIHEAD_ATTENTION1
NONE, LENGTH, END_START, QK_START_END, BOOLEAN = (
    dml.DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE, dml.DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH,
    dml.DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_END_START,
    dml.DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_QUERY_SEQUENCE_LENGTH_START_END,
    dml.DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN)
EPS32 = float(np.finfo(np.float32).eps)


def tensor(data_type, sizes, strides=None):
    return dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER, dml.DML_BUFFER_TENSOR_DESC(
        data_type, dml.DML_TENSOR_FLAG_NONE, len(sizes), list(sizes), None if strides is None else list(strides),
        dml.DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides), 0))


def mha_desc(heads=1, kv_heads=None, scale=1.0, mask_filter=-10000.0, mask_type=NONE, version=MHA, **tensors):
    """An operator desc of MULTIHEAD_ATTENTION (``kv_heads`` None) or MULTIHEAD_ATTENTION1."""
    if version == MHA:
        desc = dml.DML_MULTIHEAD_ATTENTION_OPERATOR_DESC(**tensors, Scale=scale, MaskFilterValue=mask_filter,
                                                          HeadCount=heads, MaskType=mask_type)
    else:
        desc = dml.DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC(
            **tensors, Scale=scale, MaskFilterValue=mask_filter, QueryHeadCount=heads,
            KeyValueHeadCount=heads if kv_heads is None else kv_heads, MaskType=mask_type)
    return dml.DML_OPERATOR_DESC(version, desc)


def attention_loops(q, k, v, *, scale, bias=None, rpb=None, keep=None, add_mask=None, mask_filter=-10000.0,
                    past_k=None, past_v=None):
    """The page's decomposition one query row at a time, float64: q {B,S,Hq,D}, k {B,L,Hkv,D}, v {B,L,Hkv,Dv},
    rpb {B,Hq,S,T}, ``keep`` {B,T} (length masks: False sets the score), ``add_mask`` {B,Hq,S,T} (BOOLEAN: 0
    adds the filter), past {B,Hkv,P,*}. Returns (output {B,S,Hq*Dv}, bound, present k, present v)."""
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    batch, seq, hq, d = q.shape
    hkv, dv = k.shape[2], v.shape[3]
    scale = float(np.float32(scale))
    mask_filter = float(np.float32(mask_filter))
    if bias is not None:
        bias = np.asarray(bias, np.float64).reshape(-1)
        q = q + bias[:hq * d].reshape(hq, d)
        k = k + bias[hq * d:hq * d + hkv * d].reshape(hkv, d)
        v = v + bias[hq * d + hkv * d:].reshape(hkv, dv)
    present_k, present_v = k.transpose(0, 2, 1, 3), v.transpose(0, 2, 1, 3)
    if past_k is not None:
        present_k = np.concatenate([np.asarray(past_k, np.float64), present_k], axis=2)
        present_v = np.concatenate([np.asarray(past_v, np.float64), present_v], axis=2)
    total = present_k.shape[2]
    out = np.zeros((batch, seq, hq, dv))
    bound = np.zeros_like(out)
    for b in range(batch):
        for h in range(hq):
            hk = h // (hq // hkv)
            for i in range(seq):
                scores, magnitude = np.zeros(total), np.zeros(total)
                for j in range(total):
                    products = q[b, i, h] * present_k[b, hk, j]
                    scores[j] = scale * products.sum()
                    magnitude[j] = abs(scale) * np.abs(products).sum()
                    if rpb is not None:
                        scores[j] += rpb[b, h, i, j]
                        magnitude[j] += abs(rpb[b, h, i, j])
                    if add_mask is not None and add_mask[b, h, i, j] == 0:
                        scores[j] += mask_filter
                        magnitude[j] += abs(mask_filter)
                    if keep is not None and not keep[b, j]:
                        scores[j] = mask_filter
                        magnitude[j] = abs(mask_filter)
                with np.errstate(invalid="ignore", over="ignore"):
                    weights = np.exp(scores - scores.max())
                    weights /= weights.sum()
                    for e in range(dv):
                        column = present_v[b, hk, :, e]
                        out[b, i, h, e] = (weights * column).sum()
                        top = int(np.argmax(scores)) if np.isfinite(scores).all() else 0
                        terms = weights * np.abs(column) * (total + 4 + (d + 3) * (magnitude + magnitude[top]))
                        bound[b, i, h, e] = np.where(weights == 0, 0.0, terms).sum()  # a weight 0 adds no error
    return out.reshape(batch, seq, hq * dv), bound.reshape(batch, seq, hq * dv), present_k, present_v


def assert_close(got, expected, bound, data_type, name="OutputTensor"):
    report = compare_ulps(got.reshape(expected.shape), expected, NUMPY[data_type], 1 if data_type == F16 else 4,
                          bound)
    assert report.ok, report.describe(name)


def rand(rng, shape, data_type, low=-1.0, high=1.0):
    return rng.uniform(low, high, shape).astype(NUMPY[data_type])


# --- by hand ---------------------------------------------------------------------------------------------------
def test_two_keys_by_hand(device):
    """One query 1, keys 0 and 1, Scale ln 3: scores 0 and ln 3, softmax 1/4 and 3/4; values 4 and 8:
    1 + 6 = 7."""
    desc = mha_desc(scale=math.log(3.0), QueryTensor=tensor(F32, [1, 1, 1]), KeyTensor=tensor(F32, [1, 2, 1]),
                    ValueTensor=tensor(F32, [1, 2, 1]), OutputTensor=tensor(F32, [1, 1, 1]))
    got = run_operator(device, desc, {"QueryTensor": np.float32([1]), "KeyTensor": np.float32([0, 1]),
                                      "ValueTensor": np.float32([4, 8])})["OutputTensor"]
    np.testing.assert_allclose(got.reshape(-1), [7.0], rtol=8 * EPS32)


def test_masks_by_hand(device):
    """Two batches, one query each, three equal keys (all scores 0) with values 3, 6, 9. KEY_SEQUENCE_END_START
    {2, B} = ends [2, 3], starts [0, 1]: batch 0 averages keys 0-1 (4.5), batch 1 keys 1-2 (7.5)."""
    desc = mha_desc(mask_type=END_START, QueryTensor=tensor(F32, [2, 1, 1]), KeyTensor=tensor(F32, [2, 3, 1]),
                    ValueTensor=tensor(F32, [2, 3, 1]), MaskTensor=tensor(I32, [2, 2]),
                    OutputTensor=tensor(F32, [2, 1, 1]))
    got = run_operator(device, desc, {"QueryTensor": np.float32([1, 1]), "KeyTensor": np.zeros(6, np.float32),
                                      "ValueTensor": np.float32([3, 6, 9, 3, 6, 9]),
                                      "MaskTensor": np.int32([2, 3, 0, 1])})["OutputTensor"]
    np.testing.assert_allclose(got.reshape(-1), [4.5, 7.5], rtol=8 * EPS32)


def test_large_scores_subtract_the_row_maximum(device):
    """Scores 200 and 199 (Scale 100 on keys 2 and 1.99): exp(200) overflows float32, so the softmax must subtract
    the row maximum first: weights 1/(1 + e^-1) and e^-1/(1 + e^-1) of values 1 and 0."""
    desc = mha_desc(scale=100.0, QueryTensor=tensor(F32, [1, 1, 1]), KeyTensor=tensor(F32, [1, 2, 1]),
                    ValueTensor=tensor(F32, [1, 2, 1]), OutputTensor=tensor(F32, [1, 1, 1]))
    got = run_operator(device, desc, {"QueryTensor": np.float32([1]), "KeyTensor": np.float32([2, 1.99]),
                                      "ValueTensor": np.float32([1, 0])})["OutputTensor"]
    k1 = float(np.float32(1.99))
    expected = 1 / (1 + math.exp(100 * k1 - 200))  # the float32 key 1.99 gives a score just under 199
    np.testing.assert_allclose(got.reshape(-1), [expected], rtol=0, atol=2e-5)  # (D + 3) ulps of 200, through exp


def test_float16_store_rounds_to_nearest_even(device):
    """FLOAT16: equal scores average the values 2050 and 2052 to 2051, halfway between FLOAT16's 2050 and 2052:
    stored 2052 (even mantissa), not truncated to 2050."""
    desc = mha_desc(scale=1.0, QueryTensor=tensor(F16, [1, 1, 1]), KeyTensor=tensor(F16, [1, 2, 1]),
                    ValueTensor=tensor(F16, [1, 2, 1]), OutputTensor=tensor(F16, [1, 1, 1]))
    got = run_operator(device, desc, {"QueryTensor": np.float16([0]), "KeyTensor": np.float16([1, -1]),
                                      "ValueTensor": np.float16([2050, 2052])})["OutputTensor"]
    np.testing.assert_array_equal(got.reshape(-1), np.float16([2052]))


# --- layouts ---------------------------------------------------------------------------------------------------
LAYOUTS = ["separate", "stacked_qk", "stacked_kv", "stacked_qkv"]


def layout_case(layout, data_type, rng, batch=2, seq=3, kv_seq=3, heads=2, d=3, dv=2):
    """Tensors, inputs and logical q/k/v of one layout (stacked ones share D, StackedQueryKey also S)."""
    if layout in ("stacked_kv", "stacked_qkv"):
        dv = d
    if layout in ("stacked_qk", "stacked_qkv"):
        kv_seq = seq
    q = rand(rng, (batch, seq, heads, d), data_type)
    k = rand(rng, (batch, kv_seq, heads, d), data_type)
    v = rand(rng, (batch, kv_seq, heads, dv), data_type)
    tensors, inputs = {}, {}
    if layout == "separate":
        tensors = {"QueryTensor": tensor(data_type, [batch, seq, heads * d]),
                   "KeyTensor": tensor(data_type, [batch, kv_seq, heads * d]),
                   "ValueTensor": tensor(data_type, [batch, kv_seq, heads * dv])}
        inputs = {"QueryTensor": q, "KeyTensor": k, "ValueTensor": v}
    elif layout == "stacked_qk":
        tensors = {"StackedQueryKeyTensor": tensor(data_type, [batch, seq, heads, 2, d]),
                   "ValueTensor": tensor(data_type, [batch, kv_seq, heads * dv])}
        inputs = {"StackedQueryKeyTensor": np.stack([q, k], axis=3), "ValueTensor": v}
    elif layout == "stacked_kv":
        tensors = {"QueryTensor": tensor(data_type, [batch, seq, heads * d]),
                   "StackedKeyValueTensor": tensor(data_type, [batch, kv_seq, heads, 2, d])}
        inputs = {"QueryTensor": q, "StackedKeyValueTensor": np.stack([k, v], axis=3)}
    else:
        tensors = {"StackedQueryKeyValueTensor": tensor(data_type, [batch, seq, heads, 3, d])}
        inputs = {"StackedQueryKeyValueTensor": np.stack([q, k, v], axis=3)}
    return tensors, inputs, (q, k, v), (batch, seq, kv_seq, heads, d, dv)


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_layouts_with_bias(device, layout, data_type):
    """Every stacked layout of the page, with a bias on query, key and value, both data types."""
    rng = np.random.default_rng(LAYOUTS.index(layout))
    tensors, inputs, (q, k, v), (batch, seq, _, heads, d, dv) = layout_case(layout, data_type, rng)
    bias = rand(rng, (2 * heads * d + heads * dv,), data_type)
    desc = mha_desc(heads=heads, scale=0.5, **tensors, BiasTensor=tensor(data_type, [1, bias.size]),
                    OutputTensor=tensor(data_type, [batch, seq, heads * dv]))
    got = run_operator(device, desc, {**inputs, "BiasTensor": bias})["OutputTensor"]
    expected, bound, _, _ = attention_loops(q, k, v, scale=0.5, bias=bias)
    assert_close(got, expected, bound, data_type)


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
def test_past_present_and_relative_position_bias(device, data_type):
    """Past key/value before the new ones, present outputs = past + biased new, a relative position bias
    broadcast over the batch (stride 0), a 5-D output with a leading 1."""
    rng = np.random.default_rng(7)
    batch, seq, kv_seq, past, heads, d, dv = 2, 2, 3, 2, 2, 2, 3
    total = past + kv_seq
    q, k = rand(rng, (batch, seq, heads, d), data_type), rand(rng, (batch, kv_seq, heads, d), data_type)
    v = rand(rng, (batch, kv_seq, heads, dv), data_type)
    past_k, past_v = rand(rng, (batch, heads, past, d), data_type), rand(rng, (batch, heads, past, dv), data_type)
    bias = rand(rng, (2 * heads * d + heads * dv,), data_type)
    rpb = rand(rng, (1, heads, seq, total), data_type, -2, 2)
    desc = mha_desc(heads=heads, scale=0.75, QueryTensor=tensor(data_type, [batch, seq, heads * d]),
                    KeyTensor=tensor(data_type, [batch, kv_seq, heads * d]),
                    ValueTensor=tensor(data_type, [1, batch, kv_seq, heads * dv]),
                    BiasTensor=tensor(data_type, [bias.size]),
                    RelativePositionBiasTensor=tensor(data_type, [batch, heads, seq, total],
                                                      [0, seq * total, total, 1]),
                    PastKeyTensor=tensor(data_type, [batch, heads, past, d]),
                    PastValueTensor=tensor(data_type, [1, batch, heads, past, dv]),
                    OutputTensor=tensor(data_type, [1, 1, batch, seq, heads * dv]),
                    OutputPresentKeyTensor=tensor(data_type, [batch, heads, total, d]),
                    OutputPresentValueTensor=tensor(data_type, [batch, heads, total, dv]))
    got = run_operator(device, desc, {"QueryTensor": q, "KeyTensor": k, "ValueTensor": v, "BiasTensor": bias,
                                      "RelativePositionBiasTensor": np.broadcast_to(rpb, (batch, heads, seq, total)),
                                      "PastKeyTensor": past_k,
                                      "PastValueTensor": past_v})
    expected, bound, present_k, present_v = attention_loops(
        q, k, v, scale=0.75, bias=bias, rpb=np.broadcast_to(rpb, (batch, heads, seq, total)), past_k=past_k,
        past_v=past_v)
    assert_close(got["OutputTensor"], expected, bound, data_type)
    for name, want in (("OutputPresentKeyTensor", present_k), ("OutputPresentValueTensor", present_v)):
        report = compare_ulps(got[name].reshape(want.shape), want, NUMPY[data_type], 1)
        assert report.ok, report.describe(name)


def keep_of(mask_type, mask, batch, total):
    """The {B, T} keys kept by a length mask, from the page's wording (written here, not imported)."""
    keep = np.zeros((batch, total), bool)
    for b in range(batch):
        if mask_type == LENGTH:
            start, end = 0, mask[b]
        elif mask_type == END_START:
            start, end = mask[batch + b], mask[b]
        else:
            start, end = 0, mask[b]  # KEY_QUERY_SEQUENCE_LENGTH_START_END: keyLength[b] (decision)
        keep[b, max(start, 0):max(end, 0)] = True
    return keep


@pytest.mark.parametrize("mask_type", [LENGTH, END_START, QK_START_END, BOOLEAN],
                         ids=["KEY_SEQUENCE_LENGTH", "KEY_SEQUENCE_END_START", "KEY_QUERY_SEQUENCE_LENGTH_START_END",
                              "BOOLEAN"])
def test_mask_types(device, mask_type):
    """Each MaskType: lengths cut keys off (set to MaskFilterValue, one batch fully masked: a uniform softmax),
    BOOLEAN adds MaskFilterValue where the mask is 0 (a {B, 1, 1, T} key padding mask broadcast by stride 0, as
    onnxruntime passes it)."""
    rng = np.random.default_rng(int(mask_type))
    batch, seq, kv_seq, heads, d, dv = 3, 2, 4, 2, 2, 2
    tensors, inputs, (q, k, v), _ = layout_case("separate", F32, rng, batch, seq, kv_seq, heads, d, dv)
    keep = add = None
    if mask_type == BOOLEAN:
        padding = np.int32([[1, 1, 0, 1], [0, 0, 0, 0], [1, 7, 1, 0]])  # 7: nonzero keeps too (decision)
        mask_desc = tensor(I32, [batch, heads, seq, kv_seq], [kv_seq, 0, 0, 1])
        add = np.broadcast_to(padding[:, None, None, :], (batch, heads, seq, kv_seq))
        mask = add
    else:
        mask = {LENGTH: np.int32([2, 0, 9]), END_START: np.int32([3, 4, 1, 1, 3, 2]),
                QK_START_END: np.int32([1, 4, 3, 0, 2, 4, 6, 0, 4, 8, 12])}[mask_type]
        mask_desc = tensor(I32, {LENGTH: [1, batch], END_START: [2, batch], QK_START_END: [3 * batch + 2]}[mask_type])
        keep = keep_of(mask_type, [int(x) for x in mask], batch, kv_seq)
    desc = mha_desc(heads=heads, scale=0.5, mask_type=mask_type, **tensors, MaskTensor=mask_desc,
                    OutputTensor=tensor(F32, [batch, seq, heads * dv]))
    got = run_operator(device, desc, {**inputs, "MaskTensor": mask})["OutputTensor"]
    expected, bound, _, _ = attention_loops(q, k, v, scale=0.5, keep=keep, add_mask=add)
    assert_close(got, expected, bound, F32)


@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
def test_grouped_query_attention(device, data_type):
    """MULTIHEAD_ATTENTION1 with QueryHeadCount 4, KeyValueHeadCount 2: query heads 0-1 read key/value head 0,
    2-3 head 1; present key/value have 2 heads."""
    rng = np.random.default_rng(11)
    batch, seq, kv_seq, hq, hkv, d, dv = 1, 2, 3, 4, 2, 2, 3
    q, k = rand(rng, (batch, seq, hq, d), data_type), rand(rng, (batch, kv_seq, hkv, d), data_type)
    v = rand(rng, (batch, kv_seq, hkv, dv), data_type)
    bias = rand(rng, (hq * d + hkv * d + hkv * dv,), data_type)
    desc = mha_desc(heads=hq, kv_heads=hkv, scale=0.7, version=MHA1,
                    QueryTensor=tensor(data_type, [batch, seq, hq * d]),
                    KeyTensor=tensor(data_type, [batch, kv_seq, hkv * d]),
                    ValueTensor=tensor(data_type, [batch, kv_seq, hkv * dv]), BiasTensor=tensor(data_type, [bias.size]),
                    OutputTensor=tensor(data_type, [batch, seq, hq * dv]),
                    OutputPresentValueTensor=tensor(data_type, [batch, hkv, kv_seq, dv]))
    got = run_operator(device, desc, {"QueryTensor": q, "KeyTensor": k, "ValueTensor": v, "BiasTensor": bias})
    expected, bound, _, present_v = attention_loops(q, k, v, scale=0.7, bias=bias)
    assert_close(got["OutputTensor"], expected, bound, data_type)
    report = compare_ulps(got["OutputPresentValueTensor"].reshape(present_v.shape), present_v, NUMPY[data_type], 1)
    assert report.ok, report.describe("OutputPresentValueTensor")


def test_strided_inputs_and_output(device):
    """A query with the batch innermost in memory, a padded key, a padded output (dmlsim.quick places each
    logical value by the strides): the same numbers as packed layouts."""
    rng = np.random.default_rng(5)
    batch, seq, kv_seq, heads, d = 2, 3, 2, 1, 2
    q, k, v = (rand(rng, s, F32) for s in ((batch, seq, heads, d), (batch, kv_seq, heads, d),
                                           (batch, kv_seq, heads, d)))
    desc = mha_desc(heads=heads, scale=1.0, QueryTensor=tensor(F32, [batch, seq, d], [1, 2 * d, 2]),
                    KeyTensor=tensor(F32, [batch, kv_seq, d], [16, 5, 1]), ValueTensor=tensor(F32, [batch, kv_seq, d]),
                    OutputTensor=tensor(F32, [batch, seq, d], [32, 8, 3]))
    got = run_operator(device, desc, {"QueryTensor": q, "KeyTensor": k, "ValueTensor": v})["OutputTensor"]
    expected, bound, _, _ = attention_loops(q, k, v, scale=1.0)
    assert_close(got, expected, bound, F32)


def test_special_values(device):
    """NaN in a query poisons its row; +inf in a score makes its row NaN (inf - inf); a -inf relative position
    bias gives that key weight 0; ±0 and ties are ordinary values. Row by row against the loops."""
    rng = np.random.default_rng(9)
    batch, seq, kv_seq, heads, d = 1, 4, 3, 1, 2
    q, k, v = (rand(rng, s, F32) for s in ((batch, seq, heads, d), (batch, kv_seq, heads, d),
                                           (batch, kv_seq, heads, d)))
    q[0, 0, 0, 1] = np.nan
    q[0, 1, 0, 0], k[0, 1, 0, 0] = np.inf, 1.0
    q[0, 2] = [[0.0, -0.0]]
    rpb = rand(rng, (batch, heads, seq, kv_seq), F32)
    rpb[0, 0, 3, 2] = -np.inf
    desc = mha_desc(scale=1.0, QueryTensor=tensor(F32, [batch, seq, d]), KeyTensor=tensor(F32, [batch, kv_seq, d]),
                    ValueTensor=tensor(F32, [batch, kv_seq, d]),
                    RelativePositionBiasTensor=tensor(F32, [batch, heads, seq, kv_seq]),
                    OutputTensor=tensor(F32, [batch, seq, d]))
    got = run_operator(device, desc, {"QueryTensor": q, "KeyTensor": k, "ValueTensor": v,
                                      "RelativePositionBiasTensor": rpb})["OutputTensor"].reshape(seq, d)
    expected, bound, _, _ = attention_loops(q, k, v, scale=1.0, rpb=rpb)
    assert np.isnan(got[0]).all() and np.isnan(got[1]).all()
    assert np.isfinite(got[2:]).all()
    assert_close(got[2:], expected.reshape(seq, d)[2:], bound.reshape(seq, d)[2:], F32)


# --- refusals --------------------------------------------------------------------------------------------------
def base_tensors(data_type=F32):
    return {"QueryTensor": tensor(data_type, [1, 2, 4]), "KeyTensor": tensor(data_type, [1, 3, 4]),
            "ValueTensor": tensor(data_type, [1, 3, 4]), "OutputTensor": tensor(data_type, [1, 2, 4])}


def refused(ref_device, desc, hresult=dml.E_INVALIDARG):
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateOperator(desc)
    assert info.value.hresult == hresult, str(info.value)
    return str(info.value)


def changed(**changes):
    return {**base_tensors(), **changes}


REFUSALS = [
    (dict(heads=2, **changed(QueryTensor=tensor(dml.DML_TENSOR_DATA_TYPE_FLOAT64, [1, 2, 4]))),
     "QueryTensor.DataType FLOAT64 is not supported by DML_OPERATOR_MULTIHEAD_ATTENTION (supported: FLOAT32, "
     "FLOAT16)"),
    (dict(heads=2, **changed(KeyTensor=tensor(F16, [1, 3, 4]))), "KeyTensor.DataType FLOAT16 must equal "
                                                                  "QueryTensor.DataType FLOAT32"),
    (dict(heads=2, **changed(QueryTensor=tensor(F32, [2, 4]))),
     "QueryTensor.DimensionCount 2 is not supported by DML_OPERATOR_MULTIHEAD_ATTENTION (supported: 3 to 5)"),
    (dict(heads=0, **base_tensors()), "HeadCount 0 must be at least 1"),
    (dict(heads=2, **changed(QueryTensor=None)), "exactly one query tensor must be present"),
    (dict(heads=2, **changed(StackedKeyValueTensor=tensor(F32, [1, 3, 2, 2, 2]))),
     "exactly one key tensor must be present (KeyTensor, StackedQueryKeyTensor, StackedKeyValueTensor, "
     "StackedQueryKeyValueTensor); got KeyTensor, StackedKeyValueTensor"),
    (dict(heads=2, **changed(ValueTensor=None)), "exactly one value tensor must be present"),
    (dict(heads=2, **changed(PastKeyTensor=tensor(F32, [1, 2, 1, 2]))),
     "PastValueTensor must be present when PastKeyTensor is"),
    (dict(heads=2, mask_type=BOOLEAN, **base_tensors()), "MaskTensor is required by MaskType "
                                                         "DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN"),
    (dict(heads=2, **changed(MaskTensor=tensor(I32, [1, 1]))),
     "MaskTensor must be null when MaskType is DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE"),
    (dict(heads=2, mask_type=LENGTH, **changed(MaskTensor=tensor(F32, [1, 1]))),
     "MaskTensor.DataType FLOAT32 is not supported by DML_OPERATOR_MULTIHEAD_ATTENTION (supported: INT32)"),
    (dict(heads=2, mask_type=LENGTH, **changed(MaskTensor=tensor(I32, [2, 1]))),
     "MaskTensor.Sizes [2, 1] must be [1, 1]"),
    (dict(heads=2, mask_type=BOOLEAN, **changed(MaskTensor=tensor(I32, [1, 2, 2, 2]))),
     "MaskTensor.Sizes [1, 2, 2, 2] must be [1, 2, 2, 3]"),
    (dict(heads=3, **base_tensors()), "hiddenSize 4 must be a multiple of the head count 3"),
    (dict(heads=2, **changed(QueryTensor=tensor(F32, [2, 1, 2, 4]))),
     "QueryTensor.Sizes [2, 1, 2, 4]: the dimensions before the last 3 must be 1"),
    (dict(heads=2, **changed(KeyTensor=tensor(F32, [1, 3, 6]))), "KeyTensor.Sizes [1, 3, 6] must be [1, 3, 4]"),
    (dict(heads=2, **changed(ValueTensor=tensor(F32, [1, 2, 4]))), "ValueTensor.Sizes [1, 2, 4] must be [1, 3, 4]"),
    (dict(heads=2, **changed(OutputTensor=tensor(F32, [1, 3, 4]))), "OutputTensor.Sizes [1, 3, 4] must be "
                                                                     "[1, 2, 4]"),
    (dict(heads=2, **changed(BiasTensor=tensor(F32, [8]))), "BiasTensor.Sizes [8] must be [12]"),
    (dict(heads=2, **changed(RelativePositionBiasTensor=tensor(F32, [1, 2, 2, 2]))),
     "RelativePositionBiasTensor.Sizes [1, 2, 2, 2] must be [1, 2, 2, 3]"),
    (dict(heads=2, **changed(PastKeyTensor=tensor(F32, [1, 2, 1, 3]), PastValueTensor=tensor(F32, [1, 2, 1, 2]))),
     "PastKeyTensor.Sizes [1, 2, 1, 3] must be [1, 2, 1, 2]"),
    (dict(heads=2, **changed(OutputPresentKeyTensor=tensor(F32, [1, 2, 4, 2]))),
     "OutputPresentKeyTensor.Sizes [1, 2, 4, 2] must be [1, 2, 3, 2]"),
    (dict(heads=2, **changed(QueryTensor=None, KeyTensor=None, StackedQueryKeyTensor=tensor(F32, [1, 2, 2, 3, 2]))),
     "StackedQueryKeyTensor.Sizes [1, 2, 2, 3, 2] must be [1, 2, 2, 2, 2]"),
    (dict(heads=4, kv_heads=3, version=MHA1, **changed(QueryTensor=tensor(F32, [1, 2, 8]))),
     "QueryHeadCount 4 must be a multiple of KeyValueHeadCount 3"),
    (dict(heads=2, kv_heads=1, version=MHA1, **changed(
        QueryTensor=None, StackedQueryKeyValueTensor=tensor(F32, [1, 2, 2, 3, 2]), KeyTensor=None, ValueTensor=None)),
     "StackedQueryKeyValueTensor stacks the query with the key, so QueryHeadCount 2 must equal KeyValueHeadCount 1"),
]


@pytest.mark.parametrize(("args", "expected"), REFUSALS, ids=[str(i) for i in range(len(REFUSALS))])
def test_validation(ref_device, args, expected):
    assert expected in refused(ref_device, mha_desc(**args))


def test_registered():
    from dmlsim.operators import implemented_names

    assert {"DML_OPERATOR_MULTIHEAD_ATTENTION", "DML_OPERATOR_MULTIHEAD_ATTENTION1"} <= set(implemented_names())
