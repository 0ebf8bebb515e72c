"""Element-wise ONNX ops and activations onto DirectML's ELEMENT_WISE_* and ACTIVATION_* operators.

As onnxruntime's DirectML provider maps them: broadcasting is stride 0 on the inputs (no copy), variadic
Sum/Mean/Max/Min chain binary nodes, Mod is MODULUS_TRUNCATE for fmod=1 and MODULUS_FLOOR otherwise, Clip's
bounds are read on the host into CLIP1's Min/Max, comparisons write UINT8 (ONNX bool).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.onnx.lowering import Lowering, View, broadcast_shape, broadcast_view, dml_type, lowers

UNARY = {  # ONNX op → DirectML element-wise or activation name (no attributes)
    "Abs": "ELEMENT_WISE_ABS", "Neg": "ELEMENT_WISE_NEGATE", "Exp": "ELEMENT_WISE_EXP", "Log": "ELEMENT_WISE_LOG",
    "Sqrt": "ELEMENT_WISE_SQRT", "Reciprocal": "ELEMENT_WISE_RECIP", "Sin": "ELEMENT_WISE_SIN",
    "Cos": "ELEMENT_WISE_COS", "Tan": "ELEMENT_WISE_TAN", "Asin": "ELEMENT_WISE_ASIN", "Acos": "ELEMENT_WISE_ACOS",
    "Atan": "ELEMENT_WISE_ATAN", "Sinh": "ELEMENT_WISE_SINH", "Cosh": "ELEMENT_WISE_COSH",
    "Asinh": "ELEMENT_WISE_ASINH", "Acosh": "ELEMENT_WISE_ACOSH", "Atanh": "ELEMENT_WISE_ATANH",
    "Floor": "ELEMENT_WISE_FLOOR", "Ceil": "ELEMENT_WISE_CEIL", "Erf": "ELEMENT_WISE_ERF",
    "Sign": "ELEMENT_WISE_SIGN", "Not": "ELEMENT_WISE_LOGICAL_NOT",
    "BitwiseNot": "ELEMENT_WISE_BIT_NOT", "Identity": "ELEMENT_WISE_IDENTITY",
    "Relu": "ACTIVATION_RELU", "Sigmoid": "ACTIVATION_SIGMOID", "Tanh": "ACTIVATION_TANH",
    "Softsign": "ACTIVATION_SOFTSIGN",
}
BINARY = {
    "Add": "ELEMENT_WISE_ADD", "Sub": "ELEMENT_WISE_SUBTRACT", "Mul": "ELEMENT_WISE_MULTIPLY",
    "Div": "ELEMENT_WISE_DIVIDE", "Equal": "ELEMENT_WISE_LOGICAL_EQUALS",
    "Greater": "ELEMENT_WISE_LOGICAL_GREATER_THAN", "Less": "ELEMENT_WISE_LOGICAL_LESS_THAN",
    "GreaterOrEqual": "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL",
    "LessOrEqual": "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL", "And": "ELEMENT_WISE_LOGICAL_AND",
    "Or": "ELEMENT_WISE_LOGICAL_OR", "Xor": "ELEMENT_WISE_LOGICAL_XOR", "BitwiseAnd": "ELEMENT_WISE_BIT_AND",
    "BitwiseOr": "ELEMENT_WISE_BIT_OR", "BitwiseXor": "ELEMENT_WISE_BIT_XOR",
}
COMPARISONS = {"Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual", "And", "Or", "Xor"}
VARIADIC = {"Sum": "ELEMENT_WISE_ADD", "Max": "ELEMENT_WISE_MAX", "Min": "ELEMENT_WISE_MIN",
            "Mean": "ELEMENT_WISE_ADD"}
# ONNX activation → (DirectML activation, {ONNX attribute: (desc field, ONNX default)})
ACTIVATIONS = {
    "LeakyRelu": ("ACTIVATION_LEAKY_RELU", {"alpha": ("Alpha", 0.01)}),
    "Elu": ("ACTIVATION_ELU", {"alpha": ("Alpha", 1.0)}),
    "Selu": ("ACTIVATION_SCALED_ELU", {"alpha": ("Alpha", 1.67326319217681884765625),
                                       "gamma": ("Gamma", 1.05070102214813232421875)}),
    "HardSigmoid": ("ACTIVATION_HARD_SIGMOID", {"alpha": ("Alpha", 0.2), "beta": ("Beta", 0.5)}),
    "ThresholdedRelu": ("ACTIVATION_THRESHOLDED_RELU", {"alpha": ("Alpha", 1.0)}),
    "Celu": ("ACTIVATION_CELU", {"alpha": ("Alpha", 1.0)}),
    "Softplus": ("ACTIVATION_SOFTPLUS", {}),
    "Shrink": ("ACTIVATION_SHRINK", {"bias": ("Bias", 0.0), "lambd": ("Threshold", 0.5)}),
    "HardSwish": ("ACTIVATION_HARD_SWISH", {"alpha": ("Alpha", 1 / 6), "beta": ("Beta", 0.5)}),
}


def _op(name: str) -> tuple[int, type]:
    return getattr(dml, f"DML_OPERATOR_{name}"), getattr(dml, f"DML_{name}_OPERATOR_DESC")


def _fields(desc_cls: type) -> list[str]:
    import dataclasses

    return [f.name for f in dataclasses.fields(desc_cls)]


def unary(low: Lowering, name: str, source: View, out: str, dtype: Any = None, **attributes: Any) -> None:
    """One single-input DirectML node (InputTensor → OutputTensor) writing ``out``."""
    op_type, desc_cls = _op(name)
    low.emit(op_type, desc_cls, {"InputTensor": source},
             {"OutputTensor": low.output(out, source.shape, dtype or source.dtype)}, **attributes)


def binary(low: Lowering, name: str, a: View, b: View, out: str, dtype: Any = None) -> None:
    """One two-input DirectML node over the broadcast shape of ``a`` and ``b`` (ADD1 for an Add with a fused
    activation pending: ELEMENT_WISE_ADD has no FusedActivation field)."""
    if name == "ELEMENT_WISE_ADD" and low.fused_activation is not None:
        name = "ELEMENT_WISE_ADD1"
    op_type, desc_cls = _op(name)
    shape = broadcast_shape(low, [a.shape, b.shape])
    fields = _fields(desc_cls)
    first, second = fields[0], fields[1]
    low.emit(op_type, desc_cls, {first: broadcast_view(low, a, shape), second: broadcast_view(low, b, shape)},
             {"OutputTensor": low.output(out, shape, dtype or a.dtype)})


@lowers(*UNARY)
def lower_unary(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    unary(low, UNARY[node.op_type], low.view(node.input[0]), node.output[0])


@lowers(*BINARY)
def lower_binary(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    dtype = np.dtype(np.bool_) if node.op_type in COMPARISONS else None
    binary(low, BINARY[node.op_type], low.view(node.input[0]), low.view(node.input[1]), node.output[0], dtype)


@lowers("Pow")
def lower_pow(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    base, exponent = low.view(node.input[0]), low.view(node.input[1])
    if exponent.dtype != base.dtype:
        cast_name = low.fresh("exponent")
        unary(low, "CAST", exponent, cast_name, base.dtype)
        exponent = low.views[cast_name]
    shape = broadcast_shape(low, [base.shape, exponent.shape])
    op_type, desc_cls = _op("ELEMENT_WISE_POW")
    low.emit(op_type, desc_cls, {"InputTensor": broadcast_view(low, base, shape),
                                 "ExponentTensor": broadcast_view(low, exponent, shape)},
             {"OutputTensor": low.output(node.output[0], shape, base.dtype)})


@lowers("Mod")
def lower_mod(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    name = "ELEMENT_WISE_MODULUS_TRUNCATE" if attrs.get("fmod", 0) else "ELEMENT_WISE_MODULUS_FLOOR"
    binary(low, name, low.view(node.input[0]), low.view(node.input[1]), node.output[0])


@lowers("BitShift")
def lower_bit_shift(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    name = "ELEMENT_WISE_BIT_SHIFT_LEFT" if attrs.get("direction") == "LEFT" else "ELEMENT_WISE_BIT_SHIFT_RIGHT"
    binary(low, name, low.view(node.input[0]), low.view(node.input[1]), node.output[0])


@lowers(*VARIADIC)
def lower_variadic(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    views = [low.view(name) for name in node.input if name]
    shape = broadcast_shape(low, [v.shape for v in views])
    name = VARIADIC[node.op_type]
    acc = views[0]
    if len(views) == 1 and node.op_type != "Mean":
        unary(low, "ELEMENT_WISE_IDENTITY", broadcast_view(low, views[0], shape), node.output[0])
    else:
        for i, view in enumerate(views[1:], 1):
            last = i == len(views) - 1 and node.op_type != "Mean"
            target = node.output[0] if last else low.fresh(node.output[0])
            binary(low, name, broadcast_view(low, acc, shape), view, target)
            acc = low.views[target]
    if node.op_type == "Mean":
        scale = dml.DML_SCALE_BIAS(1.0 / len(views), 0.0)
        unary(low, "ELEMENT_WISE_IDENTITY", broadcast_view(low, acc, shape), node.output[0], ScaleBias=scale)


@lowers(*ACTIVATIONS)
def lower_activation(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    name, params = ACTIVATIONS[node.op_type]
    values = {field: float(attrs.get(attr, default)) for attr, (field, default) in params.items()}
    if node.op_type == "Softplus":
        values["Steepness"] = 1.0
    unary(low, name, low.view(node.input[0]), node.output[0], **values)


@lowers("PRelu")
def lower_prelu(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x, slope = low.view(node.input[0]), low.view(node.input[1])
    shape = broadcast_shape(low, [x.shape, slope.shape])
    op_type, desc_cls = _op("ACTIVATION_PARAMETERIZED_RELU")
    low.emit(op_type, desc_cls, {"InputTensor": broadcast_view(low, x, shape),
                                 "SlopeTensor": broadcast_view(low, slope, shape)},
             {"OutputTensor": low.output(node.output[0], shape, x.dtype)})


@lowers("Gelu")
def lower_gelu(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    if attrs.get("approximate", "none") != "none":
        raise low.refuse("approximate='tanh': DirectML's ACTIVATION_GELU is the erf form only")
    unary(low, "ACTIVATION_GELU", low.view(node.input[0]), node.output[0])


@lowers("IsInf")
def lower_is_inf(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    positive, negative = attrs.get("detect_positive", 1), attrs.get("detect_negative", 1)
    mode = {(1, 1): dml.DML_IS_INFINITY_MODE_EITHER, (1, 0): dml.DML_IS_INFINITY_MODE_POSITIVE,
            (0, 1): dml.DML_IS_INFINITY_MODE_NEGATIVE}.get((positive, negative))
    if mode is None:
        raise low.refuse("detect_positive=0 and detect_negative=0 detects nothing: no DirectML mode")
    unary(low, "ELEMENT_WISE_IS_INFINITY", low.view(node.input[0]), node.output[0], np.dtype(np.bool_),
          InfinityMode=mode)


@lowers("IsNaN")
def lower_is_nan(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    unary(low, "ELEMENT_WISE_IS_NAN", low.view(node.input[0]), node.output[0], np.dtype(np.bool_))


@lowers("Round")
def lower_round(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    unary(low, "ELEMENT_WISE_ROUND", low.view(node.input[0]), node.output[0],
          RoundingMode=dml.DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN)


@lowers("Where")
def lower_where(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    condition, a, b = (low.view(name) for name in node.input[:3])
    shape = broadcast_shape(low, [condition.shape, a.shape, b.shape])
    op_type, desc_cls = _op("ELEMENT_WISE_IF")
    low.emit(op_type, desc_cls, {"ConditionTensor": broadcast_view(low, condition, shape),
                                 "ATensor": broadcast_view(low, a, shape), "BTensor": broadcast_view(low, b, shape)},
             {"OutputTensor": low.output(node.output[0], shape, a.dtype)})


@lowers("Clip")
def lower_clip(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x = low.view(node.input[0])
    info = np.finfo(x.dtype) if x.dtype.kind == "f" else np.iinfo(x.dtype)
    low_bound, high_bound = attrs.get("min", np.asarray(info.min).item()), attrs.get("max", np.asarray(info.max).item())
    if len(node.input) > 1 and node.input[1]:
        low_bound = low.host_value(node.input[1], "min").item()
    if len(node.input) > 2 and node.input[2]:
        high_bound = low.host_value(node.input[2], "max").item()
    number = float if x.dtype.kind == "f" else int
    unary(low, "ELEMENT_WISE_CLIP1", x, node.output[0], MinMaxDataType=dml_type(x.dtype, low.where()),
          Min=number(low_bound), Max=number(high_bound))


@lowers("Mish")
def lower_mish(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """x·tanh(softplus(x)): ACTIVATION_SOFTPLUS, ACTIVATION_TANH and ELEMENT_WISE_MULTIPLY (DirectML has no Mish)."""
    x = low.view(node.input[0])
    soft, tanh = low.fresh("softplus"), low.fresh("tanh")
    unary(low, "ACTIVATION_SOFTPLUS", x, soft, Steepness=1.0)
    unary(low, "ACTIVATION_TANH", low.views[soft], tanh)
    binary(low, "ELEMENT_WISE_MULTIPLY", x, low.views[tanh], node.output[0])
