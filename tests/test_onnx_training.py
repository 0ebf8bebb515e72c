"""DMLSIM_OPERATOR_ONNX_ADAGRAD / _ADAM / _MOMENTUM: kernels against the float64 references, on every device.

Tolerances are in ulps of the storage type (dmlsim.api.numerics), measured against a magnitude bound of
the terms that went into each result (a cancelling sum keeps its terms' rounding errors):
- X_new: bound |X| + |X - X_new|, i.e. both terms of X - update, or the same step computed on |inputs|
  with -|R| when larger (every term of the update added with one sign: its own terms may cancel);
  V_new: |V| + |G| + |X| (every term of alpha·V + c·(nc·X + G) has a coefficient ≤ 1 in these tests);
  H_new: |H| + (|G| + |X|)².
- float32 / float64: 8 ulps. Each result is ≤ 6 rounded operations, plus the learning-rate factor
  (expm1/log/sqrt, a few ulps in OpenCL's accuracy tables); 8 leaves margin, not slack for a wrong
  formula (a wrong coefficient is off by far more).
- float16 storage: 1 ulp of half (computed in float32, one round-to-nearest-even on store: ≤ 0.5 ulp,
  plus float32 error far below a half ulp).
"""

from __future__ import annotations

import numpy as np
import pytest
from dispatch import Dispatch, run
from onnx_support import (
    F16,
    F32,
    F64,
    I64,
    MIXED_SHAPES,
    OPS,
    OX,
    R_FIELD,
    T_FIELD,
    G,
    X,
    check_outputs,
    make_desc,
    make_inputs,
)

import dmlsim as dml
from dmlsim.operators.onnx_training import SLOTS

CANARY = 0xA5  # fills the spare bytes of flat_dispatch's buffers


def skip_or_refuse_fp64(device, op_desc):
    """On a device without cl_khr_fp64, FLOAT64 must be refused clearly; returns True when it was."""
    if device.backend.has_fp64:
        return False
    with pytest.raises(dml.DMLError) as info:
        device.CompileOperator(device.CreateOperator(op_desc))
    assert info.value.hresult == dml.DXGI_ERROR_UNSUPPORTED and "cl_khr_fp64" in str(info.value)
    return True


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("t", [0, 1, 7])
def test_mixed_shapes_float32_match_reference(device, op, t):
    rng = np.random.default_rng(t)
    inputs = make_inputs(op, MIXED_SHAPES, np.float32, rng, t=t)
    inputs[R_FIELD] = np.float32(0.05)
    got = run(device, make_desc(op, MIXED_SHAPES), inputs)
    check_outputs(op, got, inputs, None, F32)


@pytest.mark.parametrize("op", sorted(OPS))
def test_float64_tensors_and_rate(device, op):
    shapes = [[5], [3, 4]]
    op_desc = make_desc(op, shapes, F64, F64)
    if skip_or_refuse_fp64(device, op_desc):
        return
    inputs = make_inputs(op, shapes, np.float64, np.random.default_rng(2), r=0.1, t=4)
    check_outputs(op, run(device, op_desc, inputs), inputs, None, F64)


@pytest.mark.parametrize("op", ["adam", "momentum"])
def test_float16_storage(device, op):
    shapes = [[33], [2, 9]]
    inputs = make_inputs(op, shapes, np.float16, np.random.default_rng(3))
    inputs[R_FIELD] = np.float32(0.05)
    check_outputs(op, run(device, make_desc(op, shapes, F16), inputs), inputs, None, F16)


def test_float32_tensors_with_float64_rate(device):
    op_desc = make_desc("adagrad", [[6]], F32, F64)
    if skip_or_refuse_fp64(device, op_desc):
        return
    inputs = make_inputs("adagrad", [[6]], np.float32, np.random.default_rng(4), r=0.3)
    check_outputs("adagrad", run(device, op_desc, inputs), inputs, None, F32)


@pytest.mark.parametrize("op", sorted(OPS))
def test_in_place_equals_out_of_place(device, op):
    shapes = [[3000], [17], [2, 2, 2]]
    inputs = make_inputs(op, shapes, np.float32, np.random.default_rng(5))
    inputs[R_FIELD] = np.float32(0.05)
    out_of_place = run(device, make_desc(op, shapes), inputs)
    in_place = run(device, make_desc(op, shapes), inputs, inplace=True)
    for name, tensors in out_of_place.items():
        for a, b in zip(tensors, in_place[name], strict=True):
            np.testing.assert_array_equal(a, b)


def test_strided_tensors(device):
    """Padded (strided) tensors take the generic path; a packed tensor in the same dispatch its own launch."""
    shapes = [[3, 4], [5]]
    strides = [[6, 1], None]
    inputs = make_inputs("adam", shapes, np.float32, np.random.default_rng(6))
    inputs[R_FIELD] = np.float32(0.01)
    got = run(device, make_desc("adam", shapes, strides=strides), inputs)
    check_outputs("adam", got, inputs, None, F32)


def test_more_buffers_than_slots_splits_launches(device):
    shapes = [[i + 1] for i in range(2 * SLOTS + 3)]
    inputs = make_inputs("momentum", shapes, np.float32, np.random.default_rng(7))
    inputs[R_FIELD] = np.float32(0.05)
    got = run(device, make_desc("momentum", shapes), inputs)
    check_outputs("momentum", got, inputs, None, F32)


def flat_dispatch(device, op, shapes, inputs, attrs=None):
    """Fused-optimizer layout: one buffer per role, tensors at 16-byte aligned offsets; outputs in place.

    Each buffer is four times what its tensors need and starts filled with a canary byte, so an
    offset taken in the wrong unit lands inside it (a wrong value, not a wild access) and a write
    anywhere but a tensor shows. Returns the outputs, the timings and whether every byte outside
    the tensors (the alignment gaps and the spare three quarters) still holds the canary.
    """
    sizes = [int(np.prod(s)) * 4 for s in shapes]
    offsets = np.cumsum([0] + [-(-n // 16) * 16 for n in sizes])
    spare = 4 * int(offsets[-1])
    _, _, state_in, state_out, _ = OPS[op]
    placement = {}
    for name in (X, G, *state_in):
        buffer = device.CreateBuffer(spare)
        buffer.Write(bytes([CANARY]) * spare, 0)
        placement[name] = [(buffer, int(off)) for off in offsets[:-1]]
    dispatch = Dispatch(device, make_desc(op, shapes, attrs=attrs), placement=placement,
                        inplace=dict(zip((OX, *state_out), (X, *state_in), strict=True)))
    dispatch.load({name: inputs[name] for name in (R_FIELD, T_FIELD, X, G, *state_in)})
    timings = dispatch.execute()
    outside = np.ones(spare, bool)
    for off, n in zip(offsets[:-1], sizes, strict=True):
        outside[off:off + n] = False
    untouched = all((np.frombuffer(places[0][0].Read(0, spare), np.uint8)[outside] == CANARY).all()
                    for places in placement.values())
    return dispatch.outputs(), timings, untouched


def test_flat_buffers_run_as_one_launch(device):
    shapes = [[i % 50 + 1] for i in range(300)] + [[4096], [3, 3]]
    inputs = make_inputs("adam", shapes, np.float32, np.random.default_rng(8))
    inputs[R_FIELD] = np.float32(0.02)
    got, timings, untouched = flat_dispatch(device, "adam", shapes, inputs)
    check_outputs("adam", got, inputs, None, F32)
    assert untouched, "bytes outside the bound tensors changed"
    if device.backend.kind == "opencl":
        assert len(timings) == 1, [t.name for t in timings]


# --- validation -------------------------------------------------------------------------------------------
def test_validation_reports_every_problem(ref_device):
    t = dml.buffer_tensor(F32, [4])
    desc = dml.DMLSIM_ONNX_ADAM_OPERATOR_DESC(
        None, dml.buffer_tensor(F32, [2]), dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_UINT32, [1]),
        [t, t], [t, dml.buffer_tensor(F32, [5])], [t, t], [t, t], [t, t], [t, t], [t, t],
        0.0, 0.0, 0.9, 0.999, 1e-6)
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateOperator(dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ONNX_ADAM, desc))
    assert info.value.hresult == dml.E_INVALIDARG
    text = str(info.value)
    assert "DMLSIM_ONNX_ADAM_OPERATOR_DESC.UpdateCountTensor.DataType must be one of {INT64}, got UINT32" in text


def test_cross_field_rules(ref_device):
    t4, t5 = dml.buffer_tensor(F32, [4]), dml.buffer_tensor(F32, [5])
    h = dml.buffer_tensor(F16, [5])
    desc = dml.DMLSIM_ONNX_ADAGRAD_OPERATOR_DESC(
        None, dml.buffer_tensor(F32, [2]), dml.buffer_tensor(I64, [1]),
        [t4, t5], [t4, t4], [t4, h], [t4, t5], [t4, t5], 0.0, 1e-6, 0.0)
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateOperator(dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ONNX_ADAGRAD, desc))
    problems = info.value.problems
    s = "DMLSIM_ONNX_ADAGRAD_OPERATOR_DESC"
    assert f"{s}.LearningRateTensor.Sizes [2] must all be 1 (a scalar tensor)" in problems
    assert f"{s}.GradientTensors[1].Sizes [4] must equal InputParametersTensors[1].Sizes [5]" in problems
    assert (f"{s}.InputAccumulatedSquaredGradientTensors[1].DataType FLOAT16 must equal "
            "InputParametersTensors[1].DataType FLOAT32") in problems


def test_array_length_and_mode_and_rank(ref_device):
    t = dml.buffer_tensor(F32, [1] * 9)
    desc = dml.DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC(
        2, dml.buffer_tensor(F32, [1]), dml.buffer_tensor(I64, [1]),
        [t, t], [t], [t, t], [t, t], [t, t], 0.0, 0.9, 0.1, 7)
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateOperator(dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ONNX_MOMENTUM, desc))
    text = str(info.value)
    assert "DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC.GradientTensors must hold TensorCount (2) tensor descs, got 1" in text
    assert "DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC.Mode 7 is not a DMLSIM_ONNX_MOMENTUM_MODE" in text
    assert "DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC.InputParametersTensors[0].DimensionCount must be 1, 2" in text


def test_binding_is_buffer_array_and_cross_index_alias_refused(ref_device):
    op_desc = make_desc("momentum", [[4], [4]])
    compiled = ref_device.CompileOperator(ref_device.CreateOperator(op_desc))
    buf = [ref_device.CreateBuffer(16) for _ in range(6)]
    table = ref_device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(compiled, SizeInDescriptors=16))
    with pytest.raises(dml.DMLError, match="DML_BINDING_TYPE_BUFFER_ARRAY"):
        table.BindInputs([dml.buffer_binding(buf[0]), dml.buffer_binding(buf[0]), dml.buffer_binding(buf[0]),
                          dml.buffer_binding(buf[0]), dml.buffer_binding(buf[0])])
    scalars = [dml.buffer_binding(ref_device.CreateBuffer(16)), dml.buffer_binding(ref_device.CreateBuffer(16))]
    table.BindInputs([*scalars, dml.buffer_array_binding([(buf[0], 0, 16), (buf[1], 0, 16)]),
                      dml.buffer_array_binding([(buf[2], 0, 16), (buf[3], 0, 16)]),
                      dml.buffer_array_binding([(buf[4], 0, 16), (buf[5], 0, 16)])])
    # X_new[0] over X[1]: tensor 0 would be written while tensor 1 is still being read
    table.BindOutputs([dml.buffer_array_binding([(buf[1], 0, 16), (buf[0], 0, 16)]),
                       dml.buffer_array_binding([(buf[4], 0, 16), (buf[5], 0, 16)])])
    with pytest.raises(dml.DMLError,
                       match=r"OutputParametersTensors\[0\] aliases input InputParametersTensors\[1\]"):
        dml_cmd = ref_device.CreateCommandList()
        ref_device.CreateCommandRecorder().RecordDispatch(dml_cmd, compiled, table)


def test_gradient_is_not_in_place_eligible(ref_device):
    op_desc = make_desc("momentum", [[4]])
    over = {OX: G, "OutputMomentumTensors": "InputMomentumTensors"}
    with pytest.raises(dml.DMLError, match=r"aliases input GradientTensors\[0\], which is not eligible"):
        Dispatch(ref_device, op_desc, inplace=over)


def test_tensor_count_inferred_and_enum_exported():
    t = dml.buffer_tensor(F32, [2])
    desc = dml.DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC(None, t, t, [t, t, t])
    assert desc.TensorCount == 3
    mode = dml.DMLSIM_ONNX_MOMENTUM_MODE
    assert mode.DMLSIM_ONNX_MOMENTUM_MODE_NESTEROV == dml.DMLSIM_ONNX_MOMENTUM_MODE_NESTEROV == 1


@pytest.mark.parametrize("shape", [pytest.param((64, 4, 4096), marks=pytest.mark.large), (3, 8, 48)])
def test_other_launch_shapes(device, monkeypatch, shape):
    """The GPU launch shape (many work-items per chunk) and an odd one, exercised on whatever device runs."""
    import dmlsim.operators.onnx_training as module

    monkeypatch.setattr(module, "CPU_SHAPE", shape)
    monkeypatch.setattr(module, "GPU_SHAPE", shape)
    inputs = make_inputs("adam", MIXED_SHAPES, np.float32, np.random.default_rng(9))
    inputs[R_FIELD] = np.float32(0.05)
    check_outputs("adam", run(device, make_desc("adam", MIXED_SHAPES), inputs), inputs, None, F32)


def test_a_null_array_and_a_zero_count_are_each_reported_once(ref_device):
    t = dml.buffer_tensor(F32, [2])
    scalars = (dml.buffer_tensor(F32, [1]), dml.buffer_tensor(I64, [1]))
    null_gradients = dml.DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC(2, *scalars, [t, t], None, [t, t], [t, t], [t, t],
                                                            0.0, 0.9, 0.1, 0)
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateOperator(dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ONNX_MOMENTUM, null_gradients))
    assert info.value.problems == ["DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC.GradientTensors must not be null "
                                   "(an array of TensorCount tensor descs)"]
    zero = dml.DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC(0, *scalars, [], [], [], [], [], 0.0, 0.9, 0.1, 0)
    with pytest.raises(dml.DMLError) as info:
        ref_device.CreateOperator(dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ONNX_MOMENTUM, zero))
    assert info.value.problems == ["DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC.TensorCount must be a UINT ≥ 1, got 0"]
