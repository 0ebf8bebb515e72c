"""The microbenchmark engine behind ``dmlsim bench``.

- :mod:`dmlsim.bench.timing`   calibrated, alternating repetitions and their statistics;
- :mod:`dmlsim.bench.registry` bench cases (one module per operator in :mod:`dmlsim.bench.cases`);
- :mod:`dmlsim.bench.roofline` the same-run OpenCL copy that every point is measured against;
- :mod:`dmlsim.bench.peers`    what a user would run instead (numpy reference, torch);
- :mod:`dmlsim.bench.engine`   the sweep: one point per (operator, data type, size), errors recorded;
- :mod:`dmlsim.bench.report`   terminal table, progress, JSON, CSV and the PNG plot.
"""

from __future__ import annotations

from dmlsim.bench.engine import BenchConfig, BenchRun, run_bench
from dmlsim.bench.registry import CASES, BenchCase, register_case

__all__ = ["CASES", "BenchCase", "BenchConfig", "BenchRun", "register_case", "run_bench"]
