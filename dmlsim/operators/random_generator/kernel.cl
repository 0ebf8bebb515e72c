/* RANDOM_GENERATOR, DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10: one work-item per Philox block j (4 outputs).
 * The state is six UINT32s: a 128-bit counter (element 0 its least significant word) and a 64-bit key. Block j
 * is Philox4x32-10 (Salmon et al. 2011, Random123) of the counter + j (mod 2^128) under the key; its four words
 * are OutputTensor elements 4j .. 4j + 3 (row-major element order; the last block may write fewer). With
 * HAS_STATE_OUT, work-item 0 also writes the next state: the counter + ceil(n / 4), the key unchanged. Every
 * tensor through its own DML strides (the state's six elements along its last dimension).
 */
#include "dmlsim.h"

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

/* x += (value as a 128-bit integer), words little-endian (x[0] least significant), modulo 2^128. */
inline void add128(uint x[4], ulong value)
{
    ulong sum = (ulong)x[0] + (value & 0xFFFFFFFFul);
    x[0] = (uint)sum;
    sum = (ulong)x[1] + (value >> 32) + (sum >> 32);
    x[1] = (uint)sum;
    sum = (ulong)x[2] + (sum >> 32);
    x[2] = (uint)sum;
    x[3] = x[3] + (uint)(sum >> 32);
}

__kernel void philox(__global const uint *state__base, ulong state__offset, ulong8 state__strides,
                     __global uint *y__base, ulong y__offset, ulong8 y__strides,
#ifdef HAS_STATE_OUT
                     __global uint *next__base, ulong next__offset, ulong8 next__strides,
#endif
                     ulong8 sizes, uint n, uint blocks)
{
    const uint gid = get_global_id(0);
    if (gid >= blocks)
        return;
    const __global uint *state = state__base + state__offset;
    const ulong s = state__strides.s7;
    uint ctr[4] = {state[0], state[s], state[2 * s], state[3 * s]};
    const uint key0 = state[4 * s], key1 = state[5 * s];
    add128(ctr, gid);
    uint k0 = key0, k1 = key1;
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            k0 += PHILOX_W0;
            k1 += PHILOX_W1;
        }
        const uint hi0 = mul_hi(PHILOX_M0, ctr[0]), lo0 = PHILOX_M0 * ctr[0];
        const uint hi1 = mul_hi(PHILOX_M1, ctr[2]), lo1 = PHILOX_M1 * ctr[2];
        const uint x0 = hi1 ^ ctr[1] ^ k0, x2 = hi0 ^ ctr[3] ^ k1;
        ctr[0] = x0;
        ctr[1] = lo1;
        ctr[2] = x2;
        ctr[3] = lo0;
    }
    for (uint w = 0; w < 4; w++) {
        const ulong i = 4ul * gid + w;
        if (i < n) {
            COORDS8(c, (uint)i, sizes)
            y__base[y__offset + OFFSET8(c, y__strides)] = ctr[w];
        }
    }
#ifdef HAS_STATE_OUT
    if (gid == 0) {
        uint next[4] = {state[0], state[s], state[2 * s], state[3 * s]};
        add128(next, blocks);
        const ulong t = next__strides.s7;
        __global uint *out = next__base + next__offset;
        out[0] = next[0];
        out[t] = next[1];
        out[2 * t] = next[2];
        out[3 * t] = next[3];
        out[4 * t] = key0;
        out[5 * t] = key1;
    }
#endif
}
