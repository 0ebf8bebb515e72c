"""The coefficients of dmlsim's float32 erf and erfc (dmlsim/cl_kernels/dmlsim.h: dml_erf, dml_erfc), and their
accuracy, from float64 fits to Python's math.erf/erfc (not part of any build: run it to check or refit).

erfc(z), z >= 0: t * exp(-z^2 + g(t)), t = 1 / (1 + z/2), g a degree-9 polynomial in t least-squares fitted (at
Chebyshev nodes) to ln(erfc(z) / t) + z^2 on z in [0, 10] (t in [1/6, 1]); erf(x) = x * P(x^2) below |x| = 1, P of
degree 6 fitted to erf(x) / x. Then the kernel's arithmetic is emulated in float32 (numpy: every operation rounded
to float32, exp as the kernel's dml_exp) over dense grids, and the worst error printed in ulps of the exact value.

Usage: python tools/fit_erf.py
"""

from __future__ import annotations

import math

import numpy as np

F32 = np.float32
ERFC_DEGREE, ERF_DEGREE = 9, 6
FLUSH = 9.1953125  # erfc(z) < FLT_MIN from here on: the kernel gives 0


def fit(nodes: np.ndarray, values: np.ndarray, degree: int, domain: list[float]) -> np.ndarray:
    """Monomial coefficients (lowest first) of the least-squares Chebyshev fit."""
    series = np.polynomial.chebyshev.Chebyshev.fit(nodes, values, degree, domain=domain)
    return series.convert(kind=np.polynomial.Polynomial, domain=[-1, 1], window=[-1, 1]).coef


def chebyshev_nodes(low: float, high: float, count: int) -> np.ndarray:
    k = np.arange(count)
    return 0.5 * (low + high) + 0.5 * (high - low) * np.cos(np.pi * (k + 0.5) / count)


def erfc_coefficients() -> np.ndarray:
    t = chebyshev_nodes(1 / 6, 1.0, 4000)
    z = 2.0 * (1.0 / t - 1.0)
    g = np.array([math.log(math.erfc(a)) + a * a - math.log(b) for a, b in zip(z, t, strict=True)])
    return fit(t, g, ERFC_DEGREE, [1 / 6, 1.0])


def erf_coefficients() -> np.ndarray:
    u = chebyshev_nodes(0.0, 1.0, 2000)
    h = np.array([math.erf(math.sqrt(a)) / math.sqrt(a) for a in u])
    return fit(u, h, ERF_DEGREE, [0.0, 1.0])


def horner(coefficients: np.ndarray, x: np.ndarray) -> np.ndarray:
    acc = np.full_like(x, F32(coefficients[-1]))
    for c in coefficients[-2::-1]:
        acc = (acc * x + F32(c)).astype(F32)
    return acc


def dml_exp(x: np.ndarray) -> np.ndarray:
    """The kernel's dml_exp in float32 (dmlsim/cl_kernels/dmlsim.h), every operation rounded to float32."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        c = np.clip(x.astype(F32), F32(-104), F32(89))
        n = ((c * F32(1.44269502162933349609375)).astype(F32) + F32(12582912)).astype(F32) - F32(12582912)
        r = ((c - (n * F32(0.693145751953125)).astype(F32)).astype(F32)
             - (n * F32(1.428606765330187045e-06)).astype(F32)).astype(F32)
        p = horner(np.array([1, 1, 1 / 2, 1 / 6, 1 / 24, 1 / 120, 1 / 720, 1 / 5040]), r)
        k = n.astype(np.int32)
        k1 = k >> 1
        k2 = k - k1
        scale1 = ((k1 + 127).astype(np.uint32) << np.uint32(23)).view(F32)
        scale2 = ((k2 + 127).astype(np.uint32) << np.uint32(23)).view(F32)
        e = ((p * scale1).astype(F32) * scale2).astype(F32)
    return np.where(np.isnan(x), x, e).astype(F32)


def erfc_nonneg(z0: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The kernel's dml_erfc_nonneg in float32."""
    z = np.minimum(z0.astype(F32), F32(FLUSH))
    t = (F32(1) / (F32(1) + F32(0.5) * z)).astype(F32)
    g = horner(c, t)
    hi = (z.view(np.uint32) & np.uint32(0xFFFFF000)).view(F32)
    lo = (z - hi).astype(F32)
    r = ((t * dml_exp((-hi * hi).astype(F32))).astype(F32) * dml_exp((g - lo * (z + hi)).astype(F32))).astype(F32)
    return np.where(z0 < F32(FLUSH), r, F32(0))


def erf(x: np.ndarray, c: np.ndarray, e: np.ndarray) -> np.ndarray:
    """The kernel's dml_erf in float32."""
    ax = np.abs(x).astype(F32)
    small = (ax * horner(e, (ax * ax).astype(F32))).astype(F32)
    large = (F32(1) - erfc_nonneg(ax, c)).astype(F32)
    return np.copysign(np.where(ax < 1, small, large), x).astype(F32)


def worst_ulps(got: np.ndarray, exact: list[float]) -> float:
    exact64 = np.asarray(exact, np.float64)
    unit = np.spacing(np.abs(exact64).astype(F32)).astype(np.float64)
    return float(np.max(np.abs(got.astype(np.float64) - exact64) / unit))


def main() -> None:
    c, e = erfc_coefficients(), erf_coefficients()
    print("erfc g(t), lowest first:", ", ".join(f"{float(F32(v))!r}f" for v in c))
    print("erf P(u), lowest first: ", ", ".join(f"{float(F32(v))!r}f" for v in e))
    z = np.linspace(0, FLUSH, 400001).astype(F32)
    exact = [math.erfc(float(v)) for v in z]
    normal = np.asarray(exact) >= np.finfo(F32).tiny
    worst = worst_ulps(erfc_nonneg(z, c)[normal], list(np.asarray(exact)[normal]))
    print(f"erfc on [0, {FLUSH}), where it is a normal float32: worst {worst:.2f} ulps")
    grid = np.concatenate([np.linspace(-104.5, 88.72, 2000001), np.linspace(-1, 1, 200001)]).astype(F32)
    print(f"exp on [-104.5, 88.72]: worst {worst_ulps(dml_exp(grid), [math.exp(float(v)) for v in grid]):.2f} ulps "
          "(a subnormal's ulp the smallest)")
    edges = dml_exp(np.array([np.inf, -np.inf, np.nan, 88.73, -104.5, 0], F32))
    print("exp of inf, -inf, NaN, 88.73, -104.5, 0:", edges)
    x = np.concatenate([np.linspace(-6, 6, 400001), np.geomspace(1e-30, 1, 20001)]).astype(F32)
    print(f"erf on [-6, 6] and tiny |x|: worst {worst_ulps(erf(x, c, e), [math.erf(float(v)) for v in x]):.2f} ulps")


if __name__ == "__main__":
    main()
