"""Empty tensors (a size-0 dimension): produced on the host by shape arithmetic, as onnxruntime does.

DirectML tensors have no size-0 dimension, so onnxruntime's DirectML provider never dispatches a node with an empty
input: onnxruntime allocates the empty output itself, and a reduction over an empty set of elements gives the
reduction's identity (ReduceSum 0, ReduceProd 1, ReduceMax -inf or false, ReduceMin +inf, ReduceLogSum -inf, ...)
without touching the device. dmlsim does the same:

- An empty value is a host value (``Lowering.host``) with no device view; graph inputs with a 0 in their shape
  already are.
- A node with an empty input is evaluated on the host by ``onnx.reference`` (ONNX's own definition, so the shapes
  and identity values are ONNX's), fed the host values it has and, for each value that lives only on the device,
  zeros of its shape: the result may not depend on them. Therefore: every output empty (shape arithmetic only), or
  every non-empty input a host-known integer tensor (axes, shapes, splits: an empty-set reduction's identity, no
  data read). Anything else (say Where of an empty condition broadcast against device data into a non-empty
  result) is refused with the reason, since it would compute on device data on the host.
- CastLike's second input gives only its type, and an input the provider reads on the CPU (ReduceSum's axes,
  Pad's pads: :data:`CPU_INPUTS`) is a parameter: neither is an empty input when empty.
- Concat drops its empty pieces (the provider's JOIN skips them); a Concat of empty pieces only is empty.
- Split and Slice make an empty output a host value and dispatch only the non-empty ones (in :mod:`ops_tensor`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dmlsim.onnx.lowering import Lowering

# inputs the DirectML provider's kernels read on the CPU (its kernel registrations): a Shape-derived value there is
# read, not computed, so the node itself stays on the device
CPU_INPUTS: dict[str, set[int]] = {
    "Reshape": {1}, "Expand": {1}, "Slice": {1, 2, 3, 4}, "Tile": {1}, "Pad": {1, 2, 3}, "Range": {0, 1, 2},
    "ConstantOfShape": {0}, "Squeeze": {1}, "Unsqueeze": {1}, "Split": {1}, "TopK": {1}, "Clip": {1, 2},
    "OneHot": {1}, "Resize": {1, 2, 3}, "Upsample": {1}, "Dropout": {1, 2}, "ReduceSum": {1}, "ReduceMean": {1},
    "ReduceMax": {1}, "ReduceMin": {1}, "ReduceProd": {1}, "ReduceL1": {1}, "ReduceL2": {1}, "ReduceLogSum": {1},
    "ReduceLogSumExp": {1}, "ReduceSumSquare": {1}, "CumSum": {1}, "CumProd": {1},
}


def is_empty(low: Lowering, name: str) -> bool:
    """Whether ``name`` is an empty value (on the host, no device view)."""
    return bool(name) and name not in low.views and name in low.host and np.asarray(low.host[name]).size == 0


def lower_empty(low: Lowering, node: Any, attrs: dict[str, Any],
                fold: Callable[[Any, list[np.ndarray | None], int], list[np.ndarray]],
                lower_rest: Callable[[Any], None]) -> bool:
    """Handle ``node`` if one of its inputs is empty (True), else leave it to the caller (False).

    ``fold(node, inputs, opset)`` evaluates a node with onnx.reference; ``lower_rest(node)`` lowers a rewritten
    node (Concat without its empty pieces)."""
    typed_only = node.input[1:2] if node.op_type == "CastLike" else []  # gives its type, not its data
    read_on_cpu = CPU_INPUTS.get(node.op_type, set())  # an empty axes or pads list is a parameter, not data
    empties = [name for index, name in enumerate(node.input)
               if is_empty(low, name) and name not in typed_only and index not in read_on_cpu]
    if not empties:
        return False
    if node.op_type == "Concat":
        kept = [name for name in node.input if name and not is_empty(low, name)]
        if kept:
            from onnx import NodeProto

            clone = NodeProto()
            clone.CopyFrom(node)
            del clone.input[:]
            clone.input.extend(kept)
            lower_rest(clone)
            return True
    inputs: list[np.ndarray | None] = []
    placeholders = []
    for name in node.input:
        if not name:
            inputs.append(None)
        elif name in low.host:
            inputs.append(np.asarray(low.host[name]))
        else:
            view = low.views[name]
            inputs.append(np.zeros(view.shape, view.dtype))
            placeholders.append(name)
    try:
        values = fold(node, inputs, low.opset)
    except Exception as error:  # onnx.reference refusing the node: say which, never a traceback
        raise low.refuse(f"an empty input ({empties[0]!r}): evaluating its shapes on the host failed "
                         f"({type(error).__name__}: {str(error).splitlines()[0][:120]})") from None
    if any(np.asarray(v).size for v in values):
        data = [name for name, value in zip(node.input, inputs, strict=True)
                if name and value is not None and value.size and (name in placeholders or value.dtype.kind not in "iu")]
        if data:
            raise low.refuse(f"an empty input ({empties[0]!r}) but a non-empty output that reads {data[0]!r}: "
                             "DirectML tensors have no size-0 dimension, and the host computes no device data")
    for name, value in zip(node.output, values, strict=False):
        if name:
            low.host[name] = np.asarray(value)
    return True
