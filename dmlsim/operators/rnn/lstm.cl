/* DML_OPERATOR_LSTM, one direction d per launch, built with that direction's three activations:
 *   -DACT_F_FN=activation_<name> and, when it takes parameters, -DACT_F_ARGS=<p0>,<p1> (float literals, in the
 *   order of activations.h's function), likewise ACT_G_* and ACT_H_*; -DBACKWARD when d runs backward in time;
 *   -DUSE_CLIP with the threshold argument clip_threshold; -DCOUPLE_INPUT_FORGET.
 * Gates in W, R and B rows: i, o, f, c (gate g is rows [g * hidden, (g + 1) * hidden)); peepholes: i, o, f.
 *   i = F(clip(X·Wiᵀ + H·Riᵀ + Pi⊙C + Wbi + Rbi))
 *   f = 1 - i (COUPLE_INPUT_FORGET), else F(clip(X·Wfᵀ + H·Rfᵀ + Pf⊙C + Wbf + Rbf))
 *   C' = f⊙C + i⊙G(clip(X·Wcᵀ + H·Rcᵀ + Wbc + Rbc))
 *   o = F(clip(X·Woᵀ + H·Roᵀ + Po⊙C' + Wbo + Rbo));   H' = o⊙H(C')
 * One work-group per batch entry b; its work-items share the hidden units j, each unit always owned by the
 * same work-item, so C (elementwise in j) has one float32 slot, updated in place by its owner; H has two
 * (step s reads slot s % 2, writes the other; a barrier separates the steps), all in the temporary resource.
 * Every tensor is 4-D with any DML strides (ulong4, elements). Optional tensors are arguments only when given.
 * OutputSequence is 0 at t >= the sequence length; OutputSingle / OutputCellSingle hold the last H / C
 * computed (the initial ones for a length of 0).
 */
#include "dmlsim.h"
#include "activations.h"

#define AT4(name, i0, i1, i2, i3)                                                                     \
    (name##__offset + (ulong)(i0) * name##__strides.x + (ulong)(i1) * name##__strides.y +            \
     (ulong)(i2) * name##__strides.z + (ulong)(i3) * name##__strides.w)
#define READ(name, i0, i1, i2, i3) ((float)LOAD(name##__base, AT4(name, i0, i1, i2, i3)))

#ifdef ACT_F_ARGS
#define ACT_F(x) ACT_F_FN((x), ACT_F_ARGS)
#else
#define ACT_F(x) ACT_F_FN(x)
#endif
#ifdef ACT_G_ARGS
#define ACT_G(x) ACT_G_FN((x), ACT_G_ARGS)
#else
#define ACT_G(x) ACT_G_FN(x)
#endif
#ifdef ACT_H_ARGS
#define ACT_H(x) ACT_H_FN((x), ACT_H_ARGS)
#else
#define ACT_H(x) ACT_H_FN(x)
#endif

/* clip() of the page: [-threshold, threshold]; NaN passes through (as it does through the activations). */
#ifdef USE_CLIP
#define CLIP(z) ((z) < -clip_threshold ? -clip_threshold : ((z) > clip_threshold ? clip_threshold : (z)))
#else
#define CLIP(z) (z)
#endif

/* gate g's pre-activation sum X_t·W_gᵀ + H·R_gᵀ (+ its two biases) for unit j */
inline float lstm_gate(uint g, uint j, uint t, uint b, uint d, uint input_size, uint hidden_size,
                       __global const float *prev,
                       __global const store_t *x__base, ulong x__offset, ulong4 x__strides,
                       __global const store_t *w__base, ulong w__offset, ulong4 w__strides,
                       __global const store_t *r__base, ulong r__offset, ulong4 r__strides)
{
    const uint row = g * hidden_size + j;
    float xw = 0.0f, hr = 0.0f;
    for (uint k = 0; k < input_size; ++k)
        xw += READ(x, 0, t, b, k) * READ(w, 0, d, row, k);
    for (uint k = 0; k < hidden_size; ++k)
        hr += prev[k] * READ(r, 0, d, row, k);
    return xw + hr;
}

__kernel void lstm(TENSOR_IN(x), TENSOR_IN(w), TENSOR_IN(r),
#ifdef HAS_BIAS
                   TENSOR_IN(bias),
#endif
#ifdef HAS_HIDDEN_INIT
                   TENSOR_IN(h0),
#endif
#ifdef HAS_CELL_INIT
                   TENSOR_IN(c0),
#endif
#ifdef HAS_SEQUENCE_LENGTHS
                   __global const uint *len__base, ulong len__offset, ulong4 len__strides,
#endif
#ifdef HAS_PEEPHOLE
                   TENSOR_IN(peep),
#endif
#ifdef HAS_OUTPUT_SEQUENCE
                   TENSOR_OUT(ys),
#endif
#ifdef HAS_OUTPUT_SINGLE
                   TENSOR_OUT(y1),
#endif
#ifdef HAS_OUTPUT_CELL_SINGLE
                   TENSOR_OUT(c1),
#endif
                   __global float *state, ulong state__offset, ulong cell__offset,
                   uint seq_length, uint input_size, uint hidden_size, uint batch_size, uint d,
                   float clip_threshold)
{
    const uint b = get_group_id(0);
    const uint first = get_local_id(0), step = get_local_size(0);
#ifdef HAS_SEQUENCE_LENGTHS
    const uint length = min(len__base[AT4(len, 0, 0, 0, b)], seq_length);
#else
    const uint length = seq_length;
#endif
    const ulong slot_stride = (ulong)batch_size * hidden_size;
    __global float *h = state + state__offset + (ulong)b * hidden_size;
    __global float *cell = state + cell__offset + (ulong)b * hidden_size;

    for (uint j = first; j < hidden_size; j += step) {
#ifdef HAS_HIDDEN_INIT
        h[j] = READ(h0, 0, d, b, j);
#else
        h[j] = 0.0f;
#endif
#ifdef HAS_CELL_INIT
        cell[j] = READ(c0, 0, d, b, j);
#else
        cell[j] = 0.0f;
#endif
    }
    barrier(CLK_GLOBAL_MEM_FENCE);

    for (uint s = 0; s < length; ++s) {
#ifdef BACKWARD
        const uint t = length - 1 - s;
#else
        const uint t = s;
#endif
        __global const float *prev = h + (s & 1) * slot_stride;
        __global float *next = h + ((s + 1) & 1) * slot_stride;
        for (uint j = first; j < hidden_size; j += step) {
            float z[4];
            for (uint g = 0; g < 4; ++g) {
                z[g] = lstm_gate(g, j, t, b, d, input_size, hidden_size, prev, x__base, x__offset, x__strides,
                                 w__base, w__offset, w__strides, r__base, r__offset, r__strides);
#ifdef HAS_BIAS
                z[g] = z[g] + READ(bias, 0, 0, d, g * hidden_size + j) + READ(bias, 0, 0, d, (4 + g) * hidden_size + j);
#endif
            }
            const float c_prev = cell[j];
#ifdef HAS_PEEPHOLE
            z[0] = z[0] + READ(peep, 0, 0, d, j) * c_prev;
            z[2] = z[2] + READ(peep, 0, 0, d, 2 * hidden_size + j) * c_prev;
#endif
            const float gate_i = ACT_F(CLIP(z[0]));
#ifdef COUPLE_INPUT_FORGET
            const float gate_f = 1.0f - gate_i;
#else
            const float gate_f = ACT_F(CLIP(z[2]));
#endif
            const float c_new = gate_f * c_prev + gate_i * ACT_G(CLIP(z[3]));
#ifdef HAS_PEEPHOLE
            z[1] = z[1] + READ(peep, 0, 0, d, hidden_size + j) * c_new;
#endif
            const float gate_o = ACT_F(CLIP(z[1]));
            const float y = gate_o * ACT_H(c_new);
            cell[j] = c_new;
            next[j] = y;
#ifdef HAS_OUTPUT_SEQUENCE
            STORE(y, ys__base, AT4(ys, t, d, b, j));
#endif
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
    }

    __global const float *last = h + (length & 1) * slot_stride;
    for (uint j = first; j < hidden_size; j += step) {
#ifdef HAS_OUTPUT_SINGLE
        STORE(last[j], y1__base, AT4(y1, 0, d, b, j));
#endif
#ifdef HAS_OUTPUT_CELL_SINGLE
        STORE(cell[j], c1__base, AT4(c1, 0, d, b, j));
#endif
#ifdef HAS_OUTPUT_SEQUENCE
        for (uint t = length; t < seq_length; ++t)
            STORE(0.0f, ys__base, AT4(ys, t, d, b, j));
#endif
    }
}
