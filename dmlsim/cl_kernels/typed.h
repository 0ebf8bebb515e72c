/* Kernels whose input and output storage types differ (REDUCE's ARGMAX indices, CAST) or that move
 * bits without arithmetic (JOIN, SPLIT, SLICE): each side's type is a build define.
 *   -DIN_T=<OpenCL type>  -DOUT_T=<OpenCL type>   storage of the input / output elements
 *   -DIN_HALF / -DOUT_HALF                         FLOAT16 storage through vload_half / vstore_half_rte
 *   -DACC_T=<OpenCL type>                          the arithmetic type (float for FLOAT16/FLOAT32)
 *   -DUSES_FP64                                    a double appears somewhere (needs cl_khr_fp64)
 * LOAD_IN converts to ACC_T; STORE_OUT converts to the output type (C conversion rules; callers that need
 * saturation convert before storing; a FLOAT16 output takes a float or double and rounds it once to
 * nearest even). COORDS8/OFFSET8 come from dmlsim.h.
 */
#ifndef DMLSIM_TYPED_H
#define DMLSIM_TYPED_H

#include "dmlsim.h"

#ifdef USES_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#ifdef IN_HALF
typedef half in_t;
#define LOAD_IN(p, i) ((ACC_T)vload_half((i), (p)))
#else
typedef IN_T in_t;
#define LOAD_IN(p, i) ((ACC_T)(p)[i])
#endif

#ifdef OUT_HALF
typedef half out_t;
#define STORE_OUT(x, p, i) vstore_half_rte((x), (i), (p)) /* x: float or double, rounded once */
#else
typedef OUT_T out_t;
#define STORE_OUT(x, p, i) ((p)[i] = (out_t)(x))
#endif

/* A bound tensor passed as base and element offset only (TensorArg(scalar=True)): the kernel gets its
 * addressing (strides, window offsets) from other arguments. */
#define TYPED_IN(name) __global const in_t *name##__base, ulong name##__offset
#define TYPED_OUT(name) __global out_t *name##__base, ulong name##__offset
/* The same with the tensor's 8-D DML strides (TensorArg(rank=8)). */
#define TYPED_IN8(name) TYPED_IN(name), ulong8 name##__strides
#define TYPED_OUT8(name) TYPED_OUT(name), ulong8 name##__strides

#endif
