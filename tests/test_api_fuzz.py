"""A hypothesis fuzzer over the whole public API (issue 12): descs, bindings, buffers, queues, quick, feature
queries. Whatever it calls, with whatever arguments, the outcome is success or a DMLError carrying a known
HRESULT and a bounded message, never another exception.

A state machine drives one device (the reference device, and the first OpenCL device of the run): it
creates buffers, writes and reads them, creates operators from valid descs of every implemented operator
(the optimizers' own draws, and every operator's as the differential harness draws them) and from generated
descs of every DirectML operator, each possibly mutated (a field replaced by hostile
junk or a plausible wrong value), compiles them, makes binding tables and initializers, binds well-formed
or malformed bindings, records and executes command lists, and calls the free functions, all with values
drawn from a hostile catalogue (huge integers, NaN, strings, numpy arrays, objects whose repr raises...).

Graphs (issue 26): a rule builds a valid DML_GRAPH_DESC of element-wise nodes (any output may feed any input,
one node output may feed several graph outputs, inputs may go unread, the nodes listed in a drawn order) and now
and then a node of an operator the machine made, then mutates it half the time (a count replaced by a huge or
junk value, an array or one of its elements by junk, an edge field by a float, a str, a huge or an off-by-one
index, an edge dropped or duplicated, a stray intermediate edge that may close a cycle, a node of the other
device or a constant node, empty, short or fitting), compiles it and, when it compiles, binds, records and
executes it; graph outputs written by one node output must then hold the same elements.

``DMLSIM_FUZZ_EXAMPLES`` sets the examples per device (default 30: a few seconds); ``make fuzz-api`` runs
5,000 per device, as CI does. Each example is one run of the machine, up to ``STEPS`` calls. A device removal
is never an acceptable outcome: under ``DMLSIM_TEST_ADAPTERS=oclgrind`` (Oclgrind's ICD) every kernel the
fuzzer reaches is checked for invalid accesses, races and uninitialized reads.
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

import dmlsim as dml
from dmlsim import quick
from dmlsim.api.directml_schema import OPERATOR_SCHEMAS
from dmlsim.api.errors import HRESULT_NAMES
from dmlsim.api.schema import ARRAY_KINDS, ATTRIBUTE, desc_fields
from dmlsim.api.structs import NO_BINDING
from dmlsim.api.tensor import strided_array
from dmlsim.entry import create_device
from dmlsim.operators.harness import DrawError, drawer, implemented_operators
from dmlsim.runtime.graph import node_ports
from dmlsim.testing import test_adapters

EXAMPLES = int(os.environ.get("DMLSIM_FUZZ_EXAMPLES", "30"))
STEPS = int(os.environ.get("DMLSIM_FUZZ_STEPS", "20"))
MAX_MESSAGE = 20_000  # a message longer than this formatted something unbounded
# A desc may claim a 4 GiB TotalTensorSizeInBytes: fresh buffers for bindings stop at this size (a larger claim is
# bound to a buffer too small for it, whose refusal is a path worth fuzzing too; allocating and first-touching
# gigabytes in many examples costs seconds and memory and exercises nothing more, and Oclgrind refuses them)
FRESH_LIMIT = 1 << 20
# A graph may declare a million (unread) inputs: a binding list that long costs seconds and exercises nothing more,
# so slots beyond this many are bound with a short (refused) list
MAX_SLOTS = 64
_T = dml.DML_TENSOR_DATA_TYPE
F32, F16, U32, I64 = (_T.DML_TENSOR_DATA_TYPE_FLOAT32, _T.DML_TENSOR_DATA_TYPE_FLOAT16,
                      _T.DML_TENSOR_DATA_TYPE_UINT32, _T.DML_TENSOR_DATA_TYPE_INT64)


class HostileRepr:
    """An object whose repr raises: messages must describe it without calling it successfully."""

    def __repr__(self) -> str:
        raise RuntimeError("repr refused")


# --- the hostile catalogue ---------------------------------------------------------------------------------
# 10**15000 is built when drawn: hypothesis cannot print a strategy holding it (int to str has a 4300-digit limit)
HUGE = st.sampled_from([10**400, -(10**400), 2**64, 2**70, 2**32, -1, 2**63]) | st.just(15000).map(lambda e: 10**e)
FLOATS = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([1e39, -1e39, 1e308, 0.5, -0.0])
SCALARS = (st.none() | st.booleans() | st.integers(-5, 300) | HUGE | FLOATS | st.text(max_size=6)
           | st.binary(max_size=6) | st.builds(HostileRepr) | st.just(object())
           | st.sampled_from([np.uint32(4), np.int64(-1), np.float32("nan"), np.bool_(True), np.float16(2.0)]))
ARRAYS = st.sampled_from([np.array([1]), np.array([1, 2]), np.array(3), np.zeros((2, 2), np.float32),
                          np.array([object()]), np.array(["a"]), np.zeros(0), np.array([1.5, np.nan])])
JUNK = st.recursive(SCALARS | ARRAYS, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                    | st.dictionaries(st.text(max_size=3), inner, max_size=2), max_leaves=6)


def maybe(valid, junk=JUNK, p_junk=0.25):
    """``valid`` with probability 1 - ``p_junk``, else ``junk`` (a plain ``|`` would pick each half the time)."""
    n = round(1 / p_junk)  # junk last: hypothesis starts from (and shrinks towards) the first choice
    return st.sampled_from(range(n)).flatmap(lambda i: junk if i == n - 1 else valid)


# --- valid descs of every implemented operator, and generated ones of every DirectML operator -------------
def tensor(data_type, sizes):
    return dml.buffer_tensor(data_type, sizes)


@st.composite
def implemented_descs(draw):
    """A valid DML_OPERATOR_DESC of an operator dmlsim runs (small tensors)."""
    n = draw(st.integers(1, 40))
    dtype = draw(st.sampled_from([F32, F16]))
    kind = draw(st.sampled_from(["adam", "onnx-adagrad", "onnx-adam", "onnx-momentum", "adagrad-decay"]))
    if kind == "adam":
        t = tensor(dtype, [1, 1, 1, n])
        desc = dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC(t, t, t, t, tensor(U32, [1, 1, 1, 1]), t, t, t, 1e-3, 0.9, 0.999,
                                                    1e-8)
        return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ADAM_OPTIMIZER, desc)
    if kind == "adagrad-decay":
        t = tensor(dtype, [1, 1, 1, n])
        power, step = tensor(U32, [1, 1, 1, 1]), tensor(U32, [1, 1, 1, 1])
        desc = dml.DMLSIM_ADAGRAD_DECAY_OPERATOR_DESC(t, t, power, t, None, step, t, t, power, 0.05, 3, 0.5, 0.1)
        return dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ADAGRAD_DECAY, desc)
    count = draw(st.integers(1, 3))
    ts = [tensor(dtype, [draw(st.integers(1, 20))]) for _ in range(count)]
    r, t_ = tensor(F32, [1]), tensor(I64, [1])
    if kind == "onnx-adagrad":
        desc = dml.DMLSIM_ONNX_ADAGRAD_OPERATOR_DESC(None, r, t_, ts, ts, ts, ts, ts, 0.0, 1e-6, 0.0)
        return dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ONNX_ADAGRAD, desc)
    if kind == "onnx-adam":
        desc = dml.DMLSIM_ONNX_ADAM_OPERATOR_DESC(None, r, t_, ts, ts, ts, ts, ts, ts, ts, 0.0, 0.0, 0.9, 0.999, 1e-6)
        return dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ONNX_ADAM, desc)
    desc = dml.DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC(None, r, t_, ts, ts, ts, ts, ts, 0.0, 0.9, 0.1,
                                                  dml.DMLSIM_ONNX_MOMENTUM_MODE_STANDARD)
    return dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ONNX_MOMENTUM, desc)


def _attribute_value(kind):
    if isinstance(kind, type):  # an enum
        return st.sampled_from([int(m) for m in kind]) | st.integers(-2, 40)
    if kind in ARRAY_KINDS:
        element = ARRAY_KINDS[kind]
        if element == "OPERATOR_DESC":
            return st.none() | st.lists(st.builds(dml.DML_OPERATOR_DESC, st.sampled_from(
                [dml.DML_OPERATOR_ACTIVATION_RELU, dml.DML_OPERATOR_ACTIVATION_ELU, 1]), st.none()), max_size=2)
        return st.lists(_attribute_value(element), max_size=4)
    return {"FLOAT": st.floats(-4, 4) | FLOATS, "UINT": st.integers(0, 8), "INT": st.integers(-4, 8),
            "UINT64": st.integers(0, 8), "INT64": st.integers(-4, 8), "BOOL": st.booleans() | st.integers(0, 2),
            "SCALE_BIAS": st.none() | st.builds(dml.DML_SCALE_BIAS, FLOATS, FLOATS),
            "SIZE_2D": st.builds(dml.DML_SIZE_2D, st.integers(0, 4), st.integers(0, 4)),
            "SCALAR_UNION": FLOATS | st.integers(-4, 300) | st.builds(dml.DML_SCALAR_UNION, Float32=FLOATS),
            "OPERATOR_DESC": st.none() | st.builds(dml.DML_OPERATOR_DESC, st.just(dml.DML_OPERATOR_ACTIVATION_RELU),
                                                   st.none())}[kind]


@st.composite
def generated_descs(draw):
    """A DML_OPERATOR_DESC of any DirectML operator, its fields drawn from the schema's kinds (valid or not)."""
    schema = draw(st.sampled_from(OPERATOR_SCHEMAS))
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    dtype = draw(st.sampled_from([F32, F16, U32, I64]))
    values = {}
    for row in desc_fields(schema.desc_cls):
        if row.spec.role == ATTRIBUTE:
            values[row.name] = draw(_attribute_value(row.spec.attr_type))
        elif row.is_array:
            values[row.name] = [tensor(dtype, sizes)] * draw(st.integers(1, 2))
        else:
            values[row.name] = None if row.spec.optional and draw(st.booleans()) else tensor(dtype, sizes)
    return dml.DML_OPERATOR_DESC(schema.type, schema.desc_cls(**values))


def _tensor_mutation(t):
    """A tensor desc with one field replaced (junk or a plausible wrong value)."""
    fields = ["Type", "Desc", "DataType", "Flags", "DimensionCount", "Sizes", "Strides", "TotalTensorSizeInBytes",
              "GuaranteedBaseOffsetAlignment"]
    plausible = {"DataType": st.integers(0, 12), "Flags": st.integers(0, 3), "DimensionCount": st.integers(0, 9),
                 "Sizes": st.lists(st.integers(0, 5) | HUGE, max_size=9), "Strides": st.none()
                 | st.lists(st.integers(0, 8), max_size=5), "TotalTensorSizeInBytes": st.integers(0, 64) | HUGE,
                 "GuaranteedBaseOffsetAlignment": st.sampled_from([0, 1, 2, 3, 4, 8, 16, 64, 2**40]),
                 "Type": st.integers(0, 2), "Desc": st.none()}

    @st.composite
    def mutate(draw):
        name = draw(st.sampled_from(fields))
        value = draw(maybe(plausible[name], p_junk=0.3))
        # an earlier mutation of the same op desc may have left junk in t.Desc: copy only a real buffer desc
        new = dml.DML_TENSOR_DESC(t.Type, dataclasses.replace(t.Desc) if dataclasses.is_dataclass(t.Desc) else t.Desc)
        if name in ("Type", "Desc"):
            setattr(new, name, value)
        elif dataclasses.is_dataclass(new.Desc):
            setattr(new.Desc, name, value)
        return new

    return mutate()


@st.composite
def mutated(draw, descs):
    """A desc from ``descs``, with 0 to 2 fields (of the op desc, a tensor desc or DML_OPERATOR_DESC) changed."""
    op_desc = draw(descs)
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 1, 2]))):
        target = draw(st.sampled_from(["Type", "Desc", "field", "field", "field"]))
        if target != "field":
            setattr(op_desc, target, draw(st.integers(-1, 200) | JUNK))
            continue
        if not dataclasses.is_dataclass(op_desc.Desc):
            continue
        names = [f.name for f in dataclasses.fields(op_desc.Desc)]
        name = draw(st.sampled_from(names))
        current = getattr(op_desc.Desc, name)
        if isinstance(current, dml.DML_TENSOR_DESC) and draw(st.booleans()):
            value = draw(_tensor_mutation(current))
        elif isinstance(current, list) and current and draw(st.booleans()):
            value = [*current, current[0]] if draw(st.booleans()) else current[:-1]
        else:
            value = draw(JUNK | st.integers(0, 5) | FLOATS)
        op_desc.Desc = dataclasses.replace(op_desc.Desc, **{name: value}) if name in names else op_desc.Desc
    return op_desc


HARNESS_OPERATORS = implemented_operators()


@st.composite
def harness_descs(draw):
    """A valid desc of any operator dmlsim runs, drawn as the differential harness draws its cases (shapes, layouts,
    attributes and data types by the operator's rules), so that the dispatch pipeline executes every operator."""
    op = draw(st.sampled_from(HARNESS_OPERATORS))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    try:
        return drawer(op)(op, rng).op_desc(op)
    except DrawError:  # no valid desc in the draw's tries: an optimizer's instead
        return draw(implemented_descs())


RUNNABLE = implemented_descs() | harness_descs()
DESCS = mutated(RUNNABLE) | mutated(generated_descs())

# --- graphs: element-wise nodes of one layout, so that any node output can feed any node input ---------------
GRAPH_UNARY, GRAPH_BINARY = ["IDENTITY", "ABS"], ["ADD", "SUBTRACT", "MULTIPLY", "MAX"]
GRAPH_COUNTS = ["InputCount", "OutputCount", "NodeCount", "InputEdgeCount", "OutputEdgeCount",
                "IntermediateEdgeCount"]
GRAPH_EDGES = ["InputEdges", "OutputEdges", "IntermediateEdges"]
# the shapes of issue 26 item 7 (never returned, megabyte messages, a million unread inputs) and their neighbours
HUGE_COUNTS = st.sampled_from([2**32 - 1, 2**32 - 2, 2**32, 10**6, 16_000, -1, 10**400])
EDGE_VALUES = (st.integers(-1, 8) | HUGE | st.sampled_from([0.0, 1.0, "0", None, True, np.float32(0), np.uint64(1)])
               | JUNK)


def element_wise(device, name, t):
    """ELEMENT_WISE_<name> on tensor desc ``t`` (every tensor the same), created on ``device``."""
    desc_cls = getattr(dml, f"DML_ELEMENT_WISE_{name}_OPERATOR_DESC")
    desc = desc_cls(t, t) if name in GRAPH_UNARY else desc_cls(t, t, t)
    return device.CreateOperator(dml.DML_OPERATOR_DESC(getattr(dml, f"DML_OPERATOR_ELEMENT_WISE_{name}"), desc))


def graph_node(op):
    return dml.DML_GRAPH_NODE_DESC(dml.DML_GRAPH_NODE_TYPE_OPERATOR, dml.DML_OPERATOR_GRAPH_NODE_DESC(op))


def graph_edge(kind, *fields):
    edge_type, desc_cls = {"InputEdges": (dml.DML_GRAPH_EDGE_TYPE_INPUT, dml.DML_INPUT_GRAPH_EDGE_DESC),
                           "OutputEdges": (dml.DML_GRAPH_EDGE_TYPE_OUTPUT, dml.DML_OUTPUT_GRAPH_EDGE_DESC),
                           "IntermediateEdges": (dml.DML_GRAPH_EDGE_TYPE_INTERMEDIATE,
                                                 dml.DML_INTERMEDIATE_GRAPH_EDGE_DESC)}[kind]
    return dml.DML_GRAPH_EDGE_DESC(edge_type, desc_cls(*fields))


# --- the state machine -------------------------------------------------------------------------------------
class ApiMachine(RuleBasedStateMachine):
    """Random sequences of public API calls on one device; every outcome must be success or a DMLError."""

    device: dml.Device
    other: dml.Device  # a second (reference, debug) device: its objects are foreign to ``device``
    outcomes: Counter  # (call, "ok" or HRESULT name) -> count, over every example of one test

    def __init__(self) -> None:
        super().__init__()
        self.buffers: list = []
        self.operators: list = []
        self.compiled: list = []
        self.dispatchables: list = []
        self.tables: list = []
        self.lists: list = []
        self.queue = self.device.CreateCommandQueue()
        self.recorder = self.device.CreateCommandRecorder()

    def call(self, function, *args, **kwargs):
        """``function(*args)``: its result, or None after a DMLError with a known HRESULT and a bounded message."""
        name = getattr(function, "__name__", str(function))
        try:
            result = function(*args, **kwargs)
        except dml.DMLError as error:
            assert error.hresult in HRESULT_NAMES, f"unknown HRESULT 0x{error.hresult:08X}: {error}"
            # a kernel that touched memory it must not (Oclgrind's diagnostics): validation let a bad call through
            assert error.hresult != dml.DXGI_ERROR_DEVICE_REMOVED, f"{name}: {error}"
            assert len(str(error)) < MAX_MESSAGE, f"unbounded message ({len(str(error))} characters)"
            self.outcomes[name, HRESULT_NAMES[error.hresult]] += 1
            return None
        self.outcomes[name, "ok"] += 1
        return result

    def some(self, data, items, junk=JUNK):
        """An object of ``items`` (when there is one), or a foreign or junk object."""
        choices = [junk]
        if items:
            choices.insert(0, st.sampled_from(items))
        return data.draw(st.one_of(*choices))

    @initialize()
    def start(self):
        self.buffers.append(self.device.CreateBuffer(256))

    # --- buffers --------------------------------------------------------------------------------------
    @rule(size=maybe(st.integers(1, 512) | st.sampled_from([2**60, 10**15, 2**70, 10**400])))
    def create_buffer(self, size):
        buffer = self.call(self.device.CreateBuffer, size)
        if buffer is not None and len(self.buffers) < 16:
            self.buffers.append(buffer)

    @rule(data=st.data())
    def write(self, data):
        buffer = data.draw(st.sampled_from(self.buffers))
        payload = data.draw(maybe(st.binary(max_size=64) | st.builds(np.array, st.lists(st.integers(0, 9), max_size=8))
                                  | ARRAYS))
        offset = data.draw(maybe(st.integers(-1, 300)))
        self.call(buffer.Write, payload, offset)

    @rule(data=st.data())
    def read(self, data):
        buffer = data.draw(st.sampled_from(self.buffers))
        args = data.draw(st.lists(maybe(st.integers(-1, 300) | st.none()), max_size=2))
        got = self.call(buffer.Read, *args)
        assert got is None or isinstance(got, bytes)

    @rule(data=st.data())
    def read_array(self, data):
        buffer = data.draw(st.sampled_from(self.buffers))
        dtype = data.draw(maybe(st.sampled_from([np.float32, np.uint8, "f8", "S0", "V0", "U", object, "<i2", "S3"])))
        count, offset = data.draw(maybe(st.none() | st.integers(-1, 80))), data.draw(maybe(st.integers(-1, 300)))
        self.call(buffer.read_array, dtype, count, offset)

    # --- operators ------------------------------------------------------------------------------------
    @rule(desc=maybe(DESCS, p_junk=0.1), check=st.booleans())
    def create_operator(self, desc, check):
        op = self.call(self.device.check_operator if check else self.device.CreateOperator, desc)
        if op is not None and len(self.operators) < 8:
            self.operators.append(op)

    @precondition(lambda self: self.operators)
    @rule(data=st.data(), flags=maybe(st.integers(0, 8)))
    def compile(self, data, flags):
        op = self.some(data, self.operators)
        compiled = self.call(self.device.CompileOperator, op, flags)
        if compiled is not None and len(self.compiled) < 8:
            self.compiled.append(compiled)
            self.dispatchables.append(compiled)

    @rule(data=st.data())
    def create_initializer(self, data):
        operators = data.draw(st.lists(st.sampled_from(self.compiled) if self.compiled else JUNK, max_size=3)
                              | JUNK)
        initializer = self.call(self.device.CreateOperatorInitializer, operators)
        if initializer is not None and len(self.dispatchables) < 12:
            self.dispatchables.append(initializer)

    @rule(data=st.data())
    def create_binding_table(self, data):
        dispatchable = self.some(data, self.dispatchables)
        size = data.draw(maybe(st.integers(0, 40)))
        desc = data.draw(maybe(st.just(dml.DML_BINDING_TABLE_DESC(dispatchable, SizeInDescriptors=size)), p_junk=0.1))
        table = self.call(self.device.CreateBindingTable, desc)
        if table is not None and len(self.tables) < 8:
            self.tables.append(table)

    # --- bindings -------------------------------------------------------------------------------------
    def _buffer_binding(self, data, layout_bytes):
        """A DML_BUFFER_BINDING: usually a fresh buffer that fits, else an existing one at a drawn range."""
        if layout_bytes and data.draw(st.integers(0, 3)):
            buffer = self.fresh(layout_bytes)
            return dml.DML_BUFFER_BINDING(buffer, 0, layout_bytes)
        buffer = self.some(data, [*self.buffers, self.other.CreateBuffer(16)])
        return dml.DML_BUFFER_BINDING(buffer, data.draw(st.sampled_from([0, 16, 256, 7]) | JUNK),
                                      data.draw(st.none() | st.integers(0, 300) | JUNK))

    def _binding(self, data, slot):
        kind = data.draw(st.sampled_from(["fit", "fit", "fit", "none", "null", "junk", "wrong-type"]))
        if kind == "none":
            return NO_BINDING
        if kind == "null":
            return None
        if kind == "junk":
            return data.draw(JUNK)
        layouts = slot.layouts
        if slot.array and isinstance(layouts, list):
            items = [self._buffer_binding(data, layout.total_bytes if layout is not None else 0)
                     for layout in layouts]
            count = data.draw(st.just(len(items)) | st.integers(0, 4) | JUNK)
            desc = dml.DML_BUFFER_ARRAY_BINDING(count, items)
            binding_type = dml.DML_BINDING_TYPE_BUFFER_ARRAY
        else:
            size = slot.resource_size or (layouts.total_bytes if layouts is not None and not slot.array else 0)
            desc = self._buffer_binding(data, size)
            binding_type = dml.DML_BINDING_TYPE_BUFFER
        if kind == "wrong-type":
            binding_type = data.draw(st.integers(-1, 4) | JUNK)
        return dml.DML_BINDING_DESC(binding_type, desc)

    def _bindings(self, data, slots):
        if len(slots) > MAX_SLOTS:
            return data.draw(st.lists(st.just(NO_BINDING), max_size=3))
        bindings = [self._binding(data, slot) for slot in slots]
        change = data.draw(st.sampled_from(["keep"] * 6 + ["drop", "extra", "junk", "tuple"]))
        if change == "drop" and bindings:
            bindings.pop()
        elif change == "extra":
            bindings.append(NO_BINDING)
        elif change == "junk":
            return data.draw(JUNK)
        elif change == "tuple":
            return tuple(bindings)
        return bindings

    @precondition(lambda self: self.tables)
    @rule(data=st.data())
    def bind(self, data):
        table = data.draw(st.sampled_from(self.tables))
        dispatchable = table.dispatchable
        self.call(table.BindInputs, self._bindings(data, dispatchable.input_slots()))
        self.call(table.BindOutputs, self._bindings(data, dispatchable.output_slots()))
        props = dispatchable.GetBindingProperties()
        for call, size in ((table.BindTemporaryResource, props.TemporaryResourceSize),
                           (table.BindPersistentResource, props.PersistentResourceSize)):
            binding = data.draw(st.sampled_from(["fit", "none", "junk"]))
            if binding == "fit" and size:
                self.call(call, dml.buffer_binding(self.fresh(size), 0, size))
            else:
                self.call(call, None if binding == "none" else data.draw(JUNK))

    @precondition(lambda self: self.tables)
    @rule(data=st.data())
    def reset_table(self, data):
        table = data.draw(st.sampled_from(self.tables))
        dispatchable = self.some(data, self.dispatchables)
        self.call(table.Reset, data.draw(st.just(dml.DML_BINDING_TABLE_DESC(dispatchable, SizeInDescriptors=64))
                                         | JUNK))

    @rule(data=st.data(), desc=maybe(RUNNABLE, mutated(RUNNABLE), p_junk=0.2))
    def dispatch_pipeline(self, data, desc):
        """The whole flow for one mostly valid desc: create, compile, bind (mostly fitting), record, execute, read.

        Single-call rules rarely chain far enough to execute; this one reaches the backend every few steps.
        """
        op = self.call(self.device.CreateOperator, desc)
        compiled = op and self.call(self.device.CompileOperator, op, data.draw(st.sampled_from([0, 0, 0, 0, 1, 8])))
        if compiled is None:
            return
        props = compiled.GetBindingProperties()
        table = self.call(self.device.CreateBindingTable,
                          dml.DML_BINDING_TABLE_DESC(compiled, SizeInDescriptors=props.RequiredDescriptorCount))
        fit = st.sampled_from([True] * 40 + [False])  # usually every binding fits: the dispatch runs
        for bind, slots in ((table.BindInputs, compiled.input_slots()), (table.BindOutputs, compiled.output_slots())):
            self.call(bind, [self._fitting(data, slot) if data.draw(fit) else self._binding(data, slot)
                             for slot in slots])
        if props.TemporaryResourceSize:
            size = props.TemporaryResourceSize
            self.call(table.BindTemporaryResource, dml.buffer_binding(self.fresh(size), 0, size))
        cmd = self.device.CreateCommandList()
        if self.call(self.recorder.RecordDispatch, cmd, compiled, table) is None and cmd.items:
            self.lists = [*self.lists[-5:], cmd]
            self.tables = [*self.tables[-7:], table]
            self.execute_lists([cmd])

    def _fitting(self, data, slot):
        """A binding that fits ``slot`` exactly: fresh buffers of each tensor's size (NONE where nothing is bound)."""
        layouts = slot.layouts
        if layouts is None:
            return NO_BINDING
        if isinstance(layouts, list):
            return dml.buffer_array_binding([(self.fresh(lay.total_bytes), 0, lay.total_bytes) for lay in layouts])
        buffer = self.fresh(layouts.total_bytes)
        buffer.Write(np.frombuffer(data.draw(st.binary(min_size=buffer.size, max_size=buffer.size)), np.uint8))
        return dml.buffer_binding(buffer, 0, layouts.total_bytes)

    def fresh(self, size: int) -> dml.Buffer:
        """A new buffer of ``size`` bytes for a binding (at least 1, at most ``FRESH_LIMIT``)."""
        return self.device.CreateBuffer(min(max(size, 1), FRESH_LIMIT))

    def execute_lists(self, lists):
        if self.call(self.queue.ExecuteCommandLists, lists) is not None:
            return
        self.queue.WaitForIdle()
        executed = sum(len(cmd.items) for cmd in lists)
        self.outcomes["dispatches executed", "ok"] += executed

    # --- graphs -------------------------------------------------------------------------------------
    def _graph_desc(self, data):
        """A valid DML_GRAPH_DESC and, per graph output, the (listed node, output) that writes it; or None."""
        t = tensor(data.draw(st.sampled_from([F32, F16])), [data.draw(st.integers(1, 6))])
        nodes = []  # (operator, its connected inputs, its outputs, element-wise of layout t)
        for _ in range(data.draw(st.integers(1, 5))):
            if self.operators and data.draw(st.integers(0, 5)) == 0:  # a node of any operator, wired to the graph
                op = data.draw(st.sampled_from(self.operators))
                compiled = self.call(self.device.CompileOperator, op)
                if compiled is not None:
                    ports = [[i for i, p in enumerate(node_ports(compiled, role)) if p.layout is not None]
                             for role in ("input", "output")]
                    nodes.append((op, *ports, False))
            else:
                name = data.draw(st.sampled_from(GRAPH_UNARY + GRAPH_BINARY))
                nodes.append((element_wise(self.device, name, t), [0] if name in GRAPH_UNARY else [0, 1], [0], True))
        nodes = [entry for entry in nodes if entry[2]]  # a node without outputs cannot be in a graph
        if not nodes:
            return None, []
        listed = data.draw(st.permutations(range(len(nodes))))  # node j is listed at listed[j]
        input_edges, links, shared, readable, graph_inputs = [], [], [], [], 0
        for j, (_, inputs, outputs, chainable) in enumerate(nodes):
            for i in inputs:
                source = data.draw(st.integers(0, 2)) if chainable else 0
                if source == 1 and readable:
                    n, o = data.draw(st.sampled_from(readable))
                    links.append(graph_edge("IntermediateEdges", listed[n], o, listed[j], i))
                elif source == 2 and shared:
                    input_edges.append(graph_edge("InputEdges", data.draw(st.sampled_from(shared)), listed[j], i))
                else:
                    input_edges.append(graph_edge("InputEdges", graph_inputs, listed[j], i))
                    shared += [graph_inputs] if chainable else []
                    graph_inputs += 1
            readable += [(j, o) for o in outputs] if chainable else []
        every_output = [(listed[j], o) for j, entry in enumerate(nodes) for o in entry[2]]
        sources = [data.draw(st.sampled_from(every_output)) for _ in range(data.draw(st.integers(1, 3)))]
        output_edges = [graph_edge("OutputEdges", n, o, index) for index, (n, o) in enumerate(sources)]
        output_edges = data.draw(st.permutations(output_edges))
        listed_nodes = [None] * len(nodes)
        for j, entry in enumerate(nodes):
            listed_nodes[listed[j]] = graph_node(entry[0])
        unread = data.draw(st.sampled_from([0, 0, 0, 1, 2]))
        desc = dml.DML_GRAPH_DESC(graph_inputs + unread, len(sources), Nodes=listed_nodes, InputEdges=input_edges,
                                  OutputEdges=list(output_edges), IntermediateEdges=links)
        return desc, sources

    def _mutate_graph(self, data, desc):
        """``desc`` with one hostile change (its arrays are the lists _graph_desc made)."""
        change = data.draw(st.sampled_from(["count", "count", "array", "element", "edge-field", "edge-field",
                                            "drop", "duplicate", "stray", "node"]))
        if change == "count":
            setattr(desc, data.draw(st.sampled_from(GRAPH_COUNTS)), data.draw(HUGE_COUNTS | st.integers(0, 8) | JUNK))
        elif change == "array":
            setattr(desc, data.draw(st.sampled_from(["Nodes", *GRAPH_EDGES])), data.draw(st.none() | JUNK))
        elif change == "element":
            items = getattr(desc, data.draw(st.sampled_from(["Nodes", *GRAPH_EDGES])))
            if items:
                items[data.draw(st.integers(0, len(items) - 1))] = data.draw(JUNK)
        elif change == "stray":  # an intermediate edge between drawn ports: a cycle, a second feed, a bad index
            n = len(desc.Nodes)
            desc.IntermediateEdges.append(graph_edge("IntermediateEdges", *data.draw(st.tuples(
                st.integers(0, n), st.integers(0, 2), st.integers(0, n), st.integers(0, 2)))))
            desc.IntermediateEdgeCount += data.draw(st.sampled_from([1, 1, 1, 0]))
        elif change == "node":
            index = data.draw(st.integers(0, len(desc.Nodes) - 1))
            other = element_wise(self.other, "IDENTITY", tensor(F32, [4]))
            desc.Nodes[index] = data.draw(st.sampled_from([
                graph_node(other), dml.DML_GRAPH_NODE_DESC(dml.DML_GRAPH_NODE_TYPE_CONSTANT, None),
                dml.DML_GRAPH_NODE_DESC(dml.DML_GRAPH_NODE_TYPE_CONSTANT, dml.DML_CONSTANT_DATA_GRAPH_NODE_DESC(
                    bytes(data.draw(st.integers(0, 32))), data.draw(st.integers(0, 40) | JUNK))),
                dml.DML_GRAPH_NODE_DESC(data.draw(st.integers(-1, 3) | JUNK), desc.Nodes[index].Desc),
                dml.DML_GRAPH_NODE_DESC(dml.DML_GRAPH_NODE_TYPE_OPERATOR, data.draw(JUNK)),
                graph_node(data.draw(JUNK))]))
        else:
            kind = data.draw(st.sampled_from(GRAPH_EDGES))
            edges = getattr(desc, kind)
            if not edges:
                return desc
            index = data.draw(st.integers(0, len(edges) - 1))
            if change == "drop":
                edges.pop(index)
            elif change == "duplicate":
                edges.append(edges[index])
            else:
                edge = edges[index]
                name = data.draw(st.sampled_from(["Type", "Desc", "Name", "Name",
                                                  *(f.name for f in dataclasses.fields(edge.Desc))]))
                if name in ("Type", "Desc"):
                    edges[index] = dataclasses.replace(edge, **{name: data.draw(EDGE_VALUES)})
                else:
                    value = data.draw(EDGE_VALUES | st.text(max_size=4)) if name == "Name" else data.draw(EDGE_VALUES)
                    edges[index] = dataclasses.replace(edge, Desc=dataclasses.replace(edge.Desc, **{name: value}))
            if data.draw(st.booleans()):  # the count follows the array, or is left stale
                setattr(desc, kind.replace("Edges", "EdgeCount"), len(edges))
        return desc

    @rule(data=st.data())
    def graph_pipeline(self, data):
        """CompileGraph of a valid or mutated graph; a graph that compiles is bound (mostly fitting), recorded and
        executed, and graph outputs written by the same node output must then hold the same elements."""
        desc, sources = self._graph_desc(data)
        if desc is None:
            return
        mutated = data.draw(st.booleans())
        if mutated:
            desc = self._mutate_graph(data, desc)
        flags = data.draw(maybe(st.sampled_from([0, 0, 0, 1, 2]), p_junk=0.1))
        compiled = self.call(self.device.CompileGraph, data.draw(maybe(st.just(desc), p_junk=0.1)), flags)
        if compiled is None:
            return
        if len(self.dispatchables) < 12:
            self.dispatchables.append(compiled)
        props = compiled.GetBindingProperties()
        if props.RequiredDescriptorCount > MAX_SLOTS:
            return
        table = self.call(self.device.CreateBindingTable,
                          dml.DML_BINDING_TABLE_DESC(compiled, SizeInDescriptors=props.RequiredDescriptorCount))
        fit = st.sampled_from([True] * 40 + [False])
        bindings = {}
        for bind, slots in ((table.BindInputs, compiled.input_slots()), (table.BindOutputs, compiled.output_slots())):
            bindings[bind] = [self._fitting(data, slot) if data.draw(fit) else self._binding(data, slot)
                              for slot in slots]
            self.call(bind, bindings[bind])
        if props.TemporaryResourceSize:
            size = props.TemporaryResourceSize
            self.call(table.BindTemporaryResource, dml.buffer_binding(self.fresh(size), 0, size))
        cmd = self.device.CreateCommandList()
        if self.call(self.recorder.RecordDispatch, cmd, compiled, table) is not None or not cmd.items:
            return
        if self.call(self.queue.ExecuteCommandLists, [cmd]) is not None:
            return
        self.queue.WaitForIdle()
        self.outcomes["graphs executed", "ok"] += 1
        if mutated:
            return
        written: dict = {}
        for index, (slot, binding) in enumerate(zip(compiled.output_slots(), bindings[table.BindOutputs],
                                                    strict=True)):
            at = binding.Desc  # BindOutputs took it: a DML_BUFFER_BINDING
            values = strided_array(at.Buffer.Read(at.Offset, slot.layouts.span_bytes), slot.layouts).tobytes()
            first = written.setdefault(sources[index], (index, values))
            assert first[1] == values, f"graph outputs {first[0]} and {index} are both written by node output " \
                                       f"{sources[index]} but differ"
            self.outcomes["graph outputs compared", "ok"] += first[0] != index

    # --- recording and execution ----------------------------------------------------------------------
    @rule(data=st.data())
    def record(self, data):
        if not self.lists or data.draw(st.booleans()):
            self.lists.append(self.device.CreateCommandList())
            self.lists = self.lists[-6:]
        cmd = self.some(data, [*self.lists, self.other.CreateCommandList()])
        dispatchable = self.some(data, self.dispatchables)
        table = self.some(data, self.tables)
        if data.draw(st.integers(0, 3)) == 0 and self.tables:  # mostly a table and its own dispatchable
            table = data.draw(st.sampled_from(self.tables))
            dispatchable = table.dispatchable
        self.call(self.recorder.RecordDispatch, cmd, dispatchable, table)
        if isinstance(cmd, dml.CommandList) and data.draw(st.integers(0, 4)) == 0:
            self.call(cmd.Close if data.draw(st.booleans()) else cmd.Reset)

    @rule(data=st.data())
    def execute(self, data):
        lists = data.draw(st.lists(st.sampled_from(self.lists) if self.lists else JUNK, max_size=3)
                          | st.sampled_from(self.lists or [None]) | JUNK)
        if isinstance(lists, list) and all(isinstance(cmd, dml.CommandList) for cmd in lists):
            self.execute_lists(lists)
        else:
            self.call(self.queue.ExecuteCommandLists, lists)

    # --- free functions and the convenience layer -----------------------------------------------------
    @rule(data=st.data())
    def check_feature_support(self, data):
        feature = data.draw(st.integers(-1, 2) | JUNK)
        query = data.draw(st.builds(dml.DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT, st.integers(-1, 12) | JUNK)
                          | st.builds(dml.DML_FEATURE_QUERY_FEATURE_LEVELS, st.integers(-1, 3) | JUNK,
                                      st.lists(st.sampled_from([int(v) for v in dml.DML_FEATURE_LEVEL])
                                               | st.integers(0, 0x7000), max_size=3) | JUNK) | JUNK)
        self.call(self.device.CheckFeatureSupport, feature, query)

    @rule(args=st.tuples(maybe(st.integers(0, 12), p_junk=0.1), maybe(st.integers(0, 5), p_junk=0.1),
                         maybe(st.lists(maybe(st.integers(0, 9), HUGE, 0.05), min_size=4, max_size=6), p_junk=0.1),
                         maybe(st.none() | st.lists(st.integers(0, 9), min_size=4, max_size=6), p_junk=0.1)))
    def calc_buffer_tensor_size(self, args):
        size = self.call(dml.DMLCalcBufferTensorSize, *args)
        assert size is None or (isinstance(size, int) and size % 4 == 0)

    @rule(flags=st.integers(0, 3) | JUNK, adapter=st.sampled_from(["reference", "no-such-adapter-xyz", "99:99"])
          | SCALARS.filter(lambda v: not isinstance(v, str)))
    def create_device(self, flags, adapter):
        self.call(dml.DMLCreateDevice, flags, adapter)

    @rule(data=st.data(), desc=mutated(implemented_descs()) | JUNK, inplace=st.booleans())
    def quick_run(self, data, desc, inplace):
        names = ["InputParametersTensor", "GradientTensor", "GradientTensors", "TrainingStepTensor",
                 "LearningRateTensor", "UpdateCountTensor", "InputParametersTensors", "OutputParametersTensor",
                 "Gradient", "InputFirstMomentTensor"]
        values = st.builds(np.ones, st.integers(1, 6)) | st.lists(st.floats(-2, 2), max_size=5) | JUNK
        inputs = data.draw(st.dictionaries(st.sampled_from(names) | st.text(max_size=4) | st.none() | HUGE,
                                           values, max_size=3) | JUNK)
        device = data.draw(st.just(self.device) | JUNK)
        self.call(quick.run_operator, device, desc, inputs, inplace=inplace)


# --- one test per fuzzed device ------------------------------------------------------------------------------
def _fuzzed_adapters():
    adapters = test_adapters()
    opencl = [a for a in adapters if a.kind != "reference"][:1]
    return [a for a in adapters if a.kind == "reference"][:1] + opencl


_DEVICES: dict[str, dml.Device] = {}


@pytest.mark.parametrize("adapter", _fuzzed_adapters(), ids=lambda a: a.short_label)
def test_every_public_call_succeeds_or_raises_a_dml_error(adapter):
    if adapter.index not in _DEVICES:
        _DEVICES[adapter.index] = create_device(0, adapter)
    outcomes: Counter = Counter()
    machine = type("ApiMachineOn", (ApiMachine,), {
        "device": _DEVICES[adapter.index], "outcomes": outcomes,
        "other": create_device(dml.DML_CREATE_DEVICE_FLAG_DEBUG, dml.all_adapters()[-1]),
    })
    machine.TestCase.settings = settings(
        max_examples=EXAMPLES, stateful_step_count=STEPS, deadline=None, derandomize=True,
        suppress_health_check=list(HealthCheck), database=None,
        phases=[Phase.explicit, Phase.generate] if os.environ.get("DMLSIM_FUZZ_NO_SHRINK") else list(Phase))
    machine.TestCase().runTest()
    if os.environ.get("DMLSIM_FUZZ_REPORT"):
        print("\n".join(f"{call}: {outcome} x{n}" for (call, outcome), n in sorted(outcomes.items())))
    # the fuzzer reached the deep paths too: descs accepted, tables bound, dispatches executed
    for call in ("CreateOperator", "CompileOperator", "BindInputs", "BindOutputs", "RecordDispatch",
                 "dispatches executed", "CompileGraph", "graphs executed"):
        assert outcomes[call, "ok"], f"no successful {call} in {EXAMPLES} examples: {dict(outcomes)}"
