"""An output bound over a *different* field's input (DirectML allows any eligible input over the identical region).

design.md §2: an output may alias any in-place-eligible input over an identical region with the same
layout — not only the input it updates. Every kernel must then read everything it needs from an
element before it writes that element's outputs, and no later launch may read an input another
output has been written over. Each case swaps or crosses the state of one operator and must give
the results of a plain out-of-place dispatch.
"""

from __future__ import annotations

import numpy as np
import pytest
from adam_support import FLOAT32, adam_desc, random_state
from test_adagrad_decay import F32, U32, make_desc, sparse_inputs
from test_onnx_training import MIXED_SHAPES
from test_onnx_training import make_desc as onnx_desc
from test_onnx_training import make_inputs as onnx_inputs

import dmlsim as dml
from dmlsim.quick import bind_regions, prepare_operator, run_operator


def _adam():
    inputs = random_state(np.random.default_rng(1), [1, 1, 3, 5], np.float32)
    names = ("InputParametersTensor", "InputFirstMomentTensor", "InputSecondMomentTensor", "GradientTensor")
    return adam_desc(FLOAT32, [1, 1, 3, 5]), {**dict(zip(names, inputs.values(), strict=True)),
                                              "TrainingStepTensor": np.uint32(4)}


def _adagrad_decay(sparse: bool):
    if sparse:
        return dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ADAGRAD_DECAY,
                                     make_desc(F32, 6, 3, index_type=U32, count=3)), sparse_inputs()
    inputs = {k: v for k, v in sparse_inputs().items() if k not in ("IndicesTensor", "GradientTensor")}
    inputs["GradientTensor"] = np.random.default_rng(3).standard_normal((1, 1, 6, 3)).astype(np.float32)
    inputs["InputDecayPowerTensor"] = np.uint32(0)
    return dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ADAGRAD_DECAY, make_desc(F32, 6, 3)), inputs


CASES = {
    # (op desc and inputs, {output: input whose region it is bound over})
    "adam-swap-moments": (_adam, {"OutputFirstMomentTensor": "InputSecondMomentTensor",
                                  "OutputSecondMomentTensor": "InputFirstMomentTensor"}),
    "adam-params-over-moment": (_adam, {"OutputParametersTensor": "InputFirstMomentTensor"}),
    "onnx-adam-params-over-second-moment": (
        lambda: (onnx_desc("adam", MIXED_SHAPES), onnx_inputs("adam", MIXED_SHAPES, np.float32,
                                                              np.random.default_rng(2))),
        {"OutputParametersTensors": "InputSecondMomentTensors"}),
    "adagrad-decay-dense-swap": (lambda: _adagrad_decay(False), {"OutputParametersTensor": "InputAccumulatorTensor",
                                                                 "OutputAccumulatorTensor": "InputParametersTensor"}),
    "adagrad-decay-sparse-params-over-accumulator": (lambda: _adagrad_decay(True),
                                                     {"OutputParametersTensor": "InputAccumulatorTensor"}),
    "adagrad-decay-sparse-swap": (lambda: _adagrad_decay(True), {"OutputParametersTensor": "InputAccumulatorTensor",
                                                                 "OutputAccumulatorTensor": "InputParametersTensor"}),
}


@pytest.mark.parametrize("case", CASES)
def test_output_over_another_fields_input_gives_the_out_of_place_result(device, case):
    make, crossed = CASES[case]
    op_desc, inputs = make()
    expected = run_operator(device, op_desc, inputs)
    prepared = prepare_operator(device, op_desc, inputs)
    regions = {**prepared.regions, **{out: prepared.regions[src] for out, src in crossed.items()}}
    table = bind_regions(device, prepared.compiled, regions)
    cmd = device.CreateCommandList()
    device.CreateCommandRecorder().RecordDispatch(cmd, prepared.compiled, table)
    queue = device.CreateCommandQueue()
    queue.ExecuteCommandLists([cmd])
    queue.WaitForIdle()
    prepared.regions = regions
    for name, want in expected.items():
        got = prepared.read(name)
        for g, w in zip(got if isinstance(got, list) else [got], want if isinstance(want, list) else [want],
                        strict=True):
            np.testing.assert_array_equal(g, w, err_msg=f"{case}: {name}")
