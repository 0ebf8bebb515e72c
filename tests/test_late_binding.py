"""Late binding: DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE.

With the flag, bindings set or changed after RecordDispatch and before ExecuteCommandLists take
effect ("Binding in DirectML", late binding); without it, the bindings are captured at RecordDispatch
(README "Decisions"). An ELEMENT_WISE_IDENTITY copies its input, so which buffer was read and which
was written shows which bindings the execution used. Expected values are the literals written.
"""

from __future__ import annotations

import numpy as np
import pytest

import dmlsim as dml

SIZES = [1, 1, 2, 4]
NBYTES = 32
A = np.array([1, 2, 3, 4, 5, 6, 7, 8], np.float32)
B = np.array([10, 20, 30, 40, 50, 60, 70, 80], np.float32)
ZEROS = np.zeros(8, np.float32)


class Identity:
    """A compiled IDENTITY (with the given execution flags), its table, a command list and four buffers."""

    def __init__(self, device, flags):
        t = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_FLOAT32, SIZES)
        op = device.CreateOperator(dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ELEMENT_WISE_IDENTITY,
                                                         dml.DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(t, t)))
        self.device = device
        self.compiled = device.CompileOperator(op, flags)
        self.table = device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(
            self.compiled, SizeInDescriptors=self.compiled.GetBindingProperties().RequiredDescriptorCount))
        self.a, self.b, self.out1, self.out2 = (device.CreateBuffer(NBYTES) for _ in range(4))
        self.a.Write(A)
        self.b.Write(B)
        self.cmd = device.CreateCommandList()
        self.queue = device.CreateCommandQueue()

    def bind(self, source, target):
        self.table.BindInputs([dml.buffer_binding(source, 0, NBYTES)])
        self.table.BindOutputs([dml.buffer_binding(target, 0, NBYTES)])

    def record(self):
        self.device.CreateCommandRecorder().RecordDispatch(self.cmd, self.compiled, self.table)
        self.cmd.Close()

    def execute(self):
        self.queue.ExecuteCommandLists([self.cmd])
        self.queue.WaitForIdle()

    @staticmethod
    def values(buffer):
        return np.frombuffer(buffer.Read(), np.float32)


VOLATILE = dml.DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE


def test_volatile_bindings_changed_after_record_take_effect(device):
    op = Identity(device, VOLATILE)
    op.bind(op.a, op.out1)
    op.record()
    op.bind(op.b, op.out2)  # changed after recording, before submission
    op.execute()
    np.testing.assert_array_equal(op.values(op.out2), B)
    np.testing.assert_array_equal(op.values(op.out1), ZEROS)


def test_without_the_flag_bindings_are_captured_at_record(device):
    op = Identity(device, dml.DML_EXECUTION_FLAG_NONE)
    op.bind(op.a, op.out1)
    op.record()
    op.bind(op.b, op.out2)  # too late: the recorded command list keeps the first bindings
    op.execute()
    np.testing.assert_array_equal(op.values(op.out1), A)
    np.testing.assert_array_equal(op.values(op.out2), ZEROS)


def test_volatile_bindings_may_be_set_after_record(device):
    op = Identity(device, VOLATILE | dml.DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION)
    op.record()  # nothing bound yet: allowed with late binding
    op.bind(op.b, op.out1)
    op.execute()
    np.testing.assert_array_equal(op.values(op.out1), B)


def test_volatile_rebinding_between_executions_of_one_command_list(device):
    op = Identity(device, VOLATILE)
    op.bind(op.a, op.out1)
    op.record()
    op.execute()
    op.bind(op.b, op.out2)
    op.execute()
    np.testing.assert_array_equal(op.values(op.out1), A)
    np.testing.assert_array_equal(op.values(op.out2), B)


def test_without_the_flag_an_incomplete_table_is_refused_at_record(ref_device):
    op = Identity(ref_device, dml.DML_EXECUTION_FLAG_NONE)
    with pytest.raises(dml.DMLError, match="BindInputs was never called"):
        op.record()


def test_volatile_incomplete_table_is_refused_at_execution_and_nothing_runs(ref_device):
    op = Identity(ref_device, VOLATILE)
    op.table.BindInputs([dml.buffer_binding(op.a, 0, NBYTES)])
    op.record()
    first = Identity(ref_device, dml.DML_EXECUTION_FLAG_NONE)  # a valid dispatch in the same submission
    first.bind(first.a, first.out1)
    first.record()
    with pytest.raises(dml.DMLError, match=r"ExecuteCommandLists \(late binding.*BindOutputs was never called") as e:
        op.queue.ExecuteCommandLists([first.cmd, op.cmd])
    assert e.value.hresult == dml.E_INVALIDARG
    np.testing.assert_array_equal(first.values(first.out1), ZEROS)  # refused as a whole: nothing executed


def test_volatile_hazard_is_refused_at_execution(ref_device):
    op = Identity(ref_device, VOLATILE)
    shared = ref_device.CreateBuffer(2 * NBYTES)
    op.bind(op.a, op.out1)
    op.record()
    op.table.BindInputs([dml.buffer_binding(shared, 0, NBYTES)])
    op.table.BindOutputs([dml.buffer_binding(shared, 16, NBYTES)])  # [16, 48) partially overlaps [0, 32)
    with pytest.raises(dml.DMLError, match="binding hazard"):
        op.execute()


def test_volatile_table_reset_for_another_dispatchable_is_refused(ref_device):
    op = Identity(ref_device, VOLATILE)
    other = Identity(ref_device, VOLATILE)
    op.bind(op.a, op.out1)
    op.record()
    op.table.Reset(dml.DML_BINDING_TABLE_DESC(other.compiled, SizeInDescriptors=2))
    with pytest.raises(dml.DMLError, match="Reset for another dispatchable"):
        op.execute()
