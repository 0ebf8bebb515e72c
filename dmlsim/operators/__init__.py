"""Every operator dmlsim runs, one subpackage each, found by discovery.

An operator's subpackage holds everything about it: the desc (schema) and its cross-field rules and
the launch plan (``__init__.py``), the float64 reference (``reference.py``), the OpenCL kernel
(``kernel.cl``) and its bench case (``bench.py``, optional). :func:`load_all` imports each
subpackage, whose :func:`dmlsim.operators.base.register` decorator adds it to the registry; no list
elsewhere names them.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil

import numpy as np

from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import E_INVALIDARG, E_NOTIMPL, DMLError
from dmlsim.operators.base import OPERATORS, Operator


@functools.cache
def load_all() -> tuple[str, ...]:
    """Import every operator subpackage (registering its operators); the names of those imported."""
    names = []
    for info in pkgutil.iter_modules(__path__):
        if info.ispkg:
            importlib.import_module(f"{__name__}.{info.name}")
            names.append(info.name)
    return tuple(names)


def operator_for(op_type: int) -> Operator:
    """The registered operator for a DML_OPERATOR_TYPE value, or a DMLError naming what exists."""
    load_all()
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
