"""The device buffer (the ID3D12Resource stand-in): zero-filled bytes that a backend stores."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dmlsim.api.errors import E_INVALIDARG, DMLError

if TYPE_CHECKING:  # type-only: the device creates buffers, a buffer never creates a device
    from dmlsim.runtime.device import Device


class Buffer:
    """A device buffer (the ID3D12Resource stand-in): zero-filled, read and written as bytes."""

    def __init__(self, device: Device, size: int) -> None:
        self.device = device
        self.size = size
        self.storage = device.backend.allocate(size)

    def Write(self, data: Any, offset: int = 0) -> None:
        """Copy bytes (anything bytes-like, or a numpy array's raw bytes) into the buffer at ``offset``."""
        # numpy scalars too: bytes(np.uint32(4)) would be four zero bytes, not the value
        raw = np.frombuffer(data.tobytes() if isinstance(data, (np.ndarray, np.generic)) else bytes(data),
                            np.uint8)
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0 or offset + raw.size > self.size:
            raise DMLError(E_INVALIDARG, f"Buffer.Write of {raw.size} bytes at offset {offset!r} does not fit "
                                         f"the {self.size}-byte buffer")
        if raw.size:
            self.device.backend.write(self.storage, offset, raw)

    def Read(self, offset: int = 0, size: int | None = None) -> bytes:
        """The buffer's bytes from ``offset`` (``size`` bytes, or to the end); waits for queued work."""
        size = self.size - offset if size is None else size
        if (isinstance(offset, bool) or not isinstance(offset, int) or not isinstance(size, int)
                or offset < 0 or size < 0 or offset + size > self.size):
            raise DMLError(E_INVALIDARG, f"Buffer.Read of {size!r} bytes at offset {offset!r} does not fit "
                                         f"the {self.size}-byte buffer")
        return self.device.backend.read(self.storage, offset, size) if size else b""

    def read_array(self, dtype: Any, count: int | None = None, offset: int = 0) -> np.ndarray:
        """Convenience: the buffer's bytes from ``offset`` as a numpy array of ``dtype``."""
        itemsize = np.dtype(dtype).itemsize
        size = (self.size - offset) // itemsize * itemsize if count is None else count * itemsize
        return np.frombuffer(self.Read(offset, size), dtype=dtype).copy()

    def __repr__(self) -> str:
        return f"<dmlsim.Buffer {self.size} bytes on {self.device.adapter.name}>"
