"""Function expansion: a node no lowering claims is replaced by its schema's function body, as onnxruntime does.

When no execution provider claims a node whose operator schema defines a function body (``FunctionProto``),
onnxruntime inlines the function (``Graph::InlineFunction``) and the DirectML provider then takes the body's
primitive nodes. dmlsim does the same, at the model's opset:

- **Which body.** ``onnx.defs.get_schema(op, opset, domain)``; a schema with a function takes the newest body
  whose version is at most the model's opset (``get_function_with_opset_version``); a context-dependent function
  (``get_context_dependent_function_with_opset_version``) is built for the node and the element type and shape of
  each input, as onnxruntime builds it (an absent optional input passes an empty ``TypeProto``).
- **Renaming.** The body's formal inputs and outputs are the node's actual ones (an absent optional input is the
  empty name; an absent optional output gets a fresh name nobody reads); every internal value gets a fresh name
  unique in the model (``<node>/<op>/<value>#<n>``), so two expansions of one op never share a value.
- **Attributes.** A body attribute that references the node's attribute (``ref_attr_name``) takes the node's
  value, else the function's default (``attribute_proto``), else the schema's default; with none of those the
  attribute is dropped, as ONNX's inliner drops it.
- **Opset.** The body's nodes are read at the function's own ``opset_import`` of the default domain (a body
  written for opset 18 uses ReduceSum's ``axes`` input even in an opset-13 model), then the model's opset returns.
- **Recursion.** A body node that has no lowering either is expanded in turn (depth at most 8).
- **Errors.** A refusal inside a body names the original node: ``NegativeLogLikelihoodLoss node 'n' (opset 13),
  in its function body: Gather node '' (opset 13): ...``, with the inner HRESULT.

A direct lowering always wins over expansion (the caller asks for a body only when ``LOWERINGS`` lacks the op).
Graph attributes (an If inside a body) read the body's values under their instantiated names.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from dmlsim.api.errors import DMLError

MAX_DEPTH = 8


def function_body(op_type: str, opset: int, domain: str = "", node: Any = None,
                  input_types: list[Any] | None = None) -> Any | None:
    """The ``FunctionProto`` onnx defines for ``op_type`` at ``opset`` (for ``node`` and its ``input_types`` when
    the function is context-dependent), or None when the schema has none. With ``node`` None, a context-dependent
    function is reported as present (an empty FunctionProto) without being built."""
    import onnx
    from onnx import defs

    try:
        schema = defs.get_schema(op_type, opset, domain)
    except Exception:  # no schema at that opset: nothing to expand
        return None
    data = b""
    if schema.has_function:
        data = schema.get_function_with_opset_version(opset) or b""
        if not data:
            return schema.function_body
    elif schema.has_context_dependent_function:
        if node is None:
            return onnx.FunctionProto()
        types = [t.SerializeToString() for t in input_types or []]
        data = schema.get_context_dependent_function_with_opset_version(opset, node.SerializeToString(), types)
        if not data:
            data = schema.get_context_dependent_function(node.SerializeToString(), types)
    else:
        return None
    body = onnx.FunctionProto()
    body.ParseFromString(data)
    return body


def input_type(dtype: np.dtype | None, shape: tuple[int, ...] | None) -> Any:
    """The ``TypeProto`` of a tensor input (empty for an absent optional input)."""
    import onnx
    from onnx import helper

    if dtype is None:
        return onnx.TypeProto()
    return helper.make_tensor_type_proto(helper.np_dtype_to_tensor_dtype(np.dtype(dtype)),
                                         list(shape) if shape is not None else None)


def _defaults(body: Any, schema: Any) -> dict[str, Any]:
    """Attribute defaults of a function: the body's ``attribute_proto``, then the schema's."""
    out: dict[str, Any] = {}
    if schema is not None:
        for name, attr in schema.attributes.items():
            if attr.default_value.name:
                out[name] = attr.default_value
    for attr in body.attribute_proto:
        out[attr.name] = attr
    return out


def instantiate(node: Any, body: Any, opset: int, prefix: str, fresh: Callable[[str], str]) -> list[Any]:
    """The body's nodes renamed for ``node`` and with their attribute references resolved."""
    import onnx
    from onnx import defs

    try:
        schema = defs.get_schema(node.op_type, opset, node.domain or "")
    except Exception:
        schema = None
    given = {attr.name: attr for attr in node.attribute}
    defaults = _defaults(body, schema)
    names: dict[str, str] = {"": ""}
    for index, formal in enumerate(body.input):
        names[formal] = node.input[index] if index < len(node.input) else ""
    for index, formal in enumerate(body.output):
        actual = node.output[index] if index < len(node.output) else ""
        names[formal] = actual or fresh(f"{prefix}/{formal}")

    def rename(value: str) -> str:
        if value not in names:
            names[value] = fresh(f"{prefix}/{value}")
        return names[value]

    nodes = []
    for inner in body.node:
        clone = onnx.NodeProto()
        clone.CopyFrom(inner)
        del clone.input[:]
        clone.input.extend(rename(v) for v in inner.input)
        del clone.output[:]
        clone.output.extend(rename(v) for v in inner.output)
        clone.name = f"{prefix}/{inner.name or inner.op_type}"
        del clone.attribute[:]
        for attr in inner.attribute:
            if attr.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS):
                clone.attribute.append(renamed_subgraphs(attr, names))
            elif attr.ref_attr_name:
                source = given.get(attr.ref_attr_name, defaults.get(attr.ref_attr_name))
                if source is None:
                    continue
                resolved = onnx.AttributeProto()
                resolved.CopyFrom(source)
                resolved.name = attr.name
                clone.attribute.append(resolved)
            else:
                clone.attribute.append(attr)
        nodes.append(clone)
    return nodes


def renamed_subgraphs(attr: Any, names: dict[str, str]) -> Any:
    """A graph attribute whose nodes read the body's values under their instantiated names (a subgraph reads the
    enclosing scope by name; its own values keep theirs)."""
    import onnx

    out = onnx.AttributeProto()
    out.CopyFrom(attr)
    graphs = [out.g] if attr.type == onnx.AttributeProto.GRAPH else list(out.graphs)
    for graph in graphs:
        local = {v for n in graph.node for v in n.output} | {i.name for i in graph.input} | {
            i.name for i in graph.initializer}
        for inner in graph.node:
            for index, value in enumerate(inner.input):
                if value not in local and value in names:
                    inner.input[index] = names[value]
            for sub in inner.attribute:
                if sub.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS):
                    sub.CopyFrom(renamed_subgraphs(sub, {k: v for k, v in names.items() if k not in local}))
        for output in graph.output:
            if output.name not in local and output.name in names:
                output.name = names[output.name]
    return out


def body_opset(body: Any, opset: int) -> int:
    """The default-domain opset the body is written for (its own ``opset_import``), else the model's."""
    for entry in body.opset_import:
        if entry.domain in ("", "ai.onnx"):
            return int(entry.version)
    return opset


def expand(low: Any, node: Any, lower_node: Callable[[Any, Any], None], depth: int = 0) -> bool:
    """Lower ``node`` through its function body with ``lower_node(low, body_node)``; False if it has none.

    ``low`` is the :class:`~dmlsim.onnx.lowering.Lowering`; its ``node`` and ``opset`` are restored afterwards."""
    types = []
    for name in node.input:
        if name and (name in low.views or name in low.host):
            types.append(input_type(low.value_dtype(name), low.value_shape(name)))
        else:
            types.append(input_type(None, None))
    body = function_body(node.op_type, low.opset, node.domain or "", node, types)
    if body is None or not body.node:
        return False
    if depth >= MAX_DEPTH:
        raise low.refuse(f"its function body nests more than {MAX_DEPTH} deep")
    outer_where, outer_node, outer_opset = low.where(), low.node, low.opset
    prefix = node.name or node.op_type
    nodes = instantiate(node, body, low.opset, prefix, low.fresh)
    low.opset = body_opset(body, low.opset)
    try:
        for inner in nodes:
            lower_node(low, inner, depth + 1)
    except DMLError as error:
        text = re.sub(r"^E_[A-Z_]+ \(0x[0-9A-F]+\): |^0x[0-9A-F]+ \(0x[0-9A-F]+\): ", "", str(error))
        raise DMLError(error.hresult, f"{outer_where}, in its function body: {text}") from None
    finally:
        low.node, low.opset = outer_node, outer_opset
    return True


def has_body(op_type: str, opset: int, domain: str = "") -> bool:
    """Whether onnx defines a function body (plain or context-dependent) for the op at ``opset``."""
    return function_body(op_type, opset, domain) is not None

