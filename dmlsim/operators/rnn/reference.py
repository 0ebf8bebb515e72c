"""Reference for DML_OPERATOR_RNN: the doc page's equations, transcribed in float64.

Forward:  for t = 0 .. L-1:      H_t = f(X_t * W_i^T  + H_{t-1} * R_i^T  + W_bi  + R_bi)
Backward: for t = L-1 .. 0:      H_t = f(X_t * W_Bi^T + H_{t+1} * R_Bi^T + W_Bbi + R_Bbi)

with H before the first step the HiddenInitTensor slice of the direction (0 when absent), the biases 0
when BiasTensor is absent, and L the sequence length of the batch entry (SequenceLengthsTensor, else
seq_length). dmlsim's reading where the page is silent (the README's decisions): L is clamped to
seq_length; OutputSequenceTensor holds 0 at t >= L; OutputSingleTensor holds the last H computed (t = L-1
forward, t = 0 backward), or the initial H when L = 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

Activation = Callable[[np.ndarray], np.ndarray]


def rnn(x: np.ndarray, w: np.ndarray, r: np.ndarray, *, bias: np.ndarray | None, hidden_init: np.ndarray | None,
        sequence_lengths: np.ndarray | None, activations: Sequence[Activation], backward: Sequence[bool],
        ) -> tuple[np.ndarray, np.ndarray]:
    """The RNN of one desc, in float64.

    Shapes as the desc's tensors: ``x`` [1, seq, batch, input], ``w`` [1, D, hidden, input], ``r`` [1, D,
    hidden, hidden], ``bias`` [1, 1, D, 2 * hidden], ``hidden_init`` [1, D, batch, hidden],
    ``sequence_lengths`` [1, 1, 1, batch]; ``activations[d]`` and ``backward[d]`` per direction d (D of them).
    Returns (OutputSequenceTensor [seq, D, batch, hidden], OutputSingleTensor [1, D, batch, hidden]).
    """
    x, w, r = (np.asarray(a, np.float64) for a in (x, w, r))
    seq, batch = x.shape[1], x.shape[2]
    directions, hidden = w.shape[1], w.shape[2]
    lengths = (np.full(batch, seq) if sequence_lengths is None
               else np.minimum(np.asarray(sequence_lengths).reshape(batch).astype(np.int64), seq))
    sequence = np.zeros((seq, directions, batch, hidden))
    single = np.zeros((1, directions, batch, hidden))
    for d in range(directions):
        w_bias = np.zeros(hidden) if bias is None else np.asarray(bias, np.float64)[0, 0, d, :hidden]
        r_bias = np.zeros(hidden) if bias is None else np.asarray(bias, np.float64)[0, 0, d, hidden:]
        for b in range(batch):
            h = np.zeros(hidden) if hidden_init is None else np.asarray(hidden_init, np.float64)[0, d, b]
            steps = range(lengths[b] - 1, -1, -1) if backward[d] else range(lengths[b])
            for t in steps:
                with np.errstate(all="ignore"):
                    h = activations[d](x[0, t, b] @ w[0, d].T + h @ r[0, d].T + w_bias + r_bias)
                sequence[t, d, b] = h
            single[0, d, b] = h
    return sequence, single


def _clip(z: np.ndarray, threshold: float | None) -> np.ndarray:
    """clip() of the LSTM/GRU pages: bounded to [-threshold, threshold]; NaN stays NaN; None: no clipping."""
    return z if threshold is None else np.where(z < -threshold, -threshold, np.where(z > threshold, threshold, z))


def lstm(x: np.ndarray, w: np.ndarray, r: np.ndarray, *, bias: np.ndarray | None, hidden_init: np.ndarray | None,
         cell_init: np.ndarray | None, sequence_lengths: np.ndarray | None, peephole: np.ndarray | None,
         activations: Sequence[tuple[Activation, Activation, Activation]], backward: Sequence[bool],
         clip: float | None, couple_input_forget: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The LSTM of one desc, in float64 (DML_LSTM_OPERATOR_DESC's page, read as its docstring says).

    Gate order in W, R and B is i, o, f, c (rows [g·hidden, (g + 1)·hidden) of gate g), peepholes i, o, f:

        i = f(clip(X·Wiᵀ + H·Riᵀ + Pi⊙C + Wbi + Rbi))
        f = 1 − i if ``couple_input_forget`` else f(clip(X·Wfᵀ + H·Rfᵀ + Pf⊙C + Wbf + Rbf))
        c = g(clip(X·Wcᵀ + H·Rcᵀ + Wbc + Rbc));  C' = f⊙C + i⊙c
        o = f(clip(X·Woᵀ + H·Roᵀ + Po⊙C' + Wbo + Rbo));  H' = o⊙h(C')

    ``activations[d]`` is (f, g, h) of direction d. Returns (OutputSequenceTensor [seq, D, batch, hidden],
    OutputSingleTensor and OutputCellSingleTensor [1, D, batch, hidden]); lengths as :func:`rnn`.
    """
    x, w, r = (np.asarray(a, np.float64) for a in (x, w, r))
    seq, batch = x.shape[1], x.shape[2]
    directions, hidden = w.shape[1], w.shape[2] // 4
    lengths = (np.full(batch, seq) if sequence_lengths is None
               else np.minimum(np.asarray(sequence_lengths).reshape(batch).astype(np.int64), seq))
    sequence = np.zeros((seq, directions, batch, hidden))
    single = np.zeros((1, directions, batch, hidden))
    cell_single = np.zeros((1, directions, batch, hidden))
    for d in range(directions):
        f_act, g_act, h_act = activations[d]
        b_all = np.zeros(8 * hidden) if bias is None else np.asarray(bias, np.float64)[0, 0, d]
        b_sum = b_all[:4 * hidden] + b_all[4 * hidden:]
        p = np.zeros(3 * hidden) if peephole is None else np.asarray(peephole, np.float64)[0, 0, d]
        p_i, p_o, p_f = p[:hidden], p[hidden:2 * hidden], p[2 * hidden:]
        for b in range(batch):
            h = np.zeros(hidden) if hidden_init is None else np.asarray(hidden_init, np.float64)[0, d, b]
            c = np.zeros(hidden) if cell_init is None else np.asarray(cell_init, np.float64)[0, d, b]
            steps = range(lengths[b] - 1, -1, -1) if backward[d] else range(lengths[b])
            for t in steps:
                with np.errstate(all="ignore"):
                    z = x[0, t, b] @ w[0, d].T + h @ r[0, d].T + b_sum
                    z_i, z_o, z_f, z_c = (z[k * hidden:(k + 1) * hidden] for k in range(4))
                    if peephole is not None:  # absent, no term at all (0 · inf would be NaN)
                        z_i, z_f = z_i + p_i * c, z_f + p_f * c
                    i = f_act(_clip(z_i, clip))
                    f = 1.0 - i if couple_input_forget else f_act(_clip(z_f, clip))
                    c = f * c + i * g_act(_clip(z_c, clip))
                    if peephole is not None:
                        z_o = z_o + p_o * c
                    o = f_act(_clip(z_o, clip))
                    h = o * h_act(c)
                sequence[t, d, b] = h
            single[0, d, b] = h
            cell_single[0, d, b] = c
    return sequence, single, cell_single


def gru(x: np.ndarray, w: np.ndarray, r: np.ndarray, *, bias: np.ndarray | None, hidden_init: np.ndarray | None,
        sequence_lengths: np.ndarray | None, activations: Sequence[tuple[Activation, Activation]],
        backward: Sequence[bool], linear_before_reset: bool) -> tuple[np.ndarray, np.ndarray]:
    """The GRU of one desc, in float64 (DML_GRU_OPERATOR_DESC's page and ONNX's GRU). Gate order z, r, h:

        z = f(X·Wzᵀ + H·Rzᵀ + Wbz + Rbz);  r = f(X·Wrᵀ + H·Rrᵀ + Wbr + Rbr)
        h~ = g(X·Whᵀ + (r⊙H)·Rhᵀ + Rbh + Wbh), or with ``linear_before_reset`` g(X·Whᵀ + r⊙(H·Rhᵀ + Rbh) + Wbh)
        H' = (1 − z)⊙h~ + z⊙H

    ``activations[d]`` is (f, g) of direction d. Returns (OutputSequenceTensor, OutputSingleTensor); lengths as
    :func:`rnn`.
    """
    x, w, r = (np.asarray(a, np.float64) for a in (x, w, r))
    seq, batch = x.shape[1], x.shape[2]
    directions, hidden = w.shape[1], w.shape[2] // 3
    lengths = (np.full(batch, seq) if sequence_lengths is None
               else np.minimum(np.asarray(sequence_lengths).reshape(batch).astype(np.int64), seq))
    sequence = np.zeros((seq, directions, batch, hidden))
    single = np.zeros((1, directions, batch, hidden))
    for d in range(directions):
        f_act, g_act = activations[d]
        b_all = np.zeros(6 * hidden) if bias is None else np.asarray(bias, np.float64)[0, 0, d]
        wb, rb = b_all[:3 * hidden], b_all[3 * hidden:]
        w_d, r_d = w[0, d], r[0, d]
        for b in range(batch):
            h = np.zeros(hidden) if hidden_init is None else np.asarray(hidden_init, np.float64)[0, d, b]
            steps = range(lengths[b] - 1, -1, -1) if backward[d] else range(lengths[b])
            for t in steps:
                with np.errstate(all="ignore"):
                    xw = x[0, t, b] @ w_d.T + wb
                    z = f_act(xw[:hidden] + h @ r_d[:hidden].T + rb[:hidden])
                    reset = f_act(xw[hidden:2 * hidden] + h @ r_d[hidden:2 * hidden].T + rb[hidden:2 * hidden])
                    if linear_before_reset:
                        candidate = g_act(xw[2 * hidden:] + reset * (h @ r_d[2 * hidden:].T + rb[2 * hidden:]))
                    else:
                        candidate = g_act(xw[2 * hidden:] + (reset * h) @ r_d[2 * hidden:].T + rb[2 * hidden:])
                    h = (1.0 - z) * candidate + z * h
                sequence[t, d, b] = h
            single[0, d, b] = h
    return sequence, single
