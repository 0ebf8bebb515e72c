"""DML_OPERATOR_MULTIHEAD_ATTENTION (DML_FEATURE_LEVEL_6_1) and DML_OPERATOR_MULTIHEAD_ATTENTION1 (6_3):
scaled dot-product attention of several heads, ``Softmax(Scale * Q x K^T + RelativePositionBias + Mask) x V``.

The descs are DirectML's generated ones. Semantics (the doc page's decomposition, :mod:`.reference`):
``[Add Bias to query/key/value] -> GEMM(Query, Transposed(Key)) * Scale -> [Add RelativePositionBias] ->
[Add Mask] -> Softmax -> GEMM(SoftmaxResult, Value)``. Names: B batch, S query sequence, L new key/value
sequence, P past sequence, T = P + L keys, Hq query heads, Hkv key/value heads (MULTIHEAD_ATTENTION:
both ``HeadCount``; MULTIHEAD_ATTENTION1: ``QueryHeadCount`` and ``KeyValueHeadCount``), D the query/key
head size, Dv the value head size.

- **Query, key, value**: exactly one source each (the page: "Exactly one Query, Key and Value tensor must be
  present, whether or not they're stacked"): QueryTensor ``{B, S, Hq*D}``, KeyTensor ``{B, L, Hkv*D}``,
  ValueTensor ``{B, L, Hkv*Dv}`` (3 dimensions, or 4-5 with leading 1s), or the 5-D stacked tensors
  StackedQueryKeyTensor ``{B, S, H, 2, D}`` (query, key; L = S), StackedKeyValueTensor ``{B, L, H, 2, D}``
  (key, value; Dv = D), StackedQueryKeyValueTensor ``{B, S, H, 3, D}``, stacked on the fourth dimension.
  MULTIHEAD_ATTENTION1 (decision): a stacked tensor's head dimension is the head count of each tensor it holds,
  so StackedQueryKey/StackedQueryKeyValue need QueryHeadCount = KeyValueHeadCount.
- **BiasTensor** ``{Hq*D + Hkv*D + Hkv*Dv}`` (1 dimension, or up to 5 with leading 1s) is added to query,
  key and value first. The present key/value hold the biased key/value (decision: the page adds the bias
  before anything else).
- **RelativePositionBiasTensor** ``{B, Hq, S, T}`` (4-D, or 5-D with a leading 1) is added to the scaled
  scores; broadcasting is by stride 0 (onnxruntime's DirectML provider passes it at full sizes).
- **MaskTensor** (INT32) per **MaskType** (every value of the page): BOOLEAN: ``{B, Hq, S, T}`` (4-D, or 5-D
  with a leading 1; stride 0 broadcasts, which is how onnxruntime passes a ``{B, L}`` key padding mask);
  where it is 0 *MaskFilterValue* is added to the score, any other value adds nothing (decision: the page
  says 0 and 1). KEY_SEQUENCE_LENGTH ``{1, B}``: keys at index >= length[b] get their score *set* to
  MaskFilterValue. KEY_SEQUENCE_END_START ``{2, B}`` (row 0 the ends, exclusive, row 1 the starts,
  inclusive): keys outside [start, end) are set to MaskFilterValue. KEY_QUERY_SEQUENCE_LENGTH_START_END
  ``{3B + 2}``: the page describes packed (variable-length) sequences through cumulative query and key
  starts, which dense tensors do not have; decision: keys at index >= keyLength[b] (its first B values) are
  set to MaskFilterValue and the cumulative starts are not read. "Set" for the length types and "added"
  for BOOLEAN as the page words them. Each mask may have leading 1s up to 5 dimensions. MaskType NONE
  requires MaskTensor null and every other type requires it (decision: the page ties the mask's meaning to
  the type). A row whose every key is masked is a uniform softmax over the filtered values.
- **PastKeyTensor / PastValueTensor** ``{B, Hkv, P, D}`` / ``{B, Hkv, P, Dv}`` (4-D or 5-D with a leading 1)
  come before the new keys/values (both or neither: decision, as onnxruntime binds them). Decision: the
  page's "Exactly one ... Key ... must be present" is kept even with a past key (onnxruntime's provider
  binds a 4-D ONNX key as PastKey with KeyTensor null; such a desc is refused here).
- **OutputTensor** ``{B, S, Hq*Dv}`` (3 dimensions or 4-5 with leading 1s); **OutputPresentKeyTensor /
  OutputPresentValueTensor** ``{B, Hkv, T, D}`` / ``{B, Hkv, T, Dv}`` (4-D or 5-D with a leading 1): the past
  followed by the (biased) new key/value (with PastSequenceLengthsTensor: the KV cache, below).
- **Grouped-query attention** (MULTIHEAD_ATTENTION1, decision, as onnxruntime's GroupQueryAttention uses it):
  query head h reads key/value head ``h / (QueryHeadCount / KeyValueHeadCount)``; QueryHeadCount must be a
  multiple of KeyValueHeadCount.
- **PastSequenceLengthsTensor** (MULTIHEAD_ATTENTION1): the page says "TBD"; the semantics are decided from how
  onnxruntime's DirectML provider binds it for the contrib op GroupQueryAttention
  (``DmlOperatorGroupQueryAttention.cpp``: an INT32 ``{batchSize}`` tensor, its seqlens_k input when the query
  is one token and zeros for a prompt; PastKeyTensor/PastValueTensor null; the present key/value bound to
  GroupQueryAttention's outputs, which share their buffer with its past key/value) and from GroupQueryAttention's
  CPU kernel (``gqa_attention_base.h``: batch b has p[b] valid past tokens, the new tokens are written after
  them into a cache of a fixed length, query i is the token at position p[b] + i and attends causally to
  positions 0 .. p[b] + i). Decisions:

  - DataType INT32 (the table's FLOAT32/FLOAT16 and the same-DataType constraint cannot describe a count, and
    onnxruntime passes INT32); Sizes ``{batchSize}``, leading 1s allowed up to 5 dimensions; any strides.
  - The past key/value become a **KV cache** of T positions: with PastKeyTensor/PastValueTensor, they are the
    cache ``{B, Hkv, T, D|Dv}`` and the present tensors (if bound) have the same sizes; without them (how
    onnxruntime binds it) OutputPresentKeyTensor and OutputPresentValueTensor are required and *are* the cache:
    their contents before the dispatch are the past (read, not rewritten), T their third-from-last size.
  - Batch b's new keys/values are written at positions ``[p[b], p[b] + L)`` of the present tensors; every other
    position is copied from the past tensors, or left unchanged when the present tensors are the cache.
    A length outside ``[0, T - L]`` is clamped into it (an execution-time value: nothing is written or read
    outside the cache). ``T >= L`` and ``sequenceLength == keyValueSequenceLength`` are required (query i is
    the token at p[b] + i).
  - Query i of batch b attends to keys ``0 .. p[b] + i`` only (GroupQueryAttention is causal; onnxruntime's
    provider refuses causal=0); the other keys take no part in its softmax (weight exactly 0, their values
    never read), as in GroupQueryAttention's CPU kernel. MaskTensor, RelativePositionBiasTensor ``{B, Hq, S, T}``
    and BiasTensor apply as without lengths (onnxruntime binds none of them). A length 0 is a prompt.
- **Data types**: every float tensor FLOAT32 or FLOAT16, all the same (the page's constraint); MaskTensor
  INT32. FLOAT16 is storage: the kernel computes in float32 and stores rounded to nearest even.
- **Numerics**: each query row's scores are computed once for the row maximum and again for the sum, in
  float32 with products in order d = 0..D-1; the softmax subtracts the row maximum before exp (an infinite or
  NaN score makes its row NaN, as IEEE arithmetic gives). Error of a FLOAT32 output: the scores are within
  (D + 3) ulps of their magnitude ``|Scale|·Σ|q||k| + |rpb| + |MaskFilterValue|``, which exp turns into a
  relative error of that size, plus T + 4 ulps of the softmax sum and the weighted sum of values; tests state
  it per case.
- **Strides and placement**: any DML strides on every tensor (stride 0 broadcasts an input), non-zero
  binding offsets; not in place (the schema makes no input eligible). The one output read is the present
  tensors when they are the KV cache (:meth:`MultiheadAttention.prior_outputs`: the reference device and the
  harness hand their prior contents to the reference); the kernels read their past rows and write only the
  new rows, so no element is both read and written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import (
    DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC,
    DML_MULTIHEAD_ATTENTION_OPERATOR_DESC,
)
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout, data_type_name
from dmlsim.operators.attention.reference import (
    BOOLEAN,
    KEY_QUERY_SEQUENCE_LENGTH_START_END,
    KEY_SEQUENCE_END_START,
    KEY_SEQUENCE_LENGTH,
    NONE,
    multihead_attention,
)
from dmlsim.operators.base import Operator, ValidatedDesc, Work, add_operator, elementwise_work
from dmlsim.operators.float_rules import FLOAT_TYPES, storage_defines
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, TensorArg, Vector
from dmlsim.operators.typed import INT32

Q, K, V = "QueryTensor", "KeyTensor", "ValueTensor"
SQK, SKV, SQKV = "StackedQueryKeyTensor", "StackedKeyValueTensor", "StackedQueryKeyValueTensor"
BIAS, MASK, RPB = "BiasTensor", "MaskTensor", "RelativePositionBiasTensor"
PAST_K, PAST_V, PAST_LENGTHS = "PastKeyTensor", "PastValueTensor", "PastSequenceLengthsTensor"
OUT, PRESENT_K, PRESENT_V = "OutputTensor", "OutputPresentKeyTensor", "OutputPresentValueTensor"
FLOAT_FIELDS = (Q, K, V, SQK, SKV, SQKV, BIAS, RPB, PAST_K, PAST_V, OUT, PRESENT_K, PRESENT_V)
# The tensor-support table: dimension counts of each tensor
RANKS = {Q: range(3, 6), K: range(3, 6), V: range(3, 6), SQK: range(5, 6), SKV: range(5, 6), SQKV: range(5, 6),
         BIAS: range(1, 6), MASK: range(1, 6), RPB: range(4, 6), PAST_K: range(4, 6), PAST_V: range(4, 6),
         PAST_LENGTHS: range(1, 6), OUT: range(3, 6), PRESENT_K: range(4, 6), PRESENT_V: range(4, 6)}
# Where each of query, key and value can come from: (field, index in the stacked dimension or None)
SOURCES = {"query": ((Q, None), (SQK, 0), (SQKV, 0)), "key": ((K, None), (SQK, 1), (SKV, 0), (SQKV, 1)),
           "value": ((V, None), (SKV, 1), (SQKV, 2))}
STACK_DEPTH = {SQK: 2, SKV: 2, SQKV: 3}
MASK_NAMES = {NONE: "NONE", KEY_SEQUENCE_LENGTH: "KEY_SEQUENCE_LENGTH", KEY_SEQUENCE_END_START:
              "KEY_SEQUENCE_END_START", KEY_QUERY_SEQUENCE_LENGTH_START_END: "KEY_QUERY_SEQUENCE_LENGTH_START_END",
              BOOLEAN: "BOOLEAN"}


@dataclass(frozen=True)
class Geometry:
    """The attention's sizes and where query, key and value come from (``(field, stack index or None)``)."""

    batch: int
    seq: int
    kv_seq: int
    past: int
    heads: int
    kv_heads: int
    head_size: int
    value_head_size: int
    query: tuple[str, int | None]
    key: tuple[str, int | None]
    value: tuple[str, int | None]
    cache: int = 0  # with PastSequenceLengthsTensor: the KV cache's positions T (0 without)

    @property
    def total(self) -> int:
        return self.cache if self.cache else self.past + self.kv_seq


def _sizes(v: ValidatedDesc, name: str) -> tuple[int, ...] | None:
    layout = v.tensors.get(name)
    return layout.sizes if isinstance(layout, TensorLayout) else None


def head_counts(v: ValidatedDesc) -> tuple[int, int]:
    """(query heads, key/value heads) of either desc."""
    if "HeadCount" in v.attrs:
        return v.attrs["HeadCount"], v.attrs["HeadCount"]
    return v.attrs["QueryHeadCount"], v.attrs["KeyValueHeadCount"]


def _source(v: ValidatedDesc, role: str) -> tuple[str, int | None] | None:
    present = [(name, index) for name, index in SOURCES[role] if v.tensors.get(name) is not None]
    return present[0] if len(present) == 1 else None


def geometry(v: ValidatedDesc) -> Geometry:
    """The sizes of a desc whose sources and ranks are valid (check's first stage)."""
    heads, kv_heads = head_counts(v)
    query, key, value = _source(v, "query"), _source(v, "key"), _source(v, "value")
    assert query is not None and key is not None and value is not None
    qs, ks, vs = v.layout(query[0]).sizes, v.layout(key[0]).sizes, v.layout(value[0]).sizes
    head_size = qs[4] if query[1] is not None else qs[-1] // max(heads, 1)
    value_head_size = vs[4] if value[1] is not None else vs[-1] // max(kv_heads, 1)
    batch, seq = (qs[0], qs[1]) if query[1] is not None else (qs[-3], qs[-2])
    kv_seq = ks[1] if key[1] is not None else ks[-2]
    past_sizes = _sizes(v, PAST_K)
    past = past_sizes[-2] if past_sizes is not None else 0
    cache = 0
    if v.tensors.get(PAST_LENGTHS) is not None:
        cache_sizes = past_sizes or _sizes(v, PRESENT_K) or _sizes(v, PRESENT_V)
        cache = cache_sizes[-2] if cache_sizes else 0
    return Geometry(batch, seq, kv_seq, past, heads, kv_heads, head_size, value_head_size, query, key, value, cache)


def cache_in_present(v: ValidatedDesc) -> bool:
    """Whether the KV cache's past is read from the present tensors themselves (PastSequenceLengthsTensor given
    without PastKeyTensor/PastValueTensor, as onnxruntime binds GroupQueryAttention)."""
    return v.tensors.get(PAST_LENGTHS) is not None and v.tensors.get(PAST_K) is None


def _leading_ones(v: ValidatedDesc, problems: Problems, name: str, kept: int) -> None:
    sizes = _sizes(v, name)
    if sizes is not None and any(s != 1 for s in sizes[:-kept]):
        problems.add(f"{v.struct_name}.{name}.Sizes {list(sizes)}: the dimensions before the last {kept} must be 1 "
                     f"(the page allows more dimensions only as leading 1s)")


class MultiheadAttention(Operator):
    """One member of the family: MULTIHEAD_ATTENTION (HeadCount) or MULTIHEAD_ATTENTION1 (QueryHeadCount,
    KeyValueHeadCount, PastSequenceLengthsTensor)."""

    def __init__(self, type_: int, desc_cls: type) -> None:
        self.type = type_
        self.desc_cls = desc_cls

    # --- validation -------------------------------------------------------------------------------
    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        where = v.struct_name
        self._check_types_and_ranks(v, problems)
        heads, kv_heads = head_counts(v)
        names = ("HeadCount",) if "HeadCount" in v.attrs else ("QueryHeadCount", "KeyValueHeadCount")
        for name in names:
            if v.attrs[name] == 0:
                problems.add(f"{where}.{name} 0 must be at least 1")
        if "KeyValueHeadCount" in v.attrs and kv_heads and heads % kv_heads:
            problems.add(f"{where}.QueryHeadCount {heads} must be a multiple of KeyValueHeadCount {kv_heads} "
                         "(each key/value head serves QueryHeadCount / KeyValueHeadCount query heads)")
        for role, sources in SOURCES.items():
            present = [name for name, _ in sources if v.tensors.get(name) is not None]
            if len(present) != 1:
                options = ", ".join(name for name, _ in sources)
                got = ", ".join(present) if present else "none"
                problems.add(f"{where}: exactly one {role} tensor must be present ({options}); got {got}")
        has_past_k, has_past_v = v.tensors.get(PAST_K) is not None, v.tensors.get(PAST_V) is not None
        if has_past_k != has_past_v:
            problems.add(f"{where}.{PAST_V if has_past_k else PAST_K} must be present when "
                         f"{PAST_K if has_past_k else PAST_V} is (the past key and value come together)")
        if v.tensors.get(PAST_LENGTHS) is not None and not has_past_k and not has_past_v:
            for name in (PRESENT_K, PRESENT_V):
                if v.tensors.get(name) is None:
                    problems.add(f"{where}.{name} is required when PastSequenceLengthsTensor is given without "
                                 f"PastKeyTensor/PastValueTensor (the KV cache, past positions included, is the "
                                 f"present tensors: onnxruntime's GroupQueryAttention binds them so)")
        mask_type = int(v.attrs["MaskType"])
        has_mask = v.tensors.get(MASK) is not None
        if mask_type == NONE and has_mask:
            problems.add(f"{where}.MaskTensor must be null when MaskType is DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE")
        if mask_type != NONE and not has_mask:
            problems.add(f"{where}.MaskTensor is required by MaskType "
                         f"DML_MULTIHEAD_ATTENTION_MASK_TYPE_{MASK_NAMES.get(mask_type, mask_type)}")
        if problems:
            return
        for name in (Q, K, V, OUT):
            _leading_ones(v, problems, name, 3)
        for name in (RPB, PAST_K, PAST_V, PRESENT_K, PRESENT_V):
            _leading_ones(v, problems, name, 4)
        _leading_ones(v, problems, BIAS, 1)
        _leading_ones(v, problems, PAST_LENGTHS, 1)
        if problems:
            return
        g = geometry(v)
        self._check_shapes(v, g, problems)
        if v.tensors.get(PAST_LENGTHS) is not None and not problems:
            if g.seq != g.kv_seq:
                problems.add(f"{where}.{PAST_LENGTHS}: with past sequence lengths the query's sequenceLength {g.seq} "
                             f"must equal the key's keyValueSequenceLength {g.kv_seq} (query i is the token at "
                             "position pastSequenceLength + i, as in onnxruntime's GroupQueryAttention)")
            if g.cache < g.kv_seq:
                cache_name = PAST_K if v.tensors.get(PAST_K) is not None else PRESENT_K
                problems.add(f"{where}.{cache_name}.Sizes {list(_sizes(v, cache_name) or ())}: the KV cache's "
                             f"{g.cache} positions must hold the keyValueSequenceLength {g.kv_seq} new keys "
                             "(PastSequenceLengthsTensor given)")

    def _check_types_and_ranks(self, v: ValidatedDesc, problems: Problems) -> None:
        where = v.struct_name
        first = None
        for name in FLOAT_FIELDS:
            layout = v.tensors.get(name)
            if not isinstance(layout, TensorLayout):
                continue
            if layout.data_type not in FLOAT_TYPES:
                problems.add(f"{where}.{name}.DataType {data_type_name(layout.data_type)} is not supported by "
                             f"{self.name} (supported: FLOAT32, FLOAT16)")
            elif first is None:
                first = (name, layout.data_type)
            elif layout.data_type != first[1]:
                problems.add(f"{where}.{name}.DataType {data_type_name(layout.data_type)} must equal "
                             f"{first[0]}.DataType {data_type_name(first[1])}")
        lengths = v.tensors.get(PAST_LENGTHS)
        if isinstance(lengths, TensorLayout) and lengths.data_type != INT32:
            problems.add(f"{where}.PastSequenceLengthsTensor.DataType {data_type_name(lengths.data_type)} is not "
                         f"supported by {self.name} (supported: INT32, as onnxruntime binds it; the page's table "
                         "lists FLOAT32/FLOAT16 under a description that says TBD)")
        mask = v.tensors.get(MASK)
        if isinstance(mask, TensorLayout) and mask.data_type != INT32:
            problems.add(f"{where}.MaskTensor.DataType {data_type_name(mask.data_type)} is not supported by "
                         f"{self.name} (supported: INT32)")
        for name, allowed in RANKS.items():
            layout = v.tensors.get(name)
            if name in v.tensors and isinstance(layout, TensorLayout) and len(layout.sizes) not in allowed:
                problems.add(f"{where}.{name}.DimensionCount {len(layout.sizes)} is not supported by {self.name} "
                             f"(supported: {allowed.start} to {allowed.stop - 1})")

    def _check_shapes(self, v: ValidatedDesc, g: Geometry, problems: Problems) -> None:
        where = v.struct_name
        qname, kname, vname = g.query[0], g.key[0], g.value[0]
        if g.query[1] is None and _sizes(v, Q)[-1] % g.heads:  # type: ignore[index]
            problems.add(f"{where}.QueryTensor.Sizes {list(_sizes(v, Q))}: hiddenSize {_sizes(v, Q)[-1]} must be "  # type: ignore[index]
                         f"a multiple of the head count {g.heads}")
            return
        if g.value[1] is None and _sizes(v, V)[-1] % g.kv_heads:  # type: ignore[index]
            problems.add(f"{where}.ValueTensor.Sizes {list(_sizes(v, V))}: valueHiddenSize {_sizes(v, V)[-1]} "  # type: ignore[index]
                         f"must be a multiple of the head count {g.kv_heads}")
            return
        b, s, lk, hq, hkv, d, dv, t = (g.batch, g.seq, g.kv_seq, g.heads, g.kv_heads, g.head_size,
                                      g.value_head_size, g.total)
        expected: dict[str, tuple[int, ...]] = {}
        for name in (SQK, SKV, SQKV):
            if v.tensors.get(name) is None:
                continue
            seq = lk if name == SKV else s
            heads = hkv if name == SKV else hq
            expected[name] = (b, seq, heads, STACK_DEPTH[name], d)
            if name != SKV and hq != hkv:
                problems.add(f"{where}.{name} stacks the query with the key, so QueryHeadCount {hq} must equal "
                             f"KeyValueHeadCount {hkv}")
        if v.tensors.get(Q) is not None:
            expected[Q] = (b, s, hq * d)
        if v.tensors.get(K) is not None:
            expected[K] = (b, lk, hkv * d)
        if v.tensors.get(V) is not None:
            expected[V] = (b, lk, hkv * dv)
        expected[OUT] = (b, s, hq * dv)
        expected[BIAS] = (hq * d + hkv * d + hkv * dv,)
        expected[RPB] = (b, hq, s, t)
        expected[PAST_K] = (b, hkv, t if g.cache else g.past, d)
        expected[PAST_V] = (b, hkv, t if g.cache else g.past, dv)
        expected[PRESENT_K] = (b, hkv, t, d)
        expected[PRESENT_V] = (b, hkv, t, dv)
        expected[PAST_LENGTHS] = (b,)
        mask_type = int(v.attrs["MaskType"])
        mask_shape = {BOOLEAN: (b, hq, s, t), KEY_SEQUENCE_LENGTH: (1, b), KEY_SEQUENCE_END_START: (2, b),
                      KEY_QUERY_SEQUENCE_LENGTH_START_END: (3 * b + 2,)}.get(mask_type)
        if mask_shape is not None:
            expected[MASK] = mask_shape
        why = {Q: "{batchSize, sequenceLength, hiddenSize}", K: "{batchSize, keyValueSequenceLength, hiddenSize}",
               V: "{batchSize, keyValueSequenceLength, valueHiddenSize}",
               OUT: "{batchSize, sequenceLength, valueHiddenSize}", BIAS: "{hiddenSize + hiddenSize + valueHiddenSize}",
               RPB: "{batchSize, headCount, sequenceLength, pastSequenceLength + keyValueSequenceLength}",
               PAST_K: "{batchSize, headCount, pastSequenceLength, headSize}",
               PAST_V: "{batchSize, headCount, pastSequenceLength, valueHeadSize}",
               PRESENT_K: "{batchSize, headCount, pastSequenceLength + keyValueSequenceLength, headSize}",
               PRESENT_V: "{batchSize, headCount, pastSequenceLength + keyValueSequenceLength, valueHeadSize}",
               SQK: "{batchSize, sequenceLength, headCount, 2, headSize}",
               SKV: "{batchSize, keyValueSequenceLength, headCount, 2, headSize}",
               SQKV: "{batchSize, sequenceLength, headCount, 3, headSize}",
               PAST_LENGTHS: "{batchSize}, leading 1s allowed",
               MASK: f"the shape of MaskType {MASK_NAMES.get(mask_type)}"}
        for name, shape in expected.items():
            sizes = _sizes(v, name)
            if sizes is None:
                continue
            if name == MASK and mask_type != BOOLEAN:
                if any(x != 1 for x in sizes[:-len(shape)]) or tuple(sizes[-len(shape):]) != shape:
                    problems.add(f"{where}.MaskTensor.Sizes {list(sizes)} must be {list(shape)} ({why[MASK]}, "
                                 f"leading 1s allowed)")
                continue
            got = tuple(sizes[-len(shape):]) if len(sizes) >= len(shape) else sizes
            if got != shape:
                problems.add(f"{where}.{name}.Sizes {list(sizes)} must be {list(shape)} ({why[name]}; batchSize "
                             f"{b}, sequenceLength {s}, keyValueSequenceLength {lk}, pastSequenceLength {g.past}, "
                             f"headCount {hq}/{hkv}, headSize {d}, valueHeadSize {dv}, from {qname}, {kname}, "
                             f"{vname})")

    # --- cost -------------------------------------------------------------------------------------
    def work(self, v: ValidatedDesc) -> Work:
        """Each output element recomputes its row's T scores twice (D multiply-adds each) and sums T weighted
        values; plus the default per element touched."""
        g = geometry(v)
        rows = g.batch * g.heads * g.seq
        per_element = 2 * g.total * (2 * g.head_size + 6)
        return elementwise_work(v) + Work(rows * g.value_head_size * per_element + rows * g.total * 64, 0)

    def reference_bytes(self, v: ValidatedDesc) -> int:
        """float64 copies of every tensor, the repeated key/value heads and a few score-sized arrays."""
        g = geometry(v)
        scores = g.batch * g.heads * g.seq * g.total
        heads = g.batch * g.heads * g.total * (g.head_size + g.value_head_size)
        terms = scores * g.value_head_size if g.cache else 0  # the cached form's masked weighted values
        return 8 * (3 * sum(layout.element_count for layout in v.all_layouts()) + 6 * scores + 2 * heads
                    + 2 * terms)

    # --- reference --------------------------------------------------------------------------------
    def prior_outputs(self, v: ValidatedDesc) -> tuple[str, ...]:
        """The present tensors when they hold the KV cache's past (:func:`cache_in_present`)."""
        return (PRESENT_K, PRESENT_V) if cache_in_present(v) else ()

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        mask_type = int(v.attrs["MaskType"])
        logical = logical_inputs(geometry(v), inputs, mask_type)
        if inputs.get(PAST_LENGTHS) is not None:
            logical["past_lengths"] = np.asarray(inputs[PAST_LENGTHS]).reshape(-1)
            if cache_in_present(v):
                logical["past_key"] = np.asarray(inputs[PRESENT_K]).reshape(np.shape(inputs[PRESENT_K])[-4:])
                logical["past_value"] = np.asarray(inputs[PRESENT_V]).reshape(np.shape(inputs[PRESENT_V])[-4:])
        out, present_k, present_v = multihead_attention(
            **logical, mask_type=mask_type, scale=v.attrs["Scale"], mask_filter_value=v.attrs["MaskFilterValue"])
        results = {OUT: out.reshape(v.layout(OUT).sizes)}
        if v.tensors.get(PRESENT_K) is not None:
            results[PRESENT_K] = present_k.reshape(v.layout(PRESENT_K).sizes)
        if v.tensors.get(PRESENT_V) is not None:
            results[PRESENT_V] = present_v.reshape(v.layout(PRESENT_V).sizes)
        return results

    # --- kernels ----------------------------------------------------------------------------------
    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        g = geometry(v)
        out = v.layout(OUT)
        defines: dict[str, Any] = {**storage_defines(out)}
        has_bias = bound.get(BIAS) is not None
        mask_type = int(v.attrs["MaskType"])
        sources = []
        for param, role, size in (("q", "query", g.head_size), ("k", "key", g.head_size),
                                  ("v", "value", g.value_head_size)):
            strides, shift = role_strides(v, getattr(g, role), size)
            sources += [TensorArg(param, getattr(g, role)[0], scalar=True), Vector(f"{param}_strides", strides, fill=0),
                        Scalar(f"{param}_shift", np.uint64(shift))]
        bias_args = [TensorArg("bias", BIAS, scalar=True),
                     Scalar("bias_stride", np.uint64(v.layout(BIAS).strides[-1]))] if has_bias else []
        # with past sequence lengths, `past` is the most a batch's past may be (the cache's T - L)
        most_past = g.total - g.kv_seq
        lengths_args = [TensorArg("lengths", PAST_LENGTHS, scalar=True),
                        Scalar("lengths_stride", np.uint64(v.layout(PAST_LENGTHS).strides[-1]))] if g.cache else []
        geometry_args = [Scalar("batch", np.uint32(g.batch)), Scalar("seq", np.uint32(g.seq)),
                         Scalar("kv_seq", np.uint32(g.kv_seq)), Scalar("past", np.uint32(most_past)),
                         Scalar("heads", np.uint32(g.heads)), Scalar("kv_heads", np.uint32(g.kv_heads)),
                         Scalar("head_size", np.uint32(g.head_size)),
                         Scalar("value_head_size", np.uint32(g.value_head_size))]
        launches = []
        extra: list[Any] = []
        if bound.get(RPB) is not None:
            defines["HAS_RPB"] = True
            extra += [TensorArg("rpb", RPB, scalar=True), Vector("rpb_strides", v.layout(RPB).strides[-4:], fill=0)]
        past_k, past_v = (PRESENT_K, PRESENT_V) if cache_in_present(v) else (PAST_K, PAST_V)
        if bound.get(past_k) is not None:
            defines["HAS_PAST"] = True
            extra += [TensorArg("past_k", past_k, scalar=True),
                      Vector("past_k_strides", v.layout(past_k).strides[-4:], fill=0),
                      TensorArg("past_v", past_v, scalar=True),
                      Vector("past_v_strides", v.layout(past_v).strides[-4:], fill=0)]
        if mask_type != NONE:
            defines["MASK_TYPE"] = mask_type
            mask = v.layout(MASK)
            mask_strides = mask.strides[-4:] if mask_type == BOOLEAN else mask.strides[-1:] if \
                mask_type == KEY_QUERY_SEQUENCE_LENGTH_START_END else mask.strides[-2:]
            extra += [TensorArg("mask", MASK, scalar=True), Vector("mask_strides", mask_strides, fill=0)]
        if g.cache:
            defines["HAS_LENGTHS"] = True
            extra += lengths_args
        defines["HAS_BIAS"] = has_bias
        rows = g.batch * g.seq * g.heads * g.value_head_size
        launches.append(KernelLaunch(
            self.kernel_source, "attention", defines, Items(rows),
            [*sources, *bias_args, *extra, TensorArg("y", OUT, scalar=True),
             Vector("y_strides", out.strides[-3:], fill=0), *geometry_args,
             Scalar("scale", np.float32(v.attrs["Scale"])),
             Scalar("mask_filter", np.float32(v.attrs["MaskFilterValue"])), Scalar("count", np.uint32(rows))]))
        for present, role, past, size, which in ((PRESENT_K, "key", PAST_K, g.head_size, 1),
                                                 (PRESENT_V, "value", PAST_V, g.value_head_size, 2)):
            if bound.get(present) is None:
                continue
            strides, shift = role_strides(v, getattr(g, role), size)
            count = g.batch * g.kv_heads * g.total * size
            args: list[Any] = [TensorArg("src", getattr(g, role)[0], scalar=True),
                               Vector("src_strides", strides, fill=0), Scalar("src_shift", np.uint64(shift))]
            if has_bias:
                args += [TensorArg("bias", BIAS, scalar=True),
                         Scalar("bias_stride", np.uint64(v.layout(BIAS).strides[-1])),
                         Scalar("bias_start", np.uint32(g.heads * g.head_size
                                                        + (which - 1) * g.kv_heads * g.head_size))]
            if g.past:
                args += [TensorArg("past", past, scalar=True),
                         Vector("past_strides", v.layout(past).strides[-4:], fill=0)]
            args += lengths_args
            args += [TensorArg("y", present, scalar=True), Vector("y_strides", v.layout(present).strides[-4:], fill=0),
                     Vector("y_sizes", (g.batch, g.kv_heads, g.total, size)),
                     Scalar("past_length", np.uint32(most_past)), Scalar("count", np.uint32(count))]
            launches.append(KernelLaunch(self.kernel_source, "present", {**storage_defines(out), "HAS_BIAS": has_bias,
                                                                       "HAS_PAST": bool(g.past),
                                                                       "HAS_LENGTHS": bool(g.cache)}, Items(count),
                                         args))
        return launches


def logical_inputs(g: Geometry, inputs: dict[str, Any], mask_type: int) -> dict[str, Any]:
    """The reference's arguments from the bound tensors' arrays (each of its field's Sizes): query {B, S, Hq, D},
    key {B, L, Hkv, D}, value {B, L, Hkv, Dv} out of separate or stacked tensors, the 4-D tensors without their
    leading 1s, a BOOLEAN mask {B, Hq, S, T} and the other masks flat."""

    def logical(role: str, heads: int, size: int) -> np.ndarray:
        name, index = getattr(g, role)
        array = np.asarray(inputs[name])
        if index is not None:
            return array[:, :, :, index, :]
        return array.reshape(array.shape[-3], array.shape[-2], heads, size)

    def last4(name: str) -> np.ndarray | None:
        array = inputs.get(name)
        return None if array is None else np.asarray(array).reshape(np.asarray(array).shape[-4:])

    mask = inputs.get(MASK)
    if mask is not None:
        mask = last4(MASK) if mask_type == BOOLEAN else np.asarray(mask).reshape(-1)
    return {"query": logical("query", g.heads, g.head_size), "key": logical("key", g.kv_heads, g.head_size),
            "value": logical("value", g.kv_heads, g.value_head_size), "bias": inputs.get(BIAS), "mask": mask,
            "relative_position_bias": last4(RPB), "past_key": last4(PAST_K), "past_value": last4(PAST_V)}


def role_strides(v: ValidatedDesc, source: tuple[str, int | None], size: int) -> tuple[tuple[int, ...], int]:
    """Element strides of a logical ``{batch, sequence, head, element}`` view of a query/key/value source and
    the offset of its slice of a stacked tensor."""
    name, index = source
    strides = v.layout(name).strides
    if index is not None:
        return (strides[0], strides[1], strides[2], strides[4]), index * strides[3]
    sb, ss, sh = strides[-3:]
    return (sb, ss, size * sh, sh), 0


MULTIHEAD_ATTENTION = add_operator(MultiheadAttention(DML_OPERATOR_TYPE.DML_OPERATOR_MULTIHEAD_ATTENTION,
                                                      DML_MULTIHEAD_ATTENTION_OPERATOR_DESC))
MULTIHEAD_ATTENTION1 = add_operator(MultiheadAttention(DML_OPERATOR_TYPE.DML_OPERATOR_MULTIHEAD_ATTENTION1,
                                                       DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC))
