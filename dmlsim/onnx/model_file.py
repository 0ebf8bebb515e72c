"""Reading an ``.onnx`` file for the command line, refusing a bad model with a located error before anything runs.

Every refusal is a :class:`BadModelError` whose message starts with the file and, where a node is at fault, the node:
``model.onnx: node 'mm' (MatMul, opset 17): ...``. The checks, in order, each bounded in time and memory:

- **The file.** Unreadable, empty, or not a protobuf ``ModelProto`` (truncated, garbage, a text file): refused
  with what the parser said. A protobuf that parses but has no graph, no IR version or no opset is not an ONNX
  model either.
- **Opsets.** The default domain's opset must be one this onnx knows (a newer one cannot be checked), and an IR
  version newer than onnx's is refused.
- **Initializers.** Each initializer's claimed size (dims × element size) is checked against the bytes it holds
  (raw_data, the typed fields, or its external file's length) before any array is made: a TensorProto claiming
  2 GB with a few bytes, or external data pointing at a missing file or outside the model's folder, is refused
  without allocating the claim. Claims over :data:`MAX_INITIALIZER_BYTES` in all are refused too.
- **The graph.** Every node input must be a graph input, an initializer or an output of an earlier node: an input
  no one makes (a missing initializer, a dangling name) and a cycle are told apart; an op unknown to ONNX at the
  model's opset, and a domain other than ONNX's, are refused naming the node. Then ``onnx.checker`` (what
  onnx.backend's ``prepare`` runs) for ONNX's remaining rules, its message quoted.

What passes here may still be refused when lowered (a shape DirectML cannot express, shapes that disagree): those
errors come from the lowering (:func:`located` rewrites them into the same form).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import numpy as np

MAX_INITIALIZER_BYTES = 1 << 30  # what dmlsim agrees to hold of one model's weights (the emulator's devices are CPUs)
DEFAULT_DOMAINS = ("", "ai.onnx")


class BadModelError(Exception):
    """A model refused before it runs; the message is located (file, and node where one is at fault)."""


def _node_where(node: Any, opset: int) -> str:
    return f"node {node.name or '(unnamed)'!r} ({node.op_type}, opset {opset})"


_LOWERING_WHERE = re.compile(r"^(\S+) node '(.*?)' \((?:opset (\d+)|domain ('.*?'))\): ")


def located(path: str | Path, message: str) -> str:
    """``path: message``, a lowering's ``Op node 'x' (opset N): ...`` rewritten as ``node 'x' (Op, opset N): ...``
    (the API keeps its own wording; the command line speaks as the bad-model rule says)."""
    match = _LOWERING_WHERE.match(message)
    if match:
        op, name, opset, domain = match.groups()
        where = f"opset {opset}" if opset else f"domain {domain}"
        message = f"node {name!r} ({op}, {where}): " + message[match.end():]
    return f"{path}: {message}"


def _claimed_bytes(tensor: Any) -> tuple[int, int]:
    """(bytes the dims claim, element size); the dims' product computed without overflow."""
    from onnx import helper

    try:
        itemsize = np.dtype(helper.tensor_dtype_to_np_dtype(tensor.data_type)).itemsize
    except Exception:  # an unknown or string type: no byte claim to check
        return 0, 0
    count = 1
    for dim in tensor.dims:
        if dim < 0:
            return -1, itemsize
        count *= int(dim)
    return count * itemsize, itemsize


def _held_bytes(tensor: Any, itemsize: int) -> int:
    """The bytes an in-file initializer holds (raw_data, else its typed field's elements at their storage size)."""
    from onnx import TensorProto

    if tensor.HasField("raw_data"):
        return len(tensor.raw_data)
    for field in ("float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
        values = getattr(tensor, field)
        if len(values):  # one value per element (float16, int8, bool... one per int32), complex types two
            per_element = 2 if tensor.data_type in (TensorProto.COMPLEX64, TensorProto.COMPLEX128) else 1
            return len(values) // per_element * itemsize
    return 0


def _check_initializers(path: Path, model: Any) -> None:
    from onnx import TensorProto

    total = 0
    folder = path.parent.resolve()
    for tensor in model.graph.initializer:
        where = f"{path}: initializer {tensor.name!r}"
        if tensor.data_type == TensorProto.STRING:
            continue
        claim, itemsize = _claimed_bytes(tensor)
        if claim < 0:
            raise BadModelError(f"{where}: a negative dimension in {list(tensor.dims)}")
        total += claim
        if tensor.data_location == TensorProto.EXTERNAL:
            info = {entry.key: entry.value for entry in tensor.external_data}
            location = info.get("location", "")
            target = (folder / location).resolve()
            if not location or os.path.isabs(location) or folder not in (target, *target.parents):
                raise BadModelError(f"{where}: external data location {location!r} is not a file inside the model's "
                               f"folder {str(folder)!r}")
            if not target.is_file():
                raise BadModelError(f"{where}: external data file {location!r} does not exist (it claims "
                               f"{list(tensor.dims)}, {claim:,} bytes)")
            offset, length = int(info.get("offset", 0) or 0), int(info.get("length", claim) or claim)
            available = target.stat().st_size - offset
            if length != claim or available < claim:
                raise BadModelError(f"{where}: claims {list(tensor.dims)} ({claim:,} bytes) but its external file "
                               f"{location!r} holds {max(available, 0):,} bytes from offset {offset} "
                               f"(length {length:,})")
        else:
            held = _held_bytes(tensor, itemsize)
            if held != claim:
                raise BadModelError(f"{where}: claims {list(tensor.dims)} ({claim:,} bytes) but holds {held:,} bytes")
        if total > MAX_INITIALIZER_BYTES:
            raise BadModelError(f"{where}: the initializers claim more than {MAX_INITIALIZER_BYTES:,} bytes in all "
                           f"({total:,} so far), more than dmlsim holds for one model")


def _check_graph(path: Path, model: Any, opset: int) -> None:
    from onnx import defs

    graph = model.graph
    known = {value.name for value in graph.input} | {tensor.name for tensor in graph.initializer}
    producer = {name: i for i, node in enumerate(graph.node) for name in node.output if name}
    made: set[str] = set(known)
    for i, node in enumerate(graph.node):
        where = f"{path}: {_node_where(node, opset)}"
        if node.domain not in DEFAULT_DOMAINS:
            raise BadModelError(f"{where}: domain {node.domain!r} is not ONNX's default domain (dmlsim lowers that "
                           "domain onto DirectML)")
        if not defs.has(node.op_type, max_inclusive_version=opset, domain=""):
            raise BadModelError(f"{where}: no op {node.op_type!r} in ONNX opset {opset}")
        for name in node.input:
            if not name or name in made:
                continue
            if name in producer and producer[name] >= i:
                cycle = _cycle_through(graph, producer, i)
                if cycle:
                    names = " → ".join(repr(graph.node[k].name) for k in cycle)
                    raise BadModelError(f"{where}: the graph has a cycle ({names}): input {name!r} depends on this "
                                   "node's own output")
                later = graph.node[producer[name]].name
                raise BadModelError(f"{where}: input {name!r} is made by a later node ({later!r}): ONNX requires the "
                                    "nodes in topological order")
            raise BadModelError(f"{where}: input {name!r} is no graph input, initializer or earlier node's output "
                           "(a missing initializer or a dangling name)")
        made.update(name for name in node.output if name)
    for output in graph.output:
        if output.name not in made:
            raise BadModelError(f"{path}: graph output {output.name!r} is computed by no node")


def _cycle_through(graph: Any, producer: dict[str, int], start: int) -> list[int]:
    """A list of node indices from ``start`` back to itself along input edges, or [] (iterative DFS)."""
    stack: list[tuple[int, list[int]]] = [(start, [start])]
    seen: set[int] = set()
    while stack:
        index, trail = stack.pop()
        for name in graph.node[index].input:
            before = producer.get(name)
            if before is None:
                continue
            if before == start:
                return [*trail, start][::-1]
            if before not in seen:
                seen.add(before)
                stack.append((before, [*trail, before]))
    return []


def load(path: str | Path) -> Any:
    """The ModelProto of ``path``, its external data loaded; BadModelError (located) when it is not a sound model."""
    import onnx
    from google.protobuf.message import DecodeError

    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BadModelError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    if not data:
        raise BadModelError(f"{path}: the file is empty, not an ONNX model")
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError) as exc:
        raise BadModelError(f"{path}: not an ONNX model: the protobuf does not parse ({exc}); a truncated or "
                       "garbage file?") from None
    if not model.HasField("graph") or not model.ir_version or not len(model.opset_import):
        missing = [what for what, present in (("a graph", model.HasField("graph")), ("an IR version",
                                                                                   model.ir_version),
                                              ("an opset import", len(model.opset_import))) if not present]
        raise BadModelError(f"{path}: not an ONNX model: it has no {' and no '.join(missing)}")
    if model.ir_version > onnx.IR_VERSION:
        raise BadModelError(f"{path}: IR version {model.ir_version} is newer than this onnx's ({onnx.IR_VERSION})")
    opset = next((int(e.version) for e in model.opset_import if e.domain in DEFAULT_DOMAINS), None)
    newest = onnx.defs.onnx_opset_version()
    if opset is None:
        raise BadModelError(f"{path}: the model imports no opset of ONNX's default domain")
    if opset > newest:
        raise BadModelError(f"{path}: opset {opset} of the default domain is newer than the newest ONNX opset dmlsim "
                       f"knows ({newest})")
    _check_initializers(path, model)
    _check_graph(path, model, opset)
    try:  # the rest of ONNX's rules (types, attributes, value infos), as onnx.backend's prepare checks them
        onnx.checker.check_model(model)
    except onnx.checker.ValidationError as exc:
        raise BadModelError(f"{path}: onnx.checker refuses it: {str(exc).strip().splitlines()[0][:300]}") from None
    if any(t.data_location == onnx.TensorProto.EXTERNAL for t in model.graph.initializer):
        from onnx.external_data_helper import load_external_data_for_model

        try:
            load_external_data_for_model(model, str(path.parent))
        except Exception as exc:
            raise BadModelError(f"{path}: its external data could not be read ({type(exc).__name__}: {exc})") from None
    return model
