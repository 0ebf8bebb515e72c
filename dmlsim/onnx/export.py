"""``dmlsim export model.onnx -o DIR``: an ONNX model's lowered DirectML graph written as a plain DxDispatch model.

The model is lowered for one set of inputs (``--input``/``--dim``/``--seed`` as ``dmlsim run`` takes them) on the
reference device, and the GraphBuilder's graph is written out node by node, as DxDispatch runs a model:

- **resources**: one buffer per graph input, weight, constant and node output. Graph inputs hold the inputs of the
  export (``inputs/<name>.npy``), weights their bytes (``weights/<name>.npy``: binary files beside the model),
  the few-byte constants inline; node outputs start as zeros. Each buffer is as large as the largest desc bound to
  it needs (a reader's broadcast or strided view included), so every binding is whole.
- **dispatchables**: one per DirectML node, its desc in DxDispatch's own form (:mod:`dmlsim.model.dxjson`). The
  graph binds weights OWNED_BY_DML to its initializer; a single operator dispatch binds them as ordinary inputs,
  so the flag is cleared (what is computed is the same).
- **commands**: a dispatch per node in the graph's (topological) order, then a ``writeFile`` of each graph output
  as ``<output>.npy`` in the output's ONNX shape (bool outputs as their UINT8 bytes): ``dmlsim run DIR/<model>.json
  --output_path OUT`` writes the outputs ``dmlsim run model.onnx --output_path OUT`` writes, on the same inputs.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import numpy as np

from dmlsim.api.enums import DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE, DML_TENSOR_FLAGS
from dmlsim.api.errors import E_NOTIMPL, DMLError
from dmlsim.api.structs import DML_OPERATOR_DESC
from dmlsim.api.tensor import NUMPY_DTYPE, SUB_BYTE_TYPES, DMLCalcBufferTensorSize
from dmlsim.onnx.lowering import dml_type


def _safe(name: str, taken: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", name).strip(".") or "value"
    safe, n = base, 1
    while safe.lower() in taken:
        n += 1
        safe = f"{base}-{n}"
    taken.add(safe.lower())
    return safe


def _bytes_needed(tensor: Any) -> int:
    body = tensor.Desc
    if body.TotalTensorSizeInBytes:
        return int(body.TotalTensorSizeInBytes)
    sizes = [int(s) for s in body.Sizes]
    return DMLCalcBufferTensorSize(body.DataType, len(sizes), sizes, None if body.Strides is None
                                   else [int(s) for s in body.Strides])


def _bound_tensors(builder: Any) -> dict[str, list[Any]]:
    """Every tensor desc bound to each value, readers and writer."""
    from dmlsim.graph_builder import _each

    bound: dict[str, list[Any]] = {name: [] for name in builder.values}
    for node in builder.nodes:
        for wiring in (node.inputs, node.outputs):
            for field, element, name in _each(wiring):
                tensor = getattr(node.desc, field)
                bound[name].append(tensor if element is None else tensor[element])
    return bound


def export_document(lowered: Any, feeds: dict[str, np.ndarray],
                    stem: str) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The DxDispatch JSON document of a LoweredGraph and the arrays to write beside it (relative path → array)."""
    from dmlsim.graph_builder import _each
    from dmlsim.model import dxjson

    builder = lowered.builder
    bound = _bound_tensors(builder)
    taken: set[str] = set()
    names = {name: _safe(name, taken) for name in builder.values}
    resources: dict[str, Any] = {}
    arrays: dict[str, np.ndarray] = {}
    for name, value in builder.values.items():
        tensors = bound[name]
        if not tensors:
            continue
        data_type = int((value.tensor if value.kind == "input" else tensors[0]).Desc.DataType)
        if data_type in SUB_BYTE_TYPES:
            kind = DML_TENSOR_DATA_TYPE(data_type).name
            raise DMLError(E_NOTIMPL, f"exporting {name!r}: a {kind} tensor (two values per byte) has no DxDispatch "
                                      "resource form dmlsim writes (their values are whole bytes and up)")
        dtype = NUMPY_DTYPE[data_type]
        type_name = DML_TENSOR_DATA_TYPE(data_type).name
        if value.kind == "input":
            array = np.ascontiguousarray(np.asarray(feeds[name]).astype(dtype))
            relative = f"inputs/{names[name]}.npy"
            arrays[relative] = array
            initial: Any = {"sourcePath": relative}
            held = array.nbytes
        elif value.kind == "weight":
            array = np.frombuffer(value.data, dtype).copy()
            relative = f"weights/{names[name]}.npy"
            arrays[relative] = array
            initial, held = {"sourcePath": relative}, array.nbytes
        elif value.kind == "constant":
            initial, held = dxjson.values(np.frombuffer(value.data, dtype)), len(value.data)
        else:
            writer = tensors[0]  # the writer's desc comes first: nodes are in topological order
            count = int(np.prod([int(s) for s in writer.Desc.Sizes]))
            initial, held = {"valueCount": count, "value": 0}, count * dtype.itemsize
        size = max([(held + 3) & ~3] + [_bytes_needed(t) for t in tensors])
        resources[names[name]] = {"initialValuesDataType": type_name, "initialValues": initial, "sizeInBytes": size}
    dispatchables: dict[str, Any] = {}
    commands: list[dict[str, Any]] = []
    owned = int(DML_TENSOR_FLAGS.DML_TENSOR_FLAG_OWNED_BY_DML)
    for index, node in enumerate(builder.nodes):
        desc = copy.deepcopy(node.desc)
        for field, element, _name in _each(node.inputs):
            tensor = getattr(desc, field) if element is None else getattr(desc, field)[element]
            tensor.Desc.Flags = int(tensor.Desc.Flags or 0) & ~owned
        op_name = DML_OPERATOR_TYPE(node.op_type).name
        key = f"node{index}_{op_name.removeprefix('DML_OPERATOR_').lower()}"
        dispatchables[key] = {"type": op_name, "desc": dxjson.operator_desc(DML_OPERATOR_DESC(node.op_type, desc))}
        bindings: dict[str, Any] = {}
        for wiring in (node.inputs, node.outputs):
            for field, wired in wiring.items():
                bindings[field] = [names[n] for n in wired] if isinstance(wired, list) else names[wired]
        commands.append({"type": "dispatch", "dispatchable": key, "bindings": bindings})
    for output in lowered.output_names:
        if output in lowered.device_outputs:
            builder_name, view = lowered.device_outputs[output]
            resource = names[builder_name]
            dims = list(view.shape) or [1]
        else:
            array = np.asarray(lowered.host_outputs[output])
            array = array.astype(np.uint8) if array.dtype == np.bool_ else array
            resource = _safe(f"host_{output}", taken)
            relative = f"outputs/{resource}.npy"
            arrays[relative] = np.ascontiguousarray(array)
            resources[resource] = {"initialValuesDataType": DML_TENSOR_DATA_TYPE(dml_type(array.dtype, output)).name,
                                   "initialValues": {"sourcePath": relative}}
            dims = list(array.shape) or [1]
        commands.append({"type": "writeFile", "targetPath": f"{_safe(output, set())}.npy", "resource": resource,
                         "dimensions": dims})
    document = {"resources": resources, "dispatchables": dispatchables, "commands": commands}
    return document, arrays


def export_onnx(path: Path, folder: Path, feeds_of: Any) -> tuple[Path, int]:
    """Lower ``path`` for the inputs ``feeds_of(model)`` gives and write ``folder/<stem>.json`` with its files;
    the model file's path and the number of dispatches."""
    import dmlsim as dml
    from dmlsim.model.corpus import dumps
    from dmlsim.onnx.model_file import load
    from dmlsim.onnx.run_model import check_lowerable, lower

    model = load(path)
    check_lowerable(model)
    feeds = feeds_of(model)
    device = dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, adapter="reference")
    lowered = lower(model, feeds, device)
    document, arrays = export_document(lowered, feeds, path.stem)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{path.stem}.json"
    target.write_text(dumps(document) + "\n", encoding="utf-8")
    for relative, array in arrays.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        np.save(folder / relative, array)
    return target, len(lowered.builder.nodes)
