/* DML_OPERATOR_GRU, one direction d per launch, built with that direction's two activations (-DACT_F_FN, -DACT_F_ARGS,
 * -DACT_G_FN, -DACT_G_ARGS: see lstm.cl), -DBACKWARD when d runs backward in time, -DLINEAR_BEFORE_RESET.
 * Gates in W, R and B rows: z, r, h (gate g is rows [g * hidden, (g + 1) * hidden)):
 *   z = F(X·Wzᵀ + H·Rzᵀ + Wbz + Rbz);   r = F(X·Wrᵀ + H·Rrᵀ + Wbr + Rbr)
 *   h~ = G(X·Whᵀ + (r⊙H)·Rhᵀ + Rbh + Wbh), or (LINEAR_BEFORE_RESET) G(X·Whᵀ + r⊙(H·Rhᵀ + Rbh) + Wbh)
 *   H' = (1 - z)⊙h~ + z⊙H
 * One work-group per batch entry b; its work-items share the hidden units j. Each step has two phases a barrier
 * apart: z and r of every unit (r⊙H, which h~ of every unit reads, and z go to the temporary resource), then h~ and
 * H'. H has two float32 slots (step s reads slot s % 2, writes the other), r⊙H (or r) and z one each.
 * Every tensor is 4-D with any DML strides (ulong4, elements). Optional tensors are arguments only when given.
 * OutputSequence is 0 at t >= the sequence length; OutputSingle holds the last H computed (the initial H for a
 * length of 0).
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

__kernel void gru(TENSOR_IN(x), TENSOR_IN(w), TENSOR_IN(r),
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
                  __global float *state, ulong state__offset, ulong reset__offset, ulong update__offset,
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
    __global float *reset = state + reset__offset + (ulong)b * hidden_size;  /* r⊙H, or r (LINEAR_BEFORE_RESET) */
    __global float *update = state + update__offset + (ulong)b * hidden_size;  /* z */

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
        /* phase 1: z and r */
        for (uint j = first; j < hidden_size; j += step) {
            float zr[2];
            for (uint g = 0; g < 2; ++g) {
                const uint row = g * hidden_size + j;
                float xw = 0.0f, hr = 0.0f;
                for (uint k = 0; k < input_size; ++k)
                    xw += READ(x, 0, t, b, k) * READ(w, 0, d, row, k);
                for (uint k = 0; k < hidden_size; ++k)
                    hr += prev[k] * READ(r, 0, d, row, k);
                float sum = xw + hr;
#ifdef HAS_BIAS
                sum = sum + READ(bias, 0, 0, d, row) + READ(bias, 0, 0, d, 3 * hidden_size + row);
#endif
                zr[g] = ACT_F(sum);
            }
            update[j] = zr[0];
#ifdef LINEAR_BEFORE_RESET
            reset[j] = zr[1];
#else
            reset[j] = zr[1] * prev[j];
#endif
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        /* phase 2: h~ and H' */
        for (uint j = first; j < hidden_size; j += step) {
            const uint row = 2 * hidden_size + j;
            float xw = 0.0f, hr = 0.0f;
            for (uint k = 0; k < input_size; ++k)
                xw += READ(x, 0, t, b, k) * READ(w, 0, d, row, k);
#ifdef LINEAR_BEFORE_RESET
            for (uint k = 0; k < hidden_size; ++k)
                hr += prev[k] * READ(r, 0, d, row, k);
#ifdef HAS_BIAS
            hr = hr + READ(bias, 0, 0, d, 3 * hidden_size + row);
#endif
            float sum = xw + reset[j] * hr;
#else
            for (uint k = 0; k < hidden_size; ++k)
                hr += reset[k] * READ(r, 0, d, row, k);
            float sum = xw + hr;
#ifdef HAS_BIAS
            sum = sum + READ(bias, 0, 0, d, 3 * hidden_size + row);
#endif
#endif
#ifdef HAS_BIAS
            sum = sum + READ(bias, 0, 0, d, row);
#endif
            const float candidate = ACT_G(sum);
            const float z = update[j];
            const float y = (1.0f - z) * candidate + z * prev[j];
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
