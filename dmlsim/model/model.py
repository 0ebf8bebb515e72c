"""The model document: resources, dispatchables and commands, parsed and checked for consistency.

This is the *parse* stage of DxDispatch's split (parse → create → bind → dispatch → time): nothing
here touches a device. Every parsed element keeps its :class:`Node`, so later stages can point at
the file position of whatever a device refuses.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dmlsim.api.enums import (
    DML_CREATE_DEVICE_FLAGS,
    DML_EXECUTION_FLAGS,
    DML_TENSOR_DATA_TYPE,
)
from dmlsim.api.errors import HRESULT_NAMES, DMLError, hresult_from_name
from dmlsim.api.schema import INPUT, OUTPUT
from dmlsim.api.structs import DML_OPERATOR_DESC
from dmlsim.api.tensor import NUMPY_DTYPE, SUB_BYTE_TYPES
from dmlsim.model.descs import missing_type, parse_flags, parse_operator_desc, parse_operator_type, unknown_key
from dmlsim.model.errors import Diagnostics, show
from dmlsim.model.limits import Budget, Limits
from dmlsim.model.loader import Node, root_node
from dmlsim.model.targets import check_target
from dmlsim.model.values import FLOAT_TYPES, Sources, as_float, parse_data_type, parse_values, required, scalar
from dmlsim.operators.base import Operator

TOP_KEYS = ["$schema", "resources", "dispatchables", "commands", "createDeviceFlags", "requiredDataTypes"]
RESOURCE_KEYS = ["type", "initialValuesDataType", "initialValues", "sizeInBytes", "initialValuesOffsetInBytes"]
DISPATCHABLE_KEYS = ["type", "desc", "Desc", "executionFlags", "dmlCompileType", "bindings", "expectError"]
COMPILE_TYPES = ("DmlCompileOp", "DmlCompileGraph")
UNSUPPORTED_DISPATCHABLES = {"hlsl", "onnx", "dmlserializedgraph", "dml_graph_desc"}
COMMAND_KEYS = {
    "dispatch": ["type", "dispatchable", "bindings", "threadGroupCount", "repeat", "increment", "expectError"],
    "print": ["type", "resource", "verbose", "expectError"],
    "writefile": ["type", "resource", "targetPath", "dimensions", "expectError"],
    "expect": ["type", "resource", "values", "reference", "rtol", "atol", "ulp", "expectError"],
    "add": ["type", "resource", "value", "expectError"],
}
BINDING_KEYS = ["name", "elementOffset", "elementCount", "elementSizeInBytes"]
HLSL_BINDING_KEYS = {"format", "counter", "counterOffsetBytes", "shape"}


@dataclass
class Resource:
    """A buffer and its initial contents (values at ``offset``; the rest is zero)."""

    name: str
    data_type: int
    values: np.ndarray
    size_in_bytes: int
    offset: int
    node: Node

    @property
    def dtype(self) -> np.dtype:
        return NUMPY_DTYPE[self.data_type]


@dataclass
class ExpectedError:
    """``expectError: {hresult: E_INVALIDARG, match: "regex"}``: the step must be refused like this."""

    hresult: int
    match: str | None
    node: Node

    def mismatch(self, error: DMLError | None) -> str | None:
        """Why ``error`` (None: no error happened) is not the expected refusal; None when it is."""
        want = HRESULT_NAMES.get(self.hresult, f"0x{self.hresult:08X}")
        if self.match:
            want += f" matching /{self.match}/"
        if error is None:
            return f"expected a refusal ({want}), but the call succeeded"
        if error.hresult != self.hresult or (self.match and not re.search(self.match, str(error))):
            return f"expected a refusal ({want}), got: {error}"
        return None


@dataclass
class DispatchableSpec:
    name: str
    op: Operator | None
    desc: DML_OPERATOR_DESC | None
    execution_flags: int
    expect_error: ExpectedError | None
    node: Node
    desc_node: Node
    type_node: Node | None = None
    compile_type: str = "DmlCompileOp"  # DmlCompileGraph: a one-node graph, which computes the same
    # dispatchable-level ``bindings``: the operator initializer's inputs (OWNED_BY_DML tensors)
    initializer_bindings: dict[str, Any] = field(default_factory=dict)

    @property
    def implemented(self) -> bool:
        return self.op is not None and self.op.implemented


@dataclass
class BindingRef:
    """One resource bound to a bind point: Offset = elementOffset·elementSizeInBytes, size = the rest."""

    resource: str
    offset: int
    node: Node


@dataclass
class Command:
    index: int
    kind: str
    node: Node
    expect_error: ExpectedError | None

    @property
    def key(self) -> str:
        return f"command-{self.index}"


@dataclass
class Dispatch(Command):
    dispatchable: str = ""
    bindings: dict[str, BindingRef | list[BindingRef]] = field(default_factory=dict)
    repeat: int = 1
    increments: list[tuple[str, Any]] = field(default_factory=list)


@dataclass
class Print(Command):
    resource: str = ""
    verbose: bool = False


@dataclass
class WriteFile(Command):
    resource: str = ""
    target: str = ""
    dimensions: list[int] | None = None


@dataclass
class Expect(Command):
    resource: str = ""
    values: np.ndarray | None = None
    reference: bool = False
    rtol: float | None = None
    atol: float | None = None
    ulp: float | None = None


@dataclass
class Add(Command):
    resource: str = ""
    value: Any = 0


@dataclass
class Model:
    path: Path
    root: Node
    resources: dict[str, Resource]
    dispatchables: dict[str, DispatchableSpec]
    commands: list[Command]
    device_flags: int = 0
    required_data_types: list[DML_TENSOR_DATA_TYPE] = field(default_factory=list)
    limits: Limits = field(default_factory=Limits)
    budget: Budget | None = None

    @property
    def needs_reference(self) -> bool:
        return any(isinstance(c, Expect) and c.reference for c in self.commands)


def load_model(path: str | Path, text: str | None = None, limits: Limits | None = None) -> Model:
    """Parse and check a model file; ModelError listing every problem with its location.

    ``limits``: the memory budget and the folders ``sourcePath`` may read (default: the model's folder,
    256 MiB); every size the file implies is checked against them before anything is allocated or read.
    """
    path = Path(path)
    limits = limits or Limits()
    root = root_node(path, text, limits)
    problems = Diagnostics()
    if not root.is_map:
        problems.add(root.location, "a model file must be an object with 'resources', 'dispatchables' and "
                                    "'commands'")
        problems.raise_if_any()
    for key in root.value:
        if key not in TOP_KEYS and not key.startswith("x-"):
            unknown_key(root, key, TOP_KEYS, "the model (extra keys must start with 'x-')", problems)
    sections = {}
    for key, kind in (("resources", dict), ("dispatchables", dict), ("commands", list)):
        node = root.get(key)
        if node is None:
            problems.add(root.location, f"missing required key '{key}'")
        elif not isinstance(node.value, kind):
            problems.add(node.location, f"'{key}' must be {'an object' if kind is dict else 'a list'}")
        else:
            sections[key] = node
    problems.raise_if_any()
    flags = 0
    if (flags_node := root.get("createDeviceFlags")) is not None:
        flags = parse_flags(flags_node, DML_CREATE_DEVICE_FLAGS, problems) or 0
    required: list[DML_TENSOR_DATA_TYPE] = []
    if (required_node := root.get("requiredDataTypes")) is not None:
        if not required_node.is_list:
            problems.add(required_node.location, "'requiredDataTypes' must be a list of data types, e.g. [FLOAT64]")
        else:
            required = [t for item in required_node.elements()
                        if (t := parse_data_type(item, problems)) is not None]
    budget = Budget(limits)
    sources = Sources(path.parent, limits)
    resources = {name: r for name, node in sections["resources"].items()
                 if (r := _parse_resource(name, node, sources, budget, problems)) is not None}
    dispatchables = {name: d for name, node in sections["dispatchables"].items()
                     if (d := _parse_dispatchable(name, node, problems)) is not None}
    model = Model(path, root, resources, dispatchables, [], flags, required, limits, budget)
    for spec in dispatchables.values():
        if (init_node := spec.node.get("bindings")) is not None:
            spec.initializer_bindings = _parse_bindings(init_node, spec, model, sections, problems, inputs_only=True)
    for i, node in enumerate(sections["commands"].elements()):
        command = _parse_command(i, node, model, sections, problems)
        if command is not None:
            model.commands.append(command)
    problems.raise_if_any()
    return model


def _check_keys(node: Node, known: list[str], what: str, problems: Diagnostics) -> bool:
    if not node.is_map:
        problems.add(node.location, f"{what} must be an object, got {show(node.value)}")
        return False
    for key in node.value:
        if key not in known:
            unknown_key(node, key, known, what, problems)
    return True


def _parse_expected_error(node: Node | None, problems: Diagnostics) -> ExpectedError | None:
    if node is None:
        return None
    if not _check_keys(node, ["hresult", "match"], "expectError", problems):
        return None
    hresult_node = node.get("hresult")
    hresult = 0x80070057
    if hresult_node is not None:
        value = hresult_node.value
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**32:
            hresult = value
        elif isinstance(value, str) and len(value) < 64:
            try:
                hresult = hresult_from_name(value)
            except ValueError as exc:
                problems.add(hresult_node.location, str(exc))
        else:
            problems.add(hresult_node.location, f"hresult must be a name such as E_INVALIDARG or a 32-bit "
                                                f"number, got {show(value)}")
    match_node = node.get("match")
    match = None
    if match_node is not None:
        if isinstance(match_node.value, (dict, list)):
            problems.add(match_node.location, f"match must be a regular expression, got {show(match_node.value)}")
            return None
        match = str(match_node.value)
        try:
            re.compile(match)
        except re.error as exc:
            problems.add(match_node.location, f"match is not a valid regular expression: {exc}")
    return ExpectedError(hresult, match, node)


def _parse_resource(name: str, node: Node, sources: Sources, budget: Budget, problems: Diagnostics
                    ) -> Resource | None:
    if not _check_keys(node, RESOURCE_KEYS, f"resource '{name}'", problems):
        return None
    before = problems.count
    if (type_node := node.get("type")) is not None and type_node.value != "buffer":
        problems.add(type_node.location, f"only 'buffer' resources exist, got {show(type_node.value)}")
    data_type = None
    if (dt_node := node.get("initialValuesDataType")) is not None:
        data_type = parse_data_type(dt_node, problems)
        if data_type in SUB_BYTE_TYPES:  # DxDispatch's buffer helpers size values in whole bytes
            problems.add(dt_node.location, f"{data_type.name.removeprefix('DML_TENSOR_DATA_TYPE_')}: 4-bit values "
                         "are two per byte; give a 4-bit tensor's bytes as UINT8 (element 2k in the low nibble of byte "
                         "k, 2k + 1 in the high one)")
            data_type = None
    offset, size = 0, None
    if (off_node := node.get("initialValuesOffsetInBytes")) is not None:
        offset = off_node.value
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            problems.add(off_node.location, f"expected a non-negative integer, got {show(offset)}")
    if (size_node := node.get("sizeInBytes")) is not None:
        size = size_node.value
        if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
            problems.add(size_node.location, f"sizeInBytes must be a positive integer, got {show(size)}")
    values_node = required(node, "initialValues", problems)
    if values_node is None or problems.count > before:
        return None
    if data_type is None and dt_node is None and not (values_node.is_map and "sourcePath" in values_node):
        problems.add(node.location, "missing required key 'initialValuesDataType'")
    final_size = [0]

    def reserve(nbytes: int, where: Node) -> bool:
        """The buffer's size from the values' byte count, checked and charged to the budget before they exist."""
        data_bytes = nbytes + offset
        if size is not None and size < data_bytes:
            problems.add(size_node.location, f"the buffer size ({size} bytes) is too small for the "  # type: ignore[union-attr]
                                             f"initialValues ({nbytes} bytes) at offset {offset} bytes")
            return False
        final_size[0] = (data_bytes + 3) & ~3 if size is None else size
        refusal = budget.refusal(final_size[0], f"resource '{name}' ({final_size[0]} bytes)")
        if refusal:
            problems.add((size_node if size is not None and size > data_bytes else where).location, refusal)
            return False
        return True

    values, data_type = parse_values(values_node, data_type, sources, problems, reserve=reserve)
    if values is None or data_type is None or problems.count > before:
        return None
    return Resource(name, data_type, values, final_size[0], offset, node)


def _parse_dispatchable(name: str, node: Node, problems: Diagnostics) -> DispatchableSpec | None:
    """A DirectML operator dispatchable. Operators dmlsim does not implement are parsed and checked the
    same way (their generated desc); CreateOperator refuses them with E_NOTIMPL only once all is valid."""
    if not node.is_map:
        problems.add(node.location, f"dispatchable '{name}' must be an object")
        return None
    type_node = node.get("type")  # DxDispatch requires "type" here ("Type" names a nested operator's)
    if type_node is None:
        missing_type(node, "type", f"dispatchable '{name}'", problems)
        return None
    if not isinstance(type_node.value, (str, int)) or isinstance(type_node.value, bool):
        problems.add(type_node.location, f"type must be an operator name, got {show(type_node.value)}")
        return None
    if isinstance(type_node.value, str) and type_node.value.lower() in UNSUPPORTED_DISPATCHABLES:
        problems.add(type_node.location, f"'{type_node.value}' dispatchables are not supported: dmlsim runs "
                                         "DirectML operators only")
        return None
    op = parse_operator_type(type_node, problems)
    if op is None:
        return None
    desc_node = node.get("Desc") or node.get("desc")
    if desc_node is None:  # DxDispatch: the desc's fields may sit on the dispatchable itself
        desc_node = node.without(*DISPATCHABLE_KEYS)
        known = DISPATCHABLE_KEYS + [f.name for f in dataclasses.fields(op.desc_cls)]
    else:
        known = DISPATCHABLE_KEYS
    for key in node.value:
        if key not in known:
            unknown_key(node, key, known, f"dispatchable '{name}'", problems)
    flags = 0
    if (flags_node := node.get("executionFlags")) is not None:
        flags = parse_flags(flags_node, DML_EXECUTION_FLAGS, problems) or 0
    compile_type = "DmlCompileOp"
    if (compile_node := node.get("dmlCompileType")) is not None:
        if compile_node.value not in COMPILE_TYPES:
            problems.add(compile_node.location, f"dmlCompileType must be one of {', '.join(COMPILE_TYPES)}, "
                                                f"got {show(compile_node.value)}")
        else:
            compile_type = compile_node.value
    expect = _parse_expected_error(node.get("expectError"), problems)
    desc = parse_operator_desc(desc_node, op, problems)
    return DispatchableSpec(name, op, None if desc is None else DML_OPERATOR_DESC(op.type, desc), flags, expect, node,
                            desc_node, type_node, compile_type)


def _parse_bindings(node: Node, spec: DispatchableSpec, model: Model, sections: dict[str, Node],
                    problems: Diagnostics, *, inputs_only: bool = False) -> dict[str, BindingRef | list[BindingRef]]:
    """``{bind point: resource}``: the dispatchable's tensor fields (inputs only for initializer bindings)."""
    if not node.is_map:
        problems.add(node.location, "bindings must be an object (bind point → resource)")
        return {}
    assert spec.op is not None
    roles = (INPUT,) if inputs_only else (INPUT, OUTPUT)
    rows = {row.name: row for row in spec.op.fields() if row.spec.role in roles}
    what = f"the {'initializer (input) ' if inputs_only else ''}bind points of {spec.op.name}"
    bindings: dict[str, BindingRef | list[BindingRef]] = {}
    for point, child in node.items():
        row = rows.get(point)
        if row is None:
            unknown_key(node, point, list(rows), what, problems)
            continue
        if child.is_list != row.is_array:
            shape = "a tensor array: bind a list" if row.is_array else "one tensor: bind one resource"
            problems.add(child.location, f"{point} is {shape}")
            continue
        items = child.elements() if child.is_list else [child]
        refs = [_binding_ref(item, model, sections, problems) for item in items]
        if any(r is None for r in refs):
            continue
        bindings[point] = refs if row.is_array else refs[0]  # type: ignore[assignment]
    return bindings


def _parse_command(index: int, node: Node, model: Model, sections: dict[str, Node], problems: Diagnostics
                   ) -> Command | None:
    if not node.is_map:
        problems.add(node.location, "a command must be an object with a 'type'")
        return None
    type_node = required(node, "type", problems)
    if type_node is None:
        return None
    kind = type_node.value.lower() if isinstance(type_node.value, str) else None
    if kind not in COMMAND_KEYS:
        problems.add(type_node.location, f"unrecognized command {show(type_node.value)} "
                                         f"(one of dispatch, print, writeFile, expect, add)")
        return None
    if not _check_keys(node, COMMAND_KEYS[kind], f"a {type_node.value} command", problems):
        return None
    expect_error = _parse_expected_error(node.get("expectError"), problems)
    resource = None
    if kind != "dispatch":
        resource = _resource_ref(required(node, "resource", problems), model, sections, problems)
        if resource is None:
            return None
    if kind == "print":
        verbose = strict_bool(node.get("verbose"), False, problems)
        return Print(index, kind, node, expect_error, resource.name, verbose)
    if kind == "writefile":
        target = required(node, "targetPath", problems)
        dims = node.get("dimensions")
        dimensions = None if dims is None else _parse_dimensions(dims, resource, problems)
        if target is None or (dims is not None and dimensions is None):
            return None
        if not check_target(target, problems):
            return None
        return WriteFile(index, kind, node, expect_error, resource.name, target.value, dimensions)
    if kind == "add":
        value_node = required(node, "value", problems)
        value = scalar(value_node, resource.data_type, problems) if value_node is not None else None
        return None if value is None else Add(index, kind, node, expect_error, resource.name, value)
    if kind == "expect":
        return _parse_expect(index, node, resource, expect_error, model, problems)
    return _parse_dispatch(index, node, expect_error, model, sections, problems)


def _resource_ref(node: Node | None, model: Model, sections: dict[str, Node], problems: Diagnostics
                  ) -> Resource | None:
    if node is None:
        return None
    name = node.value
    if not isinstance(name, str):
        problems.add(node.location, f"expected a resource name, got {show(name)}")
        return None
    if name in model.resources:
        return model.resources[name]
    if name not in sections["resources"].value:  # else already reported
        problems.add(node.location, f"unknown resource {show(name)} (resources: {_known(sections['resources'])})")
    return None


def _known(section: Node) -> str:
    """The names of a section, for "unknown X (Xs: ...)" messages (at most 20 of them)."""
    names = list(section.value)
    more = f", ... ({len(names) - 20} more)" if len(names) > 20 else ""
    return (", ".join(show(n)[1:-1] for n in names[:20]) or "none") + more


def _parse_dimensions(node: Node, resource: Resource, problems: Diagnostics) -> list[int] | None:
    """writeFile's ``dimensions``: positive integers whose product is the resource's element count."""
    if not node.is_list or not node.value:
        problems.add(node.location, f"dimensions must be a list of positive integers, got {show(node.value)}")
        return None
    dims = []
    for child in node.elements():
        if isinstance(child.value, bool) or not isinstance(child.value, int) or child.value <= 0:
            problems.add(child.location, f"a dimension must be a positive integer, got {show(child.value)}")
            return None
        dims.append(child.value)
    count = resource.values.size
    if len(dims) > 32 or math.prod(dims) != count:
        problems.add(node.location, f"dimensions {show(dims)} do not hold the {count} values of resource "
                                    f"'{resource.name}'")
        return None
    return dims


def _parse_expect(index: int, node: Node, resource: Resource, expect_error: ExpectedError | None, model: Model,
                  problems: Diagnostics) -> Expect | None:
    values_node = node.get("values")
    ref_node = node.get("reference")
    reference = bool(ref_node and ref_node.value is True)
    if ref_node is not None and not isinstance(ref_node.value, bool):
        problems.add(ref_node.location, "reference must be true or false")
    if (values_node is not None) == reference:
        problems.add(node.location, "an expect command needs either 'values' or 'reference: true'")
        return None
    tolerances: dict[str, float | None] = {}
    for key in ("rtol", "atol", "ulp"):
        child = node.get(key)
        tolerances[key] = None
        if child is not None:
            value = as_float(child, key, problems, special=False)
            if value is not None and not value >= 0:
                problems.add(child.location, f"{key} must be a non-negative number, got {show(child.value)}")
            elif value is not None:
                tolerances[key] = value
    # the run keeps the resource's values as this command saw them (a snapshot: on the reference device too
    # when it compares with it): charged like the resources, so a thousand expectations of a large resource
    # cannot hold a thousand copies
    snapshots, kept = (2, "two snapshots") if reference else (1, "a snapshot")
    if model.budget is not None and (refusal := model.budget.refusal(
            snapshots * resource.values.nbytes, f"command {index} (keeping {kept} of resource '{resource.name}')")):
        problems.add(node.location, refusal)
        return None
    values = None
    if values_node is not None:
        # expected float values stay float64: rounding them to the resource's type would blur the check
        exact = DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_FLOAT64 if resource.data_type in FLOAT_TYPES else None
        data_type = exact or resource.data_type
        itemsize = NUMPY_DTYPE[data_type].itemsize

        def reserve(nbytes: int, where: Node) -> bool:
            """As many expected values as the resource holds, within the budget, before they are made."""
            if nbytes != resource.values.size * itemsize:
                problems.add(where.location, f"{nbytes // itemsize} expected values for resource "
                                             f"'{resource.name}', which holds {resource.values.size}")
                return False
            refusal = model.budget.refusal(nbytes, f"the expected values of command {index}") if model.budget else None
            if refusal:
                problems.add(where.location, refusal)
            return refusal is None

        values, _ = parse_values(values_node, data_type, Sources(model.path.parent, model.limits), problems,
                                 reserve=reserve)
        if values is None:
            return None
    return Expect(index, "expect", node, expect_error, resource.name, values, reference, **tolerances)


def _check_thread_group_count(node: Node | None, problems: Diagnostics) -> None:
    """``threadGroupCount`` (HLSL dispatches only, so unused here) is refused unless it is what DxDispatch
    accepts: a list of 3 unsigned integers."""
    if node is None:
        return
    if not node.is_list or len(node.value) != 3 or not all(
            isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**32 for v in node.value):
        problems.add(node.location, "threadGroupCount must be a list of 3 unsigned integers (as DxDispatch), got "
                                    f"{show(node.value)}")


def strict_bool(node: Node | None, default: bool, problems: Diagnostics) -> bool:
    """A JSON ``true``/``false`` (DxDispatch refuses anything else, a string "false" included)."""
    if node is None:
        return default
    if not isinstance(node.value, bool):
        problems.add(node.location, f"{node.path.rsplit('.', 1)[-1]} must be true or false (a JSON bool, as "
                                    f"DxDispatch), got {show(node.value)}")
        return default
    return node.value


def _parse_dispatch(index: int, node: Node, expect_error: ExpectedError | None, model: Model,
                    sections: dict[str, Node], problems: Diagnostics) -> Dispatch | None:
    name_node = required(node, "dispatchable", problems)
    bindings_node = required(node, "bindings", problems)
    if name_node is None or bindings_node is None:
        return None
    if not isinstance(name_node.value, str):
        problems.add(name_node.location, f"expected a dispatchable name, got {show(name_node.value)}")
        return None
    spec = model.dispatchables.get(name_node.value)
    if spec is None:
        if name_node.value not in sections["dispatchables"].value:
            problems.add(name_node.location, f"unknown dispatchable {show(name_node.value)} "
                                             f"(dispatchables: {_known(sections['dispatchables'])})")
        return None
    bindings = _parse_bindings(bindings_node, spec, model, sections, problems)
    _check_thread_group_count(node.get("threadGroupCount"), problems)
    repeat = 1
    if (repeat_node := node.get("repeat")) is not None:
        repeat = repeat_node.value
        if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
            problems.add(repeat_node.location, f"repeat must be a positive integer, got {show(repeat)}")
            repeat = 1
    increments = []
    if (inc_node := node.get("increment")) is not None:
        for item in inc_node.elements() if inc_node.is_list else [inc_node]:
            increment = _parse_increment(item, model, sections, problems)
            if increment is not None:
                increments.append(increment)
    return Dispatch(index, "dispatch", node, expect_error, spec.name, bindings, repeat, increments)


def _binding_ref(node: Node, model: Model, sections: dict[str, Node], problems: Diagnostics) -> BindingRef | None:
    if isinstance(node.value, str):
        resource = _resource_ref(node, model, sections, problems)
        return None if resource is None else BindingRef(resource.name, 0, node)
    if not node.is_map:
        problems.add(node.location, f"a binding is a resource name or {{name, elementOffset}}, got {show(node.value)}")
        return None
    for key in node.value:
        if key in HLSL_BINDING_KEYS:
            problems.add(node.get(key).location, f"'{key}' applies to HLSL views only and is not supported")  # type: ignore[union-attr]
        elif key not in BINDING_KEYS:
            unknown_key(node, key, BINDING_KEYS, "a binding", problems)
    resource = _resource_ref(required(node, "name", problems), model, sections, problems)
    if resource is None:
        return None
    numbers = {}
    for key, default in (("elementOffset", 0), ("elementSizeInBytes", resource.dtype.itemsize), ("elementCount", 0)):
        child = node.get(key)
        value = default if child is None else child.value
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            problems.add(child.location if child else node.location, f"{key} must be a non-negative integer, "
                                                                     f"got {show(value)}")
            return None
        numbers[key] = value
    offset = numbers["elementOffset"] * numbers["elementSizeInBytes"]
    if offset >= resource.size_in_bytes:
        problems.add(node.location, f"elementOffset {numbers['elementOffset']} (byte {offset}) is beyond the "
                                    f"{resource.size_in_bytes}-byte resource '{resource.name}'")
        return None
    return BindingRef(resource.name, offset, node)


def _parse_increment(node: Node, model: Model, sections: dict[str, Node], problems: Diagnostics
                     ) -> tuple[str, Any] | None:
    if isinstance(node.value, str):
        resource = _resource_ref(node, model, sections, problems)
        return None if resource is None else (resource.name, 1)
    if not _check_keys(node, ["resource", "value"], "an increment", problems):
        return None
    resource = _resource_ref(required(node, "resource", problems), model, sections, problems)
    if resource is None:
        return None
    value_node = node.get("value")
    value = 1 if value_node is None else scalar(value_node, resource.data_type, problems)
    return None if value is None else (resource.name, value)
