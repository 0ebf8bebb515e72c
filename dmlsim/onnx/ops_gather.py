"""Gather, GatherElements, GatherND, ScatterElements, ScatterND, OneHot and TopK onto DirectML's gather/scatter
operators, as onnxruntime's DirectML provider maps them: every tensor padded with leading 1s to the largest rank
among data, indices and output; the axis moved by the padding; GatherND as GATHER_ND1 with the real ranks and
batch_dims. OneHot's floating-point indices are CAST to INT64 first (ONNX casts them). Scatter reductions
(add, mul, max, min) have no DirectML desc field: dmlsim.onnx.ops_scatred composes them. TopK's indices are
DirectML's UINT64, read as ONNX's int64 (the same bytes for indices below 2^63).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.onnx.lowering import Lowering, View, lowers


def _pad(view: View, rank: int) -> View:
    extra = rank - len(view.shape)
    return View(view.name, (1,) * extra + view.shape, (0,) * extra + view.strides, view.dtype, view.offset)


def _axis(attrs: dict[str, Any], rank: int, default: int = 0) -> int:
    axis = attrs.get("axis", default)
    return axis + rank if axis < 0 else axis


def _emit_padded(low: Lowering, op: str, node: Any, inputs: dict[str, View], out_shape: tuple[int, ...],
                 out_dtype: np.dtype, **attributes: Any) -> None:
    """One node with every tensor padded to the largest rank; the output renamed to ONNX's shape."""
    rank = max([len(out_shape), *(len(v.shape) for v in inputs.values()), 1])
    padded_out = (1,) * (rank - len(out_shape)) + tuple(out_shape)
    temp = low.fresh(node.output[0])
    low.emit(getattr(dml, f"DML_OPERATOR_{op}"), getattr(dml, f"DML_{op}_OPERATOR_DESC"),
             {field: _pad(view, rank) for field, view in inputs.items()},
             {"OutputTensor": low.output(temp, padded_out, out_dtype)}, **attributes)
    made = low.views[temp]
    from dmlsim.api.tensor import packed_strides

    low.views[node.output[0]] = View(made.name, tuple(out_shape), packed_strides(tuple(out_shape)), made.dtype)


def _rank_of(*views: View, out: tuple[int, ...] = ()) -> int:
    return max([len(out), *(len(v.shape) for v in views), 1])


@lowers("Gather")
def lower_gather(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    data, indices = low.view(node.input[0]), low.view(node.input[1])
    axis = _axis(attrs, len(data.shape))
    out = data.shape[:axis] + indices.shape + data.shape[axis + 1:]
    rank = _rank_of(data, indices, out=out)
    _emit_padded(low, "GATHER", node, {"InputTensor": data, "IndicesTensor": indices}, out, data.dtype,
                 Axis=axis + rank - len(data.shape), IndexDimensions=len(indices.shape))


@lowers("GatherElements")
def lower_gather_elements(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    data, indices = low.view(node.input[0]), low.view(node.input[1])
    axis = _axis(attrs, len(data.shape))
    rank = _rank_of(data, indices)
    _emit_padded(low, "GATHER_ELEMENTS", node, {"InputTensor": data, "IndicesTensor": indices}, indices.shape,
                 data.dtype, Axis=axis + rank - len(data.shape))


@lowers("GatherND")
def lower_gather_nd(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    data, indices = low.view(node.input[0]), low.view(node.input[1])
    batch = attrs.get("batch_dims", 0)
    out = indices.shape[:-1] + data.shape[batch + indices.shape[-1]:]
    _emit_padded(low, "GATHER_ND1", node, {"InputTensor": data, "IndicesTensor": indices}, out, data.dtype,
                 InputDimensionCount=len(data.shape), IndicesDimensionCount=len(indices.shape),
                 BatchDimensionCount=batch)


def _no_reduction(low: Lowering, attrs: dict[str, Any]) -> None:
    if attrs.get("reduction", "none") != "none":
        raise low.refuse(f"reduction {attrs['reduction']!r}: DirectML's scatter descs have no reduction (the last "
                         "update wins)")


@lowers("ScatterElements", "Scatter")
def lower_scatter_elements(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    _no_reduction(low, attrs)
    data, indices, updates = (low.view(name) for name in node.input[:3])
    axis = _axis(attrs, len(data.shape))
    rank = _rank_of(data, indices, updates)
    _emit_padded(low, "SCATTER_ELEMENTS", node, {"InputTensor": data, "IndicesTensor": indices,
                                                 "UpdatesTensor": updates}, data.shape, data.dtype,
                 Axis=axis + rank - len(data.shape))


@lowers("ScatterND")
def lower_scatter_nd(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    _no_reduction(low, attrs)
    data, indices, updates = (low.view(name) for name in node.input[:3])
    _emit_padded(low, "SCATTER_ND", node, {"InputTensor": data, "IndicesTensor": indices, "UpdatesTensor": updates},
                 data.shape, data.dtype, InputDimensionCount=len(data.shape),
                 IndicesDimensionCount=len(indices.shape))


@lowers("OneHot")
def lower_one_hot(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    indices, values = low.view(node.input[0]), low.view(node.input[2])
    if indices.dtype.kind == "f":  # ONNX casts them to int64; DirectML's ONE_HOT takes integer indices: CAST first
        from dmlsim.onnx.ops_elementwise import unary

        cast = low.fresh(f"{node.input[0]}/int64")
        unary(low, "CAST", indices, cast, np.int64)
        indices = low.views[cast]
    depth = int(low.host_value(node.input[1], "depth").reshape(-1)[0])
    axis = attrs.get("axis", -1)
    axis = axis + len(indices.shape) + 1 if axis < 0 else axis
    out = (*indices.shape[:axis], depth, *indices.shape[axis:])
    rank = max(len(out), 1)
    values_view = View(values.name, (1,) * (rank - 1) + (2,), (0,) * (rank - 1) + (values.strides[-1],), values.dtype,
                       values.offset)
    index_shape = list(out)
    index_shape[axis] = 1
    index_view = View(indices.name, tuple(index_shape),
                      tuple(0 if a == axis else st for a, st in enumerate(
                          (*indices.strides[:axis], 0, *indices.strides[axis:]))), indices.dtype, indices.offset)
    low.emit(dml.DML_OPERATOR_ONE_HOT, dml.DML_ONE_HOT_OPERATOR_DESC,
             {"IndicesTensor": index_view, "ValuesTensor": values_view},
             {"OutputTensor": low.output(node.output[0], out, values.dtype)}, Axis=axis)


@lowers("TopK")
def lower_top_k(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x = low.view(node.input[0])
    k = int(low.host_value(node.input[1], "K").reshape(-1)[0]) if len(node.input) > 1 else int(attrs["k"])
    axis = _axis(attrs, len(x.shape), -1)
    out = tuple(k if a == axis else n for a, n in enumerate(x.shape))
    values = low.output(node.output[0], out, x.dtype)
    indices_name = node.output[1] if len(node.output) > 1 and node.output[1] else low.fresh("indices")
    indices = low.output(indices_name, out, np.dtype(np.uint64))
    low.emit(dml.DML_OPERATOR_TOP_K1, dml.DML_TOP_K1_OPERATOR_DESC, {"InputTensor": x},
             {"OutputValueTensor": values, "OutputIndexTensor": indices}, Axis=axis, K=k,
             AxisDirection=dml.DML_AXIS_DIRECTION_DECREASING if attrs.get("largest", 1) else
             dml.DML_AXIS_DIRECTION_INCREASING)
    made = low.views[indices_name]
    low.views[indices_name] = View(made.name, made.shape, made.strides, np.dtype(np.int64))
