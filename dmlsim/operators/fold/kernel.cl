/* FOLD (col2im) and UNFOLD (im2col). The image tensor is {N, C, S_0 .. S_{D-1}} (D = DimensionCount spatial
 * dimensions, rank 2 + D, padded at the front to 8-D: n = c[6 - D], channel c[7 - D], spatial c[8 - D + d]); the
 * columns tensor is {N, C * K, L} (its last three dimensions; K = prod(WindowSizes) window positions, L =
 * prod(BlocksPerDimension) blocks), each row a channel and window position (row-major over (C, k_0 .. k_{D-1})),
 * each column a block (row-major over (b_0 .. b_{D-1})). Window position k of block b reads the padded image at
 *   p[d] = b[d] * Strides[d] + k[d] * Dilations[d] - StartPadding[d]     (outside [0, S_d): an implicit zero)
 * Per-dimension parameters arrive as ulong8 (components 0 .. D-1 used).
 */
#include "typed.h"

/* UNFOLD: one work-item per columns element (n, row, col): the image element it copies, or 0 in the padding.
 * Elements move as the unsigned integer of their width (every data type bit for bit). */
__kernel void unfold(TYPED_IN8(x), TYPED_OUT8(y), ulong8 sizes, ulong8 image, ulong8 window, ulong8 blocks,
                     ulong8 stride, ulong8 dilation, ulong8 start, uint dims, ulong window_count, uint n)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    COORDS8(c, gid, sizes)
    ulong s[8], w[8], b[8], st[8], di[8], sp[8], xs[8];
    vstore8(image, 0, s);
    vstore8(window, 0, w);
    vstore8(blocks, 0, b);
    vstore8(stride, 0, st);
    vstore8(dilation, 0, di);
    vstore8(start, 0, sp);
    vstore8(x__strides, 0, xs);
    const ulong row = c[6], col = c[7];
    ulong k = row % window_count, block = col;
    ulong src = (ulong)c[5] * xs[6 - dims] + (row / window_count) * xs[7 - dims];
    int inside = 1;
    for (int d = (int)dims - 1; d >= 0; d--) {
        const ulong kd = k % w[d], bd = block % b[d];
        k /= w[d];
        block /= b[d];
        const long p = (long)(bd * st[d] + kd * di[d]) - (long)sp[d];
        inside &= (p >= 0) & (p < (long)s[d]);
        src += (ulong)p * xs[8 - dims + d];
    }
    ACC_T v = (ACC_T)0;
    if (inside)
        v = LOAD_IN(TENSOR_PTR(x), src);
    STORE_OUT(v, TENSOR_PTR(y), OFFSET8(c, y__strides));
}

/* FOLD: one work-item per image element (n, channel, o): the sum, in float32, of every columns element whose
 * window position and block read it (window positions in row-major order), FLOAT16 stored rounded to nearest
 * even; 0 where nothing reads it. */
__kernel void fold(TYPED_IN8(x), TYPED_OUT8(y), ulong8 sizes, ulong8 image, ulong8 window, ulong8 blocks,
                   ulong8 stride, ulong8 dilation, ulong8 start, uint dims, ulong window_count, uint n)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    COORDS8(c, gid, sizes)
    ulong w[8], b[8], st[8], di[8], sp[8];
    vstore8(window, 0, w);
    vstore8(blocks, 0, b);
    vstore8(stride, 0, st);
    vstore8(dilation, 0, di);
    vstore8(start, 0, sp);
    const ulong base = (ulong)c[6 - dims] * x__strides.s5 +
                       (ulong)c[7 - dims] * window_count * x__strides.s6;
    float sum = 0.0f;
    for (ulong k = 0; k < window_count; k++) {
        ulong rest = k, col = 0, scale = 1;
        int hit = 1;
        for (int d = (int)dims - 1; d >= 0; d--) {
            const ulong kd = rest % w[d];
            rest /= w[d];
            const long t = (long)c[8 - dims + d] + (long)sp[d] - (long)(kd * di[d]);
            const long q = t / (long)st[d];
            hit &= (t >= 0) & (q * (long)st[d] == t) & (q < (long)b[d]);
            col += (ulong)q * scale;
            scale *= b[d];
        }
        if (hit)
            sum += (float)LOAD_IN(TENSOR_PTR(x), base + k * x__strides.s6 + col * x__strides.s7);
    }
    STORE_OUT(sum, TENSOR_PTR(y), OFFSET8(c, y__strides));
}
