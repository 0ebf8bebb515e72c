"""The issue-15 target point on every OpenCL implementation: `make bench-target` runs this.

For each ICD (``--icd PATH``, repeatable; default: every ICD the loader would read, see
dmlsim.backends.opencl.icd), one ``dmlsim bench adam`` process that sees only that ICD times 2^24
elements in place, FLOAT32 and FLOAT16, against the native same-traffic limit, the native Adam step
and torch's fused Adam (when installed), and writes ``adam-16M-<implementation>.json``. A summary table
then puts the implementations side by side: GB/s, % of the native same-traffic limit, × the native
Adam step and × torch (both on host time per step, > 1: dmlsim is faster), and the load averages.

Usage: python benchmarks/target.py [--icd PATH ...] [--out DIR] [--min-time S]
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


def implementation(platform_version: str) -> str:
    """A short file-name-safe label: 'PoCL 3.1+debian' -> 'pocl-3.1', 'OpenCL 3.1 LINUX' (Intel) -> 'intel'."""
    found = re.search(r"PoCL (\d+\.\d+)", platform_version)
    return f"pocl-{found.group(1)}" if found else "intel" if "LINUX" in platform_version else "opencl"


def run_one(icd: str, out: Path, min_time: float) -> dict | None:
    scratch = out / "adam-16M-current.json"
    command = [sys.executable, "-m", "dmlsim", "bench", "adam", "--sizes", "16M", "--dtype", "float32,float16",
               "--inplace", "--min-time", str(min_time), "--peers", "torch,native", "--no-overhead",
               "--json", str(scratch)]
    print(f"=== OCL_ICD_VENDORS=.../{Path(icd).name} {' '.join(command[1:])}", flush=True)  # no local paths
    result = subprocess.run(command, env={**os.environ, "OCL_ICD_VENDORS": icd}, check=False)
    if result.returncode != 0 or not scratch.exists():
        print(f"bench-target: {icd}: dmlsim bench failed (exit {result.returncode})", file=sys.stderr)
        return None
    run = json.loads(scratch.read_text())
    label = implementation(run["device"]["platform_version"])
    scratch.replace(out / f"adam-16M-{label}.json")
    return run


def ratio(point: dict, peer: str) -> str:
    found = point["peers"].get(peer)
    return "-" if found is None else f"{found['ratio']:.2f}x"


def summary(runs: list[dict]) -> str:
    lines = ["implementation      dtype    GB/s  native GB/s  % native  host % native  x native step  x torch  "
             "load before -> after"]
    for run in runs:
        label = implementation(run["device"]["platform_version"])
        loads = " -> ".join(f"{run['machine'][k][0]:.2f}" for k in ("load_average_before", "load_average_after")
                            if run["machine"].get(k))
        for p in run["points"]:
            if p["error"]:
                lines.append(f"{label:18}  {p['dtype']:7}  ERROR {p['error']}")
                continue
            native = "-" if p["native_gbps"] is None else f"{p['native_gbps']:.1f}"
            pct = "-" if p["pct_native"] is None else f"{p['pct_native']:.0f} %"
            host = "-" if p["host_pct_native"] is None else f"{p['host_pct_native']:.0f} %"
            torch = ratio(p, "torch-fused-cpu")
            lines.append(f"{label:18}  {p['dtype']:7}  {p['gbps']:4.1f}  {native:>11}  {pct:>8}  {host:>13}  "
                         f"{ratio(p, 'native-adam-step'):>13}  {torch:>7}  {loads}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--icd", action="append", help="an ICD file to run (repeatable; default: all)")
    parser.add_argument("--out", default="benchmarks/results", help="folder for the JSON files")
    parser.add_argument("--min-time", type=float, default=8.0, help="seconds of alternating rounds per point")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    icds = args.icd or [str(path) for path in icd_files()]
    runs = [run for run in (run_one(icd, out, args.min_time) for icd in icds) if run is not None]
    print(summary(runs))
    return 0 if len(runs) == len(icds) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
