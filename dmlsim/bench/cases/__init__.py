"""One module per benchmarked operator; each registers a :class:`dmlsim.bench.registry.BenchCase`."""
