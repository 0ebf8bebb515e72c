"""A DML_CREATE_DEVICE_FLAG_DEBUG device refuses T = 0 before running anything; a normal one computes NaN.

DirectML's formula gives Alpha = sqrt(1 − β2⁰)/(1 − β1⁰) = 0/0 at T = 0, so every parameter becomes
NaN: almost certainly a training loop that forgot to start at 1. The debug device says so instead.
"""

from __future__ import annotations

import numpy as np
import pytest
from adam_support import FLOAT16, FLOAT32, NP, OUTPUTS, OX, AdamDispatch, T, adam_desc, random_state

import dmlsim as dml

SIZES = (1, 2, 3, 5)


@pytest.mark.parametrize("data_type", [FLOAT32, FLOAT16], ids=["f32", "f16"])
@pytest.mark.parametrize("inplace", [False, True], ids=["out_of_place", "in_place"])
def test_debug_device_refuses_step_zero_and_writes_nothing(debug_device, data_type, inplace):
    dispatch = AdamDispatch(debug_device, adam_desc(data_type, SIZES), inplace=inplace)
    state = random_state(np.random.default_rng(4), SIZES, NP[data_type])
    for name, values in state.items():
        dispatch.write(name, values)
    for name in OUTPUTS:
        if not inplace:
            dispatch.write(name, np.full(SIZES, 7.0))  # sentinel values
    dispatch.write(T, np.uint32(0))
    before = {name: dispatch.read(name).tobytes() for name in OUTPUTS}
    with pytest.raises(dml.DMLError) as info:
        dispatch.execute()
    assert info.value.hresult == dml.E_INVALIDARG
    message = str(info.value)
    assert "DML_ADAM_OPTIMIZER_OPERATOR_DESC.TrainingStepTensor" in message
    assert "T = 0" in message and "first training step must be 1" in message
    for name in OUTPUTS:
        assert dispatch.read(name).tobytes() == before[name], f"{name} was written by a refused execution"

    dispatch.write(T, np.uint32(1))  # the device, the command list and the table stay usable
    dispatch.execute()
    assert np.isfinite(dispatch.read(OX)).all()


def test_debug_device_refuses_the_whole_submission(debug_device):
    """A T = 0 dispatch in a list refuses the whole ExecuteCommandLists: nothing runs, not even the valid one."""
    good = AdamDispatch(debug_device, adam_desc(FLOAT32, SIZES))
    bad = AdamDispatch(debug_device, adam_desc(FLOAT32, SIZES))
    good.write(T, np.uint32(1))
    good.write("GradientTensor", np.ones(SIZES))
    bad.write(T, np.uint32(0))
    with pytest.raises(dml.DMLError, match="first training step must be 1"):
        good.queue.ExecuteCommandLists([good.cmd, bad.cmd])
    good.queue.WaitForIdle()
    assert not good.read("OutputFirstMomentTensor").any()


def test_normal_device_computes_nan_parameters_at_step_zero(device):
    dispatch = AdamDispatch(device, adam_desc(FLOAT32, SIZES))
    _, got = dispatch.step(random_state(np.random.default_rng(4), SIZES, np.float32), 0)
    assert np.isnan(got[OX]).all()
    assert np.isfinite(got["OutputFirstMomentTensor"]).all() and np.isfinite(got["OutputSecondMomentTensor"]).all()
