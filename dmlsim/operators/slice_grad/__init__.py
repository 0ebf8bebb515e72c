"""DML_OPERATOR_SLICE_GRAD: the backpropagation of SLICE1, from one gather kernel and DirectML's generated desc.

Semantics (the doc page): given InputGradientTensor of the sizes of an equivalent SLICE1's *output*, the operator
writes OutputGradientTensor of the sizes of that SLICE1's *input*: each element the slice read
(``start + InputWindowStrides[d] * c`` along each dimension d, ``start`` being InputWindowOffsets[d], or the
window's last element ``InputWindowOffsets[d] + InputWindowSizes[d] - 1`` for a negative stride: SLICE1's
pseudocode) takes the gradient element read from it; every other element is 0.

Rules (the page, SLICE1's by reference with the tensors' roles exchanged): DimensionCount equals both tensors'
DimensionCount; the tensors share DataType and DimensionCount; InputWindowStrides are never 0 (the page: a 0
stride makes the gradient ambiguous); the window is not empty and lies inside OutputGradientTensor
(``InputWindowOffsets[d] + InputWindowSizes[d] <= OutputGradientTensor.Sizes[d]``); each
``InputGradientTensor.Sizes[d]`` is at most ``1 + (InputWindowSizes[d] - 1) / |InputWindowStrides[d]|`` (the
elements the window reaches; SLICE1's output may take fewer).

Data types and ranks (the newest feature level's table, 4_1): 1 to 8 dimensions, every data type (FLOAT64, INT64,
UINT64 included). Any DML strides on both tensors (padded, permuted, a stride-0 broadcast gradient), tensors at
any binding offset; elements move as unsigned integers of their width (bit for bit: NaN payloads and -0.0 kept;
the untouched elements are +0 in every type); not in place (the schema: the input is not eligible).

Decision where the page is silent: an InputGradientTensor smaller than the window reaches is accepted (SLICE1's
rule): only its elements are scattered, the rest of the window is 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_SLICE_GRAD_OPERATOR_DESC
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.operators.base import Operator, ValidatedDesc, register, require_same
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, TensorArg
from dmlsim.operators.slice_grad.reference import slice_grad
from dmlsim.operators.typed import EVERY_TYPE, bits_defines, require_type, sizes_of, ulong8

DY, DX = "InputGradientTensor", "OutputGradientTensor"
FIELDS = ("InputWindowOffsets", "InputWindowSizes", "InputWindowStrides")


@register
class SliceGrad(Operator):
    """SLICE_GRAD (module docstring)."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_SLICE_GRAD
    desc_cls = DML_SLICE_GRAD_OPERATOR_DESC

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        name = v.struct_name
        require_type(v, problems, DY, EVERY_TYPE, "by DML_SLICE_GRAD_OPERATOR")
        require_same(v, problems, DY, (DX,), ("DataType", "DimensionCount"))
        dy, dx = sizes_of(v, DY), sizes_of(v, DX)
        rank = v.attrs.get("DimensionCount")
        if dy is None or dx is None or rank is None or len(dy) != len(dx):
            return
        if rank != len(dx):
            problems.add(f"{name}.DimensionCount {rank} must equal {DX}.DimensionCount {len(dx)}")
            return
        offsets, sizes, strides = (v.attrs[f] for f in FIELDS)
        for d in range(rank):
            offset, size, stride = offsets[d], sizes[d], strides[d]
            if size < 1:
                problems.add(f"{name}.InputWindowSizes[{d}] must be at least 1 (the window must not be empty)")
            if stride == 0:
                problems.add(f"{name}.InputWindowStrides[{d}] must not be 0 (the gradient of a 0 stride is "
                             "ambiguous)")
            if offset + size > dx[d]:
                problems.add(f"{name}: InputWindowOffsets[{d}] {offset} + InputWindowSizes[{d}] {size} must not "
                             f"exceed {DX}.Sizes[{d}] {dx[d]}")
            if size >= 1 and stride != 0:
                reachable = 1 + (size - 1) // abs(stride)
                if dy[d] > reachable:
                    problems.add(f"{name}.{DY}.Sizes[{d}] {dy[d]} must be at most {reachable}, the elements the "
                                 f"window reaches (1 + (InputWindowSizes[{d}] - 1) / |InputWindowStrides[{d}]|)")

    def starts(self, v: ValidatedDesc) -> list[int]:
        """Each dimension's first element read: the window's offset, or its last element for a negative stride."""
        return [o + n - 1 if s < 0 else o for o, n, s in zip(*(v.attrs[f] for f in FIELDS), strict=True)]

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        a = v.attrs
        return {DX: slice_grad(inputs[DY], v.layout(DX).sizes, a["InputWindowOffsets"], a["InputWindowSizes"],
                               a["InputWindowStrides"])}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        dy, dx = v.layout(DY), v.layout(DX)
        args = (TensorArg("dy", DY, rank=8), TensorArg("dx", DX, rank=8), ulong8("sizes", dx.sizes, fill=1),
                ulong8("starts", self.starts(v)), ulong8("steps", v.attrs["InputWindowStrides"], fill=1),
                ulong8("dy_sizes", dy.sizes, fill=1), Scalar("n", np.uint32(dx.element_count)))
        return [KernelLaunch(self.kernel_source, "slice_grad", bits_defines(dx.element_size), Items(dx.element_count),
                             args)]
