"""ONNX's quantized operators lowered onto DirectML's: blocked QuantizeLinear/DequantizeLinear (``block_size``)
onto DML_OPERATOR_QUANTIZE/DEQUANTIZE (feature level 6_3); ConvInteger and QLinearConv onto
DML_OPERATOR_CONVOLUTION_INTEGER and DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION; MatMulInteger and QLinearMatMul
onto DML_OPERATOR_MATRIX_MULTIPLY_INTEGER and DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY; DynamicQuantizeLinear
onto DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR (with a 0 joined to the input: ONNX's range includes 0).

Blocked quantization: ONNX gives the scale (and zero point) the input's rank, with ``ceil(I / block_size)``
elements along ``axis`` and the input's size elsewhere; DML_OPERATOR_QUANTIZE/DEQUANTIZE broadcast a
quantization tensor to the input by its Sizes in blocks of ``I / S`` (dmlsim/operators/quantize_blocked), which
are ONNX's blocks when ``block_size`` divides ``I`` (a partial last block is refused), so the scale and zero
point are passed as they are: ``[scale]`` with DML_QUANTIZATION_TYPE_SCALE, ``[scale, zero
point]`` with DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT. int4/uint4 (DML_TENSOR_DATA_TYPE_INT4/UINT4, feature level 6_3)
per tensor or per axis also goes to QUANTIZE/DEQUANTIZE (:func:`lower_four_bit`), the only operators with 4-bit
types.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.onnx.lowering import FOUR_BIT, Lowering, View, broadcast_shape, broadcast_view, lowers

# imported first, so ops_nn's QuantizeLinear/DequantizeLinear lowering is registered before, and replaced by, the one
# below (which hands it every node without block_size)
from dmlsim.onnx.ops_nn import _conv_pads, lower_quantize


@lowers("QuantizeLinear", "DequantizeLinear")
def lower_quantize_or_blocked(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """A ``block_size`` > 0 onto QUANTIZE/DEQUANTIZE (:func:`lower_blocked`); otherwise ops_nn's lowering onto the
    element-wise QUANTIZE_LINEAR/DEQUANTIZE_LINEAR."""
    if attrs.get("block_size", 0):
        lower_blocked(low, node, attrs)
    elif _four_bit(low, node, attrs):
        lower_four_bit(low, node, attrs)
    else:
        lower_quantize(low, node, attrs)


def _four_bit(low: Lowering, node: Any, attrs: dict[str, Any]) -> bool:
    """True when the node's integer side is int4/uint4: the input (DequantizeLinear), the zero point, or the
    ``output_dtype`` (QuantizeLinear)."""
    names = [node.input[0]] + ([node.input[2]] if len(node.input) > 2 and node.input[2] else [])
    types = [low.value_dtype(name) for name in names]
    if node.op_type == "QuantizeLinear" and attrs.get("output_dtype"):
        from onnx import helper

        types.append(np.dtype(helper.tensor_dtype_to_np_dtype(attrs["output_dtype"])))
    return any(t.name in FOUR_BIT for t in types)


def lower_four_bit(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """A per-tensor or per-axis QuantizeLinear/DequantizeLinear with int4/uint4 onto QUANTIZE/DEQUANTIZE (the
    element-wise QUANTIZE_LINEAR/DEQUANTIZE_LINEAR take no 4-bit types; onnxruntime's DirectML provider binds 4-bit
    DequantizeLinear to DEQUANTIZE likewise): the scale and zero point get the input's rank, all sizes 1 (per
    tensor) or their elements along ``axis`` (per axis), as a block count of 1 or I."""
    x = low.view(node.input[0])
    axis = attrs.get("axis", 1)
    axis = axis + len(x.shape) if axis < 0 else axis
    tensors = [_along(low, low.view(name), len(x.shape), axis) for name in node.input[1:3] if name]
    _emit(low, node, attrs, x, tensors)


def _along(low: Lowering, view: View, rank: int, axis: int) -> View:
    """A scale or zero point of rank 0 or 1 as a tensor of ``rank`` dimensions, its elements along ``axis``."""
    if len(view.shape) > 1:
        raise low.refuse(f"a scale or zero point of shape {list(view.shape)} without block_size")
    shape, strides = [1] * rank, [0] * rank
    if view.shape and view.shape[0] > 1:
        shape[axis], strides[axis] = view.shape[0], view.strides[0]
    return View(view.name, tuple(shape), tuple(strides), view.dtype, view.offset)


def lower_blocked(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """A QuantizeLinear/DequantizeLinear node with ``block_size`` > 0."""
    x, scale = low.view(node.input[0]), low.view(node.input[1])
    if len(scale.shape) != len(x.shape):
        raise low.refuse(f"a blocked scale of rank {len(scale.shape)} for an input of rank {len(x.shape)}")
    axis = attrs.get("axis", 1)
    axis = axis + len(x.shape) if axis < 0 else axis
    if x.shape[axis] % attrs["block_size"]:
        raise low.refuse(f"block_size {attrs['block_size']} does not divide the input's size {x.shape[axis]} along "
                         f"axis {axis}: DML_OPERATOR_QUANTIZE/DEQUANTIZE's blocks are whole (Sizes only)")
    tensors = [scale]
    if len(node.input) > 2 and node.input[2]:
        tensors.append(low.view(node.input[2]))
    _emit(low, node, attrs, x, tensors)


def _emit(low: Lowering, node: Any, attrs: dict[str, Any], x: View, tensors: list[View]) -> None:
    """QUANTIZE or DEQUANTIZE of ``x`` with ``tensors`` ([scale] or [scale, zero point], of x's rank)."""
    scale = tensors[0]
    kind = dml.DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT if len(tensors) == 2 else dml.DML_QUANTIZATION_TYPE_SCALE
    if node.op_type == "QuantizeLinear":
        if len(tensors) == 2:
            out_type = tensors[1].dtype
        else:
            from onnx import helper

            out_type = np.dtype(helper.tensor_dtype_to_np_dtype(attrs["output_dtype"])) if attrs.get(
                "output_dtype") else np.dtype(np.uint8)
        op_type, desc_cls = dml.DML_OPERATOR_QUANTIZE, dml.DML_QUANTIZE_OPERATOR_DESC
    else:
        out_type = scale.dtype
        op_type, desc_cls = dml.DML_OPERATOR_DEQUANTIZE, dml.DML_DEQUANTIZE_OPERATOR_DESC
    low.emit(op_type, desc_cls, {"InputTensor": x, "QuantizationTensors": tensors},
             {"OutputTensor": low.output(node.output[0], x.shape, out_type)}, QuantizationType=kind,
             QuantizationTensorCount=len(tensors))


def _small(low: Lowering, name: str) -> View:
    """A scale or zero point (an ONNX scalar or 1-D tensor) as it is; a scalar becomes a 1-element 1-D view."""
    view = low.view(name)
    if not view.shape:
        return View(view.name, (1,), (1,), view.dtype, view.offset)
    if len(view.shape) != 1:
        raise low.refuse(f"a scale or zero point of shape {list(view.shape)}: DirectML takes one value or one "
                         "per channel")
    return view


@lowers("ConvInteger", "QLinearConv")
def lower_conv_integer(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """ConvInteger onto CONVOLUTION_INTEGER, QLinearConv onto QUANTIZED_LINEAR_CONVOLUTION: the tensors as they
    are, each scale and zero point one value or one per output channel (1-D), the bias {1, C, 1...} through
    strides; pads and auto_pad as Conv's (ops_nn)."""
    qlinear = node.op_type == "QLinearConv"
    names = list(node.input) + [""] * 9
    x_name, w_name = (names[0], names[3]) if qlinear else (names[0], names[1])
    x, w = low.view(x_name), low.view(w_name)
    spatial = x.shape[2:]
    count = len(spatial)
    if not 1 <= count <= 2:
        raise low.refuse(f"{count} spatial dimensions: DirectML's {node.op_type} operator takes 1 or 2")
    kernel = list(attrs.get("kernel_shape", w.shape[2:]))
    strides = list(attrs.get("strides", [1] * count))
    dilations = list(attrs.get("dilations", [1] * count))
    begin, end = _conv_pads(attrs, spatial, kernel, strides, dilations, False)
    out_spatial = [(n + b + e - d * (k - 1) - 1) // s + 1 for n, k, s, d, b, e in
                   zip(spatial, kernel, strides, dilations, begin, end, strict=True)]
    channels = w.shape[0]
    shape = (x.shape[0], channels, *out_spatial)
    geometry = dict(DimensionCount=count, Strides=strides, Dilations=dilations, StartPadding=begin, EndPadding=end,
                    GroupCount=int(attrs.get("group", 1)))
    if not qlinear:
        inputs: dict[str, View | list[View]] = {"InputTensor": x, "FilterTensor": w}
        for field, name in (("InputZeroPointTensor", names[2]), ("FilterZeroPointTensor", names[3])):
            if name:
                inputs[field] = _small(low, name)
        low.emit(dml.DML_OPERATOR_CONVOLUTION_INTEGER, dml.DML_CONVOLUTION_INTEGER_OPERATOR_DESC, inputs,
                 {"OutputTensor": low.output(node.output[0], shape, np.dtype(np.int32))}, **geometry)
        return
    fields = ("InputTensor", "InputScaleTensor", "InputZeroPointTensor", "FilterTensor", "FilterScaleTensor",
              "FilterZeroPointTensor", "OutputScaleTensor", "OutputZeroPointTensor")
    inputs = {field: (low.view(name) if field in ("InputTensor", "FilterTensor") else _small(low, name))
              for field, name in zip(fields, names[:8], strict=True) if name}
    if names[8]:
        bias = low.view(names[8])
        inputs["BiasTensor"] = View(bias.name, (1, channels) + (1,) * count, (0, bias.strides[0]) + (0,) * count,
                                    bias.dtype, bias.offset)
    out_type = low.value_dtype(names[7]) if names[7] else x.dtype
    low.emit(dml.DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION, dml.DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC,
             inputs, {"OutputTensor": low.output(node.output[0], shape, out_type)}, **geometry)


def _matrices(low: Lowering, a: View, b: View) -> tuple[View, View, tuple[int, ...]]:
    """A {..., M, K} and B {..., K, N} broadcast to one batch (stride 0), and the output's shape; DirectML's integer
    matrix multiplications take 2 to 4 dimensions."""
    if len(a.shape) < 2 or len(b.shape) < 2:
        raise low.refuse("a 1-D matrix operand: not lowered (DirectML's operand is {..., M, K} / {..., K, N})")
    batch = broadcast_shape(low, [a.shape[:-2], b.shape[:-2]])
    if len(batch) > 2:
        raise low.refuse(f"{len(batch) + 2}-D operands: DirectML's integer matrix multiplications take 2 to 4")
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    return (broadcast_view(low, a, (*batch, m, k)), broadcast_view(low, b, (*batch, k, n)), (*batch, m, n))


@lowers("MatMulInteger", "QLinearMatMul")
def lower_matmul_integer(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """MatMulInteger onto MATRIX_MULTIPLY_INTEGER, QLinearMatMul onto QUANTIZED_LINEAR_MATRIX_MULTIPLY: A and B
    broadcast to one batch, each scale and zero point one value or one per row of A / column of B (1-D); FLOAT16
    scales (opset 21) are cast to FLOAT32 first (exact), as the page's table takes FLOAT32 only."""
    names = list(node.input) + [""] * 8
    if node.op_type == "MatMulInteger":
        a, b, shape = _matrices(low, low.view(names[0]), low.view(names[1]))
        inputs: dict[str, View | list[View]] = {"ATensor": a, "BTensor": b}
        for field, name in (("AZeroPointTensor", names[2]), ("BZeroPointTensor", names[3])):
            if name:
                inputs[field] = _small(low, name)
        low.emit(dml.DML_OPERATOR_MATRIX_MULTIPLY_INTEGER, dml.DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC, inputs,
                 {"OutputTensor": low.output(node.output[0], shape, np.dtype(np.int32))})
        return
    a, b, shape = _matrices(low, low.view(names[0]), low.view(names[3]))
    fields = ("AScaleTensor", "AZeroPointTensor", None, "BScaleTensor", "BZeroPointTensor", "OutputScaleTensor",
              "OutputZeroPointTensor")
    inputs = {"ATensor": a, "BTensor": b}
    inputs |= {field: _small(low, name) for field, name in zip(fields, names[1:8], strict=True) if field and name}
    for field in ("AScaleTensor", "BScaleTensor", "OutputScaleTensor"):
        scale = inputs.get(field)
        if isinstance(scale, View) and scale.dtype == np.float16:  # opset 21's FLOAT16 scales: the page takes
            from dmlsim.onnx.ops_elementwise import unary  # FLOAT32, which holds every FLOAT16 value exactly

            wide = low.fresh("scale32")
            unary(low, "CAST", scale, wide, np.dtype(np.float32))
            inputs[field] = low.views[wide]
    out_type = low.value_dtype(names[7]) if names[7] else a.dtype
    low.emit(dml.DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, dml.DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC,
             inputs, {"OutputTensor": low.output(node.output[0], shape, out_type)})


@lowers("DynamicQuantizeLinear")
def lower_dynamic_quantize(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """DYNAMIC_QUANTIZE_LINEAR (UINT8) over the input joined with one 0: ONNX widens the range to include 0
    (``min(0, x_min)``, ``max(0, x_max)``), which DirectML's page formula (the data's own range, as dmlsim reads it:
    dmlsim/operators/dynamic_quantize) does not; the appended 0 makes the two agree, and the outputs are the first
    elements. Scale and zero point are 1-element tensors read as ONNX's scalars."""
    from dmlsim.api.tensor import packed_strides
    from dmlsim.onnx.ops_elementwise import unary

    x = low.view(node.input[0])
    count = int(np.prod(x.shape))
    if not x.packed:
        packed = low.fresh("packed")
        unary(low, "ELEMENT_WISE_IDENTITY", x, packed)
        x = low.views[packed]
    zero = low.fresh("zero")
    low.host[zero] = np.zeros(1, x.dtype)
    joined = low.fresh("with_zero")
    low.emit(dml.DML_OPERATOR_JOIN, dml.DML_JOIN_OPERATOR_DESC,
             {"InputTensors": [View(x.name, (count,), (1,), x.dtype, x.offset), low.view(zero)]},
             {"OutputTensor": low.output(joined, (count + 1,), x.dtype)}, InputCount=2, Axis=0)
    quantized = low.fresh("quantized")
    low.emit(dml.DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, dml.DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC,
             {"InputTensor": low.views[joined]},
             {"OutputTensor": low.output(quantized, (count + 1,), np.dtype(np.uint8)),
              "OutputScaleTensor": low.output(node.output[1], (), np.dtype(np.float32)),
              "OutputZeroPointTensor": low.output(node.output[2], (), np.dtype(np.uint8))})
    first = low.views[quantized]
    unary(low, "ELEMENT_WISE_IDENTITY", View(first.name, x.shape, tuple(packed_strides(x.shape)), first.dtype),
          node.output[0])
