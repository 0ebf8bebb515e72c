#!/usr/bin/env python3
"""Generate ``dmlsim/api/directml_schema.py``: every DirectML operator desc and per-operator enum.

Input: DirectML's machine-readable operator tables as published in the microsoft/DirectML repository
(``DxDispatch/src/dxdispatch/DirectMLHelpers/``):

- ``DirectMLSchema.h`` (the path given on the command line): one field table per operator, each field's
  kind (input tensor, output tensor, attribute), schema type, name and optional flag, and the operator's
  support flags (in-place execution);
- ``ApiTraits.cpp`` and ``ApiTraits.h`` (beside it by default): every enum's member names, in header order,
  and the enums' value counts;
- ``JsonParsersGenerated.cpp`` (``DxDispatch/src/model/``, found from the schema's path by default): which
  enum a ``UINT`` attribute holds (DirectMLSchema.h writes enums as ``UINT``) and which data-type field a
  ``DML_SCALAR_UNION`` is read as;
- ``GeneratedSchemaHelpers.h`` (beside it, optional): the count field each array is sized by, used only to
  cross-check this script's own inference (``--print-table`` shows both).

Operators and enum members newer than those files (feature level 6.4: RESAMPLE3, FOLD, UNFOLD,
DML_PADDING_MODE_WRAP) are added from :data:`HEADER_ADDITIONS`, transcribed from directml.h 6.4, when
the schema lacks them. Operator type values and feature levels come from dmlsim's own copy of the header's
operator enum (``dmlsim/api/operator_types.py``), so the generated module and the enum cannot disagree.

Nothing of the input files is copied: the output is Python written by this script from the facts
(names, values, field order, kinds). Run::

    python tools/gen_directml_schema.py PATH/TO/DirectMLSchema.h            # writes the module
    python tools/gen_directml_schema.py PATH/TO/DirectMLSchema.h --print-table  # count pairs, for review
"""

from __future__ import annotations

import argparse
import re
import runpy
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = REPO / "dmlsim" / "api" / "directml_schema.py"

# --------------------------------------------------------------------------------------------------
# Facts this script adds or decides (everything else is read from the input files)
# --------------------------------------------------------------------------------------------------

# Operators of directml.h 6.4 that DxDispatch's schema (6.3) lacks: (kind, schema type, name, optional)
# in header order, the enum each UINT attribute holds, and the support flag. Kinds: I = input tensor,
# O = output tensor, A = attribute. RESAMPLE3 follows RESAMPLE2 (no in-place: the output has another
# shape); FOLD and UNFOLD change the shape too.
HEADER_ADDITIONS: dict[str, dict] = {
    "DML_OPERATOR_RESAMPLE3": {
        "fields": [("I", "TENSOR_DESC", "InputTensor", False), ("O", "TENSOR_DESC", "OutputTensor", False),
                   ("A", "UINT", "InterpolationMode", False), ("A", "UINT", "RoundingDirection", False),
                   ("A", "UINT", "DimensionCount", False), ("A", "FLOAT_ARRAY", "Scales", False),
                   ("A", "FLOAT_ARRAY", "InputPixelOffsets", False),
                   ("A", "FLOAT_ARRAY", "OutputPixelOffsets", False), ("A", "BOOL", "Antialiased", False)],
        "enums": {"InterpolationMode": "DML_INTERPOLATION_MODE", "RoundingDirection": "DML_AXIS_DIRECTION"},
        "in_place": False,
    },
    **{name: {
        "fields": [("I", "TENSOR_DESC", "InputTensor", False), ("O", "TENSOR_DESC", "OutputTensor", False),
                   ("A", "UINT", "DimensionCount", False), ("A", "UINT_ARRAY", "WindowSizes", False),
                   ("A", "UINT_ARRAY", "Strides", False), ("A", "UINT_ARRAY", "Dilations", False),
                   ("A", "UINT_ARRAY", "StartPadding", False), ("A", "UINT_ARRAY", "EndPadding", False)],
        "enums": {},
        "in_place": False,
    } for name in ("DML_OPERATOR_FOLD", "DML_OPERATOR_UNFOLD")},
}
# Enum members directml.h 6.4 adds after the ones ApiTraits.cpp lists (appended, as the header does).
ENUM_ADDITIONS: dict[str, list[str]] = {"DML_PADDING_MODE": ["DML_PADDING_MODE_WRAP"]}

# Header struct names that differ from ``DML_<schema name>_OPERATOR_DESC``: none; aliases the header adds.
STRUCT_ALIASES = {"DML_SCATTER_ELEMENTS_OPERATOR_DESC": "DML_SCATTER_OPERATOR_DESC"}

# Array → count field pairs the inference rule below would get wrong (checked against DirectML's
# GeneratedSchemaHelpers.h, see --print-table). Empty: every pair of 6.4 follows the rule.
COUNT_OVERRIDES: dict[tuple[str, str], str] = {}

# Activations DirectML accepts as a FusedActivation (and in RNN/LSTM/GRU ActivationDescs): the
# element-wise ACTIVATION_* operators. Excluded: those that reduce over axes (SOFTMAX, LOG_SOFTMAX,
# HARDMAX and their *1 versions) and those needing a second tensor (PARAMETERIZED_RELU's slope,
# RELU_GRAD's gradient). DirectML's fusion page lists the element-wise ones (SWISH, HARD_SWISH: 6.2).
NOT_FUSABLE = {"DML_OPERATOR_ACTIVATION_SOFTMAX", "DML_OPERATOR_ACTIVATION_LOG_SOFTMAX",
               "DML_OPERATOR_ACTIVATION_HARDMAX", "DML_OPERATOR_ACTIVATION_SOFTMAX1",
               "DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1", "DML_OPERATOR_ACTIVATION_HARDMAX1",
               "DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU", "DML_OPERATOR_ACTIVATION_RELU_GRAD"}

# Enums that dmlsim.api.enums already defines (not regenerated here).
EXISTING_ENUMS = {"DML_TENSOR_DATA_TYPE", "DML_TENSOR_TYPE", "DML_OPERATOR_TYPE", "DML_BINDING_TYPE",
                  "DML_FEATURE", "DML_FEATURE_LEVEL", "DML_TENSOR_FLAGS", "DML_EXECUTION_FLAGS",
                  "DML_CREATE_DEVICE_FLAGS"}

ARRAY_TYPES = {"TENSOR_DESC_ARRAY", "OPERATOR_DESC_ARRAY", "UINT_ARRAY", "INT_ARRAY", "FLOAT_ARRAY"}


# --------------------------------------------------------------------------------------------------
# Reading the inputs
# --------------------------------------------------------------------------------------------------

@dataclass
class Field:
    kind: str  # "input" | "output" | "attribute"
    type: str  # the schema type without DML_SCHEMA_FIELD_TYPE_
    name: str
    optional: bool
    enum: str | None = None  # for UINT attributes holding an enum
    count: str | None = None  # for arrays: the UINT field giving the length
    count_rule: str = ""  # how the count was found (for the review table)
    data_type_field: str | None = None  # for SCALAR_UNION


@dataclass
class Operator:
    schema_name: str  # DML_CONVOLUTION
    type_name: str  # DML_OPERATOR_CONVOLUTION
    in_place: bool
    fields: list[Field] = field(default_factory=list)
    added: bool = False  # from HEADER_ADDITIONS

    @property
    def struct(self) -> str:
        return f"{self.schema_name}_OPERATOR_DESC"


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8-sig")


def parse_schema(path: Path) -> list[Operator]:
    """The operators of DirectMLSchema.h, in file order, with their fields."""
    text = _read(path)
    field_re = re.compile(r'DML_SCHEMA_FIELD\s*\{\s*DML_SCHEMA_FIELD_KIND_(\w+)\s*,\s*DML_SCHEMA_FIELD_TYPE_(\w+)'
                          r'\s*,\s*"(\w+)"\s*,\s*(true|false)\s*\}')
    tables = {m.group(1): (int(m.group(2)), m.group(3)) for m in re.finditer(
        r"constexpr\s+DML_SCHEMA_FIELD\s+(\w+)_OPERATOR_SCHEMA_FIELDS\[(\d+)\]\s*\{(.*?)\n\};", text, re.S)}
    kinds = {"INPUT_TENSOR": "input", "OUTPUT_TENSOR": "output", "ATTRIBUTE": "attribute"}
    operators = []
    for m in re.finditer(r'constexpr\s+DML_OPERATOR_SCHEMA\s+(\w+)_OPERATOR_SCHEMA\s*\{\s*"(\w+)"\s*,\s*(\w+)\s*,'
                         r"\s*([\w|\s]+?)\s*,\s*(\d+)\s*,\s*(\w+)_OPERATOR_SCHEMA_FIELDS\s*,?\s*\};", text):
        schema_name, op_name, op_enum, flags, count, table = m.groups()
        if op_name != op_enum or table != schema_name:
            sys.exit(f"{path}: schema {schema_name} is irregular ({op_name}, {op_enum}, {table})")
        declared, body = tables[schema_name]
        fields = [Field(kinds[k], t, n, o == "true") for k, t, n, o in field_re.findall(body)]
        if len(fields) != declared or len(fields) != int(count):
            sys.exit(f"{path}: {schema_name} declares {declared}/{count} fields, found {len(fields)}")
        operators.append(Operator(schema_name, op_name, "IN_PLACE_EXECUTION" in flags, fields))
    if not operators:
        sys.exit(f"{path}: no DML_OPERATOR_SCHEMA found (is this DirectMLSchema.h?)")
    return operators


def parse_enums(traits_cpp: Path, traits_h: Path | None) -> dict[str, list[str]]:
    """Enum name → member names in header order (ApiTraits.cpp's FromString tables)."""
    text = _read(traits_cpp)
    enums: dict[str, list[str]] = {}
    for m in re.finditer(r"template\s*<>\s*(DML_\w+)\s+ApiTraits::StringifyHelpers::FromString\(.*?\)\s*\{"
                         r"(.*?)\};", text, re.S):
        enums[m.group(1)] = re.findall(r'\{\s*"(\w+)"\s*,\s*\w+\s*\}', m.group(2))
    if traits_h is not None and traits_h.exists():
        for m in re.finditer(r"struct\s+EnumTraits<(DML_\w+)>\s*\{[^}]*?ValueCount\s*=\s*(\d+)", _read(traits_h)):
            name, count = m.group(1), int(m.group(2))
            if name in enums and len(enums[name]) != count:
                sys.exit(f"{traits_h}: {name} has ValueCount {count} but {traits_cpp} lists {len(enums[name])}")
    for name, extra in ENUM_ADDITIONS.items():
        enums[name] = enums[name] + [e for e in extra if e not in enums[name]]
    return enums


def _enum_from_parser(function: str) -> str:
    """``ParseDmlConvolutionModeField`` → ``DML_CONVOLUTION_MODE``."""
    words = re.findall(r"[A-Z][a-z0-9]*", function.removeprefix("Parse").removesuffix("Field"))
    return "_".join(w.upper() for w in words)


# What each of DxDispatch's JSON field parsers reads, as the schema type it must be declared with.
PARSER_TYPES = {"ParseUInt32Field": "UINT", "ParseUInt64Field": "UINT64", "ParseInt32Field": "INT",
                "ParseFloat32Field": "FLOAT", "ParseBoolField": "BOOL", "ParseUInt32ArrayField": "UINT_ARRAY",
                "ParseInt32ArrayField": "INT_ARRAY", "ParseFloat32ArrayField": "FLOAT_ARRAY",
                "ParseDmlTensorDescField": "TENSOR_DESC", "ParseDmlTensorDescArrayField": "TENSOR_DESC_ARRAY",
                "ParseDmlOperatorDescField": "OPERATOR_DESC", "ParseDmlOperatorDescArrayField": "OPERATOR_DESC_ARRAY",
                "ParseDmlScaleBiasField": "SCALE_BIAS", "ParseDmlSize2dField": "SIZE_2D",
                "ParseDmlScalarUnionField": "SCALAR_UNION"}


@dataclass
class ParsedDesc:
    """What DxDispatch's generated JSON parser reads for one operator desc."""

    types: dict[str, str]  # field → schema type (enums: "UINT")
    enums: dict[str, str]  # field → enum name
    unions: dict[str, str]  # scalar-union field → its data-type field


def parse_json_parsers(path: Path) -> dict[str, ParsedDesc]:
    """Per operator type name, the type of every field as DxDispatch's JSON parser reads it."""
    text = _read(path)
    result: dict[str, ParsedDesc] = {}
    for m in re.finditer(r"DML_OPERATOR_DESC\*\s+ParseDml\w+OperatorDesc\(.*?\{(.*?)opDesc->Type\s*=\s*(\w+);",
                         text, re.S):
        body, op = m.groups()
        parsed = ParsedDesc({}, {}, {})
        for name, function in re.findall(r"desc->(\w+)\s*=\s*[^;]*?(Parse\w+Field)\(value", body):
            if function in PARSER_TYPES:
                parsed.types[name] = PARSER_TYPES[function]
            elif function.startswith("ParseDml"):
                parsed.types[name], parsed.enums[name] = "UINT", _enum_from_parser(function)
            else:
                sys.exit(f"{path}: {op}.{name} is read by {function}, which this script does not know")
        parsed.unions = dict(re.findall(r'desc->(\w+)\s*=\s*\*?ParseDmlScalarUnionField\(value,\s*"\w+",\s*"(\w+)"',
                                        body))
        result[op] = parsed
    return result


def parse_helper_counts(path: Path) -> dict[tuple[str, str], str]:
    """(struct, array field) → count field, from GeneratedSchemaHelpers.h's two-argument conversions."""
    pairs = {}
    for m in re.finditer(r"GetFields\(const (\w+)& desc\)\s*\{(.*?)\n\}", _read(path), re.S):
        struct, body = m.groups()
        for array, count in re.findall(r"ToOperatorFieldType\([^;]*?desc\.(\w+)\),\s*desc\.(\w+)\)", body):
            pairs[(struct, array)] = count
    return pairs


def load_operator_types() -> tuple[dict[str, int], tuple[tuple[int, int, int], ...]]:
    """dmlsim's copy of the header's DML_OPERATOR_TYPE (name → value) and its feature-level blocks."""
    path = REPO / "dmlsim" / "api" / "operator_types.py"
    if not path.exists():
        sys.exit(f"{path} not found")
    ns = runpy.run_path(str(path))
    values = dict(ns["DML_OPERATOR_TYPE_NAMES"]) | dict(ns["DML_OPERATOR_TYPE_ALIASES"])
    return values, ns["DML_OPERATOR_TYPE_TARGET_VERSIONS"]


# --------------------------------------------------------------------------------------------------
# Inference
# --------------------------------------------------------------------------------------------------

def infer_counts(op: Operator) -> None:
    """Give every array field its count field.

    DirectML's pattern: the length of an array is the nearest ``UINT`` attribute before it whose name
    ends in ``Count`` (``InputCount``/``InputTensors``, ``AxisCount``/``Axes``, ``DimensionCount`` for the
    Strides/Dilations/Padding arrays that follow it, ``ChannelCount``/``Bias``, ``RepeatsCount``/``Repeats``).
    """
    for i, f in enumerate(op.fields):
        if f.type not in ARRAY_TYPES:
            continue
        override = COUNT_OVERRIDES.get((op.struct, f.name))
        if override:
            f.count, f.count_rule = override, "override"
            continue
        for prev in reversed(op.fields[:i]):
            if prev.kind == "attribute" and prev.type == "UINT" and prev.enum is None and prev.name.endswith("Count"):
                f.count = prev.name
                f.count_rule = "adjacent" if op.fields[i - 1] is prev else "nearest *Count before"
                break
        if f.count is None:
            sys.exit(f"{op.struct}.{f.name}: no count field found; add it to COUNT_OVERRIDES")


def infer_data_type_fields(op: Operator, from_parser: dict[str, str]) -> None:
    """A DML_SCALAR_UNION is read as the data type of the nearest ``*DataType`` attribute before it."""
    for i, f in enumerate(op.fields):
        if f.type != "SCALAR_UNION":
            continue
        for prev in reversed(op.fields[:i]):
            if prev.enum == "DML_TENSOR_DATA_TYPE" and prev.name.endswith("DataType"):
                f.data_type_field = prev.name
                break
        expected = from_parser.get(f.name)
        if f.data_type_field is None or (expected and expected != f.data_type_field):
            sys.exit(f"{op.struct}.{f.name}: data type field {f.data_type_field} (DxDispatch reads it as {expected})")


def build(args: argparse.Namespace) -> tuple[list[Operator], dict[str, list[str]], dict[str, int], list[str]]:
    schema = Path(args.schema)
    here = schema.parent
    operators = parse_schema(schema)
    enums = parse_enums(Path(args.api_traits or here / "ApiTraits.cpp"), here / "ApiTraits.h")
    parsers_path = Path(args.json_parsers or here.parent.parent / "model" / "JsonParsersGenerated.cpp")
    parsed = parse_json_parsers(parsers_path)
    op_values, _ = load_operator_types()
    notes = []
    known = {op.type_name for op in operators}
    for name, extra in HEADER_ADDITIONS.items():
        if name in known:
            continue
        fields = [Field({"I": "input", "O": "output", "A": "attribute"}[k], t, n, o) for k, t, n, o in extra["fields"]]
        operators.append(Operator(name.replace("DML_OPERATOR_", "DML_", 1), name, extra["in_place"], fields, True))
        parsed[name] = ParsedDesc({f.name: "UINT" if f.type == "BOOL" else f.type for f in fields}, extra["enums"], {})
        notes.append(f"{name}: not in the schema file; added from directml.h 6.4 (HEADER_ADDITIONS)")
    bools = 0
    for op in operators:
        if op.type_name not in op_values:
            sys.exit(f"{op.type_name} is not in dmlsim's DML_OPERATOR_TYPE")
        reads = parsed.get(op.type_name)
        if reads is None:
            sys.exit(f"{op.type_name}: DxDispatch's JSON parser has no function for it")
        if set(reads.types) != {f.name for f in op.fields}:
            sys.exit(f"{op.struct}: the schema's fields {[f.name for f in op.fields]} are not the JSON parser's "
                     f"{list(reads.types)}")
        for f in op.fields:
            read_as = reads.types[f.name]
            if read_as == "BOOL" and f.type == "UINT":
                f.type = "BOOL"  # DirectMLSchema.h declares the header's BOOL fields as UINT
                bools += 1
            elif read_as != f.type and not (op.added and f.type == "BOOL"):
                sys.exit(f"{op.struct}.{f.name}: the schema says {f.type}, DxDispatch reads a {read_as}")
            enum = reads.enums.get(f.name)
            if enum is not None:
                if f.kind != "attribute" or f.type != "UINT" or (enum not in enums and enum not in EXISTING_ENUMS):
                    sys.exit(f"{op.struct}.{f.name}: enum {enum} for a {f.kind} {f.type} field")
                f.enum = enum
        infer_counts(op)
        infer_data_type_fields(op, reads.unions)
    notes.append(f"{bools} UINT fields of the schema are BOOL in the header (DxDispatch reads them as bool)")
    used = sorted({f.enum for op in operators for f in op.fields if f.enum and f.enum not in EXISTING_ENUMS})
    operators.sort(key=lambda o: op_values[o.type_name])
    return operators, {name: enums[name] for name in used}, op_values, notes


# --------------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------------

def _feature_level(value: int, blocks: tuple[tuple[int, int, int], ...]) -> int:
    for first, last, level in blocks:
        if first <= value <= last:
            return level
    raise SystemExit(f"operator value {value} is in no feature-level block")


# The Python annotation of each attribute kind (the C struct's type, as dmlsim's structs mirror it).
ANNOTATIONS = {"UINT": "int | None", "UINT64": "int | None", "INT": "int | None", "FLOAT": "float | None",
               "BOOL": "bool | None", "SCALE_BIAS": "DML_SCALE_BIAS | None", "SIZE_2D": "DML_SIZE_2D | None",
               "SCALAR_UNION": "DML_SCALAR_UNION | float | None", "OPERATOR_DESC": "DML_OPERATOR_DESC | None",
               "UINT_ARRAY": "list[int] | None", "INT_ARRAY": "list[int] | None", "FLOAT_ARRAY": "list[float] | None",
               "OPERATOR_DESC_ARRAY": "list[DML_OPERATOR_DESC] | None"}


def _field_line(f: Field, in_place: bool) -> str:
    opt = ", optional=True" if f.optional else ""
    count = f', array_count="{f.count}"' if f.count else ""
    if f.kind in ("input", "output"):
        marker = "tensor_input" if f.kind == "input" else "tensor_output"
        # an operator without DirectML's in-place support flag: no output may alias any of its inputs
        eligible = ", inplace_eligible=False" if f.kind == "input" and not in_place else ""
        args = f"ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT{opt}{count}{eligible}"
        annotation = "list[DML_TENSOR_DESC] | None" if f.count else "DML_TENSOR_DESC | None"
        return f"    {f.name}: {annotation} = {marker}({args})"
    if f.enum:
        return f"    {f.name}: {f.enum} | int | None = attribute({f.enum}{opt})"
    if f.type == "SCALAR_UNION":
        return (f"    {f.name}: {ANNOTATIONS[f.type]} = attribute(\"SCALAR_UNION\", "
                f"data_type_field=\"{f.data_type_field}\"{opt})")
    return f'    {f.name}: {ANNOTATIONS[f.type]} = attribute("{f.type}"{opt}{count})'


def _wrap(line: str, width: int = 120) -> str:
    """Break a too-long ``name(arg, arg, ...)`` line after commas, continuation aligned with the first arg."""
    if len(line) <= width:
        return line
    indent = " " * (line.index("(") + 1)
    parts = line.split(", ")
    lines, current = [], parts[0]
    for part in parts[1:]:
        if len(current) + 3 + len(part) > width:  # room for the comma a break leaves
            lines.append(current + ",")
            current = indent + part
        else:
            current += ", " + part
    return "\n".join([*lines, current])


def render(operators: list[Operator], enums: dict[str, list[str]], op_values: dict[str, int],
           schema_file: str) -> str:
    _, blocks = load_operator_types()
    out = [
        "# GENERATED FILE: do not edit by hand. Written by tools/gen_directml_schema.py from DirectML's",
        f"# {schema_file} (microsoft/DirectML, DxDispatch's DirectMLHelpers) and the enum tables beside it;",
        "# change the generator and run it again.",
        '"""Every DirectML operator desc of directml.h (up to DML_FEATURE_LEVEL_6_4) and the enums they use.',
        "",
        "Each desc is a dataclass with the header's field names in header order; each field carries its schema",
        "kind (dmlsim.api.schema): input/output tensor (optional or not, tensor arrays with their count field),",
        "FLOAT/UINT/UINT64/INT/BOOL or enum attributes, DML_SCALE_BIAS, DML_SIZE_2D, DML_SCALAR_UNION (read as",
        "the data type its ``*DataType`` field names), UINT/INT/FLOAT arrays with their count field, and",
        "nested operator descs (fused activations, ``ActivationDescs``). Tensor fields accept any data type",
        "and 1 to 8 dimensions here: the generic checks; implemented operators narrow them in their own descs.",
        ":data:`OPERATOR_SCHEMAS` gives each operator's type, desc, feature level and in-place support.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from dataclasses import dataclass",
        "from enum import IntEnum",
        "",
        "from dmlsim.api.enums import DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE",
        "from dmlsim.api.schema import (",
        "    ANY_DATA_TYPE,",
        "    ANY_DIMENSION_COUNT,",
        "    GeneratedDesc,",
        "    OperatorSchema,",
        "    attribute,",
        "    tensor_input,",
        "    tensor_output,",
        ")",
        "from dmlsim.api.structs import (",
        "    DML_OPERATOR_DESC,",
        "    DML_SCALAR_UNION,",
        "    DML_SCALE_BIAS,",
        "    DML_SIZE_2D,",
        "    DML_TENSOR_DESC,",
        ")",
        "",
        "_OP = DML_OPERATOR_TYPE",
        "",
    ]
    for name, members in enums.items():
        out += ["", f"class {name}(IntEnum):"]
        out += [f"    {m} = {i}" for i, m in enumerate(members)]
        out.append("")
    out += ["", "OPERATOR_ENUMS: tuple[type[IntEnum], ...] = ("]
    out += [f"    {name}," for name in enums]
    out += [")", "", "# Every member under its full header name, as C spells it."]
    out += [f"{m} = {name}.{m}" for name, members in enums.items() for m in members]
    out.append("")
    for op in operators:
        out += ["", "@dataclass", f"class {op.struct}(GeneratedDesc):"]
        out += [_wrap(_field_line(f, op.in_place)) for f in op.fields]
        out.append("")
    for alias, target in STRUCT_ALIASES.items():
        out.append(f"{alias} = {target}")
    out += ["", "", "OPERATOR_SCHEMAS: tuple[OperatorSchema, ...] = ("]
    for op in operators:
        level = _feature_level(op_values[op.type_name], blocks)
        out.append(_wrap(f"    OperatorSchema(_OP.{op.type_name}, {op.struct}, 0x{level:04X}, {op.in_place}),"))
    out += [")", "", "# Activation operators a FusedActivation / ActivationDescs entry may be (element-wise ones).",
            "FUSED_ACTIVATION_TYPES: frozenset[int] = frozenset({"]
    for op in operators:
        if op.type_name.startswith("DML_OPERATOR_ACTIVATION_") and op.type_name not in NOT_FUSABLE:
            out.append(f"    _OP.{op.type_name},")
    out += ["})", ""]
    public = [*enums, *(m for members in enums.values() for m in members), *(op.struct for op in operators),
              *STRUCT_ALIASES]
    out += ["# The public names (dmlsim re-exports them, keeping its hand-written descs of implemented operators).",
            "__all__ = ["]
    out += [f'    "{name}",' for name in sorted(public)]
    out += ["]", ""]
    return "\n".join(out)


def print_table(operators: list[Operator], helper_pairs: dict[tuple[str, str], str] | None) -> int:
    """The inferred array → count pairs, with DirectML's own pairing where available; mismatches counted."""
    mismatches = 0
    print(f"{'operator desc':48s} {'array field':22s} {'type':20s} {'count field':24s} {'rule':24s} helpers")
    for op in operators:
        for f in op.fields:
            if f.count is None:
                continue
            theirs = "-" if helper_pairs is None else helper_pairs.get((op.struct, f.name), "(absent)")
            agrees = helper_pairs is None or theirs == f.count or (op.added and theirs == "(absent)")
            ok = "" if agrees else "  <-- MISMATCH"
            mismatches += bool(ok)
            print(f"{op.struct:48s} {f.name:22s} {f.type:20s} {f.count:24s} {f.count_rule:24s} {theirs}{ok}")
    for op in operators:
        for f in op.fields:
            if f.data_type_field:
                print(f"{op.struct:48s} {f.name:22s} SCALAR_UNION read as  {f.data_type_field}")
    return mismatches


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("schema", help="DirectML's DirectMLSchema.h (DxDispatch/src/dxdispatch/DirectMLHelpers/)")
    parser.add_argument("--api-traits", help="ApiTraits.cpp (default: beside the schema)")
    parser.add_argument("--json-parsers", help="JsonParsersGenerated.cpp (default: DxDispatch/src/model/)")
    parser.add_argument("--schema-helpers", help="GeneratedSchemaHelpers.h to cross-check counts (default: beside)")
    parser.add_argument("-o", "--output", default=str(DEFAULT_OUTPUT), help="the module to write ('-': stdout)")
    parser.add_argument("--print-table", action="store_true", help="print the array/count pairs and exit")
    args = parser.parse_args(argv)
    operators, enums, op_values, notes = build(args)
    helpers = Path(args.schema_helpers or Path(args.schema).parent / "GeneratedSchemaHelpers.h")
    helper_pairs = parse_helper_counts(helpers) if helpers.exists() else None
    if args.print_table:
        mismatches = print_table(operators, helper_pairs)
        for note in notes:
            print(note)
        print(f"{len(operators)} operators, {len(enums)} enums, "
              f"{sum(f.count is not None for o in operators for f in o.fields)} arrays, {mismatches} mismatches")
        return 1 if mismatches else 0
    if helper_pairs is not None:
        bad = [(o.struct, f.name) for o in operators for f in o.fields
               if f.count and not o.added and helper_pairs.get((o.struct, f.name)) != f.count]
        if bad:
            sys.exit(f"count inference disagrees with {helpers.name}: {bad}; run --print-table")
    text = render(operators, enums, op_values, Path(args.schema).name)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {args.output}: {len(operators)} operator descs, {len(enums)} enums", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
