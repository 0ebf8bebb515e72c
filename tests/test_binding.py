"""Binding-table rules and DirectML's aliasing hazards (design.md §2), and the OWNED_BY_DML flow.

Refusals are checked on the reference device (binding rules do not depend on the backend); anything
that dispatches — hazards that are allowed, a table surviving a refused Bind, the persistent-resource
path — runs on every adapter.
"""

from __future__ import annotations

import numpy as np
import pytest
from adam_support import (
    FLOAT32,
    INPUTS,
    OM,
    OUTPUTS,
    OV,
    OX,
    AdamDispatch,
    G,
    M,
    T,
    V,
    X,
    adam_desc,
    assert_matches_reference,
    random_state,
    tensor_desc,
)

import dmlsim as dml

SIZES = (1, 1, 4, 8)
TOTAL = 128  # 32 FLOAT32 elements
OWNED = dml.DML_TENSOR_FLAG_OWNED_BY_DML
NONE = dml.DML_BINDING_DESC(dml.DML_BINDING_TYPE_NONE, None)


def buf(device, offset=0, size=None, buffer=None, nbytes=TOTAL):
    buffer = buffer if buffer is not None else device.CreateBuffer(nbytes)
    return dml.DML_BINDING_DESC(dml.DML_BINDING_TYPE_BUFFER, dml.DML_BUFFER_BINDING(buffer, offset, size))


class Table:
    """A compiled Adam operator and a binding table for it, with one fresh buffer per tensor by default."""

    def __init__(self, device, op_desc=None):
        self.device = device
        self.compiled = device.CompileOperator(device.CreateOperator(op_desc or adam_desc(FLOAT32, SIZES)))
        self.props = self.compiled.GetBindingProperties()
        self.table = device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(
            self.compiled, None, None, self.props.RequiredDescriptorCount))
        self.cmd = device.CreateCommandList()

    def inputs(self, **override):
        return [override.get(name, buf(self.device, nbytes=4 if name == T else TOTAL)) for name in INPUTS]

    def outputs(self, **override):
        return [override.get(name, buf(self.device)) for name in OUTPUTS]

    def bind(self, inputs=None, outputs=None):
        self.table.BindInputs(inputs if inputs is not None else self.inputs())
        self.table.BindOutputs(outputs if outputs is not None else self.outputs())

    def record(self):
        self.device.CreateCommandRecorder().RecordDispatch(self.cmd, self.compiled, self.table)


def refused(call, *parts, hresult=dml.E_INVALIDARG):
    with pytest.raises(dml.DMLError) as info:
        call()
    assert info.value.hresult == hresult, str(info.value)
    for part in parts:
        assert part in str(info.value), f"{part!r} not in message:\n{info.value}"
    return info.value


# --- binding rules -------------------------------------------------------------------------------

def test_wrong_number_of_bindings(ref_device):
    t = Table(ref_device)
    refused(lambda: t.table.BindInputs(t.inputs()[:4]), "BindInputs takes 5 bindings", "got 4", G)
    refused(lambda: t.table.BindOutputs([*t.outputs(), buf(ref_device)]), "BindOutputs takes 3 bindings", "got 4")


def test_none_for_a_required_tensor(ref_device):
    t = Table(ref_device)
    refused(lambda: t.table.BindInputs(t.inputs(GradientTensor=NONE)),
            f"BindInputs[3] ({G}).Type is DML_BINDING_TYPE_NONE", "required")


def test_wrong_binding_type(ref_device):
    t = Table(ref_device)
    array = dml.buffer_array_binding([(ref_device.CreateBuffer(TOTAL), 0, TOTAL)])
    refused(lambda: t.table.BindOutputs(t.outputs(OutputFirstMomentTensor=array)),
            f"BindOutputs[1] ({OM}).Type must be DML_BINDING_TYPE_BUFFER")


def test_offset_not_multiple_of_16(ref_device):
    t = Table(ref_device)
    refused(lambda: t.table.BindInputs(t.inputs(GradientTensor=buf(ref_device, 8, TOTAL, nbytes=512))),
            f"BindInputs[3] ({G}).Offset 8 must be a multiple of 16")


def test_offset_not_multiple_of_guaranteed_alignment(ref_device):
    t = Table(ref_device, adam_desc(FLOAT32, SIZES, **{G: tensor_desc(FLOAT32, SIZES, alignment=64)}))
    refused(lambda: t.table.BindInputs(t.inputs(GradientTensor=buf(ref_device, 32, TOTAL, nbytes=512))),
            f"BindInputs[3] ({G}).Offset 32 must be a multiple of 64")
    t.table.BindInputs(t.inputs(GradientTensor=buf(ref_device, 128, TOTAL, nbytes=512)))  # a multiple: fine


def test_size_smaller_than_the_tensor(ref_device):
    t = Table(ref_device)
    refused(lambda: t.table.BindOutputs(t.outputs(OutputParametersTensor=buf(ref_device, 0, 64))),
            f"BindOutputs[0] ({OX}).SizeInBytes 64 is less than TotalTensorSizeInBytes {TOTAL}")


def test_range_past_the_end_of_the_buffer(ref_device):
    t = Table(ref_device)
    refused(lambda: t.table.BindInputs(t.inputs(InputParametersTensor=buf(ref_device, 192, TOTAL, nbytes=256))),
            f"BindInputs[0] ({X})", "Offset 192 + SizeInBytes 128 exceeds the buffer's 256 bytes")


def test_buffer_from_another_device(ref_device):
    other = dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, adapter="reference")
    t = Table(ref_device)
    refused(lambda: t.table.BindInputs(t.inputs(InputSecondMomentTensor=buf(other))),
            f"BindInputs[2] ({V}).Buffer belongs to another device")


def test_binding_table_too_few_descriptors(ref_device):
    compiled = ref_device.CompileOperator(ref_device.CreateOperator(adam_desc(FLOAT32, SIZES)))
    required = compiled.GetBindingProperties().RequiredDescriptorCount
    assert required == 8  # one per tensor of the desc
    refused(lambda: ref_device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(compiled, None, None, required - 1)),
            "DML_BINDING_TABLE_DESC.SizeInDescriptors 7", "RequiredDescriptorCount 8")


def test_record_dispatch_before_bind_outputs(ref_device):
    t = Table(ref_device)
    t.table.BindInputs(t.inputs())
    refused(t.record, "BindOutputs was never called")
    assert t.cmd.items == []


def test_a_refused_bind_keeps_the_previous_bindings(device):
    """The table still dispatches the first, valid bindings after a refused BindInputs/BindOutputs."""
    rng = np.random.default_rng(5)
    dispatch = AdamDispatch(device, adam_desc(FLOAT32, SIZES))
    state = random_state(rng, SIZES, np.float32)
    seen = {name: dispatch.write(name, state[name]) for name in (X, M, V, G)}
    dispatch.write(T, np.uint32(2))
    table = dispatch.table
    refused(lambda: table.BindInputs([dispatch.binding(n) for n in INPUTS[:4]] + [NONE]), T)
    refused(lambda: table.BindOutputs([dispatch.binding(OX), dispatch.binding(OM), buf(device, 8, nbytes=512)]),
            "Offset 8")
    cmd = device.CreateCommandList()
    device.CreateCommandRecorder().RecordDispatch(cmd, dispatch.compiled, table)
    dispatch.queue.ExecuteCommandLists([cmd])
    dispatch.queue.WaitForIdle()
    assert_matches_reference({name: dispatch.read(name) for name in OUTPUTS}, seen, 2, FLOAT32, 8)


# --- hazards -------------------------------------------------------------------------------------

def test_inputs_may_overlap_each_other(device):
    """X, M, V and G all read the same bytes: allowed (input/input overlap is always fine)."""
    shared = device.CreateBuffer(TOTAL)
    values = np.abs(np.random.default_rng(1).standard_normal(SIZES)).astype(np.float32)
    placement = {name: (shared, 0) for name in (X, M, V, G)}
    dispatch = AdamDispatch(device, adam_desc(FLOAT32, SIZES), placement=placement)
    dispatch.write(X, values)
    dispatch.write(T, np.uint32(1))
    dispatch.execute()
    seen = dict.fromkeys((X, M, V, G), values)
    assert_matches_reference({name: dispatch.read(name) for name in OUTPUTS}, seen, 1, FLOAT32, 8)


def test_in_place_on_identical_regions_is_allowed(device):
    big = device.CreateBuffer(4 * TOTAL)
    placement = {X: (big, 0), OX: (big, 0), M: (big, TOTAL), OM: (big, TOTAL), V: (big, 2 * TOTAL),
                 OV: (big, 2 * TOTAL), G: (big, 3 * TOTAL)}
    dispatch = AdamDispatch(device, adam_desc(FLOAT32, SIZES), placement=placement)
    seen, got = dispatch.step(random_state(np.random.default_rng(2), SIZES, np.float32), 1)
    assert_matches_reference(got, seen, 1, FLOAT32, 8)


def test_partial_overlap_is_refused(ref_device):
    t = Table(ref_device)
    shared = ref_device.CreateBuffer(2 * TOTAL)
    t.bind(t.inputs(InputParametersTensor=buf(ref_device, 0, TOTAL, shared)),
           t.outputs(OutputParametersTensor=buf(ref_device, 16, TOTAL, shared)))
    refused(t.record, "binding hazard", f"output {OX} [16, 144) partially overlaps input {X} [0, 128)")
    assert t.cmd.items == []


def test_overlap_from_the_same_offset_over_a_longer_range_is_refused(ref_device):
    """Same start, same sizes and strides, but the output's TotalTensorSizeInBytes reaches 16 bytes further:
    not the identical region, so not in place (the kernel may touch every byte of [0, 144))."""
    longer = tensor_desc(FLOAT32, SIZES, total=TOTAL + 16)
    t = Table(ref_device, adam_desc(FLOAT32, SIZES, OutputParametersTensor=longer))
    shared = ref_device.CreateBuffer(2 * TOTAL)
    t.bind(t.inputs(InputParametersTensor=buf(ref_device, 0, TOTAL, shared)),
           t.outputs(OutputParametersTensor=buf(ref_device, 0, TOTAL + 16, shared)))
    refused(t.record, "binding hazard", f"output {OX} [0, 144) partially overlaps input {X} [0, 128)")
    assert t.cmd.items == []


def test_output_may_not_alias_the_training_step(ref_device):
    t = Table(ref_device, adam_desc(FLOAT32, (1, 1, 1, 1)))
    shared = ref_device.CreateBuffer(64)
    t.bind([buf(ref_device, nbytes=4) for _ in range(4)] + [buf(ref_device, 0, 4, shared)],
           [buf(ref_device, 0, 4, shared), buf(ref_device, nbytes=4), buf(ref_device, nbytes=4)])
    refused(t.record, f"output {OX} aliases input {T}", "not eligible")


def test_in_place_with_a_different_layout_is_refused(ref_device):
    transposed = tensor_desc(FLOAT32, SIZES, [0, 0, 1, 4])  # the same 128 bytes, other element order
    t = Table(ref_device, adam_desc(FLOAT32, SIZES, **{OX: transposed}))
    shared = ref_device.CreateBuffer(TOTAL)
    t.bind(t.inputs(InputParametersTensor=buf(ref_device, 0, TOTAL, shared)),
           t.outputs(OutputParametersTensor=buf(ref_device, 0, TOTAL, shared)))
    refused(t.record, f"output {OX}", f"aliases input {X}", "different layout", "strides [0, 0, 1, 4]")


def test_an_output_may_overwrite_any_eligible_input(ref_device):
    """OutputFirstMomentTensor over GradientTensor's identical region: eligible input, allowed."""
    t = Table(ref_device)
    shared = ref_device.CreateBuffer(TOTAL)
    t.bind(t.inputs(GradientTensor=buf(ref_device, 0, TOTAL, shared)),
           t.outputs(OutputFirstMomentTensor=buf(ref_device, 0, TOTAL, shared)))
    t.record()  # DirectML ≥ 1.7: any eligible input may be overwritten in place
    assert len(t.cmd.items) == 1


def test_two_outputs_may_not_overlap(ref_device):
    t = Table(ref_device)
    shared = ref_device.CreateBuffer(2 * TOTAL)
    t.bind(outputs=t.outputs(OutputParametersTensor=buf(ref_device, 0, TOTAL, shared),
                             OutputSecondMomentTensor=buf(ref_device, 112, TOTAL, shared)))
    refused(t.record, f"outputs {OX} [0, 128) and {OV} [112, 240) overlap")


def test_temporary_resource_may_not_overlap_a_tensor(ref_device):
    t = Table(ref_device)
    shared = ref_device.CreateBuffer(1024)
    t.bind(t.inputs(InputFirstMomentTensor=buf(ref_device, 256, TOTAL, shared)))
    t.table.BindTemporaryResource(buf(ref_device, 0, 512, shared))
    refused(t.record, "the temporary resource [0, 512) overlaps", M)


def test_persistent_resource_may_not_overlap_a_tensor(ref_device):
    t = Table(ref_device, adam_desc(FLOAT32, SIZES, **{G: tensor_desc(FLOAT32, SIZES, flags=OWNED)}))
    shared = ref_device.CreateBuffer(1024)
    t.bind(t.inputs(GradientTensor=NONE), t.outputs(OutputSecondMomentTensor=buf(ref_device, 256, TOTAL, shared)))
    t.table.BindPersistentResource(buf(ref_device, 256, t.props.PersistentResourceSize, shared))
    refused(t.record, "the persistent resource [256, ", f"overlaps {OV}")


# --- OWNED_BY_DML ---------------------------------------------------------------------------------

def owned_desc():
    return adam_desc(FLOAT32, SIZES, **{G: tensor_desc(FLOAT32, SIZES, flags=OWNED),
                                         M: tensor_desc(FLOAT32, SIZES, flags=OWNED)})


def test_owned_input_needs_a_persistent_resource_and_a_none_binding(ref_device):
    t = Table(ref_device, owned_desc())
    assert t.props.PersistentResourceSize >= 2 * TOTAL
    assert t.props.PersistentResourceSize % dml.DML_PERSISTENT_BUFFER_ALIGNMENT == 0
    refused(lambda: t.table.BindInputs(t.inputs(InputFirstMomentTensor=NONE)),
            f"BindInputs[3] ({G}).Type must be DML_BINDING_TYPE_NONE", "OWNED_BY_DML")
    t.bind(t.inputs(InputFirstMomentTensor=NONE, GradientTensor=NONE))
    refused(t.record, "persistent resource must be bound")


def test_owned_inputs_via_the_initializer_match_the_unowned_path(device):
    rng = np.random.default_rng(11)
    state = random_state(rng, SIZES, np.float32)
    plain = AdamDispatch(device, adam_desc(FLOAT32, SIZES))
    seen, expected = plain.step(state, 4)

    compiled = device.CompileOperator(device.CreateOperator(owned_desc()))
    props = compiled.GetBindingProperties()
    persistent = device.CreateBuffer(props.PersistentResourceSize)
    sources = {name: device.CreateBuffer(TOTAL) for name in (M, G)}
    for name, source in sources.items():
        source.Write(state[name])

    initializer = device.CreateOperatorInitializer([compiled])
    init_table = device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(
        initializer, None, None, initializer.GetBindingProperties().RequiredDescriptorCount))
    init_table.BindInputs([dml.buffer_array_binding(
        [dml.DML_BUFFER_BINDING(sources[name], 0, TOTAL) if name in sources else dml.DML_BUFFER_BINDING(None, 0, 0)
         for name in INPUTS])])
    init_table.BindOutputs([buf(device, 0, props.PersistentResourceSize, persistent)])
    cmd = device.CreateCommandList()
    recorder = device.CreateCommandRecorder()
    recorder.RecordDispatch(cmd, initializer, init_table)
    queue = device.CreateCommandQueue()
    queue.ExecuteCommandLists([cmd])
    queue.WaitForIdle()
    raw = persistent.Read()
    assert any(raw[i:i + TOTAL] == state[M].tobytes() for i in range(0, len(raw) - TOTAL + 1, 256))
    assert any(raw[i:i + TOTAL] == state[G].tobytes() for i in range(0, len(raw) - TOTAL + 1, 256))
    for source in sources.values():  # the weights now live in the persistent resource only
        source.Write(np.full(SIZES, np.nan, np.float32))

    table = device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(compiled, None, None,
                                                                 props.RequiredDescriptorCount))
    x, v, t = device.CreateBuffer(TOTAL), device.CreateBuffer(TOTAL), device.CreateBuffer(4)
    x.Write(state[X])
    v.Write(state[V])
    t.Write(np.uint32(4))
    outputs = [device.CreateBuffer(TOTAL) for _ in OUTPUTS]
    table.BindInputs([buf(device, 0, TOTAL, x), NONE, buf(device, 0, TOTAL, v), NONE, buf(device, 0, 4, t)])
    table.BindOutputs([buf(device, 0, TOTAL, o) for o in outputs])
    table.BindPersistentResource(buf(device, 0, props.PersistentResourceSize, persistent))
    cmd = device.CreateCommandList()
    recorder.RecordDispatch(cmd, compiled, table)
    queue.ExecuteCommandLists([cmd])
    queue.WaitForIdle()
    for name, out in zip(OUTPUTS, outputs, strict=True):
        got = out.read_array(np.float32).reshape(SIZES)
        assert np.array_equal(got, expected[name]), name
    assert_matches_reference(dict(zip(OUTPUTS, (o.read_array(np.float32).reshape(SIZES) for o in outputs),
                                      strict=True)), seen, 4, FLOAT32, 8)


def test_owned_inputs_through_the_dispatch_helper_match_the_unowned_path(device):
    """tests/dispatch.py's OWNED_BY_DML path (initializer, NONE bindings, persistent resource) gives the plain
    dispatch's results bitwise, and runs the initializer again when an owned input was written since."""
    rng = np.random.default_rng(12)
    plain = AdamDispatch(device, adam_desc(FLOAT32, SIZES))
    owned = AdamDispatch(device, owned_desc())
    assert owned.owned == [M, G] and owned.persistent is not None
    for t in (3, 4):  # new M and G each step: a stale persistent resource would give other results
        state = random_state(rng, SIZES, np.float32)
        seen, expected = plain.step(state, t)
        _, got = owned.step(state, t)
        for name in OUTPUTS:
            np.testing.assert_array_equal(got[name], expected[name], err_msg=f"step {t} {name}")
    assert_matches_reference(got, seen, 4, FLOAT32, 8)


def test_buffer_write_takes_numpy_scalars_by_value(device):
    """``bytes(np.uint32(4))`` is four zero bytes; Write must store the scalar's value (a step count)."""
    buffer = device.CreateBuffer(16)
    buffer.Write(np.uint32(4), 4)
    buffer.Write(np.float16(1.5), 8)
    assert buffer.read_array(np.uint32, 1, 4)[0] == 4
    assert buffer.read_array(np.float16, 1, 8)[0] == np.float16(1.5)
