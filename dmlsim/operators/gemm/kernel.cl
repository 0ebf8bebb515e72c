/* DML_OPERATOR_GEMM:
 *   Output = FUSED_ACTIVATION(alpha * sum_k opA(A)[m, k] * opB(B)[k, n] + beta * C[m, n])
 * with A, B, C and Output of 2 to 4 dimensions, padded at the front to 4 (sizes 1, strides 0), any DML
 * strides (stride 0 broadcasts an input). trans_a / trans_b (DML_MATRIX_TRANSFORM) swap which of the
 * last two strides walks K. -DHAS_C when CTensor is bound. FLOAT16 (-DSTORE_HALF) is storage only: the
 * sum is accumulated in float32, in order k = 0..K-1, and stored rounded to nearest even.
 * Two kernels with the same arithmetic in the same order (bitwise equal results): `gemm`, one work-item
 * per output element, and `gemm_tiled`, one work-group of TILE x TILE work-items per TILE x TILE output
 * tile, staging TILE-wide slices of A and B in local memory.
 */
#include "dmlsim.h"
#include "activations.h"

#define TILE 16

#ifdef HAS_C
#define C_ARG TENSOR_IN(c),
#else
#define C_ARG
#endif
#define GEMM_ARGS TENSOR_IN(a), TENSOR_IN(b), C_ARG TENSOR_OUT(y), ulong4 sizes, uint K, uint trans_a, \
                  uint trans_b, float alpha, float beta

/* Element offset of [batch, channel, row, column] through 4-D strides. */
#define AT4(st, batch, channel, row, col) \
    ((batch) * (st).x + (channel) * (st).y + (ulong)(row) * (st).z + (ulong)(col) * (st).w)
/* Element offsets of opA(A)[m, k] and opB(B)[k, n] within one (batch, channel) matrix. */
#define A_AT(m, k) (trans_a ? (ulong)(k) * a__strides.z + (ulong)(m) * a__strides.w \
                            : (ulong)(m) * a__strides.z + (ulong)(k) * a__strides.w)
#define B_AT(k, n) (trans_b ? (ulong)(n) * b__strides.z + (ulong)(k) * b__strides.w \
                            : (ulong)(k) * b__strides.z + (ulong)(n) * b__strides.w)

/* The epilogue both kernels share: Output[...] = FUSED_ACTIVATION(alpha * sum + beta * C[...]). */
#ifdef HAS_C
#define ADD_BETA_C(result, batch, channel, row, col) \
    result += beta * (float)LOAD(TENSOR_PTR(c), AT4(c__strides, batch, channel, row, col));
#else
#define ADD_BETA_C(result, batch, channel, row, col)
#endif
#define STORE_OUTPUT(sum, batch, channel, row, col)                                        \
    {                                                                                      \
        float result_ = alpha * (sum);                                                     \
        ADD_BETA_C(result_, batch, channel, row, col)                                      \
        STORE(FUSED_ACTIVATION(result_), TENSOR_PTR(y), AT4(y__strides, batch, channel, row, col)); \
    }

__kernel void gemm(GEMM_ARGS, uint n)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    const uint col = gid % (uint)sizes.w;
    uint rest = gid / (uint)sizes.w;
    const uint row = rest % (uint)sizes.z;
    rest /= (uint)sizes.z;
    const ulong channel = rest % (uint)sizes.y;
    const ulong batch = rest / (uint)sizes.y;
    __global const store_t *a_matrix = TENSOR_PTR(a) + batch * a__strides.x + channel * a__strides.y;
    __global const store_t *b_matrix = TENSOR_PTR(b) + batch * b__strides.x + channel * b__strides.y;

    float sum = 0.0f;
    for (uint k = 0; k < K; ++k)
        sum += (float)LOAD(a_matrix, A_AT(row, k)) * (float)LOAD(b_matrix, B_AT(k, col));
    STORE_OUTPUT(sum, batch, channel, row, col)
}

__kernel __attribute__((reqd_work_group_size(TILE * TILE, 1, 1)))
void gemm_tiled(GEMM_ARGS, uint tiles_m, uint tiles_n)
{
    __local float a_tile[TILE][TILE + 1];
    __local float b_tile[TILE][TILE + 1];
    const uint ly = get_local_id(0) / TILE, lx = get_local_id(0) % TILE;
    uint rest = get_group_id(0);
    const uint tile_n = rest % tiles_n;
    rest /= tiles_n;
    const uint tile_m = rest % tiles_m;
    rest /= tiles_m;
    const ulong channel = rest % (uint)sizes.y;
    const ulong batch = rest / (uint)sizes.y;
    const uint M = (uint)sizes.z, N = (uint)sizes.w;
    const uint row = tile_m * TILE + ly, col = tile_n * TILE + lx;
    __global const store_t *a_matrix = TENSOR_PTR(a) + batch * a__strides.x + channel * a__strides.y;
    __global const store_t *b_matrix = TENSOR_PTR(b) + batch * b__strides.x + channel * b__strides.y;

    float sum = 0.0f;
    for (uint k0 = 0; k0 < K; k0 += TILE) {
        /* this work-item stages A[row, k0 + lx] and B[k0 + ly, col] (zero past the matrices' edges) */
        const uint ak = k0 + lx, bk = k0 + ly;
        a_tile[ly][lx] = (row < M && ak < K) ? (float)LOAD(a_matrix, A_AT(row, ak)) : 0.0f;
        b_tile[ly][lx] = (bk < K && col < N) ? (float)LOAD(b_matrix, B_AT(bk, col)) : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint span = min((uint)TILE, K - k0);
        for (uint kk = 0; kk < span; ++kk)
            sum += a_tile[ly][kk] * b_tile[kk][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < M && col < N)
        STORE_OUTPUT(sum, batch, channel, row, col)
}
