"""Normalizations onto BATCH_NORMALIZATION and MEAN_VARIANCE_NORMALIZATION1, as onnxruntime's provider maps them.

BatchNormalization (inference): scale, B, mean and var of sizes {C} read as {1, C, 1, ...}. LayerNormalization:
MVN1 over the axes from ``axis`` on, Scale and Bias broadcast to the input's rank (its Mean and InvStdDev
outputs, when asked for, are REDUCE and element-wise nodes beside it). InstanceNormalization: MVN1 over the spatial axes
with per-channel Scale/Bias. MeanVarianceNormalization: MVN1 over ``axes`` with Epsilon 0 (ONNX adds 1e-9 to the
standard deviation; the difference is below the cases' tolerance).
"""

from __future__ import annotations

from typing import Any

import dmlsim as dml
from dmlsim.onnx.lowering import Lowering, View, broadcast_view, lowers


def _per_channel(view: View, rank: int) -> View:
    """A {C} tensor read as {1, C, 1, ...} of ``rank`` dimensions."""
    shape = (1, view.shape[0]) + (1,) * (rank - 2)
    strides = (0, view.strides[0]) + (0,) * (rank - 2)
    return View(view.name, shape, strides, view.dtype, view.offset)


@lowers("BatchNormalization")
def lower_batch_norm(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    if attrs.get("training_mode", 0):
        from dmlsim.onnx.ops_norm2 import lower_batch_norm_training

        lower_batch_norm_training(low, node, attrs)
        return
    x = low.view(node.input[0])
    rank = len(x.shape)
    scale, bias, mean, var = (_per_channel(low.view(name), rank) for name in node.input[1:5])
    low.emit(dml.DML_OPERATOR_BATCH_NORMALIZATION, dml.DML_BATCH_NORMALIZATION_OPERATOR_DESC,
             {"InputTensor": x, "MeanTensor": mean, "VarianceTensor": var, "ScaleTensor": scale, "BiasTensor": bias},
             {"OutputTensor": low.output(node.output[0], x.shape, x.dtype)}, Spatial=1,
             Epsilon=float(attrs.get("epsilon", 1e-5)))


def _mvn(low: Lowering, node: Any, x: View, axes: list[int], scale: View | None, bias: View | None,
         epsilon: float) -> None:
    inputs: dict[str, View] = {"InputTensor": x}
    if scale is not None:
        inputs["ScaleTensor"] = scale
    if bias is not None:
        inputs["BiasTensor"] = bias
    low.emit(dml.DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, dml.DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC,
             inputs, {"OutputTensor": low.output(node.output[0], x.shape, x.dtype)}, AxisCount=len(axes), Axes=axes,
             NormalizeVariance=1, Epsilon=float(epsilon))


@lowers("LayerNormalization")
def lower_layer_norm(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x = low.view(node.input[0])
    rank = len(x.shape)
    axis = attrs.get("axis", -1)
    axis = axis + rank if axis < 0 else axis
    epsilon = attrs.get("epsilon", 1e-5)
    scale = broadcast_view(low, low.view(node.input[1]), x.shape)
    bias = broadcast_view(low, low.view(node.input[2]), x.shape) if len(node.input) > 2 and node.input[2] else None
    _mvn(low, node, x, list(range(axis, rank)), scale, bias, epsilon)
    mean_out = node.output[1] if len(node.output) > 1 else ""
    inv_std_out = node.output[2] if len(node.output) > 2 else ""
    if mean_out or inv_std_out:
        _statistics(low, x, list(range(axis, rank)), epsilon, mean_out, inv_std_out)


def _statistics(low: Lowering, x: View, axes: list[int], epsilon: float, mean_out: str, inv_std_out: str) -> None:
    """LayerNormalization's Mean and InvStdDev outputs (the reduced axes kept as 1s), as several DirectML nodes:
    REDUCE AVERAGE; x − mean; REDUCE SUM_SQUARE scaled by 1/n (the biased variance); 1/√(variance + ε)."""
    from dmlsim.onnx.ops_elementwise import binary, unary

    kept = tuple(1 if a in axes else n for a, n in enumerate(x.shape))
    count = 1
    for a in axes:
        count *= x.shape[a]
    mean = mean_out or low.fresh("mean")
    low.emit(dml.DML_OPERATOR_REDUCE, dml.DML_REDUCE_OPERATOR_DESC, {"InputTensor": x},
             {"OutputTensor": low.output(mean, kept, x.dtype)}, Function=dml.DML_REDUCE_FUNCTION_AVERAGE,
             AxisCount=len(axes), Axes=axes)
    if not inv_std_out:
        return
    centered = low.fresh("centered")
    binary(low, "ELEMENT_WISE_SUBTRACT", x, broadcast_view(low, low.views[mean], x.shape), centered)
    squares = low.fresh("squares")
    low.emit(dml.DML_OPERATOR_REDUCE, dml.DML_REDUCE_OPERATOR_DESC, {"InputTensor": low.views[centered]},
             {"OutputTensor": low.output(squares, kept, x.dtype)}, Function=dml.DML_REDUCE_FUNCTION_SUM_SQUARE,
             AxisCount=len(axes), Axes=axes)
    deviation = low.fresh("deviation")  # √(Σ/n + ε): SQRT's ScaleBias applies before the root
    unary(low, "ELEMENT_WISE_SQRT", low.views[squares], deviation,
          ScaleBias=dml.DML_SCALE_BIAS(1.0 / count, float(epsilon)))
    unary(low, "ELEMENT_WISE_RECIP", low.views[deviation], inv_std_out)


@lowers("InstanceNormalization")
def lower_instance_norm(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x = low.view(node.input[0])
    rank = len(x.shape)
    _mvn(low, node, x, list(range(2, rank)), _per_channel(low.view(node.input[1]), rank),
         _per_channel(low.view(node.input[2]), rank), attrs.get("epsilon", 1e-5))


@lowers("MeanVarianceNormalization")
def lower_mvn(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x = low.view(node.input[0])
    rank = len(x.shape)
    axes = sorted(a + rank if a < 0 else a for a in attrs.get("axes", [0, 2, 3]))
    _mvn(low, node, x, axes, None, None, 0.0)
