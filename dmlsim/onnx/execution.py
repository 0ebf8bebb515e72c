"""dmlsim's ONNX backend (``onnx.backend.base.Backend`` conventions): ONNX models on a dmlsim device.

Two paths, chosen by the model's nodes:

- A model of the default ONNX domain is lowered onto DirectML operators and one ``CompileGraph`` graph, as
  onnxruntime's DirectML provider lowers it (:mod:`dmlsim.onnx.run_model`, :mod:`dmlsim.onnx.lowering` and the
  ``ops_*`` modules); ``run_node`` lowers a one-node model the same way.
- ``ai.onnx.preview.training`` Adagrad, Adam and Momentum (no kernels in onnxruntime, only a numpy reference in
  onnx) each run as one fused multi-tensor dmlsim operator (DMLSIM_OPERATOR_ONNX_ADAGRAD / _ADAM / _MOMENTUM)::

    import dmlsim.backend as backend
    rep = backend.prepare(model, "CPU")      # checks the model, picks the device
    outputs = rep.run(inputs)
    outputs = backend.run_model(model, inputs, device="reference")
    outputs = backend.run_node(node, inputs)

Devices: ``"CPU"`` (an OpenCL CPU device, else the reference device), ``"GPU"``/``"CUDA"`` (an OpenCL
GPU; ``"GPU:1"`` the second), or any dmlsim adapter spec (``"reference"``, ``"0:0"``, a name
substring). A node nothing lowers raises a DMLError (E_NOTIMPL) naming the node, its op type and the opset. Needs
the ``onnx`` package (``pip install 'dmlsim[onnx]'``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

try:
    import onnx
    from onnx import defs, helper, numpy_helper
    from onnx.backend.base import Backend, BackendRep
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("dmlsim.backend needs the onnx package: pip install 'dmlsim[onnx]'") from exc

from dmlsim.api.enums import DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE
from dmlsim.api.errors import E_INVALIDARG, E_NOTIMPL, DMLError
from dmlsim.api.structs import DML_OPERATOR_DESC, buffer_tensor
from dmlsim.backends.adapters import REFERENCE, AdapterInfo, opencl_adapters, reference_adapter, select_adapter
from dmlsim.entry import create_device
from dmlsim.operators.onnx_training import (
    DMLSIM_ONNX_ADAGRAD_OPERATOR_DESC,
    DMLSIM_ONNX_ADAM_OPERATOR_DESC,
    DMLSIM_ONNX_MOMENTUM_MODE,
    DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC,
)
from dmlsim.quick import run_operator
from dmlsim.runtime.device import Device

TRAINING_DOMAIN = "ai.onnx.preview.training"
MAX_RANK = 8

_DT = DML_TENSOR_DATA_TYPE
_DATA_TYPES = {np.dtype(np.float32): _DT.DML_TENSOR_DATA_TYPE_FLOAT32,
               np.dtype(np.float64): _DT.DML_TENSOR_DATA_TYPE_FLOAT64,
               np.dtype(np.float16): _DT.DML_TENSOR_DATA_TYPE_FLOAT16}


class _OpSpec:
    """How one ONNX training op maps to its DMLSIM operator: roles, desc fields, attributes."""

    def __init__(self, op_type: DML_OPERATOR_TYPE, desc_cls: type, inputs: tuple[str, ...],
                 outputs: tuple[str, ...], attributes: dict[str, str]) -> None:
        self.op_type = op_type
        self.desc_cls = desc_cls
        self.inputs = inputs  # desc fields of X, G, (V,) (H) in ONNX input order
        self.outputs = outputs  # desc fields of X_new, (V_new,) (H_new) in ONNX output order
        self.attributes = attributes  # ONNX attribute name → desc field


_OPS: dict[str, _OpSpec] = {
    "Adagrad": _OpSpec(
        DML_OPERATOR_TYPE.DMLSIM_OPERATOR_ONNX_ADAGRAD, DMLSIM_ONNX_ADAGRAD_OPERATOR_DESC,
        ("InputParametersTensors", "GradientTensors", "InputAccumulatedSquaredGradientTensors"),
        ("OutputParametersTensors", "OutputAccumulatedSquaredGradientTensors"),
        {"norm_coefficient": "NormCoefficient", "epsilon": "Epsilon", "decay_factor": "DecayFactor"}),
    "Adam": _OpSpec(
        DML_OPERATOR_TYPE.DMLSIM_OPERATOR_ONNX_ADAM, DMLSIM_ONNX_ADAM_OPERATOR_DESC,
        ("InputParametersTensors", "GradientTensors", "InputFirstMomentTensors", "InputSecondMomentTensors"),
        ("OutputParametersTensors", "OutputFirstMomentTensors", "OutputSecondMomentTensors"),
        {"norm_coefficient": "NormCoefficient", "norm_coefficient_post": "NormCoefficientPost",
         "alpha": "Alpha", "beta": "Beta", "epsilon": "Epsilon"}),
    "Momentum": _OpSpec(
        DML_OPERATOR_TYPE.DMLSIM_OPERATOR_ONNX_MOMENTUM, DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC,
        ("InputParametersTensors", "GradientTensors", "InputMomentumTensors"),
        ("OutputParametersTensors", "OutputMomentumTensors"),
        {"norm_coefficient": "NormCoefficient", "alpha": "Alpha", "beta": "Beta", "mode": "Mode"}),
}
_MODES = {"standard": DMLSIM_ONNX_MOMENTUM_MODE.DMLSIM_ONNX_MOMENTUM_MODE_STANDARD,
          "nesterov": DMLSIM_ONNX_MOMENTUM_MODE.DMLSIM_ONNX_MOMENTUM_MODE_NESTEROV}


# --- devices ------------------------------------------------------------------------------------------
def resolve_adapter(device: str) -> AdapterInfo:
    """The adapter an ONNX device string names (see the module docstring); DMLError if none matches."""
    if not isinstance(device, str):
        raise DMLError(E_INVALIDARG, f"device must be a string such as 'CPU', 'GPU' or 'reference', got {device!r}")
    kind, _, index = device.strip().partition(":")
    kind = kind.upper()
    if kind in ("CPU", "GPU", "CUDA") and (index == "" or index.isdigit()):
        wanted = "CPU" if kind == "CPU" else "GPU"
        matches = [a for a in opencl_adapters() if a.kind == wanted]
        if kind == "CPU" and not index:
            matches.append(reference_adapter())
        n = int(index or 0)
        if n < len(matches):
            return matches[n]
        raise DMLError(E_INVALIDARG, f"no {wanted} adapter {device!r}; available: "
                                     f"{'; '.join(a.label for a in [*opencl_adapters(), reference_adapter()])}")
    return select_adapter(device)


@functools.cache
def _device_for(index: str) -> Device:
    adapter = reference_adapter() if index == REFERENCE else next(a for a in opencl_adapters() if a.index == index)
    return create_device(0, adapter)


def device_for(device: str | Device) -> Device:
    """A (cached) dmlsim device for an ONNX device string, or ``device`` itself if it is one."""
    if isinstance(device, Device):
        return device
    return _device_for(resolve_adapter(device).index)


# --- nodes --------------------------------------------------------------------------------------------
def _spec_for(node: onnx.NodeProto) -> _OpSpec:
    domain = node.domain or "ai.onnx"
    spec = _OPS.get(node.op_type) if node.domain == TRAINING_DOMAIN else None
    if spec is None:
        raise DMLError(E_NOTIMPL, f"dmlsim.backend does not support operator {node.op_type!r} (domain {domain!r}, "
                                  f"node {node.name!r}); it runs only {TRAINING_DOMAIN} "
                                  f"{', '.join(_OPS)}")
    return spec


def node_attributes(node: onnx.NodeProto) -> dict[str, Any]:
    """The node's attributes as desc field values, ONNX schema defaults filled in; DMLError if unusable."""
    spec = _spec_for(node)
    schema = defs.get_schema(node.op_type, 1, TRAINING_DOMAIN)
    given = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    where = f"{node.op_type} node {node.name!r}"
    unknown = sorted(set(given) - set(spec.attributes))
    if unknown:
        raise DMLError(E_INVALIDARG, f"{where}: unknown attribute(s) {', '.join(unknown)} "
                                     f"(known: {', '.join(spec.attributes)})")
    values: dict[str, Any] = {}
    for name, field in spec.attributes.items():
        if name in given:
            value = given[name]
        else:
            attr = schema.attributes[name]
            if attr.required or not attr.default_value.name:
                raise DMLError(E_INVALIDARG, f"{where}: required attribute {name!r} is missing")
            value = helper.get_attribute_value(attr.default_value)
        if name == "mode":
            text = value.decode() if isinstance(value, bytes) else str(value)
            if text not in _MODES:
                raise DMLError(E_INVALIDARG, f"{where}: mode {text!r} must be 'standard' or 'nesterov'")
            value = _MODES[text]
        values[field] = value
    return values


def _tensor_desc(array: np.ndarray, where: str) -> Any:
    data_type = _DATA_TYPES.get(array.dtype)
    if data_type is None:
        raise DMLError(E_INVALIDARG, f"{where} has dtype {array.dtype}; supported: float32, float64, float16")
    if array.ndim > MAX_RANK:
        raise DMLError(E_INVALIDARG, f"{where} has {array.ndim} dimensions; at most {MAX_RANK} are supported")
    return buffer_tensor(data_type, list(array.shape) or [1])


def run_training_node(node: onnx.NodeProto, inputs: Sequence[Any], device: Device) -> list[np.ndarray]:
    """Run one training node on ``device``; outputs in ONNX order (X_new..., then V_new..., H_new...)."""
    spec = _spec_for(node)
    attrs = node_attributes(node)
    roles = len(spec.inputs)
    where = f"{node.op_type} node {node.name!r}"
    if len(inputs) < 2 + roles or (len(inputs) - 2) % roles:
        raise DMLError(E_INVALIDARG, f"{where} has {len(inputs)} inputs; expected R, T and {roles} groups "
                                     "of n tensors")
    n = (len(inputs) - 2) // roles
    arrays = [np.asarray(a) for a in inputs]
    r, t = arrays[0], arrays[1]
    if r.size != 1 or t.size != 1:
        raise DMLError(E_INVALIDARG, f"{where}: R and T must be scalars, got shapes {r.shape} and {t.shape}")
    if t.dtype != np.int64:
        raise DMLError(E_INVALIDARG, f"{where}: T must be int64, got {t.dtype}")
    groups = [arrays[2 + k * n:2 + (k + 1) * n] for k in range(roles)]
    for k, group in enumerate(groups[1:], start=1):
        for i, (a, x) in enumerate(zip(group, groups[0], strict=True)):
            if a.shape != x.shape or a.dtype != x.dtype:
                raise DMLError(E_INVALIDARG, f"{where}: input {node.input[2 + k * n + i]!r} ({a.dtype} {a.shape}) "
                                             f"must match {node.input[2 + i]!r} ({x.dtype} {x.shape})")
    live = [i for i in range(n) if groups[0][i].size > 0]  # DirectML tensors have no empty dimension
    results: list[list[np.ndarray]] = [[np.empty_like(groups[0][i]) for i in range(n)] for _ in spec.outputs]
    if live:
        descs = [_tensor_desc(groups[0][i], f"{where} input {node.input[2 + i]!r}") for i in live]
        fields: dict[str, Any] = {
            "TensorCount": len(live),
            "LearningRateTensor": _tensor_desc(r.reshape(1), f"{where} R"),
            "UpdateCountTensor": buffer_tensor(_DT.DML_TENSOR_DATA_TYPE_INT64, [1]),
        }
        for name in (*spec.inputs, *spec.outputs):
            fields[name] = descs
        desc = spec.desc_cls(**fields, **attrs)
        feeds = {"LearningRateTensor": r.reshape(1), "UpdateCountTensor": t.reshape(1)}
        for name, group in zip(spec.inputs, groups, strict=True):
            feeds[name] = [group[i].reshape(-1) for i in live]
        out = run_operator(device, DML_OPERATOR_DESC(spec.op_type, desc), feeds)
        for k, name in enumerate(spec.outputs):
            for j, i in enumerate(live):
                results[k][i] = out[name][j].reshape(groups[0][i].shape)
    return [a for group in results for a in group]


# --- onnx.backend.base ------------------------------------------------------------------------------------
class DmlsimBackendRep(BackendRep):
    """A prepared model: its graph, checked once, and the dmlsim device it runs on."""

    def __init__(self, model: onnx.ModelProto, device: Device) -> None:
        self.model = model
        self.device = device
        graph = model.graph
        self.initializers = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
        self.input_names = [i.name for i in graph.input if i.name not in self.initializers]
        self.output_names = [o.name for o in graph.output]
        from dmlsim.onnx.run_model import LoweringCache

        self.cache = LoweringCache()  # compiled graphs by input shapes: repeated runs do not compile again

    def run(self, inputs: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:
        """Run the graph; ``inputs`` is a list (graph-input order), a dict by name, or one array."""
        if isinstance(inputs, dict):
            feeds = dict(inputs)
        elif isinstance(inputs, (list, tuple)):
            if len(inputs) != len(self.input_names):
                raise DMLError(E_INVALIDARG, f"the model takes {len(self.input_names)} inputs "
                                             f"({', '.join(self.input_names)}), got {len(inputs)}")
            feeds = dict(zip(self.input_names, inputs, strict=True))
        else:
            if len(self.input_names) != 1:
                raise DMLError(E_INVALIDARG, f"a single array was given, but the model takes "
                                             f"{len(self.input_names)} inputs")
            feeds = {self.input_names[0]: inputs}
        if not all(node.domain == TRAINING_DOMAIN and node.op_type in _OPS for node in self.model.graph.node):
            return tuple(self.cache.get(self.model, feeds, self.device).run(feeds))
        values: dict[str, Any] = {**self.initializers, **feeds}
        for node in self.model.graph.node:
            missing = [name for name in node.input if name and name not in values]
            if missing:
                raise DMLError(E_INVALIDARG, f"{node.op_type} node {node.name!r}: no value for input(s) "
                                             f"{', '.join(missing)}")
            outputs = run_training_node(node, [values[name] for name in node.input], self.device)
            for name, value in zip(node.output, outputs, strict=False):
                if name:
                    values[name] = value
        return tuple(values[name] for name in self.output_names)


class DmlsimBackend(Backend):
    """onnx.backend.base.Backend for ai.onnx.preview.training Adagrad / Adam / Momentum on dmlsim."""

    @classmethod
    def is_compatible(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> bool:
        """True when every node is a training op, or every node has a lowering or is folded on the host, and the
        device exists (a node may still be refused once its inputs are known: a shape DirectML cannot express)."""
        from dmlsim.onnx.run_model import check_lowerable

        try:
            if all(node.domain == TRAINING_DOMAIN for node in model.graph.node):
                for node in model.graph.node:
                    _spec_for(node)
            else:
                check_lowerable(model)
        except DMLError:
            return False
        return cls.supports_device(device)

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> DmlsimBackendRep:
        """Check the model (onnx.checker, then every node's op and attributes) and pick the device."""
        super().prepare(model, device, **kwargs)
        if all(node.domain == TRAINING_DOMAIN for node in model.graph.node):
            for node in model.graph.node:
                node_attributes(node)
        else:
            from dmlsim.onnx.run_model import check_lowerable

            check_lowerable(model)
        return DmlsimBackendRep(model, device_for(device))

    @classmethod
    def run_model(cls, model: onnx.ModelProto, inputs: Any, device: str = "CPU",
                  **kwargs: Any) -> tuple[np.ndarray, ...]:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node: onnx.NodeProto, inputs: Any, device: str = "CPU",
                 outputs_info: Sequence[tuple[np.dtype, tuple[int, ...]]] | None = None,
                 **kwargs: Any) -> tuple[np.ndarray, ...]:
        """Run one node; ``inputs`` is a list in ``node.input`` order or a dict by input name. A node of the default
        domain is lowered as a one-node model of the newest opset onnx defines; a training node runs fused."""
        if isinstance(inputs, dict):
            inputs = [inputs[name] for name in node.input if name]
        if node.domain == TRAINING_DOMAIN:
            _spec_for(node)
            outputs = run_training_node(node, list(inputs), device_for(device))
            return tuple(outputs[:len(node.output)])
        from dmlsim.onnx.run_model import run_lowered

        arrays = [np.asarray(a) for a in inputs]
        names = [name for name in node.input if name]
        if len(arrays) != len(names):
            raise DMLError(E_INVALIDARG, f"{node.op_type} node {node.name!r} takes {len(names)} inputs, got "
                                         f"{len(arrays)}")
        graph = helper.make_graph([node], "run_node", [
            helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(a.dtype), list(a.shape))
            for name, a in zip(names, arrays, strict=True)],
            [onnx.ValueInfoProto(name=name) for name in node.output if name])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", defs.onnx_opset_version())])
        return tuple(run_lowered(model, dict(zip(names, arrays, strict=True)), device_for(device)))

    @classmethod
    def supports_device(cls, device: str) -> bool:
        try:
            resolve_adapter(device)
        except DMLError:
            return False
        return True


is_compatible = DmlsimBackend.is_compatible
prepare = DmlsimBackend.prepare
run_model = DmlsimBackend.run_model
run = DmlsimBackend.run_model
run_node = DmlsimBackend.run_node
supports_device = DmlsimBackend.supports_device
