/* DML_OPERATOR_GEMM:
 *   Output = FUSED_ACTIVATION(alpha * sum_k opA(A)[m, k] * opB(B)[k, n] + beta * C[m, n])
 * with A, B, C and Output of 2 to 4 dimensions, padded at the front to 4 (sizes 1, strides 0), any DML
 * strides (stride 0 broadcasts an input). trans_a / trans_b (DML_MATRIX_TRANSFORM) swap which of the
 * last two strides walks K. -DHAS_C when CTensor is bound. FLOAT16 (-DSTORE_HALF) is storage only: the
 * sum is accumulated in float32, in order k = 0..K-1, and stored rounded to nearest even.
 * Four kernels with the same arithmetic in the same order (bitwise equal results on one device): `gemm`, one
 * work-item per output element; `gemm_tiled` (GPU launch targets), one work-group of TILE x TILE work-items per
 * TILE x TILE output tile, staging TILE-wide slices of A and B in local memory; `gemm_blocked` (CPU launch
 * targets), one work-item per register block of the output (below); `gemm_packed` (CPU launch targets, larger
 * outputs), the register blocks over float32 panels that `gemm_pack` copied A and B into (at the end).
 * Unlike the other kernels (dmlsim.h turns contraction off), this file lets the compiler contract each
 * `sum + a * b` into one fused multiply-add where the device has one (one rounding per term instead of two:
 * within the same K + 2 ulps bound, and half the instructions of the inner loop on CPUs with FMA). All four
 * kernels write the term the same way, so they contract alike.
 */
#include "dmlsim.h"
#include "activations.h"

#define TILE 16
/* after dmlsim.h's FP_CONTRACT OFF: contraction allowed in GEMM's kernels (top of the file) */
#pragma OPENCL FP_CONTRACT ON

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

/* ---- gemm_blocked: register blocking for CPU devices -----------------------------------------------------
 * One work-item computes an MR x (NV * VN) block of one output matrix in MR * NV VN-wide float accumulators:
 * for each k it broadcasts MR values of opA(A)'s column k and loads NV VN-wide slices of opB(B)'s row k
 * (contiguous when -DB_UNIT_N: B's stride along N is 1; gathered element by element otherwise), KU values of
 * k per trip of the main loop and the K remainder (K % KU) one by one after it. Every output element is the
 * same float32 sum, term by term in order k = 0..K-1, as the other two kernels compute (bitwise equal).
 * Edge blocks: rows past M read row M - 1 and columns past N read column N - 1 (valid addresses; the results
 * are never stored), a block that reaches past N or whose B is not unit-stride gathers B, and only elements
 * inside the output are stored. Work-items run M blocks fastest (-DM_FAST, CPUs: consecutive work-items of a
 * core reuse one B panel from cache) or N blocks fastest (GPUs: neighbouring work-items read neighbouring B). */
#ifndef MR
#define MR 4
#endif
#ifndef NV
#define NV 2
#endif
#ifndef VN
#define VN 8
#endif
#ifndef KU
#define KU 4
#endif
#define NR (NV * VN)
#define FLOATV DMLSIM_CAT(float, VN)

/* VN consecutive B elements opB(B)[k, n .. n + VN - 1] in one vector load: dmlsim.h's LOADV with VEC = VN (the plan
 * defines both), so that CPU targets load FLOAT32 by dereference and widen FLOAT16 with F16C where the target has
 * it (PyPI's PoCL 3.0 compiles vload_half8 as a library call); gathered element by element otherwise (below). */
#if VN != VEC
#error "gemm_blocked: the plan defines VEC = VN"
#endif
#define LOAD_B_ROW(p) LOADV((p), 0)

inline FLOATV gather_b(__global const store_t *b_matrix, ulong4 b__strides, uint trans_b, uint k, uint n, uint N)
{
    float lanes[VN];
#pragma unroll
    for (uint l = 0; l < VN; ++l)
        lanes[l] = (float)LOAD(b_matrix, B_AT(k, min(n + l, N - 1)));
    return DMLSIM_CAT(vload, VN)(0, lanes);
}

/* One term k of every accumulator: acc[i][j] += opA(A)[row_i, k] * opB(B)[k, n0 + j*VN ..]. */
#define BLOCK_STEP(k, LOAD_B)                                                            \
    {                                                                                    \
        FLOATV b_[NV];                                                                   \
        _Pragma("unroll") for (uint j = 0; j < NV; ++j) b_[j] = LOAD_B(k, j);           \
        _Pragma("unroll") for (uint i = 0; i < MR; ++i) {                                \
            const FLOATV a_ = (FLOATV)((float)LOAD(a_matrix, a_row[i] + (ulong)(k) * a_k)); \
            _Pragma("unroll") for (uint j = 0; j < NV; ++j) acc[i][j] = acc[i][j] + a_ * b_[j]; \
        }                                                                                \
    }
#define B_VECTOR(k, j) LOAD_B_ROW(b_matrix + (ulong)(k) * b_k + (ulong)(n0 + (j) * VN))
#define B_GATHER(k, j) gather_b(b_matrix, b__strides, trans_b, (k), n0 + (j) * VN, N)
#define BLOCK_LOOP(LOAD_B)                                                               \
    {                                                                                    \
        uint k = 0;                                                                      \
        for (; k + KU <= K; k += KU) {                                                   \
            _Pragma("unroll") for (uint u = 0; u < KU; ++u) BLOCK_STEP(k + u, LOAD_B)   \
        }                                                                                \
        for (; k < K; ++k)                                                               \
            BLOCK_STEP(k, LOAD_B)                                                        \
    }

__kernel void gemm_blocked(GEMM_ARGS, uint blocks_m, uint blocks_n, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
#ifdef M_FAST
    const uint block_m = gid % blocks_m;
    uint rest = gid / blocks_m;
    const uint block_n = rest % blocks_n;
    rest /= blocks_n;
#else
    const uint block_n = gid % blocks_n;
    uint rest = gid / blocks_n;
    const uint block_m = rest % blocks_m;
    rest /= blocks_m;
#endif
    const ulong channel = rest % (uint)sizes.y;
    const ulong batch = rest / (uint)sizes.y;
    const uint M = (uint)sizes.z, N = (uint)sizes.w;
    const uint m0 = block_m * MR, n0 = block_n * NR;
    __global const store_t *a_matrix = TENSOR_PTR(a) + batch * a__strides.x + channel * a__strides.y;
    __global const store_t *b_matrix = TENSOR_PTR(b) + batch * b__strides.x + channel * b__strides.y;
    /* opA(A)[m, k] = a_matrix[a_row[m] + k * a_k]; opB(B)[k, n] = b_matrix[k * b_k + n * (stride along N)] */
    const ulong a_k = trans_a ? a__strides.z : a__strides.w;
    const ulong b_k = trans_b ? b__strides.w : b__strides.z;
    ulong a_row[MR];
#pragma unroll
    for (uint i = 0; i < MR; ++i)
        a_row[i] = (ulong)min(m0 + i, M - 1) * (trans_a ? a__strides.w : a__strides.z);

    FLOATV acc[MR][NV];
#pragma unroll
    for (uint i = 0; i < MR; ++i)
#pragma unroll
        for (uint j = 0; j < NV; ++j)
            acc[i][j] = (FLOATV)(0.0f);
#ifdef B_UNIT_N
    if (n0 + NR <= N)
        BLOCK_LOOP(B_VECTOR)
    else
#endif
        BLOCK_LOOP(B_GATHER)

#pragma unroll
    for (uint i = 0; i < MR; ++i) {
        const uint row = m0 + i;
#pragma unroll
        for (uint j = 0; j < NV; ++j) {
            float lanes[VN];
            DMLSIM_CAT(vstore, VN)(acc[i][j], 0, lanes);
            for (uint l = 0; l < VN; ++l) {
                const uint col = n0 + j * VN + l;
                if (row < M && col < N)
                    STORE_OUTPUT(lanes[l], batch, channel, row, col)
            }
        }
    }
}

/* ---- the packed path for CPU devices (BLIS/OpenBLAS-style): gemm_pack, then gemm_packed ----------------------
 * gemm_pack copies one operand into the temporary resource as float32 panels, so that the micro-kernel reads
 * both operands contiguously whatever their strides, transforms and storage type (FLOAT16 is widened here, once,
 * exactly). A panel is PW rows of opA(A) (PW = MR) or PW columns of opB(B) (PW = NR) over all K terms, k-major:
 *   pack[pack__offset + (matrix * panels + p) * K * PW + ((i / PS) * K + k) * PS + i % PS]
 *       = X[matrix][p * PW + i along `rows`, k]
 * (a B panel of 32 columns is two 16-column sub-panels, PS = 16, each k-major: a pass over either half reads it
 * front to back; A's panels are one, PS = PW = 8), with X's element at (row r, term k) at r * row_stride + k * k_stride (the plan picks the two strides from
 * TransA/TransB), matrix = batch * ChannelCount + channel, and 0 for r >= rows (an edge panel; the micro-kernel
 * computes those lanes and never stores them). One work-item per (matrix, panel, k). */
#ifndef PW
#define PW 8
#endif
#ifndef PS
#define PS PW
#endif
/* vec_type_hint: a work-item's PW elements are its own lanes; Intel's CPU runtime otherwise makes neighbouring
 * work-items (neighbouring k) SIMD lanes, so that packing B (its rows N apart) gathered and scattered every lane
 * (1 x 2048 B of 2048 x 2048: 5.7 -> 1.2 ms there) */
__kernel __attribute__((vec_type_hint(float8)))
void gemm_pack(TENSOR_IN(x), ulong4 sizes, ulong row_stride, ulong k_stride, uint rows, uint K,
               uint panels, __global float *pack, ulong pack__offset, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    const uint k = gid % K;
    uint rest = gid / K;
    const uint p = rest % panels;
    rest /= panels;
    const ulong channel = rest % (uint)sizes.y;
    const ulong batch = rest / (uint)sizes.y;
    __global const store_t *x_matrix = TENSOR_PTR(x) + batch * x__strides.x + channel * x__strides.y;
    __global float *dst = pack + pack__offset + ((ulong)rest * panels + p) * K * PW + (ulong)k * PS;
    const uint r0 = p * PW;
    float lanes[PW];
#pragma unroll
    for (uint i = 0; i < PW; ++i)
        lanes[i] = r0 + i < rows ? (float)LOAD(x_matrix, (ulong)(r0 + i) * row_stride + (ulong)k * k_stride) : 0.0f;
#pragma unroll
    for (uint i = 0; i < PW; ++i)
        dst[(ulong)(i / PS) * K * PS + i % PS] = lanes[i];
}

/* gemm_packed: an MR x PANEL_N register block over packed panels: the A panel of block_m at pa__offset, the
 * B panel of block_n at pb__offset (gemm_pack's layout), each read front to back: per k, MR broadcasts of A and
 * contiguous vector loads of B. One pass over the panel in MR x 2 float16 accumulators where the compiler targets
 * AVX-512 (PoCL here: 16 of the 32 zmm registers) or names no x86 ISA at all (Intel's runtime, which picks the
 * ISA when it compiles for the device: float16 ran its loop 1.5x faster than float8 on this project's AVX-512
 * host), both only when vectors are read by dereference (dmlsim.h); elsewhere (AVX2 targets) two passes, one per
 * 16-column sub-panel, in MR x 2 float8 (16 ymm registers), the A panel read once per pass. No 512-bit value is
 * passed to a library function (dmlsim.h, plan.py's CPU_VECTOR_BYTES: PyPI's PoCL 3.0 breaks such calls on some
 * AVX-512 hosts): loads by dereference, lanes out through a union. The K loop stays inside the work-item,
 * unrolled KU times with the remainder after it: each accumulator sums its K terms in order k = 0..K-1,
 * gemm_blocked's arithmetic (bitwise equal results on one device). Work-items run the M blocks fastest, so the
 * B panel (K x PANEL_N floats) stays in the core's L2 while the A panels stream past it. */
#ifdef PANEL_N /* the plan defines PANEL_N (and PS) for gemm_packed's builds only */
#if defined(DMLSIM_DIRECT_VECTORS) && (defined(__AVX512F__) || !defined(__SSE2__))
#define PVN 16
#else
#define PVN 8
#endif
#define PNV 2
#define PFLOATV DMLSIM_CAT(float, PVN)
/* opB(B)[k, n0 + col] in the B panel: sub-panel col / PS, k-major within it (gemm_pack's layout) */
#define PANEL_AT(k, col) ((ulong)((col) / PS) * K * PS + (ulong)(k) * PS + (col) % PS)
#if PANEL_N % (PNV * PVN) != 0 || PANEL_N % PS != 0 || PS % PVN != 0
#error "gemm_packed: PANEL_N is a multiple of two vectors and of the sub-panels, a sub-panel of vectors"
#endif
/* B's PVN-wide slices by dereference on CPU devices (dmlsim.h: PyPI's PoCL 3.0 compiles vloadn as a library call,
 * which cost this loop four fifths of its speed), vloadn elsewhere; the panels are float32 whatever the storage. */
#ifdef DMLSIM_DIRECT_VECTORS
typedef PFLOATV gemm_floatv_u __attribute__((aligned(4)));
#define PANEL_B(k, col) (*(__global const gemm_floatv_u *)(pb + PANEL_AT(k, col)))
#else
#define PANEL_B(k, col) DMLSIM_CAT(vload, PVN)(0, pb + PANEL_AT(k, col))
#endif
#define PACKED_STEP(k)                                                                   \
    {                                                                                    \
        PFLOATV b_[PNV];                                                                 \
        _Pragma("unroll") for (uint j = 0; j < PNV; ++j) b_[j] = PANEL_B(k, c0 + j * PVN); \
        _Pragma("unroll") for (uint i = 0; i < MR; ++i) {                                \
            const PFLOATV a_ = (PFLOATV)(pa[(ulong)(k) * MR + i]);                       \
            _Pragma("unroll") for (uint j = 0; j < PNV; ++j) acc[i][j] = acc[i][j] + a_ * b_[j]; \
        }                                                                                \
    }

__kernel void gemm_packed(__global const float *pack, ulong pa__offset, ulong pb__offset, C_ARG TENSOR_OUT(y),
                          ulong4 sizes, uint K, float alpha, float beta, uint blocks_m, uint blocks_n, uint count)
{
    const uint gid = get_global_id(0);
    if (gid >= count)
        return;
    const uint block_m = gid % blocks_m;
    uint rest = gid / blocks_m;
    const uint block_n = rest % blocks_n;
    rest /= blocks_n;
    const ulong channel = rest % (uint)sizes.y;
    const ulong batch = rest / (uint)sizes.y;
    const uint M = (uint)sizes.z, N = (uint)sizes.w;
    const uint m0 = block_m * MR, n0 = block_n * PANEL_N;
#ifdef A_SHARED /* one A for every matrix (CONVOLUTION's filter), packed once */
    __global const float *pa = pack + pa__offset + (ulong)block_m * K * MR;
#else
    __global const float *pa = pack + pa__offset + ((ulong)rest * blocks_m + block_m) * K * MR;
#endif
    __global const float *pb = pack + pb__offset + ((ulong)rest * blocks_n + block_n) * K * PANEL_N;

    for (uint c0 = 0; c0 < PANEL_N && n0 + c0 < N; c0 += PNV * PVN) {
        PFLOATV acc[MR][PNV];
#pragma unroll
        for (uint i = 0; i < MR; ++i)
#pragma unroll
            for (uint j = 0; j < PNV; ++j)
                acc[i][j] = (PFLOATV)(0.0f);
        uint k = 0;
        for (; k + KU <= K; k += KU) {
#pragma unroll
            for (uint u = 0; u < KU; ++u)
                PACKED_STEP(k + u)
        }
        for (uint r = k; r < K; ++r)  /* the K remainder, K % KU terms */
            PACKED_STEP(r)

#pragma unroll
        for (uint i = 0; i < MR; ++i) {
            const uint row = m0 + i;
#pragma unroll
            for (uint j = 0; j < PNV; ++j) {
                union { PFLOATV v; float f[PVN]; } lanes;
                lanes.v = acc[i][j];
                for (uint l = 0; l < PVN; ++l) {
                    const uint col = n0 + c0 + j * PVN + l;
                    if (row < M && col < N)
                        STORE_OUTPUT(lanes.f[l], batch, channel, row, col)
                }
            }
        }
    }
}
#endif /* PANEL_N */
