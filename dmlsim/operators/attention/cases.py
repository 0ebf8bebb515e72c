"""MULTIHEAD_ATTENTION / MULTIHEAD_ATTENTION1 cases for the differential harness (dmlsim/operators/harness.py).

Draws every query/key/value layout (separate, StackedQueryKey, StackedKeyValue, StackedQueryKeyValue), 3- to
5-D separate tensors, a bias (1 to 3 dimensions) or none, a relative position bias, a past key/value, the
present outputs, every MaskType (length masks filled with lengths around the key count, BOOLEAN masks with 0s
and 1s, both possibly broadcast by stride 0), grouped query heads for MULTIHEAD_ATTENTION1, FLOAT32/FLOAT16,
random layouts; for MULTIHEAD_ATTENTION1 sometimes a PastSequenceLengthsTensor (S = L, a KV cache of T >= L
positions in the past tensors or in the present tensors themselves, lengths from -1 to T - L + 1 so that the
clamping is reached). Tolerance (as tests/test_attention.py): a score errs by (D + 3) ulps of its magnitude
``M_j = |Scale|·Σ|q_d k_d| + |rpb| + |MaskFilterValue|`` (the last where a BOOLEAN mask adds it), which exp turns
into that relative error of the weight; the sums of T terms add T + 4 roundings. The bound of an output element
is ``Σ_j p_j |v_j| · (T + 4 + 2 (D + 3) max_j M_j)`` (the row's largest finite magnitude), at 4 ulps
(FLOAT16: 1 ulp at that bound, after the storage rounding); a row that is NaN must be NaN on the device too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.operators.attention import (
    BIAS,
    BOOLEAN,
    KEY_QUERY_SEQUENCE_LENGTH_START_END,
    KEY_SEQUENCE_END_START,
    KEY_SEQUENCE_LENGTH,
    MASK,
    OUT,
    PAST_K,
    PAST_LENGTHS,
    PAST_V,
    PRESENT_K,
    PRESENT_V,
    RPB,
    SKV,
    SQK,
    SQKV,
    Geometry,
    K,
    Q,
    V,
    logical_inputs,
)
from dmlsim.operators.attention.reference import cache_positions, key_window
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import NICE_FLOATS, Case, draw_tensor, draw_valid, finite, uniform
from dmlsim.operators.typed import INT32

F32, F16 = 1, 2
LAYOUTS = ("separate", "stacked_qk", "stacked_kv", "stacked_qkv")


def lead(r: np.random.Generator, sizes: list[int], most: int = 5) -> list[int]:
    """``sizes`` with 0 to (most - len) leading 1s."""
    return [1] * int(r.integers(0, most - len(sizes) + 1)) + sizes


def magnitude_bound(g: Geometry, logical: dict[str, Any], mask_type: int, scale: float, mask_filter: float
                    ) -> np.ndarray:
    """The output's error bound of the module docstring, {B, S, Hq * Dv}."""
    with np.errstate(all="ignore"):
        if logical.get("past_lengths") is not None:
            return _cached_bound(g, logical, mask_type, scale, mask_filter)
        return _magnitude_bound(g, logical, mask_type, scale, mask_filter)


def _cached_bound(g: Geometry, logical: dict[str, Any], mask_type: int, scale: float, mask_filter: float
                  ) -> np.ndarray:
    """The bound with a KV cache: the keys are the cache with each batch's new rows, query i of batch b weighs
    keys 0 .. p[b] + i only (the others, which may hold anything, add nothing)."""
    q, k, v = (np.asarray(logical[n], np.float64) for n in ("query", "key", "value"))
    hq, hkv, d = g.heads, g.kv_heads, g.head_size
    if logical["bias"] is not None:
        b = np.asarray(logical["bias"], np.float64).reshape(-1)
        q, k = q + b[:hq * d].reshape(hq, d), k + b[hq * d:(hq + hkv) * d].reshape(hkv, d)
        v = v + b[(hq + hkv) * d:].reshape(hkv, g.value_head_size)
    ck, cv = np.array(logical["past_key"], np.float64), np.array(logical["past_value"], np.float64)
    start = cache_positions(logical["past_lengths"], g.total, g.kv_seq)
    for batch in range(g.batch):
        ck[batch, :, start[batch]:start[batch] + g.kv_seq] = k[batch].transpose(1, 0, 2)
        cv[batch, :, start[batch]:start[batch] + g.kv_seq] = v[batch].transpose(1, 0, 2)
    ck, cv = np.repeat(ck, hq // hkv, axis=1), np.repeat(cv, hq // hkv, axis=1)
    scale, mask_filter = float(np.float32(scale)), float(np.float32(mask_filter))
    qt = q.transpose(0, 2, 1, 3)
    scores = scale * np.matmul(qt, ck.transpose(0, 1, 3, 2))
    magnitude = abs(scale) * np.matmul(np.abs(qt), np.abs(ck).transpose(0, 1, 3, 2))
    rpb = logical["relative_position_bias"]
    if rpb is not None:
        scores, magnitude = scores + rpb, magnitude + np.abs(np.asarray(rpb, np.float64))
    if mask_type == BOOLEAN:
        masked = np.asarray(logical["mask"]) == 0
        scores = scores + np.where(masked, mask_filter, 0.0)
        magnitude = magnitude + np.where(masked, abs(mask_filter), 0.0)
    elif logical["mask"] is not None:
        first, end = key_window(logical["mask"], mask_type, g.batch, g.total)
        j = np.arange(g.total)
        kept = ((j >= first[:, None]) & (j < end[:, None]))[:, None, None, :]
        scores, magnitude = np.where(kept, scores, mask_filter), np.where(kept, magnitude, 0.0)
    seen = (np.arange(g.total)[None, None, :] <= start[:, None, None] + np.arange(g.seq)[None, :, None])[:, None]
    scores = np.where(seen, scores, -np.inf)
    magnitude = np.where(seen, magnitude, 0.0)
    weights = np.where(seen, np.exp(scores - scores.max(axis=-1, keepdims=True)), 0.0)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    row = np.max(np.where(np.isfinite(magnitude), magnitude, 0.0), axis=-1, keepdims=True)
    factor = g.total + 4 + 2 * (d + 3) * row
    terms = np.where(seen[..., None], np.nan_to_num(weights, nan=1.0)[..., None] * np.abs(cv)[:, :, None], 0.0)
    bound = np.nan_to_num(terms.sum(axis=3) * factor, nan=np.inf)  # {B, Hq, S, Dv}
    return bound.transpose(0, 2, 1, 3).reshape(g.batch, g.seq, hq * g.value_head_size)


def _magnitude_bound(g: Geometry, logical: dict[str, Any], mask_type: int, scale: float, mask_filter: float
                     ) -> np.ndarray:
    q, k, v = (np.asarray(logical[n], np.float64) for n in ("query", "key", "value"))
    hq, hkv, d = g.heads, g.kv_heads, g.head_size
    if logical["bias"] is not None:
        b = np.asarray(logical["bias"], np.float64).reshape(-1)
        q, k = q + b[:hq * d].reshape(hq, d), k + b[hq * d:(hq + hkv) * d].reshape(hkv, d)
        v = v + b[(hq + hkv) * d:].reshape(hkv, g.value_head_size)
    k, v = k.transpose(0, 2, 1, 3), v.transpose(0, 2, 1, 3)
    if logical["past_key"] is not None:
        k = np.concatenate([np.asarray(logical["past_key"], np.float64), k], axis=2)
        v = np.concatenate([np.asarray(logical["past_value"], np.float64), v], axis=2)
    k, v = np.repeat(k, hq // hkv, axis=1), np.repeat(v, hq // hkv, axis=1)
    scale, mask_filter = float(np.float32(scale)), float(np.float32(mask_filter))
    qt = q.transpose(0, 2, 1, 3)
    scores = scale * np.matmul(qt, k.transpose(0, 1, 3, 2))
    magnitude = abs(scale) * np.matmul(np.abs(qt), np.abs(k).transpose(0, 1, 3, 2))
    rpb = logical["relative_position_bias"]
    if rpb is not None:
        scores, magnitude = scores + rpb, magnitude + np.abs(np.asarray(rpb, np.float64))
    if mask_type == BOOLEAN:
        masked = np.asarray(logical["mask"]) == 0
        scores = scores + np.where(masked, mask_filter, 0.0)
        magnitude = magnitude + np.where(masked, abs(mask_filter), 0.0)
    elif logical["mask"] is not None:
        start, end = key_window(logical["mask"], mask_type, g.batch, g.total)
        j = np.arange(g.total)
        kept = ((j >= start[:, None]) & (j < end[:, None]))[:, None, None, :]
        scores, magnitude = np.where(kept, scores, mask_filter), np.where(kept, magnitude, 0.0)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    row = np.max(np.where(np.isfinite(magnitude), magnitude, 0.0), axis=-1, keepdims=True)
    factor = g.total + 4 + 2 * (d + 3) * row
    bound = np.matmul(np.nan_to_num(weights, nan=1.0), np.abs(v)) * factor  # {B, Hq, S, Dv}
    bound = np.nan_to_num(bound, nan=np.inf)
    return bound.transpose(0, 2, 1, 3).reshape(g.batch, g.seq, hq * g.value_head_size)


def draw(op: Operator, rng: np.random.Generator) -> Case:
    grouped = "KeyValueHeadCount" in op.desc_cls.__dataclass_fields__

    def attempt(r: np.random.Generator) -> Case:
        layout = str(r.choice(LAYOUTS))
        dtype = int(r.choice([F32, F16]))
        batch, seq, kv_seq = (int(r.integers(1, 3)), int(r.integers(1, 4)), int(r.integers(1, 4)))
        kv_heads = int(r.integers(1, 3))
        heads = kv_heads * int(r.integers(1, 3)) if grouped and layout in ("separate", "stacked_kv") else kv_heads
        d, dv = int(r.integers(1, 5)), int(r.integers(1, 5))
        if layout in ("stacked_kv", "stacked_qkv"):
            dv = d
        if layout in ("stacked_qk", "stacked_qkv"):
            kv_seq = seq
        cached = grouped and r.random() < 0.45  # PastSequenceLengthsTensor: a KV cache
        in_present = cached and r.random() < 0.5  # the present tensors are the cache (no past tensors)
        if cached:
            kv_seq = seq
        past = int(r.integers(1, 3)) if r.random() < 0.4 else 0
        total = past + kv_seq
        if cached:
            total = kv_seq + int(r.integers(0, 3))
            past = 0 if in_present else total
        t: dict[str, Any] = {}
        query = (Q, None) if layout in ("separate", "stacked_kv") else (SQK, 0) if layout == "stacked_qk" \
            else (SQKV, 0)
        key = {"separate": (K, None), "stacked_qk": (SQK, 1), "stacked_kv": (SKV, 0), "stacked_qkv": (SQKV, 1)}[layout]
        value = {"separate": (V, None), "stacked_qk": (V, None), "stacked_kv": (SKV, 1), "stacked_qkv": (SQKV, 2)}[
            layout]
        if query[0] == Q:
            t[Q] = draw_tensor(r, dtype, lead(r, [batch, seq, heads * d]))
        if key[0] == K:
            t[K] = draw_tensor(r, dtype, lead(r, [batch, kv_seq, kv_heads * d]))
        if value[0] == V:
            t[V] = draw_tensor(r, dtype, lead(r, [batch, kv_seq, kv_heads * dv]))
        stacked = {SQK: [batch, seq, heads, 2, d], SKV: [batch, kv_seq, kv_heads, 2, d],
                   SQKV: [batch, seq, heads, 3, d]}
        for name in {query[0], key[0], value[0]} & set(stacked):
            t[name] = draw_tensor(r, dtype, stacked[name])
        if r.random() < 0.5:
            t[BIAS] = draw_tensor(r, dtype, lead(r, [(heads + kv_heads) * d + kv_heads * dv], 3))
        if r.random() < 0.4:
            t[RPB] = draw_tensor(r, dtype, lead(r, [batch, heads, seq, total]))
        if past:
            t[PAST_K] = draw_tensor(r, dtype, lead(r, [batch, kv_heads, past, d]))
            t[PAST_V] = draw_tensor(r, dtype, lead(r, [batch, kv_heads, past, dv]))
        t[OUT] = draw_tensor(r, dtype, lead(r, [batch, seq, heads * dv]), role="output")
        if in_present or r.random() < 0.5:
            t[PRESENT_K] = draw_tensor(r, dtype, lead(r, [batch, kv_heads, total, d]), role="output")
        if in_present or r.random() < 0.5:
            t[PRESENT_V] = draw_tensor(r, dtype, lead(r, [batch, kv_heads, total, dv]), role="output")
        if cached:
            t[PAST_LENGTHS] = draw_tensor(r, INT32, lead(r, [batch]))
        mask_type = int(r.integers(0, 5))
        # half the cases without special values in the float inputs: one NaN or inf makes its whole row NaN
        fills = {name: finite(1.0) for name in t if name not in (OUT, PRESENT_K, PRESENT_V)} \
            if r.random() < 0.5 else {}
        if mask_type == BOOLEAN:
            t[MASK] = draw_tensor(r, INT32, lead(r, [batch, heads, seq, total]))
            fills[MASK] = uniform(0, 1)
        elif mask_type:
            shape = {KEY_SEQUENCE_LENGTH: [1, batch], KEY_SEQUENCE_END_START: [2, batch],
                     KEY_QUERY_SEQUENCE_LENGTH_START_END: [3 * batch + 2]}[mask_type]
            t[MASK] = draw_tensor(r, INT32, lead(r, shape))
            fills[MASK] = uniform(-1, total + 1)
        if cached:
            fills[PAST_LENGTHS] = uniform(-1, total - kv_seq + 1)
            if in_present and fills.get(query[0]) is not None:  # the case without special values
                fills.update({PRESENT_K: finite(1.0), PRESENT_V: finite(1.0)})  # the cache it reads
        scale = float(r.choice(NICE_FLOATS))
        mask_filter = float(r.choice([-10000.0, -3.0, -1.25, 0.5]))
        heads_attrs = {"QueryHeadCount": heads, "KeyValueHeadCount": kv_heads} if grouped else {"HeadCount": heads}
        desc = op.desc_cls(**t, Scale=scale, MaskFilterValue=mask_filter, MaskType=mask_type, **heads_attrs)
        g = Geometry(batch, seq, kv_seq, past, heads, kv_heads, d, dv, query, key, value, total if cached else 0)

        def bound(values: dict[str, Any]) -> dict[str, Any]:
            logical = logical_inputs(g, values, mask_type)
            if cached:
                logical["past_lengths"] = np.asarray(values[PAST_LENGTHS]).reshape(-1)
                if in_present:
                    logical["past_key"] = np.asarray(values[PRESENT_K]).reshape(batch, kv_heads, total, d)
                    logical["past_value"] = np.asarray(values[PRESENT_V]).reshape(batch, kv_heads, total, dv)
            out = magnitude_bound(g, logical, mask_type, scale, mask_filter)
            return {OUT: out}

        return Case(desc, fills=fills, ulps=4, ulps16=1, bound=bound,
                    note=f"{layout} B={batch} S={seq} L={kv_seq} P={past} H={heads}/{kv_heads} D={d} Dv={dv} "
                         f"mask {mask_type}" + (f" cache T={total} in {'present' if in_present else 'past'}"
                                                if cached else ""))

    return draw_valid(op, rng, attempt)
