"""Each kernel under each launch shape, on every OpenCL device (``DMLSIM_LAUNCH_SHAPE``).

The OpenCL backend picks a launch shape per device kind (dmlsim.backends.opencl.geometry): CPU
devices get few long chunked work-items, GPUs a grid-stride loop and, for the ONNX optimizers, 64
work-items per chunk with float4 accesses. ``DMLSIM_LAUNCH_SHAPE=cpu|gpu`` forces one, so a CPU-only
machine runs the GPU code paths too. Shapes here:
- ``cpu`` and ``gpu``: the forced kinds, on a device created while the variable is set;
- ``gpu-small-grid``: the GPU shape with one work-group per compute unit, so that every work-item of
  the grid-stride loop strides several times even on small tensors (on a real GPU the grid is
  smaller than large tensors; on a 2-core CPU device the default grid would cover them in one pass).
Expected values come from tests/oracles.py (independent float64 transcriptions of the specs).
"""

from __future__ import annotations

import pytest
from layout_cases import F16, F32, check_adagrad_decay_dense, check_adam, check_onnx

import dmlsim as dml
from dmlsim.backends.opencl import geometry
from dmlsim.entry import create_device
from dmlsim.testing import test_adapters

pytestmark = pytest.mark.device
OPENCL = [a for a in test_adapters() if a.kind != "reference"]
SHAPES = ["cpu", "gpu", "gpu-small-grid"]
DTYPES = pytest.mark.parametrize("data_type", [F32, F16], ids=["f32", "f16"])
_devices: dict = {}


@pytest.fixture(params=[(a, s) for a in OPENCL for s in SHAPES],
                ids=[f"{a.short_label}-{s}" for a in OPENCL for s in SHAPES])
def shaped_device(request, monkeypatch):
    adapter, shape = request.param
    kind = shape.split("-")[0]
    key = (adapter.index, kind)
    if key not in _devices:
        monkeypatch.setenv(geometry.SHAPE_VARIABLE, kind)  # read once, when the backend is created
        _devices[key] = create_device(dml.DML_CREATE_DEVICE_FLAG_NONE, adapter)
    device = _devices[key]
    assert device.backend.target.is_cpu == (kind == "cpu")
    if shape == "gpu-small-grid":
        monkeypatch.setattr(geometry, "GPU_GROUPS_PER_UNIT", 1)
    return device


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
