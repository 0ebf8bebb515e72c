"""benchmarks/target.py (``make bench-target``): issue 15's verdicts from a run's JSON, on hand-made points.

The figures here are made up to sit on either side of each threshold; what is checked is that the script
applies the issue's targets as written (CPU: host time per call against the native limit, and torch for
FLOAT32 Adam; GPU: device time against the copy bandwidth; dispatch overhead: at most 5 us added).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "target.py"


@pytest.fixture(scope="module")
def target():
    spec = importlib.util.spec_from_file_location("bench_target", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def point(operator="adam", dtype="float32", host_pct=95.0, torch=1.2, gbps=40.0, copy=None, step=None):
    peers = {"torch-fused-cpu": {"ratio": torch}} if torch is not None else {}
    if step is not None:
        peers["native-adam-step"] = {"ratio": step}
    return {"operator": operator, "dtype": dtype, "host_pct_native": host_pct, "gbps": gbps, "peers": peers,
            "roofline_gbps": copy, "cuda_copy_gbps": None}


def test_cpu_float32_adam_needs_both_the_native_limit_and_torch(target):
    assert target.verdict(point(host_pct=90.0, torch=1.0)).endswith(": met")
    assert target.verdict(point(host_pct=89.9, torch=1.5)).endswith("NOT met")
    assert target.verdict(point(host_pct=99.0, torch=0.99)).endswith("NOT met")
    assert target.verdict(point(host_pct=99.0, torch=None)).endswith("NOT met")  # no torch: not shown to be met


def test_cpu_float16_adam_is_judged_against_the_native_float16_step(target):
    assert target.verdict(point(dtype="float16", host_pct=50.0, torch=None, step=0.9)).endswith(": met")
    assert target.verdict(point(dtype="float16", host_pct=99.0, torch=None, step=0.89)).endswith("NOT met")
    assert "not measured" in target.verdict(point(dtype="float16", torch=None))


def test_onnx_points_need_four_fifths_of_the_native_limit_on_host_time(target):
    assert target.verdict(point("onnx-adam", host_pct=80.0, torch=None)).endswith(": met")
    assert target.verdict(point("onnx-adam", host_pct=79.0, torch=None)).endswith("NOT met")


def test_gemm_and_convolution_need_half_their_peer_torch_first_else_numpy(target):
    """Issue 25: >= 0.5x the peer of the same run; FLOAT16 GEMM and CONVOLUTION prefer torch, else numpy's float32
    (or numpy's im2col + matmul), and the verdict names the peer used."""
    def gemm(operator, dtype, peers):
        return {"operator": operator, "dtype": dtype, "peers": {k: {"ratio": r} for k, r in peers.items()}}
    assert target.verdict(gemm("gemm", "float32", {"numpy": 0.5})) == "0.50x, >= 0.5x numpy: met"
    assert target.verdict(gemm("gemm-skinny", "float32", {"numpy": 0.49})).endswith("NOT met")
    assert target.verdict(gemm("gemm", "float16", {"numpy": 0.6})) == "0.60x, >= 0.5x numpy: met"
    assert target.verdict(gemm("gemm", "float16", {"numpy": 0.6, "torch-cpu": 0.4})) == \
        "0.40x, >= 0.5x torch-cpu: NOT met"
    assert target.verdict(gemm("convolution", "float32", {"numpy-im2col": 0.7})) == "0.70x, >= 0.5x numpy-im2col: met"
    # issue 25's whole models: against onnxruntime's CPU provider
    assert target.verdict(gemm("onnx-resnet", "float32", {"onnxruntime-cpu": 0.14})) == \
        "0.14x, >= 0.5x onnxruntime-cpu: NOT met"
    assert target.verdict(gemm("onnx-transformer", "float32", {"onnxruntime-cpu": 0.5})).endswith(": met")
    assert "not measured" in target.verdict(gemm("convolution", "float32", {}))


def test_gpu_points_are_judged_on_device_time_against_the_copy_bandwidth(target):
    assert target.verdict(point(gbps=2550.0, copy=3000.0, host_pct=10.0), gpu=True).endswith(": met")
    assert target.verdict(point(gbps=2540.0, copy=3000.0, host_pct=100.0), gpu=True).endswith("NOT met")


def overhead_run(added_ns):
    return {"device": {"platform_version": "OpenCL 3.0 PoCL 3.1+debian"}, "points": [], "machine": {},
            "overhead": {"record+execute+wait": 30000.0 + added_ns, "execute+wait": 29000.0 + added_ns,
                         "pyopencl": 30000.0, "dmlsim_added": added_ns}}


def test_dispatch_overhead_target_is_five_microseconds_added(target):
    line = target.overhead_line(overhead_run(5000.0))
    assert line.startswith("pocl-3.1") and "dmlsim adds 5.00 us" in line and line.endswith(": met")
    assert target.overhead_line(overhead_run(5100.0)).endswith("NOT met")
    table = target.summary([overhead_run(1200.0)]).splitlines()
    assert len(table) == 1 and "bare pyopencl enqueue+finish 30.00 us" in table[0]


def test_dispatch_overhead_is_met_only_when_its_interval_is_within_the_target(target):
    def run(added, low, high):
        record = overhead_run(added)
        record["overhead"].update(dmlsim_added_low=low, dmlsim_added_high=high, rounds=20000.0)
        return record
    line = target.overhead_line(run(3000.0, 2500.0, 5000.0))
    assert "95 % interval 2.50 to 5.00 us, 20000 rounds" in line and line.endswith("us: met")
    assert target.overhead_line(run(4900.0, 4000.0, 5600.0)).endswith("met at the median only (its 95 % interval "
                                                                         "reaches past)")
    assert target.overhead_line(run(5200.0, 4900.0, 5600.0)).endswith("NOT met")


def test_gpu_gemm_and_convolution_are_judged_on_device_time_against_cublas_and_cudnn(target):
    """On a GPU the yardstick is torch's CUDA peer (cuBLAS / cuDNN FLOAT32 without TF32), which reports its own
    CUDA-event duration: the ratio is that duration over dmlsim's device time, not the host-time ratio."""
    def gpu_point(operator, cuda_ns, device_ns):
        return {"operator": operator, "dtype": "float32", "device_median_ns": device_ns,
                "peers": {"torch-cuda": {"median_ns": cuda_ns, "ratio": 0.01}, "numpy": {"ratio": 9.0}}}

    assert target.verdict(gpu_point("gemm", 50.0, 100.0), gpu=True) == "0.50x, >= 0.5x torch-cuda on device time: met"
    assert target.verdict(gpu_point("gemm-skinny", 49.0, 100.0), gpu=True).endswith("NOT met")
    assert target.verdict(gpu_point("convolution", 80.0, 100.0), gpu=True) == \
        "0.80x, >= 0.5x torch-cuda on device time: met"
    no_peer = {"operator": "gemm", "dtype": "float32", "device_median_ns": 100.0, "peers": {}}
    assert target.verdict(no_peer, gpu=True) == "torch-cuda on device time not measured"
