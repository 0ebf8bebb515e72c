"""One-call execution of an operator on numpy arrays: the convenience layer over the C-shaped API.

``run_operator(device, op_desc, {"InputParametersTensor": x, ...})`` allocates a packed buffer per
bound tensor (or one shared buffer per in-place pair), runs one dispatch and returns every output as
a numpy array shaped like its tensor desc. Tensor arrays (BUFFER_ARRAY fields) take lists of arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.device import Device
from dmlsim.errors import E_INVALIDARG, DMLError
from dmlsim.structs import DML_BINDING_DESC, DML_BINDING_TABLE_DESC, DML_OPERATOR_DESC, buffer_array_binding
from dmlsim.structs import buffer_binding as _buffer_binding
from dmlsim.tensor import TensorLayout


def _tensor_buffer(device: Device, layout: TensorLayout, data: Any | None) -> Any:
    buffer = device.CreateBuffer(layout.total_bytes)
    if data is not None:
        array = np.asarray(data, dtype=layout.dtype)
        if array.size != layout.element_count and array.size != 1:
            raise DMLError(E_INVALIDARG, f"run_operator: got {array.size} values for a tensor of "
                                         f"{layout.element_count} elements ({layout.describe()})")
        full = np.zeros(layout.total_bytes // layout.element_size, layout.dtype)
        view = np.lib.stride_tricks.as_strided(full, layout.sizes,
                                               tuple(s * layout.element_size for s in layout.strides))
        view[...] = np.broadcast_to(array.reshape(layout.sizes) if array.size > 1 else array.reshape(()),
                                    layout.sizes)
        buffer.Write(full)
    return buffer


def run_operator(device: Device, op_desc: DML_OPERATOR_DESC, inputs: dict[str, Any], *,
                 inplace: bool = False, flags: int = 0) -> dict[str, Any]:
    """Create, compile, bind and execute ``op_desc`` once; return the outputs as numpy arrays.

    ``inplace`` binds each output to the buffer of the input it ``aliases`` (DirectML in-place
    execution); otherwise every output gets a fresh zero-filled buffer.
    """
    compiled = device.CompileOperator(device.CreateOperator(op_desc), flags)
    validated = compiled.validated
    op = compiled.operator
    buffers: dict[str, Any] = {}

    def bind(rows: list[Any], source: Any) -> list[DML_BINDING_DESC | None]:
        """Buffers for each tensor field (``source(row, layout, index)`` gives a buffer) and their bindings."""
        bindings: list[DML_BINDING_DESC | None] = []
        for row in rows:
            layouts = validated.tensors.get(row.name)
            if layouts is None:
                bindings.append(None)
            elif row.is_array:
                buffers[row.name] = [source(row, lay, i) for i, lay in enumerate(layouts)]
                bindings.append(buffer_array_binding([(b, 0, None) for b in buffers[row.name]]))
            else:
                buffers[row.name] = source(row, layouts, None)
                bindings.append(_buffer_binding(buffers[row.name]))
        return bindings

    def input_buffer(row: Any, layout: TensorLayout, index: int | None) -> Any:
        value = inputs.get(row.name)
        if index is not None:
            value = value[index] if value else None
        return _tensor_buffer(device, layout, value)

    def output_buffer(row: Any, layout: TensorLayout, index: int | None) -> Any:
        alias = row.spec.aliases if inplace else None
        if alias is None:
            return _tensor_buffer(device, layout, None)
        return buffers[alias] if index is None else buffers[alias][index]

    input_bindings = bind(op.input_fields, input_buffer)
    output_bindings = bind(op.output_fields, output_buffer)
    props = compiled.GetBindingProperties()
    table = device.CreateBindingTable(DML_BINDING_TABLE_DESC(compiled, SizeInDescriptors=props.RequiredDescriptorCount))
    table.BindInputs(input_bindings)
    table.BindOutputs(output_bindings)
    if props.TemporaryResourceSize:
        table.BindTemporaryResource(_buffer_binding(device.CreateBuffer(props.TemporaryResourceSize)))
    cmd = device.CreateCommandList()
    device.CreateCommandRecorder().RecordDispatch(cmd, compiled, table)
    queue = device.CreateCommandQueue()
    queue.ExecuteCommandLists([cmd])
    queue.WaitForIdle()
    result: dict[str, Any] = {}
    for row in op.output_fields:
        layouts = validated.tensors.get(row.name)
        if layouts is None:
            continue
        if row.is_array:
            result[row.name] = [read_tensor(b, lay) for b, lay in zip(buffers[row.name], layouts, strict=True)]
        else:
            result[row.name] = read_tensor(buffers[row.name], layouts)
    return result


def read_tensor(buffer: Any, layout: TensorLayout, offset: int = 0) -> np.ndarray:
    """A tensor's elements (honouring strides) from a buffer, as a packed numpy array."""
    from dmlsim.reference_backend import strided_array

    raw = buffer.Read(offset, layout.span_bytes)
    return np.ascontiguousarray(strided_array(raw, layout))
