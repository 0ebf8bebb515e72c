"""RNN cases for the differential harness (dmlsim/operators/harness.py).

Draws every direction, sequence lengths 1-3, batch 1-3, input and hidden sizes 1-4, every optional tensor
present or absent (bias, initial hidden state, sequence lengths 0..seq, each output), activations of slope at
most 1 (TANH, SIGMOID, RELU, SOFTSIGN, IDENTITY) so that errors do not grow along the sequence, FLOAT32/FLOAT16,
random layouts. The temporary resource is placed like every tensor (the harness). Tolerance (as
tests/test_rnn.py): a float32 sum of n = input + hidden + 2 terms per step is within 2·(n + 2) ulps of its
magnitude bound; the bound used here, seq · n · max|W, R, B| · max(1, |X|, |H0|), covers every step's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_RECURRENT_NETWORK_DIRECTION
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.structs import DML_OPERATOR_DESC
from dmlsim.operators.base import OPERATORS, Operator
from dmlsim.operators.harness import Case, draw_tensor, draw_valid, finite, uniform

ACTIVATIONS = ("TANH", "SIGMOID", "RELU", "SOFTSIGN", "IDENTITY")
UINT32 = 3


def _activation(r: np.random.Generator) -> DML_OPERATOR_DESC:
    op_type = DML_OPERATOR_TYPE[f"DML_OPERATOR_ACTIVATION_{ACTIVATIONS[int(r.integers(len(ACTIVATIONS)))]}"]
    return DML_OPERATOR_DESC(op_type, OPERATORS[op_type].desc_cls())


def draw(op: Operator, rng: np.random.Generator) -> Case:
    def attempt(r: np.random.Generator) -> Case:
        direction = DML_RECURRENT_NETWORK_DIRECTION(int(r.integers(3)))
        count = 2 if direction == DML_RECURRENT_NETWORK_DIRECTION.DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL else 1
        seq, batch, inputs, hidden = (int(r.integers(1, 4)), int(r.integers(1, 4)), int(r.integers(1, 5)),
                                      int(r.integers(1, 5)))
        dtype = int(r.choice([1, 2]))

        def maybe(sizes: list[int], role: str = "input", data_type: int = dtype) -> Any:
            return draw_tensor(r, data_type, sizes, role=role) if r.random() < 0.6 else None

        y_seq = maybe([seq, count, batch, hidden], "output")
        y_one = maybe([1, count, batch, hidden], "output") if y_seq is not None else draw_tensor(
            r, dtype, [1, count, batch, hidden], role="output")
        desc = op.desc_cls(InputTensor=draw_tensor(r, dtype, [1, seq, batch, inputs]),
                           WeightTensor=draw_tensor(r, dtype, [1, count, hidden, inputs]),
                           RecurrenceTensor=draw_tensor(r, dtype, [1, count, hidden, hidden]),
                           BiasTensor=maybe([1, 1, count, 2 * hidden]),
                           HiddenInitTensor=maybe([1, count, batch, hidden]),
                           SequenceLengthsTensor=maybe([1, 1, 1, batch], data_type=UINT32),
                           OutputSequenceTensor=y_seq, OutputSingleTensor=y_one,
                           ActivationDescs=[_activation(r) for _ in range(count)], Direction=direction)
        n = inputs + hidden + 2

        def bound(values: dict[str, Any]) -> dict[str, Any]:
            def peak(name: str) -> float:
                v = values.get(name)
                return 0.0 if v is None else float(np.max(np.abs(np.asarray(v, np.float64))))

            e = seq * n * max(peak("WeightTensor"), peak("RecurrenceTensor"), peak("BiasTensor"), 1e-3) * max(
                1.0, peak("InputTensor"), peak("HiddenInitTensor"))
            return {"OutputSequenceTensor": e, "OutputSingleTensor": e}

        fills = {"SequenceLengthsTensor": uniform(0, seq), "WeightTensor": finite(), "RecurrenceTensor": finite(),
                 "BiasTensor": finite(), "HiddenInitTensor": finite()}
        return Case(desc, fills=fills, ulps=2 * (n + 2), ulps16=1, bound=bound,
                    note=f"{direction.name} seq={seq} batch={batch}")

    return draw_valid(op, rng, attempt)
