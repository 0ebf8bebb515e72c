"""Reference for DML_OPERATOR_ADAM_OPTIMIZER: the documented formula, transcribed in float64."""

from __future__ import annotations

import numpy as np


def adam_optimizer(x: np.ndarray, m: np.ndarray, v: np.ndarray, g: np.ndarray, t: int, *,
                   learning_rate: float, beta1: float, beta2: float, epsilon: float
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One Adam step as DML_ADAM_OPTIMIZER_OPERATOR_DESC documents it; returns (X, M, V) in float64.

    Hyperparameters are used exactly as given (pass the float32 values a desc holds). T = 0 gives
    what the formula gives: Alpha = 0/0, so X becomes NaN.
    """
    x, m, v, g = (np.asarray(a, dtype=np.float64) for a in (x, m, v, g))
    lr, b1, b2, eps = (np.float64(h) for h in (learning_rate, beta1, beta2, epsilon))
    with np.errstate(all="ignore"):
        # M = Beta1 * M + (1.0 - Beta1) * G
        m = b1 * m + (1.0 - b1) * g
        # V = Beta2 * V + (1.0 - Beta2) * G * G
        v = b2 * v + (1.0 - b2) * g * g
        # Alpha = sqrt(1.0 - pow(Beta2, T)) / (1.0 - pow(Beta1, T))
        alpha = np.sqrt(1.0 - b2 ** np.float64(t)) / (1.0 - b1 ** np.float64(t))
        # X -= LearningRate * Alpha * M / (sqrt(V) + Epsilon)
        x = x - lr * alpha * m / (np.sqrt(v) + eps)
    return x, m, v
