"""The tests' placement-level dispatch helper: any operator, each tensor at a chosen place, executed repeatedly.

(Value tests that need no particular placement call :func:`dmlsim.quick.run_operator`, packed fresh buffers.)

:class:`Dispatch` goes through dmlsim's public C-shaped flow only (CreateOperator, CompileOperator,
GetBindingProperties, CreateBindingTable, BindInputs/BindOutputs/BindTemporaryResource/
BindPersistentResource, CreateOperatorInitializer for OWNED_BY_DML inputs, RecordDispatch, a command
queue), so a test exercises what a DirectML user would write. It is driven by the desc's schema
(:func:`dmlsim.api.schema.desc_fields`): input and output tensor fields in struct order, tensor-array
fields bound as ``DML_BINDING_TYPE_BUFFER_ARRAY``, absent optional tensors as null bindings.

It only moves bytes: where each tensor lives, what is written there and what is read back. Expected
values never come from it; the tests get them from literal values, hand transcriptions or a reference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.api.schema import INPUT, OUTPUT, DescField, desc_fields
from dmlsim.api.tensor import TensorLayout, store_elements, strided_array

Place = tuple[Any, int] | tuple[Any, int, int | None]  # (buffer, offset[, SizeInBytes: None = the tensor's total])
Placement = Mapping[str, Place | Sequence[Place]]  # a tensor-array field: one place per array element
NONE = dml.DML_BINDING_DESC(dml.DML_BINDING_TYPE_NONE, None)  # an OWNED_BY_DML input at execution


class Dispatch:
    """One operator dispatch, bound and recorded once, executable any number of times.

    ``placement`` maps a tensor field to ``(buffer, offset)`` (``(buffer, offset, size)`` to bind a
    SizeInBytes other than the tensor's TotalTensorSizeInBytes), or for a tensor-array field to one
    such place per element. Fields left out get their own zero-filled buffer per tensor, except
    outputs bound in place: ``inplace`` True puts every output over the input its schema says it
    aliases, a sequence of output names does so for those, and a mapping ``{output: input}`` puts
    each output over any input's place (DirectML allows an output over any eligible input).
    ``resources`` places the temporary and persistent resources (``{"temporary": (buffer, offset)}``;
    offsets multiples of 256, DirectML's alignment); left out, each gets a buffer of its own.
    """

    def __init__(self, device: dml.Device, op_desc: dml.DML_OPERATOR_DESC, *, placement: Placement | None = None,
                 inplace: bool | Sequence[str] | Mapping[str, str] = False, flags: int = 0,
                 resources: Mapping[str, tuple[Any, int]] | None = None) -> None:
        self.device = device
        self.op_desc = op_desc
        self.compiled = device.CompileOperator(device.CreateOperator(op_desc), flags)
        rows = [row for row in desc_fields(type(op_desc.Desc)) if row.is_tensor]
        self.input_fields = [row.name for row in rows if row.spec.role == INPUT]
        self.output_fields = [row.name for row in rows if row.spec.role == OUTPUT]
        self._arrays = {row.name for row in rows if row.is_tensor_array}
        tensors = self.compiled.validated.tensors
        self.layouts: dict[str, TensorLayout | list[TensorLayout]] = {
            row.name: tensors[row.name] for row in rows if tensors.get(row.name) is not None}
        self.placement = self._places(placement or {}, _aliases(rows, inplace))
        self.owned = [name for name in self.input_fields
                      if isinstance(self.layouts.get(name), TensorLayout) and self.layouts[name].owned_by_dml]
        self.props = self.compiled.GetBindingProperties()
        resources = resources or {}
        self.resources = {kind: resources.get(kind) or (device.CreateBuffer(size), 0)
                          for kind, size in (("temporary", self.props.TemporaryResourceSize),
                                             ("persistent", self.props.PersistentResourceSize)) if size}
        self.persistent = self.resources.get("persistent", (None,))[0]
        self.table = self._bind()
        self.cmd = device.CreateCommandList()
        device.CreateCommandRecorder().RecordDispatch(self.cmd, self.compiled, self.table)
        self.cmd.Close()
        self.queue = device.CreateCommandQueue()
        self.initialized = not self.owned

    def _places(self, placement: Placement, over: Mapping[str, str]) -> dict[str, Any]:
        """Every bound field's (buffer, offset, size), or a list of them for a tensor array."""
        places: dict[str, Any] = {}
        for name, place in placement.items():
            places[name] = [self._place(p) for p in place] if name in self._arrays else self._place(place)
        for name in [*self.input_fields, *self.output_fields]:
            if name in places or name not in self.layouts:
                continue
            if name in over:
                places[name] = places[over[name]]
            elif name in self._arrays:
                places[name] = [(self.device.CreateBuffer(layout.total_bytes), 0, None)
                                for layout in self.layouts[name]]
            else:
                places[name] = (self.device.CreateBuffer(self.layouts[name].total_bytes), 0, None)
        return places

    def _bind(self) -> Any:
        """A binding table with every field at its place, plus the temporary/persistent resources needed."""
        table = self.device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(
            self.compiled, SizeInDescriptors=self.props.RequiredDescriptorCount))
        table.BindInputs([NONE if name in self.owned else self.binding(name) for name in self.input_fields])
        table.BindOutputs([self.binding(name) for name in self.output_fields])
        if "temporary" in self.resources:
            buffer, offset = self.resources["temporary"]
            table.BindTemporaryResource(dml.buffer_binding(buffer, offset, self.props.TemporaryResourceSize))
        if "persistent" in self.resources:
            buffer, offset = self.resources["persistent"]
            table.BindPersistentResource(dml.buffer_binding(buffer, offset, self.props.PersistentResourceSize))
        return table

    @staticmethod
    def _place(place: Place) -> tuple[Any, int, int | None]:
        buffer, offset, *size = place
        return buffer, offset, size[0] if size else None

    def _bytes(self, place: tuple[Any, int, int | None], layout: TensorLayout) -> dml.DML_BUFFER_BINDING:
        buffer, offset, size = place
        return dml.DML_BUFFER_BINDING(buffer, offset, layout.total_bytes if size is None else size)

    def binding(self, name: str) -> dml.DML_BINDING_DESC | None:
        """The binding of field ``name`` at its place (BUFFER, BUFFER_ARRAY for a tensor array, None if absent)."""
        if name not in self.layouts:
            return None
        if name in self._arrays:
            return dml.buffer_array_binding([self._bytes(p, lay) for p, lay in
                                             zip(self.placement[name], self.layouts[name], strict=True)])
        binding = self._bytes(self.placement[name], self.layouts[name])
        return dml.buffer_binding(binding.Buffer, binding.Offset, binding.SizeInBytes)

    def _where(self, name: str, index: int | None) -> tuple[Any, int, TensorLayout]:
        if (name in self._arrays) != (index is not None):
            raise TypeError(f"{name}: {'an index is needed for a tensor array' if index is None else 'not an array'}")
        place, layout = self.placement[name], self.layouts[name]
        if index is not None:
            place, layout = place[index], layout[index]
        return place[0], place[1], layout

    def write(self, name: str, values: Any, index: int | None = None) -> np.ndarray:
        """Store ``values`` (the tensor's element count, reshaped, or broadcastable to its sizes) into the
        tensor's elements (a 4-bit tensor's nibbles), keeping every other byte (nibble); return what it now holds."""
        buffer, offset, layout = self._where(name, index)
        raw = bytearray(buffer.Read(offset, layout.span_bytes))
        array = np.asarray(values, layout.dtype)
        if array.size == layout.element_count:
            array = array.reshape(layout.sizes)
        store_elements(np.frombuffer(raw, np.uint8), layout, 0, np.broadcast_to(array, layout.sizes))
        buffer.Write(bytes(raw), offset)
        if name in self.owned:
            self.initialized = False
        return self.read(name, index)

    def read(self, name: str, index: int | None = None) -> np.ndarray:
        """The tensor's elements (strides honoured) as a packed array shaped like its sizes."""
        buffer, offset, layout = self._where(name, index)
        return np.array(strided_array(buffer.Read(offset, layout.span_bytes), layout))

    def read_all(self, name: str) -> np.ndarray | list[np.ndarray]:
        """A field's contents: one array, or a list of arrays for a tensor array."""
        if name in self._arrays:
            return [self.read(name, i) for i in range(len(self.layouts[name]))]
        return self.read(name)

    def load(self, inputs: Mapping[str, Any]) -> None:
        """Write every given input field (a list of arrays for a tensor array)."""
        for name, values in inputs.items():
            if name in self._arrays:
                if len(values) != len(self.layouts[name]):
                    raise ValueError(f"{name}: {len(values)} arrays for {len(self.layouts[name])} tensors")
                for i, item in enumerate(values):
                    self.write(name, item, i)
            else:
                self.write(name, values)

    def outputs(self) -> dict[str, Any]:
        """Every bound output field's contents, keyed by field name."""
        return {name: self.read_all(name) for name in self.output_fields if name in self.layouts}

    def initialize(self) -> None:
        """Run the operator initializer: copy the OWNED_BY_DML inputs into the persistent resource."""
        initializer = self.device.CreateOperatorInitializer([self.compiled])
        table = self.device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(
            initializer, SizeInDescriptors=initializer.GetBindingProperties().RequiredDescriptorCount))
        table.BindInputs([dml.buffer_array_binding(
            [self._bytes(self.placement[name], self.layouts[name]) if name in self.owned
             else dml.DML_BUFFER_BINDING(None, 0, 0) for name in self.input_fields])])
        buffer, offset = self.resources["persistent"]
        table.BindOutputs([dml.buffer_binding(buffer, offset, self.props.PersistentResourceSize)])
        cmd = self.device.CreateCommandList()
        self.device.CreateCommandRecorder().RecordDispatch(cmd, initializer, table)
        cmd.Close()
        self.queue.ExecuteCommandLists([cmd])
        self.queue.WaitForIdle()
        self.initialized = True

    def execute(self) -> list[Any]:
        """Execute the recorded dispatch once (initializing first if OWNED_BY_DML inputs changed); return
        the queue's timings of that execution."""
        if not self.initialized:
            self.initialize()
        self.queue.ExecuteCommandLists([self.cmd])
        self.queue.WaitForIdle()
        return self.queue.last_timings


def _aliases(rows: list[DescField], inplace: bool | Sequence[str] | Mapping[str, str]) -> dict[str, str]:
    """``{output: input}`` for the outputs to bind over an input's place."""
    if isinstance(inplace, Mapping):
        return dict(inplace)
    chosen = {row.name for row in rows if row.spec.role == OUTPUT} if inplace is True else set(inplace or ())
    return {row.name: row.spec.aliases for row in rows if row.name in chosen and row.spec.aliases}


def run(device: dml.Device, op_desc: dml.DML_OPERATOR_DESC, inputs: Mapping[str, Any], *,
        inplace: bool | Sequence[str] | Mapping[str, str] = False, flags: int = 0) -> dict[str, Any]:
    """One dispatch: ``inputs`` written, executed once, every output read back (lists for tensor arrays)."""
    dispatch = Dispatch(device, op_desc, inplace=inplace, flags=flags)
    dispatch.load(inputs)
    dispatch.execute()
    return dispatch.outputs()
