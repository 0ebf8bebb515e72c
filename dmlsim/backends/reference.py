"""The ``reference`` adapter: a numpy device running the same validation and binding code as OpenCL
devices, computing each dispatch with the float64 reference implementations (each operator's ``reference.py``).

Its working arrays are host memory like its buffers, and bounded like them, before anything is allocated
(issue 26 item 4): each dispatch's estimate (``Operator.reference_bytes``, from the desc: a broadcast input
is a view of a few bytes whose float64 copy may be 32 GiB, where the reference expands it) is charged
against :attr:`ReferenceBackend.working_limit` (half of the machine's physical memory: the arrays are
transient, the buffers beside them may be as large) when the dispatch is executed; over it,
ExecuteCommandLists refuses with ``E_OUTOFMEMORY`` naming the operator, before any dispatch of the call
has run. A model file's run charges the same estimate to its memory budget first (dmlsim.model.runner).
A ``MemoryError`` of numpy all the same is the same ``E_OUTOFMEMORY``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.api.errors import E_OUTOFMEMORY, DMLError
from dmlsim.api.tensor import store_elements, strided_array
from dmlsim.backends.adapters import AdapterInfo
from dmlsim.runtime.execution import BoundTensor


@dataclass
class HostTiming:
    """Wall time of one reference dispatch (the reference device has no profiling events)."""

    name: str
    device_ns: int


def tensor_view(bound: BoundTensor) -> np.ndarray:
    """A numpy view of a bound tensor's elements over the buffer's bytes (strides honoured)."""
    return strided_array(bound.buffer.storage, bound.layout, bound.offset)


class ReferenceBackend:
    """Executes dispatches on host memory with the reference implementations."""

    kind = "reference"
    has_fp64 = True

    def __init__(self, adapter: AdapterInfo) -> None:
        self.adapter = adapter
        self.driver = f"numpy {np.__version__}"
        self.max_buffer_size = physical_memory()
        self.working_limit = physical_memory() // 2  # bytes of working arrays one dispatch may hold

    def allocate(self, size: int) -> np.ndarray:
        try:
            return np.zeros(size, np.uint8)
        except MemoryError:
            raise DMLError(E_OUTOFMEMORY, f"allocating a {size}-byte buffer: out of host memory") from None

    def write(self, storage: np.ndarray, offset: int, data: np.ndarray) -> None:
        storage[offset:offset + data.size] = data

    def read(self, storage: np.ndarray, offset: int, size: int) -> bytes:
        return storage[offset:offset + size].tobytes()

    def copy(self, source: BoundTensor, destination: BoundTensor, size: int) -> None:
        data = source.buffer.storage[source.offset:source.offset + size].copy()
        destination.buffer.storage[destination.offset:destination.offset + size] = data

    def prepare(self, dispatch: Any) -> int:
        """The dispatch's working-array estimate in bytes (once per binding-table state)."""
        compiled = dispatch.compiled
        return compiled.operator.reference_bytes(compiled.validated)

    def admit(self, dispatches: Sequence[Any]) -> None:
        """Refuse (E_OUTOFMEMORY) before any of ``dispatches`` runs if one would hold more working arrays
        than :attr:`working_limit`."""
        for dispatch in dispatches:
            if hasattr(dispatch, "compiled"):
                self._charge(dispatch)

    def _charge(self, dispatch: Any) -> None:
        need = dispatch.prepared if isinstance(dispatch.prepared, int) else self.prepare(dispatch)
        if need > self.working_limit:
            raise DMLError(E_OUTOFMEMORY, f"ExecuteCommandLists: {dispatch.compiled.name} on the reference device "
                                          f"would hold about {_size(need)} of float64 working arrays (its "
                                          f"tensors' elements as its reference expands them), more than the "
                                          f"{_size(self.working_limit)} it may (half of this machine's physical "
                                          "memory); nothing was executed")

    def submit(self, dispatch: Any) -> list[HostTiming]:
        self._charge(dispatch)
        start = time.perf_counter_ns()
        compiled = dispatch.compiled
        try:
            inputs = {}
            for row in compiled.operator.input_fields:
                inputs[row.name] = _views(dispatch.bound.get(row.name))
            for name in compiled.operator.prior_outputs(compiled.validated):
                inputs[name] = _views(dispatch.bound.get(name)).copy()  # an output's contents before the dispatch
            outputs = compiled.operator.evaluate(compiled.validated, inputs)
            # every output is computed before any is written: in-place aliases see the old inputs
            for row in compiled.operator.output_fields:
                target = dispatch.bound.get(row.name)
                value = outputs.get(row.name)
                if target is None or value is None:
                    continue
                if isinstance(target, list):
                    for t, v in zip(target, value, strict=True):
                        _store(t, v)
                else:
                    _store(target, value)
        except MemoryError:  # the estimate fell short: still no bare MemoryError
            raise DMLError(E_OUTOFMEMORY, f"ExecuteCommandLists: {compiled.name} on the reference device ran out "
                                          "of host memory for its working arrays (estimated "
                                          f"{_size(dispatch.prepared)})") from None
        return [HostTiming(compiled.name, time.perf_counter_ns() - start)]

    def wait(self) -> None:
        return None


def physical_memory() -> int:
    """The machine's physical memory in bytes: no reference buffer may be larger (numpy's lazily
    zeroed pages would otherwise be granted, then exhaust memory when touched); 2^40 where unknown."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 2**40


def _size(size: Any) -> str:
    """``268435456`` → ``256 MiB (268435456 bytes)``, for refusals."""
    if not isinstance(size, int):
        return "an unknown amount"
    unit, scale = ("GiB", 1 << 30) if size >= 1 << 30 else ("MiB", 1 << 20)
    return f"{size / scale:.4g} {unit} ({size} bytes)"


def _views(bound: Any) -> Any:
    if bound is None:
        return None
    if isinstance(bound, list):
        return [tensor_view(b) for b in bound]
    return tensor_view(bound)


def _store(bound: BoundTensor, value: Any) -> None:
    with np.errstate(all="ignore"):
        store_elements(bound.buffer.storage, bound.layout, bound.offset, value)
