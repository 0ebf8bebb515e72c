"""Fixtures: ``device`` runs a test once per adapter (every OpenCL device present, plus reference);
``shaped_device`` once per OpenCL device and launch shape (see tests/test_launch_shapes.py)."""

from __future__ import annotations

import os
import sys

import pytest

import dmlsim as dml
from dmlsim.backends.opencl import geometry
from dmlsim.entry import create_device
from dmlsim.testing import OpenCLDispatchGuard, require_opencl, test_adapters, unusable_opencl_adapters

ADAPTERS = test_adapters()


def pytest_addoption(parser):
    parser.addoption("--harness-cases", type=int, default=None,
                     help="cases per operator of tests/test_operator_harness.py (default $DMLSIM_HARNESS_CASES or 2)")


def pytest_report_header(config):
    lines = ["dmlsim adapters: " + "; ".join(a.label for a in ADAPTERS)]
    lines += [f"dmlsim UNUSABLE adapter (its device tests are replaced by tests/test_adapters.py): {a.label}: {why}"
              for a, why in unusable_opencl_adapters()]
    return lines


def pytest_sessionstart(session):
    if require_opencl() and not any(a.kind != "reference" for a in ADAPTERS):
        raise pytest.UsageError("DMLSIM_REQUIRE_OPENCL is set but no OpenCL device was found: "
                                "install one (`pip install 'dmlsim[pocl]'` or `apt install pocl-opencl-icd`)")


_devices: dict[tuple[str, int], dml.Device] = {}
_HAS_OPENCL = any(a.kind != "reference" for a in ADAPTERS)


@pytest.fixture(autouse=True)
def registered_operators_restored():
    """Every test: an operator unregistered by tests/unimplemented_support.an_unimplemented_schema (to test
    what happens to an operator without a kernel, now that every DirectML operator has one) is registered
    again afterwards."""
    from unimplemented_support import restore_unregistered

    yield
    restore_unregistered()


@pytest.fixture(autouse=True)
def opencl_computes_with_kernels():
    """Every test: an OpenCL dispatch that does not enqueue its kernels, or that calls an operator's
    float64 reference (Operator.evaluate), fails the test (dmlsim.testing.OpenCLDispatchGuard) — so
    that an OpenCL device silently computing with the reference can never pass as green."""
    if not _HAS_OPENCL:
        yield None
        return
    with OpenCLDispatchGuard() as guard:
        yield guard
    assert not guard.violations, "\n".join(guard.violations)


def _device(adapter, flags):
    key = (adapter.index, flags)
    if key not in _devices:
        _devices[key] = create_device(flags, adapter)
    return _devices[key]


@pytest.fixture(params=ADAPTERS, ids=[a.short_label for a in ADAPTERS])
def adapter(request):
    return request.param


@pytest.fixture
def device(adapter):
    """A (session-cached) plain device on each adapter."""
    return _device(adapter, dml.DML_CREATE_DEVICE_FLAG_NONE)


@pytest.fixture
def debug_device(adapter):
    """A (session-cached) DML_CREATE_DEVICE_FLAG_DEBUG device on each adapter."""
    return _device(adapter, dml.DML_CREATE_DEVICE_FLAG_DEBUG)


@pytest.fixture
def ref_device():
    """The reference device: for tests of validation and binding rules, which no backend changes."""
    return _device(dml.all_adapters()[-1], dml.DML_CREATE_DEVICE_FLAG_NONE)


OPENCL_ADAPTERS = [a for a in ADAPTERS if a.kind != "reference"]
# cpu and gpu: the forced kinds (DMLSIM_LAUNCH_SHAPE), on a device created while the variable is set;
# gpu-small-grid: the GPU shape with one work-group per compute unit, so that every work-item of the
# grid-stride loop strides several times even on small tensors
SHAPES = ["cpu", "gpu", "gpu-small-grid"]
_shaped_devices: dict[tuple[int, str], dml.Device] = {}


@pytest.fixture(params=[(a, s) for a in OPENCL_ADAPTERS for s in SHAPES],
                ids=[f"{a.short_label}-{s}" for a in OPENCL_ADAPTERS for s in SHAPES])
def shaped_device(request, monkeypatch):
    """A (session-cached) device on each OpenCL adapter under each launch shape: a CPU-only machine runs the
    GPU code paths too (and a GPU the CPU ones)."""
    adapter, shape = request.param
    kind = shape.split("-")[0]
    key = (adapter.index, kind)
    if key not in _shaped_devices:
        monkeypatch.setenv(geometry.SHAPE_VARIABLE, kind)  # read once, when the backend is created
        _shaped_devices[key] = create_device(dml.DML_CREATE_DEVICE_FLAG_NONE, adapter)
    device = _shaped_devices[key]
    assert device.backend.target.is_cpu == (kind == "cpu")
    if shape == "gpu-small-grid":
        monkeypatch.setattr(geometry, "GPU_GROUPS_PER_UNIT", 1)
    return device


def pytest_collection_modifyitems(items):
    for item in items:
        if {"adapter", "shaped_device"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.device)


# --- Oclgrind: no interpreter finalization ------------------------------------------------------------------------
def pytest_sessionfinish(session, exitstatus):
    session.config.stash[_EXIT_STATUS] = int(exitstatus)


_EXIT_STATUS = pytest.StashKey[int]()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """Under Oclgrind's ICD, end the process once pytest has reported (its summary, its JUnit XML, its exit
    status): the OpenCL objects the interpreter's finalization would release are released on the main thread,
    where Oclgrind has no shadow-memory pool (dmlsim/backends/opencl/oclgrind.py), and the simulator then crashes
    (CI saw `pytest exit -11` after every test of the Oclgrind tier had passed). Only the tier's teardown is
    skipped; every test ran and was judged. A caller that must go on after pytest.main (tools/mutants.py's child,
    which then checks what was imported) sets DMLSIM_TESTS_RETURN and ends its process the same way itself."""
    returning = os.environ.get("DMLSIM_TESTS_RETURN") == "1"
    if os.environ.get("DMLSIM_TEST_ADAPTERS") == "oclgrind" and _EXIT_STATUS in config.stash and not returning:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(config.stash[_EXIT_STATUS])
