"""dmlsim: a DirectML-style operator emulator with OpenCL kernels.

The namespace mirrors directml.h: enum constants under their full header names, the structs as
dataclasses, ``DMLCreateDevice`` and the IDMLDevice flow, ``DMLCalcBufferTensorSize``, and
:class:`DMLError` carrying an HRESULT. Operator descs (``DML_ADAM_OPTIMIZER_OPERATOR_DESC`` and the
``DMLSIM_`` extension operators) are exported from their operator modules.
"""

from __future__ import annotations

from enum import IntEnum

from dmlsim import enums as _enums
from dmlsim.device import Buffer, CommandList, CommandQueue, CommandRecorder, Device, DMLCreateDevice
from dmlsim.enums import *  # noqa: F403 - the header's constants, by design
from dmlsim.errors import (
    DXGI_ERROR_DEVICE_REMOVED,
    DXGI_ERROR_INVALID_CALL,
    DXGI_ERROR_UNSUPPORTED,
    E_FAIL,
    E_INVALIDARG,
    E_NOTIMPL,
    E_OUTOFMEMORY,
    S_OK,
    DMLError,
)
from dmlsim.opencl.adapters import all_adapters
from dmlsim.operator import OPERATORS, operator_for
from dmlsim.schema import ATTRIBUTE
from dmlsim.structs import (
    DML_BINDING_DESC,
    DML_BINDING_PROPERTIES,
    DML_BINDING_TABLE_DESC,
    DML_BUFFER_ARRAY_BINDING,
    DML_BUFFER_BINDING,
    DML_BUFFER_TENSOR_DESC,
    DML_FEATURE_DATA_FEATURE_LEVELS,
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT,
    DML_FEATURE_QUERY_FEATURE_LEVELS,
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT,
    DML_OPERATOR_DESC,
    DML_TENSOR_DESC,
    buffer_array_binding,
    buffer_binding,
    buffer_tensor,
)
from dmlsim.tensor import (
    DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT,
    DML_PERSISTENT_BUFFER_ALIGNMENT,
    DML_TEMPORARY_BUFFER_ALIGNMENT,
    DMLCalcBufferTensorSize,
)


def _export_operator_descs() -> dict[str, type]:
    """Every registered operator's desc struct by its struct name, and the enums its attributes use."""
    operator_for(_enums.DML_OPERATOR_TYPE.DML_OPERATOR_ADAM_OPTIMIZER)  # imports dmlsim.ops
    names: dict[str, type] = {op.desc_cls.__name__: op.desc_cls for op in OPERATORS.values()}
    for op in OPERATORS.values():
        for row in op.fields(ATTRIBUTE):
            if isinstance(row.spec.attr_type, type) and issubclass(row.spec.attr_type, IntEnum):
                names[row.spec.attr_type.__name__] = row.spec.attr_type
                names.update(row.spec.attr_type.__members__)
    return names


globals().update(_export_operator_descs())
for _enum in _enums.ALL_ENUMS:
    globals().update(_enum.__members__)

__version__ = "0.1.0"
