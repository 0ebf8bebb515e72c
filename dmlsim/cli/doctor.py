"""``dmlsim doctor``: is there an OpenCL device that works? With ``--install``, get one if not.

Looks at the ICDs the OpenCL loader will read in this environment (``OCL_ICD_VENDORS`` honoured, see
dmlsim.backends.opencl.icd) and probes each in its own process (two PoCL builds in one process
conflict). ``--install`` first registers installed runtimes that the loader would not see (Intel's from
PyPI, NVIDIA's GPU driver without an ICD file, see dmlsim.backends.opencl.vendors); if still no device is
usable it tries pip-only fixes (Intel's runtime from PyPI, which needs no root and builds kernels on CPUs
that PyPI's PoCL 3.0 with LLVM 14 does not know), and only as the last resort, as root on a Debian-family
machine, ``apt-get install pocl-opencl-icd``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Callable

from dmlsim.backends.opencl.errors import NO_OPENCL_FIX
from dmlsim.backends.opencl.icd import IcdReport, icd_files, loader_notes, probe_icd
from dmlsim.backends.opencl.vendors import (
    INTEL_PACKAGES,
    intel_library,
    register_intel,
    register_nvidia,
    unregistered_runtimes,
)

NAME = "doctor"
HELP = ("check that a usable OpenCL device exists (with --install: register PyPI runtimes, pip-install "
        "Intel's if none works, apt-get Debian's PoCL as the last resort)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--install", action="store_true",
                        help="register pip-installed runtimes; if no device is usable, pip install Intel's "
                             "OpenCL CPU runtime, then (root, apt-get) Debian's pocl-opencl-icd")


def survey() -> list[IcdReport]:
    for note in [*loader_notes(), *unregistered_runtimes()]:
        print(f"note: {note}")
    paths = icd_files()
    if not paths:
        print("no ICD files where the OpenCL loader looks")
    reports = [probe_icd(path) for path in paths]
    for report in reports:
        print(f"ICD {report.path}:")
        if report.error:
            print(f"  error: {report.error}")
        for device in report.devices:
            state = "usable" if device["problem"] is None else f"UNUSABLE: {device['problem']}"
            print(f"  {device['label']}\n    -> {state}")
        if not report.devices and not report.error:
            print("  no devices")
    return reports


def run(args: argparse.Namespace) -> int:
    if args.install:
        print(f"doctor: {register_intel()}")
        print(f"doctor: {register_nvidia()}")
    if any(r.usable for r in survey()):
        print("doctor: OK, at least one usable OpenCL device")
        return 0
    if not args.install:
        print(f"doctor: no usable OpenCL device; {NO_OPENCL_FIX}")
        return 1
    override = os.environ.get("OCL_ICD_VENDORS", "")
    if override and not os.path.isdir(override):
        print(f"doctor: no usable OpenCL device, and OCL_ICD_VENDORS={override} restricts the loader to that "
              "one ICD: installing another would not help; unset it or point it at a working ICD")
        return 1
    for name, fix in _fixes():
        print(f"doctor: no usable OpenCL device; trying {name}")
        if not fix():
            continue
        if any(r.usable for r in survey()):
            print(f"doctor: OK after {name}")
            return 0
        print(f"doctor: still no usable OpenCL device after {name}")
    print(f"doctor: no usable OpenCL device; {NO_OPENCL_FIX}")
    return 1


def _fixes() -> list[tuple[str, Callable[[], bool]]]:
    """The installs to try, pip-only ones first; apt-get (needs root) is the last resort."""
    fixes: list[tuple[str, Callable[[], bool]]] = []
    if intel_library() is None:
        fixes.append((f"`pip install {' '.join(INTEL_PACKAGES)}` (Intel's OpenCL CPU runtime)", _pip_intel))
    if shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
        fixes.append(("`apt-get install pocl-opencl-icd` (Debian's PoCL)", _apt_pocl))
    return fixes


def _pip_intel() -> bool:
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *INTEL_PACKAGES]
    if subprocess.run(command, check=False).returncode != 0:
        print(f"doctor: `{' '.join(command)}` failed")
        return False
    print(f"doctor: {register_intel()}")
    return True


def _apt_pocl() -> bool:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "pocl-opencl-icd"]):
        if subprocess.run(command, env=env, check=False).returncode != 0:
            print(f"doctor: `{' '.join(command)}` failed")
            return False
    return True
