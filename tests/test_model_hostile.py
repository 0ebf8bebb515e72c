"""Hostile and careless model files (issue 12): each ends with exit status 2 and a located message, within
20 s and under 1 GiB, and writes nothing outside the output folder.

Cases that could exhaust memory or hang run ``python -m dmlsim`` in a child limited to 1 GiB of address
space (RLIMIT_AS) and 20 s; the others call the CLI in this process. ``UINT8`` resources make the bytes a
file could write fully controlled, as an attacker would have them.
"""

from __future__ import annotations

import json
import os
import random
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from plugin_support import descriptor_folder

import dmlsim as dml
from dmlsim.cli import main
from dmlsim.model import load_model
from dmlsim.model.errors import show
from dmlsim.model.limits import Limits, parse_bytes
from dmlsim.model.runner import Runner, SizedBuffer
from dmlsim.model.values import random_values, sequence_values

ROOT = Path(__file__).resolve().parents[1]
GIB = 1 << 30
SECONDS = 20
PAYLOAD = """
resources:
  X: {initialValuesDataType: UINT8, initialValues: [35, 33, 10]}
dispatchables: {}
commands:
"""


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python -m dmlsim ARGS`` with 1 GiB of address space and 20 s.

    One BLAS thread: OpenBLAS reserves address space per thread when numpy is imported (on a 16-core
    machine most of the 1 GiB), which is not what dmlsim allocates and would make the limit depend on the
    machine's core count."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))

    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    env.pop("DMLSIM_MEMORY_BUDGET", None)
    return subprocess.run([sys.executable, "-m", "dmlsim", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=SECONDS, preexec_fn=limit, check=False)


def run_in_process(capsys, *args: str) -> tuple[int, str]:
    start = time.perf_counter()
    status = main(list(args))
    assert time.perf_counter() - start < SECONDS
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def files_under(folder: Path) -> set[Path]:
    return set(folder.rglob("*"))


@pytest.fixture
def box(tmp_path):
    """``tmp_path/models`` (the model's folder), ``tmp_path/out`` (-o) and ``tmp_path/outside``."""
    for name in ("models", "out", "outside"):
        (tmp_path / name).mkdir()
    (tmp_path / "outside" / "secret.bin").write_bytes(b"SECRET-BYTES")
    return tmp_path


def assert_located(output: str, line: int, text: str) -> None:
    assert f"m.yaml:{line}:" in output and text in output, output
    assert "Traceback" not in output, output


# --- 1. writeFile stays inside the output folder ------------------------------------------------------
@pytest.mark.parametrize("target, reason", [
    ("../x.bin", "leaves the output folder"),
    ("sub/../../x.bin", "leaves the output folder"),
    ("/tmp/dmlsim-hostile-x.bin", "is absolute"),
    ('"a\\0b.bin"', "no NUL character"),
    ("C:/x.bin", "is absolute"),
])
def test_write_file_target_outside_or_malformed_is_refused_by_validate_and_run(box, capsys, target, reason):
    model = box / "models" / "m.yaml"
    model.write_text(PAYLOAD + f"  - {{type: writeFile, resource: X, targetPath: {target}}}\n")
    before = files_under(box)
    for command in (["validate", str(model)],
                    ["run", "-a", "reference", "--output_path", str(box / "out"), str(model)]):
        status, output = run_in_process(capsys, *command)
        assert status == 2
        assert_located(output, 6, reason)
    assert files_under(box) == before
    assert not Path("/tmp/dmlsim-hostile-x.bin").exists()


def test_write_file_through_a_symlinked_folder_inside_the_output_folder_is_refused(box, capsys):
    (box / "out" / "link").symlink_to(box / "outside")
    model = box / "models" / "m.yaml"
    model.write_text(PAYLOAD + "  - {type: writeFile, resource: X, targetPath: link/x.bin}\n")
    status, output = run_in_process(capsys, "run", "-a", "reference", "--output_path", str(box / "out"), str(model))
    assert status == 2
    assert_located(output, 6, "symbolic link or not a folder")
    assert sorted(p.name for p in (box / "outside").iterdir()) == ["secret.bin"]


def test_write_file_onto_a_symlink_is_refused_and_its_target_unchanged(box, capsys):
    (box / "out" / "x.bin").symlink_to(box / "outside" / "secret.bin")
    model = box / "models" / "m.yaml"
    model.write_text(PAYLOAD + "  - {type: writeFile, resource: X, targetPath: x.bin}\n")
    status, output = run_in_process(capsys, "run", "-a", "reference", "--output_path", str(box / "out"), str(model))
    assert status == 2
    assert_located(output, 6, "is a symbolic link")
    assert (box / "outside" / "secret.bin").read_bytes() == b"SECRET-BYTES"


def test_write_file_to_a_fifo_is_refused_without_blocking(box):
    os.mkfifo(box / "out" / "pipe.bin")
    model = box / "models" / "m.yaml"
    model.write_text(PAYLOAD + "  - {type: writeFile, resource: X, targetPath: pipe.bin}\n")
    proc = cli("run", "-a", "reference", "--output_path", str(box / "out"), str(model), cwd=box)
    assert proc.returncode == 2, proc.stderr
    assert_located(proc.stderr, 6, "is a FIFO")


def test_write_file_creates_folders_inside_and_overwrites_a_regular_file(box, capsys):
    """DxDispatch overwrites; so does dmlsim, for a regular file inside the output folder."""
    (box / "out" / "a").mkdir()
    (box / "out" / "a" / "x.bin").write_bytes(b"old contents, longer")
    model = box / "models" / "m.yaml"
    model.write_text(PAYLOAD + "  - {type: writeFile, resource: X, targetPath: a/x.bin}\n"
                               "  - {type: writeFile, resource: X, targetPath: b/c/y.npy}\n")
    status, output = run_in_process(capsys, "run", "-a", "reference", "--output_path", str(box / "out"), str(model))
    assert status == 0, output
    # the whole buffer, as DxDispatch writes it: 3 bytes of values rounded up to 4
    assert (box / "out" / "a" / "x.bin").read_bytes() == b"#!\n\x00"
    assert np.load(box / "out" / "b" / "c" / "y.npy").tolist() == [35, 33, 10, 0]


def test_write_file_dimensions_that_do_not_hold_the_values_fail_validate(box, capsys):
    model = box / "models" / "m.yaml"
    model.write_text(PAYLOAD + "  - {type: writeFile, resource: X, targetPath: x.npy, dimensions: [-1, -3]}\n"
                               "  - {type: writeFile, resource: X, targetPath: y.npy, dimensions: [2, 2]}\n")
    status, output = run_in_process(capsys, "validate", str(model))
    assert status == 2
    assert_located(output, 6, "a dimension must be a positive integer, got -1")
    assert_located(output, 7, "dimensions [2, 2] do not hold the 3 values")


# --- 3. sourcePath reads regular files in the allowed folders only -------------------------------------------
def source_model(box: Path, source: str, data_type: str = "UINT8") -> Path:
    model = box / "models" / "m.yaml"
    model.write_text(f"""
resources:
  S: {{initialValuesDataType: {data_type}, initialValues: {{sourcePath: {source}}}}}
dispatchables: {{}}
commands:
  - {{type: print, resource: S}}
""")
    return model


@pytest.mark.parametrize("source, reason", [
    ("OUTSIDE", "is outside the model's folder"),
    ("../outside/secret.bin", "is outside the model's folder"),
    ("/proc/self/environ", "is outside the model's folder"),
    ("link.bin", "is outside the model's folder"),
    ("/dev/zero", "is outside the model's folder"),
])
def test_source_path_outside_the_allowed_folders_is_refused_and_never_printed(box, capsys, source, reason):
    (box / "models" / "link.bin").symlink_to(box / "outside" / "secret.bin")
    source = source.replace("OUTSIDE", str(box / "outside" / "secret.bin"))
    model = source_model(box, source)
    status, output = run_in_process(capsys, "run", "-a", "reference", str(model))
    assert status == 2
    assert_located(output, 3, reason)
    assert "SECRET" not in output and "83, 69, 67" not in output  # neither the text nor its bytes


def test_source_path_reads_from_an_input_path_folder_or_anywhere_when_allowed(box, capsys):
    model = source_model(box, "secret.bin")
    status, output = run_in_process(capsys, "run", "-a", "reference", "--input_path", str(box / "outside"),
                                    str(model))
    assert status == 0 and "Resource 'S': 83, 69, 67" in output, output
    model = source_model(box, str(box / "outside" / "secret.bin"))
    status, output = run_in_process(capsys, "run", "-a", "reference", "--allow-any-path", str(model))
    assert status == 0 and "Resource 'S': 83, 69, 67" in output, output


@pytest.mark.parametrize("kind", ["dev-zero", "dev-urandom", "fifo", "directory"])
def test_special_files_are_refused_even_when_any_path_is_allowed(box, kind):
    """Read until memory runs out (devices) or blocked forever (a FIFO) before; now refused at once."""
    paths = {"dev-zero": "/dev/zero", "dev-urandom": "/dev/urandom", "fifo": str(box / "models" / "fifo"),
             "directory": str(box / "models" / "data")}
    os.mkfifo(box / "models" / "fifo")
    (box / "models" / "data").mkdir()
    model = source_model(box, paths[kind])
    proc = cli("validate", "--allow-any-path", str(model), cwd=box)
    assert proc.returncode == 2, proc.stderr
    expected = {"dev-zero": "is a device", "dev-urandom": "is a device", "fifo": "is a FIFO",
                "directory": "is a directory"}[kind]
    assert_located(proc.stderr, 3, expected)


def test_the_pytest_plugin_applies_the_same_confinement(box):
    folder = descriptor_folder(box)
    (folder / "m.yaml").write_text(PAYLOAD + "  - {type: writeFile, resource: X, targetPath: ../../x.bin}\n")
    (folder / "s.yaml").write_text(f"""
resources:
  S: {{initialValuesDataType: UINT8, initialValues: {{sourcePath: {box / "outside" / "secret.bin"}}}}}
dispatchables: {{}}
commands:
  - {{type: print, resource: S}}
""")
    before = files_under(box)
    # dmlsim's plugin alone: what other installed plugins write (pytest-benchmark's .benchmarks folder) is theirs
    env = {**os.environ, "DMLSIM_TEST_ADAPTERS": "reference", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "dmlsim.pytest_plugin",
                           "--rootdir", str(box), str(folder)], capture_output=True, text=True, env=env, cwd=box,
                          check=False, timeout=60)
    assert proc.returncode != 0
    assert "m.yaml:6:" in proc.stdout and "leaves the output folder" in proc.stdout, proc.stdout
    assert "s.yaml:3:" in proc.stdout and "is outside the model's folder" in proc.stdout, proc.stdout
    assert "SECRET" not in proc.stdout
    assert files_under(box) - before <= {p for p in files_under(box) if "__pycache__" in str(p)}


# --- 2. limits before work ----------------------------------------------------------------------------------------
ALIAS_BOMB = """x-a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
x-b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
x-c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
x-d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
x-e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
x-f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
x-g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
x-h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
resources: {X: {initialValuesDataType: FLOAT32, initialValues: *h}}
dispatchables: {}
commands: []
"""


def test_a_yaml_alias_bomb_is_refused_at_once(box):
    """9^8 values through aliases: formatting it in an error message took 97 s and 8.3 GB."""
    (box / "models" / "m.yaml").write_text(ALIAS_BOMB)
    start = time.perf_counter()
    proc = cli("validate", str(box / "models" / "m.yaml"), cwd=box)
    assert time.perf_counter() - start < SECONDS
    assert proc.returncode == 2, proc.stderr
    assert_located(proc.stderr, 7, "expands to more than 2,000,000 values")


def test_an_alias_bomb_under_the_expansion_limit_is_reported_briefly(box):
    """531,441 values through aliases, where numbers go: each problem quotes a bounded part of its value."""
    text = ALIAS_BOMB.replace("x-g: &g", "# g: &g").replace("x-h: &h", "# h: &h").replace("*h}", "*f}")
    (box / "models" / "m.yaml").write_text(text)
    proc = cli("validate", str(box / "models" / "m.yaml"), cwd=box)
    assert proc.returncode == 2, proc.stderr
    # located at the use (initialValues: *f, line 9), saying where the value is written (issue 30, item 5)
    assert_located(proc.stderr, 9, "expected a number (or \"nan\", \"inf\", \"-inf\") for FLOAT32, got [[[...]")
    assert "(written at 5:6, under a YAML anchor)" in proc.stderr
    assert len(proc.stderr) < 10_000


def test_two_thousand_wrong_values_list_the_first_100_problems(tmp_path):
    (tmp_path / "m.yaml").write_text("resources: {X: {initialValuesDataType: FLOAT32, initialValues: ["
                                     + ", ".join(["lol"] * 2000) + "]}}\ndispatchables: {}\ncommands: []\n")
    with pytest.raises(dml.DMLError) as info:
        load_model(tmp_path / "m.yaml")
    lines = str(info.value).splitlines()
    assert len(lines) == 101 and "only the first 100 are listed" in lines[-1]


def test_error_messages_quote_a_bounded_part_of_a_value():
    nested: list = ["lol"] * 9
    for _ in range(5):  # 9^6 values: the whole repr would be 4 MB (an alias bomb's, gigabytes)
        nested = [nested] * 9
    assert len(show(nested)) < 400
    assert show(10**5000) == "<an integer of 5001 digits>"
    assert len(show("x" * 10**6)) < 100


def resource_model(box: Path, resource_yaml: str) -> Path:
    model = box / "models" / "m.yaml"
    model.write_text(f"resources:\n  X: {resource_yaml}\ndispatchables: {{}}\ncommands: []\n")
    return model


@pytest.mark.parametrize("resource_yaml", [
    "{initialValuesDataType: FLOAT32, initialValues: [1], sizeInBytes: 1000000000000000}",
    "{initialValuesDataType: FLOAT32, initialValues: {valueCount: 1000000000000, value: 0}}",
    "{initialValuesDataType: FLOAT32, initialValues: {valueCount: 1000000000000, valueStart: 0, valueDelta: 1}}",
    "{initialValuesDataType: FLOAT32, initialValues: {valueCount: 1000000000000, seed: 1, min: 0, max: 1}}",
    "{initialValuesDataType: FLOAT32, initialValues: [1], initialValuesOffsetInBytes: 1000000000000000}",
])
def test_sizes_beyond_the_memory_budget_are_refused_before_anything_is_allocated(box, resource_yaml):
    proc = cli("validate", str(resource_model(box, resource_yaml)), cwd=box)
    assert proc.returncode == 2, proc.stderr
    assert_located(proc.stderr, 2, "over the memory budget of 256 MiB")


def test_a_npy_header_claiming_a_huge_shape_is_refused_before_reading(box):
    path = box / "models" / "big.npy"
    with open(path, "wb") as out:  # a header claiming 10^12 float32 values (4 TB) over 16 bytes of data
        np.lib.format.write_array_header_1_0(out, {"descr": "<f4", "fortran_order": False, "shape": (10**12,)})
        out.write(bytes(16))
    model = source_model(box, "big.npy", "FLOAT32")
    proc = cli("validate", str(model), cwd=box)
    assert proc.returncode == 2, proc.stderr
    assert_located(proc.stderr, 3, "needs more bytes than the file holds")


def test_a_source_file_larger_than_the_budget_is_refused_and_the_budget_can_be_raised(box, capsys, monkeypatch):
    (box / "models" / "big.bin").write_bytes(bytes(4096))
    model = source_model(box, "big.bin")
    status, output = run_in_process(capsys, "validate", "--memory-budget", "1K", str(model))
    assert status == 2
    assert_located(output, 3, "over the memory budget of 1 KiB; raise it with --memory-budget or "
                              "$DMLSIM_MEMORY_BUDGET")
    assert run_in_process(capsys, "validate", "--memory-budget", "8K", str(model))[0] == 0
    monkeypatch.setenv("DMLSIM_MEMORY_BUDGET", "1K")
    assert run_in_process(capsys, "validate", str(model))[0] == 2
    monkeypatch.setenv("DMLSIM_MEMORY_BUDGET", "8K")
    assert run_in_process(capsys, "validate", str(model))[0] == 0
    status, output = run_in_process(capsys, "validate", "--memory-budget", "lots", str(model))
    assert status == 2 and "--memory-budget: 'lots' is not a positive size" in output


def test_the_budget_counts_every_resource_of_a_file(tmp_path):
    text = "resources:\n" + "".join(
        f"  R{i}: {{initialValuesDataType: UINT8, initialValues: {{valueCount: 400, value: 1}}}}\n" for i in range(3))
    (tmp_path / "m.yaml").write_text(text + "dispatchables: {}\ncommands: []\n")
    with pytest.raises(dml.DMLError) as info:
        load_model(tmp_path / "m.yaml", limits=Limits(budget=1000))
    assert "resource 'R2' (400 bytes) needs 400 bytes" in str(info.value) and "(200 bytes left)" in str(info.value)


def test_parse_bytes_reads_binary_units():
    assert parse_bytes("512M") == 512 << 20 and parse_bytes("4G") == 4 << 30 and parse_bytes("2GiB") == 2 << 30
    assert parse_bytes("1000") == 1000
    for bad in ("0", "-1K", "1.5G", "", "K", "9" * 30):
        with pytest.raises(ValueError):
            parse_bytes(bad)


def test_validate_allocates_no_buffer_and_executes_nothing(box):
    """A 3 GiB buffer (within a raised budget) validates under a 1 GiB address-space limit: only its size is
    used; run would allocate it."""
    model = resource_model(box, "{initialValuesDataType: FLOAT32, initialValues: [1], sizeInBytes: 3221225472}")
    proc = cli("validate", "--memory-budget", "4G", str(model), cwd=box)
    assert proc.returncode == 0, proc.stderr
    runner = Runner(load_model(model, limits=Limits(budget=4 << 30)), dml.DMLCreateDevice(0, "reference"),
                    execute=False)
    runner.run()
    assert all(isinstance(b, SizedBuffer) and b.storage is None for b in runner.buffers.values())


def test_a_hundred_million_value_sequence_validates_in_seconds(box):
    """The sequence form ran a Python loop: 72 s for validate at 1e8 values."""
    model = resource_model(box, "{initialValuesDataType: FLOAT32, initialValues: "
                                "{valueCount: 100000000, valueStart: 0, valueDelta: 1}}")
    start = time.perf_counter()
    proc = cli("validate", "--memory-budget", "512M", str(model), cwd=box)
    assert proc.returncode == 0, proc.stderr
    assert time.perf_counter() - start < 10


@pytest.mark.parametrize("dtype", ["FLOAT16", "FLOAT32", "FLOAT64", "INT8", "UINT8", "INT32", "UINT64"])
def test_the_vectorized_sequence_accumulates_like_the_element_loop(dtype):
    from dmlsim.api.enums import DML_TENSOR_DATA_TYPE
    from dmlsim.api.tensor import NUMPY_DTYPE

    data_type = DML_TENSOR_DATA_TYPE[f"DML_TENSOR_DATA_TYPE_{dtype}"]
    np_type = NUMPY_DTYPE[data_type].type
    start, delta = (0.1, 0.3) if dtype.startswith("FLOAT") else (120, 7)
    expected, current = [], np_type(start)
    with np.errstate(all="ignore"):
        for _ in range(3000):  # the loop it replaces: each sum rounded (or wrapped) in the type
            expected.append(current)
            current = np_type(current + np_type(delta))
    got = sequence_values(3000, start, delta, data_type)
    assert got.dtype == NUMPY_DTYPE[data_type] and got.tobytes() == np.array(expected, got.dtype).tobytes()


@pytest.mark.parametrize("dtype, low, high", [("INT8", -128, 127), ("UINT16", 3, 9), ("INT64", -(2**63), 2**63 - 1),
                                              ("UINT64", 0, 2**64 - 1), ("UINT64", 2**63, 2**63 + 5)])
def test_vectorized_random_integers_equal_the_python_formula(dtype, low, high):
    from dmlsim.api.enums import DML_TENSOR_DATA_TYPE
    from dmlsim.model.values import random_unit

    data_type = DML_TENSOR_DATA_TYPE[f"DML_TENSOR_DATA_TYPE_{dtype}"]
    span = high - low + 1
    expected = [low + min(int(x * span), span - 1) for x in random_unit(5, 2000)]
    got = random_values(5, 2000, data_type, distribution="uniform", low=low, high=high, mean=0, stddev=1)
    assert [int(v) for v in got] == expected


# --- 4. malformed values: exit 2 at their place, never a traceback -----------------------------------------------
def test_nesting_300_levels_deep_is_a_located_error(box, capsys):
    model = box / "models" / "m.yaml"
    model.write_text("resources: {}\ndispatchables: {}\ncommands: " + "[" * 300 + "]" * 300 + "\n")
    status, output = run_in_process(capsys, "validate", str(model))
    assert status == 2
    assert_located(output, 3, "nested deeper than 64 levels")


ADAM_DESC = """
resources:
  X: {initialValuesDataType: FLOAT32, initialValues: [1, 2]}
  M: {initialValuesDataType: FLOAT32, initialValues: [0, 0]}
  V: {initialValuesDataType: FLOAT32, initialValues: [0, 0]}
  step: {initialValuesDataType: UINT32, initialValues: [1]}
dispatchables:
  adam:
    type: ADAM_OPTIMIZER
    desc: {InputParametersTensor: &t {DataType: FLOAT32, Sizes: [1, 1, 1, 2]}, InputFirstMomentTensor: *t,
           InputSecondMomentTensor: *t, GradientTensor: *t, TrainingStepTensor: {DataType: UINT32, Sizes: [1, 1, 1, 1]},
           OutputParametersTensor: *t, OutputFirstMomentTensor: *t, OutputSecondMomentTensor: *t,
           LearningRate: LR, Beta1: 0.9, Beta2: 0.999, Epsilon: 1e-8}
commands:
  - {type: dispatch, dispatchable: adam, bindings: {InputParametersTensor: X, InputFirstMomentTensor: M,
     InputSecondMomentTensor: V, GradientTensor: X, TrainingStepTensor: step, OutputParametersTensor: X,
     OutputFirstMomentTensor: M, OutputSecondMomentTensor: V}, increment: INC}
  - {type: add, resource: X, value: ADD}
  - {type: expect, resource: X, values: [1, VALUE], rtol: RTOL}
"""
HUGE = "1" + "0" * 400  # an integer beyond the double range (about 1.8e308)
FLOAT_PLACES = {"LR": 13, "INC": 17, "ADD": 18, "VALUE": 19, "RTOL": 19}


@pytest.mark.parametrize("place", sorted(FLOAT_PLACES))
def test_numbers_beyond_the_double_range_are_located_errors(box, capsys, place):
    text = ADAM_DESC.replace("LR", "0.01").replace("INC", "{resource: step, value: 1}").replace("ADD", "0")
    text = text.replace("VALUE", "2").replace("RTOL", "0.1")
    default = {"LR": "LearningRate: 0.01", "INC": "value: 1}", "ADD": "value: 0}", "VALUE": "values: [1, 2]",
               "RTOL": "rtol: 0.1"}[place]
    huge = {"LR": f"LearningRate: {HUGE}", "INC": f"value: {HUGE}}}", "ADD": f"value: {HUGE}}}",
            "VALUE": f"values: [1, {HUGE}]", "RTOL": f"rtol: {HUGE}"}[place]
    if place == "INC":  # step is UINT32: an integer that does not fit it
        text = text.replace("{resource: step, value: 1}", "{resource: X, value: 1}")
    model = box / "models" / "m.yaml"
    model.write_text(text.replace(default, huge))
    status, output = run_in_process(capsys, "validate", str(model))
    assert status == 2
    assert_located(output, FLOAT_PLACES[place], "beyond the range of a double")


@pytest.mark.parametrize("initial, reason", [
    (f"[1, {HUGE}]", "beyond the range of a double"),
    (f"{{valueCount: 2, valueStart: {HUGE}, valueDelta: 1}}", "beyond the range of a double"),
    (f"{{valueCount: 2, value: {HUGE}}}", "beyond the range of a double"),
    (f"{{valueCount: 2, seed: 1, min: 0, max: {HUGE}}}", "beyond the range of a double"),
    (f"{{valueCount: 2, seed: 1, min: -{HUGE}, max: 0}}", "beyond the range of a double"),
    ("{valueCount: 2, seed: 1, min: 0, max: .inf}", "max must be finite"),
    ("{valueCount: 2, seed: 1, distribution: normal, mean: .nan}", "mean must be finite"),
])
def test_float_initializers_beyond_the_double_range_are_located_errors(box, capsys, initial, reason):
    model = resource_model(box, f"{{initialValuesDataType: FLOAT32, initialValues: {initial}}}")
    status, output = run_in_process(capsys, "validate", str(model))
    assert status == 2
    assert_located(output, 2, reason)


@pytest.mark.parametrize("low, high, reason", [
    ("0", "300", "300 does not fit UINT8"),
    ("-1", "3", "-1 does not fit UINT8"),
    ("0", ".inf", "expected an integer for UINT8"),
    (".nan", "3", "expected an integer for UINT8"),
    ("0", HUGE, "<an integer of 401 digits> does not fit UINT8"),
])
def test_random_integer_bounds_outside_the_type_are_located_errors(box, capsys, low, high, reason):
    model = resource_model(box, f"{{initialValuesDataType: UINT8, initialValues: "
                                f"{{valueCount: 2, seed: 1, min: {low}, max: {high}}}}}")
    status, output = run_in_process(capsys, "validate", str(model))
    assert status == 2
    assert_located(output, 2, reason)


@pytest.mark.parametrize("old, new, line, reason", [
    ("resource: X, value: 0", "resource: [X], value: 0", 18, "expected a resource name, got ['X']"),
    ("dispatchable: adam", "dispatchable: {a: 1}", 15, "expected a dispatchable name, got {'a': 1}"),
    ("TrainingStepTensor: step", "TrainingStepTensor: {name: [step]}", 16, "expected a resource name, got ['step']"),
    ("TrainingStepTensor: step", "TrainingStepTensor: [step]", 16, "TrainingStepTensor is one tensor"),
    ("type: ADAM_OPTIMIZER", "type: [ADAM_OPTIMIZER]", 9, "type must be an operator name, got ['ADAM_OPTIMIZER']"),
    ("type: dispatch", "type: [dispatch]", 15, "unrecognized command ['dispatch']"),
    ("{DataType: UINT32", "{DataType: [UINT32]", 11, "unknown DML_TENSOR_DATA_TYPE value ['UINT32']"),
    ("initialValuesDataType: UINT32", "initialValuesDataType: {a: 1}", 6, "unknown data type {'a': 1}"),
    ("type: add", "type: add, expectError: {hresult: [1], match: {a: 1}}", 18, "hresult must be a name"),
])
def test_a_list_or_map_where_a_name_is_expected_is_a_located_error(box, capsys, old, new, line, reason):
    text = ADAM_DESC.replace("LR", "0.01").replace("INC", "step").replace("ADD", "0").replace("VALUE", "2")
    text = text.replace("RTOL", "0.1")
    assert text.count(old) == 1
    model = box / "models" / "m.yaml"
    model.write_text(text.replace(old, new))
    status, output = run_in_process(capsys, "validate", str(model))
    assert status == 2
    assert_located(output, line, reason)


def test_sizes_with_15000_entries_are_a_located_error(box, capsys):
    """The product of 15,000 sizes has more than 4,300 digits: formatting it raised ValueError."""
    sizes = ", ".join(["4294967295"] * 15000)
    model = box / "models" / "m.yaml"
    model.write_text(ADAM_DESC.replace("LR", "0.01").replace("INC", "step").replace("ADD", "0")
                     .replace("VALUE", "2").replace("RTOL", "0.1")
                     .replace("TrainingStepTensor: {DataType: UINT32, Sizes: [1, 1, 1, 1]}",
                              f"TrainingStepTensor: {{DataType: UINT32, Sizes: [{sizes}]}}"))
    status, output = run_in_process(capsys, "validate", str(model))
    assert status == 2
    assert_located(output, 11, "15000 entries: at most 64 are accepted")


def test_an_integer_too_long_for_python_is_a_located_error(box, capsys):
    model = resource_model(box, "{initialValuesDataType: UINT8, initialValues: [" + "9" * 5000 + "]}")
    status, output = run_in_process(capsys, "validate", str(model))
    assert status == 2
    assert_located(output, 2, "an integer of 5000 characters is too long")


# --- 8. bench output paths are checked before measuring ---------------------------------------------------------
@pytest.mark.parametrize("option", ["--json", "--csv", "--plot"])
def test_bench_refuses_an_unwritable_output_before_measuring(tmp_path, capsys, option):
    target = tmp_path / "missing-folder" / "out.file"
    start = time.perf_counter()
    status, output = run_in_process(capsys, "bench", "--sizes", "1K", "--peers", "none", option, str(target))
    assert status == 2
    assert f"{option} '{target}': cannot be written (No such file or directory)" in output
    assert time.perf_counter() - start < 5 and "GB/s" not in output  # nothing was measured
    status, output = run_in_process(capsys, "bench", "--sizes", "1K", option, str(tmp_path))
    assert status == 2 and "not a regular file" in output


def test_bench_output_probe_leaves_an_existing_file_and_removes_what_it_created(tmp_path):
    from dmlsim.cli.bench import unwritable

    existing = tmp_path / "kept.json"
    existing.write_text("previous run")
    assert unwritable("--json", str(existing)) is None and existing.read_text() == "previous run"
    assert unwritable("--csv", str(tmp_path / "new.csv")) is None and not (tmp_path / "new.csv").exists()


def test_sizes_in_messages_are_readable_however_large():
    from dmlsim.model.limits import describe_bytes

    assert describe_bytes(256 << 20) == "256 MiB" and describe_bytes(10**400) == "about 2^1328 bytes"


def test_a_buffer_over_the_devices_largest_allocation_is_invalid_at_its_resource(box, capsys, monkeypatch):
    import dmlsim.model.runner as runner_module

    monkeypatch.setattr(runner_module, "max_allocation", lambda device: 64)
    model = resource_model(box, "{initialValuesDataType: UINT8, initialValues: {valueCount: 100, value: 7}}")
    model.write_text(model.read_text().replace("commands: []", "commands: [{type: print, resource: X}]"))
    status, output = run_in_process(capsys, "run", "-a", "reference", str(model))
    assert status == 2
    assert_located(output, 2, "resource 'X' was not created: invalid")
    assert "exceed the largest buffer" in output and "Resource 'X'" not in output  # the print did not run


def test_the_opencl_devices_largest_allocation_is_its_max_mem_alloc_size():
    from types import SimpleNamespace

    from dmlsim.model.runner import max_allocation

    def device(cl_device):
        return SimpleNamespace(adapter=SimpleNamespace(cl_device=cl_device))

    assert max_allocation(device(SimpleNamespace(max_mem_alloc_size=1 << 30))) == 1 << 30
    assert max_allocation(device(None)) is None


def test_run_creates_a_missing_output_folder_and_refuses_one_that_cannot_be(box, capsys):
    """DxDispatch creates the folders it writes into (issue 30 item 4); a path through a file cannot be one."""
    model = box / "models" / "m.yaml"
    model.write_text(PAYLOAD + "  - {type: writeFile, resource: X, targetPath: x.bin}\n")
    status, output = run_in_process(capsys, "run", "-a", "reference", "--output_path", str(box / "nowhere" / "deep"),
                                    str(model))
    assert (box / "nowhere" / "deep" / "x.bin").is_file(), output
    (box / "afile").write_text("")
    status, output = run_in_process(capsys, "run", "-a", "reference", "--output_path", str(box / "afile" / "x"),
                                    str(model))
    assert status == 2 and "is not a folder and cannot be made one" in output


def test_integer_expectations_of_ten_million_values_compare_in_seconds(tmp_path):
    """Integers were compared element by element in Python; one differing value is still found."""
    (tmp_path / "m.yaml").write_text("""
resources: {X: {initialValuesDataType: UINT32, initialValues: {valueCount: 10000000, valueStart: 0, valueDelta: 1}}}
dispatchables: {}
commands:
  - {type: expect, resource: X, values: {valueCount: 10000000, valueStart: 0, valueDelta: 1}}
  - {type: add, resource: X, value: 0}
  - {type: expect, resource: X, values: {valueCount: 10000000, valueStart: 1, valueDelta: 1}}
""")
    start = time.perf_counter()
    result = Runner(load_model(tmp_path / "m.yaml"), dml.DMLCreateDevice(0, "reference")).run()
    assert time.perf_counter() - start < 10
    assert result.outcomes["command-0"].status == "passed"
    assert result.outcomes["command-2"].status == "failed"
    assert "10000000 of 10000000 UINT32 values differ" in result.outcomes["command-2"].message


@pytest.mark.parametrize("flags, reason", [
    ("[0, 1, 2]", "createDeviceFlags[2]: 2 has bits that are not DML_CREATE_DEVICE_FLAGS"),
    ("16383", "createDeviceFlags: 16383 has bits that are not DML_CREATE_DEVICE_FLAGS"),
])
def test_device_flags_with_unknown_bits_are_a_located_error(box, capsys, flags, reason):
    """Found by `make fuzz` (seed 1795406655): a number in createDeviceFlags reached DMLCreateDevice unchecked,
    whose refusal named no place in the file."""
    model = box / "models" / "m.yaml"
    model.write_text(f"createDeviceFlags: {flags}\nresources: {{}}\ndispatchables: {{}}\ncommands: []\n")
    status, output = run_in_process(capsys, "validate", str(model))
    assert status == 2
    assert_located(output, 1, reason)


@pytest.mark.parametrize("scalar, line", [
    ("!!timestamp Function", 2),  # PyYAML's own constructor raised AttributeError (found by `make fuzz`)
    ("!!timestamp 2001-13-45", 2),  # matches the timestamp pattern, not a date: ValueError
    ("!!float abc", 2),  # ValueError from float()
])
def test_a_scalar_its_tag_cannot_build_is_a_located_error(box, capsys, scalar, line):
    model = resource_model(box, "{initialValuesDataType: FLOAT32, initialValues: [" + scalar + "]}")
    status, output = run_in_process(capsys, "validate", str(model))
    assert status == 2
    assert_located(output, line, "cannot read")


# --- issue 26 item 6: linear-time problem location, at most 100 problems per file, large legal files ------------
LOCATED_LINE = re.compile(r"^\S.*:\d+:\d+: ", re.MULTILINE)


def json_model(path: Path, resources: dict, dispatchables: dict, commands: list) -> Path:
    path.write_text(json.dumps({"resources": resources, "dispatchables": dispatchables, "commands": commands}))
    return path


def repeated_axes_model(path: Path, count: int) -> Path:
    """Issue 26's 14 KB REDUCE model: ``Axes`` holds axis 0 ``count`` times."""
    return json_model(
        path, {"x": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3, 4]},
               "y": {"initialValuesDataType": "FLOAT32", "initialValues": [0]}},
        {"r": {"type": "REDUCE", "desc": {"Function": "SUM", "InputTensor": {"DataType": "FLOAT32", "Sizes": [4]},
                                          "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1]},
                                          "AxisCount": count, "Axes": [0] * count}}},
        [{"type": "dispatch", "dispatchable": "r", "bindings": {"InputTensor": "x", "OutputTensor": "y"}}])


def wrongly_typed_join_model(path: Path, count: int) -> Path:
    """Issue 26's JOIN: ``count`` UINT8 inputs joined into a FLOAT32 output (each input's DataType is wrong)."""
    return json_model(path, {}, {"j": {"type": "JOIN", "desc": {
        "InputTensors": [{"DataType": "UINT8", "Sizes": [1, 2]}] * count,
        "OutputTensor": {"DataType": "FLOAT32", "Sizes": [count, 2]}, "Axis": 0}}}, [])


def test_5000_repeated_reduce_axes_list_100_problems_in_seconds(box):
    """31-50 s and 5,001 lines before (each problem was located by listing the whole Axes list, and every one
    was printed); the README promises at most 100 problems per file."""
    model = repeated_axes_model(box / "models" / "m.json", 5000)
    proc = cli("validate", str(model), cwd=box)
    assert proc.returncode == 2, proc.stderr
    problems = LOCATED_LINE.findall(proc.stderr)
    assert len(problems) == 101, proc.stderr[-2000:]  # the dispatchable's line, then 100 problems
    assert proc.stderr.rstrip().endswith("... 4899 more problems (only the first 100 are listed)")
    # each listed problem at its own axis: [0, 0, 0, ...] starts at column 365, one axis every 3 characters
    column = model.read_text().index('"Axes": [') + len('"Axes": [') + 1
    assert f"m.json:1:{column + 3}: dispatchables.r.desc.Axes[1]: " in proc.stderr
    assert f"m.json:1:{column + 3 * 99}: dispatchables.r.desc.Axes[99]: " in proc.stderr
    assert "Axes[101]" not in proc.stderr  # the first problem is Axes[1]


def test_join_with_5000_wrongly_typed_inputs_lists_100_problems_in_seconds(box):
    """95 s before."""
    model = wrongly_typed_join_model(box / "models" / "m.json", 5000)
    proc = cli("validate", str(model), cwd=box)
    assert proc.returncode == 2, proc.stderr
    assert len(LOCATED_LINE.findall(proc.stderr)) == 101
    assert "InputTensors[99].DataType must equal OutputTensor.DataType" in proc.stderr
    assert proc.stderr.rstrip().endswith("... 4900 more problems (only the first 100 are listed)")


def test_400000_repeated_axes_validate_in_seconds(box):
    """Problem location, de-duplication (Problems.add) and the repeated-axis check were each quadratic: 400,000
    axes (within the 2,000,000-value limit) would take hours; linear, seconds (the CLI's 20 s bound). 400,000, not
    200,000: on an AMD Zen 5 host a quadratic copy of the axes before each one took only 12.6 s for 200,000."""
    model = repeated_axes_model(box / "models" / "m.json", 400_000)
    proc = cli("validate", str(model), cwd=box)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.rstrip().endswith("... 399899 more problems (only the first 100 are listed)")


def test_a_refusal_with_5000_problems_keeps_100_in_its_outcome(tmp_path):
    """The runner's message (what the pytest plugin shows) locates 100 problems and counts the rest."""
    model = load_model(repeated_axes_model(tmp_path / "m.json", 5000))
    result = Runner(model, dml.DMLCreateDevice(0, "reference"), execute=False).run()
    message = result.outcomes["r"].message
    assert len(LOCATED_LINE.findall(message)) == 100
    assert message.endswith("... 4899 more problems (only the first 100 are listed)")


def test_run_lists_at_most_100_problems_of_a_file(box, capsys):
    """150 dispatchables refused, one problem each: 100 listed, then the count of the others."""
    bad = {"DataType": "FLOAT32", "Sizes": [2]}
    model = json_model(box / "models" / "m.json", {}, {
        f"d{i}": {"type": "ELEMENT_WISE_IDENTITY", "desc": {"InputTensor": bad, "OutputTensor": {
            "DataType": "FLOAT32", "Sizes": [3]}}} for i in range(150)}, [])
    status, output = run_in_process(capsys, "run", "-a", "reference", str(model))
    assert status == 2
    assert output.count("m.json:1:") == 200  # each outcome's line and its problem's, 100 times
    assert "... 50 more problems (only the first 100 are listed)" in output


def test_ten_thousand_dispatchables_validate_well_inside_20_s(box):
    """34 s before (YAML composing of the JSON, an enum name resolved by a scan of the enum, a schema rebuilt per
    field, every outcome located, the garbage collector walking the model's million objects again and again)."""
    tensor = {"DataType": "FLOAT32", "Sizes": [4]}
    desc = {"InputTensor": tensor, "OutputTensor": tensor}
    bindings = {"InputTensor": "x", "OutputTensor": "x"}
    model = json_model(box / "models" / "m.json",
                       {"x": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3, 4]}},
                       {f"d{i}": {"type": "ELEMENT_WISE_IDENTITY", "desc": desc} for i in range(10_000)},
                       [{"type": "dispatch", "dispatchable": f"d{i}", "bindings": bindings} for i in range(10_000)])
    proc = cli("validate", str(model), cwd=box)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("m.json: ok")


@pytest.mark.parametrize("suffix, count", [(".json", 1_000_000), (".yaml", 300_000)])
def test_a_million_array_values_validate_well_inside_20_s(box, suffix, count):
    """54 s before; the last value, a wrong one, is still located exactly. YAML, which PyYAML composes node by
    node, takes about 10 s per million values on a 2-core machine: a smaller list here."""
    values = ["1.5"] * (count - 1) + ['"x"']
    text = ('{"resources": {"X": {"initialValuesDataType": "FLOAT32", "initialValues": [' + ", ".join(values)
            + ']}}, "dispatchables": {}, "commands": []}')
    (box / "models" / f"m{suffix}").write_text(text)
    proc = cli("validate", str(box / "models" / f"m{suffix}"), cwd=box)
    assert proc.returncode == 2, proc.stderr
    column = text.index('"x"') + 1
    assert f"m{suffix}:1:{column}: resources.X.initialValues[{count - 1}]: expected a number" in proc.stderr


def test_a_json_model_is_read_as_the_yaml_path_reads_it_positions_included():
    """The json module reads a strict-JSON model (fast), positions found afterwards; the YAML loader reads the
    rest. For every committed model written as strict JSON and a few tricky texts both give the same tree and the
    same position for every value."""
    from dmlsim.model import loader

    def plain(tree: object) -> object:
        if isinstance(tree, dict):
            return {key: plain(value) for key, value in tree.items()}
        return [plain(value) for value in tree] if isinstance(tree, list) else tree

    corpus = [plain(loader.load_tree(path)) for path in sorted((ROOT / "descriptors").iterdir())
              if path.suffix in (".json", ".yaml")]
    texts = [json.dumps(tree, indent=i % 3 or None, allow_nan=False) for i, tree in enumerate(corpus)
             if "nan" not in repr(tree) and "inf" not in repr(tree)]
    texts += ['{"é€a": [1, {"b":\n  2}], "d": 3}\r\n', '  [ 1 ,\n2 , [ [ ] ] , {"k"\n  : 3} ] trailing',
              '{"a": 1 /* c */, // x\n "b": [1,\n2,\r\n3], "c": "x\\u2028y\u2028z", "d": 4}',
              '{"s": "\\"q\\\\", "n": -0, "f": 1e5, "g": -1.5E-3, "t": [true, false, null], "e": {}}']

    def marks(tree: object, out: list, path: str = "") -> list:
        if isinstance(tree, dict):
            for key, value in tree.items():
                mark = tree.value_marks[key]
                out.append((f"{path}.{key}", mark.line, mark.column))
                marks(value, out, f"{path}.{key}")
        elif isinstance(tree, list):
            for i, value in enumerate(tree):
                out.append((f"{path}[{i}]", tree.item_marks[i].line, tree.item_marks[i].column))
                marks(value, out, f"{path}[{i}]")
        return out

    for text in texts:
        fast = loader.load_tree("m.json", text)
        assert type(fast).__name__.startswith("_Json"), text[:80]  # the json module read it
        yaml_loader = loader._LocatedLoader(loader.rapidjson_leniency(loader.blank_json_comments(text)))
        slow = yaml_loader.construct_document(yaml_loader.get_single_node())
        assert fast == slow
        assert (fast.mark.line, fast.mark.column) == (slow.mark.line, slow.mark.column)
        assert marks(fast, []) == marks(slow, [])


@pytest.mark.parametrize("text, line, reason", [
    ('{"resources": {}, "resources": {},\n "dispatchables": {}, "commands": []}', 1, "duplicate key"),
    ('{"resources": {"X": {"initialValuesDataType": "FLOAT32", "initialValues": [Infinity]}},\n'
     ' "dispatchables": {}, "commands": []}', 1, "expected a number"),
    ('{"resources": {},\n "x-deep": ' + "[" * 70 + "]" * 70 + ', "dispatchables": {}, "commands": []}', 2,
     "nested deeper than 64 levels"),
    ('{"resources": {"X": {"initialValuesDataType": "FLOAT32",\n "initialValues": [' + "0," * 2_000_001 + "0]}}}", 2,
     "holds more than 2,000,000 values"),
])
def test_what_strict_json_reading_leaves_to_the_yaml_path_is_still_refused_and_located(box, capsys, text, line,
                                                                                        reason):
    (box / "models" / "m.json").write_text(text)
    status, output = run_in_process(capsys, "validate", str(box / "models" / "m.json"))
    assert status == 2
    assert f"m.json:{line}:" in output and reason in output, output


def _reference_blank(text: str) -> str:
    """The comment blanking as first written, a loop over characters (an independent statement of the rule)."""
    out, i, n, in_string = list(text), 0, len(text), False
    while i < n:
        c = text[i]
        if in_string:
            if c == "\\":
                i += 2
                continue
            in_string = c != '"'
        elif c == '"':
            in_string = True
        elif c == "\t":
            out[i] = " "
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                out[i], i = " ", i + 1
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out[i:end] = [ch if ch == "\n" else " " for ch in text[i:end]]
            i = end
            continue
        i += 1
    return "".join(out)


def _reference_leniency(text: str) -> str:
    """RapidJSON's leniencies as first written, a loop over characters."""
    out, i, n, depth, key_end = list(text), 0, len(text), 0, None
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            key_end, i = j, j + 1
            continue
        if c == ":" and key_end is not None and "\n" in text[key_end:i]:
            out[key_end], out[i] = '":', " "
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                out[i + 1:] = [ch if ch == "\n" else " " for ch in text[i + 1:]]
                break
        if not c.isspace():
            key_end = None
        i += 1
    return "".join(out)


def test_comment_blanking_and_rapidjson_leniency_do_what_the_character_loops_did():
    """Both are one regular-expression pass now (5 s for a 5 MB file before); 50,000 random texts of the
    characters that matter give what the loops gave."""
    from dmlsim.model.loader import blank_json_comments, rapidjson_leniency

    rng = random.Random(26)
    alphabet = ['"', "\\", "/", "*", "\n", "\t", " ", ":", "{", "}", "[", "]", "a", ",", "\r", "\u2028"]
    for _ in range(50_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        blanked = _reference_blank(text)
        assert blank_json_comments(text) == blanked, repr(text)
        assert rapidjson_leniency(blanked) == _reference_leniency(blanked), repr(blanked)


# --- issue 26 item 3: every resource a model makes dmlsim hold is charged before it is allocated -----------------
OWNED_1_GIB = """
resources:
  X: {initialValuesDataType: FLOAT32, initialValues: [1, 2]}
  Y: {initialValuesDataType: FLOAT32, initialValues: [0]}
dispatchables:
  sum:
    type: REDUCE
    desc:
      Function: SUM
      InputTensor: {DataType: FLOAT32, Sizes: [268435456], Flags: OWNED_BY_DML}
      OutputTensor: {DataType: FLOAT32, Sizes: [1]}
      Axes: [0]
    bindings: {InputTensor: X}
commands:
  - {type: dispatch, dispatchable: sum, bindings: {OutputTensor: Y}}
"""


class BufferSpy:
    """Records the size of every buffer ``device.CreateBuffer`` is asked for (then creates it)."""

    def __init__(self, monkeypatch, device) -> None:
        self.sizes: list[int] = []
        create = device.CreateBuffer

        def spy(size):
            self.sizes.append(size)
            return create(size)

        monkeypatch.setattr(device, "CreateBuffer", spy)


def test_a_1_gib_owned_by_dml_input_with_12_bytes_of_resources_is_refused_without_allocating(box):
    """`dmlsim run` peaked at 1.24 GB: the persistent resource was created (and zero-filled) before the
    initializer's 8-byte binding of the 1 GiB input was checked. Under a 1 GiB address-space limit."""
    (box / "models" / "m.yaml").write_text(OWNED_1_GIB)
    proc = cli("run", "-a", "reference", str(box / "models" / "m.yaml"), cwd=box)
    assert proc.returncode == 2, proc.stderr
    assert_located(proc.stderr, 13, "SizeInBytes 8 is less than TotalTensorSizeInBytes 1073741824")
    assert "out of host memory" not in proc.stderr


def test_an_owned_by_dml_input_is_checked_before_its_persistent_resource_exists(device, monkeypatch, tmp_path):
    """The same model on every device: no buffer larger than the resources' is asked for."""
    (tmp_path / "m.yaml").write_text(OWNED_1_GIB)
    spy = BufferSpy(monkeypatch, device)
    result = Runner(load_model(tmp_path / "m.yaml"), device).run()
    assert result.outcomes["sum"].status == "invalid"
    assert "less than TotalTensorSizeInBytes 1073741824" in result.outcomes["sum"].message
    assert max(spy.sizes) == 8


def owned_model(path: Path, nbytes: int) -> Path:
    """An OWNED_BY_DML input of ``nbytes`` bytes bound to a resource that holds it: the persistent resource
    DirectML makes for it takes ``nbytes`` more."""
    path.write_text(OWNED_1_GIB.replace("initialValues: [1, 2]}", f"initialValues: [1], sizeInBytes: {nbytes}}}")
                    .replace("Sizes: [268435456]", f"Sizes: [{nbytes // 4}]"))
    return path


def test_the_persistent_resource_is_charged_to_the_memory_budget(device, monkeypatch, tmp_path):
    """A 12 KiB OWNED_BY_DML input and its 12 KiB source under a 16 KiB budget (small enough for Oclgrind): the
    source fits, its copy in the persistent resource does not, and is refused before it is made (validate
    refuses it too); under 32 KiB both fit."""
    model = load_model(owned_model(tmp_path / "m.yaml", 12 << 10), limits=Limits(budget=16 << 10))
    spy = BufferSpy(monkeypatch, device)
    result = Runner(model, device).run()
    outcome = result.outcomes["sum"]
    assert outcome.status == "invalid"
    assert (outcome.location.line, outcome.location.path) == (10, "dispatchables.sum.desc.InputTensor")
    assert ("the persistent resource of dispatchable 'sum' (OWNED_BY_DML: InputTensor) needs 12 KiB, over the "
            "memory budget of 16 KiB") in outcome.message
    assert spy.sizes.count(12 << 10) == 1  # the source resource only
    assert result.outcomes["command-0"].status == "not run"
    checked = Runner(model, dml.DMLCreateDevice(0, "reference"), execute=False).run()
    assert checked.outcomes["sum"].status == "invalid"
    assert "needs 12 KiB, over the memory budget" in checked.outcomes["sum"].message
    # the reference device also charges its working arrays (float64 copies) to what the budget leaves
    roomy = (256 if device.adapter.kind == "reference" else 32) << 10
    fits = Runner(load_model(owned_model(tmp_path / "m.yaml", 12 << 10), limits=Limits(budget=roomy)),
                  device).run()
    assert fits.outcomes["sum"].status == "passed" and fits.outcomes["command-0"].status == "passed"


SPARSE_ADAGRAD = """
x-one: &one {DataType: FLOAT32, Sizes: [1, 1, 1, 1]}
resources:
  W: {initialValuesDataType: FLOAT32, initialValues: [1]}
  A: {initialValuesDataType: FLOAT32, initialValues: [1]}
  P: {initialValuesDataType: UINT32, initialValues: [0]}
  S: {initialValuesDataType: UINT32, initialValues: [1]}
  G: {initialValuesDataType: FLOAT32, initialValues: [0.5]}
  I: {initialValuesDataType: UINT32, initialValues: [0]}
dispatchables:
  sparse:
    type: DMLSIM_OPERATOR_ADAGRAD_DECAY
    desc:
      InputParametersTensor: *one
      InputAccumulatorTensor: *one
      InputDecayPowerTensor: {DataType: UINT32, Sizes: [1, 1, 1, 1]}
      GradientTensor: {DataType: FLOAT32, Sizes: [1, 1, COUNT, 1], Strides: [0, 0, 0, 0]}
      IndicesTensor: {DataType: UINT32, Sizes: [1, 1, 1, COUNT], Strides: [0, 0, 0, 0]}
      GlobalStepTensor: {DataType: UINT32, Sizes: [1, 1, 1, 1]}
      OutputParametersTensor: *one
      OutputAccumulatorTensor: *one
      OutputDecayPowerTensor: {DataType: UINT32, Sizes: [1, 1, 1, 1]}
      LearningRate: 0.1
      AccumulatorDecayStep: 1
      AccumulatorDecayRate: 0.5
      AccumulatorBaseline: 0.1
commands:
"""
SPARSE_DISPATCH = """  - type: dispatch
    dispatchable: sparse
    bindings: {InputParametersTensor: W, InputAccumulatorTensor: A, InputDecayPowerTensor: P, GradientTensor: G,
               IndicesTensor: I, GlobalStepTensor: S, OutputParametersTensor: W, OutputAccumulatorTensor: A,
               OutputDecayPowerTensor: P}
"""


def test_temporary_resources_are_charged_to_the_memory_budget(device, monkeypatch, tmp_path):
    """Sparse AdagradDecay's temporary holds 4 bytes per index (and 256 for its row heads): 4,096 broadcast
    indices (4 bytes of resource) ask for 16,640 bytes, over a 16 KiB budget: refused at the dispatch before it
    is made. Within the budget, one temporary serves every dispatch: three dispatches of 1,536 indices (6,400
    bytes each) fit, which three temporaries would not."""
    (tmp_path / "m.yaml").write_text(SPARSE_ADAGRAD.replace("COUNT", "4096") + SPARSE_DISPATCH)
    spy = BufferSpy(monkeypatch, device)
    result = Runner(load_model(tmp_path / "m.yaml", limits=Limits(budget=16 << 10)), device).run()
    outcome = result.outcomes["command-0"]
    assert outcome.status == "invalid" and outcome.location.line == 28
    assert "the temporary resource of dispatchable 'sparse' (16640 bytes) needs 16.25 KiB, over the memory" in \
        outcome.message
    assert max(spy.sizes) == 4
    (tmp_path / "m.yaml").write_text(SPARSE_ADAGRAD.replace("COUNT", "1536") + SPARSE_DISPATCH * 3)
    spy.sizes.clear()
    # the reference device also charges its working arrays (float64 copies) to what the budget leaves: there the
    # budget is larger, and the one temporary made is what shows that it was charged once
    budget = (256 if device.adapter.kind == "reference" else 16) << 10
    result = Runner(load_model(tmp_path / "m.yaml", limits=Limits(budget=budget)), device).run()
    assert [o.status for o in result.outcomes.values()] == ["passed"] * 4
    assert spy.sizes.count(1536 * 4 + 256) == 1


def test_expectation_snapshots_are_charged_to_the_memory_budget(tmp_path):
    """Every expect keeps the resource's values as it saw them (twice with `reference: true`: the reference
    run's and the device's): a thousand expectations of a 1 MiB resource would hold 2 GB."""
    commands = "".join("  - {type: expect, resource: X, reference: true}\n" for _ in range(1000))
    (tmp_path / "m.yaml").write_text("resources:\n  X: {initialValuesDataType: FLOAT32, initialValues: "
                                     "{valueCount: 262144, value: 1}}\ndispatchables: {}\ncommands:\n" + commands)
    with pytest.raises(dml.DMLError) as info:
        load_model(tmp_path / "m.yaml", limits=Limits(budget=16 << 20))
    assert "m.yaml:12:5: commands[7]: command 7 (keeping two snapshots of resource 'X') needs 2 MiB, over the " \
           "memory budget of 16 MiB (1 MiB left)" in str(info.value)


def test_validate_refuses_a_persistent_resource_larger_than_the_device_allocates(tmp_path, monkeypatch):
    """validate makes no buffer but refuses what CreateBuffer would: here a device whose largest buffer is 8 KiB."""
    device = dml.DMLCreateDevice(0, "reference")
    monkeypatch.setattr(device.backend, "max_buffer_size", 8 << 10)
    model = load_model(owned_model(tmp_path / "m.yaml", 12 << 10), limits=Limits(budget=4 << 20))
    result = Runner(model, device, execute=False).run()
    assert result.outcomes["sum"].status == "invalid"
    assert "12 KiB is more than the largest buffer reference" in result.outcomes["sum"].message


# --- issue 26 item 5: a compute budget, estimated from the descs before anything runs ---------------------------
def broadcast_gemm_model(path: Path, k: int = 2**21 - 1, repeat: int = 1) -> Path:
    """Issue 26's GEMM: A and B one float each, stretched by stride 0 to 2048 x K and K x 2048, a 16 MiB output:
    8.8e12 multiply-adds from 8 bytes of inputs (K = 2^21 - 1, the largest K within 2^32 - 1 elements)."""
    path.write_text(f"""
resources:
  A: {{initialValuesDataType: FLOAT32, initialValues: [1]}}
  B: {{initialValuesDataType: FLOAT32, initialValues: [1]}}
  Y: {{initialValuesDataType: FLOAT32, initialValues: {{valueCount: 4194304, value: 0}}}}
dispatchables:
  gemm:
    type: GEMM
    desc:
      ATensor: {{DataType: FLOAT32, Sizes: [1, 1, 2048, {k}], Strides: [0, 0, 0, 0]}}
      BTensor: {{DataType: FLOAT32, Sizes: [1, 1, {k}, 2048], Strides: [0, 0, 0, 0]}}
      OutputTensor: {{DataType: FLOAT32, Sizes: [1, 1, 2048, 2048]}}
      TransA: NONE
      TransB: NONE
      Alpha: 1
      Beta: 0
commands:
  - {{type: dispatch, dispatchable: gemm, bindings: {{ATensor: A, BTensor: B, OutputTensor: Y}}, repeat: {repeat}}}
""")
    return path


@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_gemm_of_8_8e12_multiply_adds_is_refused_at_its_dispatch(box, command):
    """`run` ran for hours (still running after 45 s) and `validate` passed it; now both refuse it at once,
    at the dispatch, naming the estimate and how to raise the budget."""
    model = broadcast_gemm_model(box / "models" / "m.yaml")
    args = ["run", "-a", "reference"] if command == "run" else ["validate"]
    proc = cli(*args, str(model), cwd=box)
    assert proc.returncode == 2, proc.stderr
    assert_located(proc.stderr, 18, "dispatch 'gemm' would bring the model's estimated work to 1.9e+13 units, over "
                                    "the compute budget of 8.6e+09")
    assert "this dispatch: 1.8e+13 operations, 3.4e+10 bytes (16 units each)" in proc.stderr
    assert "raise it with --compute-budget or $DMLSIM_COMPUTE_BUDGET" in proc.stderr


def test_the_compute_budget_refuses_before_anything_executes_on_every_device(device, tmp_path):
    result = Runner(load_model(broadcast_gemm_model(tmp_path / "m.yaml")), device).run()
    assert result.outcomes["gemm"].status == "passed"  # created and valid
    assert result.outcomes["command-0"].status == "invalid"
    assert "over the compute budget" in result.outcomes["command-0"].message


def test_the_compute_budget_counts_repeats_and_is_raised_by_option_or_variable(box, capsys, monkeypatch):
    """K = 64: 1.1e9 units a dispatch (5.4e8 multiply-add operations, 64 for each of its 4.5e6 elements, 16 for
    each of its 18 MB, 1e5 for the execution). 4 repeats fit the default 8G (8.6e9 units), 8 do not;
    --compute-budget or $DMLSIM_COMPUTE_BUDGET (binary units, as the memory budget) raises it."""
    model = broadcast_gemm_model(box / "models" / "m.yaml", k=64, repeat=4)
    status, output = run_in_process(capsys, "validate", str(model))
    assert status == 0, output
    model = broadcast_gemm_model(box / "models" / "m.yaml", k=64, repeat=8)
    status, output = run_in_process(capsys, "validate", str(model))
    assert status == 2 and "over the compute budget of 8.6e+09" in output and ", 8 times)" in output, output
    status, output = run_in_process(capsys, "validate", "--compute-budget", "16G", str(model))
    assert status == 0, output
    monkeypatch.setenv("DMLSIM_COMPUTE_BUDGET", "16G")
    status, output = run_in_process(capsys, "validate", str(model))
    assert status == 0, output
    status, output = run_in_process(capsys, "validate", "--compute-budget", "0", str(model))
    assert status == 2 and "--compute-budget: '0' is not a positive number of work units" in output, output


def test_a_billion_repeats_of_a_tiny_dispatch_are_refused(tmp_path):
    """Each execution costs its overhead (binding, enqueue, wait) whatever the dispatch computes."""
    path = tmp_path / "m.yaml"
    path.write_text(PAYLOAD.replace("commands:", """dispatchables:
  copy: {type: ELEMENT_WISE_IDENTITY, desc: {InputTensor: {DataType: UINT8, Sizes: [3]},
                                              OutputTensor: {DataType: UINT8, Sizes: [3]}}}
commands:
  - {type: dispatch, dispatchable: copy, bindings: {InputTensor: X, OutputTensor: X}, repeat: 1000000000}
""").replace("dispatchables: {}\n", ""))
    result = Runner(load_model(path), dml.DMLCreateDevice(0, "reference"), execute=False).run()
    assert result.outcomes["command-0"].status == "invalid"
    assert "1,000,000,000 times" in result.outcomes["command-0"].message


def test_printing_a_resource_counts_against_the_compute_budget(tmp_path):
    """print formats each value in Python (about a microsecond each): 64M values would take a minute."""
    path = tmp_path / "m.yaml"
    path.write_text("resources:\n  X: {initialValuesDataType: UINT8, initialValues: {valueCount: 67108864, value: 1}}\n"
                    "dispatchables: {}\ncommands:\n  - {type: print, resource: X}\n")
    result = Runner(load_model(path), dml.DMLCreateDevice(0, "reference"), execute=False).run()
    assert result.outcomes["command-0"].status == "invalid"
    assert "command 0 (print 'X') would bring the model's estimated work to 6.7e+10 units" in \
        result.outcomes["command-0"].message


def test_a_model_checked_against_the_reference_device_counts_twice(tmp_path):
    """`expect reference: true` runs the whole model on the reference device first: 4 repeats (4.4e9 units) fit
    the budget once, not twice."""
    model = broadcast_gemm_model(tmp_path / "m.yaml", k=64, repeat=4)
    model.write_text(model.read_text() + "  - {type: expect, resource: Y, reference: true}\n")
    result = Runner(load_model(model), dml.DMLCreateDevice(0, "reference"), execute=False).run()
    assert result.outcomes["command-0"].status == "invalid"
    assert "(run twice: reference: true)" in result.outcomes["command-0"].message


def test_every_operator_reports_an_estimate_that_covers_its_elements():
    """Operator.work on a drawn valid desc of every implemented operator (the harness's draws): whole numbers,
    at least one operation and its bytes for every element of its tensors."""
    from dmlsim.operators.base import Work, tensor_layouts
    from dmlsim.operators.harness import drawer, implemented_operators
    from dmlsim.operators.validation import validate_operator_desc

    rng = np.random.default_rng(26)
    for op in implemented_operators():
        case = drawer(op)(op, rng)
        v = validate_operator_desc(dml.DML_OPERATOR_DESC(op.type, case.desc))
        work = op.work(v)
        assert isinstance(work, Work) and all(isinstance(x, int) for x in vars(work).values()), op.name
        layouts = tensor_layouts(v)
        assert work.operations >= sum(t.element_count for t in layouts), op.name
        assert work.bytes >= sum(-(-t.element_count * t.element_bits // 8) for t in layouts), op.name  # 4-bit too


def test_gemm_convolution_and_rnn_estimates_count_their_inner_loops():
    """Hand-counted: GEMM 2·M·N·K operations beyond its elements' (64 each); a FORWARD convolution 4 per
    multiply-add (N·O·H·W outputs x C/G·KH·KW each) and 20 reference steps per tap and group."""
    from dmlsim.operators.base import OPERATIONS_PER_ELEMENT, tensor_layouts
    from dmlsim.operators.validation import validate_operator_desc

    def estimate(op_type, desc):
        v = validate_operator_desc(dml.DML_OPERATOR_DESC(op_type, desc))
        elements = sum(t.element_count for t in tensor_layouts(v))
        return v.operator.work(v), OPERATIONS_PER_ELEMENT * elements

    t = dml.buffer_tensor
    f32 = dml.DML_TENSOR_DATA_TYPE_FLOAT32
    work, elements = estimate(dml.DML_OPERATOR_GEMM, dml.DML_GEMM_OPERATOR_DESC(
        t(f32, [1, 1, 3, 5]), t(f32, [1, 1, 5, 7]), None, t(f32, [1, 1, 3, 7]), 0, 0, 1.0, 0.0, None))
    assert work.operations == elements + 2 * 3 * 7 * 5
    work, elements = estimate(dml.DML_OPERATOR_CONVOLUTION, dml.DML_CONVOLUTION_OPERATOR_DESC(
        t(f32, [2, 4, 6, 6]), t(f32, [8, 2, 3, 3]), None, t(f32, [2, 8, 4, 4]), 0, 0, 2, [1, 1], [1, 1], [0, 0],
        [0, 0], [0, 0], 2, None))
    assert work.operations == elements + 4 * (2 * 8 * 4 * 4) * (2 * 3 * 3)
    assert work.host_steps == 20 * 9 * 2  # the reference's einsum per tap and group
