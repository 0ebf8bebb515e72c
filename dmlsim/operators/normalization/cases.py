"""BATCH_NORMALIZATION, MEAN_VARIANCE_NORMALIZATION (0, 1, 2), LP_NORMALIZATION and LOCAL_RESPONSE_NORMALIZATION
cases for the differential harness (dmlsim/operators/harness.py). LP and LRN: see _lp and _lrn below (their
results are x times a positive factor made of sums of non-negative terms, so no bound is needed: the tolerance
is in ulps of |Output|).

Draws ranks 1-8, FLOAT32/FLOAT16, each parameter tensor's sizes 1 (broadcast) or the input's along each dimension,
random layouts (broadcast inputs too), Spatial both ways, any non-empty set of MVN1/MVN2 axes (MVN: 4-D, CrossChannel
both ways), MVN2's UseMean both ways, Scale and Bias each present or absent, NormalizeVariance both ways, Epsilon 0,
small, 1, a fused activation in about a third of the cases; half the cases take finite inputs (so the numerics are
judged, not only the NaN paths), the others the adversarial values, Variance drawn non-negative in most
BATCH_NORMALIZATION cases.

Tolerances (as tests/test_normalization.py's docstring derives them): BATCH_NORMALIZATION 6 ulps of ``|Scale| * (|x| +
|Mean|) / sqrt(Variance + Epsilon) + |Bias|``; MEAN_VARIANCE_NORMALIZATION (0, 1, 2) over groups of n elements n + 4
ulps of ``|Scale| * (|x - Mean| + mean|x - x0|) / sqrt(Variance + Epsilon) + |Bias|`` (x0 the group's first element;
with UseMean FALSE Mean is 0 and the term mean|x - x0| drops out); FLOAT16 1 ulp (BATCH_NORMALIZATION) or 2 ulps
(MVN1) of the half type. A fused activation (slopes up to 9 among those drawn, as gemm/cases.py) multiplies the bound
by 9 and adds 4 ulps (1 in FLOAT16).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import Case, draw_fused_activation, draw_sizes, draw_tensor, draw_valid, finite, uniform
from dmlsim.operators.normalization.reference import region_sum

F32, F16 = 1, 2
EPSILONS = (0.0, 1e-5, 1e-3, 1.0)


def draw(op: Operator, rng: np.random.Generator) -> Case:
    if op.type == DML_OPERATOR_TYPE.DML_OPERATOR_LP_NORMALIZATION:
        return draw_valid(op, rng, lambda r: _lp(op, r))
    if op.type in (DML_OPERATOR_TYPE.DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION,
                   DML_OPERATOR_TYPE.DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION_GRAD):
        return draw_valid(op, rng, lambda r: _lrn(op, r))
    if op.type == DML_OPERATOR_TYPE.DML_OPERATOR_BATCH_NORMALIZATION_TRAINING:
        return draw_valid(op, rng, lambda r: _bn_training(op, r))
    if op.type in (DML_OPERATOR_TYPE.DML_OPERATOR_BATCH_NORMALIZATION_GRAD,
                   DML_OPERATOR_TYPE.DML_OPERATOR_BATCH_NORMALIZATION_TRAINING_GRAD):
        return draw_valid(op, rng, lambda r: _bn_grad(op, r))
    batch = op.type == DML_OPERATOR_TYPE.DML_OPERATOR_BATCH_NORMALIZATION
    mvn0 = op.type == DML_OPERATOR_TYPE.DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION
    mvn2 = op.type == DML_OPERATOR_TYPE.DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2

    def attempt(r: np.random.Generator) -> Case:
        rank = 4 if mvn0 else int(r.choice([1, 2, 3, 4, 5, 8]))
        sizes = draw_sizes(r, rank, 96)
        dtype = int(r.choice([F32, F16]))

        def param_sizes() -> list[int]:
            return [s if r.random() < 0.5 else 1 for s in sizes]

        epsilon = float(r.choice(EPSILONS))
        fused = draw_fused_activation(r) if r.random() < 0.3 else None
        slope = 9.0 if fused is not None else 1.0
        fills: dict[str, Any] = {}
        if r.random() < 0.5:
            fills["InputTensor"] = finite(2.0)
        x = draw_tensor(r, dtype, sizes)
        y = draw_tensor(r, dtype, sizes, role="output")
        if batch:
            fields = {name: draw_tensor(r, dtype, param_sizes())
                      for name in ("MeanTensor", "VarianceTensor", "ScaleTensor", "BiasTensor")}
            if r.random() < 0.8:
                fills["VarianceTensor"] = uniform(0.0, 4.0)
            desc = op.desc_cls(InputTensor=x, OutputTensor=y, Spatial=bool(r.integers(2)), Epsilon=epsilon,
                               FusedActivation=fused, **fields)

            def bound(values: dict[str, Any]) -> dict[str, Any]:
                f = {k: np.asarray(v, np.float64) for k, v in values.items()}
                with np.errstate(all="ignore"):
                    root = np.sqrt(f["VarianceTensor"] + np.float64(np.float32(epsilon)))
                    b = (np.abs(f["ScaleTensor"]) * (np.abs(f["InputTensor"]) + np.abs(f["MeanTensor"])) / root
                         + np.abs(f["BiasTensor"]))
                return {"OutputTensor": b * slope}

            return Case(desc, fills=fills, ulps=6 + (4 if fused else 0), ulps16=1 + (1 if fused else 0),
                        bound=bound, note=f"{rank}-D eps {epsilon}")

        scale = draw_tensor(r, dtype, param_sizes()) if r.random() < 0.6 else None
        bias = draw_tensor(r, dtype, param_sizes()) if r.random() < 0.6 else None
        normalize = bool(r.random() < 0.8)
        use_mean = True
        common = {"InputTensor": x, "ScaleTensor": scale, "BiasTensor": bias, "OutputTensor": y,
                  "Epsilon": epsilon, "FusedActivation": fused}
        if mvn0:
            cross = bool(r.integers(2))
            axes = [1, 2, 3] if cross else [2, 3]
            desc = op.desc_cls(CrossChannel=cross, NormalizeVariance=normalize, **common)
        else:
            count = int(r.integers(1, rank + 1))
            axes = sorted(int(a) for a in r.choice(rank, count, replace=False))
            if mvn2:
                use_mean = bool(r.random() < 0.5)
                desc = op.desc_cls(AxisCount=count, Axes=axes, UseMean=use_mean, UseVariance=normalize, **common)
            else:
                desc = op.desc_cls(AxisCount=count, Axes=axes, NormalizeVariance=normalize, **common)
        n = math.prod(sizes[a] for a in axes)

        def mvn_bound(values: dict[str, Any]) -> dict[str, Any]:
            f = np.asarray(values["InputTensor"], np.float64)
            with np.errstate(all="ignore"):
                if use_mean:
                    d = f - f.mean(axis=tuple(axes), keepdims=True)
                    first = f[tuple(slice(0, 1) if a in axes else slice(None) for a in range(f.ndim))]
                    b = np.abs(d) + np.abs(f - first).mean(axis=tuple(axes), keepdims=True)
                else:
                    d = f
                    b = np.abs(d)
                if normalize:
                    b = b / np.sqrt((d * d).mean(axis=tuple(axes), keepdims=True) + np.float64(np.float32(epsilon)))
                if values.get("ScaleTensor") is not None:
                    b = b * np.abs(np.asarray(values["ScaleTensor"], np.float64))
                if values.get("BiasTensor") is not None:
                    b = b + np.abs(np.asarray(values["BiasTensor"], np.float64))
            return {"OutputTensor": b * slope}

        return Case(desc, fills=fills, ulps=n + 4 + (4 if fused else 0), ulps16=2 + (1 if fused else 0),
                    bound=mvn_bound,
                    note=f"{rank}-D axes {axes} n={n} eps {epsilon} normalize {normalize} mean {use_mean}")

    return draw_valid(op, rng, attempt)


def _lp(op: Operator, r: np.random.Generator) -> Case:
    """LP_NORMALIZATION: ranks 1-8, any axis, P 1 or 2, Epsilon 0 / 1e-5 / 1; n + 4 ulps (n the axis's size)."""
    rank = int(r.choice([1, 2, 3, 4, 5, 8]))
    sizes = draw_sizes(r, rank, 96)
    dtype = int(r.choice([F32, F16]))
    axis = int(r.integers(rank))
    p = int(r.choice([1, 2]))
    epsilon = float(r.choice((0.0, 1e-5, 1.0)))
    fills: dict[str, Any] = {"InputTensor": finite(2.0)} if r.random() < 0.5 else {}
    desc = op.desc_cls(InputTensor=draw_tensor(r, dtype, sizes), OutputTensor=draw_tensor(r, dtype, sizes,
                                                                                          role="output"),
                       Axis=axis, Epsilon=epsilon, P=p)
    return Case(desc, fills=fills, ulps=sizes[axis] + 4, ulps16=2,
                note=f"{rank}-D axis {axis} P {p} eps {epsilon}")


def _lrn(op: Operator, r: np.random.Generator) -> Case:
    """LOCAL_RESPONSE_NORMALIZATION: 4-D, CrossChannel both ways, LocalSize 1 to 7 (beyond the dimension too),
    Alpha > 0, Beta in (0, 1], Bias >= 0.5; Beta * (n + 2) + 20 ulps of |Output| (n the region's size; pow's 16
    ulps among them)."""
    sizes = draw_sizes(r, 4, 96)
    dtype = int(r.choice([F32, F16]))
    cross = bool(r.integers(2))
    size = int(r.integers(1, 8))
    alpha, beta, bias = float(r.choice((1e-4, 0.1, 1.0))), float(r.choice((0.5, 0.75, 1.0))), \
        float(r.choice((0.5, 1.0, 2.0)))
    fills: dict[str, Any] = {"InputTensor": finite(2.0)} if r.random() < 0.5 else {}
    n = min(size, sizes[1]) if cross else min(size, sizes[2]) * min(size, sizes[3])
    note = f"cross {cross} size {size} alpha {alpha} beta {beta} bias {bias}"
    if op.type == DML_OPERATOR_TYPE.DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION_GRAD:
        desc = op.desc_cls(InputTensor=draw_tensor(r, dtype, sizes), InputGradientTensor=draw_tensor(r, dtype, sizes),
                           OutputGradientTensor=draw_tensor(r, dtype, sizes, role="output"), CrossChannel=cross,
                           LocalSize=size, Alpha=alpha, Beta=beta, Bias=bias)
        if fills:
            fills["InputGradientTensor"] = finite(2.0)
        dims = (1,) if cross else (2, 3)
        a = np.float64(np.float32(alpha)) / size

        def grad_bound(values: dict[str, Any]) -> dict[str, Any]:
            """The gradient's sums on absolute values (LOCAL_RESPONSE_NORMALIZATION_GRAD's docstring)."""
            x = np.asarray(values["InputTensor"], np.float64)
            g = np.abs(np.asarray(values["InputGradientTensor"], np.float64))
            with np.errstate(all="ignore"):
                base = np.float64(np.float32(bias)) + a * region_sum(x * x, dims, (size - 1) // 2, size // 2)
                b = np.float64(np.float32(beta))
                term = g * np.abs(x) * np.power(base, -b - 1)
                bound = g * np.power(base, -b) + 2 * a * b * np.abs(x) * region_sum(term, dims, size // 2,
                                                                                     (size - 1) // 2)
            return {"OutputGradientTensor": bound}

        return Case(desc, fills=fills, ulps=2 * n + 24, ulps16=2, bound=grad_bound, note=note)
    desc = op.desc_cls(InputTensor=draw_tensor(r, dtype, sizes), OutputTensor=draw_tensor(r, dtype, sizes,
                                                                                          role="output"),
                       CrossChannel=cross, LocalSize=size, Alpha=alpha, Beta=beta, Bias=bias)
    return Case(desc, fills=fills, ulps=beta * (n + 2) + 20, ulps16=2, note=note)


def _bn_training(op: Operator, r: np.random.Generator) -> Case:
    """BATCH_NORMALIZATION_TRAINING: ranks 1-8, Scale/Bias/Mean/Variance sizes 1 or the input's per dimension
    (the 1s are the reduced axes), FusedAdd present or absent, a fused activation in a third of the cases.
    n + 8 ulps (n the reduced count) of: the MVN1 bound plus |FusedAdd| (Output), ``|Mean| + mean|x - x0|``
    (Mean), the Variance itself (a sum of non-negative terms); FLOAT16 2 ulps (3 with an activation)."""
    rank = int(r.choice([1, 2, 3, 4, 5, 8]))
    sizes = draw_sizes(r, rank, 96)
    dtype = int(r.choice([F32, F16]))
    param = [s if r.random() < 0.5 else 1 for s in sizes]
    axes = tuple(d for d in range(rank) if param[d] == 1)
    epsilon = float(r.choice(EPSILONS))
    fused = draw_fused_activation(r) if r.random() < 0.3 else None
    slope = 9.0 if fused is not None else 1.0
    add = draw_tensor(r, dtype, sizes) if r.random() < 0.5 else None
    fills: dict[str, Any] = {"InputTensor": finite(2.0)} if r.random() < 0.5 else {}
    desc = op.desc_cls(InputTensor=draw_tensor(r, dtype, sizes), ScaleTensor=draw_tensor(r, dtype, param),
                       BiasTensor=draw_tensor(r, dtype, param), FusedAddTensor=add,
                       OutputTensor=draw_tensor(r, dtype, sizes, role="output"),
                       OutputMeanTensor=draw_tensor(r, dtype, param, role="output"),
                       OutputVarianceTensor=draw_tensor(r, dtype, param, role="output"), Epsilon=epsilon,
                       FusedActivation=fused)
    n = math.prod(sizes[a] for a in axes)

    def bound(values: dict[str, Any]) -> dict[str, Any]:
        f = np.asarray(values["InputTensor"], np.float64)
        with np.errstate(all="ignore"):
            mean = f.mean(axis=axes, keepdims=True)
            d = f - mean
            first = f[tuple(slice(0, 1) if a in axes else slice(None) for a in range(f.ndim))]
            spread = np.abs(f - first).mean(axis=axes, keepdims=True)
            variance = (d * d).mean(axis=axes, keepdims=True)
            b = (np.abs(d) + spread) / np.sqrt(variance + np.float64(np.float32(epsilon)))
            b = b * np.abs(np.asarray(values["ScaleTensor"], np.float64)) + np.abs(
                np.asarray(values["BiasTensor"], np.float64))
            if values.get("FusedAddTensor") is not None:
                b = b + np.abs(np.asarray(values["FusedAddTensor"], np.float64))
        return {"OutputTensor": b * slope, "OutputMeanTensor": np.abs(mean) + spread, "OutputVarianceTensor": variance}

    return Case(desc, fills=fills, ulps=n + 8 + (4 if fused else 0), ulps16=2 + (1 if fused else 0), bound=bound,
                note=f"{rank}-D axes {list(axes)} n={n} eps {epsilon} add {add is not None}")


def _bn_grad(op: Operator, r: np.random.Generator) -> Case:
    """BATCH_NORMALIZATION_GRAD and BATCH_NORMALIZATION_TRAINING_GRAD: ranks 1-8, Mean/Variance/Scale and the
    scale/bias gradients of sizes 1 or the input's per dimension, Variance mostly non-negative, Epsilon 0 / small /
    1. Plain float32 sums of n terms: n + 6 ulps of the formulas on absolute values; FLOAT16 2 ulps."""
    training = op.type == DML_OPERATOR_TYPE.DML_OPERATOR_BATCH_NORMALIZATION_TRAINING_GRAD
    rank = int(r.choice([1, 2, 3, 4, 5, 8]))
    sizes = draw_sizes(r, rank, 96)
    dtype = int(r.choice([F32, F16]))
    param = [s if r.random() < 0.5 else 1 for s in sizes]
    axes = tuple(d for d in range(rank) if param[d] == 1)
    epsilon = float(r.choice(EPSILONS))
    fills: dict[str, Any] = {}
    if r.random() < 0.5:
        fills = {"InputTensor": finite(2.0), "InputGradientTensor": finite(2.0)}
    if r.random() < 0.8:
        fills["VarianceTensor"] = uniform(0.0, 4.0)
    desc = op.desc_cls(InputTensor=draw_tensor(r, dtype, sizes), InputGradientTensor=draw_tensor(r, dtype, sizes),
                       MeanTensor=draw_tensor(r, dtype, param), VarianceTensor=draw_tensor(r, dtype, param),
                       ScaleTensor=draw_tensor(r, dtype, param),
                       OutputGradientTensor=draw_tensor(r, dtype, sizes, role="output"),
                       OutputScaleGradientTensor=draw_tensor(r, dtype, param, role="output"),
                       OutputBiasGradientTensor=draw_tensor(r, dtype, param, role="output"), Epsilon=epsilon)
    n = math.prod(sizes[a] for a in axes)

    def bound(values: dict[str, Any]) -> dict[str, Any]:
        x, dy, m, v, s = (np.asarray(values[k], np.float64) for k in ("InputTensor", "InputGradientTensor",
                                                                      "MeanTensor", "VarianceTensor", "ScaleTensor"))
        with np.errstate(all="ignore"):
            rr = 1.0 / np.sqrt(v + np.float64(np.float32(epsilon)))
            xc = np.abs(x - m)
            b = np.abs(dy).sum(axis=axes, keepdims=True)
            c = (np.abs(dy) * xc).sum(axis=axes, keepdims=True)
            dx = np.abs(s) * rr * (np.abs(dy) + b / n + xc * (c / n) * rr * rr) if training else np.abs(dy * s) * rr
        return {"OutputGradientTensor": dx, "OutputScaleGradientTensor": c * rr, "OutputBiasGradientTensor": b}

    return Case(desc, fills=fills, ulps=n + 6, ulps16=2, bound=bound,
                note=f"{rank}-D axes {list(axes)} n={n} eps {epsilon}")
