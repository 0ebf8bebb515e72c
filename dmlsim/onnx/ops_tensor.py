"""Shape and layout ONNX ops: views (no copy) where DirectML's strides express them, else a copy node.

Reshape, Flatten, Squeeze, Unsqueeze rename a packed value's bytes with a new shape (a value read through a
strided view is first copied packed by ELEMENT_WISE_IDENTITY, as the provider's graph would); Transpose permutes
strides; Expand broadcasts with stride 0; Shape and Size are host values (static shapes); Cast is CAST.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.onnx.lowering import Lowering, View, broadcast_shape, broadcast_view, lowers
from dmlsim.onnx.ops_elementwise import unary


def packed(low: Lowering, view: View) -> View:
    """``view`` itself if its bytes are packed in its shape, else a packed copy (ELEMENT_WISE_IDENTITY)."""
    if view.packed:
        return view
    name = low.fresh("packed")
    unary(low, "ELEMENT_WISE_IDENTITY", view, name)
    return low.views[name]


def rename(low: Lowering, source: View, out: str, shape: tuple[int, ...]) -> None:
    """``out`` is ``source``'s bytes read as ``shape`` (same element count)."""
    source = packed(low, source)
    if int(np.prod(shape)) != int(np.prod(source.shape)):
        raise low.refuse(f"cannot read {list(source.shape)} as {list(shape)}: element counts differ", 0x80070057)
    from dmlsim.api.tensor import packed_strides

    low.views[out] = View(source.name, shape, packed_strides(shape), source.dtype)


@lowers("Reshape")
def lower_reshape(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    source = low.view(node.input[0])
    target = [int(n) for n in low.host_value(node.input[1], "shape").reshape(-1)]
    allow_zero = attrs.get("allowzero", 0)
    shape = []
    for axis, n in enumerate(target):
        if n == 0 and not allow_zero:
            n = source.shape[axis]
        shape.append(n)
    if -1 in shape:
        known = int(np.prod([n for n in shape if n != -1]))
        shape[shape.index(-1)] = int(np.prod(source.shape)) // max(known, 1)
    rename(low, source, node.output[0], tuple(shape))


@lowers("Flatten")
def lower_flatten(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    source = low.view(node.input[0])
    axis = attrs.get("axis", 1)
    axis = axis + len(source.shape) if axis < 0 else axis
    rename(low, source, node.output[0], (int(np.prod(source.shape[:axis])), int(np.prod(source.shape[axis:]))))


def _axes(low: Lowering, node: Any, attrs: dict[str, Any], rank: int) -> list[int] | None:
    if len(node.input) > 1 and node.input[1]:
        values = low.host_value(node.input[1], "axes")
    elif "axes" in attrs:
        values = attrs["axes"]
    else:
        return None
    return sorted(int(a) % rank for a in np.asarray(values).reshape(-1))


@lowers("Squeeze")
def lower_squeeze(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    source = low.view(node.input[0])
    axes = _axes(low, node, attrs, max(len(source.shape), 1))
    shape = tuple(n for axis, n in enumerate(source.shape) if (n != 1 if axes is None else axis not in axes))
    low.views[node.output[0]] = View(source.name, shape,
                                     tuple(st for axis, (n, st) in enumerate(zip(source.shape, source.strides,
                                                                                  strict=True))
                                           if (n != 1 if axes is None else axis not in axes)),
                                     source.dtype, source.offset)


@lowers("Unsqueeze")
def lower_unsqueeze(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    source = low.view(node.input[0])
    rank = len(source.shape) + len(_axes(low, node, attrs, 1 << 30) or [])
    axes = _axes(low, node, attrs, rank) or []
    shape, strides, it = [], [], iter(zip(source.shape, source.strides, strict=True))
    for axis in range(rank):
        if axis in axes:
            shape.append(1)
            strides.append(0)
        else:
            n, st = next(it)
            shape.append(n)
            strides.append(st)
    low.views[node.output[0]] = View(source.name, tuple(shape), tuple(strides), source.dtype, source.offset)


@lowers("Transpose")
def lower_transpose(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    source = low.view(node.input[0])
    perm = attrs.get("perm") or list(reversed(range(len(source.shape))))
    low.views[node.output[0]] = View(source.name, tuple(source.shape[p] for p in perm),
                                     tuple(source.strides[p] for p in perm), source.dtype, source.offset)


@lowers("Expand")
def lower_expand(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    source = low.view(node.input[0])
    shape = broadcast_shape(low, [source.shape, [int(n) for n in low.host_value(node.input[1], "shape")]])
    low.views[node.output[0]] = broadcast_view(low, source, shape)


@lowers("Cast")
def lower_cast(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    from onnx import helper

    dtype = np.dtype(helper.tensor_dtype_to_np_dtype(attrs["to"]))
    unary(low, "CAST", low.view(node.input[0]), node.output[0], dtype)


@lowers("CastLike")
def lower_cast_like(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    unary(low, "CAST", low.view(node.input[0]), node.output[0], low.value_dtype(node.input[1]))


@lowers("Concat")
def lower_concat(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    views = [low.view(name) for name in node.input if name]
    rank = len(views[0].shape)
    axis = attrs["axis"] + rank if attrs["axis"] < 0 else attrs["axis"]
    views = [v for v in views if v.shape[axis] > 0]  # ONNX allows empty pieces; DirectML tensors are never empty
    shape = list(views[0].shape)
    shape[axis] = sum(v.shape[axis] for v in views)
    if len(views) == 1:
        unary(low, "ELEMENT_WISE_IDENTITY", views[0], node.output[0])
        return
    import dmlsim as dml

    low.emit(dml.DML_OPERATOR_JOIN, dml.DML_JOIN_OPERATOR_DESC, {"InputTensors": views},
             {"OutputTensor": low.output(node.output[0], shape, views[0].dtype)}, InputCount=len(views), Axis=axis)


@lowers("Split")
def lower_split(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    import dmlsim as dml

    source = low.view(node.input[0])
    rank = len(source.shape)
    axis = attrs.get("axis", 0)
    axis = axis + rank if axis < 0 else axis
    outputs = [name for name in node.output]
    if len(node.input) > 1 and node.input[1]:
        sizes = [int(n) for n in low.host_value(node.input[1], "split")]
    elif "split" in attrs:
        sizes = [int(n) for n in attrs["split"]]
    else:
        count = attrs.get("num_outputs", len(outputs))
        chunk = -(-source.shape[axis] // count)
        sizes = [min(chunk, source.shape[axis] - i * chunk) for i in range(count)]
    made = []
    for name, size in zip(outputs, sizes, strict=True):
        shape = list(source.shape)
        shape[axis] = size
        if size == 0:  # an empty piece is a host value (dmlsim/onnx/empty.py); SPLIT makes the others
            low.host[name] = np.empty(shape, source.dtype)
        else:
            made.append(low.output(name, shape, source.dtype))
    if len(made) == 1:
        unary(low, "ELEMENT_WISE_IDENTITY", source, next(n for n, s in zip(outputs, sizes, strict=True) if s))
        return
    low.emit(dml.DML_OPERATOR_SPLIT, dml.DML_SPLIT_OPERATOR_DESC, {"InputTensor": source},
             {"OutputTensors": made}, OutputCount=len(made), Axis=axis)


@lowers("Slice")
def lower_slice(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    import dmlsim as dml

    source = low.view(node.input[0])
    rank = len(source.shape)
    if len(node.input) > 1:
        starts = low.host_value(node.input[1], "starts").reshape(-1)
        ends = low.host_value(node.input[2], "ends").reshape(-1)
        axes = (low.host_value(node.input[3], "axes").reshape(-1) if len(node.input) > 3 and node.input[3]
                else np.arange(len(starts)))
        steps = (low.host_value(node.input[4], "steps").reshape(-1) if len(node.input) > 4 and node.input[4]
                 else np.ones(len(starts), np.int64))
    else:
        starts, ends = np.asarray(attrs["starts"]), np.asarray(attrs["ends"])
        axes = np.asarray(attrs.get("axes", range(len(starts))))
        steps = np.ones(len(starts), np.int64)
    offsets, sizes, strides = [0] * rank, list(source.shape), [1] * rank
    for start, end, axis, step in zip(starts, ends, axes, steps, strict=True):
        axis = int(axis) + rank if axis < 0 else int(axis)
        begin, stop, stride = slice(int(start), int(end), int(step)).indices(source.shape[axis])
        count = len(range(begin, stop, stride))
        if count == 0:  # an empty result is a host value (dmlsim/onnx/empty.py), as onnxruntime allocates it
            shape = list(source.shape)
            shape[axis] = 0
            low.host[node.output[0]] = np.empty(shape, source.dtype)
            return
        window = abs(stride) * (count - 1) + 1
        # SLICE1 starts a negative stride at the window's last element: the window ends at ONNX's first index
        offsets[axis] = begin if stride > 0 else begin - window + 1
        sizes[axis], strides[axis] = count, stride
    low.emit(dml.DML_OPERATOR_SLICE1, dml.DML_SLICE1_OPERATOR_DESC, {"InputTensor": source},
             {"OutputTensor": low.output(node.output[0], sizes, source.dtype)}, DimensionCount=rank,
             InputWindowOffsets=offsets, InputWindowSizes=[abs(st) * (n - 1) + 1 for n, st in zip(sizes, strides,
                                                                                                 strict=True)],
             InputWindowStrides=strides)


@lowers("Dropout")
def lower_dropout(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """Inference (training_mode absent or false), or training with ratio 0 (ONNX: nothing is dropped, no draw):
    the identity, and a mask of all true; training with a non-zero ratio refused."""
    training = len(node.input) > 2 and node.input[2] and bool(low.host_value(node.input[2], "training_mode"))
    ratio = (float(np.asarray(low.host_value(node.input[1], "ratio")).reshape(-1)[0])
             if training and len(node.input) > 1 and node.input[1] else 0.5)
    if training and ratio != 0.0:
        raise low.refuse(f"training_mode=true with ratio {ratio:g} draws random masks: DirectML's dropout is "
                         "RANDOM_GENERATOR plus element-wise math, not lowered")
    source = low.view(node.input[0])
    unary(low, "ELEMENT_WISE_IDENTITY", source, node.output[0])
    if len(node.output) > 1 and node.output[1]:
        low.host[node.output[1]] = np.ones(source.shape, np.bool_)
