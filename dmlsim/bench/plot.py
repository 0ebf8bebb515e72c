"""The PNG plot of a bench run (``dmlsim bench --plot``): GB/s against size, device time and host time apart.

Two panels, because the two clocks measure different things: **device time** (OpenCL profiling
events: the kernels alone) holds dmlsim and its same-run copy roofline; **host time** (wall time per
call: dispatch overhead included) holds dmlsim and the peers. The **native limit** (the same traffic in
C with OpenMP, the yardstick of the table's "% native") is drawn in both panels: it is what dmlsim is
measured against, whichever clock. Each operator (and data type) gets its own roofline and native series,
since they move the bytes that operator moves.

One colour per data type in both panels (float32 blue, float16 orange, ...); the kind of series is the
line style (dmlsim solid, copy roofline dashed, native limit dash-dot, peers dotted with a marker each).
A band (fastest to slowest timed round) is drawn for dmlsim's own series only: peers' bands overlapped
into an unreadable host panel. The data is built apart from the drawing (:func:`plot_data`,
:func:`series_style`), so what the plot shows is testable without matplotlib.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dmlsim.bench.engine import BenchRun, Point

DEVICE_PANEL = "device time (OpenCL profiling events)"
HOST_PANEL = "host time per call (wall clock)"


@dataclass
class Series:
    """One line: GB/s at each size (median), with the band ``low``..``high`` (slowest..fastest round) if known."""

    label: str
    kind: str  # "dmlsim", "roofline" or "peer"
    of: str  # the operator and data type measured: "adam float32"
    sizes: list[int] = field(default_factory=list)
    gbps: list[float] = field(default_factory=list)
    low: list[float] = field(default_factory=list)
    high: list[float] = field(default_factory=list)

    def add(self, size: int, bytes_moved: int, median_ns: float, min_ns: float | None = None,
            max_ns: float | None = None) -> None:
        self.sizes.append(size)
        self.gbps.append(bytes_moved / median_ns)
        if min_ns is not None and max_ns is not None:
            self.low.append(bytes_moved / max_ns)
            self.high.append(bytes_moved / min_ns)


@dataclass
class Panel:
    title: str
    series: dict[str, Series] = field(default_factory=dict)

    def series_for(self, label: str, kind: str, of: str) -> Series:
        return self.series.setdefault(label, Series(label, kind, of))


@dataclass
class PlotData:
    title: str
    device: Panel
    host: Panel


def plot_title(run: BenchRun) -> str:
    """Operators, layout and device: ``adam · in place · pthread-AMD EPYC (Portable Computing Language)``."""
    points = [p for p in run.points if not p.error] or run.points
    operators = ", ".join(dict.fromkeys(p.operator for p in points)) or ", ".join(run.config.operators)
    layouts = {p.inplace for p in points} or {run.config.inplace}
    layout = "in place and out of place" if len(layouts) > 1 else "in place" if layouts.pop() else "out of place"
    device = run.device.get("device", run.device.get("adapter", "?"))
    platform = run.device.get("platform")
    return f"{operators} · {layout} · {device}" + (f" ({platform})" if platform else "")


def plot_data(run: BenchRun) -> PlotData:
    """The series of the plot, per panel, from the points measured without error (sizes in order)."""
    data = PlotData(plot_title(run), Panel(DEVICE_PANEL), Panel(HOST_PANEL))
    points: list[Point] = sorted((p for p in run.points if not p.error), key=lambda p: p.elements)
    for p in points:
        what = f"{p.operator} {p.dtype}"
        if p.device_median_ns:
            data.device.series_for(f"dmlsim {what}", "dmlsim", what).add(p.elements, p.bytes_moved, p.device_median_ns,
                                                                   p.device_min_ns, p.device_max_ns)
        if p.roofline_gbps:
            roofline = data.device.series_for(f"copy roofline {what}", "roofline", what)
            roofline.sizes.append(p.elements)
            roofline.gbps.append(p.roofline_gbps)
        if p.native_gbps:
            for panel in (data.device, data.host):
                native = panel.series_for(f"native limit {what}", "native", what)
                native.sizes.append(p.elements)
                native.gbps.append(p.native_gbps)
        if p.host_median_ns:
            data.host.series_for(f"dmlsim {what}", "dmlsim", what).add(p.elements, p.bytes_moved, p.host_median_ns,
                                                                 p.host_min_ns, p.host_max_ns)
        for name, peer in p.peers.items():
            median = peer.host_median_ns or peer.median_ns  # records from before host_* fields: host-timed peers
            data.host.series_for(f"{name} ({what})", "peer", what).add(p.elements, p.bytes_moved, median,
                                                                peer.host_min_ns, peer.host_max_ns)
    return data


DTYPE_COLORS = {"float32": "tab:blue", "float16": "tab:orange", "float64": "tab:green", "bfloat16": "tab:purple"}
OTHER_COLORS = ("tab:brown", "tab:pink", "tab:olive", "tab:cyan")
LINE_STYLES = {"dmlsim": "-", "roofline": "--", "native": "-.", "peer": ":"}
PEER_MARKERS = ("s", "^", "v", "D", "P", "X")


def series_style(series: Series, peer_index: int = 0) -> dict[str, object]:
    """How a series is drawn: its data type's colour (the same in both panels), the line style of its kind,
    a marker per peer, and whether its band is drawn (dmlsim's own series only)."""
    dtype = series.of.rsplit(" ", 1)[-1]
    color = DTYPE_COLORS.get(dtype) or OTHER_COLORS[sum(map(ord, dtype)) % len(OTHER_COLORS)]
    marker = PEER_MARKERS[peer_index % len(PEER_MARKERS)] if series.kind == "peer" else \
        {"dmlsim": "o", "roofline": "", "native": ""}[series.kind]
    return {"color": color, "linestyle": LINE_STYLES[series.kind], "marker": marker,
            "band": series.kind == "dmlsim" and len(series.low) == len(series.sizes) > 0}


def write_plot(run: BenchRun, path: str | Path) -> None:
    """Draw :func:`plot_data` into a PNG: two panels sharing the size axis (log 2), styled by :func:`series_style`."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise RuntimeError("--plot needs matplotlib: pip install 'dmlsim[plot]'") from exc
    data = plot_data(run)
    fig, axes = plt.subplots(1, 2, figsize=(13, 5), sharex=True)
    for ax, panel in zip(axes, (data.device, data.host), strict=True):
        peers = list(dict.fromkeys(s.label.split(" (")[0] for s in panel.series.values() if s.kind == "peer"))
        for series in panel.series.values():
            index = peers.index(series.label.split(" (")[0]) if series.kind == "peer" else 0
            style = series_style(series, index)
            ax.plot(series.sizes, series.gbps, linestyle=style["linestyle"], marker=style["marker"] or None,
                    color=style["color"], label=series.label, linewidth=2.0 if series.kind == "dmlsim" else 1.2)
            if style["band"]:
                ax.fill_between(series.sizes, series.low, series.high, color=style["color"], alpha=0.12)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("elements")
        ax.set_ylabel("GB/s (band: dmlsim's slowest..fastest round)")
        ax.set_title(panel.title, fontsize=9)
        ax.grid(True, alpha=0.3)
        if panel.series:
            ax.legend(fontsize=7)
    fig.suptitle(data.title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
