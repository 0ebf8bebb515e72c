"""The microbenchmark engine behind ``dmlsim bench``.

- :mod:`dmlsim.bench.timing`   calibrated, alternating repetitions and their statistics;
- :mod:`dmlsim.bench.registry` what a bench case is, and their discovery;
- :mod:`dmlsim.bench.cases`    the cases, one module per operator (found by discovery, no list);
- :mod:`dmlsim.backends.opencl.roofline` the same-run OpenCL copy that every point is measured against;
- :mod:`dmlsim.bench.peers`    what a user would run instead (numpy reference, torch);
- :mod:`dmlsim.bench.engine`   the sweep: one point per (operator, data type, size), errors recorded;
- :mod:`dmlsim.bench.report`   terminal table, progress, JSON, CSV;
- :mod:`dmlsim.bench.plot`     the PNG plot (device time and host time in separate panels).
"""
