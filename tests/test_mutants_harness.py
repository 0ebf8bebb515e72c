"""The mutation harness (tools/mutants.py): a mutant of kernel code that no device here compiles is
``not-exercised`` (passing ``make mutants`` when its ``needs:`` says why, failing it under
``--require-exercised``, as CI runs it), one that some other ICD compiles is decided there, and one whose
code is compiled but whose tests miss it stays ``survived``.

The end-to-end cases run the harness on a tiny fake project in a temporary folder: its "kernel build" is a
few-line preprocessor (``#if 0``, ``#ifdef``, ``#define``, ``#error``) whose only device feature, HAS_F16C,
is present when the ICD's name contains "f16c" (``--icd`` names are not probed), so they need no OpenCL and
take seconds. One case builds with a real OpenCL device (the first usable one; skipped without).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _harness():
    spec = importlib.util.spec_from_file_location("mutants_harness", ROOT / "tools" / "mutants.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mutants_harness", module)
    spec.loader.exec_module(module)
    return module


mutants = _harness()

# --- where the marker goes -----------------------------------------------------------------------------------


def test_the_marker_goes_on_its_own_line_before_the_line_where_the_snippet_starts():
    text = "#define A 1\n#if X\n#define B (a + b)\n#endif\n"
    assert mutants.marker_lines(text, ["(a + b)"]) == [2]  # the snippet starts mid-line
    assert mutants.insert_markers(text, [2]) == (
        "#define A 1\n#if X\n#error dmlsim_mutant_marker\n#define B (a + b)\n#endif\n")
    # two snippets on one line: one marker; snippets on two lines: two, each before its own line
    assert mutants.marker_lines(text, ["#define B", "b)"]) == [2]
    assert mutants.insert_markers(text, mutants.marker_lines(text, ["A 1", "B ("])) == (
        "#error dmlsim_mutant_marker\n#define A 1\n#if X\n#error dmlsim_mutant_marker\n#define B (a + b)\n#endif\n")


def test_a_snippet_inside_a_continued_macro_is_marked_before_the_macro():
    # a marker inside the macro would become part of its body: it goes before the #define instead
    text = "#ifdef F16C\n#define M(x)   \\\n    (x) * 2 + \\\n    1\n#endif\n"
    assert mutants.marker_lines(text, ["    1\n"]) == [1]
    assert mutants.marker_lines(text, ["(x) * 2"]) == [1]


def test_a_snippet_on_a_branch_line_cannot_be_marked():
    # before #else the marker would sit in the previous branch: such a mutant counts as compiled
    text = "#ifdef F16C\n#define M 1\n#else\n#define M 2\n#endif\n"
    assert mutants.marker_lines(text, ["#else\n#define M 2"]) is None
    assert mutants.marker_lines("#if A\n  #  elif B\n#endif\n", ["elif B"]) is None


# --- the table's needs: --------------------------------------------------------------------------------------


def _table(tmp_path, body):
    path = tmp_path / "mutants.yaml"
    path.write_text(textwrap.dedent(body))
    return path


def test_needs_is_only_for_kernel_code(tmp_path):
    path = _table(tmp_path, """\
        - name: python-mutant
          reason: r
          file: dmlsim/x.py
          old: a
          new: b
          tests: tests/test_x.py
          needs: a GPU
        """)
    with pytest.raises(mutants.TableError, match=r"python-mutant.*needs is only for a mutant whose edits are all"):
        mutants.load_table(path)
    path = _table(tmp_path, """\
        - name: empty-needs
          reason: r
          file: dmlsim/x.cl
          old: a
          new: b
          tests: tests/test_x.py
          needs: "  "
        """)
    with pytest.raises(mutants.TableError, match=r"empty-needs.*needs must be a sentence"):
        mutants.load_table(path)


# Conditions on what the OpenCL compiler or its target offers (not on the -D options dmlsim chooses).
DEVICE_MACROS = re.compile(r"__clang__|__AVX|__SSE|__F16C__|DMLSIM_DIRECT_VECTORS|DMLSIM_CPU")


def _branch_condition(text: str, line: int) -> str | None:
    """The condition of the innermost #if/#ifdef/#elif branch holding the 0-based ``line`` (None: outside
    any, or in an #else branch)."""
    stack: list[str | None] = []
    for source in text.splitlines()[:line]:
        words = source.strip()
        if re.match(r"#\s*(if|ifdef|ifndef)\b", words):
            stack.append(words)
        elif re.match(r"#\s*elif\b", words):
            stack[-1] = words
        elif re.match(r"#\s*else\b", words):
            stack[-1] = None
        elif re.match(r"#\s*endif\b", words):
            stack.pop()
    return stack[-1] if stack else None


def test_every_mutant_in_device_selected_kernel_code_says_what_it_needs():
    # a mutant inside `#if defined(__F16C__)` etc. is compiled only by some drivers: the table must say which
    missing = []
    for m in mutants.load_table():
        for edit in m.edits:
            if Path(edit.file).suffix not in mutants.KERNEL_SUFFIXES:
                continue
            text = (ROOT / edit.file).read_text()
            condition = _branch_condition(text, text.count("\n", 0, text.index(edit.old)))
            if condition and DEVICE_MACROS.search(condition) and not m.needs:
                missing.append(f"{m.name}: {condition}")
    assert not missing, "mutants in device-selected code without needs:\n" + "\n".join(missing)
    needing = {m.name for m in mutants.load_table() if m.needs}
    assert {"cpu-vector-sqrt-is-reciprocal", "f16-direct-vector-store-truncates",
            "f16-direct-vector-load-drops-sign", "cpu-direct-vector-load-shifted"} <= needing


# --- end to end, on a fake project ---------------------------------------------------------------------------

FAKE_FILES = {
    "dmlsim/__init__.py": "",
    "dmlsim/cl_kernels/__init__.py": "",
    "dmlsim/backends/__init__.py": "",
    "dmlsim/backends/opencl/__init__.py": "",
    # what the harness's child checks: the kernel folder comes from the scratch copy
    "dmlsim/backends/opencl/programs.py": """\
        from pathlib import Path


        def kernel_dir():
            return Path(__file__).resolve().parents[2] / "cl_kernels"
        """,
    # the fake "kernel build": HAS_F16C where the ICD's name says f16c
    "dmlsim/compiler.py": """\
        import os
        from pathlib import Path


        def build():
            defined = {"HAS_F16C"} if "f16c" in os.environ.get("OCL_ICD_VENDORS", "") else set()
            macros, active = {}, [True]
            for line in (Path(__file__).parent / "cl_kernels" / "fake.h").read_text().splitlines():
                words = line.split()
                if not words:
                    continue
                if words[0] == "#ifdef":
                    active.append(active[-1] and words[1] in defined)
                elif words[0] == "#if":
                    active.append(active[-1] and words[1] != "0")
                elif words[0] == "#endif":
                    active.pop()
                elif not active[-1]:
                    continue
                elif words[0] == "#error":
                    raise RuntimeError("build failed: error: " + " ".join(words[1:]))
                elif words[0] == "#define":
                    macros[words[1]] = words[2]
            return macros
        """,
    "dmlsim/cl_kernels/fake.h": """\
        #define SCALE 2
        #define UNTESTED 5
        #ifdef HAS_F16C
        #define FAST 3
        #endif
        #if 0
        #define DEAD 4
        #define DEAD_UNDECLARED 6
        #endif
        """,
    "test_fake.py": """\
        from dmlsim.compiler import build


        def test_scale():
            assert build()["SCALE"] == "2"


        def test_fast():
            assert build().get("FAST", "3") == "3"
        """,
    "tools/mutants.yaml": """\
        - name: killed
          reason: a compiled line the selection checks
          file: dmlsim/cl_kernels/fake.h
          old: "#define SCALE 2"
          new: "#define SCALE 3"
          tests: test_fake.py::test_scale
        - name: compiled-survivor
          reason: a compiled line the selection does not check
          file: dmlsim/cl_kernels/fake.h
          old: "#define UNTESTED 5"
          new: "#define UNTESTED 6"
          tests: test_fake.py::test_scale
        - name: dead
          reason: a line no device compiles
          file: dmlsim/cl_kernels/fake.h
          old: "#define DEAD 4"
          new: "#define DEAD 5"
          tests: test_fake.py::test_scale
          needs: a device that takes the dead branch
        - name: dead-undeclared
          reason: a line no device compiles, and the table does not say why
          file: dmlsim/cl_kernels/fake.h
          old: "#define DEAD_UNDECLARED 6"
          new: "#define DEAD_UNDECLARED 7"
          tests: test_fake.py::test_scale
        - name: f16c-only
          reason: a line only an F16C device compiles
          file: dmlsim/cl_kernels/fake.h
          old: "#define FAST 3"
          new: "#define FAST 4"
          tests: test_fake.py::test_fast
          needs: an F16C device
        """,
}


def _project(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    subprocess.run(["git", "add", "-A"], cwd=folder, check=True)
    return folder


@pytest.fixture(autouse=True)
def _no_installed_pytest_plugins(monkeypatch):
    """The fake projects' pytest runs load no entry-point plugin: dmlsim's own (installed editable) would import
    the real dmlsim's modules under the fake package's name."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    return _project(tmp_path_factory.mktemp("fake-project"), FAKE_FILES)


def _judge(project: Path, scratch: Path, icds: list[str], names: list[str]) -> dict:
    table = {m.name: m for m in mutants.load_table(project / "tools" / "mutants.yaml")}
    harness = mutants.Harness(mutants.make_base(project, scratch), scratch, 60.0, mutants.IcdPool(icds))
    return {name: harness.judge(table[name]) for name in names}


def test_outcomes_where_the_primary_icd_does_not_compile_everything(fake, tmp_path):
    got = _judge(fake, tmp_path, ["plain.icd", "f16c.icd"],
                 ["killed", "compiled-survivor", "dead", "f16c-only"])
    assert got["killed"].result == "killed"
    # compiled (the marker run fails on plain.icd) but not caught: the verdict stands, no other ICD tried
    assert got["compiled-survivor"].result == "survived" and got["compiled-survivor"].detail == ""
    # compiled by no ICD
    assert got["dead"].result == "not-exercised"
    assert "plain.icd (no build compiles" in got["dead"].detail and "f16c.icd (no build" in got["dead"].detail
    # not compiled on the primary: decided on the ICD that compiles it
    assert got["f16c-only"].result == "killed"
    assert got["f16c-only"].detail.startswith("decided on f16c.icd: not compiled on plain.icd")


def test_without_the_icd_that_compiles_it_the_mutant_is_not_exercised(fake, tmp_path):
    got = _judge(fake, tmp_path, ["plain.icd"], ["f16c-only"])
    assert got["f16c-only"].result == "not-exercised"


def _main(fake, capsys, *args):
    code = mutants.main(["--root", str(fake), "-j", "2", *args])
    return code, capsys.readouterr().out


def test_not_exercised_with_needs_passes_make_mutants_and_fails_under_require_exercised(fake, capsys):
    code, out = _main(fake, capsys, "--icd", "plain.icd", "--only", "dead,killed")
    assert code == 0, out
    assert "dead: not exercised here, needs a device that takes the dead branch" in out
    assert "mutants: 1 killed, 1 not-exercised of 2" in out
    code, out = _main(fake, capsys, "--icd", "plain.icd", "--only", "dead", "--require-exercised")
    assert code == 1, out
    assert "dead: NOT EXERCISED (needs a device that takes the dead branch; --require-exercised)" in out


def test_not_exercised_without_needs_and_survived_fail(fake, capsys):
    code, out = _main(fake, capsys, "--icd", "plain.icd", "--only", "dead-undeclared")
    assert code == 1, out
    assert "dead-undeclared: NOT EXERCISED (no device here compiles it and tools/mutants.yaml gives no needs:" in out
    code, out = _main(fake, capsys, "--icd", "plain.icd", "--only", "compiled-survivor")
    assert code == 1, out
    assert "compiled-survivor: SURVIVED" in out and "1 survived of 1" in out


def test_require_exercised_passes_where_another_icd_decides(fake, capsys):
    code, out = _main(fake, capsys, "--icd", "plain.icd", "--icd", "f16c.icd", "--only", "f16c-only",
                      "--require-exercised")
    assert code == 0, out
    assert "killed" in out and "(decided on f16c.icd)" in out


# --- a real OpenCL build whose failure a test catches ------------------------------------------------------


def _first_usable_icd() -> str | None:
    sys.path.insert(0, str(ROOT))
    from dmlsim.backends.opencl.icd import icd_files, probe_icd

    for path in icd_files():
        report = probe_icd(path)
        if report.usable and not report.simulator:
            return str(path)
    return None


def test_a_marker_build_failure_that_a_test_catches_still_counts_as_compiled(tmp_path):
    pytest.importorskip("pyopencl", reason="pyopencl is not installed: no OpenCL build to check")
    icd = _first_usable_icd()
    if icd is None:
        pytest.skip("no usable non-simulator OpenCL device here: this case needs a real kernel build")
    files = {name: text for name, text in FAKE_FILES.items() if name.startswith("dmlsim/")}
    files["dmlsim/cl_kernels/k.cl"] = "#define SCALE 2\n__kernel void k(__global int *o) { o[0] = SCALE; }\n"
    files["test_caught.py"] = """\
        from pathlib import Path

        import pyopencl as cl


        def test_build_errors_are_caught():
            device = cl.get_platforms()[0].get_devices()[0]
            source = (Path(__file__).parent / "dmlsim" / "cl_kernels" / "k.cl").read_text()
            try:
                cl.Program(cl.Context([device]), source).build()
            except cl.Error:
                pass  # a test that expects some build to fail (and so hides the marker's failure)
        """
    files["tools/mutants.yaml"] = """\
        - name: caught
          reason: a compiled kernel line whose test swallows build errors
          file: dmlsim/cl_kernels/k.cl
          old: "#define SCALE 2"
          new: "#define SCALE 3"
          tests: test_caught.py
        """
    project = _project(tmp_path / "project", files)
    (tmp_path / "scratch").mkdir()
    got = _judge(project, tmp_path / "scratch", [icd], ["caught"])
    # the selection passes with the marker (the test caught the build error), but the build did fail on it
    assert got["caught"].result == "survived", got["caught"].detail


def test_baselines_are_taken_per_group_of_selections_differing_only_in_their_k_expression():
    """Issue 23's operators brought hundreds of narrow selections: one unmutated run per file and options, with the
    union of the -k expressions, instead of one per selection (a selection without -k covers its whole group)."""
    keys = [(("tests/a.py", "-k", "x and not reference"), False), (("tests/a.py", "-k", "y"), False),
            (("tests/a.py", "-k", "y"), True), (("tests/b.py", "--harness-cases", "60", "-k", "z"), False),
            (("tests/c.py",), False), (("tests/c.py", "-k", "w"), False)]
    groups = mutants.baseline_groups(keys)
    assert groups == {
        (("tests/a.py", "-k", "(x and not reference) or (y)"), False): keys[:2],
        (("tests/a.py", "-k", "y"), True): [keys[2]],
        (("tests/b.py", "--harness-cases", "60", "-k", "z"), False): [keys[3]],
        (("tests/c.py",), False): keys[4:],
    }


# --- the fork server (tools/forkserver.py) ---------------------------------------------------------------------


def test_forked_runs_get_their_folder_environment_path_and_arguments_and_report_exits_signals_and_timeouts(tmp_path):
    """Each forked run is what ``python -c code *argv`` in its folder under its environment would be: its output,
    its exit status (negative for a signal, as subprocess reports one), a timeout that kills it; runs overlap."""
    import time

    server = mutants.ForkServer()
    try:
        assert server.alive
        work = tmp_path / "copy"
        work.mkdir()
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": "/nowhere", "MUTANT_X": "42"}
        show = ("import os, sys\nprint(os.getcwd(), os.environ['MUTANT_X'], sys.path[:2], sys.argv[1:],"
                " 'HOME' in os.environ, sys.dont_write_bytecode)\nsys.exit(3)")
        code, output = server.run(work, env, ["-a", "b"], 30, code=show)
        assert code == 3
        assert output.strip() == f"{work} 42 {[str(work), '/nowhere']} ['-a', 'b'] False True"
        code, output = server.run(work, env, [], 30, code="import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)")
        assert code == -11
        code, output = server.run(work, env, [], 30, code="raise ValueError('from the run')")
        assert code == 1 and "ValueError: from the run" in output
        started = time.monotonic()
        code, output = server.run(work, env, [], 1.0, code="print('sleeping', flush=True)\nimport time\n"
                                                           "time.sleep(12)")
        assert code is None and "sleeping" in output and time.monotonic() - started < 8
        assert not list(tmp_path.glob("*.out"))  # each run's output file is removed once read
        from concurrent.futures import ThreadPoolExecutor

        started = time.monotonic()
        with ThreadPoolExecutor(2) as pool:  # the harness's -j 2: two runs at once, not one after the other
            both = list(pool.map(lambda k: server.run(work, env, [str(k)], 30, code="import sys, time\n"
                                                      "time.sleep(2)\nprint(sys.argv[1])"), (1, 2)))
        assert [(code, out.strip()) for code, out in both] == [(0, "1"), (0, "2")]
        assert time.monotonic() - started < 3.5
    finally:
        server.close()
    assert server.run(work, env, [], 5, code="pass") is None  # gone: the caller starts a process instead
