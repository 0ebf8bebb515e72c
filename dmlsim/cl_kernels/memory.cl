/* First touch of a buffer in host memory (dmlsim/backends/opencl/hostmem.py): zero n bytes, as the
 * streaming kernels split work (-DCHUNKED: a contiguous chunk of 64-byte blocks per work-item, else a
 * grid-stride loop), so that the threads running work-items place the pages they will stream. */
__kernel void touch(__global uint16 *blocks, ulong n)
{
    const size_t gid = get_global_id(0);
    const size_t items = get_global_size(0);
    const size_t count = n / 64;
#ifdef CHUNKED
    const size_t per_item = (count + items - 1) / items;
    const size_t first = min(gid * per_item, count);
    const size_t last = min(first + per_item, count);
    for (size_t i = first; i < last; ++i)
#else
    for (size_t i = gid; i < count; i += items)
#endif
        blocks[i] = (uint16)(0);
    if (gid == 0)
        for (size_t i = count * 64; i < n; ++i)
            ((__global uchar *)blocks)[i] = 0;
}
