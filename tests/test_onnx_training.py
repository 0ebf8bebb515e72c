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

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps
from dmlsim.operators.onnx_training import SLOTS
from dmlsim.operators.onnx_training.reference import onnx_adagrad, onnx_adam, onnx_momentum
from dmlsim.quick import read_tensor, run_operator

F16, F32, F64 = dml.DML_TENSOR_DATA_TYPE_FLOAT16, dml.DML_TENSOR_DATA_TYPE_FLOAT32, dml.DML_TENSOR_DATA_TYPE_FLOAT64
I64 = dml.DML_TENSOR_DATA_TYPE_INT64
DTYPES = {F16: np.float16, F32: np.float32, F64: np.float64}
ULPS = {F16: 1, F32: 8, F64: 8}
R_FIELD, T_FIELD, X, G = "LearningRateTensor", "UpdateCountTensor", "InputParametersTensors", "GradientTensors"
OX = "OutputParametersTensors"
MIXED_SHAPES = [[1], [7], [3, 5], [2, 1, 9], [2, 3, 2, 5], [1, 2, 1, 2, 1, 3], [2, 1, 1, 1, 1, 1, 1, 3], [4100]]

# op → (operator type, desc class, state roles in, state roles out, attributes)
OPS = {
    "adagrad": (dml.DMLSIM_OPERATOR_ONNX_ADAGRAD, dml.DMLSIM_ONNX_ADAGRAD_OPERATOR_DESC,
                ["InputAccumulatedSquaredGradientTensors"], ["OutputAccumulatedSquaredGradientTensors"],
                {"NormCoefficient": 0.01, "Epsilon": 1e-5, "DecayFactor": 0.1}),
    "adam": (dml.DMLSIM_OPERATOR_ONNX_ADAM, dml.DMLSIM_ONNX_ADAM_OPERATOR_DESC,
             ["InputFirstMomentTensors", "InputSecondMomentTensors"],
             ["OutputFirstMomentTensors", "OutputSecondMomentTensors"],
             {"NormCoefficient": 0.01, "NormCoefficientPost": 0.05, "Alpha": 0.9, "Beta": 0.999, "Epsilon": 1e-6}),
    "momentum": (dml.DMLSIM_OPERATOR_ONNX_MOMENTUM, dml.DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC,
                 ["InputMomentumTensors"], ["OutputMomentumTensors"],
                 {"NormCoefficient": 0.01, "Alpha": 0.9, "Beta": 0.7,
                  "Mode": dml.DMLSIM_ONNX_MOMENTUM_MODE_STANDARD}),
    "nesterov": (dml.DMLSIM_OPERATOR_ONNX_MOMENTUM, dml.DMLSIM_ONNX_MOMENTUM_OPERATOR_DESC,
                 ["InputMomentumTensors"], ["OutputMomentumTensors"],
                 {"NormCoefficient": 0.01, "Alpha": 0.9, "Beta": 0.7,
                  "Mode": dml.DMLSIM_ONNX_MOMENTUM_MODE_NESTEROV}),
}


def make_desc(op, shapes, data_type=F32, rate_type=F32, attrs=None, strides=None):
    op_type, desc_cls, state_in, state_out, defaults = OPS[op]
    descs = [dml.buffer_tensor(data_type, s, None if strides is None else strides[i]) for i, s in enumerate(shapes)]
    fields = {R_FIELD: dml.buffer_tensor(rate_type, [1]), T_FIELD: dml.buffer_tensor(I64, [1, 1])}
    for name in (X, G, *state_in, OX, *state_out):
        fields[name] = descs
    desc = desc_cls(**fields, **{**defaults, **(attrs or {})})
    return dml.DML_OPERATOR_DESC(op_type, desc)


def make_inputs(op, shapes, dtype, rng, r=0.05, t=3):
    _, _, state_in, _, _ = OPS[op]
    inputs = {R_FIELD: np.float64(r), T_FIELD: np.int64(t)}
    inputs[X] = [rng.standard_normal(s).astype(dtype) for s in shapes]
    inputs[G] = [rng.standard_normal(s).astype(dtype) for s in shapes]
    for name in state_in:
        # Adagrad's H and Adam's second moment are accumulated squares: non-negative
        positive = "Squared" in name or "Second" in name
        inputs[name] = [(np.abs(rng.standard_normal(s)) if positive else rng.standard_normal(s)).astype(dtype)
                        for s in shapes]
    return inputs


def reference(op, inputs, attrs):
    """The float64 reference outputs, keyed by output field, for the attrs as float32 (as the desc holds)."""
    _, _, state_in, state_out, defaults = OPS[op]
    a = {k: np.float32(v) for k, v in {**defaults, **(attrs or {})}.items() if k != "Mode"}
    r, t = float(np.asarray(inputs[R_FIELD])), int(inputs[T_FIELD])
    if op == "adagrad":
        outs = onnx_adagrad(r, t, inputs[X], inputs[G], inputs[state_in[0]], norm_coefficient=a["NormCoefficient"],
                            epsilon=a["Epsilon"], decay_factor=a["DecayFactor"])
    elif op == "adam":
        outs = onnx_adam(r, t, inputs[X], inputs[G], *(inputs[n] for n in state_in),
                         norm_coefficient=a["NormCoefficient"], norm_coefficient_post=a["NormCoefficientPost"],
                         alpha=a["Alpha"], beta=a["Beta"], epsilon=a["Epsilon"])
    else:
        outs = onnx_momentum(r, t, inputs[X], inputs[G], inputs[state_in[0]], norm_coefficient=a["NormCoefficient"],
                             alpha=a["Alpha"], beta=a["Beta"], nesterov=op == "nesterov")
    return dict(zip((OX, *state_out), outs, strict=True))


def bounds(op, inputs, expected, attrs=None):
    """Magnitude bound per output field and tensor (see the module docstring)."""
    _, _, state_in, state_out, _ = OPS[op]
    result = {}
    xs = [np.abs(np.asarray(x, np.float64)) for x in inputs[X]]
    gs = [np.abs(np.asarray(g, np.float64)) for g in inputs[G]]
    # X - update, where the update's own terms may cancel (momentum: alpha·V + beta·G): the reference run
    # on |inputs| with -|R| adds every term with one sign, so it bounds them all (the property tests found
    # a momentum step whose |X| + |X - X_new| was 11 ulps too small)
    absolute = {name: [np.abs(np.asarray(a, np.float64)) for a in value] if isinstance(value, list) else value
                for name, value in inputs.items()}
    absolute[R_FIELD] = -abs(float(np.asarray(inputs[R_FIELD])))
    summed = reference(op, absolute, attrs)[OX]
    result[OX] = [np.maximum(x + np.abs(np.asarray(xi, np.float64) - e), np.abs(s))
                  for x, xi, e, s in zip(xs, inputs[X], expected[OX], summed, strict=True)]
    for name_in, name_out in zip(state_in, state_out, strict=True):
        s = [np.abs(np.asarray(v, np.float64)) for v in inputs[name_in]]
        squared = "Squared" in name_in or "Second" in name_in
        result[name_out] = [si + ((g + x) ** 2 if squared else g + x) for si, g, x in zip(s, gs, xs, strict=True)]
    return result


def check_outputs(op, got, inputs, attrs, data_type):
    expected = reference(op, inputs, attrs)
    bound = bounds(op, inputs, expected, attrs)
    for name, tensors in expected.items():
        assert len(got[name]) == len(tensors)
        for i, (g, e) in enumerate(zip(got[name], tensors, strict=True)):
            assert g.shape == e.shape and g.dtype == DTYPES[data_type]
            report = compare_ulps(g, e, DTYPES[data_type], ULPS[data_type], bound=bound[name][i])
            assert report.ok, report.describe(f"{op} {name}[{i}]")


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
    got = run_operator(device, make_desc(op, MIXED_SHAPES), inputs)
    check_outputs(op, got, inputs, None, F32)


@pytest.mark.parametrize("op", sorted(OPS))
def test_float64_tensors_and_rate(device, op):
    shapes = [[5], [3, 4]]
    op_desc = make_desc(op, shapes, F64, F64)
    if skip_or_refuse_fp64(device, op_desc):
        return
    inputs = make_inputs(op, shapes, np.float64, np.random.default_rng(2), r=0.1, t=4)
    check_outputs(op, run_operator(device, op_desc, inputs), inputs, None, F64)


@pytest.mark.parametrize("op", ["adam", "momentum"])
def test_float16_storage(device, op):
    shapes = [[33], [2, 9]]
    inputs = make_inputs(op, shapes, np.float16, np.random.default_rng(3))
    inputs[R_FIELD] = np.float32(0.05)
    check_outputs(op, run_operator(device, make_desc(op, shapes, F16), inputs), inputs, None, F16)


def test_float32_tensors_with_float64_rate(device):
    op_desc = make_desc("adagrad", [[6]], F32, F64)
    if skip_or_refuse_fp64(device, op_desc):
        return
    inputs = make_inputs("adagrad", [[6]], np.float32, np.random.default_rng(4), r=0.3)
    check_outputs("adagrad", run_operator(device, op_desc, inputs), inputs, None, F32)


@pytest.mark.parametrize("op", sorted(OPS))
def test_in_place_equals_out_of_place(device, op):
    shapes = [[3000], [17], [2, 2, 2]]
    inputs = make_inputs(op, shapes, np.float32, np.random.default_rng(5))
    inputs[R_FIELD] = np.float32(0.05)
    out_of_place = run_operator(device, make_desc(op, shapes), inputs)
    in_place = run_operator(device, make_desc(op, shapes), inputs, inplace=True)
    for name, tensors in out_of_place.items():
        for a, b in zip(tensors, in_place[name], strict=True):
            np.testing.assert_array_equal(a, b)


def test_strided_tensors(device):
    """Padded (strided) tensors take the generic path; a packed tensor in the same dispatch its own launch."""
    shapes = [[3, 4], [5]]
    strides = [[6, 1], None]
    inputs = make_inputs("adam", shapes, np.float32, np.random.default_rng(6))
    inputs[R_FIELD] = np.float32(0.01)
    got = run_operator(device, make_desc("adam", shapes, strides=strides), inputs)
    check_outputs("adam", got, inputs, None, F32)


def test_more_buffers_than_slots_splits_launches(device):
    shapes = [[i + 1] for i in range(2 * SLOTS + 3)]
    inputs = make_inputs("momentum", shapes, np.float32, np.random.default_rng(7))
    inputs[R_FIELD] = np.float32(0.05)
    got = run_operator(device, make_desc("momentum", shapes), inputs)
    check_outputs("momentum", got, inputs, None, F32)


def flat_dispatch(device, op, shapes, inputs, attrs=None):
    """Fused-optimizer layout: one buffer per role, tensors at 16-byte aligned offsets; outputs in place."""
    op_desc = make_desc(op, shapes, attrs=attrs)
    compiled = device.CompileOperator(device.CreateOperator(op_desc))
    sizes = [int(np.prod(s)) * 4 for s in shapes]
    offsets = np.cumsum([0] + [-(-n // 16) * 16 for n in sizes])
    _, _, state_in, state_out, _ = OPS[op]

    def role_buffer(arrays):
        buffer = device.CreateBuffer(int(offsets[-1]))
        for off, a in zip(offsets, arrays, strict=False):
            buffer.Write(np.ascontiguousarray(a, np.float32), int(off))
        return buffer

    def scalar(value, dtype):
        buffer = device.CreateBuffer(16)
        buffer.Write(np.array([value], dtype))
        return dml.buffer_binding(buffer, 0, 16)

    buffers = {name: role_buffer(inputs[name]) for name in (X, G, *state_in)}

    def array(buffer):
        return dml.buffer_array_binding([(buffer, int(off), n) for off, n in zip(offsets, sizes, strict=False)])

    props = compiled.GetBindingProperties()
    table = device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(
        compiled, SizeInDescriptors=props.RequiredDescriptorCount))
    table.BindInputs([scalar(inputs[R_FIELD], np.float32), scalar(inputs[T_FIELD], np.int64),
                      *(array(buffers[name]) for name in (X, G, *state_in))])
    table.BindOutputs([array(buffers[name]) for name in (X, *state_in)])
    cmd = device.CreateCommandList()
    device.CreateCommandRecorder().RecordDispatch(cmd, compiled, table)
    queue = device.CreateCommandQueue()
    queue.ExecuteCommandLists([cmd])
    queue.WaitForIdle()
    layouts = compiled.validated.tensors[X]
    got = {name_out: [read_tensor(buffers[name_in], layout, int(off)) for layout, off in zip(layouts, offsets,
                                                                                               strict=False)]
           for name_in, name_out in zip((X, *state_in), (OX, *state_out), strict=True)}
    return got, queue.last_timings


def test_flat_buffers_run_as_one_launch(device):
    shapes = [[i % 50 + 1] for i in range(300)] + [[4096], [3, 3]]
    inputs = make_inputs("adam", shapes, np.float32, np.random.default_rng(8))
    inputs[R_FIELD] = np.float32(0.02)
    got, timings = flat_dispatch(device, "adam", shapes, inputs)
    check_outputs("adam", got, inputs, None, F32)
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
    compiled = ref_device.CompileOperator(ref_device.CreateOperator(op_desc))
    buf = [ref_device.CreateBuffer(16) for _ in range(3)]
    table = ref_device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(compiled, SizeInDescriptors=16))
    scalars = [dml.buffer_binding(ref_device.CreateBuffer(16)), dml.buffer_binding(ref_device.CreateBuffer(16))]
    table.BindInputs([*scalars, *(dml.buffer_array_binding([(b, 0, 16)]) for b in buf)])
    table.BindOutputs([dml.buffer_array_binding([(buf[1], 0, 16)]), dml.buffer_array_binding([(buf[2], 0, 16)])])
    with pytest.raises(dml.DMLError, match=r"aliases input GradientTensors\[0\], which is not eligible"):
        ref_device.CreateCommandRecorder().RecordDispatch(ref_device.CreateCommandList(), compiled, table)


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
    check_outputs("adam", run_operator(device, make_desc("adam", MIXED_SHAPES), inputs), inputs, None, F32)


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
