"""Independent float64 oracles for the kernels, written from the specs in this file alone.

Nothing here imports dmlsim: these are second transcriptions of the published formulas (DirectML's
DML_ADAM_OPTIMIZER_OPERATOR_DESC, ONNX ai.onnx.preview.training Adagrad/Adam/Momentum, DeepRec's
AdagradDecay), so a test that uses them does not share a bug with dmlsim's own reference code or its
reference device. Each returns ``(values, bounds)`` per output: the float64 result and its magnitude
bound (the same formula on absolute values: every term adds with one sign), the size of the largest
quantity whose float32 rounding errors can reach the result.
"""

from __future__ import annotations

import numpy as np


def f32(value: float) -> float:
    """An attribute as the desc stores it (FLOAT)."""
    return float(np.float32(value))


def _f64(*arrays: np.ndarray) -> list[np.ndarray]:
    return [np.asarray(a, np.float64) for a in arrays]


def dml_adam(x, m, v, g, t, *, lr, beta1, beta2, eps):
    """DirectML Adam: M = β1 M + (1−β1) G; V = β2 V + (1−β2) G²; α = sqrt(1−β2^T)/(1−β1^T);
    X −= LR α M / (sqrt(V) + ε). Returns {"X": (value, bound), "M": ..., "V": ...}."""
    x, m, v, g = _f64(x, m, v, g)
    lr, b1, b2, eps = f32(lr), f32(beta1), f32(beta2), f32(eps)
    m2, m2b = b1 * m + (1 - b1) * g, b1 * np.abs(m) + (1 - b1) * np.abs(g)
    v2, v2b = b2 * v + (1 - b2) * g * g, b2 * np.abs(v) + (1 - b2) * g * g
    alpha = np.sqrt(-np.expm1(t * np.log(b2))) / -np.expm1(t * np.log(b1))
    denominator = np.sqrt(v2) + eps
    x2 = x - lr * alpha * m2 / denominator
    x2b = np.abs(x) + lr * alpha * m2b / denominator
    return {"X": (x2, x2b), "M": (m2, m2b), "V": (v2, v2b)}


def onnx_rate_adam(r, t, alpha, beta):
    """R_adjusted = T > 0 ? R sqrt(1 − β^T) / (1 − α^T) : R."""
    if t <= 0:
        return r
    return r * np.sqrt(1 - np.float64(beta) ** t) / (1 - np.float64(alpha) ** t)


def onnx_adam(r, t, x, g, v, h, *, nc, ncp, alpha, beta, eps):
    """ONNX Adam on one tensor: returns {"X": ..., "V": ..., "H": ...} as (value, bound)."""
    x, g, v, h = _f64(x, g, v, h)
    nc, ncp, a, b, eps = f32(nc), f32(ncp), f32(alpha), f32(beta), f32(eps)
    gr, grb = nc * x + g, np.abs(nc * x) + np.abs(g)
    v2, v2b = a * v + (1 - a) * gr, a * np.abs(v) + (1 - a) * grb
    h2, h2b = b * h + (1 - b) * gr * gr, b * np.abs(h) + (1 - b) * grb * grb
    rate = onnx_rate_adam(np.float64(r), t, a, b)
    denominator = np.sqrt(h2) + eps
    x2 = (1 - ncp) * (x - rate * v2 / denominator)
    x2b = (1 - ncp) * (np.abs(x) + abs(rate) * v2b / denominator)
    return {"X": (x2, x2b), "V": (v2, v2b), "H": (h2, h2b)}


def onnx_momentum(r, t, x, g, v, *, nc, alpha, beta, nesterov):
    """ONNX Momentum (standard or Nesterov) on one tensor: {"X": ..., "V": ...} as (value, bound)."""
    x, g, v = _f64(x, g, v)
    nc, a, b = f32(nc), f32(alpha), f32(beta)
    b_adj = b if t > 0 else 1.0
    gr, grb = nc * x + g, np.abs(nc * x) + np.abs(g)
    v2, v2b = a * v + b_adj * gr, abs(a) * np.abs(v) + abs(b_adj) * grb
    r = np.float64(r)
    if nesterov:
        x2, x2b = x - r * (gr + a * v2), np.abs(x) + abs(r) * (grb + abs(a) * v2b)
    else:
        x2, x2b = x - r * v2, np.abs(x) + abs(r) * v2b
    return {"X": (x2, x2b), "V": (v2, v2b)}


def onnx_adagrad(r, t, x, g, h, *, nc, eps, decay):
    """ONNX Adagrad on one tensor: {"X": ..., "H": ...} as (value, bound)."""
    x, g, h = _f64(x, g, h)
    nc, eps, decay = f32(nc), f32(eps), f32(decay)
    rate = np.float64(r) / (1 + t * decay)
    gr, grb = nc * x + g, np.abs(nc * x) + np.abs(g)
    h2, h2b = h + gr * gr, np.abs(h) + grb * grb
    denominator = np.sqrt(h2) + eps
    return {"X": (x - rate * gr / denominator, np.abs(x) + abs(rate) * grb / denominator), "H": (h2, h2b)}


def adagrad_decay_dense(x, acc, power, g, step, *, lr, decay_step, rate, baseline):
    """DeepRec ApplyAdagradDecay: if step / decay_step > P (integer division): P += 1,
    acc = max(acc · rate, baseline); acc += g²; x −= lr g / sqrt(acc). Returns {"X", "A"} as
    (value, bound) and the new P."""
    x, acc, g = _f64(x, acc, g)
    lr, rate, baseline = f32(lr), f32(rate), f32(baseline)
    if step // decay_step > power:
        power += 1
        acc = np.maximum(acc * rate, baseline)
    acc = acc + g * g
    update = lr * g / np.sqrt(acc)
    return {"X": (x - update, np.abs(x) + np.abs(update)), "A": (acc, acc)}, power


def assert_close(got, expected, bound, dtype, ulps, what=""):
    """|got − expected| ≤ ulps · eps(dtype) · bound element-wise (eps: the type's machine epsilon,
    one ulp at 1.0, so this is ``ulps`` ulps of the bound within a factor of 2); NaN never passes."""
    got = np.asarray(got, np.float64)
    expected, bound = np.broadcast_to(expected, got.shape), np.broadcast_to(bound, got.shape)
    info = np.finfo(dtype)
    tolerance = ulps * float(info.eps) * np.abs(bound) + float(info.smallest_subnormal)
    error = np.abs(got - expected)
    bad = ~(error <= tolerance)
    if bad.any():
        first = np.argwhere(bad)[:5]
        shown = "; ".join(f"at {tuple(int(i) for i in idx)}: got {got[tuple(idx)]!r}, expected "
                          f"{expected[tuple(idx)]!r}" for idx in first)
        raise AssertionError(f"{what}: {int(bad.sum())} of {got.size} element(s) beyond {ulps} ulp(s) of the "
                             f"bound: {shown}")
