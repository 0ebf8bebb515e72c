"""The pytest plugin: which folders it collects (opt-in only), its items under pytest-xdist, and how items
that did not run are reported. Each test runs pytest on a scratch project in a subprocess."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from plugin_support import descriptor_folder, run_pytest

from dmlsim.pytest_plugin import MARKER_FILE

# One valid Adam step checked against literal values: 3 items (the dispatchable, the dispatch, the expect).
ADAM = """
x-t: &t {DataType: FLOAT32, Sizes: [1, 1, 1, 4]}
resources:
  X: {initialValuesDataType: FLOAT32, initialValues: [1, 2, 3, 4]}
  M: {initialValuesDataType: FLOAT32, initialValues: {valueCount: 4, value: 0}}
  V: {initialValuesDataType: FLOAT32, initialValues: {valueCount: 4, value: 0}}
  G: {initialValuesDataType: FLOAT32, initialValues: [1, -1, 2, 0.5]}
  step: {initialValuesDataType: UINT32, initialValues: [1]}
dispatchables:
  adam:
    type: ADAM_OPTIMIZER
    desc:
      InputParametersTensor: *t
      InputFirstMomentTensor: *t
      InputSecondMomentTensor: *t
      GradientTensor: GRADIENT_DESC
      TrainingStepTensor: {DataType: UINT32, Sizes: [1, 1, 1, 1]}
      OutputParametersTensor: *t
      OutputFirstMomentTensor: *t
      OutputSecondMomentTensor: *t
      LearningRate: 0.01
      Beta1: 0.9
      Beta2: 0.999
      Epsilon: 1e-8
commands:
  - type: dispatch
    dispatchable: adam
    bindings: {InputParametersTensor: X, InputFirstMomentTensor: M, InputSecondMomentTensor: V,
               GradientTensor: GRADIENT, TrainingStepTensor: step, OutputParametersTensor: X,
               OutputFirstMomentTensor: M, OutputSecondMomentTensor: V}
  - {type: expect, resource: X, values: [0.99, 2.01, 2.99, 3.99], rtol: 1e-6}
"""


def adam(gradient: str = "G", gradient_desc: str = "*t") -> str:
    return ADAM.replace("GRADIENT_DESC", gradient_desc).replace("GRADIENT", gradient)


PASSES = adam()
# the dispatch binds a 4-byte resource to a 16-byte tensor: refused, so the expect after it does not run
BAD_BINDING = adam(gradient="step") + "  - {type: print, resource: X}\n"
# the dispatchable's desc is refused: neither its dispatch nor the expect runs
BAD_DESC = adam(gradient_desc="{DataType: FLOAT32, Sizes: [1, 1, 1, 5]}")


def summary(proc) -> dict[str, int]:
    """``{"passed": 4, "failed": 2, ...}`` from pytest's last line."""
    last = proc.stdout.strip().splitlines()[-1]
    return {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|skipped|errors?|deselected)", last)}


def small_corpus(project: Path) -> Path:
    folder = descriptor_folder(project)
    (folder / "passes.yaml").write_text(PASSES)
    (folder / "bad_binding.yaml").write_text(BAD_BINDING)
    (folder / "bad_desc.yaml").write_text(BAD_DESC)
    return folder


# --- opting in --------------------------------------------------------------------------------------
def test_an_unrelated_project_with_a_descriptors_folder_keeps_working(tmp_path):
    """dmlsim installed, a project of its own with descriptors/config.json: its tests run and pass."""
    (tmp_path / "descriptors").mkdir()
    (tmp_path / "descriptors" / "config.json").write_text('{"service": "web", "replicas": 2}\n')
    (tmp_path / "descriptors" / "models.yaml").write_text("- not: a dmlsim model\n")
    (tmp_path / "test_app.py").write_text(
        "import json, pathlib\n\n"
        "def test_config(pytestconfig):\n"
        "    assert pytestconfig.pluginmanager.has_plugin('dmlsim')  # the plugin is active here\n"
        "    assert json.loads(pathlib.Path('descriptors/config.json').read_text())['replicas'] == 2\n")
    proc = run_pytest(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert summary(proc) == {"passed": 1}, proc.stdout
    assert "test_app.py" in run_pytest(tmp_path, "--collect-only").stdout


@pytest.mark.parametrize("ini_file, text", [
    ("pytest.ini", "[pytest]\ndmlsim_descriptors = models\n"),
    ("pyproject.toml", '[tool.pytest.ini_options]\ndmlsim_descriptors = ["models"]\n'),
])
def test_the_ini_option_names_the_descriptor_folders(tmp_path, ini_file, text):
    (tmp_path / ini_file).write_text(text)
    (tmp_path / "models" / "adam").mkdir(parents=True)
    (tmp_path / "models" / "adam" / "step.yaml").write_text(PASSES)  # subfolders are included
    (tmp_path / "models" / "_schema.json").write_text("{}")  # DxDispatch's schema: never a model
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "broken.yaml").write_text("not: [a model")  # not named: never opened
    proc = run_pytest(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert summary(proc) == {"passed": 3}, proc.stdout
    assert "step.yaml::adam[reference]" in run_pytest(tmp_path, "--collect-only").stdout


def test_a_marker_file_makes_its_folder_and_subfolders_descriptor_folders(tmp_path):
    (tmp_path / "suite" / "deep").mkdir(parents=True)
    (tmp_path / "suite" / MARKER_FILE).touch()
    (tmp_path / "suite" / "deep" / "step.yaml").write_text(PASSES)
    (tmp_path / "descriptors").mkdir()  # the folder name alone opts nothing in
    (tmp_path / "descriptors" / "broken.yaml").write_text("not: [a model")
    proc = run_pytest(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert summary(proc) == {"passed": 3}, proc.stdout


def test_a_model_file_named_on_the_command_line_is_collected_anywhere(tmp_path):
    (tmp_path / "step.yaml").write_text(PASSES)
    proc = run_pytest(tmp_path, "step.yaml")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert summary(proc) == {"passed": 3}, proc.stdout
    assert summary(run_pytest(tmp_path)) == {}  # not named, not in a descriptor folder: nothing to run


# --- items that did not run, and pytest-xdist ------------------------------------------------------
# passes.yaml: 3 passed; bad_binding.yaml: the dispatchable passes, the dispatch fails, the expect and the print
# are skipped; bad_desc.yaml: the dispatchable fails, the dispatch and the expect are skipped
CORPUS_COUNTS = {"passed": 4, "failed": 2, "skipped": 4}


@pytest.mark.parametrize("args", [[], ["-n", "2", "-v"], ["-n", "2", "-v", "--dist", "loadgroup"]],
                         ids=["one process", "xdist", "xdist loadgroup"])
def test_the_corpus_gives_the_same_counts_in_one_process_and_under_xdist(tmp_path, args):
    if args:
        pytest.importorskip("xdist", reason="pytest-xdist (in the test extra) runs the corpus on workers")
    small_corpus(tmp_path)
    proc = run_pytest(tmp_path, *args)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert summary(proc) == CORPUS_COUNTS, proc.stdout
    if args:  # (-v cancels run_pytest's -q, so that the header shows the workers)
        assert "created: 2/2 workers" in proc.stdout, proc.stdout
    assert "bad_binding.yaml::command-0[reference]" in proc.stdout  # the failure that stopped the run ...
    assert "bad_binding.yaml:31: not run: command 0" in proc.stdout  # skips shown at the model's line
    assert "not run: command 0 was refused unexpectedly" in proc.stdout  # ... and the skips it caused
    assert "not run: dispatchable 'adam' invalid (see its own result)" in proc.stdout


def test_model_items_are_collected_in_a_stable_order(tmp_path):
    """xdist requires every worker to collect the same items in the same order."""
    small_corpus(tmp_path)
    first, second = ([line for line in run_pytest(tmp_path, "--collect-only").stdout.splitlines() if "::" in line]
                     for _ in range(2))
    assert len(first) == 10 and first == second
    ids = first
    assert ids[:4] == [f"descriptors/bad_binding.yaml::{key}[reference]"
                       for key in ("adam", "command-0", "command-1", "command-2")]


def test_the_output_folder_is_removed_when_pytest_ends(tmp_path, monkeypatch):
    """Each pytest process made a dmlsim-models-* folder for written files and kept it (hundreds were left by
    the mutation runs); it is now removed with the session, also under xdist."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    descriptor_folder(tmp_path / "project")
    (tmp_path / "project" / "descriptors" / "passes.yaml").write_text(
        PASSES + "  - {type: writeFile, resource: X, targetPath: x.bin}\n")
    for args in ([], ["-n", "2"]):
        proc = run_pytest(tmp_path / "project", *args)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert sorted(p.name for p in scratch.glob("dmlsim-models-*")) == [], (args, proc.stdout)
