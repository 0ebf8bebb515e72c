"""What the runtime hands a backend, and what it expects back: the contract between the two.

A backend (dmlsim.backends) satisfies :class:`Backend`; the runtime calls only these methods and
never imports a backend. :class:`ResolvedDispatch` is one recorded operator dispatch with every
tensor field resolved to its bytes (:class:`BoundTensor`) and the temporary resource passed
explicitly; :class:`ResolvedCopies` is an operator initializer's work.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from dmlsim.api.structs import DML_BINDING_PROPERTIES
from dmlsim.api.tensor import TensorLayout

if TYPE_CHECKING:  # type-only names; these modules import this one, never the reverse at run time
    from dmlsim.runtime.binding import BindingSlot, BindingTable
    from dmlsim.runtime.buffer import Buffer
    from dmlsim.runtime.device import Device
    from dmlsim.runtime.dispatchable import CompiledOperator


@dataclass(frozen=True)
class BoundTensor:
    """A tensor's bytes: ``layout`` addressed from ``offset`` in ``buffer`` (``size`` bytes bound)."""

    buffer: Buffer
    offset: int
    size: int
    layout: TensorLayout | None  # None for temporary/persistent resources

    @property
    def end(self) -> int:
        """One past the last byte the tensor may touch: Offset + TotalTensorSizeInBytes."""
        return self.offset + (self.layout.total_bytes if self.layout is not None else self.size)

    def overlaps(self, other: BoundTensor) -> bool:
        return self.buffer is other.buffer and self.offset < other.end and other.offset < self.end


class Dispatchable:
    """IDMLDispatchable: something a binding table can be made for and a command list can dispatch."""

    device: Device

    def GetBindingProperties(self) -> DML_BINDING_PROPERTIES:
        raise NotImplementedError

    def input_slots(self) -> list[BindingSlot]:
        raise NotImplementedError

    def output_slots(self) -> list[BindingSlot]:
        raise NotImplementedError

    def resolve(self, table: BindingTable) -> Any:
        raise NotImplementedError


@dataclass
class ResolvedDispatch:
    """One operator dispatch with every tensor resolved to its bytes (OWNED_BY_DML ones included)."""

    compiled: CompiledOperator
    bound: dict[str, Any]
    temporary: BoundTensor | None
    prepared: Any = field(default=None, repr=False)  # backend-specific, made once per table state


@dataclass
class ResolvedGraph:
    """A compiled graph's dispatch: its nodes' dispatches in execution order."""

    dispatches: list[ResolvedDispatch]


def dispatches_of(items: Sequence[Any]) -> list[Any]:
    """Command-list items with every graph expanded into its node dispatches (copies kept as they are)."""
    flat: list[Any] = []
    for item in items:
        flat += item.dispatches if isinstance(item, ResolvedGraph) else [item]
    return flat


@dataclass
class ResolvedCopies:
    """An initializer dispatch: (source, destination offset in a persistent resource) copies."""

    copies: list[tuple[BoundTensor, BoundTensor]]
    prepared: Any = None




class DispatchTiming(Protocol):
    """How long one executed launch took on the device, in nanoseconds."""

    name: str

    @property
    def device_ns(self) -> int: ...


class Backend(Protocol):
    """What a device needs from the thing that stores its buffers and runs its dispatches."""

    kind: str
    has_fp64: bool
    driver: str
    max_buffer_size: int  # the largest buffer it can allocate, in bytes (larger: E_OUTOFMEMORY before trying)

    def allocate(self, size: int) -> Any:
        """Zero-filled storage of ``size`` bytes (what :class:`Buffer` keeps as ``storage``)."""

    def write(self, storage: Any, offset: int, data: np.ndarray) -> None:
        """Copy ``data`` (uint8) into ``storage`` at ``offset``; blocking."""

    def read(self, storage: Any, offset: int, size: int) -> bytes:
        """``size`` bytes of ``storage`` from ``offset``, after every queued dispatch."""

    def copy(self, source: BoundTensor, destination: BoundTensor, size: int) -> None:
        """Queue a copy of ``size`` bytes between two bound regions (operator initializers)."""

    def prepare(self, dispatch: ResolvedDispatch) -> Any:
        """Whatever the backend wants to make once per binding-table state (built, bound kernels)."""

    def admit(self, dispatches: Sequence[ResolvedDispatch | ResolvedCopies]) -> None:
        """Refuse (DMLError) what one ExecuteCommandLists call holds before any of it runs, if the backend
        cannot run some of it (the reference device's working-memory limit); nothing for most backends."""

    def submit(self, dispatch: ResolvedDispatch) -> Sequence[DispatchTiming]:
        """Queue one prepared dispatch; its timings are complete after :meth:`wait`."""

    def wait(self) -> None:
        """Block until everything queued has finished."""
