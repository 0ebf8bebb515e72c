"""Float64 references of the element-wise operators, transcribed from their DirectML doc pages.

Floating-point inputs arrive as float64 after the optional scale and bias; integer inputs keep their
own dtype (a scale and bias is refused for them), so integer results are exact.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dmlsim.api.structs import DML_SCALE_BIAS


def apply_scale_bias(x: np.ndarray, scale_bias: DML_SCALE_BIAS | None) -> np.ndarray:
    """g(x) = x * Scale + Bias ("applied to each input element prior to computing this operator")."""
    if scale_bias is None:
        return x
    return x * np.float64(scale_bias.Scale) + np.float64(scale_bias.Bias)


# f(x) of each unary member, keyed by its name after DML_OPERATOR_ELEMENT_WISE_.
UNARY_FORMULAS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "IDENTITY": lambda x: x,  # f(x) = x
}
