"""Each kernel under each launch shape, on every OpenCL device (``DMLSIM_LAUNCH_SHAPE``).

The OpenCL backend picks a launch shape per device kind (dmlsim.backends.opencl.geometry): CPU
devices get few long chunked work-items and kernels built with ``-DDMLSIM_CPU`` (plain vector loads and
stores, F16C conversions and sqrtps where clang targets them: dmlsim/cl_kernels/dmlsim.h), GPUs a
grid-stride loop with OpenCL's vloadn/vstoren and, for the ONNX optimizers, 256 work-items per chunk with
float4 accesses. ``DMLSIM_LAUNCH_SHAPE=cpu|gpu`` forces one, so a CPU-only machine runs the GPU code paths
too. Shapes here (the ``shaped_device`` fixture, tests/conftest.py):
- ``cpu`` and ``gpu``: the forced kinds, on a device created while the variable is set;
- ``gpu-small-grid``: the GPU shape with one work-group per compute unit, so that every work-item of
  the grid-stride loop strides several times even on small tensors (on a real GPU the grid is
  smaller than large tensors; on a 2-core CPU device the default grid would cover them in one pass).
Expected values come from tests/oracles.py (independent float64 transcriptions of the specs).
"""

from __future__ import annotations

import numpy as np
import pytest
from layout_cases import F16, F32, check_adagrad_decay_dense, check_adam, check_onnx

from dmlsim.backends.opencl.programs import kernel_source
from dmlsim.operators.plan import KernelSource

pytestmark = pytest.mark.device
DTYPES = pytest.mark.parametrize("data_type", [F32, F16], ids=["f32", "f16"])


@DTYPES
@pytest.mark.parametrize("n", [5, 1003, 8 * 256 * 4 + 7, pytest.param(100_009, marks=pytest.mark.large)])
@pytest.mark.parametrize("inplace", [False, True], ids=["out_of_place", "in_place"])
def test_adam_packed(shaped_device, data_type, n, inplace):
    check_adam(shaped_device, (1, 1, 1, n), data_type=data_type, seed=n, inplace=inplace)


@DTYPES
def test_adam_padded(shaped_device, data_type):
    sizes = (1, 3, 5, 71)
    padded = [3 * 5 * 80, 5 * 80, 80, 1]
    check_adam(shaped_device, sizes, {role: padded for role in ("X", "M", "V", "G", "OX", "OM", "OV")},
               data_type=data_type, seed=3)


@pytest.mark.parametrize("op", ["adagrad", "adam", "momentum", "nesterov"])
@DTYPES
def test_onnx_mixed_shapes(shaped_device, op, data_type):
    """Tensors smaller than one vector, with tails, and larger than one chunk of either shape."""
    shapes = [[1], [7], [3, 5], [2, 1, 9], [4100], [8200], [2, 4097]]
    check_onnx(shaped_device, op, shapes, data_type=data_type, seed=4)


@pytest.mark.parametrize("op", ["adam", "momentum"])
def test_onnx_strided(shaped_device, op):
    shapes = [[3, 700], [5]]
    strides = {"G": [[701, 1], None], "OX": [[702, 1], [2]], "OV": [[1, 3], [3]], "OH": [[704, 1], [2]]}
    check_onnx(shaped_device, op, shapes, strides, seed=5)


@DTYPES
@pytest.mark.parametrize(("rows", "row_length"), [(1, 7), (5, 103), (64, 8), (33, 129)])
def test_adagrad_decay_dense(shaped_device, data_type, rows, row_length):
    """515 = 64·8 + 3 elements: 64 whole vectors and a tail that needs its own work-item."""
    check_adagrad_decay_dense(shaped_device, rows, row_length, data_type=data_type, seed=rows)


def test_adagrad_decay_dense_padded(shaped_device):
    check_adagrad_decay_dense(shaped_device, 5, 103, {role: [5 * 110, 5 * 110, 110, 1]
                                                      for role in ("VAR", "ACC", "GRAD", "OVAR", "OACC")})


# What dmlsim.h decided, compiled with the backend's own build options: [clang, direct vectors, F16C halves].
HEADER_PROBE = """
__kernel void header_probe(__global int *out)
{
#ifdef __clang__
    out[0] = 1;
#endif
#ifdef DMLSIM_DIRECT_VECTORS
    out[1] = 1;
#endif
#if defined(DMLSIM_DIRECT_VECTORS) && defined(__F16C__)
    out[2] = 1;
#endif
}
"""


def test_cpu_targets_build_kernels_with_plain_vector_access(shaped_device):
    backend = shaped_device.backend
    cpu = backend.target.is_cpu
    assert ("-DDMLSIM_CPU" in backend.programs.extra_options) == cpu
    cl = backend.cl
    text = kernel_source(KernelSource("dmlsim.cl_kernels", "dmlsim.h")) + HEADER_PROBE
    flags = np.zeros(3, np.int32)

    def probe():  # on the backend's OpenCL thread (Oclgrind's runtime is bound to one)
        program = cl.Program(backend.context, text).build(options=list(backend.programs.extra_options),
                                                          devices=[backend.device])
        out = cl.Buffer(backend.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=flags)
        program.header_probe(backend.queue, (1,), (1,), out)
        cl.enqueue_copy(backend.queue, flags, out)

    backend.on_device_thread(probe)
    clang, direct, f16c = (bool(f) for f in flags)
    assert direct == (cpu and clang), flags
    if cpu and "pocl" in backend.device.platform.version.lower() and "f16c" in _host_cpu_flags():
        assert f16c, "PoCL targets the host CPU, which has F16C: halves should convert in hardware"


def _host_cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            return set(next((line.split(":", 1)[1].split() for line in info if line.startswith("flags")), []))
    except OSError:
        return set()
