"""Harness draws of DMLSIM_OPERATOR_ONNX_ADAGRAD, _ADAM and _MOMENTUM (tensor arrays).

What is drawn: FLOAT32, FLOAT16 or FLOAT64 tensors (one type for all), 1 to 5 tensors per array, each of its own
rank (1 to 8) and sizes, one in five above 8192 elements (more than one CPU chunk), each tensor's roles all
packed (the kernel's vector path) or each laid out on its own (padded, permuted, inputs broadcast); R a FLOAT32 or
FLOAT64 scalar and T an INT64 scalar of any rank (1 to 8, all sizes 1), either sometimes OWNED_BY_DML; T = 0
(ONNX's special cases), 1, small and up to 2^40 (negative counts are meaningless and not drawn); R of either
sign, 0, 1e30 or NaN, never ±inf (an infinite rate turns a float32 intermediate that underflows, a subnormal X
times NormCoefficient, into 0·inf = NaN where float64 keeps inf: a matter of precision, not of the operator).
Attributes: NormCoefficient of either sign; Adam's Alpha and Beta in [0, 1) (ONNX's decay rates) and
NormCoefficientPost in [0, 0.5]; Momentum's Alpha and Beta of either sign and both modes; Epsilon 1e-8 to 1e-2
("to avoid dividing by zero": with 0, an H_new that underflows in float32 gives 0/0 where float64 divides
tiny by tiny); DecayFactor 0 to 1e-2 (negative ones would make 1 + T·decay cancel).

Values: X, G and Adam/Momentum's V adversarial; H (Adagrad's accumulated squares, Adam's second moment) the
adversarial values' magnitudes: a negative H that cancels against G² makes sqrt(H) ill-conditioned beyond any
rounding bound, and no step produces one.

Tolerance (tests/test_onnx_training.py's): 8 ulps of FLOAT32/FLOAT64, 1 of FLOAT16, of the magnitude bound: the
step run on |inputs| with −|R| and |NormCoefficient|, |Alpha|, |Beta| (every term adds with one sign), and for
X_new at least |X| + |X − X_new| (tests/onnx_support.bounds), plus for Adagrad and Adam the update's numerator
magnitude over the actual denominator (_extra_terms: the harness found an Adam step, Beta 0, whose
cancelling G_reg = 0.01·X + G made sqrt(H_new) + ε 7 float32 roundings off, 10 ulps of X, seed 3332949826), and
for every optimizer the amplified error of intermediates that underflow (an Adagrad step with R 0.001 and
G = FLT_MIN whose r·G_reg was a subnormal with 12 significant bits, divided by ε = 1e-8: seed 3404678563).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.schema import INPUT, OUTPUT
from dmlsim.operators.base import Operator, ValidatedDesc
from dmlsim.operators.harness import (
    OWNED_BY_DML,
    Case,
    adversarial,
    draw_sizes,
    draw_tensor,
    draw_valid,
    tensor,
    underflow_bound,
)
from dmlsim.operators.onnx_training import OX, RANKS, RATE_TYPES, OnnxAdam, OnnxMomentum, R, T, X
from dmlsim.operators.typed import FLOAT16, FLOAT32, FLOAT64, INT64

SQUARES = ("InputAccumulatedSquaredGradientTensors", "InputSecondMomentTensors")


def _scalar(rng: np.random.Generator, data_type: int) -> Any:
    desc = draw_tensor(rng, data_type, [1] * int(rng.choice(RANKS)))
    desc.Desc.Flags = OWNED_BY_DML if rng.random() < 0.2 else 0
    return desc


def _attributes(op: Operator, rng: np.random.Generator) -> dict[str, float]:
    small = lambda: float(rng.choice([1e-8, 1e-6, 1e-3, 1e-2]))  # noqa: E731
    attrs = {"NormCoefficient": float(rng.choice([0.0, 0.01, -0.05, rng.uniform(-1, 1)]))}
    if isinstance(op, OnnxMomentum):
        attrs.update(Alpha=float(rng.uniform(-1, 1)), Beta=float(rng.uniform(-1, 1)), Mode=int(rng.integers(2)))
    elif isinstance(op, OnnxAdam):
        attrs.update(NormCoefficientPost=float(rng.choice([0.0, rng.uniform(0, 0.5)])), Epsilon=small(),
                     Alpha=float(rng.choice([0.9, 0.0, rng.uniform(0, 1)])),
                     Beta=float(rng.choice([0.999, 0.0, rng.uniform(0, 1)])))
    else:
        attrs.update(Epsilon=small(), DecayFactor=float(rng.choice([0.0, small()])))
    return attrs


def _attempt(op: Operator, rng: np.random.Generator) -> Case:
    data_type = [FLOAT32, FLOAT16, FLOAT64][int(rng.integers(3))]
    shapes = [draw_sizes(rng, int(rng.choice(RANKS)), 64) for _ in range(int(rng.integers(1, 6)))]
    if rng.random() < 0.2:
        shapes[int(rng.integers(len(shapes)))] = [int(rng.integers(2, 4)), int(rng.integers(2800, 3300))]
    fields: dict[str, Any] = {name: [] for name in op.roles.values()}
    for sizes in shapes:
        packed = rng.random() < 0.5
        for role, name in op.roles.items():
            fields[name].append(tensor(data_type, sizes) if packed else
                                draw_tensor(rng, data_type, sizes, role=OUTPUT if role[0] == "O" else INPUT))
    fields[R] = _scalar(rng, RATE_TYPES[int(rng.integers(2))])
    fields[T] = _scalar(rng, INT64)
    attrs = _attributes(op, rng)
    rate = float(rng.choice([0.05, 0.001, 1.0, -0.3, 0.0, rng.uniform(-2, 2), 1e30, np.nan]))
    count = int(rng.choice([0, 1, 2, 7, 1000, 2**40]))
    stored = {k: np.float32(v) for k, v in attrs.items() if k != "Mode"}  # the FLOAT values the desc holds
    signed = ("NormCoefficient", "Alpha", "Beta") if isinstance(op, OnnxMomentum) else ("NormCoefficient",)
    magnitudes = {k: abs(v) if k in signed else v for k, v in stored.items()}

    def evaluate(values: dict[str, Any], hyper: dict[str, Any]) -> dict[str, Any]:
        """The float64 step (the operator's reference reads only the attributes) with other attribute values."""
        return op.evaluate(ValidatedDesc(op, None, {}, {**hyper, "Mode": attrs.get("Mode")}), values)

    def bound(values: dict[str, Any]) -> dict[str, Any]:
        absolute = {k: [np.abs(np.asarray(a, np.float64)) for a in v] if isinstance(v, list) else v
                    for k, v in values.items()}
        absolute[R] = -np.abs(np.asarray(values[R], np.float64))
        result = evaluate(absolute, magnitudes)
        parts = zip(result[OX], values[X], evaluate(values, stored)[OX], _extra_terms(op, values, stored, data_type),
                    strict=True)
        with np.errstate(all="ignore"):
            result[OX] = [np.maximum(np.abs(s), np.abs(x) + np.abs(np.asarray(x, np.float64) - e)) + d
                          for s, x, e, d in parts]
        return result

    fills = {R: lambda r, s, t: np.full(s, rate), T: lambda r, s, t: np.full(s, count, np.int64)}
    fills.update({name: lambda r, s, t: np.abs(adversarial(r, s, t)) for name in SQUARES})
    return Case(op.desc_cls(**fields, **attrs), fills=fills, ulps=8.0, ulps16=1.0, bound=bound,
                note=f"R {rate}, T {count}, {attrs}, sizes {shapes}")


def _extra_terms(op: Operator, values: dict[str, Any], a: dict[str, np.float32], data_type: int) -> list[Any]:
    """What X_new's bound needs beyond the terms' magnitudes. Adagrad and Adam compute X − r·N/D with
    D = sqrt(H_new) + ε: the numerator N (G_reg; V_new) at its magnitude over the *actual* D, and for Adam D's
    own move with the rounding of a cancelling G_reg = nc·X + G (up to sqrt(1−β)·|nc·X| + |G| roundings): both
    grow as D shrinks, which the run on |inputs| (a larger D) does not see. Every optimizer: intermediates that
    underflow (harness.underflow_bound), amplified by r/D and 1/D (Momentum: by |R|·(1 + |Alpha|))."""
    r, t = float(np.asarray(values[R]).reshape(-1)[0]), int(np.asarray(values[T]).reshape(-1)[0])
    nc = np.float64(a["NormCoefficient"])
    terms = []
    with np.errstate(all="ignore"):
        if isinstance(op, OnnxMomentum):
            return [underflow_bound(data_type, abs(r) * (1 + abs(np.float64(a["Alpha"]))) + 1) for _ in values[X]]
        eps = np.float64(a["Epsilon"])
        if isinstance(op, OnnxAdam):
            alpha, beta = np.float64(a["Alpha"]), np.float64(a["Beta"])
            post = abs(1 - np.float64(a["NormCoefficientPost"]))
            rate = abs(r * np.sqrt(1 - beta**t) / (1 - alpha**t) if t > 0 else r) * post
        else:
            rate = abs(r / (1 + t * np.float64(a["DecayFactor"])))
        for i, (x, g) in enumerate(zip(values[X], values["GradientTensors"], strict=True)):
            x, g = np.asarray(x, np.float64), np.asarray(g, np.float64)
            reg, magnitude = nc * x + g, np.abs(nc * x) + np.abs(g)
            if isinstance(op, OnnxAdam):
                v, h = (np.asarray(values[name][i], np.float64) for name in ("InputFirstMomentTensors", SQUARES[1]))
                den = np.sqrt(beta * h + (1 - beta) * reg * reg) + eps
                numerator = alpha * np.abs(v) + (1 - alpha) * magnitude
                term = rate * numerator / den * (1 + np.sqrt(1 - beta) * magnitude / den)
            else:
                den = np.sqrt(np.asarray(values[SQUARES[0]][i], np.float64) + reg * reg) + eps
                term = rate * magnitude / den
            terms.append(term + underflow_bound(data_type, (rate + 1) / den))
    return terms


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid case of one of the three ONNX training optimizers."""
    return draw_valid(op, rng, lambda r: _attempt(op, r))
