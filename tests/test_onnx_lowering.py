"""The ONNX lowering's rules, one onnx node case each, on every device (dmlsim/onnx/lowering.py and ops_*.py).

A fast selection of onnx's generated node cases (the whole suite is tests/test_onnx_node_suite.py), each exercising
one rule of the lowering: broadcasting as stride 0, reshapes as renamed bytes, transposes as permuted strides,
negative slice steps, Softmax's opset-dependent axes, keepdims=0 as a view, MatMul's batch broadcast and 1-D
operands, convolution padding, ConvTranspose's pads, JOIN/SPLIT, CLIP1's host-read bounds, variadic Mean, per-axis
dequantization, normalizations (LayerNormalization's Mean and InvStdDev as extra nodes), Resize's coordinate modes
as RESAMPLE2 offsets, the gather family padded to one rank. Expected outputs are onnx's (its numpy transcriptions),
compared with onnx's tolerances."""

from __future__ import annotations

import functools

import pytest

from dmlsim.api.errors import DMLError
from dmlsim.onnx.node_suite import all_cases, run_case

CASES = [
    "test_add_bcast",
    "test_argmax_keepdims_random_select_last_index",
    "test_clip_default_inbounds",
    "test_concat_3d_axis_negative_1",
    "test_conv_with_strides_and_asymmetric_padding",
    "test_convtranspose_pads",
    "test_dequantizelinear_axis",
    "test_expand_dim_changed",
    "test_flatten_negative_axis1",
    "test_gemm_all_attributes",
    "test_matmul_4d",
    "test_matmul_4d_1d",
    "test_mean_example",
    "test_mod_mixed_sign_int32",
    "test_reduce_sum_do_not_keepdims_random",
    "test_reshape_negative_dim",
    "test_slice_neg_steps",
    "test_softmax_axis_0",
    "test_softmax_axis_0_expanded",
    "test_split_variable_parts_2d_opset18",
    "test_transpose_all_permutations_3",
    "test_unsqueeze_negative_axes",
    "test_where_long_example",
    "test_layer_normalization_4d_axis1",
    "test_batchnorm_example",
    "test_instancenorm_epsilon",
    "test_resize_upsample_sizes_nearest_ceil_half_pixel",
    "test_resize_tf_crop_and_resize_axes_3_2",
    "test_resize_downsample_scales_linear",
    "test_upsample_nearest",
    "test_gather_2d_indices",
    "test_top_k_smallest",
    "test_onehot_negative_indices",
    "test_scatternd",
    "test_gathernd_example_int32_batch_dim1",
    "test_averagepool_2d_same_upper",
    "test_depthtospace_crd_mode_example",
    "test_globalaveragepool",
    "test_lppool_2d_default",
    "test_maxpool_1d_default",
    "test_maxpool_2d_ceil",
    "test_maxpool_with_argmax_2d_precomputed_pads",
    "test_reflect_pad",
    "test_tile",
    "test_lstm_batchwise",
    "test_gru_seq_length",
    "test_simple_rnn_bidirectional",
    "test_cumprod_2d_int32",
    "test_range_int32_type_negative_delta",
    "test_mish",
    "test_rms_normalization_3d_axis1_epsilon",
    "test_sce_mean_weight_ii",
    "test_swiglu_alpha",
    "test_compress_negative_axis",
    "test_gelu_tanh_2",
    "test_center_crop_pad_crop_axes_hwc",
    "test_affine_grid_2d_align_corners",
    "test_loop11",
    "test_scan9_multi_state",
    "test_resize_downsample_scales_linear_half_pixel_symmetric",
    "test_onehot_with_axis",
    "test_convtranspose_output_shape",
    "test_hannwindow_symmetric",
    "test_range_int32_type_negative_delta_expanded",
    "test_maxunpool_export_without_output_shape",
    "test_tensorscatter_circular",
    "test_training_dropout_zero_ratio_mask",
    "test_stft_with_window",
    "test_gridsample_volumetric_bilinear_align_corners_1",
]


@functools.cache
def _by_name() -> dict[str, object]:
    return {case.name: case for case in all_cases()}


@pytest.mark.parametrize("name", CASES)
def test_lowering_rule(device, name):
    outcome = run_case(_by_name()[name], device)
    assert outcome.status == "pass", f"{name}: {outcome.status} ({outcome.reason})"


def test_a_node_without_lowering_is_refused_with_its_location(ref_device):
    from onnx import TensorProto, helper

    from dmlsim import backend

    node = helper.make_node("StringNormalizer", ["x"], ["y"], name="sn1")  # strings: never DirectML's
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(DMLError, match=r"StringNormalizer node 'sn1' \(opset 17\): no DirectML lowering for this op "
                                       "yet"):
        backend.prepare(model, ref_device)


def test_softmax_before_opset_13_normalizes_every_axis_from_axis_on(device):
    """Softmax-1/11 coerce the input to 2-D at ``axis``: one softmax over axes 1 and 2 jointly of [2, 3, 4]
    (opset 13 made it one axis). Expected: numpy's exp over the 12 elements of each batch row, in float64."""
    import numpy as np
    from onnx import TensorProto, helper

    from dmlsim import backend

    node = helper.make_node("Softmax", ["x"], ["y"], axis=1)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    x = np.linspace(-2, 3, 24, dtype=np.float32).reshape(2, 3, 4)
    (y,) = backend.prepare(model, device).run([x])
    e = np.exp(x.astype(np.float64).reshape(2, 12))
    np.testing.assert_allclose(y.reshape(2, 12), e / e.sum(axis=1, keepdims=True), rtol=1e-6, atol=1e-7)


def test_a_batch_first_lstm_over_several_timesteps(device):
    """layout=1 with seq 3 and batch 2 (onnx's own batchwise cases have one timestep, where the strides of X and Y
    cannot show): expected from onnx.reference's LSTM, within 1e-5 (float32 recurrences of 3 steps)."""
    import numpy as np
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    from dmlsim import backend

    node = helper.make_node("LSTM", ["X", "W", "R"], ["Y", "Y_h"], hidden_size=4, layout=1)
    f = TensorProto.FLOAT
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", f, [2, 3, 5]),
                                            helper.make_tensor_value_info("W", f, [1, 16, 5]),
                                            helper.make_tensor_value_info("R", f, [1, 16, 4])],
                              [helper.make_tensor_value_info("Y", f, [2, 3, 1, 4]),
                               helper.make_tensor_value_info("Y_h", f, [2, 1, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    rng = np.random.default_rng(3)
    inputs = [rng.normal(0, 0.5, s).astype(np.float32) for s in ((2, 3, 5), (1, 16, 5), (1, 16, 4))]
    expected = ReferenceEvaluator(model).run(None, dict(zip(["X", "W", "R"], inputs, strict=True)))
    got = backend.prepare(model, device).run(inputs)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=0, atol=1e-5)


def test_run_node_lowers_a_node_of_the_default_domain(device):
    """onnx's Backend.run_node: the node as a one-node model of the newest opset; expected values by hand."""
    import numpy as np
    from onnx import helper

    from dmlsim import backend

    node = helper.make_node("Softmax", ["x"], ["y"], axis=0)
    (y,) = backend.run_node(node, [np.array([0.0, np.log(3.0)], np.float32)], device)
    np.testing.assert_allclose(y, [0.25, 0.75], rtol=1e-6)


def test_a_node_without_lowering_runs_its_function_body(device):
    """NegativeLogLikelihoodLoss has no lowering: its context-dependent function body (Gather, Where, ReduceSum,
    ...) is expanded and lowered, with ``reduction`` left at its schema default "mean" and ``ignore_index`` read
    from the node. Expected: numpy by hand, -sum(w[t] * x[n, t]) / sum(w[t]) over the targets not ignored."""
    import numpy as np
    from onnx import TensorProto, helper

    from dmlsim import backend

    node = helper.make_node("NegativeLogLikelihoodLoss", ["x", "t", "w"], ["loss"], name="nll", ignore_index=2)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 3]),
                                            helper.make_tensor_value_info("t", TensorProto.INT64, [4]),
                                            helper.make_tensor_value_info("w", TensorProto.FLOAT, [3])],
                              [helper.make_tensor_value_info("loss", TensorProto.FLOAT, [])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    x = np.array([[-1.0, -2.0, -3.0], [-0.5, -4.0, -0.25], [-2.0, -1.0, -8.0], [0.0, -3.0, -1.5]], np.float32)
    t = np.array([1, 2, 0, 2], np.int64)  # the second and fourth rows are ignored
    w = np.array([0.5, 2.0, 4.0], np.float32)
    (loss,) = backend.prepare(model, device).run([x, t, w])
    expected = -(2.0 * -2.0 + 0.5 * -2.0) / (2.0 + 0.5)
    np.testing.assert_allclose(loss, expected, rtol=1e-6)


def test_a_refusal_inside_a_function_body_names_the_original_node(ref_device):
    """Bernoulli's body draws with RandomUniformLike, which nothing lowers: the refusal names the Bernoulli node
    first, then the body's node."""
    import numpy as np
    from onnx import TensorProto, helper

    from dmlsim import backend

    node = helper.make_node("Bernoulli", ["p"], ["y"], name="coin")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("p", TensorProto.FLOAT, [3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    with pytest.raises(DMLError, match=r"^E_NOTIMPL .*Bernoulli node 'coin' \(opset 22\), in its function body: "
                                       r"RandomUniformLike node 'coin/.*' \(opset 22\): no DirectML lowering"):
        backend.prepare(model, ref_device).run([np.full(3, 0.5, np.float32)])


def test_empty_tensors_are_made_on_the_host_and_empty_reductions_give_their_identity(device):
    """DirectML has no size-0 dimension: Mul of an empty [2, 0, 3] input is empty, ReduceSum and ReduceMax over
    the empty axis give 0 and -inf (keepdims), and Split's zero-size piece is empty while the rest is computed on
    the device. Expected by hand (numpy's own empty reductions agree)."""
    import numpy as np
    from onnx import TensorProto, helper

    from dmlsim import backend

    f = TensorProto.FLOAT
    nodes = [helper.make_node("Mul", ["e", "e"], ["sq"]),
             helper.make_node("ReduceSum", ["sq", "axes"], ["total"]),
             helper.make_node("ReduceMax", ["e", "axes"], ["top"]),
             helper.make_node("Split", ["x", "parts"], ["a", "b", "c"], axis=0)]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("e", f, [2, 0, 3]),
                                           helper.make_tensor_value_info("x", f, [4])],
                              [helper.make_tensor_value_info(n, f, s) for n, s in (
                                  ("sq", [2, 0, 3]), ("total", [2, 1, 3]), ("top", [2, 1, 3]), ("a", [1]),
                                  ("b", [0]), ("c", [3]))],
                              [helper.make_tensor("axes", TensorProto.INT64, [1], [1]),
                               helper.make_tensor("parts", TensorProto.INT64, [3], [1, 0, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    x = np.array([1.5, -0.0, np.inf, np.nan], np.float32)
    sq, total, top, a, b, c = backend.prepare(model, device).run([np.zeros((2, 0, 3), np.float32), x])
    assert sq.shape == (2, 0, 3) and sq.dtype == np.float32
    np.testing.assert_array_equal(total, np.zeros((2, 1, 3), np.float32))
    np.testing.assert_array_equal(top, np.full((2, 1, 3), -np.inf, np.float32))
    assert total.dtype == top.dtype == np.float32
    np.testing.assert_array_equal(a, [1.5])
    assert b.shape == (0,) and b.dtype == np.float32
    np.testing.assert_array_equal(c, [-0.0, np.inf, np.nan])
    assert np.signbit(c[0])


def test_bitcast_reads_the_same_bytes_as_another_type(device):
    """BitCast float32 → int32 of a transposed (strided) view: the packed bytes of x.T read as int32, ±0, ±inf
    and NaN included. Expected: numpy's own reinterpretation of the same bytes."""
    import numpy as np
    from onnx import TensorProto, helper

    from dmlsim import backend

    nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
             helper.make_node("BitCast", ["t"], ["y"], to=TensorProto.INT32)]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.INT32, [3, 2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 26)])
    x = np.array([[1.0, -0.0, np.inf], [-np.inf, np.nan, 0.0]], np.float32)
    (y,) = backend.prepare(model, device).run([x])
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y, np.ascontiguousarray(x.T).view(np.int32))
    assert y[1, 0] == -2**31 and y[2, 0] == 0x7F800000  # -0.0 and +inf, by hand


def test_if_with_a_host_known_condition_lowers_the_taken_branch(device):
    """If reads its condition on the host (a graph input): each branch reads the enclosing graph's x on the device
    (then: x + x, else: -x). A condition computed on the device is read back first. Expected by hand."""
    import numpy as np
    from onnx import TensorProto, helper

    from dmlsim import backend

    f = TensorProto.FLOAT
    then_branch = helper.make_graph([helper.make_node("Add", ["x", "x"], ["a"])], "then", [],
                                    [helper.make_tensor_value_info("a", f, [3])])
    else_branch = helper.make_graph([helper.make_node("Neg", ["x"], ["b"])], "else", [],
                                    [helper.make_tensor_value_info("b", f, [3])])
    node = helper.make_node("If", ["c"], ["y"], name="choose", then_branch=then_branch, else_branch=else_branch)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("c", TensorProto.BOOL, []),
                                            helper.make_tensor_value_info("x", f, [3])],
                              [helper.make_tensor_value_info("y", f, [3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    x = np.array([1.5, -0.0, np.inf], np.float32)
    rep = backend.prepare(model, device)
    np.testing.assert_array_equal(rep.run([np.array(True), x])[0], [3.0, -0.0, np.inf])
    (y,) = rep.run([np.array(False), x])
    np.testing.assert_array_equal(y, [-1.5, 0.0, -np.inf])
    assert not np.signbit(y[1])

    # a condition computed on the device is read back (onnxruntime copies it to its CPU If kernel): sum(x) > 0
    zero = helper.make_tensor("zero", f, [], [0.0])
    device_condition = [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
                        helper.make_node("Greater", ["s", "zero"], ["c"])]
    graph = helper.make_graph([*device_condition, node], "g", [helper.make_tensor_value_info("x", f, [3])],
                              [helper.make_tensor_value_info("y", f, [3])], [zero])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)])
    np.testing.assert_array_equal(backend.prepare(model, device).run([x])[0], [3.0, -0.0, np.inf])
    np.testing.assert_array_equal(backend.prepare(model, device).run([-x])[0], [1.5, -0.0, np.inf])


def test_scan_is_unrolled_in_each_direction(device):
    """Scan reading x backwards (scan_input_directions=[1]) with a running sum as its state, the per-step sums
    stacked along axis 1 (scan_output_axes=[1]). Expected: numpy's cumulative sum of the reversed rows."""
    import numpy as np
    from onnx import TensorProto, helper

    from dmlsim import backend

    f = TensorProto.FLOAT
    def info(name: str, shape: list[int]) -> object:
        return helper.make_tensor_value_info(name, f, shape)

    body = helper.make_graph([helper.make_node("Add", ["s", "x_t"], ["s_out"]),
                              helper.make_node("Identity", ["s_out"], ["y_t"])], "body",
                             [info("s", [2]), info("x_t", [2])], [info("s_out", [2]), info("y_t", [2])])
    node = helper.make_node("Scan", ["s0", "x"], ["final", "ys"], body=body, num_scan_inputs=1,
                            scan_input_directions=[1], scan_output_axes=[1])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("s0", f, [2]),
                                            helper.make_tensor_value_info("x", f, [3, 2])],
                              [helper.make_tensor_value_info("final", f, [2]),
                               helper.make_tensor_value_info("ys", f, [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    s0 = np.array([0.5, -0.0], np.float32)
    x = np.array([[1.0, 2.0], [10.0, np.inf], [100.0, -0.0]], np.float32)
    final, ys = backend.prepare(model, device).run([s0, x])
    expected = s0 + np.cumsum(x[::-1].astype(np.float64), axis=0)  # rows: after x[2], x[2]+x[1], all three
    np.testing.assert_array_equal(ys, expected.T.astype(np.float32))
    np.testing.assert_array_equal(final, [111.5, np.inf])
    assert np.signbit(ys[1, 0])  # -0.0 + -0.0 stays -0.0


EINSUMS = [("bij, bjk -> bik", [(2, 2, 3), (2, 3, 4)]), ("...ii ->...i", [(3, 4, 4)]), ("ij->ji", [(3, 4)]),
           ("i,i", [(5,), (5,)]), ("ij->i", [(3, 4)]), ("ij,jk", [(2, 3), (3, 2)]), ("->", [()]),
           ("bi,j->bij", [(2, 3), (4,)])]


@pytest.mark.parametrize("equation, shapes", EINSUMS)
def test_einsum_multiplies_over_the_letter_space_and_reduces(device, equation, shapes):
    """FLOAT32 Einsum (onnx's own cases are FLOAT64, which onnxruntime's DirectML provider does not register):
    batch matmul, batch diagonal, transpose, inner product, sum, implicit output, a scalar, an outer product.
    Expected: numpy's einsum in float64; FLOAT64 operands are refused naming the provider's registration."""
    import numpy as np
    from onnx import TensorProto, helper

    from dmlsim import backend

    names = [f"x{i}" for i in range(len(shapes))]
    rng = np.random.default_rng(5)
    arrays = [rng.uniform(-2, 2, s).astype(np.float32) for s in shapes]
    expected = (arrays[0].astype(np.float64) if equation == "->"  # numpy's einsum reads "->" as no operand
                else np.einsum(equation.replace(" ", ""), *[a.astype(np.float64) for a in arrays]))
    node = helper.make_node("Einsum", names, ["y"], equation=equation)

    def model(elem: int) -> object:
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, elem, s)
                                                for n, s in zip(names, shapes, strict=True)],
                                  [helper.make_tensor_value_info("y", elem, list(expected.shape))])
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)])

    (y,) = backend.prepare(model(TensorProto.FLOAT), device).run(arrays)
    assert y.shape == expected.shape and y.dtype == np.float32
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)
    with pytest.raises(DMLError, match="registers Einsum for FLOAT32 and FLOAT16 only"):
        backend.prepare(model(TensorProto.DOUBLE), device).run([a.astype(np.float64) for a in arrays])


def test_nonzero_reads_its_count_back_and_transposes_the_coordinates(device):
    """NonZero of a [2, 3] float tensor with ±0 (zero) and NaN (not zero), and of an all-zero one (an empty
    [2, 0] output). Expected: numpy's nonzero, which counts NaN as non-zero as ONNX does."""
    import numpy as np
    from onnx import TensorProto, helper

    from dmlsim import backend

    node = helper.make_node("NonZero", ["x"], ["y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.INT64, [2, None])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    x = np.array([[0.0, -0.0, np.nan], [2.5, 0.0, -np.inf]], np.float32)
    rep = backend.prepare(model, device)
    (y,) = rep.run([x])
    assert y.dtype == np.int64
    np.testing.assert_array_equal(y, np.array(np.nonzero(x)))
    np.testing.assert_array_equal(y, [[0, 1, 1], [2, 0, 2]])
    (empty,) = rep.run([np.zeros((2, 3), np.float32)])
    assert empty.shape == (2, 0) and empty.dtype == np.int64


def test_matmul_integer_with_per_row_and_per_column_zero_points(device):
    """MatMulInteger of uint8 A [2, 3, 4] (a batch) by int8 B [4, 2] (broadcast), A's zero point per row and B's
    per column. Expected: numpy's int32 product of the shifted operands."""
    import numpy as np
    from onnx import TensorProto, helper

    from dmlsim import backend

    node = helper.make_node("MatMulInteger", ["a", "b", "az", "bz"], ["y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("a", TensorProto.UINT8, [2, 3, 4]),
                                            helper.make_tensor_value_info("b", TensorProto.INT8, [4, 2]),
                                            helper.make_tensor_value_info("az", TensorProto.UINT8, [3]),
                                            helper.make_tensor_value_info("bz", TensorProto.INT8, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.INT32, [2, 3, 2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 10)])
    a = np.arange(24, dtype=np.uint8).reshape(2, 3, 4) * 10 + 5
    b = np.array([[-128, 127], [0, -1], [5, 7], [-3, 100]], np.int8)
    az, bz = np.array([0, 255, 7], np.uint8), np.array([-128, 3], np.int8)
    (y,) = backend.prepare(model, device).run([a, b, az, bz])
    expected = (a.astype(np.int64) - az.reshape(3, 1)) @ (b.astype(np.int64) - bz.reshape(1, 2))
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y, expected)


@pytest.mark.parametrize("direction, expected", [("RIGHT", [-4, 16383, -1, 0, -1, 0, -1]),
                                                 ("LEFT", [-16, -2, -8, 0, 0, 0, -32768])])
def test_signed_bit_shift_is_composed_over_the_unsigned_bytes(device, direction, expected):
    """BitShift of int16 (DirectML shifts unsigned types only): right is arithmetic, a shift of 16 or more or a
    negative one gives 0 (-1 for a negative value shifted right), left wraps. Expected by hand from ONNX's rules."""
    import numpy as np
    from onnx import TensorProto, helper

    from dmlsim import backend

    node = helper.make_node("BitShift", ["x", "s"], ["y"], direction=direction)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.INT16, [7]),
                                            helper.make_tensor_value_info("s", TensorProto.INT16, [7])],
                              [helper.make_tensor_value_info("y", TensorProto.INT16, [7])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 26)])
    x = np.array([-8, 32767, -1, 5, -300, 1, -1], np.int16)
    s = np.array([1, 1, 3, 16, 100, -1, 15], np.int16)
    (y,) = backend.prepare(model, device).run([x, s])
    assert y.dtype == np.int16
    np.testing.assert_array_equal(y, expected)


def test_shape_arithmetic_on_graph_inputs_stays_on_the_host(device, monkeypatch):
    """onnxruntime places integer arithmetic on Shape outputs and graph inputs on its CPU provider
    (GetCpuPreferredNodes): Max(Shape(x), shape) - Shape(x) becomes Pad's pads on the host, with nothing read back
    from the device (a read-back here fails the test). Expected by hand: x padded at the end to [3, 4]."""
    import numpy as np
    from onnx import TensorProto, helper

    from dmlsim import backend
    from dmlsim.onnx import run_model

    def no_read_back(*args: object) -> None:
        raise AssertionError("a value was read back from the device")

    monkeypatch.setattr(run_model, "_read_back", no_read_back)
    i64 = TensorProto.INT64
    nodes = [helper.make_node("Shape", ["x"], ["sx"]), helper.make_node("Max", ["sx", "shape"], ["big"]),
             helper.make_node("Sub", ["big", "sx"], ["extra"]),
             helper.make_node("Concat", ["zeros", "extra"], ["pads"], axis=0),
             helper.make_node("Pad", ["x", "pads"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
                                           helper.make_tensor_value_info("shape", i64, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])],
                              [helper.make_tensor("zeros", i64, [2], [0, 0])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    x = np.array([[1.0, -0.0, np.inf], [np.nan, 2.0, -3.0]], np.float32)
    (y,) = backend.prepare(model, device).run([x, np.array([3, 4], np.int64)])
    np.testing.assert_array_equal(y, [[1.0, -0.0, np.inf, 0.0], [np.nan, 2.0, -3.0, 0.0], [0.0, 0.0, 0.0, 0.0]])


@pytest.mark.parametrize("periodic, expected", [(None, [0.0, 0.5, 1.0, 0.5]), (0, [0.0, 0.75, 0.75, 0.0])])
def test_function_bodies_take_attribute_references_from_the_node_or_the_schema(device, periodic, expected):
    """HannWindow's body reads ``@periodic`` (schema default 1) and ``@output_datatype`` (given: DOUBLE) through
    attribute references; its size is a graph input (its Range limit is read back). Expected by hand:
    0.5 - 0.5 cos(2 pi n / N), N = 4 periodic, 3 symmetric."""
    import numpy as np
    from onnx import TensorProto, helper

    from dmlsim import backend

    extra = {} if periodic is None else {"periodic": periodic}
    node = helper.make_node("HannWindow", ["n"], ["w"], output_datatype=TensorProto.FLOAT16, **extra)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("n", TensorProto.INT64, [])],
                              [helper.make_tensor_value_info("w", TensorProto.FLOAT16, [4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    (w,) = backend.prepare(model, device).run([np.array(4, np.int64)])
    assert w.dtype == np.float16
    np.testing.assert_allclose(w.astype(np.float64), expected, atol=1e-3)


@pytest.mark.parametrize("mode, padding, align", [("linear", "zeros", 0), ("nearest", "border", 1),
                                                  ("linear", "reflection", 0)])
def test_grid_sample_is_composed_of_element_wise_operators_and_gathers(device, mode, padding, align):
    """GridSample over a [1, 2, 3, 4] input with grid points inside, on the edges, outside (±1.7, reflected twice)
    and at a nearest-rounding tie. Expected: onnx.reference's GridSample."""
    import numpy as np
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    from dmlsim import backend

    node = helper.make_node("GridSample", ["x", "g"], ["y"], mode=mode, padding_mode=padding, align_corners=align)
    f = TensorProto.FLOAT
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", f, [1, 2, 3, 4]),
                                            helper.make_tensor_value_info("g", f, [1, 2, 3, 2])],
                              [helper.make_tensor_value_info("y", f, [1, 2, 2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4) * 0.5 - 3.0
    g = np.array([[[[0.1, -0.2], [-1.0, 1.0], [1.7, -1.7]], [[-3.1, 0.4], [0.25, 0.0], [0.6, 2.9]]]], np.float32)
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x, "g": g})
    (y,) = backend.prepare(model, device).run([x, g])
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("inverse, onesided, components", [(0, 0, 1), (1, 0, 2), (0, 1, 1), (1, 1, 2)])
def test_dft_is_one_gemm_by_a_dft_matrix(device, inverse, onesided, components):
    """DFT along axis 2 of a [2, 3, 8, components] signal (opset 20, axis as an input): forward, inverse, rfft and
    irfft. Expected: numpy's FFT in float64 (fft, ifft, rfft, irfft), within float32 accumulation."""
    import numpy as np
    from onnx import TensorProto, helper

    from dmlsim import backend

    rng = np.random.default_rng(7)
    n_in = 5 if inverse and onesided else 8
    x = rng.uniform(-1, 1, (2, 3, n_in, components)).astype(np.float32)
    signal = x[..., 0].astype(np.float64) + (1j * x[..., 1] if components == 2 else 0)
    if inverse and onesided:
        expected = np.fft.irfft(signal, n=8, axis=2)[..., None]
    else:
        spectrum = (np.fft.ifft if inverse else np.fft.rfft if onesided else np.fft.fft)(signal, axis=2)
        expected = np.stack([spectrum.real, spectrum.imag], axis=-1)
    node = helper.make_node("DFT", ["x", "", "axis"], ["y"], inverse=inverse, onesided=onesided)
    f = TensorProto.FLOAT
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", f, list(x.shape))],
                              [helper.make_tensor_value_info("y", f, list(expected.shape))],
                              [helper.make_tensor("axis", TensorProto.INT64, [], [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    (y,) = backend.prepare(model, device).run([x])
    assert y.shape == expected.shape
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("extra", [{"mode": "cubic", "cubic_coeff_a": -0.5, "exclude_outside": 1},
                                   {"mode": "linear", "antialias": 1}])
def test_cubic_and_antialiased_resize_are_separable_matrix_products(device, extra):
    """Resize [1, 2, 3, 5] to [1, 2, 5, 3] (up one axis, down the other) with cubic interpolation (A = -0.5,
    exclude_outside) and with an antialiased linear filter. Expected: onnx.reference's Resize."""
    import numpy as np
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    from dmlsim import backend

    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], **extra)
    f = TensorProto.FLOAT
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", f, [1, 2, 3, 5])],
                              [helper.make_tensor_value_info("y", f, [1, 2, 5, 3])],
                              [helper.make_tensor("sizes", TensorProto.INT64, [4], [1, 2, 5, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    x = (np.arange(30, dtype=np.float32).reshape(1, 2, 3, 5) - 10.0) ** 2 / 7.0
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    (y,) = backend.prepare(model, device).run([x])
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-4)
