"""If, Loop, Scan, BitCast, Compress, Einsum, NonZero, MaxUnpool, MatMulInteger, TensorScatter, Gelu tanh: lowerings.

- **If** whose condition is known when the graph is built (a constant, a Shape-derived value or a graph input read
  on the host: onnxruntime runs If on its CPU provider, which reads the condition there) is replaced by the taken
  branch: the branch's initializers become host constants, its values get fresh names (values of the enclosing
  graph keep theirs), its nodes are lowered like the model's, and its outputs become the node's. Since If is a
  CPU kernel in onnxruntime, the enclosing graph's host-known values its branch reads count as CPU values there
  (integer shape arithmetic on them stays on the host, run_model.cpu_preferred). A condition computed on the
  device is read back first (Lowering.read_back), as onnxruntime copies it to its CPU If kernel.
- **BitCast** (opset 26) of types of equal width is the same bytes read as a tensor of the other data type: a view
  whose tensor desc names the new type over the source's buffer (DirectML's tensor desc is a type laid over bytes;
  onnxruntime's provider reinterprets int64 tensors the same way). bool is 1 byte (UINT8). Widths that differ are
  refused by ONNX's own rule, and types DirectML lacks (bfloat16, float8, int4) by the tensor data type check.
  A source that is a strided view is first copied packed (the bytes must be the source's in its own order).
- **Compress** with a condition known on the host is GATHER of the indices of its true entries along ``axis``
  (without ``axis``: of the flattened input); a condition shorter than the axis selects from its length only, as
  ONNX says; no true entry gives an empty output (a host value, dmlsim/onnx/empty.py). A condition computed on the
  device is read back first (the output's shape depends on it, as onnxruntime's CPU Compress reads it).
- **Loop** and **Scan** are unrolled (see their lowerings): trip count and conditions on the host (or read
  back), every iteration a copy of the body in the one graph; Scan-8 is refused.
- **Einsum** (FLOAT32/FLOAT16) is ELEMENT_WISE_MULTIPLY of the operands read over the full letter space, then
  REDUCE SUM over the contracted letters (see :func:`lower_einsum`); FLOAT64 is refused as the provider does.
- **MaxUnpool** is MAX_UNPOOLING (see :func:`lower_max_unpool`).
- **TensorScatter** is SCATTER_ELEMENTS with host-made indices (see :func:`lower_tensor_scatter`).
- **MatMulInteger** is MATRIX_MULTIPLY_INTEGER shaped as MatMul's GEMM (see :func:`lower_matmul_integer`).
- **BitShift** of signed integers is composed over the unsigned bytes (see :func:`lower_signed_bit_shift`).
- **GridSample** is composed of element-wise operators and GATHER_ELEMENTS (see :func:`lower_grid_sample`).
- **DFT** is one GEMM by a host-made DFT matrix (see :func:`lower_dft`).
- **STFT** is GATHER of the frames, the window multiply and DFT (see :func:`lower_stft`).
- **Resize** with cubic interpolation (antialiased or not) is one GEMM per resized axis (see
  :func:`lower_resize_by_matrices`); the rest stays RESAMPLE2, or RESAMPLE3 when antialiased (ops_resize).
- **NonZero** is NONZERO_COORDINATES with its count read back (see :func:`lower_nonzero`).
- **Gelu** ``approximate='tanh'``: DirectML's ACTIVATION_GELU is the erf form, so the tanh form is composed of
  element-wise operators, ``0.5 · x · (1 + tanh(√(2/π) · (x + 0.044715 · x³)))``, each step rounded to the
  tensor's type (FLOAT16 steps round in FLOAT16, as the composed DirectML graph would).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.api.tensor import packed_strides
from dmlsim.onnx import ops_resize  # noqa: F401  (registers Resize before _install_resize wraps it)
from dmlsim.onnx.functions import renamed_subgraphs
from dmlsim.onnx.lowering import Lowering, View, broadcast_view, lowers
from dmlsim.onnx.ops_elementwise import binary, unary
from dmlsim.onnx.ops_tensor import packed


# --- If ---------------------------------------------------------------------------------------------------------
def _branch_nodes(low: Lowering, node: Any, graph: Any, prefix: str = "") -> tuple[list[Any], dict[str, str]]:
    """The branch's nodes renamed (fresh names for the values it defines) and the map of its names."""
    import onnx
    from onnx import numpy_helper

    prefix = prefix or node.name or node.op_type
    names: dict[str, str] = {"": ""}
    for init in graph.initializer:
        names[init.name] = low.fresh(f"{prefix}/{init.name}")
        low.host[names[init.name]] = numpy_helper.to_array(init)
        low.constants.add(names[init.name])
    defined = {out for inner in graph.node for out in inner.output if out}
    for value in defined:
        names[value] = low.fresh(f"{prefix}/{value}")
    nodes = []
    for inner in graph.node:
        clone = onnx.NodeProto()
        clone.CopyFrom(inner)
        for attr in clone.attribute:  # a nested If reads this branch's values under their new names
            if attr.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS):
                attr.CopyFrom(renamed_subgraphs(attr, names))
        del clone.input[:]
        clone.input.extend(names.get(v, v) for v in inner.input)
        del clone.output[:]
        clone.output.extend(names.get(v, v) for v in inner.output)
        clone.name = f"{prefix}/{inner.name or inner.op_type}"
        nodes.append(clone)
    return nodes, names


def _lower_more(low: Lowering, node: Any) -> None:
    """Lower one more node of the model (a branch's, an unrolled body's) through run_model's node path."""
    if low.lower_more is None:
        raise low.refuse("its subgraph needs run_model's lowering (Lowering.lower_more is not set)")
    low.lower_more(node)


def _alias(low: Lowering, source: str, target: str) -> None:
    """``target`` is ``source``'s value (a device view or a host value, with its host-ness)."""
    if source in low.views:
        low.views[target] = low.views[source]
    if source in low.host:
        low.host[target] = low.host[source]
    for group in (low.constants, low.cpu_values):
        if source in group:
            group.add(target)
    if source not in low.views and source not in low.host:
        raise low.refuse(f"its branch output {source!r} is computed by no node", 0x80070057)


@lowers("If")
def lower_if(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    condition = np.asarray(low.host_value(node.input[0], "condition")).reshape(-1)
    if condition.size != 1:
        raise low.refuse(f"its condition has {condition.size} elements; ONNX requires one", 0x80070057)
    branch = attrs["then_branch" if bool(condition[0]) else "else_branch"]
    outer_node = low.node
    nodes, names = _branch_nodes(low, node, branch)
    # onnxruntime's If is a CPU kernel: the enclosing graph's values its branch reads are CPU tensors there
    implicit = {v for inner in nodes for v in inner.input if v and v in low.host and v not in low.cpu_values}
    low.cpu_values.update(implicit)
    try:
        for inner in nodes:
            _lower_more(low, inner)
    finally:
        low.cpu_values.difference_update(implicit)
    low.node = outer_node
    if len(branch.output) < len([o for o in node.output if o]):
        raise low.refuse("its branch has fewer outputs than the node", 0x80070057)
    for formal, actual in zip(branch.output, node.output, strict=False):
        if actual:
            _alias(low, names.get(formal.name, formal.name), actual)


# --- BitCast ----------------------------------------------------------------------------------------------------
@lowers("BitCast")
def lower_bitcast(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    from onnx import helper

    target = np.dtype(helper.tensor_dtype_to_np_dtype(attrs["to"]))
    source_dtype = low.value_dtype(node.input[0])
    if target.itemsize != source_dtype.itemsize:
        raise low.refuse(f"{source_dtype} ({source_dtype.itemsize} bytes) to {target} ({target.itemsize} bytes): "
                         "BitCast needs types of equal width", 0x80070057)
    from dmlsim.onnx.lowering import dml_type

    dml_type(target, low.where())
    source = packed(low, low.view(node.input[0]))
    low.views[node.output[0]] = View(source.name, source.shape, packed_strides(source.shape), target)


# --- Compress ---------------------------------------------------------------------------------------------------
@lowers("Compress")
def lower_compress(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    condition = np.asarray(low.host_value(node.input[1], "condition")).reshape(-1).astype(bool)
    data = low.view(node.input[0])
    if "axis" in attrs:
        rank = len(data.shape)
        axis = attrs["axis"] + rank if attrs["axis"] < 0 else attrs["axis"]
        if not 0 <= axis < rank:
            raise low.refuse(f"axis {attrs['axis']} is outside the input's rank {rank}", 0x80070057)
    else:
        data = packed(low, data)
        flat = (int(np.prod(data.shape)),)
        data = View(data.name, flat, packed_strides(flat), data.dtype)
        axis = 0
    length = data.shape[axis]
    if condition.size > length:
        raise low.refuse(f"its condition has {condition.size} entries for an axis of {length}", 0x80070057)
    chosen = np.flatnonzero(condition).astype(np.int64)
    shape = list(data.shape)
    shape[axis] = len(chosen)
    if not len(chosen):  # an empty output: a host value, as onnxruntime allocates it
        low.host[node.output[0]] = np.empty(shape, data.dtype)
        return
    indices = low.fresh(f"{node.output[0]}/indices")
    low.host[indices] = chosen
    from dmlsim.onnx.ops_gather import _emit_padded

    _emit_padded(low, "GATHER", node, {"InputTensor": data, "IndicesTensor": low.view(indices)}, tuple(shape),
                 data.dtype, Axis=axis, IndexDimensions=1)


# --- Gelu (tanh) ------------------------------------------------------------------------------------------------
def _scalar(low: Lowering, value: float, like: View) -> View:
    """A constant of ``like``'s type broadcast to its shape (a constant node of a few bytes)."""
    name = low.fresh("const")
    low.host[name] = np.asarray([value], like.dtype)
    return broadcast_view(low, low.view(name), like.shape)


def lower_gelu_tanh(low: Lowering, node: Any) -> None:
    """Gelu's tanh approximation composed of element-wise operators (module docstring)."""
    x = low.view(node.input[0])
    if x.dtype not in (np.dtype(np.float32), np.dtype(np.float16)):
        raise low.refuse(f"{x.dtype} input: DirectML's element-wise math takes FLOAT32 and FLOAT16 here")
    steps = []

    def step(kind: str, a: View, b: View | None = None) -> View:
        out = low.fresh(f"{node.output[0]}/gelu")
        if b is None:
            unary(low, kind, a, out)
        else:
            binary(low, kind, a, b, out)
        steps.append(out)
        return low.views[out]

    cube = step("ELEMENT_WISE_MULTIPLY", step("ELEMENT_WISE_MULTIPLY", x, x), x)
    inner = step("ELEMENT_WISE_ADD", x, step("ELEMENT_WISE_MULTIPLY", cube, _scalar(low, 0.044715, x)))
    scaled = step("ELEMENT_WISE_MULTIPLY", inner, _scalar(low, math.sqrt(2.0 / math.pi), x))
    tanh = step("ACTIVATION_TANH", scaled)
    one_plus = step("ELEMENT_WISE_ADD", tanh, _scalar(low, 1.0, x))
    half_x = step("ELEMENT_WISE_MULTIPLY", x, _scalar(low, 0.5, x))
    binary(low, "ELEMENT_WISE_MULTIPLY", half_x, one_plus, node.output[0])


def _install_gelu() -> None:
    """Gelu keeps its erf lowering (ops_elementwise); the tanh form is routed here."""
    from dmlsim.onnx import lowering as registry

    erf_form = registry.LOWERINGS["Gelu"]

    def lower_gelu(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
        if attrs.get("approximate", "none") == "tanh":
            lower_gelu_tanh(low, node)
        else:
            erf_form(low, node, attrs)

    lower_gelu.__doc__ = erf_form.__doc__
    registry.LOWERINGS["Gelu"] = lower_gelu


_install_gelu()


# --- Loop and Scan, unrolled ------------------------------------------------------------------------------------
MAX_UNROLL = 256  # iterations: each repeats the body's nodes in the one DirectML graph


def _inline(low: Lowering, node: Any, graph: Any, bound: dict[str, str], tag: str) -> list[str]:
    """Lower one copy of ``graph`` (a Loop or Scan body) with its inputs bound to values (``bound``: formal →
    actual name); the names of its outputs, in order."""
    nodes, names = _branch_nodes(low, node, graph, tag)
    for formal, actual in bound.items():
        names[formal] = actual
    for inner in nodes:  # _branch_nodes renamed only what the body defines: bind its formal inputs now
        for index, value in enumerate(inner.input):
            if value in bound:
                inner.input[index] = bound[value]
    outer_node = low.node
    for inner in nodes:
        _lower_more(low, inner)
    low.node = outer_node
    return [names.get(out.name, out.name) for out in graph.output]


def _host_constant(low: Lowering, value: np.ndarray, hint: str) -> str:
    name = low.fresh(hint)
    low.host[name] = np.asarray(value)
    low.constants.add(name)
    low.cpu_values.add(name)
    return name


def _synthesize(low: Lowering, op_type: str, inputs: list[str], hint: str, **attributes: Any) -> str:
    """One ONNX node made by the unrolling (Gather of a step, Unsqueeze, Concat), lowered like any other."""
    from onnx import helper

    out = low.fresh(hint)
    outer_node = low.node
    _lower_more(low, helper.make_node(op_type, inputs, [out], name=out, **attributes))
    low.node = outer_node
    return out


def _stack(low: Lowering, pieces: list[str], axis: int, hint: str) -> str:
    """The per-iteration values stacked along a new ``axis`` (Unsqueeze each, then Concat)."""
    rank = len(low.value_shape(pieces[0])) + 1
    axis = axis + rank if axis < 0 else axis
    if low.opset < 13:  # Unsqueeze's axes were an attribute before opset 13
        grown = [_synthesize(low, "Unsqueeze", [piece], f"{hint}/step", axes=[axis]) for piece in pieces]
    else:
        axes = _host_constant(low, np.asarray([axis], np.int64), f"{hint}/axes")
        grown = [_synthesize(low, "Unsqueeze", [piece, axes], f"{hint}/step") for piece in pieces]
    if len(grown) == 1:
        return _synthesize(low, "Identity", grown, hint)
    return _synthesize(low, "Concat", grown, hint, axis=axis)


@lowers("Loop")
def lower_loop(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """Loop unrolled: onnxruntime's Loop is a CPU kernel that reads its trip count and conditions there, so each
    is a host value or read back from the device (Lowering.read_back); each iteration is a copy of the body. Scan
    outputs are stacked on a new first axis. A Loop without a trip count is refused (it runs until a condition)."""
    body = attrs["body"]
    trip = (int(np.asarray(low.host_value(node.input[0], "trip count M")).reshape(-1)[0])
            if len(node.input) > 0 and node.input[0] else None)
    condition = (bool(np.asarray(low.host_value(node.input[1], "condition")).reshape(-1)[0])
                 if len(node.input) > 1 and node.input[1] else True)
    if trip is None and len(node.input) > 1 and node.input[1]:
        raise low.refuse("a Loop without a trip count runs until a device-side condition: not unrolled")
    if trip is None:
        raise low.refuse("a Loop with neither trip count nor condition never ends", 0x80070057)
    if trip > MAX_UNROLL:
        raise low.refuse(f"{trip} iterations: dmlsim unrolls at most {MAX_UNROLL}")
    carried = [name for name in node.input[2:]]
    formal = [value.name for value in body.input]
    n_carried = len(carried)
    scans: list[list[str]] = [[] for _ in range(len(body.output) - 1 - n_carried)]
    step = 0
    while step < trip and condition:
        bound = {formal[0]: _host_constant(low, np.asarray(step, np.int64), f"{node.name or 'Loop'}/i"),
                 formal[1]: _host_constant(low, np.asarray(condition), f"{node.name or 'Loop'}/cond")}
        bound.update(zip(formal[2:], carried, strict=True))
        outs = _inline(low, node, body, bound, f"{node.name or 'Loop'}#{step}")
        condition = bool(np.asarray(low.host_value(outs[0], "loop condition")).reshape(-1)[0])
        carried = outs[1:1 + n_carried]
        for index, value in enumerate(outs[1 + n_carried:]):
            scans[index].append(value)
        step += 1
    for actual, value in zip(node.output[:n_carried], carried, strict=True):
        if actual:
            _alias(low, value, actual)
    for actual, pieces in zip(node.output[n_carried:], scans, strict=True):
        if not actual:
            continue
        if not pieces:
            raise low.refuse("zero iterations leave its scan outputs without a shape (ONNX infers it from the "
                             "body): not lowered")
        _alias(low, _stack(low, pieces, 0, f"{actual}/stacked"), actual)


@lowers("Scan")
def lower_scan(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """Scan (opset 9 on) unrolled over the scan axis: each step a copy of the body reading the step's slices
    (GATHER of one index, which drops the axis) in each input's direction; scan outputs stacked along their axes in
    their directions. Opset 8's batched form (a batch axis and sequence_lens) is refused."""
    if low.opset < 9:
        raise low.refuse("Scan-8's batched form (sequence_lens, a batch axis) is not lowered")
    body = attrs["body"]
    m = int(attrs["num_scan_inputs"])
    n = len(node.input) - m
    states, inputs = list(node.input[:n]), list(node.input[n:])
    in_axes = list(attrs.get("scan_input_axes", [0] * m))
    in_dirs = list(attrs.get("scan_input_directions", [0] * m))
    k = len(body.output) - n
    out_axes = list(attrs.get("scan_output_axes", [0] * k))
    out_dirs = list(attrs.get("scan_output_directions", [0] * k))
    lengths = set()
    for name, axis in zip(inputs, in_axes, strict=True):
        shape = low.value_shape(name)
        lengths.add(shape[axis + len(shape) if axis < 0 else axis])
    if len(lengths) != 1:
        raise low.refuse(f"its scan inputs have different lengths {sorted(lengths)}", 0x80070057)
    steps = lengths.pop()
    if steps > MAX_UNROLL:
        raise low.refuse(f"{steps} steps: dmlsim unrolls at most {MAX_UNROLL}")
    if steps == 0:
        raise low.refuse("a scan of zero steps leaves its scan outputs without a shape: not lowered")
    formal = [value.name for value in body.input]
    scans: list[list[str]] = [[] for _ in range(k)]
    prefix = node.name or "Scan"
    for t in range(steps):
        bound = dict(zip(formal[:n], states, strict=True))
        for j, (name, axis, direction) in enumerate(zip(inputs, in_axes, in_dirs, strict=True)):
            index = _host_constant(low, np.asarray(steps - 1 - t if direction else t, np.int64), f"{prefix}/t")
            bound[formal[n + j]] = _synthesize(low, "Gather", [name, index], f"{prefix}/slice", axis=axis)
        outs = _inline(low, node, body, bound, f"{prefix}#{t}")
        states = outs[:n]
        for j, value in enumerate(outs[n:]):
            scans[j].append(value)
    for actual, value in zip(node.output[:n], states, strict=True):
        if actual:
            _alias(low, value, actual)
    for j, actual in enumerate(node.output[n:]):
        if actual:
            pieces = scans[j][::-1] if out_dirs[j] else scans[j]
            _alias(low, _stack(low, pieces, out_axes[j], f"{actual}/stacked"), actual)


# --- Einsum -----------------------------------------------------------------------------------------------------
EINSUM_TYPES = (np.dtype(np.float32), np.dtype(np.float16))


def _einsum_terms(low: Lowering, equation: str, ranks: list[int]) -> tuple[list[str], str]:
    """Each operand's letters and the output's, with ``...`` spelled as uppercase letters (right-aligned, as
    numpy broadcasts them); the implicit output is the ellipsis then the letters used once, sorted."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise low.refuse(f"equation {equation!r} names {len(terms)} operands for {len(ranks)} inputs", 0x80070057)
    ellipsis_rank = 0
    for term, rank in zip(terms, ranks, strict=True):
        if "..." in term:
            ellipsis_rank = max(ellipsis_rank, rank - len(term.replace("...", "")))
    broadcast = "ABCDEFGH"[:ellipsis_rank]
    spelled = []
    for term, rank in zip(terms, ranks, strict=True):
        explicit = term.replace("...", "")
        if "..." in term:
            own = rank - len(explicit)
            term = term.replace("...", broadcast[ellipsis_rank - own:])
        if len(term) != rank or (term and not term.isalpha()):
            raise low.refuse(f"equation term {term!r} does not match an input of rank {rank}", 0x80070057)
        spelled.append(term)
    if arrow:
        output = rhs.replace("...", broadcast)
    else:
        counts: dict[str, int] = {}
        for term in spelled:
            for letter in term:
                counts[letter] = counts.get(letter, 0) + 1
        output = broadcast + "".join(sorted(c for c, n in counts.items() if n == 1 and c.islower()))
    return spelled, output


@lowers("Einsum")
def lower_einsum(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """Einsum as onnxruntime's DirectML provider composes it from element-wise and REDUCE operators: every operand
    read over the full letter space (a letter it lacks is stride 0; a letter it repeats, a diagonal, is the sum of
    its strides), their ELEMENT_WISE_MULTIPLY, then REDUCE SUM over the letters the output lacks; a permutation
    is the output's strides. FLOAT32 and FLOAT16, as the provider registers it (FLOAT64 and integer operands go to
    onnxruntime's CPU provider: refused here). At most 8 distinct letters (DirectML's tensor rank)."""
    views = [low.view(name) for name in node.input if name]
    for view in views:
        if view.dtype not in EINSUM_TYPES:
            raise low.refuse(f"{view.dtype} operands: onnxruntime's DirectML provider registers Einsum for FLOAT32 "
                             "and FLOAT16 only (the CPU provider runs the rest)")
    terms, output = _einsum_terms(low, str(attrs["equation"]), [len(v.shape) for v in views])
    sizes: dict[str, int] = {}
    for term, view in zip(terms, views, strict=True):
        for letter, size in zip(term, view.shape, strict=True):
            if sizes.get(letter, 1) not in (1, size) and size != 1:
                raise low.refuse(f"letter {letter!r} has sizes {sizes[letter]} and {size}", 0x80070057)
            sizes[letter] = max(sizes.get(letter, 1), size)
    contracted = [letter for letter in sizes if letter not in output]
    space = list(output) + contracted
    if len(space) > 8:
        raise low.refuse(f"{len(space)} distinct letters: DirectML tensors have at most 8 dimensions")
    full = tuple(sizes[letter] for letter in space) or (1,)
    operands = []
    for term, view in zip(terms, views, strict=True):
        strides = []
        for letter in space:
            stride = sum(st for c, st, n in zip(term, view.strides, view.shape, strict=True) if c == letter and n > 1)
            strides.append(stride)
        operands.append(View(view.name, full, tuple(strides) if space else (0,), view.dtype, view.offset))
    product = operands[0]
    for other in operands[1:]:
        name = low.fresh(f"{node.output[0]}/product")
        binary(low, "ELEMENT_WISE_MULTIPLY", product, other, name)
        product = low.views[name]
    out_shape = tuple(sizes[letter] for letter in output)
    if contracted:
        axes = list(range(len(output), len(space)))
        temp = low.fresh(node.output[0])
        kept = tuple(full[:len(output)]) + (1,) * len(contracted)
        low.emit(dml.DML_OPERATOR_REDUCE, dml.DML_REDUCE_OPERATOR_DESC, {"InputTensor": product},
                 {"OutputTensor": low.output(temp, kept, product.dtype)}, Function=dml.DML_REDUCE_FUNCTION_SUM,
                 AxisCount=len(axes), Axes=axes)
        made = low.views[temp]
        low.views[node.output[0]] = View(made.name, out_shape, packed_strides(out_shape), made.dtype)
    elif len(operands) == 1:
        unary(low, "ELEMENT_WISE_IDENTITY", product, node.output[0])
        made = low.views[node.output[0]]
        low.views[node.output[0]] = View(made.name, out_shape, packed_strides(out_shape), made.dtype)
    else:
        low.views[node.output[0]] = View(product.name, out_shape, packed_strides(out_shape), product.dtype)


# --- NonZero ----------------------------------------------------------------------------------------------------
@lowers("NonZero")
def lower_nonzero(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """NonZero as NONZERO_COORDINATES (the input padded with leading 1s to at least 2 dimensions; coordinates
    {1, .., M, rank} UINT32 and a UINT32 count), its count read back (the output's shape depends on it, as the
    provider reads it on the CPU), then the first ``count`` rows read transposed, {rank, count}, by CAST to
    INT64. No non-zero element: an empty {rank, 0} output (a host value)."""
    x = low.view(node.input[0])
    rank = len(x.shape)
    if rank == 0:
        raise low.refuse("a scalar input: NONZERO_COORDINATES needs at least one dimension")
    padded_rank = max(2, rank)
    lead = padded_rank - rank
    padded = View(x.name, (1,) * lead + x.shape, (0,) * lead + x.strides, x.dtype, x.offset)
    elements = int(np.prod(x.shape))
    count_name = low.fresh(f"{node.output[0]}/count")
    coords_name = low.fresh(f"{node.output[0]}/coordinates")
    coords_shape = (1,) * (padded_rank - 2) + (elements, rank)
    low.emit(dml.DML_OPERATOR_NONZERO_COORDINATES, dml.DML_NONZERO_COORDINATES_OPERATOR_DESC, {"InputTensor": padded},
             {"OutputCountTensor": low.output(count_name, (1,) * padded_rank, np.uint32),
              "OutputCoordinatesTensor": low.output(coords_name, coords_shape, np.uint32)})
    count = int(np.asarray(low.host_value(count_name, "non-zero count")).reshape(-1)[0])
    if count == 0:
        low.host[node.output[0]] = np.empty((rank, 0), np.int64)
        return
    coords = low.views[coords_name]
    transposed = View(coords.name, (rank, count), (1, rank), coords.dtype)
    unary(low, "CAST", transposed, node.output[0], np.int64)


# --- MaxUnpool --------------------------------------------------------------------------------------------------
@lowers("MaxUnpool")
def lower_max_unpool(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """MaxUnpool as MAX_UNPOOLING (4-D tensors): ONNX's int64 indices, flat over the whole output as MaxPool makes
    them, read as UINT64 (the same bytes for the non-negative indices ONNX allows); the output's shape is ONNX's
    default ``(in − 1) · stride + kernel − pads``; an ``output_shape`` input (read on the host) that differs is
    refused (ONNX re-places the default shape's indices into it; MAX_UNPOOLING indexes the output as given).
    Not composed as MAX_UNPOOLING into the default shape plus zero PADDING1, though that reproduces onnx's case:
    onnxruntime's provider binds output_shape as MAX_UNPOOLING's output, and onnxruntime's CPU kernel unpools into
    the given shape too (onnxruntime PR #2193, onnx issue #2398), which is what a MaxPool of the larger input
    needs (its indices count over that input); the padded form would misplace them."""
    x, indices = low.view(node.input[0]), low.view(node.input[1])
    if len(x.shape) != 4:
        raise low.refuse(f"a {len(x.shape)}-D input: DirectML's MAX_UNPOOLING takes 4-D tensors")
    kernel = list(attrs["kernel_shape"])
    strides = list(attrs.get("strides", [1] * 2))
    pads = list(attrs.get("pads", [0] * 4))
    shape = (*x.shape[:2], *[(n - 1) * s + k - pads[i] - pads[i + 2] for i, (n, s, k) in
                             enumerate(zip(x.shape[2:], strides, kernel, strict=True))])
    if len(node.input) > 2 and node.input[2]:
        given = tuple(int(n) for n in np.asarray(low.host_value(node.input[2], "output_shape")).reshape(-1))
        if given != shape:
            raise low.refuse(f"output_shape {list(given)} differs from the default {list(shape)}: ONNX places the "
                             "default shape's indices into the larger output, DirectML's MAX_UNPOOLING indexes "
                             "the output it is given")
    as_unsigned = View(indices.name, indices.shape, indices.strides, np.dtype(np.uint64), indices.offset)
    low.emit(dml.DML_OPERATOR_MAX_UNPOOLING, dml.DML_MAX_UNPOOLING_OPERATOR_DESC,
             {"InputTensor": x, "IndicesTensor": as_unsigned},
             {"OutputTensor": low.output(node.output[0], shape, x.dtype)})


# --- TensorScatter ----------------------------------------------------------------------------------------------
@lowers("TensorScatter")
def lower_tensor_scatter(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """TensorScatter (opset 24, a KV-cache update) as SCATTER_ELEMENTS along ``axis``: the index of each update
    element is ``write_indices[batch] + position`` (modulo the cache length in circular mode), made on the host
    from the write indices (read on the host, or read back) as index arithmetic: no cache or update value is
    computed there."""
    cache, update = low.view(node.input[0]), low.view(node.input[1])
    rank = len(cache.shape)
    axis = attrs.get("axis", -2)
    axis = axis + rank if axis < 0 else axis
    if not 1 <= axis < rank:
        raise low.refuse(f"axis {attrs.get('axis', -2)} must name a dimension after the batch", 0x80070057)
    batch, length, steps = cache.shape[0], cache.shape[axis], update.shape[axis]
    writes = (np.asarray(low.host_value(node.input[2], "write_indices")).reshape(-1).astype(np.int64)
              if len(node.input) > 2 and node.input[2] else np.zeros(batch, np.int64))
    shape = [1] * rank
    shape[0] = batch
    position = [1] * rank
    position[axis] = steps
    index = writes.reshape(shape) + np.arange(steps, dtype=np.int64).reshape(position)
    if attrs.get("mode", "linear") == "circular":
        index = index % length
    elif index.size and int(index.max()) >= length:
        raise low.refuse(f"write index {int(index.max())} past the cache length {length} in linear mode",
                         0x80070057)
    name = low.fresh(f"{node.output[0]}/indices")
    low.host[name] = np.ascontiguousarray(np.broadcast_to(index, update.shape))
    from dmlsim.onnx.ops_gather import _emit_padded

    _emit_padded(low, "SCATTER_ELEMENTS", node, {"InputTensor": cache, "IndicesTensor": low.view(name),
                                                 "UpdatesTensor": update}, cache.shape, cache.dtype, Axis=axis)


# --- MatMulInteger ----------------------------------------------------------------------------------------------
@lowers("MatMulInteger")
def lower_matmul_integer(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """MatMulInteger as MATRIX_MULTIPLY_INTEGER, shaped as MatMul's GEMM (4-D, batch broadcast as stride 0, at
    most two batch dimensions); a zero point of one value or one per row of A ({1, 1, M, 1}) / per column of B
    ({1, 1, 1, N}); ONNX's per-batch zero points are refused (not in DirectML's tables)."""
    from dmlsim.onnx.lowering import broadcast_shape
    from dmlsim.onnx.ops_tensor import rename

    a, b = low.view(node.input[0]), low.view(node.input[1])
    if len(a.shape) < 2 or len(b.shape) < 2:
        raise low.refuse("1-D operands: not lowered for MatMulInteger")
    m, k = a.shape[-2:]
    n = b.shape[-1]
    if b.shape[-2] != k:
        raise low.refuse(f"inner dimensions differ: {list(a.shape)} · {list(b.shape)}", 0x80070057)
    batch = broadcast_shape(low, [a.shape[:-2], b.shape[:-2]])
    if len(batch) > 2:
        raise low.refuse(f"{len(batch)} batch dimensions: DirectML's MATRIX_MULTIPLY_INTEGER takes 4-D tensors")
    lead = (1,) * (2 - len(batch)) + tuple(batch)
    fields: dict[str, View] = {"ATensor": broadcast_view(low, a, (*lead, m, k)),
                               "BTensor": broadcast_view(low, b, (*lead, k, n))}
    for index, field, count, per in ((2, "AZeroPointTensor", m, 2), (3, "BZeroPointTensor", n, 3)):
        if len(node.input) <= index or not node.input[index]:
            continue
        zero = low.view(node.input[index])
        size = int(np.prod(zero.shape))
        if size not in (1, count) or (size > 1 and len(zero.shape) != 1):
            raise low.refuse(f"a zero point of shape {list(zero.shape)}: DirectML's tables hold one value or one "
                             f"per {'row of A' if per == 2 else 'column of B'} ({count})")
        shape = [1, 1, 1, 1]
        shape[per] = size
        strides = [0, 0, 0, 0]
        strides[per] = zero.strides[-1] if zero.shape else 1
        fields[field] = View(zero.name, tuple(shape), tuple(strides), zero.dtype, zero.offset)
    temp = low.fresh(node.output[0])
    low.emit(dml.DML_OPERATOR_MATRIX_MULTIPLY_INTEGER, dml.DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC, fields,
             {"OutputTensor": low.output(temp, (*lead, m, n), np.int32)})
    rename(low, low.views[temp], node.output[0], (*batch, m, n))


# --- BitShift of signed integers ----------------------------------------------------------------------------------
def lower_signed_bit_shift(low: Lowering, node: Any, left: bool) -> None:
    """BitShift of signed integers (ONNX's newer types; DirectML's BIT_SHIFT_* take unsigned ones) composed of
    DirectML operators over the same bytes read as the unsigned type of that width: ONNX's left shift is the
    unsigned one; its right shift is arithmetic, ``((x ^ m) >> s) ^ m`` with ``m`` all ones for negative ``x``
    (``m = 0 − (x < 0)``); a shift outside ``[0, width)`` (negative shifts read unsigned are huge) gives 0, or −1
    for a negative ``x`` shifted right, as ONNX says: the result is multiplied by ``s < width`` (DirectML's shift
    takes the amount modulo the width)."""
    x, s = low.view(node.input[0]), low.view(node.input[1])
    from dmlsim.onnx.lowering import broadcast_shape

    shape = broadcast_shape(low, [x.shape, s.shape])
    unsigned = np.dtype(x.dtype.str.replace("i", "u"))
    xu = broadcast_view(low, View(x.name, x.shape, x.strides, unsigned, x.offset), shape)
    su = broadcast_view(low, View(s.name, s.shape, s.strides, unsigned, s.offset), shape)
    width = 8 * unsigned.itemsize

    def step(kind: str, a: View, b: View | None = None, dtype: Any = None) -> View:
        out = low.fresh(f"{node.output[0]}/shift")
        if b is None:
            unary(low, kind, a, out, dtype)
        else:
            binary(low, kind, a, b, out, dtype)
        return low.views[out]

    def const(value: int, dtype: Any) -> View:
        name = low.fresh("const")
        low.host[name] = np.asarray([value], dtype)
        return broadcast_view(low, low.view(name), shape)

    in_range = step("CAST", step("ELEMENT_WISE_LOGICAL_LESS_THAN", su, const(width, unsigned), np.uint8),
                    dtype=unsigned)
    if left:
        shifted = step("ELEMENT_WISE_BIT_SHIFT_LEFT", xu, su)
        result = step("ELEMENT_WISE_MULTIPLY", shifted, in_range)
    else:
        negative = step("CAST", step("ELEMENT_WISE_LOGICAL_LESS_THAN", broadcast_view(low, x, shape),
                                     const(0, x.dtype), np.uint8), dtype=unsigned)
        mask = step("ELEMENT_WISE_SUBTRACT", const(0, unsigned), negative)
        shifted = step("ELEMENT_WISE_BIT_SHIFT_RIGHT", step("ELEMENT_WISE_BIT_XOR", xu, mask), su)
        result = step("ELEMENT_WISE_BIT_XOR", step("ELEMENT_WISE_MULTIPLY", shifted, in_range), mask)
    low.views[node.output[0]] = View(result.name, result.shape, result.strides, x.dtype, result.offset)


def _install_bit_shift() -> None:
    """BitShift keeps its unsigned lowering (ops_elementwise); signed integers are routed here."""
    from dmlsim.onnx import lowering as registry

    unsigned_form = registry.LOWERINGS["BitShift"]

    def lower_bit_shift(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
        if low.value_dtype(node.input[0]).kind == "i":
            lower_signed_bit_shift(low, node, attrs.get("direction") == "LEFT")
        else:
            unsigned_form(low, node, attrs)

    registry.LOWERINGS["BitShift"] = lower_bit_shift


_install_bit_shift()


# --- GridSample -------------------------------------------------------------------------------------------------
def grid_reflect(step: Any, const: Any, position: View, lo: float, hi: float) -> View:
    """ONNX's GridSample reflection of ``position`` into [lo, hi] by the near border, as one fold:
    lo + min(m, 2·range − m) with m = |position − lo| mod 2·range (the identity inside the range)."""
    if hi == lo:
        return const(lo)
    m = step("ELEMENT_WISE_MODULUS_TRUNCATE", step("ELEMENT_WISE_ABS", step("ELEMENT_WISE_ADD", position, const(-lo))),
             const(2 * (hi - lo)))
    folded = step("ELEMENT_WISE_MIN", m, step("ELEMENT_WISE_SUBTRACT", const(2 * (hi - lo)), m))
    return step("ELEMENT_WISE_ADD", folded, const(lo))


def grid_border(low: Lowering, step: Any, position: View, size: int, align: bool) -> View:
    """GridSample's border padding as ONNX defines it: a position outside the border range ([0, size − 1] with
    align_corners, [−0.5, size − 0.5] without) is clamped to [0, size − 1], one inside it is kept (so −0.3 stays
    −0.3 without align_corners, which cubic's taps see: CLIP, two comparisons, LOGICAL_AND, ELEMENT_WISE_IF)."""
    clamped = step("ELEMENT_WISE_CLIP", position, Min=0.0, Max=float(size - 1))
    if align:
        return clamped  # the border range is the clamp's range
    below = step("ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL", position, _scalar(low, -0.5, position), np.uint8)
    above = step("ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL", position, _scalar(low, size - 0.5, position), np.uint8)
    inside = step("ELEMENT_WISE_LOGICAL_AND", below, above, np.uint8)
    out = low.fresh("border")
    low.emit(dml.DML_OPERATOR_ELEMENT_WISE_IF, dml.DML_ELEMENT_WISE_IF_OPERATOR_DESC,
             {"ConditionTensor": inside, "ATensor": position, "BTensor": clamped},
             {"OutputTensor": low.output(out, position.shape, position.dtype)})
    return low.views[out]


# GridSample's corner makers composed elsewhere, by mode (dmlsim/onnx/ops_onnxa.py registers cubic):
# (step, const, coordinates, spatial, padding, align_corners) -> [(per-axis tap positions, weight or None)]
GRID_CORNERS: dict[str, Any] = {}


@lowers("GridSample")
def lower_grid_sample(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """GridSample (2-D and volumetric; nearest, linear and cubic; zeros, border and reflection padding) composed
    of DirectML operators: each grid component (a GATHER of the last axis) unnormalized by ONNX's align_corners
    rule (multiply, add), clamped for border padding (CLIP where outside ONNX's border range, ELEMENT_WISE_IF),
    reflected for reflection padding (ABS, MODULUS_TRUNCATE, MIN: ONNX's reflection by the near border, as one
    fold); nearest rounds half to even (ROUND), linear takes the 2^D corners (FLOOR) with their weights; each
    corner's flat index (float, exact below 2^24 elements) is CAST to INT64 and GATHER_ELEMENTS reads the input
    viewed {N, C, elements}; with zeros padding a corner outside the input is weighted 0 (comparisons multiplied
    in), else its index is clamped; the weighted corners are added. Cubic takes the 4^D taps around FLOOR with
    Keys' cubic-convolution weights (registered in :data:`GRID_CORNERS` by dmlsim/onnx/ops_onnxa.py; reflection
    padding reflects each tap). onnxruntime's provider runs GridSample as its own shader, not a DirectML
    operator; this composition is dmlsim's."""
    x, grid = low.view(node.input[0]), low.view(node.input[1])
    mode = str(attrs.get("mode", "linear"))
    padding = str(attrs.get("padding_mode", "zeros"))
    align = bool(attrs.get("align_corners", 0))
    if x.dtype not in EINSUM_TYPES:
        raise low.refuse(f"{x.dtype} input: composed for FLOAT32 and FLOAT16 only")
    if mode not in ("nearest", "linear", "bilinear") and mode not in GRID_CORNERS:
        raise low.refuse(f"mode {mode!r}: not composed")
    spatial = x.shape[2:]
    dims = len(spatial)
    n, c = x.shape[:2]
    out_spatial = grid.shape[1:-1]
    q = int(np.prod(out_spatial))
    p = int(np.prod(spatial))
    gshape = (n, q)
    prefix = f"{node.output[0]}/grid"

    def step(kind: str, a: View, b: View | None = None, dtype: Any = None, **attributes: Any) -> View:
        out = low.fresh(prefix)
        if b is None:
            unary(low, kind, a, out, dtype, **attributes)
        else:
            binary(low, kind, a, b, out, dtype)
        return low.views[out]

    def const(value: float) -> View:
        name = low.fresh("const")
        low.host[name] = np.asarray([value], x.dtype)
        return broadcast_view(low, low.view(name), gshape)

    coordinates = []
    for j in range(dims):  # X's spatial axis j is the grid's component dims - 1 - j
        index = _host_constant(low, np.asarray(dims - 1 - j, np.int64), f"{prefix}/component")
        component = low.views[_synthesize(low, "Gather", [node.input[1], index], prefix, axis=-1)]
        component = View(component.name, gshape, packed_strides(gshape), component.dtype)
        size = spatial[j]
        scale, bias = ((size - 1) / 2, (size - 1) / 2) if align else (size / 2, (size - 1) / 2)
        position = step("ELEMENT_WISE_ADD", step("ELEMENT_WISE_MULTIPLY", component, const(scale)), const(bias))
        if padding == "border":
            position = grid_border(low, step, position, size, align)
        elif padding == "reflection":  # ONNX's reflection into [lo, hi]: lo + min(m, 2·range − m), m = |x − lo| mod
            lo, hi = (0.0, size - 1.0) if align else (-0.5, size - 0.5)  # 2·range (identity inside the range)
            position = grid_reflect(step, const, position, lo, hi)
        coordinates.append(position)
    strides = [int(np.prod(spatial[j + 1:])) for j in range(dims)]
    corners: list[tuple[list[View], View | None]] = []
    if mode == "nearest":
        rounded = [step("ELEMENT_WISE_ROUND", pos, RoundingMode=dml.DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN)
                   for pos in coordinates]
        corners.append((rounded, None))
    elif mode in GRID_CORNERS:
        corners = GRID_CORNERS[mode](step, const, coordinates, spatial, padding, align)
    else:
        floors = [step("ELEMENT_WISE_FLOOR", pos) for pos in coordinates]
        upper = [step("ELEMENT_WISE_SUBTRACT", pos, f) for pos, f in zip(coordinates, floors, strict=True)]
        lower = [step("ELEMENT_WISE_SUBTRACT", const(1.0), u) for u in upper]
        for bits in range(2 ** dims):
            picks, weight = [], None
            for j in range(dims):
                high = bool(bits >> j & 1)
                picks.append(step("ELEMENT_WISE_ADD", floors[j], const(1.0)) if high else floors[j])
                w = upper[j] if high else lower[j]
                weight = w if weight is None else step("ELEMENT_WISE_MULTIPLY", weight, w)
            corners.append((picks, weight))
    flat_x = packed(low, x)
    flat_x = View(flat_x.name, (n, c, p), packed_strides((n, c, p)), x.dtype)
    total = None
    for picks, weight in corners:
        flat = None
        for j, pick in enumerate(picks):
            if padding == "zeros":
                inside = step("CAST", step("ELEMENT_WISE_LOGICAL_AND",
                                           step("ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL", pick, const(0.0),
                                                np.uint8),
                                           step("ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL", pick,
                                                const(float(spatial[j] - 1)), np.uint8), np.uint8), dtype=x.dtype)
                weight = inside if weight is None else step("ELEMENT_WISE_MULTIPLY", weight, inside)
            clamped = step("ELEMENT_WISE_CLIP", pick, Min=0.0, Max=float(spatial[j] - 1))
            term = step("ELEMENT_WISE_MULTIPLY", clamped, const(float(strides[j]))) if strides[j] != 1 else clamped
            flat = term if flat is None else step("ELEMENT_WISE_ADD", flat, term)
        assert flat is not None
        flat_f32 = step("CAST", flat, dtype=np.float32) if x.dtype != np.float32 else flat
        indices = step("CAST", flat_f32, dtype=np.int64)
        spread = View(indices.name, (n, c, q), (indices.strides[0], 0, indices.strides[1]), np.dtype(np.int64))
        gathered = low.fresh(prefix)
        low.emit(dml.DML_OPERATOR_GATHER_ELEMENTS, dml.DML_GATHER_ELEMENTS_OPERATOR_DESC,
                 {"InputTensor": flat_x, "IndicesTensor": spread},
                 {"OutputTensor": low.output(gathered, (n, c, q), x.dtype)}, Axis=2)
        value = low.views[gathered]
        if weight is not None:
            spread_weight = View(weight.name, (n, c, q), (weight.strides[0], 0, weight.strides[1]), weight.dtype)
            value = step("ELEMENT_WISE_MULTIPLY", value, spread_weight)
        total = value if total is None else step("ELEMENT_WISE_ADD", total, value)
    assert total is not None
    low.views[node.output[0]] = View(total.name, (n, c, *out_spatial), packed_strides((n, c, *out_spatial)),
                                     x.dtype)


# --- DFT --------------------------------------------------------------------------------------------------------
def _dft_matrix(n_in: int, ci: int, inverse: bool, onesided: bool) -> tuple[np.ndarray, int, int]:
    """The real block matrix of a DFT along one axis: rows (sample, input component), columns (bin, output
    component); its entries depend on the lengths only (host constants). Returns it, the output length and the
    output components."""
    if inverse and onesided:  # a half spectrum of K bins to n = 2 (K − 1) real samples (Hermitian symmetry)
        n = 2 * (n_in - 1)
        k = np.arange(n_in).reshape(-1, 1)
        t = np.arange(n).reshape(1, -1)
        weight = np.where((k == 0) | (2 * k == n), 1.0, 2.0) / n
        theta = 2 * np.pi * k * t / n
        re, im = weight * np.cos(theta), weight * np.sin(theta)  # y[t] = Σ_k w (Xre cos − Xim sin)
        block = np.zeros((n_in, ci, n, 1))
        block[:, 0, :, 0] = re
        if ci == 2:
            block[:, 1, :, 0] = -im
        return block.reshape(n_in * ci, n), n, 1
    bins = n_in // 2 + 1 if onesided else n_in
    sign = 1.0 if inverse else -1.0
    t = np.arange(n_in).reshape(-1, 1)
    k = np.arange(bins).reshape(1, -1)
    theta = sign * 2 * np.pi * t * k / n_in
    scale = 1.0 / n_in if inverse else 1.0
    fr, fi = scale * np.cos(theta), scale * np.sin(theta)
    block = np.zeros((n_in, ci, bins, 2))
    block[:, 0, :, 0], block[:, 0, :, 1] = fr, fi  # real input: re → (fr, fi)
    if ci == 2:
        block[:, 1, :, 0], block[:, 1, :, 1] = -fi, fr  # imaginary input: im → (−fi, fr)
    return block.reshape(n_in * ci, bins * 2), bins, 2


@lowers("DFT")
def lower_dft(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """DFT as one GEMM with a host-made real block matrix (cos/sin of the bin angles: constants of the lengths,
    like a weight), as a matrix product does it on DirectML: the signal axis and the component axis moved last and
    packed (IDENTITY of the transposed view), GEMM by the matrix, the result's axes moved back (IDENTITY). Forward,
    inverse (scaled 1/n), onesided forward (n/2 + 1 bins) and onesided inverse (Hermitian half spectrum to 2(K − 1)
    real samples). ``axis`` is an attribute (opset 17–19) or an input read on the host (20); a ``dft_length`` other
    than the axis length is refused. FLOAT32 and FLOAT16 (GEMM's types). A matrix product rounds differently from
    an FFT: onnx's two complex-inverse cases (test_dft_inverse, _opset19) expect 1.9073487e-07 for the imaginary parts
    of row t = 5, numpy's complex64 FFT rounding of an exact 0 (complex128: -7e-16); this lowering gives 5.5e-15 on
    every device, closer to the exact value, and onnx's atol 1e-7 fails it: listed as mismatches, not refused
    (no DirectML rule differs from ONNX's; the expected value is off by more than its own tolerance)."""
    from dmlsim.onnx.ops_math import _gemm

    x = low.view(node.input[0])
    if x.dtype not in EINSUM_TYPES:
        raise low.refuse(f"{x.dtype} input: GEMM takes FLOAT32 and FLOAT16")
    rank = len(x.shape)
    if low.opset >= 20 and len(node.input) > 2 and node.input[2]:
        axis = int(np.asarray(low.host_value(node.input[2], "axis")).reshape(-1)[0])
    else:
        axis = int(attrs.get("axis", 1 if low.opset < 20 else -2))
    axis = axis + rank if axis < 0 else axis
    if not 0 < axis < rank - 1:
        raise low.refuse(f"axis {axis} must be a signal axis (not the batch or component axis)", 0x80070057)
    n_in, ci = x.shape[axis], x.shape[-1]
    if ci not in (1, 2):
        raise low.refuse(f"a last dimension of {ci}: DFT takes real (1) or complex (2) values", 0x80070057)
    if len(node.input) > 1 and node.input[1]:
        length = int(np.asarray(low.host_value(node.input[1], "dft_length")).reshape(-1)[0])
        if length != n_in:
            raise low.refuse(f"dft_length {length} differs from the axis length {n_in}: padding or truncating "
                             "the signal is not lowered")
    inverse, onesided = bool(attrs.get("inverse", 0)), bool(attrs.get("onesided", 0))
    matrix, n_out, co = _dft_matrix(n_in, ci, inverse, onesided)
    order = [a for a in range(rank - 1) if a != axis] + [axis, rank - 1]
    moved = View(x.name, tuple(x.shape[a] for a in order), tuple(x.strides[a] for a in order), x.dtype, x.offset)
    copy = low.fresh(f"{node.output[0]}/signal")
    unary(low, "ELEMENT_WISE_IDENTITY", moved, copy)
    rows = int(np.prod(moved.shape[:-2]))
    flat = View(low.views[copy].name, (1, 1, rows, n_in * ci), packed_strides((1, 1, rows, n_in * ci)), x.dtype)
    weights = low.fresh(f"{node.output[0]}/dft_matrix")
    low.host[weights] = matrix.astype(x.dtype).reshape(1, 1, *matrix.shape)
    product = low.fresh(f"{node.output[0]}/spectrum")
    _gemm(low, flat, low.view(weights), None, product, (1, 1, rows, matrix.shape[1]))
    rest = moved.shape[:-2]
    made = low.views[product]
    packed_shape = (*rest, n_out, co)
    result = View(made.name, packed_shape, packed_strides(packed_shape), x.dtype)
    back = [0] * rank  # output axis a reads packed axis back[a]
    for packed_axis, original in enumerate(order):
        back[original] = packed_axis
    out_shape = tuple(packed_shape[back[a]] for a in range(rank))
    view_back = View(result.name, out_shape, tuple(result.strides[back[a]] for a in range(rank)), x.dtype)
    unary(low, "ELEMENT_WISE_IDENTITY", view_back, node.output[0])


# --- STFT -------------------------------------------------------------------------------------------------------
@lowers("STFT")
def lower_stft(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """STFT as the nodes it is made of: GATHER of the frames (indices ``frame · step + offset`` made on the host
    from the host-read frame_step and frame_length), a multiply by the window (its length read as [length, 1]),
    then a DFT along the frame axis (onesided by default), each lowered like any node."""
    x = low.view(node.input[0])
    step = int(np.asarray(low.host_value(node.input[1], "frame_step")).reshape(-1)[0])
    window = node.input[2] if len(node.input) > 2 and node.input[2] else ""
    if len(node.input) > 3 and node.input[3]:
        length = int(np.asarray(low.host_value(node.input[3], "frame_length")).reshape(-1)[0])
    elif window:
        length = low.value_shape(window)[0]
    else:
        raise low.refuse("neither a window nor a frame_length gives the frame length", 0x80070057)
    signal = x.shape[1]
    frames = (signal - length) // step + 1
    if frames < 1 or step < 1:
        raise low.refuse(f"{frames} frames of {length} every {step} in a signal of {signal}", 0x80070057)
    index = (np.arange(frames).reshape(-1, 1) * step + np.arange(length).reshape(1, -1)).astype(np.int64)
    prefix = node.name or "STFT"
    cut = _synthesize(low, "Gather", [node.input[0], _host_constant(low, index, f"{prefix}/frames")],
                      f"{prefix}/framed", axis=1)
    if window:
        shape = _host_constant(low, np.asarray([length, 1], np.int64), f"{prefix}/window_shape")
        column = _synthesize(low, "Reshape", [window, shape], f"{prefix}/window")
        cut = _synthesize(low, "Mul", [cut, column], f"{prefix}/windowed")
    onesided = int(attrs.get("onesided", 1))
    if low.opset >= 20:
        axis = _host_constant(low, np.asarray(2, np.int64), f"{prefix}/axis")
        spectrum = _synthesize(low, "DFT", [cut, "", axis], f"{prefix}/spectrum", onesided=onesided)
    else:
        spectrum = _synthesize(low, "DFT", [cut], f"{prefix}/spectrum", axis=2, onesided=onesided)
    _alias(low, spectrum, node.output[0])


# --- Resize: cubic and antialiased, as separable matrix products ------------------------------------------------
def _along_axis(low: Lowering, source: View, axis: int, matrix: np.ndarray, out: str) -> None:
    """``out`` = ``source`` multiplied along ``axis`` by ``matrix`` [in, out]: the axis moved last and packed
    (IDENTITY of the transposed view), one GEMM, the axis moved back (IDENTITY)."""
    from dmlsim.onnx.ops_math import _gemm

    rank = len(source.shape)
    order = [a for a in range(rank) if a != axis] + [axis]
    moved = View(source.name, tuple(source.shape[a] for a in order), tuple(source.strides[a] for a in order),
                 source.dtype, source.offset)
    copy = low.fresh(f"{out}/moved")
    unary(low, "ELEMENT_WISE_IDENTITY", moved, copy)
    rows = int(np.prod(moved.shape[:-1]))
    n_in, n_out = matrix.shape
    flat = View(low.views[copy].name, (1, 1, rows, n_in), packed_strides((1, 1, rows, n_in)), source.dtype)
    weights = low.fresh(f"{out}/matrix")
    low.host[weights] = matrix.astype(source.dtype).reshape(1, 1, n_in, n_out)
    product = low.fresh(f"{out}/product")
    _gemm(low, flat, low.view(weights), None, product, (1, 1, rows, n_out))
    packed_shape = (*moved.shape[:-1], n_out)
    made = low.views[product]
    back = [0] * rank
    for packed_axis, original in enumerate(order):
        back[original] = packed_axis
    strides = packed_strides(packed_shape)
    view_back = View(made.name, tuple(packed_shape[back[a]] for a in range(rank)),
                     tuple(strides[back[a]] for a in range(rank)), source.dtype)
    unary(low, "ELEMENT_WISE_IDENTITY", view_back, out)


def _resize_matrix(attrs: dict[str, Any], n_in: int, scale: float | None, size: int | None,
                   roi: tuple[float, float] | None, opset: int) -> np.ndarray:
    """The [in, out] interpolation matrix of one axis: ONNX's own Resize (onnx.reference) of the identity basis,
    a function of the sizes and attributes only (no tensor value)."""
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    keep = {k: v for k, v in attrs.items() if k in ("mode", "coordinate_transformation_mode", "cubic_coeff_a",
                                                     "exclude_outside", "nearest_mode", "antialias")}
    inputs = ["x", "roi" if roi is not None else "", "scales" if size is None else "", "sizes" if size else ""]
    node = helper.make_node("Resize", [i for i in inputs] if size else inputs[:3], ["y"], axes=[1], **keep)
    feeds: dict[str, np.ndarray] = {"x": np.eye(n_in, dtype=np.float32)}
    if roi is not None:
        feeds["roi"] = np.asarray(roi, np.float32)
    if size is None:
        feeds["scales"] = np.asarray([scale], np.float32)
    else:
        feeds["sizes"] = np.asarray([size], np.int64)
    graph = helper.make_graph([node], "basis", [helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(
        v.dtype), list(v.shape)) for k, v in feeds.items()], [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                                                              None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", max(opset, 18))])
    (matrix,) = ReferenceEvaluator(model).run(None, feeds)
    return np.asarray(matrix, np.float64)


def lower_resize_by_matrices(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """Resize with cubic interpolation or antialiasing (RESAMPLE has neither): separable, so one GEMM per resized
    axis by that axis's interpolation matrix (ONNX's Resize of the identity basis, host constants of the sizes).
    Sizes with a keep_aspect_ratio_policy other than stretch and tf_crop_and_resize's extrapolation are refused."""
    x = low.view(node.input[0])
    if x.dtype not in EINSUM_TYPES:
        raise low.refuse(f"{x.dtype} input: GEMM takes FLOAT32 and FLOAT16")
    rank = len(x.shape)

    def optional(index: int, what: str) -> np.ndarray | None:
        if len(node.input) > index and node.input[index]:
            value = np.asarray(low.host_value(node.input[index], what)).reshape(-1)
            return value if value.size else None
        return None

    roi, scales, sizes = optional(1, "roi"), optional(2, "scales"), optional(3, "sizes")
    axes = [a + rank if a < 0 else a for a in attrs.get("axes", range(rank))]
    if sizes is not None and attrs.get("keep_aspect_ratio_policy", "stretch") != "stretch":
        raise low.refuse("keep_aspect_ratio_policy with cubic or antialiased resizing: not composed")
    if attrs.get("coordinate_transformation_mode") == "tf_crop_and_resize" and \
            float(attrs.get("extrapolation_value", 0.0)) != 0.0:
        raise low.refuse("a non-zero extrapolation_value: not composed")
    current = x
    for i, axis in enumerate(axes):
        n_in = current.shape[axis]
        scale = float(scales[i]) if scales is not None else None
        size = int(sizes[i]) if sizes is not None else None
        if roi is None and ((size is None and scale == 1.0) or size == n_in):
            continue
        axis_roi = (float(roi[i]), float(roi[i + len(axes)])) if roi is not None else None
        matrix = _resize_matrix(attrs, n_in, scale, size, axis_roi, low.opset)
        out = low.fresh(f"{node.output[0]}/axis{axis}")
        _along_axis(low, current, axis, matrix, out)
        current = low.views[out]
    if current is x:
        unary(low, "ELEMENT_WISE_IDENTITY", x, node.output[0])
    else:
        low.views[node.output[0]] = current


def _install_resize() -> None:
    """Resize keeps its RESAMPLE2/RESAMPLE3 lowering (ops_resize, antialiased linear resizing included); cubic
    resizing, which no RESAMPLE has, is routed here."""
    from dmlsim.onnx import lowering as registry

    resample = registry.LOWERINGS["Resize"]

    def lower_resize(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
        if str(attrs.get("mode", "nearest")).lower() == "cubic":
            lower_resize_by_matrices(low, node, attrs)
        else:
            resample(low, node, attrs)

    registry.LOWERINGS["Resize"] = lower_resize


_install_resize()
