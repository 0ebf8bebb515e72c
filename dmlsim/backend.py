"""dmlsim's ONNX backend under its conventional module name (as ``onnxruntime.backend``).

The implementation lives in :mod:`dmlsim.onnx.execution`; this module only re-exports its public
functions so that ``import dmlsim.backend as backend; backend.run_model(model, inputs)`` works.
"""

from __future__ import annotations

from dmlsim.onnx.execution import (
    DmlsimBackend,
    DmlsimBackendRep,
    device_for,
    is_compatible,
    prepare,
    run,
    run_model,
    run_node,
    supports_device,
)

__all__ = ["DmlsimBackend", "DmlsimBackendRep", "device_for", "is_compatible", "prepare", "run", "run_model",
           "run_node", "supports_device"]
