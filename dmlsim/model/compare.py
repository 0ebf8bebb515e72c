"""Checking a resource against expected values, and describing a mismatch so a reader sees where and by how much.

Default tolerance for float resources, stated per type: FLOAT32 and FLOAT64 8 ulp, FLOAT16 2 ulp of
the expected value. A file's values are usually a reference computed in higher precision; a kernel
computing in float32 and rounding once per result stays within a few ulp of it, and FLOAT16 results
may round to the other neighbour of a float64 value (1 ulp), once more after a state was carried
over a step (hence 2). ``rtol``/``atol`` switch to numpy's ``|got − expected| ≤ atol + rtol·|expected|``;
given together with ``ulp``, an element passes if either test passes. Integers compare exactly.
NaN matches NaN, and an infinity matches only the same infinity.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dmlsim.api.enums import DML_TENSOR_DATA_TYPE
from dmlsim.api.numerics import ulp as ulp_of
from dmlsim.api.tensor import NUMPY_DTYPE, data_type_name

_T = DML_TENSOR_DATA_TYPE
DEFAULT_ULPS = {_T.DML_TENSOR_DATA_TYPE_FLOAT32: 8.0, _T.DML_TENSOR_DATA_TYPE_FLOAT16: 2.0,
                _T.DML_TENSOR_DATA_TYPE_FLOAT64: 8.0}
SHOW_ALL = 32
SHOW_MISMATCHES = 10


@dataclass
class Tolerance:
    rtol: float | None = None
    atol: float | None = None
    ulp: float | None = None

    def for_type(self, data_type: int) -> Tolerance:
        """The tolerance in force: the file's, or the type's default ulp count."""
        if data_type not in DEFAULT_ULPS:
            return Tolerance(0.0, 0.0, None)
        if self.rtol is None and self.atol is None and self.ulp is None:
            return Tolerance(None, None, DEFAULT_ULPS[data_type])
        return self

    def describe(self) -> str:
        parts = [f"{k} {v:g}" for k, v in (("ulp", self.ulp), ("rtol", self.rtol), ("atol", self.atol))
                 if v is not None]
        return ", ".join(parts) if parts else "exact"


def format_value(value: float | int) -> str:
    """A value as DxDispatch prints it (C++ ostream: 6 significant digits, %g style)."""
    if isinstance(value, (float, np.floating)):
        return f"{float(value):g}"
    return str(int(value))


def compare_values(got: np.ndarray, expected: np.ndarray, data_type: int, tolerance: Tolerance
                   ) -> str | None:
    """None when ``got`` matches ``expected``; otherwise a readable report of every mismatch."""
    tol = tolerance.for_type(data_type)
    if data_type not in DEFAULT_ULPS:
        if got.dtype == expected.dtype:  # the usual case: one vectorized comparison, however many values
            ok = np.asarray(got == expected, bool)
        else:
            ok = np.array([int(a) == int(b) for a, b in zip(got, expected, strict=True)], bool)
        errors = None
    else:
        g = got.astype(np.float64)
        e = expected.astype(np.float64)
        with np.errstate(all="ignore"):
            diff = np.abs(g - e)
            unit = ulp_of(e, NUMPY_DTYPE[data_type])
            errors = np.where(unit > 0, diff / unit, np.inf)
            close = np.zeros(g.shape, bool)
            if tol.ulp is not None:
                close |= errors <= tol.ulp
            if tol.rtol is not None or tol.atol is not None:
                close |= diff <= (tol.atol or 0.0) + (tol.rtol or 0.0) * np.abs(e)
        special = (np.isnan(g) & np.isnan(e)) | (np.isinf(e) & (g == e))
        ok = special | (close & np.isfinite(e) & np.isfinite(g))
    if ok.all():
        return None
    bad = np.flatnonzero(~ok)
    lines = [f"{len(bad)} of {ok.size} {data_type_name(data_type)} values differ (tolerance: {tol.describe()}):"]
    for i in bad[:SHOW_MISMATCHES]:
        line = f"  [{i}] expected {format_value(expected[i])}, got {format_value(got[i])}"
        if errors is not None and np.isfinite(errors[i]):
            line += f" (off by {float(got[i]) - float(expected[i]):.6g}, {errors[i]:.3g} ulp)"
        lines.append(line)
    if len(bad) > SHOW_MISMATCHES:
        lines.append(f"  ... and {len(bad) - SHOW_MISMATCHES} more")
    if ok.size <= SHOW_ALL:
        lines.append("  expected: " + ", ".join(format_value(v) for v in expected))
        lines.append("  got:      " + ", ".join(format_value(v) for v in got))
    return "\n".join(lines)
