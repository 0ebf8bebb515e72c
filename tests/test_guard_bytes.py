"""Kernels write exactly their outputs' elements: every other byte of the buffer survives a dispatch.

All tensors of one dispatch live in one large buffer filled with random bytes, at assorted offsets
(multiples of 16 or of a larger GuaranteedBaseOffsetAlignment) with gaps between them. After the
dispatch, every byte that is not an output *element* must be unchanged: the gaps, the inputs, the
padding inside padded output rows, the slack of a TotalTensorSizeInBytes larger than needed, and the
round-up-to-4 tail of an odd FLOAT16 count. In-place and out-of-place runs must agree bitwise.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from adam_support import (
    ALIAS,
    FLOAT16,
    FLOAT32,
    INPUTS,
    NP,
    OUTPUTS,
    TENSORS,
    UINT32,
    AdamDispatch,
    G,
    M,
    T,
    V,
    X,
    adam_desc,
    assert_matches_reference,
    padded_strides,
    random_state,
    tensor_desc,
)

import dmlsim as dml

ULPS = {FLOAT32: 8, FLOAT16: 1}  # as justified in test_adam_numerics
SIZES = (1, 3, 1, 7)  # 21 elements: an odd FLOAT16 count, and not a multiple of the vector width


def strides_for(layout, name, inplace):
    if layout == "packed":
        return None
    if name in ALIAS and inplace:
        name = ALIAS[name]
    return padded_strides(SIZES, 1 + TENSORS.index(name) % 4)


def plan(data_type, layout, inplace, rng):
    """Descs (outputs with 16 bytes of TotalTensorSizeInBytes slack) and offsets in one buffer."""
    fields = {}
    for name in TENSORS:
        if name == T:
            fields[name] = tensor_desc(UINT32, [1, 1, 1, 1])
            continue
        strides = strides_for(layout, name, inplace)
        slack = 16 if name in OUTPUTS or (inplace and name in ALIAS.values()) else 0
        alignment = 64 if name in (G, V, "OutputSecondMomentTensor") else 0
        total = dml.DMLCalcBufferTensorSize(data_type, 4, SIZES, strides) + slack
        fields[name] = tensor_desc(data_type, SIZES, strides, total=total, alignment=alignment)
    offsets = {}
    cursor = 48
    for name in TENSORS:
        if inplace and name in ALIAS:
            offsets[name] = offsets[ALIAS[name]]
            continue
        align = max(16, fields[name].Desc.GuaranteedBaseOffsetAlignment)
        cursor = -(-cursor // align) * align
        offsets[name] = cursor
        cursor += fields[name].Desc.TotalTensorSizeInBytes + int(rng.choice([0, 4, 20, 36]))
    return adam_desc(data_type, SIZES, **fields), offsets, cursor + 64


def element_mask(nbytes, layout, offset):
    """True at every byte one of the tensor's elements occupies."""
    mask = np.zeros(nbytes, bool)
    size = layout.element_size
    for index in itertools.product(*(range(s) for s in layout.sizes)):
        start = offset + sum(i * st for i, st in zip(index, layout.strides, strict=True)) * size
        mask[start:start + size] = True
    return mask


def run(device, data_type, layout, inplace, state):
    rng = np.random.default_rng(int(data_type) * 10 + len(layout))
    op_desc, offsets, nbytes = plan(data_type, layout, inplace, rng)
    big = device.CreateBuffer(nbytes)
    big.Write(rng.integers(0, 256, nbytes, dtype=np.uint8))
    dispatch = AdamDispatch(device, op_desc, placement={name: (big, offsets[name]) for name in TENSORS})
    seen = {name: dispatch.write(name, state[name]) for name in (X, M, V, G)}
    dispatch.write(T, np.uint32(3))
    before = np.frombuffer(big.Read(), np.uint8)
    dispatch.execute()
    after = np.frombuffer(big.Read(), np.uint8)
    written = np.zeros(nbytes, bool)
    for name in OUTPUTS:
        written |= element_mask(nbytes, dispatch.layouts[name], offsets[name])
    changed = np.flatnonzero((before != after) & ~written)
    regions = {name: (offsets[name], offsets[name] + dispatch.layouts[name].total_bytes) for name in TENSORS}
    assert changed.size == 0, (f"{changed.size} byte(s) outside the output elements changed, first at "
                               f"{changed[:8].tolist()}; regions {regions}")
    got = {name: dispatch.read(name) for name in OUTPUTS}
    assert_matches_reference(got, seen, 3, data_type, ULPS[data_type], what=f"{layout} inplace={inplace}")
    return got


@pytest.mark.parametrize("data_type", [FLOAT32, FLOAT16], ids=["f32", "f16"])
@pytest.mark.parametrize("layout", ["packed", "padded"])
def test_only_output_elements_change(device, data_type, layout):
    state = random_state(np.random.default_rng(9), SIZES, NP[data_type])
    out_of_place = run(device, data_type, layout, False, state)
    in_place = run(device, data_type, layout, True, state)
    for name in OUTPUTS:
        assert out_of_place[name].tobytes() == in_place[name].tobytes(), f"{name}: in place differs from out of place"


def test_plan_puts_tensors_apart_and_aligned():
    """The placement itself: distinct, aligned, non-overlapping regions when not in place."""
    _, offsets, nbytes = plan(FLOAT32, "padded", False, np.random.default_rng(0))
    assert len(set(offsets.values())) == len(TENSORS) and max(offsets.values()) < nbytes
    assert all(offset % 16 == 0 for offset in offsets.values()) and offsets[G] % 64 == 0
    assert [n for n in INPUTS] == [X, M, V, G, T]


@pytest.mark.parametrize("data_type", [FLOAT32, FLOAT16], ids=["f32", "f16"])
@pytest.mark.large
def test_large_packed_outputs_write_nothing_else(device, data_type):
    """40003 elements over many work-items: chunk boundaries and the tail stay inside each output."""
    sizes = (1, 1, 1, 40003)
    rng = np.random.default_rng(21)
    total = dml.DMLCalcBufferTensorSize(data_type, 4, sizes, None)
    offsets = {name: 64 + i * (total + 48) // 16 * 16 for i, name in enumerate(TENSORS)}
    nbytes = max(offsets.values()) + total + 64
    big = device.CreateBuffer(nbytes)
    big.Write(rng.integers(0, 256, nbytes, dtype=np.uint8))
    dispatch = AdamDispatch(device, adam_desc(data_type, sizes), placement={n: (big, offsets[n]) for n in TENSORS})
    seen = {name: dispatch.write(name, value)
            for name, value in random_state(rng, sizes, NP[data_type]).items()}
    dispatch.write(T, np.uint32(2))
    before = np.frombuffer(big.Read(), np.uint8)
    dispatch.execute()
    after = np.frombuffer(big.Read(), np.uint8)
    written = np.zeros(nbytes, bool)
    element_bytes = 40003 * dispatch.layouts[OUTPUTS[0]].element_size
    for name in OUTPUTS:
        written[offsets[name]:offsets[name] + element_bytes] = True
    changed = np.flatnonzero((before != after) & ~written)
    assert changed.size == 0, f"{changed.size} byte(s) outside the outputs changed, first at {changed[:8].tolist()}"
    assert_matches_reference({n: dispatch.read(n) for n in OUTPUTS}, seen, 2, data_type, ULPS[data_type])
