"""Run an ONNX model on a dmlsim device: fold the host values, lower the rest into one DirectML graph, execute.

:func:`run_lowered` is what ``dmlsim.backend`` calls for any model that is not made of the training optimizers.
The model is lowered for the given inputs (their shapes, and the values of the inputs the provider reads on the
CPU): :func:`lower` lowers and compiles (a :class:`LoweredGraph`), :meth:`LoweredGraph.run` executes it. A
:class:`LoweringCache` (one per prepared model, ``dmlsim.backend.prepare``) keeps the compiled graphs keyed by
every graph input's shape and dtype plus the values of the graph inputs the lowering read on the host, so
repeated runs with the same shapes bind new inputs to the graph already compiled instead of compiling again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.errors import E_INVALIDARG, E_NOTIMPL, DMLError
from dmlsim.onnx import (  # noqa: F401  (each registers its lowerings)
    ops_attention,
    ops_elementwise,
    ops_gather,
    ops_math,
    ops_move,
    ops_nn,
    ops_norm,
    ops_norm2,
    ops_onnxa,
    ops_onnxb,
    ops_onnxc,
    ops_onnxcov,
    ops_pool,
    ops_quant,
    ops_recurrent,
    ops_resize,
    ops_roi,
    ops_scatred,
    ops_tensor,
)
from dmlsim.onnx.empty import CPU_INPUTS, lower_empty
from dmlsim.onnx.functions import expand, has_body
from dmlsim.onnx.fusion import Fusions, fuse, fused_activation_desc, unfuse_activation
from dmlsim.onnx.lowering import LOWERINGS, Lowering, UnmappedError, View, attributes_of, dml_type
from dmlsim.runtime.device import Device

DEFAULT_DOMAINS = ("", "ai.onnx")
NEVER_FOLDED = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Bernoulli", "Multinomial",
                "If", "Loop", "Scan"}  # random draws; control flow (its subgraphs read values of the enclosing graph)


def default_opset(model: Any) -> int:
    for entry in model.opset_import:
        if entry.domain in DEFAULT_DOMAINS:
            return int(entry.version)
    return 1


def _constant(node: Any, attrs: dict[str, Any]) -> np.ndarray:
    for key in ("value", "value_float", "value_int", "value_floats", "value_ints"):
        if key in attrs:
            value = attrs[key]
            if key in ("value_float", "value_floats"):
                return np.asarray(value, np.float32)
            if key in ("value_int", "value_ints"):
                return np.asarray(value, np.int64)
            return np.asarray(value)
    raise DMLError(E_NOTIMPL, f"Constant node {node.name!r}: only tensor, float and int values are supported "
                              f"(given: {', '.join(attrs)})")


def _fold(node: Any, inputs: list[np.ndarray | None], opset: int) -> list[np.ndarray]:
    """One node of constants evaluated on the host (onnxruntime's constant folding does the same)."""
    from onnx import helper
    from onnx.reference import ReferenceEvaluator

    axes = [list(a.ints) for a in node.attribute if a.name == "axes"]
    if node.op_type in ("Unsqueeze", "Squeeze") and axes and inputs[0] is not None:
        # onnx.reference runs the opset-13 kernels for these whatever the opset (axes as an attribute fails)
        value = np.asarray(inputs[0])
        if node.op_type == "Squeeze":
            return [np.squeeze(value, axis=tuple(axes[0]))]
        rank = value.ndim + len(axes[0])
        return [np.reshape(value, [n for n in _unsqueezed(value.shape, [a % rank for a in axes[0]], rank)])]
    names = [f"in{i}" if name else "" for i, name in enumerate(node.input)]
    clone = helper.make_node(node.op_type, names, [f"out{i}" for i in range(len(node.output))],
                             domain=node.domain or None)
    clone.attribute.extend(node.attribute)
    evaluator = ReferenceEvaluator(clone, opsets={"": opset})
    feeds = {name: value for name, value in zip(names, inputs, strict=True) if name}
    values = evaluator.run(None, feeds)
    if any(v is None or isinstance(v, (list, tuple, dict)) for v in values):
        raise DMLError(E_NOTIMPL, "it makes a sequence, map or optional value: DirectML binds tensors only (they "
                                  "stay with onnxruntime's CPU provider)")
    return [np.asarray(v) for v in values]


def _unsqueezed(shape: tuple[int, ...], axes: list[int], rank: int) -> list[int]:
    sizes = iter(shape)
    return [1 if axis in axes else next(sizes) for axis in range(rank)]


def check_lowerable(model: Any) -> None:
    """Refuse, before any input is given, a node no lowering handles and no host folding computes (a DMLError
    naming the node, op type and opset): what ``prepare`` can know without the inputs' shapes."""
    graph = model.graph
    opset = default_opset(model)
    constants = {init.name for init in graph.initializer}
    for node in graph.node:
        given = [name for name in node.input if name]
        foldable = node.op_type in ("Constant", "Shape", "Size") or (
            given and all(name in constants for name in given) and node.op_type not in NEVER_FOLDED)
        if foldable:
            constants.update(name for name in node.output if name)
        elif node.domain not in DEFAULT_DOMAINS:
            raise DMLError(E_NOTIMPL, f"{node.op_type} node {node.name!r} (domain {node.domain!r}): dmlsim lowers "
                                      "the default ONNX domain onto DirectML")
        elif node.op_type not in LOWERINGS and not has_body(node.op_type, opset, node.domain or ""):
            raise DMLError(E_NOTIMPL, f"{node.op_type} node {node.name!r} (opset {opset}): no DirectML lowering "
                                      "for this op yet")


def run_lowered(model: Any, feeds: dict[str, Any], device: Device) -> list[np.ndarray]:
    """The model's outputs for ``feeds`` (by graph input name), computed by DirectML operators on ``device``."""
    return lower(model, feeds, device).run(feeds)


class _HostReads(dict):
    """The lowering's host values, noting which graph inputs were read on the host (their values key the cache)."""

    def __init__(self, watched: set[str]) -> None:
        super().__init__()
        self.watched = watched
        self.read: set[str] = set()

    def __getitem__(self, key: Any) -> Any:
        if key in self.watched:
            self.read.add(key)
        return super().__getitem__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        if key in self.watched:
            self.read.add(key)
        return super().get(key, default)


def _initializer_values(graph: Any, low: Lowering) -> Any:
    """The value of an initializer or a Constant node's tensor by name, else None (what the fusions may fold)."""
    constants = {node.output[0]: node for node in graph.node if node.op_type == "Constant" and node.output}
    initializers = {init.name for init in graph.initializer} - {value.name for value in graph.input}

    def value(name: str) -> np.ndarray | None:
        if name in initializers:
            return np.asarray(low.host[name])
        if name in constants:
            try:
                return _constant(constants[name], attributes_of(constants[name]))
            except DMLError:
                return None
        return None
    return value


def lower(model: Any, feeds: dict[str, Any], device: Device, optimize: bool = True) -> LoweredGraph:
    """The model lowered and compiled for the shapes (and host-read values) of ``feeds``; ``optimize``: first
    rewrite the graph as onnxruntime does for its DirectML provider (:mod:`dmlsim.onnx.fusion`; onnxruntime's
    ``ORT_DISABLE_ALL`` is ``optimize=False``)."""
    from onnx import numpy_helper

    graph = model.graph
    low = Lowering(device, default_opset(model))
    low.host = _HostReads({value.name for value in graph.input})
    constants = low.constants
    for init in graph.initializer:
        low.host[init.name] = numpy_helper.to_array(init)
        constants.add(init.name)
    for value_info in graph.input:
        name = value_info.name
        kind = value_info.type.WhichOneof("value")
        if kind not in (None, "tensor_type"):
            raise DMLError(E_NOTIMPL, f"graph input {name!r} is a {kind.replace('_type', '')}: DirectML binds "
                                      "tensors only (sequences, optionals and maps stay with onnxruntime's CPU "
                                      "provider)")
        if name in constants:
            if name in feeds:
                low.host[name] = np.asarray(feeds[name])
            continue
        if name not in feeds:
            raise DMLError(E_INVALIDARG, f"graph input {name!r} was not given")
        array = np.asarray(feeds[name])
        low.host[name] = array
        low.graph_inputs.add(name)
        if array.size:
            dml_type(array.dtype, f"graph input {name!r}")
            from dmlsim.api.structs import buffer_tensor
            from dmlsim.api.tensor import packed_strides

            shape = tuple(array.shape)
            tensor = buffer_tensor(dml_type(array.dtype, name), list(shape) or [1])
            builder_name = low.builder.input(name, tensor)
            low.views[name] = View(builder_name, shape, packed_strides(shape), array.dtype)
    low.read_back = lambda name: _read_back(low, name, feeds)
    low.lower_more = lambda node: lower_node(low, node, constants)
    nodes, fusions = list(graph.node), Fusions()
    if optimize:
        nodes, fusions = fuse(nodes, {o.name for o in graph.output}, _initializer_values(graph, low))
        for name, value in fusions.constants.items():
            low.host[name] = value
            constants.add(name)
    for node in nodes:
        lower_node(low, node, constants)
    low.node = None
    lowered = _finish(low, graph, feeds)
    lowered.fusions = fusions
    lowered.host_reads = {name: np.array(feeds[name]) for name in low.host.read if name in feeds}
    lowered.builder = low.builder  # its nodes and values: what dmlsim.onnx.export writes as a DxDispatch model
    return lowered


def _read_back(low: Lowering, name: str, feeds: dict[str, Any]) -> np.ndarray:
    """Run the graph built so far for ``name`` on the device and read it back (a CPU input onnxruntime copies to
    the host); refused past READ_BACK_ELEMENTS elements."""
    from dmlsim.onnx.lowering import READ_BACK_ELEMENTS
    from dmlsim.onnx.ops_elementwise import unary

    view = low.views[name]
    count = int(np.prod(view.shape))
    if count > READ_BACK_ELEMENTS:
        raise low.refuse(f"it reads {name!r} ({count} elements, computed on the device) on the CPU: dmlsim reads "
                         f"back at most {READ_BACK_ELEMENTS} elements")
    copy = low.fresh(f"{name}/read_back")
    where = low.node
    unary(low, "ELEMENT_WISE_IDENTITY", view, copy)
    low.node = where
    made = low.views.pop(copy)
    network = low.builder.compile([made.name])
    if isinstance(low.host, _HostReads):  # the value read back depends on these inputs' values: they key the cache
        low.host.read.update(n for n in network.inputs if n in feeds)
    ran = network.run({n: np.asarray(feeds[n]) for n in network.inputs})[made.name].reshape(view.shape)
    if view.dtype == np.bool_:
        return ran.astype(np.bool_)
    if view.dtype.name in ("int4", "uint4"):  # decoded nibbles as ONNX's ml_dtypes type
        return ran.astype(view.dtype)
    return ran if ran.dtype == view.dtype else ran.view(view.dtype)


def cpu_preferred(low: Lowering, node: Any, constants: set[str]) -> bool:
    """Whether onnxruntime places ``node`` on its CPU provider (``GetCpuPreferredNodes``): it consumes a value
    computed on the CPU (a Shape or Size output, or the output of a node placed there by this rule), every input is
    such a value, a constant or a graph input, none is FLOAT16, and no CPU value feeds an input the provider's
    kernel reads on the CPU anyway. dmlsim adds: every input is an integer or bool tensor (shape arithmetic only;
    onnxruntime's rule would also move float math on graph inputs, which dmlsim keeps on the device)."""
    given = [name for name in node.input if name]
    if not any(name in low.cpu_values for name in given) or node.op_type in NEVER_FOLDED:
        return False
    read_on_cpu = CPU_INPUTS.get(node.op_type, set())
    for index, name in enumerate(node.input):
        if not name:
            continue
        if name not in low.host or not (name in constants or name in low.graph_inputs):
            return False
        if np.asarray(low.host[name]).dtype.kind not in "iub":
            return False
        if index in read_on_cpu and name in low.cpu_values:
            return False
    return True


def lower_node(low: Lowering, node: Any, constants: set[str], depth: int = 0) -> None:
    """One node: a host value (Constant, Shape, Size, a fold of host constants, a node with an empty input:
    :mod:`dmlsim.onnx.empty`), a lowering, or its function body expanded (:mod:`dmlsim.onnx.functions`) when no
    lowering claims it."""
    low.node = node
    attrs = attributes_of(node)
    if node.domain not in DEFAULT_DOMAINS:
        raise low.refuse(f"domain {node.domain!r}: dmlsim lowers the default ONNX domain")
    if node.op_type == "Constant":
        low.host[node.output[0]] = _constant(node, attrs)
        constants.add(node.output[0])
        return
    if node.op_type in ("Shape", "Size"):
        shape = low.value_shape(node.input[0])
        if node.op_type == "Size":
            value = np.asarray(int(np.prod(shape)), np.int64)
        else:
            start, end = attrs.get("start", 0), attrs.get("end", None)
            value = np.asarray(shape[slice(start, end)], np.int64)
        low.host[node.output[0]] = value
        constants.add(node.output[0])
        low.cpu_values.add(node.output[0])
        return
    given = [name for name in node.input if name]
    data = given[:1] if node.op_type == "CastLike" else given  # CastLike's second input gives only its type
    host = data and all(name in constants for name in data) and node.op_type not in NEVER_FOLDED
    split = unfuse_activation(node) if host or cpu_preferred(low, node, constants) else None
    if split is not None:  # computed on the host after all: the node, then its activation, each as itself
        for part in split:
            lower_node(low, part, constants, depth)
        return
    if host:
        try:
            values = _fold(node, [None if not name else low.host[name] if name in low.host
                                  else np.zeros(0, low.value_dtype(name)) for name in node.input], low.opset)
        except Exception as error:  # onnx.reference refusing the node: say which, never a traceback
            raise low.refuse(f"folding it on the host failed ({type(error).__name__}: "
                             f"{str(error).splitlines()[0][:120]})") from None
        on_cpu = any(name in low.cpu_values for name in given)
        for name, value in zip(node.output, values, strict=False):
            if name:
                low.host[name] = value
                constants.add(name)
                if on_cpu:
                    low.cpu_values.add(name)
        return
    if cpu_preferred(low, node, constants):
        try:
            values = _fold(node, [low.host[name] if name else None for name in node.input], low.opset)
        except Exception as error:  # onnx.reference refusing the node: say which, never a traceback
            raise low.refuse(f"computing it on the host failed ({type(error).__name__}: "
                             f"{str(error).splitlines()[0][:120]})") from None
        for name, value in zip(node.output, values, strict=False):
            if name:
                low.host[name] = np.asarray(value)
                constants.add(name)
                low.cpu_values.add(name)
        return
    if lower_empty(low, node, attrs, _fold, lambda rest: lower_node(low, rest, constants, depth)):
        return
    lowering = LOWERINGS.get(node.op_type)
    if lowering is None:
        if expand(low, node, lambda inner_low, inner, d: lower_node(inner_low, inner, constants, d), depth):
            return
        raise low.refuse("no DirectML lowering for this op yet")
    low.fused_activation = fused_activation_desc(attrs)
    try:
        lowering(low, node, attrs)
    except UnmappedError:  # a form the lowering does not map: its function body, as onnxruntime inlines it
        low.fused_activation = None
        if expand(low, node, lambda inner_low, inner, d: lower_node(inner_low, inner, constants, d), depth):
            _apply_activation(low, node, fused_activation_desc(attrs))
            return
        raise
    _apply_activation(low, node, low.fused_activation)


def _apply_activation(low: Lowering, node: Any, activation: Any) -> None:
    """A fused activation no emitted operator took (its lowering made several nodes, or a function body ran):
    applied to the node's output as an operator of its own, so the result is the same."""
    low.fused_activation = None
    if activation is None or node.output[0] not in low.views:
        return
    import dataclasses

    view = low.views[node.output[0]]
    params = {f.name: getattr(activation.Desc, f.name) for f in dataclasses.fields(activation.Desc)
              if f.name not in ("InputTensor", "OutputTensor")}
    low.emit(activation.Type, type(activation.Desc), {"InputTensor": view},
             {"OutputTensor": low.output(node.output[0], view.shape, view.dtype)}, **params)


def _finish(low: Lowering, graph: Any, feeds: dict[str, Any]) -> LoweredGraph:
    """Compile the graph for the outputs on the device (a LoweredGraph, which runs it and gathers every output)."""
    from dmlsim.onnx.ops_elementwise import unary

    device_outputs: dict[str, str] = {}  # graph output → the builder tensor holding it packed
    used: set[str] = set()
    for output in graph.output:
        name = output.name
        if name in low.views:
            view = low.views[name]
            is_input = view.name in {i.name for i in graph.input}
            if not view.packed or is_input or view.name in used:
                copy = low.fresh("out")
                unary(low, "ELEMENT_WISE_IDENTITY", view, copy)
                view = low.views[copy]
            used.add(view.name)
            device_outputs[name] = view.name
        elif name not in low.host:
            raise DMLError(E_INVALIDARG, f"graph output {name!r} is computed by no node")
    network = low.builder.compile(list(device_outputs.values())) if device_outputs else None
    return LoweredGraph(network, {name: (builder_name, low.views[name]) for name, builder_name
                                  in device_outputs.items()},
                        {o.name: np.asarray(low.host[o.name]) for o in graph.output if o.name not in device_outputs},
                        [o.name for o in graph.output], len(low.builder.nodes))


class LoweredGraph:
    """A model compiled for one set of input shapes: the CompiledNetwork (None when every output is known on the
    host), how each device output is read back, the outputs known on the host, and the graph inputs whose values
    the lowering read on the host (a run with other values there needs another lowering)."""

    def __init__(self, network: Any, device_outputs: dict[str, tuple[str, View]], host_outputs: dict[str, np.ndarray],
                 output_names: list[str], node_count: int) -> None:
        self.fusions = Fusions()  # what dmlsim.onnx.fusion rewrote before lowering
        self.network = network
        self.device_outputs = device_outputs
        self.host_outputs = host_outputs
        self.output_names = output_names
        self.node_count = node_count
        self.host_reads: dict[str, np.ndarray] = {}
        self.builder: Any = None

    def bind(self, feeds: dict[str, Any]) -> dict[str, np.ndarray]:
        """The network's inputs taken from ``feeds``."""
        return {name: np.asarray(feeds[name]) for name in self.network.inputs} if self.network else {}

    def outputs(self, ran: dict[str, np.ndarray]) -> list[np.ndarray]:
        """The graph outputs in ONNX order from the network's raw outputs ``ran``."""
        results: dict[str, np.ndarray] = {}
        for name, (builder_name, view) in self.device_outputs.items():
            array = ran[builder_name].reshape(view.shape)
            if view.dtype == np.bool_:
                array = array.astype(np.bool_)
            elif view.dtype.name in ("int4", "uint4"):  # decoded nibbles (int8/uint8) as ONNX's ml_dtypes type
                array = array.astype(view.dtype)
            elif array.dtype != view.dtype:  # the same bytes under ONNX's type (TopK's UINT64 indices as int64)
                array = array.view(view.dtype)
            results[name] = array
        return [results[name] if name in results else self.host_outputs[name].copy() for name in self.output_names]

    def run(self, feeds: dict[str, Any]) -> list[np.ndarray]:
        """Execute the compiled graph on ``feeds`` (by graph input name); the outputs in ONNX order."""
        return self.outputs(self.network.run(self.bind(feeds)) if self.network else {})


def _signature(feeds: dict[str, Any]) -> tuple | None:
    """The cache key of ``feeds`` (names, shapes, dtypes); None when a feed is no tensor (a sequence of tensors of
    different shapes: lowering refuses it, naming the input)."""
    key = []
    for name, value in sorted(feeds.items()):
        try:
            array = np.asarray(value)
        except (ValueError, TypeError):
            return None
        key.append((name, array.shape, array.dtype.str))
    return tuple(key)


class LoweringCache:
    """Compiled graphs of one model, keyed by the graph inputs' shapes and dtypes and the values of the inputs read
    on the host; at most ``capacity`` graphs (the least recently used goes). :attr:`compiles` counts lowerings."""

    def __init__(self, capacity: int = 8) -> None:
        self.capacity = capacity
        self.entries: list[tuple[tuple, LoweredGraph]] = []
        self.compiles = 0

    def get(self, model: Any, feeds: dict[str, Any], device: Device) -> LoweredGraph:
        """The graph for ``feeds``: a cached one whose key matches, else a new lowering (remembered)."""
        key = _signature(feeds)
        if key is None:
            return lower(model, feeds, device)
        for i, (entry_key, lowered) in enumerate(self.entries):
            if entry_key == key and all(np.array_equal(np.asarray(feeds[name]), value)
                                        for name, value in lowered.host_reads.items()):
                self.entries.append(self.entries.pop(i))
                return lowered
        lowered = lower(model, feeds, device)
        self.compiles += 1
        self.entries.append((key, lowered))
        del self.entries[:-self.capacity]
        return lowered

