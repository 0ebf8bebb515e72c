"""Functional tests of the bench engine and ``dmlsim bench`` (structure, not timings)."""

from __future__ import annotations

import copy
import csv
import ctypes
import json

import numpy as np
import pytest

import dmlsim as dml
from dmlsim.bench.engine import GPU_NATIVE_NOTE, BenchConfig, BenchRun, PeerResult, Point, native_limit, run_bench
from dmlsim.bench.native import NativeTraffic, NativeUnavailableError
from dmlsim.bench.plot import plot_data, plot_title, write_plot
from dmlsim.bench.registry import CASES, BenchCase, Traffic, discover
from dmlsim.bench.report import parse_size, size_label
from dmlsim.cli import main

OPENCL = [a for a in dml.all_adapters() if a.kind != "reference"]
needs_opencl = pytest.mark.skipif(not OPENCL, reason="dmlsim bench times OpenCL devices; none is installed here")
QUICK = ["--sizes", "1K", "--dtype", "float32", "--min-time", "0", "--warmup", "0"]


def test_sizes_parse_and_label_in_binary_units():
    assert [parse_size(s) for s in ("1K", "64k", "16M", "1000")] == [1024, 65536, 1 << 24, 1000]
    assert [size_label(n) for n in (1024, 1 << 24, 1000)] == ["1K", "16M", "1000"]
    with pytest.raises(ValueError):
        parse_size("0K")


def test_every_operator_has_a_case():
    assert {"adam", "onnx-adagrad", "onnx-adam", "onnx-momentum", "adagrad-decay",
            "adagrad-decay-sparse", "add", "gemm"} <= set(discover())


@pytest.mark.parametrize("case, size, unit", [("add", "1024", None), ("gemm", "16", "FLOP")])
def test_element_wise_and_gemm_cases_measure(case, size, unit, tmp_path):
    """The element-wise streaming case and GEMM (with its FLOP rate) run end to end on an OpenCL device."""
    import json

    out = tmp_path / "bench.json"
    assert main(["bench", case, "--sizes", size, "--dtype", "float32", "--peers", "numpy", "--min-time", "0.05",
                 "--json", str(out)]) == 0
    points = json.loads(out.read_text())["points"]
    assert len(points) == 1 and points[0].get("error") in (None, "")
    assert points[0]["device_median_ns"] > 0 and "numpy" in points[0]["peers"]
    assert points[0]["item_unit"] == unit


@pytest.mark.parametrize("case, size, peer, planned", [
    ("convolution", "2", "numpy-im2col", "resnet50-1x1-256-64 float32: planner chose gemm"),
    ("gemm-skinny", "1", "numpy", "1x2048x2048 float32: planner chose gemm"),
])
def test_convolution_and_skinny_gemm_cases_note_the_planners_choice(case, size, peer, planned, tmp_path):
    """Issue 25's cases run end to end and record which kernel the planner chose for the point (a GEMM kernel:
    gemm_blocked on CPU devices, gemm/gemm_tiled on others), beside their labelled peer."""
    import json

    out = tmp_path / "bench.json"
    assert main(["bench", case, "--sizes", size, "--dtype", "float32", "--peers", "numpy", "--min-time", "0.05",
                 "--no-overhead", "--no-native", "--json", str(out)]) == 0
    (point,) = json.loads(out.read_text())["points"]
    assert point.get("error") in (None, "") and peer in point["peers"] and point["item_unit"] == "FLOP"
    assert any(planned in note for note in point["notes"]), point["notes"]


@pytest.mark.parametrize("case, size, peer, traffic_bytes", [
    ("reduce-sum-middle", "64", "numpy", 64 * 64 * 4), ("softmax1", "64", "numpy", 2 * 64 * 64 * 4),
    ("max-pooling", "1", "torch", 2 * 64 * 56 * 56 * 4)])
def test_memory_bound_cases_measure_against_their_limits(case, size, peer, traffic_bytes, tmp_path):
    """Issue 25's memory-bound cases (one of each module's two) run end to end beside their peer (torch's only
    where it is installed) and both same-traffic limits: a reduction's traffic is its input read (its 64 outputs
    left out), a softmax's its input read and output written, a 3 x 3 / 1 pooling's the same (its output the input's
    size)."""
    import json

    out = tmp_path / "bench.json"
    assert main(["bench", case, "--sizes", size, "--dtype", "float32", "--no-inplace", "--peers", peer,
                 "--min-time", "0.05", "--no-overhead", "--json", str(out)]) == 0
    (point,) = json.loads(out.read_text())["points"]
    assert point.get("error") in (None, "")
    assert any(name.startswith(peer) for name in point["peers"]) or "torch: not installed" in point["notes"]
    assert point["bytes_moved"] == traffic_bytes and point["traffic_gbps"] > 0


def test_list_shows_each_case_with_its_default_sizes(capsys):
    assert main(["bench", "--list"]) == 0
    printed = capsys.readouterr().out
    assert "onnx-adam" in printed and "default sizes 4K,256K,4000K" in printed
    assert "adagrad-decay-sparse" in printed and "indices into 1M x 64 rows" in printed


def test_onnx_sizes_split_into_4096_element_tensors():
    from dmlsim.bench.cases.onnx_training import tensor_sizes

    assert tensor_sizes(4000 << 10) == [4096] * 1000
    assert tensor_sizes(10000) == [4096, 4096, 1808]
    assert tensor_sizes(100) == [100]


@needs_opencl
def test_cli_prints_table_and_writes_json_and_csv(tmp_path, capsys):
    out_json, out_csv = tmp_path / "run.json", tmp_path / "run.csv"
    code = main(["bench", *QUICK, "--adapter", OPENCL[0].index, "--peers", "numpy",
                 "--json", str(out_json), "--csv", str(out_csv)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "% native" in printed and "% CL" in printed and "% copy" in printed
    assert "dispatch overhead" in printed and "driver" in printed
    run = json.loads(out_json.read_text())
    assert run["device"]["driver"] and run["machine"]["cpu"]
    (point,) = run["points"]
    assert point["error"] is None and point["elements"] == 1024 and point["bytes_moved"] == 28 * 1024
    assert point["rounds"] >= 5 and point["device_min_ns"] <= point["device_median_ns"] <= point["device_max_ns"]
    assert point["host_min_ns"] <= point["host_median_ns"] <= point["host_max_ns"]
    peer = point["peers"]["numpy-reference"]
    assert peer["host_min_ns"] <= peer["host_median_ns"] <= peer["host_max_ns"]
    assert point["device_cold_ns"] > 0 and point["host_median_ns"] > 0 and point["roofline_gbps"] > 0
    assert set(point["peers"]) == {"numpy-reference"}
    overhead = run["overhead"]
    assert set(overhead) == {"record+execute+wait", "execute+wait", "pyopencl", "dmlsim_added", "dmlsim_added_low",
                             "dmlsim_added_high", "rounds"}
    assert overhead["dmlsim_added"] == overhead["record+execute+wait"] - overhead["pyopencl"]
    assert overhead["dmlsim_added_low"] <= overhead["dmlsim_added_high"] and overhead["rounds"] >= 200
    assert "95 % interval" in printed and "shuffled rounds" in printed
    rows = list(csv.DictReader(out_csv.open()))
    assert len(rows) == 1 and rows[0]["dtype"] == "float32" and float(rows[0]["gbps"]) > 0
    assert "numpy-reference_ratio" in rows[0]


@needs_opencl
def test_plot_is_a_png(tmp_path):
    pytest.importorskip("matplotlib", reason="--plot needs the optional matplotlib (dmlsim[plot])")
    png = tmp_path / "run.png"
    assert main(["bench", *QUICK, "--adapter", OPENCL[0].index, "--peers", "none", "--no-overhead",
                 "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


PLATFORM_VERSION = "OpenCL 3.0 PoCL 3.0-rc2  Linux, Release, RELOC, LLVM 14.0.6, SLEEF, DISTRO, POCL_DEBUG"


def synthetic_point(operator, elements, roofline_gbps):
    """A point whose rates are round numbers: device 2 GB/s (fastest round 4, slowest 1), host 0.5, numpy 0.25."""
    moved = 28 * elements
    peer = PeerResult(median_ns=moved / 0.25, gbps=0.25, ratio=0.5, host_median_ns=moved / 0.25,
                      host_min_ns=moved / 0.5, host_max_ns=moved / 0.125)
    return Point(operator, "float32", elements, True, bytes_moved=moved, rounds=5, device_median_ns=moved / 2,
                 device_min_ns=moved / 4, device_max_ns=moved / 1, host_median_ns=moved / 0.5,
                 host_min_ns=moved / 1, host_max_ns=moved / 0.25, gbps=2.0, roofline_gbps=roofline_gbps,
                 peers={"numpy-reference": peer})


def synthetic_run():
    device = {"adapter": "0:0 pthread-AMD EPYC", "device": "pthread-AMD EPYC",
              "platform": "Portable Computing Language",
              "platform_version": PLATFORM_VERSION, "driver": "3.0-rc2", "compute_units": "16"}
    points = [synthetic_point("adam", 4096, 10.0), synthetic_point("adam", 1024, 10.0),  # sizes out of order
              synthetic_point("onnx-adam", 1024, 20.0), synthetic_point("onnx-adam", 4096, 20.0),
              Point("onnx-adam", "float32", 512, True, error="RuntimeError: no workload")]
    return BenchRun(BenchConfig(operators=("adam", "onnx-adam")), device, {}, points=points)


def test_the_plot_keeps_device_and_host_time_apart_with_one_roofline_per_operator():
    data = plot_data(synthetic_run())
    device, host = data.device.series, data.host.series
    assert set(device) == {"dmlsim adam float32", "copy roofline adam float32",
                           "dmlsim onnx-adam float32", "copy roofline onnx-adam float32"}
    assert set(host) == {"dmlsim adam float32", "dmlsim onnx-adam float32",
                         "numpy-reference (adam float32)", "numpy-reference (onnx-adam float32)"}
    for series in [*device.values(), *host.values()]:
        assert series.sizes == [1024, 4096]  # in order; the failed 512-element point is left out
    assert device["copy roofline adam float32"].gbps == [10.0, 10.0]
    assert device["copy roofline onnx-adam float32"].gbps == [20.0, 20.0]
    ours = device["dmlsim adam float32"]
    assert ours.gbps == pytest.approx([2.0, 2.0])
    assert ours.low == pytest.approx([1.0, 1.0]) and ours.high == pytest.approx([4.0, 4.0])  # the spread
    ours = host["dmlsim onnx-adam float32"]
    assert ours.gbps == pytest.approx([0.5, 0.5])
    assert ours.low == pytest.approx([0.25, 0.25]) and ours.high == pytest.approx([1.0, 1.0])
    numpy = host["numpy-reference (adam float32)"]
    assert numpy.gbps == pytest.approx([0.25, 0.25])
    assert numpy.low == pytest.approx([0.125, 0.125]) and numpy.high == pytest.approx([0.5, 0.5])


def test_the_plot_title_names_operators_layout_and_device_not_the_driver_string():
    title = plot_data(synthetic_run()).title
    assert title == "adam, onnx-adam · in place · pthread-AMD EPYC (Portable Computing Language)"
    run = synthetic_run()
    for point in run.points:
        point.inplace = point.operator == "adam"
    assert " · in place and out of place · " in plot_title(run)


def test_the_plot_is_written_from_a_run(tmp_path):
    pytest.importorskip("matplotlib", reason="--plot needs the optional matplotlib (dmlsim[plot])")
    png = tmp_path / "run.png"
    write_plot(synthetic_run(), png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


class _FailsAtOddSizes(BenchCase):
    name = "test-fails-at-odd-sizes"
    dtypes = ("float32",)

    def workload(self, device, dtype, elements, inplace, peers):
        if elements % 2:
            raise RuntimeError(f"no workload for {elements} elements")
        return discover()["adam"]().workload(device, dtype, elements, inplace, ())


@needs_opencl
def test_an_error_in_one_point_is_recorded_and_the_sweep_goes_on(monkeypatch):
    monkeypatch.setitem(CASES, _FailsAtOddSizes.name, _FailsAtOddSizes)
    config = BenchConfig(operators=(_FailsAtOddSizes.name,), adapter=OPENCL[0].index, sizes=(7, 64),
                         warmup=0, min_time=0, peers=(), overhead=False)
    run = run_bench(config)
    failed, measured = run.points
    assert failed.error == "RuntimeError: no workload for 7 elements" and failed.gbps is None
    assert measured.error is None and measured.gbps > 0


@needs_opencl
@pytest.mark.parametrize("op, accesses", [("onnx-adagrad", 5), ("onnx-adam", 7), ("onnx-momentum", 5)])
def test_onnx_cases_time_the_fused_dispatch_against_one_dispatch_per_tensor(op, accesses):
    config = BenchConfig(operators=(op,), adapter=OPENCL[0].index, sizes=(3 * 4096 + 5,), dtypes=("float32",),
                         warmup=0, min_time=0, peers=("numpy",), overhead=False)
    (point,) = run_bench(config).points
    assert point.error is None and point.gbps > 0
    assert point.bytes_moved == accesses * 4 * (3 * 4096 + 5)
    assert {"dmlsim-per-tensor", "dmlsim-per-tensor-calls", "numpy-reference"} <= set(point.peers)
    assert any("4 tensor(s)" in note for note in point.notes)


@needs_opencl
def test_adagrad_decay_cases_report_bandwidth_and_sparse_rows_per_second(monkeypatch):
    from dmlsim.bench.cases import adagrad_decay

    monkeypatch.setattr(adagrad_decay, "TABLE_ROWS", 8192)  # the 1M-row table is the benchmark's, not the test's
    config = BenchConfig(operators=("adagrad-decay", "adagrad-decay-sparse"), adapter=OPENCL[0].index,
                         sizes=(1024,), dtypes=("float32",), inplace=False, warmup=0, min_time=0, peers=("numpy",),
                         overhead=False)
    dense, sparse = run_bench(config).points
    assert dense.error is None and sparse.error is None
    assert dense.bytes_moved == 20 * 1024 and dense.items_per_s is None and not dense.inplace
    assert sparse.item_unit == "rows" and sparse.items_per_s == pytest.approx(1024 / sparse.device_median_ns * 1e9)
    assert sparse.inplace  # the sparse case runs in place whatever was asked, and says so
    assert set(dense.peers) == set(sparse.peers) == {"numpy-reference"}


def test_a_data_type_none_of_the_chosen_cases_takes_is_refused(capsys):
    assert main(["bench", "adam", "--dtype", "float64", "--adapter", "reference"]) == 2
    assert "--dtype: float64: not a data type of adam (they take float16, float32)" in capsys.readouterr().err


def test_unknown_operator_and_bad_arguments_exit_2(capsys):
    assert main(["bench", "no-such-op", *QUICK, "--adapter", "reference"]) == 2
    assert main(["bench", "--sizes", "big"]) == 2
    assert main(["bench", "--peers", "matlab"]) == 2
    assert "unknown peer" in capsys.readouterr().err


def test_reference_adapter_is_refused_with_a_reason(capsys):
    assert main(["bench", *QUICK, "--adapter", "reference"]) == 2
    assert "needs an OpenCL adapter" in capsys.readouterr().err


# --- the same-traffic limits ------------------------------------------------------------------------------
def expected_traffic(inputs, writes):
    """What both same-traffic kernels write: output k = input k + the sum of all inputs (modulo 2^bits)."""
    total = sum(inputs[1:], inputs[0].copy())
    return [inputs[k % len(inputs)] + total for k in range(writes)]


@pytest.mark.parametrize("traffic", [Traffic(4, 3, 4, 1 << 16, True), Traffic(2, 1, 2, 1000, False),
                                     Traffic(3, 2, 8, 77, True)], ids=str)
def test_the_native_kernel_reads_every_input_and_writes_every_output(traffic):
    try:
        native = NativeTraffic(traffic)
    except NativeUnavailableError as exc:
        pytest.skip(f"the native limit cannot be built here: {exc}")
    try:
        before = [native.array(k).copy() for k in range(traffic.reads)]
        assert all(not np.array_equal(before[0], b) for b in before[1:])  # distinct contents: a swap would show
        assert native.run() > 0
        first_output = 0 if traffic.inplace else traffic.reads
        after = [native.array(first_output + k) for k in range(traffic.writes)]
        for got, want in zip(after, expected_traffic(before, traffic.writes), strict=True):
            np.testing.assert_array_equal(got, want)
        if not traffic.inplace:  # out of place, the inputs stay as they were
            for k in range(traffic.reads):
                np.testing.assert_array_equal(native.array(k), before[k])
    finally:
        native.release()


def test_the_native_reduction_traffic_reads_every_input_element():
    """WRITES=0 (a reduction's traffic, issue 25): the sum of every input element lands in traffic_sink."""
    traffic = Traffic(2, 0, 4, 4099, False)
    try:
        native = NativeTraffic(traffic)
    except NativeUnavailableError as exc:
        pytest.skip(f"the native limit cannot be built here: {exc}")
    try:
        total = sum(int(native.array(k).astype(np.uint64).sum()) for k in range(traffic.reads)) % 2**32
        assert native.run() > 0
        assert ctypes.c_uint32.in_dll(native.lib, "traffic_sink").value == total
    finally:
        native.release()


def test_without_a_c_compiler_the_native_limit_is_skipped_with_the_reason(monkeypatch):
    monkeypatch.setenv("CC", "")
    monkeypatch.setenv("PATH", "")
    notes: list[str] = []
    assert native_limit(Traffic(2, 1, 4, 64, True), True, notes) is None
    assert notes == ["native limit skipped: no C compiler (cc/gcc) on PATH"]


def test_traffic_counts_its_bytes_and_refuses_what_is_not_a_stream():
    assert Traffic(4, 3, 2, 10, True).bytes_moved == 7 * 2 * 10
    with pytest.raises(ValueError, match="in place is not a stream"):
        Traffic(1, 2, 4, 10, True)
    with pytest.raises(ValueError, match="element size 3"):
        Traffic(1, 1, 3, 10, False)


@needs_opencl
@pytest.mark.parametrize("traffic", [Traffic(4, 3, 4, 4099, True), Traffic(2, 1, 2, 1000, False)], ids=str)
def test_the_opencl_same_traffic_kernel_moves_exactly_the_points_arrays(traffic):
    from dmlsim.backends.opencl.roofline import SameTraffic

    device = dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, OPENCL[0].index)
    backend = device.backend
    same = SameTraffic(backend, traffic.reads, traffic.writes, traffic.element_size, traffic.elements,
                       traffic.inplace)
    dtype = np.dtype(f"u{same.element_size}")  # the word the kernel adds in: 2-byte elements go as 4-byte words
    assert same.element_size == (4 if traffic.element_size == 2 else traffic.element_size)
    try:
        rng = np.random.default_rng(1)
        words = traffic.elements * traffic.element_size // dtype.itemsize
        before = [rng.integers(0, 1000, words).astype(dtype) for _ in range(traffic.reads)]
        for buffer, data in zip(same.buffers, before, strict=False):
            backend.write(buffer, 0, data)
        for kernel in same.kernels:  # every variant (vector width, chunked or grid-stride) from fresh inputs
            for buffer, data in zip(same.buffers, before, strict=False):
                backend.write(buffer, 0, data)
            assert kernel.run() > 0
            first_output = 0 if traffic.inplace else traffic.reads
            for k, want in enumerate(expected_traffic(before, traffic.writes)):
                got = np.frombuffer(backend.read(same.buffers[first_output + k], 0, want.nbytes), dtype)
                np.testing.assert_array_equal(got, want, err_msg=kernel.label)
    finally:
        same.release()


@needs_opencl
def test_the_opencl_reduction_traffic_reads_every_input_element():
    """WRITES=0 (a reduction's traffic, issue 25): every variant's work-items leave partial sums in their own sink
    buffer (d0), which add up to the sum of every input element, the tail past the last vector included."""
    from dmlsim.backends.opencl.roofline import SameTraffic

    device = dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, OPENCL[0].index)
    backend = device.backend
    same = SameTraffic(backend, 1, 0, 4, 4099, False)
    try:
        data = np.random.default_rng(2).integers(0, 1000, 4099).astype(np.uint32)
        backend.write(same.buffers[0], 0, data)
        sinks = same.buffers[1:]
        assert len(sinks) == len(same.kernels)
        for kernel, sink in zip(same.kernels, sinks, strict=True):
            backend.write(sink, 0, np.zeros(sink.size // 4, np.uint32))
            assert kernel.run() > 0
            partials = np.frombuffer(backend.read(sink, 0, sink.size), np.uint32)
            assert int(partials.astype(np.uint64).sum()) % 2**32 == int(data.astype(np.uint64).sum()), kernel.label
    finally:
        same.release()


@needs_opencl
def test_a_point_reports_both_same_traffic_limits():
    config = BenchConfig(operators=("adam",), adapter=OPENCL[0].index, sizes=(4096,), dtypes=("float16",),
                         warmup=0, min_time=0, peers=(), overhead=False)
    run = run_bench(config)
    (point,) = run.points
    assert point.error is None and point.traffic_gbps > 0 and point.traffic_kernel.startswith("uint")
    assert point.pct_traffic == pytest.approx(100 * point.gbps / point.traffic_gbps)
    if run.device["kind"] == "GPU":
        assert point.native_gbps is None and GPU_NATIVE_NOTE in point.notes
    elif point.native_gbps is None:
        assert any(note.startswith("native limit skipped: ") for note in point.notes)
    else:
        assert point.pct_native == pytest.approx(100 * point.gbps / point.native_gbps) and point.host_pct_native > 0


@needs_opencl
def test_on_a_gpu_the_host_native_limits_give_way_to_the_devices_own_copy(monkeypatch):
    """A GPU point has no native limit or peer (C on the host measures host memory), gets the CUDA copy
    where torch sees the same GPU, else a note saying why not, and flushes the caches before every timed call.
    The GPU is this device with its kind forced."""
    from dmlsim.backends.opencl.roofline import CacheFlush
    from dmlsim.bench.cases.adam_optimizer import AdamCase
    from dmlsim.bench.engine import measure_point

    flushes: list[int] = []
    flush = CacheFlush.__call__
    monkeypatch.setattr(CacheFlush, "__call__", lambda self: (flushes.append(1), flush(self))[1])
    device = dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, OPENCL[0].index)
    device.backend.is_gpu = True
    config = BenchConfig(warmup=0, min_time=0, min_rounds=2, peers=("native",))
    point = measure_point(device, AdamCase(), "float32", 4096, config)
    assert point.error is None and point.gbps > 0
    contestants = 3 + (point.cuda_copy_gbps is not None)  # dmlsim, the OpenCL same traffic and copy, CUDA's copy
    # the cold call, and every timed one with the settle calls before it
    assert len(flushes) == (point.rounds * (1 + config.settle) + 1) * contestants
    assert point.native_gbps is None and "native-adam-step" not in point.peers and GPU_NATIVE_NOTE in point.notes
    if point.cuda_copy_gbps is None:
        assert any(note.startswith("CUDA copy left out: ") for note in point.notes), point.notes
    else:
        assert point.pct_cuda_copy == pytest.approx(100 * point.gbps / point.cuda_copy_gbps)


def test_the_cuda_copy_is_refused_for_a_device_torch_does_not_see():
    from dmlsim.bench.cuda_copy import CudaCopy, CudaCopyUnavailableError

    with pytest.raises(CudaCopyUnavailableError, match=r"not installed|is not this OpenCL device"):
        CudaCopy("no such GPU", 1 << 20)


@pytest.mark.parametrize("dtype, ulps", [(np.float32, 8), (np.float16, 1)], ids=["float32", "float16"])
def test_the_native_adam_step_computes_directmls_formula(dtype, ulps):
    from dmlsim.bench.cases.adam_optimizer import NativeAdamStep

    n, t = 1003, 7  # a ragged tail after the 8-element blocks
    # the bench's hyperparameters as the kernel sees them: float32 values
    lr, b1, b2, eps = (float(np.float32(h)) for h in (1e-3, 0.9, 0.999, 1e-8))
    rng = np.random.default_rng(5)
    host = {"x": rng.standard_normal(n).astype(dtype), "m": (0.1 * rng.standard_normal(n)).astype(dtype),
            "v": (0.01 * np.abs(rng.standard_normal(n))).astype(dtype), "g": rng.standard_normal(n).astype(dtype)}
    try:
        native = NativeAdamStep(host, step=t)
    except NativeUnavailableError as exc:
        pytest.skip(f"the native Adam step cannot be built here: {exc}")
    try:
        assert native.run() > 0
        x0, m0, v0, g = (host[k].astype(np.float64) for k in ("x", "m", "v", "g"))
        m = b1 * m0 + (1 - b1) * g  # DirectML's formula, in float64
        v = b2 * v0 + (1 - b2) * g * g
        rate = lr * np.sqrt(1 - b2**t) / (1 - b1**t)
        x = x0 - rate * m / (np.sqrt(v) + eps)
        # within a few ulps of the formula run on magnitudes (every term added with the same sign): the size
        # of the largest quantity whose float32 rounding can show in the result, cancellation included
        m_size = b1 * np.abs(m0) + (1 - b1) * np.abs(g)
        scales = {"m": m_size, "v": v, "x": np.abs(x0) + rate * m_size / (np.sqrt(v) + eps)}
        for name, want in (("x", x), ("m", m), ("v", v)):
            got = native.array(name).astype(np.float64)
            spacing = np.spacing(np.maximum(scales[name], np.abs(want)).astype(dtype)).astype(np.float64)
            assert np.all(np.abs(got - want) <= ulps * spacing), name
        np.testing.assert_array_equal(native.array("g"), host["g"])  # the gradient is only read
    finally:
        native.release()


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_bench_inputs_are_drawn_without_large_temporaries(dtype):
    """Bench inputs are drawn chunk by chunk into their arrays: a float64 temporary freed just before a
    workload's buffers are allocated left them on memory that streamed at half speed (dmlsim/bench/data.py)."""
    import tracemalloc

    from dmlsim.bench.data import CHUNK, normal
    count = 16 * CHUNK + 12345
    tracemalloc.start()
    try:
        values = normal(np.random.default_rng(0), count, dtype, scale=0.5, absolute=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert values.dtype == dtype and values.shape == (count,)
    draw_size = 8 if dtype == np.float64 else 4  # float32 draws, float64 ones for FLOAT64
    assert peak <= values.nbytes + 3 * CHUNK * draw_size, peak  # at most a few chunks beside the array
    # |0.5 N(0, 1)|: mean 0.5 * sqrt(2 / pi), every value drawn (none left at np.empty's garbage)
    assert np.all(values >= 0) and np.all(np.isfinite(values))
    assert abs(float(values.astype(np.float64).mean()) - 0.5 * np.sqrt(2 / np.pi)) < 0.01
    assert abs(float(values[-12345:].astype(np.float64).mean()) - 0.5 * np.sqrt(2 / np.pi)) < 0.02


def test_alternate_runs_before_ahead_of_every_call_untimed():
    from dmlsim.bench.timing import alternate

    log: list[str] = []
    samples = alternate({"a": lambda: log.append("a"), "b": lambda: log.append("b")}, warmup=1, min_time=0,
                        min_rounds=2, before=lambda: log.append("flush"))
    assert log == ["flush", "a", "flush", "b"] * 4  # cold, warm-up, two timed rounds
    assert len(samples["a"].ns) == 2


def test_the_native_limit_is_in_both_panels_with_one_colour_per_dtype_and_bands_for_dmlsim_only():
    """Issue 30 item 6: the native limit (the table's yardstick) is drawn in the device panel too; float16 has
    one colour in both panels; only dmlsim's own series get a band (six peers' bands were unreadable)."""
    from dmlsim.bench.plot import series_style

    run = synthetic_run()
    for point in run.points:
        point.native_gbps = 30.0 if point.operator == "adam" else 40.0
    half = copy.deepcopy([p for p in run.points if p.operator == "adam"])
    for point in half:
        point.dtype = "float16"
    run.points += half
    data = plot_data(run)
    for panel in (data.device, data.host):
        assert panel.series["native limit adam float32"].gbps == [30.0, 30.0]
        assert panel.series["native limit onnx-adam float32"].gbps == [40.0, 40.0]
    colours = {}
    for panel in (data.device, data.host):
        for series in panel.series.values():
            style = series_style(series)
            colours.setdefault(series.of.rsplit(" ", 1)[-1], set()).add(style["color"])
            assert style["band"] == (series.kind == "dmlsim"), series.label
    assert colours == {"float32": {"tab:blue"}, "float16": {"tab:orange"}}
    peers = [s for s in data.host.series.values() if s.kind == "peer"]
    assert {series_style(s)["linestyle"] for s in peers} == {":"}
    assert series_style(data.device.series["native limit adam float32"])["linestyle"] == "-."


@needs_opencl
@pytest.mark.parametrize(("given", "expected"), [(None, "4"), ("9", "9")])
def test_bench_command_runs_with_openblas_threads_sleeping(tmp_path, given, expected):
    """`dmlsim bench` restarts itself once with OPENBLAS_THREAD_TIMEOUT 4 (OpenBLAS reads it when numpy loads; its
    threads would otherwise spin ~0.1 s after each numpy peer call on the cores the next contestant needs), and
    keeps a value the user set. The run's record says which it ran with."""
    import os
    import subprocess
    import sys

    from dmlsim.bench.engine import BLAS_SPIN

    env = {k: v for k, v in os.environ.items() if k != BLAS_SPIN}
    if given is not None:
        env[BLAS_SPIN] = given
    out = tmp_path / "run.json"
    subprocess.run([sys.executable, "-m", "dmlsim", "bench", *QUICK, "--adapter", OPENCL[0].index, "--peers", "none",
                    "--no-native", "--no-overhead", "--json", str(out)], env=env, check=True, capture_output=True,
                   timeout=300)
    run = json.loads(out.read_text())
    assert run["machine"]["openblas_thread_timeout"] == expected


def test_bench_called_in_process_does_not_restart(monkeypatch):
    """Only a `dmlsim bench` process restarts itself: a caller of the CLI's `main` (a test, a script) is never
    replaced, whatever its own command line."""
    import os

    from dmlsim.bench.engine import BLAS_SPIN
    from dmlsim.cli import bench as bench_cli

    monkeypatch.delenv(BLAS_SPIN, raising=False)
    monkeypatch.setattr(os, "execve", lambda *a: pytest.fail(f"restarted: {a[1]}"))
    for argv in (["pytest", "tests"], ["/usr/bin/python3", "bench"], ["/x/dmlsim", "run", "model.json"]):
        monkeypatch.setattr("sys.argv", argv)
        bench_cli.quiet_blas_restart()
    monkeypatch.setattr("sys.argv", ["/x/bin/dmlsim", "bench"])
    with pytest.raises(pytest.fail.Exception, match="restarted"):
        bench_cli.quiet_blas_restart()


def test_a_size_past_the_machines_memory_is_refused_before_any_allocation():
    """A point whose tensors, held a few times over, exceed the memory available is refused with a message naming
    the case, the size, what it needs and what to do (max pooling at batch 4096: 3.3 GB a tensor, which the
    out-of-memory killer ended with no word); a point that fits, or a case of fixed shapes, is not."""
    from dmlsim.bench.engine import FOOTPRINT_COPIES, too_large

    cases = discover()
    pooling = cases["max-pooling"]()
    assert pooling.footprint("float32", 4096) == 2 * 4096 * 64 * 56 * 56 * 4
    message = too_large(pooling, "float32", 4096, 24 << 30)
    assert message is not None and "max-pooling at size 4096" in message and "--sizes" in message
    assert "batch N" in message and "24.0 GiB available" in message
    assert too_large(pooling, "float32", 32, 24 << 30) is None
    need = cases["softmax"]().footprint("float16", 1000)
    assert need == 2 * 1000 * 1000 * 2
    assert too_large(cases["softmax"](), "float16", 1000, need * FOOTPRINT_COPIES) is None
    assert too_large(cases["softmax"](), "float16", 1000, need * FOOTPRINT_COPIES - 1) is not None
    assert cases["gemm"]().footprint("float32", 100) == 3 * 100 * 100 * 4
    assert cases["gemm-skinny"]().footprint("float16", 1) == (2 + 2048) * 2048 * 2
    assert cases["adam"]().footprint("float32", 1 << 20) == 7 * 4 << 20
    assert cases["convolution"]().footprint("float32", 3) is None
    assert too_large(pooling, "float32", 4096, None) is None  # memory unknown: nothing refused


@needs_opencl
def test_bench_refuses_a_point_too_large_in_its_table(monkeypatch, capsys):
    """The refusal is the point's error in the table and the exit status (the run goes on to the next point), and
    nothing of the point is built."""
    import dmlsim.bench.engine as engine

    monkeypatch.setattr(engine, "available_memory", lambda: 1 << 30)
    built: list[int] = []
    monkeypatch.setattr(discover()["max-pooling"], "workload", lambda *a: built.append(1))
    assert main(["bench", "max-pooling", "--sizes", "256", *QUICK[2:], "--adapter", OPENCL[0].index, "--peers",
                 "none", "--no-overhead", "--no-native"]) == 1
    printed = capsys.readouterr().out
    assert "ERROR: max-pooling at size 256 holds about 0.4 GiB" in printed and not built  # 2 x 206 MB
