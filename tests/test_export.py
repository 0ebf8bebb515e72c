"""``dmlsim export`` and ``dmlsim compare``: the corpus as plain DxDispatch models, and their results checked.

The keys DxDispatch reads are written out below from DxDispatch's model schema (models/_schema.json),
its Guide (doc/Guide.md: the dispatch/print/writeFile commands, the DML_TENSOR_DESC table) and its
JSON parser (dispatchable-level ``bindings``, binding objects), not taken from the exporter; desc
keys are checked against DirectML's own desc structs (dmlsim.api.directml_schema, generated from
DirectML's schema). Every exported model then runs on dmlsim (``dmlsim run`` with the output folder
flag) and ``dmlsim compare`` must accept its results, and reject a corrupted or missing one.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import ADAPTERS

from dmlsim.api.directml_schema import OPERATOR_SCHEMAS
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.cli import main
from dmlsim.model import load_model

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "descriptors"
OUTPUT_FLAG = "--output_path"  # `dmlsim run`'s folder for writeFile targets (DxDispatch's flag)

# --- DxDispatch's keys (schema, Guide, JsonParsers.cpp) -------------------------------------------------
TOP_KEYS = {"resources", "dispatchables", "commands"}
BUFFER_KEYS = {"type", "initialValues", "initialValuesDataType", "initialValuesOffsetInBytes", "sizeInBytes"}
INITIALIZER_FORMS = [{"valueCount", "value"}, {"valueCount", "valueStart", "valueDelta"}, {"sourcePath"}]
DML_DISPATCHABLE_KEYS = {"type", "desc", "executionFlags", "dmlCompileType", "bindings"}
COMMAND_KEYS = {"dispatch": {"type", "dispatchable", "bindings", "threadGroupCount"},
                "print": {"type", "resource", "verbose"},
                "writeFile": {"type", "resource", "targetPath", "dimensions"}}
BINDING_KEYS = {"name", "format", "elementCount", "elementSizeInBytes", "elementOffset", "counter",
                "counterOffsetBytes", "shape"}
TENSOR_DESC_KEYS = {"Type", "Desc", "DataType", "Flags", "DimensionCount", "Sizes", "Strides",
                    "TotalTensorSizeInBytes", "GuaranteedBaseOffsetAlignment"}
NESTED_OPERATOR_KEYS = {"Type", "Desc"}
DATA_TYPES = {"FLOAT16", "FLOAT32", "FLOAT64", "UINT8", "UINT16", "UINT32", "UINT64", "INT8", "INT16", "INT32",
              "INT64"}
DESC_CLASSES = {DML_OPERATOR_TYPE(s.type).name: s.desc_cls for s in OPERATOR_SCHEMAS}


def strict_json(path: Path):
    def refuse(constant):
        raise ValueError(f"{path}: {constant} is not JSON")
    return json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)


def export(paths, out: Path, *extra: str) -> int:
    return main(["export", *map(str, paths), "-o", str(out), *extra])


def exported_models(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.json") if not p.name.startswith("_"))


def run_all(folder: Path, results: Path, adapter: str = "reference") -> None:
    results.mkdir(parents=True, exist_ok=True)  # `run` writes into an existing output folder only
    for model in exported_models(folder):
        assert main(["run", "-a", adapter, str(model), OUTPUT_FLAG, str(results)]) == 0, model


@pytest.fixture(scope="module")
def corpus_export(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dxdispatch")
    assert export([CORPUS], out) == 0
    return out


@pytest.fixture(scope="module")
def reference_results(corpus_export, tmp_path_factory) -> Path:
    results = tmp_path_factory.mktemp("results")
    run_all(corpus_export, results)
    return results


# --- the exported corpus is plain DxDispatch ------------------------------------------------------------
def check_desc(desc: dict, desc_cls: type, where: str, *, fused: bool = False) -> None:
    """Only the struct's fields; every field DxDispatch requires (a fused activation has no tensors)."""
    fields = {f.name: f for f in dataclasses.fields(desc_cls)}
    assert set(desc) <= set(fields), f"{where}: {set(desc) - set(fields)} are no fields of {desc_cls.__name__}"
    assert None not in desc.values(), f"{where}: DxDispatch refuses null; an absent optional field is null"
    for name, f in fields.items():
        spec = f.metadata.get("dml")
        tensor = spec is not None and spec.role in ("input", "output")
        if fused and tensor:
            assert name not in desc, f"{where}: a fused activation has no {name}"
        elif spec is None or not spec.optional:  # count fields and non-optional fields: DxDispatch requires them
            assert name in desc, f"{where}: required field {name} of {desc_cls.__name__} is missing"
    for name, value in desc.items():
        spec = fields[name].metadata.get("dml")
        if spec is not None and spec.role in ("input", "output"):
            for tensor in value if isinstance(value, list) else [value]:
                assert set(tensor) <= TENSOR_DESC_KEYS, f"{where}.{name}: {set(tensor) - TENSOR_DESC_KEYS}"
                assert {"DataType", "Sizes"} <= set(tensor)
        elif spec is not None and spec.attr_type in ("OPERATOR_DESC", "OPERATOR_DESC_ARRAY"):
            for nested in value if isinstance(value, list) else [value]:
                assert set(nested) == NESTED_OPERATOR_KEYS, f"{where}.{name}"
                check_desc(nested["Desc"], DESC_CLASSES[nested["Type"]], f"{where}.{name}", fused=True)


def check_binding(binding, resources: dict, where: str) -> None:
    for item in binding if isinstance(binding, list) else [binding]:
        if isinstance(item, str):
            assert item in resources, where
        else:
            assert set(item) <= BINDING_KEYS and item["name"] in resources, where


def test_exported_models_use_only_dxdispatch_keys(corpus_export):
    models = exported_models(corpus_export)
    assert len(models) >= 10
    for path in models:
        doc = strict_json(path)
        assert set(doc) == TOP_KEYS, path
        for name, resource in doc["resources"].items():
            where = f"{path.name}: resource {name}"
            assert set(resource) <= BUFFER_KEYS, where
            assert resource["initialValuesDataType"] in DATA_TYPES, where
            initial = resource["initialValues"]
            if isinstance(initial, dict):
                assert set(initial) in INITIALIZER_FORMS, where
                if "sourcePath" in initial:
                    assert np.load(path.parent / initial["sourcePath"]).size > 0, where
            else:
                assert initial and all(isinstance(v, (int, float)) or v in ("nan", "inf", "-inf") for v in initial)
        for name, dispatchable in doc["dispatchables"].items():
            where = f"{path.name}: dispatchable {name}"
            assert set(dispatchable) <= DML_DISPATCHABLE_KEYS, where
            assert dispatchable["type"] in DESC_CLASSES, f"{where}: {dispatchable['type']} is no DirectML operator"
            check_desc(dispatchable["desc"], DESC_CLASSES[dispatchable["type"]], where)
            for binding in dispatchable.get("bindings", {}).values():
                check_binding(binding, doc["resources"], where)
        for i, command in enumerate(doc["commands"]):
            where = f"{path.name}: command {i}"
            assert set(command) <= COMMAND_KEYS[command["type"]], where
            if command["type"] == "dispatch":
                assert command["dispatchable"] in doc["dispatchables"], where
                for binding in command["bindings"].values():
                    check_binding(binding, doc["resources"], where)
            else:
                assert command["resource"] in doc["resources"], where


def test_the_index_accounts_for_every_corpus_file(corpus_export):
    index = strict_json(corpus_export / "_index.json")
    exported = {Path(m["source"]).name for m in index["models"]}
    left_out = {Path(m["source"]).name: m["why"] for m in index["notExported"]}
    corpus = {p.name for p in CORPUS.iterdir() if p.suffix in (".json", ".yaml")}
    assert exported | set(left_out) == corpus and not exported & set(left_out)
    assert "adam_float32.yaml" in exported and "element_wise_members.yaml" in exported
    assert "dmlsim extension operator" in left_out["onnx_adam.yaml"]
    assert "expectError" in left_out["adam_invalid_descs.yaml"]
    script = (corpus_export / "run_dxdispatch.cmd").read_bytes()
    assert script.count(b"\r\n") > 10 and b'"%HERE%adam_float32.json"' in script


# --- round trip on dmlsim ------------------------------------------------------------------------------
@pytest.fixture(params=ADAPTERS, ids=[a.short_label for a in ADAPTERS])
def corpus_adapter(request):
    """Each adapter of the whole-suite run (reference and the first ICD's devices), not a ``device`` test: the
    round trip checks the export, which no backend changes, and the corpus itself runs on every device through
    the descriptor plugin; rerunning all of it once more per device tier cost minutes of CI."""
    return request.param


def test_exported_corpus_reruns_on_dmlsim_and_compare_accepts_it(corpus_adapter, corpus_export, tmp_path, capsys):
    run_all(corpus_export, tmp_path, corpus_adapter.index)
    capsys.readouterr()
    assert main(["compare", str(corpus_export), str(tmp_path)]) == 0
    out = capsys.readouterr().out
    checks = sum(m["checks"] for m in strict_json(corpus_export / "_index.json")["models"])
    assert checks >= 50 and f"{checks} checks: {checks} match" in out


def copy_results(results: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "results"
    shutil.copytree(results, copy)
    return copy


def test_a_corrupted_result_is_a_mismatch_with_its_position_and_ulps(corpus_export, reference_results, tmp_path,
                                                                     capsys):
    results = copy_results(reference_results, tmp_path)
    target = results / "adam_float32" / "command-5-X.npy"  # expect X: [1, -2, 0.5, 3, ...] (ulp: 0)
    values = np.load(target)
    values[3] = np.nextafter(values[3], np.float32(10))  # one ulp off at position 3
    np.save(target, values)
    capsys.readouterr()
    assert main(["compare", str(corpus_export), str(results)]) == 1
    err = capsys.readouterr().err
    assert "adam_float32.yaml:" in err and "expect 'X'" in err
    assert "[3] expected 3, got 3 (off by 2.38419e-07, 1 ulp)" in err


def test_a_missing_result_exits_2(corpus_export, reference_results, tmp_path, capsys):
    results = copy_results(reference_results, tmp_path)
    (results / "adam_float32" / "command-5-X.npy").unlink()
    capsys.readouterr()
    assert main(["compare", str(corpus_export), str(results)]) == 2
    assert "expect 'X' (command 5, adam_float32/command-5-X.npy): missing" in capsys.readouterr().err
    assert main(["compare", str(corpus_export), str(tmp_path / "nowhere")]) == 2
    assert "no such results folder" in capsys.readouterr().err


@pytest.mark.parametrize("damage", ["truncated", "other_type", "not_npy"])
def test_a_malformed_result_exits_2(corpus_export, reference_results, tmp_path, capsys, damage):
    results = copy_results(reference_results, tmp_path)
    target = results / "adam_float32" / "command-5-X.npy"
    if damage == "truncated":
        np.save(target, np.load(target)[:5])
    elif damage == "other_type":
        np.save(target, np.load(target).astype(np.float64))
    else:
        target.write_bytes(b"garbage")
    capsys.readouterr()
    assert main(["compare", str(corpus_export), str(results)]) == 2
    assert "command-5-X.npy" in capsys.readouterr().err


def test_compare_of_a_folder_that_is_no_export_exits_2(tmp_path, capsys):
    assert main(["compare", str(tmp_path), str(tmp_path)]) == 2
    assert "_index.json" in capsys.readouterr().err


# --- what the translation does, on small models --------------------------------------------------------
MULTISTEP = """
resources:
  X: {initialValuesDataType: FLOAT32, initialValues: [1, 2]}
  Y: {initialValuesDataType: FLOAT32, initialValues: {valueCount: 2, value: 0}}
  G: {initialValuesDataType: FLOAT32, initialValues: {valueCount: 2, seed: 3, min: -1, max: 1}}
  step: {initialValuesDataType: UINT32, initialValues: [1]}
dispatchables:
  copy:
    type: ELEMENT_WISE_IDENTITY
    desc: {InputTensor: {DataType: FLOAT32, Sizes: [2]}, OutputTensor: {DataType: FLOAT32, Sizes: [2]},
           ScaleBias: {Scale: 2, Bias: 1}}
  refused:
    type: ELEMENT_WISE_IDENTITY
    desc: {InputTensor: {DataType: FLOAT32, Sizes: [2]}, OutputTensor: {DataType: FLOAT32, Sizes: [3]}}
    expectError: {hresult: E_INVALIDARG}
commands:
  - {type: dispatch, dispatchable: copy, bindings: {InputTensor: X, OutputTensor: X}, repeat: 3, increment: step}
  - {type: add, resource: step, value: 5}
  - {type: dispatch, dispatchable: copy, bindings: {InputTensor: X}, expectError: {match: OutputTensor}}
  - {type: expect, resource: X, values: [15, 23]}
  - {type: expect, resource: step, values: [9]}
  - {type: expect, resource: X, reference: true, atol: 0.25}
  - {type: print, resource: G}
"""


@pytest.fixture
def multistep(tmp_path) -> Path:
    source = tmp_path / "multistep.yaml"
    source.write_text(MULTISTEP)
    out = tmp_path / "out"
    assert export([source], out) == 0
    return out


def test_repeat_increment_and_add_become_element_wise_add_dispatches(multistep):
    doc = strict_json(multistep / "multistep.json")
    sequence = [(c["type"], c.get("dispatchable") or c.get("resource")) for c in doc["commands"]]
    assert sequence == [("dispatch", "copy"), ("dispatch", "dmlsim_add_step")] * 3 + [
        ("dispatch", "dmlsim_add_step"), ("writeFile", "X"), ("writeFile", "step"), ("writeFile", "X"),
        ("print", "G")]
    adds = [c for c in doc["commands"] if c["dispatchable" if c["type"] == "dispatch" else "type"] == "dmlsim_add_step"]
    assert [c["bindings"]["BTensor"] for c in adds] == ["dmlsim_add_step_value0"] * 3 + ["dmlsim_add_step_value1"]
    assert all(c["bindings"]["ATensor"] == c["bindings"]["OutputTensor"] == "step" for c in adds)
    assert doc["resources"]["dmlsim_add_step_value1"]["initialValues"] == {"valueCount": 1, "value": 5}
    assert doc["dispatchables"]["dmlsim_add_step"] == {"type": "DML_OPERATOR_ELEMENT_WISE_ADD", "desc": {
        t: {"DataType": "DML_TENSOR_DATA_TYPE_UINT32", "Sizes": [1, 1, 1, 1]} for t in ("ATensor", "BTensor",
                                                                                         "OutputTensor")}}
    assert "refused" not in doc["dispatchables"]
    assert doc["dispatchables"]["copy"]["desc"]["ScaleBias"] == {"Scale": 2.0, "Bias": 1.0}


def test_generated_initializers_become_npy_files_with_the_same_values(multistep, tmp_path):
    doc = strict_json(multistep / "multistep.json")
    source = doc["resources"]["G"]["initialValues"]["sourcePath"]
    assert source == "multistep.data/G.npy"
    np.testing.assert_array_equal(np.load(multistep / source),
                                  load_model(tmp_path / "multistep.yaml").resources["G"].values)
    assert doc["resources"]["X"]["initialValues"] == [1.0, 2.0]


def test_the_manifest_holds_values_tolerances_and_what_was_left_out(multistep):
    manifest = strict_json(multistep / "_multistep.manifest.json")
    checks = {c["command"]: c for c in manifest["checks"]}
    assert checks[3]["expected"] == [15.0, 23.0] and checks[3]["expectedFrom"] == "values"
    assert checks[3]["tolerance"] == {} and checks[3]["file"] == "multistep/command-3-X.npy"
    assert checks[4]["expected"] == [9] and checks[4]["dataType"] == "UINT32"
    # x -> 2x + 1 three times: 1 -> 15, 2 -> 23; reference: true takes the reference device's values
    assert checks[5]["expected"] == [15.0, 23.0] and checks[5]["expectedFrom"] == "reference"
    assert checks[5]["tolerance"] == {"atol": 0.25} and "reference device" in manifest["referenceNote"]
    left_out = {item["what"]: item["why"] for item in manifest["notExported"]}
    assert set(left_out) == {"dispatchable 'refused'", "command 2 (dispatch 'copy')"}
    assert all("expectError" in why for why in left_out.values())


def test_the_translation_reruns_on_dmlsim_and_a_tolerance_is_honoured(multistep, tmp_path, capsys):
    results = tmp_path / "results"
    run_all(multistep, results)
    assert main(["compare", str(multistep), str(results)]) == 0
    target = results / "multistep" / "command-5-X.npy"
    np.save(target, np.array([15.2, 23], np.float32))  # within atol 0.25 of the reference's 15
    assert main(["compare", str(multistep), str(results)]) == 0
    np.save(target, np.array([15.5, 23], np.float32))
    capsys.readouterr()
    assert main(["compare", str(multistep), str(results)]) == 1
    assert "[0] expected 15, got 15.5" in capsys.readouterr().err


def test_expectations_after_a_left_out_dispatch_are_left_out_too(tmp_path):
    source = tmp_path / "mixed.yaml"
    source.write_text("""
resources:
  X: {initialValuesDataType: FLOAT32, initialValues: [1, 2]}
  R: {initialValuesDataType: FLOAT32, initialValues: [0.5]}
  T: {initialValuesDataType: INT64, initialValues: [1]}
  G: {initialValuesDataType: FLOAT32, initialValues: [1, 1]}
  H: {initialValuesDataType: FLOAT32, initialValues: [0, 0]}
dispatchables:
  copy:
    type: ELEMENT_WISE_IDENTITY
    desc: {InputTensor: {DataType: FLOAT32, Sizes: [2]}, OutputTensor: {DataType: FLOAT32, Sizes: [2]}}
  adagrad:
    type: DMLSIM_OPERATOR_ONNX_ADAGRAD
    desc:
      TensorCount: 1
      LearningRateTensor: {DataType: FLOAT32, Sizes: [1]}
      UpdateCountTensor: {DataType: INT64, Sizes: [1]}
      InputParametersTensors: [{DataType: FLOAT32, Sizes: [2]}]
      GradientTensors: [{DataType: FLOAT32, Sizes: [2]}]
      InputAccumulatedSquaredGradientTensors: [{DataType: FLOAT32, Sizes: [2]}]
      OutputParametersTensors: [{DataType: FLOAT32, Sizes: [2]}]
      OutputAccumulatedSquaredGradientTensors: [{DataType: FLOAT32, Sizes: [2]}]
      NormCoefficient: 0
      Epsilon: 1e-6
      DecayFactor: 0
commands:
  - {type: dispatch, dispatchable: copy, bindings: {InputTensor: X, OutputTensor: X}}
  - {type: expect, resource: X, values: [1, 2]}
  - {type: dispatch, dispatchable: adagrad, bindings: {LearningRateTensor: R, UpdateCountTensor: T,
     InputParametersTensors: [X], GradientTensors: [G], InputAccumulatedSquaredGradientTensors: [H],
     OutputParametersTensors: [X], OutputAccumulatedSquaredGradientTensors: [H]}}
  - {type: expect, resource: X, reference: true}
""")
    out = tmp_path / "out"
    assert export([source], out) == 0
    manifest = strict_json(out / "_mixed.manifest.json")
    assert [c["command"] for c in manifest["checks"]] == [1]
    why = {item["what"]: item["why"] for item in manifest["notExported"]}
    assert "dmlsim extension operator" in why["dispatchable 'adagrad'"]
    assert "an earlier step is left out" in why["command 3 (expect 'X')"]
    doc = strict_json(out / "mixed.json")
    assert set(doc["dispatchables"]) == {"copy"} and len(doc["commands"]) == 2


def test_desc_forms_dxdispatch_reads(corpus_export):
    doc = strict_json(corpus_export / "element_wise_members.json")
    add1 = doc["dispatchables"]["add_elu"]["desc"]
    assert add1["FusedActivation"] == {"Type": "DML_OPERATOR_ACTIVATION_ELU", "Desc": {"Alpha": 0.5}}
    clip1 = doc["dispatchables"]["clip1"]["desc"]
    assert clip1["MinMaxDataType"] == "DML_TENSOR_DATA_TYPE_FLOAT16" and (clip1["Min"], clip1["Max"]) == (2, 4)
    offsets = strict_json(corpus_export / "adam_offsets.json")
    bindings = [b for c in offsets["commands"] if c["type"] == "dispatch" for b in c["bindings"].values()]
    assert any(isinstance(b, dict) and b.get("elementOffset") and b["elementSizeInBytes"] == 4 for b in bindings)


def test_scalar_union_members_follow_the_data_type(tmp_path):
    source = tmp_path / "fill.yaml"
    source.write_text("""
resources:
  Y: {initialValuesDataType: FLOAT16, initialValues: [0, 0]}
dispatchables:
  fill:
    type: FILL_VALUE_CONSTANT
    desc: {OutputTensor: {DataType: FLOAT16, Sizes: [2]}, ValueDataType: FLOAT16, Value: {Bytes: [0, 60]}}
  ramp:
    type: FILL_VALUE_SEQUENCE
    desc: {OutputTensor: {DataType: INT32, Sizes: [2]}, ValueDataType: INT32, ValueStart: 10, ValueDelta: -2}
commands:
  - {type: dispatch, dispatchable: fill, bindings: {OutputTensor: Y}}
  - {type: expect, resource: Y, values: [1, 1]}
""")
    out = tmp_path / "out"
    assert export([source], out) == 0
    dispatchables = strict_json(out / "fill.json")["dispatchables"]
    assert dispatchables["fill"]["desc"]["Value"] == {"UInt16": 15360}  # bytes 00 3C: the half 1.0, read as UInt16
    ramp = dispatchables["ramp"]["desc"]  # an INT32 union from a number: a JSON integer (RapidJSON's GetInt)
    assert (ramp["ValueStart"], ramp["ValueDelta"]) == (10, -2)
    assert all(isinstance(ramp[k], int) for k in ("ValueStart", "ValueDelta"))


def test_whole_buffer_and_region_results_are_both_read_at_the_values_offset(tmp_path, capsys):
    source = tmp_path / "offset.yaml"
    source.write_text("""
resources:
  X: {initialValuesDataType: FLOAT32, initialValues: [1, 2, 3, 4], initialValuesOffsetInBytes: 16,
      sizeInBytes: 48}
dispatchables:
  copy:
    type: ELEMENT_WISE_IDENTITY
    desc: {InputTensor: {DataType: FLOAT32, Sizes: [4]}, OutputTensor: {DataType: FLOAT32, Sizes: [4]}}
commands:
  - {type: dispatch, dispatchable: copy, bindings: {InputTensor: {name: X, elementOffset: 4},
     OutputTensor: {name: X, elementOffset: 4}}}
  - {type: expect, resource: X, values: [1, 2, 3, 4]}
""")
    out = tmp_path / "out"
    assert export([source], out) == 0
    target = tmp_path / "results" / "offset" / "command-1-X.npy"
    target.parent.mkdir(parents=True)
    whole = np.array([9, 9, 9, 9, 1, 2, 3, 4, 9, 9, 9, 9], np.float32)  # DxDispatch: all 48 bytes
    np.save(target, whole)
    assert main(["compare", str(out), str(tmp_path / "results")]) == 0
    np.save(target, whole[4:8])  # exactly the values
    assert main(["compare", str(out), str(tmp_path / "results")]) == 0
    whole[5] = 7
    np.save(target, whole)
    capsys.readouterr()
    assert main(["compare", str(out), str(tmp_path / "results")]) == 1
    assert "[1] expected 2, got 7" in capsys.readouterr().err


def test_raw_results(tmp_path, multistep):
    source = tmp_path / "multistep.yaml"
    out = tmp_path / "raw"
    assert export([source], out, "--raw") == 0
    doc = strict_json(out / "multistep.json")
    assert {c["targetPath"] for c in doc["commands"] if c["type"] == "writeFile"} == {
        "multistep/command-3-X.bin", "multistep/command-4-step.bin", "multistep/command-5-X.bin"}
    results = tmp_path / "raw-results"
    run_all(out, results)
    assert main(["compare", str(out), str(results)]) == 0
    (results / "multistep" / "command-4-step.bin").write_bytes(np.array([8], np.uint32).tobytes())
    assert main(["compare", str(out), str(results)]) == 1


def test_a_broken_model_file_is_reported_and_exits_2(tmp_path, capsys):
    broken = tmp_path / "broken.yaml"
    broken.write_text("resources: {}\ndispatchables: {}\ncommands: [{type: nope}]\n")
    assert export([broken], tmp_path / "out") == 2
    assert "broken.yaml:3" in capsys.readouterr().err
    index = strict_json(tmp_path / "out" / "_index.json")
    assert index["models"] == [] and "errors" in index["notExported"][0]["why"]


def test_data_files_of_resources_whose_names_clash_as_file_names_stay_apart(tmp_path):
    source = tmp_path / "clash.yaml"
    source.write_text("""
resources:
  "a b": {initialValuesDataType: FLOAT32, initialValues: {valueCount: 2, seed: 1, min: 0, max: 1}}
  "A_b": {initialValuesDataType: FLOAT32, initialValues: {valueCount: 2, seed: 2, min: 0, max: 1}}
dispatchables:
  copy:
    type: ELEMENT_WISE_IDENTITY
    desc: {InputTensor: {DataType: FLOAT32, Sizes: [2]}, OutputTensor: {DataType: FLOAT32, Sizes: [2]}}
commands:
  - {type: dispatch, dispatchable: copy, bindings: {InputTensor: "a b", OutputTensor: "A_b"}}
""")
    assert export([source], tmp_path / "out") == 0
    resources = strict_json(tmp_path / "out" / "clash.json")["resources"]
    paths = [resources[name]["initialValues"]["sourcePath"] for name in ("a b", "A_b")]
    assert paths == ["clash.data/a_b.npy", "clash.data/A_b-2.npy"]
    model = load_model(source)
    for name, path in zip(("a b", "A_b"), paths, strict=True):
        np.testing.assert_array_equal(np.load(tmp_path / "out" / path), model.resources[name].values)
