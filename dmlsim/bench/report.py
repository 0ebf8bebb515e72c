"""Reports of a bench run: the terminal table, a progress bar, JSON and CSV (the plot: :mod:`dmlsim.bench.plot`)."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from dmlsim.bench.engine import BenchRun


def size_label(n: int) -> str:
    """2^k element counts as 1K / 64K / 16M; other counts as they are."""
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def rate_label(rate: float) -> str:
    """A rate in decimal units: 2.21e6 → "2.21M" (rates are counted per second, not in binary sizes)."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if rate >= scale:
            return f"{rate / scale:.3g}{unit}"
    return f"{rate:.3g}"


def parse_size(text: str) -> int:
    """``"64K"`` → 65536, ``"16M"`` → 16777216, ``"1000"`` → 1000 (binary units, like the labels)."""
    text = text.strip().upper()
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    number = text[:-1] if scale > 1 else text
    value = int(number) * scale
    if value <= 0:
        raise ValueError(f"size {text!r} must be positive")
    return value


def _time(ns: float | None) -> str:
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.0f} ns"


def _num(value: float | None, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def header_lines(run: BenchRun) -> list[str]:
    dev, machine = run.device, run.machine
    layout = "in place" if run.config.inplace else "out of place"
    peers = ", ".join(f"{k} {v}" for k, v in machine.items() if k in ("numpy", "torch"))
    loads = " -> ".join(" ".join(f"{x:.2f}" for x in machine[k]) for k in ("load_average_before", "load_average_after")
                        if machine.get(k))
    settle = getattr(run.config, "settle", 0)
    pools = (f"OMP_WAIT_POLICY {machine.get('omp_wait_policy', '?')}, "
             f"OPENBLAS_THREAD_TIMEOUT {machine.get('openblas_thread_timeout', '?')}; each timed call after "
             + (f"{settle} untimed call(s) and {1000 * getattr(run.config, 'settle_time', 0):g} ms of its own"
                if settle else "the previous contestant's"))
    return [*([f"load average (1/5/15 min) before -> after: {loads}; {pools}"] if loads else []),
            f"device: {dev['device']} ({dev['platform_version']}; driver {dev['driver']}; "
            f"{dev['compute_units']} compute units)",
            f"host: {machine['cpu']}, {machine['logical_cpus']} logical CPUs; python {machine['python']}; "
            f"pyopencl {dev.get('pyopencl', '?')}; {peers}",
            f"layout: {layout}; GB/s = 10^9 bytes moved per second of device time (median); "
            "x peer = dmlsim throughput / peer throughput on host time per call",
            "limits, same run: native = the point's exact traffic (arrays read/written, in place as the point) "
            "in C (-O3 -march=native -fopenmp, 2 MiB huge pages touched by its threads), % native on device "
            "time, host % on host time per call; CL same = that traffic as an OpenCL kernel on this device; "
            "copy = fastest OpenCL copy of the same byte count (pays write-allocate: a weak yardstick)"
            + ("; CUDA copy = the same copy through CUDA (torch, CUDA events): the GPU's own figure"
               if any(p.cuda_copy_gbps for p in run.points) else "")]


def table(run: BenchRun) -> str:
    """The human-readable report: one row per point, then the dispatch overhead."""
    peer_names = sorted({name for p in run.points for name in p.peers})
    rates = any(p.items_per_s for p in run.points)
    cuda = any(p.cuda_copy_gbps for p in run.points)
    head = ["op", "dtype", "size", "device med", "min", "cold", "host/dispatch", "GB/s", "native", "% native",
            "host %", "CL same", "% CL", "copy", "% copy", *(["CUDA copy", "% CUDA"] if cuda else []),
            *(["rate"] if rates else []), *[f"x {n}" for n in peer_names]]
    rows = []
    for p in run.points:
        if p.error:
            rows.append([p.operator, p.dtype, size_label(p.elements), f"ERROR: {p.error}"])
            continue
        rate = [f"{rate_label(p.items_per_s)} {p.item_unit}/s" if p.items_per_s else "-"] if rates else []
        copied = [_num(p.cuda_copy_gbps, ".1f"), _num(p.pct_cuda_copy, ".0f")] if cuda else []
        rows.append([p.operator, p.dtype, size_label(p.elements), _time(p.device_median_ns), _time(p.device_min_ns),
                     _time(p.device_cold_ns), _time(p.host_median_ns), _num(p.gbps, ".1f"),
                     _num(p.native_gbps, ".1f"), _num(p.pct_native, ".0f"), _num(p.host_pct_native, ".0f"),
                     _num(p.traffic_gbps, ".1f"), _num(p.pct_traffic, ".0f"),
                     _num(p.roofline_gbps, ".1f"), _num(p.pct_roofline, ".0f"), *copied, *rate,
                     *[_num(p.peers[n].ratio, ".2f") if n in p.peers else "-" for n in peer_names]])
    full = [r for r in [head, *rows] if len(r) == len(head)]
    widths = [max(len(str(r[i])) for r in full) for i in range(len(head))]
    lines = [*header_lines(run), ""]
    for r in [head, *rows]:
        cells = [str(c).rjust(w) if i >= 3 else str(c).ljust(w)
                 for i, (c, w) in enumerate(zip(r, widths, strict=False))]
        lines.append("  ".join(cells if len(r) == len(head) else [*cells[:3], str(r[3])]))
    notes = sorted({n for p in run.points for n in p.notes if not p.error})
    lines += [f"note: {n}" for n in notes]
    if run.overhead:
        o = run.overhead
        lines.append(f"dispatch overhead (1 element, host time, median): record+execute+wait "
                     f"{_time(o['record+execute+wait'])}; execute+wait {_time(o['execute+wait'])}; "
                     f"bare pyopencl enqueue+finish {_time(o['pyopencl'])}; dmlsim adds {_time(o['dmlsim_added'])}"
                     + _interval(o))
    return "\n".join(lines)


def _interval(overhead: dict[str, float]) -> str:
    """The 95 % interval and round count of the overhead difference (absent from older records), both bounds
    in the unit of the larger one, with what a negative bound means."""
    if "dmlsim_added_low" not in overhead:
        return ""
    low, high = overhead["dmlsim_added_low"], overhead["dmlsim_added_high"]
    text = (f" (95 % interval {same_unit(low, high)}, {overhead['rounds']:.0f} shuffled rounds"
            + ("; below 0: dmlsim's path may be as fast as bare pyopencl here, the noise exceeds the difference"
               if low < 0 else "") + ")")
    return text


def same_unit(low: float, high: float) -> str:
    """``-2.73 to 6.12 us``: two nanosecond values in one unit, the one that fits the larger magnitude."""
    biggest = max(abs(low), abs(high))
    unit, scale = next(((u, s) for u, s in (("s", 1e9), ("ms", 1e6), ("us", 1e3)) if biggest >= s), ("ns", 1.0))
    return f"{low / scale:.3g} to {high / scale:.3g} {unit}"


def write_json(run: BenchRun, path: str | Path) -> None:
    Path(path).write_text(json.dumps(run.to_dict(), indent=1) + "\n", encoding="utf-8")


CSV_FIELDS = ("operator", "dtype", "elements", "inplace", "bytes_moved", "rounds", "device_median_ns",
              "device_min_ns", "device_max_ns", "device_cold_ns", "host_median_ns", "host_min_ns", "host_max_ns",
              "gbps", "native_gbps", "pct_native", "host_pct_native", "traffic_gbps", "traffic_kernel", "pct_traffic",
    "roofline_gbps", "roofline_kernel", "pct_roofline", "cuda_copy_gbps", "pct_cuda_copy", "items_per_s", "item_unit",
    "error")


def write_csv(run: BenchRun, path: str | Path) -> None:
    """One row per point; peers as ``<peer>_median_ns``, ``<peer>_gbps``, ``<peer>_ratio`` columns."""
    peer_names = sorted({name for p in run.points for name in p.peers})
    columns = [*CSV_FIELDS, "device", "driver"]
    for name in peer_names:
        columns += [f"{name}_median_ns", f"{name}_gbps", f"{name}_ratio"]
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, columns)
        writer.writeheader()
        for p in run.points:
            row: dict[str, Any] = {k: getattr(p, k) for k in CSV_FIELDS}
            row.update(device=run.device["device"], driver=run.device["driver"])
            for name, peer in p.peers.items():
                row.update({f"{name}_median_ns": peer.median_ns, f"{name}_gbps": peer.gbps,
                            f"{name}_ratio": peer.ratio})
            writer.writerow(row)


class Progress:
    """A progress bar (tqdm) on a terminal; plain lines when the stream is not a TTY (CI logs). Never on
    stdout, where the table and machine-readable output go."""

    def __init__(self, stream: TextIO = sys.stderr, width: int = 30) -> None:
        self.stream = stream
        self.width = width
        self.tty = stream.isatty()
        self._bar = None

    def __call__(self, done: int, total: int, label: str) -> None:
        if self.tty:
            self._draw(done, total, label)
        elif done < total:
            self.stream.write(f"bench {done + 1}/{total}: {label}\n")
        self.stream.flush()

    def _draw(self, done: int, total: int, label: str) -> None:
        try:
            from tqdm import tqdm
        except ImportError:  # no tqdm: a plain bar
            filled = self.width * done // max(total, 1)
            end = "\n" if done >= total else ""
            self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} {label:<32}{end}")
            return
        if self._bar is None:
            self._bar = tqdm(total=total, file=self.stream, unit="point", dynamic_ncols=True, leave=True)
        self._bar.set_description_str(label[:32])
        self._bar.update(done - self._bar.n)
        if done >= total:
            self._bar.close()
            self._bar = None
