"""Run the test suite once per OpenCL ICD (what ``make test`` calls).

Two PoCL builds loaded into one process conflict, so each ICD gets its own pytest process that sees
only that ICD (``OCL_ICD_VENDORS``). The first ICD with a usable device runs the whole suite (pure
tier, device tier on its devices and on ``reference``, descriptor corpus); every other ICD runs the
device tier on its OpenCL devices only; an ICD of CPU devices also runs the device tier with the GPU
launch shapes forced (``DMLSIM_LAUNCH_SHAPE=gpu``), leaving out the ``formula`` tests (a kernel's
arithmetic, which the launch shape does not change; each member of a family is its own build); an ICD
whose devices cannot build kernels runs tests/test_adapters.py, which checks that they fail with a
clear error. At least one usable OpenCL device must exist: a machine where only the reference device
runs does not pass.

Usage: python tests/matrix.py [extra pytest args]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from dmlsim.backends.opencl.icd import icd_files, probe_icd

ROOT = Path(__file__).resolve().parent.parent


def run_pytest(label: str, icd: str, args: list[str], env_extra: dict[str, str], junit: Path) -> tuple[int, dict]:
    env = {**os.environ, "OCL_ICD_VENDORS": icd, **env_extra}
    command = [sys.executable, "-m", "pytest", f"--junitxml={junit}", *args]
    print(f"\n=== {label}: OCL_ICD_VENDORS={icd} {' '.join(f'{k}={v}' for k, v in env_extra.items())}"
          f" pytest {' '.join(args)}", flush=True)
    rc = subprocess.run(command, env=env, cwd=ROOT, check=False).returncode
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    if junit.exists():
        for suite in ET.parse(junit).getroot().iter("testsuite"):
            for key in counts:
                counts[key] += int(suite.get(key, 0))
    return rc, counts


def main(extra: list[str]) -> int:
    reports = [probe_icd(path) for path in icd_files()]
    usable = [r for r in reports if r.usable]
    print("OpenCL ICDs:")
    for r in reports:
        devices = ", ".join(f"{d['id']} ({'usable' if d['problem'] is None else 'UNUSABLE: ' + d['problem']})"
                            for d in r.devices) or (r.error or "no devices")
        print(f"  {r.path}: {devices}")
    if not usable:
        print("matrix: no usable OpenCL device: run `make opencl` (or `dmlsim doctor --install`)")
        return 1
    order = usable + [r for r in reports if not r.usable]
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    failed_runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, report in enumerate(order):
            if i == 0:
                label, args, env = "whole suite", [*extra], {"DMLSIM_REQUIRE_OPENCL": "1"}
            elif report.usable:
                label, args, env = "device tier", ["-m", "device", *extra], {"DMLSIM_TEST_ADAPTERS": "opencl"}
            else:
                label, args, env = "unusable-device checks", ["tests/test_adapters.py", *extra], {}
            runs = [(label, args, env)]
            if report.usable and report.devices and all(d.get("kind") == "CPU" for d in report.devices):
                # the GPU launch shapes (grid-stride loops, wide work-groups) on this CPU device as well
                runs.append(("device tier, GPU launch shapes", ["-m", "device and not formula", *extra],
                             {"DMLSIM_TEST_ADAPTERS": "opencl", "DMLSIM_LAUNCH_SHAPE": "gpu"}))
            for j, (run_label, run_args, run_env) in enumerate(runs):
                rc, counts = run_pytest(run_label, report.path, run_args, run_env, Path(tmp) / f"run{i}-{j}.xml")
                for key in total:
                    total[key] += counts[key]
                if rc != 0 or counts["tests"] == 0:
                    failed_runs.append(f"{run_label} on {report.path} (pytest exit {rc})")
    passed = total["tests"] - total["failures"] - total["errors"] - total["skipped"]
    failed = total["failures"] + total["errors"]
    print(f"\nmatrix: {len(order)} ICD run(s); " + ("; ".join(failed_runs) + " FAILED" if failed_runs else "all green"))
    print(f"{passed} passed, {failed} failed, {total['skipped']} skipped")
    return 1 if failed_runs or failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
