"""Comparing device results with float64 references in units in the last place (ulps).

A result stored as float32/float16 is judged against the float64 reference with a tolerance of
``n`` ulps of the *magnitude bound* of the computation (the largest term that went into it, e.g.
|β·M| + |(1−β)·G|), not of the result alone: when terms cancel, the rounding errors of the terms
remain, and an ulp of the tiny result would be an unfair yardstick. NaN must match NaN and
infinities must match exactly — they propagate as the formula says.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def ulp(values: np.ndarray, dtype: np.dtype | type) -> np.ndarray:
    """The spacing of ``dtype`` at each |value| (float64 array); the smallest subnormal at 0."""
    dtype = np.dtype(dtype)
    magnitude = np.abs(np.asarray(values, np.float64))
    finite_max = float(np.finfo(dtype).max)
    with np.errstate(all="ignore"):  # NaN magnitudes give NaN spacings; callers compare NaNs apart
        clipped = np.minimum(magnitude, finite_max).astype(dtype)
        return np.spacing(clipped).astype(np.float64)


@dataclass
class UlpReport:
    """Where a comparison failed: indices, got, expected, error in ulps."""

    ok: bool
    worst_ulps: float
    mismatches: list[tuple[tuple[int, ...], float, float, float]]

    def describe(self, name: str = "result", limit: int = 8) -> str:
        if self.ok:
            return f"{name}: all within tolerance (worst {self.worst_ulps:.2f} ulp)"
        lines = [f"{name}: {len(self.mismatches)} element(s) out of tolerance (worst {self.worst_ulps:.2f} ulp):"]
        for index, got, expected, ulps in self.mismatches[:limit]:
            lines.append(f"  at {list(index)}: got {got!r}, expected {expected!r} ({ulps:.2f} ulp)")
        if len(self.mismatches) > limit:
            lines.append(f"  ... and {len(self.mismatches) - limit} more")
        return "\n".join(lines)


def compare_ulps(got: np.ndarray, expected: np.ndarray, dtype: np.dtype | type, n_ulps: float,
                 bound: np.ndarray | None = None) -> UlpReport:
    """Check ``|got − expected| ≤ n_ulps · ulp(dtype, max(|expected|, bound))`` element-wise."""
    got64 = np.asarray(got, np.float64)
    exp64 = np.broadcast_to(np.asarray(expected, np.float64), got64.shape)
    scale = np.abs(exp64) if bound is None else np.maximum(np.abs(exp64), np.abs(np.asarray(bound, np.float64)))
    unit = ulp(scale, dtype)
    with np.errstate(all="ignore"):
        error = np.abs(got64 - exp64)
        ulps = np.where(unit > 0, error / unit, np.inf)
    both_nan = np.isnan(got64) & np.isnan(exp64)
    same_inf = np.isinf(exp64) & (got64 == exp64)
    ok = both_nan | same_inf | (np.isfinite(exp64) & np.isfinite(got64) & (ulps <= n_ulps))
    finite = np.isfinite(ulps) & ~both_nan & ~same_inf
    worst = float(np.max(ulps[finite])) if finite.any() else 0.0
    bad = np.argwhere(~ok)
    mismatches = [(tuple(int(i) for i in idx), float(got64[tuple(idx)]), float(exp64[tuple(idx)]),
                   float(ulps[tuple(idx)])) for idx in bad[:64]]
    return UlpReport(bool(ok.all()), worst, mismatches)
