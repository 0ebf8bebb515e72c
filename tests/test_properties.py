"""Property tests: whatever desc and bindings a caller builds, dmlsim answers with a result or a DMLError.

Hypothesis draws Adam descs (data types including invalid integers, sizes including 0, strides,
TotalTensorSizeInBytes, alignments, flags, DimensionCount, attributes) and bindings (shared or
separate buffers, offsets, sizes in bytes), then runs the whole flow on the reference device:
CreateOperator → CompileOperator → CreateBindingTable → BindInputs/BindOutputs → RecordDispatch →
ExecuteCommandLists. Any exception other than DMLError is a bug (a traceback from deep inside where
a clear refusal was due). When the flow succeeds on a packed, valid desc with ordinary
hyperparameters, the results must match the reference within the tolerance justified in
test_adam_numerics (8 ulps FLOAT32, 1 ulp FLOAT16, of the magnitude bound).

``derandomize=True`` keeps CI reproducible; raise ``max_examples`` locally to search harder.
"""

from __future__ import annotations

import numpy as np
from adam_support import FLOAT16, FLOAT32, HP, INPUTS, OUTPUTS, TENSORS, UINT32, G, M, T, V, X, assert_matches_reference
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import dmlsim as dml
from dmlsim.api.tensor import strided_array

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

data_types = st.one_of(st.sampled_from([FLOAT32, FLOAT32, FLOAT16]), st.integers(-1, 13))
sizes = st.one_of(st.lists(st.integers(1, 4), min_size=4, max_size=4),
                  st.lists(st.integers(0, 4), min_size=2, max_size=5))


@st.composite
def buffer_descs(draw, data_type=data_types, shape=sizes):
    """A DML_BUFFER_TENSOR_DESC: usually valid, every field sometimes wrong."""
    chosen_sizes = draw(shape)
    strides = draw(st.one_of(st.none(), st.none(), st.lists(st.integers(0, 12), min_size=len(chosen_sizes),
                                                            max_size=len(chosen_sizes)),
                             st.lists(st.integers(0, 12), min_size=0, max_size=6)))
    return dml.DML_BUFFER_TENSOR_DESC(
        draw(data_type), draw(st.sampled_from([0, 0, 0, 1, 2])),
        draw(st.one_of(st.none(), st.just(len(chosen_sizes)), st.integers(0, 6))),
        chosen_sizes, strides,
        draw(st.one_of(st.none(), st.none(), st.integers(0, 2048))),
        draw(st.sampled_from([0, 0, 1, 2, 3, 4, 8, 16, 24, 64])))


valid_buffer_descs = st.builds(
    dml.DML_BUFFER_TENSOR_DESC, st.sampled_from([FLOAT32, FLOAT16]), st.just(0), st.just(4),
    st.lists(st.integers(1, 5), min_size=4, max_size=4), st.none(), st.none(), st.sampled_from([0, 16]))


@st.composite
def adam_cases(draw):
    """(desc, comparable): the desc and whether its results can be checked against the reference.

    Half the cases start from a valid packed desc, so that the execution path is reached often.
    """
    valid = draw(st.booleans())
    shared = draw(valid_buffer_descs if valid else buffer_descs())
    fields = {name: dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER, shared) for name in TENSORS}
    fields[T] = dml.DML_TENSOR_DESC(dml.DML_TENSOR_TYPE_BUFFER,
                                    dml.DML_BUFFER_TENSOR_DESC(UINT32, 0, 4, [1, 1, 1, 1], None, 4, 0))
    for name in draw(st.lists(st.sampled_from(TENSORS), max_size=0 if valid else 2, unique=True)):
        fields[name] = draw(st.one_of(st.none(), st.builds(dml.DML_TENSOR_DESC, st.sampled_from([0, 1, 1]),
                                                           buffer_descs())))
    hp = HP if valid else draw(st.one_of(st.just(HP), st.fixed_dictionaries({
        key: st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True), st.integers(-3, 3), st.just("x"))
        for key in HP})))
    fields.update(hp)
    comparable = (hp is HP and shared.Strides is None and shared.Flags == 0 and shared.TotalTensorSizeInBytes is None
                  and all(isinstance(fields[n], dml.DML_TENSOR_DESC) and fields[n].Desc is shared
                          for n in TENSORS if n != T))
    return dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC(**fields), comparable


@st.composite
def placements(draw):
    """Per tensor: (buffer key, Offset, SizeInBytes or None) and the sizes of three shared buffers.

    Half the draws give every tensor its own buffer at a valid offset; the rest mix shared buffers
    (aliasing, overlaps), misaligned offsets and short sizes.
    """
    if draw(st.booleans()):
        return {name: (f"own-{name}", draw(st.sampled_from([0, 16, 48])), None) for name in TENSORS}, [1, 1, 1]
    return ({name: (draw(st.integers(0, 2)) if draw(st.booleans()) else f"own-{name}",
                    draw(st.sampled_from([0, 0, 0, 8, 16, 32, 48, 256])),
                    draw(st.one_of(st.none(), st.none(), st.integers(0, 512)))) for name in TENSORS},
            draw(st.lists(st.integers(1, 2048), min_size=3, max_size=3)))


def run_flow(device, desc, placement, flags, step):
    """The whole C-shaped flow; returns (the inputs as the device saw them, outputs) or raises DMLError."""
    compiled = device.CompileOperator(device.CreateOperator(dml.DML_OPERATOR_DESC(
        dml.DML_OPERATOR_ADAM_OPTIMIZER, desc)), flags)
    layouts = {name: compiled.validated.layout(name) for name in TENSORS}
    where, buffer_sizes = placement
    buffers = {}
    for name in TENSORS:
        key, offset, _ = where[name]
        if key not in buffers:
            size = buffer_sizes[key] if isinstance(key, int) else offset + layouts[name].total_bytes
            buffers[key] = device.CreateBuffer(size)

    def binding(name):
        key, offset, size = where[name]
        return dml.DML_BINDING_DESC(dml.DML_BINDING_TYPE_BUFFER, dml.DML_BUFFER_BINDING(buffers[key], offset, size))

    table = device.CreateBindingTable(dml.DML_BINDING_TABLE_DESC(
        compiled, None, None, compiled.GetBindingProperties().RequiredDescriptorCount))
    table.BindInputs([binding(name) for name in INPUTS])
    table.BindOutputs([binding(name) for name in OUTPUTS])
    cmd = device.CreateCommandList()
    device.CreateCommandRecorder().RecordDispatch(cmd, compiled, table)

    rng = np.random.default_rng(0)
    for name in (X, M, V, G, T):
        key, offset, _ = where[name]
        layout = layouts[name]
        raw = bytearray(buffers[key].Read(offset, layout.span_bytes))
        values = np.uint32(step) if name == T else rng.standard_normal(layout.sizes)
        strided_array(raw, layout)[...] = np.abs(values) if name == V else values
        buffers[key].Write(bytes(raw), offset)

    def read(name):
        key, offset, _ = where[name]
        return np.array(strided_array(buffers[key].Read(offset, layouts[name].span_bytes), layouts[name]))

    seen = {name: read(name) for name in (X, M, V, G, T)}
    queue = device.CreateCommandQueue()
    queue.ExecuteCommandLists([cmd])
    queue.WaitForIdle()
    return seen, {name: read(name) for name in OUTPUTS}


@SETTINGS
@given(case=adam_cases(), placement=placements(), flags=st.sampled_from([0, 0, 1, 2, 4, 8, -1]),
       step=st.integers(0, 2**32 - 1))
def test_only_dml_errors_and_correct_results(ref_device, case, placement, flags, step):
    desc, comparable = case
    try:
        seen, got = run_flow(ref_device, desc, placement, flags, step)
    except dml.DMLError as error:
        event(f"refused: {error.hresult_name}")
        assert error.hresult in (dml.E_INVALIDARG, dml.E_NOTIMPL, dml.DXGI_ERROR_UNSUPPORTED), str(error)
        assert error.problems and all(isinstance(p, str) and p for p in error.problems)
        return
    event(f"executed, compared with the reference: {comparable}")
    if comparable:
        t = int(seen[T].reshape(-1)[0])
        assert_matches_reference(got, seen, t, desc.InputParametersTensor.Desc.DataType,
                                 8 if desc.InputParametersTensor.Desc.DataType == FLOAT32 else 1)


@SETTINGS
@given(case=adam_cases())
def test_create_operator_raises_only_dml_errors(ref_device, case):
    """Validation alone, many more descs: CreateOperator accepts or raises DMLError(E_INVALIDARG/E_NOTIMPL)."""
    desc, _ = case
    try:
        op = ref_device.CreateOperator(dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ADAM_OPTIMIZER, desc))
    except dml.DMLError as error:
        assert error.hresult == dml.E_INVALIDARG, str(error)
        assert all("DML_ADAM_OPTIMIZER_OPERATOR_DESC." in p for p in error.problems), error.problems
        return
    assert {name: op.validated.layout(name).data_type for name in (X, M, V, G)}.keys() == {X, M, V, G}
