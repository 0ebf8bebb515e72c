"""LRN, LpNormalization and GroupNormalization onto LOCAL_RESPONSE_NORMALIZATION, LP_NORMALIZATION and
MEAN_VARIANCE_NORMALIZATION1, as onnxruntime's DirectML provider maps them.

LRN (DmlOperatorLocalResponseNormalization): CrossChannel TRUE (ONNX's LRN only sums across channels),
LocalSize ``size``, and ONNX's alpha, beta and bias unchanged (ONNX's ``alpha / size`` is the page's
``Alpha / LocalSize``); a 4-D input only (the page's table). LpNormalization (DmlOperatorLpNormalization): Axis
``axis`` (negative counted from the end), P ``p`` (1 or 2, else refused), Epsilon 1e-5 (the provider's
DefaultEpsilon; ONNX divides by the norm itself, and gives 0 for a zero norm, which ``max(norm, 1e-5)`` does too).
GroupNormalization: the packed input ``{N, C, spatial...}`` seen as ``{N, G, C / G, S}`` (S the spatial elements),
MVN1 over axes 2 and 3, Scale and Bias read per channel through strides ``{0, C / G, 1, 0}`` (opset 21's {C}) or
per group ``{0, 1, 0, 0}`` (opset 18's {G}); the output is the same bytes read back in the input's shape.
"""

from __future__ import annotations

import math
from typing import Any

import dmlsim as dml
from dmlsim.api.tensor import packed_strides
from dmlsim.onnx.lowering import Lowering, View, lowers

LP_EPSILON = 1e-5  # onnxruntime's DirectML provider: DefaultEpsilon


@lowers("LRN")
def lower_lrn(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x = low.view(node.input[0])
    if len(x.shape) != 4:
        raise low.refuse(f"a {len(x.shape)}-D input: DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION takes 4-D tensors")
    low.emit(dml.DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION, dml.DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC,
             {"InputTensor": x}, {"OutputTensor": low.output(node.output[0], x.shape, x.dtype)}, CrossChannel=1,
             LocalSize=int(attrs["size"]), Alpha=float(attrs.get("alpha", 1e-4)),
             Beta=float(attrs.get("beta", 0.75)), Bias=float(attrs.get("bias", 1.0)))


@lowers("LpNormalization")
def lower_lp_normalization(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x = low.view(node.input[0])
    rank = max(len(x.shape), 1)
    axis = int(attrs.get("axis", -1))
    axis = axis + rank if axis < 0 else axis
    p = int(attrs.get("p", 2))
    if p not in (1, 2):
        raise low.refuse(f"p {p}: DML_OPERATOR_LP_NORMALIZATION takes P 1 or 2")
    low.emit(dml.DML_OPERATOR_LP_NORMALIZATION, dml.DML_LP_NORMALIZATION_OPERATOR_DESC, {"InputTensor": x},
             {"OutputTensor": low.output(node.output[0], x.shape, x.dtype)}, Axis=axis, Epsilon=LP_EPSILON, P=p)


@lowers("GroupNormalization")
def lower_group_normalization(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x = low.view(node.input[0])
    if len(x.shape) < 2 or not x.packed:
        raise low.refuse("GroupNormalization reads its input as {N, G, C / G, spatial}: a packed input of rank "
                         "2 or more is needed")
    groups = int(attrs["num_groups"])
    n, c = x.shape[0], x.shape[1]
    if groups < 1 or c % groups:
        raise low.refuse(f"num_groups {groups} must divide the channel count {c}", dml.E_INVALIDARG)
    spatial = math.prod(x.shape[2:])
    shape = (n, groups, c // groups, spatial)
    grouped = View(x.name, shape, packed_strides(shape), x.dtype, x.offset)

    def per_channel(name: str) -> View:
        view = low.view(name)
        if view.shape == (c,):
            strides = (0, view.strides[0] * (c // groups), view.strides[0], 0)
        elif view.shape == (groups,):
            strides = (0, view.strides[0], 0, 0)
        else:
            raise low.refuse(f"scale and bias of shape {list(view.shape)}: {{C}} (opset 21) or {{G}} (opset 18)",
                             dml.E_INVALIDARG)
        return View(view.name, (1, groups, c // groups, 1), strides, view.dtype, view.offset)

    out_name, out_desc = low.output(node.output[0], shape, x.dtype)
    low.emit(dml.DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, dml.DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC,
             {"InputTensor": grouped, "ScaleTensor": per_channel(node.input[1]),
              "BiasTensor": per_channel(node.input[2])}, {"OutputTensor": (out_name, out_desc)}, AxisCount=2,
             Axes=[2, 3], NormalizeVariance=1, Epsilon=float(attrs.get("epsilon", 1e-5)))
    low.views[node.output[0]] = View(out_name, x.shape, packed_strides(x.shape), x.dtype)


def lower_batch_norm_training(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """BatchNormalization with training_mode=1 (called by ops_norm's BatchNormalization lowering):
    BATCH_NORMALIZATION_TRAINING over every axis but 1 (scale and B as {1, C, 1, ...}) gives Y and the batch's
    Mean and (biased) Variance; the running statistics ONNX outputs, ``input * momentum + batch * (1 -
    momentum)``, are two ELEMENT_WISE_IDENTITY nodes with a ScaleBias and an ELEMENT_WISE_ADD each, as ONNX's
    formula (opset 15) reads; an output the node leaves unnamed is not computed."""
    from dmlsim.onnx.ops_elementwise import binary, unary

    x = low.view(node.input[0])
    rank = len(x.shape)
    if rank < 2:
        raise low.refuse("training_mode=1 needs an input {N, C, ...} of rank 2 or more", dml.E_INVALIDARG)
    channels = x.shape[1]
    param = (1, channels) + (1,) * (rank - 2)

    def per_channel(name: str) -> View:
        view = low.view(name)
        return View(view.name, param, (0, view.strides[0]) + (0,) * (rank - 2), view.dtype, view.offset)

    mean_name, var_name = low.fresh("batch_mean"), low.fresh("batch_var")
    low.emit(dml.DML_OPERATOR_BATCH_NORMALIZATION_TRAINING, dml.DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC,
             {"InputTensor": x, "ScaleTensor": per_channel(node.input[1]), "BiasTensor": per_channel(node.input[2])},
             {"OutputTensor": low.output(node.output[0], x.shape, x.dtype),
              "OutputMeanTensor": low.output(mean_name, param, x.dtype),
              "OutputVarianceTensor": low.output(var_name, param, x.dtype)},
             Epsilon=float(attrs.get("epsilon", 1e-5)))
    momentum = float(attrs.get("momentum", 0.9))
    for index, batch in ((1, mean_name), (2, var_name)):
        out = node.output[index] if len(node.output) > index else ""
        if not out:
            continue
        batch_view = low.views[batch]
        flat = View(batch_view.name, (channels,), (1,), batch_view.dtype)
        kept, new = low.fresh("kept"), low.fresh("new")
        unary(low, "ELEMENT_WISE_IDENTITY", low.view(node.input[2 + index]), kept,
              ScaleBias=dml.DML_SCALE_BIAS(momentum, 0.0))
        unary(low, "ELEMENT_WISE_IDENTITY", flat, new, ScaleBias=dml.DML_SCALE_BIAS(1.0 - momentum, 0.0))
        binary(low, "ELEMENT_WISE_ADD", low.views[kept], low.views[new], out)
