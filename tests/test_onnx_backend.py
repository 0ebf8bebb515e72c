"""dmlsim.backend against ONNX's own node test cases and onnx.reference.ReferenceEvaluator, on every device.

The 7 official cases (onnx.backend.test.case.node adagrad/adam/momentum) are built in memory: importing
a case module runs its ``export*`` functions, which register TestCases (model, inputs, expected outputs,
rtol=1e-3, atol=1e-7). They all use T = 0, so the extra cases below cover T > 0, DecayFactor,
NormCoefficientPost, Nesterov with T > 0, FLOAT64 and mixed tensor sizes against ReferenceEvaluator.

ReferenceEvaluator quirks (checked with onnx 1.23): its attributes are float32 and most of its math
stays float32; single-tensor Adam with T > 0 returns X_new as float64; multi-tensor Adam casts every
output to float32, even for float64 inputs. So its values are compared after casting to float64, and
the dtype we check is ONNX's type constraint (outputs have the inputs' type), not the evaluator's.
"""

from __future__ import annotations

import importlib
import io
import unittest

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="dmlsim.backend needs the onnx extra: pip install 'dmlsim[onnx]'")

import onnx.backend.test.case.node as node_cases  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import dmlsim as dml  # noqa: E402
from dmlsim import backend  # noqa: E402

DOMAIN = "ai.onnx.preview.training"
OFFICIAL = ["test_adagrad", "test_adagrad_multiple", "test_adam", "test_adam_multiple",
            "test_momentum", "test_nesterov_momentum", "test_momentum_multiple"]


def official_cases():
    for module in ("adagrad", "adam", "momentum"):
        importlib.import_module(f"onnx.backend.test.case.node.{module}")
    cases = {case.name: case for case in node_cases._NodeTestCases}
    return [cases[name] for name in OFFICIAL]


CASES = {case.name: case for case in official_cases()}


@pytest.mark.parametrize("name", OFFICIAL)
def test_official_onnx_case(device, name):
    case = CASES[name]
    inputs, expected = case.data_sets[0]
    outputs = backend.prepare(case.model, device).run(inputs)
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected, strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=case.rtol, atol=case.atol)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the Runner builds every node case; some overflow
def test_official_runner_cpu():
    """ONNX's own Runner drives the backend exactly as it drives onnxruntime.backend (device "CPU")."""
    from onnx.backend.test.runner import Runner

    runner = Runner(backend.DmlsimBackend, __name__)
    for name in OFFICIAL:
        runner.include(f"^{name}_cpu$")
    result = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(runner.test_suite)
    ran = result.testsRun - len(result.skipped)
    assert result.wasSuccessful() and ran == len(OFFICIAL), (result.failures, result.errors, ran)


# --- extra cases against ReferenceEvaluator ---------------------------------------------------------------
def build_model(op, arrays, groups, **attrs):
    """A one-node model: inputs R, T, then ``groups`` roles of len(arrays)//groups tensors each."""
    n = (len(arrays) - 2) // groups
    roles = {"Adagrad": "XGH", "Adam": "XGVH", "Momentum": "XGV"}[op]
    out_roles = {"Adagrad": "XH", "Adam": "XVH", "Momentum": "XV"}[op]
    names = ["R", "T"] + [f"{role}{i}" for role in roles for i in range(n)]
    outputs = [f"{role}{i}_new" for role in out_roles for i in range(n)]
    node = helper.make_node(op, names, outputs, domain=DOMAIN, **attrs)
    src = dict(zip(names, arrays, strict=True))
    vi_in = [helper.make_tensor_value_info(nm, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
             for nm, a in src.items()]
    vi_out = [helper.make_tensor_value_info(nm, helper.np_dtype_to_tensor_dtype(src[nm[:-4]].dtype),
                                            src[nm[:-4]].shape) for nm in outputs]
    graph = helper.make_graph([node], f"{op}_graph", vi_in, vi_out)
    model = helper.make_model_gen_version(graph, opset_imports=[helper.make_opsetid(DOMAIN, 1)])
    onnx.checker.check_model(model)
    return model, names


def random_arrays(shapes, roles, dtype, rng, r=0.1, t=3):
    arrays = [np.array(r, dtype), np.array(t, np.int64)]
    for role in range(roles):
        for s in shapes:
            a = rng.standard_normal(s)
            arrays.append((np.abs(a) if role == roles - 1 else a).astype(dtype))  # last role: H or V
    return arrays


MIXED = [(1,), (3, 4), (2, 1, 5), (70,)]
EXTRA = {
    # name: (op, groups, attrs, shapes, dtype, T)
    "adagrad_decay_t5": ("Adagrad", 3, {"norm_coefficient": 0.01, "epsilon": 1e-5, "decay_factor": 0.3}, MIXED,
                         np.float32, 5),
    "adagrad_defaults_t2": ("Adagrad", 3, {}, [(6,)], np.float32, 2),
    "adam_t3_post": ("Adam", 4, {"alpha": 0.9, "beta": 0.999, "epsilon": 1e-7, "norm_coefficient": 0.001,
                                 "norm_coefficient_post": 0.02}, MIXED, np.float32, 3),
    "adam_single_t1": ("Adam", 4, {"alpha": 0.95, "beta": 0.85, "epsilon": 1e-2}, [(2, 3)], np.float32, 1),
    "momentum_t4": ("Momentum", 3, {"alpha": 0.9, "beta": 0.6, "mode": "standard", "norm_coefficient": 0.01},
                    MIXED, np.float32, 4),
    "nesterov_t4": ("Momentum", 3, {"alpha": 0.9, "beta": 0.6, "mode": "nesterov", "norm_coefficient": 0.01},
                    MIXED, np.float32, 4),
    "adagrad_f64": ("Adagrad", 3, {"norm_coefficient": 0.01, "decay_factor": 0.1}, MIXED, np.float64, 2),
    "adam_f64": ("Adam", 4, {"norm_coefficient_post": 0.01}, MIXED, np.float64, 2),
    "nesterov_f64": ("Momentum", 3, {"alpha": 0.5, "beta": 0.5, "mode": "nesterov", "norm_coefficient": 0.0},
                     MIXED, np.float64, 9),
}


@pytest.mark.parametrize("name", sorted(EXTRA))
def test_extra_case_matches_reference_evaluator(device, name):
    op, groups, attrs, shapes, dtype, t = EXTRA[name]
    arrays = random_arrays(shapes, groups, dtype, np.random.default_rng(len(name)), t=t)
    model, names = build_model(op, arrays, groups, **attrs)
    if dtype == np.float64 and not device.backend.has_fp64:
        with pytest.raises(dml.DMLError, match="cl_khr_fp64"):
            backend.prepare(model, device).run(arrays)
        return
    got = backend.prepare(model, device).run(arrays)
    want = ReferenceEvaluator(model).run(None, dict(zip(names, arrays, strict=True)))
    # float32 math on both sides (the evaluator's and ours): a few float32 ulps of values of size ~1,
    # where X - update may cancel: rtol 1e-5, atol 1e-6. float64: ours is float64, the evaluator's too
    # except multi-tensor Adam, which it rounds to float32 (quirk) — float32 tolerance there.
    tight = dtype == np.float64 and not (op == "Adam" and len(shapes) > 1)
    rtol, atol = (1e-12, 1e-13) if tight else (1e-5, 1e-6)
    assert len(got) == len(want)
    for g, w, src in zip(got, want, arrays[2:], strict=False):
        assert g.dtype == dtype and g.shape == src.shape
        np.testing.assert_allclose(g, np.asarray(w, np.float64), rtol=rtol, atol=atol)


# --- API conventions -----------------------------------------------------------------------------------
def test_run_node_and_run_model(device):
    case = CASES["test_momentum_multiple"]
    inputs, expected = case.data_sets[0]
    (node,) = case.model.graph.node
    by_node = backend.run_node(node, inputs, device)
    by_model = backend.run_model(case.model, {i.name: a for i, a in zip(case.model.graph.input, inputs,
                                                                       strict=True)}, device)
    for a, b, e in zip(by_node, by_model, expected, strict=True):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, e, rtol=case.rtol, atol=case.atol)


def test_unsupported_op_is_named():
    node = helper.make_node("StringNormalizer", ["x"], ["y"], name="sn1")  # strings: never DirectML's
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph)
    with pytest.raises(dml.DMLError) as info:
        backend.prepare(model, "reference")
    assert info.value.hresult == dml.E_NOTIMPL
    assert "StringNormalizer node 'sn1' (opset " in str(info.value) and "no DirectML lowering" in str(info.value)
    assert not backend.is_compatible(model, "reference")


def test_bad_momentum_mode_refused():
    node = helper.make_node("Momentum", ["R", "T", "X", "G", "V"], ["X_new", "V_new"], domain=DOMAIN,
                            alpha=0.9, beta=0.1, norm_coefficient=0.0, mode="bogus")
    with pytest.raises(dml.DMLError, match="mode 'bogus' must be 'standard' or 'nesterov'"):
        backend.run_node(node, [np.float32(0.1), np.int64(0), *(np.ones(2, np.float32) for _ in range(3))],
                         "reference")


def test_supports_device():
    assert backend.supports_device("CPU")
    assert backend.supports_device("reference")
    assert not backend.supports_device("no-such-adapter-name")
    has_gpu = any(a.kind == "GPU" for a in dml.all_adapters())
    assert backend.supports_device("GPU") == has_gpu == backend.supports_device("CUDA")
