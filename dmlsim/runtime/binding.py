"""Binding tables: checking each DML_BINDING_DESC against its tensor, and DirectML's aliasing rules.

Every Bind* call is checked completely before anything is stored, so a refused call leaves the table
as it was. Hazards between inputs and outputs are checked when a dispatch is recorded, when both
sides are known (DirectML's debug layer reports them at the same point).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any

from dmlsim.api.arguments import as_enum, is_integer, require_sequence, shown
from dmlsim.api.enums import DML_BINDING_TYPE, DML_EXECUTION_FLAGS
from dmlsim.api.errors import E_INVALIDARG, DMLError, Problems
from dmlsim.api.structs import DML_BINDING_DESC, DML_BINDING_TABLE_DESC, DML_BUFFER_ARRAY_BINDING, DML_BUFFER_BINDING
from dmlsim.api.tensor import (
    DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT,
    DML_PERSISTENT_BUFFER_ALIGNMENT,
    DML_TEMPORARY_BUFFER_ALIGNMENT,
    TensorLayout,
)
from dmlsim.runtime.buffer import Buffer
from dmlsim.runtime.execution import BoundTensor, Dispatchable, dispatches_of

if TYPE_CHECKING:
    from dmlsim.runtime.device import Device

_BT = DML_BINDING_TYPE
_SLOTS_NAMED = 8  # slots a wrong-length Bind* message names


@dataclass(frozen=True)
class BindingSlot:
    """What one position of BindInputs/BindOutputs expects: a tensor, an array of them, or nothing."""

    name: str  # "GradientTensor", "Persistent[0]"
    layouts: TensorLayout | list[TensorLayout] | None
    optional: bool
    array: bool = False
    must_be_none: str | None = None  # why NONE is required here (OWNED_BY_DML inputs at execution)
    resource_size: int = 0  # > 0: a persistent/temporary resource of at least this many bytes


def check_buffer_binding(binding: Any, layout: TensorLayout | None, where: str, device: Device,
                         problems: Problems, *, alignment: int = DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT,
                         required_size: int | None = None) -> BoundTensor | None:
    """Check one DML_BUFFER_BINDING (offset alignment, size, range, owner); return what it binds."""
    if not isinstance(binding, DML_BUFFER_BINDING):
        problems.add(f"{where}.Desc must be a DML_BUFFER_BINDING, got {type(binding).__name__}")
        return None
    buffer = binding.Buffer
    if not isinstance(buffer, Buffer):
        problems.add(f"{where}.Buffer must be a buffer from CreateBuffer, got {type(buffer).__name__}")
        return None
    if buffer.device is not device:
        problems.add(f"{where}.Buffer belongs to another device")
        return None
    offset = binding.Offset
    if not is_integer(offset) or offset < 0:
        problems.add(f"{where}.Offset must be a non-negative integer, got {shown(offset)}")
        return None
    offset = int(offset)
    if layout is not None:
        alignment = max(alignment, layout.alignment)
    if offset % alignment:
        problems.add(f"{where}.Offset {shown(offset)} must be a multiple of {alignment}")
    size = binding.SizeInBytes if binding.SizeInBytes is not None else max(buffer.size - offset, 0)
    if not is_integer(size) or size < 0:
        problems.add(f"{where}.SizeInBytes must be a non-negative integer, got {shown(size)}")
        return None
    size = int(size)
    needed = layout.total_bytes if layout is not None else (required_size or 0)
    if size < needed:
        what = "TotalTensorSizeInBytes" if layout is not None else "the required resource size"
        problems.add(f"{where}.SizeInBytes {shown(size)} is less than {what} {needed}")
    if offset + size > buffer.size:
        problems.add(f"{where}: Offset {shown(offset)} + SizeInBytes {shown(size)} exceeds the buffer's "
                     f"{buffer.size} bytes")
    return BoundTensor(buffer, offset, size, layout)


def bind_slots(slots: Sequence[BindingSlot], bindings: Sequence[DML_BINDING_DESC] | None, call: str,
               device: Device, problems: Problems) -> dict[str, Any]:
    """Check a whole BindInputs/BindOutputs list against its slots; return field → BoundTensor(s)."""
    bindings = require_sequence(bindings, f"{call}: bindings", allow_none=True)
    if len(bindings) != len(slots):  # the names of at most _SLOTS_NAMED slots: a graph may have a million
        names = ", ".join(s.name for s in islice(slots, _SLOTS_NAMED)) or "none"
        names += ", ..." if len(slots) > _SLOTS_NAMED else ""
        problems.add(f"{call} takes {len(slots)} bindings ({names}), got {len(bindings)}")
        return {}
    bound: dict[str, Any] = {}
    for i, (slot, desc) in enumerate(zip(slots, bindings, strict=True)):
        where = f"{call}[{i}] ({slot.name})"
        if desc is None:
            desc = DML_BINDING_DESC(_BT.DML_BINDING_TYPE_NONE, None)
        if not isinstance(desc, DML_BINDING_DESC):
            problems.add(f"{where} must be a DML_BINDING_DESC, got {type(desc).__name__}")
            continue
        kind = as_enum(desc.Type, _BT)
        if kind is None:
            problems.add(f"{where}.Type {shown(desc.Type)} is not a DML_BINDING_TYPE")
            continue
        if kind == _BT.DML_BINDING_TYPE_NONE:
            if slot.resource_size:
                problems.add(f"{where}.Type is DML_BINDING_TYPE_NONE but a {slot.resource_size}-byte resource "
                             "is required")
            elif slot.layouts is not None and slot.must_be_none is None and not slot.optional:
                problems.add(f"{where}.Type is DML_BINDING_TYPE_NONE but the tensor is required")
            elif slot.layouts is not None and slot.must_be_none is None:
                problems.add(f"{where}.Type is DML_BINDING_TYPE_NONE but the desc gives this optional tensor")
            bound[slot.name] = None
            continue
        if slot.must_be_none is not None:
            problems.add(f"{where}.Type must be DML_BINDING_TYPE_NONE: {slot.must_be_none}")
            continue
        if slot.resource_size:
            if kind != _BT.DML_BINDING_TYPE_BUFFER:
                problems.add(f"{where}.Type must be DML_BINDING_TYPE_BUFFER, got {kind.name}")
                continue
            bound[slot.name] = check_buffer_binding(desc.Desc, None, where, device, problems,
                                                    alignment=DML_PERSISTENT_BUFFER_ALIGNMENT,
                                                    required_size=slot.resource_size)
            continue
        if slot.layouts is None:
            problems.add(f"{where}.Type must be DML_BINDING_TYPE_NONE: the desc gives no tensor here")
            continue
        if slot.array:
            if kind != _BT.DML_BINDING_TYPE_BUFFER_ARRAY:
                problems.add(f"{where}.Type must be DML_BINDING_TYPE_BUFFER_ARRAY (a tensor array), got {kind.name}")
                continue
            bound[slot.name] = _bind_array(desc.Desc, slot, where, device, problems)
        else:
            if kind != _BT.DML_BINDING_TYPE_BUFFER:
                problems.add(f"{where}.Type must be DML_BINDING_TYPE_BUFFER, got {kind.name}")
                continue
            bound[slot.name] = check_buffer_binding(desc.Desc, slot.layouts, where, device, problems)
    return bound


def _bind_array(array: Any, slot: BindingSlot, where: str, device: Device, problems: Problems) -> list:
    layouts = slot.layouts
    assert isinstance(layouts, Sequence)  # a list, or a compiled graph's lazy per-input sequence
    if not isinstance(array, DML_BUFFER_ARRAY_BINDING):
        problems.add(f"{where}.Desc must be a DML_BUFFER_ARRAY_BINDING, got {type(array).__name__}")
        return []
    items = array.Bindings
    if items is not None and not isinstance(items, (list, tuple)):
        problems.add(f"{where}.Bindings must be a list of DML_BUFFER_BINDING, got {type(items).__name__}")
        return []
    items = list(items or [])
    count = array.BindingCount
    if not is_integer(count) or count != len(items) or len(items) != len(layouts):
        problems.add(f"{where}: BindingCount {shown(count)} and {len(items)} Bindings must both equal "
                     f"the {len(layouts)} tensors of {slot.name}")
        return []
    result = []
    for j, (item, layout) in enumerate(zip(items, layouts, strict=True)):
        if layout is None:  # an initializer's entry for an input that is not OWNED_BY_DML
            if item is not None and getattr(item, "Buffer", None) is not None:
                problems.add(f"{where}.Bindings[{j}].Buffer must be null: that input is not OWNED_BY_DML")
            result.append(None)
            continue
        result.append(check_buffer_binding(item, layout, f"{where}.Bindings[{j}]", device, problems))
    return result


def check_hazards(inputs: dict[str, Any], outputs: dict[str, Any], eligible: set[str],
                  extra: dict[str, BoundTensor | None], problems: Problems) -> None:
    """DirectML's aliasing rules between the bound tensors of one dispatch (design.md §2).

    Input/input overlap is fine. An output may overlap an input only if both cover the identical
    region with the same layout and the input is eligible for in-place execution; partial overlap is
    never valid; outputs must not overlap each other; temporary/persistent resources overlap nothing.
    """
    ins = [(name, b) for name, b in _flatten(inputs) if b is not None]
    outs = [(name, b) for name, b in _flatten(outputs) if b is not None]
    for o_name, out in outs:
        for i_name, inp in ins:
            if not out.overlaps(inp):
                continue
            identical = out.offset == inp.offset and out.end == inp.end
            if not identical:
                problems.add(f"output {o_name} [{out.offset}, {out.end}) partially overlaps input {i_name} "
                             f"[{inp.offset}, {inp.end}) in the same buffer; only identical regions may alias")
            elif i_name.split("[")[0] not in eligible:
                problems.add(f"output {o_name} aliases input {i_name}, which is not eligible for in-place "
                             "execution")
            elif not out.layout.same_layout(inp.layout):
                problems.add(f"output {o_name} ({out.layout.describe()}) aliases input {i_name} "
                             f"({inp.layout.describe()}) with a different layout")
            elif _array_index(o_name) != _array_index(i_name):
                # a multi-tensor kernel updates tensor i while other work-groups still read tensor j
                problems.add(f"output {o_name} aliases input {i_name}: an element of a tensor array may only "
                             "be updated in place over the input element of the same index")
    for a in range(len(outs)):
        for b in range(a + 1, len(outs)):
            (na, ba), (nb, bb) = outs[a], outs[b]
            if ba.overlaps(bb):
                problems.add(f"outputs {na} [{ba.offset}, {ba.end}) and {nb} [{bb.offset}, {bb.end}) overlap")
    for r_name, resource in extra.items():
        if resource is None:
            continue
        for t_name, tensor in ins + outs:
            if resource.overlaps(tensor):
                problems.add(f"the {r_name} resource [{resource.offset}, {resource.end}) overlaps {t_name}")


def _array_index(name: str) -> str | None:
    """``"3"`` for ``"InputParametersTensors[3]"``; None for a field that is not a tensor array."""
    return name[name.index("[") + 1:-1] if name.endswith("]") else None


def _flatten(bound: dict[str, Any]) -> list[tuple[str, BoundTensor | None]]:
    flat = []
    for name, value in bound.items():
        if isinstance(value, list):
            flat += [(f"{name}[{i}]", b) for i, b in enumerate(value)]
        else:
            flat.append((name, value))
    return flat


class BindingTable:
    """IDMLBindingTable: the resources one dispatchable reads and writes."""

    def __init__(self, device: Device, desc: DML_BINDING_TABLE_DESC) -> None:
        self.device = device
        self._version = 0
        self._resolved: tuple[int, Any] | None = None
        self._set_dispatchable(desc)

    # --- IDMLBindingTable ---------------------------------------------------------------------------
    def BindInputs(self, bindings: Sequence[DML_BINDING_DESC] | None) -> None:
        problems = Problems()
        bound = bind_slots(self.dispatchable.input_slots(), bindings, "BindInputs", self.device, problems)
        problems.raise_if_any("IDMLBindingTable::BindInputs")
        self.inputs = bound
        self._version += 1

    def BindOutputs(self, bindings: Sequence[DML_BINDING_DESC] | None) -> None:
        problems = Problems()
        bound = bind_slots(self.dispatchable.output_slots(), bindings, "BindOutputs", self.device, problems)
        problems.raise_if_any("IDMLBindingTable::BindOutputs")
        self.outputs = bound
        self._version += 1

    def BindTemporaryResource(self, binding: DML_BINDING_DESC | None) -> None:
        self.temporary = self._bind_resource(binding, "BindTemporaryResource",
                                             self.dispatchable.GetBindingProperties().TemporaryResourceSize,
                                             DML_TEMPORARY_BUFFER_ALIGNMENT)

    def BindPersistentResource(self, binding: DML_BINDING_DESC | None) -> None:
        self.persistent = self._bind_resource(binding, "BindPersistentResource",
                                              self.dispatchable.GetBindingProperties().PersistentResourceSize,
                                              DML_PERSISTENT_BUFFER_ALIGNMENT)

    def Reset(self, desc: DML_BINDING_TABLE_DESC) -> None:
        self._set_dispatchable(desc)

    # --- dmlsim -------------------------------------------------------------------------------------
    def resolved(self, backend: Any) -> Any:
        """The dispatch this table describes, checked and prepared once per binding state."""
        if self._resolved is None or self._resolved[0] != self._version:
            dispatch = self.dispatchable.resolve(self)
            with self.device.execution_lock:  # builds programs, makes kernels, uploads tables: OpenCL calls
                for item in dispatches_of([dispatch]):
                    item.prepared = backend.prepare(item) if hasattr(item, "compiled") else None
            self._resolved = (self._version, dispatch)
        return self._resolved[1]

    @property
    def version(self) -> int:
        """Increases with every successful bind: what cached launch preparations are keyed on."""
        return self._version

    def _set_dispatchable(self, desc: DML_BINDING_TABLE_DESC) -> None:
        if not isinstance(desc, DML_BINDING_TABLE_DESC):
            raise DMLError(E_INVALIDARG, f"CreateBindingTable needs a DML_BINDING_TABLE_DESC, "
                                         f"got {type(desc).__name__}")
        dispatchable = desc.Dispatchable
        if not isinstance(dispatchable, Dispatchable):
            raise DMLError(E_INVALIDARG, "DML_BINDING_TABLE_DESC.Dispatchable must be a compiled operator or an "
                                         f"operator initializer, got {type(dispatchable).__name__}")
        if dispatchable.device is not self.device:
            raise DMLError(E_INVALIDARG, "DML_BINDING_TABLE_DESC.Dispatchable belongs to another device")
        required = dispatchable.GetBindingProperties().RequiredDescriptorCount
        size = desc.SizeInDescriptors
        if not is_integer(size) or size < required:
            raise DMLError(E_INVALIDARG, f"DML_BINDING_TABLE_DESC.SizeInDescriptors {shown(size)} is less than the "
                                         f"dispatchable's RequiredDescriptorCount {required}")
        self.dispatchable = dispatchable
        operator = getattr(dispatchable, "operator", None)
        # RecordDispatch's common case, known once per dispatchable: an implemented operator (or an
        # initializer) whose bindings are captured at record time
        self.captured_at_record = ((operator is None or operator.implemented)
                                   and not descriptors_volatile(dispatchable))
        self.inputs: dict[str, Any] | None = None
        self.outputs: dict[str, Any] | None = None
        self.temporary: BoundTensor | None = None
        self.persistent: BoundTensor | None = None
        self._version += 1

    def _bind_resource(self, binding: DML_BINDING_DESC | None, call: str, required: int,
                       alignment: int) -> BoundTensor | None:
        problems = Problems()
        result = None
        kind = as_enum(binding.Type, _BT) if isinstance(binding, DML_BINDING_DESC) else None
        if binding is None or kind == _BT.DML_BINDING_TYPE_NONE:
            if required:
                problems.add(f"{call}: the dispatchable needs a {required}-byte resource; got none")
        elif kind != _BT.DML_BINDING_TYPE_BUFFER:
            problems.add(f"{call}: the binding must be a DML_BINDING_DESC of DML_BINDING_TYPE_BUFFER or NONE")
        else:
            result = check_buffer_binding(binding.Desc, None, call, self.device, problems,
                                          alignment=alignment, required_size=required)
        problems.raise_if_any(f"IDMLBindingTable::{call}")
        self._version += 1
        return result


def descriptors_volatile(dispatchable: Any) -> bool:
    """Whether ``dispatchable`` was compiled with DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE (late binding).

    Operator initializers have no execution flags: their bindings are always captured at record.
    """
    return bool(int(getattr(dispatchable, "flags", 0)) & _DESCRIPTORS_VOLATILE)  # ints: an IntFlag & costs ~1 us


_DESCRIPTORS_VOLATILE = int(DML_EXECUTION_FLAGS.DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE)


@dataclass(frozen=True)
class LateBoundDispatch:
    """A dispatch recorded with DESCRIPTORS_VOLATILE: its binding table is read when the command list
    executes, so bindings set or changed after RecordDispatch (and before ExecuteCommandLists) take
    effect, as DirectML's late binding allows. Completeness and hazards are checked at execution."""

    dispatchable: Dispatchable
    table: BindingTable

    def resolve(self, backend: Any) -> Any:
        """The dispatch the table describes now; DMLError (nothing executed) when it is incomplete."""
        if self.table.dispatchable is not self.dispatchable:
            raise DMLError(E_INVALIDARG, "ExecuteCommandLists: the binding table of a late-bound dispatch "
                                         "(DESCRIPTORS_VOLATILE) was Reset for another dispatchable after "
                                         "RecordDispatch")
        try:
            return self.table.resolved(backend)
        except DMLError as exc:
            raise DMLError(exc.hresult, f"ExecuteCommandLists (late binding, DESCRIPTORS_VOLATILE): {exc}",
                           exc.problems) from None
