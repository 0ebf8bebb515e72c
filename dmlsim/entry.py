"""DMLCreateDevice: the entry point that joins an adapter's backend to a runtime device."""

from __future__ import annotations

from dmlsim.api.arguments import invalid, require_flags, shown
from dmlsim.api.enums import DML_CREATE_DEVICE_FLAGS
from dmlsim.backends import open_backend
from dmlsim.backends.adapters import AdapterInfo, select_adapter
from dmlsim.runtime.device import Device


def DMLCreateDevice(flags: int = 0, adapter: str | None = None) -> Device:
    """Create an IDMLDevice on an adapter (see dmlsim.backends.adapters.select_adapter for ``adapter``)."""
    flags = require_flags(flags, DML_CREATE_DEVICE_FLAGS, "DMLCreateDevice: flags")
    if adapter is not None and not isinstance(adapter, str):
        raise invalid(f"DMLCreateDevice: adapter must be None or a str (a name, \"P:D\" or \"reference\"), got "
                      f"{type(adapter).__name__} {shown(adapter)}")
    return create_device(flags, select_adapter(adapter))


def create_device(flags: int, adapter: AdapterInfo) -> Device:
    """A device on an adapter already chosen (tests and tools that enumerate adapters themselves)."""
    return Device(flags, adapter, open_backend(adapter))
