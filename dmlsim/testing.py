"""Which adapters the test suite runs on (pyopencl-style: every device present, filtered by env var).

``DMLSIM_TEST_ADAPTERS``: comma-separated adapter specs (as for DMLCreateDevice: ``reference``,
``P:D``, or a substring such as ``3.0-rc2``); default: every OpenCL device plus ``reference``.
``DMLSIM_REQUIRE_OPENCL=1`` makes a run with no OpenCL device an error instead of a reference-only
run: CI sets it so that a missing driver can never pass as green.

Two PoCL builds in one process conflict (the second fails to build kernels), so ``make test`` runs
the device tier once per OpenCL ICD, each run seeing one ICD through ``OCL_ICD_VENDORS``.
"""

from __future__ import annotations

import os

from dmlsim.backends.adapters import AdapterInfo, opencl_adapters, reference_adapter, select_adapter
from dmlsim.backends.opencl.probe import probe


def test_adapters() -> list[AdapterInfo]:
    """The adapters device tests are parametrized over: usable OpenCL devices (see probe) + reference."""
    spec = os.environ.get("DMLSIM_TEST_ADAPTERS", "").strip()
    if not spec:
        return [*usable_opencl_adapters(), reference_adapter()]
    chosen = []
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        if part == "opencl":
            chosen += usable_opencl_adapters()
        else:
            chosen.append(select_adapter(part))
    return chosen


def usable_opencl_adapters() -> list[AdapterInfo]:
    return [a for a in opencl_adapters() if probe(a) is None]


def unusable_opencl_adapters() -> list[tuple[AdapterInfo, str]]:
    """OpenCL devices present that cannot build a kernel, with the reason (reported, and tested for a
    clear error, instead of failing every device test)."""
    return [(a, problem) for a in opencl_adapters() if (problem := probe(a)) is not None]


test_adapters.__test__ = False  # type: ignore[attr-defined] - not a pytest test


def require_opencl() -> bool:
    return os.environ.get("DMLSIM_REQUIRE_OPENCL", "") not in ("", "0")


__all__ = ["reference_adapter", "require_opencl", "test_adapters"]
