"""OpenCL ICDs (installable client drivers) on this machine, and probing each one in isolation.

An ICD is a ``.icd`` file naming a driver library. Two PoCL builds loaded into one process conflict
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


def icd_files() -> list[Path]:
    """The ICD files the OpenCL loader would read: pyopencl's bundled one (PyPI's PoCL) and the system's."""
    found: list[Path] = []
    try:
        import pyopencl

        found += sorted((Path(pyopencl.__file__).parent / ".libs").glob("*.icd"))
    except ImportError:
        pass
    if SYSTEM_VENDORS.is_dir():
        found += sorted(SYSTEM_VENDORS.glob("*.icd"))
    return found


def probe_icd(path: Path, timeout: float = 300.0) -> IcdReport:
    """List and probe the devices of one ICD in a child process that sees only that ICD."""
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
