"""The ``reference`` adapter: a numpy device running the same validation and binding code as OpenCL
devices, computing each dispatch with the float64 reference implementations (each operator's ``reference.py``)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.api.errors import E_OUTOFMEMORY, DMLError
from dmlsim.api.tensor import strided_array
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

    def prepare(self, dispatch: Any) -> None:
        return None

    def submit(self, dispatch: Any) -> list[HostTiming]:
        start = time.perf_counter_ns()
        compiled = dispatch.compiled
        inputs = {}
        for row in compiled.operator.input_fields:
            inputs[row.name] = _views(dispatch.bound.get(row.name))
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


def _views(bound: Any) -> Any:
    if bound is None:
        return None
    if isinstance(bound, list):
        return [tensor_view(b) for b in bound]
    return tensor_view(bound)


def _store(bound: BoundTensor, value: Any) -> None:
    view = tensor_view(bound)
    with np.errstate(all="ignore"):
        view[...] = np.asarray(value).astype(view.dtype)
