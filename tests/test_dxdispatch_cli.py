"""``dmlsim run`` speaks DxDispatch (issue 14, item 2): its flags, its always-printed timing line, its
print/writeFile semantics, its strictness (bools, threadGroupCount, a dispatchable's ``type``), its JSON
leniency (RapidJSON: a key's colon on a later line, content after the root ignored), a clear message for an
ONNX model, and several files or folders per call with a summary line.

Expected outputs are DxDispatch's formats written out literally (Executor.cpp, JsonParsers.cpp).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from dmlsim.cli import main
from dmlsim.model.timing import timing_report

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
TIMING = re.compile(r"^Dispatch 'copy': (\d+) iterations, \d+\.\d{4} ms median \(CPU\)"
                    r"(, \d+\.\d{6} ms median \(GPU\))?$", re.M)


def write(path: Path, model: dict | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(model if isinstance(model, str) else json.dumps(model, indent=1))
    return path


def run(capsys, *args: str) -> tuple[int, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def with_commands(*commands: dict, resources: dict | None = None) -> dict:
    return {**IDENTITY, "resources": resources or IDENTITY["resources"], "commands": list(commands)}


# --- 1. the timing line ---------------------------------------------------------------------------------


def test_every_dispatch_prints_its_timing_line_by_default_and_expectations_are_still_checked(tmp_path, capsys):
    model = write(tmp_path / "m.json", {**IDENTITY, "commands": IDENTITY["commands"] * 2})
    status, out = run(capsys, "run", "-a", "reference", str(model))
    assert status == 0, out
    assert [m.group(1) for m in TIMING.finditer(out)] == ["1", "1"], out
    # -i 1 executes once, so the expects are checked
    assert "Expect 'B' (command 1): ok" in out and "Expect 'B' (command 3): ok" in out, out
    assert "not checked" not in out


def test_timing_report_formats_as_dxdispatch():
    cpu, gpu = [9.0, 1.0, 3.0, 2.0], [0.5, 0.1, 0.3, 0.2]
    assert timing_report("x", cpu, gpu, warmup=1) == [
        "Dispatch 'x': 4 iterations, 2.0000 ms median (CPU), 0.200000 ms median (GPU)"]
    assert timing_report("x", cpu, [], warmup=1, verbosity=1) == [
        "Dispatch 'x': 4 iterations",
        "CPU Timings (Cold) : 1 samples, 9.0000 ms average, 9.0000 ms min, 9.0000 ms median, 9.0000 ms max",
        "CPU Timings (Hot)  : 3 samples, 2.0000 ms average, 1.0000 ms min, 2.0000 ms median, 3.0000 ms max"]
    assert timing_report("x", [4.0, 2.0], [1.0, 0.5], warmup=0, verbosity=2)[-3:] == [
        "The timings of each iteration: ", "iteration 0: 4.0000 ms (CPU), 1.0000 ms (GPU)",
        "iteration 1: 2.0000 ms (CPU), 0.5000 ms (GPU)"]


# --- 2. DxDispatch's flags ------------------------------------------------------------------------------


def test_dispatch_iterations_warmup_samples_and_timing_verbosity(tmp_path, capsys):
    model = write(tmp_path / "m.json", IDENTITY)
    status, out = run(capsys, "run", "-a", "reference", "--dispatch_iterations", "3", "--warmup_samples", "2",
                      "--timing_verbosity", "1", str(model))
    assert status == 0, out
    assert "Dispatch 'copy': 3 iterations\n" in out
    assert "CPU Timings (Cold) : 2 samples" in out and "CPU Timings (Hot)  : 1 samples" in out
    assert "not checked: a timing run executes each dispatch 3 times" in out
    status, out = run(capsys, "run", "-a", "reference", "-i", "2", "-w", "0", "-v", "2", str(model))
    assert status == 0 and "iteration 0: " in out and "iteration 1: " in out and "iteration 2:" not in out, out


def test_milliseconds_to_run_repeats_each_dispatch_for_that_long(tmp_path, capsys):
    model = write(tmp_path / "m.json", IDENTITY)
    status, out = run(capsys, "run", "-a", "reference", "-t", "50", str(model))
    assert status == 0, out
    assert int(TIMING.search(out).group(1)) > 1, out
    assert "not checked: a timing run executes each dispatch for 50 ms" in out


def test_show_adapters_lists_them_and_runs_nothing(capsys):
    status, out = run(capsys, "run", "--show_adapters")
    assert status == 0 and "reference" in out and "Running on" not in out, out


def test_model_flag_names_the_model(tmp_path, capsys):
    model = write(tmp_path / "m.json", IDENTITY)
    status, out = run(capsys, "run", "-a", "reference", "-m", str(model))
    assert status == 0 and TIMING.search(out), out


@pytest.mark.parametrize("flag", ["--output_path", "--output-dir"])
def test_output_path_is_the_writefile_folder(tmp_path, capsys, flag):
    model = write(tmp_path / "m.json", with_commands({"type": "writeFile", "resource": "A", "targetPath": "a.npy"}))
    (tmp_path / "out").mkdir()
    status, out = run(capsys, "run", "-a", "reference", flag, str(tmp_path / "out"), str(model))
    assert status == 0, out
    assert np.load(tmp_path / "out" / "a.npy").tolist() == [1.0, 2.0, 3.0, 4.0]


def test_dash_o_is_the_pix_capture_name_accepted_with_a_note(tmp_path, capsys, monkeypatch):
    model = write(tmp_path / "m.json", with_commands({"type": "writeFile", "resource": "A", "targetPath": "a.npy"}))
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    status, out = run(capsys, "run", "-a", "reference", "-o", "capture", str(model))
    assert status == 0, out
    assert "-o 'capture' is DxDispatch's PIX capture name" in out
    assert (tmp_path / "cwd" / "a.npy").is_file() and not (tmp_path / "cwd" / "capture").exists()


def test_dispatch_iterations_below_one_is_refused(tmp_path, capsys):
    model = write(tmp_path / "m.json", IDENTITY)
    status, out = run(capsys, "run", "-a", "reference", "-i", "0", str(model))
    assert status == 2 and "at least 1" in out, out
    status, out = run(capsys, "run", "-a", "reference", "-v", "-1", str(model))
    assert status == 2 and "must not be negative" in out, out


# --- 3. print / writeFile semantics, strictness, leniency ----------------------------------------------

OFFSET = {"R": {"initialValuesDataType": "UINT32", "initialValues": [7, 9], "sizeInBytes": 12,
                "initialValuesOffsetInBytes": 4}}


def test_print_shows_as_many_elements_as_initial_values_from_the_buffer_start(tmp_path, capsys):
    model = write(tmp_path / "m.json", with_commands({"type": "print", "resource": "R"}, resources=OFFSET))
    status, out = run(capsys, "run", "-a", "reference", str(model))
    assert status == 0, out
    assert "Resource 'R': 0, 7\n" in out


def test_write_file_writes_the_whole_buffer(tmp_path, capsys):
    model = write(tmp_path / "m.json", with_commands({"type": "writeFile", "resource": "R", "targetPath": "r.bin"},
                                                     {"type": "writeFile", "resource": "R", "targetPath": "r.npy"},
                                                     resources=OFFSET))
    status, out = run(capsys, "run", "-a", "reference", "--output_path", str(tmp_path), str(model))
    assert status == 0, out
    assert (tmp_path / "r.bin").read_bytes() == bytes([0, 0, 0, 0, 7, 0, 0, 0, 9, 0, 0, 0])
    assert np.load(tmp_path / "r.npy").tolist() == [0, 7, 9]


def test_verbose_print_pads_hex_with_spaces(tmp_path, capsys):
    resources = {"R": {"initialValuesDataType": "UINT32", "initialValues": [1, 3735928559]}}
    model = write(tmp_path / "m.json", with_commands({"type": "print", "resource": "R", "verbose": True},
                                                     resources=resources))
    status, out = run(capsys, "run", "-a", "reference", str(model))
    assert status == 0, out
    assert "Resource 'R':\n[0] 1 (0x       1)\n[1] 3735928559 (0xDEADBEEF)\n" in out


def test_verbose_must_be_a_json_bool(tmp_path, capsys):
    text = json.dumps(with_commands({"type": "print", "resource": "A", "verbose": "false"}), indent=1)
    model = write(tmp_path / "m.json", text)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if '"verbose"' in row)
    status, out = run(capsys, "run", "-a", "reference", str(model))
    assert status == 2, out
    assert re.search(rf"m\.json:{line}:\d+: commands\[0\]\.verbose: verbose must be true or false", out), out


@pytest.mark.parametrize(("count", "status"), [([1, 1], 2), ([1, 1, 1, 1], 2), ("1", 2), ([1, 1, 1], 0)])
def test_thread_group_count_needs_three_integers(tmp_path, capsys, count, status):
    dispatch = {**IDENTITY["commands"][0], "threadGroupCount": count}
    model = write(tmp_path / "m.json", with_commands(dispatch))
    got, out = run(capsys, "run", "-a", "reference", str(model))
    assert got == status, out
    assert ("threadGroupCount must be a list of 3" in out) == (status == 2), out


def test_a_dispatchable_needs_lowercase_type(tmp_path, capsys):
    copy = dict(IDENTITY["dispatchables"]["copy"])
    copy["Type"] = copy.pop("type")
    model = write(tmp_path / "m.json", {**IDENTITY, "dispatchables": {"copy": copy}})
    status, out = run(capsys, "run", "-a", "reference", str(model))
    assert status == 2 and "missing required key 'type' of dispatchable 'copy'" in out, out


def test_a_key_and_its_colon_on_separate_lines_parse(tmp_path, capsys):
    text = json.dumps(IDENTITY, indent=1).replace('"resources":', '"resources"\n  :').replace(
        '"commands":', '"commands"\n\n :')
    json.loads(text)  # valid JSON
    model = write(tmp_path / "m.json", text)
    status, out = run(capsys, "run", "-a", "reference", str(model))
    assert status == 0, out


def test_content_after_the_root_object_is_ignored_and_lines_are_kept(tmp_path, capsys):
    model = write(tmp_path / "m.json", json.dumps(IDENTITY, indent=1) + "\n} trailing [ words \n")
    status, out = run(capsys, "run", "-a", "reference", str(model))
    assert status == 0, out
    bad = with_commands({"type": "print", "resource": "nope"})
    text = json.dumps(bad, indent=1)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if '"nope"' in row)
    # one line more before it (the colon on its own line), trailing content after the root: the line is kept
    model = write(tmp_path / "bad.json", text.replace('"resources":', '"resources"\n:', 1) + "\n{ more")
    status, out = run(capsys, "run", "-a", "reference", str(model))
    where = rf"bad\.json:{line + 1}:\d+: commands\[0\]\.resource: unknown resource 'nope'"
    assert status == 2 and re.search(where, out), out


def test_a_broken_onnx_model_is_refused_clearly(tmp_path, capsys):
    """An .onnx file is run as an ONNX model (tests/test_onnx_run.py); one that does not parse is refused."""
    model = tmp_path / "net.onnx"
    model.write_bytes(b"\x08\x07\x12\x04\xff\xfe\x00binary")
    status, out = run(capsys, "run", "-a", "reference", str(model))
    assert status == 2 and f"dmlsim: {model}: not an ONNX model" in out and "Traceback" not in out, out
    other = tmp_path / "net.json"
    other.write_bytes(b"\xff\xfe{}")
    status, out = run(capsys, "run", "-a", "reference", str(other))
    assert status == 2 and "not a text model file (it is not UTF-8: byte 0 is 0xff)" in out, out


# --- 4. several files and folders, with a summary line ------------------------------------------------


@pytest.mark.parametrize("command", ["run", "validate"])
def test_several_files_and_folders_end_with_a_summary_line(tmp_path, capsys, command):
    write(tmp_path / "suite" / "a.json", IDENTITY)
    write(tmp_path / "suite" / "deep" / "b.json", IDENTITY)
    broken = write(tmp_path / "broken.json", with_commands({"type": "print", "resource": "nope"}))
    args = [command, *(["-a", "reference"] if command == "run" else []), str(tmp_path / "suite"), str(broken)]
    status = main(args)
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert status == 2, out
    assert captured.out.rstrip().splitlines()[-1] == "3 model files: 2 ok, 1 invalid", out
    if command == "run":
        assert len(TIMING.findall(out)) == 2, out


@pytest.mark.parametrize("command", ["run", "validate"])
def test_a_folder_without_models_is_refused(tmp_path, capsys, command):
    (tmp_path / "empty").mkdir()
    status, out = run(capsys, command, str(tmp_path / "empty"))
    assert status == 2 and "no .json, .yaml or .yml model file in" in out, out


def test_rapidjson_leniency_moves_late_colons_up_and_blanks_what_follows_the_root():
    """The lenient path (JSON that Python's json module refuses, read as YAML): a key's colon on a later line
    moves up behind the key (its old place becomes a space), and everything after the root value is blanked,
    newlines kept, so every line number stays."""
    from dmlsim.model.loader import rapidjson_leniency

    text = '{"a"\n: 1, "b"\n  :2}\n} junk [\nmore'
    assert rapidjson_leniency(text) == '{"a":\n  1, "b":\n   2}\n        \n    '
