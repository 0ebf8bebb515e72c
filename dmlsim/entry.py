"""DMLCreateDevice: the entry point that joins an adapter's backend to a runtime device."""

from __future__ import annotations

from dmlsim.api.enums import DML_CREATE_DEVICE_FLAGS
from dmlsim.api.errors import E_INVALIDARG, DMLError
from dmlsim.backends import open_backend
from dmlsim.backends.adapters import AdapterInfo, select_adapter
from dmlsim.runtime.device import Device


def DMLCreateDevice(flags: int = 0, adapter: str | int | None = None) -> Device:
    """Create an IDMLDevice on an adapter (see dmlsim.backends.adapters.select_adapter for ``adapter``)."""
    if isinstance(flags, bool) or not isinstance(flags, int) or flags & ~int(
            DML_CREATE_DEVICE_FLAGS.DML_CREATE_DEVICE_FLAG_DEBUG):
        raise DMLError(E_INVALIDARG, f"DMLCreateDevice: flags {flags!r} has bits that are not "
                                     "DML_CREATE_DEVICE_FLAGS")
    return create_device(flags, select_adapter(adapter))


def create_device(flags: int, adapter: AdapterInfo) -> Device:
    """A device on an adapter already chosen (tests and tools that enumerate adapters themselves)."""
    return Device(flags, adapter, open_backend(adapter))
