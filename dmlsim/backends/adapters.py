"""Finding OpenCL devices and choosing one, as DMLCreateDevice's ``adapter`` argument describes.

``adapter`` may be None (then ``$DMLSIM_ADAPTER``, else the first GPU, else the first CPU device), a
substring of "platform name / device name / platform version", ``"P:D"`` indices, or ``"reference"``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from dmlsim.api.arguments import shown
from dmlsim.api.errors import DXGI_ERROR_UNSUPPORTED, E_INVALIDARG, DMLError
from dmlsim.backends.opencl.errors import NO_OPENCL_FIX, check, import_pyopencl

REFERENCE = "reference"


@dataclass(frozen=True)
class AdapterInfo:
    """One selectable adapter: an OpenCL device (``index`` "P:D") or the numpy reference device."""

    index: str
    platform: str
    name: str
    kind: str  # "GPU", "CPU", "ACCELERATOR", "reference"
    version: str
    cl_device: Any = None

    @property
    def label(self) -> str:
        if self.kind == REFERENCE:
            return "reference (numpy, float64 reference implementations)"
        return f"{self.index} {self.platform} / {self.name} [{self.kind}] ({self.version})"

    @property
    def short_label(self) -> str:
        """A compact, stable name for test ids: ``0:0-PoCL-3.1+debian-CPU`` or ``reference``."""
        if self.kind == REFERENCE:
            return REFERENCE
        words = self.version.split()
        impl = "-".join(words[2:4]) if len(words) >= 4 else self.platform.split()[0]
        return f"{self.index}-{impl}-{self.kind}"


def opencl_adapters() -> list[AdapterInfo]:
    """Every OpenCL device present, in platform/device order (empty when there is no OpenCL at all)."""
    try:
        cl = import_pyopencl()
    except DMLError:
        return []
    try:
        platforms = cl.get_platforms()
    except cl.Error:
        return []
    found = []
    for p_index, platform in enumerate(platforms):
        with check(f"listing devices of OpenCL platform {platform.name!r}"):
            try:
                devices = platform.get_devices()
            except cl.Error:
                devices = []
        for d_index, device in enumerate(devices):
            kind = next((name for name in ("GPU", "ACCELERATOR", "CPU")
                         if device.type & getattr(cl.device_type, name)), "DEVICE")
            found.append(AdapterInfo(f"{p_index}:{d_index}", platform.name, device.name.strip(), kind,
                                     platform.version.strip(), device))
    return found


def reference_adapter() -> AdapterInfo:
    return AdapterInfo("reference", "dmlsim", "numpy reference", REFERENCE, "float64")


def all_adapters() -> list[AdapterInfo]:
    """OpenCL devices first, then the reference device."""
    return [*opencl_adapters(), reference_adapter()]


def select_adapter(spec: str | None) -> AdapterInfo:
    """Resolve an adapter spec to one adapter, or raise a DMLError listing what exists."""
    if spec is None:
        spec = os.environ.get("DMLSIM_ADAPTER") or None
    if spec is not None and spec.strip().lower() == REFERENCE:
        return reference_adapter()
    adapters = opencl_adapters()
    if not adapters:
        raise DMLError(DXGI_ERROR_UNSUPPORTED, f"no OpenCL device found; {NO_OPENCL_FIX}")
    if spec is None:
        return _first_usable(adapters)
    for adapter in adapters:
        if adapter.index == spec.strip():
            return adapter
    needle = spec.strip().lower()
    matches = [a for a in adapters if needle in f"{a.platform} / {a.name} / {a.version}".lower()]
    if matches:
        return matches[0]
    listing = "; ".join(a.label for a in all_adapters())
    raise DMLError(E_INVALIDARG, f"adapter {shown(spec)} matches no device; available: {listing}")


def _first_usable(adapters: list[AdapterInfo]) -> AdapterInfo:
    """The default adapter: the first GPU, else accelerator, else CPU device that builds and runs a kernel."""
    from dmlsim.backends.opencl.probe import probe

    order = {"GPU": 0, "ACCELERATOR": 1, "CPU": 2}
    problems = []
    for adapter in sorted(adapters, key=lambda a: order.get(a.kind, 3)):
        problem = probe(adapter)
        if problem is None:
            return adapter
        problems.append(f"{adapter.label}: {problem}")
    raise DMLError(DXGI_ERROR_UNSUPPORTED, "no usable OpenCL device (" + "; ".join(problems) + f"); {NO_OPENCL_FIX}")
