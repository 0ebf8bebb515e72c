"""OpenCL trouble becomes a DMLError that says what to do: no driver at all, or a kernel that fails to build."""

from __future__ import annotations

import pytest
from adam_support import FLOAT32, adam_desc

import dmlsim as dml
import dmlsim.backends.adapters as adapters_module
import dmlsim.backends.opencl.errors as errors_module
import dmlsim.backends.opencl.programs as programs_module
from dmlsim.backends.opencl.programs import ProgramCache
from dmlsim.entry import create_device
from dmlsim.operators.plan import KernelSource
from dmlsim.quick import run_operator

FIX = "pip install 'dmlsim[pocl]'"


class _NoPlatformCL:
    """Stands in for pyopencl on a machine with an ICD loader but no OpenCL platform."""

    class Error(Exception):
        code = -1001  # CL_PLATFORM_NOT_FOUND_KHR, as pyopencl's cl.Error.code gives it

    @classmethod
    def get_platforms(cls):
        raise cls.Error("clGetPlatformIDs failed: PLATFORM_NOT_FOUND_KHR")


def _no_pyopencl():
    raise dml.DMLError(dml.DXGI_ERROR_UNSUPPORTED,
                       f"pyopencl is not importable (simulated); {errors_module.NO_OPENCL_FIX}")


@pytest.mark.parametrize("situation", ["no_platform", "no_pyopencl", "no_devices"])
def test_no_opencl_names_the_fix(monkeypatch, situation):
    monkeypatch.delenv("DMLSIM_ADAPTER", raising=False)
    if situation == "no_platform":
        fake = lambda: _NoPlatformCL  # noqa: E731 - a stand-in for the import function
        monkeypatch.setattr(errors_module, "import_pyopencl", fake)
        monkeypatch.setattr(adapters_module, "import_pyopencl", fake, raising=False)
    elif situation == "no_pyopencl":
        monkeypatch.setattr(errors_module, "import_pyopencl", _no_pyopencl)
        monkeypatch.setattr(adapters_module, "import_pyopencl", _no_pyopencl, raising=False)
    else:
        monkeypatch.setattr(adapters_module, "opencl_adapters", lambda: [])
    assert adapters_module.opencl_adapters() == []
    with pytest.raises(dml.DMLError) as info:
        dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, adapter=None)
    assert info.value.hresult == dml.DXGI_ERROR_UNSUPPORTED
    assert FIX in str(info.value) and "adapter='reference'" in str(info.value)
    assert dml.DMLCreateDevice(adapter="reference").adapter.kind == "reference"  # the way out still works


BROKEN = "__kernel void adam_optimizer(__global float *x) { x[0] = undefined_identifier; }\n"


def test_kernel_build_failure_carries_log_and_options(adapter, monkeypatch):
    if adapter.kind == "reference":
        pytest.skip("the reference device builds no OpenCL kernels")
    device = create_device(dml.DML_CREATE_DEVICE_FLAG_NONE, adapter)  # fresh: its program cache is empty
    monkeypatch.setattr(programs_module, "kernel_source", lambda source: BROKEN)
    with pytest.raises(dml.DMLError) as info:
        source = KernelSource("dmlsim.operators.adam_optimizer")
        cache = ProgramCache(device.backend.context, device.backend.device)
        device.backend.on_device_thread(cache.program, source, {"VEC": 8, "PACKED": True})
    message = str(info.value)
    assert info.value.hresult == dml.E_FAIL
    assert "dmlsim/operators/adam_optimizer/kernel.cl" in message
    assert "options: -DPACKED -DVEC=8 -cl-std=CL1.2" in message
    assert "build log" in message and "undefined_identifier" in message

    with pytest.raises(dml.DMLError) as info:  # the same through the API: RecordDispatch builds the kernel
        run_operator(device, adam_desc(FLOAT32, (1, 1, 1, 8)), {})
    assert info.value.hresult == dml.E_FAIL and "undefined_identifier" in str(info.value)


@pytest.mark.parametrize("code, hresult", [(-4, dml.E_OUTOFMEMORY), (-5, dml.E_OUTOFMEMORY), (-6, dml.E_OUTOFMEMORY),
                                           (-1001, dml.DXGI_ERROR_UNSUPPORTED), (-61, dml.E_FAIL), (None, dml.E_FAIL)])
def test_opencl_errors_map_by_status_code_not_by_text(code, hresult):
    class FakeError(Exception):
        pass

    error = FakeError("OUT_OF_RESOURCES PLATFORM_NOT_FOUND_KHR")  # the text must not decide
    error.code = code
    assert errors_module.dml_error("doing a thing", error).hresult == hresult


def test_pocl_pins_its_threads_unless_the_user_says_otherwise(monkeypatch):
    """Importing pyopencl through dmlsim sets POCL_AFFINITY=1 before any driver starts (PoCL reads it once, when
    its CPU driver starts; unpinned, its two workers shared one core of a 2-core host for 100 ms and more), and
    leaves a value the user set."""
    import os

    from dmlsim.backends.opencl.errors import POCL_AFFINITY, import_pyopencl

    monkeypatch.delenv(POCL_AFFINITY, raising=False)
    import_pyopencl()
    assert os.environ[POCL_AFFINITY] == "1"
    monkeypatch.setenv(POCL_AFFINITY, "0")
    import_pyopencl()
    assert os.environ[POCL_AFFINITY] == "0"
