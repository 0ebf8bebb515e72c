"""Float64 references of the normalization family: the doc pages' formulas, one pure numpy function each.

Every tensor arrives with its own sizes (numpy broadcasting stands for DirectML's size-1 broadcast).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def batch_normalization(x: np.ndarray, mean: np.ndarray, variance: np.ndarray, scale: np.ndarray,
                        bias: np.ndarray, epsilon: float) -> np.ndarray:
    """DML_BATCH_NORMALIZATION: ``Scale * ((Input - Mean) / sqrt(Variance + Epsilon)) + Bias``."""
    f = [np.asarray(t, np.float64) for t in (x, mean, variance, scale, bias)]
    with np.errstate(all="ignore"):
        return f[3] * ((f[0] - f[1]) / np.sqrt(f[2] + np.float64(np.float32(epsilon)))) + f[4]


def mean_variance_normalization(x: np.ndarray, scale: np.ndarray | None, bias: np.ndarray | None,
                                axes: Sequence[int], normalize_variance: bool, epsilon: float,
                                use_mean: bool = True) -> np.ndarray:
    """DML_MEAN_VARIANCE_NORMALIZATION, 1 and 2: Mean and Variance (the biased one: the mean of the squared
    deviations) over ``axes``; ``Scale * ((Input - Mean) / sqrt(Variance + Epsilon)) + Bias``, without the
    division when ``normalize_variance`` (MVN2's UseVariance) is false, with Mean 0 when ``use_mean`` (MVN2's
    UseMean) is false (then Variance is the mean of the squares: RMS normalization); a missing Scale is 1, a
    missing Bias 0."""
    f = np.asarray(x, np.float64)
    axes = tuple(int(a) for a in axes)
    with np.errstate(all="ignore"):
        deviation = f - np.mean(f, axis=axes, keepdims=True) if use_mean else f
        if normalize_variance:
            variance = np.mean(deviation * deviation, axis=axes, keepdims=True)
            deviation = deviation / np.sqrt(variance + np.float64(np.float32(epsilon)))
        if scale is not None:
            deviation = np.asarray(scale, np.float64) * deviation
        if bias is not None:
            deviation = deviation + np.asarray(bias, np.float64)
    return deviation
