"""The GPU's own copy bandwidth through CUDA: the yardstick of `dmlsim bench` on an NVIDIA GPU.

On a GPU the host's native limits say nothing of the device; what the device itself moves does. A
device-to-device copy of the point's byte count (half read, half written) by torch on its CUDA device,
timed with CUDA events, is that figure through the vendor's own API, beside the OpenCL copy kernel
(:class:`dmlsim.backends.opencl.roofline.Roofline`) on the same timers as dmlsim. It is measured only where
torch sees a CUDA device whose name is the OpenCL device's (the same GPU); otherwise
:class:`CudaCopyUnavailableError` says why.
"""

from __future__ import annotations

from typing import Any

from dmlsim.bench.peers import torch_module


class CudaCopyUnavailableError(RuntimeError):
    """No CUDA copy can be timed for this device; the message says why (shown in the bench report)."""


class CudaCopy:
    """Two CUDA buffers of ``bytes_moved / 2`` bytes; :meth:`run` copies one into the other once (ns)."""

    def __init__(self, device_name: str, bytes_moved: int) -> None:
        torch = torch_module()
        if torch is None or not torch.cuda.is_available():
            raise CudaCopyUnavailableError("torch with a CUDA device is not installed")
        cuda_name = torch.cuda.get_device_name()
        if cuda_name.strip() != device_name.strip():
            raise CudaCopyUnavailableError(f"torch's CUDA device ({cuda_name}) is not this OpenCL device "
                                           f"({device_name})")
        half = max(64, -(-bytes_moved // 2 // 64) * 64)
        self.bytes_moved = 2 * half
        self.torch: Any = torch
        self.source = torch.empty(half, dtype=torch.uint8, device="cuda")
        self.destination = torch.empty_like(self.source)
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)

    def run(self) -> float:
        self.start.record()
        self.destination.copy_(self.source)
        self.end.record()
        self.end.synchronize()
        return self.start.elapsed_time(self.end) * 1e6

    def release(self) -> None:
        del self.source, self.destination
        self.torch.cuda.empty_cache()
