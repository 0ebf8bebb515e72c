"""Float64 references of the normalization family: the doc pages' formulas, one pure numpy function each.

Every tensor arrives with its own sizes (numpy broadcasting stands for DirectML's size-1 broadcast).
"""

from __future__ import annotations

import math
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


def lp_normalization(x: np.ndarray, axis: int, p: int, epsilon: float) -> np.ndarray:
    """DML_LP_NORMALIZATION: ``Input / max(norm, Epsilon)`` with ``norm = (sum |Input|^P)^(1/P)`` along ``axis``
    (P 1 or 2); the maximum propagates NaN (np.maximum)."""
    f = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        a = np.abs(f)
        norm = a.sum(axis=axis, keepdims=True) if p == 1 else np.sqrt((a * a).sum(axis=axis, keepdims=True))
        return f / np.maximum(norm, np.float64(np.float32(epsilon)))


def region_sum(values: np.ndarray, dims: Sequence[int], before: int, after: int) -> np.ndarray:
    """For each element i, the sum of ``values`` over ``[i - before, i + after]`` (clipped) along each of
    ``dims``, by adding shifted copies (a cumulative sum would cancel)."""
    for d in dims:
        n = values.shape[d]
        total = np.zeros_like(values)
        for shift in range(-min(before, n - 1), min(after, n - 1) + 1):
            src = [slice(None)] * values.ndim
            dst = [slice(None)] * values.ndim
            src[d] = slice(max(0, shift), n + min(0, shift))
            dst[d] = slice(max(0, -shift), n - max(0, shift))
            total[tuple(dst)] += values[tuple(src)]
        values = total
    return values


def local_response_normalization(x: np.ndarray, cross_channel: bool, local_size: int, alpha: float, beta: float,
                                 bias: float) -> np.ndarray:
    """DML_LOCAL_RESPONSE_NORMALIZATION of a 4-D ``{N, C, H, W}`` input:
    ``Input / (Bias + (Alpha / LocalSize) * sum(Input^2 over the local region))^Beta``; the region along a
    dimension of size D around index i is ``[max(0, i - floor((LocalSize - 1) / 2)), min(D - 1, i +
    ceil((LocalSize - 1) / 2))]``, over C with ``cross_channel``, else over H and W."""
    f = np.asarray(x, np.float64)
    dims = (1,) if cross_channel else (2, 3)
    with np.errstate(all="ignore"):
        squares = region_sum(f * f, dims, (local_size - 1) // 2, local_size // 2)
        base = np.float64(np.float32(bias)) + np.float64(np.float32(alpha)) / local_size * squares
        return f / np.power(base, np.float64(np.float32(beta)))


def local_response_normalization_grad(x: np.ndarray, dy: np.ndarray, cross_channel: bool, local_size: int,
                                      alpha: float, beta: float, bias: float) -> np.ndarray:
    """DML_LOCAL_RESPONSE_NORMALIZATION_GRAD: the derivative of ``sum(dy * LRN(x))`` with respect to x:
    ``dy_k * B_k^-Beta - 2 * Alpha / LocalSize * Beta * x_k * sum(dy_i * x_i * B_i^(-Beta - 1))`` over the i whose
    region holds k (``B = Bias + Alpha / LocalSize * S``, S the forward's region sums of squares)."""
    f, g = np.asarray(x, np.float64), np.asarray(dy, np.float64)
    dims = (1,) if cross_channel else (2, 3)
    before, after = (local_size - 1) // 2, local_size // 2
    a, b, k = (np.float64(np.float32(t)) for t in (alpha, beta, bias))
    a = a / local_size
    with np.errstate(all="ignore"):
        base = k + a * region_sum(f * f, dims, before, after)
        term = g * f * np.power(base, -b - 1)
        return g * np.power(base, -b) - 2 * a * b * f * region_sum(term, dims, after, before)


def batch_normalization_training(x: np.ndarray, scale: np.ndarray, bias: np.ndarray, fused_add: np.ndarray | None,
                                 epsilon: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """DML_BATCH_NORMALIZATION_TRAINING: Mean and (biased) Variance over the dimensions where Scale's size is 1,
    ``Scale * ((Input - Mean) / sqrt(Variance + Epsilon)) + Bias + FusedAdd``; returns (Output, Mean,
    Variance), the statistics of Scale's sizes (before the fused activation, which the caller applies)."""
    f = np.asarray(x, np.float64)
    s = np.asarray(scale, np.float64)
    axes = tuple(d for d in range(f.ndim) if s.shape[d] == 1)
    with np.errstate(all="ignore"):
        mean = np.mean(f, axis=axes, keepdims=True)
        d = f - mean
        variance = np.mean(d * d, axis=axes, keepdims=True)
        out = s * (d / np.sqrt(variance + np.float64(np.float32(epsilon)))) + np.asarray(bias, np.float64)
        if fused_add is not None:
            out = out + np.asarray(fused_add, np.float64)
    return out, np.broadcast_to(mean, s.shape), np.broadcast_to(variance, s.shape)


def batch_normalization_grad(x: np.ndarray, dy: np.ndarray, mean: np.ndarray, variance: np.ndarray,
                             scale: np.ndarray, epsilon: float, training: bool) -> tuple[np.ndarray, ...]:
    """DML_BATCH_NORMALIZATION_GRAD (``training`` False) and BATCH_NORMALIZATION_TRAINING_GRAD: sums over the
    dimensions where Mean's size is 1. Returns (OutputGradient, OutputScaleGradient, OutputBiasGradient):
    ``dy * Scale / sqrt(Variance + Epsilon)``, or for training ``Scale / sqrt(Variance + Epsilon) * ((dy -
    mean(dy)) - (x - Mean) * mean(dy * (x - Mean)) / (Variance + Epsilon))``; ``sum(dy * (x - Mean)) /
    sqrt(Variance + Epsilon)``; ``sum(dy)``."""
    f, g, m, v, s = (np.asarray(t, np.float64) for t in (x, dy, mean, variance, scale))
    axes = tuple(d for d in range(f.ndim) if m.shape[d] == 1)
    with np.errstate(all="ignore"):
        r = 1.0 / np.sqrt(v + np.float64(np.float32(epsilon)))
        xc = f - m
        sum_dy = g.sum(axis=axes, keepdims=True)
        sum_dy_xc = (g * xc).sum(axis=axes, keepdims=True)
        if training:
            n = math.prod(f.shape[a] for a in axes)
            dx = s * r * ((g - sum_dy / n) - xc * (sum_dy_xc / n) * r * r)
        else:
            dx = g * (s * r)
        return dx, np.broadcast_to(sum_dy_xc * r, m.shape), np.broadcast_to(sum_dy, m.shape)
