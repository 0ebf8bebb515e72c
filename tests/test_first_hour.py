"""A user's first hour (issue 30): each numbered item of the issue, through the real ``dmlsim`` command line in a
subprocess (what a user types), except where only a function can be made to take the other branch.

Item 1 (README as a front page, the docs site) is tested by tests/test_docs.py; the plot (item 6) by
tests/test_bench.py's plot tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

IDENTITY = {
    "resources": {
        "A": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3, 4]},
        "B": {"initialValuesDataType": "FLOAT32", "initialValues": [0, 0, 0, 0]},
    },
    "dispatchables": {
        "copy": {"type": "DML_OPERATOR_ELEMENT_WISE_IDENTITY", "desc": {
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1, 4]},
            "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1, 4]}}},
    },
    "commands": [
        {"type": "dispatch", "dispatchable": "copy", "bindings": {"InputTensor": "A", "OutputTensor": "B"}},
        {"type": "expect", "resource": "B", "values": [1, 2, 3, 4]},
    ],
}


def dmlsim(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``python -m dmlsim ARGS`` with this checkout first on the path; stdout and stderr apart."""
    environ = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "dmlsim", *args], capture_output=True, text=True, cwd=cwd,
                          env=environ, timeout=120)


def first_icd() -> str | None:
    """One OpenCL ICD file (Debian's PoCL first), for the items that need an OpenCL device; None without any."""
    from dmlsim.backends.opencl.icd import icd_files

    files = [str(f) for f in icd_files() if "oclgrind" not in f.name]
    return files[0] if files else None


# --- 2. warning noise: pyopencl's compiler output only when asked -----------------------------------------
def test_devices_probe_prints_no_compiler_warnings_unless_asked():
    icd = first_icd()
    if icd is None:
        pytest.skip("no OpenCL ICD on this machine: nothing builds a kernel")
    quiet = dmlsim("devices", "--probe", env={"OCL_ICD_VENDORS": icd})
    assert quiet.returncode == 0 and "[usable]" in quiet.stdout, quiet.stderr
    assert "CompilerWarning" not in quiet.stderr and "compiler output" not in quiet.stderr.lower(), quiet.stderr


def test_compiler_output_is_shown_when_the_user_asks(monkeypatch):
    """``PYOPENCL_COMPILER_OUTPUT=1`` lets pyopencl's CompilerWarning through; unset, it is silenced."""
    import warnings

    from dmlsim.backends.opencl.errors import compiler_output_wanted, quiet_compiler

    cl = pytest.importorskip("pyopencl")
    monkeypatch.delenv("PYOPENCL_COMPILER_OUTPUT", raising=False)
    assert not compiler_output_wanted()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with quiet_compiler():
            warnings.warn("a remark", cl.CompilerWarning, stacklevel=1)
    assert caught == []
    monkeypatch.setenv("PYOPENCL_COMPILER_OUTPUT", "1")
    assert compiler_output_wanted()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with quiet_compiler():
            warnings.warn("a remark", cl.CompilerWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["a remark"]


# (a real build failure keeps its log in the DMLError, silenced or not: tests/test_opencl_errors.py,
# test_kernel_build_failure_carries_log_and_options, on every OpenCL device)


# --- 3. honest timings ------------------------------------------------------------------------------------
def test_the_first_execution_is_reported_as_the_kernel_build(tmp_path):
    icd = first_icd()
    if icd is None:
        pytest.skip("no OpenCL ICD: the reference device builds no kernels")
    model = tmp_path / "one.json"
    model.write_text(json.dumps(IDENTITY))
    one = dmlsim("run", "-a", "cpu", str(model), env={"OCL_ICD_VENDORS": icd})
    assert one.returncode == 0, one.stderr
    lines = one.stdout.splitlines()
    build = [ln for ln in lines if ln.startswith("Kernel build for 'copy': its first execution")]
    assert len(build) == 1 and "the only sample: run with -i 2 or more" in build[0], one.stdout
    assert lines.index(build[0]) + 1 == next(i for i, ln in enumerate(lines) if ln.startswith("Dispatch 'copy'"))
    three = dmlsim("run", "-a", "cpu", "-i", "3", str(model), env={"OCL_ICD_VENDORS": icd})
    assert "left out of the median as a cold sample" in three.stdout, three.stdout
    reference = dmlsim("run", "-a", "reference", str(model))
    assert "Kernel build" not in reference.stdout and "Dispatch 'copy'" in reference.stdout


def test_the_overhead_interval_is_in_one_unit_and_says_what_a_negative_bound_means():
    from dmlsim.bench.report import _interval, same_unit

    text = _interval({"dmlsim_added_low": -2730.0, "dmlsim_added_high": 6120.0, "rounds": 40})
    assert "95 % interval -2.73 to 6.12 us, 40 shuffled rounds" in text
    assert "below 0" in text and "noise" in text
    assert same_unit(120.0, 980.0) == "120 to 980 ns"
    assert same_unit(-5e6, 2e5) == "-5 to 0.2 ms"
    assert "below 0" not in _interval({"dmlsim_added_low": 10.0, "dmlsim_added_high": 20.0, "rounds": 5})


# --- 4. the round trip of one model ------------------------------------------------------------------------
def test_output_path_folders_are_created_as_dxdispatch_does(tmp_path):
    model = tmp_path / "one.json"
    model.write_text(json.dumps({**IDENTITY, "commands": [
        *IDENTITY["commands"], {"type": "writeFile", "resource": "B", "targetPath": "b.npy"}]}))
    out = tmp_path / "res" / "deeper"
    proc = dmlsim("run", "-a", "reference", str(model), "--output_path", str(out))
    assert proc.returncode == 0, proc.stderr
    assert (out / "b.npy").is_file()
    blocker = tmp_path / "file"
    blocker.write_text("")
    refused = dmlsim("run", "-a", "reference", str(model), "--output_path", str(blocker / "x"))
    assert refused.returncode == 2 and "--output_path" in refused.stderr and "cannot be made" in refused.stderr


def test_compare_one_model_by_name_or_by_what_the_results_hold(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    (models / "one.json").write_text(json.dumps(IDENTITY))
    (models / "two.json").write_text(json.dumps(IDENTITY))
    export = tmp_path / "export"
    assert dmlsim("export", str(models), "-o", str(export)).returncode == 0
    results = tmp_path / "res"
    ran = dmlsim("run", "-a", "reference", str(export / "one.json"), "--output_path", str(results))
    assert ran.returncode == 0, ran.stderr
    whole = dmlsim("compare", str(export), str(results))
    assert whole.returncode == 2 and "1 missing" in whole.stdout and "--found" in whole.stderr
    found = dmlsim("compare", str(export), str(results), "--found")
    assert found.returncode == 0, found.stderr
    assert "1 checks: 1 match" in found.stdout and "not compared" in found.stdout and "two" in found.stdout
    named = dmlsim("compare", str(export), str(results), "--model", "one")
    assert named.returncode == 0 and "1 checks: 1 match" in named.stdout, named.stderr
    unknown = dmlsim("compare", str(export), str(results), "--model", "three")
    assert unknown.returncode == 2 and "no model 'three'" in unknown.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = dmlsim("compare", str(export), str(empty), "--found")
    assert nothing.returncode == 2 and "holds no result file" in nothing.stderr


# --- 5. messages ------------------------------------------------------------------------------------------
def test_an_operator_type_typo_gets_a_did_you_mean(tmp_path):
    model = tmp_path / "m.json"
    model.write_text(json.dumps({**IDENTITY, "dispatchables": {"copy": {
        **IDENTITY["dispatchables"]["copy"], "type": "DML_OPERATOR_ELEMENT_WISE_IDENTIY"}}}))
    proc = dmlsim("validate", str(model))
    assert proc.returncode == 2
    assert "did you mean 'DML_OPERATOR_ELEMENT_WISE_IDENTITY'?" in proc.stderr, proc.stderr
    from dmlsim.model.descs import operator_type_hint

    assert operator_type_hint("ADAM_OPTIMIZR") == "; did you mean 'DML_OPERATOR_ADAM_OPTIMIZER'?"
    assert operator_type_hint("SOMETHING_ELSE_ENTIRELY") == "" and operator_type_hint(7) == ""


def test_a_typo_under_a_yaml_anchor_is_located_at_its_use(tmp_path):
    model = tmp_path / "m.yaml"
    model.write_text("x-tensor: &t\n"
                     "  DataType: FLOAT32\n"
                     "  Sizs: [1, 1, 1, 4]\n"
                     "resources:\n"
                     "  A: {initialValuesDataType: FLOAT32, initialValues: [1, 2, 3, 4]}\n"
                     "  B: {initialValuesDataType: FLOAT32, initialValues: [0, 0, 0, 0]}\n"
                     "dispatchables:\n"
                     "  copy:\n"
                     "    type: DML_OPERATOR_ELEMENT_WISE_IDENTITY\n"
                     "    desc:\n"
                     "      InputTensor: {DataType: FLOAT32, Sizes: [1, 1, 1, 4]}\n"
                     "      OutputTensor:\n"
                     "        <<: *t\n"
                     "commands:\n"
                     "  - {type: dispatch, dispatchable: copy, bindings: {InputTensor: A, OutputTensor: B}}\n")
    proc = dmlsim("validate", str(model))
    assert proc.returncode == 2
    assert (f"{model}:13:13: dispatchables.copy.desc.OutputTensor.Sizs (written at 3:9, under a YAML anchor): "
            "unknown key 'Sizs'") in proc.stderr, proc.stderr
    plain = model.read_text().replace("x-tensor: &t\n  DataType: FLOAT32\n  Sizs: [1, 1, 1, 4]\n", "").replace(
        "        <<: *t\n", "        DataType: FLOAT32\n        Sizs: [1, 1, 1, 4]\n")
    model.write_text(plain)
    direct = dmlsim("validate", str(model))
    assert "Sizs: unknown key" in direct.stderr and "anchor" not in direct.stderr, direct.stderr


def test_an_option_error_names_the_option_and_prints_the_subcommands_usage():
    sizes = dmlsim("bench", "--sizes", "1Q")
    assert sizes.returncode == 2
    assert "dmlsim bench: --sizes '1Q': not a whole number" in sizes.stderr and "invalid literal" not in sizes.stderr
    typo = dmlsim("run", "--adpater", "cpu", "m.json")
    assert typo.returncode == 2
    assert typo.stderr.startswith("usage: dmlsim run "), typo.stderr
    assert "unrecognized arguments: --adpater (did you mean --adapter?)" in typo.stderr


def test_command_line_messages_carry_no_hresult_prefix():
    proc = dmlsim("bench", "nosuchcase", "--no-native", "--no-overhead")
    assert proc.returncode == 2
    assert proc.stderr.startswith("dmlsim bench: unknown bench operator(s) nosuchcase"), proc.stderr
    assert "E_INVALIDARG" not in proc.stderr and "0x80070057" not in proc.stderr


def test_a_runtime_word_that_matches_nothing_says_how_to_get_it():
    icd = first_icd()
    if icd is not None and "oclgrind" not in icd:
        hidden = dmlsim("run", "-a", "oclgrind", str(ROOT / "descriptors" / "element_wise_identity.yaml"),
                        env={"OCL_ICD_VENDORS": icd})
        assert hidden.returncode == 2 and "matches no device" in hidden.stderr
        assert "hint:" in hidden.stderr and "oclgrind" in hidden.stderr.split("hint:")[1], hidden.stderr
    from dmlsim.backends.adapters import extra_hint

    assert "pip install 'dmlsim[oclgrind]'" in extra_hint("oclgrind", installed=lambda name: False)
    assert "dmlsim doctor --install" in extra_hint("Intel", installed=lambda name: False)
    assert "is installed but no device" in extra_hint("pocl", installed=lambda name: True)
    assert extra_hint("gpu", installed=lambda name: False) == ""


def test_devices_has_a_header_row_and_prints_p_d_once():
    proc = dmlsim("devices")
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:3] == ["#", "P:D", "PLATFORM"], lines[0]
    for line in lines[1:]:
        fields = line.split()
        if len(fields) > 2 and ":" in fields[1]:
            assert line.count(fields[1] + " ") == 1, line  # P:D in its column only
    assert any(line.split()[:2] == ["-", "reference"] for line in lines)


# --- 7. progress on a terminal only ----------------------------------------------------------------------
def test_progress_is_off_when_not_a_tty_and_never_in_machine_output(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    for i in range(3):
        (models / f"m{i}.json").write_text(json.dumps(IDENTITY))
    proc = dmlsim("validate", str(models))
    assert proc.returncode == 0
    assert "\r" not in proc.stdout + proc.stderr and "it/s" not in proc.stderr
    listing = dmlsim("devices", "--json")
    assert json.loads(listing.stdout)[-1]["kind"] == "reference" and "\r" not in listing.stderr


def test_progress_bars_are_drawn_on_a_terminal(monkeypatch, capsys):
    """On a TTY (forced here) ``dmlsim.progress`` draws a tqdm bar on stderr; stdout gets none of it."""
    from dmlsim import progress

    monkeypatch.setattr(progress, "stderr_is_terminal", lambda: True)
    items = list(progress.track(range(3), "validate", total=3))
    assert items == [0, 1, 2]
    captured = capsys.readouterr()
    assert "validate" in captured.err and "/3" in captured.err and captured.out == ""
    monkeypatch.setattr(progress, "stderr_is_terminal", lambda: False)
    assert list(progress.track(range(2), "validate", total=2)) == [0, 1]
    assert capsys.readouterr().err == ""


def test_the_test_matrix_numbers_its_runs(monkeypatch, capsys):
    """``make test`` (tests/matrix.py) says which run of how many is starting; pytest shows each run's own progress."""
    import importlib.util

    from dmlsim.backends.opencl.icd import IcdReport

    spec = importlib.util.spec_from_file_location("matrix_under_test", ROOT / "tests" / "matrix.py")
    matrix = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(matrix)
    cpu = {"id": "0:0", "kind": "CPU", "problem": None, "implementation": "pocl"}
    reports = {"a.icd": IcdReport("a.icd", [cpu]), "b.icd": IcdReport("b.icd", [{**cpu, "implementation": "intel"}]),
               "c.icd": IcdReport("c.icd", [cpu])}  # a second PoCL build: no second run of the GPU launch shapes
    monkeypatch.setattr(matrix, "icd_files", lambda: list(reports))
    monkeypatch.setattr(matrix, "probe_icd", lambda path: reports[path])
    labels = []
    monkeypatch.setattr(matrix, "run_pytest", lambda label, *rest: (labels.append(label), (0, {
        "tests": 1, "failures": 0, "errors": 0, "skipped": 0, "seconds": 0.0}))[1])
    assert matrix.main(["--jobs", "1"]) == 0
    assert labels == ["run 1/5, whole suite", "run 2/5, device tier, GPU launch shapes", "run 3/5, device tier",
                      "run 4/5, device tier, GPU launch shapes", "run 5/5, device tier"]
    capsys.readouterr()


def test_the_test_matrix_runs_two_at_a_time_longest_first(monkeypatch, capsys):
    """CI has two cores and each run is mostly one Python thread: ``make test`` runs two at a time, the whole
    suite first, each run's output printed whole when it ends, the summary in the plan's order, and a failed run
    still fails the matrix."""
    import importlib.util

    from dmlsim.backends.opencl.icd import IcdReport

    spec = importlib.util.spec_from_file_location("matrix_jobs", ROOT / "tests" / "matrix.py")
    matrix = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(matrix)
    cpu = {"id": "0:0", "kind": "CPU", "problem": None, "implementation": "pocl"}
    sim = {"id": "0:0", "kind": "SIMULATOR", "problem": None, "implementation": "oclgrind"}
    reports = {"a.icd": IcdReport("a.icd", [cpu]), "b.icd": IcdReport("b.icd", [{**cpu, "implementation": "intel"}]),
               "o.icd": IcdReport("o.icd", [sim])}
    monkeypatch.setattr(matrix, "icd_files", lambda: list(reports))
    monkeypatch.setattr(matrix, "probe_icd", lambda path: reports[path])
    monkeypatch.delenv("DMLSIM_MATRIX_JOBS", raising=False)
    started, logs = [], []

    def fake(label, icd, args, env, junit, log=None):
        started.append(label)
        logs.append(log)
        log.write_text(f"output of {label}\n")
        return (1 if label.endswith("device tier") else 0), {
            "tests": 3, "failures": int(label.endswith("device tier")), "errors": 0, "skipped": 0, "seconds": 1.0}

    monkeypatch.setattr(matrix, "run_pytest", fake)
    assert matrix.main(["--jobs", "2"]) == 1  # run 3 (Intel's device tier) failed
    n = matrix.OCLGRIND_PARTS
    assert len(started) == 4 + n and None not in logs
    assert started[0] == f"run 1/{4 + n}, whole suite"  # the longest run starts first
    assert all("Oclgrind" in label for label in started[-n:])  # the shortest last
    out = capsys.readouterr().out
    assert "2 at a time" in out
    for label in started:
        assert f"output of {label}\nmatrix: finished {label}" in out
    summary = out[out.index("matrix runs:"):]
    lines = [line for line in summary.splitlines()[1:] if line.startswith("  ")]
    assert [line.split(" on ")[0].strip() for line in lines[:4]] == [
        "whole suite", "device tier, GPU launch shapes", "device tier", "device tier, GPU launch shapes"]
    assert "device tier on b.icd (pytest exit 1) FAILED" in summary


def test_kernel_builds_print_no_compiler_warning_unless_asked(monkeypatch):
    """Item 2: ``pytest descriptors/`` printed 44 pyopencl CompilerWarnings (Intel's runtime remarks on every fresh
    build). Builds now print none; ``PYOPENCL_COMPILER_OUTPUT=1`` shows them (the control: they do exist)."""
    from dmlsim.backends.opencl.icd import icd_files

    monkeypatch.delenv("OCL_ICD_VENDORS", raising=False)  # every ICD of the machine, not this process's one
    intel = [str(f) for f in icd_files() if "intel" in f.name]
    if not intel:
        pytest.skip("Intel's OpenCL runtime (whose builds leave a log) is not installed here")
    model = str(ROOT / "descriptors" / "convolution_float16.yaml")
    env = {"OCL_ICD_VENDORS": intel[0], "PYOPENCL_NO_CACHE": "1"}
    quiet = dmlsim("run", "-a", "intel", model, env={**env, "PYOPENCL_COMPILER_OUTPUT": "0"})
    assert quiet.returncode == 0, quiet.stderr
    assert "CompilerWarning" not in quiet.stderr, quiet.stderr
    shown = dmlsim("run", "-a", "intel", model, env={**env, "PYOPENCL_COMPILER_OUTPUT": "1"})
    assert shown.returncode == 0 and "CompilerWarning" in shown.stderr, shown.stderr


def test_the_oclgrind_tier_runs_in_parts_and_a_crashed_part_runs_again(monkeypatch, capsys):
    """Oclgrind's in-process compiler has crashed (SIGSEGV) in a build after hundreds of builds in one process: the
    tier runs in parts (every test file once, the model files too), and a part ended by a signal runs once more,
    reported as such; a test failure (exit 1) is never rerun."""
    import importlib.util

    from dmlsim.backends.opencl.icd import IcdReport

    spec = importlib.util.spec_from_file_location("matrix_parts", ROOT / "tests" / "matrix.py")
    matrix = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(matrix)
    parts = matrix.oclgrind_parts()
    files = [name for part in parts for name in part]
    assert sorted(files) == sorted(["descriptors", *(f"tests/{p.name}" for p in (ROOT / "tests").glob("test_*.py"))])
    cpu = {"id": "0:0", "kind": "CPU", "problem": None, "implementation": "pocl"}
    sim = {"id": "0:0", "kind": "SIMULATOR", "problem": None, "implementation": "oclgrind"}
    reports = {"a.icd": IcdReport("a.icd", [cpu]), "o.icd": IcdReport("o.icd", [sim])}
    monkeypatch.setattr(matrix, "icd_files", lambda: list(reports))
    monkeypatch.setattr(matrix, "probe_icd", lambda path: reports[path])
    n = matrix.OCLGRIND_PARTS
    assert len(parts) == n >= 3
    total = 2 + n  # the whole suite, the GPU-launch-shape device tier, then the Oclgrind parts
    outcomes = {f"run 4/{total}, Oclgrind tier, part 2/{n}": -11}
    labels = []

    def fake(label, *rest):
        labels.append(label)
        return outcomes.pop(label, 0), {"tests": 1, "failures": 0, "errors": 0, "skipped": 0, "seconds": 0.0}

    monkeypatch.setattr(matrix, "run_pytest", fake)
    assert matrix.main(["--jobs", "1"]) == 0
    expected = [f"run {2 + k}/{total}, Oclgrind tier, part {k}/{n}" for k in range(1, n + 1)]
    expected.insert(2, f"run 4/{total} again, Oclgrind tier, part 2/{n}")  # the crashed part, once more
    assert labels[2:] == expected
    assert "ended by signal 11 in Oclgrind, run again" in capsys.readouterr().out
