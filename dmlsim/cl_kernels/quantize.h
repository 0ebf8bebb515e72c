/* The float32 quantization DirectML's quantizing operators share (QUANTIZE_LINEAR, QUANTIZED_LINEAR_ADD,
 * QUANTIZED_LINEAR_MATRIX_MULTIPLY): clamp(round_half_to_even(value / scale) + zero_point, Min, Max).
 *   -DSATURATE_T=<char|uchar>  (or a #define before the #include) the integer output type of saturate()
 * Moved here unchanged from dmlsim/operators/quantize/kernel.cl so that every quantizing kernel rounds
 * the same way (integer outputs equal on every device and the references).
 */
#ifndef DMLSIM_QUANTIZE_H
#define DMLSIM_QUANTIZE_H

#include "dmlsim.h"

/* value / scale rounded once to the nearest float32, as IEEE division (and the reference's numpy float32
 * division) rounds it. QUANTIZE's integer result depends on it exactly where the quotient is near a tie
 * k + 0.5 (0.5 / float32(5/255) is 25.4999991, which float32 rounds to 25.5, then to 26), and OpenCL
 * allows float division an error of 2.5 ulp unless built with -cl-fp32-correctly-rounded-divide-sqrt,
 * an option devices need not support. With cl_khr_fp64 the quotient is taken in double and rounded to
 * float: the double quotient of two floats, rounded to float, is the correctly rounded float quotient
 * (53 >= 2 * 24 + 2 bits, so rounding twice is innocuous for division: Figueroa, 1995), and OpenCL
 * requires double division to be correctly rounded. Without cl_khr_fp64 the device's float division is
 * used (correctly rounded on CPU OpenCL implementations; near-ties may differ elsewhere). */
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
inline float divide_rn(float value, float scale)
{
    return convert_float_rte((double)value / (double)scale);
}
#else
inline float divide_rn(float value, float scale)
{
    return value / scale;
}
#endif

#ifdef SATURATE_T
/* q converted to the (INT8/UINT8) output type, saturating; NaN gives 0. OpenCL C's saturating conversions
 * specify NaN -> 0, but Oclgrind converts it to the type's minimum (-128 for INT8): the explicit test makes
 * every device agree. */
inline SATURATE_T saturate(float q)
{
    return isnan(q) ? (SATURATE_T)0 : DMLSIM_CAT(DMLSIM_CAT(convert_, SATURATE_T), _sat)(q);
}
#endif

/* round_half_to_even(value / scale) + zero_point; callers saturate it to the output type (saturate). */
inline float quantize(float value, float scale, float zero_point)
{
    return rint(divide_rn(value, scale)) + zero_point;
}

#endif
