"""Registering OpenCL runtimes that are installed but that the loader would not see.

Intel's OpenCL CPU runtime (``intel-opencl-rt``, with ``intel-cmplr-lib-rt``'s math libraries) installs
``libintelocl.so`` into ``<venv>/lib`` and an ``etc/OpenCL/vendors/intel-cpu.icd`` naming a conda
placeholder path (``/opt/anaconda1anaconda2anaconda3/lib/libintelocl.so``) that no loader reads and that
would not resolve if one did. :func:`register_intel` writes a correct ``intel-cpu.icd`` (the library's
absolute path) where pyopencl's bundled loader always looks, its own ``pyopencl/.libs`` folder, as
``pocl-binary-distribution`` does for PoCL: inside the environment, no root, and idempotent (a file that
already says the same is left alone; one left behind by an uninstalled runtime is removed).

NVIDIA's OpenCL driver (``libnvidia-opencl.so.1``) comes with the GPU driver, but a container or a
machine given the driver's libraries often lacks ``/etc/OpenCL/vendors/nvidia.icd``: :func:`register_nvidia`
then writes ``nvidia.icd`` (the library's soname, which the dynamic linker resolves) into the same folder,
and removes it again where a system ICD already names the driver (the loader would list the GPU twice) or
the driver is gone.

This is done at install time (``dmlsim doctor --install``, which ``make opencl`` runs), not on import:
the loader reads its ICD files once per process, at pyopencl's first platform query, and an import that
writes into site-packages would be a surprising side effect that fails on read-only installs and races
between parallel test processes. At run time dmlsim only notices an unregistered runtime
(:func:`unregistered_runtimes`) and says how to register it.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from dmlsim.backends.opencl import icd as icd_module
from dmlsim.backends.opencl.icd import bundled_vendors

INTEL_DISTRIBUTION = "intel-opencl-rt"
INTEL_LIBRARY = "libintelocl.so"
INTEL_ICD = "intel-cpu.icd"
# what `pip install` needs for a no-root OpenCL CPU device (dmlsim[intel] lists the same)
INTEL_PACKAGES = ("intel-opencl-rt", "intel-cmplr-lib-rt")
NVIDIA_LIBRARY = "libnvidia-opencl.so.1"
NVIDIA_ICD = "nvidia.icd"
NVIDIA = "NVIDIA OpenCL (GPU driver)"


@dataclass(frozen=True)
class Registration:
    """The outcome of registering one runtime: what was done, in words, and the .icd file concerned."""

    runtime: str
    icd: Path | None
    action: str  # "written", "unchanged", "removed", "not installed", "no loader folder"

    def __str__(self) -> str:
        where = f" ({self.icd})" if self.icd else ""
        return f"{self.runtime}: {self.action}{where}"


def intel_library() -> Path | None:
    """The installed ``libintelocl.so`` of ``intel-opencl-rt``, or None if that package is not installed."""
    try:
        files = metadata.distribution(INTEL_DISTRIBUTION).files or []
    except metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.name == INTEL_LIBRARY:
            path = Path(str(file.locate())).resolve()
            return path if path.is_file() else None
    return None


def register_intel(folder: Path | None = None, library: Path | None = None) -> Registration:
    """Write (or keep, or remove a stale) ``intel-cpu.icd`` in ``folder`` (default: pyopencl's ``.libs``)."""
    folder = folder if folder is not None else bundled_vendors()
    library = library if library is not None else intel_library()
    name = "Intel OpenCL CPU runtime"
    if folder is None:
        return Registration(name, None, "no loader folder (pyopencl has no bundled ICD loader: register "
                                        f"{library} in /etc/OpenCL/vendors or with OCL_ICD_VENDORS)")
    icd = folder / INTEL_ICD
    if library is None:
        if icd.is_file() and icd.read_text().strip().endswith(INTEL_LIBRARY):
            icd.unlink()
            return Registration(name, icd, "removed (the runtime is no longer installed)")
        return Registration(name, None, "not installed")
    wanted = f"{library}\n"
    if icd.is_file() and icd.read_text() == wanted:
        return Registration(name, icd, "unchanged")
    temporary = icd.with_suffix(".icd.tmp")  # not *.icd: a loader starting meanwhile never reads half a file
    temporary.write_text(wanted)
    temporary.replace(icd)
    return Registration(name, icd, "written")


def nvidia_library() -> str | None:
    """``libnvidia-opencl.so.1`` when the dynamic linker can load it (NVIDIA's GPU driver is here), else None."""
    try:
        ctypes.CDLL(NVIDIA_LIBRARY)
    except OSError:
        return None
    return NVIDIA_LIBRARY


def system_nvidia_icd() -> Path | None:
    """An ICD of the system folder (or of the folder ``OCL_ICD_VENDORS`` names) that names NVIDIA's driver."""
    bundled = icd_module.bundled_vendors()
    vendors = [path for path in icd_module.icd_files() if path.parent != bundled]
    for path in vendors:
        try:
            if "libnvidia-opencl" in path.read_text(errors="replace"):
                return path
        except OSError:
            continue
    return None


def register_nvidia(folder: Path | None = None, library: str | None = None) -> Registration:
    """Write (or keep, or remove) ``nvidia.icd`` in ``folder`` (default: pyopencl's ``.libs``): written where
    NVIDIA's driver loads and no system ICD names it; removed where one does, or where the driver is gone."""
    folder = folder if folder is not None else bundled_vendors()
    library = library if library is not None else nvidia_library()
    if folder is None:
        return Registration(NVIDIA, None, "no loader folder (pyopencl has no bundled ICD loader)")
    icd = folder / NVIDIA_ICD
    ours = icd.is_file() and icd.read_text().strip() == NVIDIA_LIBRARY
    system = system_nvidia_icd() if library is not None else None
    if library is None or system is not None:
        if ours:
            icd.unlink()
            why = "the driver is no longer here" if library is None else f"{system} already names the driver"
            return Registration(NVIDIA, icd, f"removed ({why})")
        return Registration(NVIDIA, system, "registered by the system" if system else "not installed")
    if ours:
        return Registration(NVIDIA, icd, "unchanged")
    temporary = icd.with_suffix(".icd.tmp")
    temporary.write_text(f"{library}\n")
    temporary.replace(icd)
    return Registration(NVIDIA, icd, "written")


def unregistered_runtimes() -> list[str]:
    """Installed runtimes that the loader cannot see yet, each with the command that fixes it."""
    folder = bundled_vendors()
    if folder is None:
        return []
    notes = []
    library = intel_library()
    icd = folder / INTEL_ICD
    if library is not None and not (icd.is_file() and icd.read_text().strip() == str(library)):
        notes.append("Intel's OpenCL CPU runtime is installed but not registered with the OpenCL loader: "
                     "run `dmlsim doctor --install`")
    icd = folder / NVIDIA_ICD
    if (not (icd.is_file() and icd.read_text().strip() == NVIDIA_LIBRARY) and nvidia_library() is not None
            and system_nvidia_icd() is None):
        notes.append(f"NVIDIA's OpenCL driver ({NVIDIA_LIBRARY}) is here but no ICD names it, so the GPU is not "
                     "seen: run `dmlsim doctor --install`")
    return notes
