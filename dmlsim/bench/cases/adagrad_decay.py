"""Bench cases ``adagrad-decay`` (dense GB/s) and ``adagrad-decay-sparse`` (rows/s) for DMLSIM_OPERATOR_ADAGRAD_DECAY.

Dense: a size of N elements is a ``{1, 1, N / 64, 64}`` tensor (``{1, 1, 1, N}`` when 64 does not
divide N), FLOAT32 step tensors, global step 1 of a 1000-step decay period (the steady state: no decay
this step). Bytes moved per element: parameters, accumulator and gradient read, parameters and
accumulator written (5 accesses of the element size).

Sparse: a size of N is N gradient rows (indices) into a 1M × 64 embedding table, the issue's
realistic shape; ``--sizes 64K`` is its 64K indices. Indices have duplicates as real batches do: half
drawn from 4096 hot rows, half uniform (see :func:`sparse_indices`). The rate column counts indices
per second; the bytes counted are the gradient and index reads plus, per unique row, the parameters,
accumulator and decay power read and written. State is always updated in place: an out-of-place
sparse update first copies the whole table, which is another benchmark.

Peers: the numpy float64 reference (``dmlsim.operators.adagrad_decay.reference``) and, for dense, torch's
``Adagrad(fused=True)`` — the nearest fused optimizer with the same memory traffic (AdagradDecay
exists only in DeepRec, on the CPU); the comparison is speed only. For sparse, ``torch-index-add-cpu``:
the same update written with torch (``unique``, ``index_add_``, the update on the gathered rows,
``index_copy_``) on the same indices — what a framework does without a fused sparse kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.bench.data import normal
from dmlsim.bench.peers import add_torch_peers, torch_module
from dmlsim.bench.registry import BenchCase, Traffic, Workload, register_case
from dmlsim.operators.adagrad_decay.reference import adagrad_decay
from dmlsim.quick import prepare_operator

ROW_LENGTH = 64
TABLE_ROWS = 1 << 20
HOT_ROWS = 4096
HYPER = {"LearningRate": 0.01, "AccumulatorDecayStep": 1000, "AccumulatorDecayRate": 0.9,
         "AccumulatorBaseline": 0.1}
REFERENCE_HYPER = {"learning_rate": 0.01, "decay_step": 1000, "decay_rate": 0.9, "baseline": 0.1}
DATA_TYPES = {"float32": (dml.DML_TENSOR_DATA_TYPE_FLOAT32, np.float32),
              "float16": (dml.DML_TENSOR_DATA_TYPE_FLOAT16, np.float16),
              "float64": (dml.DML_TENSOR_DATA_TYPE_FLOAT64, np.float64)}
U32 = dml.DML_TENSOR_DATA_TYPE_UINT32
STEP = 1


def sparse_indices(rows: int, count: int, seed: int = 0) -> np.ndarray:
    """``count`` row indices with duplicates: half from the first 4096 (hot) rows, half uniform, shuffled."""
    rng = np.random.default_rng(seed)
    half = count // 2
    indices = np.concatenate([rng.integers(0, min(HOT_ROWS, rows), half), rng.integers(0, rows, count - half)])
    return rng.permutation(indices).astype(np.uint32)


def _desc(var: Any, power: Any, grad: Any, indices: Any) -> Any:
    scalar = dml.buffer_tensor(U32, [1, 1, 1, 1])
    desc = dml.DMLSIM_ADAGRAD_DECAY_OPERATOR_DESC(var, var, power, grad, indices, scalar, var, var, power, **HYPER)
    return dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ADAGRAD_DECAY, desc)


@register_case
class AdagradDecayCase(BenchCase):
    name = "adagrad-decay"
    description = "DMLSIM_OPERATOR_ADAGRAD_DECAY dense, {1, 1, N/64, 64} tensors"
    dtypes = ("float32", "float16", "float64")
    arrays = 5  # variable, accumulator, gradient in; variable, accumulator out

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        data_type, np_type = DATA_TYPES[dtype]
        shape = [1, 1, elements // ROW_LENGTH, ROW_LENGTH] if elements % ROW_LENGTH == 0 else [1, 1, 1, elements]
        var = dml.buffer_tensor(data_type, shape)
        scalar = dml.buffer_tensor(U32, [1, 1, 1, 1])
        rng = np.random.default_rng(0)
        host = {"InputParametersTensor": normal(rng, elements, np_type),
                "InputAccumulatorTensor": np.full(elements, 0.1, np_type),
                "GradientTensor": normal(rng, elements, np_type, 0.1),
                "InputDecayPowerTensor": np.uint32(0), "GlobalStepTensor": np.uint32(STEP)}
        prepared = prepare_operator(device, _desc(var, scalar, var, None), host, inplace=inplace)
        size = np.dtype(np_type).itemsize
        work = Workload(prepared.compiled, prepared.table, 5 * elements * size,
                        traffic=Traffic(3, 2, size, elements, inplace))  # var, accum, grad read; var, accum written
        if "numpy" in peers:
            def numpy_reference() -> None:
                adagrad_decay(host["InputParametersTensor"], host["InputAccumulatorTensor"], np.zeros(1),
                              host["GradientTensor"], STEP, **REFERENCE_HYPER)
            work.peers["numpy-reference"] = numpy_reference
        if "torch" in peers:
            add_torch_peers(work, "fused-adagrad", [host["InputParametersTensor"]], [host["GradientTensor"]],
                            lambda torch, params: torch.optim.Adagrad(params, lr=HYPER["LearningRate"], fused=True))
        return work


@register_case
class AdagradDecaySparseCase(BenchCase):
    name = "adagrad-decay-sparse"
    description = "DMLSIM_OPERATOR_ADAGRAD_DECAY sparse: N indices (with duplicates) into a 1M x 64 table"
    dtypes = ("float32", "float16", "float64")
    default_sizes = (1 << 10, 1 << 16)
    size_unit = "indices into 1M x 64 rows"

    def footprint(self, dtype: str, size: int) -> int | None:
        return None  # the 1M x 64 table is the same at every size; N indices and gradient rows of 64 are far less

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        data_type, np_type = DATA_TYPES[dtype]
        count, size = elements, np.dtype(np_type).itemsize
        var = dml.buffer_tensor(data_type, [1, 1, TABLE_ROWS, ROW_LENGTH])
        power = dml.buffer_tensor(U32, [1, 1, TABLE_ROWS, 1])
        grad = dml.buffer_tensor(data_type, [1, 1, count, ROW_LENGTH])
        indices = sparse_indices(TABLE_ROWS, count)
        rng = np.random.default_rng(1)
        host = {"InputParametersTensor": normal(rng, TABLE_ROWS * ROW_LENGTH, np_type),
                "InputAccumulatorTensor": np.asarray(0.1, np_type), "InputDecayPowerTensor": np.uint32(0),
                "GradientTensor": normal(rng, count * ROW_LENGTH, np_type, 0.1),
                "IndicesTensor": indices, "GlobalStepTensor": np.uint32(STEP)}
        prepared = prepare_operator(device, _desc(var, power, grad, dml.buffer_tensor(U32, [1, 1, 1, count])),
                                    host, inplace=True)
        unique = int(np.unique(indices).size)
        moved = count * (ROW_LENGTH * size + 4) + unique * 2 * (2 * ROW_LENGTH * size + 4)
        work = Workload(prepared.compiled, prepared.table, moved, items=count, item_unit="rows", inplace=True)
        work.notes.append(f"adagrad-decay-sparse: {count} indices, {unique} unique rows of {TABLE_ROWS} x "
                          f"{ROW_LENGTH}; rate = indices (gradient rows) per second of device time")
        if not inplace:
            work.notes.append("adagrad-decay-sparse runs in place only (out of place copies the whole table first)")
        if "numpy" in peers:
            table = host["InputParametersTensor"].reshape(TABLE_ROWS, ROW_LENGTH)
            accum = np.full_like(table, 0.1)
            decay_power = np.zeros(TABLE_ROWS, np.int64)
            gradient = host["GradientTensor"].reshape(count, ROW_LENGTH)
            rows, local = np.unique(indices, return_inverse=True)

            def numpy_reference() -> None:
                """The reference on the touched rows only (gather, update, scatter), as dmlsim touches only them."""
                var, acc, power = adagrad_decay(table[rows], accum[rows], decay_power[rows], gradient, STEP,
                                                indices=local, **REFERENCE_HYPER)
                table[rows], accum[rows], decay_power[rows] = var, acc, power
            work.peers["numpy-reference"] = numpy_reference
        if "torch" in peers:
            add_torch_sparse_peer(work, host, indices, count)
        return work


def add_torch_sparse_peer(work: Workload, host: dict[str, Any], indices: np.ndarray, count: int) -> None:
    """``torch-index-add-cpu``: the same sparse update as a framework writes it with torch, on the same rows:
    ``unique`` of the indices, ``index_add_`` of the gradient rows, then AdagradDecay on the gathered rows
    (decay where due, accumulate, step) scattered back with ``index_copy_``. It dedups inside the timed
    step, as dmlsim does on the device; FLOAT32 only, in place, on torch's own CPU thread pool."""
    torch = torch_module()
    if torch is None:
        work.notes.append("torch peer: torch is not installed (pip install torch)")
        return
    if host["GradientTensor"].dtype != np.float32:
        work.notes.append("torch peer: adagrad-decay-sparse compares FLOAT32 only")
        return
    table = torch.tensor(host["InputParametersTensor"]).reshape(TABLE_ROWS, ROW_LENGTH)
    accum = torch.full_like(table, 0.1)
    decay_power = torch.zeros(TABLE_ROWS, dtype=torch.int64)
    gradient = torch.tensor(host["GradientTensor"]).reshape(count, ROW_LENGTH)
    index = torch.tensor(indices.astype(np.int64))
    h = REFERENCE_HYPER

    def step() -> None:
        rows, local = torch.unique(index, return_inverse=True)
        g = torch.zeros(rows.numel(), ROW_LENGTH).index_add_(0, local, gradient)
        power = decay_power.index_select(0, rows)
        decay = (STEP // h["decay_step"]) > power
        a = accum.index_select(0, rows)
        a = torch.where(decay[:, None], torch.clamp_min(a * h["decay_rate"], h["baseline"]), a).addcmul_(g, g)
        x = table.index_select(0, rows).sub_(h["learning_rate"] * g / a.sqrt())
        table.index_copy_(0, rows, x)
        accum.index_copy_(0, rows, a)
        decay_power.index_copy_(0, rows, power + decay.to(torch.int64))
    work.peers["torch-index-add-cpu"] = step

