"""References for the ai.onnx.preview.training optimizers (Adagrad, Adam, Momentum), in float64.

Each function is one step of the ONNX operator over a list of tensors: the pseudo code of the
operator's spec, transcribed line by line and applied to every tensor with the same R and T (the
spec: "the pseudo code will be applied independently to each of them"). Attributes are used exactly
as given: pass the float32 values an ONNX model (or a DMLSIM desc) holds.

T = 0 cases are the spec's, not a formula's accident: Adam skips bias correction, Momentum uses a
gradient coefficient of 1.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

Arrays = Sequence[np.ndarray]


def _f64(arrays: Arrays) -> list[np.ndarray]:
    return [np.asarray(a, dtype=np.float64) for a in arrays]


def onnx_adagrad(r: float, t: int, xs: Arrays, gs: Arrays, hs: Arrays, *, norm_coefficient: float,
                 epsilon: float, decay_factor: float) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """One ONNX Adagrad step for every (X, G, H); returns (X_new list, H_new list) in float64."""
    r, nc, eps, decay = (np.float64(v) for v in (r, norm_coefficient, epsilon, decay_factor))
    x_new, h_new = [], []
    with np.errstate(all="ignore"):
        # r = R / (1 + T * decay_factor)
        rate = r / (1.0 + np.float64(t) * decay)
        for x, g, h in zip(_f64(xs), _f64(gs), _f64(hs), strict=True):
            # G_regularized = norm_coefficient * X + G
            g_reg = nc * x + g
            # H_new = H + G_regularized * G_regularized
            h2 = h + g_reg * g_reg
            # H_adaptive = Sqrt(H_new) + epsilon
            h_adaptive = np.sqrt(h2) + eps
            # X_new = X - r * G_regularized / H_adaptive
            x_new.append(x - rate * g_reg / h_adaptive)
            h_new.append(h2)
    return x_new, h_new


def onnx_adam(r: float, t: int, xs: Arrays, gs: Arrays, vs: Arrays, hs: Arrays, *, norm_coefficient: float,
              norm_coefficient_post: float, alpha: float, beta: float, epsilon: float
              ) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """One ONNX Adam step for every (X, G, V, H); returns (X_new, V_new, H_new) lists in float64."""
    r, nc, ncp, a, b, eps = (np.float64(v) for v in (r, norm_coefficient, norm_coefficient_post, alpha, beta,
                                                     epsilon))
    x_new, v_new, h_new = [], [], []
    with np.errstate(all="ignore"):
        # R_adjusted = T > 0 ? R * Sqrt(1 - betaT) / (1 - alphaT) : R
        # (1 - b^T as -expm1(T log b): the plain form cancels for b near 1 and small T)
        rate = r * np.sqrt(_one_minus_pow(b, t)) / _one_minus_pow(a, t) if t > 0 else r
        for x, g, v, h in zip(_f64(xs), _f64(gs), _f64(vs), _f64(hs), strict=True):
            # G_regularized = norm_coefficient * X + G
            g_reg = nc * x + g
            # V_new = alpha * V + (1 - alpha) * G_regularized
            v2 = a * v + (1.0 - a) * g_reg
            # H_new = beta * H + (1 - beta) * G_regularized * G_regularized
            h2 = b * h + (1.0 - b) * g_reg * g_reg
            # H_sqrt = Sqrt(H_new) + epsilon
            h_sqrt = np.sqrt(h2) + eps
            # X_new = X - R_adjusted * V_new / H_sqrt
            x2 = x - rate * v2 / h_sqrt
            # X_final = (1 - norm_coefficient_post) * X_new
            x_new.append((1.0 - ncp) * x2)
            v_new.append(v2)
            h_new.append(h2)
    return x_new, v_new, h_new


def onnx_momentum(r: float, t: int, xs: Arrays, gs: Arrays, vs: Arrays, *, norm_coefficient: float,
                  alpha: float, beta: float, nesterov: bool) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """One ONNX Momentum step (standard or Nesterov) for every (X, G, V); returns (X_new, V_new) lists."""
    r, nc, a, b = (np.float64(v) for v in (r, norm_coefficient, alpha, beta))
    x_new, v_new = [], []
    with np.errstate(all="ignore"):
        # beta_adjusted = T > 0 ? beta : 1
        beta_adjusted = b if t > 0 else np.float64(1.0)
        for x, g, v in zip(_f64(xs), _f64(gs), _f64(vs), strict=True):
            # G_regularized = norm_coefficient * X + G
            g_reg = nc * x + g
            # V_new = alpha * V + beta_adjusted * G_regularized
            v2 = a * v + beta_adjusted * g_reg
            if nesterov:
                # X_new = X - R * (G_regularized + alpha * V_new)
                x_new.append(x - r * (g_reg + a * v2))
            else:
                # X_new = X - R * V_new
                x_new.append(x - r * v2)
            v_new.append(v2)
    return x_new, v_new


def _one_minus_pow(base: np.float64, t: int) -> np.float64:
    """1 - base**t for an integer t > 0, without the cancellation of the direct form."""
    if base == 0.0:
        return np.float64(1.0)
    if base > 0.0:
        return -np.expm1(np.float64(t) * np.log(base))
    power = np.exp(np.float64(t) * np.log(-base))
    return 1.0 + power if t % 2 else 1.0 - power
