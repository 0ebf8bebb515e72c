"""DirectML's element-wise operators (``DML_OPERATOR_ELEMENT_WISE_*``), all from one template.

A member is one row of :data:`MEMBERS` (its name, the data types its doc page allows, the attributes its
formula takes), one float64 formula in :mod:`.reference` and one ``#elif defined(FUNC_<NAME>)`` line in
``kernel.cl``; this module registers an operator per row. The desc is DirectML's own (generated in
dmlsim.api.directml_schema): the template adds the rules every member shares -- the doc's "the input
tensors and OutputTensor must have the same DataType, DimensionCount and Sizes" (comparisons, IS_NAN,
IS_INFINITY and BIT_COUNT write UINT8; IF's ConditionTensor is UINT8) -- and the member's data types.

Every member takes DML strides on every tensor (stride 0 on an input broadcasts it), 1 to 8 dimensions,
in place where its schema allows, and, where its desc has one, the optional ``DML_SCALE_BIAS``:
g(x) = x * Scale + Bias applied to InputTensor before the function, or the optional ``FusedActivation``
(ADD1) applied to the result (dmlsim.operators.activation.fused). FLOAT16 is storage: computed in
float32, stored rounded to nearest even. Integer members compute in their own type (wrapping).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import OPERATOR_SCHEMAS
from dmlsim.api.enums import DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import NUMPY_DTYPE, data_type_name
from dmlsim.operators.activation.fused import apply_fused, fused_defines
from dmlsim.operators.base import Operator, ValidatedDesc, add_operator, require_same
from dmlsim.operators.element_wise.reference import FORMULAS, apply_scale_bias
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Stream, TensorArg, Vector

_T = DML_TENSOR_DATA_TYPE
CONDITION, OUT_DEFAULT = "ConditionTensor", "OutputTensor"
FLOATS = (_T.DML_TENSOR_DATA_TYPE_FLOAT32, _T.DML_TENSOR_DATA_TYPE_FLOAT16)
UNSIGNED_32 = (_T.DML_TENSOR_DATA_TYPE_UINT32, _T.DML_TENSOR_DATA_TYPE_UINT16, _T.DML_TENSOR_DATA_TYPE_UINT8)
SIGNED_32 = (_T.DML_TENSOR_DATA_TYPE_INT32, _T.DML_TENSOR_DATA_TYPE_INT16, _T.DML_TENSOR_DATA_TYPE_INT8)
INTEGERS_32 = (*SIGNED_32, *UNSIGNED_32)
INTEGERS = (_T.DML_TENSOR_DATA_TYPE_INT64, *SIGNED_32, _T.DML_TENSOR_DATA_TYPE_UINT64, *UNSIGNED_32)
EVERY_TYPE = (_T.DML_TENSOR_DATA_TYPE_FLOAT64, *FLOATS, *INTEGERS)
UINT8 = (_T.DML_TENSOR_DATA_TYPE_UINT8,)
# Elements per work-item step of the packed path (a scalar loop over VEC consecutive elements): on CPUs 8,
# or 4 for 8-byte types (LaunchTarget.vector_width: no 512-bit vectors on CPUs); on GPUs 1, so that
# consecutive work-items touch consecutive elements (coalesced). On an H100 (NVIDIA's OpenCL) add over 16M
# FLOAT32 ran at 1.07 / 1.81 / 2.71 TB/s with 8 / 4 / 2 (benchmarks/README.md).
CPU_VEC = 8
GPU_VEC = 1
# The OpenCL type of each data type in a kernel: FLOAT16 is stored as half and computed as float.
CL_TYPE = {_T.DML_TENSOR_DATA_TYPE_FLOAT32: "float", _T.DML_TENSOR_DATA_TYPE_FLOAT16: "half",
           _T.DML_TENSOR_DATA_TYPE_FLOAT64: "double",
           **dict(zip(INTEGERS, ("long", "int", "short", "char", "ulong", "uint", "ushort", "uchar"), strict=True))}


@dataclass(frozen=True)
class Member:
    """One element-wise operator.

    ``name``: after ``DML_OPERATOR_ELEMENT_WISE_``; also the kernel define ``FUNC_<name>`` and the key of
    its formula in :data:`.reference.FORMULAS`. ``data_types``: of its data inputs, from the doc page's
    tensor-support table (newest feature level). ``output_types``: when the output's type is not the
    inputs' (UINT8 for comparisons). ``params``: attributes passed to the kernel as ``p0, p1``.
    ``modes``: enum attributes passed as build defines ``MODE_<attr>``.
    """

    name: str
    data_types: tuple[int, ...]
    output_types: tuple[int, ...] | None = None
    params: tuple[str, ...] = ()
    modes: tuple[str, ...] = ()


def _unary(data_types: tuple[int, ...], *names: str) -> list[Member]:
    return [Member(name, data_types) for name in names]


MEMBERS = (
    Member("IDENTITY", EVERY_TYPE),
    Member("ABS", (*FLOATS, *SIGNED_32)),
    Member("NEGATE", (*FLOATS, *SIGNED_32)),
    Member("SIGN", (*FLOATS, *INTEGERS_32)),
    *_unary(FLOATS, "ACOS", "ASIN", "ATAN", "COS", "SIN", "TAN", "EXP", "LOG", "SQRT", "RECIP", "CEIL", "FLOOR",
            "ERF", "SINH", "COSH", "TANH", "ASINH", "ACOSH", "ATANH"),
    Member("ROUND", FLOATS, modes=("RoundingMode",)),
    Member("IS_NAN", FLOATS, UINT8),
    Member("IS_INFINITY", FLOATS, UINT8, modes=("InfinityMode",)),
    Member("CONSTANT_POW", FLOATS, params=("Exponent",)),
    Member("THRESHOLD", FLOATS, params=("Min",)),
    Member("CLIP", FLOATS, params=("Min", "Max")),
    Member("CLIP1", (*FLOATS, *INTEGERS), params=("Min", "Max")),
    Member("CLIP_GRAD", (*FLOATS, *INTEGERS_32), params=("Min", "Max")),
    Member("CLIP_GRAD1", (*FLOATS, *INTEGERS), params=("Min", "Max")),
    Member("ADD", (*FLOATS, *INTEGERS)),
    Member("ADD1", (*FLOATS, *INTEGERS_32)),
    Member("SUBTRACT", (*FLOATS, *INTEGERS)),
    Member("MULTIPLY", (*FLOATS, *INTEGERS)),
    Member("DIVIDE", (*FLOATS, *INTEGERS_32)),
    Member("MAX", (*FLOATS, *INTEGERS_32)),
    Member("MIN", (*FLOATS, *INTEGERS_32)),
    Member("MEAN", FLOATS),
    Member("POW", FLOATS),
    Member("ATAN_YX", FLOATS),
    Member("DIFFERENCE_SQUARE", FLOATS),
    Member("MODULUS_TRUNCATE", (*FLOATS, *INTEGERS_32)),
    Member("MODULUS_FLOOR", (*FLOATS, *INTEGERS_32)),
    Member("LOGICAL_EQUALS", (*FLOATS, *INTEGERS_32), UINT8),
    Member("LOGICAL_GREATER_THAN", (*FLOATS, *INTEGERS_32), UINT8),
    Member("LOGICAL_LESS_THAN", (*FLOATS, *INTEGERS_32), UINT8),
    Member("LOGICAL_GREATER_THAN_OR_EQUAL", (*FLOATS, *INTEGERS_32), UINT8),
    Member("LOGICAL_LESS_THAN_OR_EQUAL", (*FLOATS, *INTEGERS_32), UINT8),
    Member("LOGICAL_AND", UINT8),
    Member("LOGICAL_OR", UINT8),
    Member("LOGICAL_XOR", UINT8),
    Member("LOGICAL_NOT", UINT8),
    Member("BIT_AND", INTEGERS_32),
    Member("BIT_OR", INTEGERS_32),
    Member("BIT_XOR", INTEGERS_32),
    Member("BIT_NOT", INTEGERS_32),
    Member("BIT_COUNT", INTEGERS_32, UINT8),
    Member("BIT_SHIFT_LEFT", UNSIGNED_32),
    Member("BIT_SHIFT_RIGHT", UNSIGNED_32),
    Member("IF", (*FLOATS, *INTEGERS)),
)


class ElementWise(Operator):
    """The template of every member: OutputTensor = f(inputs), element by element."""

    def __init__(self, member: Member) -> None:
        self.member = member
        self.type = DML_OPERATOR_TYPE[f"DML_OPERATOR_ELEMENT_WISE_{member.name}"]
        self.desc_cls = next(s.desc_cls for s in OPERATOR_SCHEMAS if s.type == self.type)
        self.data_inputs = [r.name for r in self.input_fields if r.name != CONDITION]
        self.output = self.output_fields[0].name

    # --- validation ---------------------------------------------------------------------------------
    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        first = self.data_inputs[0]
        tensors = [*self.data_inputs, self.output] + ([CONDITION] if CONDITION in v.tensors else [])
        require_same(v, problems, first, tensors[1:], ("DimensionCount", "Sizes"))
        same_type = self.data_inputs[1:] + ([] if self.member.output_types else [self.output])
        require_same(v, problems, first, same_type, ("DataType",))
        data_type = v.layout(first).data_type
        self._require_type(v, problems, first, self.member.data_types)
        if self.member.output_types:
            self._require_type(v, problems, self.output, self.member.output_types)
        if CONDITION in v.tensors:
            self._require_type(v, problems, CONDITION, UINT8)
        if data_type in INTEGERS and v.attrs.get("ScaleBias") is not None:
            # dmlsim's reading: DirectML documents g(x) = x * scale + bias only as float arithmetic, with no
            # integer rounding rule, so an integer tensor with a scale and bias is refused, not guessed at.
            problems.add(f"{v.struct_name}.ScaleBias must be null for {data_type_name(data_type)} tensors (scale "
                         "and bias are float arithmetic; dmlsim refuses them on integer data types)")
        if "MinMaxDataType" in v.attrs and v.attrs["MinMaxDataType"] != data_type:
            problems.add(f"{v.struct_name}.MinMaxDataType {data_type_name(v.attrs['MinMaxDataType'])} must match "
                         f"{self.output}.DataType {data_type_name(data_type)}")

    def _require_type(self, v: ValidatedDesc, problems: Problems, name: str, allowed: tuple[int, ...]) -> None:
        data_type = v.layout(name).data_type
        if data_type not in allowed:
            problems.add(f"{v.struct_name}.{name}.DataType {data_type_name(data_type)} is not supported by "
                         f"{self.name} (supported: {', '.join(data_type_name(t) for t in allowed)})")

    # --- execution ----------------------------------------------------------------------------------
    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        data = [np.asarray(inputs[name]) for name in self.data_inputs]
        if np.issubdtype(data[0].dtype, np.floating):
            data[0] = apply_scale_bias(data[0], v.attrs.get("ScaleBias"))  # in the kernels' precision
            data = [np.asarray(x, np.float64) for x in data]
        if CONDITION in v.tensors:
            data.insert(0, np.asarray(inputs[CONDITION]))
        with np.errstate(all="ignore"):
            result = apply_fused(FORMULAS[self.member.name](data, v.attrs), v.attrs.get("FusedActivation"))
        return {self.output: np.broadcast_to(result, v.layout(self.output).sizes)}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        first = v.layout(self.data_inputs[0])
        out = v.layout(self.output)
        count = out.element_count
        tensors = [*([CONDITION] if CONDITION in v.tensors else []), *self.data_inputs, self.output]
        packed = all(bound[name].layout.is_packed for name in tensors)
        vec = target.vector_width(target.pick(cpu=CPU_VEC, gpu=GPU_VEC), max(first.element_size, out.element_size))
        defines: dict[str, Any] = {
            "IN_T": CL_TYPE[first.data_type], "OUT_T": CL_TYPE[out.data_type], f"FUNC_{self.member.name}": True,
            "INPUTS": len(self.data_inputs), "CONDITION": CONDITION in v.tensors, "PACKED": packed, "VEC": vec,
            "IS_FLOAT": first.data_type in (*FLOATS, _T.DML_TENSOR_DATA_TYPE_FLOAT64),
            "IS_SIGNED": first.data_type in (_T.DML_TENSOR_DATA_TYPE_INT64, *SIGNED_32),
            "IN_HALF": first.data_type == _T.DML_TENSOR_DATA_TYPE_FLOAT16,
            "OUT_HALF": out.data_type == _T.DML_TENSOR_DATA_TYPE_FLOAT16,
            "SCALE_BIAS": v.attrs.get("ScaleBias") is not None, "BITS": 8 * first.element_size,
            **{f"MODE_{name}": int(v.attrs[name]) for name in self.member.modes},
            **fused_defines(v.attrs.get("FusedActivation"))}
        scale_bias = v.attrs.get("ScaleBias")
        compute, param_type = _compute_types(first.data_type, self.member.name)
        defines["PARAM_T"] = param_type
        params = [_param(v.attrs[name], name, compute, self.member.name) for name in self.member.params]
        params += [compute.type(0)] * (2 - len(params))
        args = [*(TensorArg(name, rank=8) for name in tensors),
                np.float32(1 if scale_bias is None else scale_bias.Scale),
                np.float32(0 if scale_bias is None else scale_bias.Bias),
                *params, Vector(out.sizes, rank=8), np.uint32(count)]
        geometry = Stream(count // vec) if packed else Items(count)
        return [KernelLaunch(self.kernel_source, "element_wise", defines, geometry, args=args)]


def _compute_types(data_type: int, name: str) -> tuple[np.dtype, str]:
    """The numpy type of the kernel's ``p0, p1`` and its OpenCL name: the compute type (float for FLOAT16),
    except CLIP_GRAD on integers, whose FLOAT bounds become ``long`` (floor(Min), ceil(Max)): exact."""
    if data_type == _T.DML_TENSOR_DATA_TYPE_FLOAT16:
        return np.dtype(np.float32), "float"
    if name == "CLIP_GRAD" and data_type in INTEGERS:
        return np.dtype(np.int64), "long"
    return NUMPY_DTYPE[data_type], CL_TYPE[data_type]


def _param(value: Any, attr: str, compute: np.dtype, member: str) -> np.generic:
    """An attribute as the kernel's compute type. CLIP_GRAD's FLOAT bounds on integer tensors: x <= Min is
    x <= floor(Min) and x >= Max is x >= ceil(Max) for an integer x (infinite bounds: beyond every value)."""
    if compute == np.int64 and member == "CLIP_GRAD":
        bound = float(value)
        if math.isinf(bound):
            return np.int64(-(2**62) if bound < 0 else 2**62)
        return np.int64(math.floor(bound) if attr == "Min" else math.ceil(bound))
    if isinstance(value, np.generic) and value.dtype == np.float16:
        return compute.type(np.float32(value))
    return compute.type(value)


for _member in MEMBERS:
    add_operator(ElementWise(_member))
