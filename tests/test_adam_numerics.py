"""DML_OPERATOR_ADAM_OPTIMIZER results against the float64 reference, on every adapter.

Tolerance (stated once, used everywhere below): an output element may differ from the float64
reference by at most n ulps *of its magnitude bound*, where the bound is the same reference run on
|X|, |M|, |V|, |G| with −|LearningRate| (tests/adam_support.magnitude_bound): every term then adds
with one sign, so the bound is the largest quantity whose rounding errors can reach the result —
β1|M|+(1−β1)|G| for M, β2|V|+(1−β2)G² for V, |X|+|lr·α|·|M|/(sqrt V+ε) for X. Measuring the error
against an ulp of the (possibly cancelled, tiny) result itself would be unfair to any float code.

- FLOAT32: n = 8. The kernel computes in float32 without contraction: M and V take 3 roundings
  each, X about 6 more (product, sqrt, add, divide, product, subtract), each ≤ 0.5 ulp of its
  operand's size, which the bound dominates; α itself comes from log/expm1 and a sqrt and a divide
  (a few ulps: OpenCL allows sqrt ≤ 3 ulp, divide ≤ 2.5 ulp, log/expm1 ≤ 3 ulp; correctly rounded
  pocl is far better). 8 ulps covers that sum with little slack, and still catches the naive
  ``1 − pow(β, T)`` (≈500 ulps off at T = 2, β2 = 0.999) that §3 of the design forbids.
- FLOAT16: n = 1 (half ulp). Inputs are exact halves, compute is float32 (its error is about 2^-13
  of a half ulp, negligible) and the result is rounded once to nearest even: 0.5 ulp, plus the
  rare double rounding (float32 then half) that can cost up to a further half ulp.
- Multi-step runs accumulate: after k steps the tolerance is k·n ulps of the iterated bound (M and V
  shrink old errors by β ≤ 1 per step, X adds each step's error once).
NaN and ±Inf must appear exactly where the formula puts them (compared position by position).
"""

from __future__ import annotations

import numpy as np
import pytest
from adam_support import (
    FLOAT16,
    FLOAT32,
    HP,
    NP,
    OM,
    OUTPUTS,
    OV,
    OX,
    AdamDispatch,
    G,
    M,
    V,
    X,
    adam_desc,
    assert_matches_reference,
    magnitude_bound,
    padded_strides,
    random_state,
    reference,
)

from dmlsim.api.numerics import compare_ulps

ULPS = {FLOAT32: 8, FLOAT16: 1}
DTYPES = pytest.mark.parametrize("data_type", [FLOAT32, FLOAT16], ids=["f32", "f16"])
SIZES = (2, 3, 5, 7)  # 210 elements: not a multiple of the vector width 8


def layout_strides(layout: str, inplace: bool) -> dict[str, list[int]]:
    """Per-field strides for a named layout; in-place pairs keep identical layouts (the aliasing rule)."""
    if layout == "packed":
        return {}
    if layout == "padded":
        strides = {X: padded_strides(SIZES, 3), M: padded_strides(SIZES, 1), V: padded_strides(SIZES, 2),
                   G: padded_strides(SIZES, 4)}
        for out, inp, pad in ((OX, X, 5), (OM, M, 6), (OV, V, 7)):
            strides[out] = strides[inp] if inplace else padded_strides(SIZES, pad)
        return strides
    if layout == "broadcast_g":
        return {G: [0, 0, 0, 1]}
    if layout == "broadcast_m":
        return {M: [0, 0, SIZES[3], 1]}
    raise ValueError(layout)


@DTYPES
@pytest.mark.parametrize("layout", ["packed", "padded", "broadcast_g", "broadcast_m"])
@pytest.mark.parametrize("inplace", [False, True], ids=["out_of_place", "in_place"])
def test_layouts(device, data_type, layout, inplace):
    aliased = [OX, OM, OV] if inplace else []
    if layout == "broadcast_m":  # M is broadcast: only X and V can be updated in place
        aliased = [name for name in aliased if name != OM]
    dispatch = AdamDispatch(device, adam_desc(data_type, SIZES, strides=layout_strides(layout, inplace)),
                            inplace=aliased)
    rng = np.random.default_rng([int(data_type), len(layout), int(inplace)])
    seen, got = dispatch.step(random_state(rng, SIZES, NP[data_type]), 3)
    assert_matches_reference(got, seen, 3, data_type, ULPS[data_type], what=f"{layout} inplace={inplace}")


@DTYPES
@pytest.mark.parametrize("count", [1, 7, 9, 1001])
@pytest.mark.parametrize("inplace", [False, True], ids=["out_of_place", "in_place"])
def test_sizes_not_multiple_of_vector_width(device, data_type, count, inplace):
    sizes = (1, 1, 1, count) if count < 1001 else (1, 7, 11, 13)
    dispatch = AdamDispatch(device, adam_desc(data_type, sizes), inplace=inplace)
    seen, got = dispatch.step(random_state(np.random.default_rng(count), sizes, NP[data_type]), 5)
    assert_matches_reference(got, seen, 5, data_type, ULPS[data_type], what=f"{count} elements")


@DTYPES
@pytest.mark.parametrize(("beta1", "beta2"), [(0.9, 0.999), (0.5, 0.75), (0.99, 0.9999)])
def test_alpha_accuracy_at_small_steps(device, data_type, beta1, beta2):
    """X = M = V = 0, G = 1, LearningRate 1, ε 0: X becomes −α·(1−β1)/sqrt(1−β2), which isolates α.

    1 − β^T cancels for small T; a float32 ``1 − pow(β, T)`` is hundreds of ulps off there.
    """
    hp = {**HP, "LearningRate": 1.0, "Epsilon": 0.0, "Beta1": beta1, "Beta2": beta2}
    sizes = (1, 1, 1, 1)
    dispatch = AdamDispatch(device, adam_desc(data_type, sizes, hp=hp))
    for t in range(1, 11):
        state = {X: 0.0, M: 0.0, V: 0.0, G: 1.0}
        seen, got = dispatch.step(state, t)
        assert_matches_reference(got, seen, t, data_type, ULPS[data_type], hp=hp, what=f"T={t}")


@DTYPES
@pytest.mark.parametrize("t", [1, 2, 10, 1_000_000, 2**31, 2**32 - 1])
def test_training_steps(device, data_type, t):
    dispatch = AdamDispatch(device, adam_desc(data_type, (1, 1, 4, 9)))
    seen, got = dispatch.step(random_state(np.random.default_rng(t % 1000), (1, 1, 4, 9), NP[data_type]), t)
    assert_matches_reference(got, seen, t, data_type, ULPS[data_type], what=f"T={t}")


@DTYPES
@pytest.mark.parametrize("layout", ["packed", "padded"])
def test_ten_steps_state_kept_on_device(device, data_type, layout):
    """Ten in-place steps; only G and T are written between steps (X, M, V stay in the device buffers).

    The reference is iterated in float64 and rounded to the storage type between steps, as the
    device stores it.
    """
    dtype = NP[data_type]
    steps = 10
    dispatch = AdamDispatch(device, adam_desc(data_type, SIZES, strides=layout_strides(layout, True)), inplace=True)
    rng = np.random.default_rng(7)
    state = random_state(rng, SIZES, dtype)
    expected = {name: dispatch.write(name, state[name]) for name in (X, M, V)}
    bound = {name: np.abs(expected[name].astype(np.float64)) for name in (X, M, V)}
    for t in range(1, steps + 1):
        g = dispatch.write(G, rng.standard_normal(SIZES).astype(dtype))
        dispatch.write("TrainingStepTensor", np.uint32(t))
        dispatch.execute()
        seen = {X: expected[X], M: expected[M], V: expected[V], G: g}
        step_ref = reference(seen, t)
        step_bound = magnitude_bound({**bound, G: g}, t)
        expected = {X: step_ref[OX].astype(dtype), M: step_ref[OM].astype(dtype), V: step_ref[OV].astype(dtype)}
        bound = {X: step_bound[OX], M: step_bound[OM], V: step_bound[OV]}
    for out, inp in ((OX, X), (OM, M), (OV, V)):
        report = compare_ulps(dispatch.read(out), expected[inp], dtype, steps * ULPS[data_type], bound[inp])
        assert report.ok, report.describe(f"{out} after {steps} steps")


def signed_inf(values: np.ndarray) -> np.ndarray:
    """+1 at +Inf, −1 at −Inf, 0 elsewhere."""
    values = np.asarray(values, np.float64)
    return np.where(np.isinf(values), np.sign(values), 0.0)


@DTYPES
@pytest.mark.parametrize("inplace", [False, True], ids=["out_of_place", "in_place"])
def test_nan_and_inf_propagate_as_the_formula_says(device, data_type, inplace):
    sizes = (1, 1, 2, 9)
    dtype = NP[data_type]
    state = random_state(np.random.default_rng(3), sizes, dtype)
    specials = [(X, 0, np.nan), (G, 1, np.inf), (M, 2, -np.inf), (V, 3, np.nan), (G, 4, np.nan),
                (X, 5, np.inf), (X, 6, -np.inf), (V, 7, np.inf), (G, 9, -np.inf), (M, 10, np.nan)]
    for name, index, value in specials:
        state[name].reshape(-1)[index] = value
    dispatch = AdamDispatch(device, adam_desc(data_type, sizes), inplace=inplace)
    seen, got = dispatch.step(state, 4)
    expected = reference(seen, 4)
    for name in OUTPUTS:
        assert np.array_equal(np.isnan(got[name]), np.isnan(expected[name])), f"{name}: NaN positions differ"
        assert np.array_equal(signed_inf(got[name]), signed_inf(expected[name])), f"{name}: ±Inf positions differ"
    assert np.isnan(expected[OX]).any() and np.isinf(expected[OM]).any()  # the case exercises both
    assert_matches_reference(got, seen, 4, data_type, ULPS[data_type])


@DTYPES
def test_step_zero_gives_nan_parameters_on_a_normal_device(device, data_type):
    """T = 0: α = sqrt(1 − β2⁰)/(1 − β1⁰) = 0/0, so X becomes NaN; M and V are still updated."""
    sizes = (1, 1, 3, 3)
    dispatch = AdamDispatch(device, adam_desc(data_type, sizes))
    seen, got = dispatch.step(random_state(np.random.default_rng(0), sizes, NP[data_type]), 0)
    assert np.isnan(got[OX]).all()
    assert_matches_reference(got, seen, 0, data_type, ULPS[data_type], what="T=0")


@DTYPES
@pytest.mark.parametrize("inplace", [False, True], ids=["out_of_place", "in_place"])
@pytest.mark.large
def test_large_packed_tensor_spans_many_work_items(device, data_type, inplace):
    """100009 elements: the packed path splits the vectors over many work-items, then does a 1-element tail."""
    sizes = (1, 1, 7, 14287)
    dispatch = AdamDispatch(device, adam_desc(data_type, sizes), inplace=inplace)
    seen, got = dispatch.step(random_state(np.random.default_rng(17), sizes, NP[data_type]), 6)
    assert_matches_reference(got, seen, 6, data_type, ULPS[data_type], what="100009 elements")
