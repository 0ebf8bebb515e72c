"""Builders shared by tests/test_normalization.py, test_normalization2.py and tests/test_normalization_onnx.py:
descs of DML_OPERATOR_BATCH_NORMALIZATION and MEAN_VARIANCE_NORMALIZATION (0, 1, 2), and the doc pages'
formulas written out in float64 numpy with their magnitude bounds (tolerances: test_normalization.py's
docstring). Independent of dmlsim's reference.
"""

from __future__ import annotations

import math

import numpy as np

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps

F32, F16 = dml.DML_TENSOR_DATA_TYPE_FLOAT32, dml.DML_TENSOR_DATA_TYPE_FLOAT16
NUMPY = {F32: np.float32, F16: np.float16}
BN, MVN1 = dml.DML_OPERATOR_BATCH_NORMALIZATION, dml.DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1
MVN0, MVN2 = dml.DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION, dml.DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2
LP, LRN = dml.DML_OPERATOR_LP_NORMALIZATION, dml.DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION
BNT = dml.DML_OPERATOR_BATCH_NORMALIZATION_TRAINING
BNG, BNTG = dml.DML_OPERATOR_BATCH_NORMALIZATION_GRAD, dml.DML_OPERATOR_BATCH_NORMALIZATION_TRAINING_GRAD


def tensor(data_type, sizes, strides=None):
    return dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER, dml.DML_BUFFER_TENSOR_DESC(
        data_type, dml.DML_TENSOR_FLAG_NONE, len(sizes), list(sizes), None if strides is None else list(strides),
        dml.DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides), 0))


def relu():
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_RELU,
                                 dml.DML_ACTIVATION_RELU_OPERATOR_DESC(None, None))


def bn_desc(x, mean, var, scale, bias, out, epsilon=0.0, spatial=True, fused=None):
    return dml.DML_OPERATOR_DESC(BN, dml.DML_BATCH_NORMALIZATION_OPERATOR_DESC(
        x, mean, var, scale, bias, out, spatial, epsilon, fused))


def mvn_desc(x, scale, bias, out, axes, normalize_variance=True, epsilon=0.0, fused=None):
    return dml.DML_OPERATOR_DESC(MVN1, dml.DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC(
        x, scale, bias, out, len(axes), list(axes), normalize_variance, epsilon, fused))


def mvn0_desc(x, scale, bias, out, cross_channel, normalize_variance=True, epsilon=0.0, fused=None):
    return dml.DML_OPERATOR_DESC(MVN0, dml.DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC(
        x, scale, bias, out, cross_channel, normalize_variance, epsilon, fused))


def mvn2_desc(x, scale, bias, out, axes, use_mean=True, use_variance=True, epsilon=0.0, fused=None):
    return dml.DML_OPERATOR_DESC(MVN2, dml.DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC(
        x, scale, bias, out, len(axes), list(axes), use_mean, use_variance, epsilon, fused))


def lp_desc(x, out, axis, p, epsilon=0.0):
    return dml.DML_OPERATOR_DESC(LP, dml.DML_LP_NORMALIZATION_OPERATOR_DESC(x, out, axis, epsilon, p))


def lrn_desc(x, out, cross_channel, local_size, alpha, beta, bias):
    return dml.DML_OPERATOR_DESC(LRN, dml.DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC(
        x, out, cross_channel, local_size, alpha, beta, bias))


def bnt_desc(x, scale, bias, fused_add, out, mean, var, epsilon=0.0, fused=None):
    return dml.DML_OPERATOR_DESC(BNT, dml.DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC(
        x, scale, bias, fused_add, out, mean, var, epsilon, fused))


def bn_grad_desc(training, x, dy, mean, var, scale, dx, dscale, dbias, epsilon=0.0):
    op, cls = (BNTG, dml.DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC) if training else \
        (BNG, dml.DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC)
    return dml.DML_OPERATOR_DESC(op, cls(x, dy, mean, var, scale, dx, dscale, dbias, epsilon))


def bn_grad_numpy(training, x, dy, mean, var, scale, epsilon):
    """The pages' gradient formulas in float64 (sums over the axes where Mean's size is 1), each with its
    magnitude bound (the same formula on absolute values): ((dx, bound), (dscale, bound), (dbias, bound))."""
    x, dy, mean, var, scale = (np.asarray(t, np.float64) for t in (x, dy, mean, var, scale))
    axes = tuple(d for d in range(x.ndim) if mean.shape[d] == 1)
    n = math.prod(x.shape[a] for a in axes)
    with np.errstate(all="ignore"):
        r = 1.0 / np.sqrt(var + np.float64(np.float32(epsilon)))
        xc = x - mean
        db, db_bound = dy.sum(axis=axes, keepdims=True), np.abs(dy).sum(axis=axes, keepdims=True)
        c, c_bound = (dy * xc).sum(axis=axes, keepdims=True), np.abs(dy * xc).sum(axis=axes, keepdims=True)
        if training:
            dx = scale * r * ((dy - db / n) - xc * (c / n) * r * r)
            dx_bound = np.abs(scale) * r * ((np.abs(dy) + db_bound / n) + np.abs(xc) * (c_bound / n) * r * r)
        else:
            dx, dx_bound = dy * scale * r, np.abs(dy * scale) * r
    return (dx, dx_bound), (c * r, c_bound * r), (db, db_bound)


def bnt_numpy(x, scale, bias, fused_add, epsilon):
    """Batch statistics over the axes where Scale's size is 1 (biased Variance), the doc's formula plus FusedAdd,
    in float64: (Output, its bound as mvn_numpy's, Mean, Mean's bound |Mean| + mean|x - x0|, Variance)."""
    x = np.asarray(x, np.float64)
    axes = tuple(d for d in range(x.ndim) if np.shape(scale)[d] == 1)
    y, bound = mvn_numpy(x, scale, bias, axes, True, epsilon)
    if fused_add is not None:
        y, bound = y + np.asarray(fused_add, np.float64), bound + np.abs(np.asarray(fused_add, np.float64))
    mean = x.mean(axis=axes, keepdims=True)
    first = x[tuple(slice(0, 1) if a in axes else slice(None) for a in range(x.ndim))]
    mean_bound = np.abs(mean) + np.abs(x - first).mean(axis=axes, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return y, bound, mean, mean_bound, variance


def lrn_grad_desc(x, dy, dx, cross_channel, local_size, alpha, beta, bias):
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION_GRAD,
                                 dml.DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC(
                                     x, dy, dx, cross_channel, local_size, alpha, beta, bias))


def lrn_grad_numpy(x, dy, cross_channel, size, alpha, beta, bias):
    """The derivative of sum(dy * LRN(x)) by explicit loops: each element i's region R(i) adds
    dy_i * B_i^-Beta to its own gradient and -2 a Beta dy_i x_i B_i^(-Beta-1) x_k to every k in R(i); with
    the bound of the same sums on absolute values."""
    x, dy = np.asarray(x, np.float64), np.asarray(dy, np.float64)
    _, c, h, w = x.shape
    lo, hi = (size - 1) // 2, size // 2
    a, b, k = (np.float64(np.float32(t)) for t in (alpha, beta, bias))
    a = a / size
    grad, bound = np.zeros_like(x), np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        n_, ch, r, col = idx
        if cross_channel:
            region = [(n_, j, r, col) for j in range(max(0, ch - lo), min(c - 1, ch + hi) + 1)]
        else:
            region = [(n_, ch, i, j) for i in range(max(0, r - lo), min(h - 1, r + hi) + 1)
                      for j in range(max(0, col - lo), min(w - 1, col + hi) + 1)]
        base = k + a * sum(x[q] ** 2 for q in region)
        grad[idx] += dy[idx] * base ** -b
        bound[idx] += abs(dy[idx]) * base ** -b
        for q in region:
            grad[q] -= 2 * a * b * dy[idx] * x[idx] * base ** (-b - 1) * x[q]
            bound[q] += abs(2 * a * b * dy[idx] * x[idx] * base ** (-b - 1) * x[q])
    return grad, bound


def lp_numpy(x, axis, p, epsilon):
    """``x / max(norm, Epsilon)`` in float64 (norm the L1 or L2 norm along ``axis``), with its bound |result|."""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        norm = np.linalg.norm(x, ord=p, axis=axis, keepdims=True)
        y = x / np.maximum(norm, np.float64(np.float32(epsilon)))
    return y, np.abs(y)


def lrn_numpy(x, cross_channel, size, alpha, beta, bias):
    """The doc's LRN formula in float64 by explicit loops over each element's region (tests' sizes are tiny)."""
    x = np.asarray(x, np.float64)
    _, c, h, w = x.shape
    lo, hi = (size - 1) // 2, size // 2
    y = np.empty_like(x)
    with np.errstate(all="ignore"):
        for idx in np.ndindex(x.shape):
            b, ch, r, col = idx
            if cross_channel:
                region = x[b, max(0, ch - lo):min(c - 1, ch + hi) + 1, r, col]
            else:
                region = x[b, ch, max(0, r - lo):min(h - 1, r + hi) + 1, max(0, col - lo):min(w - 1, col + hi) + 1]
            base = np.float64(np.float32(bias)) + np.float64(np.float32(alpha)) / size * np.sum(region * region)
            y[idx] = x[idx] / base ** np.float64(np.float32(beta))
    return y, np.abs(y)


def bn_numpy(x, mean, var, scale, bias, epsilon):
    """The doc's formula in float64 with its magnitude bound."""
    x, mean, var, scale, bias = (np.asarray(t, np.float64) for t in (x, mean, var, scale, bias))
    with np.errstate(all="ignore"):
        root = np.sqrt(var + np.float64(np.float32(epsilon)))
        return scale * (x - mean) / root + bias, np.abs(scale) * (np.abs(x) + np.abs(mean)) / root + np.abs(bias)


def mvn_numpy(x, scale, bias, axes, normalize_variance, epsilon, use_mean=True):
    """The doc's formula in float64 (biased Variance), with the bound of the module docstring; ``use_mean``
    False (MEAN_VARIANCE_NORMALIZATION2's UseMean FALSE) takes the Mean as 0 (no spread term then: x is used
    as it is)."""
    x = np.asarray(x, np.float64)
    axes = tuple(axes)
    with np.errstate(all="ignore"):
        if use_mean:
            d = x - x.mean(axis=axes, keepdims=True)
            first = x[tuple(slice(0, 1) if a in axes else slice(None) for a in range(x.ndim))]
            spread = np.abs(x - first).mean(axis=axes, keepdims=True)
        else:
            d, spread = x, 0.0
        root = np.sqrt((d * d).mean(axis=axes, keepdims=True) + np.float64(np.float32(epsilon))) \
            if normalize_variance else 1.0
        y, bound = d / root, (np.abs(d) + spread) / root
        if scale is not None:
            y, bound = y * np.asarray(scale, np.float64), bound * np.abs(np.asarray(scale, np.float64))
        if bias is not None:
            y, bound = y + np.asarray(bias, np.float64), bound + np.abs(np.asarray(bias, np.float64))
    return y, bound


def assert_close(got, expected, bound, data_type, ulps32, name="OutputTensor"):
    dtype = NUMPY[data_type]
    report = compare_ulps(got, expected, dtype, 2 if dtype == np.float16 else ulps32, bound)
    assert report.ok, report.describe(name)
