"""RNN, LSTM and GRU cases for the differential harness (dmlsim/operators/harness.py).

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
    """A case of the folder's operator: RNN's below, LSTM's in :func:`draw_lstm`, GRU's in :func:`draw_gru`."""
    if op.type == DML_OPERATOR_TYPE.DML_OPERATOR_LSTM:
        return draw_lstm(op, rng)
    if op.type == DML_OPERATOR_TYPE.DML_OPERATOR_GRU:
        return draw_gru(op, rng)

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


# --- DML_OPERATOR_LSTM -------------------------------------------------------------------------------------
# f: bounded activations (|f| <= 1 keeps |C_t| <= |C_0| + t·max|g|, so errors grow linearly along the sequence);
# g and h: slope at most 1.
LSTM_F = ("SIGMOID", "TANH", "SOFTSIGN", "HARD_SIGMOID")
LSTM_GH = ("TANH", "SIGMOID", "RELU", "SOFTSIGN", "IDENTITY", "SCALED_TANH")


def _named_activation(r: np.random.Generator, names: tuple[str, ...]) -> DML_OPERATOR_DESC:
    name = names[int(r.integers(len(names)))]
    op_type = DML_OPERATOR_TYPE[f"DML_OPERATOR_ACTIVATION_{name}"]
    attrs = {"Alpha": 0.25, "Beta": 0.5} if name == "HARD_SIGMOID" else (
        {"Alpha": 1.0, "Beta": 0.75} if name == "SCALED_TANH" else {})
    return DML_OPERATOR_DESC(op_type, OPERATORS[op_type].desc_cls(**attrs))


def draw_lstm(op: Operator, rng: np.random.Generator) -> Case:
    """LSTM cases: every direction, seq 1-3, batch 1-3, input 1-4, hidden 1-3, every optional tensor present or
    absent (bias, initial H and C, sequence lengths 0..seq, peepholes, each output, at least one), clip on or off
    (thresholds 0.25-3), CoupleInputForget both ways, FLOAT32/FLOAT16, random layouts. Tolerance: as RNN's with
    n = input + hidden + 4 terms per gate (sums and the peephole), times the cell's growth (1 + seq)."""

    def attempt(r: np.random.Generator) -> Case:
        direction = DML_RECURRENT_NETWORK_DIRECTION(int(r.integers(3)))
        count = 2 if direction == DML_RECURRENT_NETWORK_DIRECTION.DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL else 1
        seq, batch, inputs, hidden = (int(r.integers(1, 4)), int(r.integers(1, 4)), int(r.integers(1, 5)),
                                      int(r.integers(1, 4)))
        dtype = int(r.choice([1, 2]))

        def maybe(sizes: list[int], role: str = "input", data_type: int = dtype) -> Any:
            return draw_tensor(r, data_type, sizes, role=role) if r.random() < 0.6 else None

        outs = [maybe([seq, count, batch, hidden], "output"), maybe([1, count, batch, hidden], "output"),
                maybe([1, count, batch, hidden], "output")]
        if all(o is None for o in outs):
            k = int(r.integers(3))
            outs[k] = draw_tensor(r, dtype, [seq if k == 0 else 1, count, batch, hidden], role="output")
        use_clip = bool(r.random() < 0.4)
        desc = op.desc_cls(InputTensor=draw_tensor(r, dtype, [1, seq, batch, inputs]),
                           WeightTensor=draw_tensor(r, dtype, [1, count, 4 * hidden, inputs]),
                           RecurrenceTensor=draw_tensor(r, dtype, [1, count, 4 * hidden, hidden]),
                           BiasTensor=maybe([1, 1, count, 8 * hidden]),
                           HiddenInitTensor=maybe([1, count, batch, hidden]),
                           CellMemInitTensor=maybe([1, count, batch, hidden]),
                           SequenceLengthsTensor=maybe([1, 1, 1, batch], data_type=UINT32),
                           PeepholeTensor=maybe([1, 1, count, 3 * hidden]),
                           OutputSequenceTensor=outs[0], OutputSingleTensor=outs[1], OutputCellSingleTensor=outs[2],
                           ActivationDescs=[_named_activation(r, LSTM_F if k % 3 == 0 else LSTM_GH)
                                            for k in range(3 * count)],
                           Direction=direction, ClipThreshold=float(r.choice([0.25, 1.0, 3.0])) if use_clip else 0.0,
                           UseClipThreshold=use_clip, CoupleInputForget=bool(r.random() < 0.3))
        n = inputs + hidden + 4

        def bound(values: dict[str, Any]) -> dict[str, Any]:
            def peak(name: str) -> float:  # over the finite values: an infinite X must not unbound the others
                v = values.get(name)
                a = np.abs(np.asarray(v, np.float64)) if v is not None else np.zeros(1)
                a = a[np.isfinite(a)]
                return float(np.max(a)) if a.size else 0.0

            e = (1 + seq) * seq * n * max(peak("WeightTensor"), peak("RecurrenceTensor"), peak("BiasTensor"),
                                          peak("PeepholeTensor"), 1e-3) * max(
                1.0, peak("InputTensor"), peak("HiddenInitTensor"), peak("CellMemInitTensor"))
            return {"OutputSequenceTensor": e, "OutputSingleTensor": e, "OutputCellSingleTensor": e}

        # X finite too: an infinite X times a gate that rounds to exactly 0 in float64 but not in float32 (or back)
        # is NaN on one side and ±inf on the other; tests/test_lstm.py and test_gru.py pin X's ±inf, NaN and ±0
        fills = {"InputTensor": finite(), "SequenceLengthsTensor": uniform(0, seq), "WeightTensor": finite(),
                 "RecurrenceTensor": finite(),
                 "BiasTensor": finite(), "HiddenInitTensor": finite(), "CellMemInitTensor": finite(),
                 "PeepholeTensor": finite()}
        return Case(desc, fills=fills, ulps=2 * (n + 2), ulps16=1, bound=bound,
                    note=f"LSTM {direction.name} seq={seq} batch={batch} clip={use_clip}")

    return draw_valid(op, rng, attempt)


# --- DML_OPERATOR_GRU --------------------------------------------------------------------------------------
def draw_gru(op: Operator, rng: np.random.Generator) -> Case:
    """GRU cases: every direction, seq 1-3, batch 1-3, input 1-4, hidden 1-3, every optional tensor present or
    absent (bias, initial H, sequence lengths 0..seq, each output, at least one), LinearBeforeReset both ways,
    f bounded (|z|, |r| <= 1 keep H' a convex mix), g of slope at most 1, FLOAT32/FLOAT16, random layouts.
    Tolerance: as RNN's with n = input + hidden + 3 terms per gate, the magnitudes taken over the finite inputs (an
    element an infinity or NaN reaches compares exactly; one it does not keeps its bound)."""

    def attempt(r: np.random.Generator) -> Case:
        direction = DML_RECURRENT_NETWORK_DIRECTION(int(r.integers(3)))
        count = 2 if direction == DML_RECURRENT_NETWORK_DIRECTION.DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL else 1
        seq, batch, inputs, hidden = (int(r.integers(1, 4)), int(r.integers(1, 4)), int(r.integers(1, 5)),
                                      int(r.integers(1, 4)))
        dtype = int(r.choice([1, 2]))

        def maybe(sizes: list[int], role: str = "input", data_type: int = dtype) -> Any:
            return draw_tensor(r, data_type, sizes, role=role) if r.random() < 0.6 else None

        y_seq = maybe([seq, count, batch, hidden], "output")
        y_one = maybe([1, count, batch, hidden], "output") if y_seq is not None else draw_tensor(
            r, dtype, [1, count, batch, hidden], role="output")
        desc = op.desc_cls(InputTensor=draw_tensor(r, dtype, [1, seq, batch, inputs]),
                           WeightTensor=draw_tensor(r, dtype, [1, count, 3 * hidden, inputs]),
                           RecurrenceTensor=draw_tensor(r, dtype, [1, count, 3 * hidden, hidden]),
                           BiasTensor=maybe([1, 1, count, 6 * hidden]),
                           HiddenInitTensor=maybe([1, count, batch, hidden]),
                           SequenceLengthsTensor=maybe([1, 1, 1, batch], data_type=UINT32),
                           OutputSequenceTensor=y_seq, OutputSingleTensor=y_one,
                           ActivationDescs=[_named_activation(r, LSTM_F if k % 2 == 0 else LSTM_GH)
                                            for k in range(2 * count)],
                           Direction=direction, LinearBeforeReset=bool(r.random() < 0.5))
        n = inputs + hidden + 3

        def bound(values: dict[str, Any]) -> dict[str, Any]:
            def peak(name: str) -> float:  # over the finite values: an infinite X must not unbound the others
                v = values.get(name)
                a = np.abs(np.asarray(v, np.float64)) if v is not None else np.zeros(1)
                a = a[np.isfinite(a)]
                return float(np.max(a)) if a.size else 0.0

            e = (1 + seq) * seq * n * max(peak("WeightTensor"), peak("RecurrenceTensor"), peak("BiasTensor"),
                                          1e-3) * max(1.0, peak("InputTensor"), peak("HiddenInitTensor"))
            return {"OutputSequenceTensor": e, "OutputSingleTensor": e}

        # X finite too: an infinite X times a gate that rounds to exactly 0 in float64 but not in float32 (or back)
        # is NaN on one side and ±inf on the other; tests/test_lstm.py and test_gru.py pin X's ±inf, NaN and ±0
        fills = {"InputTensor": finite(), "SequenceLengthsTensor": uniform(0, seq), "WeightTensor": finite(),
                 "RecurrenceTensor": finite(),
                 "BiasTensor": finite(), "HiddenInitTensor": finite()}
        return Case(desc, fills=fills, ulps=2 * (n + 2), ulps16=1, bound=bound,
                    note=f"GRU {direction.name} seq={seq} batch={batch}")

    return draw_valid(op, rng, attempt)
