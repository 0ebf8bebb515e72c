"""IDMLDevice, with the small D3D12 stand-in (buffers, command lists, a queue).

The flow mirrors DirectML: CreateOperator (validates the desc) → CompileOperator → binding table →
CommandRecorder.RecordDispatch (checks bindings and hazards, prepares the kernel launch once) →
CommandQueue.ExecuteCommandLists → WaitForIdle. A refused call raises DMLError and changes nothing;
the device stays usable (where DirectML would remove it, dmlsim raises at the call, as a debug
layer does).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from dmlsim.api.arguments import (
    UINT32_MAX,
    as_enum,
    invalid,
    is_integer,
    require_enum,
    require_flags,
    require_sequence,
    shown,
)
from dmlsim.api.enums import (
    DML_CREATE_DEVICE_FLAGS,
    DML_EXECUTION_FLAGS,
    DML_FEATURE,
    DML_FEATURE_LEVEL,
    DML_TENSOR_DATA_TYPE,
)
from dmlsim.api.errors import DXGI_ERROR_UNSUPPORTED, E_INVALIDARG, E_NOTIMPL, E_OUTOFMEMORY, DMLError, Problems
from dmlsim.api.structs import (
    DML_BINDING_TABLE_DESC,
    DML_FEATURE_DATA_FEATURE_LEVELS,
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT,
    DML_FEATURE_QUERY_FEATURE_LEVELS,
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT,
    DML_GRAPH_DESC,
    DML_OPERATOR_DESC,
)
from dmlsim.api.tensor import FLOAT64_TYPES, strided_array
from dmlsim.operators import implemented_feature_level
from dmlsim.operators.validation import validate_operator_desc
from dmlsim.runtime.binding import BindingTable, LateBoundDispatch, descriptors_volatile
from dmlsim.runtime.buffer import Buffer
from dmlsim.runtime.dispatchable import CompiledOperator, OperatorInitializer, OperatorObject
from dmlsim.runtime.execution import Backend, Dispatchable, ResolvedCopies, ResolvedDispatch, dispatches_of
from dmlsim.runtime.graph import CompiledGraph


class CommandList:
    """A recorded list of dispatches (ID3D12GraphicsCommandList); may be executed many times."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self.items: list[ResolvedDispatch | ResolvedCopies | LateBoundDispatch] = []
        self.closed = False

    def Close(self) -> None:
        self.closed = True

    def Reset(self) -> None:
        self.items = []
        self.closed = False


class CommandRecorder:
    """IDMLCommandRecorder."""

    def __init__(self, device: Device) -> None:
        self.device = device

    def RecordDispatch(self, commandList: CommandList, dispatchable: Dispatchable,
                       bindings: BindingTable) -> None:
        """Check the bindings (completeness, hazards) and prepare the launch; bindings are captured now,
        except with DESCRIPTORS_VOLATILE (late binding: the table is read, and checked, at execution)."""
        device = self.device
        if (type(commandList) is CommandList and commandList.device is device and not commandList.closed
                and type(bindings) is BindingTable and bindings.device is device
                and dispatchable is bindings.dispatchable and bindings.captured_at_record):
            # every check below passes (the same outcome, fewer steps on each training step's path)
            commandList.items.append(bindings.resolved(device.backend))
            return
        if not isinstance(commandList, CommandList) or commandList.device is not self.device:
            raise DMLError(E_INVALIDARG, "RecordDispatch: commandList must be a command list of this device")
        if commandList.closed:
            raise DMLError(E_INVALIDARG, "RecordDispatch: the command list is closed; Reset it first")
        if not isinstance(bindings, BindingTable) or bindings.device is not self.device:
            raise DMLError(E_INVALIDARG, "RecordDispatch: bindings must be a binding table of this device")
        if dispatchable is not bindings.dispatchable:
            raise DMLError(E_INVALIDARG, "RecordDispatch: the binding table was created (or Reset) for another "
                                         "dispatchable")
        operator = getattr(dispatchable, "operator", None)
        if operator is not None and not operator.implemented:
            dispatchable.resolve(bindings)  # the bindings are checked all the same
            raise DMLError(E_NOTIMPL, f"RecordDispatch: {operator.name} is not implemented by dmlsim (the "
                                      "bindings were checked and are valid)")
        if descriptors_volatile(dispatchable):
            commandList.items.append(LateBoundDispatch(dispatchable, bindings))
            return
        commandList.items.append(bindings.resolved(self.device.backend))


class CommandQueue:
    """The command queue (ID3D12CommandQueue): executes command lists in order."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self.last_timings: list[Any] = []

    def ExecuteCommandLists(self, lists: Sequence[CommandList]) -> None:
        """Enqueue every dispatch of ``lists``; a debug device first checks their input values.

        Free-threaded, as DirectML's queues are: concurrent calls (on this queue or another of the
        device) run one after another, each call's lists contiguous, in whichever order they take the
        device's execution lock.
        """
        device = self.device
        single = None  # the hot path: one list of this device holding one captured dispatch, no debug checks
        if type(lists) is list and len(lists) == 1 and type(lists[0]) is CommandList and lists[0].device is device:
            items = lists[0].items
            if len(items) == 1 and type(items[0]) is ResolvedDispatch and not device._debug:
                single = items[0]
        else:
            if isinstance(lists, CommandList):
                raise invalid("ExecuteCommandLists takes a list of command lists: pass [commandList]")
            lists = require_sequence(lists, "ExecuteCommandLists: lists")
            for i, cmd in enumerate(lists):
                if not isinstance(cmd, CommandList) or cmd.device is not device:
                    raise invalid(f"ExecuteCommandLists: entry {i} is not a command list of this device, got "
                                  f"{type(cmd).__name__}")
        if single is not None:  # nothing to resolve or check: what dmlsim adds to every training step
            lock = device.execution_lock
            lock.acquire()  # not `with`: its __enter__/__exit__ calls cost more than the lock itself
            try:
                self.last_timings = device.backend.submit(single)
            finally:
                lock.release()
            return
        with device.execution_lock:
            backend = device.backend
            items = [item.resolve(backend) if isinstance(item, LateBoundDispatch) else item
                     for cmd in lists for item in cmd.items]
            if device._debug:  # a graph's nodes read intermediates not yet computed: checked operators only
                device.debug_check(items)
            flat = dispatches_of(items)
            backend.admit(flat)  # what the backend cannot run is refused before any of the call runs
            timings = []
            for item in flat:
                if isinstance(item, ResolvedCopies):
                    for source, destination in item.copies:
                        backend.copy(source, destination, source.layout.total_bytes)
                else:
                    timings += backend.submit(item)
            self.last_timings = timings

    def WaitForIdle(self) -> None:
        """Block until every executed command list has finished (a fence wait).

        Under the device's execution lock, as every call on the device's queue is: Oclgrind's runtime is
        not thread-safe (a finish beside another thread's enqueue crashed it), and no driver gains from
        the overlap, since the executions it waits for are serialized anyway.
        """
        device = self.device
        lock = device.execution_lock
        lock.acquire()  # as ExecuteCommandLists' single-dispatch path: not `with`, a training step's path
        try:
            device.backend.wait()
        finally:
            lock.release()


class Device:
    """IDMLDevice on one adapter (an OpenCL device or the numpy reference device)."""

    def __init__(self, flags: int, adapter: Any, backend: Backend) -> None:
        self.flags = DML_CREATE_DEVICE_FLAGS(flags)
        self.adapter = adapter
        self.backend = backend
        # Held while command lists execute and while buffers are read or written, so that concurrent
        # ExecuteCommandLists calls run in some serial order (reentrant: a debug check reads buffers).
        self.execution_lock = threading.RLock()
        # read on every ExecuteCommandLists: a plain bool (an IntFlag test costs about 2 us per call)
        self._debug = bool(self.flags & DML_CREATE_DEVICE_FLAGS.DML_CREATE_DEVICE_FLAG_DEBUG)

    @property
    def debug(self) -> bool:
        return self._debug

    @property
    def description(self) -> str:
        """Adapter and driver, for reports."""
        return f"{self.adapter.label}; {self.backend.driver}"

    # --- resources ----------------------------------------------------------------------------------
    def CreateBuffer(self, sizeInBytes: int) -> Buffer:
        """A zero-filled buffer; E_OUTOFMEMORY beyond the backend's largest allocation (checked before allocating)."""
        if not is_integer(sizeInBytes) or sizeInBytes <= 0:
            raise invalid(f"CreateBuffer: size must be a positive integer, got {type(sizeInBytes).__name__} "
                          f"{shown(sizeInBytes)}")
        limit = self.backend.max_buffer_size
        if sizeInBytes > limit:
            raise DMLError(E_OUTOFMEMORY, f"CreateBuffer: {shown(int(sizeInBytes))} bytes is more than the largest "
                                          f"buffer {self.adapter.label} can allocate ({limit} bytes)")
        return Buffer(self, int(sizeInBytes))

    # --- IDMLDevice ---------------------------------------------------------------------------------
    def CreateOperator(self, desc: DML_OPERATOR_DESC) -> OperatorObject:
        return OperatorObject(self, validate_operator_desc(desc))

    def check_operator(self, desc: DML_OPERATOR_DESC) -> OperatorObject:
        """dmlsim extension: CreateOperator's checks, also for DirectML operators dmlsim does not implement.

        The result can be compiled and bound like any operator, so a tool can check a whole dispatch;
        RecordDispatch of an unimplemented operator checks its bindings, then raises E_NOTIMPL.
        """
        return OperatorObject(self, validate_operator_desc(desc, allow_unimplemented=True))

    def CompileOperator(self, op: OperatorObject, flags: int = 0) -> CompiledOperator:
        if not isinstance(op, OperatorObject) or op.device is not self:
            raise DMLError(E_INVALIDARG, "CompileOperator: op must be an operator created by this device")
        flags = require_flags(flags, DML_EXECUTION_FLAGS, "CompileOperator: flags")
        self._check_data_type_support(op)
        return CompiledOperator(self, op, flags)

    def CompileGraph(self, desc: DML_GRAPH_DESC, flags: int = 0) -> CompiledGraph:
        """IDMLDevice1::CompileGraph: the graph's operators as one dispatchable (dmlsim.runtime.graph)."""
        return CompiledGraph(self, desc, flags)

    def CreateOperatorInitializer(self, operators: Sequence[CompiledOperator] = ()) -> OperatorInitializer:
        return OperatorInitializer(self, require_sequence(operators, "CreateOperatorInitializer: operators"))

    def CreateBindingTable(self, desc: DML_BINDING_TABLE_DESC) -> BindingTable:
        return BindingTable(self, desc)

    def CreateCommandRecorder(self) -> CommandRecorder:
        return CommandRecorder(self)

    def CreateCommandList(self) -> CommandList:
        return CommandList(self)

    def CreateCommandQueue(self) -> CommandQueue:
        return CommandQueue(self)

    def GetFeatureLevel(self) -> DML_FEATURE_LEVEL:
        """The feature level dmlsim emulates (the level of the newest DirectML operator it implements)."""
        return implemented_feature_level()

    def CheckFeatureSupport(self, feature: DML_FEATURE | int, query: Any
                            ) -> DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT | DML_FEATURE_DATA_FEATURE_LEVELS:
        """IDMLDevice::CheckFeatureSupport: the support-data struct for ``query`` (the C out-parameter, returned).

        Tensor data types: every DML_TENSOR_DATA_TYPE is storage dmlsim can move, except FLOAT64 on an
        OpenCL device without cl_khr_fp64 (CreateOperator refuses it there with DXGI_ERROR_UNSUPPORTED).
        Feature levels: the highest requested level the device reaches (GetFeatureLevel).
        """
        if as_enum(feature, DML_FEATURE) is None:
            raise invalid(f"CheckFeatureSupport: unknown DML_FEATURE {shown(feature)}")
        if feature == DML_FEATURE.DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT:
            if not isinstance(query, DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT):
                raise invalid("CheckFeatureSupport(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT) needs a "
                              f"DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT, got {type(query).__name__}")
            data_type = require_enum(query.DataType, DML_TENSOR_DATA_TYPE,
                                     "DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT.DataType")
            if data_type == DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_UNKNOWN:
                raise invalid("DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT.DataType is "
                              "DML_TENSOR_DATA_TYPE_UNKNOWN, which names no data type")
            return DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT(data_type not in FLOAT64_TYPES or self.backend.has_fp64)
        if not isinstance(query, DML_FEATURE_QUERY_FEATURE_LEVELS):
            raise invalid("CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS) needs a "
                          f"DML_FEATURE_QUERY_FEATURE_LEVELS, got {type(query).__name__}")
        given = require_sequence(query.RequestedFeatureLevels,
                                 "DML_FEATURE_QUERY_FEATURE_LEVELS.RequestedFeatureLevels", allow_none=True)
        levels = [as_enum(lv, DML_FEATURE_LEVEL) for lv in given]
        # in hex where a level could be (a UINT); anything larger as shown() bounds it (10**15000 is 12,000 digits)
        unknown = [hex(int(lv)) if is_integer(lv) and 0 <= lv <= UINT32_MAX else shown(lv)
                   for lv, member in zip(given, levels, strict=True) if member is None]
        if unknown:
            raise invalid("DML_FEATURE_QUERY_FEATURE_LEVELS.RequestedFeatureLevels holds "
                          f"{', '.join(unknown[:8])}, not DML_FEATURE_LEVEL values")
        count = query.RequestedFeatureLevelCount
        if not levels or not is_integer(count) or count != len(levels):
            raise invalid("DML_FEATURE_QUERY_FEATURE_LEVELS.RequestedFeatureLevelCount "
                          f"{shown(count)} must be the length (≥ 1) of "
                          f"RequestedFeatureLevels ({len(levels)})")
        reached = [level for level in levels if level <= self.GetFeatureLevel()]
        if not reached:
            raise DMLError(DXGI_ERROR_UNSUPPORTED, f"none of the requested feature levels "
                                                   f"{[lv.name for lv in levels]} is supported "
                                                   f"(dmlsim reaches {self.GetFeatureLevel().name})")
        return DML_FEATURE_DATA_FEATURE_LEVELS(DML_FEATURE_LEVEL(max(reached)))

    # --- checks -------------------------------------------------------------------------------------
    def _check_data_type_support(self, op: OperatorObject) -> None:
        if self.backend.has_fp64:
            return
        for name, layouts in op.validated.tensors.items():
            items = layouts if isinstance(layouts, list) else [layouts]
            if any(layout is not None and layout.data_type in FLOAT64_TYPES for layout in items):
                raise DMLError(DXGI_ERROR_UNSUPPORTED, f"{op.validated.struct_name}.{name} is FLOAT64, but "
                                                       f"{self.adapter.label} has no cl_khr_fp64")

    def debug_check(self, items: Sequence[Any]) -> None:
        """A debug device's execution-time checks on input values, before anything is enqueued."""
        problems = Problems()
        self.backend.wait()
        for item in items:
            if not isinstance(item, ResolvedDispatch):
                continue
            compiled = item.compiled

            def read(name: str, item: ResolvedDispatch = item) -> Any:
                bound = item.bound[name]
                if isinstance(bound, list):
                    return [_read_tensor(b) for b in bound]
                return None if bound is None else _read_tensor(bound)

            compiled.operator.debug_check(compiled.validated, read, problems)
        problems.raise_if_any("ExecuteCommandLists (debug device)")


def _read_tensor(bound: Any) -> np.ndarray:
    """A tensor's current values, read through the backend (works for device and host buffers)."""
    return strided_array(bound.buffer.Read(bound.offset, bound.layout.span_bytes), bound.layout)
