"""DML_OPERATOR_SLICE_GRAD, on every adapter.

Expected values: the doc page's example transcribed (a..p as 1..16), hand-derived literals for negative strides,
and a loop written here from SLICE1's pseudocode (the slice reads ``start + stride * c``; the gradient scatters
back there, zeros elsewhere), independent of dmlsim's reference. Elements move bit for bit: comparisons are
exact, of the bits where NaN or -0.0 appear.
"""

from __future__ import annotations

import numpy as np
import pytest
from datamove_support import (
    F16,
    F32,
    F64,
    I8,
    I32,
    I64,
    NUMPY,
    U16,
    U64,
    operator,
    refused,
    run,
    skip_without_fp64,
    tensor,
    type_id,
)
from dispatch import Dispatch

OUT = "OutputGradientTensor"


def bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}")


def grad(dy_desc, dx_desc, offsets, sizes, strides):
    return operator("SLICE_GRAD", InputGradientTensor=dy_desc, OutputGradientTensor=dx_desc,
                    DimensionCount=len(offsets), InputWindowOffsets=list(offsets), InputWindowSizes=list(sizes),
                    InputWindowStrides=list(strides))


def expected_of(dy, out_sizes, offsets, sizes, strides):
    """SLICE1's reads, reversed: output[start + stride * c] = dy[c]; zeros elsewhere."""
    out = np.zeros(out_sizes, dy.dtype)
    starts = [o + n - 1 if s < 0 else o for o, n, s in zip(offsets, sizes, strides, strict=True)]
    for c in np.ndindex(*dy.shape):
        out[tuple(b + s * i for b, s, i in zip(starts, strides, c, strict=True))] = dy[c]
    return out


def test_doc_example(device):
    """The page's example: a 2x2 gradient [[a, c], [i, k]] back into a 4x4 at every second row and column."""
    dy = np.array([[1, 3], [9, 11]], np.float32)
    got = run(device, grad(tensor(F32, [2, 2]), tensor(F32, [4, 4]), [0, 0], [4, 4], [2, 2]), InputGradientTensor=dy)
    assert got[OUT].tolist() == [[1, 0, 3, 0], [0, 0, 0, 0], [9, 0, 11, 0], [0, 0, 0, 0]]


def test_negative_strides_flip_the_window(device):
    """Strides -2 and -3 over the whole 4x4: rows start at 3 (3, 1), columns at 3 (3, 0)."""
    dy = np.array([[1, 3], [9, 11]], np.int32)
    got = run(device, grad(tensor(I32, [2, 2]), tensor(I32, [4, 4]), [0, 0], [4, 4], [-2, -3]), InputGradientTensor=dy)
    assert got[OUT].tolist() == [[0, 0, 0, 0], [11, 0, 0, 9], [0, 0, 0, 0], [3, 0, 0, 1]]


def test_window_offset_and_fewer_than_reachable(device):
    """A window [2, 7) with stride 2 reaches 2, 4, 6; a gradient of 2 elements fills 2 and 4 only. The gradient
    and the output lie at non-zero offsets of one guard-filled buffer, so a kernel that reads a third gradient
    element for 6 reads the guard (1.0) and writes it, and a write outside the output's 8 elements shows."""
    guard = np.float32(1.0).tobytes()
    dy_at, dx_at, total = 16, 48, 96
    shared = device.CreateBuffer(total)
    shared.Write(guard * (total // 4))
    dispatch = Dispatch(device, grad(tensor(F32, [2]), tensor(F32, [8]), [2], [5], [2]),
                        placement={"InputGradientTensor": (shared, dy_at), OUT: (shared, dx_at)})
    dispatch.load({"InputGradientTensor": np.array([5.0, 6.0], np.float32)})
    dispatch.execute()
    assert dispatch.read(OUT).tolist() == [0, 0, 5, 0, 6, 0, 0, 0]
    raw = shared.Read(0, total)
    assert raw[:dy_at] + raw[dy_at + 8:dx_at] + raw[dx_at + 32:] == guard * ((total - 40) // 4)


@pytest.mark.parametrize("data_type", (F64, F32, F16, I64, I8, U16, U64), ids=type_id)
def test_data_types_strides_and_specials(device, data_type):
    """Every width, 3-D with a negative stride, a permuted gradient and a padded output; NaN payloads, -0.0 and
    infinities move unchanged; the untouched elements are +0."""
    skip_without_fp64(device, data_type)
    dtype = np.dtype(NUMPY[data_type])
    pattern = (np.arange(12, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)).astype(f"u{dtype.itemsize}")
    dy = pattern.view(dtype).reshape(2, 3, 2)
    if dtype.kind == "f":
        dy.reshape(-1)[:4] = [np.nan, -0.0, np.inf, -np.inf]
    offsets, sizes, strides = [1, 0, 1], [2, 5, 4], [1, 2, -3]
    op = grad(tensor(data_type, [2, 3, 2], [1, 4, 2]), tensor(data_type, [3, 5, 6], [64, 8, 1]), offsets, sizes,
              strides)
    got = run(device, op, InputGradientTensor=dy)[OUT]
    assert bits(got).tolist() == bits(expected_of(dy, (3, 5, 6), offsets, sizes, strides)).tolist()


def test_eight_dimensions_and_broadcast_gradient(device):
    """8-D, the gradient a stride-0 broadcast of one value along its first dimension."""
    dy = np.broadcast_to(np.array([7, 8], np.uint16).reshape(1, 1, 1, 1, 1, 1, 1, 2), (2, 1, 1, 1, 1, 1, 1, 2))
    offsets, sizes, strides = [0, 0, 0, 0, 0, 0, 1, 0], [3, 1, 1, 1, 1, 1, 1, 3], [2, 1, 1, 1, 1, 1, 1, -2]
    op = grad(tensor(U16, [2, 1, 1, 1, 1, 1, 1, 2], [0, 2, 2, 2, 2, 2, 2, 1]), tensor(U16, [3, 1, 1, 1, 1, 1, 2, 3]),
              offsets, sizes, strides)
    got = run(device, op, InputGradientTensor=dy)[OUT]
    assert got.tolist() == expected_of(np.ascontiguousarray(dy), (3, 1, 1, 1, 1, 1, 2, 3), offsets, sizes,
                                       strides).tolist()


def test_refusals_name_the_field(ref_device):
    name = "DML_SLICE_GRAD_OPERATOR_DESC"
    dy, dx = tensor(F32, [2, 2]), tensor(F32, [4, 4])
    assert (f"{name}.InputWindowStrides[1] must not be 0"
            in refused(ref_device, grad(dy, dx, [0, 0], [4, 4], [2, 0])))
    assert (f"{name}: InputWindowOffsets[0] 1 + InputWindowSizes[0] 4 must not exceed OutputGradientTensor.Sizes[0] 4"
            in refused(ref_device, grad(dy, dx, [1, 0], [4, 4], [2, 2])))
    assert (f"{name}.InputGradientTensor.Sizes[1] 2 must be at most 1"
            in refused(ref_device, grad(dy, dx, [0, 0], [4, 4], [2, 4])))
    assert (f"{name}.InputWindowSizes[0] must be at least 1"
            in refused(ref_device, grad(dy, dx, [0, 0], [0, 4], [2, 2])))
    assert f"{name}.OutputGradientTensor.DataType" in refused(ref_device, grad(dy, tensor(I32, [4, 4]), [0, 0],
                                                                                [4, 4], [2, 2]))
    assert f"{name}.OutputGradientTensor.DimensionCount" in refused(ref_device, grad(dy, tensor(F32, [1, 4, 4]),
                                                                                      [0, 0], [4, 4], [2, 2]))
    three = operator("SLICE_GRAD", InputGradientTensor=dy, OutputGradientTensor=dx, DimensionCount=3,
                     InputWindowOffsets=[0, 0, 0], InputWindowSizes=[4, 4, 1], InputWindowStrides=[2, 2, 1])
    assert f"{name}.DimensionCount 3 must equal OutputGradientTensor.DimensionCount 2" in refused(ref_device, three)
