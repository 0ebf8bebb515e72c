"""The tuned packed Adam path (chunked / grid-stride, float8 vectors, scalar tail) is exact.

Sizes are chosen to cut the vector loop everywhere it can be cut: fewer elements than one vector,
a remainder of every length 1..7 after the vectors, and sizes where the chunk per work-item does
not divide the vector count (so the last work-items get short or empty chunks). Results must be
bitwise identical in place and out of place and between the packed and the padded (strided) path,
because tuning must never change numbers; the float64 reference bounds the error: 8 float32 ulps
of the magnitude bound of each result (Alpha's expm1/log/sqrt cost ~3 ulps, the quotient and the
final subtraction a few more), and 1 float16 ulp for FLOAT16 storage (float32 compute rounded once
to half: at most 0.5 ulp from rounding plus float32 error far below a half ulp).
"""

from __future__ import annotations

import numpy as np
import pytest
from dispatch import run

import dmlsim as dml
from dmlsim.api.numerics import compare_ulps
from dmlsim.operators.adam_optimizer.reference import adam_optimizer

HP = {"learning_rate": np.float32(0.01), "beta1": np.float32(0.9), "beta2": np.float32(0.999),
      "epsilon": np.float32(1e-8)}
OUTS = ("OutputParametersTensor", "OutputFirstMomentTensor", "OutputSecondMomentTensor")
# the two large sizes are left out of the Oclgrind tier (too slow to simulate; the small ones take the same paths)
SIZES = [5, 8 * 16 * 64 + 3, pytest.param(8 * 16 * 64 * 33 + 7, marks=pytest.mark.large),
         pytest.param(100_003, marks=pytest.mark.large)]


def _run(device, dtype, n, inplace, padded=False):
    shape = [1, 1, 1, n]
    strides = [n * 2, n * 2, 2, 1] if padded else None
    t = dml.buffer_tensor(dtype, shape, strides)
    step = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_UINT32, [1, 1, 1, 1])
    desc = dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC(t, t, t, t, step, t, t, t, *HP.values())
    np_type = np.float16 if dtype == dml.DML_TENSOR_DATA_TYPE_FLOAT16 else np.float32
    rng = np.random.default_rng(n)
    x, m, g = (rng.standard_normal(shape).astype(np_type) for _ in range(3))
    v = np.abs(rng.standard_normal(shape)).astype(np_type)
    inputs = {"InputParametersTensor": x, "InputFirstMomentTensor": m, "InputSecondMomentTensor": v,
              "GradientTensor": g, "TrainingStepTensor": np.uint32(7)}
    out = run(device, dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ADAM_OPTIMIZER, desc), inputs,
              inplace=inplace)
    return out, (x, m, v, g)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16"])
def test_packed_fast_path_is_exact_and_layout_independent(device, n, data_type):
    if device.adapter.kind == "reference":
        pytest.skip("the packed OpenCL fast path does not exist on the reference device")
    dtype = getattr(dml, f"DML_TENSOR_DATA_TYPE_{data_type}")
    np_type, n_ulps = (np.float16, 1) if data_type == "FLOAT16" else (np.float32, 8)
    out, (x, m, v, g) = _run(device, dtype, n, inplace=False)
    inplace, _ = _run(device, dtype, n, inplace=True)
    padded, _ = _run(device, dtype, n, inplace=False, padded=True)
    ref = adam_optimizer(x, m, v, g, 7, **HP)
    b1, b2 = np.float64(HP["beta1"]), np.float64(HP["beta2"])
    g64 = g.astype(np.float64)
    x64 = x.astype(np.float64)
    bounds = (np.abs(x64) + np.abs(x64 - ref[0]),  # X: the step may nearly cancel X
              np.abs(b1 * m) + np.abs((1 - b1) * g64),
              np.abs(b2 * v) + np.abs((1 - b2) * g64 * g64))
    for name, expected, bound in zip(OUTS, ref, bounds, strict=True):
        assert np.array_equal(out[name].view(np.uint8), inplace[name].view(np.uint8)), f"{name}: in place differs"
        assert np.array_equal(out[name].view(np.uint8), padded[name].view(np.uint8)), f"{name}: strided differs"
        report = compare_ulps(out[name], expected, np_type, n_ulps, bound=bound)
        assert report.ok, report.describe(name)
