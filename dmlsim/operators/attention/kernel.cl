/* DML_OPERATOR_MULTIHEAD_ATTENTION / MULTIHEAD_ATTENTION1 (dmlsim/operators/attention).
 *
 * `attention`: one work-item per output element (b, i, h, e), e fastest: over the T = past + kv_seq keys j,
 *   s_j = scale * sum_d (q[b,i,h,d] + bq) * (k_j[d] + bk) [+ rpb[b,h,i,j]] [mask],
 *   y[b, i, h*Dv + e] = sum_j exp(s_j - max_j s_j) * v_j[e] / sum_j exp(s_j - max_j s_j)
 * with key/value j < past read from the past tensors {B, Hkv, P, D}, the others from the new key/value
 * (bias added), query head h reading key/value head h / (heads / kv_heads). The scores are computed twice
 * (the maximum, then the sums), identically. q, k and v are logical {batch, sequence, head, element} views
 * (`*_strides`, `*_shift` elements into a stacked tensor) of QueryTensor/KeyTensor/ValueTensor or the stacked
 * tensors. MASK_TYPE (DML_MULTIHEAD_ATTENTION_MASK_TYPE): 4 BOOLEAN adds mask_filter where the INT32 mask
 * is 0; 1, 2, 3 set the score of keys outside [start, end) of their batch to mask_filter.
 * `present`: the present key/value {B, Hkv, T, size}: the past, then the new key/value plus its bias.
 * HAS_LENGTHS (MULTIHEAD_ATTENTION1's PastSequenceLengthsTensor, INT32 {B}): a KV cache of T positions; batch
 *   b's past length split = clamp(lengths[b], 0, past) (`past` is then T - kv_seq, the most it may be): its new
 *   keys/values sit at [split, split + kv_seq), query i sees keys 0 .. split + i only (causal), key j < split
 *   comes from the past tensors (PastKeyTensor/PastValueTensor, or the present tensors themselves when they
 *   are the cache); `present` writes the new rows and copies the past's other rows (HAS_PAST) or leaves them.
 * FLOAT16 (-DSTORE_HALF) is storage: float32 arithmetic, stored rounded to nearest even.
 */
#include "dmlsim.h"

#define AT4(st, a, b, c, d) ((ulong)(a) * (st).x + (ulong)(b) * (st).y + (ulong)(c) * (st).z + (ulong)(d) * (st).w)

#ifdef HAS_BIAS
#define BIAS_ARGS , __global const store_t *bias__base, ulong bias__offset, ulong bias_stride
#define BIAS_AT(i) ((float)LOAD(TENSOR_PTR(bias), (ulong)(i) * bias_stride))
#else
#define BIAS_ARGS
#define BIAS_AT(i) 0.0f
#endif
#ifdef HAS_RPB
#define RPB_ARGS , __global const store_t *rpb__base, ulong rpb__offset, ulong4 rpb_strides
#else
#define RPB_ARGS
#endif
#ifdef HAS_PAST
#define PAST_ARGS , __global const store_t *past_k__base, ulong past_k__offset, ulong4 past_k_strides, \
                  __global const store_t *past_v__base, ulong past_v__offset, ulong4 past_v_strides
#else
#define PAST_ARGS
#endif
#ifdef MASK_TYPE
#define MASK_ARGS , __global const int *mask__base, ulong mask__offset, ulong4 mask_strides
#else
#define MASK_ARGS
#endif
#ifdef HAS_LENGTHS
#define LENGTHS_ARGS , __global const int *lengths__base, ulong lengths__offset, ulong lengths_stride
/* batch b's past length, clamped into [0, most] */
#define PAST_LENGTH(b, most) ((uint)clamp((long)TENSOR_PTR(lengths)[(ulong)(b) * lengths_stride], 0L, (long)(most)))
#else
#define LENGTHS_ARGS
#endif

#define SOURCE_ARGS(p) __global const store_t *p##__base, ulong p##__offset, ulong4 p##_strides, ulong p##_shift
#define SOURCE_AT(p, b, s, h, e) ((float)LOAD(TENSOR_PTR(p) + p##_shift, AT4(p##_strides, b, s, h, e)))

/* The score of key j for query row (b, i, h) (hk its key/value head). */
#define SCORE(j, out_)                                                                              \
    {                                                                                               \
        float dot_ = 0.0f;                                                                          \
        for (uint d = 0; d < head_size; ++d) {                                                      \
            const float q_ = SOURCE_AT(q, b, i, h, d) + BIAS_AT(h * head_size + d);                 \
            dot_ += q_ * KEY_AT(j, d);                                                              \
        }                                                                                           \
        out_ = scale * dot_;                                                                        \
        ADD_RPB(out_, j)                                                                            \
        APPLY_MASK(out_, j)                                                                         \
    }

#ifdef HAS_PAST
#define KEY_AT(j, d) ((j) < split ? (float)LOAD(TENSOR_PTR(past_k), AT4(past_k_strides, b, hk, j, d)) \
                                  : SOURCE_AT(k, b, (j) - split, hk, d) + BIAS_AT(k_bias + hk * head_size + (d)))
#define VALUE_AT(j, e) ((j) < split ? (float)LOAD(TENSOR_PTR(past_v), AT4(past_v_strides, b, hk, j, e)) \
                                    : SOURCE_AT(v, b, (j) - split, hk, e) + BIAS_AT(v_bias + hk * value_head_size + (e)))
#else
#define KEY_AT(j, d) (SOURCE_AT(k, b, j, hk, d) + BIAS_AT(k_bias + hk * head_size + (d)))
#define VALUE_AT(j, e) (SOURCE_AT(v, b, j, hk, e) + BIAS_AT(v_bias + hk * value_head_size + (e)))
#endif

#ifdef HAS_RPB
#define ADD_RPB(s, j) s += (float)LOAD(TENSOR_PTR(rpb), AT4(rpb_strides, b, h, i, j));
#else
#define ADD_RPB(s, j)
#endif

#if !defined(MASK_TYPE)
#define APPLY_MASK(s, j)
#elif MASK_TYPE == 4
#define APPLY_MASK(s, j) \
    if (TENSOR_PTR(mask)[AT4(mask_strides, b, h, i, j)] == 0) s += mask_filter;
#else
#define APPLY_MASK(s, j) \
    if ((long)(j) < key_start || (long)(j) >= key_end) s = mask_filter;
#endif

__kernel void attention(SOURCE_ARGS(q), SOURCE_ARGS(k), SOURCE_ARGS(v) BIAS_ARGS RPB_ARGS PAST_ARGS MASK_ARGS LENGTHS_ARGS,
                        __global store_t *y__base, ulong y__offset, ulong4 y_strides, uint batch, uint seq,
                        uint kv_seq, uint past, uint heads, uint kv_heads, uint head_size, uint value_head_size,
                        float scale, float mask_filter, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    const uint e = gid % value_head_size;
    uint rest = gid / value_head_size;
    const uint h = rest % heads;
    rest /= heads;
    const uint i = rest % seq;
    const uint b = rest / seq;
    const uint hk = h / (heads / kv_heads);
    const uint k_bias = heads * head_size, v_bias = heads * head_size + kv_heads * head_size;
#ifdef HAS_LENGTHS
    const uint split = PAST_LENGTH(b, past);
    const uint total = split + i + 1; /* the keys query i sees */
#else
    const uint split = past;
    const uint total = past + kv_seq;
#endif
#if defined(MASK_TYPE) && MASK_TYPE != 4
    long key_start = 0, key_end;
#if MASK_TYPE == 2
    key_end = TENSOR_PTR(mask)[AT4(mask_strides, 0, 0, 0, b)];
    key_start = TENSOR_PTR(mask)[AT4(mask_strides, 0, 0, 1, b)];
#else
    key_end = TENSOR_PTR(mask)[AT4(mask_strides, 0, 0, 0, b)];
#endif
#endif
    (void)batch;
    (void)split;
    (void)k_bias;
    (void)v_bias;

    float row_max = -INFINITY;
    for (uint j = 0; j < total; ++j) {
        float s;
        SCORE(j, s)
        row_max = s > row_max ? s : row_max;
    }
    float sum = 0.0f, acc = 0.0f;
    for (uint j = 0; j < total; ++j) {
        float s;
        SCORE(j, s)
        const float p = exp(s - row_max);
        sum += p;
        acc += p * VALUE_AT(j, e);
    }
    STORE(acc / sum, TENSOR_PTR(y), AT4(y_strides, 0, b, i, h * value_head_size + e));
}

#ifdef HAS_BIAS
#define PRESENT_BIAS_ARGS , __global const store_t *bias__base, ulong bias__offset, ulong bias_stride, uint bias_start
#else
#define PRESENT_BIAS_ARGS
#endif
#ifdef HAS_PAST
#define PRESENT_PAST_ARGS , __global const store_t *past__base, ulong past__offset, ulong4 past_strides
#else
#define PRESENT_PAST_ARGS
#endif

__kernel void present(SOURCE_ARGS(src) PRESENT_BIAS_ARGS PRESENT_PAST_ARGS LENGTHS_ARGS, __global store_t *y__base,
                      ulong y__offset, ulong4 y_strides, ulong4 y_sizes, uint past_length, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    const uint size = (uint)y_sizes.w;
    const uint e = gid % size;
    uint rest = gid / size;
    const uint t = rest % (uint)y_sizes.z;
    rest /= (uint)y_sizes.z;
    const uint h = rest % (uint)y_sizes.y;
    const uint b = rest / (uint)y_sizes.y;
    float value;
#ifdef HAS_LENGTHS
    /* the cache: the new rows at [split, split + new), the past's other rows copied, or left as they are */
    const uint split = PAST_LENGTH(b, past_length);
    const uint is_new = t >= split && t < split + ((uint)y_sizes.z - past_length);
#else
    const uint split = past_length;
    const uint is_new = t >= past_length;
#endif
#ifdef HAS_PAST
    if (!is_new)
        value = (float)LOAD(TENSOR_PTR(past), AT4(past_strides, b, h, t, e));
    else
#else
    if (!is_new)
        return;
    else
#endif
    {
#ifdef HAS_BIAS
        value = SOURCE_AT(src, b, t - split, h, e) + BIAS_AT(bias_start + h * size + e);
#else
        value = SOURCE_AT(src, b, t - split, h, e);
#endif
    }
    STORE(value, TENSOR_PTR(y), AT4(y_strides, b, h, t, e));
}
