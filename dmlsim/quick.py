"""One-call execution of an operator on numpy arrays: the convenience layer over the C-shaped API.

``run_operator(device, op_desc, {"InputParametersTensor": x, ...})`` allocates a packed buffer per
bound tensor (or one shared buffer per in-place pair), runs one dispatch and returns every output as
a numpy array shaped like its tensor desc. Tensor arrays (BUFFER_ARRAY fields) take lists of arrays.

The two steps under it are public for code that dispatches the same binding many times (benchmarks,
training loops): :func:`prepare_operator` compiles and binds once and keeps the :class:`Region` behind
every tensor; :func:`bind_regions` binds a compiled operator over regions that already exist (several
operators over the same state buffers).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.api.arguments import invalid, require_instance, require_mapping, shown
from dmlsim.api.errors import E_INVALIDARG, DMLError
from dmlsim.api.schema import OUTPUT
from dmlsim.api.structs import DML_BINDING_DESC, DML_BINDING_TABLE_DESC, DML_OPERATOR_DESC, buffer_array_binding
from dmlsim.api.structs import buffer_binding as _buffer_binding
from dmlsim.api.tensor import DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT, TensorLayout, compact, store_elements
from dmlsim.runtime.binding import BindingTable
from dmlsim.runtime.device import CommandList, Device
from dmlsim.runtime.dispatchable import CompiledOperator


@dataclass(frozen=True)
class Region:
    """Where one tensor lives: a device buffer and the byte range bound for it."""

    buffer: Any
    offset: int
    size: int


Regions = dict[str, Region | list[Region]]


def _tensor_image(layout: TensorLayout, data: Any | None, name: str) -> np.ndarray:
    """A tensor's buffer range as bytes (``TotalTensorSizeInBytes`` of them; zeros where no element lies).
    4-bit values are stored modulo 16 (INT4 -8..7 and UINT4 0..15 round-trip)."""
    if layout.sub_byte:
        image = np.zeros(layout.total_bytes, np.uint8)
        if data is not None:
            array = _numbers(data, layout, name)
            if array.size != layout.element_count and array.size != 1:
                raise DMLError(E_INVALIDARG, f"{name}: got {array.size} values for a tensor of "
                                             f"{layout.element_count} elements ({layout.describe()})")
            store_elements(image, layout, 0, array.reshape(layout.sizes) if array.size != 1 else array.reshape(()))
        return image
    full = np.zeros(-(-layout.total_bytes // layout.element_size), layout.dtype)
    if data is not None:
        array = _numbers(data, layout, name)
        if array.size != layout.element_count and array.size != 1:
            raise DMLError(E_INVALIDARG, f"{name}: got {array.size} values for a tensor of "
                                         f"{layout.element_count} elements ({layout.describe()})")
        view = np.lib.stride_tricks.as_strided(full, layout.sizes,
                                               tuple(s * layout.element_size for s in layout.strides))
        if array.size == 1:  # one value: written once per stored element, not once per broadcast repeat
            compact(view)[...] = array.reshape(())
        else:
            view[...] = array.reshape(layout.sizes)
    return full.view(np.uint8)[:layout.total_bytes]


def _numbers(data: Any, layout: TensorLayout, name: str) -> np.ndarray:
    """``data`` as an array of ``layout``'s dtype: numbers only (numpy would read None as NaN, "1" as 1)."""
    if not isinstance(data, (np.ndarray, np.generic, int, float, list, tuple)):
        raise invalid(f"{name}: takes a numpy array, a number or a (nested) list of numbers, got "
                      f"{type(data).__name__} {shown(data)}")
    try:
        array = np.asarray(data)
    except (TypeError, ValueError) as exc:  # ragged nesting
        raise invalid(f"{name}: {type(data).__name__} {shown(data)} cannot be read as {layout.dtype.name} "
                      f"values ({exc})") from None
    if array.dtype.kind not in "biuf":
        raise invalid(f"{name}: {type(data).__name__} {shown(data)} cannot be read as {layout.dtype.name} values "
                      f"(it holds {array.dtype} data, not numbers)")
    with np.errstate(all="ignore"):
        return array.astype(layout.dtype)


def _tensor_region(device: Device, layout: TensorLayout, data: Any | None, name: str) -> Region:
    buffer = device.CreateBuffer(layout.total_bytes)
    if data is not None:
        buffer.Write(_tensor_image(layout, data, name))
    return Region(buffer, 0, layout.total_bytes)


def _array_items(data: Any | None, count: int, name: str) -> list[Any]:
    """The per-tensor values given for a tensor-array field (None for each when nothing was given)."""
    if data is None:
        return [None] * count
    if isinstance(data, np.ndarray) or not isinstance(data, (list, tuple)) or len(data) != count:
        got = f"a {type(data).__name__}" if not isinstance(data, (list, tuple)) else f"{len(data)} arrays"
        raise DMLError(E_INVALIDARG, f"{name}: a tensor array takes a list of {count} arrays (one per "
                                     f"tensor desc), got {got}")
    return list(data)


def _flat_regions(device: Device, layouts: list[TensorLayout], data: list[Any], name: str) -> list[Region]:
    """All tensors of one array field in one buffer, each at the next offset its alignment allows (one write)."""
    offsets, end = [], 0
    for layout in layouts:
        align = max(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT, layout.alignment)
        end = -(-end // align) * align
        offsets.append(end)
        end += layout.total_bytes
    buffer = device.CreateBuffer(max(end, DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT))
    if any(values is not None for values in data):
        image = np.zeros(end, np.uint8)
        for i, (offset, layout, values) in enumerate(zip(offsets, layouts, data, strict=True)):
            image[offset:offset + layout.total_bytes] = _tensor_image(layout, values, f"{name}[{i}]")
        buffer.Write(image)
    return [Region(buffer, offset, layout.total_bytes) for offset, layout in zip(offsets, layouts, strict=True)]


def _binding(region: Region | list[Region] | None) -> DML_BINDING_DESC | None:
    if region is None:
        return None
    if isinstance(region, list):
        return buffer_array_binding([(r.buffer, r.offset, r.size) for r in region])
    return _buffer_binding(region.buffer, region.offset, region.size)


def bind_regions(device: Device, compiled: CompiledOperator, regions: Regions) -> BindingTable:
    """A binding table for ``compiled`` with every tensor field bound to its region (absent: unbound).

    A temporary resource is created and bound when the operator needs one.
    """
    op = compiled.operator
    props = compiled.GetBindingProperties()
    table = device.CreateBindingTable(DML_BINDING_TABLE_DESC(compiled, SizeInDescriptors=props.RequiredDescriptorCount))
    table.BindInputs([_binding(regions.get(row.name)) for row in op.input_fields])
    table.BindOutputs([_binding(regions.get(row.name)) for row in op.output_fields])
    if props.TemporaryResourceSize:
        table.BindTemporaryResource(_buffer_binding(device.CreateBuffer(props.TemporaryResourceSize)))
    return table


@dataclass
class PreparedDispatch:
    """A compiled operator, its bound binding table and the region behind every bound tensor field."""

    device: Device
    compiled: CompiledOperator
    table: BindingTable
    regions: Regions

    def record(self) -> CommandList:
        """A command list holding this dispatch (execute it as often as needed)."""
        cmd = self.device.CreateCommandList()
        self.device.CreateCommandRecorder().RecordDispatch(cmd, self.compiled, self.table)
        return cmd

    def read(self, name: str) -> np.ndarray | list[np.ndarray]:
        """A tensor field's current contents (a list for tensor arrays), shaped like its tensor desc."""
        layouts = self.compiled.validated.tensors[name]
        region = self.regions[name]
        if isinstance(region, list):
            return [read_tensor(r.buffer, lay, r.offset) for r, lay in zip(region, layouts, strict=True)]
        return read_tensor(region.buffer, layouts, region.offset)


def prepare_operator(device: Device, op_desc: DML_OPERATOR_DESC, inputs: dict[str, Any], *,
                     inplace: bool = False, flags: int = 0, flat_arrays: bool = False) -> PreparedDispatch:
    """Create and compile ``op_desc``, put ``inputs`` in fresh buffers and bind every tensor.

    ``inplace`` binds each output to the region of the input it ``aliases`` (DirectML in-place
    execution); otherwise every output gets fresh zero-filled buffers. ``flat_arrays`` puts all
    tensors of a tensor-array field in one buffer at aligned offsets (the fused-optimizer layout:
    one flat buffer per role) instead of one buffer per tensor.
    """
    require_instance(device, Device, "prepare_operator: device", "a device from DMLCreateDevice")
    inputs = require_mapping(inputs, "prepare_operator: inputs")
    compiled = device.CompileOperator(device.CreateOperator(op_desc), flags)
    validated = compiled.validated
    op = compiled.operator
    _check_input_names(op, inputs)
    regions: Regions = {}
    for row in [*op.input_fields, *op.output_fields]:
        layouts = validated.tensors.get(row.name)
        if layouts is None:
            continue
        alias = row.spec.aliases if inplace and row.spec.role == OUTPUT else None
        if alias is not None:
            regions[row.name] = regions[alias]
            continue
        data = inputs.get(row.name) if row.spec.role != OUTPUT else None
        if not row.is_array:
            regions[row.name] = _tensor_region(device, layouts, data, row.name)
            continue
        items = _array_items(data, len(layouts), row.name)
        if flat_arrays:
            regions[row.name] = _flat_regions(device, layouts, items, row.name)
        else:
            regions[row.name] = [_tensor_region(device, lay, values, f"{row.name}[{i}]")
                                 for i, (lay, values) in enumerate(zip(layouts, items, strict=True))]
    return PreparedDispatch(device, compiled, bind_regions(device, compiled, regions), regions)


def _check_input_names(op: Any, inputs: dict[str, Any]) -> None:
    """Refuse names that are not input tensor fields of ``op`` (a typo would leave that tensor zero)."""
    names = [row.name for row in op.input_fields]
    outputs = {row.name for row in op.output_fields}
    for key in inputs:
        if key in names:
            continue
        if not isinstance(key, str):
            raise invalid(f"inputs: keys must be input field names of {op.name}, got {type(key).__name__} "
                          f"{shown(key)}")
        if key in outputs:
            raise invalid(f"inputs: {key} is an output of {op.name}; give its input (outputs start zero-filled, "
                          "or alias their input with inplace=True)")
        close = difflib.get_close_matches(key, names, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise invalid(f"inputs: {shown(key)} is not an input of {op.name}; {hint}inputs: {', '.join(names)}")


def run_operator(device: Device, op_desc: DML_OPERATOR_DESC, inputs: dict[str, Any], *,
                 inplace: bool = False, flags: int = 0) -> dict[str, Any]:
    """Create, compile, bind and execute ``op_desc`` once; return the outputs as numpy arrays.

    ``inplace`` binds each output to the buffer of the input it ``aliases`` (DirectML in-place
    execution); otherwise every output gets a fresh zero-filled buffer.
    """
    prepared = prepare_operator(device, op_desc, inputs, inplace=inplace, flags=flags)
    queue = device.CreateCommandQueue()
    queue.ExecuteCommandLists([prepared.record()])
    queue.WaitForIdle()
    return {row.name: prepared.read(row.name) for row in prepared.compiled.operator.output_fields
            if row.name in prepared.regions}


def read_tensor(buffer: Any, layout: TensorLayout, offset: int = 0) -> np.ndarray:
    """A tensor's elements (honouring strides) from a buffer, as a packed numpy array."""
    from dmlsim.api.tensor import strided_array

    raw = buffer.Read(offset, layout.span_bytes)
    return np.ascontiguousarray(strided_array(raw, layout))
