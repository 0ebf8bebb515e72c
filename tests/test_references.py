"""Each reference function (dmlsim/operators/*/reference.py) against values derived without it.

The kernel tests compare the devices with these references, and the property tests compare the
reference device with itself, so a wrong reference would go unnoticed everywhere else. Here each
reference meets independent expectations:

- Adam (DML_ADAM_OPTIMIZER): the formula of DirectML's DML_ADAM_OPTIMIZER_OPERATOR_DESC page written
  out again, per element in Python floats (``math``), plus literals worked out by hand;
- ONNX Adagrad / Adam / Momentum: ``onnx.reference.ReferenceEvaluator`` running the
  ``ai.onnx.preview.training`` operators in float64;
- AdagradDecay: DeepRec's adagrad_decay_test.py testBasic and testBaseline values (the literals of
  descriptors/adagrad_decay_dense.yaml, and closed forms of the four updates derived by hand);
- ARGMAX/ARGMIN and HARDMAX with NaN, infinities and ties, and QUANTIZE at and near ties: ``onnx.reference``'s
  ArgMax/ArgMin/Hardmax and QuantizeLinear.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from dmlsim.operators.activation.reference import hardmax
from dmlsim.operators.adagrad_decay.reference import adagrad_decay
from dmlsim.operators.adam_optimizer.reference import adam_optimizer
from dmlsim.operators.onnx_training.reference import onnx_adagrad, onnx_adam, onnx_momentum
from dmlsim.operators.quantize.reference import quantize_linear
from dmlsim.operators.reduce.reference import arg_reduce

RNG = np.random.default_rng(20261123)


# --- DML_ADAM_OPTIMIZER: the documented formula ----------------------------------------------------------------------

def documented_adam(x, m, v, g, t, lr, beta1, beta2, epsilon):
    """learn.microsoft.com, DML_ADAM_OPTIMIZER_OPERATOR_DESC, one element at a time:

        M = Beta1 * M + (1.0 - Beta1) * G
        V = Beta2 * V + (1.0 - Beta2) * G * G
        Alpha = LearningRate * sqrt(1.0 - pow(Beta2, T)) / (1.0 - pow(Beta1, T))
        X = X - Alpha * M / (sqrt(V) + Epsilon)
    """
    m_new = beta1 * m + (1.0 - beta1) * g
    v_new = beta2 * v + (1.0 - beta2) * g * g
    step_size = lr * math.sqrt(1.0 - math.pow(beta2, t)) / (1.0 - math.pow(beta1, t))
    return x - step_size * m_new / (math.sqrt(v_new) + epsilon), m_new, v_new


@pytest.mark.parametrize("t", [1, 2, 7, 1000, 2**31 + 5])
@pytest.mark.parametrize("hp", [(1e-3, 0.9, 0.999, 1e-8), (0.05, 0.5, 0.75, 1e-3), (2.0, 0.0, 0.0, 0.0)])
def test_adam_reference_matches_the_documented_formula(t, hp):
    lr, b1, b2, eps = hp
    x, m, g = RNG.standard_normal((3, 64)) * [[3.0], [0.5], [2.0]]
    v = np.abs(RNG.standard_normal(64))
    got = adam_optimizer(x, m, v, g, t, learning_rate=lr, beta1=b1, beta2=b2, epsilon=eps)
    for i in range(64):
        want = documented_adam(float(x[i]), float(m[i]), float(v[i]), float(g[i]), t, lr, b1, b2, eps)
        for name, array, value in zip("XMV", got, want, strict=True):
            assert array[i] == pytest.approx(value, rel=1e-12, abs=1e-300), (name, i)


def test_adam_reference_literals():
    # First step from zero moments, epsilon 0: M = (1-β1)·G, V = (1-β2)·G², α = sqrt(1-β2)/(1-β1), so
    # X moves by exactly LR·sign(G) (every factor cancels).
    x, m, v = adam_optimizer([1.0, -2.0, 0.5], [0, 0, 0], [0, 0, 0], [4.0, -0.25, 1e-3], 1,
                             learning_rate=0.01, beta1=0.9, beta2=0.999, epsilon=0.0)
    np.testing.assert_allclose(x, [0.99, -1.99, 0.49], rtol=1e-14)
    np.testing.assert_allclose(m, [0.4, -0.025, 1e-4], rtol=1e-14)
    np.testing.assert_allclose(v, [0.016, 6.25e-5, 1e-9], rtol=1e-12)
    # By hand: x=1, m=0.5, v=0.25, g=1, T=2, LR 0.1, β1 0.5, β2 0.75, ε 0:
    # M = 0.75, V = 0.4375, α = sqrt(1 - 0.5625) / (1 - 0.25) = sqrt(0.4375) / 0.75,
    # X = 1 - 0.1 · α · 0.75 / sqrt(0.4375) = 1 - 0.1 = 0.9
    x, m, v = adam_optimizer([1.0], [0.5], [0.25], [1.0], 2, learning_rate=0.1, beta1=0.5, beta2=0.75, epsilon=0.0)
    assert (x[0], m[0], v[0]) == (pytest.approx(0.9, rel=1e-15), 0.75, 0.4375)
    # ε is added to the uncorrected sqrt(V): x=0, m=v=0, g=2, T=1, LR 1, β1 β2 0.5, ε 1:
    # M = 1, V = 2, α = sqrt(0.5)/0.5 = sqrt(2), X = -sqrt(2)/(sqrt(2) + 1) = sqrt(2) - 2
    x, _, _ = adam_optimizer([0.0], [0.0], [0.0], [2.0], 1, learning_rate=1.0, beta1=0.5, beta2=0.5, epsilon=1.0)
    assert x[0] == pytest.approx(math.sqrt(2) - 2, rel=1e-15)
    # T = 0: α = 0/0, X becomes NaN (the formula, unguarded); the moments are still updated
    x, m, _ = adam_optimizer([1.0], [0.0], [0.0], [1.0], 0, learning_rate=0.1, beta1=0.9, beta2=0.999, epsilon=1e-8)
    assert np.isnan(x[0]) and m[0] == pytest.approx(0.1)


# --- ONNX ai.onnx.preview.training: onnx.reference ----------------------------------------------------------------

TRAINING = "ai.onnx.preview.training"


def onnx_reference(op, roles, attrs, r, t, tensors):
    """Run one ``op`` node on one tensor per role (float64) with onnx's ReferenceEvaluator."""
    names = ["R", "T", *roles]
    outputs = [f"{name}_new" for name in roles if name != "G"]
    inputs = [helper.make_tensor_value_info("R", TensorProto.DOUBLE, []),
              helper.make_tensor_value_info("T", TensorProto.INT64, [])]
    inputs += [helper.make_tensor_value_info(name, TensorProto.DOUBLE, None) for name in roles]
    graph = helper.make_graph([helper.make_node(op, names, outputs, domain=TRAINING, **attrs)], op, inputs,
                              [helper.make_tensor_value_info(name, TensorProto.DOUBLE, None) for name in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid(TRAINING, 1)])
    feeds = {"R": np.float64(r), "T": np.int64(t), **dict(zip(roles, tensors, strict=True))}
    return ReferenceEvaluator(model).run(None, feeds)


def f32(attrs):
    """ONNX float attributes are float32 (AttributeProto.f): the values onnx.reference computes with."""
    return {k: float(np.float32(v)) if isinstance(v, float) else v for k, v in attrs.items()}


def tensors(shapes, roles):
    """Per tensor of the multi-tensor op: a dict role → array; accumulators (H) non-negative."""
    out = []
    for shape in shapes:
        arrays = {role: RNG.standard_normal(shape) for role in roles}
        if "H" in arrays:
            arrays["H"] = np.abs(arrays["H"])
        out.append(arrays)
    return out


SHAPES = [(5,), (3, 4), (2, 1, 3)]


@pytest.mark.parametrize("t", [0, 1, 9])
@pytest.mark.parametrize("attrs", [dict(norm_coefficient=0.0, epsilon=1e-6, decay_factor=0.0),
                                   dict(norm_coefficient=0.01, epsilon=1e-2, decay_factor=0.1)])
def test_onnx_adagrad_reference_matches_onnx_reference(t, attrs):
    data = tensors(SHAPES, "XGH")
    got_x, got_h = onnx_adagrad(0.3, t, [d["X"] for d in data], [d["G"] for d in data], [d["H"] for d in data],
                                **f32(attrs))
    for i, d in enumerate(data):
        want_x, want_h = onnx_reference("Adagrad", "XGH", attrs, 0.3, t, [d["X"], d["G"], d["H"]])
        np.testing.assert_allclose(got_x[i], want_x, rtol=1e-13, atol=1e-300)
        np.testing.assert_allclose(got_h[i], want_h, rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("t", [0, 1, 2, 50])
@pytest.mark.parametrize("attrs", [dict(alpha=0.9, beta=0.999, epsilon=1e-8, norm_coefficient=0.0,
                                        norm_coefficient_post=0.0),
                                   # onnx.reference forms 1 - attribute in float32 (its attributes are
                                   # np.float32): values whose complement float32 holds exactly
                                   dict(alpha=0.5, beta=0.75, epsilon=1e-3, norm_coefficient=0.02,
                                        norm_coefficient_post=0.125)])
def test_onnx_adam_reference_matches_onnx_reference(t, attrs):
    data = tensors(SHAPES, "XGVH")
    got = onnx_adam(0.01, t, *([d[role] for d in data] for role in "XGVH"), **f32(attrs))
    for i, d in enumerate(data):
        want = onnx_reference("Adam", "XGVH", attrs, 0.01, t, [d[role] for role in "XGVH"])
        for got_role, want_role in zip(got, want, strict=True):
            np.testing.assert_allclose(got_role[i], want_role, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("t", [0, 3])
@pytest.mark.parametrize("mode", ["standard", "nesterov"])
def test_onnx_momentum_reference_matches_onnx_reference(t, mode):
    attrs = dict(alpha=0.9, beta=0.1, mode=mode, norm_coefficient=0.05)
    data = tensors(SHAPES, "XGV")
    got = onnx_momentum(0.2, t, *([d[role] for d in data] for role in "XGV"), nesterov=mode == "nesterov",
                        **f32(dict(norm_coefficient=0.05, alpha=0.9, beta=0.1)))
    for i, d in enumerate(data):
        want = onnx_reference("Momentum", "XGV", attrs, 0.2, t, [d[role] for role in "XGV"])
        for got_role, want_role in zip(got, want, strict=True):
            np.testing.assert_allclose(got_role[i], want_role, rtol=1e-13, atol=1e-300)


def test_onnx_references_literals():
    # Adagrad by hand: X=1, G=3, H=0, R=0.5, T=1, decay 1 (r = 0.25), ε 0: H = 9, X = 1 - 0.25·3/3 = 0.75
    x, h = onnx_adagrad(0.5, 1, [[1.0]], [[3.0]], [[0.0]], norm_coefficient=0.0, epsilon=0.0, decay_factor=1.0)
    assert (x[0][0], h[0][0]) == (0.75, 9.0)
    # Momentum T=0 uses β = 1: V = 0.5·4 + 1·1 = 3, X = 1 - 0.1·3 = 0.7 (standard), 1 - 0.1·(1 + 0.5·3) = 0.75
    # (Nesterov); T=1 uses β = 0.25: V = 2.25, X = 1 - 0.225
    for t, nesterov, want_x, want_v in ((0, False, 0.7, 3.0), (0, True, 0.75, 3.0), (1, False, 0.775, 2.25)):
        x, v = onnx_momentum(0.1, t, [[1.0]], [[1.0]], [[4.0]], norm_coefficient=0.0, alpha=0.5, beta=0.25,
                             nesterov=nesterov)
        assert (x[0][0], v[0][0]) == (pytest.approx(want_x, rel=1e-15), want_v)
    # Adam T=0 skips bias correction: V = 0.5·0 + 0.5·2 = 1, H = 0.5·0 + 0.5·4 = 2, X = 1 - 0.1·1/sqrt(2)
    x, v, h = onnx_adam(0.1, 0, [[1.0]], [[2.0]], [[0.0]], [[0.0]], norm_coefficient=0.0, norm_coefficient_post=0.0,
                        alpha=0.5, beta=0.5, epsilon=0.0)
    assert (x[0][0], v[0][0], h[0][0]) == (pytest.approx(1 - 0.1 / math.sqrt(2), rel=1e-15), 1.0, 2.0)


# --- AdagradDecay: DeepRec's adagrad_decay_test.py -----------------------------------------------------------------

def four_updates(var, accum, grad, *, lr, decay_step, rate, baseline, f32=False):
    """DeepRec's tests: four updates seeing global steps 1..4, in place; ``f32`` rounds the inputs, the
    hyperparameters and the state between updates to float32 as a FLOAT32 device stores them (how the
    descriptor file's literals were derived)."""
    cast = (lambda a: np.asarray(a, np.float32).astype(np.float64)) if f32 else (lambda a: np.asarray(a, np.float64))
    if f32:
        lr, rate, baseline = (float(np.float32(h)) for h in (lr, rate, baseline))
    grad, power = cast(grad), np.zeros(1, np.int64)
    for step in range(1, 5):
        var, accum, power = adagrad_decay(cast(var), cast(accum), power, grad, step, learning_rate=lr,
                                          decay_step=decay_step, decay_rate=rate, baseline=baseline)
    return var, accum, power  # the last update unrounded: the file's literals are float64 values


def test_adagrad_decay_reference_deeprec_test_basic():
    hp = dict(lr=1.0, decay_step=3, rate=0.9, baseline=0.1)
    # descriptors/adagrad_decay_dense.yaml, testBasic (float32 inputs and state)
    var0, acc0, p0 = four_updates([1.0, 2.0], [0.1, 0.1], [0.1, 0.1], **hp, f32=True)
    var1, acc1, p1 = four_updates([3.0, 4.0], [0.1, 0.1], [0.2, 0.2], **hp, f32=True)
    np.testing.assert_allclose(var0, [-0.160806253191, 0.839193784061], rtol=1e-10)
    np.testing.assert_allclose(acc0, [0.127999993563, 0.127999993563], rtol=1e-10)
    np.testing.assert_allclose(var1, [1.14252088969, 2.14252088969], rtol=1e-10)
    np.testing.assert_allclose(acc1, [0.242000008225, 0.242000008225], rtol=1e-10)
    assert list(p0) == list(p1) == [1]
    # exact decimals, by hand: steps 1, 2 add g² to 0.1; step 3 (3/3 = 1 > P = 0) decays first:
    # max(0.9·(0.1 + 2g²), 0.1) + g²; step 4 (4/3 = 1, not > 1) adds g² again.
    for x0, g, var, acc in ((1.0, 0.1, -0.16080623122984106, 0.128), (3.0, 0.2, 1.1425210218032642, 0.242)):
        a1, a2 = 0.1 + g * g, 0.1 + 2 * g * g
        a3 = max(0.9 * a2, 0.1) + g * g
        a4 = a3 + g * g
        closed = x0 - g * sum(1 / math.sqrt(a) for a in (a1, a2, a3, a4))
        assert closed == pytest.approx(var, rel=1e-14) and a4 == pytest.approx(acc, rel=1e-14)
        got_var, got_acc, _ = four_updates([x0], [0.1], [g], **hp)
        assert got_var[0] == pytest.approx(var, rel=1e-14) and got_acc[0] == pytest.approx(acc, rel=1e-14)


def test_adagrad_decay_reference_deeprec_test_baseline():
    # testBaseline: initial accumulator = baseline = 1.0, rate 0.6: the decay at step 3 clamps to 1.0
    hp = dict(lr=1.0, decay_step=3, rate=0.6, baseline=1.0)
    var0, acc0, _ = four_updates([1.0, 2.0], [1.0, 1.0], [0.1, 0.1], **hp, f32=True)
    var1, acc1, p1 = four_updates([3.0, 4.0], [1.0, 1.0], [0.2, 0.2], **hp, f32=True)
    np.testing.assert_allclose(acc0, [1.01999999076, 1.01999999076], rtol=1e-10)
    np.testing.assert_allclose(acc1, [1.07999996305, 1.07999996305], rtol=1e-10)
    np.testing.assert_allclose(var0, [0.602963092785, 1.60296297358], rtol=1e-10)
    np.testing.assert_allclose(var1, [2.22286743951, 3.22286743951], rtol=1e-10)
    assert list(p1) == [1]
    # by hand: accumulators 1 + g², 1 + 2g², then max(0.6·(1 + 2g²), 1) + g² = 1 + g², then 1 + 2g²
    for x0, g, acc in ((1.0, 0.1, 1.02), (3.0, 0.2, 1.08)):
        accums = (1 + g * g, 1 + 2 * g * g, 1 + g * g, 1 + 2 * g * g)
        got_var, got_acc, _ = four_updates([x0], [1.0], [g], **hp)
        assert got_acc[0] == pytest.approx(acc, rel=1e-14)
        assert got_var[0] == pytest.approx(x0 - g * sum(1 / math.sqrt(a) for a in accums), rel=1e-14)


def test_adagrad_decay_reference_sparse_rows_and_one_period_per_update():
    # rows 0 and 2 indexed (row 2 twice: the gradients are summed), row 1 untouched; per-row powers
    var, acc, power = adagrad_decay([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], np.full((3, 2), 0.5), [0, 5, 0],
                                    [[0.5, -0.5], [0.25, 0.25], [0.25, 0.25]], 100, learning_rate=0.5,
                                    decay_step=10, decay_rate=0.5, baseline=0.3, indices=np.array([0, 2, 2]))
    # row 0: 100/10 = 10 > 0: P = 1 (not 10), accum = max(0.25, 0.3) + 0.25 = 0.55, var = 1 ∓ 0.5·0.5/sqrt(0.55)
    # row 2: the same with the summed gradient 0.5 (P 0 → 1)
    step = 0.25 / math.sqrt(0.55)
    np.testing.assert_allclose(var, [[1 - step, 1 + step], [2.0, 2.0], [3 - step, 3 - step]], rtol=1e-14)
    np.testing.assert_allclose(acc, [[0.55, 0.55], [0.5, 0.5], [0.55, 0.55]], rtol=1e-14)
    assert list(power) == [1, 5, 1]


# --- ARGMAX/ARGMIN/HARDMAX with NaN, and QUANTIZE near ties: onnx.reference ------------------------------------------

def onnx_node(op, x, out_type, opset=13, **attrs):
    """One ONNX node ``op`` of a FLOAT tensor input run by onnx's ReferenceEvaluator."""
    graph = helper.make_graph([helper.make_node(op, ["x"], ["y"], **attrs)], op,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
                              [helper.make_tensor_value_info("y", out_type, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return ReferenceEvaluator(model).run(None, {"x": x})[0]


def special_rows(count, width, rng):
    """Rows mixing NaN, ±infinity, ±0 and repeated small integers (ties) at random positions."""
    pool = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1, 2, -1], np.float32)
    return pool[rng.integers(0, len(pool), (count, width))]


@pytest.mark.parametrize("select_last_index", [0, 1])
@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
def test_arg_reduce_nan_rule_is_onnx_references(op, select_last_index):
    """dmlsim's rule for NaN (chosen over every number, the first or, with DECREASING, the last) and ties is what
    onnx.reference's ArgMax/ArgMin compute with select_last_index (the attribute onnxruntime's DirectML provider
    maps to DML_AXIS_DIRECTION_DECREASING)."""
    x = special_rows(300, 6, np.random.default_rng(7))
    want = onnx_node(op, x, TensorProto.INT64, axis=1, keepdims=1, select_last_index=select_last_index)
    got = arg_reduce(op == "ArgMax", x, [1], last=bool(select_last_index))
    np.testing.assert_array_equal(got, want)


def test_hardmax_nan_rule_is_onnx_references():
    x = special_rows(300, 6, np.random.default_rng(8))
    np.testing.assert_array_equal(hardmax(x, [1]), onnx_node("Hardmax", x, TensorProto.FLOAT, axis=1))


@pytest.mark.parametrize("scale", [5 / 255, 7 / 255, 0.1, 0.9, 1 / 3, 0.0123])
def test_quantize_reference_is_onnx_references_float32(scale):
    """QUANTIZE's reference divides in float32 as onnx.reference's QuantizeLinear does (0.5 / f32(5/255) is the
    float32 tie 25.5 -> 26 in both), at and around ties k + 0.5 (NaN and infinities left out: ONNX leaves them
    undefined, and its reference converts them through int32's minimum)."""
    s = np.float32(scale)
    k = np.arange(-100, 100, dtype=np.float32)
    x = ((k + np.float32(0.5)) * s).astype(np.float32)
    x = np.concatenate([x, np.nextafter(x, np.float32(np.inf)), np.nextafter(x, np.float32(-np.inf)), [0.5, 0.75]])
    x = x.astype(np.float32)
    graph = helper.make_graph([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])], "q",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
                              [helper.make_tensor_value_info("y", TensorProto.INT8, None)],
                              initializer=[helper.make_tensor("s", TensorProto.FLOAT, [], [s]),
                                           helper.make_tensor("z", TensorProto.INT8, [], [3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    np.testing.assert_array_equal(quantize_linear(x, s, np.int8(3), (-128, 127)), want)
