"""dmlsim.bench.timing: the shuffled round order and the interval of a difference of medians.

The dispatch-overhead figure is a difference of a few microseconds between two host times that spread over
tens of them; these pin that the rounds' order really varies when asked to, and that the interval covers the
true difference of samples whose difference is known by construction.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from dmlsim.bench.timing import alternate, median_difference_interval


def test_shuffled_rounds_vary_the_order_and_time_every_contestant_each_round():
    log: list[str] = []
    names = "abc"
    samples = alternate({n: (lambda n=n: log.append(n)) for n in names}, warmup=0, min_time=0, min_rounds=60,
                        max_rounds=60, shuffle=random.Random(3))
    timed = log[len(names):]  # after the cold runs, which keep the given order
    rounds = [tuple(timed[i:i + 3]) for i in range(0, len(timed), 3)]
    assert len(rounds) == 60 and all(sorted(r) == list(names) for r in rounds)
    assert len(set(rounds)) == 6  # all 3! orders occur in 60 rounds (probability of missing one < 1e-4)
    assert all(len(s.ns) == 60 for s in samples.values())


def test_rounds_keep_the_given_order_unless_shuffled():
    log: list[str] = []
    alternate({n: (lambda n=n: log.append(n)) for n in "ab"}, warmup=0, min_time=0, min_rounds=5, max_rounds=5)
    assert log == ["a", "b"] * 6


def test_interval_of_constant_samples_is_their_difference():
    low, high = median_difference_interval([7.0] * 50, [2.0] * 80)
    assert (low, high) == (5.0, 5.0)


def test_interval_covers_the_true_difference_and_narrows_with_more_samples():
    rng = np.random.default_rng(11)
    # exponential spreads like a wake-up latency; medians differ by exactly 2.0 (same shape, shifted)
    widths = []
    for n in (500, 20000):
        spread = rng.exponential(30.0, size=(2, n))
        low, high = median_difference_interval(list(spread[0] + 52.0), list(spread[1] + 50.0), seed=n)
        assert low <= 2.0 <= high, (n, low, high)
        widths.append(high - low)
    assert widths[1] < widths[0] / 4  # 40x the samples: about 1/sqrt(40) of the width
    # asymptotically, a median's standard error is 1 / (2 f(m) sqrt(n)), f(m) = 1 / 60 for this exponential:
    # the 95 % interval of a difference of two independent medians is 2 * 1.96 * sqrt(2) * 30 / sqrt(n) wide
    expected = 2 * 1.96 * np.sqrt(2) * 30.0 / np.sqrt(20000)
    assert 0.88 <= widths[1] / expected <= 1.12, widths[1] / expected


def test_interval_refuses_an_empty_sample():
    with pytest.raises(ValueError, match="non-empty"):
        median_difference_interval([], [1.0])


def test_a_duration_read_afterwards_is_left_out_of_the_wall_time():
    """A contestant may return what reads its duration (an OpenCL dispatch's profiling events): that read happens
    after the wall clock stops, so it costs the host time per call nothing, and its value is the sample."""
    import time

    def contestant():
        return lambda: (time.sleep(0.02), 1234.0)[1]

    samples = alternate({"x": contestant}, warmup=0, min_time=0, min_rounds=3, max_rounds=3)["x"]
    assert samples.ns == [1234.0] * 3 and samples.cold_ns == 1234.0
    assert max(samples.wall_ns) < 0.01e9  # the 20 ms read is not in it


def test_settle_calls_run_each_contestant_untimed_right_before_its_timed_call():
    """With ``settle`` 2, each timed call of a contestant follows two untimed calls of that same contestant (so that
    none is timed in the state another left, dmlsim.bench.timing), and only the timed call is a sample."""
    log: list[str] = []
    clock = {"calls": 0}

    def contestant(name: str):
        def call() -> float:
            clock["calls"] += 1
            log.append(name)
            return float(clock["calls"])
        return call

    samples = alternate({n: contestant(n) for n in "ab"}, warmup=0, min_time=0, min_rounds=3, max_rounds=3,
                        settle=2)
    assert log == ["a", "b"] + ["a", "a", "a", "b", "b", "b"] * 3
    # the samples are each third call of a turn: calls 5, 8 (a, b), then 11, 14, then 17, 20
    assert samples["a"].ns == [5.0, 11.0, 17.0] and samples["b"].ns == [8.0, 14.0, 20.0]


def test_settle_time_keeps_a_short_contestant_settling_that_long():
    """With ``settle_time``, a contestant's untimed calls before each timed one go on until that time has passed (a
    call of microseconds does not outlast another pool's spinning), and without ``settle`` there are none."""
    import time

    calls: list[tuple[str, float]] = []

    def contestant(name: str):
        def call() -> None:
            calls.append((name, time.perf_counter()))
            time.sleep(0.0005)
        return call

    alternate({n: contestant(n) for n in "ab"}, warmup=0, min_time=0, min_rounds=3, max_rounds=3, settle=1,
              settle_time=0.004)
    turns: list[list[float]] = []
    for i, (name, at) in enumerate(calls[2:], start=2):  # after the cold calls
        if calls[i - 1][0] != name or i == 2:
            turns.append([])
        turns[-1].append(at)
    assert len(turns) == 6  # 3 rounds of a and b
    assert all(turn[-1] - turn[0] >= 0.004 for turn in turns)  # the timed call starts 4 ms after the turn's first
    assert all(len(turn) <= 10 for turn in turns)  # and not much later (0.5 ms calls)
    calls.clear()
    alternate({n: contestant(n) for n in "ab"}, warmup=0, min_time=0, min_rounds=3, max_rounds=3, settle=0,
              settle_time=0.004)
    assert [name for name, _ in calls] == ["a", "b"] * 4


def test_bench_settles_by_default():
    """`dmlsim bench` times every contestant after one untimed call of itself, and 5 ms of them, unless told
    otherwise."""
    from dmlsim.bench.engine import BenchConfig

    assert (BenchConfig().settle, BenchConfig().settle_time) == (1, 0.005)
