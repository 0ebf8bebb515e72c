# dmlsim: `make demo` and `make test` do everything on a fresh machine (see README).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test mutants opencl lint clean fuzz-api

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[pocl,test]'
	touch $(STAMP)

# A usable OpenCL device: PyPI's PoCL comes with the venv; where it cannot build kernels for this CPU
# and we are root on a Debian-family machine, Debian's pocl-opencl-icd is installed (dmlsim doctor).
opencl: $(STAMP)
	$(VENV)/bin/dmlsim doctor --install

demo: opencl
	$(PY) -m dmlsim.demo

test: opencl
	$(PY) tests/matrix.py -q

# Named deliberate bugs (tools/mutants.yaml), each run against the tests that must catch it: fails if any survives.
mutants: opencl
	$(PY) tools/mutants.py

# The public-API fuzzer (tests/test_api_fuzz.py) at CI strength: 10,000 examples on the reference device and
# on the first OpenCL device (`make test` runs a few dozen). DMLSIM_FUZZ_EXAMPLES=N changes the count.
FUZZ_API_EXAMPLES ?= 10000
fuzz-api: opencl
	DMLSIM_FUZZ_EXAMPLES=$(FUZZ_API_EXAMPLES) DMLSIM_REQUIRE_OPENCL=1 $(PY) -m pytest -q -p no:cacheprovider tests/test_api_fuzz.py

# `make bench` (the committed sweep), `make bench-target` (the 2^24 Adam point), `make bench-onnx` and
# `make bench-adagrad-decay` (the extension operators' points): benchmarks/bench.mk
BENCH_PYTHON := $(PY)
include benchmarks/bench.mk
bench bench-target bench-onnx bench-adagrad-decay: opencl

lint: $(STAMP)
	$(VENV)/bin/ruff check dmlsim tests benchmarks tools

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info
