"""DirectML's whole operator schema (dmlsim.api.directml_schema) and the generic validation it drives.

The expected facts are directml.h's (names, values, field order), written out here independently of
the generator; the generator itself is re-run when DirectML's DirectMLHelpers sources are available
(``DMLSIM_DIRECTML_HELPERS=.../DxDispatch/src/dxdispatch/DirectMLHelpers``).
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest
from unimplemented_support import an_unimplemented_schema, has_plain_tensors, name_of, sample_desc

import dmlsim as dml
from dmlsim.api import directml_schema as S  # noqa: N812 - the generated schema, used everywhere here
from dmlsim.api.errors import Problems
from dmlsim.api.operator_types import DML_OPERATOR_TYPE_NAMES, DML_OPERATOR_TYPE_TARGET_VERSIONS
from dmlsim.api.schema import ATTRIBUTE, INPUT, OUTPUT, count_fields, desc_fields
from dmlsim.operators import (
    OPERATORS,
    SCHEMAS,
    UnimplementedOperator,
    implemented_feature_level,
    load_all,
    lookup_operator,
)
from dmlsim.operators.validation import validate_fields

ROOT = Path(__file__).resolve().parents[1]
F32 = dml.DML_TENSOR_DATA_TYPE_FLOAT32


def tensor(sizes=(1, 1, 2, 2), data_type=F32, **kw):
    return dml.buffer_tensor(data_type, list(sizes), **kw)


def create(device, op_type, desc):
    return device.CreateOperator(dml.DML_OPERATOR_DESC(op_type, desc))


def refused(device, op_type, desc, hresult=dml.E_INVALIDARG):
    with pytest.raises(dml.DMLError) as info:
        create(device, op_type, desc)
    assert info.value.hresult == hresult, str(info.value)
    return info.value


# --- the generated module -----------------------------------------------------------------------
def test_every_header_operator_has_a_generated_desc():
    header = {value for name, value in DML_OPERATOR_TYPE_NAMES if value}
    assert {int(s.type) for s in S.OPERATOR_SCHEMAS} == header
    assert len(S.OPERATOR_SCHEMAS) == 177 and len(header) == 177
    assert len(S.OPERATOR_ENUMS) == 14


def test_generated_file_says_it_is_generated():
    head = (ROOT / "dmlsim/api/directml_schema.py").read_text().splitlines()[0]
    assert head.startswith("# GENERATED FILE: do not edit by hand") and "tools/gen_directml_schema.py" in \
        (ROOT / "dmlsim/api/directml_schema.py").read_text().splitlines()[1] + head


def test_feature_levels_follow_the_header_blocks():
    for schema in S.OPERATOR_SCHEMAS:
        block = next(level for first, last, level in DML_OPERATOR_TYPE_TARGET_VERSIONS if first <= schema.type <= last)
        assert schema.feature_level == block, dml.DML_OPERATOR_TYPE(schema.type).name
    level = {dml.DML_OPERATOR_TYPE(s.type).name: s.feature_level for s in S.OPERATOR_SCHEMAS}
    assert level["DML_OPERATOR_ADAM_OPTIMIZER"] == dml.DML_FEATURE_LEVEL_3_0
    assert level["DML_OPERATOR_MULTIHEAD_ATTENTION"] == dml.DML_FEATURE_LEVEL_6_1
    assert level["DML_OPERATOR_FOLD"] == level["DML_OPERATOR_RESAMPLE3"] == dml.DML_FEATURE_LEVEL_6_4


def test_in_place_support_comes_from_the_schema():
    in_place = {dml.DML_OPERATOR_TYPE(s.type).name: s.supports_in_place for s in S.OPERATOR_SCHEMAS}
    assert in_place["DML_OPERATOR_ELEMENT_WISE_ADD"] and in_place["DML_OPERATOR_ACTIVATION_RELU"]
    assert in_place["DML_OPERATOR_ADAM_OPTIMIZER"]
    assert not in_place["DML_OPERATOR_GEMM"] and not in_place["DML_OPERATOR_CONVOLUTION"]
    assert not in_place["DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS"]  # the output type differs
    gemm = {r.name: r.spec.inplace_eligible for r in desc_fields(S.DML_GEMM_OPERATOR_DESC) if r.spec.role == INPUT}
    assert gemm == {"ATensor": False, "BTensor": False, "CTensor": False}


@pytest.mark.parametrize(("enum", "members"), [
    (S.DML_REDUCE_FUNCTION, ["ARGMAX", "ARGMIN", "AVERAGE", "L1", "L2", "LOG_SUM", "LOG_SUM_EXP", "MAX", "MIN",
                             "MULTIPLY", "SUM", "SUM_SQUARE"]),
    (S.DML_MATRIX_TRANSFORM, ["NONE", "TRANSPOSE"]),
    (S.DML_CONVOLUTION_MODE, ["CONVOLUTION", "CROSS_CORRELATION"]),
    (S.DML_CONVOLUTION_DIRECTION, ["FORWARD", "BACKWARD"]),
    (S.DML_PADDING_MODE, ["CONSTANT", "EDGE", "REFLECTION", "SYMMETRIC", "WRAP"]),
    (S.DML_INTERPOLATION_MODE, ["NEAREST_NEIGHBOR", "LINEAR"]),
    (S.DML_RECURRENT_NETWORK_DIRECTION, ["FORWARD", "BACKWARD", "BIDIRECTIONAL"]),
    (S.DML_ROUNDING_MODE, ["HALVES_TO_NEAREST_EVEN", "TOWARD_ZERO", "TOWARD_INFINITY"]),
    (S.DML_IS_INFINITY_MODE, ["EITHER", "POSITIVE", "NEGATIVE"]),
    (S.DML_AXIS_DIRECTION, ["INCREASING", "DECREASING"]),
    (S.DML_DEPTH_SPACE_ORDER, ["DEPTH_COLUMN_ROW", "COLUMN_ROW_DEPTH"]),
    (S.DML_RANDOM_GENERATOR_TYPE, ["PHILOX_4X32_10"]),
    (S.DML_MULTIHEAD_ATTENTION_MASK_TYPE, ["NONE", "KEY_SEQUENCE_LENGTH", "KEY_SEQUENCE_END_START",
                                           "KEY_QUERY_SEQUENCE_LENGTH_START_END", "BOOLEAN"]),
    (S.DML_QUANTIZATION_TYPE, ["NONE", "SCALE", "SCALE_ZERO_POINT"]),
])
def test_operator_enums_have_the_header_names_and_values(enum, members):
    prefix = enum.__name__ + "_"
    assert [(m.name, m.value) for m in enum] == [(prefix + name, i) for i, name in enumerate(members)]
    assert getattr(dml, prefix + members[-1]) == len(members) - 1  # exported under the full name


def _kinds(desc_cls):
    return [(r.name, r.spec.role, r.spec.attr_type if r.spec.role == ATTRIBUTE else r.spec.optional,
             r.spec.array_count) for r in desc_fields(desc_cls)]


def test_field_order_and_kinds_of_a_few_descs():
    assert [f.name for f in dataclasses.fields(S.DML_CONVOLUTION_OPERATOR_DESC)] == [
        "InputTensor", "FilterTensor", "BiasTensor", "OutputTensor", "Mode", "Direction", "DimensionCount",
        "Strides", "Dilations", "StartPadding", "EndPadding", "OutputPadding", "GroupCount", "FusedActivation"]
    conv = {r.name: r.spec for r in desc_fields(S.DML_CONVOLUTION_OPERATOR_DESC)}
    assert conv["BiasTensor"].optional and not conv["FilterTensor"].optional
    assert conv["Mode"].attr_type is S.DML_CONVOLUTION_MODE
    assert (conv["Dilations"].attr_type, conv["Dilations"].array_count) == ("UINT_ARRAY", "DimensionCount")
    assert (conv["FusedActivation"].attr_type, conv["FusedActivation"].optional) == ("OPERATOR_DESC", True)
    assert _kinds(S.DML_JOIN_OPERATOR_DESC) == [
        ("InputCount", ATTRIBUTE, "UINT", None), ("InputTensors", INPUT, False, "InputCount"),
        ("OutputTensor", OUTPUT, False, None), ("Axis", ATTRIBUTE, "UINT", None)]
    pairs = {(cls.__name__, r.name): r.spec.array_count for cls in (S.DML_VALUE_SCALE_2D_OPERATOR_DESC,
             S.DML_TILE_OPERATOR_DESC, S.DML_RESAMPLE_OPERATOR_DESC, S.DML_SLICE1_OPERATOR_DESC,
             S.DML_GRU_OPERATOR_DESC, S.DML_DEQUANTIZE_OPERATOR_DESC, S.DML_FOLD_OPERATOR_DESC)
             for r in desc_fields(cls) if r.spec.array_count}
    assert pairs[("DML_VALUE_SCALE_2D_OPERATOR_DESC", "Bias")] == "ChannelCount"
    assert pairs[("DML_TILE_OPERATOR_DESC", "Repeats")] == "RepeatsCount"
    assert pairs[("DML_RESAMPLE_OPERATOR_DESC", "Scales")] == "ScaleCount"
    assert pairs[("DML_SLICE1_OPERATOR_DESC", "InputWindowStrides")] == "DimensionCount"
    assert pairs[("DML_GRU_OPERATOR_DESC", "ActivationDescs")] == "ActivationDescCount"
    assert pairs[("DML_DEQUANTIZE_OPERATOR_DESC", "QuantizationTensors")] == "QuantizationTensorCount"
    assert pairs[("DML_FOLD_OPERATOR_DESC", "WindowSizes")] == "DimensionCount"
    slice1 = {r.name: r.spec.attr_type for r in desc_fields(S.DML_SLICE1_OPERATOR_DESC)}
    assert slice1["InputWindowStrides"] == "INT_ARRAY" and slice1["InputWindowOffsets"] == "UINT_ARRAY"
    clip1 = {r.name: r.spec for r in desc_fields(S.DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC)}
    assert clip1["MinMaxDataType"].attr_type is dml.DML_TENSOR_DATA_TYPE
    assert (clip1["Min"].attr_type, clip1["Min"].data_type_field) == ("SCALAR_UNION", "MinMaxDataType")
    assert (clip1["ScaleBias"].attr_type, clip1["ScaleBias"].optional) == ("SCALE_BIAS", True)
    cumsum = {r.name: r.spec.attr_type for r in desc_fields(S.DML_CUMULATIVE_SUMMATION_OPERATOR_DESC)}
    assert cumsum == {"InputTensor": None, "OutputTensor": None, "Axis": "UINT",
                      "AxisDirection": S.DML_AXIS_DIRECTION, "HasExclusiveSum": "BOOL"}
    upsample = {r.name: r.spec.attr_type for r in desc_fields(S.DML_UPSAMPLE_2D_OPERATOR_DESC)}
    assert upsample["ScaleSize"] == "SIZE_2D" and upsample["InterpolationMode"] is S.DML_INTERPOLATION_MODE
    assert S.DML_SCATTER_ELEMENTS_OPERATOR_DESC is S.DML_SCATTER_OPERATOR_DESC


def test_implemented_directml_operators_keep_the_generated_fields_and_kinds():
    """An implemented DirectML operator's desc is the header's struct, field for field: the generated desc
    itself (the element-wise family) or a hand-written one (Adam) with the same fields and kinds."""
    load_all()
    checked = hand_written = 0
    for op_type, op in OPERATORS.items():
        schema = SCHEMAS.get(op_type)
        if schema is None:  # a DMLSIM_ extension operator
            continue
        hand_written += op.desc_cls is not schema.desc_cls
        assert [f.name for f in dataclasses.fields(op.desc_cls)] == \
            [f.name for f in dataclasses.fields(schema.desc_cls)], op.name
        assert _kinds(op.desc_cls) == _kinds(schema.desc_cls), op.name
        checked += 1
    assert checked >= 2 and hand_written >= 1


def test_count_fields_are_inferred_from_arrays():
    desc = S.DML_REDUCE_OPERATOR_DESC(S.DML_REDUCE_FUNCTION_SUM, tensor(), tensor((1, 1, 1, 1)), Axes=[2, 3])
    assert desc.AxisCount == 2
    assert S.DML_JOIN_OPERATOR_DESC(InputTensors=[tensor(), tensor()]).InputCount == 2


@pytest.mark.skipif(not os.environ.get("DMLSIM_DIRECTML_HELPERS"), reason="DirectML's DirectMLHelpers sources "
                    "not given (DMLSIM_DIRECTML_HELPERS)")
def test_the_generator_reproduces_the_committed_module(tmp_path):
    helpers = Path(os.environ["DMLSIM_DIRECTML_HELPERS"])
    out = tmp_path / "schema.py"
    subprocess.run([sys.executable, str(ROOT / "tools/gen_directml_schema.py"), str(helpers / "DirectMLSchema.h"),
                    "-o", str(out)], check=True)
    assert out.read_text() == (ROOT / "dmlsim/api/directml_schema.py").read_text()


# --- generic validation -------------------------------------------------------------------------
@pytest.mark.parametrize("schema", S.OPERATOR_SCHEMAS, ids=lambda s: dml.DML_OPERATOR_TYPE(s.type).name)
def test_every_operator_validates_generically(ref_device, schema):
    """Each DirectML operator: an empty desc names every missing field at once; a complete one passes every
    generic check and is then refused with E_NOTIMPL (or created, when dmlsim implements it)."""
    rows = desc_fields(schema.desc_cls)
    counts = count_fields(schema.desc_cls)
    error = refused(ref_device, schema.type, schema.desc_cls())
    struct = schema.desc_cls.__name__
    for row in rows:
        if row.name not in counts and not row.spec.optional:
            assert any(p.startswith(f"{struct}.{row.name} ") for p in error.problems), (row.name, error.problems)
    op = lookup_operator(schema.type)
    if op.implemented:
        return
    error = refused(ref_device, schema.type, sample_desc(schema), dml.E_NOTIMPL)
    assert f"{dml.DML_OPERATOR_TYPE(schema.type).name} is not implemented by dmlsim" in str(error)


def conv(**changes):
    base = dict(InputTensor=tensor((1, 1, 3, 3)), FilterTensor=tensor((1, 1, 2, 2)), BiasTensor=None,
                OutputTensor=tensor((1, 1, 2, 2)), Mode=S.DML_CONVOLUTION_MODE_CROSS_CORRELATION,
                Direction=S.DML_CONVOLUTION_DIRECTION_FORWARD, DimensionCount=2, Strides=[1, 1], Dilations=[1, 1],
                StartPadding=[0, 0], EndPadding=[0, 0], OutputPadding=[0, 0], GroupCount=1, FusedActivation=None)
    return S.DML_CONVOLUTION_OPERATOR_DESC(**{**base, **changes})


def activation(name, **fields):
    op_type = getattr(dml, f"DML_OPERATOR_ACTIVATION_{name}")
    return dml.DML_OPERATOR_DESC(op_type, getattr(S, f"DML_ACTIVATION_{name}_OPERATOR_DESC")(**fields))


def generic_problems(op_type, desc):
    """The problems DirectML's generic schema checks alone find in ``desc`` (its operator's own rules left out),
    whether or not dmlsim implements the operator."""
    problems = Problems()
    validate_fields(UnimplementedOperator(SCHEMAS[int(op_type)]), desc, type(desc).__name__, problems)
    return problems.items


CONV = dml.DML_OPERATOR_CONVOLUTION
C = "DML_CONVOLUTION_OPERATOR_DESC"


def test_a_valid_unimplemented_desc_gets_e_notimpl_naming_it(ref_device):
    """The refusal names the operator and lists what is implemented (the first operator dmlsim does not
    implement, whichever that is when the test runs)."""
    schema = an_unimplemented_schema()
    error = refused(ref_device, schema.type, sample_desc(schema), dml.E_NOTIMPL)
    assert f"{name_of(schema)} is not implemented by dmlsim" in str(error)
    assert "DML_OPERATOR_ADAM_OPTIMIZER" in str(error)  # what is implemented


def test_every_problem_of_a_desc_is_reported_at_once(ref_device):
    error = refused(ref_device, CONV, conv(Mode=7, Strides=[1, 1, 1], EndPadding=[0, -1], GroupCount=2**32,
                                           OutputTensor=None, FusedActivation=activation("SOFTMAX")))
    assert "CreateOperator(DML_OPERATOR_CONVOLUTION)" in str(error).splitlines()[0]
    assert sorted(error.problems) == sorted([
        f"{C}.OutputTensor must not be null",
        f"{C}.Mode 7 is not a DML_CONVOLUTION_MODE (DML_CONVOLUTION_MODE_CONVOLUTION=0, "
        "DML_CONVOLUTION_MODE_CROSS_CORRELATION=1)",
        f"{C}.Strides must hold DimensionCount (2) values, got 3",
        f"{C}.EndPadding[1] must be a UINT in [0, 4294967295], got -1",
        f"{C}.GroupCount must be a UINT in [0, 4294967295], got 4294967296",
        next(p for p in error.problems if p.startswith(f"{C}.FusedActivation.Type DML_OPERATOR_ACTIVATION_SOFTMAX "
                                                        "cannot be fused")),
    ])


def test_fused_activations_are_checked_recursively(ref_device):
    relu_with_tensors = activation("RELU", InputTensor=tensor(), OutputTensor=None)
    error = refused(ref_device, CONV, conv(FusedActivation=relu_with_tensors))
    assert error.problems == [f"{C}.FusedActivation.Desc.InputTensor must be null: a fused activation's tensors "
                              "are those of the operator it is fused into"]
    error = refused(ref_device, CONV, conv(FusedActivation=activation("ELU")))
    assert error.problems == [f"{C}.FusedActivation.Desc.Alpha must be given (FLOAT)"]
    error = refused(ref_device, CONV, conv(FusedActivation=dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ACTIVATION_ELU,
                                                                                S.DML_ACTIVATION_RELU_OPERATOR_DESC())))
    assert "FusedActivation.Desc for DML_OPERATOR_ACTIVATION_ELU must be a DML_ACTIVATION_ELU_OPERATOR_DESC" in \
        error.problems[0]
    error = refused(ref_device, CONV, conv(FusedActivation="relu"))
    assert error.problems == [f"{C}.FusedActivation must be a DML_OPERATOR_DESC (an activation), got str"]
    error = refused(ref_device, CONV, conv(InputTensor=tensor((1, 1, 3, 3), dml.DML_TENSOR_DATA_TYPE_INT32),
                                           OutputTensor=tensor((1, 1, 2, 2), dml.DML_TENSOR_DATA_TYPE_INT32),
                                           FusedActivation=activation("RELU")))
    assert error.problems == [f"{C}.FusedActivation needs a FLOAT32 or FLOAT16 output, but {C}.OutputTensor.DataType "
                              "is INT32"]


def test_activation_desc_arrays_are_counted_and_checked(ref_device):
    gru = dict(InputTensor=tensor((1, 4, 1, 3)), WeightTensor=tensor((1, 1, 6, 3)),
               RecurrenceTensor=tensor((1, 1, 6, 2)), OutputSingleTensor=tensor((1, 1, 1, 2)),
               Direction=S.DML_RECURRENT_NETWORK_DIRECTION_FORWARD, LinearBeforeReset=True)
    two = [activation("SIGMOID"), activation("TANH")]
    assert generic_problems(dml.DML_OPERATOR_GRU, S.DML_GRU_OPERATOR_DESC(**gru, ActivationDescs=two)) == []
    error = refused(ref_device, dml.DML_OPERATOR_GRU,
                    S.DML_GRU_OPERATOR_DESC(**gru, ActivationDescCount=3, ActivationDescs=two))
    assert error.problems == ["DML_GRU_OPERATOR_DESC.ActivationDescs must hold ActivationDescCount (3) operator "
                              "descs, got 2"]
    error = refused(ref_device, dml.DML_OPERATOR_GRU, S.DML_GRU_OPERATOR_DESC(
        **{**gru, "LinearBeforeReset": 2}, ActivationDescs=[activation("SIGMOID"), activation("HARDMAX")]))
    assert error.problems[0].startswith("DML_GRU_OPERATOR_DESC.ActivationDescs[1].Type "
                                        "DML_OPERATOR_ACTIVATION_HARDMAX cannot be fused")
    assert error.problems[1] == "DML_GRU_OPERATOR_DESC.LinearBeforeReset must be a BOOL (true/false, 0/1), got 2"


def clip1(data_type, low, high, **changes):
    t = tensor((4,), data_type)
    return S.DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC(t, t, changes.get("ScaleBias"), data_type, low, high)


def test_scalar_unions_are_read_as_their_data_type_field(ref_device):
    f16, i8 = dml.DML_TENSOR_DATA_TYPE_FLOAT16, dml.DML_TENSOR_DATA_TYPE_INT8
    clip = dml.DML_OPERATOR_ELEMENT_WISE_CLIP1
    # valid: FLOAT16 bits 0x3C00 = 1.0, and the INT8 byte 127 (CLIP1 is implemented: created)
    assert create(ref_device, clip, clip1(f16, -1.5, dml.DML_SCALAR_UNION(UInt16=0x3C00))).validated.attrs["Max"] == 1.0
    assert create(ref_device, clip, clip1(i8, -128, dml.DML_SCALAR_UNION(Bytes=[127]))).validated.attrs["Max"] == 127
    E = "DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC"
    error = refused(ref_device, clip, clip1(f16, 70000.0, dml.DML_SCALAR_UNION(Float32=1.0)))
    assert error.problems == [f"{E}.Min 70000.0 does not fit a FLOAT16",
                              f"{E}.Max.Float32 is set, but {E}.MinMaxDataType FLOAT16 reads {E}.Max.UInt16"]
    error = refused(ref_device, clip, clip1(i8, -129, dml.DML_SCALAR_UNION(Int8=1, Int16=2)))
    assert error.problems == [f"{E}.Min must be an integer in [-128, 127] (a int8), got -129",
                              f"{E}.Max must set exactly one member of the union (it is read as {E}.MinMaxDataType "
                              "INT8: Int8), got Int8, Int16"]
    error = refused(ref_device, clip, clip1(dml.DML_TENSOR_DATA_TYPE_UNKNOWN, 0, 1))
    assert f"{E}.Min cannot be read: {E}.MinMaxDataType is DML_TENSOR_DATA_TYPE_UNKNOWN" in error.problems


def test_small_structs_and_scalars_are_checked(ref_device):
    t = tensor()
    up = S.DML_UPSAMPLE_2D_OPERATOR_DESC(t, tensor((1, 1, 4, 4)), dml.DML_SIZE_2D(2, -2), 9)
    error = refused(ref_device, dml.DML_OPERATOR_UPSAMPLE_2D, up)
    assert error.problems[0] == "DML_UPSAMPLE_2D_OPERATOR_DESC.ScaleSize.Height must be a UINT in [0, 4294967295], " \
                                "got -2"
    assert error.problems[1].startswith("DML_UPSAMPLE_2D_OPERATOR_DESC.InterpolationMode 9 is not a "
                                        "DML_INTERPOLATION_MODE")
    ident = S.DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(t, t, dml.DML_SCALE_BIAS(1e39, "x"))
    error = refused(ref_device, dml.DML_OPERATOR_ELEMENT_WISE_IDENTITY, ident)
    assert error.problems == ["DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC.ScaleBias.Scale 1e+39 does not fit a FLOAT "
                              "(float32)", "DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC.ScaleBias.Bias must be a FLOAT, "
                              "got str 'x'"]


def test_attribute_arrays_against_their_counts(ref_device):
    reduce = S.DML_REDUCE_OPERATOR_DESC(S.DML_REDUCE_FUNCTION_SUM, tensor(), tensor((1, 1, 1, 1)), 2, [3])
    error = refused(ref_device, dml.DML_OPERATOR_REDUCE, reduce)
    assert error.problems == ["DML_REDUCE_OPERATOR_DESC.Axes must hold AxisCount (2) values, got 1"]
    slice1 = S.DML_SLICE1_OPERATOR_DESC(tensor(), tensor(), None, [0, 0, 0, 0], [1, 1, 2, 2], [1, 1, -1, 2.5])
    error = refused(ref_device, dml.DML_OPERATOR_SLICE1, slice1)
    assert error.problems == ["DML_SLICE1_OPERATOR_DESC.InputWindowStrides[3] must be a INT in [-2147483648, "
                              "2147483647], got 2.5"]
    tile = S.DML_TILE_OPERATOR_DESC(tensor(), tensor(), None, None)
    assert refused(ref_device, dml.DML_OPERATOR_TILE, tile).problems == [
        "DML_TILE_OPERATOR_DESC.RepeatsCount must be given (UINT)",
        "DML_TILE_OPERATOR_DESC.Repeats must not be null (an array of RepeatsCount elements)"]
    tile = S.DML_TILE_OPERATOR_DESC(tensor(), tensor(), 0, None)  # no repeats: a null array is fine
    assert generic_problems(dml.DML_OPERATOR_TILE, tile) == []


def test_a_generated_desc_works_for_an_implemented_operator(ref_device):
    t, step = tensor((1, 1, 1, 4)), dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_UINT32, [1, 1, 1, 1])
    desc = S.DML_ADAM_OPTIMIZER_OPERATOR_DESC(t, t, t, t, step, t, t, t, 0.01, 0.9, 0.999, 1e-8)
    op = create(ref_device, dml.DML_OPERATOR_ADAM_OPTIMIZER, desc)
    assert isinstance(op.validated.desc, dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC)


def complete_level_by_hand(implemented, gaps=()) -> int:
    """The highest level whose operators, with every earlier level's, are all in ``implemented`` and which
    adds nothing dmlsim lacks (``gaps``: none since 6_3's INT4/UINT4 data types arrived): written here from the
    schema's levels, independently of dmlsim.operators."""
    levels = sorted({int(s.feature_level) for s in SCHEMAS.values()})
    best = int(dml.DML_FEATURE_LEVEL_1_0)
    for level in levels:
        if any(gap <= level for gap in gaps):
            break
        if all(t in implemented for t, s in SCHEMAS.items() if s.feature_level <= level):
            best = level
        else:
            break
    return best


def test_the_feature_level_is_the_highest_at_which_the_operator_set_is_complete(ref_device):
    """GetFeatureLevel promises every operator up to the level it answers: the highest level at which every
    DirectML operator of that level and the earlier ones runs (DML_FEATURE_LEVEL_1_0 at least)."""
    load_all()
    expected = complete_level_by_hand(set(OPERATORS))
    assert ref_device.GetFeatureLevel() == expected == implemented_feature_level()
    missing = [t for t in SCHEMAS if t not in OPERATORS]
    if not missing:  # the whole set runs, 6_3's INT4/UINT4 data types too: the schema's newest level
        assert expected == max(int(s.feature_level) for s in SCHEMAS.values())


def test_an_operator_missing_at_a_level_caps_the_feature_level_below_it(ref_device, monkeypatch):
    """With every operator of the schema registered (the missing ones as if implemented) and no level's
    additions missing, the level is the schema's newest; taking one operator of level 3.0 away caps it at
    the level before 3.0 (2.1), whatever the newer levels hold; CheckFeatureSupport then refuses 3.0."""
    load_all()
    for t in SCHEMAS:
        if t not in OPERATORS:
            monkeypatch.setitem(OPERATORS, t, lookup_operator(t))
    monkeypatch.setattr("dmlsim.operators.LEVEL_GAPS", {})
    newest = max(int(s.feature_level) for s in SCHEMAS.values())
    assert ref_device.GetFeatureLevel() == newest
    monkeypatch.delitem(OPERATORS, int(dml.DML_OPERATOR_SLICE_GRAD))  # a 3.0 operator
    assert SCHEMAS[int(dml.DML_OPERATOR_SLICE_GRAD)].feature_level == dml.DML_FEATURE_LEVEL_3_0
    assert ref_device.GetFeatureLevel() == dml.DML_FEATURE_LEVEL_2_1 == complete_level_by_hand(set(OPERATORS), ())
    data = ref_device.CheckFeatureSupport(dml.DML_FEATURE_FEATURE_LEVELS, dml.DML_FEATURE_QUERY_FEATURE_LEVELS(
        2, [dml.DML_FEATURE_LEVEL_1_0, dml.DML_FEATURE_LEVEL_3_0]))
    assert data.MaxSupportedFeatureLevel == dml.DML_FEATURE_LEVEL_1_0


def test_an_unimplemented_operator_can_be_bound_for_checking(ref_device):
    """check_operator: the dispatch's bindings are checked, then RecordDispatch refuses with E_NOTIMPL (the
    first operator dmlsim does not implement with plain input and output tensors; each is a 16-byte
    {1, 1, 2, 2} FLOAT32 tensor in the sample desc)."""
    schema = an_unimplemented_schema(has_plain_tensors, "with plain input and output tensors")
    rows = desc_fields(schema.desc_cls)
    inputs, outputs = (sum(r.spec.role == role for r in rows) for role in (INPUT, OUTPUT))
    op = ref_device.check_operator(dml.DML_OPERATOR_DESC(schema.type, sample_desc(schema)))
    compiled = ref_device.CompileOperator(op)
    table = ref_device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(compiled, SizeInDescriptors=inputs + outputs))
    a, small = ref_device.CreateBuffer(16), ref_device.CreateBuffer(8)
    table.BindInputs([dml.buffer_binding(a)] * inputs)
    with pytest.raises(dml.DMLError, match="SizeInBytes 8 is less than TotalTensorSizeInBytes 16"):
        table.BindOutputs([dml.buffer_binding(small)] + [dml.buffer_binding(ref_device.CreateBuffer(16))
                                                         for _ in range(outputs - 1)])
    table.BindOutputs([dml.buffer_binding(ref_device.CreateBuffer(16)) for _ in range(outputs)])
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateCommandRecorder().RecordDispatch(ref_device.CreateCommandList(), compiled, table)
    assert info.value.hresult == dml.E_NOTIMPL and "bindings were checked and are valid" in str(info.value)


def test_a_levels_missing_addition_caps_the_feature_level_below_it(ref_device, monkeypatch):
    """A level whose addition besides operators is missing (LEVEL_GAPS) caps the level below it: with every
    operator registered and a gap put at 6_3, the level is 6_2, not the newest; without gaps, the newest."""
    load_all()
    for t in SCHEMAS:
        if t not in OPERATORS:
            monkeypatch.setitem(OPERATORS, t, lookup_operator(t))
    newest = max(int(s.feature_level) for s in SCHEMAS.values())
    assert ref_device.GetFeatureLevel() == newest == complete_level_by_hand(set(OPERATORS))
    monkeypatch.setattr("dmlsim.operators.LEVEL_GAPS", {dml.DML_FEATURE_LEVEL_6_3: "a gap, for this test"})
    assert ref_device.GetFeatureLevel() == dml.DML_FEATURE_LEVEL_6_2 == complete_level_by_hand(
        set(OPERATORS), (dml.DML_FEATURE_LEVEL_6_3,))


def test_6_3s_4_bit_data_types_are_in_the_enum_with_the_headers_values(ref_device):
    """DML_FEATURE_LEVEL_6_3 added DML_TENSOR_DATA_TYPE_UINT4 and INT4 (directml.h 1.15: 12 and 13, after INT64;
    DxDispatch's DirectMLHelpers/ApiTraits.cpp lists them in that order): the level's only addition besides
    operators, so GetFeatureLevel reaches it; CheckFeatureSupport says the device supports both."""
    assert int(dml.DML_TENSOR_DATA_TYPE_UINT4) == 12 and int(dml.DML_TENSOR_DATA_TYPE_INT4) == 13
    for data_type in (dml.DML_TENSOR_DATA_TYPE_UINT4, dml.DML_TENSOR_DATA_TYPE_INT4):
        support = ref_device.CheckFeatureSupport(dml.DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT,
                                                 dml.DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT(data_type))
        assert support.IsSupported
