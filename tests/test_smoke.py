"""A first end-to-end check of the §4 flow on every adapter (full tests live beside it)."""

from __future__ import annotations

import numpy as np
from dispatch import run

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps
from dmlsim.operators.adam_optimizer.reference import adam_optimizer


def test_adam_packed_float32_matches_reference(device):
    rng = np.random.default_rng(1)
    shape = [1, 2, 3, 37]
    t = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_FLOAT32, shape)
    step = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_UINT32, [1, 1, 1, 1])
    desc = dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC(t, t, t, t, step, t, t, t, 0.01, 0.9, 0.999, 1e-8)
    x, m, g = (rng.standard_normal(shape).astype(np.float32) for _ in range(3))
    v = np.abs(rng.standard_normal(shape)).astype(np.float32)
    out = run(device, dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ADAM_OPTIMIZER, desc),
              {"InputParametersTensor": x, "InputFirstMomentTensor": m, "InputSecondMomentTensor": v,
               "GradientTensor": g, "TrainingStepTensor": np.uint32(3)})
    ref = adam_optimizer(x, m, v, g, 3, learning_rate=np.float32(0.01), beta1=np.float32(0.9),
                         beta2=np.float32(0.999), epsilon=np.float32(1e-8))
    for name, expected in zip(("OutputParametersTensor", "OutputFirstMomentTensor", "OutputSecondMomentTensor"),
                              ref, strict=True):
        report = compare_ulps(out[name], expected, np.float32, 8)
        assert report.ok, report.describe(name)
