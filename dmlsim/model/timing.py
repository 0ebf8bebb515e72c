"""The timing lines ``dmlsim run`` prints after each dispatch, in DxDispatch's words and formats.

DxDispatch times every dispatch (``-i`` defaults to 1): the first min(n − 1, warmup) samples are cold
and left out of the hot statistics; the median is the upper median (sorted[n // 2]). Its
``--timing_verbosity`` (``-v``) picks how much is shown: 0 one line per dispatch, 1 the cold and hot
statistics, 2 those and every iteration's sample.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Stats:
    count: int
    average: float
    min: float
    median: float
    max: float

    def describe(self) -> str:
        return (f"{self.count} samples, {self.average:.4f} ms average, {self.min:.4f} ms min, "
                f"{self.median:.4f} ms median, {self.max:.4f} ms max")


def stats(samples: list[float]) -> Stats | None:
    """Count, average, min, upper median and max of ``samples`` (None when there are none)."""
    if not samples:
        return None
    ordered = sorted(samples)
    return Stats(len(ordered), sum(ordered) / len(ordered), ordered[0], ordered[len(ordered) // 2], ordered[-1])


def split(samples: list[float], warmup: int) -> tuple[list[float], list[float]]:
    """(cold, hot): at most ``warmup`` leading samples are cold, and at least one sample stays hot."""
    cold = min(max(len(samples), 1) - 1, warmup)
    return samples[:cold], samples[cold:]


def build_line(name: str, first: float, cold: bool) -> str:
    """The line before a dispatchable's first timing on an OpenCL device: its first execution builds its
    kernels (programs, and the driver's code generation on first launch: PoCL's takes most of a second), so
    that sample is a build time, not a dispatch time. DxDispatch times compilation apart from dispatches; a
    dmlsim dispatch builds lazily, so its first sample is named as such: left out of the hot statistics as a
    cold sample when there are several (``-i``/``-w``), else the one sample there is."""
    where = ("left out of the median as a cold sample" if cold else
             "the only sample: run with -i 2 or more for dispatch timings without it")
    return f"Kernel build for '{name}': its first execution, {first:.4f} ms (CPU), built its kernels ({where})"


def timing_line(name: str, cpu: list[float], gpu: list[float], warmup: int) -> str:
    """``Dispatch 'adam': 100 iterations, 0.1234 ms median (CPU), 0.005120 ms median (GPU)`` over hot samples."""
    line = f"Dispatch '{name}': {len(cpu)} iterations, {stats(split(cpu, warmup)[1]).median:.4f} ms median (CPU)"
    if gpu:
        line += f", {stats(split(gpu, warmup)[1]).median:.6f} ms median (GPU)"
    return line


def timing_report(name: str, cpu: list[float], gpu: list[float], warmup: int, verbosity: int = 0) -> list[str]:
    """The lines DxDispatch prints for one dispatch at ``--timing_verbosity`` ``verbosity``."""
    if not cpu:
        return []
    if verbosity <= 0:
        return [timing_line(name, cpu, gpu, warmup)]
    lines = [f"Dispatch '{name}': {len(cpu)} iterations"]
    (cpu_cold, cpu_hot), (gpu_cold, gpu_hot) = split(cpu, warmup), split(gpu, warmup)
    for label, samples in (("CPU Timings (Cold) ", cpu_cold), ("GPU Timings (Cold) ", gpu_cold),
                           ("CPU Timings (Hot)  ", cpu_hot), ("GPU Timings (Hot)  ", gpu_hot)):
        summary = stats(samples)
        if summary is not None:
            lines.append(f"{label}: {summary.describe()}")
    if verbosity >= 2:
        lines.append("The timings of each iteration: ")
        for i, sample in enumerate(cpu):
            gpu_part = f", {gpu[i]:.4f} ms (GPU)" if i < len(gpu) else ""
            lines.append(f"iteration {i}: {sample:.4f} ms (CPU){gpu_part}")
    return lines
