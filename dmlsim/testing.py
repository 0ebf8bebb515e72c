"""Which adapters the test suite runs on (pyopencl-style: every device present, filtered by env var).

``DMLSIM_TEST_ADAPTERS``: comma-separated adapter specs (as for DMLCreateDevice: ``reference``,
``P:D``, an index or a name, see dmlsim.backends.adapters); default: ``$PYOPENCL_TEST``'s devices, else
every usable OpenCL device but a simulator, plus ``reference``.
``DMLSIM_REQUIRE_OPENCL=1`` makes a run with no OpenCL device an error instead of a reference-only
run: CI sets it so that a missing driver can never pass as green.

Two PoCL builds in one process conflict (the second fails to build kernels), so ``make test`` runs
the device tier once per OpenCL ICD, each run seeing one ICD through ``OCL_ICD_VENDORS``.
"""

from __future__ import annotations

import os
from typing import Any

from dmlsim.backends.adapters import (
    SIMULATOR,
    AdapterInfo,
    opencl_adapters,
    pyopencl_test_adapters,
    reference_adapter,
    select_adapter,
)
from dmlsim.backends.opencl.probe import probe


def test_adapters() -> list[AdapterInfo]:
    """The adapters device tests are parametrized over: usable OpenCL devices (see probe) + reference.

    ``$DMLSIM_TEST_ADAPTERS`` chooses instead; else ``$PYOPENCL_TEST`` (pyopencl's own syntax,
    ``0:0,1;intel:i5``, resolved by ``pyopencl.tools``) chooses the OpenCL devices, as it does for
    pyopencl's test fixtures, and the reference device is added.
    """
    spec = os.environ.get("DMLSIM_TEST_ADAPTERS", "").strip()
    if not spec:
        if os.environ.get("PYOPENCL_TEST", "").strip():
            return [*pyopencl_test_adapters(), reference_adapter()]
        return [*usable_opencl_adapters(), reference_adapter()]
    chosen = []
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        if part == "opencl":
            chosen += usable_opencl_adapters()
        else:
            chosen.append(select_adapter(part))
    return chosen


def usable_opencl_adapters() -> list[AdapterInfo]:
    """OpenCL devices that build and run a probe kernel; simulators (Oclgrind) only when named."""
    return [a for a in opencl_adapters() if a.kind != SIMULATOR and probe(a) is None]


def unusable_opencl_adapters() -> list[tuple[AdapterInfo, str]]:
    """OpenCL devices present that cannot build a kernel, with the reason (reported, and tested for a
    clear error, instead of failing every device test)."""
    return [(a, problem) for a in opencl_adapters() if (problem := probe(a)) is not None]


test_adapters.__test__ = False  # type: ignore[attr-defined] - not a pytest test


def require_opencl() -> bool:
    return os.environ.get("DMLSIM_REQUIRE_OPENCL", "") not in ("", "0")


__all__ = ["OpenCLDispatchGuard", "reference_adapter", "require_opencl", "test_adapters"]


class OpenCLDispatchGuard:
    """Proves that an OpenCL device computed with its kernels, not with the reference math.

    While active: every :meth:`Operator.evaluate` (the float64 reference of each registered operator)
    raises when called inside ``OpenCLBackend.submit``, and every submit must enqueue one kernel per
    prepared launch, at least one in all (``OpenCLBackend.kernels_enqueued``). Violations are raised
    where they happen *and* recorded in :attr:`violations`, so that a caller who catches exceptions
    (``pytest.raises(Exception)``) still fails at teardown. :attr:`dispatches` and :attr:`kernels`
    count what was checked.
    """

    def __init__(self) -> None:
        self.violations: list[str] = []
        self.dispatches = 0
        self.kernels = 0
        self._depth = 0
        self._undo: list[tuple[Any, str, Any]] = []

    def _patch(self, owner: Any, name: str, value: Any) -> None:
        self._undo.append((owner, name, owner.__dict__.get(name, _MISSING)))
        setattr(owner, name, value)

    def _fail(self, message: str) -> AssertionError:
        self.violations.append(message)
        return AssertionError(message)

    def __enter__(self) -> OpenCLDispatchGuard:
        from dmlsim.backends.opencl.runtime import OpenCLBackend
        from dmlsim.operators.base import OPERATORS

        guard = self
        submit = OpenCLBackend.submit

        def guarded_submit(backend: Any, dispatch: Any) -> Any:
            before = backend.kernels_enqueued
            guard._depth += 1
            try:
                result = submit(backend, dispatch)
            finally:
                guard._depth -= 1
            guard.dispatches += 1
            launched = backend.kernels_enqueued - before
            guard.kernels += launched
            expected = len(dispatch.prepared or ())
            if launched == 0 or launched != expected:
                raise guard._fail(f"OpenCL dispatch of {dispatch.compiled.name} enqueued {launched} kernel(s) "
                                  f"for {expected} prepared launch(es): it did not compute with its kernels")
            return result

        self._patch(OpenCLBackend, "submit", guarded_submit)
        for cls in {type(op) for op in OPERATORS.values()}:
            evaluate = cls.evaluate

            def guarded_evaluate(op: Any, *args: Any, _evaluate: Any = evaluate, **kwargs: Any) -> Any:
                if guard._depth:
                    raise guard._fail(f"{type(op).__name__}.evaluate (the float64 reference) was called while "
                                      "an OpenCL device was dispatching")
                return _evaluate(op, *args, **kwargs)

            self._patch(cls, "evaluate", guarded_evaluate)
        return self

    def __exit__(self, *exc: Any) -> None:
        while self._undo:
            owner, name, value = self._undo.pop()
            if value is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, value)


_MISSING = object()
