"""DML_OPERATOR_MATRIX_MULTIPLY_INTEGER and _MATRIX_MULTIPLY_INTEGER_TO_FLOAT (dmlsim/operators/integer_gemm),
on every adapter.

Expected values are literals worked out by hand in the comments, onnx's own MatMulInteger node case, or the
doc pages' formulas ``sum_k (A[..., m, k] - AZeroPoint[m]) * (B[..., k, n] - BZeroPoint[n])`` (times
``AScale[m] * BScale[n]`` per term, plus the bias, for TO_FLOAT) written out here as Python loops (never
dmlsim's reference). MATRIX_MULTIPLY_INTEGER's output is INT32 and exact: compared with ``==``; a sum past
INT32's range wraps modulo 2^32 (dmlsim's decision, the operator's docstring).

TO_FLOAT tolerance: each term is two dequantized values (a difference rounded once to float32, times a scale:
two roundings each) multiplied (one more), summed in float32 (one rounding per sum), the bias added: within
K + 6 ulps (FLOAT32) of the magnitude bound sum_k |a'·b'| + |bias|; FLOAT16 output is that float32 value
rounded once to half: 1 half ulp of the bound. ONNX's MatMulIntegerToFloat is a com.microsoft contrib
operator, not in onnx's node cases: TO_FLOAT has no ONNX oracle here.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from datamove_support import F16, F32, I8, I16, I32, U8, U16, U32, operator, refused, run, tensor
from onnx_node_cases import node_cases

from dmlsim.api.numerics import compare_ulps

OUT = "OutputTensor"
NUMPY = {I8: np.int8, U8: np.uint8, I16: np.int16, U16: np.uint16, I32: np.int32, U32: np.uint32,
         F32: np.float32, F16: np.float16}


def matmul_int(a, a_zero_point, b, b_zero_point, out):
    return operator("MATRIX_MULTIPLY_INTEGER", ATensor=a, AZeroPointTensor=a_zero_point, BTensor=b,
                    BZeroPointTensor=b_zero_point, OutputTensor=out)


def loops(a, a_zero, b, b_zero):
    """The doc's formula over Python ints, wrapped to INT32 (a_zero: M values or None; b_zero: N values or None)."""
    a, b = np.asarray(a), np.asarray(b)
    m_size, k_size, n_size = a.shape[-2], a.shape[-1], b.shape[-1]
    expected = np.zeros((*a.shape[:-2], m_size, n_size), np.int64)
    for index in itertools.product(*(range(s) for s in a.shape[:-2])):
        for m, n in itertools.product(range(m_size), range(n_size)):
            za = 0 if a_zero is None else int(a_zero[m])
            zb = 0 if b_zero is None else int(b_zero[n])
            total = sum((int(a[index][m, k]) - za) * (int(b[index][k, n]) - zb) for k in range(k_size))
            expected[index][m, n] = (total + 2**31) % 2**32 - 2**31
    return expected


def test_by_hand_per_tensor_zero_points(device):
    """A = [[1, 2, 3], [4, 5, 6]] - 1, B = [[7, 8], [9, 10], [11, 12]] - 7 (UINT8, zero points 1 and 7):
    [[0, 1, 2], [3, 4, 5]] x [[0, 1], [2, 3], [4, 5]] = [[0+2+8, 0+3+10], [0+8+20, 3+12+25]] = [[10, 13], [28, 40]]."""
    op = matmul_int(tensor(U8, [2, 3]), tensor(U8, [1]), tensor(U8, [3, 2]), tensor(U8, [1]), tensor(I32, [2, 2]))
    got = run(device, op, ATensor=[[1, 2, 3], [4, 5, 6]], AZeroPointTensor=[1],
              BTensor=[[7, 8], [9, 10], [11, 12]], BZeroPointTensor=[7])[OUT]
    assert got.tolist() == [[10, 13], [28, 40]]


def test_by_hand_per_row_and_per_column_int8(device):
    """INT8 A {1,1,2,2} = [[-128, 127], [0, -1]] with per-row zero points [-128, 1] ({1,1,2,1}): rows [0, 255] and
    [-1, -2]; INT8 B {1,1,2,2} = [[127, -128], [5, 6]] with per-column zero points [127, -128] ({1,1,1,2}):
    [[0, 0], [-122, 134]]. Product: [[0*0 + 255*-122, 0*0 + 255*134], [-1*0 + -2*-122, -1*0 + -2*134]]
    = [[-31110, 34170], [244, -268]]."""
    op = matmul_int(tensor(I8, [1, 1, 2, 2]), tensor(I8, [1, 1, 2, 1]), tensor(I8, [1, 1, 2, 2]),
                    tensor(I8, [1, 1, 1, 2]), tensor(I32, [1, 1, 2, 2]))
    got = run(device, op, ATensor=[[[[-128, 127], [0, -1]]]], AZeroPointTensor=[[[[-128], [1]]]],
              BTensor=[[[[127, -128], [5, 6]]]], BZeroPointTensor=[[[[127, -128]]]])[OUT]
    assert got.tolist() == [[[[-31110, 34170], [244, -268]]]]


def test_mixed_types_without_zero_points_3d(device):
    """UINT8 A times INT8 B, no zero points, 3-D (BatchCount 2): [255, 255] . [-128, -128] = -65280 and
    [255, 0] . [127, 1] = 32385; batch 1: [1, 2] . [3, 4] = 11, [0, 0] . [-1, 5] = 0."""
    op = matmul_int(tensor(U8, [2, 1, 2]), None, tensor(I8, [2, 2, 1]), None, tensor(I32, [2, 1, 1]))
    got = run(device, op, ATensor=[[[255, 255]], [[1, 2]]], BTensor=[[[-128], [-128]], [[3], [4]]])[OUT]
    assert got.tolist() == [[[-65280]], [[11]]]
    got = run(device, op, ATensor=[[[255, 0]], [[0, 0]]], BTensor=[[[127], [1]], [[-1], [5]]])[OUT]
    assert got.tolist() == [[[32385]], [[0]]]


@pytest.mark.formula
def test_sum_wraps_modulo_2_to_the_32(device):
    """255 * 255 = 65025, K = 33100 terms: 2152327500 > 2^31 - 1 wraps to 2152327500 - 2^32 = -2142639796.
    A and B are one element each, stretched to K by stride 0; the second column has B's zero point 255 and
    gives 0; a zero point of 1 on A gives 254 * 255 * 33100 = 2143887000 (< 2^31, no wrap)."""
    k = 33100
    a = tensor(U8, [1, k], [0, 0])
    b = tensor(U8, [k, 2], [0, 0])
    op = matmul_int(a, None, b, tensor(U8, [2], [1]), tensor(I32, [1, 2]))
    got = run(device, op, ATensor=255, BTensor=255, BZeroPointTensor=[0, 255])[OUT]
    assert got.tolist() == [[-2142639796, 0]]
    op = matmul_int(a, tensor(U8, [1]), b, None, tensor(I32, [1, 2]))
    assert run(device, op, ATensor=255, AZeroPointTensor=[1], BTensor=255)[OUT].tolist() == [[2143887000] * 2]


@pytest.mark.parametrize(("a_type", "b_type"), [(U8, I8), (I8, U8)], ids=["uint8-int8", "int8-uint8"])
def test_strided_broadcast_and_padded_layouts(device, a_type, b_type):
    """4-D {2, 3, M=3, K=5} x {2, 3, K, N=4}: A stored transposed (K-major strides), B one matrix broadcast over
    batch and channel (strides 0) and stored column-major, Output padded (row stride 6), per-row and per-column
    zero points whose own tensors are strided; values include both types' extremes. Expected: the loops above."""
    rng = np.random.default_rng(7)
    m, k, n = 3, 5, 4
    info_a, info_b = np.iinfo(NUMPY[a_type]), np.iinfo(NUMPY[b_type])
    a = rng.integers(info_a.min, int(info_a.max) + 1, (2, 3, m, k))
    a[0, 0, 0, :] = info_a.min
    a[0, 0, 1, :] = info_a.max
    b = rng.integers(info_b.min, int(info_b.max) + 1, (k, n))
    b[:, 0] = info_b.max
    a_zero = np.array([info_a.max, info_a.min, 3])
    b_zero = np.array([info_b.min, 0, 1, info_b.max])
    a_desc = tensor(a_type, [2, 3, m, k], [3 * m * k, m * k, 1, m])
    b_desc = tensor(b_type, [2, 3, k, n], [0, 0, 1, k])
    az_desc = tensor(a_type, [1, 1, m, 1], [0, 0, 2, 0])
    bz_desc = tensor(b_type, [1, n], [0, 3])
    out_desc = tensor(I32, [2, 3, m, n], [3 * m * 6, m * 6, 6, 1])
    op = matmul_int(a_desc, az_desc, b_desc, bz_desc, out_desc)
    got = run(device, op, ATensor=a, AZeroPointTensor=a_zero.reshape(1, 1, m, 1),
              BTensor=np.broadcast_to(b, (2, 3, k, n)), BZeroPointTensor=b_zero.reshape(1, n))[OUT]
    assert got.tolist() == loops(np.broadcast_to(a, (2, 3, m, k)), a_zero, np.broadcast_to(b, (2, 3, k, n)),
                                 b_zero).tolist()


def test_onnx_node_cases(device):
    """onnx's MatMulInteger cases mapped as onnxruntime's DirectML provider maps them: A and B as they are (2-D),
    each zero point (a 1-element 1-D tensor) as a 1-D tensor; expected values: onnx's. Every MatMulInteger case
    onnx generates maps (none is listed as unmappable). The cases are generated when the test runs (not at
    collection, which a narrow ``-k`` selection would pay for)."""
    cases = node_cases("MatMulInteger")
    assert cases, "onnx generated no MatMulInteger case"
    types = {np.dtype(np.uint8): U8, np.dtype(np.int8): I8}
    for case in cases:
        (a, b, a_zero, b_zero), (expected,) = case.data_sets[0]
        op = matmul_int(tensor(types[a.dtype], a.shape), tensor(types[a_zero.dtype], a_zero.shape),
                        tensor(types[b.dtype], b.shape), tensor(types[b_zero.dtype], b_zero.shape),
                        tensor(I32, expected.shape))
        got = run(device, op, ATensor=a, AZeroPointTensor=a_zero, BTensor=b, BZeroPointTensor=b_zero)[OUT]
        assert got.dtype == np.int32 and got.tolist() == expected.tolist(), case.name


def _refusal_cases():
    a, b, out = tensor(U8, [2, 3]), tensor(U8, [3, 4]), tensor(I32, [2, 4])
    return [
        (lambda: matmul_int(tensor(I32, [2, 3]), None, b, None, out), "ATensor.DataType INT32 is not supported"),
        (lambda: matmul_int(a, None, b, None, tensor(U8, [2, 4])), "OutputTensor.DataType UINT8 is not supported"),
        (lambda: matmul_int(a, tensor(I8, [1]), b, None, out), "AZeroPointTensor.DataType INT8 must equal ATensor"),
        (lambda: matmul_int(a, None, tensor(I8, [3, 4]), tensor(U8, [1]), out),
         "BZeroPointTensor.DataType UINT8 must equal BTensor"),
        (lambda: matmul_int(tensor(U8, [3]), None, b, None, out), "ATensor.DimensionCount 1 is not supported"),
        (lambda: matmul_int(tensor(U8, [1, 1, 1, 2, 3]), None, tensor(U8, [1, 1, 1, 3, 4]), None,
                            tensor(I32, [1, 1, 1, 2, 4])), "OutputTensor.DimensionCount 5 is not supported"),
        (lambda: matmul_int(a, tensor(U8, [1, 1, 1, 1, 1]), b, None, out),
         "AZeroPointTensor.DimensionCount 5 is not supported"),
        (lambda: matmul_int(tensor(U8, [1, 2, 3]), None, b, None, out),
         "ATensor.DimensionCount 3 must equal OutputTensor.DimensionCount 2"),
        (lambda: matmul_int(a, None, tensor(U8, [2, 4]), None, out), "with K = 2, but ATensor.Sizes [2, 3]"),
        (lambda: matmul_int(tensor(U8, [3, 3]), None, b, None, out), "has M = 2 rows"),
        (lambda: matmul_int(a, None, tensor(U8, [3, 5]), None, out), "has N = 4 columns"),
        (lambda: matmul_int(tensor(U8, [2, 2, 3]), None, tensor(U8, [1, 3, 4]), None, tensor(I32, [2, 2, 4])),
         "BTensor.Sizes [1, 3, 4]: the leading (BatchCount, ChannelCount) sizes [1] must equal"),
        (lambda: matmul_int(a, tensor(U8, [3]), b, None, out), "AZeroPointTensor.Sizes [3] must be"),
        (lambda: matmul_int(a, tensor(U8, [1, 2]), b, None, out), "AZeroPointTensor.Sizes [1, 2] must be"),
        (lambda: matmul_int(a, tensor(U8, [2, 1, 1]), b, None, out), "AZeroPointTensor.Sizes [2, 1, 1] must be"),
        (lambda: matmul_int(a, None, b, tensor(U8, [4, 1]), out), "BZeroPointTensor.Sizes [4, 1] must be"),
        (lambda: matmul_int(a, None, b, tensor(U8, [2]), out), "BZeroPointTensor.Sizes [2] must be"),
    ]


@pytest.mark.parametrize(("make", "message"), _refusal_cases(), ids=lambda x: x if isinstance(x, str) else "")
def test_refusals_name_the_field(ref_device, make, message):
    assert message in refused(ref_device, make())


def test_accepted_zero_point_forms(ref_device):
    """The zero-point forms the page gives: {1} and {M} (1-D), {1, 1, M, 1}/{1, 1, 1, 1}, {1, N}, {N}."""
    a, b, out = tensor(I8, [2, 3]), tensor(U8, [3, 4]), tensor(I32, [2, 4])
    for az, bz in [([1], [1]), ([2], [4]), ([1, 1, 2, 1], [1, 1, 1, 4]), ([1, 1, 1, 1], [1, 4]), ([2, 1], [1])]:
        ref_device.CreateOperator(matmul_int(a, tensor(I8, az), b, tensor(U8, bz), out))


# --- MATRIX_MULTIPLY_INTEGER_TO_FLOAT -------------------------------------------------------------------------
def to_float(a, a_scale, a_zero_point, b, b_scale, b_zero_point, bias, out):
    return operator("MATRIX_MULTIPLY_INTEGER_TO_FLOAT", ATensor=a, AScaleTensor=a_scale, AZeroPointTensor=a_zero_point,
                    BTensor=b, BScaleTensor=b_scale, BZeroPointTensor=b_zero_point, BiasTensor=bias, OutputTensor=out)


def float_loops(a, a_scale, a_zero, b, b_scale, b_zero, bias):
    """The doc's formula in float64 loops: (expected, magnitude bound); scales and zero points as M / N values."""
    a, b = np.asarray(a), np.asarray(b)
    m_size, k_size, n_size = a.shape[-2], a.shape[-1], b.shape[-1]
    expected = np.zeros((*a.shape[:-2], m_size, n_size))
    bound = np.zeros_like(expected)
    for index in itertools.product(*(range(s) for s in a.shape[:-2])):
        for m, n in itertools.product(range(m_size), range(n_size)):
            za = 0 if a_zero is None else int(a_zero[m])
            zb = 0 if b_zero is None else int(b_zero[n])
            terms = [(int(a[index][m, k]) - za) * float(a_scale[m]) * (int(b[index][k, n]) - zb) * float(b_scale[n])
                     for k in range(k_size)]
            extra = 0.0 if bias is None else float(bias[index][m, n])
            expected[index][m, n] = sum(terms) + extra
            bound[index][m, n] = sum(abs(t) for t in terms) + abs(extra)
    return expected, bound


def check_float(got, expected, bound, data_type, k):
    report = compare_ulps(got, expected, NUMPY[data_type], k + 6 if data_type == F32 else 1, bound)
    assert report.ok, report.mismatches[:5]


@pytest.mark.parametrize("data_type", [F32, F16], ids=["float32", "float16"])
def test_to_float_by_hand(device, data_type):
    """INT8 A = [[1, 2], [3, 4]] - 1 (per tensor) = [[0, 1], [2, 3]], times 0.5: [[0, 0.5], [1, 1.5]];
    INT8 B = [[2, 0], [0, 2]] (no zero point) times per-column scales [1, 0.25]: [[2, 0], [0, 0.5]];
    product [[0, 0.25], [2, 0.75]] + bias [[0.5, 0.5], [1, 1]] = [[0.5, 0.75], [3, 1.75]] (exact in both types)."""
    op = to_float(tensor(I8, [2, 2]), tensor(data_type, [1, 1]), tensor(I8, [1, 1]), tensor(I8, [2, 2]),
                  tensor(data_type, [1, 2]), None, tensor(data_type, [2, 2]), tensor(data_type, [2, 2]))
    got = run(device, op, ATensor=[[1, 2], [3, 4]], AScaleTensor=[[0.5]], AZeroPointTensor=[[1]],
              BTensor=[[2, 0], [0, 2]], BScaleTensor=[[1, 0.25]], BiasTensor=[[0.5, 0.5], [1, 1]])[OUT]
    assert got.tolist() == [[0.5, 0.75], [3, 1.75]]


def test_to_float_32_bit_differences_are_exact(device):
    """INT32 A = -2^31 with zero point 2^31 - 1: the difference -(2^32 - 1) overflows int (it would wrap to 1)
    but not the kernel's long; it rounds to float32 -2^32, times scale 2^-32 = -1, times B = 3 (scale 1) = -3.
    UINT32 4294967295 with zero point 0 and scale 2^-32: 2^32 rounded, times 2^-32 = 1; times 5 = 5."""
    op = to_float(tensor(I32, [1, 1]), tensor(F32, [1]), tensor(I32, [1]), tensor(I32, [1, 1]), tensor(F32, [1]),
                  None, None, tensor(F32, [1, 1]))
    got = run(device, op, ATensor=[[-2**31]], AScaleTensor=[2.0**-32], AZeroPointTensor=[2**31 - 1],
              BTensor=[[3]], BScaleTensor=[1.0])[OUT]
    assert got.tolist() == [[-3.0]]
    op = to_float(tensor(U32, [1, 1]), tensor(F32, [1]), None, tensor(U32, [1, 1]), tensor(F32, [1]), None, None,
                  tensor(F32, [1, 1]))
    got = run(device, op, ATensor=[[4294967295]], AScaleTensor=[2.0**-32], BTensor=[[5]], BScaleTensor=[1.0])[OUT]
    assert got.tolist() == [[5.0]]


def test_to_float_special_scales_and_bias(device):
    """Infinite scale, NaN and infinite bias. A = [[5, 5], [6, 4]] - 5 = [[0, 0], [1, -1]] (UINT16, scale 1);
    B = [[1, 1, 1], [0, 0, 0]] with per-column scales [inf, 1, 1]: dequantized [[inf, 1, 1], [0 * inf = NaN, 0, 0]].
    Column 0 sums a term times NaN: NaN in both rows; column 1 is [0, 1] plus a NaN bias: NaN; column 2 is
    [0, 1] plus an infinite bias: inf."""
    op = to_float(tensor(U16, [2, 2]), tensor(F32, [1]), tensor(U16, [1]), tensor(U16, [2, 3]), tensor(F32, [3]),
                  None, tensor(F32, [2, 3]), tensor(F32, [2, 3]))
    got = run(device, op, ATensor=[[5, 5], [6, 4]], AScaleTensor=[1.0], AZeroPointTensor=[5],
              BTensor=[[1, 1, 1], [0, 0, 0]], BScaleTensor=[np.inf, 1.0, 1.0],
              BiasTensor=[[0, np.nan, np.inf], [0, np.nan, np.inf]])[OUT]
    assert np.isnan(got[:, :2]).all() and got[:, 2].tolist() == [np.inf, np.inf]


@pytest.mark.parametrize(("int_type", "data_type"), [(I16, F32), (U8, F16)], ids=["int16-float32", "uint8-float16"])
def test_to_float_strided_broadcast_layouts(device, int_type, data_type):
    """3-D {2, M=3, K=6} x {2, K, N=4}: A column-major per batch, B broadcast over the batch (stride 0) and
    column-major, per-row A scales and zero points and per-column B scales and zero points in strided 4-D
    tensors, a bias broadcast over rows (stride 0), the output padded. Expected: float_loops, within the
    module's tolerance."""
    rng = np.random.default_rng(11)
    m, k, n = 3, 6, 4
    info = np.iinfo(NUMPY[int_type])
    a = rng.integers(max(info.min, -300), min(info.max, 300) + 1, (2, m, k))
    a[0, 0, :] = info.max
    b = rng.integers(max(info.min, -300), min(info.max, 300) + 1, (k, n))
    b[:, 0] = info.min
    a_zero, b_zero = rng.integers(0, 9, m), rng.integers(0, 9, n)
    a_scale = np.array([0.5, 0.125, 1.5]).astype(NUMPY[data_type])
    # FLOAT16: B's scales 2^-6 smaller, so that sums of six terms up to 255 * 0.5 * 255 * 2 stay below 65504
    b_scale = (np.array([0.25, 0.75, 2.0, 0.0625]) * (2.0**-6 if data_type == F16 else 1.0)).astype(NUMPY[data_type])
    bias_row = rng.uniform(-4, 4, n).astype(NUMPY[data_type])
    op = to_float(tensor(int_type, [2, m, k], [m * k, 1, m]), tensor(data_type, [1, 1, m, 1], [0, 0, 2, 0]),
                  tensor(int_type, [1, 1, m, 1], [0, 0, 3, 0]), tensor(int_type, [2, k, n], [0, 1, k]),
                  tensor(data_type, [1, 1, 1, n], [0, 0, 0, 2]), tensor(int_type, [1, 1, 1, n]),
                  tensor(data_type, [2, m, n], [0, 0, 1]), tensor(data_type, [2, m, n], [m * (n + 3), n + 3, 1]))
    got = run(device, op, ATensor=a, AScaleTensor=a_scale.reshape(1, 1, m, 1),
              AZeroPointTensor=a_zero.reshape(1, 1, m, 1),
              BTensor=np.broadcast_to(b, (2, k, n)), BScaleTensor=b_scale.reshape(1, 1, 1, n),
              BZeroPointTensor=b_zero.reshape(1, 1, 1, n), BiasTensor=np.broadcast_to(bias_row, (2, m, n)))[OUT]
    expected, bound = float_loops(a, a_scale, a_zero, np.broadcast_to(b, (2, k, n)), b_scale, b_zero,
                                  np.broadcast_to(bias_row, (2, m, n)))
    check_float(got, expected, bound, data_type, k)


def test_to_float_float16_rounds_to_nearest_even(device):
    """2049 * 1 (FLOAT16 output): 2049 lies halfway between the halves 2048 and 2050: ties to even, 2048;
    2051 is halfway between 2050 and 2052: 2052. (INT16 A = [[2049], [2051]], B = [[1]], scales 1.)"""
    op = to_float(tensor(I16, [2, 1]), tensor(F16, [1]), None, tensor(I16, [1, 1]), tensor(F16, [1]), None, None,
                  tensor(F16, [2, 1]))
    got = run(device, op, ATensor=[[2049], [2051]], AScaleTensor=[1.0], BTensor=[[1]], BScaleTensor=[1.0])[OUT]
    assert got.tolist() == [[2048.0], [2052.0]]


def _to_float_refusals():
    def make(a=I8, az=I8, b=I8, bz=I8, a_scale=F32, b_scale=F32, bias=F32, out=F32, az_sizes=(1,), as_sizes=(1,),
             bs_sizes=(1,), bias_sizes=(2, 4), out_sizes=(2, 4)):
        return to_float(tensor(a, [2, 3]), tensor(a_scale, list(as_sizes)), tensor(az, list(az_sizes)),
                        tensor(b, [3, 4]), tensor(b_scale, list(bs_sizes)), tensor(bz, [1]),
                        tensor(bias, list(bias_sizes)), tensor(out, list(out_sizes)))
    return [
        (lambda: make(a=F32, az=F32, b=F32, bz=F32), "ATensor.DataType FLOAT32 is not supported"),
        (lambda: make(out=I32), "OutputTensor.DataType INT32 is not supported"),
        (lambda: make(b=U8, bz=U8), "BTensor.DataType UINT8 must equal ATensor.DataType INT8"),
        (lambda: make(az=U8), "AZeroPointTensor.DataType UINT8 must equal ATensor.DataType INT8"),
        (lambda: make(a_scale=F16), "AScaleTensor.DataType FLOAT16 must equal OutputTensor.DataType FLOAT32"),
        (lambda: make(bias=F16), "BiasTensor.DataType FLOAT16 must equal OutputTensor.DataType FLOAT32"),
        (lambda: make(bias_sizes=(1, 4)), "BiasTensor.Sizes [1, 4] must equal OutputTensor.Sizes [2, 4]"),
        (lambda: make(bias_sizes=(1, 2, 4)), "BiasTensor.DimensionCount 3 must equal OutputTensor.DimensionCount 2"),
        (lambda: make(az_sizes=(1, 1)), "AZeroPointTensor.DimensionCount 2 must equal AScaleTensor.DimensionCount 1"),
        (lambda: make(as_sizes=(3,)), "AScaleTensor.Sizes [3] must be"),
        (lambda: make(bs_sizes=(2,)), "BScaleTensor.Sizes [2] must be"),
    ]


@pytest.mark.parametrize(("make", "message"), _to_float_refusals(), ids=lambda x: x if isinstance(x, str) else "")
def test_to_float_refusals_name_the_field(ref_device, make, message):
    assert message in refused(ref_device, make())


# --- QUANTIZED_LINEAR_MATRIX_MULTIPLY -----------------------------------------------------------------------
def qlinear(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, out):
    return operator("QUANTIZED_LINEAR_MATRIX_MULTIPLY", ATensor=a, AScaleTensor=a_scale,
                    AZeroPointTensor=a_zero_point, BTensor=b, BScaleTensor=b_scale, BZeroPointTensor=b_zero_point,
                    OutputScaleTensor=y_scale, OutputZeroPointTensor=y_zero_point, OutputTensor=out)


def qlinear_steps(a, a_scale, a_zero, b, b_scale, b_zero, y_scale, y_zero, limits):
    """The operator's documented decision written out with numpy float32 scalars: the exact integer sum (loops,
    wrapped to INT32), rounded to float32, times float32(AScale[m] * BScale[n]), divided by OutputScale[m]
    (each step one float32 rounding), rounded half to even, plus OutputZeroPoint[m], saturated (NaN: 0)."""
    sums = loops(a, a_zero, b, b_zero)
    f32 = np.float32
    expected = np.zeros(sums.shape, np.int64)
    for index in itertools.product(*(range(s) for s in sums.shape)):
        m, n = index[-2], index[-1]
        with np.errstate(all="ignore"):
            q = np.rint(f32(sums[index]) * (f32(a_scale[m]) * f32(b_scale[n])) / f32(y_scale[m]))
            q = q + f32(0 if y_zero is None else y_zero[m])
        expected[index] = 0 if np.isnan(q) else int(np.clip(q, *limits))
    return expected


def test_qlinear_by_hand(device):
    """A (UINT8) [[1, 2], [3, 4]] - 1 = [[0, 1], [2, 3]] and B [[2, 4], [6, 8]] (zero point 0): integer sums
    [[6, 8], [22, 32]]; times 0.5 * 0.25 = [[0.75, 1], [2.75, 4]]; / 0.5 = [[1.5, 2], [5.5, 8]]; half to even
    [[2, 2], [6, 8]]; + 10 = [[12, 12], [16, 18]]."""
    one = [1, 1]
    op = qlinear(tensor(U8, [2, 2]), tensor(F32, one), tensor(U8, one), tensor(U8, [2, 2]), tensor(F32, one),
                 tensor(U8, one), tensor(F32, one), tensor(U8, one), tensor(U8, [2, 2]))
    got = run(device, op, ATensor=[[1, 2], [3, 4]], AScaleTensor=[[0.5]], AZeroPointTensor=[[1]],
              BTensor=[[2, 4], [6, 8]], BScaleTensor=[[0.25]], BZeroPointTensor=[[0]], OutputScaleTensor=[[0.5]],
              OutputZeroPointTensor=[[10]])[OUT]
    assert got.tolist() == [[12, 12], [16, 18]]


def test_qlinear_per_row_per_column_and_saturation(device):
    """INT8 A [[127, 127], [-128, -128]] (no zero point, per-row scales [1, 1]) times B [[1, -1], [1, -1]] (per-column
    scales [1, 0.5]): sums [[254, -254], [-256, 256]], real [[254, -127], [-256, 128]]; per-row output scales
    [1, 4] and zero points [0, -1]: row 0 [254 -> 127 (saturated), -127], row 1 [-64 - 1, 32 - 1] = [-65, 31]."""
    op = qlinear(tensor(I8, [2, 2]), tensor(F32, [2, 1]), None, tensor(I8, [2, 2]), tensor(F32, [1, 2]), None,
                 tensor(F32, [2, 1]), tensor(I8, [2, 1]), tensor(I8, [2, 2]))
    got = run(device, op, ATensor=[[127, 127], [-128, -128]], AScaleTensor=[[1], [1]], BTensor=[[1, -1], [1, -1]],
              BScaleTensor=[[1, 0.5]], OutputScaleTensor=[[1], [4]], OutputZeroPointTensor=[[0], [-1]])[OUT]
    assert got.tolist() == [[127, -127], [-65, 31]]


def test_qlinear_rounds_the_float32_quotient(device):
    """Column 0: sum 1, scales 0.5 * 1: real 0.5; divided by float32(5/255) = 0.019607843831... the exact
    quotient is 25.4999991 but float32 division gives the tie 25.5 (9.0e-7 away, under half its ulp), which
    rounds to even 26; + 153 = 179 (a float64 quotient would give 178). Column 1: 1.5 / float32(5/255) = 76.4999973
    rounds to the float32 tie 76.5 (2.7e-6 away, under half its ulp 3.8e-6): even 76, + 153 = 229. Column 2:
    2.5 / ... = 127.4999955 rounds to float32 127.49999 (not the tie): 127, + 153 = 280, saturated to 255.
    Then with output scale 1: 0.5 -> 0 and 2.5 -> 2, half to even."""
    op = qlinear(tensor(U8, [1, 1]), tensor(F32, [1]), None, tensor(U8, [1, 3]), tensor(F32, [1]), None,
                 tensor(F32, [1]), tensor(U8, [1]), tensor(U8, [1, 3]))
    got = run(device, op, ATensor=[[1]], AScaleTensor=[0.5], BTensor=[[1, 3, 5]], BScaleTensor=[1.0],
              OutputScaleTensor=[np.float32(5 / 255)], OutputZeroPointTensor=[153])[OUT]
    assert got.tolist() == [[179, 229, 255]]
    op = qlinear(tensor(U8, [1, 1]), tensor(F32, [1]), None, tensor(U8, [1, 2]), tensor(F32, [1]), None,
                 tensor(F32, [1]), tensor(U8, [1]), tensor(U8, [1, 2]))
    got = run(device, op, ATensor=[[1]], AScaleTensor=[0.5], BTensor=[[1, 5]], BScaleTensor=[1.0],
              OutputScaleTensor=[1.0], OutputZeroPointTensor=[0])[OUT]
    assert got.tolist() == [[0, 2]]


def test_qlinear_nan_and_infinite_scales(device):
    """An infinite A scale makes the real value +-inf: saturated (255, 0); a zero sum times inf is NaN: 0 whatever
    the zero point (as QUANTIZE_LINEAR decides). A (UINT8) [[1], [0]] times B [[1, 0]] with A's scale inf:
    row 0 [inf, 0 * inf = NaN] -> [255, 0]; row 1 [NaN, NaN] -> [0, 0]."""
    op = qlinear(tensor(U8, [2, 1]), tensor(F32, [1]), None, tensor(U8, [1, 2]), tensor(F32, [1]), None,
                 tensor(F32, [1]), tensor(U8, [1]), tensor(U8, [2, 2]))
    got = run(device, op, ATensor=[[1], [0]], AScaleTensor=[np.inf], BTensor=[[1, 0]], BScaleTensor=[1.0],
              OutputScaleTensor=[1.0], OutputZeroPointTensor=[7])[OUT]
    assert got.tolist() == [[255, 0], [0, 0]]


def test_qlinear_strided_broadcast_layouts(device):
    """4-D {2, 2, M=3, K=5} x {2, 2, K, N=4} (UINT8 A, INT8 B and output): A stored transposed, B broadcast over
    batch and channel and column-major, the output padded; per-row A and output scales and zero points and
    per-column B ones in strided 3-D tensors. Expected: qlinear_steps (the decision written out here)."""
    rng = np.random.default_rng(3)
    m, k, n = 3, 5, 4
    a = rng.integers(0, 256, (2, 2, m, k))
    b = rng.integers(-128, 128, (k, n))
    a_zero, b_zero, y_zero = np.array([0, 255, 7]), np.array([-128, 0, 3, 127]), np.array([-5, 0, 100])
    a_scale = np.array([0.02, 0.5, 0.1], np.float32)
    b_scale = np.array([0.03, 0.001, 0.25, 0.07], np.float32)
    y_scale = np.array([0.3, 2.0, 1.7], np.float32)
    row = lambda t: tensor(t, [1, m, 1], [0, 2, 0])  # noqa: E731
    column = lambda t: tensor(t, [1, 1, n], [0, 0, 3])  # noqa: E731
    op = qlinear(tensor(U8, [2, 2, m, k], [2 * m * k, m * k, 1, m]), row(F32), row(U8),
                 tensor(I8, [2, 2, k, n], [0, 0, 1, k]), column(F32), column(I8), row(F32), row(I8),
                 tensor(I8, [2, 2, m, n], [2 * m * 6, m * 6, 6, 1]))
    got = run(device, op, ATensor=a, AScaleTensor=a_scale.reshape(1, m, 1), AZeroPointTensor=a_zero.reshape(1, m, 1),
              BTensor=np.broadcast_to(b, (2, 2, k, n)), BScaleTensor=b_scale.reshape(1, 1, n),
              BZeroPointTensor=b_zero.reshape(1, 1, n), OutputScaleTensor=y_scale.reshape(1, m, 1),
              OutputZeroPointTensor=y_zero.reshape(1, m, 1))[OUT]
    expected = qlinear_steps(a, a_scale, a_zero, np.broadcast_to(b, (2, 2, k, n)), b_scale, b_zero, y_scale, y_zero,
                             (-128, 127))
    assert got.tolist() == expected.tolist()


# onnx's QLinearMatMul cases that do not map onto the DirectML desc, and why.
QLINEAR_UNMAPPED = {
    "float16": "FLOAT16 scales: DirectML's QUANTIZED_LINEAR_MATRIX_MULTIPLY takes FLOAT32 scales only (its table)",
}


def test_qlinear_onnx_node_cases(device):
    """onnx's QLinearMatMul cases mapped as onnxruntime's DirectML provider maps them: A, B and the output as they
    are (2-D, 3-D), each scale and zero point (one-element 1-D tensors) as 1-D tensors; expected: onnx's. The
    cases with FLOAT16 scales are listed in QLINEAR_UNMAPPED (a DirectML limit); every other case must map."""
    cases = node_cases("QLinearMatMul")
    types = {np.dtype(np.uint8): U8, np.dtype(np.int8): I8}
    mapped = 0
    for case in cases:
        a, a_scale, a_zero, b, b_scale, b_zero, y_scale, y_zero = case.data_sets[0][0]
        (expected,) = case.data_sets[0][1]
        if a_scale.dtype == np.float16:
            assert case.name.endswith("float16") and "float16" in QLINEAR_UNMAPPED, case.name
            continue
        op = qlinear(tensor(types[a.dtype], a.shape), tensor(F32, a_scale.shape),
                     tensor(types[a_zero.dtype], a_zero.shape), tensor(types[b.dtype], b.shape),
                     tensor(F32, b_scale.shape), tensor(types[b_zero.dtype], b_zero.shape),
                     tensor(F32, y_scale.shape), tensor(types[y_zero.dtype], y_zero.shape),
                     tensor(types[expected.dtype], expected.shape))
        got = run(device, op, ATensor=a, AScaleTensor=a_scale, AZeroPointTensor=a_zero, BTensor=b,
                  BScaleTensor=b_scale, BZeroPointTensor=b_zero, OutputScaleTensor=y_scale,
                  OutputZeroPointTensor=y_zero)[OUT]
        assert got.tolist() == expected.tolist(), case.name
        mapped += 1
    assert mapped >= 4, f"only {mapped} QLinearMatMul cases mapped"


def _qlinear_refusals():
    def make(a=U8, az=U8, b=U8, bz=U8, y=U8, yz=U8, scale=F32, y_scale=F32, ranks=(1, 1, 1, 1, 1, 1),
             y_scale_sizes=None):
        def one(t, rank, sizes=None):
            return tensor(t, list(sizes) if sizes else [1] * rank)
        return qlinear(tensor(a, [2, 3]), one(scale, ranks[0]), one(az, ranks[1]), tensor(b, [3, 4]),
                       one(F32, ranks[2]), one(bz, ranks[3]), one(y_scale, ranks[4], y_scale_sizes),
                       one(yz, ranks[5]), tensor(y, [2, 4]))
    return [
        (lambda: make(a=I32, az=I32), "ATensor.DataType INT32 is not supported"),
        (lambda: make(y=I32, yz=I32), "OutputTensor.DataType INT32 is not supported"),
        (lambda: make(scale=F16), "AScaleTensor.DataType FLOAT16 is not supported"),
        (lambda: make(yz=I8), "OutputZeroPointTensor.DataType INT8 must equal OutputTensor.DataType UINT8"),
        (lambda: make(bz=I8), "BZeroPointTensor.DataType INT8 must equal BTensor.DataType UINT8"),
        (lambda: make(ranks=(1, 1, 1, 1, 2, 1)),
         "OutputScaleTensor.DimensionCount 2 must equal AScaleTensor.DimensionCount 1"),
        (lambda: make(y_scale_sizes=(4,)), "OutputScaleTensor.Sizes [4] must be"),
    ]


@pytest.mark.parametrize(("make", "message"), _qlinear_refusals(), ids=lambda x: x if isinstance(x, str) else "")
def test_qlinear_refusals_name_the_field(ref_device, make, message):
    assert message in refused(ref_device, make())


def test_qlinear_debug_device_refuses_a_zero_scale(debug_device):
    """A scale of 0 is undefined behavior on the doc page: a debug device refuses the execution, naming it."""
    import dmlsim as dml

    one = [1]
    op = qlinear(tensor(U8, [1, 1]), tensor(F32, one), None, tensor(U8, [1, 1]), tensor(F32, one), None,
                 tensor(F32, one), None, tensor(U8, [1, 1]))
    with pytest.raises(dml.DMLError) as info:
        run(debug_device, op, ATensor=[[1]], AScaleTensor=[1.0], BTensor=[[1]], BScaleTensor=[0.0],
            OutputScaleTensor=[1.0])
    assert info.value.hresult == dml.E_INVALIDARG and "BScaleTensor holds 0" in str(info.value)
