# Benchmark targets; included by the top-level Makefile (`include benchmarks/bench.mk`).
# Choose the OpenCL driver with the usual ICD variable, e.g. on Debian with PoCL 3.1:
#   make bench OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd
# Peers need `pip install torch` (optional); the plot needs `pip install 'dmlsim[plot]'`.

BENCH_PYTHON ?= python
BENCH_OUT ?= benchmarks/results
BENCH_NAME ?= adam-sweep
BENCH_ARGS ?=
export OCL_ICD_VENDORS

.PHONY: bench bench-target

# The committed sweep: Adam, FLOAT32 and FLOAT16, in place, 1K..16M elements, numpy and torch peers.
bench:
	$(BENCH_PYTHON) -m dmlsim.cli bench adam --sizes 1K,64K,1M,16M --dtype float32,float16 --inplace \
		--min-time 1 --peers numpy,torch $(BENCH_ARGS) \
		--json $(BENCH_OUT)/$(BENCH_NAME).json --csv $(BENCH_OUT)/$(BENCH_NAME).csv \
		--plot $(BENCH_OUT)/$(BENCH_NAME).png | tee $(BENCH_OUT)/$(BENCH_NAME).txt

# The issue's target point: 2^24 elements in place, dmlsim vs copy roofline vs torch, many alternating rounds.
bench-target:
	$(BENCH_PYTHON) -m dmlsim.cli bench adam --sizes 16M --dtype float32,float16 --inplace --min-time 8 \
		--peers torch --no-overhead $(BENCH_ARGS) --json $(BENCH_OUT)/adam-16M-target.json \
		| tee $(BENCH_OUT)/adam-16M-target.txt
