"""An output bound over a *different* field's input (DirectML allows any eligible input over the identical region).

design.md §2: an output may alias any in-place-eligible input over an identical region with the same
layout — not only the input it updates. Every kernel must then read everything it needs from an
element before it writes that element's outputs, and no later launch may read an input another
output has been written over. Each case swaps or crosses the state of one operator and must give
exactly (bitwise) the results of a plain out-of-place dispatch on the same device, which in turn must
agree with the numpy reference device (loosely here: each operator's own tests pin its numerics in ulps).
"""

from __future__ import annotations

import numpy as np
import pytest
from adagrad_decay_support import F16, F32, F64, I64, U32, make_desc, skip_without_fp64, sparse_inputs
from adam_support import FLOAT32, adam_desc, random_state
from dispatch import Dispatch, run
from onnx_support import MIXED_SHAPES
from onnx_support import make_desc as onnx_desc
from onnx_support import make_inputs as onnx_inputs

import dmlsim as dml


def _adam():
    inputs = random_state(np.random.default_rng(1), [1, 1, 3, 5], np.float32)
    names = ("InputParametersTensor", "InputFirstMomentTensor", "InputSecondMomentTensor", "GradientTensor")
    return adam_desc(FLOAT32, [1, 1, 3, 5]), {**dict(zip(names, inputs.values(), strict=True)),
                                              "TrainingStepTensor": np.uint32(4)}


def _adagrad_decay(sparse: bool, dtype=F32, step_type=U32):
    """Inputs are float32/uint32 arrays; the dispatch converts them to the desc's types."""
    if sparse:
        return dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ADAGRAD_DECAY, make_desc(
            dtype, 6, 3, step_type=step_type, index_type=U32, count=3)), sparse_inputs()
    inputs = {k: v for k, v in sparse_inputs().items() if k not in ("IndicesTensor", "GradientTensor")}
    inputs["GradientTensor"] = np.random.default_rng(3).standard_normal((1, 1, 6, 3)).astype(np.float32)
    inputs["InputDecayPowerTensor"] = np.uint32(0)
    return dml.DML_OPERATOR_DESC(dml.DMLSIM_OPERATOR_ADAGRAD_DECAY, make_desc(dtype, 6, 3, step_type=step_type)), inputs


def _onnx(op):
    return lambda: (onnx_desc(op, MIXED_SHAPES), onnx_inputs(op, MIXED_SHAPES, np.float32, np.random.default_rng(2)))


CASES = {
    # (op desc and inputs, {output: input whose region it is bound over})
    "adam-swap-moments": (_adam, {"OutputFirstMomentTensor": "InputSecondMomentTensor",
                                  "OutputSecondMomentTensor": "InputFirstMomentTensor"}),
    "adam-params-over-moment": (_adam, {"OutputParametersTensor": "InputFirstMomentTensor"}),
    "onnx-adam-params-over-second-moment": (_onnx("adam"), {"OutputParametersTensors": "InputSecondMomentTensors"}),
    "onnx-adagrad-swap": (_onnx("adagrad"), {"OutputParametersTensors": "InputAccumulatedSquaredGradientTensors",
                                             "OutputAccumulatedSquaredGradientTensors": "InputParametersTensors"}),
    "onnx-momentum-params-over-momentum": (_onnx("momentum"), {"OutputParametersTensors": "InputMomentumTensors"}),
    "adagrad-decay-dense-swap": (lambda: _adagrad_decay(False), {"OutputParametersTensor": "InputAccumulatorTensor",
                                                                 "OutputAccumulatorTensor": "InputParametersTensor"}),
    "adagrad-decay-sparse-params-over-accumulator": (lambda: _adagrad_decay(True),
                                                     {"OutputParametersTensor": "InputAccumulatorTensor"}),
    "adagrad-decay-sparse-swap": (lambda: _adagrad_decay(True), {"OutputParametersTensor": "InputAccumulatorTensor",
                                                                 "OutputAccumulatorTensor": "InputParametersTensor"}),
}


for _dtype, _name in ((F16, "float16"), (F64, "float64")):
    for _step, _step_name in ((U32, "uint32"), (I64, "int64")):
        CASES[f"adagrad-decay-sparse-swap-{_name}-{_step_name}-power"] = (
            lambda d=_dtype, t=_step: _adagrad_decay(True, d, t),
            {"OutputParametersTensor": "InputAccumulatorTensor", "OutputAccumulatorTensor": "InputParametersTensor"})


def _agrees_with_reference(got, want, name):
    for g, w in zip(got if isinstance(got, list) else [got], want if isinstance(want, list) else [want], strict=True):
        if np.issubdtype(g.dtype, np.integer):
            np.testing.assert_array_equal(g, w, err_msg=name)
        else:
            tol = 4e-3 if g.dtype == np.float16 else 1e-5
            np.testing.assert_allclose(g.astype(np.float64), np.asarray(w, np.float64), rtol=tol, atol=tol,
                                       err_msg=name)


@pytest.mark.parametrize("case", CASES)
def test_output_over_another_fields_input_gives_the_out_of_place_result(device, ref_device, case):
    make, crossed = CASES[case]
    op_desc, inputs = make()
    if "float64" in case:
        skip_without_fp64(device, F64)
    expected = run(device, op_desc, inputs)
    for name, want in run(ref_device, op_desc, inputs).items():
        _agrees_with_reference(expected[name], want, name)
    dispatch = Dispatch(device, op_desc, inplace=crossed)
    dispatch.load(inputs)
    dispatch.execute()
    for name, want in expected.items():
        got = dispatch.read_all(name)
        for g, w in zip(got if isinstance(got, list) else [got], want if isinstance(want, list) else [want],
                        strict=True):
            np.testing.assert_array_equal(g, w, err_msg=f"{case}: {name}")
    for out, src in crossed.items():  # each output really lies over the other field's input bytes
        got = dispatch.read_all(src)
        for g, w in zip(got if isinstance(got, list) else [got], expected[out] if isinstance(expected[out], list)
                        else [expected[out]], strict=True):
            np.testing.assert_array_equal(g, w, err_msg=f"{case}: {src} now holds {out}")
