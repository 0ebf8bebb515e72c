"""pyopencl's device-choice environment variables, resolved by pyopencl's own code so that they mean
for dmlsim exactly what they mean for pyopencl programs and pyopencl's test fixtures.

- ``PYOPENCL_CTX`` ("platform:device", each an index or a name substring; ``pyopencl.choose_devices``):
  the default adapter when neither an adapter nor ``$DMLSIM_ADAPTER`` is given.
- ``PYOPENCL_TEST`` ("0:0,1;intel:i5", ``pyopencl.tools.get_test_platforms_and_devices``): the OpenCL
  devices the test suite runs on when ``$DMLSIM_TEST_ADAPTERS`` is not set.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from dmlsim.api.errors import E_INVALIDARG, DMLError
from dmlsim.backends.opencl.errors import import_pyopencl

if TYPE_CHECKING:  # type-only: adapters.py calls these, never the reverse
    from dmlsim.backends.adapters import AdapterInfo


def pyopencl_ctx_choice(adapters: list[AdapterInfo]) -> AdapterInfo:
    """The adapter ``$PYOPENCL_CTX`` names (as ``pyopencl.create_some_context`` would choose it)."""
    cl = import_pyopencl()
    value = os.environ.get("PYOPENCL_CTX", "")
    answers = value.split(":")
    try:
        if hasattr(cl, "choose_devices"):
            device = cl.choose_devices(interactive=False, answers=answers)[0]
        else:  # pragma: no cover - pyopencl before 2024.2
            device = cl.create_some_context(interactive=False, answers=answers).devices[0]
    except (RuntimeError, cl.Error) as exc:
        raise DMLError(E_INVALIDARG, f"PYOPENCL_CTX={value!r}: {exc}") from None
    return _adapter_of(device, adapters, f"PYOPENCL_CTX={value!r}")


def pyopencl_test_choice(adapters: list[AdapterInfo]) -> list[AdapterInfo]:
    """The adapters ``$PYOPENCL_TEST`` names, in its order (as pyopencl's test fixtures choose them)."""
    import_pyopencl()
    from pyopencl.tools import get_test_platforms_and_devices

    value = os.environ.get("PYOPENCL_TEST", "")
    try:
        chosen = [device for _platform, devices in get_test_platforms_and_devices(value) for device in devices]
    except RuntimeError as exc:
        raise DMLError(E_INVALIDARG, f"PYOPENCL_TEST={value!r}: {exc}") from None
    return [_adapter_of(device, adapters, f"PYOPENCL_TEST={value!r}") for device in chosen]


def _adapter_of(device: object, adapters: list[AdapterInfo], what: str) -> AdapterInfo:
    for adapter in adapters:
        if adapter.cl_device == device:
            return adapter
    raise DMLError(E_INVALIDARG, f"{what} chose a device dmlsim does not list")  # pragma: no cover
