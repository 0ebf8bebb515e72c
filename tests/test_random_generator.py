"""DML_OPERATOR_RANDOM_GENERATOR (Philox 4x32-10), on every adapter.

Expected values: Philox4x32-10 transcribed here by hand from Salmon, Moraes, Dror and Shaw, "Parallel random
numbers: as easy as 1, 2, 3" (SC 2011) in plain Python integers, itself checked against the paper's published
known-answer vectors (Random123's kat_vectors: counter and key all zeros, all ones, and the digits of pi); the
state layout and advance rule from the doc page (counter words 0-3 little-endian, key words 4-5, the counter
advanced by ceil(outputSize / 4)). Everything compares bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import F32, I32, U32, operator, refused, run, tensor

OUT, NEXT = "OutputTensor", "OutputStateTensor"


def philox4x32_10(counter: list[int], key: list[int]) -> list[int]:
    """One Philox4x32-10 block: ten rounds of two 32x32 -> 64-bit multiplies (M0 = 0xD2511F53 on word 0,
    M1 = 0xCD9E8D57 on word 2), the high halves xored with the other words and the round key, the key bumped by
    the Weyl constants 0x9E3779B9 / 0xBB67AE85 before every round after the first."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for round_ in range(10):
        if round_:
            k0, k1 = (k0 + 0x9E3779B9) & 0xFFFFFFFF, (k1 + 0xBB67AE85) & 0xFFFFFFFF
        p0, p1 = 0xD2511F53 * c0, 0xCD9E8D57 * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & 0xFFFFFFFF, (p0 >> 32) ^ c3 ^ k1, p0 & 0xFFFFFFFF
    return [c0, c1, c2, c3]


KNOWN_ANSWERS = [  # Random123 kat_vectors, "philox4x32 10": counter, key, output (hex words)
    ([0, 0, 0, 0], [0, 0], [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
    ([0xFFFFFFFF] * 4, [0xFFFFFFFF] * 2, [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]),
    ([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0],
     [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]),
]


def expected_stream(state: list[int], count: int) -> tuple[list[int], list[int]]:
    """The page's stream: element 4j + w is word w of Philox(counter + j, key); the next state's counter is
    counter + ceil(count / 4) (128-bit, words little-endian)."""
    counter = sum(w << (32 * i) for i, w in enumerate(state[:4]))
    words = []
    for j in range(-(-count // 4)):
        c = (counter + j) % 2**128
        words += philox4x32_10([(c >> (32 * i)) & 0xFFFFFFFF for i in range(4)], state[4:])
    nxt = (counter + -(-count // 4)) % 2**128
    return words[:count], [(nxt >> (32 * i)) & 0xFFFFFFFF for i in range(4)] + state[4:]


def generator(out_sizes, state_sizes=(1, 1, 1, 6), next_state=True, out_type=U32, state_type=U32,
              next_sizes=None, out_strides=None, state_strides=None):
    return operator("RANDOM_GENERATOR", InputStateTensor=tensor(state_type, state_sizes, state_strides),
                    OutputTensor=tensor(out_type, out_sizes, out_strides),
                    OutputStateTensor=tensor(U32, next_sizes or state_sizes) if next_state else None, Type=0)


def test_transcription_matches_the_known_answers():
    for counter, key, output in KNOWN_ANSWERS:
        assert philox4x32_10(counter, key) == output


@pytest.mark.parametrize("known", range(3), ids=["zeros", "ones", "pi"])
def test_known_answer_vectors(device, known):
    """One block from each published state: the four output words are the paper's vector; the next counter is
    counter + 1 (all ones wraps to zero)."""
    counter, key, output = KNOWN_ANSWERS[known]
    state = np.array(counter + key, np.uint32).reshape(1, 1, 1, 6)
    got = run(device, generator([1, 1, 1, 4]), InputStateTensor=state)
    assert got[OUT].ravel().tolist() == output
    assert got[NEXT].ravel().tolist() == expected_stream(counter + key, 4)[1]


def test_stream_carries_across_counter_words(device):
    """A counter two blocks below a 64-bit carry: 7 outputs use counter, counter + 1 (the partial second block its
    first three words); the next counter carries into word 2."""
    state = [0xFFFFFFFE, 0xFFFFFFFF, 5, 0, 0x12345678, 0x9ABCDEF0]
    words, nxt = expected_stream(state, 7)
    got = run(device, generator([7], state_sizes=[6]), InputStateTensor=np.array(state, np.uint32))
    assert got[OUT].tolist() == words
    assert got[NEXT].tolist() == nxt == [0, 0, 6, 0, 0x12345678, 0x9ABCDEF0]


def test_strided_output_rank_8_and_no_state_output(device):
    """An 8-D output with padded, permuted strides (the stream is in row-major element order, whatever the
    layout); a padded state; no OutputStateTensor."""
    state = [3, 1, 4, 1, 5, 9]
    sizes = [1, 2, 1, 1, 1, 3, 1, 5]
    strides = [64, 1, 64, 64, 64, 20, 64, 4]
    op = generator(sizes, state_sizes=[1, 6], next_state=False, out_strides=strides, state_strides=[0, 2])
    got = run(device, op, InputStateTensor=np.array(state, np.uint32).reshape(1, 6))
    assert NEXT not in got
    assert got[OUT].ravel().tolist() == expected_stream(state, 30)[0]


def test_two_executions_continue_the_stream(device):
    """Feeding the next state back gives the continuation: two runs of 6 equal one stream of 8 + 4 (blocks 0, 1
    then 2, 3)."""
    state = [0, 0, 0, 0, 42, 7]
    first = run(device, generator([6]), InputStateTensor=np.array(state, np.uint32).reshape(1, 1, 1, 6))
    second = run(device, generator([6]), InputStateTensor=first[NEXT])
    words = expected_stream(state, 16)[0]
    assert first[OUT].tolist() == words[:6] and second[OUT].tolist() == words[8:14]


def test_refusals_name_the_field(ref_device):
    name = "DML_RANDOM_GENERATOR_OPERATOR_DESC"
    assert f"{name}.InputStateTensor.Sizes [1, 1, 1, 5] must be" in refused(
        ref_device, generator([4], state_sizes=[1, 1, 1, 5]))
    assert f"{name}.InputStateTensor.Sizes [2, 6] must be" in refused(ref_device, generator([4], state_sizes=[2, 6]))
    assert f"{name}.InputStateTensor.DataType INT32 is not supported" in refused(
        ref_device, generator([4], state_type=I32))
    assert f"{name}.OutputTensor.DataType FLOAT32 is not supported" in refused(
        ref_device, generator([4], out_type=F32))
    assert f"{name}.OutputStateTensor.DimensionCount" in refused(ref_device, generator([4], next_sizes=[6]))
