"""onnxruntime's CPU provider as the independent peer of a whole model, and how two outputs are compared.

A float output passes when every element is within ``ulps`` units in the last place of the output's largest
magnitude (``|got − expected| ≤ ulps · ulp(max |expected|)``): a model's outputs are sums of many terms taken in
another order by onnxruntime's MLAS kernels than by dmlsim's, so their error scales with the terms summed, not with
each (possibly tiny) result. NaN matches NaN, an infinity only the same infinity; integers and bools compare
exactly. A mismatch is described at its first differing element (row-major order) with the distance there in ulps
of the element's own type (how many representable values lie between the two).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.api.numerics import ulp


@dataclass(frozen=True)
class Comparison:
    """One output compared: whether it passed and a line saying how it compares."""

    name: str
    ok: bool
    message: str


def onnxruntime_outputs(model: Any, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    """The model's outputs computed by onnxruntime's CPU execution provider (graph optimizations at their
    default level, as a user running the model would get)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return [np.asarray(v) for v in session.run(None, feeds)]


def ulp_distance(a: float, b: float, dtype: np.dtype) -> int:
    """How many representable values of the float type ``dtype`` lie from ``a`` to ``b`` (0 when equal, -0 and
    +0 being equal)."""
    dtype = np.dtype(dtype)
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[dtype.itemsize]

    def ordinal(x: float) -> int:
        i = int(np.array(x, dtype).view(bits))
        return i if i >= 0 else int(np.iinfo(bits).min) - i

    return abs(ordinal(a) - ordinal(b))


def compare(name: str, got: np.ndarray, expected: np.ndarray, ulps: float) -> Comparison:
    """``got`` (dmlsim's) against ``expected`` (the peer's) under the module's rule."""
    got, expected = np.asarray(got), np.asarray(expected)
    label = f"output {name!r} {list(expected.shape)} {expected.dtype}"
    if got.shape != expected.shape or got.dtype != expected.dtype:
        return Comparison(name, False, f"{label}: dmlsim gave {list(got.shape)} {got.dtype}")
    if got.size == 0:
        return Comparison(name, True, f"{label}: empty, equal")
    if np.issubdtype(expected.dtype, np.floating):
        finite = expected[np.isfinite(expected)]
        bound = float(np.max(np.abs(finite.astype(np.float64)))) if finite.size else 0.0
        unit = float(ulp(np.asarray(bound), expected.dtype))
        g64, e64 = got.astype(np.float64), expected.astype(np.float64)
        with np.errstate(all="ignore"):
            error = np.abs(g64 - e64)
        same_special = (np.isnan(g64) & np.isnan(e64)) | (np.isinf(e64) & (g64 == e64))
        ok = same_special | (np.isfinite(g64) & np.isfinite(e64) & (error <= ulps * unit))
        differs = ~same_special & (g64 != e64)
        worst = float(np.max(np.where(same_special, 0.0, error))) / unit if unit else 0.0
        summary = f"worst {worst:.1f} ulp of max |value| {bound:.6g} (tolerance {ulps:g})"
    else:
        differs = got != expected
        ok = ~differs
        summary = "exact"
    if not differs.any():
        return Comparison(name, True, f"{label}: identical")
    index = tuple(int(i) for i in np.argwhere(differs)[0])
    g, e = got[index], expected[index]
    where = f"first differing element at {list(index)}: dmlsim {g!s}, onnxruntime {e!s}"
    if np.issubdtype(expected.dtype, np.floating):
        where += f" ({ulp_distance(float(g), float(e), expected.dtype)} ulp apart)"
    passed = bool(ok.all())
    bad = int((~ok).sum())
    verdict = "within tolerance" if passed else f"{bad} of {got.size} elements out of tolerance"
    return Comparison(name, passed, f"{label}: {verdict}; {where}; {summary}")
