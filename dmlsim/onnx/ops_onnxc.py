"""QuantizeLinear to 16-bit integers and MelWeightMatrix, composed of DirectML element-wise operators.

- **QuantizeLinear to INT16/UINT16** (opset 21: the zero point's type, or ``output_dtype``): DirectML's
  ELEMENT_WISE_QUANTIZE_LINEAR and QUANTIZE write INT8/UINT8 only (onnxruntime's DirectML provider registers
  QuantizeLinear for UINT8/INT8 outputs only and leaves 16-bit ones to its CPU provider), so the formula
  ``saturate(round(x / y_scale) + y_zero_point)`` is composed of DirectML operators: CAST of a FLOAT16 x and scale
  to FLOAT32 (exact), ELEMENT_WISE_DIVIDE by the scale, ELEMENT_WISE_ROUND (halves to nearest even, ONNX's
  rounding), ELEMENT_WISE_ADD of the zero point (CAST to FLOAT32: exact for 16-bit integers), ELEMENT_WISE_CLIP to
  the type's range (saturation made explicit, so the result does not rest on how CAST converts a float outside the
  integer's range; dmlsim's CAST saturates too), CAST to the 16-bit type. FLOAT32 arithmetic, as DirectML's
  QUANTIZE_LINEAR computes: every sum is exact below 2^24, far past the 16-bit range. The scale and zero point are
  read through strides, never copied: a scalar (or one-element) one by stride 0, a 1-D per-axis one along ``axis``,
  a blocked one (``block_size``, the input's rank) by viewing the input's ``axis`` as ``{I / block_size,
  block_size}`` and the scale's block axis with stride 0 over the block (a partial last block is refused, as
  ops_quant refuses it). 8-bit outputs keep their DirectML operators (ops_quant / ops_nn).
- **MelWeightMatrix** (opset 17): the output's shape ``{dft_length / 2 + 1, num_mel_bins}`` depends on two of
  its inputs, which are read on the host (as shapes are: a graph input read there, a device value read back);
  ``sample_rate``, ``lower_edge_hertz`` and ``upper_edge_hertz`` are device values (when all five are constants
  the node is folded on the host like any constant subgraph). The band edges of onnx's formula, mel points spaced
  evenly in ``ln(1 + f / 700)`` (the mel scale's ``2595 · log10`` is that up to a constant factor, which the
  interpolation and its inverse cancel), are computed for the ``{3, num_mel_bins}`` grid of left / center /
  right points ``i + r`` (a host constant of indices): ELEMENT_WISE_LOG with ScaleBias ``(1/700, 1)``,
  ELEMENT_WISE_SUBTRACT, MULTIPLY and ADD, ELEMENT_WISE_EXP, ELEMENT_WISE_IDENTITY with ScaleBias
  ``700 (dft_length + 1) · (e − 1)``, ELEMENT_WISE_DIVIDE by the sample rate (CAST to FLOAT32) and
  ELEMENT_WISE_FLOOR, then SPLIT into the three rows l, c, h. The triangle of column i at row j is
  ``max(min((j − l) / max(c − l, 1), (h − j) / max(h − c, 1)), 0)``, and 1 where ``j = c`` (onnx writes the
  center 1 also for an empty left side; the ``max(·, 1)`` keeps an empty side's division finite, though the
  select at ``j = c`` would hide its infinities too): SUBTRACT, CLIP (the ``max(·, 1)``), DIVIDE, MIN, CLIP at 0,
  LOGICAL_EQUALS and ELEMENT_WISE_IF over the ``{bins, num_mel_bins}`` grid read by stride-0 broadcasts, then a
  CAST to ``output_datatype`` (FLOAT32 by default). FLOAT32 arithmetic: a band edge lying within float32 rounding
  of an integer (onnx floors a float64 value) may fall on the other side.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.api.tensor import packed_strides
from dmlsim.onnx import ops_quant  # noqa: F401  (its QuantizeLinear lowering is registered first: wrapped below)
from dmlsim.onnx.lowering import LOWERINGS, Lowering, View, broadcast_view, lowers
from dmlsim.onnx.ops_elementwise import binary, unary

SIXTEEN_BITS = {np.dtype(np.int16): (-32768.0, 32767.0), np.dtype(np.uint16): (0.0, 65535.0)}
F32 = np.dtype(np.float32)
_eight_bit_quantize = LOWERINGS["QuantizeLinear"]


def _float32(low: Lowering, view: View) -> View:
    """``view`` as FLOAT32 (a CAST unless it is already)."""
    if view.dtype == F32:
        return view
    out = low.fresh("float32")
    unary(low, "CAST", view, out, F32)
    return low.views[out]


def _quantization_output_type(low: Lowering, node: Any, attrs: dict[str, Any]) -> np.dtype:
    if len(node.input) > 2 and node.input[2]:
        return np.dtype(low.value_dtype(node.input[2]))
    if attrs.get("output_dtype"):
        from onnx import helper

        return np.dtype(helper.tensor_dtype_to_np_dtype(attrs["output_dtype"]))
    return np.dtype(np.uint8)


def _parameter(low: Lowering, view: View, x: View, axis: int, block: int, work: tuple[int, ...]) -> View:
    """A scale or zero point read over the work shape: a scalar / one element by stride 0, a 1-D one along
    ``axis``, a blocked one (rank of x) with its block axis spread over the block by stride 0."""
    if block:
        if len(view.shape) != len(x.shape):
            raise low.refuse(f"a blocked scale or zero point of rank {len(view.shape)} for an input of rank "
                             f"{len(x.shape)}", 0x80070057)
        if view.shape[axis] != x.shape[axis] // block:
            raise low.refuse(f"a blocked scale or zero point of {view.shape[axis]} along axis {axis} for "
                             f"{x.shape[axis]} elements in blocks of {block}", 0x80070057)
        strides = (*view.strides[:axis], view.strides[axis], 0, *view.strides[axis + 1:])
        return View(view.name, work, strides, view.dtype, view.offset)
    if int(np.prod(view.shape)) == 1:
        return broadcast_view(low, View(view.name, (1,), (1,), view.dtype, view.offset), work)
    if len(view.shape) == 1 and view.shape[0] == x.shape[axis]:
        strides = [0] * len(work)
        strides[axis] = view.strides[0]
        return View(view.name, work, tuple(strides), view.dtype, view.offset)
    raise low.refuse(f"a scale or zero point of shape {list(view.shape)} for an input of shape {list(x.shape)} "
                     f"along axis {axis}", 0x80070057)


@lowers("QuantizeLinear")
def lower_quantize_16(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """INT16/UINT16 outputs composed of element-wise operators (module docstring); 8-bit ones as before."""
    out_type = _quantization_output_type(low, node, attrs)
    if out_type not in SIXTEEN_BITS:
        _eight_bit_quantize(low, node, attrs)
        return
    x = low.view(node.input[0])
    rank = max(len(x.shape), 1)
    if not x.shape:
        x = View(x.name, (1,), (1,), x.dtype, x.offset)
    axis = int(attrs.get("axis", 1))
    axis = axis + rank if axis < 0 else axis
    block = int(attrs.get("block_size", 0))
    if (block or int(np.prod(low.value_shape(node.input[1]))) > 1) and not 0 <= axis < rank:
        raise low.refuse(f"axis {attrs.get('axis', 1)} is outside the input's {rank} dimensions", 0x80070057)
    work = x.shape
    if block:
        if x.shape[axis] % block:
            raise low.refuse(f"block_size {block} does not divide the input's size {x.shape[axis]} along axis "
                             f"{axis}: a partial last block is not lowered")
        work = (*x.shape[:axis], x.shape[axis] // block, block, *x.shape[axis + 1:])
        x = View(x.name, work, (*x.strides[:axis], x.strides[axis] * block, x.strides[axis], *x.strides[axis + 1:]),
                 x.dtype, x.offset)
    scale = _parameter(low, low.view(node.input[1]), low.view(node.input[0]) if block else x, axis, block, work)
    divided, rounded = low.fresh("divided"), low.fresh("rounded")
    binary(low, "ELEMENT_WISE_DIVIDE", _float32(low, x), _float32(low, scale), divided)
    unary(low, "ELEMENT_WISE_ROUND", low.views[divided], rounded,
          RoundingMode=dml.DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN)
    value = low.views[rounded]
    if len(node.input) > 2 and node.input[2]:
        zero = _parameter(low, low.view(node.input[2]), low.view(node.input[0]) if block else x, axis, block, work)
        shifted = low.fresh("shifted")
        binary(low, "ELEMENT_WISE_ADD", value, _float32(low, zero), shifted)
        value = low.views[shifted]
    lowest, highest = SIXTEEN_BITS[out_type]
    saturated = low.fresh("saturated")
    unary(low, "ELEMENT_WISE_CLIP", value, saturated, Min=lowest, Max=highest)
    made = low.fresh(node.output[0])
    unary(low, "CAST", low.views[saturated], made, out_type)
    shape = tuple(low.value_shape(node.input[0]))
    low.views[node.output[0]] = View(low.views[made].name, shape, tuple(packed_strides(shape)), out_type)


# --- MelWeightMatrix --------------------------------------------------------------------------------------------
@lowers("MelWeightMatrix")
def lower_mel_weight_matrix(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    """The mel filter bank composed of element-wise operators (module docstring)."""
    from onnx import helper

    mels = int(np.asarray(low.host_value(node.input[0], "num_mel_bins")).reshape(-1)[0])
    length = int(np.asarray(low.host_value(node.input[1], "dft_length")).reshape(-1)[0])
    if mels < 1 or length < 1:
        raise low.refuse(f"num_mel_bins {mels} and dft_length {length} must be positive", 0x80070057)
    bins = length // 2 + 1
    out_type = np.dtype(helper.tensor_dtype_to_np_dtype(attrs["output_datatype"])) if attrs.get(
        "output_datatype") else F32

    def step(name: str, *views: View, dtype: np.dtype | None = None, **attributes: Any) -> View:
        out = low.fresh("mel")
        if len(views) == 1:
            unary(low, name, views[0], out, dtype, **attributes)
        else:
            binary(low, name, views[0], views[1], out, dtype)
        return low.views[out]

    def const(array: np.ndarray) -> View:
        name = low.fresh("mel_constant")
        low.host[name] = np.asarray(array)
        return low.view(name)

    def scalar(name: str) -> View:
        view = low.view(name)
        return _float32(low, View(view.name, (1, 1), (0, 0), view.dtype, view.offset))

    rate, lower, upper = (scalar(name) for name in node.input[2:5])
    to_log = dml.DML_SCALE_BIAS(1.0 / 700.0, 1.0)
    low_log = step("ELEMENT_WISE_LOG", lower, ScaleBias=to_log)  # ln(1 + f / 700): the mel scale up to a factor
    high_log = step("ELEMENT_WISE_LOG", upper, ScaleBias=to_log)
    spacing = step("ELEMENT_WISE_DIVIDE", step("ELEMENT_WISE_SUBTRACT", high_log, low_log),
                   const(np.full((1, 1), mels + 2, np.float32)))
    points = const((np.arange(mels)[None, :] + np.arange(3)[:, None]).astype(np.float32))  # left, center, right
    logs = step("ELEMENT_WISE_ADD", step("ELEMENT_WISE_MULTIPLY", points, spacing), low_log)
    scale = 700.0 * (length + 1)
    hertz = step("ELEMENT_WISE_IDENTITY", step("ELEMENT_WISE_EXP", logs),
                 ScaleBias=dml.DML_SCALE_BIAS(scale, -scale))  # 700 (e − 1) · (dft_length + 1)
    edges = step("ELEMENT_WISE_FLOOR", step("ELEMENT_WISE_DIVIDE", hertz, rate))
    rows = [low.fresh("mel_edge") for _ in range(3)]
    low.emit(dml.DML_OPERATOR_SPLIT, dml.DML_SPLIT_OPERATOR_DESC, {"InputTensor": edges},
             {"OutputTensors": [low.output(name, (1, mels), F32) for name in rows]}, OutputCount=3, Axis=0)
    left, center, right = (low.views[name] for name in rows)
    j = const(np.arange(bins, dtype=np.float32).reshape(bins, 1))
    rising = step("ELEMENT_WISE_DIVIDE", step("ELEMENT_WISE_SUBTRACT", j, left),
                  step("ELEMENT_WISE_CLIP", step("ELEMENT_WISE_SUBTRACT", center, left), Min=1.0,
                       Max=float(np.finfo(np.float32).max)))
    falling = step("ELEMENT_WISE_DIVIDE", step("ELEMENT_WISE_SUBTRACT", right, j),
                   step("ELEMENT_WISE_CLIP", step("ELEMENT_WISE_SUBTRACT", right, center), Min=1.0,
                        Max=float(np.finfo(np.float32).max)))
    triangle = step("ELEMENT_WISE_CLIP", step("ELEMENT_WISE_MIN", rising, falling), Min=0.0,
                    Max=float(np.finfo(np.float32).max))
    at_center = step("ELEMENT_WISE_LOGICAL_EQUALS", j, center, dtype=np.dtype(np.bool_))
    shape = (bins, mels)
    weights = low.fresh("mel_weights")
    low.emit(dml.DML_OPERATOR_ELEMENT_WISE_IF, dml.DML_ELEMENT_WISE_IF_OPERATOR_DESC,
             {"ConditionTensor": at_center, "ATensor": broadcast_view(low, const(np.ones((1, 1), np.float32)), shape),
              "BTensor": triangle}, {"OutputTensor": low.output(weights, shape, F32)})
    if out_type == F32:
        low.views[node.output[0]] = low.views[weights]
    else:
        unary(low, "CAST", low.views[weights], node.output[0], out_type)
