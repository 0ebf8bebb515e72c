"""The operator registry and the generic, schema-driven validation of operator descs.

Each operator is an :class:`Operator` subclass registered with :func:`register`; its desc dataclass
carries the schema (dmlsim.schema). Everything that is the same for every operator — checking each
tensor desc, attributes, tensor-array counts, reporting all problems at once — lives here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np

from dmlsim.enums import DML_OPERATOR_TYPE
from dmlsim.errors import E_INVALIDARG, E_NOTIMPL, DMLError, Problems
from dmlsim.schema import ATTRIBUTE, INPUT, OUTPUT, DescField, attr_type_name, desc_fields
from dmlsim.structs import DML_OPERATOR_DESC
from dmlsim.tensor import UINT32_MAX, TensorLayout, validate_tensor_desc

Layouts = TensorLayout | list[TensorLayout] | None


@dataclass
class ValidatedDesc:
    """An operator desc after validation: inferred layouts per tensor field, coerced attribute values."""

    operator: Operator
    desc: Any
    tensors: dict[str, Layouts] = field(default_factory=dict)
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def struct_name(self) -> str:
        return type(self.desc).__name__

    def layout(self, name: str) -> TensorLayout:
        layout = self.tensors[name]
        assert isinstance(layout, TensorLayout)
        return layout


class Operator:
    """Base class of an operator: its type, desc struct, kernel, cross-field rules and reference."""

    type: int
    desc_cls: type
    kernel: str | None = None

    # --- validation -------------------------------------------------------------------------------
    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        """Cross-field rules (same sizes, scalar shapes, attribute ranges). Per-field rules are generic."""

    def temporary_size(self, v: ValidatedDesc) -> int:
        """Bytes of temporary resource the operator needs at execution (0 for most)."""
        return 0

    # --- execution --------------------------------------------------------------------------------
    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        """Reference execution on numpy arrays (float64 results); used by the reference device."""
        raise NotImplementedError

    def debug_check(self, v: ValidatedDesc, read: Callable[[str], Any], problems: Problems) -> None:
        """Execution-time checks a debug device makes on input values; ``read(field)`` gives an array."""

    def opencl_launches(self, v: ValidatedDesc, bound: dict[str, Any], runtime: Any) -> list[Any]:
        """The kernel launches for one dispatch on an OpenCL device (dmlsim.opencl.launch.Launch)."""
        raise NotImplementedError

    # --- schema helpers ---------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return DML_OPERATOR_TYPE(self.type).name

    def fields(self, role: str | None = None) -> list[DescField]:
        rows = desc_fields(self.desc_cls)
        return rows if role is None else [r for r in rows if r.spec.role == role]

    @property
    def input_fields(self) -> list[DescField]:
        return self.fields(INPUT)

    @property
    def output_fields(self) -> list[DescField]:
        return self.fields(OUTPUT)


OPERATORS: dict[int, Operator] = {}


def register(cls: type[Operator]) -> type[Operator]:
    """Class decorator: make an operator available to CreateOperator under its ``type`` value."""
    OPERATORS[int(cls.type)] = cls()
    return cls


def operator_for(op_type: int) -> Operator:
    """The registered operator for a DML_OPERATOR_TYPE value, or a DMLError naming what exists."""
    import dmlsim.ops  # noqa: F401 - registers every operator module

    op = OPERATORS.get(int(op_type)) if isinstance(op_type, (int, np.integer)) else None
    if op is not None:
        return op
    implemented = ", ".join(o.name for o in OPERATORS.values())
    try:
        name = DML_OPERATOR_TYPE(op_type).name
    except (ValueError, TypeError):
        name = None
    if op_type == DML_OPERATOR_TYPE.DML_OPERATOR_INVALID:
        raise DMLError(E_INVALIDARG, "DML_OPERATOR_DESC.Type is DML_OPERATOR_INVALID (0): choose an operator "
                                     f"(implemented: {implemented})")
    if name is None:
        raise DMLError(E_INVALIDARG, f"DML_OPERATOR_DESC.Type {op_type!r} is not a DML_OPERATOR_TYPE "
                                     f"(implemented: {implemented})") from None
    raise DMLError(E_NOTIMPL, f"DML_OPERATOR_DESC.Type {name} is not implemented by dmlsim "
                              f"(implemented: {implemented})")


def validate_operator_desc(op_desc: DML_OPERATOR_DESC) -> ValidatedDesc:
    """Validate a ``DML_OPERATOR_DESC`` completely; raise one DMLError listing every violation."""
    if not isinstance(op_desc, DML_OPERATOR_DESC):
        raise DMLError(E_INVALIDARG, f"CreateOperator needs a DML_OPERATOR_DESC, got {type(op_desc).__name__}")
    op = operator_for(op_desc.Type)
    desc = op_desc.Desc
    struct = op.desc_cls.__name__
    if not isinstance(desc, op.desc_cls):
        raise DMLError(E_INVALIDARG, f"DML_OPERATOR_DESC.Desc for {op.name} must be a {struct}, "
                                     f"got {type(desc).__name__}")
    problems = Problems()
    v = ValidatedDesc(op, desc)
    for row in op.fields():
        where = f"{struct}.{row.name}"
        value = getattr(desc, row.name)
        if row.spec.role == ATTRIBUTE:
            v.attrs[row.name] = _coerce_attribute(value, row, where, problems)
        elif row.is_array:
            v.tensors[row.name] = _validate_tensor_array(desc, row, where, problems)
        elif value is None:
            if not row.spec.optional:
                problems.add(f"{where} must not be null")
            v.tensors[row.name] = None
        else:
            v.tensors[row.name] = validate_tensor_desc(
                value, where, problems, data_types=row.spec.data_types,
                dimension_counts=row.spec.dimension_counts, is_output=row.spec.role == OUTPUT)
    if not problems:
        op.check(v, problems)
    problems.raise_if_any(f"CreateOperator({op.name})")
    return v


def _validate_tensor_array(desc: Any, row: DescField, where: str, problems: Problems) -> list[TensorLayout]:
    count_name = row.spec.array_count
    count = getattr(desc, count_name)
    items = getattr(desc, row.name)
    struct = type(desc).__name__
    if not isinstance(count, (int, np.integer)) or isinstance(count, bool) or not 1 <= count <= UINT32_MAX:
        problems.add(f"{struct}.{count_name} must be a UINT ≥ 1, got {count!r}")
        return []
    if items is None:
        problems.add(f"{where} must not be null (an array of {count_name} tensor descs)")
        return []
    if not isinstance(items, Sequence) or len(items) != count:
        got = len(items) if isinstance(items, Sequence) else type(items).__name__
        problems.add(f"{where} must hold {count_name} ({count}) tensor descs, got {got}")
        return []
    layouts = []
    for i, item in enumerate(items):
        layout = validate_tensor_desc(item, f"{where}[{i}]", problems, data_types=row.spec.data_types,
                                      dimension_counts=row.spec.dimension_counts,
                                      is_output=row.spec.role == OUTPUT)
        layouts.append(layout)
    return layouts


def _coerce_attribute(value: Any, row: DescField, where: str, problems: Problems) -> Any:
    kind = row.spec.attr_type
    if value is None:
        problems.add(f"{where} must be given ({attr_type_name(kind)})")
        return None
    if isinstance(kind, type) and issubclass(kind, Enum):
        try:
            return kind(value)
        except ValueError:
            problems.add(f"{where} {value!r} is not a {kind.__name__} "
                         f"({', '.join(f'{m.name}={m.value}' for m in kind)})")
            return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        problems.add(f"{where} must be a {kind}, got {type(value).__name__} {value!r}")
        return None
    if kind == "FLOAT":
        if math.isfinite(value) and abs(value) > float(np.finfo(np.float32).max):
            problems.add(f"{where} {value!r} does not fit a FLOAT (float32)")
            return None
        return np.float32(value)
    bounds = {"UINT": (0, UINT32_MAX), "INT": (-(2**31), 2**31 - 1),
              "UINT64": (0, 2**64 - 1), "INT64": (-(2**63), 2**63 - 1)}[kind]
    if float(value) != int(value) or not bounds[0] <= int(value) <= bounds[1]:
        problems.add(f"{where} must be a {kind} in [{bounds[0]}, {bounds[1]}], got {value!r}")
        return None
    return int(value)


def require_same(v: ValidatedDesc, problems: Problems, reference: str, names: Sequence[str],
                 properties: Sequence[str] = ("DataType", "DimensionCount", "Sizes")) -> None:
    """Add a problem for each tensor field in ``names`` whose properties differ from ``reference``'s.

    Message form: ``DESC.GradientTensor.Sizes [1,1,4,8] must equal InputParametersTensor.Sizes [1,1,4,9]``.
    """
    ref = v.tensors.get(reference)
    if not isinstance(ref, TensorLayout):
        return
    for name in names:
        other = v.tensors.get(name)
        if not isinstance(other, TensorLayout):
            continue
        for prop in properties:
            mine, theirs = _property(other, prop), _property(ref, prop)
            if mine != theirs:
                problems.add(f"{v.struct_name}.{name}.{prop} {mine} must equal {reference}.{prop} {theirs}")


def require_scalar(v: ValidatedDesc, problems: Problems, name: str) -> None:
    """Add a problem unless the tensor field ``name`` has every size equal to 1."""
    layout = v.tensors.get(name)
    if isinstance(layout, TensorLayout) and any(s != 1 for s in layout.sizes):
        problems.add(f"{v.struct_name}.{name}.Sizes {list(layout.sizes)} must all be 1 (a scalar tensor)")


def _property(layout: TensorLayout, prop: str) -> Any:
    from dmlsim.tensor import data_type_name

    if prop == "DataType":
        return data_type_name(layout.data_type)
    if prop == "DimensionCount":
        return len(layout.sizes)
    if prop == "Sizes":
        return list(layout.sizes)
    raise KeyError(prop)
