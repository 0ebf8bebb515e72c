"""CPU kernels use vectors of at most 256 bits (dmlsim.operators.plan.CPU_VECTOR_BYTES), whatever the device.

PyPI's PoCL 3.0 compiles for the CPU its LLVM 14 names (znver3 on an AMD Zen 4) and links the kernel library
built for the AVX-512 that cpuid reports: a built-in called with a 512-bit vector (double8) then breaks
the calling convention (FLOAT64 AdagradDecay came back INVALID_KERNEL_NAME and the process aborted on
exit). Only such machines show it on a device, so the planners are checked here directly, on the
reference device's bindings, for a CPU and a GPU launch target.
"""

from __future__ import annotations

import numpy as np
import pytest
from adagrad_decay_support import make_desc as adagrad_decay_desc
from dispatch import Dispatch
from onnx_support import make_desc as onnx_desc

import dmlsim as dml
from dmlsim.operators.plan import CPU_VECTOR_BYTES, LaunchTarget

CPU, GPU = LaunchTarget(is_cpu=True, compute_units=2), LaunchTarget(is_cpu=False, compute_units=132)
F64, F32, F16, I64 = (dml.DML_TENSOR_DATA_TYPE_FLOAT64, dml.DML_TENSOR_DATA_TYPE_FLOAT32,
                      dml.DML_TENSOR_DATA_TYPE_FLOAT16, dml.DML_TENSOR_DATA_TYPE_INT64)
COMPUTE_BYTES = {F64: 8, I64: 8, F32: 4, F16: 4}  # FLOAT16 is storage: the optimizers compute in float


def vector_widths(ref_device, op_desc, target):
    """VEC of every launch the operator plans for ``target``, bound as tests/dispatch.py binds it."""
    dispatch = Dispatch(ref_device, op_desc)
    resolved = dispatch.table.resolved(ref_device.backend)
    compiled = resolved.compiled
    launches = compiled.operator.plan_launches(compiled.validated, resolved.bound, target)
    return [launch.defines["VEC"] for launch in launches if "VEC" in launch.defines]


DESCS = {
    "adagrad-decay": lambda t: dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ADAGRAD_DECAY,
                                                     adagrad_decay_desc(t, 4, 64)),
    "onnx-adam": lambda t: onnx_desc("adam", [[64], [100]], data_type=t),
    "add": lambda t: dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ELEMENT_WISE_ADD, dml.DML_ELEMENT_WISE_ADD_OPERATOR_DESC(
        dml.buffer_tensor(t, [1, 1, 4, 64]), dml.buffer_tensor(t, [1, 1, 4, 64]), dml.buffer_tensor(t, [1, 1, 4, 64]))),
}


EIGHT_BYTE = {"adagrad-decay": F64, "onnx-adam": F64, "add": I64}  # each operator's 8-byte type
CASES = [(name, t) for name in sorted(DESCS) for t in (EIGHT_BYTE[name], F32, F16)]


@pytest.mark.parametrize(("name", "data_type"), CASES, ids=[f"{n}-{t.name.split('_')[-1]}" for n, t in CASES])
def test_cpu_vectors_are_at_most_256_bits_and_as_wide_as_that_allows(ref_device, name, data_type):
    widths = vector_widths(ref_device, DESCS[name](data_type), CPU)
    assert widths, f"{name}: no vectorised launch planned"
    assert all(w * COMPUTE_BYTES[data_type] <= CPU_VECTOR_BYTES for w in widths), widths
    assert max(widths) == min(8, CPU_VECTOR_BYTES // COMPUTE_BYTES[data_type]), widths


@pytest.mark.parametrize("name", sorted(DESCS))
def test_gpu_vector_widths_are_not_capped(ref_device, name):
    wide = vector_widths(ref_device, DESCS[name](EIGHT_BYTE[name]), GPU)
    assert wide and wide == vector_widths(ref_device, DESCS[name](F32), GPU)


def test_vector_width_caps_by_element_size_on_cpus_only():
    assert [CPU.vector_width(8, size) for size in (1, 2, 4, 8, 16, 64)] == [8, 8, 8, 4, 2, 1]
    assert [GPU.vector_width(8, size) for size in (4, 8)] == [8, 8]
    assert np.all([CPU.stream_vec(size) * size <= CPU_VECTOR_BYTES for size in (4, 8)])
