"""The graph rewrites onnxruntime makes before its DirectML provider runs a model, applied to the node list before
lowering (:func:`fuse`), so that a model becomes the DirectML graph the provider would build, not one operator per
ONNX node.

onnxruntime's optimizer (level 1 for every provider, level 2 where the DirectML provider is listed) and the
provider's own activation fusion:

- **Conv + BatchNormalization** (``ConvBNFusion``, level 1): an inference BatchNormalization whose input is a Conv
  output read by nothing else, every weight an initializer, becomes that Conv with the filter scaled per output
  channel by ``scale / √(var + ε)`` and the bias ``(B − mean) · scale / √(var + ε) + bias``. Computed in float64
  from the stored values and rounded once to the filter's type (onnxruntime computes in the filter's type).
- **MatMul + Add** (``MatMulAddFusion``, level 1): a MatMul by a 2-D weight whose output only an Add of a bias
  of N or 1×N values reads becomes one GEMM with that bias as its C tensor (Beta 1, the bias read with stride 0
  along the rows). onnxruntime makes a Gemm (with Reshapes around it for a batched A); the DirectML graph is the
  same one GEMM.
- **MatMul × scalar** (``MatMulScaleFusion``, level 2, DirectML listed): a MatMul whose output only a Mul or Div
  by a constant scalar reads becomes one GEMM with that factor as Alpha.
- **GELU** (``GeluFusion``, level 2, DirectML listed): ``x · 0.5 · (1 + erf(x / √2))`` in either order of the
  two products, with ``x / √2`` written as Div by √2 or Mul by 1/√2, becomes one Gelu node (ACTIVATION_GELU).
- **Activations** (the provider's ``FusionHelpers``): a Conv, ConvTranspose, BatchNormalization,
  InstanceNormalization, MeanVarianceNormalization, Gemm, MatMul, Add or two-input Sum whose only output is read
  by nothing but one of the provider's fusable activations (Sigmoid, HardSigmoid, Tanh, Relu, LeakyRelu,
  ThresholdedRelu, Elu, Selu, Softsign, Softplus; for Add and Sum only Relu and LeakyRelu, what DirectML fuses in
  its shader) takes that activation as its FusedActivation: the node gains onnxruntime's ``fused_activation``,
  ``fused_alpha``, ``fused_beta`` and ``fused_gamma`` attributes and the activation's output name.

Every rewrite needs the intermediate value to be read by that one node only and not to be a graph output; a
pattern that does not match exactly is left as it is. The rewritten nodes keep their op types (the fused ones
carry the extra attributes or inputs), so the lowerings read them as before; :class:`Fusions` counts what was
rewritten (``dmlsim run`` and the bench notes say how many operators a model became).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# the provider's fusable activations: ONNX op → (DirectML activation, {ONNX attribute: (desc field, default)})
ACTIVATIONS: dict[str, tuple[str, dict[str, tuple[str, float]]]] = {
    "Sigmoid": ("ACTIVATION_SIGMOID", {}),
    "HardSigmoid": ("ACTIVATION_HARD_SIGMOID", {"alpha": ("Alpha", 0.2), "beta": ("Beta", 0.5)}),
    "Tanh": ("ACTIVATION_TANH", {}),
    "Relu": ("ACTIVATION_RELU", {}),
    "LeakyRelu": ("ACTIVATION_LEAKY_RELU", {"alpha": ("Alpha", 0.01)}),
    "ThresholdedRelu": ("ACTIVATION_THRESHOLDED_RELU", {"alpha": ("Alpha", 1.0)}),
    "Elu": ("ACTIVATION_ELU", {"alpha": ("Alpha", 1.0)}),
    "Selu": ("ACTIVATION_SCALED_ELU", {"alpha": ("Alpha", 1.67326319217681884765625),
                                       "gamma": ("Gamma", 1.05070102214813232421875)}),
    "Softsign": ("ACTIVATION_SOFTSIGN", {}),
    "Softplus": ("ACTIVATION_SOFTPLUS", {}),
}
FUSABLE = {"Conv", "ConvTranspose", "BatchNormalization", "InstanceNormalization", "MeanVarianceNormalization",
           "Gemm", "MatMul", "Add", "Sum"}
SHADER_ACTIVATIONS = {"Relu", "LeakyRelu"}  # what Add and Sum fuse (the provider's filter)
SQRT2 = float(np.sqrt(2.0))


@dataclass
class Fusions:
    """What :func:`fuse` rewrote: counts by rewrite, and the new initializers (folded filters and biases)."""

    counts: dict[str, int] = field(default_factory=dict)
    constants: dict[str, np.ndarray] = field(default_factory=dict)

    def add(self, kind: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def __str__(self) -> str:
        return ", ".join(f"{n} {kind}" for kind, n in sorted(self.counts.items())) or "none"


def fused_activation_desc(attrs: dict[str, Any]) -> Any | None:
    """The FusedActivation (a DML_OPERATOR_DESC with no tensors) a fused node's attributes name, or None."""
    import dmlsim as dml

    name = attrs.get("fused_activation")
    if not name:
        return None
    op_name, params = ACTIVATIONS[name]
    values = {desc_field: float(attrs.get(f"fused_{attr}", default)) for attr, (desc_field, default) in params.items()}
    if name == "Softplus":
        values["Steepness"] = 1.0
    desc_cls = getattr(dml, f"DML_{op_name}_OPERATOR_DESC")
    return dml.DML_OPERATOR_DESC(getattr(dml, f"DML_OPERATOR_{op_name}"), desc_cls(**values))


@dataclass(frozen=True)
class _Reader:
    """The one node reading a value: its index, the node, and its other input (binary nodes)."""

    index: int
    node: Any
    other: str


class _Graph:
    """The node list with who makes and who reads each value, rewritten in place (a removed node is None)."""

    def __init__(self, nodes: list[Any], outputs: set[str], constant: Callable[[str], np.ndarray | None]) -> None:
        self.nodes: list[Any | None] = list(nodes)
        self.outputs = outputs
        self.constant = constant
        self.readers: dict[str, list[int]] = {}
        self.producer: dict[str, int] = {}
        for index, node in enumerate(self.nodes):
            for name in node.input:
                if name:
                    self.readers.setdefault(name, []).append(index)
            for name in node.output:
                if name:
                    self.producer[name] = index

    def only_reader(self, name: str) -> int | None:
        """The index of the one node that reads ``name``, when exactly one does and it is not a graph output."""
        readers = self.readers.get(name, [])
        if name in self.outputs or len(readers) != 1 or self.nodes[readers[0]] is None:
            return None
        return readers[0]

    def follower(self, name: str, *op_types: str) -> _Reader | None:
        """The one node reading ``name`` when it is a two-input node of one of ``op_types``."""
        index = self.only_reader(name)
        node = self.nodes[index] if index is not None else None
        if node is None or node.op_type not in op_types or len(node.input) != 2 or name not in node.input:
            return None
        return _Reader(index, node, node.input[1] if node.input[0] == name else node.input[0])

    def scalar(self, name: str) -> float | None:
        """A one-element floating-point constant's value."""
        value = self.constant(name) if name else None
        if value is None or value.size != 1 or value.dtype.kind != "f":
            return None
        return float(value.reshape(-1)[0])

    def replace(self, index: int, node: Any, removed: list[int]) -> None:
        """``node`` in place of node ``index``; the ``removed`` nodes gone (their readers now read ``node``)."""
        for gone in removed:
            self.nodes[gone] = None
        self.nodes[index] = node
        for name in node.input:
            if name and index not in self.readers.setdefault(name, []):
                self.readers[name] = [i for i in self.readers[name] if i not in removed] + [index]
        for name in node.output:
            if name:
                self.producer[name] = index


def _attributes(node: Any) -> dict[str, Any]:
    from dmlsim.onnx.lowering import attributes_of

    return attributes_of(node)


def _remake(node: Any, inputs: list[str], outputs: list[str], **extra: Any) -> Any:
    """A copy of ``node`` with other inputs/outputs and extra attributes."""
    from onnx import helper

    made = helper.make_node(node.op_type, inputs, outputs, name=node.name, domain=node.domain or None, **extra)
    made.attribute.extend(a for a in node.attribute if a.name not in extra)
    return made


def _single_output(node: Any) -> bool:
    return sum(1 for name in node.output if name) == 1


def _near(value: float | None, target: float) -> bool:
    return value is not None and abs(value - target) <= 1e-5 * abs(target)


def _conv_batch_norm(graph: _Graph, fusions: Fusions) -> None:
    for index, conv in enumerate(graph.nodes):
        if conv is None or conv.op_type != "Conv" or not _single_output(conv) or len(conv.input) < 2:
            continue
        reader = graph.only_reader(conv.output[0])
        norm = graph.nodes[reader] if reader is not None else None
        if norm is None or norm.op_type != "BatchNormalization" or not _single_output(norm) or len(norm.input) < 5:
            continue
        attrs = _attributes(norm)
        if attrs.get("training_mode", 0) or not attrs.get("spatial", 1) or norm.input[0] != conv.output[0]:
            continue
        weight = graph.constant(conv.input[1])
        has_bias = len(conv.input) > 2 and bool(conv.input[2])
        bias = graph.constant(conv.input[2]) if has_bias else None
        stats = [graph.constant(name) for name in norm.input[1:5]]
        if weight is None or weight.dtype.kind != "f" or any(s is None or s.shape != (weight.shape[0],)
                                                             for s in stats):
            continue
        if has_bias and (bias is None or bias.shape != (weight.shape[0],)):
            continue
        scale, shift, mean, var = (np.asarray(s, np.float64) for s in stats)
        factor = scale / np.sqrt(var + float(attrs.get("epsilon", 1e-5)))
        folded_w = np.asarray(weight, np.float64) * factor.reshape((-1,) + (1,) * (weight.ndim - 1))
        old_bias = np.zeros(weight.shape[0]) if bias is None else np.asarray(bias, np.float64)
        folded_b = (old_bias - mean) * factor + shift
        w_name, b_name = f"{conv.input[1]}/bn_folded#{index}", f"{conv.output[0]}/bn_bias#{index}"
        fusions.constants[w_name] = folded_w.astype(weight.dtype)
        fusions.constants[b_name] = folded_b.astype(weight.dtype)
        graph.replace(index, _remake(conv, [conv.input[0], w_name, b_name], [norm.output[0]]), [reader])
        fusions.add("Conv+BatchNormalization")


def _matmul_followers(graph: _Graph, fusions: Fusions) -> None:
    """MatMul + Add of a bias (C) and MatMul × or ÷ a scalar (Alpha; only before the bias is added)."""
    for index, matmul in enumerate(graph.nodes):
        if matmul is None or matmul.op_type != "MatMul" or len(matmul.input) != 2 or \
                graph.constant(matmul.input[0]) is not None:  # a product of constants is folded, not fused
            continue
        while True:
            attrs = _attributes(matmul)
            follower = graph.follower(matmul.output[0], "Add", "Mul", "Div")
            if follower is None:
                break
            op_type, other = follower.node.op_type, follower.other
            if op_type in ("Mul", "Div") and "dmlsim_bias" not in attrs:
                factor = graph.scalar(other)
                if factor is None or (op_type == "Div" and (follower.node.input[1] != other or factor == 0)):
                    break
                alpha = float(attrs.get("dmlsim_alpha", 1.0)) * (factor if op_type == "Mul" else 1 / factor)
                matmul = _remake(matmul, list(matmul.input), [follower.node.output[0]], dmlsim_alpha=alpha)
                fusions.add("MatMul×scalar")
            elif op_type == "Add" and "dmlsim_bias" not in attrs:
                weight, bias = graph.constant(matmul.input[1]), graph.constant(other)
                if weight is None or weight.ndim != 2 or bias is None or bias.dtype != weight.dtype or \
                        bias.shape not in ((weight.shape[1],), (1, weight.shape[1])):
                    break
                matmul = _remake(matmul, [*matmul.input, other], [follower.node.output[0]], dmlsim_bias=1)
                fusions.add("MatMul+Add")
            else:
                break
            graph.replace(index, matmul, [follower.index])


def _scaled_input(graph: _Graph, node: Any) -> str | None:
    """x when ``node`` is x / √2 or x · (1/√2)."""
    if node.op_type == "Div" and len(node.input) == 2 and _near(graph.scalar(node.input[1]), SQRT2):
        return node.input[0]
    if node.op_type == "Mul" and len(node.input) == 2:
        for x, factor in (node.input, reversed(node.input)):
            if _near(graph.scalar(factor), 1 / SQRT2):
                return x
    return None


def _gelu(graph: _Graph, fusions: Fusions) -> None:
    """x·0.5·(1 + erf(x/√2)) (either order of the two products), found from its Erf node."""
    for erf_index, erf in enumerate(graph.nodes):
        if erf is None or erf.op_type != "Erf" or not erf.input or not erf.output:
            continue
        scaling_index = graph.producer.get(erf.input[0])
        if scaling_index is None or graph.only_reader(erf.input[0]) != erf_index:
            continue
        x = _scaled_input(graph, graph.nodes[scaling_index])
        plus = graph.follower(erf.output[0], "Add")
        if x is None or plus is None or not _near(graph.scalar(plus.other), 1.0):
            continue
        product = graph.follower(plus.node.output[0], "Mul")
        if product is None:
            continue
        removed = [scaling_index, erf_index, plus.index, product.index]
        if product.other == x:  # x·(1 + erf), then · 0.5
            half = graph.follower(product.node.output[0], "Mul")
            if half is None or not _near(graph.scalar(half.other), 0.5):
                continue
            removed.append(half.index)
            output = half.node.output[0]
        else:  # (x·0.5)·(1 + erf): the other factor is x·0.5, read by nothing else
            halving_index = graph.producer.get(product.other)
            halving = graph.nodes[halving_index] if halving_index is not None else None
            if (halving is None or halving.op_type != "Mul" or len(halving.input) != 2 or x not in halving.input
                    or graph.only_reader(product.other) != product.index
                    or not _near(graph.scalar(halving.input[1] if halving.input[0] == x else halving.input[0]), 0.5)):
                continue
            removed.append(halving_index)
            output = product.node.output[0]
        from onnx import helper

        gelu = helper.make_node("Gelu", [x], [output], name=f"{erf.name or erf.output[0]}/gelu")
        graph.replace(max(removed), gelu, [i for i in removed if i != max(removed)])
        fusions.add("GELU")


def _activations(graph: _Graph, fusions: Fusions) -> None:
    for index, node in enumerate(graph.nodes):
        if node is None or node.op_type not in FUSABLE or not _single_output(node):
            continue
        if (node.op_type == "Sum" and len([n for n in node.input if n]) != 2) or _all_constant(graph, node):
            continue
        if node.op_type == "BatchNormalization" and _attributes(node).get("training_mode", 0):
            continue
        reader = graph.only_reader(node.output[0])
        activation = graph.nodes[reader] if reader is not None else None
        if (activation is None or activation.op_type not in ACTIVATIONS or not activation.input
                or activation.input[0] != node.output[0] or not _single_output(activation)):
            continue
        if node.op_type in ("Add", "Sum") and activation.op_type not in SHADER_ACTIVATIONS:
            continue
        extra: dict[str, Any] = {"fused_activation": activation.op_type}
        for attr, value in _attributes(activation).items():
            if attr in ACTIVATIONS[activation.op_type][1]:
                extra[f"fused_{attr}"] = float(value)
        graph.replace(index, _remake(node, list(node.input), [activation.output[0]], **extra), [reader])
        fusions.add(f"{node.op_type}+{activation.op_type}")


def unfuse_activation(node: Any) -> tuple[Any, Any] | None:
    """A node carrying a fused activation split back into the node and its activation node, or None: for a node
    that is computed on the host after all (onnx.reference would ignore the fused_* attributes)."""
    from onnx import helper

    fused = {a.name: helper.get_attribute_value(a) for a in node.attribute if a.name.startswith("fused_")}
    if "fused_activation" not in fused:
        return None
    kind = fused.pop("fused_activation")
    kind = kind.decode() if isinstance(kind, bytes) else kind
    middle = f"{node.output[0]}#before_{kind}"
    plain = helper.make_node(node.op_type, list(node.input), [middle], name=node.name, domain=node.domain or None)
    plain.attribute.extend(a for a in node.attribute if not a.name.startswith("fused_"))
    activation = helper.make_node(kind, [middle], [node.output[0]],
                                  **{name.removeprefix("fused_"): value for name, value in fused.items()})
    return plain, activation


def _all_constant(graph: _Graph, node: Any) -> bool:
    """Every input of ``node`` is a known constant: onnxruntime folds such a node before any fusion."""
    given = [name for name in node.input if name]
    return bool(given) and all(graph.constant(name) is not None for name in given)


def fuse(nodes: list[Any], outputs: set[str],
         constant: Callable[[str], np.ndarray | None]) -> tuple[list[Any], Fusions]:
    """The node list rewritten as onnxruntime rewrites it for its DirectML provider, and what was rewritten.
    ``outputs``: the graph outputs (never fused away); ``constant(name)``: an initializer's value, or None."""
    fusions = Fusions()

    def value(name: str) -> np.ndarray | None:
        return fusions.constants[name] if name in fusions.constants else constant(name)

    graph = _Graph(nodes, outputs, value)
    _conv_batch_norm(graph, fusions)
    _gelu(graph, fusions)
    _matmul_followers(graph, fusions)
    _activations(graph, fusions)
    return [node for node in graph.nodes if node is not None], fusions
