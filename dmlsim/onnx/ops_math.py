"""MatMul, Gemm, the softmax family and reductions onto GEMM, ACTIVATION_*1 and REDUCE / ARGMAX / ARGMIN.

MatMul broadcasts its batch dimensions with stride 0 and reads 1-D operands as a row or a column, as the
provider does; GEMM takes 2 to 4 dimensions, so at most two batch dimensions (more: refused, naming the node).
Softmax of opset < 13 normalizes over every axis from ``axis`` on (the old coerced-2D definition), from 13 on
over ``axis`` alone. Reductions keep the reduced axes as 1s in DirectML; keepdims=0 is a view without them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.api.tensor import packed_strides
from dmlsim.onnx.lowering import Lowering, View, broadcast_shape, broadcast_view, lowers
from dmlsim.onnx.ops_tensor import rename

FLOATS = (np.dtype(np.float32), np.dtype(np.float16))


def _gemm(low: Lowering, a: View, b: View, c: View | None, out: str, shape: tuple[int, ...], *,
          trans_a: bool = False, trans_b: bool = False, alpha: float = 1.0, beta: float = 0.0) -> None:
    if a.dtype not in FLOATS:
        raise low.refuse(f"{a.dtype} operands: DirectML's GEMM takes FLOAT32 and FLOAT16 (integer products are "
                         "MATRIX_MULTIPLY_INTEGER, for 8-bit operands)")
    fields = {"ATensor": a, "BTensor": b}
    if c is not None:
        fields["CTensor"] = c
    low.emit(dml.DML_OPERATOR_GEMM, dml.DML_GEMM_OPERATOR_DESC, fields,
             {"OutputTensor": low.output(out, shape, a.dtype)},
             TransA=dml.DML_MATRIX_TRANSFORM_TRANSPOSE if trans_a else dml.DML_MATRIX_TRANSFORM_NONE,
             TransB=dml.DML_MATRIX_TRANSFORM_TRANSPOSE if trans_b else dml.DML_MATRIX_TRANSFORM_NONE,
             Alpha=float(alpha), Beta=float(beta))


@lowers("MatMul")
def lower_matmul(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    a, b = low.view(node.input[0]), low.view(node.input[1])
    a_shape, b_shape = list(a.shape), list(b.shape)
    drop_m, drop_n = len(a_shape) == 1, len(b_shape) == 1
    a = View(a.name, (1, *a.shape), (0, *a.strides), a.dtype, a.offset) if drop_m else a
    b = View(b.name, (*b.shape, 1), (*b.strides, 0), b.dtype, b.offset) if drop_n else b
    m, k = a.shape[-2:]
    if b.shape[-2] != k:
        raise low.refuse(f"inner dimensions differ: {a_shape} · {b_shape}", 0x80070057)
    n = b.shape[-1]
    batch = broadcast_shape(low, [a.shape[:-2], b.shape[:-2]])
    if len(batch) > 2:
        raise low.refuse(f"{len(batch)} batch dimensions: DirectML's GEMM takes at most 2 (4-D tensors)")
    lead = (1,) * (2 - len(batch)) + tuple(batch)
    a4 = broadcast_view(low, a, (*lead, m, k))
    b4 = broadcast_view(low, b, (*lead, k, n))
    temp = low.fresh(node.output[0])
    c = None  # a bias added by dmlsim.onnx.fusion (onnxruntime's MatMulAddFusion): GEMM's C, Beta 1
    if attrs.get("dmlsim_bias") and len(node.input) > 2 and node.input[2]:
        c = broadcast_view(low, low.view(node.input[2]), (*lead, m, n))
    _gemm(low, a4, b4, c, temp, (*lead, m, n), alpha=float(attrs.get("dmlsim_alpha", 1.0)),
          beta=1.0 if c is not None else 0.0)
    shape = (*batch, *(() if drop_m else (m,)), *(() if drop_n else (n,)))
    rename(low, low.views[temp], node.output[0], tuple(shape))


@lowers("Gemm")
def lower_gemm(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    a, b = low.view(node.input[0]), low.view(node.input[1])
    trans_a, trans_b = bool(attrs.get("transA", 0)), bool(attrs.get("transB", 0))
    m = a.shape[1] if trans_a else a.shape[0]
    n = b.shape[0] if trans_b else b.shape[1]
    c = None
    if len(node.input) > 2 and node.input[2]:
        c = broadcast_view(low, low.view(node.input[2]), (m, n))
    _gemm(low, a, b, c, node.output[0], (m, n), trans_a=trans_a, trans_b=trans_b,
          alpha=attrs.get("alpha", 1.0), beta=attrs.get("beta", 1.0) if c is not None else 0.0)


SOFTMAX = {"Softmax": "ACTIVATION_SOFTMAX1", "LogSoftmax": "ACTIVATION_LOG_SOFTMAX1",
           "Hardmax": "ACTIVATION_HARDMAX1"}


@lowers(*SOFTMAX)
def lower_softmax(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x = low.view(node.input[0])
    rank = max(len(x.shape), 1)
    axes = [attrs.get("axis", -1) % rank] if low.opset >= 13 else list(range(attrs.get("axis", 1) % rank, rank))
    name = SOFTMAX[node.op_type]
    low.emit(getattr(dml, f"DML_OPERATOR_{name}"), getattr(dml, f"DML_{name}_OPERATOR_DESC"), {"InputTensor": x},
             {"OutputTensor": low.output(node.output[0], x.shape or (1,), x.dtype)}, AxisCount=len(axes), Axes=axes)


REDUCTIONS = {"ReduceSum": "SUM", "ReduceMean": "AVERAGE", "ReduceMax": "MAX", "ReduceMin": "MIN",
              "ReduceProd": "MULTIPLY", "ReduceL1": "L1", "ReduceL2": "L2", "ReduceLogSum": "LOG_SUM",
              "ReduceLogSumExp": "LOG_SUM_EXP", "ReduceSumSquare": "SUM_SQUARE"}


def _reduce_axes(low: Lowering, node: Any, attrs: dict[str, Any], rank: int) -> list[int] | None:
    """The reduced axes; None when there are none and noop_with_empty_axes says to copy the input."""
    given = None
    if len(node.input) > 1 and node.input[1]:
        given = low.host_value(node.input[1], "axes").reshape(-1)
    elif "axes" in attrs:
        given = np.asarray(attrs["axes"])
    if given is None or given.size == 0:
        return None if attrs.get("noop_with_empty_axes", 0) else list(range(rank))
    return sorted({int(a) % rank for a in given})


def _keep_or_drop(low: Lowering, temp: str, out: str, axes: list[int], keepdims: bool) -> None:
    kept = low.views[temp]
    if keepdims:
        low.views[out] = kept
        return
    shape = tuple(n for axis, n in enumerate(kept.shape) if axis not in axes)
    low.views[out] = View(kept.name, shape, packed_strides(shape), kept.dtype)


@lowers(*REDUCTIONS)
def lower_reduce(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x = low.view(node.input[0])
    rank = max(len(x.shape), 1)
    axes = _reduce_axes(low, node, attrs, rank)
    if axes is None:
        from dmlsim.onnx.ops_elementwise import unary

        unary(low, "ELEMENT_WISE_IDENTITY", x, node.output[0])
        return
    kept = tuple(1 if axis in axes else n for axis, n in enumerate(x.shape or (1,)))
    temp = low.fresh(node.output[0])
    low.emit(dml.DML_OPERATOR_REDUCE, dml.DML_REDUCE_OPERATOR_DESC, {"InputTensor": x},
             {"OutputTensor": low.output(temp, kept, x.dtype)},
             Function=getattr(dml, f"DML_REDUCE_FUNCTION_{REDUCTIONS[node.op_type]}"), AxisCount=len(axes), Axes=axes)
    _keep_or_drop(low, temp, node.output[0], axes, bool(attrs.get("keepdims", 1)))


@lowers("ArgMax", "ArgMin")
def lower_arg(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    x = low.view(node.input[0])
    rank = max(len(x.shape), 1)
    axis = attrs.get("axis", 0) % rank
    kept = tuple(1 if a == axis else n for a, n in enumerate(x.shape or (1,)))
    temp = low.fresh(node.output[0])
    name = "ARGMAX" if node.op_type == "ArgMax" else "ARGMIN"
    direction = dml.DML_AXIS_DIRECTION_DECREASING if attrs.get("select_last_index", 0) else \
        dml.DML_AXIS_DIRECTION_INCREASING
    low.emit(getattr(dml, f"DML_OPERATOR_{name}"), getattr(dml, f"DML_{name}_OPERATOR_DESC"), {"InputTensor": x},
             {"OutputTensor": low.output(temp, kept, np.dtype(np.int64))}, AxisCount=1, Axes=[axis],
             AxisDirection=direction)
    _keep_or_drop(low, temp, node.output[0], [axis], bool(attrs.get("keepdims", 1)))
