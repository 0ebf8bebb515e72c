"""The mirror of directml.h: enums, structs, HRESULT errors, tensor-desc rules and the operator schema.

Nothing here knows a device, a backend or an operator implementation; every other layer builds on it.
"""
