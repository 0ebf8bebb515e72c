"""MULTIHEAD_ATTENTION1's PastSequenceLengthsTensor (dmlsim/operators/attention): a KV cache updated per batch,
causal attention over each batch's own past, on every adapter.

Expected values: literals worked out by hand, or :func:`gqa_loops` below, a float64 transcription of
onnxruntime's GroupQueryAttention CPU semantics (``gqa_attention_base.h``) as the operator's docstring
decides them: batch b holds p[b] past tokens in a cache of T positions, its L new keys/values are written at
positions p[b] .. p[b] + L - 1, query i (the token at p[b] + i) attends to cache positions 0 .. p[b] + i
with a softmax over those alone, query head h reads key/value head h // (Hq / Hkv). Never dmlsim's reference.

Forms: ``"past"`` binds PastKeyTensor/PastValueTensor (the cache) beside present tensors of the same sizes;
``"present"`` binds no past tensors, as onnxruntime's DirectML provider does: the present tensors are the
cache, their contents before the dispatch the past. Cache positions that no query may see hold NaN, so a
kernel reading them makes its row NaN.

Tolerance (as tests/test_attention.py): a FLOAT32 score is within (D + 3) ulps of its magnitude
``M_j = |Scale|·Σ_d|q_d k_d|``, exp turns that into a relative error of the weight, the sums of the n keys a
query sees add n + 4 roundings: the output's magnitude bound is ``Σ_j p_j |v_j| (n + 4 + (D + 3)(M_j + M_max))``
at 4 ulps; FLOAT16 (float32 arithmetic on inputs exact in float32, then one storage rounding) 1 ulp at that
bound. Present key/value: copies, exact (plus a bias: one float32 rounding and the storage rounding, 1 ulp).
"""

from __future__ import annotations

import numpy as np
import pytest
from dispatch import Dispatch

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps

F32, F16, I32 = dml.DML_TENSOR_DATA_TYPE_FLOAT32, dml.DML_TENSOR_DATA_TYPE_FLOAT16, dml.DML_TENSOR_DATA_TYPE_INT32
NUMPY = {F32: np.float32, F16: np.float16, I32: np.int32}
MHA1 = dml.DML_OPERATOR_MULTIHEAD_ATTENTION1


def tensor(data_type, sizes, strides=None):
    return dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER, dml.DML_BUFFER_TENSOR_DESC(
        data_type, dml.DML_TENSOR_FLAG_NONE, len(sizes), list(sizes), None if strides is None else list(strides),
        dml.DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides), 0))


def desc_of(heads, kv_heads, scale=1.0, mask_filter=-10000.0, mask_type=0, **tensors):
    return dml.DML_OPERATOR_DESC(MHA1, dml.DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC(
        **tensors, Scale=scale, MaskFilterValue=mask_filter, QueryHeadCount=heads, KeyValueHeadCount=kv_heads,
        MaskType=mask_type))


def gqa_loops(q, k, v, cache_k, cache_v, past, scale):
    """GroupQueryAttention's CPU semantics, float64, one query row at a time: q {B,S,Hq,D}, k {B,S,Hkv,D},
    v {B,S,Hkv,Dv}, cache {B,Hkv,T,*}, past {B} (already within [0, T - S]). Returns (output {B,S,Hq*Dv},
    bound, present k, present v)."""
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    batch, seq, hq, _ = q.shape
    hkv, dv = k.shape[2], v.shape[3]
    present_k, present_v = np.array(cache_k, np.float64), np.array(cache_v, np.float64)
    for b in range(batch):
        for t in range(seq):
            present_k[b, :, past[b] + t] = k[b, t]
            present_v[b, :, past[b] + t] = v[b, t]
    scale = float(np.float32(scale))
    out, bound = np.zeros((batch, seq, hq, dv)), np.zeros((batch, seq, hq, dv))
    for b in range(batch):
        for h in range(hq):
            hk = h // (hq // hkv)
            for i in range(seq):
                n = past[b] + i + 1  # the keys this query sees
                products = q[b, i, h][None, :] * present_k[b, hk, :n]
                scores = scale * products.sum(axis=1)
                magnitude = abs(scale) * np.abs(products).sum(axis=1)
                with np.errstate(invalid="ignore", over="ignore"):
                    weights = np.exp(scores - scores.max())
                    weights /= weights.sum()
                    top = int(np.argmax(scores)) if np.isfinite(scores).all() else 0
                    for e in range(dv):
                        column = present_v[b, hk, :n, e]
                        out[b, i, h, e] = (weights * column).sum()
                        terms = weights * np.abs(column) * (n + 4 + (products.shape[1] + 3) *
                                                            (magnitude + magnitude[top]))
                        bound[b, i, h, e] = np.where(weights == 0, 0.0, terms).sum()
    return out.reshape(batch, seq, hq * dv), bound.reshape(batch, seq, hq * dv), present_k, present_v


def assert_close(got, expected, bound, data_type, name="OutputTensor", ulps=None):
    ulps = (1 if data_type == F16 else 4) if ulps is None else ulps
    report = compare_ulps(np.asarray(got, np.float64).reshape(expected.shape), expected, NUMPY[data_type], ulps,
                          bound)
    assert report.ok, report.describe(name)


def run_cached(device, form, data_type, values, *, heads, kv_heads, scale, lengths_strides=None, placement=None,
               cache_strides=None):
    """One dispatch with the cache in the past tensors (``form`` "past") or in the present tensors ("present");
    ``values``: query, key, value {B,S,H*D}, cache_k/cache_v {B,Hkv,T,*}, lengths {B}."""
    q, k, v = values["query"], values["key"], values["value"]
    cache_k, cache_v, lengths = values["cache_k"], values["cache_v"], values["lengths"]
    batch = q.shape[0]
    lengths_sizes = [batch] if lengths_strides is None else [1, batch]
    tensors = dict(QueryTensor=tensor(data_type, q.shape), KeyTensor=tensor(data_type, k.shape),
                   ValueTensor=tensor(data_type, v.shape),
                   PastSequenceLengthsTensor=tensor(I32, lengths_sizes, lengths_strides),
                   OutputTensor=tensor(data_type, [batch, q.shape[1], heads * v.shape[2] // kv_heads]),
                   OutputPresentKeyTensor=tensor(data_type, cache_k.shape, cache_strides),
                   OutputPresentValueTensor=tensor(data_type, cache_v.shape))
    inputs = {"QueryTensor": q, "KeyTensor": k, "ValueTensor": v, "PastSequenceLengthsTensor": lengths}
    if form == "past":
        tensors.update(PastKeyTensor=tensor(data_type, cache_k.shape, cache_strides),
                       PastValueTensor=tensor(data_type, cache_v.shape))
        inputs.update(PastKeyTensor=cache_k, PastValueTensor=cache_v)
    dispatch = Dispatch(device, desc_of(heads, kv_heads, scale, **tensors), placement=placement)
    dispatch.load(inputs)
    if form == "present":
        dispatch.write("OutputPresentKeyTensor", cache_k)
        dispatch.write("OutputPresentValueTensor", cache_v)
    dispatch.execute()
    return dispatch.outputs()


def draw(rng, data_type, batch, seq, hq, hkv, d, dv, total, lengths):
    """Random inputs; cache positions at or after each batch's p[b] + seq hold NaN (never seen, never written
    in the "present" form), those before it random."""
    dtype = NUMPY[data_type]
    cache_k = rng.uniform(-1, 1, (batch, hkv, total, d))
    cache_v = rng.uniform(-1, 1, (batch, hkv, total, dv))
    for b, p in enumerate(np.clip(lengths, 0, total - seq)):
        cache_k[b, :, p:] = np.nan
        cache_v[b, :, p:] = np.nan
    return {"query": rng.uniform(-1, 1, (batch, seq, hq * d)).astype(dtype),
            "key": rng.uniform(-1, 1, (batch, seq, hkv * d)).astype(dtype),
            "value": rng.uniform(-1, 1, (batch, seq, hkv * dv)).astype(dtype),
            "cache_k": cache_k.astype(dtype), "cache_v": cache_v.astype(dtype),
            "lengths": np.asarray(lengths, np.int32)}


def expect(values, heads, kv_heads, d, dv, scale):
    q, k, v = values["query"], values["key"], values["value"]
    batch, seq = q.shape[:2]
    total = values["cache_k"].shape[2]
    past = np.clip(values["lengths"].astype(np.int64), 0, total - seq)
    return gqa_loops(q.reshape(batch, seq, heads, d), k.reshape(batch, seq, kv_heads, d),
                     v.reshape(batch, seq, kv_heads, dv), values["cache_k"], values["cache_v"], past, scale)


def check_present(got, expected, form, data_type, name):
    """The present tensor: the new rows and (form "past") the copied past; NaN where the cache held NaN."""
    report = compare_ulps(np.asarray(got, np.float64).reshape(expected.shape), expected, NUMPY[data_type], 0)
    assert report.ok, report.describe(name)


# --- by hand ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("form", ["past", "present"])
def test_kv_cache_by_hand(device, form):
    """B=2, one head, D = Dv = 1, a cache of 3 positions, L = S = 1, Scale 1, lengths [1, 0].
    Batch 0: past key 0 (value 2) and the new key 0 (value 4): equal scores, output (2 + 4) / 2 = 3; cache
    position 2 holds NaN, unseen. Batch 1 (a prompt): only the new token (value -5): output -5, exactly.
    Present: batch 0 [0, 0, NaN] / [2, 4, NaN], batch 1 [7, NaN, NaN] / [-5, NaN, NaN]."""
    nan = np.nan
    values = {"query": np.float32([[[1.0]], [[3.0]]]), "key": np.float32([[[0.0]], [[7.0]]]),
              "value": np.float32([[[4.0]], [[-5.0]]]),
              "cache_k": np.float32([[[[0.0], [nan], [nan]]], [[[nan], [nan], [nan]]]]),
              "cache_v": np.float32([[[[2.0], [nan], [nan]]], [[[nan], [nan], [nan]]]]),
              "lengths": np.int32([1, 0])}
    got = run_cached(device, form, F32, values, heads=1, kv_heads=1, scale=1.0)
    assert got["OutputTensor"].reshape(-1).tolist() == [3.0, -5.0]
    np.testing.assert_array_equal(got["OutputPresentKeyTensor"].reshape(2, 3),
                                  [[0.0, 0.0, nan], [7.0, nan, nan]])
    np.testing.assert_array_equal(got["OutputPresentValueTensor"].reshape(2, 3),
                                  [[2.0, 4.0, nan], [-5.0, nan, nan]])


@pytest.mark.parametrize("form", ["past", "present"])
def test_float16_output_rounds_to_nearest_even(device, form):
    """FLOAT16: past value 1 + 2^-10 (length 1) and the new value 1 + 2^-9, equal scores: the float32 mean
    1 + 1.5·2^-10 is a tie between 1 + 2^-10 and 1 + 2^-9; nearest even gives 1 + 2^-9 (truncation 1 + 2^-10)."""
    values = {"query": np.float16([[[0.0]]]), "key": np.float16([[[0.0]]]), "value": np.float16([[[1 + 2**-9]]]),
              "cache_k": np.float16([[[[0.0], [0.0]]]]), "cache_v": np.float16([[[[1 + 2**-10], [0.0]]]]),
              "lengths": np.int32([1])}
    got = run_cached(device, form, F16, values, heads=1, kv_heads=1, scale=1.0)
    assert got["OutputTensor"].reshape(-1).tolist() == [1 + 2**-9]
    assert got["OutputPresentValueTensor"].reshape(-1).tolist() == [1 + 2**-10, 1 + 2**-9]


# --- against GroupQueryAttention's semantics ---------------------------------------------------------------------
@pytest.mark.parametrize("data_type", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("form", ["past", "present"])
def test_grouped_batches_with_their_own_past(device, form, data_type):
    """Three batches with past lengths 0 (a prompt), 2 and the maximum T - L, two query heads per key/value head,
    D = 3, Dv = 2, S = L = 2 (so the second query sees the first new key and its own, the first only its own)."""
    rng = np.random.default_rng(23)
    batch, seq, hq, hkv, d, dv, total = 3, 2, 4, 2, 3, 2, 6
    values = draw(rng, data_type, batch, seq, hq, hkv, d, dv, total, [0, 2, total - seq])
    got = run_cached(device, form, data_type, values, heads=hq, kv_heads=hkv, scale=0.6)
    expected, bound, present_k, present_v = expect(values, hq, hkv, d, dv, 0.6)
    assert_close(got["OutputTensor"], expected, bound, data_type)
    check_present(got["OutputPresentKeyTensor"], present_k, form, data_type, "OutputPresentKeyTensor")
    check_present(got["OutputPresentValueTensor"], present_v, form, data_type, "OutputPresentValueTensor")


def test_lengths_out_of_range_are_clamped(device):
    """Lengths -3 and 99 in a cache of 5 with L = 2: clamped to 0 (a prompt) and T - L = 3."""
    rng = np.random.default_rng(4)
    values = draw(rng, F32, 2, 2, 2, 1, 2, 2, 5, [-3, 99])
    got = run_cached(device, "present", F32, values, heads=2, kv_heads=1, scale=1.0)
    expected, bound, present_k, _ = expect(values, 2, 1, 2, 2, 1.0)
    assert_close(got["OutputTensor"], expected, bound, F32)
    check_present(got["OutputPresentKeyTensor"], present_k, "present", F32, "OutputPresentKeyTensor")


def test_strided_lengths_cache_and_offsets(device):
    """The lengths {1, B} with stride 3 between batches, the key cache padded (strides 40, 16, 4, 1: position
    stride 4 for D = 3), every tensor at its own 16-byte-aligned offset in one shared guard-filled buffer whose
    other bytes stay unchanged."""
    rng = np.random.default_rng(8)
    batch, seq, hq, hkv, d, dv, total = 2, 1, 2, 2, 3, 2, 4
    values = draw(rng, F32, batch, seq, hq, hkv, d, dv, total, [3, 1])
    guard = 0x5A
    shared = device.CreateBuffer(8192)
    shared.Write(bytes([guard]) * 8192, 0)
    names = ["QueryTensor", "KeyTensor", "ValueTensor", "PastSequenceLengthsTensor", "OutputTensor",
             "OutputPresentKeyTensor", "OutputPresentValueTensor"]
    placement = {name: (shared, 48 + 1024 * i) for i, name in enumerate(names)}
    got = run_cached(device, "present", F32, values, heads=hq, kv_heads=hkv, scale=0.8, lengths_strides=[0, 3],
                     cache_strides=[40, 16, 4, 1], placement=placement)
    expected, bound, present_k, present_v = expect(values, hq, hkv, d, dv, 0.8)
    assert_close(got["OutputTensor"], expected, bound, F32)
    check_present(got["OutputPresentKeyTensor"], present_k, "present", F32, "OutputPresentKeyTensor")
    check_present(got["OutputPresentValueTensor"], present_v, "present", F32, "OutputPresentValueTensor")
    raw = np.frombuffer(shared.Read(0, 8192), np.uint8)
    lengths_at = placement["PastSequenceLengthsTensor"][1]
    for gap in (range(lengths_at + 4, lengths_at + 12), range(0, 48)):  # the lengths' stride gap, the head
        assert (raw[list(gap)] == guard).all()
    key_at = placement["OutputPresentKeyTensor"][1]
    padding = [key_at + 4 * (b * 40 + h * 16 + t * 4 + 3) for b in range(batch) for h in range(hkv)
               for t in range(total)]
    assert all((raw[p:p + 4] == guard).all() for p in padding)  # the cache's position padding is not written


def test_special_values_stay_in_their_rows(device):
    """The second new token's value is +inf: only the second query (which sees it) becomes non-finite; the first
    query's output is finite. A -0.0 query with +0.0 keys gives equal weights (ties)."""
    values = {"query": np.float32([[[-0.0], [1.0]]]), "key": np.float32([[[0.0], [0.0]]]),
              "value": np.float32([[[6.0], [np.inf]]]),
              "cache_k": np.float32([[[[0.0], [np.nan], [np.nan], [np.nan]]]]),
              "cache_v": np.float32([[[[2.0], [np.nan], [np.nan], [np.nan]]]]),
              "lengths": np.int32([1])}
    got = run_cached(device, "past", F32, values, heads=1, kv_heads=1, scale=1.0)["OutputTensor"].reshape(-1)
    assert got[0] == 4.0  # (2 + 6) / 2
    assert got[1] == np.inf  # (2 + 6 + inf) / 3


# --- validation ----------------------------------------------------------------------------------------------
def base(**changes):
    tensors = dict(QueryTensor=tensor(F32, [2, 1, 4]), KeyTensor=tensor(F32, [2, 1, 2]),
                   ValueTensor=tensor(F32, [2, 1, 2]),
                   PastSequenceLengthsTensor=tensor(I32, [2]), OutputTensor=tensor(F32, [2, 1, 4]),
                   OutputPresentKeyTensor=tensor(F32, [2, 1, 5, 2]), OutputPresentValueTensor=tensor(F32, [2, 1, 5, 2]))
    tensors.update(changes)
    return desc_of(2, 1, **{k: t for k, t in tensors.items() if t is not None})


def refused(ref_device, desc):
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateOperator(desc)
    assert info.value.hresult == dml.E_INVALIDARG, str(info.value)
    return str(info.value)


def test_valid_forms_are_accepted(ref_device):
    """The present tensors as the cache (onnxruntime's form), lengths {1, 1, B}, a past cache of the present's sizes."""
    ref_device.CreateOperator(base())
    ref_device.CreateOperator(base(PastSequenceLengthsTensor=tensor(I32, [1, 1, 2])))
    ref_device.CreateOperator(base(PastKeyTensor=tensor(F32, [2, 1, 5, 2]), PastValueTensor=tensor(F32, [2, 1, 5, 2]),
                                   OutputPresentKeyTensor=None, OutputPresentValueTensor=None))


@pytest.mark.parametrize("changes, expected", [
    ({"PastSequenceLengthsTensor": tensor(F32, [2])}, "PastSequenceLengthsTensor.DataType FLOAT32 is not supported"),
    ({"PastSequenceLengthsTensor": tensor(I32, [3])}, "PastSequenceLengthsTensor.Sizes [3] must be [2]"),
    ({"PastSequenceLengthsTensor": tensor(I32, [2, 2])}, "PastSequenceLengthsTensor.Sizes [2, 2]: the dimensions "
                                                          "before the last 1 must be 1"),
    ({"OutputPresentValueTensor": None}, "OutputPresentValueTensor is required when PastSequenceLengthsTensor"),
    ({"OutputPresentKeyTensor": None}, "OutputPresentKeyTensor is required when PastSequenceLengthsTensor"),
    ({"QueryTensor": tensor(F32, [2, 2, 4]), "OutputTensor": tensor(F32, [2, 2, 4])},
     "sequenceLength 2 must equal the key's keyValueSequenceLength 1"),
    ({"KeyTensor": tensor(F32, [2, 6, 2]), "ValueTensor": tensor(F32, [2, 6, 2]), "QueryTensor": tensor(F32, [2, 6, 4]),
      "OutputTensor": tensor(F32, [2, 6, 4])}, "the KV cache's 5 positions must hold the keyValueSequenceLength 6"),
    ({"PastKeyTensor": tensor(F32, [2, 1, 4, 2]), "PastValueTensor": tensor(F32, [2, 1, 4, 2])},
     "OutputPresentKeyTensor.Sizes [2, 1, 5, 2] must be [2, 1, 4, 2]"),
], ids=["float-lengths", "lengths-count", "lengths-leading", "no-present-value", "no-present-key", "seq-differs",
        "cache-too-short", "present-not-past-sizes"])
def test_validation(ref_device, changes, expected):
    assert expected in refused(ref_device, base(**changes))
