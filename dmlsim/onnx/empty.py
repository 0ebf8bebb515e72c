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
- CastLike's second input gives only its type: an empty one is no empty input.
- Concat drops its empty pieces (the provider's JOIN skips them); a Concat of empty pieces only is empty.
- Split and Slice make an empty output a host value and dispatch only the non-empty ones (in :mod:`ops_tensor`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dmlsim.onnx.lowering import Lowering


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
    empties = [name for name in node.input if is_empty(low, name) and name not in typed_only]
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
