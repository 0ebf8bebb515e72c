"""Harness draws of DMLSIM_OPERATOR_ADAGRAD_DECAY, dense and sparse (IndicesTensor present).

What is drawn: FLOAT32, FLOAT16 or FLOAT64 parameters, UINT32 or INT64 steps and decay powers, UINT32 or INT64
indices; {1, 1, Rows, RowLength} with Rows 1-12 and RowLength 1-9; dense cases all packed (the vector path), with
only the inputs packed, or laid out tensor by tensor, sparse ones tensor by tensor (inputs may broadcast); any
input sometimes OWNED_BY_DML. Attributes: LearningRate of either sign, 0 included; AccumulatorDecayStep 1-10 or
2^32 - 1; AccumulatorDecayRate in (0, 1); AccumulatorBaseline 1e-6 to 2 (DeepRec's ranges, which CreateOperator
checks).

Values: parameters and gradients adversarial; the accumulator at least the baseline (its value in every reachable
state: it starts at the baseline, decays to no less, and only grows by g²), specials kept (an accumulator near 0
would be divided by, with no epsilon: DeepRec never gets there). Global step and decay powers either small
(steps 1-60, powers 0-6: decays happen) or adversarial (the types' extremes, negative INT64 steps). Indices are
drawn with the case: in range with duplicates, and one case in six with indices out of range too (INT64
negatives, Rows, the type's maximum), which dmlsim skips (a documented decision).

Tolerance (tests/test_adagrad_decay.py's): 8 ulps of FLOAT32, 4 of FLOAT64, plus k for k duplicate indices (their
sum in the compute type), 1 of FLOAT16; of the magnitude bound max(|accum|, baseline) + S² for the accumulator and
|var| + |lr|·S/sqrt(accum_new) for the parameters, S the sum of |g| over a row's indices, plus the parameters'
intermediates that underflow (harness.underflow_bound). Decay powers compare exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.schema import INPUT, OUTPUT
from dmlsim.operators.adagrad_decay import ACC, GRAD, IDX, INDEX_TYPES, OACC, OVAR, POW, STEP, STEP_TYPES, VAR
from dmlsim.operators.adagrad_decay.reference import adagrad_decay
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import (
    OWNED_BY_DML,
    Case,
    adversarial,
    draw_tensor,
    draw_valid,
    tensor,
    underflow_bound,
    uniform,
)
from dmlsim.operators.typed import FLOAT16, FLOAT32, FLOAT64, INT64

FIELDS = ("InputParametersTensor", "InputAccumulatorTensor", "InputDecayPowerTensor", "GradientTensor",
          "IndicesTensor", "GlobalStepTensor", "OutputParametersTensor", "OutputAccumulatorTensor",
          "OutputDecayPowerTensor")


def _attempt(op: Operator, rng: np.random.Generator) -> Case:
    data_type, step_type = [FLOAT32, FLOAT16, FLOAT64][int(rng.integers(3))], STEP_TYPES[int(rng.integers(2))]
    rows, length = int(rng.integers(1, 13)), int(rng.integers(1, 10))
    sparse = rng.random() < 0.5
    index_type, count = INDEX_TYPES[int(rng.integers(2))], int(rng.integers(1, 11))
    indices = rng.integers(0, rows, count).astype(np.int64)
    if sparse and rng.random() < 1 / 6:
        wild = [rows, 2**32 - 1 if index_type != INT64 else -1, 2**63 - 1 if index_type == INT64 else rows + 5]
        indices[rng.random(count) < 0.3] = int(rng.choice(wild))
    var = [1, 1, rows, length]
    power = [1, 1, rows if sparse else 1, 1]
    shapes = {VAR: var, ACC: var, POW: power, GRAD: [1, 1, count, length] if sparse else var, IDX: [1, 1, 1, count],
              STEP: [1, 1, 1, 1], OVAR: var, OACC: var, "OutputDecayPowerTensor": power}
    types = {POW: step_type, STEP: step_type, IDX: index_type, "OutputDecayPowerTensor": step_type}
    # the dense vector path needs the five float tensors packed: packed, inputs only packed, or tensor by tensor
    scheme = rng.choice(["packed", "inputs packed", "random"], p=[0.3, 0.15, 0.55]) if not sparse else "random"
    fields: dict[str, Any] = {}
    for name in FIELDS:
        if name == IDX and not sparse:
            fields[name] = None
            continue
        dtype, sizes = types.get(name, data_type), shapes[name]
        role = OUTPUT if name.startswith("Output") else INPUT
        packed = scheme == "packed" or (scheme == "inputs packed" and role == INPUT)
        fields[name] = (tensor(dtype, sizes) if packed and dtype == data_type
                        else draw_tensor(rng, dtype, sizes, role=role))
        if role != OUTPUT and rng.random() < 0.15:
            fields[name].Desc.Flags = OWNED_BY_DML
    hyper = {"LearningRate": float(rng.choice([0.05, -0.1, 0.0, 1.0, rng.uniform(-2, 2)])),
             "AccumulatorDecayStep": int(rng.choice([1, 2, 3, 7, 10, 2**32 - 1])),
             "AccumulatorDecayRate": float(rng.choice([0.5, 0.9, 0.99, 1e-3, rng.uniform(0.01, 0.99)])),
             "AccumulatorBaseline": float(rng.choice([0.1, 1e-3, 1.0, 1e-6, rng.uniform(1e-4, 2)]))}
    a = {k: v if k == "AccumulatorDecayStep" else np.float32(v) for k, v in hyper.items()}  # as the desc holds them
    duplicates = int(np.bincount(indices[(indices >= 0) & (indices < rows)], minlength=1).max()) if sparse else 1

    def bound(values: dict[str, Any]) -> dict[str, Any]:
        x, acc, g = (np.asarray(values[name], np.float64).reshape(-1, length) for name in (VAR, ACC, GRAD))
        s = np.abs(g)
        if sparse:
            s = np.zeros_like(x)
            for i, row in enumerate(indices):
                if 0 <= row < rows:
                    s[row] += np.abs(g[i])
        new_acc = adagrad_decay(x, acc, values[POW].reshape(-1), g, int(values[STEP].reshape(-1)[0]),
                                learning_rate=a["LearningRate"], decay_step=a["AccumulatorDecayStep"],
                                decay_rate=a["AccumulatorDecayRate"], baseline=a["AccumulatorBaseline"],
                                indices=indices if sparse else None)[1]
        with np.errstate(all="ignore"):
            root, lr = np.sqrt(new_acc), abs(np.float64(a["LearningRate"]))
            var_bound = np.abs(x) + lr * s / root + underflow_bound(data_type, (lr + 1) / root)
            acc_bound = np.maximum(np.abs(acc), np.float64(a["AccumulatorBaseline"])) + s * s
        return {OVAR: var_bound.reshape(var), OACC: acc_bound.reshape(var)}

    small = rng.random() < 0.5
    fills = {ACC: lambda r, sz, t: np.abs(adversarial(r, sz, t)).astype(np.float64) + a["AccumulatorBaseline"],
             IDX: lambda r, sz, t: indices.reshape(sz)}
    if small:
        fills.update({STEP: uniform(1, 60), POW: uniform(0, 6)})
    ulps = {FLOAT32: 8.0, FLOAT64: 4.0, FLOAT16: 8.0}[data_type] + (duplicates if sparse else 0)
    return Case(op.desc_cls(**fields, **hyper), fills=fills, ulps=ulps, ulps16=1.0, bound=bound,
                note=f"{'sparse' if sparse else 'dense'}, indices {indices.tolist() if sparse else None}, {hyper}")


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid ADAGRAD_DECAY case, dense or sparse."""
    return draw_valid(op, rng, lambda r: _attempt(op, r))
