# dmlsim: `make demo` and `make test` do everything on a fresh machine (see README).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test mutants fuzz fuzz-api harness opencl lint clean export docs

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[pocl,intel,oclgrind,test]'
	touch $(STAMP)

# Usable OpenCL devices: PyPI's PoCL and Oclgrind register themselves; dmlsim doctor --install registers
# Intel's OpenCL CPU runtime with pyopencl's ICD loader and, only if still no device works, tries pip-only
# fixes, then (root, Debian-family) apt-get install pocl-opencl-icd as the last resort.
opencl: $(STAMP)
	$(VENV)/bin/dmlsim doctor --install

demo: opencl
	$(PY) -m dmlsim.demo
	$(PY) -m dmlsim.mlp_demo
	$(PY) -m dmlsim.cnn_demo
	$(PY) -m dmlsim.transformer_demo

test: opencl
	$(PY) tests/matrix.py -q

# Named deliberate bugs (tools/mutants.yaml), each run against the tests that must catch it: fails if any survives.
# A kernel mutant whose line no OpenCL driver here compiles (clang vector builtins, AVX, F16C: see its needs:) is
# tried on every driver present and, where none compiles it, listed as "not exercised here" without failing;
# CI (.ci/run, with Debian's PoCL) passes MUTANTS_FLAGS=--require-exercised, so every mutant is exercised there.
MUTANTS_FLAGS ?=
mutants: opencl
	$(PY) tools/mutants.py $(MUTANTS_FLAGS)

# Mutation fuzzer over descriptors/ (tools/fuzz_models.py): FUZZ_COUNT mutants, each validated with a time and
# memory bound, one in 50 also run in a limited subprocess; fails on any traceback or unlocated exit 2.
# CI is a gate, so its seed is fixed (the seed whose mutants found the last two bugs, now replayed every run);
# explore with `make fuzz FUZZ_SEED=` (empty: a new seed from the clock, printed) or any other number.
FUZZ_COUNT ?= 5000
FUZZ_SEED  ?= 1795406655
fuzz: $(STAMP)
	$(PY) tools/fuzz_models.py --count $(FUZZ_COUNT) $(if $(FUZZ_SEED),--seed $(FUZZ_SEED)) --save fuzz-failures

# The public-API fuzzer (tests/test_api_fuzz.py) at CI strength: 10,000 examples per run, 5,000 on the
# reference device and 5,000 on the first OpenCL device (`make test` runs a few dozen), in a process that loads
# only that device's ICD (tests/matrix.py --first-icd): two PoCL builds in one process conflict (CI's one
# segfault in this step, in a driver thread, came from a process that had loaded all four ICDs).
# FUZZ_API_EXAMPLES=N (per device) changes the count.
FUZZ_API_EXAMPLES ?= 5000
fuzz-api: opencl
	DMLSIM_FUZZ_EXAMPLES=$(FUZZ_API_EXAMPLES) DMLSIM_REQUIRE_OPENCL=1 $(PY) tests/matrix.py --first-icd -q -p no:cacheprovider tests/test_api_fuzz.py

# The differential harness (tests/test_operator_harness.py) at CI strength: HARNESS_CASES random valid cases per
# operator (`make test` runs 2), every tensor at non-zero offsets in shared guard-filled buffers, adversarial
# values, on the reference device and every OpenCL device of the first ICD. The seed is fixed (a gate);
# `make harness HARNESS_SEED=<n>` explores, and a failure prints the DMLSIM_HARNESS_REPLAY=<seed> that repeats it.
HARNESS_CASES ?= 25
HARNESS_SEED  ?= 20261126
harness: opencl
	DMLSIM_HARNESS_SEED=$(HARNESS_SEED) DMLSIM_REQUIRE_OPENCL=1 $(PY) tests/matrix.py --first-icd -q -p no:cacheprovider \
		tests/test_operator_harness.py --harness-cases $(HARNESS_CASES)

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

# The documentation site (docs/, mkdocs.yml): the docs extra installed into .venv, then a strict build (every
# warning an error) into site/ (git-ignored). docs/contributing.md says why MkDocs and how the code blocks are tested.
DOCS_STAMP := $(VENV)/.docs-installed
$(DOCS_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[docs]'
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(VENV)/bin/mkdocs build --strict --site-dir site

lint: $(STAMP)
	$(VENV)/bin/ruff check dmlsim tests benchmarks tools

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info site
