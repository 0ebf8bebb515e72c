/* VALUE_SCALE_2D: one work-item per element of the 4-D {N, C, H, W} tensors (padded to 8-D: the channel is c[5]):
 *   OutputTensor[n, c, h, w] = Scale * InputTensor[n, c, h, w] + Bias[c]
 * computed in float32 as one fused multiply-add (a single rounding: the exact Scale * x + Bias[c] rounded once;
 * a float32 product that would overflow does not become infinity before the bias is added), FLOAT16 stored
 * rounded to nearest even. ChannelCount is 1 or 3: the biases arrive as three floats.
 */
#include "dmlsim.h"

__kernel void value_scale_2d(TENSOR_IN8(x), TENSOR_OUT8(y), ulong8 sizes, float scale, float bias0, float bias1,
                             float bias2, uint n)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    COORDS8(c, gid, sizes)
    const uint channel = c[5];
    const float bias = channel == 0 ? bias0 : (channel == 1 ? bias1 : bias2);
    const float value = fma(scale, (float)LOAD(TENSOR_PTR(x), OFFSET8(c, x__strides)), bias);
    STORE(value, TENSOR_PTR(y), OFFSET8(c, y__strides));
}
