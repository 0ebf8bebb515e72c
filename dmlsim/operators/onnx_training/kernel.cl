/* ai.onnx.preview.training Adagrad / Adam / Momentum: one fused launch updates many tensors.
 *
 * Multi-tensor apply (as PyTorch's and apex's fused optimizers do): a chunk table lists (tensor, first
 * element) pairs of up to CHUNK elements each; every work-group updates a run of consecutive chunks
 * (one on GPUs, chunk_count / groups on CPUs). OpenCL 1.2
 * cannot take a variable-length list of buffers, so each role (X, G, V, H in; X, V, H out) has SLOTS
 * buffer arguments; the tensor table says, per tensor, which slot holds each role and at which element
 * offset. Tensors of one role that live in one buffer (the usual flat-buffer layout) share a slot; the
 * host splits a dispatch into several launches when more distinct buffers are bound than there are slots.
 *
 * Build variants:
 *   -DOPTIMIZER=ADAGRAD|ADAM|MOMENTUM, -DNESTEROV (Momentum's mode)
 *   -DSTORE_HALF / -DSTORE_DOUBLE (dmlsim.h), -DRATE_DOUBLE (R is FLOAT64)
 *   -DSTRIDED: tensors may have any DML strides (8-D addressing from the table); default packed
 *   -DTENTRY=n ulongs per tensor-table entry, -DCHUNK=n elements per work-group (packed: local size
 *   times VEC; strided: each work-item strides through the chunk)
 *
 * Tensor-table entry (ulong): [0] element count; [1..7] element offsets of X, G, V, H, OX, OV, OH;
 * [8] slot of each role, 8 bits per role in that order; STRIDED only: [9..16] sizes (8-D, padded with 1
 * at the front), then 8 strides per role, roles in the same order.
 *
 * In place: an output may alias its own input (same tensor, same layout). Every work-item reads all
 * inputs of an element before writing any output of it, and no pointer is restrict.
 */
#include "dmlsim.h"

#ifdef RATE_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double rate_t;
#else
typedef float rate_t;
#endif

#define ADAGRAD 1
#define ADAM 2
#define MOMENTUM 3

#define SLOT_PARAMS(q, name)                                                          \
    q store_t *name##0, q store_t *name##1, q store_t *name##2, q store_t *name##3,   \
    q store_t *name##4, q store_t *name##5, q store_t *name##6, q store_t *name##7
#define SLOT_PICK(name, s)                                                            \
    ((s) == 0u ? name##0 : (s) == 1u ? name##1 : (s) == 2u ? name##2 : (s) == 3u ? name##3 : \
     (s) == 4u ? name##4 : (s) == 5u ? name##5 : (s) == 6u ? name##6 : name##7)

enum { R_X, R_G, R_V, R_H, R_OX, R_OV, R_OH };

/* 1 - b^t without the cancellation of computing b^t first: dmlsim.h's one definition, in real_t. */
#ifdef STORE_DOUBLE
#define one_minus_pow_real one_minus_pow_double
#else
#define one_minus_pow_real one_minus_pow
#endif

/* Vector access at an element offset (vloadn's offset counts vectors, so the pointer is advanced). */
#define VLOAD(p, i) LOADV((p) + (i), 0)
#define VSTORE(x, p, i) STOREV((x), (p) + (i), 0)

/* One update of the elements at index i (type T: real_t or its VEC-wide vector), as the ONNX spec's
 * pseudo code states it; every input is loaded before any output is stored (in place is safe). */
#if OPTIMIZER == ADAGRAD
#define UPDATE(T, LD, ST, SQRT)                                                            \
    const T xs = LD(xp, ELEMENT(R_X));                                                     \
    /* G_regularized = norm_coefficient * X + G */                                         \
    const T gr = nc * xs + LD(gp, ELEMENT(R_G));                                           \
    /* H_new = H + G_regularized * G_regularized */                                        \
    const T hn = LD(hp, ELEMENT(R_H)) + gr * gr;                                           \
    /* X_new = X - r * G_regularized / (Sqrt(H_new) + epsilon) */                          \
    const T xn = xs - rate * gr / (SQRT(hn) + eps);                                        \
    ST(xn, oxp, ELEMENT(R_OX));                                                            \
    ST(hn, ohp, ELEMENT(R_OH));
#elif OPTIMIZER == ADAM
#define UPDATE(T, LD, ST, SQRT)                                                            \
    const T xs = LD(xp, ELEMENT(R_X));                                                     \
    /* G_regularized = norm_coefficient * X + G */                                         \
    const T gr = nc * xs + LD(gp, ELEMENT(R_G));                                           \
    /* V_new = alpha * V + (1 - alpha) * G_regularized */                                  \
    const T vn = a * LD(vp, ELEMENT(R_V)) + ((real_t)1 - a) * gr;                          \
    /* H_new = beta * H + (1 - beta) * G_regularized * G_regularized */                    \
    const T hn = b * LD(hp, ELEMENT(R_H)) + ((real_t)1 - b) * gr * gr;                     \
    /* X_final = (1 - norm_coefficient_post) * (X - R_adjusted * V_new / H_sqrt) */        \
    const T xn = post * (xs - rate * (vn / (SQRT(hn) + eps)));                             \
    ST(xn, oxp, ELEMENT(R_OX));                                                            \
    ST(vn, ovp, ELEMENT(R_OV));                                                            \
    ST(hn, ohp, ELEMENT(R_OH));
#else
#ifdef NESTEROV
/* X_new = X - R * (G_regularized + alpha * V_new) */
#define MOMENTUM_STEP(T) const T xn = xs - R * (gr + a * vn);
#else
/* X_new = X - R * V_new */
#define MOMENTUM_STEP(T) const T xn = xs - R * vn;
#endif
#define UPDATE(T, LD, ST, SQRT)                                                            \
    const T xs = LD(xp, ELEMENT(R_X));                                                     \
    /* G_regularized = norm_coefficient * X + G */                                         \
    const T gr = nc * xs + LD(gp, ELEMENT(R_G));                                           \
    /* V_new = alpha * V + beta_adjusted * G_regularized */                                \
    const T vn = a * LD(vp, ELEMENT(R_V)) + beta_adjusted * gr;                            \
    MOMENTUM_STEP(T)                                                                       \
    ST(xn, oxp, ELEMENT(R_OX));                                                            \
    ST(vn, ovp, ELEMENT(R_OV));
#endif

#ifdef STRIDED
/* Element offset (relative to the tensor's binding offset) of linear index i under the role's strides. */
inline ulong role_offset(ulong i, __global const ulong *sizes, __global const ulong *strides)
{
    ulong offset = 0;
    for (int d = 7; d >= 0; --d) {
        ulong s = sizes[d];
        offset += (i % s) * strides[d];
        i /= s;
    }
    return offset;
}
#define ELEMENT(role) (base[role] + role_offset(i, e + 9, e + 17 + 8 * (role)))
#define AT_BASE(role) 0
#else
/* packed: each role's pointer starts at its tensor's first element (one index register in the loop) */
#define ELEMENT(role) (i)
#define AT_BASE(role) base[role]
#endif

__kernel void onnx_training(SLOT_PARAMS(__global const, x), SLOT_PARAMS(__global const, g),
                            SLOT_PARAMS(__global const, v), SLOT_PARAMS(__global const, h),
                            SLOT_PARAMS(__global, ox), SLOT_PARAMS(__global, ov), SLOT_PARAMS(__global, oh),
                            __global const rate_t *r__base, ulong r__offset,
                            __global const long *t__base, ulong t__offset,
                            __global const ulong *tensors, __global const uint2 *chunks,
                            float norm_coefficient, float norm_coefficient_post, float decay_factor,
                            float alpha, float beta, float epsilon, uint chunk_count)
{
    const real_t R = (real_t)r__base[r__offset];
    const long T = t__base[t__offset];
    const real_t nc = (real_t)norm_coefficient;

#if OPTIMIZER == ADAGRAD
    /* r = R / (1 + T * decay_factor) */
    const real_t rate = R / ((real_t)1 + (real_t)T * (real_t)decay_factor);
#elif OPTIMIZER == ADAM
    const real_t a = (real_t)alpha, b = (real_t)beta;
    /* R_adjusted = T > 0 ? R * Sqrt(1 - beta^T) / (1 - alpha^T) : R */
    const real_t rate = T > 0 ? R * sqrt(one_minus_pow_real(b, T)) / one_minus_pow_real(a, T) : R;
    const real_t post = (real_t)1 - (real_t)norm_coefficient_post;
#else
    const real_t a = (real_t)alpha;
    /* beta_adjusted = T > 0 ? beta : 1 */
    const real_t beta_adjusted = T > 0 ? (real_t)beta : (real_t)1;
#endif
    const real_t eps = (real_t)epsilon;

    /* This work-group's run of consecutive chunks: one each on GPUs (as many groups as chunks), a long
     * run on CPUs (few groups: PoCL's cost per work-group is about that of a 4096-element chunk). */
    const uint groups = get_num_groups(0);
    const uint per_group = (chunk_count + groups - 1) / groups;
    const uint first_chunk = min((uint)get_group_id(0) * per_group, chunk_count);
    const uint last_chunk = min(first_chunk + per_group, chunk_count);
    for (uint c = first_chunk; c < last_chunk; ++c) {
        const uint2 chunk = chunks[c];
        __global const ulong *e = tensors + (ulong)chunk.x * TENTRY;
        const ulong n = e[0];
        const ulong slots = e[8];
        ulong base[7];
        for (int role = 0; role < 7; ++role)
            base[role] = e[1 + role];
#define SLOT(role) ((uint)(slots >> (8 * (role))) & 0xffu)

        __global const store_t *xp = SLOT_PICK(x, SLOT(R_X)) + AT_BASE(R_X);
        __global const store_t *gp = SLOT_PICK(g, SLOT(R_G)) + AT_BASE(R_G);
        __global store_t *oxp = SLOT_PICK(ox, SLOT(R_OX)) + AT_BASE(R_OX);
#if OPTIMIZER != ADAGRAD
        __global const store_t *vp = SLOT_PICK(v, SLOT(R_V)) + AT_BASE(R_V);
        __global store_t *ovp = SLOT_PICK(ov, SLOT(R_OV)) + AT_BASE(R_OV);
#endif
#if OPTIMIZER != MOMENTUM
        __global const store_t *hp = SLOT_PICK(h, SLOT(R_H)) + AT_BASE(R_H);
        __global store_t *ohp = SLOT_PICK(oh, SLOT(R_OH)) + AT_BASE(R_OH);
#endif

        const ulong end = min(n, (ulong)chunk.y + CHUNK);
#ifdef STRIDED
        for (ulong i = (ulong)chunk.y + get_local_id(0); i < end; i += get_local_size(0)) {
            UPDATE(real_t, LOAD, STORE, sqrt)
        }
#else
        /* packed: VEC consecutive elements per work-item with vector loads (element-aligned is enough for
         * vloadn), the chunk's last n % VEC elements one by one by work-item 0 */
        const ulong full_end = (ulong)chunk.y + (end - (ulong)chunk.y) / VEC * VEC;
        for (ulong i = (ulong)chunk.y + (ulong)get_local_id(0) * VEC; i < full_end; i += (ulong)get_local_size(0) * VEC) {
            UPDATE(REALV, VLOAD, VSTORE, SQRTV)
        }
        if (get_local_id(0) == 0) {
            for (ulong i = full_end; i < end; ++i) {
                UPDATE(real_t, LOAD, STORE, sqrt)
            }
        }
#endif
    }
}
