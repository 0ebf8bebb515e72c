"""DML_OPERATOR_RANDOM_GENERATOR: uniformly distributed pseudo-random bits from DirectML's documented Philox
4x32-10 stream, from one kernel and DirectML's generated desc.

Semantics (the doc page): InputStateTensor holds six UINT32s, a 128-bit counter (elements 0 to 3) and a 64-bit key
(elements 4 and 5); OutputTensor (UINT32, any size) is filled with Philox4x32-10 output (Salmon et al., SC 2011);
the optional OutputStateTensor receives the state for the next execution: the counter incremented by
``ceil(outputSize / 4)`` (outputSize: OutputTensor's element count), the key unchanged. The operator is a pure
function of InputStateTensor.

Rules (the page's table, feature level 4_0 on): InputStateTensor and OutputStateTensor UINT32 of Sizes
``{[1, ...,] 6}`` (1 to 8 dimensions, all but the last of size 1), of one DimensionCount and Sizes; OutputTensor
UINT32, 1 to 8 dimensions; Type PHILOX_4X32_10 (the generic validation refuses other values).

Decisions where the page is silent:

- Word order: the counter is a little-endian sequence of 32-bit words (element 0 least significant, carries into
  element 1 and up, wrapping modulo 2^128), as Random123's Philox counters are incremented. (The page's example
  of an increment, 0x...74746c65 + 324,855 = 0x...746f776e, does not add up under any word order: it is not used.)
- Stream layout: output element ``4j + w`` (row-major over OutputTensor's Sizes) is word w of
  ``Philox4x32_10(counter + j, key)``; a last, partial block uses its first words.
- Any DML strides on every tensor (the state's six elements along its last dimension; a stride-0 broadcast
  state is read as given), tensors at any binding offset; not in place (the schema: the state is not eligible).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_RANDOM_GENERATOR_OPERATOR_DESC
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout
from dmlsim.operators.base import Operator, ValidatedDesc, register, require_same
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, TensorArg
from dmlsim.operators.random_generator.reference import random_generator
from dmlsim.operators.typed import UINT32, require_type, ulong8

STATE, OUT, NEXT = "InputStateTensor", "OutputTensor", "OutputStateTensor"


@register
class RandomGenerator(Operator):
    """RANDOM_GENERATOR (module docstring)."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_RANDOM_GENERATOR
    desc_cls = DML_RANDOM_GENERATOR_OPERATOR_DESC

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        why = "by DML_RANDOM_GENERATOR_OPERATOR with DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10"
        for name in (STATE, OUT, NEXT):
            require_type(v, problems, name, (UINT32,), why)
        state = v.tensors.get(STATE)
        if isinstance(state, TensorLayout) and (state.sizes[-1] != 6 or any(n != 1 for n in state.sizes[:-1])):
            problems.add(f"{v.struct_name}.{STATE}.Sizes {list(state.sizes)} must be {{[1, ...,] 6}} (a 128-bit "
                         "counter and a 64-bit key as six UINT32s, every other dimension of size 1)")
        if isinstance(v.tensors.get(NEXT), TensorLayout):
            require_same(v, problems, STATE, (NEXT,), ("DimensionCount", "Sizes"))

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        out, next_state = random_generator(inputs[STATE], v.layout(OUT).sizes)
        results = {OUT: out}
        if isinstance(v.tensors.get(NEXT), TensorLayout):
            results[NEXT] = next_state.reshape(v.layout(NEXT).sizes)
        return results

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        y = v.layout(OUT)
        blocks = -(-y.element_count // 4)
        has_next = isinstance(v.tensors.get(NEXT), TensorLayout)
        args = (TensorArg("state", STATE, rank=8), TensorArg("y", OUT, rank=8),
                *((TensorArg("next", NEXT, rank=8),) if has_next else ()), ulong8("sizes", y.sizes, fill=1),
                Scalar("n", np.uint32(y.element_count)), Scalar("blocks", np.uint32(blocks)))
        return [KernelLaunch(self.kernel_source, "philox", {"HAS_STATE_OUT": has_next}, Items(blocks), args)]
