"""The IDMLDevice flow: device, buffers, binding tables and hazards, dispatchables, command queue.

The runtime knows no backend: a device is handed an object satisfying
:class:`dmlsim.runtime.execution.Backend` and only calls its methods.
"""
