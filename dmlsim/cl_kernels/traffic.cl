/* Same-traffic limit of `dmlsim bench` in OpenCL: exactly the bytes an operator's point moves.
 *
 * READS arrays of n elements are read and WRITES arrays written (the host binds the first WRITES inputs
 * as the outputs for an in-place point); every output element is the sum of its index's inputs, as in
 * dmlsim/bench/native_traffic.c, so no load can be skipped. Elements are unsigned integers of the
 * point's element size (ELEM = uchar/ushort/uint/ulong): the traffic, not arithmetic, is measured.
 *   -DREADS=1..8 -DWRITES=0..8 -DELEM=t -DVEC=4|8|16  -DCHUNKED: contiguous chunk per work-item
 *   (otherwise a grid-stride loop), as dmlsim/cl_kernels/dmlsim.h's FOR_EACH_VECTOR.
 * WRITES=0 (a reduction's traffic: the input streamed, its few outputs left out): each work-item sums what it
 * read and stores the sum to d0[gid], a sink of one vector per work-item (a few KB), so no load can be skipped.
 */
#define TR_CAT_(a, b) a##b
#define TR_CAT(a, b) TR_CAT_(a, b)
#define ELEMV TR_CAT(ELEM, VEC)
#define DMLSIM_CUSTOM_STORAGE /* dmlsim.h for its vector access only: the same loads and stores as the kernels */
#include "dmlsim.h"
DMLSIM_UNALIGNED(ELEM, VEC)
#define TR_LOADV(i, p) DMLSIM_VLOAD(ELEM, VEC, i, p)
#define TR_STOREV(x, i, p) DMLSIM_VSTORE(ELEM, VEC, x, i, p)

#define TR_READ(k)                                                  \
    if (k < READS) {                                                \
        v[k] = TR_LOADV(i, s##k);                                      \
        sum += v[k];                                                \
    }
#define TR_WRITE(k)                                                 \
    if (k < WRITES)                                                 \
        TR_STOREV(v[k % READS] + sum, i, d##k);
#define TR_READ1(k)                                                 \
    if (k < READS) {                                                \
        w[k] = s##k[i];                                             \
        one += w[k];                                                \
    }
#define TR_WRITE1(k)                                                \
    if (k < WRITES)                                                 \
        d##k[i] = w[k % READS] + one;

__kernel void traffic(__global const ELEM *s0, __global const ELEM *s1, __global const ELEM *s2,
                      __global const ELEM *s3, __global const ELEM *s4, __global const ELEM *s5,
                      __global const ELEM *s6, __global const ELEM *s7,
                      __global ELEM *d0, __global ELEM *d1, __global ELEM *d2, __global ELEM *d3,
                      __global ELEM *d4, __global ELEM *d5, __global ELEM *d6, __global ELEM *d7, ulong n)
{
    const size_t gid = get_global_id(0);
    const size_t items = get_global_size(0);
    const size_t nvec = n / VEC;
#if WRITES == 0
    ELEMV total = 0;
#endif
#ifdef CHUNKED
    const size_t per_item = (nvec + items - 1) / items;
    const size_t first = min(gid * per_item, nvec);
    const size_t last = min(first + per_item, nvec);
    for (size_t i = first; i < last; ++i) {
#else
    for (size_t i = gid; i < nvec; i += items) {
#endif
        ELEMV v[8];
        ELEMV sum = 0;
        TR_READ(0) TR_READ(1) TR_READ(2) TR_READ(3) TR_READ(4) TR_READ(5) TR_READ(6) TR_READ(7)
        TR_WRITE(0) TR_WRITE(1) TR_WRITE(2) TR_WRITE(3) TR_WRITE(4) TR_WRITE(5) TR_WRITE(6) TR_WRITE(7)
#if WRITES == 0
        total += sum;
#endif
    }
    if (gid == 0)
        for (size_t i = nvec * VEC; i < n; ++i) {
            ELEM w[8];
            ELEM one = 0;
            TR_READ1(0) TR_READ1(1) TR_READ1(2) TR_READ1(3) TR_READ1(4) TR_READ1(5) TR_READ1(6) TR_READ1(7)
            TR_WRITE1(0) TR_WRITE1(1) TR_WRITE1(2) TR_WRITE1(3) TR_WRITE1(4) TR_WRITE1(5) TR_WRITE1(6) TR_WRITE1(7)
#if WRITES == 0
            total.s0 += one;
#endif
        }
#if WRITES == 0
    TR_STOREV(total, gid, d0);
#endif
}
