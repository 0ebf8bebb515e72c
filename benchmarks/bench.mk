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
	$(BENCH_PYTHON) -m dmlsim bench adam --sizes 1K,64K,1M,16M --dtype float32,float16 --inplace \
		--min-time 1 --peers numpy,torch,native $(BENCH_ARGS) \
		--json $(BENCH_OUT)/$(BENCH_NAME).json --csv $(BENCH_OUT)/$(BENCH_NAME).csv \
		--plot $(BENCH_OUT)/$(BENCH_NAME).png | tee $(BENCH_OUT)/$(BENCH_NAME).txt

# Issue 15's points on every OpenCL implementation (processes per ICD; BENCH_ICDS="a.icd b.icd" to choose),
# beside the native same-traffic limits and torch, with each target's verdict: Adam 2^24 in place FLOAT32 and
# FLOAT16, ONNX multi-tensor 1000 x 4096, AdagradDecay dense 64M and sparse 64K, and the dispatch overhead
# against bare pyopencl, and issue 25's GEMM and CONVOLUTION points against numpy/torch and its memory-bound REDUCE and
# SOFTMAX points against the native same-traffic limit (BENCH_CASES to choose). ICDs whose only device is a simulator (Oclgrind) are skipped.
BENCH_ICDS ?=
BENCH_CASES ?= adam,onnx,adagrad-decay,gemm,conv,membound,models,overhead
bench-target:
	$(BENCH_PYTHON) benchmarks/target.py --out $(BENCH_OUT) --cases $(BENCH_CASES) \
		$(foreach icd,$(BENCH_ICDS),--icd $(icd)) | tee $(BENCH_OUT)/issue-15-target.txt

.PHONY: bench-onnx bench-adagrad-decay

# Issue 5's point: 1000 tensors x 4096 FLOAT32 elements (4000K) per ONNX optimizer, one fused dispatch
# vs one dispatch per tensor (peers dmlsim-per-tensor / dmlsim-per-tensor-calls), in the same run.
bench-onnx:
	$(BENCH_PYTHON) -m dmlsim bench onnx-adam onnx-adagrad onnx-momentum --sizes 4000K --dtype float32 \
		--inplace --min-time 3 --peers numpy,torch --no-overhead $(BENCH_ARGS) \
		--json $(BENCH_OUT)/onnx-multi-tensor.json | tee $(BENCH_OUT)/onnx-multi-tensor.txt

# Issue 6's points: dense over the 1M x 64 embedding table (64M elements) and sparse 64K indices into it.
bench-adagrad-decay:
	$(BENCH_PYTHON) -m dmlsim bench adagrad-decay --sizes 64M --dtype float32 --inplace --min-time 3 \
		--peers numpy,torch --no-overhead $(BENCH_ARGS) --json $(BENCH_OUT)/adagrad-decay-dense.json \
		| tee $(BENCH_OUT)/adagrad-decay-dense.txt
	$(BENCH_PYTHON) -m dmlsim bench adagrad-decay-sparse --sizes 64K --dtype float32 --min-time 3 \
		--peers numpy,torch --no-overhead $(BENCH_ARGS) --json $(BENCH_OUT)/adagrad-decay-sparse.json \
		| tee $(BENCH_OUT)/adagrad-decay-sparse.txt
