"""dmlsim: a DirectML-style operator emulator with OpenCL kernels.

The namespace mirrors directml.h: enum constants under their full header names, the structs as
dataclasses, ``DMLCreateDevice`` and the IDMLDevice flow, ``DMLCalcBufferTensorSize``, and
:class:`DMLError` carrying an HRESULT. Every DirectML operator desc and per-operator enum (generated
from DirectML's schema: :mod:`dmlsim.api.directml_schema`, listed by its ``__all__``) is here; the
operators dmlsim implements (``DML_ADAM_OPTIMIZER_OPERATOR_DESC`` and the ``DMLSIM_`` extension
operators) export their own desc from their operator packages instead. Every other public name is
imported explicitly and listed in ``__all__``; the enum members are the header's constants, listed by
:data:`dmlsim.api.enums.HEADER_CONSTANTS`.
"""

from __future__ import annotations

from dmlsim.api import directml_schema as _directml_schema
from dmlsim.api.directml_schema import *  # noqa: F403 - generated descs and enums, listed in its __all__
from dmlsim.api.enums import *  # noqa: F403 - the header's constants, listed in HEADER_CONSTANTS
from dmlsim.api.enums import (
    DML_BINDING_TYPE,
    DML_CREATE_DEVICE_FLAGS,
    DML_EXECUTION_FLAGS,
    DML_FEATURE,
    DML_FEATURE_LEVEL,
    DML_OPERATOR_TYPE,
    DML_TENSOR_DATA_TYPE,
    DML_TENSOR_FLAGS,
    DML_TENSOR_TYPE,
    HEADER_CONSTANTS,
)
from dmlsim.api.errors import (
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
from dmlsim.api.structs import (
    DML_BINDING_DESC,
    DML_BINDING_PROPERTIES,
    DML_BINDING_TABLE_DESC,
    DML_BUFFER_ARRAY_BINDING,
    DML_BUFFER_BINDING,
    DML_BUFFER_TENSOR_DESC,
    DML_CONSTANT_DATA_GRAPH_NODE_DESC,
    DML_FEATURE_DATA_FEATURE_LEVELS,
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT,
    DML_FEATURE_QUERY_FEATURE_LEVELS,
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT,
    DML_GRAPH_DESC,
    DML_GRAPH_EDGE_DESC,
    DML_GRAPH_NODE_DESC,
    DML_INPUT_GRAPH_EDGE_DESC,
    DML_INTERMEDIATE_GRAPH_EDGE_DESC,
    DML_OPERATOR_DESC,
    DML_OPERATOR_GRAPH_NODE_DESC,
    DML_OUTPUT_GRAPH_EDGE_DESC,
    DML_SCALAR_UNION,
    DML_SCALE_BIAS,
    DML_SIZE_2D,
    DML_TENSOR_DESC,
    buffer_array_binding,
    buffer_binding,
    buffer_tensor,
)
from dmlsim.api.tensor import (
    DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT,
    DML_PERSISTENT_BUFFER_ALIGNMENT,
    DML_TEMPORARY_BUFFER_ALIGNMENT,
    DMLCalcBufferTensorSize,
)
from dmlsim.backends.adapters import all_adapters
from dmlsim.entry import DMLCreateDevice
from dmlsim.operators import operator_for
from dmlsim.operators.adagrad_decay import DMLSIM_ADAGRAD_DECAY_OPERATOR_DESC
from dmlsim.operators.adam_optimizer import DML_ADAM_OPTIMIZER_OPERATOR_DESC
from dmlsim.operators.base import OPERATORS
from dmlsim.operators.onnx_training import (
    DMLSIM_ONNX_ADAGRAD_OPERATOR_DESC,
    DMLSIM_ONNX_ADAM_OPERATOR_DESC,
    DMLSIM_ONNX_MOMENTUM_MODE,
    DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC,
)
from dmlsim.runtime.buffer import Buffer
from dmlsim.runtime.device import CommandList, CommandQueue, CommandRecorder, Device

DMLSIM_ONNX_MOMENTUM_MODE_STANDARD = DMLSIM_ONNX_MOMENTUM_MODE.DMLSIM_ONNX_MOMENTUM_MODE_STANDARD
DMLSIM_ONNX_MOMENTUM_MODE_NESTEROV = DMLSIM_ONNX_MOMENTUM_MODE.DMLSIM_ONNX_MOMENTUM_MODE_NESTEROV

__version__ = "0.1.0"

__all__ = [
    "DMLSIM_ADAGRAD_DECAY_OPERATOR_DESC",
    "DMLSIM_ONNX_ADAGRAD_OPERATOR_DESC",
    "DMLSIM_ONNX_ADAM_OPERATOR_DESC",
    "DMLSIM_ONNX_MOMENTUM_MODE",
    "DMLSIM_ONNX_MOMENTUM_MODE_NESTEROV",
    "DMLSIM_ONNX_MOMENTUM_MODE_STANDARD",
    "DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC",
    "DML_ADAM_OPTIMIZER_OPERATOR_DESC",
    "DML_BINDING_DESC",
    "DML_BINDING_PROPERTIES",
    "DML_BINDING_TABLE_DESC",
    "DML_BINDING_TYPE",
    "DML_BUFFER_ARRAY_BINDING",
    "DML_BUFFER_BINDING",
    "DML_BUFFER_TENSOR_DESC",
    "DML_CONSTANT_DATA_GRAPH_NODE_DESC",
    "DML_CREATE_DEVICE_FLAGS",
    "DML_EXECUTION_FLAGS",
    "DML_FEATURE",
    "DML_FEATURE_DATA_FEATURE_LEVELS",
    "DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT",
    "DML_FEATURE_LEVEL",
    "DML_FEATURE_QUERY_FEATURE_LEVELS",
    "DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT",
    "DML_GRAPH_DESC",
    "DML_GRAPH_EDGE_DESC",
    "DML_GRAPH_NODE_DESC",
    "DML_INPUT_GRAPH_EDGE_DESC",
    "DML_INTERMEDIATE_GRAPH_EDGE_DESC",
    "DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT",
    "DML_OPERATOR_DESC",
    "DML_OPERATOR_GRAPH_NODE_DESC",
    "DML_OPERATOR_TYPE",
    "DML_OUTPUT_GRAPH_EDGE_DESC",
    "DML_PERSISTENT_BUFFER_ALIGNMENT",
    "DML_SCALAR_UNION",
    "DML_SCALE_BIAS",
    "DML_SIZE_2D",
    "DML_TEMPORARY_BUFFER_ALIGNMENT",
    "DML_TENSOR_DATA_TYPE",
    "DML_TENSOR_DESC",
    "DML_TENSOR_FLAGS",
    "DML_TENSOR_TYPE",
    "DXGI_ERROR_DEVICE_REMOVED",
    "DXGI_ERROR_INVALID_CALL",
    "DXGI_ERROR_UNSUPPORTED",
    "E_FAIL",
    "E_INVALIDARG",
    "E_NOTIMPL",
    "E_OUTOFMEMORY",
    "OPERATORS",
    "S_OK",
    "Buffer",
    "CommandList",
    "CommandQueue",
    "CommandRecorder",
    "DMLCalcBufferTensorSize",
    "DMLCreateDevice",
    "DMLError",
    "Device",
    "all_adapters",
    "buffer_array_binding",
    "buffer_binding",
    "buffer_tensor",
    "operator_for",
]
__all__.extend(HEADER_CONSTANTS)
__all__.extend(name for name in _directml_schema.__all__ if name not in __all__)
