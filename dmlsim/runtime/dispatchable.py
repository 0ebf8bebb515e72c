"""IDMLOperator, IDMLCompiledOperator and IDMLOperatorInitializer, and what one dispatch resolves to.

Tensors flagged DML_TENSOR_FLAG_OWNED_BY_DML are DirectML's "weights owned by the operator": they are
bound once to the operator initializer, which copies them into the compiled operator's persistent
resource; at execution their binding must be NONE and the persistent resource must be bound.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dmlsim.api.arguments import require_sequence
from dmlsim.api.enums import DML_EXECUTION_FLAGS
from dmlsim.api.errors import E_INVALIDARG, DMLError, Problems
from dmlsim.api.structs import DML_BINDING_PROPERTIES
from dmlsim.api.tensor import DML_PERSISTENT_BUFFER_ALIGNMENT, TensorLayout
from dmlsim.operators.base import ValidatedDesc
from dmlsim.runtime.binding import BindingSlot, BindingTable, check_hazards
from dmlsim.runtime.execution import BoundTensor, Dispatchable, ResolvedCopies, ResolvedDispatch

if TYPE_CHECKING:
    from dmlsim.runtime.device import Device


def _align(n: int, alignment: int) -> int:
    return -(-n // alignment) * alignment


class OperatorObject:
    """IDMLOperator: a validated operator desc, ready to compile."""

    def __init__(self, device: Device, validated: ValidatedDesc) -> None:
        self.device = device
        self.validated = validated

    @property
    def operator(self) -> Any:
        return self.validated.operator


class CompiledOperator(Dispatchable):
    """IDMLCompiledOperator."""

    def __init__(self, device: Device, op: OperatorObject, flags: int) -> None:
        self.device = device
        self.validated = op.validated
        self.operator = op.operator
        self.flags = DML_EXECUTION_FLAGS(flags)
        # persistent-resource slot of each OWNED_BY_DML input
        self.owned: dict[str, int] = {}
        offset = 0
        for row in self.operator.input_fields:
            layout = self.validated.tensors.get(row.name)
            if isinstance(layout, TensorLayout) and layout.owned_by_dml:
                self.owned[row.name] = offset
                offset = _align(offset + layout.total_bytes, DML_PERSISTENT_BUFFER_ALIGNMENT)
        self._persistent_size = offset

    @property
    def name(self) -> str:
        return self.operator.name

    def GetBindingProperties(self) -> DML_BINDING_PROPERTIES:
        count = 0
        for layouts in self.validated.tensors.values():
            count += len(layouts) if isinstance(layouts, list) else 1
        return DML_BINDING_PROPERTIES(count, self.operator.temporary_size(self.validated), self._persistent_size)

    def input_slots(self) -> list[BindingSlot]:
        slots = []
        for row in self.operator.input_fields:
            owned = row.name in self.owned
            slots.append(BindingSlot(row.name, self.validated.tensors.get(row.name), row.spec.optional, row.is_array,
                                     "the tensor is OWNED_BY_DML: it is bound to the operator initializer"
                                     if owned else None))
        return slots

    def output_slots(self) -> list[BindingSlot]:
        return [BindingSlot(row.name, self.validated.tensors.get(row.name), row.spec.optional, row.is_array)
                for row in self.operator.output_fields]

    def initializer_layouts(self) -> list[TensorLayout | None]:
        """What the operator initializer binds for this operator: one entry per input field, the layout of each
        OWNED_BY_DML one, None for the others; empty when none is owned."""
        if not self.owned:
            return []
        return [self.validated.tensors.get(r.name) if r.name in self.owned else None
                for r in self.operator.input_fields]

    def initializer_input_count(self) -> int:
        """Bindings of this operator in an initializer's input array: one per input field."""
        return len(self.operator.input_fields)

    def initializer_copies(self, sources: list[BoundTensor | None],
                           persistent: BoundTensor | None) -> list[tuple[BoundTensor, BoundTensor]]:
        """The copies an initializer makes: each bound OWNED_BY_DML input into its persistent slot."""
        copies = []
        for row, source in zip(self.operator.input_fields, sources, strict=False):
            if source is None or persistent is None:
                continue
            copies.append((source, BoundTensor(persistent.buffer, persistent.offset + self.owned[row.name],
                                               source.layout.total_bytes, source.layout)))
        return copies

    def eligible_inputs(self) -> set[str]:
        return {row.name for row in self.operator.input_fields if row.spec.inplace_eligible}

    def resolve(self, table: BindingTable) -> ResolvedDispatch:
        """Check the table is complete and hazard-free; map every tensor field to its bytes."""
        problems = Problems()
        if table.inputs is None:
            problems.add("BindInputs was never called")
        if table.outputs is None:
            problems.add("BindOutputs was never called")
        props = self.GetBindingProperties()
        if props.TemporaryResourceSize and table.temporary is None:
            problems.add(f"a {props.TemporaryResourceSize}-byte temporary resource must be bound")
        if props.PersistentResourceSize and table.persistent is None:
            problems.add(f"a {props.PersistentResourceSize}-byte persistent resource must be bound "
                         "(OWNED_BY_DML inputs live there)")
        problems.raise_if_any(f"RecordDispatch({self.name})")
        inputs = dict(table.inputs or {})
        for name, slot_offset in self.owned.items():
            persistent = table.persistent
            inputs[name] = BoundTensor(persistent.buffer, persistent.offset + slot_offset,
                                       self.validated.layout(name).total_bytes, self.validated.layout(name))
        outputs = dict(table.outputs or {})
        check_hazards({k: v for k, v in inputs.items() if k not in self.owned}, outputs, self.eligible_inputs(),
                      {"temporary": table.temporary, "persistent": table.persistent}, problems)
        problems.raise_if_any(f"RecordDispatch({self.name}): binding hazard")
        return ResolvedDispatch(self, {**inputs, **outputs}, table.temporary)


class OperatorInitializer(Dispatchable):
    """IDMLOperatorInitializer: copies OWNED_BY_DML inputs into each operator's persistent resource.

    Inputs: one DML_BINDING_TYPE_BUFFER_ARRAY per operator holding one binding per operator input (per graph
    input for a compiled graph), Buffer null for inputs that are not owned, or NONE for operators with no owned
    inputs. Outputs: each operator's persistent resource (NONE where its PersistentResourceSize is 0).
    """

    def __init__(self, device: Device, operators: list[Any]) -> None:
        self.device = device
        self.operators: list[Any] = []
        self.Reset(operators)

    def Reset(self, operators: list[Any]) -> None:
        operators = require_sequence(operators, "IDMLOperatorInitializer::Reset: operators")
        for i, op in enumerate(operators):
            initializable = isinstance(op, Dispatchable) and hasattr(op, "initializer_layouts")
            if not initializable or op.device is not self.device:
                raise DMLError(E_INVALIDARG, f"operator initializer entry {i} must be a compiled operator "
                                             "(CompileOperator or CompileGraph) of this device")
        self.operators = operators

    def GetBindingProperties(self) -> DML_BINDING_PROPERTIES:
        count = sum(op.initializer_input_count() + 1 for op in self.operators)
        return DML_BINDING_PROPERTIES(count, 0, 0)

    def input_slots(self) -> list[BindingSlot]:
        slots = []
        for i, op in enumerate(self.operators):
            layouts = op.initializer_layouts()
            has_owned = bool(layouts)
            slots.append(BindingSlot(f"Operators[{i}] inputs", layouts if has_owned else None, not has_owned,
                                     array=True))
        return slots

    def output_slots(self) -> list[BindingSlot]:
        return [BindingSlot(f"Operators[{i}] persistent resource", None, True,
                            resource_size=op.GetBindingProperties().PersistentResourceSize)
                for i, op in enumerate(self.operators)]

    def resolve(self, table: BindingTable) -> ResolvedCopies:
        problems = Problems()
        if self.operators and (table.inputs is None or table.outputs is None):
            problems.add("BindInputs and BindOutputs must be called before dispatching the initializer")
        problems.raise_if_any("RecordDispatch(operator initializer)")
        copies = []
        for i, op in enumerate(self.operators):
            persistent = (table.outputs or {}).get(f"Operators[{i}] persistent resource")
            sources = (table.inputs or {}).get(f"Operators[{i}] inputs") or []
            copies += op.initializer_copies(sources, persistent)
        return ResolvedCopies(copies)
