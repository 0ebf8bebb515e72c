"""``dmlsim doctor``: is there an OpenCL device that works? With ``--install``, get one if not.

Probes every ICD in its own process (two PoCL builds in one process conflict). If none has a usable
device and ``--install`` is given on a Debian-family machine as root, installs Debian's
``pocl-opencl-icd`` (PyPI's PoCL 3.0, built with LLVM 14, cannot compile kernels for CPUs that LLVM 14
does not know, e.g. recent AMD EPYC); otherwise it says what to install.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess

from dmlsim.backends.opencl.errors import NO_OPENCL_FIX
from dmlsim.backends.opencl.icd import IcdReport, icd_files, probe_icd

NAME = "doctor"
HELP = "check that a usable OpenCL device exists (and with --install, install Debian's PoCL if none)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--install", action="store_true",
                        help="if no usable device: apt-get install pocl-opencl-icd (needs root and apt-get)")


def survey() -> list[IcdReport]:
    reports = [probe_icd(path) for path in icd_files()]
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
    reports = survey()
    if any(r.usable for r in reports):
        print("doctor: OK, at least one usable OpenCL device")
        return 0
    can_install = args.install and shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0
    if not can_install:
        print(f"doctor: no usable OpenCL device; {NO_OPENCL_FIX}")
        return 1
    print("doctor: no usable OpenCL device; installing Debian's pocl-opencl-icd (apt-get)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "pocl-opencl-icd"]):
        if subprocess.run(command, env=env, check=False).returncode != 0:
            print(f"doctor: `{' '.join(command)}` failed; {NO_OPENCL_FIX}")
            return 1
    if any(r.usable for r in survey()):
        print("doctor: OK after installing pocl-opencl-icd")
        return 0
    print("doctor: still no usable OpenCL device after installing pocl-opencl-icd")
    return 1
