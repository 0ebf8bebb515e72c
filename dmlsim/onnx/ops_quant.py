"""ONNX's quantized operators lowered onto DirectML's: blocked QuantizeLinear/DequantizeLinear (``block_size``)
onto DML_OPERATOR_QUANTIZE/DEQUANTIZE (feature level 6_3).

Blocked quantization: ONNX gives the scale (and zero point) the input's rank, with ``ceil(I / block_size)``
elements along ``axis`` and the input's size elsewhere; DML_OPERATOR_QUANTIZE/DEQUANTIZE broadcast a
quantization tensor to the input by its Sizes in blocks of ``I / S`` (dmlsim/operators/quantize_blocked), which
are ONNX's blocks when ``block_size`` divides ``I`` (a partial last block is refused), so the scale and zero
point are passed as they are: ``[scale]`` with DML_QUANTIZATION_TYPE_SCALE, ``[scale, zero
point]`` with DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.onnx.lowering import Lowering


def lower_blocked(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """A QuantizeLinear/DequantizeLinear node with ``block_size`` > 0 (ops_nn's lowering sends it here)."""
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
