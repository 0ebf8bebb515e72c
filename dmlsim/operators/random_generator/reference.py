"""Reference of DML_OPERATOR_RANDOM_GENERATOR with DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10 (exact: integer
arithmetic).

Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC 2011): ten rounds of
``(c0, c1, c2, c3) -> (hi(M1*c2) ^ c1 ^ k0, lo(M1*c2), hi(M0*c0) ^ c3 ^ k1, lo(M0*c0))`` with M0 = 0xD2511F53,
M1 = 0xCD9E8D57, the key bumped by the Weyl constants (0x9E3779B9, 0xBB67AE85) before every round but the first.
The state is a 128-bit counter (state[0] its least significant word) and a 64-bit key (state[4], state[5]);
output element ``4j + w`` is word w of Philox(counter + j, key); the next state's counter is counter +
ceil(n / 4).
"""

from __future__ import annotations

import numpy as np

M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
MASK32 = 0xFFFFFFFF


def counter_of(state: np.ndarray) -> int:
    """The 128-bit counter of a six-word state (little-endian words)."""
    words = [int(w) for w in np.asarray(state).reshape(-1)[:4]]
    return sum(w << (32 * i) for i, w in enumerate(words))


def philox_blocks(counter: int, key: tuple[int, int], count: int) -> np.ndarray:
    """``count`` Philox4x32-10 blocks of counters counter, counter + 1, ... (mod 2^128), as a (count, 4) uint32
    array, vectorized over the blocks in uint64 arithmetic."""
    mask, shift = np.uint64(MASK32), np.uint64(32)
    low, high = np.uint64(counter & (2**64 - 1)), np.uint64(counter >> 64)
    with np.errstate(over="ignore"):
        lows = low + np.arange(count, dtype=np.uint64)  # wraps modulo 2^64
        highs = high + (lows < low).astype(np.uint64)  # the carry into the upper 64 bits (wraps too)
    c = [lows & mask, lows >> shift, highs & mask, highs >> shift]
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    for round_ in range(10):
        if round_:
            k0, k1 = (k0 + np.uint64(W0)) & mask, (k1 + np.uint64(W1)) & mask
        p0, p1 = c[0] * np.uint64(M0), c[2] * np.uint64(M1)
        c = [(p1 >> shift) ^ c[1] ^ k0, p1 & mask, (p0 >> shift) ^ c[3] ^ k1, p0 & mask]
    return np.stack(c, axis=1).astype(np.uint32)


def random_generator(state: np.ndarray, sizes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The OutputTensor of ``sizes`` and the next state (six UINT32s, shaped like ``state``)."""
    words = np.asarray(state, np.uint32).reshape(-1)
    count = int(np.prod(sizes))
    blocks = -(-count // 4)
    counter = counter_of(words)
    out = philox_blocks(counter, (int(words[4]), int(words[5])), blocks).reshape(-1)[:count].reshape(sizes)
    nxt = (counter + blocks) % 2**128
    next_state = np.array([(nxt >> (32 * i)) & MASK32 for i in range(4)] + [int(words[4]), int(words[5])],
                          np.uint32).reshape(np.shape(state))
    return out, next_state
