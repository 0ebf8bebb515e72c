"""DirectML's element-wise operators (``DML_OPERATOR_ELEMENT_WISE_*``), all from one template.

A member is one row of :data:`MEMBERS` (its name, the data types its doc page allows, the attributes its
formula takes), one float64 formula in :mod:`.reference` and one ``#elif defined(FUNC_<NAME>)`` line in
``kernel.cl``; this module registers an operator per row. The desc is DirectML's own (generated in
dmlsim.api.directml_schema): the template adds the rules every member shares -- the doc's "the input
tensors and OutputTensor must have the same DataType, DimensionCount and Sizes" (the comparisons, IS_NAN
and BIT_COUNT write UINT32 or UINT8, IS_INFINITY UINT8; IF's ConditionTensor is UINT8; POW's
ExponentTensor may have another type than InputTensor) -- and the member's data types: those of its doc
page's tensor-support table at DML_FEATURE_LEVEL_6_2, the level dmlsim reports (rows of later levels are
not enabled). The bitwise members move any data type as the unsigned integers of its width.

Every member takes DML strides on every tensor (stride 0 on an input broadcasts it), 1 to 8 dimensions,
in place where its schema allows, and, where its desc has one, the optional ``DML_SCALE_BIAS``:
g(x) = x * Scale + Bias applied to InputTensor before the function, or the optional ``FusedActivation``
(ADD1) applied to the result (dmlsim.operators.activation.fused). FLOAT16 is storage: computed in
float32, stored rounded to nearest even. Integer members compute in their own type (wrapping), 64-bit
types included (OpenCL C's long and ulong are core).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import OPERATOR_SCHEMAS
from dmlsim.api.enums import DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import NUMPY_DTYPE, data_type_name
from dmlsim.operators.activation.fused import apply_fused, fused_defines
from dmlsim.operators.base import Operator, ValidatedDesc, Work, add_operator, elementwise_work, require_same
from dmlsim.operators.element_wise.reference import FORMULAS, apply_scale_bias, integer_bounds
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, Stream, TensorArg, Vector
from dmlsim.operators.typed import (
    BITS_TYPE,
    CL_TYPE,
    EVERY_TYPE,
    FLOAT16,
    FLOAT64,
    FLOATS,
    INT32,
    INTEGERS,
    SIGNED,
    UINT8,
    UINT32,
    UNSIGNED,
)

_T = DML_TENSOR_DATA_TYPE
CONDITION, OUT_DEFAULT = "ConditionTensor", "OutputTensor"
UNSIGNED_32 = UNSIGNED[1:]
SIGNED_32 = SIGNED[1:]
INTEGERS_32 = (*SIGNED_32, *UNSIGNED_32)
INT32_UINT32 = (INT32, UINT32)
BOOLEANS = (UINT32, UINT8)  # what the comparisons, IS_NAN and BIT_COUNT write, and the logical members take
# Elements per work-item step of the packed path (a scalar loop over VEC consecutive elements): on CPUs 8,
# or 4 for 8-byte types (LaunchTarget.vector_width: no 512-bit vectors on CPUs); on GPUs 1, so that
# consecutive work-items touch consecutive elements (coalesced). On an H100 (NVIDIA's OpenCL) add over 16M
# FLOAT32 ran at 1.07 / 1.81 / 2.71 TB/s with 8 / 4 / 2 (benchmarks/README.md).
CPU_VEC = 8
GPU_VEC = 1
ROW_MIN = 8  # innermost size from which a CPU device takes the ROWS path


@dataclass(frozen=True)
class Member:
    """One element-wise operator.

    ``name``: after ``DML_OPERATOR_ELEMENT_WISE_``; also the kernel define ``FUNC_<name>`` and the key of
    its formula in :data:`.reference.FORMULAS`. ``data_types``: of its data inputs, from the doc page's
    tensor-support table at DML_FEATURE_LEVEL_6_2. ``output_types``: when the output's type is not the
    inputs' (UINT32 or UINT8 for comparisons). ``second_types``: when the second data input's type is
    independent of the first's (POW's ExponentTensor), the types it may have. ``params``: attributes
    passed to the kernel as ``p0, p1``. ``modes``: enum attributes passed as build defines ``MODE_<attr>``.
    ``bitwise``: the data is moved as the unsigned integers of its width, whatever its data type.
    """

    name: str
    data_types: tuple[int, ...]
    output_types: tuple[int, ...] | None = None
    params: tuple[str, ...] = ()
    modes: tuple[str, ...] = ()
    second_types: tuple[int, ...] | None = None
    bitwise: bool = False


def _unary(data_types: tuple[int, ...], *names: str) -> list[Member]:
    return [Member(name, data_types) for name in names]


MEMBERS = (
    Member("IDENTITY", EVERY_TYPE),
    Member("ABS", (*FLOATS, *SIGNED)),
    Member("NEGATE", (*FLOATS, *SIGNED)),
    Member("SIGN", (*FLOATS, *INTEGERS)),
    *_unary(FLOATS, "ACOS", "ASIN", "ATAN", "COS", "SIN", "TAN", "EXP", "LOG", "SQRT", "RECIP", "CEIL", "FLOOR",
            "ERF", "SINH", "COSH", "TANH", "ASINH", "ACOSH", "ATANH"),
    Member("ROUND", FLOATS, modes=("RoundingMode",)),
    Member("IS_NAN", FLOATS, BOOLEANS),
    Member("IS_INFINITY", FLOATS, (UINT8,), modes=("InfinityMode",)),
    Member("CONSTANT_POW", FLOATS, params=("Exponent",)),
    Member("THRESHOLD", (*FLOATS, *INTEGERS_32), params=("Min",)),
    Member("CLIP", (*FLOATS, *INTEGERS), params=("Min", "Max")),
    Member("CLIP1", (*FLOATS, *INTEGERS), params=("Min", "Max")),
    Member("CLIP_GRAD", (*FLOATS, *INTEGERS), params=("Min", "Max")),
    Member("CLIP_GRAD1", (*FLOATS, *INTEGERS), params=("Min", "Max")),
    Member("ADD", (*FLOATS, *INTEGERS)),
    Member("ADD1", FLOATS),
    Member("SUBTRACT", (*FLOATS, *INTEGERS)),
    Member("MULTIPLY", (*FLOATS, *INTEGERS)),
    Member("DIVIDE", (*FLOATS, *INTEGERS)),
    Member("MAX", (*FLOATS, *INTEGERS)),
    Member("MIN", (*FLOATS, *INTEGERS)),
    Member("MEAN", (*FLOATS, *INT32_UINT32)),
    Member("POW", (*FLOATS, *INTEGERS_32), second_types=(*FLOATS, *INTEGERS_32)),
    Member("ATAN_YX", FLOATS),
    Member("DIFFERENCE_SQUARE", (*FLOATS, *INT32_UINT32)),
    Member("MODULUS_TRUNCATE", (*FLOATS, *INTEGERS)),
    Member("MODULUS_FLOOR", (*FLOATS, *INTEGERS)),
    Member("LOGICAL_EQUALS", (*FLOATS, *INTEGERS), BOOLEANS),
    Member("LOGICAL_GREATER_THAN", (*FLOATS, *INTEGERS), BOOLEANS),
    Member("LOGICAL_LESS_THAN", (*FLOATS, *INTEGERS), BOOLEANS),
    Member("LOGICAL_GREATER_THAN_OR_EQUAL", (*FLOATS, *INTEGERS), BOOLEANS),
    Member("LOGICAL_LESS_THAN_OR_EQUAL", (*FLOATS, *INTEGERS), BOOLEANS),
    Member("LOGICAL_AND", BOOLEANS),
    Member("LOGICAL_OR", BOOLEANS),
    Member("LOGICAL_XOR", BOOLEANS),
    Member("LOGICAL_NOT", BOOLEANS),
    Member("BIT_AND", EVERY_TYPE, bitwise=True),
    Member("BIT_OR", EVERY_TYPE, bitwise=True),
    Member("BIT_XOR", EVERY_TYPE, bitwise=True),
    Member("BIT_NOT", EVERY_TYPE, bitwise=True),
    Member("BIT_COUNT", EVERY_TYPE, BOOLEANS, bitwise=True),
    Member("BIT_SHIFT_LEFT", UNSIGNED),
    Member("BIT_SHIFT_RIGHT", UNSIGNED),
    Member("IF", EVERY_TYPE),
)


# reference-device steps per output element (dmlsim.operators.base.Work) of the members whose reference loops
# in Python (POW: for integer bases only)
PYTHON_STEPS = {"ERF": 1, "BIT_COUNT": 1, "POW": 4}


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
        same_type = ([] if self.member.second_types else self.data_inputs[1:]) + (
            [] if self.member.output_types else [self.output])
        require_same(v, problems, first, same_type, ("DataType",))
        data_type = v.layout(first).data_type
        self._require_type(v, problems, first, self.member.data_types)
        if self.member.second_types:
            self._require_type(v, problems, self.data_inputs[1], self.member.second_types)
        if self.member.output_types:
            self._require_type(v, problems, self.output, self.member.output_types)
        if CONDITION in v.tensors:
            self._require_type(v, problems, CONDITION, (UINT8,))
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
    def work(self, v: ValidatedDesc) -> Work:
        """The default, plus the reference's Python steps where it goes element by element: ERF and BIT_COUNT
        (np.vectorize), POW of integers (exact powers, four steps an element)."""
        steps = PYTHON_STEPS.get(self.member.name, 0)
        if self.member.name == "POW" and v.layout(self.data_inputs[0]).data_type in FLOATS:
            steps = 0
        return elementwise_work(v, host_steps_per_element=steps)

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        data = [np.asarray(inputs[name]) for name in self.data_inputs]
        stored = data[0].dtype
        if self.member.bitwise:  # the bits of any type, as the unsigned integers of its width
            data = [x.view(f"u{x.dtype.itemsize}") for x in data]
        if np.issubdtype(data[0].dtype, np.floating) and "ScaleBias" in v.attrs:
            # in the storage's arithmetic type (apply_scale_bias), then float64 like every float input
            data[0] = apply_scale_bias(data[0], v.attrs["ScaleBias"])
        data = [np.asarray(x, np.float64) if np.issubdtype(x.dtype, np.floating) else x for x in data]
        if CONDITION in v.tensors:
            data.insert(0, np.asarray(inputs[CONDITION]))
        with np.errstate(all="ignore"):
            result = apply_fused(FORMULAS[self.member.name](data, v.attrs), v.attrs.get("FusedActivation"))
        if self.member.bitwise and not self.member.output_types:
            result = np.asarray(result).view(stored)
        return {self.output: np.broadcast_to(result, v.layout(self.output).sizes)}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        first = v.layout(self.data_inputs[0])
        second = v.layout(self.data_inputs[-1])
        out = v.layout(self.output)
        count = out.element_count
        # each tensor's kernel parameter by its role: the condition c, the data inputs a and b, the output y
        tensors = {**({"c": CONDITION} if CONDITION in v.tensors else {}),
                   **dict(zip(("a", "b"), self.data_inputs, strict=False)), "y": self.output}
        packed = all(bound[name].layout.is_packed for name in tensors.values())
        vec = target.vector_width(target.pick(cpu=CPU_VEC, gpu=GPU_VEC), max(first.element_size, out.element_size))
        bitwise = self.member.bitwise
        defines: dict[str, Any] = {
            "IN_T": _storage(first.data_type, bitwise), "OUT_T": _storage(out.data_type, bitwise),
            "B_T": _storage(second.data_type, bitwise), f"FUNC_{self.member.name}": True,
            "INPUTS": len(self.data_inputs), "CONDITION": CONDITION in v.tensors, "PACKED": packed, "VEC": vec,
            "IS_FLOAT": not bitwise and first.data_type in (*FLOATS, FLOAT64),
            "REAL_DOUBLE": not bitwise and first.data_type == FLOAT64,
            "IS_SIGNED": not bitwise and first.data_type in SIGNED,
            "B_IS_FLOAT": not bitwise and second.data_type in (*FLOATS, FLOAT64),
            "IN_HALF": not bitwise and first.data_type == FLOAT16,
            "B_HALF": not bitwise and second.data_type == FLOAT16,
            "OUT_HALF": not bitwise and out.data_type == FLOAT16,
            "SCALE_BIAS": v.attrs.get("ScaleBias") is not None, "BITS": 8 * first.element_size,
            **{f"MODE_{name}": int(v.attrs[name]) for name in self.member.modes},
            **fused_defines(v.attrs.get("FusedActivation"))}
        scale_bias = v.attrs.get("ScaleBias")
        compute, param_type = _compute_types(first.data_type)
        defines["PARAM_T"] = param_type
        params = _kernel_params(self.member, v.attrs, first.data_type, compute)
        args = [*(TensorArg(param, name, rank=8) for param, name in tensors.items()),
                Scalar("scale", np.float32(1 if scale_bias is None else scale_bias.Scale)),
                Scalar("bias", np.float32(0 if scale_bias is None else scale_bias.Bias)),
                *params, Vector("sizes", out.sizes, rank=8), Scalar("n", np.uint32(count))]
        # rows along the innermost dimension on a CPU, where the per-element 8-D coordinates cost more than the
        # element (16 divisions and 32 multiplies for an IF): from 8 elements a row on
        rows = not packed and target.is_cpu and out.sizes[-1] >= ROW_MIN
        defines["ROWS"] = rows
        geometry = Stream(count // vec) if packed else Items(count // out.sizes[-1]) if rows else Items(count)
        return [KernelLaunch(self.kernel_source, "element_wise", defines, geometry, args)]


def _storage(data_type: int, bitwise: bool) -> str:
    """The OpenCL type a tensor is stored as in the kernel: its own (FLOAT16: half), or for a bitwise member
    the unsigned integer of its width."""
    return BITS_TYPE[NUMPY_DTYPE[data_type].itemsize] if bitwise else CL_TYPE[data_type]


def _compute_types(data_type: int) -> tuple[np.dtype, str]:
    """The numpy type of the kernel's ``p0, p1`` and its OpenCL name: the compute type (float for FLOAT16)."""
    if data_type == FLOAT16:
        return np.dtype(np.float32), "float"
    return NUMPY_DTYPE[data_type], CL_TYPE[data_type]


def _kernel_params(member: Member, attrs: dict[str, Any], data_type: int, compute: np.dtype) -> list[Scalar]:
    """The member's attributes as the kernel's ``p0, p1`` in its compute type (0 for each it lacks). The FLOAT
    bounds of CLIP, THRESHOLD and CLIP_GRAD on an integer tensor become the integer range they keep
    (:func:`.reference.integer_bounds`: exact, whatever the type's width)."""
    if data_type in INTEGERS and member.name in ("CLIP", "THRESHOLD", "CLIP_GRAD"):
        values: list[Any] = list(integer_bounds(member.name, attrs, compute))
    else:
        values = [attrs[name] for name in member.params]
        values = [np.float32(x) if isinstance(x, np.generic) and x.dtype == np.float16 else x for x in values]
    values = values[:len(member.params)] + [0] * (2 - len(member.params))
    return [Scalar(f"p{i}", compute.type(x)) for i, x in enumerate(values)]


for _member in MEMBERS:
    add_operator(ElementWise(_member))
