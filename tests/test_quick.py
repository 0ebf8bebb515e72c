"""The convenience layer (dmlsim.quick): prepare once, bind over existing regions, flat tensor arrays."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx_support import MIXED_SHAPES, make_desc, make_inputs

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


def test_flat_arrays_give_the_same_results_as_one_buffer_per_tensor(device, ref_device):
    op_desc = make_desc("adam", MIXED_SHAPES)
    inputs = make_inputs("adam", MIXED_SHAPES, np.float32, np.random.default_rng(4))
    separate = run_operator(device, op_desc, inputs)
    for name, tensors in run_operator(ref_device, op_desc, inputs).items():  # the layout changes nothing:
        for got, want in zip(separate[name], tensors, strict=True):          # both agree with the reference
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=name)
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


def test_flat_arrays_honour_each_tensors_alignment_and_odd_total_sizes(device):
    shapes = [[3], [5], [2]]
    descs = [dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_FLOAT32, [3]),
             dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_FLOAT32, [5], alignment=64),
             dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_FLOAT32, [2], total_size=20)]  # 20: legal, not 2 x 4
    op_desc = make_desc("momentum", shapes)
    for name in ("InputParametersTensors", "GradientTensors", "InputMomentumTensors", "OutputParametersTensors",
                 "OutputMomentumTensors"):
        setattr(op_desc.Desc, name, descs)
    inputs = make_inputs("momentum", shapes, np.float32, np.random.default_rng(6))
    prepared = prepare_operator(device, op_desc, inputs, flat_arrays=True)
    regions = prepared.regions["InputParametersTensors"]
    assert regions[1].offset % 64 == 0 and regions[2].size == 20
    for got, sent in zip(prepared.read("InputParametersTensors"), inputs["InputParametersTensors"], strict=True):
        np.testing.assert_array_equal(got.ravel(), np.asarray(sent, np.float32).ravel())


def test_a_tensor_array_needs_one_array_per_tensor(ref_device):
    op_desc = make_desc("momentum", [[3], [4]])
    inputs = make_inputs("momentum", [[3], [4]], np.float32, np.random.default_rng(7))
    inputs["GradientTensors"] = inputs["GradientTensors"][:1]
    with pytest.raises(dml.DMLError, match=r"GradientTensors: a tensor array takes a list of 2 arrays .*got 1 arrays"):
        prepare_operator(ref_device, op_desc, inputs, flat_arrays=True)
    inputs["GradientTensors"] = np.zeros((2, 4), np.float32)
    with pytest.raises(dml.DMLError, match=r"GradientTensors: a tensor array takes a list of 2 arrays .*got a ndarray"):
        run_operator(ref_device, op_desc, inputs)
