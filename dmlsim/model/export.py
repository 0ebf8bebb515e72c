"""A dmlsim model as a plain DxDispatch model plus a manifest of what its results must be (``dmlsim export``).

DxDispatch has no expectations, no YAML, no random initializers, no ``repeat``/``increment``/``add``
and no dmlsim extension operators, so a model is translated (:func:`export_model`):

- resources keep their bytes: small lists and constants stay inline; random and file initializers
  (and any list over :data:`INLINE_LIMIT` values) become ``.npy`` files beside the model;
- dispatchables are written in DxDispatch's own form (:mod:`dmlsim.model.dxjson`);
- ``repeat: N`` becomes N dispatch commands; each ``increment`` after an execution, and each ``add``
  command, becomes a dispatch of an in-place DML_OPERATOR_ELEMENT_WISE_ADD of the resource and a
  constant resource holding the value (one ``dmlsim_add_*`` dispatchable per resource, one
  ``dmlsim_add_*`` constant per resource and value): the same arithmetic in the resource's type;
- every ``expect`` becomes a ``writeFile`` of its resource at that point (DxDispatch writes the whole
  buffer) and a manifest check: the expected values (the file's, or, for ``reference: true``, those
  dmlsim's reference device computes at export time), the tolerance, and where the values sit in
  the written buffer;
- what cannot run on DxDispatch is left out and listed in the manifest with the reason: steps that
  expect a refusal (``expectError``: DxDispatch stops at the first error), dispatchables of dmlsim
  extension operators and their dispatches, and expectations after a left-out step that changed
  resources in dmlsim's run (their resources would differ).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_ELEMENT_WISE_ADD_OPERATOR_DESC
from dmlsim.api.enums import (
    DML_CREATE_DEVICE_FLAGS,
    DML_EXECUTION_FLAGS,
    DML_OPERATOR_TYPE,
    DMLSIM_EXTENSION_OPERATOR_BASE,
)
from dmlsim.api.errors import DMLError
from dmlsim.api.structs import DML_OPERATOR_DESC, buffer_tensor
from dmlsim.api.tensor import data_type_name
from dmlsim.model import dxjson
from dmlsim.model.model import (
    Add,
    BindingRef,
    Command,
    Dispatch,
    DispatchableSpec,
    Expect,
    Model,
    Print,
    Resource,
    WriteFile,
)
from dmlsim.model.runner import (
    FAILED,
    INVALID,
    RunResult,
    _title,  # the command's name as run and validate report it
    reference_snapshots,
)
from dmlsim.operators.validation import validate_operator_desc

MANIFEST_FORMAT = "dmlsim-dxdispatch-export"
MANIFEST_VERSION = 1
INLINE_LIMIT = 64  # values written inline in the JSON; longer initializers and expectations go to .npy files
DXDISPATCH_ALIGNMENT = 16  # DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT: a binding offset's multiple
REFERENCE_NOTE = ("expected values of 'reference: true' expectations were computed by dmlsim's numpy reference "
                  "device (float64 arithmetic, results stored in the resource's type) when the model was exported: "
                  "an export choice, the values the emulator's own reference gives, not an independent oracle")


class NotExportableError(Exception):
    """The model as a whole cannot be exported (the message says why)."""


@dataclass
class ModelExport:
    """One exported model: the DxDispatch document, its manifest, and the arrays to save beside it."""

    stem: str
    document: dict[str, Any]
    manifest: dict[str, Any]
    arrays: dict[str, np.ndarray] = field(default_factory=dict)  # path relative to the export folder → data


def export_model(model: Model, stem: str, *, result_suffix: str = ".npy") -> ModelExport:
    """Translate ``model`` (see the module docstring); NotExportableError when nothing of it can run on DxDispatch."""
    return _Exporter(model, stem, result_suffix).run()


def safe_name(name: str) -> str:
    """``name`` as a file-name part: characters other than letters, digits, ``_ . -`` become ``_``."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "_"


class _Exporter:
    def __init__(self, model: Model, stem: str, result_suffix: str) -> None:
        self.model = model
        self.stem = stem
        self.result_suffix = result_suffix
        self.data_dir = f"{stem}.data"
        self.arrays: dict[str, np.ndarray] = {}
        self.left_out: list[dict[str, Any]] = []
        self.checks: list[dict[str, Any]] = []
        self.commands: list[dict[str, Any]] = []
        self.names = set(model.resources) | set(model.dispatchables)
        self.adders: dict[str, str] = {}  # resource → its ELEMENT_WISE_ADD dispatchable
        self.addends: dict[tuple[str, Any], str] = {}  # (resource, value) → its constant resource
        self.extra_resources: dict[str, dict[str, Any]] = {}
        self.extra_dispatchables: dict[str, dict[str, Any]] = {}

    # --- driver ---------------------------------------------------------------------------------
    def run(self) -> ModelExport:
        model = self.model
        reference = reference_snapshots(model, int(model.device_flags))
        invalid = [o for o in reference.outcomes.values() if o.status == INVALID]
        if invalid:
            raise NotExportableError(f"the model is invalid on dmlsim's reference device: {invalid[0].describe()}")
        exported = {name: spec for name, spec in model.dispatchables.items() if self._dispatchable_ok(spec)}
        self._commands(exported, reference)
        if not any(c["type"] == "dispatch" and c["dispatchable"] in exported for c in self.commands):
            reasons = sorted({item["why"] for item in self.left_out
                              if not item["why"].startswith(("an earlier step", "dispatchable '"))})
            raise NotExportableError("none of its dispatches can run on DxDispatch: "
                                + ("; ".join(reasons) or "it dispatches nothing"))
        document = {
            "resources": {**{name: self._resource(r) for name, r in model.resources.items()}, **self.extra_resources},
            "dispatchables": {**{name: self._dispatchable(s) for name, s in exported.items()},
                              **self.extra_dispatchables},
            "commands": self.commands,
        }
        return ModelExport(self.stem, document, self._manifest(), self.arrays)

    def _manifest(self) -> dict[str, Any]:
        model = self.model
        manifest: dict[str, Any] = {"format": MANIFEST_FORMAT, "version": MANIFEST_VERSION,
                                    "source": str(model.path), "model": f"{self.stem}.json"}
        if model.device_flags:  # for the reader: DxDispatch has no such key (its -d turns on the debug layers)
            manifest["createDeviceFlags"] = dxjson.flag_names(DML_CREATE_DEVICE_FLAGS, model.device_flags)
        if model.required_data_types:
            manifest["requiredDataTypes"] = [data_type_name(t) for t in model.required_data_types]
        if any(c["expectedFrom"] == "reference" for c in self.checks):
            manifest["referenceNote"] = REFERENCE_NOTE
        manifest["checks"] = self.checks
        manifest["notExported"] = self.left_out
        return manifest

    def _leave_out(self, what: str, node: Any, why: str) -> None:
        self.left_out.append({"what": what, "location": _where(node), "why": why})

    # --- dispatchables --------------------------------------------------------------------------
    def _dispatchable_ok(self, spec: DispatchableSpec) -> bool:
        what = f"dispatchable '{spec.name}'"
        if spec.expect_error is not None:
            self._leave_out(what, spec.node, "it expects a refusal (expectError); DxDispatch stops at the first "
                                             "error, so a refused step cannot run there")
            return False
        if spec.op is not None and spec.op.type >= DMLSIM_EXTENSION_OPERATOR_BASE:
            self._leave_out(what, spec.node, f"{spec.op.name} is a dmlsim extension operator, which DirectML "
                                             "does not have")
            return False
        return True

    def _dispatchable(self, spec: DispatchableSpec) -> dict[str, Any]:
        assert spec.desc is not None
        out: dict[str, Any] = {"type": dxjson.enum_name(DML_OPERATOR_TYPE, spec.desc.Type),
                               "desc": dxjson.operator_desc(spec.desc)}
        if spec.execution_flags:
            out["executionFlags"] = dxjson.flag_names(DML_EXECUTION_FLAGS, spec.execution_flags)
        if spec.compile_type != "DmlCompileOp":
            out["dmlCompileType"] = spec.compile_type
        if spec.initializer_bindings:
            out["bindings"] = {point: self._binding(ref) for point, ref in spec.initializer_bindings.items()}
        return out

    # --- resources ------------------------------------------------------------------------------
    def _resource(self, resource: Resource) -> dict[str, Any]:
        out: dict[str, Any] = {"initialValuesDataType": data_type_name(resource.data_type)}
        initial = resource.node.get("initialValues")
        generated = initial is not None and initial.is_map and ("seed" in initial or "sourcePath" in initial)
        values = resource.values
        if generated or values.size > INLINE_LIMIT:
            path, n = f"{self.data_dir}/{safe_name(resource.name)}.npy", 1
            while path.lower() in {p.lower() for p in self.arrays}:  # "a b" and "a_b"; Windows ignores case
                n += 1
                path = f"{self.data_dir}/{safe_name(resource.name)}-{n}.npy"
            self.arrays[path] = values.astype(resource.dtype)
            out["initialValues"] = {"sourcePath": path}
        elif values.size > 1 and (values.view(f"u{resource.dtype.itemsize}") == values.view(
                f"u{resource.dtype.itemsize}")[0]).all():
            out["initialValues"] = {"valueCount": int(values.size), "value": dxjson.number(values[0])}
        else:
            out["initialValues"] = dxjson.values(values)
        out["sizeInBytes"] = resource.size_in_bytes
        if resource.offset:
            out["initialValuesOffsetInBytes"] = resource.offset
        return out

    def _binding(self, ref: BindingRef | list[BindingRef]) -> Any:
        if isinstance(ref, list):
            return [self._binding(r) for r in ref]
        if not ref.offset:
            return ref.resource
        size = self.model.resources[ref.resource].dtype.itemsize
        size = size if ref.offset % size == 0 else 1
        return {"name": ref.resource, "elementOffset": ref.offset // size, "elementSizeInBytes": size}

    # --- commands -------------------------------------------------------------------------------
    def _commands(self, exported: dict[str, DispatchableSpec], reference: RunResult) -> None:
        diverged: str | None = None  # why later expectations no longer describe DxDispatch's resources
        for command in self.model.commands:
            what = _title(command)
            if command.expect_error is not None:
                self._leave_out(what, command.node, "it expects a refusal (expectError); DxDispatch stops at the "
                                                    "first error, so a refused step cannot run there")
                if reference.outcomes[command.key].status == FAILED:  # not refused after all: it changed things
                    diverged = diverged or f"{what} is not exported and was not refused in dmlsim's run"
            elif isinstance(command, Dispatch) and command.dispatchable not in exported:
                self._leave_out(what, command.node, f"dispatchable '{command.dispatchable}' is not exported")
                diverged = diverged or f"{what} is not exported, so the resources differ from dmlsim's run"
            elif isinstance(command, Dispatch):
                for _ in range(command.repeat):
                    self.commands.append({"type": "dispatch", "dispatchable": command.dispatchable,
                                          "bindings": {p: self._binding(r) for p, r in command.bindings.items()}})
                    for name, value in command.increments:
                        self._add(name, value, command)
            elif isinstance(command, Add):
                self._add(command.resource, command.value, command)
            elif isinstance(command, Print):
                self.commands.append({"type": "print", "resource": command.resource, "verbose": command.verbose})
            elif isinstance(command, WriteFile):
                out: dict[str, Any] = {"type": "writeFile", "resource": command.resource,
                                       "targetPath": command.target}
                if command.dimensions is not None:
                    out["dimensions"] = command.dimensions
                self.commands.append(out)
            elif isinstance(command, Expect):
                if diverged:
                    self._leave_out(what, command.node, f"an earlier step is left out: {diverged}")
                else:
                    self._expect(command, reference)

    def _expect(self, command: Expect, reference: RunResult) -> None:
        resource = self.model.resources[command.resource]
        if command.reference:
            expected = reference.snapshots.get(command.index)
            if expected is None:
                self._leave_out(_title(command), command.node, "dmlsim's reference device did not reach this "
                                                               "command, so there is no reference value")
                return
        else:
            assert command.values is not None
            expected = command.values
        target = f"{self.stem}/command-{command.index}-{safe_name(command.resource)}{self.result_suffix}"
        self.commands.append({"type": "writeFile", "resource": command.resource, "targetPath": target})
        if expected.size > INLINE_LIMIT:
            path = f"{self.data_dir}/expected-command-{command.index}.npy"
            self.arrays[path] = expected
            values: Any = {"sourcePath": path}
        else:
            values = dxjson.values(expected)
        tolerance = {k: v for k, v in (("ulp", command.ulp), ("rtol", command.rtol), ("atol", command.atol))
                     if v is not None}
        self.checks.append({"command": command.index, "location": _where(command.node), "resource": command.resource,
                            "file": target, "dataType": data_type_name(resource.data_type),
                            "byteOffset": resource.offset, "count": int(resource.values.size),
                            "bufferSizeInBytes": resource.size_in_bytes, "expected": values,
                            "tolerance": tolerance, "expectedFrom": "reference" if command.reference else "values"})

    # --- add / increment as ELEMENT_WISE_ADD ----------------------------------------------------
    def _add(self, name: str, value: Any, command: Command) -> None:
        """A dispatch adding ``value`` to every element of resource ``name``, in place."""
        resource = self.model.resources[name]
        if name not in self.adders:
            if resource.offset % DXDISPATCH_ALIGNMENT:
                raise NotExportableError(f"{_where(command.node)}: resource '{name}' starts at byte {resource.offset}, "
                                    f"not a multiple of {DXDISPATCH_ALIGNMENT}: its add/increment cannot be bound "
                                    "to an ELEMENT_WISE_ADD")
            tensor = buffer_tensor(resource.data_type, [1, 1, 1, int(resource.values.size)])
            desc = DML_OPERATOR_DESC(DML_OPERATOR_TYPE.DML_OPERATOR_ELEMENT_WISE_ADD,
                                     DML_ELEMENT_WISE_ADD_OPERATOR_DESC(tensor, tensor, tensor))
            try:
                validate_operator_desc(desc)
            except DMLError as exc:
                raise NotExportableError(f"{_where(command.node)}: the add/increment of resource '{name}' cannot be an "
                                    f"ELEMENT_WISE_ADD: {exc}") from None
            adder = self._fresh(f"dmlsim_add_{name}")
            self.adders[name] = adder
            self.extra_dispatchables[adder] = {"type": "DML_OPERATOR_ELEMENT_WISE_ADD",
                                               "desc": dxjson.operator_desc(desc)}
        typed = np.asarray(value).astype(resource.dtype)[()]
        key = (name, typed.tobytes())
        if key not in self.addends:
            addend = self._fresh(f"dmlsim_add_{name}_value{len(self.addends)}")
            self.addends[key] = addend
            self.extra_resources[addend] = {
                "initialValuesDataType": data_type_name(resource.data_type),
                "initialValues": {"valueCount": int(resource.values.size),
                                  "value": dxjson.number(typed)},
                "sizeInBytes": (resource.values.nbytes + 3) & ~3}
        target = self._binding(BindingRef(name, resource.offset, command.node))
        self.commands.append({"type": "dispatch", "dispatchable": self.adders[name],
                              "bindings": {"ATensor": target, "BTensor": self.addends[key], "OutputTensor": target}})

    def _fresh(self, base: str) -> str:
        name, n = base, 1
        while name in self.names:
            n += 1
            name = f"{base}_{n}"
        self.names.add(name)
        return name


def _where(node: Any) -> str:
    location = node.location
    return f"{location.file}:{location.line}:{location.column}"


