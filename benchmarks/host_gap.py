"""Whose is the host time an ONNX multi-tensor dispatch spends beyond its device time: dmlsim's or the driver's.

On the OpenCL device the loader finds first (choose the implementation with ``OCL_ICD_VENDORS``), the ONNX
Adam dispatch of ``make bench-target`` (1000 x 4096 FLOAT32, in place) runs two ways in shuffled alternating
rounds: through dmlsim (RecordDispatch + ExecuteCommandLists + WaitForIdle) and as a bare pyopencl
enqueue + finish of the very same prepared kernel. Each prints its host time per call, its device time
(profiling events), the gap between them, and how long the host took to hand the work over (dmlsim: Reset +
RecordDispatch + ExecuteCommandLists; bare: the enqueue call), medians; equal gaps say the gap is the
implementation's.

Usage: OCL_ICD_VENDORS=<icd> python benchmarks/host_gap.py [--rounds N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

import dmlsim as dml
from dmlsim.bench.cases.onnx_training import OnnxAdamCase
from dmlsim.bench.timing import alternate


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300, help="timed rounds of each (default 300)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    device = dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, None)
    work = OnnxAdamCase().workload(device, "float32", 4000 * 1024, True, ())
    backend = device.backend
    (launch,) = work.table.resolved(backend).prepared
    cl, queue = backend.cl, backend.queue

    recorder, command_list = device.CreateCommandRecorder(), device.CreateCommandList()
    dml_queue = device.CreateCommandQueue()
    handover: dict[str, list[int]] = {"dmlsim": [], "bare pyopencl": []}

    def through_dmlsim() -> float:
        start = time.perf_counter_ns()
        command_list.Reset()
        recorder.RecordDispatch(command_list, work.compiled, work.table)
        dml_queue.ExecuteCommandLists([command_list])
        handover["dmlsim"].append(time.perf_counter_ns() - start)
        dml_queue.WaitForIdle()
        return float(sum(t.device_ns for t in dml_queue.last_timings))

    def bare() -> float:
        start = time.perf_counter_ns()
        event = cl.enqueue_nd_range_kernel(queue, launch.kernel, launch.global_size, launch.local_size)
        handover["bare pyopencl"].append(time.perf_counter_ns() - start)
        queue.finish()
        return float(event.profile.end - event.profile.start)

    samples = alternate({"dmlsim": through_dmlsim, "bare pyopencl": bare}, warmup=5, min_time=0,
                        min_rounds=args.rounds, max_rounds=args.rounds, shuffle=random.Random(7))  # noqa: S311
    print(f"{backend.device_facts['platform_version']}: ONNX Adam 1000 x 4096 FLOAT32, {args.rounds} shuffled rounds")
    for name, s in samples.items():
        gap = statistics.median(w - d for w, d in zip(s.wall_ns, s.ns, strict=True))
        print(f"{name:14} host {s.wall_median_ns / 1e3:7.0f} us  device {s.median_ns / 1e3:7.0f} us  "
              f"host - device {gap / 1e3:5.0f} us  handing over {statistics.median(handover[name]) / 1e3:5.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
