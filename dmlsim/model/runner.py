"""Running a parsed model on a device: create (dispatchables), bind and dispatch (commands), time.

Every dispatchable and every command yields an :class:`Outcome`, keyed ``NAME`` or ``command-N``,
which is what ``dmlsim run`` prints and what each pytest item reports. Statuses:

- ``passed``; ``failed`` (an expectation or an expected refusal did not hold: exit status 1);
- ``invalid`` (the device refused something the file did not expect, or the file asks for something
  impossible: exit status 2) — after that, later commands are ``not run``, since resource contents
  are no longer what the file describes;
- ``not implemented`` (a DirectML operator dmlsim has no kernel for, whose desc and bindings are
  otherwise valid: exit status 3, reported at the dispatchable's ``type``); its dispatches are not
  implemented either, and when executing, later commands are ``not run``;
- ``not checked``: an ``expect`` in a timing run (``iterations`` > 1 or ``milliseconds``), where each
  dispatch executes many times, so resources no longer hold what the file's expectations describe
  (exit status 0: nothing was found wrong, and nothing is reported as passed either);
- ``not run`` is also the status of a dispatch of a dispatchable whose creation failed (that
  dispatchable's outcome says why).

``expect reference: true`` compares with a snapshot taken when the same model runs on the reference
device (:func:`reference_snapshots`); on the reference device itself it is ``skipped`` (the snapshot
is still taken), since comparing the device with itself proves nothing.

Limits (dmlsim.model.limits): the persistent and temporary resources a run makes are charged to the memory
budget before they are made; once the dispatchables are created and before any command executes, the
commands' estimated work is added up (:meth:`Runner._over_compute_budget`) and a model over the compute
budget is refused at the command that passes it. ``execute=False`` (validate) makes the same checks.
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dmlsim.api.enums import DML_BINDING_TYPE, DML_FEATURE
from dmlsim.api.errors import E_INVALIDARG, E_NOTIMPL, E_OUTOFMEMORY, DMLError
from dmlsim.api.structs import (
    DML_BINDING_DESC,
    DML_BINDING_TABLE_DESC,
    DML_BUFFER_ARRAY_BINDING,
    DML_BUFFER_BINDING,
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT,
    NO_BINDING,
    buffer_array_binding,
    buffer_binding,
)
from dmlsim.model.compare import Tolerance, compare_values, format_value
from dmlsim.model.errors import MAX_DIAGNOSTICS, Location, show
from dmlsim.model.limits import COMPUTE_ENV, Budget, describe_bytes, describe_work
from dmlsim.model.loader import Node
from dmlsim.model.model import (
    Add,
    BindingRef,
    Command,
    Dispatch,
    DispatchableSpec,
    Expect,
    ExpectedError,
    Model,
    Print,
    WriteFile,
)
from dmlsim.model.targets import open_target
from dmlsim.model.timing import build_line, split, timing_report
from dmlsim.runtime.buffer import Buffer
from dmlsim.runtime.device import Device

PASSED, FAILED, INVALID, NOT_RUN, SKIPPED = "passed", "failed", "invalid", "not run", "skipped"
NOT_IMPLEMENTED = "not implemented"
NOT_CHECKED = "not checked"
# why an ``expect reference: true`` is skipped on the reference device: it would pass vacuously
REFERENCE_ITSELF = "skipped: reference: true compares with the reference device itself"
# The compute budget's units, about a nanosecond each of the slowest device (measured on 2 cores: PoCL 3.0 and
# 3.1, Intel's CPU runtime, the reference device; docs/guides/untrusted-files.md), from a dispatch's estimate
# (dmlsim.operators.base.Work): an operation counts one (GEMM on PoCL: 0.8 ns per FLOP); a byte touched
# BYTE_UNITS (the reference device's float64 copies: 14 ns per byte of an element-wise add, first run); a Python
# step of the reference device HOST_STEP (about a microsecond); each execution of a dispatch EXECUTION_OVERHEAD
# more (binding, the enqueue and the wait: 25-130 us).
BYTE_UNITS = 16
HOST_STEP = 1000
EXECUTION_OVERHEAD = 100_000


class Outcome:
    """What happened to one dispatchable or command. ``location`` may be given as the file's Node, whose
    position is then found only if it is asked for (in a JSON file that takes a scan of its container:
    ten thousand commands that pass should not each pay for it)."""

    def __init__(self, key: str, title: str, location: Location | Node, status: str = PASSED,
                 message: str = "") -> None:
        self.key = key  # dispatchable name or "command-N"
        self.title = title
        self._location = location
        self.status = status
        self.message = message

    @property
    def location(self) -> Location:
        if isinstance(self._location, Node):
            self._location = self._location.location
        return self._location

    @location.setter
    def location(self, value: Location | Node) -> None:
        self._location = value

    def __repr__(self) -> str:
        return f"Outcome({self.key!r}, {self.status!r}, {self.message[:60]!r})"

    def describe(self) -> str:
        head = f"{self.location.file}:{self.location.line}:{self.location.column}: {self.title}: {self.status}"
        return f"{head}\n{self.message}" if self.message else head


@dataclass
class RunResult:
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    snapshots: dict[int, np.ndarray] = field(default_factory=dict)
    output: list[str] = field(default_factory=list)

    @property
    def exit_status(self) -> int:
        """0 passed, 1 an expectation failed, 2 invalid, 3 valid but an operator is not implemented."""
        statuses = {o.status for o in self.outcomes.values()}
        return 2 if INVALID in statuses else 1 if FAILED in statuses else 3 if NOT_IMPLEMENTED in statuses else 0


EXIT_SEVERITY = {0: 0, 3: 1, 1: 2, 2: 3}  # passed < not implemented < failed < invalid


def worst_exit_status(*statuses: int) -> int:
    """The most severe of several exit statuses (several files checked in one call)."""
    return max(statuses, key=lambda status: EXIT_SEVERITY.get(status, 4), default=0)


class _StopError(Exception):
    """A command was refused unexpectedly (or could not run): later commands cannot run meaningfully."""

    def __init__(self, reason: str = "was refused unexpectedly", status: str = NOT_RUN) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status  # what later commands become


class SizedBuffer(Buffer):
    """A buffer with a size and no storage, for ``validate``: binding checks need sizes, not memory, and
    nothing is executed (so nothing reads or writes it)."""

    def __init__(self, device: Device, size: int) -> None:
        self.device = device
        self.size = size
        self.storage = None


def max_allocation(device: Device) -> int | None:
    """The largest buffer ``device`` can allocate (OpenCL's CL_DEVICE_MAX_MEM_ALLOC_SIZE; None: no limit
    known, the reference device's numpy arrays are bounded by the memory budget only)."""
    limit = getattr(device.adapter.cl_device, "max_mem_alloc_size", None)
    return limit if isinstance(limit, int) and limit > 0 else None


class Runner:
    """Executes one model on one device; ``execute=False`` stops before ExecuteCommandLists (validate)."""

    def __init__(self, model: Model, device: Device, *, reference: RunResult | None = None, execute: bool = True,
                 iterations: int = 0, warmup: int = 1, milliseconds: int | None = None, timing_verbosity: int = 0,
                 output_dir: Path | None = None, echo: Callable[[str], None] | None = None) -> None:
        """``iterations`` 0 executes each dispatch once (``repeat`` times) untimed, as the pytest plugin does;
        1 or more times each dispatch as DxDispatch does (1: its ``repeat`` executions, more: that many, or
        for ``milliseconds``) and logs its timing line(s) at ``timing_verbosity``."""
        self.model = model
        self.device = device
        self.reference = reference
        self.execute = execute
        self.iterations = iterations
        self.warmup = warmup
        self.milliseconds = milliseconds
        self.timing_verbosity = timing_verbosity
        self.output_dir = Path(os.path.realpath(output_dir or Path.cwd()))
        self.echo = echo or (lambda line: None)
        self.result = RunResult()
        self.buffers: dict[str, Any] = {}
        self.compiled: dict[str, Any] = {}
        self.executed: set[str] = set()  # dispatchables executed once already (their kernels are built)
        self.persistent: dict[str, Any] = {}  # dispatchable → its persistent resource (OWNED_BY_DML inputs)
        self.temporary: Buffer | None = None  # one temporary resource, grown to the largest a dispatch needs
        # what this run may still hold: the budget less what the parse charged (resources, expected values)
        self.budget = Budget(model.limits, model.budget.used if model.budget is not None else 0)
        self.queue = device.CreateCommandQueue()

    # --- driver ---------------------------------------------------------------------------------
    def run(self) -> RunResult:
        missing = unsupported_data_types(self.model, self.device)
        if missing:
            reason = (f"skipped: {self.device.adapter.label} does not support {', '.join(missing)} tensors "
                      "(CheckFeatureSupport), which the model's requiredDataTypes lists")
            for spec in self.model.dispatchables.values():
                self.result.outcomes[spec.name] = Outcome(spec.name, f"dispatchable '{spec.name}'",
                                                          spec.node, SKIPPED, reason)
            for command in self.model.commands:
                self.result.outcomes[command.key] = Outcome(command.key, _title(command), command.node,
                                                            SKIPPED, reason)
            return self.result
        refused = self._allocate()
        if refused is not None:
            self.result.outcomes[refused.key] = refused
            for spec in self.model.dispatchables.values():
                self.result.outcomes[spec.name] = Outcome(spec.name, f"dispatchable '{spec.name}'",
                                                          spec.node, NOT_RUN, f"not run: {refused.title}")
            for command in self.model.commands:
                self.result.outcomes[command.key] = Outcome(command.key, _title(command), command.node,
                                                            NOT_RUN, f"not run: {refused.title}")
            return self.result
        for spec in self.model.dispatchables.values():
            self._create(spec)
        over = self._over_compute_budget()
        if over is not None:
            crossing, message = over
            for command in self.model.commands:
                self.result.outcomes[command.key] = (
                    Outcome(command.key, _title(command), command.node, INVALID, message) if command is crossing
                    else Outcome(command.key, _title(command), command.node, NOT_RUN,
                                 f"not run: the model is over the compute budget at command {crossing.index}"))
            return self.result
        stopped: _StopError | None = None
        for command in self.model.commands:
            outcome = Outcome(command.key, _title(command), command.node)
            self.result.outcomes[command.key] = outcome
            if stopped is not None:
                outcome.status, outcome.message = stopped.status, f"not run: {stopped.reason}"
                continue
            try:
                self._command(command, outcome)
            except _StopError as stop:
                stop.reason = f"command {command.index} {stop.reason}"
                stopped = stop
        return self.result

    # --- the compute budget ---------------------------------------------------------------------
    def _over_compute_budget(self) -> tuple[Command, str] | None:
        """Add up what the commands will cost (estimated from the compiled descs, dmlsim.operators.base.Work)
        before anything executes; the command at which the total passes ``limits.compute`` and why. validate
        makes the same estimate, so it refuses what run would. With ``expect reference: true`` (and no
        timing run) the model also runs on the reference device first: its work counts twice."""
        limit = self.model.limits.compute
        twice = self.model.needs_reference and not self.timing_run
        total = 0
        for command in self.model.commands:
            units, how = self._command_cost(command)
            total += units * (2 if twice else 1)
            if total > limit:
                what = f"dispatch '{command.dispatchable}'" if isinstance(command, Dispatch) else _title(command)
                return command, (f"{what} would bring the model's estimated work to {describe_work(total)} units"
                                 f"{' (run twice: reference: true)' if twice else ''}, over the compute budget of "
                                 f"{describe_work(limit)} ({how}); raise it with --compute-budget or "
                                 f"${COMPUTE_ENV}")
        return None

    def _command_cost(self, command: Command) -> tuple[int, str]:
        """The work units of one command, and how they add up (for the refusal's message)."""
        if isinstance(command, Dispatch):
            compiled = self.compiled.get(command.dispatchable)
            if compiled is None or not compiled.operator.implemented:
                return 0, ""
            work = compiled.operator.work(compiled.validated)
            executions = self.iterations if self.timing_run and self.milliseconds is None else command.repeat
            increments = sum(2 * BYTE_UNITS * self.model.resources[name].size_in_bytes + 10 * HOST_STEP
                             for name, _ in command.increments)
            once = (work.operations + BYTE_UNITS * work.bytes + HOST_STEP * work.host_steps + EXECUTION_OVERHEAD
                    + increments)
            how = (f"this dispatch: {describe_work(work.operations)} operations, {describe_work(work.bytes)} bytes "
                   f"({BYTE_UNITS} units each), {describe_work(work.host_steps)} reference-device steps ({HOST_STEP} "
                   "each)"
                   f"{f', {executions:,} times' if executions > 1 else ''}")
            return executions * once, how
        resource = self.model.resources.get(getattr(command, "resource", ""))
        if resource is None:
            return 0, ""
        size = resource.size_in_bytes
        units = {Print: HOST_STEP * resource.values.size, Expect: 4 * BYTE_UNITS * size, Add: 2 * BYTE_UNITS * size,
                 WriteFile: 2 * BYTE_UNITS * size}.get(type(command), 0) + 10 * HOST_STEP
        return units, f"this command: {describe_work(units)} units for the {size} bytes of resource '{resource.name}'"

    def _allocate(self) -> Outcome | None:
        """Create the resources' buffers (sizes only when not executing); the outcome of one that cannot be."""
        limit = max_allocation(self.device)
        for name, resource in self.model.resources.items():
            outcome = Outcome(f"resource-{name}", f"resource '{name}' was not created", resource.node,
                              INVALID)
            if limit is not None and resource.size_in_bytes > limit:
                outcome.message = (f"its {describe_bytes(resource.size_in_bytes)} exceed the largest buffer "
                                   f"{self.device.adapter.label} can allocate ({describe_bytes(limit)})")
                return outcome
            if not self.execute:
                self.buffers[name] = SizedBuffer(self.device, resource.size_in_bytes)
                continue
            try:
                buffer = self.device.CreateBuffer(resource.size_in_bytes)
                buffer.Write(resource.values, resource.offset)  # the rest stays zero, as created
            except DMLError as exc:
                outcome.message = str(exc)
                return outcome
            self.buffers[name] = buffer
        return None

    def _buffer(self, size: int, what: str) -> Buffer:
        """A device buffer when executing; a size-only stand-in otherwise (validate allocates nothing). Charged
        to the memory budget and checked against the device's largest allocation first, in both cases:
        validate refuses what run would (DMLError E_OUTOFMEMORY naming ``what``)."""
        refusal = self.budget.refusal(size, what)
        if refusal is not None:
            raise DMLError(E_OUTOFMEMORY, refusal)
        if not self.execute:
            limit = self.device.backend.max_buffer_size
            if size > limit:
                raise DMLError(E_OUTOFMEMORY, f"{what}: {describe_bytes(size)} is more than the largest buffer "
                                              f"{self.device.adapter.label} can allocate ({describe_bytes(limit)})")
            return SizedBuffer(self.device, size)
        return self.device.CreateBuffer(size)

    def _temporary(self, size: int, dispatchable: str) -> Buffer:
        """The temporary resource of a dispatch: one buffer for the whole run (dispatches execute one after
        another), replaced by a larger one when a dispatch needs more; only the growth is charged."""
        held = self.temporary.size if self.temporary is not None else 0
        if size > held:
            self.temporary = None  # the old one goes before the larger one is made
            self.budget.used -= held
            self.temporary = self._buffer(size, f"the temporary resource of dispatchable '{dispatchable}' "
                                                f"({size} bytes)")
        assert self.temporary is not None
        return self.temporary

    @property
    def timing_run(self) -> bool:
        """Whether dispatches execute more often than the file says, so expectations cannot be checked."""
        return timing_run(self.iterations, self.milliseconds)

    def _log(self, line: str) -> None:
        self.result.output.append(line)
        self.echo(line)

    # --- create ---------------------------------------------------------------------------------
    def _create(self, spec: DispatchableSpec) -> None:
        outcome = Outcome(spec.name, f"dispatchable '{spec.name}'", spec.node)
        self.result.outcomes[spec.name] = outcome
        error = None
        try:
            op = self.device.CreateOperator(spec.desc)
            self.compiled[spec.name] = self.device.CompileOperator(op, spec.execution_flags)
        except DMLError as exc:
            error = exc
        if spec.expect_error is not None:
            mismatch = spec.expect_error.mismatch(error)
            if mismatch:
                outcome.status, outcome.message = FAILED, mismatch
            else:
                outcome.message = f"refused as expected: {error}"
        elif error is not None and error.hresult == E_NOTIMPL and not spec.implemented:
            outcome.status = NOT_IMPLEMENTED
            outcome.location = spec.type_node or spec.node
            outcome.message = f"operator not implemented (the desc was checked and is valid): {error}"
            # compiled for checking only: its initializer and dispatch bindings are checked, then refused
            self.compiled[spec.name] = self.device.CompileOperator(self.device.check_operator(spec.desc),
                                                                   spec.execution_flags)
        elif error is not None:
            outcome.status = INVALID
            outcome.message = _locate(error, spec.desc_node, _desc_path(spec))
        if spec.name in self.compiled:
            self._initialize(spec, outcome)

    def _initialize(self, spec: DispatchableSpec, outcome: Outcome) -> None:
        """Run the operator initializer: the dispatchable-level ``bindings`` (OWNED_BY_DML inputs) are copied
        into the operator's persistent resource, which its dispatches then bind."""
        compiled = self.compiled[spec.name]
        size = compiled.GetBindingProperties().PersistentResourceSize
        if not size and not spec.initializer_bindings:
            return
        node = spec.node.get("bindings") or spec.node
        try:
            initializer = self.device.CreateOperatorInitializer([compiled])
            table = self.device.CreateBindingTable(DML_BINDING_TABLE_DESC(
                initializer, SizeInDescriptors=initializer.GetBindingProperties().RequiredDescriptorCount))
            sources = [self._buffer_binding(spec.initializer_bindings.get(row.name))
                       for row in compiled.operator.input_fields]
            # the sources are checked before the persistent resource exists: a 12-byte resource bound to a
            # 1 GiB OWNED_BY_DML input is refused without allocating (and zero-filling) the gigabyte first
            table.BindInputs([DML_BINDING_DESC(DML_BINDING_TYPE.DML_BINDING_TYPE_BUFFER_ARRAY,
                                               DML_BUFFER_ARRAY_BINDING(len(sources), sources))])
        except DMLError as exc:
            self._initializer_refused(spec, outcome, exc, node)
            return
        try:
            persistent = self._buffer(max(size, 4), f"the persistent resource of dispatchable '{spec.name}' "
                                                    f"({_owned_fields(compiled)})")
        except DMLError as exc:
            del self.compiled[spec.name]
            where = _largest_owned(spec, compiled)
            outcome.status, outcome.location, outcome.message = INVALID, where, f"{where.location}: {exc}"
            return
        try:
            table.BindOutputs([buffer_binding(persistent, 0, size) if size else NO_BINDING])
            cmd = self.device.CreateCommandList()
            self.device.CreateCommandRecorder().RecordDispatch(cmd, initializer, table)
            cmd.Close()
            if self.execute:
                self.queue.ExecuteCommandLists([cmd])
                self.queue.WaitForIdle()
        except DMLError as exc:
            self._initializer_refused(spec, outcome, exc, node)
            return
        self.persistent[spec.name] = persistent

    def _initializer_refused(self, spec: DispatchableSpec, outcome: Outcome, error: DMLError, node: Node) -> None:
        del self.compiled[spec.name]
        outcome.status = INVALID
        outcome.message = "the operator initializer (dispatchable-level bindings) was refused:\n" + _locate(
            error, node, None)

    def _buffer_binding(self, ref: BindingRef | list[BindingRef] | None) -> DML_BUFFER_BINDING:
        """One initializer source: the bound range, or a null buffer for inputs that are not owned."""
        if ref is None:
            return DML_BUFFER_BINDING(None, 0, 0)
        if isinstance(ref, list):
            raise DMLError(E_INVALIDARG, "tensor arrays cannot be bound to the operator initializer")
        buffer = self.buffers[ref.resource]
        return DML_BUFFER_BINDING(buffer, ref.offset, buffer.size - ref.offset)

    # --- commands -------------------------------------------------------------------------------
    def _command(self, command: Command, outcome: Outcome) -> None:
        error: DMLError | None = None
        try:
            if isinstance(command, Dispatch):
                self._dispatch(command, outcome)
            elif not self.execute:
                outcome.message = "not executed (validate only)"
            elif isinstance(command, Print):
                self._print(command)
            elif isinstance(command, WriteFile):
                self._write_file(command, outcome)
            elif isinstance(command, Expect):
                self._expect(command, outcome)
            elif isinstance(command, Add):
                self._add(command.resource, command.value)
        except DMLError as exc:
            error = exc
        expected: ExpectedError | None = command.expect_error
        if expected is not None:
            if error is None and not self.execute and outcome.status == PASSED:
                outcome.message = "expected refusal not checked: it would come at execution"
                return
            mismatch = expected.mismatch(error)
            if mismatch:
                outcome.status, outcome.message = FAILED, mismatch
                if error is not None:
                    raise _StopError
            else:
                outcome.message = f"refused as expected: {error}"
        elif error is not None:
            outcome.status = INVALID
            bindings = command.node.get("bindings")
            outcome.message = _locate(error, bindings, None) if bindings is not None else str(error)
            raise _StopError

    def _read(self, name: str) -> np.ndarray:
        resource = self.model.resources[name]
        raw = self.buffers[name].Read(resource.offset, resource.values.nbytes)
        return np.frombuffer(raw, resource.dtype).copy()

    def _add(self, name: str, value: Any) -> None:
        values = self._read(name)
        with np.errstate(all="ignore"):
            values = (values + np.asarray(value).astype(values.dtype)).astype(values.dtype)
        self.buffers[name].Write(values, self.model.resources[name].offset)

    def _leading(self, name: str, count: int) -> np.ndarray:
        """The first ``count`` elements of resource ``name``'s buffer, from byte 0 (not its initial-values
        offset): what DxDispatch's print and writeFile read."""
        dtype = self.model.resources[name].dtype
        return np.frombuffer(self.buffers[name].Read(0, count * dtype.itemsize), dtype).copy()

    def _print(self, command: Print) -> None:
        """As DxDispatch: as many elements as the initial values have, read from the buffer's start; verbose
        pads the hex bits with spaces to the element's width."""
        resource = self.model.resources[command.resource]
        values = self._leading(command.resource, resource.values.size)
        if not command.verbose:
            self._log(f"Resource '{command.resource}': " + ", ".join(format_value(v) for v in values))
            return
        self._log(f"Resource '{command.resource}':")
        width = len(str(len(values)))
        bits = values.view(f"u{values.dtype.itemsize}")
        for i, (v, b) in enumerate(zip(values, bits, strict=True)):
            self._log(f"[{i:>{width}}] {format_value(v)} (0x{int(b):>{2 * values.dtype.itemsize}X})")

    def _write_file(self, command: WriteFile, outcome: Outcome) -> None:
        """Write the whole buffer, as DxDispatch does (``dimensions``: its first elements in that shape), under
        the output folder only (see :mod:`dmlsim.model.targets`)."""
        resource = self.model.resources[command.resource]
        count = resource.size_in_bytes // resource.dtype.itemsize
        if command.dimensions is not None:
            count = math.prod(command.dimensions)  # the parse checked it is the initial values' count
        values = self._leading(command.resource, count)
        if command.dimensions is not None:
            values = values.reshape(command.dimensions)
        try:
            fd, target = open_target(self.output_dir, command.target)
            with os.fdopen(fd, "wb") as handle:
                if target.suffix.lower() == ".npy":
                    np.save(handle, values)
                else:
                    handle.write(self.buffers[command.resource].Read(0, resource.size_in_bytes))
        except OSError as exc:
            reason = exc.strerror or str(exc)
            outcome.status = INVALID
            outcome.message = (f"Failed to write resource to file {show(command.target)} in "
                               f"'{self.output_dir}': {reason}")
            raise _StopError from None
        self._log(f"Resource '{command.resource}' written to '{target}'")

    def _expect(self, command: Expect, outcome: Outcome) -> None:
        got = self._read(command.resource)
        self.result.snapshots[command.index] = got
        if self.timing_run:
            how = f"for {self.milliseconds} ms" if self.milliseconds is not None else f"{self.iterations} times"
            outcome.status = NOT_CHECKED
            outcome.message = (f"not checked: a timing run executes each dispatch {how}, so "
                               "the resources do not hold what the expectation describes")
            return
        if command.reference:
            if self.device.adapter.kind == "reference":
                outcome.status, outcome.message = SKIPPED, REFERENCE_ITSELF
                return
            if self.reference is None:
                outcome.message = "snapshot taken (no reference run to compare with)"
                return
            expected = self.reference.snapshots.get(command.index)
            if expected is None:
                outcome.status = INVALID
                outcome.message = "the reference device did not reach this command: " + "; ".join(
                    o.message for o in self.reference.outcomes.values() if o.status == INVALID)
                raise _StopError
        else:
            expected = command.values
        data_type = self.model.resources[command.resource].data_type
        report = compare_values(got, expected, data_type, Tolerance(command.rtol, command.atol, command.ulp))
        against = "the reference device" if command.reference else "the expected values"
        if report is not None:
            outcome.status = FAILED
            outcome.message = f"resource '{command.resource}' does not match {against}: {report}"
        self._log(f"Expect '{command.resource}' (command {command.index}): "
                  f"{'ok' if report is None else 'FAILED'}")

    # --- bind and dispatch ----------------------------------------------------------------------
    def _binding(self, ref: BindingRef | list[BindingRef] | None) -> Any:
        if ref is None:
            return NO_BINDING
        if isinstance(ref, list):
            return buffer_array_binding([(self.buffers[r.resource], r.offset,
                                          self.buffers[r.resource].size - r.offset) for r in ref])
        buffer = self.buffers[ref.resource]
        return buffer_binding(buffer, ref.offset, buffer.size - ref.offset)

    def _dispatch(self, command: Dispatch, outcome: Outcome) -> None:
        compiled = self.compiled.get(command.dispatchable)
        if compiled is None:
            created = self.result.outcomes.get(command.dispatchable)
            if created is not None and created.status in (FAILED, INVALID):  # that failure is reported there
                outcome.status = NOT_RUN
                outcome.message = (f"not run: dispatchable '{command.dispatchable}' {created.status} "
                                   "(see its own result)")
                raise _StopError(f"dispatches '{command.dispatchable}', which was not created")
            outcome.status = INVALID
            outcome.message = f"dispatchable '{command.dispatchable}' was not created (see its own result)"
            raise _StopError
        device = self.device
        props = compiled.GetBindingProperties()
        table = device.CreateBindingTable(DML_BINDING_TABLE_DESC(compiled,
                                                                 SizeInDescriptors=props.RequiredDescriptorCount))
        op = compiled.operator
        table.BindInputs([self._binding(command.bindings.get(row.name)) for row in op.input_fields])
        table.BindOutputs([self._binding(command.bindings.get(row.name)) for row in op.output_fields])
        if props.TemporaryResourceSize:
            table.BindTemporaryResource(buffer_binding(self._temporary(props.TemporaryResourceSize,
                                                                       command.dispatchable)))
        if command.dispatchable in self.persistent:
            table.BindPersistentResource(buffer_binding(self.persistent[command.dispatchable], 0,
                                                        props.PersistentResourceSize))
        cmd = device.CreateCommandList()
        try:
            device.CreateCommandRecorder().RecordDispatch(cmd, compiled, table)
        except DMLError as exc:
            if exc.hresult != E_NOTIMPL or compiled.operator.implemented:
                raise
            outcome.status = NOT_IMPLEMENTED
            outcome.message = f"not run: {exc}"
            if self.execute:
                raise _StopError(f"dispatches {compiled.operator.name}, which dmlsim does not implement",
                                 NOT_IMPLEMENTED) from None
            return
        cmd.Close()
        if not self.execute:
            return
        self._charge_working_arrays(compiled)
        if self.iterations or self.milliseconds is not None:
            self._timed(command, cmd)
            return
        for _ in range(command.repeat):
            self.queue.ExecuteCommandLists([cmd])
            self.queue.WaitForIdle()
            for name, value in command.increments:
                self._add(name, value)

    def _charge_working_arrays(self, compiled: Any) -> None:
        """On the reference device, a dispatch's float64 working arrays (estimated from its desc, before any is
        allocated) count against what the model's memory budget leaves after its resources, for as long as
        the dispatch runs (dmlsim.backends.reference; issue 26 item 4)."""
        operator, budget = getattr(compiled, "operator", None), self.model.budget
        if self.device.backend.kind != "reference" or operator is None or budget is None:
            return
        need = operator.reference_bytes(compiled.validated)
        refusal = budget.refusal(need, f"{operator.name} on the reference device (its float64 working arrays)")
        if refusal is not None:
            raise DMLError(E_OUTOFMEMORY, refusal)
        budget.used -= need  # held while the dispatch runs, not after

    def _timed(self, command: Dispatch, cmd: Any) -> None:
        """DxDispatch's timing loop: CPU time of execute+wait per iteration, GPU time from profiling events.

        Without a timing run the dispatch executes as the file says (``repeat`` times, each an iteration).
        """
        cpu: list[float] = []
        gpu: list[float] = []
        gpu_timed = self.device.backend.kind == "opencl"
        count = self.iterations if self.timing_run else command.repeat
        deadline = None if self.milliseconds is None else time.perf_counter() + self.milliseconds / 1e3
        while (len(cpu) < count) if deadline is None else (not cpu or time.perf_counter() < deadline):
            start = time.perf_counter()
            self.queue.ExecuteCommandLists([cmd])
            self.queue.WaitForIdle()
            cpu.append((time.perf_counter() - start) * 1e3)
            if gpu_timed:
                gpu.append(sum(t.device_ns for t in self.queue.last_timings) / 1e6)
            for name, value in command.increments:
                self._add(name, value)
        if gpu_timed and command.dispatchable not in self.executed:  # its kernels were built in sample 0
            self.executed.add(command.dispatchable)
            self._log(build_line(command.dispatchable, cpu[0], cold=len(split(cpu, self.warmup)[0]) > 0))
        for line in timing_report(command.dispatchable, cpu, gpu, self.warmup, self.timing_verbosity):
            self._log(line)


def timing_run(iterations: int, milliseconds: int | None) -> bool:
    """Whether a run with these options executes dispatches more often than the file says."""
    return iterations > 1 or milliseconds is not None


def unsupported_data_types(model: Model, device: Device) -> list[str]:
    """The model's ``requiredDataTypes`` that ``device`` does not support (names without the prefix)."""
    return [t.name.removeprefix("DML_TENSOR_DATA_TYPE_") for t in model.required_data_types
            if not device.CheckFeatureSupport(DML_FEATURE.DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT,
                                              DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT(t)).IsSupported]


def _owned_fields(compiled: Any) -> str:
    """``OWNED_BY_DML: Filter`` (or "no OWNED_BY_DML input"): what a persistent resource holds."""
    return f"OWNED_BY_DML: {', '.join(compiled.owned)}" if compiled.owned else "no OWNED_BY_DML input"


def _largest_owned(spec: DispatchableSpec, compiled: Any) -> Node:
    """The desc field of the largest OWNED_BY_DML input (what makes a persistent resource large), else the
    dispatchable."""
    if not compiled.owned:
        return spec.node
    largest = max(compiled.owned, key=lambda name: compiled.validated.layout(name).total_bytes)
    return spec.desc_node.get(largest) or spec.node


def _title(command: Command) -> str:
    what = {Dispatch: lambda c: f"dispatch '{c.dispatchable}'", Print: lambda c: f"print '{c.resource}'",
            WriteFile: lambda c: f"writeFile '{c.resource}'", Expect: lambda c: f"expect '{c.resource}'",
            Add: lambda c: f"add to '{c.resource}'"}[type(command)](command)
    return f"command {command.index} ({what})"


def _desc_path(spec: DispatchableSpec) -> str:
    return type(spec.desc.Desc).__name__ if spec.desc is not None else ""


def _locate(error: DMLError, node: Node, struct: str | None) -> str:
    """The device's refusal, each problem prefixed with the file position of what it names.

    Desc problems name ``STRUCT.Field.Member``; binding problems name the bind point (``GradientTensor``).
    """
    lines = [str(error).splitlines()[0]] if len(error.problems) > 1 else []
    for problem in error.problems[:MAX_DIAGNOSTICS]:  # each located in constant time (Node.find indexes)
        target = node
        if struct and (m := re.search(re.escape(struct) + r"\.([\w.\[\]]+)", problem)):
            parts = [p for p in re.split(r"[.\[\]]+", m.group(1)) if p]
            target = node.find(parts)
        elif node.is_map:
            named = [k for k in node.value if re.search(rf"\b{re.escape(k)}\b", problem)]
            if named:
                target = node.get(named[0])  # type: ignore[assignment]
        text = problem if len(error.problems) > 1 else str(error)
        lines.append(f"{target.location}: {text}")
    if len(error.problems) > MAX_DIAGNOSTICS:
        lines.append(more_problems(len(error.problems) - MAX_DIAGNOSTICS))
    return "\n".join(lines)


def more_problems(count: int) -> str:
    """The line that stands for ``count`` problems left out of a listing (:data:`MAX_DIAGNOSTICS` are listed)."""
    return f"... {count} more problem{'s' * (count != 1)} (only the first {MAX_DIAGNOSTICS} are listed)"


def reference_snapshots(model: Model, flags: int) -> RunResult:
    """Run ``model`` on the reference device, keeping the resource values each ``expect`` sees."""
    from dmlsim.entry import DMLCreateDevice

    return Runner(model, DMLCreateDevice(flags, "reference")).run()


def run_model(model: Model, device: Device, **options: Any) -> RunResult:
    """Run ``model`` on ``device`` (with a reference run first when an expect asks for one and will be checked)."""
    timing = timing_run(options.get("iterations", 0), options.get("milliseconds"))
    reference = reference_snapshots(model, int(device.flags)) if model.needs_reference and not timing else None
    return Runner(model, device, reference=reference, **options).run()

