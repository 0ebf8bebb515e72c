"""IDMLDevice::CheckFeatureSupport and the descriptor files' ``requiredDataTypes`` built on it."""

from __future__ import annotations

import pytest
from plugin_support import descriptor_folder, run_pytest

import dmlsim as dml
from dmlsim.model import SKIPPED, Runner, load_model
from dmlsim.operators import OPERATORS, load_all

QUERY = dml.DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT


def supported(device, data_type):
    return device.CheckFeatureSupport(dml.DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, QUERY(data_type)).IsSupported


def test_data_type_support_follows_cl_khr_fp64(device, monkeypatch):
    assert supported(device, dml.DML_TENSOR_DATA_TYPE_FLOAT32) and supported(device, dml.DML_TENSOR_DATA_TYPE_FLOAT16)
    assert supported(device, dml.DML_TENSOR_DATA_TYPE_FLOAT64) == device.backend.has_fp64
    monkeypatch.setattr(device.backend, "has_fp64", False)
    assert not supported(device, dml.DML_TENSOR_DATA_TYPE_FLOAT64)
    assert supported(device, dml.DML_TENSOR_DATA_TYPE_INT64)


def test_bad_queries_are_refused(ref_device):
    with pytest.raises(dml.DMLError, match="DataType is DML_TENSOR_DATA_TYPE_UNKNOWN, which names no") as info:
        supported(ref_device, dml.DML_TENSOR_DATA_TYPE_UNKNOWN)
    assert info.value.hresult == dml.E_INVALIDARG
    with pytest.raises(dml.DMLError, match="DataType 99 is not a DML_TENSOR_DATA_TYPE"):
        supported(ref_device, 99)
    with pytest.raises(dml.DMLError, match="needs a DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT"):
        ref_device.CheckFeatureSupport(dml.DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, dml.DML_TENSOR_DATA_TYPE_FLOAT32)
    with pytest.raises(dml.DMLError, match="unknown DML_FEATURE 7"):
        ref_device.CheckFeatureSupport(7, QUERY(dml.DML_TENSOR_DATA_TYPE_FLOAT32))


def test_feature_levels_answer_the_highest_requested_level_reached(ref_device, monkeypatch):
    current = ref_device.GetFeatureLevel()
    levels = [dml.DML_FEATURE_LEVEL_1_0, current, dml.DML_FEATURE_LEVEL_1_0]
    data = ref_device.CheckFeatureSupport(dml.DML_FEATURE_FEATURE_LEVELS,
                                          dml.DML_FEATURE_QUERY_FEATURE_LEVELS(3, levels))
    assert data.MaxSupportedFeatureLevel == current  # the highest requested level that is reached
    with pytest.raises(dml.DMLError, match="RequestedFeatureLevelCount 2 must be the length"):
        ref_device.CheckFeatureSupport(dml.DML_FEATURE_FEATURE_LEVELS, dml.DML_FEATURE_QUERY_FEATURE_LEVELS(2, levels))
    # without FOLD (6.4) the device cannot reach 6.4: asking for it alone is DXGI_ERROR_UNSUPPORTED
    load_all()
    monkeypatch.delitem(OPERATORS, int(dml.DML_OPERATOR_FOLD), raising=False)
    with pytest.raises(dml.DMLError) as info:
        ref_device.CheckFeatureSupport(dml.DML_FEATURE_FEATURE_LEVELS,
                                       dml.DML_FEATURE_QUERY_FEATURE_LEVELS(1, [dml.DML_FEATURE_LEVEL_6_4]))
    assert info.value.hresult == dml.DXGI_ERROR_UNSUPPORTED
    assert "dmlsim reaches" in str(info.value)


MODEL = """
requiredDataTypes: [FLOAT64]
resources:
  a: {initialValuesDataType: FLOAT64, initialValues: [1, 2]}
dispatchables: {}
commands:
  - {type: add, resource: a, value: 1}
  - {type: expect, resource: a, values: [2, 3]}
"""


def test_a_model_requiring_float64_is_skipped_where_it_is_unsupported_and_runs_elsewhere(tmp_path, monkeypatch):
    path = tmp_path / "m.yaml"
    path.write_text(MODEL)
    model = load_model(path)
    device = dml.DMLCreateDevice(0, "reference")
    ran = Runner(model, device).run()
    assert ran.exit_status == 0 and {o.status for o in ran.outcomes.values()} == {"passed"}
    monkeypatch.setattr(device.backend, "has_fp64", False)
    skipped = Runner(model, device).run()
    assert skipped.exit_status == 0 and {o.status for o in skipped.outcomes.values()} == {SKIPPED}
    assert "does not support FLOAT64 tensors (CheckFeatureSupport)" in skipped.outcomes["command-1"].message


def test_required_data_types_must_be_known_names(tmp_path):
    from dmlsim.model import ModelError

    path = tmp_path / "m.yaml"
    path.write_text(MODEL.replace("[FLOAT64]", "[FLOAT65]"))
    with pytest.raises(ModelError, match="unknown data type 'FLOAT65'"):
        load_model(path)


def test_feature_level_queries_name_bad_entries(ref_device):
    for levels, shown in (([0x1001], "0x1001"), ([dml.DML_FEATURE_LEVEL_2_0, 0x1234], "0x1234")):
        with pytest.raises(dml.DMLError, match=f"RequestedFeatureLevels holds {shown}, not DML_FEATURE_LEVEL"):
            ref_device.CheckFeatureSupport(dml.DML_FEATURE_FEATURE_LEVELS,
                                           dml.DML_FEATURE_QUERY_FEATURE_LEVELS(len(levels), levels))
    with pytest.raises(dml.DMLError, match="DataType True is not a DML_TENSOR_DATA_TYPE"):
        supported(ref_device, True)


def test_a_huge_feature_level_is_described_not_printed(ref_device):
    """Found by the API fuzzer at CI strength (issue 26): two levels of 10**15000 made a 25,000-character message
    (each printed in hex); a value beyond a UINT is described by its size."""
    huge = 10**15000
    with pytest.raises(dml.DMLError) as info:
        ref_device.CheckFeatureSupport(dml.DML_FEATURE_FEATURE_LEVELS,
                                       dml.DML_FEATURE_QUERY_FEATURE_LEVELS(2, [huge, huge]))
    assert f"holds <an integer of {huge.bit_length()} bits>, <an integer of" in str(info.value)
    assert len(str(info.value)) < 300


def test_pytest_items_of_an_unsupported_model_are_skipped_with_the_reason(tmp_path):
    """Through the plugin: a device without FLOAT64 skips every item of a requiredDataTypes: [FLOAT64] file."""
    folder = descriptor_folder(tmp_path)
    (folder / "f64.yaml").write_text(MODEL)
    (tmp_path / "conftest.py").write_text("from dmlsim.backends.reference import ReferenceBackend\n"
                                          "ReferenceBackend.has_fp64 = False  # a device without cl_khr_fp64\n")
    proc = run_pytest(tmp_path, str(folder))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 skipped" in proc.stdout and "passed" not in proc.stdout
    assert "does not support FLOAT64 tensors (CheckFeatureSupport)" in proc.stdout
    assert "PytestUnknownMarkWarning" not in proc.stdout + proc.stderr
