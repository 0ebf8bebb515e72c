"""Float64 reference of DML_OPERATOR_MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1, from the doc page's
decomposition::

    [Add Bias to query/key/value] -> GEMM(Query, Transposed(Key)) * Scale -> [Add RelativePositionBias]
    -> [Add Mask] -> Softmax -> GEMM(SoftmaxResult, Value)

on the operator's logical tensors (dmlsim.operators.attention turns each bound tensor, stacked or not, into
them): ``query {B, S, Hq, D}``, ``key {B, L, Hkv, D}``, ``value {B, L, Hkv, Dv}``, the past key/value
``{B, Hkv, P, D|Dv}`` concatenated before the new ones along the sequence (T = P + L keys), query head h
reading key/value head ``h // (Hq / Hkv)``. Returns the output ``{B, S, Hq * Dv}`` and the present key and
value ``{B, Hkv, T, D|Dv}`` (the past followed by the biased new key/value).

With ``past_lengths`` (MULTIHEAD_ATTENTION1's PastSequenceLengthsTensor, one count p[b] per batch) the past
key/value are a KV cache ``{B, Hkv, T, D|Dv}`` of T positions: batch b's new keys/values go to positions
``[p[b], p[b] + L)`` (p[b] clamped into [0, T - L]), the other positions keep the cache, and query i attends to
keys ``0 .. p[b] + i`` only (causal; the other keys take no part in its softmax).
"""

from __future__ import annotations

import numpy as np

# MaskType values (DML_MULTIHEAD_ATTENTION_MASK_TYPE)
NONE, KEY_SEQUENCE_LENGTH, KEY_SEQUENCE_END_START, KEY_QUERY_SEQUENCE_LENGTH_START_END, BOOLEAN = range(5)


def key_window(mask: np.ndarray, mask_type: int, batch: int, total: int) -> tuple[np.ndarray, np.ndarray]:
    """The kept keys ``[start, end)`` of each batch for the three sequence-length mask types (mask flat)."""
    mask = np.asarray(mask, np.int64).reshape(-1)
    if mask_type == KEY_SEQUENCE_LENGTH:
        return np.zeros(batch, np.int64), mask[:batch]
    if mask_type == KEY_SEQUENCE_END_START:
        return mask[batch:2 * batch], mask[:batch]
    return np.zeros(batch, np.int64), mask[:batch]  # KEY_QUERY_SEQUENCE_LENGTH_START_END: keyLength[b]


def multihead_attention(query: np.ndarray, key: np.ndarray, value: np.ndarray, *, bias: np.ndarray | None,
                        mask: np.ndarray | None, mask_type: int, relative_position_bias: np.ndarray | None,
                        past_key: np.ndarray | None, past_value: np.ndarray | None, scale: float,
                        mask_filter_value: float, past_lengths: np.ndarray | None = None
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(output, present key, present value) in float64; ``mask``: {B, Hq, S, T} for BOOLEAN, else flat;
    ``past_lengths`` {B} (with the cache as ``past_key``/``past_value``). IEEE arithmetic throughout (an
    infinite or NaN score makes its row NaN), without warnings."""
    with np.errstate(all="ignore"):
        if past_lengths is not None:
            return _cached_attention(query, key, value, bias, mask, mask_type, relative_position_bias, past_key,
                                     past_value, scale, mask_filter_value, past_lengths)
        return _attention(query, key, value, bias, mask, mask_type, relative_position_bias, past_key, past_value,
                          scale, mask_filter_value)


def cache_positions(past_lengths: np.ndarray, capacity: int, new: int) -> np.ndarray:
    """Each batch's past length p[b] clamped into [0, capacity - new] (where its new keys start)."""
    return np.clip(np.asarray(past_lengths, np.int64).reshape(-1), 0, capacity - new)


def _biased(q: np.ndarray, k: np.ndarray, v: np.ndarray, bias: np.ndarray | None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    hq, d, hkv, dv = q.shape[2], q.shape[3], k.shape[2], v.shape[3]
    if bias is None:
        return q, k, v
    b = np.asarray(bias, np.float64).reshape(-1)
    return (q + b[:hq * d].reshape(hq, d), k + b[hq * d:(hq + hkv) * d].reshape(hkv, d),
            v + b[(hq + hkv) * d:].reshape(hkv, dv))


def _scores_masked(scores: np.ndarray, mask: np.ndarray | None, mask_type: int, filter_value: float,
                   batch: int, total: int) -> np.ndarray:
    if mask is not None and mask_type == BOOLEAN:
        return scores + np.where(np.asarray(mask) == 0, filter_value, 0.0)
    if mask is not None and mask_type != NONE:
        start, end = key_window(mask, mask_type, batch, total)
        j = np.arange(total)
        kept = (j >= start[:, None]) & (j < end[:, None])  # {B, T}
        return np.where(kept[:, None, None, :], scores, filter_value)
    return scores


def _cached_attention(query: np.ndarray, key: np.ndarray, value: np.ndarray, bias: np.ndarray | None,
                      mask: np.ndarray | None, mask_type: int, relative_position_bias: np.ndarray | None,
                      cache_key: np.ndarray | None, cache_value: np.ndarray | None, scale: float,
                      mask_filter_value: float, past_lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    q, k, v = _biased(*(np.asarray(x, np.float64) for x in (query, key, value)), bias)
    batch, seq, hq, _ = q.shape
    hkv, new, dv = k.shape[2], k.shape[1], v.shape[3]
    present_k, present_v = np.array(cache_key, np.float64), np.array(cache_value, np.float64)
    total = present_k.shape[2]
    start = cache_positions(past_lengths, total, new)
    for b in range(batch):
        present_k[b, :, start[b]:start[b] + new] = k[b].transpose(1, 0, 2)
        present_v[b, :, start[b]:start[b] + new] = v[b].transpose(1, 0, 2)
    group = hq // hkv
    k_heads, v_heads = np.repeat(present_k, group, axis=1), np.repeat(present_v, group, axis=1)  # {B, Hq, T, *}
    scores = np.matmul(q.transpose(0, 2, 1, 3), k_heads.transpose(0, 1, 3, 2)) * np.float64(np.float32(scale))
    if relative_position_bias is not None:
        scores = scores + np.asarray(relative_position_bias, np.float64)
    scores = _scores_masked(scores, mask, mask_type, np.float64(np.float32(mask_filter_value)), batch, total)
    # query i of batch b sees keys 0 .. start[b] + i: the others take no part (not even a NaN of theirs)
    seen = np.arange(total)[None, None, :] <= (start[:, None, None] + np.arange(seq)[None, :, None])  # {B, S, T}
    seen = seen[:, None]  # {B, 1, S, T}
    scores = np.where(seen, scores, -np.inf)
    shifted = np.where(seen, np.exp(scores - scores.max(axis=-1, keepdims=True)), 0.0)
    probabilities = shifted / shifted.sum(axis=-1, keepdims=True)
    terms = np.where(seen[..., None], probabilities[..., None] * v_heads[:, :, None, :, :], 0.0)  # {B,Hq,S,T,Dv}
    out = terms.sum(axis=3)
    return out.transpose(0, 2, 1, 3).reshape(batch, seq, hq * dv), present_k, present_v


def _attention(query: np.ndarray, key: np.ndarray, value: np.ndarray, bias: np.ndarray | None,
               mask: np.ndarray | None, mask_type: int, relative_position_bias: np.ndarray | None,
               past_key: np.ndarray | None, past_value: np.ndarray | None, scale: float,
               mask_filter_value: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    q, k, v = (np.asarray(x, np.float64) for x in (query, key, value))
    batch, seq, hq, d = q.shape
    hkv, dv = k.shape[2], v.shape[3]
    if bias is not None:
        b = np.asarray(bias, np.float64).reshape(-1)
        q = q + b[:hq * d].reshape(hq, d)
        k = k + b[hq * d:(hq + hkv) * d].reshape(hkv, d)
        v = v + b[(hq + hkv) * d:].reshape(hkv, dv)
    k, v = k.transpose(0, 2, 1, 3), v.transpose(0, 2, 1, 3)  # {B, Hkv, L, D}
    if past_key is not None:
        k = np.concatenate([np.asarray(past_key, np.float64), k], axis=2)
        v = np.concatenate([np.asarray(past_value, np.float64), v], axis=2)
    total = k.shape[2]
    group = hq // hkv
    k_heads, v_heads = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)  # {B, Hq, T, D}
    scores = np.matmul(q.transpose(0, 2, 1, 3), k_heads.transpose(0, 1, 3, 2)) * np.float64(np.float32(scale))
    if relative_position_bias is not None:
        scores = scores + np.asarray(relative_position_bias, np.float64)
    filter_value = np.float64(np.float32(mask_filter_value))
    if mask is not None and mask_type == BOOLEAN:
        scores = scores + np.where(np.asarray(mask) == 0, filter_value, 0.0)
    elif mask is not None and mask_type != NONE:
        start, end = key_window(mask, mask_type, batch, total)
        j = np.arange(total)
        kept = (j >= start[:, None]) & (j < end[:, None])  # {B, T}
        scores = np.where(kept[:, None, None, :], scores, filter_value)
    shifted = np.exp(scores - scores.max(axis=-1, keepdims=True))
    probabilities = shifted / shifted.sum(axis=-1, keepdims=True)
    out = np.matmul(probabilities, v_heads)  # {B, Hq, S, Dv}
    return out.transpose(0, 2, 1, 3).reshape(batch, seq, hq * dv), k, v
