"""Issues 15's and 25's points on every OpenCL implementation, beside their limits and peers: `make bench-target`.

For each ICD (``--icd PATH``, repeatable; default: every ICD the loader would read, see
dmlsim.backends.opencl.icd), ``dmlsim bench`` processes that see only that ICD time

- ``adam``: 2^24 elements in place, FLOAT32 and FLOAT16, against the native same-traffic limit, the native
  Adam step and torch's fused Adam (when installed) -> ``adam-16M-<implementation>.json``;
- ``onnx``: ONNX Adam / Adagrad / Momentum, 1000 x 4096 FLOAT32 in one dispatch (``--cases onnx``)
  -> ``onnx-multi-tensor-<implementation>.json``;
- ``adagrad-decay``: AdagradDecay dense over 1M x 64 FLOAT32 -> ``adagrad-decay-dense-<implementation>.json``,
  and sparse, 64K indices into it, against torch's ``index_add_`` + update -> ``adagrad-decay-sparse-...``;
- ``gemm`` (issue 25): GEMM N x N x N for N = 1024, 2048, 4096 and skinny M = 1, 8, 64 (K = N = 2048), FLOAT32
  and FLOAT16, against numpy's float32 matmul (FLOAT16: torch's when installed, else numpy's, named in the
  verdict) -> ``gemm-square-<implementation>.json``, ``gemm-skinny-...``; ``conv``: CONVOLUTION FLOAT32 on four
  ResNet-50/MobileNetV2 layers at batch 1 and 8 against torch when installed, else numpy's im2col + matmul
  (``numpy-im2col``)
  -> ``convolution-layers-...``; each at least 0.5x its peer on host time per call, the planner's kernel choice
  in the bench output's notes;
- ``membound`` (issue 25): REDUCE SUM over the last axis of 4096 x 4096 and over the middle axis of
  [8, 4096, 512], ACTIVATION_SOFTMAX and SOFTMAX1 (Axes {1}) of 4096 x 4096, FLOAT32, against the native
  same-traffic limit (the input read; SOFTMAX's output written) and numpy -> ``reduce-4096-<implementation>.json``,
  ``softmax-4096-...``; MAX and AVERAGE pooling 3 x 3 / 1 over [32, 64, 56, 56] (its input read, its output
  written: 51 MB, past a 32 MB last-level cache, where batch 8's 13 MB was not) beside torch -> ``pooling-b32-...``;
  each at least 0.9x the native limit on host time per call;
- ``models`` (issue 25): the ResNet-style CNN and the transformer encoder layer of dmlsim.onnx.architectures at
  batch 1 and 8, each lowered by dmlsim.backend into one compiled graph, against onnxruntime's CPU provider on
  the same model and inputs -> ``onnx-models-<implementation>.json``; each at least 0.5x onnxruntime on host time
  per call;
- ``overhead``: the dispatch overhead, a 1-element Adam dispatch's record+execute+wait against the bare
  pyopencl enqueue+finish of the same prepared kernel (host time, medians over shuffled alternating rounds,
  with a 95 % bootstrap interval of the difference; the issue's target: dmlsim adds at most 5 us, called met
  when the whole interval is within it) -> ``dispatch-overhead-<implementation>.json``.

A summary table then puts the implementations side by side: GB/s, the native same-traffic limit, % of it
on device time and on host time per call, the device's copy bandwidth (the faster of the OpenCL and, on
an NVIDIA GPU with torch, the CUDA copy) and % of it, x the native Adam step and x torch (host time, > 1:
dmlsim is faster), the issue's target for the point and whether this run meets it (CPU devices: on host time
per call, as the issue defines its ratios; GPUs: >= 0.85x the copy bandwidth on device time), and the load
averages before and after; then one line per implementation with its dispatch overhead and that target.

Usage: python benchmarks/target.py [--icd PATH ...] [--cases adam,onnx,adagrad-decay,overhead] [--out DIR]
       [--min-time S]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from dmlsim.backends.opencl.icd import icd_files

# case -> (output file stems with the bench arguments of each process)
CASES: dict[str, list[tuple[str, list[str]]]] = {
    "adam": [("adam-16M", ["adam", "--sizes", "16M", "--dtype", "float32,float16", "--inplace",
                           "--peers", "torch,native"])],
    "onnx": [("onnx-multi-tensor", ["onnx-adam", "onnx-adagrad", "onnx-momentum", "--sizes", "4000K",
                                    "--dtype", "float32", "--inplace", "--peers", "torch"])],
    "adagrad-decay": [("adagrad-decay-dense", ["adagrad-decay", "--sizes", "64M", "--dtype", "float32",
                                               "--inplace", "--peers", "torch"]),
                      ("adagrad-decay-sparse", ["adagrad-decay-sparse", "--sizes", "64K", "--dtype", "float32",
                                                "--peers", "torch"])],
    # issue 25: GEMM square 1024-4096 and skinny (M = 1..64, K = N = 2048), CONVOLUTION's ResNet-50/MobileNetV2 layers
    "gemm": [("gemm-square", ["gemm", "--sizes", "1024,2048,4096", "--dtype", "float32,float16", "--no-inplace",
                              "--peers", "numpy,torch", "--no-native"]),
             ("gemm-skinny", ["gemm-skinny", "--sizes", "1,8,64", "--dtype", "float32,float16", "--no-inplace",
                              "--peers", "numpy,torch", "--no-native"])],
    "conv": [("convolution-layers", ["convolution", "--sizes", "1,2,3,4,5,6,7,8", "--dtype", "float32", "--no-inplace",
                                     "--peers", "numpy,torch", "--no-native"])],
    # issue 25: memory-bound operators past the last-level cache, against the native same-traffic limit
    "membound": [("reduce-4096", ["reduce-sum", "reduce-sum-middle", "--sizes", "4096", "--dtype", "float32",
                                  "--no-inplace", "--peers", "numpy"]),
                 ("softmax-4096", ["softmax", "softmax1", "--sizes", "4096", "--dtype", "float32", "--no-inplace",
                                   "--peers", "numpy"]),
                 ("pooling-b32", ["max-pooling", "average-pooling", "--sizes", "32", "--dtype", "float32",
                                 "--no-inplace", "--peers", "torch"])],
    # issue 25: whole ONNX models through dmlsim.backend's lowering, against onnxruntime's CPU provider
    "models": [("onnx-models", ["onnx-resnet", "onnx-transformer", "--sizes", "1,8", "--dtype", "float32",
                                "--no-inplace", "--peers", "onnxruntime", "--no-native"])],
    "overhead": [("dispatch-overhead", ["adam", "--sizes", "1K", "--dtype", "float32", "--inplace", "--peers", "none",
                                        "--no-native"])],
}
OVERHEAD_STEM = "dispatch-overhead"  # the one case that keeps `dmlsim bench`'s dispatch-overhead measure
OVERHEAD_TARGET_NS = 5000.0  # issue 15 item 4: record+execute+wait within 5 us of bare enqueue+finish
# (operator, dtype) -> (what it is measured against, the fraction of it to reach, fraction of torch or None).
# "native": the native same-traffic limit; "native-adam-step": the native FLOAT16 Adam step (the FLOAT16
# yardstick: it pays the F16C conversions a pure byte stream does not). CPU devices, on host time per call.
TARGETS: dict[tuple[str, str], tuple[str, float, float | None]] = {
    ("adam", "float32"): ("native", 0.9, 1.0), ("adam", "float16"): ("native-adam-step", 0.9, None),
    ("onnx-adam", "float32"): ("native", 0.8, None), ("onnx-adagrad", "float32"): ("native", 0.8, None),
    ("onnx-momentum", "float32"): ("native", 0.8, None), ("adagrad-decay", "float32"): ("native", 0.9, None),
    # issue 25 (host time per call, ratios of the same run): a peer "a|b" is the first of them the run has (torch
    # when installed, else numpy's float32, named in the verdict); FLOAT16 GEMM against a float32 peer
    ("gemm", "float32"): ("numpy", 0.5, None), ("gemm", "float16"): ("torch-cpu|numpy", 0.5, None),
    ("gemm-skinny", "float32"): ("numpy", 0.5, None), ("gemm-skinny", "float16"): ("torch-cpu|numpy", 0.5, None),
    ("convolution", "float32"): ("torch-cpu|numpy-im2col", 0.5, None),
    ("reduce-sum", "float32"): ("native", 0.9, None), ("reduce-sum-middle", "float32"): ("native", 0.9, None),
    ("softmax", "float32"): ("native", 0.9, None), ("softmax1", "float32"): ("native", 0.9, None),
    ("max-pooling", "float32"): ("native", 0.9, None), ("average-pooling", "float32"): ("native", 0.9, None),
    ("onnx-resnet", "float32"): ("onnxruntime-cpu", 0.5, None),
    ("onnx-transformer", "float32"): ("onnxruntime-cpu", 0.5, None),
}
# GPUs: "copy", the device's measured copy bandwidth (the faster of the OpenCL copy kernel and CUDA's own
# device-to-device copy, same byte count, same run), on device time: a bandwidth is the device's, and the
# driver's launch-and-wait round trip is reported apart as the dispatch overhead.
GPU_TARGETS: dict[tuple[str, str], tuple[str, float, float | None]] = {
    ("adam", "float32"): ("copy", 0.85, None), ("adam", "float16"): ("copy", 0.85, None),
    ("onnx-adam", "float32"): ("copy", 0.85, None), ("onnx-adagrad", "float32"): ("copy", 0.85, None),
    ("onnx-momentum", "float32"): ("copy", 0.85, None),
    # issue 25 on a GPU: cuBLAS / cuDNN FLOAT32 without TF32 (torch's CUDA peers, CUDA-event timed), device time
    ("gemm", "float32"): ("torch-cuda@device", 0.5, None), ("gemm-skinny", "float32"): ("torch-cuda@device", 0.5, None),
    ("convolution", "float32"): ("torch-cuda@device", 0.5, None),
}


def implementation(platform_version: str) -> str:
    """A short file-name-safe label: 'PoCL 3.1+debian' -> 'pocl-3.1', 'OpenCL 3.1 LINUX' (Intel) -> 'intel'."""
    found = re.search(r"PoCL (\d+\.\d+)", platform_version)
    if found:
        return f"pocl-{found.group(1)}"
    return "intel" if "LINUX" in platform_version else "nvidia" if "CUDA" in platform_version else "opencl"


def untimed(icd: str) -> str | None:
    """Why ``dmlsim bench`` times no device through ``icd``, or None where it times one: the ICD offers only a
    simulator (Oclgrind, never a performance target), or its devices cannot build kernels here (PyPI's PoCL 3.0 on a
    processor its LLVM 14 does not know)."""
    listing = subprocess.run([sys.executable, "-m", "dmlsim", "devices", "--json", "--probe"], capture_output=True,
                             text=True, env={**os.environ, "OCL_ICD_VENDORS": icd}, check=False)
    try:
        adapters = json.loads(listing.stdout)
    except json.JSONDecodeError:
        return "`dmlsim devices` listed nothing through it"
    devices = [a for a in adapters if a["kind"] in ("CPU", "GPU", "ACCELERATOR")]
    if not devices:
        return "no CPU or GPU device (a simulator is not timed)"
    if all(a["problem"] for a in devices):
        return "its device cannot build kernels here: " + "; ".join(f"{a['label']}: {a['problem']}" for a in devices)
    return None


def run_one(icd: str, stem: str, args: list[str], out: Path, min_time: float) -> dict | None:
    scratch = out / f"{stem}-current.json"
    skip_overhead = [] if stem == OVERHEAD_STEM else ["--no-overhead"]
    command = [sys.executable, "-m", "dmlsim", "bench", *args, "--min-time", str(min_time), *skip_overhead,
               "--json", str(scratch)]
    print(f"=== OCL_ICD_VENDORS=.../{Path(icd).name} {' '.join(command[1:])}", flush=True)  # no local paths
    result = subprocess.run(command, env={**os.environ, "OCL_ICD_VENDORS": icd}, check=False)
    if result.returncode != 0 or not scratch.exists():
        print(f"bench-target: {Path(icd).name}: dmlsim bench failed (exit {result.returncode})", file=sys.stderr)
        return None
    run = json.loads(scratch.read_text())
    scratch.replace(out / f"{stem}-{implementation(run['device']['platform_version'])}.json")
    return run


def torch_peer(point: dict, gpu: bool = False) -> dict | None:
    """torch's peer of a point: on a GPU its CUDA one where there is one, else the first (the CPU one)."""
    peers = [(name, peer) for name, peer in point["peers"].items() if name.startswith("torch-")]
    if gpu:
        peers = [pair for pair in peers if pair[0].endswith("-cuda")] or peers
    return peers[0][1] if peers else None


def ratio(peer: dict | None) -> str:
    return "-" if peer is None else f"{peer['ratio']:.2f}x"


def copy_gbps(point: dict) -> float | None:
    """The device's measured copy bandwidth at this point: the faster of the OpenCL and the CUDA copy."""
    figures = [g for g in (point.get("roofline_gbps"), point.get("cuda_copy_gbps")) if g]
    return max(figures) if figures else None


def verdict(point: dict, gpu: bool = False) -> str:
    """The issue's target for this point and whether the run meets it (CPUs: host time per call; GPUs: device
    time against the copy bandwidth)."""
    target = (GPU_TARGETS if gpu else TARGETS).get((point["operator"], point["dtype"]))
    if target is None:
        return "-"
    yardstick, fraction, torch = target
    if yardstick == "copy":
        copy = copy_gbps(point)
        reached = None if copy is None else point["gbps"] / copy
    elif yardstick.endswith("@device"):  # the peer's own (device) duration against dmlsim's device time
        name = yardstick.removesuffix("@device")
        peer = point["peers"].get(name)
        reached = None if peer is None else peer["median_ns"] / point["device_median_ns"]
        yardstick = f"{name} on device time"
    elif yardstick == "native":
        reached = None if point["host_pct_native"] is None else point["host_pct_native"] / 100
    else:
        present = [name for name in yardstick.split("|") if name in point["peers"]]
        yardstick = present[0] if present else yardstick
        reached = (point["peers"].get(yardstick) or {}).get("ratio")
    if reached is None:
        return f"{yardstick} not measured"
    met = reached >= fraction
    text = f"{reached:.2f}x, >= {fraction:g}x {yardstick}"
    if torch is not None:
        peer = torch_peer(point, gpu)
        text += f", >= {torch:.1f}x torch"
        met = met and peer is not None and peer["ratio"] >= torch
    return f"{text}: {'met' if met else 'NOT met'}"


def sized(point: dict) -> str:
    """The point's size where the case has several in one run (GEMM's N or M, CONVOLUTION's layer, a model's
    batch)."""
    several = point.get("item_unit") in ("FLOP", "images", "sequences")
    return f"  size {point['elements']}" if several and "elements" in point else ""


def overhead_line(run: dict) -> str:
    """One implementation's dispatch overhead (host time, medians) and issue 15's target for it.

    Met when the 95 % interval of what dmlsim adds lies within the target; a median within it whose interval
    reaches past it is said as such (runs from before the interval was measured are judged on the median)."""
    o = run["overhead"]
    added = o["dmlsim_added"]
    high = o.get("dmlsim_added_high", added)
    met = ("met" if high <= OVERHEAD_TARGET_NS else
           "met at the median only (its 95 % interval reaches past)" if added <= OVERHEAD_TARGET_NS else "NOT met")
    interval = (f" (95 % interval {o['dmlsim_added_low'] / 1e3:.2f} to {high / 1e3:.2f} us, {o['rounds']:.0f} rounds)"
                if "dmlsim_added_high" in o else "")
    return (f"{implementation(run['device']['platform_version']):14}  dispatch overhead: record+execute+wait "
            f"{o['record+execute+wait'] / 1e3:.2f} us, execute+wait {o['execute+wait'] / 1e3:.2f} us, bare pyopencl "
            f"enqueue+finish {o['pyopencl'] / 1e3:.2f} us (the implementation's own cost); dmlsim adds "
            f"{added / 1e3:.2f} us{interval}; <= {OVERHEAD_TARGET_NS / 1e3:g} us: {met}")


def summary(runs: list[dict]) -> str:
    lines = ["implementation  operator              dtype      GB/s  native GB/s  % native  host % native  copy GB/s  "
             "% copy  x native step  x torch  target                                            load before -> after"]
    for run in [r for r in runs if not r.get("overhead")]:
        label = implementation(run["device"]["platform_version"])
        gpu = run["device"].get("kind") == "GPU"
        loads = " -> ".join(f"{run['machine'][k][0]:.2f}" for k in ("load_average_before", "load_average_after")
                            if run["machine"].get(k))
        for p in run["points"]:
            if p["error"]:
                lines.append(f"{label:14}  {p['operator']:20}  {p['dtype']:7}  ERROR {p['error']}")
                continue
            native = "-" if p["native_gbps"] is None else f"{p['native_gbps']:.1f}"
            pct = "-" if p["pct_native"] is None else f"{p['pct_native']:.0f} %"
            host = "-" if p["host_pct_native"] is None else f"{p['host_pct_native']:.0f} %"
            rate = f"  ({p['items_per_s'] / 1e6:.2f} M {p['item_unit']}/s)" if p.get("items_per_s") else ""
            step = p["peers"].get("native-adam-step")
            copy = copy_gbps(p)
            copied = "-" if copy is None else f"{copy:.1f}"
            pct_copy = "-" if copy is None else f"{100 * p['gbps'] / copy:.0f} %"
            lines.append(f"{label:14}  {p['operator']:20}  {p['dtype']:7}  {p['gbps']:6.1f}  {native:>11}  {pct:>8}  "
                         f"{host:>13}  {copied:>9}  {pct_copy:>6}  {ratio(step):>13}  {ratio(torch_peer(p, gpu)):>7}  "
                         f"{verdict(p, gpu):48}  {loads}{rate}{sized(p)}")
    if len(lines) == 1:  # only overhead runs: no table
        lines = []
    lines += [overhead_line(run) for run in runs if run.get("overhead")]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--icd", action="append", help="an ICD file to run (repeatable; default: all)")
    parser.add_argument("--cases", default="adam", help=f"comma-separated, of {', '.join(CASES)} (default adam)")
    parser.add_argument("--out", default="benchmarks/results", help="folder for the JSON files")
    parser.add_argument("--min-time", type=float, default=8.0, help="seconds of alternating rounds per point")
    args = parser.parse_args(argv)
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [c for c in cases if c not in CASES]
    if unknown or not cases:
        parser.error(f"--cases: unknown {', '.join(unknown) or '(none given)'}; choose from {', '.join(CASES)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    icds = args.icd or [str(path) for path in icd_files()]
    if not args.icd:
        reasons = {icd: untimed(icd) for icd in icds}
        skipped = [icd for icd, reason in reasons.items() if reason]
        for icd in skipped:
            print(f"bench-target: {Path(icd).name} skipped: {reasons[icd]}", flush=True)
        icds = [icd for icd in icds if icd not in skipped]
    planned = [(icd, stem, bench) for icd in icds for case in cases for stem, bench in CASES[case]]
    runs = [run for run in (run_one(icd, stem, bench, out, args.min_time) for icd, stem, bench in planned)
            if run is not None]
    print(summary(runs))
    return 0 if len(runs) == len(planned) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
