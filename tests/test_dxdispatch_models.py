"""DxDispatch-style model files: checked completely, then run, or stopped at "not implemented" for an operator
dmlsim does not implement (whichever of theirs are unimplemented when the tests run).

The files in tests/data/dxdispatch_style/ are ours, written in DxDispatch's JSON format with its
features: fused activations ({Type, Desc} and fields beside Type), scalar unions read as FLOAT16, a
filter owned by DirectML bound at the dispatchable (the operator initializer), DmlCompileGraph, split/
join tensor arrays, reduce axes, convolution stride/dilation/padding arrays, a BOOL and a DML_SIZE_2D.
Every typo in a desc field, binding or execution flag must be reported at its exact file:line:column.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from plugin_support import descriptor_folder, run_pytest
from unimplemented_support import (
    an_unimplemented_schema,
    has_plain_tensors,
    name_of,
    sample_desc,
    unregistering_conftest,
)

import dmlsim as dml
from dmlsim.api.schema import OUTPUT, desc_fields
from dmlsim.cli import main
from dmlsim.model import INVALID, NOT_IMPLEMENTED, PASSED, ModelError, Runner, load_model
from dmlsim.model.dxjson import operator_desc
from dmlsim.model.loader import blank_json_comments

DATA = Path(__file__).resolve().parent / "data" / "dxdispatch_style"
FILES = sorted(DATA.glob("*.json"))


def validate(path: Path):
    return Runner(load_model(path), dml.DMLCreateDevice(0, "reference"), execute=False).run()


def problems_of(path: Path) -> str:
    """Every problem reported for a file: load errors, or the invalid outcomes of a validate run."""
    try:
        result = validate(path)
    except ModelError as exc:
        return str(exc)
    return "\n".join(o.describe() for o in result.outcomes.values() if o.status == INVALID)


def test_there_are_model_files():
    assert {p.name for p in FILES} >= {"conv_fused.json", "split_join_reduce.json", "scalars_fp16.json",
                                       "recurrent_resize.json"}




@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_each_file_is_valid_and_stops_only_at_not_implemented(path, capsys):
    """Dispatchables and dispatches of unimplemented operators are 'not implemented'; those of implemented
    ones (the files mix both) are created, bound and recorded: 'passed'."""
    model = load_model(path)
    unimplemented = any(not spec.implemented for spec in model.dispatchables.values())
    assert main(["validate", str(path)]) == (3 if unimplemented else 0)
    out = capsys.readouterr()
    if unimplemented:
        assert "descs, bindings and flags valid; not implemented by dmlsim: DML_OPERATOR_" in out.out
    result = validate(path)
    for name, spec in model.dispatchables.items():
        outcome = result.outcomes[name]
        if spec.implemented:
            assert outcome.status == PASSED, outcome.describe()
            continue
        assert outcome.status == NOT_IMPLEMENTED, outcome.describe()
        assert outcome.location == spec.type_node.location  # reported at the dispatchable's type
        assert f"{spec.op.name} is not implemented by dmlsim" in outcome.message
        assert "checked and is valid" in outcome.message
    for command in model.commands:
        outcome = result.outcomes[command.key]
        if command.kind == "dispatch" and not model.dispatchables[command.dispatchable].implemented:
            # bound and recorded: the bindings passed every check
            assert outcome.status == NOT_IMPLEMENTED and "bindings were checked and are valid" in outcome.message
        else:
            assert outcome.status == PASSED, outcome.describe()


def test_the_conv_file_uses_every_feature_it_claims():
    spec = load_model(DATA / "conv_fused.json").dispatchables["conv"]
    desc = spec.desc.Desc
    assert type(desc).__name__ == "DML_CONVOLUTION_OPERATOR_DESC"
    assert (desc.Strides, desc.Dilations, desc.StartPadding, desc.EndPadding) == ([2, 1], [1, 1], [1, 0], [1, 0])
    assert desc.FusedActivation.Type == dml.DML_OPERATOR_ACTIVATION_LEAKY_RELU
    assert desc.FusedActivation.Desc.Alpha == 0.1 and desc.FusedActivation.Desc.InputTensor is None
    assert desc.FilterTensor.Desc.Flags == dml.DML_TENSOR_FLAG_OWNED_BY_DML
    assert spec.compile_type == "DmlCompileGraph"
    assert spec.execution_flags == (dml.DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION
                                    | dml.DML_EXECUTION_FLAG_DISABLE_META_COMMANDS)
    assert spec.initializer_bindings["FilterTensor"].resource == "kernel"
    clamp = load_model(DATA / "scalars_fp16.json").dispatchables["clamp"].desc.Desc
    assert clamp.Min == -1.5 and clamp.Max == dml.DML_SCALAR_UNION(UInt16=0x3C00)
    assert clamp.ScaleBias == dml.DML_SCALE_BIAS(0.5, 0.25)
    gru = load_model(DATA / "recurrent_resize.json").dispatchables["gru"].desc.Desc
    assert [a.Type for a in gru.ActivationDescs] == [dml.DML_OPERATOR_ACTIVATION_SIGMOID,
                                                     dml.DML_OPERATOR_ACTIVATION_SCALED_TANH]
    assert gru.LinearBeforeReset is True
    split = load_model(DATA / "split_join_reduce.json").dispatchables
    assert split["join"].desc.Desc.InputCount == 2  # inferred from InputTensors


# --- typos, each at its exact place ---------------------------------------------------------------
@pytest.mark.parametrize(("file", "old", "new", "expected"), [
    ("conv_fused.json", '"Dilations"', '"Dilatoins"',
     ":26:30: dispatchables.conv.desc.Dilatoins: unknown key 'Dilatoins' in DML_CONVOLUTION_OPERATOR_DESC; "
     "did you mean 'Dilations'?"),
    ("conv_fused.json", '"Alpha"', '"Aplha"',
     ":31:103: dispatchables.conv.desc.FusedActivation.Desc.Aplha: unknown key 'Aplha' in "
     "DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC; did you mean 'Alpha'?"),
    ("conv_fused.json", '"DML_OPERATOR_ACTIVATION_LEAKY_RELU"', '"DML_OPERATOR_ACTIVATION_LEAKY_RLEU"',
     ":31:46: dispatchables.conv.desc.FusedActivation.Type: unknown operator type"),
    ("conv_fused.json", '"DML_EXECUTION_FLAG_DISABLE_META_COMMANDS"', '"DML_EXECUTION_FLAG_DISABLE_META_COMMADNS"',
     ":33:68: dispatchables.conv.executionFlags[1]: unknown DML_EXECUTION_FLAGS value"),
    ("conv_fused.json", '"FilterTensor": "kernel"', '"FilterTesnor": "kernel"',
     ":35:43: dispatchables.conv.bindings.FilterTesnor: unknown key 'FilterTesnor' in the initializer (input) bind "
     "points of DML_OPERATOR_CONVOLUTION; did you mean 'FilterTensor'?"),
    ("scalars_fp16.json", '"UInt16"', '"UInt61"',
     ":22:36: dispatchables.clamp.desc.Max.UInt61: unknown key 'UInt61' in a DML_SCALAR_UNION"),
    ("recurrent_resize.json", '"LinearBeforeReset": true', '"LinearBeforeReset": ture',
     ":31:38: dispatchables.gru.desc.LinearBeforeReset: expected true or false (BOOL), got 'ture'"),
    ("split_join_reduce.json", '"OutputTensors": ["left", "right"]', '"OutputTesnors": ["left", "right"]',
     ":58:111: commands[0].bindings.OutputTesnors: unknown key 'OutputTesnors' in the bind points of "
     "DML_OPERATOR_SPLIT; did you mean 'OutputTensors'?"),
])
def test_typos_are_reported_at_file_line_column(tmp_path, file, old, new, expected):
    text = (DATA / file).read_text()
    assert text.count(old) == 1
    path = tmp_path / file
    path.write_text(text.replace(old, new))
    assert f"{path}{expected}" in problems_of(path)


# conv_fused.json without its fused activation: the binding-typo check below runs on both variants
UNFUSE = (',\n                "FusedActivation": '
          '{ "Type": "DML_OPERATOR_ACTIVATION_LEAKY_RELU", "Desc": { "Alpha": 0.1 } }')


@pytest.mark.parametrize(("file", "old", "new", "where", "problem"), [
    ("split_join_reduce.json", '"AxisCount": 2', '"AxisCount": 3', ":52:25: dispatchables.reduce.desc.Axes: ",
     "DML_REDUCE_OPERATOR_DESC.Axes must hold AxisCount (3) values, got 2"),
    ("conv_fused.json", '{ "Type": "DML_OPERATOR_ACTIVATION_LEAKY_RELU", "Desc": { "Alpha": 0.1 } }',
     '{ "Type": "DML_OPERATOR_ACTIVATION_SOFTMAX" }', ":31:46: dispatchables.conv.desc.FusedActivation.Type: ",
     "DML_CONVOLUTION_OPERATOR_DESC.FusedActivation.Type DML_OPERATOR_ACTIVATION_SOFTMAX cannot be fused"),
    ("conv_fused.json", '{ "Alpha": 0.1 }', '{ }', ":31:92: dispatchables.conv.desc.FusedActivation.Desc: ",
     "missing required field 'Alpha' (FLOAT) of DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC"),
    ("scalars_fp16.json", '{ "UInt16": 15360 }', '{ "Float32": 1.0 }', ":22:37: dispatchables.clamp.desc.Max.Float32: ",
     "DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC.Max.Float32 is set, but DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC."
     "MinMaxDataType FLOAT16 reads DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC.Max.UInt16"),
    ("recurrent_resize.json", '"Type": "ACTIVATION_SIGMOID"', '"Type": "ACTIVATION_SOFTMAX"',
     ":27:31: dispatchables.gru.desc.ActivationDescs[0].Type: ",
     "DML_GRU_OPERATOR_DESC.ActivationDescs[0].Type DML_OPERATOR_ACTIVATION_SOFTMAX cannot be fused"),
    ("conv_fused.json", ('"InputTensor": "image",', UNFUSE), ('"InputTensor": "image", "FilterTensor": "kernel",', ""),
     ":42:67: commands[0].bindings.FilterTensor: ",
     "BindInputs[1] (FilterTensor).Type must be DML_BINDING_TYPE_NONE: the tensor is OWNED_BY_DML"),
])
def test_semantic_errors_are_located_too(tmp_path, file, old, new, where, problem):
    text = (DATA / file).read_text()
    for before, after in zip(old, new, strict=True) if isinstance(old, tuple) else [(old, new)]:
        assert text.count(before) == 1
        text = text.replace(before, after)
    path = tmp_path / file
    path.write_text(text)
    report = problems_of(path)
    line = next(ln for ln in report.splitlines() if problem in ln)
    assert line.startswith(f"{path}{where}"), report


def _scan(text: str):
    """(path, kind, name, start, end, value offset) for each object key and string value of a JSON text."""
    out, stack, expect_key, i = [], [], False, 0
    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            name = text[i + 1:j]
            if stack and stack[-1][0] == "obj" and expect_key:
                k = j + 1
                while text[k] in " \t\r\n:":
                    k += 1
                stack[-1][1] = name
                out.append(([e[1] for e in stack[:-1]], "key", name, i, j + 1, k))
                expect_key = False
            else:
                out.append(([e[1] for e in stack], "value", name, i, j + 1, i))
            i = j + 1
            continue
        if c in "{[":
            stack.append(["obj", None] if c == "{" else ["arr", 0])
            expect_key = c == "{"
        elif c in "}]":
            stack.pop()
        elif c == ",":
            if stack[-1][0] == "obj":
                expect_key = True
            else:
                stack[-1][1] += 1
        i += 1
    return out


def _typo(word: str) -> str:
    for k in range(len(word) // 2, len(word) - 1):
        if word[k] != word[k + 1]:
            return word[:k] + word[k + 1] + word[k] + word[k + 2:]
    return word[:-1]


def _mutations(text: str):
    """One typo per desc field, dispatchable key, bind point, resource named in a binding, execution flag
    and enum value: (what, start, end, replacement, offset of the place that must be reported)."""
    for path, kind, name, start, end, value_at in _scan(blank_json_comments(text)):
        in_dispatchable = len(path) >= 2 and path[0] == "dispatchables"
        in_bindings = "bindings" in path and (in_dispatchable or path[:1] == ["commands"])
        if kind == "key" and (in_dispatchable or in_bindings):
            yield "binding" if in_bindings else "key", start, end, f'"{_typo(name)}"', value_at
        elif kind == "value" and (in_bindings or (in_dispatchable and re.fullmatch(r"[A-Z][A-Z0-9_]+|Dml\w+", name))):
            yield "value", start, end, f'"{_typo(name)}"', start


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_typo_is_reported_at_its_place(tmp_path, path):
    text = path.read_text()
    mutations = list(_mutations(text))
    assert len(mutations) > 20
    missed = []
    for what, start, end, replacement, at in mutations:
        mutated = text[:start] + replacement + text[end:]
        at += len(replacement) - (end - start) if at > start else 0
        line = mutated.count("\n", 0, at) + 1
        column = at - (mutated.rfind("\n", 0, at) + 1) + 1
        target = tmp_path / path.name
        target.write_text(mutated)
        if f"{target}:{line}:{column}:" not in problems_of(target):
            missed.append((what, text[start:end], line, column))
    assert not missed, missed


# --- dispatchable-level bindings run the operator initializer --------------------------------------
OWNED_ADAM = """
x-t: &t {DataType: FLOAT32, Sizes: [1, 1, 1, 4]}
resources:
  X: {initialValuesDataType: FLOAT32, initialValues: [1, 2, 3, 4]}
  M: {initialValuesDataType: FLOAT32, initialValues: {valueCount: 4, value: 0}}
  V: {initialValuesDataType: FLOAT32, initialValues: {valueCount: 4, value: 0}}
  G: {initialValuesDataType: FLOAT32, initialValues: [1, -1, 2, 0.5]}
  step: {initialValuesDataType: UINT32, initialValues: [1]}
dispatchables:
  adam:
    type: ADAM_OPTIMIZER
    dmlCompileType: DmlCompileGraph
    bindings: {GradientTensor: G}
    desc:
      InputParametersTensor: *t
      InputFirstMomentTensor: *t
      InputSecondMomentTensor: *t
      GradientTensor: {DataType: FLOAT32, Sizes: [1, 1, 1, 4], Flags: OWNED_BY_DML}
      TrainingStepTensor: {DataType: UINT32, Sizes: [1, 1, 1, 1]}
      OutputParametersTensor: *t
      OutputFirstMomentTensor: *t
      OutputSecondMomentTensor: *t
      LearningRate: 0.01
      Beta1: 0.9
      Beta2: 0.999
      Epsilon: 1e-8
commands:
  - type: dispatch
    dispatchable: adam
    bindings: {InputParametersTensor: X, InputFirstMomentTensor: M, InputSecondMomentTensor: V,
               TrainingStepTensor: step, OutputParametersTensor: X, OutputFirstMomentTensor: M,
               OutputSecondMomentTensor: V}
  - {type: expect, resource: X, values: [0.99, 2.01, 2.99, 3.99], rtol: 1e-6}
"""


def test_dispatchable_bindings_feed_the_operator_initializer(tmp_path):
    path = tmp_path / "owned.yaml"
    path.write_text(OWNED_ADAM)
    result = Runner(load_model(path), dml.DMLCreateDevice(0, "reference")).run()
    assert result.exit_status == 0, [o.describe() for o in result.outcomes.values()]
    path.write_text(OWNED_ADAM.replace("bindings: {GradientTensor: G}", "bindings: {OutputParametersTensor: G}"))
    assert "unknown key 'OutputParametersTensor' in the initializer (input) bind points" in problems_of(path)
    path.write_text(OWNED_ADAM.replace("    bindings: {GradientTensor: G}\n", ""))
    result = Runner(load_model(path), dml.DMLCreateDevice(0, "reference")).run()
    assert result.outcomes["adam"].status == INVALID and "initializer" in result.outcomes["adam"].message


def unimplemented_model(schema) -> str:
    """A DxDispatch JSON model of one unimplemented operator: its sample desc (every field valid), every tensor
    bound to a 16-byte resource of its own, then a print of its first output."""
    rows = desc_fields(schema.desc_cls)
    tensors = [row.name for row in rows if row.is_tensor]
    zeros = {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 4, "value": 0}}
    desc = operator_desc(dml.DML_OPERATOR_DESC(schema.type, sample_desc(schema)))
    return json.dumps({
        "resources": {name: zeros for name in tensors},
        "dispatchables": {"op": {"type": name_of(schema), "desc": desc}},
        "commands": [{"type": "dispatch", "dispatchable": "op", "bindings": {name: name for name in tensors}},
                     {"type": "print", "resource": next(r.name for r in rows if r.spec.role == OUTPUT)}]}, indent=1)


def test_pytest_items_of_unimplemented_operators_are_skipped_saying_why(tmp_path):
    """The first operator dmlsim does not implement with plain tensors, whichever that is when the test runs."""
    schema = an_unimplemented_schema(has_plain_tensors, "with plain input and output tensors")
    folder = descriptor_folder(tmp_path)
    (folder / "unimplemented.json").write_text(unimplemented_model(schema))
    (tmp_path / "conftest.py").write_text(unregistering_conftest(schema))  # the same operator, unregistered there
    proc = run_pytest(tmp_path, str(folder))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 skipped" in proc.stdout  # the dispatchable, its dispatch, and the print (run after it)
    assert f"{name_of(schema)} is not implemented by dmlsim" in proc.stdout
