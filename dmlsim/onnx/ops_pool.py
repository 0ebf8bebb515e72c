"""Pooling and layout ops: MaxPool, AveragePool, LpPool and their Global forms onto MAX_POOLING2,
AVERAGE_POOLING1 and LP_POOLING1; Pad, Tile, SpaceToDepth and DepthToSpace onto PADDING1, TILE,
SPACE_TO_DEPTH1 and DEPTH_TO_SPACE1.

As onnxruntime's DirectML provider maps them: a 1-D pooling is a 2-D one of height 1 (DirectML pools 4-D and 5-D
tensors); auto_pad and ceil_mode become explicit padding (ceil_mode adds end padding until the formula gives ONNX's
size: padding never wins a max; AveragePool with count_include_pad counts the pads but not that overhang, so
the pads are then made real zeros by PADDING1 and the pooling counts no padding: dmlsim/onnx/ops_onnxa.py);
MaxPool's Indices are DirectML's UINT64 read as int64 (storage_order=1's column-major indices are composed from
them with integer element-wise operators: dmlsim/onnx/ops_onnxa.py). Pad's pads are UINT start/end paddings (a
negative pad, a crop, is refused), its modes constant/edge/reflect/wrap.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.api.tensor import packed_strides
from dmlsim.onnx.lowering import Lowering, View, dml_type, lowers


def _as_2d(view: View) -> tuple[View, bool]:
    """A 3-D {N, C, W} view as 4-D {N, C, 1, W}; others unchanged."""
    if len(view.shape) == 3:
        n, c, w = view.shape
        sn, sc, sw = view.strides
        return View(view.name, (n, c, 1, w), (sn, sc, 0, sw), view.dtype, view.offset), True
    return view, False


@lowers("MaxPool", "AveragePool", "LpPool", "GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool")
def lower_pool(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x, lifted = _as_2d(low.view(node.input[0]))
    spatial = list(x.shape[2:])
    count = len(spatial)
    if count not in (2, 3):
        raise low.refuse(f"{count} spatial dimensions: DirectML pools 1 to 3")
    glob = node.op_type.startswith("Global")
    kernel = spatial if glob else ([1] if lifted else []) + list(attrs["kernel_shape"])
    strides = [1] * count if glob else ([1] if lifted else []) + list(attrs.get("strides", [1] * (count - lifted)))
    dilations = [1] * count if glob else ([1] if lifted else []) + list(attrs.get("dilations", [1] * (count - lifted)))
    pads = list(attrs.get("pads", [0] * 2 * (count - lifted)))
    half = len(pads) // 2
    begin = ([0] if lifted else []) + pads[:half]
    end = ([0] if lifted else []) + pads[half:]
    auto = attrs.get("auto_pad", "NOTSET")
    ceil = bool(attrs.get("ceil_mode", 0))
    out, overhang = [], []
    for i, (n, k, s, d) in enumerate(zip(spatial, kernel, strides, dilations, strict=True)):
        window = (k - 1) * d + 1
        if auto in ("SAME_UPPER", "SAME_LOWER"):
            size = -(-n // s)
            total = max(0, (size - 1) * s + window - n)
            small, large = total // 2, total - total // 2
            begin[i], end[i] = (small, large) if auto == "SAME_UPPER" else (large, small)
        elif auto == "VALID":
            begin[i], end[i] = 0, 0
        padded = n + begin[i] + end[i]
        size = (math.ceil if ceil else math.floor)((padded - window) / s) + 1
        if ceil and (size - 1) * s >= n + begin[i]:  # a last window starting in the end padding is dropped
            size -= 1
        overhang.append(max(0, (size - 1) * s + window - padded))  # what the formula needs to give that size
        end[i] += overhang[-1]
        out.append(size)
    shape = (*x.shape[:2], *out)
    onnx_shape = (*x.shape[:2], *out[1:]) if lifted else shape
    common = {"DimensionCount": count, "Strides": strides, "WindowSize": kernel, "StartPadding": begin,
              "EndPadding": end, "Dilations": dilations}
    temp = low.fresh(node.output[0])
    outputs: dict[str, Any] = {"OutputTensor": low.output(temp, shape, x.dtype)}
    kind = node.op_type.replace("Global", "")
    if kind == "MaxPool":
        indices = None
        if len(node.output) > 1 and node.output[1]:
            indices = low.fresh(node.output[1])
            outputs["OutputIndicesTensor"] = low.output(indices, shape, np.dtype(np.uint64))
        low.emit(dml.DML_OPERATOR_MAX_POOLING2, dml.DML_MAX_POOLING2_OPERATOR_DESC, {"InputTensor": x}, outputs,
                 **common)
        if indices is not None:
            made = low.views[indices]
            if attrs.get("storage_order", 0) and not lifted:  # column-major indices, composed (ops_onnxa)
                from dmlsim.onnx.ops_onnxa import column_major_indices

                made = column_major_indices(low, made, spatial)
            low.views[node.output[1]] = View(made.name, onnx_shape, packed_strides(onnx_shape), np.dtype(np.int64))
    elif kind == "AveragePool":
        include = int(attrs.get("count_include_pad", 0))
        if include and any(overhang):  # ONNX counts the pads, not ceil_mode's overhang: pads made real (ops_onnxa)
            from dmlsim.onnx.ops_onnxa import pad_for_counted_pads

            x, common, include = pad_for_counted_pads(low, x, common, overhang)
        low.emit(dml.DML_OPERATOR_AVERAGE_POOLING1, dml.DML_AVERAGE_POOLING1_OPERATOR_DESC, {"InputTensor": x},
                 outputs, IncludePadding=include, **common)
    else:
        low.emit(dml.DML_OPERATOR_LP_POOLING1, dml.DML_LP_POOLING1_OPERATOR_DESC, {"InputTensor": x}, outputs,
                 P=int(attrs.get("p", 2)), **common)
    made = low.views[temp]
    low.views[node.output[0]] = View(made.name, onnx_shape, packed_strides(onnx_shape), made.dtype)


PAD_MODES = {"constant": dml.DML_PADDING_MODE_CONSTANT, "edge": dml.DML_PADDING_MODE_EDGE,
             "reflect": dml.DML_PADDING_MODE_REFLECTION, "wrap": dml.DML_PADDING_MODE_WRAP}


@lowers("Pad")
def lower_pad(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x = low.view(node.input[0])
    rank = len(x.shape)
    pads = [int(p) for p in (low.host_value(node.input[1], "pads").reshape(-1) if len(node.input) > 1
                             else attrs.get("pads", []))]
    value = 0
    if len(node.input) > 2 and node.input[2]:
        value = low.host_value(node.input[2], "constant_value").reshape(-1)[0].item()
    elif "value" in attrs:
        value = attrs["value"]
    axes = list(range(rank))
    if len(node.input) > 3 and node.input[3]:
        axes = [int(a) + rank if a < 0 else int(a) for a in low.host_value(node.input[3], "axes").reshape(-1)]
    begin, end = [0] * rank, [0] * rank
    for i, axis in enumerate(axes):
        begin[axis], end[axis] = pads[i], pads[i + len(axes)]
    if min(begin + end) < 0:
        raise low.refuse("negative pads (a crop): DirectML's paddings are UINT (onnxruntime runs such a Pad on the "
                         "CPU)")
    mode = attrs.get("mode", "constant")
    if mode not in PAD_MODES:
        raise low.refuse(f"mode {mode!r}: not a DirectML padding mode")
    shape = tuple(n + b + e for n, b, e in zip(x.shape, begin, end, strict=True))
    number = float if x.dtype.kind == "f" else int
    low.emit(dml.DML_OPERATOR_PADDING1, dml.DML_PADDING1_OPERATOR_DESC, {"InputTensor": x},
             {"OutputTensor": low.output(node.output[0], shape, x.dtype)}, PaddingMode=PAD_MODES[mode],
             PaddingValueDataType=dml_type(x.dtype, low.where()), PaddingValue=number(value), DimensionCount=rank,
             StartPadding=begin, EndPadding=end)


@lowers("Tile")
def lower_tile(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x = low.view(node.input[0])
    repeats = [int(r) for r in low.host_value(node.input[1], "repeats").reshape(-1)]
    shape = tuple(n * r for n, r in zip(x.shape, repeats, strict=True))
    low.emit(dml.DML_OPERATOR_TILE, dml.DML_TILE_OPERATOR_DESC, {"InputTensor": x},
             {"OutputTensor": low.output(node.output[0], shape, x.dtype)}, RepeatsCount=len(repeats), Repeats=repeats)


@lowers("SpaceToDepth", "DepthToSpace")
def lower_depth_space(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x = low.view(node.input[0])
    block = int(attrs["blocksize"])
    n, c, h, w = x.shape
    order = dml.DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH if attrs.get("mode", "DCR") == "CRD" else \
        dml.DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW
    if node.op_type == "SpaceToDepth":
        shape, name = (n, c * block * block, h // block, w // block), "SPACE_TO_DEPTH1"
    else:
        shape, name = (n, c // (block * block), h * block, w * block), "DEPTH_TO_SPACE1"
    low.emit(getattr(dml, f"DML_OPERATOR_{name}"), getattr(dml, f"DML_{name}_OPERATOR_DESC"), {"InputTensor": x},
             {"OutputTensor": low.output(node.output[0], shape, x.dtype)}, BlockSize=block, Order=order)
