"""Convolutions, cumulative sums, quantization and fills onto CONVOLUTION, CUMULATIVE_SUMMATION,
ELEMENT_WISE_(DE)QUANTIZE_LINEAR and FILL_VALUE_CONSTANT, as onnxruntime's DirectML provider maps them.

Conv's auto_pad becomes explicit start/end padding (SAME_UPPER puts the odd element at the end); ConvTranspose
runs CONVOLUTION's BACKWARD direction with OutputPadding zeroed and the output sized to include ONNX's
output_padding (the provider's reading), its pads derived from output_shape when that is given.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.onnx.lowering import Lowering, View, broadcast_view, dml_type, lowers


def _conv_pads(attrs: dict[str, Any], spatial: tuple[int, ...], kernel: list[int], strides: list[int],
               dilations: list[int], transposed: bool) -> tuple[list[int], list[int]]:
    count = len(spatial)
    pads = list(attrs.get("pads", [0] * 2 * count))
    auto = attrs.get("auto_pad", "NOTSET")
    if auto in ("SAME_UPPER", "SAME_LOWER") and not transposed:
        begin, end = [], []
        for size, k, s, d in zip(spatial, kernel, strides, dilations, strict=True):
            total = max(0, (-(-size // s) - 1) * s + d * (k - 1) + 1 - size)
            small, large = total // 2, total - total // 2
            begin.append(small if auto == "SAME_UPPER" else large)
            end.append(large if auto == "SAME_UPPER" else small)
        return begin, end
    if auto == "VALID":
        return [0] * count, [0] * count
    return pads[:count], pads[count:]


@lowers("Conv", "ConvTranspose")
def lower_conv(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x, w = low.view(node.input[0]), low.view(node.input[1])
    transposed = node.op_type == "ConvTranspose"
    spatial = x.shape[2:]
    count = len(spatial)
    if not 1 <= count <= 3:
        raise low.refuse(f"{count} spatial dimensions: DirectML's CONVOLUTION takes 1 to 3")
    kernel = list(attrs.get("kernel_shape", w.shape[2:]))
    strides = list(attrs.get("strides", [1] * count))
    dilations = list(attrs.get("dilations", [1] * count))
    group = int(attrs.get("group", 1))
    begin, end = _conv_pads(attrs, spatial, kernel, strides, dilations, transposed)
    if transposed:
        out_padding = list(attrs.get("output_padding", [0] * count))
        channels = w.shape[1] * group
        if "output_shape" in attrs:
            target = list(attrs["output_shape"])[-count:]
            begin, end = [], []
            for size, k, s, d, op, want in zip(spatial, kernel, strides, dilations, out_padding, target,
                                               strict=True):
                total = s * (size - 1) + op + (k - 1) * d + 1 - want
                if attrs.get("auto_pad", "NOTSET") == "SAME_UPPER":
                    begin.append(total // 2)
                    end.append(total - total // 2)
                else:
                    end.append(total // 2)
                    begin.append(total - total // 2)
        elif attrs.get("auto_pad", "NOTSET") in ("SAME_UPPER", "SAME_LOWER"):
            begin, end = [], []
            for size, k, s, d, op in zip(spatial, kernel, strides, dilations, out_padding, strict=True):
                total = max(0, s * (size - 1) + op + (k - 1) * d + 1 - size * s)
                small, large = total // 2, total - total // 2
                begin.append(small if attrs["auto_pad"] == "SAME_UPPER" else large)
                end.append(large if attrs["auto_pad"] == "SAME_UPPER" else small)
        out_spatial = [s * (n - 1) + op + (k - 1) * d + 1 - b - e for n, k, s, d, op, b, e in
                       zip(spatial, kernel, strides, dilations, out_padding, begin, end, strict=True)]
        if any(p < 0 for p in begin + end):  # an output_shape past the full size: no padding, a larger output
            if any(b < 0 for b in begin):
                raise low.refuse(f"output_shape {list(attrs['output_shape'])} needs negative start padding "
                                 f"{begin}: DirectML's padding is never negative", 0x80070057)
            begin, end = [max(0, b) for b in begin], [max(0, e) for e in end]
    else:
        channels = w.shape[0]
        out_spatial = [(n + b + e - d * (k - 1) - 1) // s + 1 for n, k, s, d, b, e in
                       zip(spatial, kernel, strides, dilations, begin, end, strict=True)]
    inputs: dict[str, View] = {"InputTensor": x, "FilterTensor": w}
    if len(node.input) > 2 and node.input[2]:
        bias = low.view(node.input[2])
        inputs["BiasTensor"] = View(bias.name, (1, channels) + (1,) * count, (0, bias.strides[0]) + (0,) * count,
                                    bias.dtype, bias.offset)
    shape = (x.shape[0], channels, *out_spatial)
    low.emit(dml.DML_OPERATOR_CONVOLUTION, dml.DML_CONVOLUTION_OPERATOR_DESC, inputs,
             {"OutputTensor": low.output(node.output[0], shape, x.dtype)},
             Mode=dml.DML_CONVOLUTION_MODE_CROSS_CORRELATION,
             Direction=dml.DML_CONVOLUTION_DIRECTION_BACKWARD if transposed else dml.DML_CONVOLUTION_DIRECTION_FORWARD,
             DimensionCount=count, Strides=strides, Dilations=dilations, StartPadding=begin, EndPadding=end,
             OutputPadding=[0] * count, GroupCount=group)


@lowers("CumSum", "CumProd")
def lower_cumulative(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x = low.view(node.input[0])
    axis = int(low.host_value(node.input[1], "axis").reshape(-1)[0])
    axis = axis + len(x.shape) if axis < 0 else axis
    name, flag = (("CUMULATIVE_SUMMATION", "HasExclusiveSum") if node.op_type == "CumSum"
                  else ("CUMULATIVE_PRODUCT", "HasExclusiveProduct"))
    low.emit(getattr(dml, f"DML_OPERATOR_{name}"), getattr(dml, f"DML_{name}_OPERATOR_DESC"), {"InputTensor": x},
             {"OutputTensor": low.output(node.output[0], x.shape, x.dtype)}, Axis=axis,
             AxisDirection=dml.DML_AXIS_DIRECTION_DECREASING if attrs.get("reverse", 0) else
             dml.DML_AXIS_DIRECTION_INCREASING, **{flag: int(attrs.get("exclusive", 0))})


@lowers("Range")
def lower_range(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """FILL_VALUE_SEQUENCE: start, limit and delta are read on the host (the provider keeps them on the CPU)."""
    start, limit, delta = (low.host_value(name, what).reshape(-1)[0] for name, what in
                           zip(node.input[:3], ("start", "limit", "delta"), strict=True))
    count = max(int(np.ceil((float(limit) - float(start)) / float(delta))), 0)
    if count == 0:
        low.host[node.output[0]] = np.zeros(0, np.asarray(start).dtype)
        return
    dtype = np.asarray(start).dtype
    number = float if dtype.kind == "f" else int
    low.emit(dml.DML_OPERATOR_FILL_VALUE_SEQUENCE, dml.DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC, {},
             {"OutputTensor": low.output(node.output[0], (count,), dtype)},
             ValueDataType=dml_type(dtype, low.where()), ValueStart=number(start), ValueDelta=number(delta))


def _per_axis(low: Lowering, view: View, x: View, axis: int) -> View:
    """A scale or zero point read against ``x``: a scalar broadcast everywhere, a 1-D one along ``axis``."""
    if len(view.shape) <= 1 and (not view.shape or view.shape[0] == 1):
        return broadcast_view(low, View(view.name, (1,), (1,), view.dtype, view.offset), x.shape)
    if len(view.shape) == 1:
        strides = [0] * len(x.shape)
        strides[axis] = view.strides[0]
        return View(view.name, x.shape, tuple(strides), view.dtype, view.offset)
    raise low.refuse(f"a blocked scale of shape {list(view.shape)}: not lowered yet (QUANTIZE/DEQUANTIZE)")


@lowers("QuantizeLinear", "DequantizeLinear")
def lower_quantize(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x, scale = low.view(node.input[0]), low.view(node.input[1])
    axis = attrs.get("axis", 1)
    axis = axis + len(x.shape) if axis < 0 else axis
    if attrs.get("block_size", 0):
        raise low.refuse("block_size: blocked quantization is DML_OPERATOR_QUANTIZE/DEQUANTIZE, not lowered yet")
    inputs = {"InputTensor": x, "ScaleTensor": _per_axis(low, scale, x, axis)}
    if node.op_type == "QuantizeLinear":
        if len(node.input) > 2 and node.input[2]:
            zero = low.view(node.input[2])
            inputs["ZeroPointTensor"] = _per_axis(low, zero, x, axis)
            out_type = zero.dtype
        else:
            from onnx import helper

            out_type = np.dtype(helper.tensor_dtype_to_np_dtype(attrs["output_dtype"])) if attrs.get(
                "output_dtype") else np.dtype(np.uint8)
        name = "ELEMENT_WISE_QUANTIZE_LINEAR"
    else:
        if len(node.input) > 2 and node.input[2]:
            inputs["ZeroPointTensor"] = _per_axis(low, low.view(node.input[2]), x, axis)
        out_type = scale.dtype
        name = "ELEMENT_WISE_DEQUANTIZE_LINEAR"
    low.emit(getattr(dml, f"DML_OPERATOR_{name}"), getattr(dml, f"DML_{name}_OPERATOR_DESC"), inputs,
             {"OutputTensor": low.output(node.output[0], x.shape, out_type)})


@lowers("ConstantOfShape")
def lower_constant_of_shape(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    shape = [int(n) for n in low.host_value(node.input[0], "shape").reshape(-1)]
    value = np.asarray(attrs.get("value", np.zeros(1, np.float32))).reshape(-1)
    if 0 in shape:
        low.host[node.output[0]] = np.zeros(shape, value.dtype)
        return
    kind = dml_type(value.dtype, low.where())
    low.emit(dml.DML_OPERATOR_FILL_VALUE_CONSTANT, dml.DML_FILL_VALUE_CONSTANT_OPERATOR_DESC, {},
             {"OutputTensor": low.output(node.output[0], shape or [1], value.dtype)}, ValueDataType=kind,
             Value=value[0].item())
    if not shape:
        view = low.views[node.output[0]]
        low.views[node.output[0]] = View(view.name, (), (), view.dtype)


@lowers("Swish")
def lower_swish(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    from dmlsim.onnx.ops_elementwise import unary

    unary(low, "ACTIVATION_SWISH", low.view(node.input[0]), node.output[0],
          SigmoidInputScale=float(attrs.get("alpha", 1.0)))
