# dmlsim: `make demo` and `make test` do everything on a fresh machine (see README).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test mutants opencl lint clean export

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

# `make bench` (the committed sweep), `make bench-target` (the 2^24 Adam point), `make bench-onnx` and
# `make bench-adagrad-decay` (the extension operators' points): benchmarks/bench.mk
BENCH_PYTHON := $(PY)
include benchmarks/bench.mk
bench bench-target bench-onnx bench-adagrad-decay: opencl

# The descriptors/ corpus as plain DxDispatch models with manifests (README: "Running the corpus on DirectML"):
# copy build/dxdispatch to a Windows machine, run its run_dxdispatch.cmd, bring results/ back, `dmlsim compare`.
EXPORT_DIR ?= build/dxdispatch
export: $(STAMP)
	rm -rf $(EXPORT_DIR)
	$(VENV)/bin/dmlsim export descriptors -o $(EXPORT_DIR)

lint: $(STAMP)
	$(VENV)/bin/ruff check dmlsim tests benchmarks tools

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info
