"""Mutation harness: proves that the test suite can fail (``make mutants``).

Each mutant in ``tools/mutants.yaml`` is a named, deliberate bug: a file, an exact snippet that must
occur exactly once, its replacement (several edits are allowed), a one-line reason (the real bug it
models), the pytest selection that must catch it and, for a mutant of OpenCL code that only some
devices compile, ``needs:`` (which device or compiler feature compiles it). For every mutant the
harness copies the git-tracked files into a scratch folder, applies the edits there and runs the
selection against the scratch copy (``-x -q -p no:cacheprovider``, ``PYTHONPATH`` = the scratch copy).
The child process checks, before and after pytest, that every ``dmlsim`` module and the kernel folder
it loaded came from the scratch copy: an editable install elsewhere could otherwise supply the
unmutated code (the kernel headers of ``dmlsim.cl_kernels`` in particular) and every mutant would
survive.

OpenCL drivers (ICDs). Each pytest run sees one ICD (``OCL_ICD_VENDORS`` = that file: two PoCL builds
in one process conflict). The candidates are the ICDs the OpenCL loader would read
(``dmlsim.backends.opencl.icd.icd_files``, which honours ``OCL_ICD_VENDORS``), or the ones named with
``--icd`` (then in that order and not probed). The *primary* ICD, which runs every mutant, is the first
candidate with a usable non-simulator device (the one ``tests/matrix.py`` gives the whole suite); the
other usable non-simulator ICDs are probed only when needed, in order. Oclgrind is used only where it is
the sole usable ICD: it simulates far too slowly for whole selections, and defines no host ISA macro
(``__AVX__``, ``__F16C__``) that could select code the other clang-built drivers do not compile.

Code that is not compiled here. Kernel headers choose some lines by what the compiler and target
offer (``dmlsim/cl_kernels/dmlsim.h``: clang vector builtins on CPU targets, AVX's sqrtps, F16C half
conversions). A mutant of such a line cannot be killed on a device that does not compile it, so when a
mutant whose edits are all in OpenCL source (``*.cl``, ``*.h``) survives on the primary ICD, the
harness asks whether its code was compiled at all: it runs the same selection on a copy where, instead
of the mutation, a line ``#error dmlsim_mutant_marker`` stands just before the (logical) line where
each edited snippet starts. A marker run that fails means some build compiled the mutated line: the
``survived`` verdict stands. A marker run that passes (and no build failed on the marker, even one a
test caught: the child records every pyopencl build that fails on it) means no build of the selection
compiled it on that ICD; the harness then tries the other ICDs in order (unmutated selection, marker
run) and the first one that compiles the line runs the mutant, and decides (the summary names it). A
snippet that starts on an ``#elif``/``#else``/``#endif`` line cannot be marked: it counts as compiled.

A mutant marked ``adapter: oclgrind`` (a bug only the simulator shows, such as its own float-to-integer
conversions) runs on Oclgrind's ICD with the Oclgrind tier's variables (``DMLSIM_TEST_ADAPTERS=oclgrind``,
``DMLSIM_REQUIRE_OCLGRIND=1``), and only there (``error`` when no Oclgrind ICD is installed).

Outcomes: ``killed`` (pytest failed), ``survived`` (it passed), ``not-exercised`` (no ICD here
compiles the mutated code: the summary says what it needs), ``stale`` (a snippet no longer matches
exactly once), ``timeout``, ``error`` (pytest could not run: collection error, no tests, the
scratch-import check failed). Before any mutant runs, each distinct selection runs once unmutated and
must pass; a mutant whose selection fails unmutated is reported ``broken-selection``. Exit status 0
only when every mutant is killed, or ``not-exercised`` with a ``needs:`` in the table; a mutant that
no device here compiles and that states no ``needs:`` fails (nobody declared its code conditional), and
``--require-exercised`` (CI: ``.ci/run``, which installs Debian's PoCL, compiling every line) makes every
``not-exercised`` fail, so that each mutant is exercised somewhere.

Speed. A pytest run spends about two seconds importing pytest, hypothesis and numpy before its first test, more
than most mutants' tests take, so the runs are forked from a fork server (``tools/forkserver.py``) that has
those imported (no dmlsim, no OpenCL: each child imports the scratch copy's dmlsim and its own driver, and the
guard above checks it). ``--no-fork`` starts each run as a process of its own, as before. Over CI's 1,100+
mutants that halves the harness's time.

A machine without some driver is reproduced by restricting the ICDs: ``OCL_ICD_VENDORS=<empty folder>``
leaves only pyopencl's bundled ones (PyPI's PoCL, Intel's runtime, Oclgrind: a machine without
Debian's PoCL), ``OCL_ICD_VENDORS=<one .icd file>`` or ``--icd <file>`` (repeatable) exactly those.

Usage: python tools/mutants.py [--list] [--only NAME ...] [-j N] [--timeout S] [--icd FILE ...]
                               [--require-exercised] [--no-fork] [-v]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
TABLE = Path(__file__).resolve().with_name("mutants.yaml")
PYTEST_ARGS = ("-x", "-q", "-p", "no:cacheprovider")
SCRATCH_IMPORT_ERROR = 97
KERNEL_SUFFIXES = (".cl", ".h")
MARKER = "dmlsim_mutant_marker"
MARKER_LINE = f"#error {MARKER}\n"
MARKER_LOG_VARIABLE = "DMLSIM_MUTANT_MARKER_LOG"
_BRANCH_LINE = re.compile(r"\s*#\s*(elif|else|endif)\b")

# Runs in the child, in the scratch copy: refuse to test anything but the scratch package, then run pytest.
# In a marker run, every pyopencl build that fails on the marker is recorded (a test may catch the error).
GUARD = r"""
import os, pathlib, sys
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

def record_marker_builds(log):
    try:
        import pyopencl
    except ImportError:
        return
    build = pyopencl.Program.build

    def recording_build(self, *args, **kwargs):
        try:
            return build(self, *args, **kwargs)
        except Exception as exc:
            if "@MARKER@" in str(exc):
                with open(log, "a") as file:
                    file.write("a build failed on the marker\n")
            raise

    pyopencl.Program.build = recording_build

import importlib.util
spec = importlib.util.find_spec("dmlsim")  # found without importing it (pytest must import it first)
if spec is None or root not in pathlib.Path(spec.origin).resolve().parents:
    print(f"mutants: dmlsim would be imported from {spec and spec.origin}, not the scratch copy {root}")
    sys.exit(%d)
if os.environ.get("@LOG@"):
    record_marker_builds(os.environ["@LOG@"])
import pytest
os.environ["DMLSIM_TESTS_RETURN"] = "1"  # tests/conftest.py: pytest returns here even under Oclgrind's ICD
code = pytest.main(sys.argv[1:])
guard("after pytest")
sys.stdout.flush()
sys.stderr.flush()
os._exit(int(code))  # no interpreter finalization: Oclgrind cannot release its objects from this thread
""".replace("%d", str(SCRATCH_IMPORT_ERROR)).replace("@MARKER@", MARKER).replace("@LOG@", MARKER_LOG_VARIABLE)


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
    needs: str | None = None  # which device or compiler feature compiles the mutated code (mutants.yaml's needs:)
    oclgrind: bool = False  # mutants.yaml's ``adapter: oclgrind``: the selection runs on Oclgrind's ICD

    @property
    def key(self) -> tuple[tuple[str, ...], bool]:
        """The selection and where it runs: what the unmutated baseline is taken of."""
        return self.tests, self.oclgrind

    @property
    def kernel_only(self) -> bool:
        """Whether every edit is in OpenCL source: only then can the mutated code be left out of every build."""
        return all(Path(edit.file).suffix in KERNEL_SUFFIXES for edit in self.edits)


@dataclass
class Outcome:
    name: str
    result: str
    seconds: float = 0.0
    detail: str = ""
    output: str = field(default="", repr=False)


# The variables of tests/matrix.py's Oclgrind tier, set for a mutant marked ``adapter: oclgrind``
OCLGRIND_ENV = {"DMLSIM_TEST_ADAPTERS": "oclgrind", "DMLSIM_REQUIRE_OCLGRIND": "1"}

class TableError(Exception):
    """tools/mutants.yaml is malformed."""


def load_table(path: Path = TABLE) -> list[Mutant]:
    """The mutants of ``path``, checked (names unique, every edit complete, ``needs`` only for kernel code)."""
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
        needs = entry.get("needs")
        if needs is not None and (not isinstance(needs, str) or not needs.strip()):
            raise TableError(f"{where} ({name}): needs must be a sentence (which device compiles the code)")
        adapter = entry.get("adapter")
        if adapter not in (None, "oclgrind"):
            raise TableError(f"{where} ({name}): adapter must be oclgrind when given, not {adapter!r}")
        mutant = Mutant(name, str(entry["reason"]), edits, tests, entry.get("timeout"), needs, adapter == "oclgrind")
        if needs is not None and not mutant.kernel_only:
            raise TableError(f"{where} ({name}): needs is only for a mutant whose edits are all in OpenCL "
                             f"source ({', '.join(KERNEL_SUFFIXES)}): other code is not compiled per device")
        mutants.append(mutant)
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


def marker_lines(text: str, snippets: Iterable[str]) -> list[int] | None:
    """The 0-based lines of ``text`` before which ``#error dmlsim_mutant_marker`` goes: for each snippet, the
    first line of the logical line where it starts (a backslash-continued macro is marked before its
    ``#define``). None when a snippet starts on an ``#elif``, ``#else`` or ``#endif`` line: a marker before
    it would belong to the previous branch, so whether the snippet is compiled cannot be told that way."""
    lines = text.splitlines(keepends=True)
    found: set[int] = set()
    for snippet in snippets:
        line = text.count("\n", 0, text.index(snippet))
        while line > 0 and lines[line - 1].rstrip().endswith("\\"):
            line -= 1
        if _BRANCH_LINE.match(lines[line]):
            return None
        found.add(line)
    return sorted(found)


def insert_markers(text: str, lines: Iterable[int]) -> str:
    """``text`` with a marker line inserted before each of the 0-based ``lines``."""
    out = text.splitlines(keepends=True)
    for line in sorted(lines, reverse=True):
        out.insert(line, MARKER_LINE)
    return "".join(out)


def apply_markers(copy: Path, mutant: Mutant) -> bool:
    """Put the markers of ``mutant`` (instead of its edits) into ``copy``; False when a snippet cannot be marked."""
    by_file: dict[str, list[str]] = {}
    for edit in mutant.edits:
        by_file.setdefault(edit.file, []).append(edit.old)
    for name, snippets in by_file.items():
        path = copy / name
        text = path.read_text()
        lines = marker_lines(text, snippets)
        if lines is None:
            return False
        path.write_text(insert_markers(text, lines))
    return True


def child_env(copy: Path, icd: str | None, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(copy), *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("DMLSIM_LAUNCH_SHAPE", None)  # tests set it themselves where they need a shape
    env.pop(MARKER_LOG_VARIABLE, None)
    if icd:
        env["OCL_ICD_VENDORS"] = icd
    env.update(extra or {})
    return env


class ForkServer:
    """The client of tools/forkserver.py: pytest runs forked from a process that has pytest, hypothesis, numpy and
    pyopencl imported, so that a run starts in milliseconds instead of two seconds (see that file). Thread-safe;
    ``run`` returns None when the server is gone (the caller then starts the run as a process of its own)."""

    def __init__(self) -> None:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # no project on its path: it imports none
        self._process = subprocess.Popen([sys.executable, str(Path(__file__).with_name("forkserver.py"))],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                                         cwd=tempfile.gettempdir())
        self._lock = threading.Lock()
        self._serial = 0
        self._waiting: dict[int, tuple[Future, Future]] = {}
        ready = self._process.stdout.readline()
        self.alive = bool(ready) and json.loads(ready).get("ready") is True
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self._process.stdout:
            message = json.loads(line)
            pid_future, status_future = self._waiting[message["id"]]
            if "pid" in message:
                pid_future.set_result(message["pid"])
            else:
                status_future.set_result(message["status"])
        with self._lock:
            self.alive = False
            for pid_future, status_future in self._waiting.values():
                for future in (pid_future, status_future):
                    if not future.done():
                        future.set_result(None)

    def run(self, cwd: Path, env: dict[str, str], argv: list[str], timeout: float,
            code: str = GUARD) -> tuple[int | None, str] | None:
        """(exit code, or None on a timeout; the output) of ``code`` (the guard that runs pytest) with ``argv``
        in ``cwd`` under ``env``, as ``python -c code *argv`` would give them."""
        with self._lock:
            if not self.alive:
                return None
            self._serial += 1
            serial = self._serial
            futures = self._waiting[serial] = (Future(), Future())
        out = cwd.parent / f"{cwd.name}.run{serial}.out"  # baselines share one folder
        path = [str(cwd), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
        request = {"id": serial, "cwd": str(cwd), "env": env, "argv": argv, "path": path, "out": str(out),
                   "code": code}
        try:
            with self._lock:
                self._process.stdin.write((json.dumps(request) + "\n").encode())
                self._process.stdin.flush()
        except OSError:
            return None
        pid = futures[0].result()
        if pid is None:
            return None
        try:
            status = futures[1].result(timeout=timeout)
        except TimeoutError:
            os.killpg(pid, signal.SIGKILL)
            futures[1].result()
            status = None
        output = out.read_text(errors="replace") if out.exists() else ""
        out.unlink(missing_ok=True)
        with self._lock:
            self._waiting.pop(serial, None)
        return status, output

    def close(self) -> None:
        with self._lock:
            self.alive = False
        if self._process.stdin:
            self._process.stdin.close()
        self._process.wait()


FORK_SERVER: ForkServer | None = None  # main() starts one unless --no-fork


@contextlib.contextmanager
def fork_server(wanted: bool) -> Iterator[None]:
    """While inside, pytest runs are forked by a fork server (if ``wanted`` and it starts)."""
    global FORK_SERVER
    FORK_SERVER = ForkServer() if wanted else None
    try:
        yield
    finally:
        server, FORK_SERVER = FORK_SERVER, None
        if server is not None:
            server.close()


def run_selection(copy: Path, tests: tuple[str, ...], timeout: float, icd: str | None,
                  extra_env: dict[str, str] | None = None) -> tuple[str, float, str]:
    """('passed' | 'failed' | 'timeout' | 'error: ...', seconds, output) of one pytest run in ``copy``: forked by
    the fork server when one runs, else a process of its own (the same guard, arguments and environment)."""
    start = time.monotonic()
    env = child_env(copy, icd, extra_env)
    # pytest warns that the server's preloaded plugins (hypothesis's) were imported before it could rewrite them
    quiet = ("-W", "ignore::pytest.PytestAssertRewriteWarning")
    forked = FORK_SERVER.run(copy, env, [*PYTEST_ARGS, *quiet, *tests], timeout) if FORK_SERVER else None
    if forked is not None:
        code, output = forked
        if code is None:
            return "timeout", time.monotonic() - start, output
    else:
        command = [sys.executable, "-c", GUARD, *PYTEST_ARGS, *tests]
        process = subprocess.Popen(command, cwd=copy, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
            return "timeout", time.monotonic() - start, output
        code = process.returncode
    seconds = time.monotonic() - start
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


class IcdPool:
    """The ICDs a run may use, in order: ``primary`` runs every mutant; ``alternates()`` are the others a
    mutant whose code the primary does not compile is tried on. ``probe(path)`` says (usable, simulator);
    without it every path is taken as a usable hardware ICD (``--icd``). Probing is lazy and thread-safe."""

    def __init__(self, paths: Sequence[str], probe: Callable[[str], tuple[bool, bool]] | None = None) -> None:
        self.paths = list(paths)
        self._probe = probe
        self._kinds: dict[str, str] = {}
        self._lock = threading.Lock()

    def kind(self, path: str) -> str:
        """'hardware', 'simulator' or 'unusable'."""
        with self._lock:
            if path not in self._kinds:
                usable, simulator = self._probe(path) if self._probe else (True, False)
                self._kinds[path] = "unusable" if not usable else "simulator" if simulator else "hardware"
            return self._kinds[path]

    @property
    def primary(self) -> str | None:
        """The first hardware ICD; else the first usable one (a simulator named on purpose); else None
        (no usable OpenCL: the runs inherit this process's ``OCL_ICD_VENDORS``)."""
        hardware = next((p for p in self.paths if self.kind(p) == "hardware"), None)
        return hardware or next((p for p in self.paths if self.kind(p) == "simulator"), None)

    @property
    def simulator(self) -> str | None:
        """The first usable simulator (Oclgrind): where ``adapter: oclgrind`` mutants run."""
        return next((p for p in self.paths if self.kind(p) == "simulator"), None)

    def alternates(self) -> Iterator[str]:
        primary = self.primary
        for path in self.paths:
            if path != primary and self.kind(path) == "hardware":
                yield path


def discovered_icds() -> IcdPool:
    """The ICDs the OpenCL loader would read here (``$OCL_ICD_VENDORS`` honoured), probed in child processes."""
    sys.path.insert(0, str(ROOT))
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    from dmlsim.backends.opencl.icd import icd_files, probe_icd

    def probe(path: str) -> tuple[bool, bool]:
        report = probe_icd(Path(path))
        return bool(report.usable), report.simulator

    return IcdPool([str(p) for p in icd_files()], probe)


def baseline_groups(keys: list[tuple[tuple[str, ...], bool]]) -> dict[tuple[tuple[str, ...], bool],
                                                                      list[tuple[tuple[str, ...], bool]]]:
    """The selections ``keys`` grouped by everything but their ``-k`` expression, each group one selection: its
    common arguments and the union of its members' ``-k`` expressions (none if a member has none), mapped to the
    members it stands for. A baseline per group, not per selection: on CI that halves the pytest runs."""
    members: dict[tuple[tuple[str, ...], bool], list[tuple[tuple[str, ...], bool]]] = {}
    expressions: dict[tuple[tuple[str, ...], bool], list[str | None]] = {}
    for key in keys:
        tests, oclgrind = key
        rest, expression, i = [], None, 0
        while i < len(tests):
            if tests[i] == "-k" and i + 1 < len(tests) and expression is None:
                expression, i = tests[i + 1], i + 2
                continue
            rest.append(tests[i])
            i += 1
        group = (tuple(rest), oclgrind)
        members.setdefault(group, []).append(key)
        expressions.setdefault(group, []).append(expression)
    result = {}
    for group, keys_of in members.items():
        found = expressions[group]
        rest, oclgrind = group
        if len(keys_of) == 1:
            result[keys_of[0]] = keys_of
        elif any(e is None for e in found):
            result[(rest, oclgrind)] = keys_of
        else:
            union = " or ".join(f"({e})" for e in dict.fromkeys(found))
            result[((*rest, "-k", union), oclgrind)] = keys_of
    return result


class Harness:
    """Runs mutants in scratch copies of ``base`` and decides each one's outcome across the ICDs of ``icds``."""

    def __init__(self, base: Path, scratch: Path, timeout: float, icds: IcdPool) -> None:
        self.base = base
        self.scratch = scratch
        self.timeout = timeout
        self.icds = icds
        self._baselines: dict[tuple[tuple[str, ...], str | None], Future] = {}
        self._lock = threading.Lock()
        self._serial = 0

    def baseline(self, tests: tuple[str, ...], icd: str | None,
                 env: dict[str, str] | None = None) -> tuple[str, float, str]:
        """The unmutated selection's run on ``icd`` (once per selection, ICD and extra environment)."""
        key = (tests, icd, tuple(sorted((env or {}).items())))
        with self._lock:
            future = self._baselines.get(key)
            owner = future is None
            if owner:
                future = self._baselines[key] = Future()
        if owner:
            future.set_result(run_selection(self.base, tests, self.timeout, icd, env))
        return future.result()

    def target(self, mutant: Mutant) -> tuple[str | None, dict[str, str] | None]:
        """Where a mutant's selection runs first: the primary ICD, or Oclgrind's with its tier's variables."""
        return (self.icds.simulator, OCLGRIND_ENV) if mutant.oclgrind else (self.icds.primary, None)

    def _copy(self, label: str) -> Path:
        with self._lock:
            self._serial += 1
            copy = self.scratch / f"{label}-{self._serial}"
        shutil.copytree(self.base, copy, symlinks=True)
        return copy

    def run_mutant(self, mutant: Mutant, icd: str | None, env: dict[str, str] | None = None) -> Outcome:
        """The mutant's selection with its edits applied, on ``icd``: killed, survived, timeout or error."""
        copy = self._copy(f"m-{mutant.name}")
        try:
            apply_edits(copy, mutant)
            status, seconds, output = run_selection(copy, mutant.tests, mutant.timeout or self.timeout, icd, env)
        finally:
            shutil.rmtree(copy, ignore_errors=True)
        killed = "killed" if status.startswith("failed") else "error"
        result = {"passed": "survived", "timeout": "timeout"}.get(status, killed)
        return Outcome(mutant.name, result, seconds, "" if status in ("failed", "passed") else status, output)

    def compiled(self, mutant: Mutant, icd: str | None) -> tuple[bool, float, str]:
        """Whether some build of the mutant's selection on ``icd`` compiles a mutated line (the marker run; see
        the module docstring), the seconds it took and why. Anything but a clean pass counts as compiled."""
        copy = self._copy(f"marker-{mutant.name}")
        log = copy.parent / f"{copy.name}.log"
        try:
            if not apply_markers(copy, mutant):
                return True, 0.0, "a snippet starts on an #elif/#else/#endif line (cannot be marked)"
            status, seconds, output = run_selection(copy, mutant.tests, mutant.timeout or self.timeout, icd,
                                                    {MARKER_LOG_VARIABLE: str(log)})
            caught = log.exists()
        finally:
            shutil.rmtree(copy, ignore_errors=True)
            log.unlink(missing_ok=True)
        if status == "passed" and not caught:
            return False, seconds, "no build compiles the mutated line"
        if status == "passed":
            return True, seconds, "a build failed on the marker (a test caught the error)"
        return True, seconds, ("a build compiles the mutated line" if MARKER in output
                               else f"the marker run did not pass ({status})")

    def judge(self, mutant: Mutant) -> Outcome:
        """The mutant's outcome: its run on the primary ICD; if it survives there and is kernel code that the
        primary does not compile, its run on the first other ICD that does; with none, not-exercised."""
        if mutant.oclgrind:  # a bug only the simulator shows: Oclgrind decides, or nothing does
            icd, env = self.target(mutant)
            if icd is None:
                return Outcome(mutant.name, "error", detail="adapter: oclgrind, but no Oclgrind ICD is installed "
                                                            "(`pip install 'dmlsim[oclgrind]'`)")
            return self.run_mutant(mutant, icd, env)
        primary = self.icds.primary
        outcome = self.run_mutant(mutant, primary)
        if outcome.result != "survived" or not mutant.kernel_only:
            return outcome
        compiled, seconds, why = self.compiled(mutant, primary)
        outcome.seconds += seconds
        if compiled:
            return outcome
        tried = [f"{label(primary)} ({why})"]
        for icd in self.icds.alternates():
            status, seconds, _ = self.baseline(mutant.tests, icd)
            outcome.seconds += seconds
            if status != "passed":
                tried.append(f"{label(icd)} (cannot tell: the selection does not pass unmutated there: {status})")
                continue
            compiled, seconds, why = self.compiled(mutant, icd)
            outcome.seconds += seconds
            if not compiled:
                tried.append(f"{label(icd)} ({why})")
                continue
            decided = self.run_mutant(mutant, icd)
            decided.seconds += outcome.seconds
            decided.detail = "; ".join(filter(None, [f"decided on {label(icd)}: not compiled on "
                                                     + ", ".join(tried), decided.detail]))
            return decided
        return Outcome(mutant.name, "not-exercised", outcome.seconds, "tried " + "; ".join(tried), outcome.output)


def label(icd: str | None) -> str:
    return icd or "(the inherited OCL_ICD_VENDORS)"


def tail(text: str, lines: int = 25) -> str:
    return "\n".join("    " + line for line in text.rstrip().splitlines()[-lines:])


def failing(outcome: Outcome, mutant: Mutant, require_exercised: bool) -> bool:
    """Whether ``outcome`` fails the run: anything but killed, except not-exercised with a ``needs:`` (unless
    every mutant must be exercised)."""
    if outcome.result == "not-exercised":
        return require_exercised or not mutant.needs
    return outcome.result != "killed"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="run only this mutant (repeatable; comma-separated names allowed)")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="parallel pytest runs (default 2)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per pytest run (default 120)")
    parser.add_argument("--icd", action="append", default=[], metavar="FILE",
                        help="use these ICDs, in this order, unprobed (repeatable; default: every ICD the "
                             "OpenCL loader reads here, $OCL_ICD_VENDORS honoured)")
    parser.add_argument("--require-exercised", action="store_true",
                        help="fail on a mutant no device here compiles, even one whose needs: says why (CI)")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)  # a test's fake project
    parser.add_argument("-v", "--verbose", action="store_true", help="show pytest's output for every mutant")
    parser.add_argument("--no-fork", action="store_true",
                        help="start every pytest run as a process of its own (default: fork them from "
                             "tools/forkserver.py, which has the third-party imports done)")
    args = parser.parse_args(argv)
    root = args.root.resolve()

    try:
        mutants = load_table(root / "tools" / TABLE.name)
    except (TableError, yaml.YAMLError) as e:
        print(f"mutants: {e}", file=sys.stderr)
        return 2
    if args.list:
        for m in mutants:
            files = ", ".join(sorted({e.file for e in m.edits}))
            print(f"{m.name}\n    models: {m.reason}\n    edits:  {files}\n    tests:  {shlex.join(m.tests)}"
                  + (" (on Oclgrind)" if m.oclgrind else "")
                  + (f"\n    needs:  {m.needs}" if m.needs else ""))
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
    icds = IcdPool(args.icd) if args.icd else discovered_icds()
    primary = icds.primary
    print(f"mutants: {len(mutants)} mutant(s), {args.jobs} job(s), OCL_ICD_VENDORS={label(primary)}"
          f"{' (other ICDs only for code it does not compile)' if len(icds.paths) > 1 else ''}", flush=True)
    outcomes: dict[str, Outcome] = {}
    with tempfile.TemporaryDirectory(prefix="dmlsim-mutants-") as tmp, fork_server(not args.no_fork):
        scratch = Path(tmp)
        base = make_base(root, scratch)
        harness = Harness(base, scratch, args.timeout, icds)
        runnable = []
        for m in mutants:
            why = stale_reason(base, m)
            if why:
                outcomes[m.name] = Outcome(m.name, "stale", detail=why)
            else:
                runnable.append(m)
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            # every distinct selection must pass unmutated first: selections differing only in their -k
            # expression are checked together, as one run of the union of their -k's (a selection that selects
            # nothing still shows, as its mutant's run then ends in pytest's "no tests ran" error)
            first = {m.key: m for m in runnable}
            groups = baseline_groups(sorted(first))
            ran = dict(zip(groups, pool.map(lambda g: harness.baseline(g[0], *harness.target(first[groups[g][0]])),
                                            groups), strict=True))
            baseline = {key: ran[group] for group, keys in groups.items() for key in keys}
            broken = {k for k, (status, _, _) in baseline.items() if status != "passed"}
            for k in sorted(broken):
                status, seconds, output = baseline[k]
                on = " on Oclgrind" if k[1] else ""
                print(f"\nmutants: selection `{shlex.join(k[0])}`{on} does not pass unmutated ({status}, "
                      f"{seconds:.1f} s):\n{tail(output)}", flush=True)
            for m in runnable:
                if m.key in broken:
                    outcomes[m.name] = Outcome(m.name, "broken-selection", detail=baseline[m.key][0])
            to_run = [m for m in runnable if m.key not in broken]
            for outcome in pool.map(harness.judge, to_run):
                outcomes[outcome.name] = outcome
                where = f"  ({outcome.detail.split(':')[0]})" if outcome.detail.startswith("decided on") else ""
                print(f"  {outcome.result:<13} {outcome.seconds:6.1f} s  {outcome.name}{where}", flush=True)

    by_name = {m.name: m for m in mutants}
    width = max(len(m.name) for m in mutants) if mutants else 4
    print(f"\n{'mutant':<{width}}  {'result':<16} {'seconds':>7}  selection")
    for m in mutants:
        o = outcomes[m.name]
        print(f"{m.name:<{width}}  {o.result:<16} {o.seconds:7.1f}  {shlex.join(m.tests)}")
    bad = [o for o in (outcomes[m.name] for m in mutants) if failing(o, by_name[o.name], args.require_exercised)]
    for m in mutants:
        o = outcomes[m.name]
        if o.result == "not-exercised" and o not in bad:
            print(f"\n{o.name}: not exercised here, needs {m.needs}\n    {o.detail}")
        elif o.result == "killed" and o.detail:
            print(f"\n{o.name}: killed, {o.detail}")
    for o in bad:
        m = by_name[o.name]
        if o.result == "not-exercised":
            why = (f"needs {m.needs}; --require-exercised" if m.needs
                   else "no device here compiles it and tools/mutants.yaml gives no needs: for it")
            print(f"\n{o.name}: NOT EXERCISED ({why})\n    {o.detail}\n    models: {m.reason}")
            continue
        print(f"\n{o.name}: {o.result.upper()}" + (f" ({o.detail})" if o.detail else "")
              + f"\n    models: {m.reason}" + (f"\n{tail(o.output)}" if o.output else ""))
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
