"""Harness draws of DML_OPERATOR_ADAM_OPTIMIZER.

What is drawn: FLOAT32 or FLOAT16, 4-D sizes (the only DimensionCount of feature level 3_0), every tensor
packed (the kernel's vector path), the inputs only packed, or every tensor with its own layout (inputs packed,
padded, permuted or broadcast; outputs never broadcast; sometimes slack), any
input sometimes OWNED_BY_DML (TrainingStepTensor too), hyperparameters across their documented range: Beta1 and
Beta2 in [0, 1) ("should be between 0.0 and 1.0", 0 included), Epsilon 1e-8 to 1e-3 (1e-8 and FLT_EPSILON are
the doc's typical values; never 0, which defeats its documented purpose, "preventing division by zero": a G²
that underflows in float32 then gives M/0 where float64 divides tiny by tiny), LearningRate of either sign, 0
included. TrainingStepTensor: T = 1, small, large up
to 2^32 - 1, and T = 0 one time in ten (the formula's 0/0 makes X NaN; only a debug device refuses it).

Values: X, M and G adversarial; V (the second moment, β2·V + (1−β2)·G² in every reachable state) is the
adversarial values' magnitude, specials kept: sqrt of a negative V is NaN either way, but a V that cancels
against G² would make sqrt(V) ill-conditioned beyond any rounding bound.

Tolerance (tests/test_adam_numerics.py, whose reasons hold here): 8 ulps of FLOAT32, 1 ulp of FLOAT16, of the
magnitude bound: the formula run on |X|, |M|, |V|, |G| with −|LearningRate|, so every term adds with one sign
(tests/adam_support.magnitude_bound's method), plus X's intermediates that underflow (harness.underflow_bound).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.schema import OUTPUT
from dmlsim.operators.adam_optimizer import STEP_TYPES
from dmlsim.operators.adam_optimizer.reference import adam_optimizer
from dmlsim.operators.base import Operator
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
from dmlsim.operators.typed import FLOAT16, FLOAT32

INPUTS = ("InputParametersTensor", "InputFirstMomentTensor", "InputSecondMomentTensor", "GradientTensor")
OUTPUTS = ("OutputParametersTensor", "OutputFirstMomentTensor", "OutputSecondMomentTensor")


def _magnitude(rng: np.random.Generator, sizes: tuple[int, ...], data_type: int) -> np.ndarray:
    return np.abs(adversarial(rng, sizes, data_type))


def _attempt(op: Operator, rng: np.random.Generator) -> Case:
    data_type = [FLOAT32, FLOAT16][int(rng.integers(2))]
    sizes = draw_sizes(rng, 4, 120)
    # the kernel's packed path needs all seven tensors packed: a case is packed, packed but for the outputs,
    # or laid out tensor by tensor
    scheme = rng.choice(["packed", "inputs packed", "random"], p=[0.35, 0.15, 0.5])
    fields: dict[str, Any] = {}
    for name in (*INPUTS, "TrainingStepTensor"):
        shape = [1, 1, 1, 1] if name == "TrainingStepTensor" else sizes
        step = name == "TrainingStepTensor"
        fields[name] = (tensor(data_type, shape) if scheme != "random" and not step
                        else draw_tensor(rng, STEP_TYPES[0] if step else data_type, shape))
        fields[name].Desc.Flags = OWNED_BY_DML if rng.random() < 0.15 else 0
    for name in OUTPUTS:
        packed = scheme == "packed"
        fields[name] = tensor(data_type, sizes) if packed else draw_tensor(rng, data_type, sizes, role=OUTPUT)
    hyper = {"LearningRate": float(rng.choice([0.001, 0.1, 1.0, -0.5, 0.0, rng.uniform(-2, 2)])),
             "Beta1": float(rng.choice([0.9, 0.0, 0.5, 0.99, rng.uniform(0, 1)])),
             "Beta2": float(rng.choice([0.999, 0.0, 0.9, 0.9999, rng.uniform(0, 1)])),
             "Epsilon": float(rng.choice([1e-8, float(np.finfo(np.float32).eps), 1e-6, 1e-3]))}
    step = int(rng.choice([0, 1, 1, 2, 3, 10, 1000, 2**32 - 1, int(rng.integers(1, 2**20))]))
    stored = {k: np.float32(v) for k, v in hyper.items()}  # the FLOAT values the desc holds

    def bound(values: dict[str, Any]) -> dict[str, Any]:
        x, m, v, g = (np.abs(np.asarray(values[name], np.float64)) for name in INPUTS)
        t = int(np.asarray(values["TrainingStepTensor"]).reshape(-1)[0])
        b1, b2, eps = (np.float64(stored[k]) for k in ("Beta1", "Beta2", "Epsilon"))
        result = list(adam_optimizer(x, m, v, g, t, learning_rate=-abs(stored["LearningRate"]), beta1=b1, beta2=b2,
                                     epsilon=eps))
        with np.errstate(all="ignore"):  # M and lr·α·M underflowing before the division by sqrt(V) + ε
            rate = abs(np.float64(stored["LearningRate"]) * np.sqrt(1 - b2**t) / (1 - b1**t))
            result[0] += underflow_bound(data_type, (rate + 1) / (np.sqrt(b2 * v + (1 - b2) * g * g) + eps))
        return dict(zip(OUTPUTS, result, strict=True))

    fills = {"InputSecondMomentTensor": _magnitude,
             "TrainingStepTensor": lambda r, shape, dtype: np.full(shape, step, np.uint32)}
    return Case(op.desc_cls(**fields, **hyper), fills=fills, ulps=8.0, ulps16=1.0, bound=bound,
                note=f"T {step}, {hyper}")


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid ADAM_OPTIMIZER case."""
    return draw_valid(op, rng, lambda r: _attempt(op, r))
