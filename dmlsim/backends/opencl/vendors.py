"""Registering OpenCL runtimes installed from PyPI whose wheels do not register themselves.

Intel's OpenCL CPU runtime (``intel-opencl-rt``, with ``intel-cmplr-lib-rt``'s math libraries) installs
``libintelocl.so`` into ``<venv>/lib`` and an ``etc/OpenCL/vendors/intel-cpu.icd`` naming a conda
placeholder path (``/opt/anaconda1anaconda2anaconda3/lib/libintelocl.so``) that no loader reads and that
would not resolve if one did. :func:`register_intel` writes a correct ``intel-cpu.icd`` (the library's
absolute path) where pyopencl's bundled loader always looks, its own ``pyopencl/.libs`` folder, as
``pocl-binary-distribution`` does for PoCL: inside the environment, no root, and idempotent (a file that
already says the same is left alone; one left behind by an uninstalled runtime is removed).

This is done at install time (``dmlsim doctor --install``, which ``make opencl`` runs), not on import:
the loader reads its ICD files once per process, at pyopencl's first platform query, and an import that
writes into site-packages would be a surprising side effect that fails on read-only installs and races
between parallel test processes. At run time dmlsim only notices an unregistered runtime
(:func:`unregistered_runtimes`) and says how to register it.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from dmlsim.backends.opencl.icd import bundled_vendors

INTEL_DISTRIBUTION = "intel-opencl-rt"
INTEL_LIBRARY = "libintelocl.so"
INTEL_ICD = "intel-cpu.icd"
# what `pip install` needs for a no-root OpenCL CPU device (dmlsim[intel] lists the same)
INTEL_PACKAGES = ("intel-opencl-rt", "intel-cmplr-lib-rt")


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


def unregistered_runtimes() -> list[str]:
    """Runtimes installed from PyPI that the loader cannot see yet, each with the command that fixes it."""
    library = intel_library()
    folder = bundled_vendors()
    if library is None or folder is None:
        return []
    icd = folder / INTEL_ICD
    if icd.is_file() and icd.read_text().strip() == str(library):
        return []
    return ["Intel's OpenCL CPU runtime is installed but not registered with the OpenCL loader: "
            "run `dmlsim doctor --install`"]
