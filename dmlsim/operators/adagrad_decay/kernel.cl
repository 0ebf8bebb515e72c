/* DMLSIM_OPERATOR_ADAGRAD_DECAY: DeepRec's AdagradDecay (training_ali_ops.cc), dense and sparse rows.
 *   if (global_step / decay_step > P) { P += 1; accum = max(accum * rate, baseline); }
 *   accum += grad * grad
 *   var -= lr * grad / sqrt(accum)
 * P is one counter for a dense tensor, one per row for sparse rows. The global step and P are read
 * on the device (no host round-trip). No pointer is restrict: outputs may alias their inputs.
 *
 * Build variants: -DSTEP_INT64 (step and P are INT64, else UINT32), -DINDEX_INT64 (indices INT64,
 * read as ulong so that negative ones are out of range, else UINT32), storage as in dmlsim.h,
 * -DPACKED for the dense vector path, -DCOPY_VAR/-DCOPY_ACC/-DCOPY_POWER for adagrad_decay_copy.
 *
 * Dense: adagrad_decay (every element; reads P, never writes it), then adagrad_decay_power (one
 * work-item writes the new P, after every element has read the old one: a second launch on the
 * in-order queue is the only global barrier OpenCL has).
 *
 * Sparse, with a temporary of Rows + N uints (head[] per row, next[] per index position):
 *   adagrad_decay_copy    out-of-place only: copy the inputs to the outputs (every output is complete)
 *   adagrad_decay_unlink  head[row] = NONE for every indexed row (no full-table clear)
 *   adagrad_decay_link    next[i] = atomic_xchg(&head[row], i): one linked list of positions per row
 *   adagrad_decay_sparse  the position holding head[row] owns the row: it sorts the row's list into
 *                         index order (linked-list merge sort, O(k log k)), sums the duplicates'
 *                         gradients in that order (deterministic), and applies the update once.
 * Indices >= Rows are skipped by every pass: nothing is ever written for them.
 */
#include "dmlsim.h"

#ifdef STEP_INT64
typedef long step_t;
#else
typedef uint step_t;
#endif

#ifdef INDEX_INT64
typedef ulong index_t;
#else
typedef uint index_t;
#endif

#define NONE 0xffffffffu

#define STEP_IN(name) __global const step_t *name##__base, ulong name##__offset, ulong4 name##__strides
#define STEP_OUT(name) __global step_t *name##__base, ulong name##__offset, ulong4 name##__strides
#define INDEX_IN(name) __global const index_t *name##__base, ulong name##__offset, ulong4 name##__strides
#define AT(name, row, col) (TENSOR_PTR(name) + (row) * name##__strides.z + (col) * name##__strides.w)
#define ROW(name, row) (name##__base[name##__offset + (row) * name##__strides.z])

/* DeepRec: global_step / decay_step > accum_decay_power (C integer division). */
inline bool need_decay(step_t global_step, ulong decay_step, step_t power)
{
    return global_step / (step_t)decay_step > power;
}

/* accum = max(accum * rate, baseline) as Eigen's cwiseMax / the scalar `if (a < b) a = b`: NaN stays. */
#define DECAY_SCALAR(a) { a = a * (real_t)rate; a = (a < (real_t)baseline) ? (real_t)baseline : a; }
#define DECAY_VECTOR(a) { a = a * (real_t)rate; a = select(a, (REALV)((real_t)baseline), a < (REALV)((real_t)baseline)); }
/* The update itself, DeepRec's order: decay (once, if due), accumulate, then step without epsilon. */
#define ADAGRAD_DECAY_UPDATE(x, a, g, DECAY, SQRT) \
    if (decay)                                     \
        DECAY(a)                                   \
    a = a + g * g;                                 \
    x = x - lr_ * g / SQRT(a);

/* Arguments in the desc's schema order (dmlsim.operators.plan); the new P (opower) is written by
 * adagrad_decay_power, after every element has read the old one. */
__kernel void adagrad_decay(TENSOR_IN(var), TENSOR_IN(acc),
                            __global const step_t *power__base, ulong power__offset,
                            TENSOR_IN(grad),
                            __global const step_t *step__base, ulong step__offset,
                            TENSOR_OUT(ovar), TENSOR_OUT(oacc),
                            __global const step_t *opower__base, ulong opower__offset,
                            float lr, uint decay_step, float rate, float baseline,
                            uint row_length, uint n)
{
    const bool decay = need_decay(step__base[step__offset], decay_step, power__base[power__offset]);
    const real_t lr_ = (real_t)lr;
    const uint gid = get_global_id(0);

#ifdef PACKED
    /* a Stream launch (dmlsim.h's FOR_EACH_VECTOR): on CPUs few long work-items, so the step / power
     * division above is paid once per chunk rather than once per vector */
    const uint nvec = n / VEC;
    FOR_EACH_VECTOR(i, nvec) {
        REALV x = LOADV(TENSOR_PTR(var), i);
        REALV a = LOADV(TENSOR_PTR(acc), i);
        REALV g = LOADV(TENSOR_PTR(grad), i);
        ADAGRAD_DECAY_UPDATE(x, a, g, DECAY_VECTOR, SQRTV)
        STOREV(x, TENSOR_PTR(ovar), i);
        STOREV(a, TENSOR_PTR(oacc), i);
    }
    if (gid == 0) {
        for (uint i = nvec * VEC; i < n; ++i) {
            real_t x = LOAD(TENSOR_PTR(var), i);
            real_t a = LOAD(TENSOR_PTR(acc), i);
            real_t g = LOAD(TENSOR_PTR(grad), i);
            ADAGRAD_DECAY_UPDATE(x, a, g, DECAY_SCALAR, sqrt)
            STORE(x, TENSOR_PTR(ovar), i);
            STORE(a, TENSOR_PTR(oacc), i);
        }
    }
#else
    if (gid >= n)
        return;
    const ulong r = gid / row_length, c = gid % row_length;
    real_t x = LOAD(AT(var, r, c), 0);
    real_t a = LOAD(AT(acc, r, c), 0);
    real_t g = LOAD(AT(grad, r, c), 0);
    ADAGRAD_DECAY_UPDATE(x, a, g, DECAY_SCALAR, sqrt)
    STORE(x, AT(ovar, r, c), 0);
    STORE(a, AT(oacc, r, c), 0);
#endif
}

__kernel void adagrad_decay_power(__global const step_t *power__base, ulong power__offset,
                                  __global const step_t *step__base, ulong step__offset,
                                  __global step_t *opower__base, ulong opower__offset, uint decay_step)
{
    const step_t power = power__base[power__offset];
    opower__base[opower__offset] = need_decay(step__base[step__offset], decay_step, power) ? power + 1 : power;
}

__kernel void adagrad_decay_copy(TENSOR_IN(var), TENSOR_IN(acc), STEP_IN(power),
                                 TENSOR_OUT(ovar), TENSOR_OUT(oacc), STEP_OUT(opower),
                                 uint row_length, uint n)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    const ulong r = gid / row_length, c = gid % row_length;
    /* Every load before any store: an output may be bound over another field's input (OutputParameters
     * over InputAccumulator, say), always over the identical element, so this order keeps it correct. */
#ifdef COPY_VAR
    const real_t x = LOAD(AT(var, r, c), 0);
#endif
#ifdef COPY_ACC
    const real_t a = LOAD(AT(acc, r, c), 0);
#endif
#ifdef COPY_POWER
    const step_t p = ROW(power, r);
#endif
#ifdef COPY_VAR
    STORE(x, AT(ovar, r, c), 0);
#endif
#ifdef COPY_ACC
    STORE(a, AT(oacc, r, c), 0);
#endif
#ifdef COPY_POWER
    if (c == 0)
        ROW(opower, r) = p;
#endif
}

/* The temporary resource: head[] (one uint per row) and next[] (one per index position), given as
 * the bound buffer plus element offsets (a binding offset need not suit a sub-buffer's alignment). */
#define TEMP_ARGS __global uint *temp, ulong head__offset, ulong next__offset
#define TEMP_VIEWS __global uint *head = temp + head__offset; __global uint *next = temp + next__offset;

/* One work-item per index position i; returns unless its row is in range (the two passes below must be
 * separate launches: the launch boundary is the global barrier between clearing and linking). */
#define INDEXED_ROW(i, row)                                                        \
    TEMP_VIEWS                                                                     \
    const uint i = get_global_id(0);                                               \
    if (i >= n)                                                                    \
        return;                                                                    \
    const index_t row = indices__base[indices__offset + i * indices__strides.w];   \
    if (row >= rows)                                                               \
        return;

__kernel void adagrad_decay_unlink(INDEX_IN(indices), TEMP_ARGS, uint rows, uint n)
{
    INDEXED_ROW(i, row)
    head[row] = NONE;
}

__kernel void adagrad_decay_link(INDEX_IN(indices), TEMP_ARGS, uint rows, uint n)
{
    INDEXED_ROW(i, row)
    next[i] = atomic_xchg(&head[row], i);
}

/* Sort the list starting at `list` (nodes are index positions, linked by next[]) into increasing
 * position order; return the new first node. Simon Tatham's bottom-up merge sort for linked lists. */
inline uint sort_positions(uint list, __global uint *next)
{
    for (uint width = 1;; width *= 2) {
        uint p = list, tail = NONE, merges = 0;
        list = NONE;
        while (p != NONE) {
            ++merges;
            uint q = p, psize = 0, qsize = width;
            for (uint k = 0; k < width && q != NONE; ++k) {
                ++psize;
                q = next[q];
            }
            while (psize > 0 || (qsize > 0 && q != NONE)) {
                uint e;
                if (psize == 0) {
                    e = q; q = next[q]; --qsize;
                } else if (qsize == 0 || q == NONE || p < q) {
                    e = p; p = next[p]; --psize;
                } else {
                    e = q; q = next[q]; --qsize;
                }
                if (tail == NONE)
                    list = e;
                else
                    next[tail] = e;
                tail = e;
            }
            p = q;
        }
        next[tail] = NONE;
        if (merges <= 1)
            return list;
    }
}

/* Reads the state from the outputs: in place they are the inputs, out of place adagrad_decay_copy has
 * filled them, and an input another output was bound over has been overwritten by then. */
__kernel void adagrad_decay_sparse(TENSOR_IN(grad),
                                   INDEX_IN(indices), __global const step_t *step__base, ulong step__offset,
                                   TENSOR_OUT(ovar), TENSOR_OUT(oacc), STEP_OUT(opower),
                                   TEMP_ARGS, uint rows, uint row_length, uint n,
                                   float lr, uint decay_step, float rate, float baseline)
{
    TEMP_VIEWS
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const index_t index = indices__base[indices__offset + i * indices__strides.w];
    if (index >= rows || head[index] != i)
        return;
    const ulong row = index;
    const uint first = sort_positions(i, next);

    const step_t power = ROW(opower, row);
    const bool decay = need_decay(step__base[step__offset], decay_step, power);
    const real_t lr_ = (real_t)lr;
    for (uint c = 0; c < row_length; ++c) {
        real_t g = LOAD(AT(grad, first, c), 0);
        for (uint j = next[first]; j != NONE; j = next[j])
            g = g + LOAD(AT(grad, j, c), 0);
        real_t x = LOAD(AT(ovar, row, c), 0);
        real_t a = LOAD(AT(oacc, row, c), 0);
        ADAGRAD_DECAY_UPDATE(x, a, g, DECAY_SCALAR, sqrt)
        STORE(x, AT(ovar, row, c), 0);
        STORE(a, AT(oacc, row, c), 0);
    }
    ROW(opower, row) = decay ? power + 1 : power;
}
