"""The device buffer (the ID3D12Resource stand-in): zero-filled bytes that a backend stores."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dmlsim.api.arguments import invalid, is_integer, require_bytes, require_dtype, require_uint, shown

if TYPE_CHECKING:  # type-only: the device creates buffers, a buffer never creates a device
    from dmlsim.runtime.device import Device


class Buffer:
    """A device buffer (the ID3D12Resource stand-in): zero-filled, read and written as bytes."""

    def __init__(self, device: Device, size: int) -> None:
        self.device = device
        self.size = size
        with device.execution_lock:  # an OpenCL call on the device's queue (a fill): never beside another
            self.storage = device.backend.allocate(size)

    def Write(self, data: Any, offset: int = 0) -> None:
        """Copy bytes (anything bytes-like, or a numpy array's raw bytes) into the buffer at ``offset``.

        Only bytes-like objects and numpy data are accepted: ``Write(5)`` would otherwise write
        ``bytes(5)``, five zero bytes, where the value 5 was meant.
        """
        raw = require_bytes(data, "Buffer.Write: data")
        self._check_range("Buffer.Write", offset, raw.size)
        if raw.size:
            with self.device.execution_lock:
                self.device.backend.write(self.storage, int(offset), raw)

    def Read(self, offset: int = 0, size: int | None = None) -> bytes:
        """The buffer's bytes from ``offset`` (``size`` bytes, or to the end); waits for queued work."""
        if not is_integer(offset):
            raise invalid(f"Buffer.Read: offset must be an integer, got {type(offset).__name__} {shown(offset)}")
        size = self.size - int(offset) if size is None else size
        self._check_range("Buffer.Read", offset, size)
        if not size:
            return b""
        with self.device.execution_lock:
            return self.device.backend.read(self.storage, int(offset), int(size))

    def read_array(self, dtype: Any, count: int | None = None, offset: int = 0) -> np.ndarray:
        """Convenience: the buffer's bytes from ``offset`` as a numpy array of ``dtype``."""
        dtype = require_dtype(dtype, "Buffer.read_array: dtype")
        if not is_integer(offset) or not 0 <= offset <= self.size:
            raise invalid(f"Buffer.read_array: offset {shown(offset)} is not within the {self.size}-byte buffer")
        if count is None:
            size = (self.size - int(offset)) // dtype.itemsize * dtype.itemsize
        else:
            size = require_uint(count, "Buffer.read_array: count") * dtype.itemsize
        return np.frombuffer(self.Read(offset, size), dtype=dtype).copy()

    def _check_range(self, call: str, offset: Any, size: Any) -> None:
        """E_INVALIDARG unless ``offset`` and ``size`` are integers and [offset, offset + size) lies in the buffer."""
        if not is_integer(offset) or not is_integer(size) or offset < 0 or size < 0 or offset + size > self.size:
            raise invalid(f"{call} of {shown(size)} bytes at offset {shown(offset)} does not fit the "
                          f"{self.size}-byte buffer")

    def __repr__(self) -> str:
        return f"<dmlsim.Buffer {self.size} bytes on {self.device.adapter.name}>"
