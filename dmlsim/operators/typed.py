"""Shared pieces of the operators whose kernels take typed tensors (dmlsim/cl_kernels/typed.h): data-type
groups, the build defines of an input/output type pair, and cross-field rules several of them state
(a data type from a list, axes in range and distinct, one tensor's sizes against another's).

Used by reduce/, cumulative/, fill_value/ and copy/ (JOIN, SPLIT, SLICE, SLICE1, CAST).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dmlsim.api.enums import DML_TENSOR_DATA_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout, data_type_name
from dmlsim.operators.base import ValidatedDesc
from dmlsim.operators.plan import Vector

_T = DML_TENSOR_DATA_TYPE
FLOAT64, FLOAT32, FLOAT16 = (_T.DML_TENSOR_DATA_TYPE_FLOAT64, _T.DML_TENSOR_DATA_TYPE_FLOAT32,
                             _T.DML_TENSOR_DATA_TYPE_FLOAT16)
INT64, INT32, INT16, INT8 = (_T.DML_TENSOR_DATA_TYPE_INT64, _T.DML_TENSOR_DATA_TYPE_INT32,
                             _T.DML_TENSOR_DATA_TYPE_INT16, _T.DML_TENSOR_DATA_TYPE_INT8)
UINT64, UINT32, UINT16, UINT8 = (_T.DML_TENSOR_DATA_TYPE_UINT64, _T.DML_TENSOR_DATA_TYPE_UINT32,
                                 _T.DML_TENSOR_DATA_TYPE_UINT16, _T.DML_TENSOR_DATA_TYPE_UINT8)
FLOATS = (FLOAT32, FLOAT16)
SIGNED = (INT64, INT32, INT16, INT8)
UNSIGNED = (UINT64, UINT32, UINT16, UINT8)
INTEGERS = SIGNED + UNSIGNED
EVERY_TYPE = (FLOAT64, *FLOATS, *INTEGERS)
# The OpenCL type of each data type's storage (FLOAT16 is "half": vload_half/vstore_half_rte, no cl_khr_fp16).
CL_TYPE = {FLOAT64: "double", FLOAT32: "float", FLOAT16: "half", INT64: "long", INT32: "int", INT16: "short",
           INT8: "char", UINT64: "ulong", UINT32: "uint", UINT16: "ushort", UINT8: "uchar"}
# The unsigned type of each element size: bit-exact moves of any data type.
BITS_TYPE = {1: "uchar", 2: "ushort", 4: "uint", 8: "ulong"}


def arithmetic_type(data_type: int) -> str:
    """The OpenCL type a kernel computes in for a data type: float for FLOAT16/FLOAT32, else the type."""
    return "float" if data_type in FLOATS else CL_TYPE[data_type]


def wrapping_type(data_type: int) -> str:
    """The type a kernel sums and multiplies ``data_type`` values in: the unsigned type of the same width for
    signed integers (it wraps; signed overflow is undefined in OpenCL C), else the arithmetic type."""
    return f"u{CL_TYPE[data_type]}" if data_type in SIGNED else arithmetic_type(data_type)


def typed_defines(in_type: int, out_type: int, acc: str | None = None) -> dict[str, Any]:
    """Build defines of typed.h for an input and output data type; ``acc`` defaults to the input's
    arithmetic type."""
    acc = acc or arithmetic_type(in_type)
    return {"IN_T": CL_TYPE[in_type], "IN_HALF": in_type == FLOAT16, "OUT_T": CL_TYPE[out_type],
            "OUT_HALF": out_type == FLOAT16, "ACC_T": acc,
            "USES_FP64": FLOAT64 in (in_type, out_type) or acc == "double"}


def bits_defines(element_size: int) -> dict[str, Any]:
    """Build defines of typed.h that move elements of ``element_size`` bytes bit for bit."""
    name = BITS_TYPE[element_size]
    return {"IN_T": name, "OUT_T": name, "ACC_T": name}


def ulong8(param: str, values: Sequence[int], fill: int = 0) -> Vector:
    """The ulong8 kernel parameter ``param`` padded at the front with ``fill``; negative values wrap modulo 2^64
    (kernels add them in ulong arithmetic, which gives the right offset as long as it is not negative)."""
    return Vector(param, tuple(int(x) % 2**64 for x in values), rank=8, fill=fill)


def require_type(v: ValidatedDesc, problems: Problems, name: str, allowed: Sequence[int], why: str) -> bool:
    """Add a problem unless tensor field ``name`` has a data type in ``allowed``; True when it has."""
    layout = v.tensors.get(name)
    if not isinstance(layout, TensorLayout) or layout.data_type in allowed:
        return True
    names = ", ".join(data_type_name(t) for t in allowed)
    problems.add(f"{v.struct_name}.{name}.DataType {data_type_name(layout.data_type)} is not supported {why} "
                 f"(supported: {names})")
    return False


def check_axis(v: ValidatedDesc, problems: Problems, field: str, axis: int, rank: int, of: str) -> bool:
    """Add a problem unless ``0 <= axis < rank`` (``of`` names the tensor whose DimensionCount bounds it)."""
    if 0 <= axis < rank:
        return True
    problems.add(f"{v.struct_name}.{field} {axis} must be less than {of}.DimensionCount {rank}")
    return False


def check_axes(v: ValidatedDesc, problems: Problems, field: str, axes: Sequence[int], rank: int, of: str) -> bool:
    """Add a problem for each axis outside ``[0, rank - 1]`` and for a repeated axis; True when all are fine."""
    fine = True
    seen: set[int] = set()  # linear: a model file may give thousands of axes
    for i, axis in enumerate(axes):
        if not 0 <= axis < rank:
            problems.add(f"{v.struct_name}.{field}[{i}] {axis} must be in [0, {rank - 1}] "
                         f"({of}.DimensionCount is {rank})")
            fine = False
        elif axis in seen:
            problems.add(f"{v.struct_name}.{field}[{i}] {axis} repeats an axis (each axis may be given once)")
            fine = False
        seen.add(axis)
    return fine


def sizes_of(v: ValidatedDesc, name: str) -> tuple[int, ...] | None:
    """The Sizes of tensor field ``name`` (None when it is not a valid single tensor)."""
    layout = v.tensors.get(name)
    return layout.sizes if isinstance(layout, TensorLayout) else None
