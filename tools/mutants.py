"""Mutation harness: proves that the test suite can fail (``make mutants``).

Each mutant in ``tools/mutants.yaml`` is a named, deliberate bug: a file, an exact snippet that must
occur exactly once, its replacement (several edits are allowed), a one-line reason (the real bug it
models) and the pytest selection that must catch it. For every mutant the harness copies the
git-tracked files into a scratch folder, applies the edits there and runs the selection against the
scratch copy (``-x -q -p no:cacheprovider``, ``PYTHONPATH`` = the scratch copy). The child process
checks, before and after pytest, that every ``dmlsim`` module and the kernel folder it loaded came
from the scratch copy: an editable install elsewhere could otherwise supply the unmutated code (the
kernel headers of ``dmlsim.cl_kernels`` in particular) and every mutant would survive.

A mutant runs on the first usable OpenCL ICD that is not a simulator (or ``$OCL_ICD_VENDORS``), as the
whole-suite run of tests/matrix.py; one marked ``adapter: oclgrind`` (a bug only Oclgrind shows, such as its
own float-to-integer conversions) runs on Oclgrind's ICD with ``DMLSIM_TEST_ADAPTERS=oclgrind`` and
``DMLSIM_REQUIRE_OCLGRIND=1``, as the matrix's Oclgrind tier (``error`` when no Oclgrind ICD is installed).

Outcomes: ``killed`` (pytest failed), ``survived`` (it passed), ``stale`` (a snippet no longer
matches exactly once), ``timeout``, ``error`` (pytest could not run: collection error, no tests, the
scratch-import check failed). Before any mutant runs, each distinct selection runs once unmutated and
must pass; a mutant whose selection fails unmutated is reported ``broken-selection``. Exit status 0
only when every mutant is killed.

Usage: python tools/mutants.py [--list] [--only NAME ...] [-j N] [--timeout S] [-v]
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
TABLE = Path(__file__).resolve().with_name("mutants.yaml")
PYTEST_ARGS = ("-x", "-q", "-p", "no:cacheprovider")
SCRATCH_IMPORT_ERROR = 97

# Runs in the child, in the scratch copy: refuse to test anything but the scratch package, then run pytest.
GUARD = r"""
import pathlib, sys
root = pathlib.Path.cwd().resolve()

def outside():
    import dmlsim.cl_kernels
    from dmlsim.backends.opencl.programs import kernel_dir
    paths = [("kernel_dir()", kernel_dir()), ("dmlsim.cl_kernels", dmlsim.cl_kernels.__file__)]
    paths += [(name, getattr(module, "__file__", None)) for name, module in list(sys.modules.items())
              if name == "dmlsim" or name.startswith("dmlsim.")]
    return [f"{name} from {path}" for name, path in paths
            if path is not None and root not in pathlib.Path(path).resolve().parents]

def guard(when):
    bad = outside()
    if bad:
        print(f"mutants: {when}: not the scratch copy {root}: " + "; ".join(bad[:5]), flush=True)
        sys.exit(%d)

import importlib.util
spec = importlib.util.find_spec("dmlsim")  # found without importing it (pytest must import it first)
if spec is None or root not in pathlib.Path(spec.origin).resolve().parents:
    print(f"mutants: dmlsim would be imported from {spec and spec.origin}, not the scratch copy {root}")
    sys.exit(%d)
import pytest
code = pytest.main(sys.argv[1:])
guard("after pytest")
sys.exit(int(code))
""".replace("%d", str(SCRATCH_IMPORT_ERROR))


@dataclass(frozen=True)
class Edit:
    file: str
    old: str
    new: str


@dataclass
class Mutant:
    name: str
    reason: str
    edits: list[Edit]
    tests: tuple[str, ...]
    timeout: float | None = None
    oclgrind: bool = False  # ``adapter: oclgrind``: run on Oclgrind's ICD (the module docstring)


@dataclass
class Outcome:
    name: str
    result: str
    seconds: float = 0.0
    detail: str = ""
    output: str = field(default="", repr=False)


class TableError(Exception):
    """tools/mutants.yaml is malformed."""


def load_table(path: Path = TABLE) -> list[Mutant]:
    raw = yaml.safe_load(path.read_text())
    if not isinstance(raw, list):
        raise TableError(f"{path.name}: expected a list of mutants")
    mutants: list[Mutant] = []
    seen: set[str] = set()
    for i, entry in enumerate(raw):
        where = f"{path.name} entry {i}"
        if not isinstance(entry, dict):
            raise TableError(f"{where}: expected a mapping")
        missing = [key for key in ("name", "reason", "tests") if not entry.get(key)]
        if missing:
            raise TableError(f"{where}: missing {', '.join(missing)}")
        name = str(entry["name"])
        if name in seen:
            raise TableError(f"{where}: duplicate name {name!r}")
        seen.add(name)
        single = [{key: entry.get(key) for key in ("file", "old", "new")}]
        edit_list = entry.get("edits", single)
        edits = []
        for e in edit_list:
            if not isinstance(e, dict) or not e.get("file") or not e.get("old") or e.get("new") is None:
                raise TableError(f"{where} ({name}): every edit needs file, old and new")
            if e["old"] == e["new"]:
                raise TableError(f"{where} ({name}): an edit whose replacement equals its snippet")
            edits.append(Edit(str(e["file"]), str(e["old"]), str(e["new"])))
        tests = entry["tests"]
        tests = tuple(shlex.split(tests) if isinstance(tests, str) else (str(t) for t in tests))
        adapter = entry.get("adapter")
        if adapter not in (None, "oclgrind"):
            raise TableError(f"{where} ({name}): adapter must be oclgrind when given, not {adapter!r}")
        mutants.append(Mutant(name, str(entry["reason"]), edits, tests, entry.get("timeout"), adapter == "oclgrind"))
    return mutants


def tracked_files(root: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
    return [name for name in out.decode().split("\0") if name]


def make_base(root: Path, scratch: Path) -> Path:
    """The unmutated scratch copy: the working-tree contents of every git-tracked file."""
    base = scratch / "base"
    for name in tracked_files(root):
        source = root / name
        if source.is_file():
            target = base / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return base


def stale_reason(base: Path, mutant: Mutant) -> str | None:
    """Why the mutant's edits cannot be applied exactly (None when each snippet occurs exactly once)."""
    for edit in mutant.edits:
        path = base / edit.file
        if not path.is_file():
            return f"{edit.file}: no such tracked file"
        count = path.read_text().count(edit.old)
        if count != 1:
            return f"{edit.file}: snippet found {count} times (must be exactly once): {edit.old[:60]!r}"
    return None


def apply_edits(copy: Path, mutant: Mutant) -> None:
    for edit in mutant.edits:
        path = copy / edit.file
        text = path.read_text()
        if text.count(edit.old) != 1:  # stale_reason checked this on the same bytes
            raise RuntimeError(f"{mutant.name}: {edit.file} changed under the harness")
        path.write_text(text.replace(edit.old, edit.new))


@dataclass(frozen=True)
class Target:
    """The OpenCL ICD a selection runs on, and whether it is Oclgrind's (its tier's variables are then set)."""

    icd: str | None
    oclgrind: bool = False


def child_env(copy: Path, target: Target) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(copy), *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("DMLSIM_LAUNCH_SHAPE", None)  # tests set it themselves where they need a shape
    if target.icd:
        env["OCL_ICD_VENDORS"] = target.icd
    if target.oclgrind:
        env.update({"DMLSIM_TEST_ADAPTERS": "oclgrind", "DMLSIM_REQUIRE_OCLGRIND": "1"})
    return env


def run_selection(copy: Path, tests: tuple[str, ...], timeout: float, target: Target) -> tuple[str, float, str]:
    """('passed' | 'failed' | 'timeout' | 'error: ...', seconds, output) of one pytest run in ``copy``."""
    command = [sys.executable, "-c", GUARD, *PYTEST_ARGS, *tests]
    start = time.monotonic()
    if target.oclgrind and not target.icd:
        return "error: no Oclgrind ICD is installed (`pip install 'dmlsim[oclgrind]'`)", 0.0, ""
    process = subprocess.Popen(command, cwd=copy, env=child_env(copy, target), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return "timeout", time.monotonic() - start, output
    seconds = time.monotonic() - start
    code = process.returncode
    if code == 0:
        return "passed", seconds, output
    if code == 1:
        return "failed", seconds, output
    if code < 0:  # the test process crashed (a kernel wrote out of bounds): the suite failed
        return f"failed: crashed by signal {-code}", seconds, output
    if code == SCRATCH_IMPORT_ERROR:
        return "error: the child did not import the scratch copy", seconds, output
    meaning = {2: "interrupted or collection error", 3: "internal error", 4: "usage error", 5: "no tests collected"}
    return f"error: pytest exit {code} ({meaning.get(code, 'unknown')})", seconds, output


def run_mutant(base: Path, scratch: Path, mutant: Mutant, timeout: float, target: Target) -> Outcome:
    copy = scratch / f"m-{mutant.name}"
    shutil.copytree(base, copy, symlinks=True)
    try:
        apply_edits(copy, mutant)
        status, seconds, output = run_selection(copy, mutant.tests, mutant.timeout or timeout, target)
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    killed = "killed" if status.startswith("failed") else "error"
    result = {"passed": "survived", "timeout": "timeout"}.get(status, killed)
    return Outcome(mutant.name, result, seconds, "" if status in ("failed", "passed") else status, output)


def choose_icd(simulator: bool = False) -> str | None:
    """The OpenCL ICD the runs see: ``$OCL_ICD_VENDORS`` if set, else the first usable one (as tests/matrix.py
    picks for its whole-suite run; two PoCL builds in one process conflict). ``simulator``: the first usable
    simulator (Oclgrind) among every installed ICD instead, whatever ``$OCL_ICD_VENDORS`` says."""
    if os.environ.get("OCL_ICD_VENDORS") and not simulator:
        return os.environ["OCL_ICD_VENDORS"]
    sys.path.insert(0, str(ROOT))
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    from dmlsim.backends.opencl.icd import icd_files, probe_icd

    environ = {key: value for key, value in os.environ.items() if key != "OCL_ICD_VENDORS"} if simulator else None
    for path in icd_files(environ):
        report = probe_icd(path)
        if report.usable and report.simulator == simulator:
            return str(path)
    return None


def tail(text: str, lines: int = 25) -> str:
    return "\n".join("    " + line for line in text.rstrip().splitlines()[-lines:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="run only this mutant (repeatable; comma-separated names allowed)")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="parallel pytest runs (default 2)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per pytest run (default 120)")
    parser.add_argument("-v", "--verbose", action="store_true", help="show pytest's output for every mutant")
    args = parser.parse_args(argv)

    try:
        mutants = load_table()
    except (TableError, yaml.YAMLError) as e:
        print(f"mutants: {e}", file=sys.stderr)
        return 2
    if args.list:
        for m in mutants:
            files = ", ".join(sorted({e.file for e in m.edits}))
            on = " (on Oclgrind)" if m.oclgrind else ""
            print(f"{m.name}\n    models: {m.reason}\n    edits:  {files}\n    tests:  {shlex.join(m.tests)}{on}")
        print(f"{len(mutants)} mutants")
        return 0
    only = {name for item in args.only for name in item.split(",") if name}
    unknown = only - {m.name for m in mutants}
    if unknown:
        print(f"mutants: no mutant named {', '.join(sorted(unknown))} (see --list)", file=sys.stderr)
        return 2
    if only:
        mutants = [m for m in mutants if m.name in only]

    started = time.monotonic()
    icd = choose_icd()
    targets = {False: Target(icd), True: Target(choose_icd(simulator=True) if any(m.oclgrind for m in mutants)
                                                 else None, oclgrind=True)}
    print(f"mutants: {len(mutants)} mutant(s), {args.jobs} job(s), OCL_ICD_VENDORS={icd or '(unset)'}"
          + (f" (adapter: oclgrind ones: {targets[True].icd or 'no Oclgrind ICD'})"
             if any(m.oclgrind for m in mutants) else ""), flush=True)
    outcomes: dict[str, Outcome] = {}
    with tempfile.TemporaryDirectory(prefix="dmlsim-mutants-") as tmp:
        scratch = Path(tmp)
        base = make_base(ROOT, scratch)
        runnable = []
        for m in mutants:
            why = stale_reason(base, m)
            if why:
                outcomes[m.name] = Outcome(m.name, "stale", detail=why)
            else:
                runnable.append(m)
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            # every distinct selection must pass unmutated first
            selections = sorted({(m.tests, m.oclgrind) for m in runnable})
            baseline = dict(zip(selections, pool.map(
                lambda s: run_selection(base, s[0], args.timeout, targets[s[1]]), selections), strict=True))
            broken = {s for s, (status, _, _) in baseline.items() if status != "passed"}
            for s in sorted(broken):
                status, seconds, output = baseline[s]
                on = " on Oclgrind" if s[1] else ""
                print(f"\nmutants: selection `{shlex.join(s[0])}`{on} does not pass unmutated ({status}, "
                      f"{seconds:.1f} s):\n{tail(output)}", flush=True)
            for m in runnable:
                if (m.tests, m.oclgrind) in broken:
                    outcomes[m.name] = Outcome(m.name, "broken-selection", detail=baseline[(m.tests, m.oclgrind)][0])
            to_run = [m for m in runnable if (m.tests, m.oclgrind) not in broken]
            for outcome in pool.map(lambda m: run_mutant(base, scratch, m, args.timeout, targets[m.oclgrind]), to_run):
                outcomes[outcome.name] = outcome
                print(f"  {outcome.result:<9} {outcome.seconds:6.1f} s  {outcome.name}", flush=True)

    by_name = {m.name: m for m in mutants}
    width = max(len(m.name) for m in mutants) if mutants else 4
    print(f"\n{'mutant':<{width}}  {'result':<16} {'seconds':>7}  selection")
    for m in mutants:
        o = outcomes[m.name]
        print(f"{m.name:<{width}}  {o.result:<16} {o.seconds:7.1f}  {shlex.join(m.tests)}")
    bad = [o for o in (outcomes[m.name] for m in mutants) if o.result != "killed"]
    for o in bad:
        print(f"\n{o.name}: {o.result.upper()}" + (f" ({o.detail})" if o.detail else "")
              + f"\n    models: {by_name[o.name].reason}" + (f"\n{tail(o.output)}" if o.output else ""))
    if args.verbose:
        for m in mutants:
            o = outcomes[m.name]
            if o.result == "killed":
                print(f"\n{m.name}: killed:\n{tail(o.output, 12)}")
    counts = {r: sum(o.result == r for o in outcomes.values()) for r in sorted({o.result for o in outcomes.values()})}
    summary = ", ".join(f"{n} {r}" for r, n in counts.items())
    print(f"\nmutants: {summary} of {len(mutants)} in {time.monotonic() - started:.0f} s")
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
