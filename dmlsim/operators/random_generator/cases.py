"""Harness draws of RANDOM_GENERATOR.

What is drawn: a state of 1 to 8 dimensions ``{1, ..., 6}`` (packed, padded or with slack; inputs sometimes
broadcast), its words from the harness's adversarial UINT32 values (0, 1, 2^32 - 1, ...: counters that carry
across words and wrap), an OutputTensor of 1 to 8 dimensions and up to 120 elements (a partial last block
often), with and without an OutputStateTensor.

Tolerance: none. Bits compare exactly.
"""

from __future__ import annotations

import numpy as np

from dmlsim.api.enums import DML_TENSOR_DATA_TYPE
from dmlsim.api.schema import OUTPUT
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import Case, draw_sizes, draw_tensor, draw_valid

UINT32 = DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_UINT32


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid RANDOM_GENERATOR case."""

    def attempt(r: np.random.Generator) -> Case:
        rank = int(r.integers(1, 9))
        state_sizes = [1] * (rank - 1) + [6]
        out_sizes = draw_sizes(r, int(r.integers(1, 9)), 120)
        next_state = draw_tensor(r, UINT32, state_sizes, role=OUTPUT) if r.random() < 0.7 else None
        desc = op.desc_cls(draw_tensor(r, UINT32, state_sizes), draw_tensor(r, UINT32, out_sizes, role=OUTPUT),
                           next_state, 0)
        return Case(desc, ulps=0.0, ulps16=0.0, note=f"output {out_sizes}, state rank {rank}")

    return draw_valid(op, rng, attempt)
