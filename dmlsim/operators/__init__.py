"""Every operator dmlsim runs, one subpackage each, found by discovery.

An operator's subpackage holds everything about it: the desc (schema) and its cross-field rules and
the launch plan (``__init__.py``), the float64 reference (``reference.py``), the OpenCL kernel
(``kernel.cl``); its bench case, if any, lives with the bench (``dmlsim/bench/cases/``), since
nothing here imports the bench, ``dmlsim.quick``, model files or the CLI. :func:`load_all` imports each
subpackage, whose :func:`dmlsim.operators.base.register` decorator adds it to the registry; no list
elsewhere names them. Every other DirectML operator exists too, as an :class:`UnimplementedOperator`
over its generated desc (dmlsim.api.directml_schema): CreateOperator validates its desc completely,
then refuses it with E_NOTIMPL.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil

from dmlsim.api.arguments import as_enum, is_integer, shown
from dmlsim.api.directml_schema import OPERATOR_SCHEMAS
from dmlsim.api.enums import DML_FEATURE_LEVEL, DML_OPERATOR_TYPE
from dmlsim.api.errors import E_INVALIDARG, E_NOTIMPL, DMLError
from dmlsim.api.schema import OperatorSchema
from dmlsim.operators.base import OPERATORS, Operator

SCHEMAS: dict[int, OperatorSchema] = {int(schema.type): schema for schema in OPERATOR_SCHEMAS}


class UnimplementedOperator(Operator):
    """A DirectML operator dmlsim has no kernel for: its desc is DirectML's generated one (any data type,
    1 to 8 dimensions), fully validated; CreateOperator then refuses it with E_NOTIMPL."""

    implemented = False

    def __init__(self, schema: OperatorSchema) -> None:
        self.type = schema.type
        self.desc_cls = schema.desc_cls


@functools.cache
def load_all() -> tuple[str, ...]:
    """Import every operator subpackage (registering its operators); the names of those imported."""
    names = []
    for info in pkgutil.iter_modules(__path__):
        if info.ispkg:
            importlib.import_module(f"{__name__}.{info.name}")
            names.append(info.name)
    return tuple(names)


def schema_for(op_type: int) -> OperatorSchema | None:
    """DirectML's schema entry (desc, feature level, in-place support) for an operator type; None for
    dmlsim's extension operators and unknown values."""
    if not is_integer(op_type):
        return None
    return SCHEMAS.get(int(op_type))


@functools.cache
def _unimplemented(op_type: int) -> UnimplementedOperator:
    return UnimplementedOperator(SCHEMAS[op_type])


def lookup_operator(op_type: int) -> Operator:
    """The registered operator, else the :class:`UnimplementedOperator` of a DirectML operator (whose desc
    can be checked); a DMLError for DML_OPERATOR_INVALID and values that are no operator."""
    load_all()
    if is_integer(op_type):
        op = OPERATORS.get(int(op_type))
        if op is not None:
            return op
        if int(op_type) in SCHEMAS:
            return _unimplemented(int(op_type))
    return operator_for(op_type)


def implemented_names() -> list[str]:
    """The names of the operators dmlsim runs."""
    load_all()
    return [o.name for o in OPERATORS.values()]


# What a feature level added besides new operators, where dmlsim does not have it yet: such a level is not
# complete (the feature-level history lists each level's additions). Empty since 6_3's UINT4/INT4 data types
# (of QUANTIZE and DEQUANTIZE) arrived.
LEVEL_GAPS: dict[DML_FEATURE_LEVEL, str] = {}


def implemented_feature_level() -> DML_FEATURE_LEVEL:
    """The feature level dmlsim reports: the highest DML_FEATURE_LEVEL at which DirectML's operator set is
    complete here, i.e. every operator the schema introduces at that level or an earlier one runs, and no
    addition of those levels is missing (:data:`LEVEL_GAPS`).

    A device at a feature level promises everything up to it, so a level is reached only when none of its
    operators answers E_NOTIMPL; DML_FEATURE_LEVEL_1_0, DirectML's lowest, is the floor. (An operator of a
    newer level than the reported one still runs: DirectML's level is a promise about the set, not a gate.)
    """
    load_all()
    reached = DML_FEATURE_LEVEL.DML_FEATURE_LEVEL_1_0
    missing_levels = {schema.feature_level for schema in OPERATOR_SCHEMAS if int(schema.type) not in OPERATORS}
    missing_levels |= set(LEVEL_GAPS)
    for level in sorted(DML_FEATURE_LEVEL):
        if any(missing <= level for missing in missing_levels):
            break
        reached = level
    return DML_FEATURE_LEVEL(reached)


def operator_for(op_type: int) -> Operator:
    """The registered operator for a DML_OPERATOR_TYPE value, or a DMLError naming what exists."""
    load_all()
    op = OPERATORS.get(int(op_type)) if is_integer(op_type) else None
    if op is not None:
        return op
    implemented = ", ".join(implemented_names())
    member = as_enum(op_type, DML_OPERATOR_TYPE)
    name = None if member is None else member.name
    if member == DML_OPERATOR_TYPE.DML_OPERATOR_INVALID:
        raise DMLError(E_INVALIDARG, "DML_OPERATOR_DESC.Type is DML_OPERATOR_INVALID (0): choose an operator "
                                     f"(implemented: {implemented})")
    if name is None:
        raise DMLError(E_INVALIDARG, f"DML_OPERATOR_DESC.Type {shown(op_type)} is not a DML_OPERATOR_TYPE "
                                     f"(implemented: {implemented})") from None
    raise DMLError(E_NOTIMPL, f"DML_OPERATOR_DESC.Type {name} is not implemented by dmlsim "
                              f"(implemented: {implemented})")
