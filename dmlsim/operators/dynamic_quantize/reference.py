"""Reference of DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, transcribed from its doc page:

    InputMax = Max(InputTensor), InputMin = Min(InputTensor)
    OutputScale = (InputMax - InputMin) / (Max - Min)            ([Min, Max]: the output type's range)
    OutputZeroPoint = Min - InputMin / OutputScale
    OutputTensor = clamp(round(InputValue / OutputScale) + OutputZeroPoint, Min, Max)

in float32 arithmetic, one rounding per step, as the kernel computes it (integer outputs depend on where a
quotient falls relative to a tie): the zero point rounded half to even and saturated to the output type
before it is stored and used; a NaN input is ignored by Min and Max (NaN only when every input is NaN) and
quantizes to 0 (as QUANTIZE_LINEAR: dmlsim.operators.quantize.reference.quantize_linear).
"""

from __future__ import annotations

import numpy as np

from dmlsim.operators.quantize.reference import quantize_linear

F32 = np.float32


def dynamic_quantize_linear(x: np.ndarray, limits: tuple[int, int]) -> tuple[np.ndarray, np.float32, float]:
    """(OutputTensor, OutputScale, OutputZeroPoint) of ``x`` for an output range ``limits``."""
    values = np.asarray(x, F32)
    with np.errstate(all="ignore"):
        if np.isnan(values).all():
            low = high = F32(np.nan)
        else:
            low, high = F32(np.nanmin(values)), F32(np.nanmax(values))
        scale = F32(F32(high - low) / F32(limits[1] - limits[0]))
        point = np.rint(F32(limits[0]) - F32(low / scale))
    zero_point = 0.0 if np.isnan(point) else float(np.clip(point, *limits))
    return quantize_linear(values, np.asarray(scale), np.asarray(zero_point), limits), scale, zero_point
