"""The convenience layer (dmlsim.quick): prepare once, bind over existing regions, flat tensor arrays."""

from __future__ import annotations

import itertools

import numpy as np
from test_onnx_training import MIXED_SHAPES, make_desc, make_inputs

import dmlsim as dml
from dmlsim.quick import Region, bind_regions, prepare_operator, run_operator


def test_flat_arrays_put_each_role_in_one_buffer_at_aligned_offsets(device):
    op_desc = make_desc("adam", MIXED_SHAPES)
    inputs = make_inputs("adam", MIXED_SHAPES, np.float32, np.random.default_rng(3))
    prepared = prepare_operator(device, op_desc, inputs, flat_arrays=True)
    regions = prepared.regions["InputParametersTensors"]
    assert len({id(r.buffer) for r in regions}) == 1
    assert all(r.offset % dml.DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT == 0 for r in regions)
    assert all(a.offset + a.size <= b.offset for a, b in itertools.pairwise(regions))
    for got, sent in zip(prepared.read("InputParametersTensors"), inputs["InputParametersTensors"], strict=True):
        np.testing.assert_array_equal(got.ravel(), np.asarray(sent, np.float32).ravel())


def test_flat_arrays_give_the_same_results_as_one_buffer_per_tensor(device):
    op_desc = make_desc("adam", MIXED_SHAPES)
    inputs = make_inputs("adam", MIXED_SHAPES, np.float32, np.random.default_rng(4))
    separate = run_operator(device, op_desc, inputs)
    prepared = prepare_operator(device, op_desc, inputs, flat_arrays=True)
    queue = device.CreateCommandQueue()
    queue.ExecuteCommandLists([prepared.record()])
    queue.WaitForIdle()
    for name, tensors in separate.items():
        for flat, own in zip(prepared.read(name), tensors, strict=True):
            np.testing.assert_array_equal(flat, own)


def test_bind_regions_runs_one_tensor_of_a_flat_dispatch_on_its_own(device):
    """A TensorCount-1 operator bound over tensor i's regions updates exactly that tensor, as the fused one does."""
    shapes = [[5], [3, 4], [9]]
    inputs = make_inputs("momentum", shapes, np.float32, np.random.default_rng(5))
    fused = prepare_operator(device, make_desc("momentum", shapes), inputs, inplace=True, flat_arrays=True)
    expected = run_operator(device, make_desc("momentum", shapes), inputs)
    single = device.CompileOperator(device.CreateOperator(make_desc("momentum", [shapes[1]])))
    own: dict[str, Region | list[Region]] = {
        name: [region[1]] if isinstance(region, list) else region for name, region in fused.regions.items()}
    cmd = device.CreateCommandList()
    device.CreateCommandRecorder().RecordDispatch(cmd, single, bind_regions(device, single, own))
    queue = device.CreateCommandQueue()
    queue.ExecuteCommandLists([cmd])
    queue.WaitForIdle()
    params = fused.read("InputParametersTensors")
    np.testing.assert_array_equal(params[1], expected["OutputParametersTensors"][1])
    for untouched in (0, 2):  # the other tensors of the flat buffer keep their values
        np.testing.assert_array_equal(params[untouched].ravel(),
                                      np.asarray(inputs["InputParametersTensors"][untouched], np.float32).ravel())
