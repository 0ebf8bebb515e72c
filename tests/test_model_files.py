"""Model files (dmlsim.model): loading, located errors, expectations, CLI exit statuses, pytest items.

Runs on the reference device only (but for the ``reference: true`` test, which needs a device that is
not the reference): what is tested here is the file format and its runner; the operator's numerics on
every adapter are covered by the descriptors/ corpus itself.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from plugin_support import descriptor_folder, run_pytest
from unimplemented_support import an_unimplemented_schema, has_plain_tensors, name_of

import dmlsim as dml
from dmlsim.api.schema import desc_fields
from dmlsim.cli import main
from dmlsim.model import FAILED, INVALID, NOT_RUN, PASSED, SKIPPED, ModelError, Runner, load_model
from dmlsim.model.compare import format_value
from dmlsim.model.timing import timing_line
from dmlsim.model.values import random_values

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "descriptors"

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
      GradientTensor: *t
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
               GradientTensor: G, TrainingStepTensor: step, OutputParametersTensor: X,
               OutputFirstMomentTensor: M, OutputSecondMomentTensor: V}
  # first step moves each parameter by LearningRate against the gradient's sign
  - {type: expect, resource: X, values: [0.99, 2.01, 2.99, 3.99], rtol: 1e-6}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def load_error(tmp_path: Path, name: str, text: str) -> str:
    with pytest.raises(ModelError) as info:
        load_model(write(tmp_path, name, text))
    return str(info.value)


def run_reference(path: Path):
    import dmlsim as dml

    return Runner(load_model(path), dml.DMLCreateDevice(0, "reference")).run()


# --- loading ------------------------------------------------------------------------------------
def test_json_with_comments_and_trailing_commas_loads(tmp_path):
    import json

    from dmlsim.model.loader import load_tree

    doc = load_tree(write(tmp_path, "m.yaml", ADAM))
    doc = {k: v for k, v in doc.items() if not k.startswith("x-")}
    body = json.dumps(doc, indent=4).replace('"LearningRate"', '// a comment\n\t"LearningRate"')
    body = body.replace('"Epsilon": 1e-08', '"Epsilon": 1e-08,\t/* a block\ncomment */')
    assert "1e-08," in body
    result = run_reference(write(tmp_path, "m.json", body))
    assert result.exit_status == 0, [o.describe() for o in result.outcomes.values()]


def test_the_whole_corpus_loads_and_validates():
    files = sorted(p for p in CORPUS.glob("*") if p.suffix in (".json", ".yaml"))
    assert len(files) >= 10
    assert main(["validate", *map(str, files)]) == 0


@pytest.mark.parametrize(("old", "new", "where", "message"), [
    ("Beta1: 0.9", "Beta1: 0.9\n      Bta2: 1", "dispatchables.adam.desc.Bta2", "did you mean 'Beta2'"),
    ("x-t: &t {DataType: FLOAT32, Sizes: [1, 1, 1, 4]}", "x-t: &t {DataType: FLOAT32, Sizes: [1, 1, 1, four]}",
     "dispatchables.adam.desc.InputParametersTensor.Sizes[3]",
     "expected an integer"),
    ("DataType: UINT32", "DataType: UINT33", "dispatchables.adam.desc.TrainingStepTensor.DataType",
     "unknown DML_TENSOR_DATA_TYPE value 'UINT33'"),
    ("      Epsilon: 1e-8\n", "", "dispatchables.adam.desc", "missing required field 'Epsilon'"),
    ("GradientTensor: G,", "GradientTensor: Q,", "commands[0].bindings.GradientTensor", "unknown resource 'Q'"),
    ("[1, 2, 3, 4]}", "[1, 2, 3, 4], sizeInBytes: 8}", "resources.X.sizeInBytes", "too small for the initialValues"),
    ("LearningRate: 0.01", "LearningRate: fast", "dispatchables.adam.desc.LearningRate", "expected a number"),
    ("type: dispatch", "type: dispatch\n    repeat: 0", "commands[0].repeat", "positive integer"),
    ("{type: expect, resource: X, values: [0.99, 2.01, 2.99, 3.99], rtol: 1e-6}",
     "{type: expect, resource: X, values: [0.99]}", "commands[1].values", "1 expected values"),
])
def test_file_errors_name_line_column_and_key_path(tmp_path, old, new, where, message):
    assert old in ADAM
    text = ADAM.replace(old, new)
    error = load_error(tmp_path, "m.yaml", text)
    if where.endswith(".desc"):  # a block mapping starts at its first key, the line after "desc:"
        line = next(i for i, ln in enumerate(text.splitlines(), 1) if ln.endswith("desc:")) + 1
    elif "x-t: &t" in new:  # inside a YAML anchor: located at the use, saying where it is written (issue 30)
        line = next(i for i, ln in enumerate(text.splitlines(), 1) if "InputParametersTensor: *t" in ln)
        assert "(written at 2:46, under a YAML anchor)" in error, error
    else:
        line = next(i for i, ln in enumerate(text.splitlines(), 1) if new.strip().split("\n")[-1].strip() in ln)
    assert f"m.yaml:{line}:" in error, error
    assert where in error and message in error, error


def test_syntax_errors_and_duplicate_keys_point_at_the_place(tmp_path):
    error = load_error(tmp_path, "m.json", '{"resources": {"A": [1, 2}\n}')
    assert error.startswith(f"{tmp_path / 'm.json'}:1:") and "syntax error" in error
    error = load_error(tmp_path, "m.yaml", "resources: {}\nresources: {}\n")
    assert ":2:1:" in error and "duplicate key 'resources'" in error


def test_only_safe_yaml_is_accepted(tmp_path):
    error = load_error(tmp_path, "m.yaml", "resources: !!python/object/apply:os.system ['true']\n")
    assert "syntax error" in error and "python/object/apply" in error


def test_unimplemented_dxdispatch_operator_desc_is_still_checked(tmp_path):
    """An operator dmlsim does not implement is parsed from its generated desc: an empty one is incomplete, every
    required tensor named at the desc (the first unimplemented operator with plain tensors when the test runs)."""
    schema = an_unimplemented_schema(has_plain_tensors, "with plain input and output tensors")
    required = [r.name for r in desc_fields(schema.desc_cls) if r.is_tensor and not r.spec.optional]
    line = f' "dispatchables": {{"op": {{"type": "{name_of(schema)}", "desc": {{}}}}}},'
    text = '{"resources": {"A": {"initialValuesDataType": "FLOAT32", "initialValues": [1]}},\n' + line + \
        '\n "commands": []}'
    error = load_error(tmp_path, "m.json", text)
    column = line.index('"desc": {}') + len('"desc": ') + 1  # 1-based, at the empty object
    assert required
    for name in required:
        assert f"m.json:2:{column}: dispatchables.op.desc: missing required field '{name}' (tensor desc)" in error


# --- values and formats -------------------------------------------------------------------------
def test_random_initializer_is_the_pcg64_stream():
    raw = np.random.PCG64(5).random_raw(6)
    expected = -1.0 + 3.0 * ((raw >> np.uint64(11)).astype(np.float64) / 2.0**53)
    got = random_values(5, 6, 9, distribution="uniform", low=-1.0, high=2.0, mean=0.0, stddev=1.0)
    np.testing.assert_array_equal(got, expected)
    normal = random_values(7, 20000, 9, distribution="normal", low=0, high=0, mean=3.0, stddev=0.5)
    assert abs(normal.mean() - 3.0) < 0.02 and abs(normal.std() - 0.5) < 0.02


def test_print_format_is_dxdispatchs():
    assert [format_value(v) for v in (np.float32(1.0), 2.5, 1e-7, 1234567.0, float("nan"), -np.inf, 7)] == \
        ["1", "2.5", "1e-07", "1.23457e+06", "nan", "-inf", "7"]


def test_timing_line_uses_hot_upper_median():
    line = timing_line("adam", [9.0, 1.0, 3.0, 2.0], [0.5, 0.1, 0.3, 0.2], warmup=1)
    assert line == "Dispatch 'adam': 4 iterations, 2.0000 ms median (CPU), 0.200000 ms median (GPU)"


def test_a_timing_run_reports_its_expectations_not_checked(tmp_path, capsys):
    """With -i each dispatch runs many times: its expects are neither checked nor reported as passed."""
    text = ADAM + "  - {type: expect, resource: X, reference: true}\n"
    path = write(tmp_path, "m.yaml", text.replace("[0.99, 2.01, 2.99, 3.99]", "[5, 5, 5, 5]"))  # would fail
    assert main(["run", "-a", "reference", "-i", "3", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Dispatch 'adam': 3 iterations" in out
    assert out.splitlines()[-1] == f"{path}: 2 passed, 2 not checked"  # the dispatchable and the dispatch ran
    assert "not checked: a timing run executes each dispatch 3 times" in out
    assert "passed" not in out.replace("2 passed", "")


# --- running: expectations, expected errors, exit statuses ----------------------------------------
def test_a_dispatch_of_a_failed_dispatchable_is_not_run_but_of_one_refused_as_expected_is_invalid(tmp_path):
    """The dispatchable's failure is reported once, at the dispatchable; a file that dispatches what it expects
    to be refused asks for the impossible."""
    bad = ADAM.replace("GradientTensor: *t", "GradientTensor: {DataType: FLOAT32, Sizes: [1, 1, 1, 5]}")
    result = run_reference(write(tmp_path, "bad.yaml", bad))
    assert [o.status for o in result.outcomes.values()] == [INVALID, NOT_RUN, NOT_RUN]
    assert result.outcomes["command-0"].message == "not run: dispatchable 'adam' invalid (see its own result)"
    assert result.exit_status == 2
    refusal = "    expectError: {hresult: E_INVALIDARG}\n"
    expected = bad.replace("    type: ADAM_OPTIMIZER\n", "    type: ADAM_OPTIMIZER\n" + refusal)
    result = run_reference(write(tmp_path, "expected.yaml", expected))
    assert [o.status for o in result.outcomes.values()] == [PASSED, INVALID, NOT_RUN]
    assert result.exit_status == 2


def test_wrong_expectation_fails_with_positions_and_values(tmp_path, capsys):
    path = write(tmp_path, "m.yaml", ADAM.replace("[0.99, 2.01, 2.99, 3.99]", "[0.99, 2.5, 2.99, 3.99]"))
    result = run_reference(path)
    outcome = result.outcomes["command-1"]
    assert outcome.status == FAILED
    assert "[1] expected 2.5, got 2.01" in outcome.message
    assert main(["run", "-a", "reference", str(path)]) == 1
    assert "[1] expected 2.5, got 2.01" in capsys.readouterr().err


def test_malformed_file_exits_2_with_location(tmp_path, capsys):
    path = write(tmp_path, "m.yaml", ADAM.replace("Beta2: 0.999", "Beta2: [0.999]"))
    assert main(["run", "-a", "reference", str(path)]) == 2
    line = next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if "Beta2" in ln)
    assert f"{path}:{line}:14: dispatchables.adam.desc.Beta2: expected a number" in capsys.readouterr().err


def test_device_refusal_without_expect_error_exits_2_pointing_at_the_field(tmp_path, capsys):
    path = write(tmp_path, "m.yaml", ADAM.replace("GradientTensor: *t", "GradientTensor: {DataType: FLOAT32, "
                                                                        "Sizes: [1, 1, 2, 2]}"))
    assert main(["run", "-a", "reference", str(path)]) == 2
    captured = capsys.readouterr()
    assert "dispatchables.adam.desc.GradientTensor.Sizes: E_INVALIDARG" in captured.err
    assert "command 0" not in captured.err  # the refusal is reported once, at the dispatchable ...
    assert captured.out.splitlines()[-1] == f"{path}: 1 invalid, 2 not run"  # ... its dispatch and expect not run


def test_expect_error_that_does_not_match_fails(tmp_path):
    text = ADAM.replace("    type: ADAM_OPTIMIZER\n", "    type: ADAM_OPTIMIZER\n"
                        "    expectError: {hresult: E_INVALIDARG, match: 'something else'}\n")
    result = run_reference(write(tmp_path, "m.yaml", text))
    assert result.outcomes["adam"].status == FAILED
    assert "but the call succeeded" in result.outcomes["adam"].message


def test_repeat_with_increment_runs_steps_in_order(tmp_path):
    text = ADAM.replace("type: dispatch\n", "type: dispatch\n    repeat: 3\n    increment: step\n")
    text = text.replace("- {type: expect, resource: X, values: [0.99, 2.01, 2.99, 3.99], rtol: 1e-6}",
                        "- {type: expect, resource: step, values: [4]}\n"
                        "  - {type: expect, resource: X, reference: true}")
    import dmlsim as dml
    from dmlsim.model import run_model

    result = run_model(load_model(write(tmp_path, "m.yaml", text)), dml.DMLCreateDevice(0, "reference"))
    assert [o.status for o in result.outcomes.values()] == [PASSED] * 3 + [SKIPPED]  # reference vs itself


REFERENCE_CHECKS = ADAM + ("  - {type: expect, resource: X, reference: true}\n"
                           "  - {type: expect, resource: M, reference: true}\n")


def test_reference_expectations_are_skipped_on_the_reference_device_and_compared_elsewhere(tmp_path, device):
    """``expect reference: true`` would compare the reference device with itself: skipped there, with the
    reason; the literal expectation of the same file still runs; an OpenCL device really compares."""
    from dmlsim.model import run_model
    from dmlsim.model.runner import REFERENCE_ITSELF

    model = load_model(write(tmp_path, "m.yaml", REFERENCE_CHECKS))
    result = run_model(model, device)
    statuses = {key: o.status for key, o in result.outcomes.items()}
    assert statuses["adam"] == statuses["command-0"] == statuses["command-1"] == PASSED  # dispatch, literal
    if device.adapter.kind == "reference":
        assert statuses["command-2"] == statuses["command-3"] == SKIPPED
        assert result.outcomes["command-2"].message == REFERENCE_ITSELF
        assert "reference: true compares with the reference device itself" in REFERENCE_ITSELF
        assert result.exit_status == 0
    else:
        assert statuses["command-2"] == statuses["command-3"] == PASSED
    # and on an OpenCL device a wrong reference snapshot is noticed, so the comparison is real
    if device.adapter.kind != "reference":
        reference = run_model(model, dml.DMLCreateDevice(0, "reference"))
        reference.snapshots[3] = reference.snapshots[3] + 1.0
        wrong = Runner(model, device, reference=reference).run()
        assert wrong.outcomes["command-3"].status == FAILED


def test_pytest_items_comparing_the_reference_device_with_itself_are_skipped(tmp_path):
    """Through the plugin: on the reference adapter the two ``reference: true`` items are skipped with the
    reason, and the dispatchable, dispatch and literal items pass."""
    folder = descriptor_folder(tmp_path)
    (folder / "ref.yaml").write_text(REFERENCE_CHECKS)
    proc = run_pytest(tmp_path, str(folder))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 passed, 2 skipped" in proc.stdout, proc.stdout
    assert "SKIPPED [2]" in proc.stdout and "reference: true compares with the reference device itself" in proc.stdout


def test_write_file_saves_npy(tmp_path):
    text = ADAM + "  - {type: writeFile, resource: X, targetPath: out/x.npy, dimensions: [2, 2]}\n"
    import dmlsim as dml

    Runner(load_model(write(tmp_path, "m.yaml", text)), dml.DMLCreateDevice(0, "reference"),
           output_dir=tmp_path).run()
    saved = np.load(tmp_path / "out" / "x.npy")
    assert saved.shape == (2, 2) and saved.dtype == np.float32 and saved[0, 0] == np.float32(0.99)


# --- pytest items -------------------------------------------------------------------------------
def test_pytest_item_failure_shows_expected_and_got(tmp_path):
    folder = descriptor_folder(tmp_path)
    write(folder, "wrong.yaml", ADAM.replace("[0.99, 2.01, 2.99, 3.99]", "[0.99, 2.01, 2.99, 7]"))
    proc = run_pytest(tmp_path, str(folder))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "wrong.yaml::command-1[reference]" in proc.stdout
    assert "[3] expected 7, got 3.99" in proc.stdout
    assert "2 passed" in proc.stdout and "1 failed" in proc.stdout


def test_absent_tensor_count_is_the_first_arrays_length_so_the_short_array_is_blamed(tmp_path, capsys):
    """A file may leave TensorCount out; it is the length of InputParametersTensors, not of the last array."""
    text = """
x-t: &t {DataType: FLOAT32, Sizes: [2]}
resources:
  a: {initialValuesDataType: FLOAT32, initialValues: [1, 2]}
dispatchables:
  momentum:
    type: DMLSIM_OPERATOR_ONNX_MOMENTUM
    expectError: {hresult: E_INVALIDARG, match: 'OutputMomentumTensors must hold TensorCount \\(2\\) .* got 1$'}
    desc:
      LearningRateTensor: {DataType: FLOAT32, Sizes: [1]}
      UpdateCountTensor: {DataType: INT64, Sizes: [1]}
      InputParametersTensors: [*t, *t]
      GradientTensors: [*t, *t]
      InputMomentumTensors: [*t, *t]
      OutputParametersTensors: [*t, *t]
      OutputMomentumTensors: [*t]
      NormCoefficient: 0
      Alpha: 0.9
      Beta: 0.1
      Mode: STANDARD
commands: []
"""
    result = run_reference(write(tmp_path, "m.yaml", text))
    assert result.outcomes["momentum"].status == PASSED, result.outcomes["momentum"].message


def test_a_one_member_enum_is_named_without_its_enums_prefix():
    """A file may leave the enum's own name off a member: DML_RANDOM_GENERATOR_TYPE has one member, whose short
    name is PHILOX_4X32_10 (the members' shared prefix alone would have made it '10')."""
    from dmlsim.api.directml_schema import DML_RANDOM_GENERATOR_TYPE
    from dmlsim.api.enums import enum_member
    assert enum_member(DML_RANDOM_GENERATOR_TYPE, "PHILOX_4X32_10") == DML_RANDOM_GENERATOR_TYPE(0)
    assert enum_member(DML_RANDOM_GENERATOR_TYPE, "DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10") == 0
    with pytest.raises(KeyError):
        enum_member(DML_RANDOM_GENERATOR_TYPE, "PHILOX")
    assert enum_member(dml.DML_TENSOR_DATA_TYPE, "FLOAT16") == dml.DML_TENSOR_DATA_TYPE_FLOAT16
