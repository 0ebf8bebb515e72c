"""Run the test suite once per OpenCL ICD (what ``make test`` calls).

Two PoCL builds loaded into one process conflict, so each ICD gets its own pytest process that sees only
that ICD (``OCL_ICD_VENDORS``). The first ICD with a usable (non-simulator) device runs the whole suite
(pure tier, device tier on its devices and on ``reference``, descriptor corpus); every other such ICD
(PyPI's PoCL, Debian's PoCL, Intel's OpenCL CPU runtime, ...) runs the device tier on its OpenCL devices
only; an ICD of CPU devices also runs the device tier with the GPU launch shapes forced
(``DMLSIM_LAUNCH_SHAPE=gpu``; once per implementation: the second PoCL build does not), leaving out the
``formula`` tests (a kernel's arithmetic, which the
launch shape does not change; each member of a family is its own build). Oclgrind's ICD gets the
Oclgrind tier: the device tier minus the cases marked ``large`` (too slow to simulate; every kernel
variant also has small cases) and the ``formula`` ones (arithmetic, not memory access: every layout path
has its own tests), plus tests/test_oclgrind.py, with every kernel checked for invalid accesses, data
races and uninitialized reads (dmlsim.backends.opencl.oclgrind): any diagnostic fails its test. An ICD
whose devices cannot build kernels runs tests/test_adapters.py, which checks that they fail with a clear
error. At least one usable OpenCL device must exist: a machine where only the reference device runs does
not pass. Each run's counts and wall time are printed at the end.

The runs are independent processes, so they run ``--jobs`` at a time (default: two, or one on a one-core
machine; ``DMLSIM_MATRIX_JOBS`` sets it too), the longest first: most of a run is one Python thread
compiling and checking, so two at once take about half the time on CI's two cores. With more than one job,
each run's pytest output is kept and printed whole when the run ends, and a line a minute says which runs
are still going; with ``--jobs 1`` each run streams its output as before.

Usage: python tests/matrix.py [--jobs N] [extra pytest args]
       python tests/matrix.py --first-icd [pytest args]   (one run, on the whole-suite ICD only: ``make fuzz-api``)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from dmlsim.backends.opencl.icd import IcdReport, icd_files, probe_icd

ROOT = Path(__file__).resolve().parent.parent


def run_pytest(label: str, icd: str, args: list[str], env_extra: dict[str, str], junit: Path,
               log: Path | None = None) -> tuple[int, dict]:
    """One pytest process that sees only ``icd``: its exit code and junit counts. Its output goes to this
    process's stdout, or into ``log`` (kept whole, printed by the caller) when runs go side by side."""
    env = {**os.environ, "OCL_ICD_VENDORS": icd, **env_extra}
    command = [sys.executable, "-m", "pytest", f"--junitxml={junit}", *args]
    header = (f"\n=== {label}: OCL_ICD_VENDORS={icd} {' '.join(f'{k}={v}' for k, v in env_extra.items())}"
              f" pytest {' '.join(args)}")
    started = time.monotonic()
    if log is None:
        print(header, flush=True)
        rc = subprocess.run(command, env=env, cwd=ROOT, check=False).returncode
    else:
        with log.open("w") as out:
            out.write(header + "\n")
            out.flush()
            rc = subprocess.run(command, env=env, cwd=ROOT, check=False, stdout=out,
                                stderr=subprocess.STDOUT).returncode
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "seconds": time.monotonic() - started}
    if junit.exists():
        for suite in ET.parse(junit).getroot().iter("testsuite"):
            for key in ("tests", "failures", "errors", "skipped"):
                counts[key] += int(suite.get(key, 0))
    return rc, counts


OCLGRIND_PARTS = 6


def oclgrind_parts() -> list[list[str]]:
    """The Oclgrind tier's test files in OCLGRIND_PARTS processes (round robin by file, the model files in the
    first): Oclgrind 21.10 compiles every kernel with its own in-process clang, which has crashed (SIGSEGV) in a
    build after some hundreds of builds in one process (a fresh clone's part of ~40 files crashed twice at the same
    point); fewer builds per process, and a crashed part runs again."""
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*.py"))
    parts: list[list[str]] = [["descriptors"]] + [[] for _ in range(OCLGRIND_PARTS - 1)]
    for i, name in enumerate(files):
        parts[i % OCLGRIND_PARTS].append(name)
    return parts


def runs_for(first: bool, report: IcdReport, extra: list[str],
             gpu_shapes: bool = True) -> list[tuple[str, list[str], dict[str, str]]]:
    """The pytest runs one ICD gets (see the module docstring)."""
    if report.usable and report.simulator:
        parts = oclgrind_parts()
        return [(f"Oclgrind tier, part {k + 1}/{len(parts)}",
                 [*part, "-m", "(device or oclgrind) and not large and not formula", *extra],
                 {"DMLSIM_TEST_ADAPTERS": "oclgrind", "DMLSIM_REQUIRE_OCLGRIND": "1"})
                for k, part in enumerate(parts)]
    if first:
        runs = [("whole suite", [*extra], {"DMLSIM_REQUIRE_OPENCL": "1"})]
    elif report.usable:
        runs = [("device tier", ["-m", "device", *extra], {"DMLSIM_TEST_ADAPTERS": "opencl"})]
    else:
        return [("unusable-device checks", ["tests/test_adapters.py", *extra], {})]
    if gpu_shapes and report.devices and all(d.get("kind") == "CPU" for d in report.devices):
        # the GPU launch shapes (grid-stride loops, wide work-groups) on this CPU device as well
        runs.append(("device tier, GPU launch shapes", ["-m", "device and not formula", *extra],
                     {"DMLSIM_TEST_ADAPTERS": "opencl", "DMLSIM_LAUNCH_SHAPE": "gpu"}))
    return runs


def default_jobs() -> int:
    """``DMLSIM_MATRIX_JOBS``, else two runs at a time (one on a one-core machine)."""
    named = os.environ.get("DMLSIM_MATRIX_JOBS")
    return max(1, int(named)) if named else min(2, os.cpu_count() or 1)


def take_jobs(extra: list[str]) -> tuple[int, list[str]]:
    """``--jobs N`` / ``--jobs=N`` taken out of ``extra`` (the rest goes to pytest)."""
    jobs, rest, i = default_jobs(), [], 0
    while i < len(extra):
        if extra[i] == "--jobs" and i + 1 < len(extra):
            jobs, i = max(1, int(extra[i + 1])), i + 2
            continue
        if extra[i].startswith("--jobs="):
            jobs = max(1, int(extra[i].split("=", 1)[1]))
        else:
            rest.append(extra[i])
        i += 1
    return jobs, rest


def weight(label: str) -> int:
    """How long a run takes, roughly, for the longest-first order: the whole suite, then a device tier, then an
    Oclgrind part (a minute or less each)."""
    return 3 if label == "whole suite" else 1 if label.startswith("Oclgrind") else 2


def main(extra: list[str]) -> int:
    first_only = "--first-icd" in extra
    extra = [a for a in extra if a != "--first-icd"]
    jobs, extra = take_jobs(extra)
    reports = [probe_icd(path) for path in icd_files()]
    hardware = [r for r in reports if r.usable and not r.simulator]
    print("OpenCL ICDs:")
    for r in reports:
        devices = ", ".join(f"{d['id']} ({'usable' if d['problem'] is None else 'UNUSABLE: ' + d['problem']})"
                            for d in r.devices) or (r.error or "no devices")
        print(f"  {r.path}: {devices}")
    if not hardware:
        print("matrix: no usable OpenCL device: run `make opencl` (or `dmlsim doctor --install`)")
        return 1
    if first_only:  # pytest as given, in a process that loads only the first usable ICD
        env = {**os.environ, "OCL_ICD_VENDORS": hardware[0].path}
        print(f"\n=== OCL_ICD_VENDORS={hardware[0].path} pytest {' '.join(extra)}", flush=True)
        return subprocess.run([sys.executable, "-m", "pytest", *extra], env=env, cwd=ROOT, check=False).returncode
    order = hardware + [r for r in reports if r not in hardware]
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    failed_runs, summary = [], []
    with tempfile.TemporaryDirectory() as tmp:
        # The GPU launch shapes once per implementation (the first ICD of it): both PoCL builds share PoCL's
        # compiler and kernel library, so a second build adds minutes of CI, not another compiler.
        shaped: set[frozenset] = set()
        plan = []
        for i, report in enumerate(order):
            family = frozenset(d.get("implementation") or d["id"] for d in report.devices)
            plan += [(i, j, report, run) for j, run in enumerate(runs_for(i == 0, report, extra, family not in shaped))]
            shaped.add(family)
        lock = threading.Lock()
        running: dict[str, float] = {}
        results: dict[int, tuple[str, str]] = {}

        def one(step: int) -> None:
            i, j, report, (label, args, env) = plan[step - 1]
            log = Path(tmp) / f"run{i}-{j}.log" if jobs > 1 else None
            name = f"run {step}/{len(plan)}, {label}"
            if log is not None:
                with lock:
                    running[name] = time.monotonic()
                    print(f"matrix: started {name} on {Path(report.path).name}", flush=True)
            rc, counts = run_pytest(name, report.path, args, env, Path(tmp) / f"run{i}-{j}.xml", log)
            if rc < 0 and report.simulator:  # the simulator's own crash (a signal), not a test's verdict
                with lock:
                    print(f"\nmatrix: {label} ended by signal {-rc} in Oclgrind: running it once more", flush=True)
                    if log is not None:
                        print(log.read_text(), flush=True)
                again = Path(tmp) / f"run{i}-{j}-again.log" if log is not None else None
                label = f"{label} (ended by signal {-rc} in Oclgrind, run again)"
                rc, counts = run_pytest(f"run {step}/{len(plan)} again, {plan[step - 1][3][0]}", report.path, args, env,
                                        Path(tmp) / f"run{i}-{j}-again.xml", again)
                log = again
            implementation = ", ".join(sorted({d.get("implementation") or d["id"] for d in report.devices}))
            passed = counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"]
            line = (f"  {label} on {implementation} ({Path(report.path).name}): {passed} passed, "
                    f"{counts['failures'] + counts['errors']} failed, {counts['skipped']} skipped "
                    f"in {counts['seconds']:.0f} s")
            with lock:
                running.pop(name, None)
                if log is not None:  # the whole run's output in one piece, as it would have streamed
                    print(log.read_text().rstrip() + f"\nmatrix: finished {name}", flush=True)
                for key in total:
                    total[key] += counts[key]
                if rc != 0 or counts["tests"] == 0:
                    failed_runs.append(f"{label} on {report.path} (pytest exit {rc})")
                results[step] = (line, label)

        done = threading.Event()

        def heartbeat() -> None:  # progress while the runs' output is held back
            while not done.wait(60):
                with lock:
                    now = time.monotonic()
                    going = "; ".join(f"{n} ({now - t:.0f} s)" for n, t in running.items())
                    print(f"matrix: {len(results)} of {len(plan)} runs done; running: {going}", flush=True)

        order_of_runs = sorted(range(1, len(plan) + 1), key=lambda k: -weight(plan[k - 1][3][0]))
        if jobs == 1:
            for step in range(1, len(plan) + 1):
                one(step)
        else:
            print(f"matrix: {len(plan)} runs, {jobs} at a time (--jobs); each run's output follows when it ends",
                  flush=True)
            ticker = threading.Thread(target=heartbeat, daemon=True)
            ticker.start()
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                list(pool.map(one, order_of_runs))
            done.set()
        summary += [results[step][0] for step in sorted(results)]
    passed = total["tests"] - total["failures"] - total["errors"] - total["skipped"]
    failed = total["failures"] + total["errors"]
    print("\nmatrix runs:\n" + "\n".join(summary))
    print(f"matrix: {len(order)} ICD(s); " + ("; ".join(failed_runs) + " FAILED" if failed_runs else "all green"))
    print(f"{passed} passed, {failed} failed, {total['skipped']} skipped")
    return 1 if failed_runs or failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
