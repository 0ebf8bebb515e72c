/* DML_OPERATOR_RNN, one direction d per launch (built with that direction's activation, -DFUSED_<NAME>,
 * and -DBACKWARD when it runs backward in time):
 *   H_t = FUSED_ACTIVATION(X_t * W_d^T + H_prev * R_d^T + Wb_d + Rb_d)
 * One work-group per batch entry b; its work-items share the hidden units j. H lives in float32 in the
 * temporary resource, two slots per batch entry (step s reads slot s % 2 and writes the other), so a step
 * never overwrites what another work-item still reads; a barrier separates the steps (the step count,
 * the batch entry's sequence length, is the same for the whole work-group).
 * Every tensor is 4-D with any DML strides (ulong4, elements); an index [i0, i1, i2, i3] is AT4.
 * Optional tensors are arguments only when given (-DHAS_BIAS, -DHAS_HIDDEN_INIT, -DHAS_SEQUENCE_LENGTHS,
 * -DHAS_OUTPUT_SEQUENCE, -DHAS_OUTPUT_SINGLE). OutputSequence is 0 at t >= the sequence length;
 * OutputSingle is the last H computed (the initial H for a length of 0).
 */
#include "dmlsim.h"
#include "activations.h"

#define AT4(name, i0, i1, i2, i3)                                                                     \
    (name##__offset + (ulong)(i0) * name##__strides.x + (ulong)(i1) * name##__strides.y +            \
     (ulong)(i2) * name##__strides.z + (ulong)(i3) * name##__strides.w)
#define READ(name, i0, i1, i2, i3) ((float)LOAD(name##__base, AT4(name, i0, i1, i2, i3)))

__kernel void rnn(TENSOR_IN(x), TENSOR_IN(w), TENSOR_IN(r),
#ifdef HAS_BIAS
                  TENSOR_IN(bias),
#endif
#ifdef HAS_HIDDEN_INIT
                  TENSOR_IN(h0),
#endif
#ifdef HAS_SEQUENCE_LENGTHS
                  __global const uint *len__base, ulong len__offset, ulong4 len__strides,
#endif
#ifdef HAS_OUTPUT_SEQUENCE
                  TENSOR_OUT(ys),
#endif
#ifdef HAS_OUTPUT_SINGLE
                  TENSOR_OUT(y1),
#endif
                  __global float *state, ulong state__offset,
                  uint seq_length, uint input_size, uint hidden_size, uint batch_size, uint d)
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

    for (uint j = first; j < hidden_size; j += step) {
#ifdef HAS_HIDDEN_INIT
        h[j] = READ(h0, 0, d, b, j);
#else
        h[j] = 0.0f;
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
            float xw = 0.0f, hr = 0.0f;
            for (uint k = 0; k < input_size; ++k)
                xw += READ(x, 0, t, b, k) * READ(w, 0, d, j, k);
            for (uint k = 0; k < hidden_size; ++k)
                hr += prev[k] * READ(r, 0, d, j, k);
            float z = xw + hr;
#ifdef HAS_BIAS
            z = z + READ(bias, 0, 0, d, j) + READ(bias, 0, 0, d, hidden_size + j);
#endif
            const float y = FUSED_ACTIVATION(z);
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
#ifdef HAS_OUTPUT_SEQUENCE
        for (uint t = length; t < seq_length; ++t)
            STORE(0.0f, ys__base, AT4(ys, t, d, b, j));
#endif
    }
}
