/* DML_OPERATOR_GEMM: one work-item per output element (batch, channel, row m, column n) of
 *   Output = FUSED_ACTIVATION(alpha * sum_k opA(A)[m, k] * opB(B)[k, n] + beta * C[m, n])
 * with A, B, C and Output of 2 to 4 dimensions, padded at the front to 4 (sizes 1, strides 0), any DML
 * strides (stride 0 broadcasts an input). trans_a / trans_b (DML_MATRIX_TRANSFORM) swap which of the
 * last two strides walks K. -DHAS_C when CTensor is bound. FLOAT16 (-DSTORE_HALF) is storage only: the
 * sum is accumulated in float32, in order k = 0..K-1, and stored rounded to nearest even.
 */
#include "dmlsim.h"

#ifndef FUSED_ACTIVATION
#define FUSED_ACTIVATION(x) (x)
#endif

__kernel void gemm(TENSOR_IN(a), TENSOR_IN(b),
#ifdef HAS_C
                   TENSOR_IN(c),
#endif
                   TENSOR_OUT(y), ulong4 sizes, uint K, uint trans_a, uint trans_b, float alpha, float beta,
                   uint n)
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

    /* A[m, k] (or A[k, m] transposed) and B[k, n] (or B[n, k]): a start and a step along k */
    ulong a_at = batch * a__strides.x + channel * a__strides.y + row * (trans_a ? a__strides.w : a__strides.z);
    const ulong a_step = trans_a ? a__strides.z : a__strides.w;
    ulong b_at = batch * b__strides.x + channel * b__strides.y + col * (trans_b ? b__strides.z : b__strides.w);
    const ulong b_step = trans_b ? b__strides.w : b__strides.z;

    float sum = 0.0f;
    for (uint k = 0; k < K; ++k) {
        sum += (float)LOAD(TENSOR_PTR(a), a_at) * (float)LOAD(TENSOR_PTR(b), b_at);
        a_at += a_step;
        b_at += b_step;
    }
    float result = alpha * sum;
#ifdef HAS_C
    const ulong c_at = batch * c__strides.x + channel * c__strides.y + row * c__strides.z + col * c__strides.w;
    result += beta * (float)LOAD(TENSOR_PTR(c), c_at);
#endif
    const ulong y_at = batch * y__strides.x + channel * y__strides.y + row * y__strides.z + col * y__strides.w;
    STORE(FUSED_ACTIVATION(result), TENSOR_PTR(y), y_at);
}
