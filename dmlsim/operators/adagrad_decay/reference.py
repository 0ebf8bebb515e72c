"""Reference for DMLSIM_OPERATOR_ADAGRAD_DECAY: DeepRec's AdagradDecay kernels, transcribed in float64.

Source: DeepRec's tensorflow/core/kernels/training_ali_ops.cc (ApplyAdagradDecayOp and
SparseApplyAdagradDecayOp, CPU) and tensorflow/python/training/optimizer.py (which sums duplicate
indices before a sparse apply). Integer arithmetic on the step is C's: division truncates toward zero.
"""

from __future__ import annotations

import numpy as np


def c_divide(a: int, b: int) -> int:
    """C/C++ integer division (truncates toward zero), as ``global_step / decay_step`` in the kernel."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _decay_and_update(var: np.ndarray, accum: np.ndarray, grad: np.ndarray, decay: bool, lr: np.float64,
                      rate: np.float64, baseline: np.float64) -> tuple[np.ndarray, np.ndarray]:
    if decay:
        # accum = (accum * decay_rate).cwiseMax(decay_baseline)   (Eigen's max keeps a NaN accum)
        accum = accum * rate
        accum = np.where(accum < baseline, baseline, accum)
    # accum += grad.square()
    accum = accum + grad * grad
    # var -= lr * grad / sqrt(accum)   (no epsilon)
    var = var - lr * grad / np.sqrt(accum)
    return var, accum


def adagrad_decay(var: np.ndarray, accum: np.ndarray, decay_power: np.ndarray, grad: np.ndarray, global_step: int,
                  *, learning_rate: float, decay_step: int, decay_rate: float, baseline: float,
                  indices: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One AdagradDecay apply; returns (var, accum, decay_power) — float64, float64, int64.

    Dense (``indices`` None): ``var``, ``accum`` and ``grad`` share a shape and ``decay_power`` holds
    one counter for the whole tensor. Sparse: ``var``/``accum`` are (rows, row_length), ``grad`` is
    (len(indices), row_length) and ``decay_power`` holds one counter per row; rows not indexed, and
    indices outside [0, rows), are left alone. ``global_step`` is 1-based (DeepRec passes
    global_step + 1). Hyperparameters are used exactly as given (pass a desc's float32 values).
    """
    var = np.array(var, dtype=np.float64)
    accum = np.array(accum, dtype=np.float64)
    power = np.array(decay_power, dtype=np.int64)
    grad = np.asarray(grad, dtype=np.float64)
    lr, rate, base = np.float64(learning_rate), np.float64(decay_rate), np.float64(baseline)
    periods = c_divide(int(global_step), int(decay_step))
    with np.errstate(all="ignore"):
        if indices is None:
            # if (global_step / decay_step > accum_decay_power(0)) { power += 1; need_decay = true; }
            decay = periods > int(power.reshape(-1)[0])
            if decay:
                power.reshape(-1)[0] += 1
            var, accum = _decay_and_update(var, accum, grad, decay, lr, rate, base)
            return var, accum, power
        rows = var.shape[0]
        flat_power = power.reshape(-1)
        # duplicates are summed first (Optimizer._deduplicate_indexed_slices), in index order
        summed: dict[int, np.ndarray] = {}
        for i, index in enumerate(int(x) for x in np.asarray(indices).reshape(-1)):
            if not 0 <= index < rows:
                continue
            summed[index] = summed[index] + grad[i] if index in summed else grad[i].copy()
        for index, g in summed.items():
            # per row: if (global_step / decay_step > accum_decay_power(index)) { decay; power(index) += 1 }
            decay = periods > int(flat_power[index])
            if decay:
                flat_power[index] += 1
            var[index], accum[index] = _decay_and_update(var[index], accum[index], g, decay, lr, rate, base)
    return var, accum, power
