/* DirectML's unary element-wise operators, one build per member: -DFUNC_<NAME> selects f, and
 *   OutputTensor[i] = f(g(InputTensor[i])),   g(x) = x * scale + bias  (-DSCALE_BIAS), else g(x) = x
 * computed in real_t (float for FLOAT32/FLOAT16 storage, double for FLOAT64, the integer type itself for
 * integer storage: cl_kernels/dmlsim.h). Build variants: -DPACKED (both tensors packed: VEC-wide vector
 * loads over this work-item's vectors, FOR_EACH_VECTOR; the remainder of fewer than VEC elements done by
 * work-item 0) or the strided path (one element per work-item, any DML strides of up to 8 dimensions,
 * stride 0 broadcasting on the input). Each element is read before it is written and no pointer is
 * restrict: the output may alias the input in place.
 */
#include "dmlsim.h"

#if defined(FUNC_IDENTITY)
#define F(x) (x)
#else
#error "no element-wise function selected (-DFUNC_<NAME>)"
#endif

#ifdef SCALE_BIAS
#define G(x) ((x) * (real_t)scale + (real_t)bias)
#else
#define G(x) (x)
#endif

__kernel void element_wise_unary(TENSOR_IN8(x), TENSOR_OUT8(y), float scale, float bias, ulong8 sizes, uint n)
{
#ifdef PACKED
    const uint nvec = n / VEC;
    FOR_EACH_VECTOR(i, nvec) {
        REALV v = LOADV(TENSOR_PTR(x), i);
        STOREV(F(G(v)), TENSOR_PTR(y), i);
    }
    if (get_global_id(0) == 0) {
        for (uint i = nvec * VEC; i < n; ++i) {
            real_t v = LOAD(TENSOR_PTR(x), i);
            STORE(F(G(v)), TENSOR_PTR(y), i);
        }
    }
#else
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    COORDS8(c, gid, sizes)
    real_t v = LOAD(TENSOR_PTR(x), OFFSET8(c, x__strides));
    STORE(F(G(v)), TENSOR_PTR(y), OFFSET8(c, y__strides));
#endif
}
