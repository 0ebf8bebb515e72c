"""``dmlsim run model.onnx`` (dmlsim/onnx/cli_run.py), bad models (dmlsim/onnx/model_file.py) and the lowering cache
(dmlsim/onnx/run_model.py's LoweringCache).

Expected outputs come from onnxruntime's CPU provider (an independent implementation) or are literal; bad models
run in a subprocess each, as a user would meet them: exit status 2, one located line, no traceback, within 20 s and
without allocating what an initializer claims.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from dmlsim import backend
from dmlsim.cli import main
from dmlsim.onnx.architectures import ARCHITECTURES, feeds
from dmlsim.onnx.peer import onnxruntime_outputs

ROOT = Path(__file__).resolve().parents[1]
F = TensorProto.FLOAT


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def saved(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.onnx"
    onnx.save(ARCHITECTURES[name].build(0), path)
    return path


# --- dmlsim run model.onnx -----------------------------------------------------------------------------------
def test_run_prints_outputs_times_and_matches_onnxruntime(device, tmp_path, capsys):
    """Random seeded inputs, -i 3 timing lines, every output compared with onnxruntime (exit 0), and --output_path
    writing each output as .npy equal to onnxruntime's on the same seeded inputs (the LSTM→GRU model: quick to
    simulate under Oclgrind)."""
    path = saved(tmp_path, "recurrent")
    status, out, err = run(capsys, "run", str(path), "-a", device.adapter.index, "-i", "3", "--compare-onnxruntime",
                           "--output_path", str(tmp_path / "out"))
    assert status == 0, out + err
    assert re.search(r"^Dispatch 'recurrent': 3 iterations, \d+\.\d{4} ms median \(CPU\)", out, re.M), out
    assert re.search(r"^scores: \[2, 3\] float32 \[", out, re.M), out
    assert re.search(r"^lstm_Y_h: \[1, 2, 8\] float32 \[", out, re.M), out
    assert re.search(r"^ok: output 'scores' \[2, 3\] float32: (identical|within tolerance; first differing element "
                     r"at \[\d+, \d+\]: .* \(\d+ ulp apart\))", out, re.M), out
    model = onnx.load(path)
    expected = onnxruntime_outputs(model, feeds(model, seed=0))
    for output, want in zip(model.graph.output, expected, strict=True):
        np.testing.assert_allclose(np.load(tmp_path / "out" / f"{output.name}.npy"), want, rtol=1e-5, atol=1e-5)


def test_run_with_given_inputs_and_symbolic_dims(tmp_path, capsys):
    """The transformer's batch and seq: --dim for drawn inputs, or --input files (.npy, .npz) that fix them; a
    symbolic dimension left open is named; an input of another shape or type is refused naming it."""
    path = saved(tmp_path, "transformer")
    status, out, err = run(capsys, "run", str(path), "-a", "reference")
    assert status == 2 and "dimension 0 is symbolic 'batch'; give its size with --dim batch=N" in err, err
    status, out, err = run(capsys, "run", str(path), "-a", "reference", "--dim", "batch=1", "--dim", "seq=3")
    assert status == 0 and "encoded: [1, 3, 16] float32" in out, out + err
    x = np.linspace(-1, 1, 2 * 4 * 16, dtype=np.float32).reshape(2, 4, 16)
    mask = np.array([True, True, False, True] * 2).reshape(2, 1, 1, 4)
    np.save(tmp_path / "x.npy", x)
    np.savez(tmp_path / "inputs.npz", mask=mask)
    status, out, err = run(capsys, "run", str(path), "-a", "reference", "--input", f"x={tmp_path / 'x.npy'}",
                           "--input", str(tmp_path / "inputs.npz"), "--output_path", str(tmp_path),
                           "--compare-onnxruntime")
    assert status == 0, out + err
    expected = onnxruntime_outputs(onnx.load(path), {"x": x, "mask": mask})[0]
    np.testing.assert_allclose(np.load(tmp_path / "encoded.npy"), expected, rtol=1e-4, atol=1e-5)
    np.save(tmp_path / "bad.npy", x.astype(np.float64))
    status, _, err = run(capsys, "run", str(path), "-a", "reference", "--input", f"x={tmp_path / 'bad.npy'}",
                         "--dim", "batch=2", "--dim", "seq=4")
    assert status == 2 and "--input 'x': the model declares float32, the file holds float64" in err, err


def test_compare_onnxruntime_exits_1_on_a_mismatch(tmp_path, capsys):
    """A tolerance no float32 computation meets (0.01 ulp): the first differing element is shown in ulps, exit 1."""
    path = saved(tmp_path, "mlp_train")
    status, out, err = run(capsys, "run", str(path), "-a", "reference", "--compare-onnxruntime", "--ulps", "0.01")
    assert status == 1, out + err
    assert re.search(r"^MISMATCH: output '\w+' .*: \d+ of \d+ elements out of tolerance; first differing element "
                     r"at \[.*\]: dmlsim \S+, onnxruntime \S+ \(\d+ ulp apart\)", out, re.M), out
    assert "outputs differ from onnxruntime's CPU provider" in out


# --- bad models: a subprocess each ------------------------------------------------------------------------------
def _model(nodes: list, initializers: list = (), opset: int = 17, x_shape: tuple = (2, 3)) -> bytes:
    graph = helper.make_graph(nodes, "bad", [helper.make_tensor_value_info("x", F, list(x_shape))],
                              [helper.make_tensor_value_info("y", F, list(x_shape))], list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


def _claims_2gb(external: bool) -> TensorProto:
    tensor = TensorProto(name="w", data_type=F, dims=[1 << 29])
    if external:
        tensor.data_location = TensorProto.EXTERNAL
        tensor.external_data.add(key="location", value="nowhere.bin")
    else:
        tensor.raw_data = b"\0" * 16
    return tensor


def _bad(kind: str) -> bytes:
    add = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    good = _model([helper.make_node("Relu", ["x"], ["y"], name="r")])
    return {
        "unknown_op": lambda: _model([helper.make_node("FooBar", ["x"], ["y"], name="foo")]),
        "no_lowering": lambda: _model([helper.make_node("StringNormalizer", ["x"], ["y"], name="sn")], x_shape=(2, 2)),
        "opset_too_new": lambda: _model([helper.make_node("Relu", ["x"], ["y"], name="r")], opset=99),
        "missing_initializer": lambda: _model([add]),
        "cycle": lambda: _model([helper.make_node("Add", ["x", "d"], ["y"], name="a"),
                                 helper.make_node("Relu", ["y"], ["d"], name="b")]),
        "shapes_disagree": lambda: _model([add], [numpy_helper.from_array(np.ones((4, 5), np.float32), "w")]),
        "claims_2gb": lambda: _model([add], [_claims_2gb(external=False)]),
        "external_nowhere": lambda: _model([add], [_claims_2gb(external=True)]),
        "truncated": lambda: good[:len(good) // 2],
        "garbage": lambda: np.random.default_rng(0).bytes(300),
        "not_onnx": lambda: b'{"resources": {}, "dispatchables": {}, "commands": []}\n',
    }[kind]()


BAD = {  # kind → the located message expected on stderr (after "dmlsim: <path>: ")
    "unknown_op": r"node 'foo' \(FooBar, opset 17\): no op 'FooBar' in ONNX opset 17",
    "no_lowering": r"node 'sn' \(StringNormalizer, opset 17\): no DirectML lowering for this op yet",
    "opset_too_new": r"opset 99 of the default domain is newer than the newest ONNX opset dmlsim knows \(\d+\)",
    "missing_initializer": r"node 'add' \(Add, opset 17\): input 'w' is no graph input, initializer or earlier "
                           r"node's output",
    "cycle": r"node 'a' \(Add, opset 17\): the graph has a cycle \('a' → 'b' → 'a'\)",
    "shapes_disagree": r"node 'add' \(Add, opset 17\): input shapes \[\[2, 3\], \[4, 5\]\] do not broadcast",
    "claims_2gb": r"initializer 'w': claims \[536870912\] \(2,147,483,648 bytes\) but holds 16 bytes",
    "external_nowhere": r"initializer 'w': external data file 'nowhere.bin' does not exist",
    "truncated": r"not an ONNX model: the protobuf does not parse",
    "garbage": r"not an ONNX model: the protobuf does not parse",
    "not_onnx": r"not an ONNX model: the protobuf does not parse",
}
# the child reports its peak virtual memory: a 2 GB claim must not be allocated (the run peaks near 0.2 GB)
CHILD = ("import sys\nfrom dmlsim.cli import main\nstatus = main(sys.argv[1:])\n"
         "peak = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmPeak')]\n"
         "print('VmPeak-kB', *peak, file=sys.stderr)\nsys.exit(status)\n")


@pytest.mark.parametrize("kind", sorted(BAD))
def test_a_bad_model_ends_in_one_located_error(tmp_path, kind):
    path = tmp_path / "model.onnx"
    path.write_bytes(_bad(kind))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", CHILD, "run", str(path), "-a", "reference"], capture_output=True,
                          text=True, timeout=60, env=env, cwd=tmp_path)
    elapsed = time.monotonic() - start
    err = done.stderr
    assert done.returncode == 2, (done.stdout, err)
    assert "Traceback" not in err + done.stdout
    lines = [line for line in err.splitlines() if not line.startswith("VmPeak-kB")]
    assert len(lines) == 1 and re.match(rf"dmlsim: {re.escape(str(path))}: {BAD[kind]}", lines[0]), err
    assert elapsed < 20, f"{elapsed:.1f} s"
    peak = [int(line.split()[1]) for line in err.splitlines() if line.startswith("VmPeak-kB")]
    if peak:  # /proc exists (Linux)
        assert peak[0] < 1 << 20, f"peak virtual memory {peak[0]} kB"


# --- the lowering cache -----------------------------------------------------------------------------------------
@pytest.fixture
def compiles(monkeypatch) -> list[int]:
    """Counts GraphBuilder.compile calls (each is one CompileGraph)."""
    from dmlsim.graph_builder import GraphBuilder

    calls: list[int] = []
    original = GraphBuilder.compile

    def counting(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(GraphBuilder, "compile", counting)
    return calls


def test_repeated_runs_with_the_same_shapes_do_not_recompile(device, compiles):
    """Same shapes and dtypes: one compile, and new input values are bound (outputs equal onnxruntime's for each);
    another sequence length compiles once more; the first shapes again reuse their graph."""
    model = ARCHITECTURES["transformer"].build(0)
    rep = backend.prepare(model, device)
    seq5a, seq5b = feeds(model, 1, {"batch": 2, "seq": 5}), feeds(model, 2, {"batch": 2, "seq": 5})
    seq6 = feeds(model, 3, {"batch": 2, "seq": 6})
    results = []
    for inputs, count in ((seq5a, 1), (seq5b, 1), (seq6, 2), (seq5a, 2)):
        (got,) = rep.run(inputs)
        assert len(compiles) == count
        (expected,) = onnxruntime_outputs(model, inputs)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
        results.append((got, got.copy()))
    assert rep.cache.compiles == 2
    for got, kept in results:  # a later run of the same graph does not overwrite an output already returned
        np.testing.assert_array_equal(got, kept)


def test_a_value_read_on_the_host_keys_the_cache(ref_device, compiles):
    """Reshape's shape given as a graph input is read on the host: another value is another lowering."""
    graph = helper.make_graph([helper.make_node("Reshape", ["x", "shape"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", F, [2, 6]),
                               helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
                              [helper.make_tensor_value_info("y", F, ["rows", "columns"])])
    rep = backend.prepare(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), ref_device)
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    for shape, count in (((3, 4), 1), ((4, 3), 2), ((3, 4), 2)):
        (y,) = rep.run({"x": x, "shape": np.array(shape, np.int64)})
        assert y.shape == shape and len(compiles) == count
        np.testing.assert_array_equal(y, np.arange(12).reshape(shape))


# --- dmlsim export model.onnx ---------------------------------------------------------------------------------
def _round_trip(tmp_path: Path, capsys, name: str, adapter: str, *extra: str) -> None:
    path = saved(tmp_path, name)
    status, out, err = run(capsys, "export", str(path), "-o", str(tmp_path / "export"), *extra)
    assert status == 0 and f"{tmp_path / 'export' / name}.json" in out, out + err
    document = __import__("json").loads((tmp_path / "export" / f"{name}.json").read_text())
    assert set(document) == {"resources", "dispatchables", "commands"}
    assert any(p.suffix == ".npy" for p in (tmp_path / "export" / "inputs").iterdir())
    if name != "mlp_train":  # its weights are graph inputs; the others' initializers are binary weight files
        assert any(p.suffix == ".npy" for p in (tmp_path / "export" / "weights").iterdir())
    status, out, err = run(capsys, "run", str(path), "-a", adapter, "--output_path", str(tmp_path / "direct"), *extra)
    assert status == 0, out + err
    status, out, err = run(capsys, "run", str(tmp_path / "export" / f"{name}.json"), "-a", adapter,
                           "--output_path", str(tmp_path / "exported"))
    assert status == 0, out + err
    model = onnx.load(path)
    for output in model.graph.output:
        direct = np.load(tmp_path / "direct" / f"{output.name}.npy")
        exported = np.load(tmp_path / "exported" / f"{output.name}.npy").reshape(direct.shape)
        np.testing.assert_array_equal(exported, direct, err_msg=output.name)  # the same kernels on the same bytes


@pytest.mark.parametrize("name", sorted(ARCHITECTURES))
def test_export_round_trip_on_the_reference_device(tmp_path, capsys, name):
    """Every architecture exported as a DxDispatch model (weights as .npy files) runs to the same outputs."""
    _round_trip(tmp_path, capsys, name, "reference", *(("--dim", "batch=2", "--dim", "seq=5")
                                                       if name == "transformer" else ()))


def test_export_round_trip_on_every_device(device, tmp_path, capsys):
    _round_trip(tmp_path, capsys, "recurrent", device.adapter.index)


# --- dmlsim bench onnx-resnet ---------------------------------------------------------------------------------
def test_bench_times_the_whole_model_against_onnxruntime(tmp_path):
    """The ResNet-style CNN as one compiled graph on an OpenCL device, with onnxruntime's CPU latency timed in the
    same run as its peer."""
    import json

    out = tmp_path / "bench.json"
    assert main(["bench", "onnx-resnet", "--sizes", "2", "--dtype", "float32", "--peers", "onnxruntime",
                 "--min-time", "0.05", "--no-native", "--no-overhead", "--json", str(out)]) == 0
    (point,) = json.loads(out.read_text())["points"]
    assert point.get("error") in (None, ""), point
    assert point["device_median_ns"] > 0 and point["item_unit"] == "images"
    assert "onnxruntime-cpu" in point["peers"]
