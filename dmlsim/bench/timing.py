"""Calibrated, alternating repetitions.

Things compared in one report are timed round-robin in the same loop (A B C, A B C, ...), so a
noisy neighbour on a shared machine slows all of them alike instead of one of them. The number of
rounds is calibrated: after the warm-up, one timed round estimates the cost of a round, then rounds
repeat until ``min_time`` seconds are spent (at least ``min_rounds``, at most ``max_rounds``).
Where the contestants' costs differ by a few microseconds and each one's own spread is tens of them (a
1-element dispatch on PoCL), a fixed order is itself a bias (each one always follows the same other), so
the order can be shuffled per round, and :func:`median_difference_interval` says how precise the difference
of two medians is.

Contestants leave state behind that slows whoever runs next: a thread pool still spinning (OpenBLAS's threads
busy-wait after a call), a heap that returned its pages, caches full of other data. On the 2-core AMD Zen 5 host
a 3 x 3 convolution layer took 1.74 ms per call right after numpy's im2col peer and 0.91 ms after itself, and torch's
depthwise layer 1.1-1.7 ms against 0.3 ms (session 19). So each timed call can follow ``settle`` untimed calls of
the same contestant, and at least ``settle_time`` seconds of them: every contestant is timed in its own steady state,
the state a user calling it in a loop sees, while the rounds still interleave them over time. The time matters for
contestants of microseconds: in the process where Intel's CPU runtime ran dmlsim's dispatch and an OpenCL copy,
onnxruntime's 12 us ResNet-style model took 27 us a call after one call of its own, 12 us after half a millisecond of
them, and its 90 us transformer layer at batch 8 took 148 us a call after a millisecond of them and 90 us after five
(the other pools' spinning outlasts a short call): `dmlsim bench` settles each turn for 5 ms.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

# A timed callable runs the thing once and returns its duration in ns (device time from profiling
# events for OpenCL work, wall time for host peers) — or None to use the wall time measured here — or a
# callable that returns that duration: it is called after the wall clock stops, so that what reading the
# duration costs (an OpenCL event's profiling query per launch: a few microseconds each on PoCL) is the
# bench's, not counted in the host time per call of the thing timed.
Timed = Callable[[], "float | Callable[[], float] | None"]


@dataclass
class Samples:
    """Durations (ns) of one contestant: the cold first run apart, then the timed repetitions."""

    cold_ns: float | None = None
    ns: list[float] = field(default_factory=list)
    wall_ns: list[float] = field(default_factory=list)

    @property
    def median_ns(self) -> float:
        return float(statistics.median(self.ns))

    @property
    def min_ns(self) -> float:
        return float(min(self.ns))

    @property
    def max_ns(self) -> float:
        return float(max(self.ns))

    @property
    def wall_median_ns(self) -> float:
        return float(statistics.median(self.wall_ns))

    @property
    def wall_min_ns(self) -> float:
        return float(min(self.wall_ns))

    @property
    def wall_max_ns(self) -> float:
        return float(max(self.wall_ns))


def _once(fn: Timed) -> tuple[float, float]:
    start = time.perf_counter_ns()
    reported = fn()
    wall = float(time.perf_counter_ns() - start)
    if callable(reported):
        reported = reported()
    return (wall if reported is None else float(reported)), wall


def alternate(contestants: dict[str, Timed], *, warmup: int = 2, min_time: float = 0.5,
              min_rounds: int = 5, max_rounds: int = 1000,
              before: Callable[[], None] | None = None,
              shuffle: random.Random | None = None, settle: int = 0,
              settle_time: float = 0.0) -> dict[str, Samples]:
    """Time every contestant round-robin; the first call of each is recorded as its cold run.

    ``before``, when given, runs (untimed) before every call of every contestant: the same starting state
    for each (on a GPU, caches flushed and the device busy, see dmlsim.bench.engine). ``shuffle``, when
    given, draws each timed round's order from it instead of keeping the contestants' order. ``settle``: untimed
    calls of a contestant right before each of its timed calls, and at least ``settle_time`` seconds of them (module
    docstring); ``min_time`` counts them."""
    prepare = before or (lambda: None)
    samples = {name: Samples() for name in contestants}
    for name, fn in contestants.items():
        prepare()
        samples[name].cold_ns = _once(fn)[0]
    for _ in range(warmup):
        for fn in contestants.values():
            prepare()
            fn()
    started = time.perf_counter()
    rounds = 0
    order = list(contestants.items())
    while True:
        if shuffle is not None:
            shuffle.shuffle(order)
        for name, fn in order:
            calls, settled = 0, time.perf_counter() + settle_time
            while calls < settle or (settle and time.perf_counter() < settled):
                prepare()
                fn()
                calls += 1
            prepare()
            value, wall = _once(fn)
            samples[name].ns.append(value)
            samples[name].wall_ns.append(wall)
        rounds += 1
        spent = time.perf_counter() - started
        if rounds >= max_rounds or (rounds >= min_rounds and spent >= min_time):
            break
    return samples


def median_difference_interval(a: list[float], b: list[float], *, confidence: float = 0.95,
                               resamples: int = 1000, seed: int = 0) -> tuple[float, float]:
    """A bootstrap interval of median(a) - median(b), the two samples resampled independently.

    Percentile bootstrap (as criterion.rs and pytest-benchmark report their intervals), seeded so that a
    report is reproducible from its samples."""
    import numpy as np

    if not a or not b:
        raise ValueError("median_difference_interval needs two non-empty samples")
    rng = np.random.default_rng(seed)
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    differences = np.empty(resamples)
    for i in range(resamples):
        differences[i] = np.median(x[rng.integers(0, x.size, x.size)]) - np.median(y[rng.integers(0, y.size, y.size)])
    tail = 100.0 * (1.0 - confidence) / 2.0
    low, high = np.percentile(differences, [tail, 100.0 - tail])
    return float(low), float(high)
