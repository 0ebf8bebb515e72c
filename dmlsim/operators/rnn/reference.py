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
