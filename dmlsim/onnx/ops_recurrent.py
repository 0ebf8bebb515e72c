"""LSTM, GRU and RNN onto DirectML's LSTM, GRU and RNN operators, as onnxruntime's DirectML provider maps them:
X, W, R, B, initial_h, initial_c and P read as 4-D tensors with leading 1s (no copy), sequence_lens cast to UINT32, the
activations as DirectML activation descs (ONNX's activation_alpha/beta as their attributes), layout=1 (batch
first) expressed through the strides of X, Y, Y_h and Y_c. ONNX's RNN-family activations DirectML lacks (ScaledTanh
is SCALED_TANH, Affine is LINEAR) map by name; any other is refused. DirectML's LSTM, GRU and RNN take no
DML_TENSOR_FLAG_OWNED_BY_DML tensor (their doc pages), so an initializer read by one (W, R, B, ...) is copied by an
ELEMENT_WISE_IDENTITY node from its OWNED_BY_DML weight into an intermediate the recurrent node reads.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.onnx.lowering import Lowering, View, lowers
from dmlsim.onnx.ops_elementwise import unary

# ONNX activation → (DirectML activation, the desc fields its alpha and beta go to)
ACTIVATIONS = {"Sigmoid": ("SIGMOID", ()), "Tanh": ("TANH", ()), "Relu": ("RELU", ()),
               "LeakyRelu": ("LEAKY_RELU", ("Alpha",)), "ThresholdedRelu": ("THRESHOLDED_RELU", ("Alpha",)),
               "ScaledTanh": ("SCALED_TANH", ("Alpha", "Beta")), "HardSigmoid": ("HARD_SIGMOID", ("Alpha", "Beta")),
               "Elu": ("ELU", ("Alpha",)), "Softsign": ("SOFTSIGN", ()), "Softplus": ("SOFTPLUS", ()),
               "Affine": ("LINEAR", ("Alpha", "Beta"))}


def _activations(low: Lowering, attrs: dict[str, Any], default: list[str], directions: int) -> list[Any]:
    names = [a.decode() if isinstance(a, bytes) else a for a in attrs.get("activations", default * directions)]
    alphas, betas = list(attrs.get("activation_alpha", [])), list(attrs.get("activation_beta", []))
    descs = []
    for name in names:
        if name not in ACTIVATIONS:
            raise low.refuse(f"activation {name!r}: no DirectML activation of that name")
        dml_name, params = ACTIVATIONS[name]
        values = {}
        for field in params:
            source = alphas if field == "Alpha" else betas
            if source:
                values[field] = float(source.pop(0))
        if dml_name == "SOFTPLUS":
            values["Steepness"] = 1.0
        desc_cls = getattr(dml, f"DML_ACTIVATION_{dml_name}_OPERATOR_DESC")
        fields = {f: None for f in desc_cls.__dataclass_fields__}
        fields.update(values)
        descs.append(dml.DML_OPERATOR_DESC(getattr(dml, f"DML_OPERATOR_ACTIVATION_{dml_name}"), desc_cls(**fields)))
    return descs


def _four_d(view: View) -> View:
    extra = 4 - len(view.shape)
    return View(view.name, (1,) * extra + view.shape, (0,) * extra + view.strides, view.dtype, view.offset)


def _row(view: View) -> View:
    """{D, n} (B or P) as {1, 1, D, n}."""
    return _four_d(view)


def _not_owned(low: Lowering, name: str) -> View:
    """The device view of ``name``; a weight (bound OWNED_BY_DML) read through an identity copy instead."""
    view = low.view(name)
    if low.builder.values[view.name].kind != "weight":
        return view
    copy = low.fresh(f"{name}_copy")
    unary(low, "ELEMENT_WISE_IDENTITY", view, copy)
    return low.views[copy]


@lowers("LSTM", "GRU", "RNN")
def lower_recurrent(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    lstm = node.op_type == "LSTM"
    names = list(node.input) + [""] * (8 - len(node.input))
    x = _not_owned(low, names[0])
    direction = {"forward": dml.DML_RECURRENT_NETWORK_DIRECTION_FORWARD,
                 "reverse": dml.DML_RECURRENT_NETWORK_DIRECTION_BACKWARD,
                 "bidirectional": dml.DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL}[attrs.get("direction", "forward")]
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    hidden = int(attrs["hidden_size"])
    batch_first = attrs.get("layout", 0) == 1
    if batch_first:  # [batch, seq, in] read as [seq, batch, in]
        x = View(x.name, (x.shape[1], x.shape[0], x.shape[2]), (x.strides[1], x.strides[0], x.strides[2]), x.dtype,
                 x.offset)
    seq, batch, _ = x.shape
    inputs: dict[str, View] = {"InputTensor": _four_d(x), "WeightTensor": _four_d(_not_owned(low, names[1])),
                               "RecurrenceTensor": _four_d(_not_owned(low, names[2]))}
    if names[3]:
        inputs["BiasTensor"] = _row(_not_owned(low, names[3]))
    if names[4]:
        lengths = low.view(names[4])
        cast = low.fresh("lengths")
        unary(low, "CAST", lengths, cast, np.dtype(np.uint32))
        inputs["SequenceLengthsTensor"] = _four_d(low.views[cast])
    if names[5]:
        h0 = _not_owned(low, names[5])
        if batch_first:
            h0 = View(h0.name, (h0.shape[1], h0.shape[0], h0.shape[2]), (h0.strides[1], h0.strides[0], h0.strides[2]),
                      h0.dtype, h0.offset)
        inputs["HiddenInitTensor"] = _four_d(h0)
    if lstm and names[6]:
        c0 = _not_owned(low, names[6])
        if batch_first:
            c0 = View(c0.name, (c0.shape[1], c0.shape[0], c0.shape[2]), (c0.strides[1], c0.strides[0], c0.strides[2]),
                      c0.dtype, c0.offset)
        inputs["CellMemInitTensor"] = _four_d(c0)
    if lstm and names[7]:
        inputs["PeepholeTensor"] = _row(_not_owned(low, names[7]))
    out_names = list(node.output) + [""] * (3 - len(node.output))
    fields = ["OutputSequenceTensor", "OutputSingleTensor"] + (["OutputCellSingleTensor"] if lstm else [])
    outputs = {}
    made = {}
    for field, name in zip(fields, out_names, strict=False):
        if not name:
            continue
        shape = (seq, dirs, batch, hidden) if field == "OutputSequenceTensor" else (1, dirs, batch, hidden)
        temp = low.fresh(name)
        outputs[field] = low.output(temp, shape, x.dtype)
        made[name] = (temp, field)
    attributes: dict[str, Any] = {"Direction": direction}
    if lstm:
        clip = attrs.get("clip")
        attributes.update(ClipThreshold=float(clip or 0.0), UseClipThreshold=int(clip is not None),
                          CoupleInputForget=int(attrs.get("input_forget", 0)))
        descs = _activations(low, attrs, ["Sigmoid", "Tanh", "Tanh"], dirs)
    elif node.op_type == "GRU":
        attributes["LinearBeforeReset"] = int(attrs.get("linear_before_reset", 0))
        descs = _activations(low, attrs, ["Sigmoid", "Tanh"], dirs)
    else:
        if attrs.get("clip") is not None:
            raise low.refuse("clip: DirectML's RNN has no clip threshold")
        descs = _activations(low, attrs, ["Tanh"], dirs)
    op = node.op_type
    low.emit(getattr(dml, f"DML_OPERATOR_{op}"), getattr(dml, f"DML_{op}_OPERATOR_DESC"), inputs, outputs,
             ActivationDescCount=len(descs), ActivationDescs=descs, **attributes)
    for name, (temp, field) in made.items():
        view = low.views[temp]
        if field == "OutputSequenceTensor":
            # ONNX's Y is [seq, D, batch, h] (layout 0) or [batch, seq, D, h] (layout 1)
            if batch_first:
                s = view.strides
                low.views[name] = View(view.name, (batch, seq, dirs, hidden), (s[2], s[0], s[1], s[3]), view.dtype)
            else:
                low.views[name] = view
        else:
            s = view.strides  # [1, D, batch, h] → [D, batch, h] or [batch, D, h]
            if batch_first:
                low.views[name] = View(view.name, (batch, dirs, hidden), (s[2], s[1], s[3]), view.dtype)
            else:
                low.views[name] = View(view.name, (dirs, batch, hidden), (s[1], s[2], s[3]), view.dtype)
