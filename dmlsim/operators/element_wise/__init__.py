"""DirectML's element-wise operators (``DML_OPERATOR_ELEMENT_WISE_*``), all from one template.

A member is one row of :data:`UNARY` (its name and the data types its doc page allows), one float64
formula in :mod:`.reference` and one ``#elif defined(FUNC_<NAME>)`` line in ``kernel.cl``; this module
registers an operator per row. The desc is DirectML's own (generated in dmlsim.api.directml_schema):
the template adds the rules every member shares -- the doc's "InputTensor and OutputTensor must have
the same DataType, DimensionCount and Sizes" -- and the member's data types.

Every member takes DML strides on both tensors (stride 0 on the input broadcasts), 1 to 8 dimensions
and the optional ``DML_SCALE_BIAS``: g(x) = x * Scale + Bias is applied to each input element before
the function. FLOAT16 is storage: computed in float32, stored rounded to nearest even.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import OPERATOR_SCHEMAS
from dmlsim.api.enums import DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import data_type_name
from dmlsim.operators.base import Operator, ValidatedDesc, add_operator, require_same
from dmlsim.operators.element_wise.reference import UNARY_FORMULAS, apply_scale_bias
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Stream, Vector

_T = DML_TENSOR_DATA_TYPE
IN, OUT = "InputTensor", "OutputTensor"
FLOATS = (_T.DML_TENSOR_DATA_TYPE_FLOAT32, _T.DML_TENSOR_DATA_TYPE_FLOAT16)
INTEGERS = (_T.DML_TENSOR_DATA_TYPE_INT64, _T.DML_TENSOR_DATA_TYPE_INT32, _T.DML_TENSOR_DATA_TYPE_INT16,
            _T.DML_TENSOR_DATA_TYPE_INT8, _T.DML_TENSOR_DATA_TYPE_UINT64, _T.DML_TENSOR_DATA_TYPE_UINT32,
            _T.DML_TENSOR_DATA_TYPE_UINT16, _T.DML_TENSOR_DATA_TYPE_UINT8)
EVERY_TYPE = (_T.DML_TENSOR_DATA_TYPE_FLOAT64, *FLOATS, *INTEGERS)
# How each data type is stored in a kernel (dmlsim/cl_kernels/dmlsim.h): its build define.
STORAGE = {_T.DML_TENSOR_DATA_TYPE_FLOAT32: {}, _T.DML_TENSOR_DATA_TYPE_FLOAT16: {"STORE_HALF": True},
           _T.DML_TENSOR_DATA_TYPE_FLOAT64: {"STORE_DOUBLE": True},
           **{t: {"STORE_INTEGER": name} for t, name in zip(
               INTEGERS, ("long", "int", "short", "char", "ulong", "uint", "ushort", "uchar"), strict=True)}}
# Vector width of the packed path: 8, or 4 for 8-byte types (a 512-bit double8/long8 changes the ABI on
# CPUs without AVX-512, which PoCL warns about).
VEC = 8
VEC_8_BYTE = 4


@dataclass(frozen=True)
class UnaryMember:
    """One unary element-wise operator: ``name`` after ``DML_OPERATOR_ELEMENT_WISE_`` (also its kernel
    define ``FUNC_<name>`` and its formula in :data:`.reference.UNARY_FORMULAS`) and the data types of
    its doc page's tensor-support table at the newest feature level."""

    name: str
    data_types: tuple[int, ...]


UNARY = (
    UnaryMember("IDENTITY", EVERY_TYPE),
)


class UnaryElementWise(Operator):
    """The template of every unary member: y = f(g(x)), g the optional scale and bias."""

    def __init__(self, member: UnaryMember) -> None:
        self.member = member
        self.type = DML_OPERATOR_TYPE[f"DML_OPERATOR_ELEMENT_WISE_{member.name}"]
        self.desc_cls = next(s.desc_cls for s in OPERATOR_SCHEMAS if s.type == self.type)

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        require_same(v, problems, IN, (OUT,))
        data_type = v.layout(IN).data_type
        if data_type not in self.member.data_types:
            allowed = ", ".join(data_type_name(t) for t in self.member.data_types)
            problems.add(f"{v.struct_name}.{IN}.DataType {data_type_name(data_type)} is not supported by "
                         f"{self.name} (supported: {allowed})")
        elif data_type in INTEGERS and v.attrs.get("ScaleBias") is not None:
            # dmlsim's reading: DirectML documents g(x) = x * scale + bias only as float arithmetic, with no
            # integer rounding rule, so an integer tensor with a scale and bias is refused, not guessed at.
            problems.add(f"{v.struct_name}.ScaleBias must be null for {data_type_name(data_type)} tensors (scale "
                         "and bias are float arithmetic; dmlsim refuses them on integer data types)")

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        x = inputs[IN]
        if np.issubdtype(x.dtype, np.floating):
            x = apply_scale_bias(np.asarray(x, np.float64), v.attrs.get("ScaleBias"))
        return {OUT: UNARY_FORMULAS[self.member.name](x)}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        layout = v.layout(IN)
        count = layout.element_count
        packed = bound[IN].layout.is_packed and bound[OUT].layout.is_packed
        vec = VEC_8_BYTE if layout.element_size == 8 else VEC
        defines = {**STORAGE[layout.data_type], f"FUNC_{self.member.name}": True, "PACKED": packed, "VEC": vec,
                   "SCALE_BIAS": v.attrs.get("ScaleBias") is not None}
        geometry = Stream(count // vec) if packed else Items(count)
        return [KernelLaunch(self.kernel_source, "element_wise_unary", defines, geometry, rank=8,
                             extra=(Vector(layout.sizes, rank=8), np.uint32(count)))]


for _member in UNARY:
    add_operator(UnaryElementWise(_member))
