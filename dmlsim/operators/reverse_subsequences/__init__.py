"""DML_OPERATOR_REVERSE_SUBSEQUENCES: each subsequence along ``Axis`` reversed over its first
``min(length, size)`` elements, from one gather kernel and DirectML's generated desc.

Semantics (the doc page): SequenceLengthsTensor holds one length per subsequence: its Sizes equal InputTensor's
except along ``Axis``, where the size is 1. Along ``Axis`` the first ``L`` elements are reversed and the rest
copied unchanged; a length above the axis' size behaves as if clamped to it (0 and 1 copy unchanged). ``Axis``
must be less than InputTensor's DimensionCount; OutputTensor has InputTensor's Sizes and DataType; all three
tensors share DimensionCount.

Data types and ranks (the newest feature level's table, 5_0): 1 to 8 dimensions; InputTensor and OutputTensor
of every data type (FLOAT64, INT64 and UINT64 included), SequenceLengthsTensor UINT32 or UINT64. Any DML strides
on every tensor (padded, permuted, stride-0 broadcast inputs: onnxruntime broadcasts ONNX's per-batch lengths
this way), tensors at any binding offset; elements move as unsigned integers of their width (bit for bit, NaN
payloads kept); not in place (the schema: the input is not eligible).

Decision where the page is silent: a length is read as an unsigned integer of its type (UINT64 lengths up to
2^64 - 1 clamp to the axis size like any other); the page's rules are checked, no more.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.operators.base import Operator, ValidatedDesc, register, require_same
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, TensorArg
from dmlsim.operators.reverse_subsequences.reference import reverse_subsequences
from dmlsim.operators.typed import (
    EVERY_TYPE,
    UINT32,
    UINT64,
    bits_defines,
    check_axis,
    require_type,
    sizes_of,
    ulong8,
)

IN, LENGTHS, OUT = "InputTensor", "SequenceLengthsTensor", "OutputTensor"


@register
class ReverseSubsequences(Operator):
    """REVERSE_SUBSEQUENCES (module docstring)."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_REVERSE_SUBSEQUENCES
    desc_cls = DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        why = "by DML_REVERSE_SUBSEQUENCES_OPERATOR"
        require_type(v, problems, IN, EVERY_TYPE, why)
        require_type(v, problems, LENGTHS, (UINT32, UINT64), why)
        require_same(v, problems, IN, (OUT,))
        require_same(v, problems, IN, (LENGTHS,), ("DimensionCount",))
        x, lengths = sizes_of(v, IN), sizes_of(v, LENGTHS)
        if x is None or lengths is None or problems:
            return
        axis = v.attrs["Axis"]
        if not check_axis(v, problems, "Axis", axis, len(x), IN):
            return
        expected = [1 if d == axis else n for d, n in enumerate(x)]
        if list(lengths) != expected:
            problems.add(f"{v.struct_name}.{LENGTHS}.Sizes {list(lengths)} must be {expected} ({IN}.Sizes with "
                         f"1 along Axis {axis})")

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {OUT: reverse_subsequences(inputs[IN], inputs[LENGTHS], v.attrs["Axis"])}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        x, lengths = v.layout(IN), v.layout(LENGTHS)
        axis = v.attrs["Axis"]
        args = (TensorArg("x", IN, rank=8), TensorArg("lengths", LENGTHS, rank=8), TensorArg("y", OUT, rank=8),
                ulong8("sizes", x.sizes, fill=1), Scalar("axis", np.uint32(8 - len(x.sizes) + axis)),
                Scalar("extent", np.uint64(x.sizes[axis])), Scalar("n", np.uint32(x.element_count)))
        defines = {**bits_defines(x.element_size), "LEN_T": "uint" if lengths.data_type == UINT32 else "ulong"}
        return [KernelLaunch(self.kernel_source, "reverse_subsequences", defines, Items(x.element_count), args)]
