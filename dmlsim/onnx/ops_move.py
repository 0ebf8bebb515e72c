"""ONNX lowerings onto DirectML's data-movement generators, as onnxruntime's DirectML provider maps them.

- **EyeLike** → DML_DIAGONAL_MATRIX (Offset k, Value 1.0) over the output's shape, in ``dtype`` (default: the
  input's type); the input's values are not read.
- **Trilu** → DML_DIAGONAL_MATRIX1 over the input with Value 0 in the input's type: ``upper`` (ONNX's default 1)
  fills the diagonals ``[INT32_MIN, k)`` with 0, keeping ``x - y >= k``; ``upper=0`` fills ``[k + 1, INT32_MAX)``,
  keeping ``x - y <= k``. ``k`` (default 0) is read on the host, as the provider reads it, and clamped to
  ``[-2^31 + 1, 2^31 - 2]`` (the provider narrows it to INT32; no matrix of a DirectML tensor is that wide, so a
  clamped k keeps or clears the same elements). Ranks 2 to 4 (the desc's), as the provider requires.
- **ReverseSequence** → DML_REVERSE_SUBSEQUENCES along ``time_axis``: ``sequence_lens`` (INT64, one per batch) is
  read on the device as a SequenceLengthsTensor of the input's sizes with 1 along the time axis, stride 1 along
  ``batch_axis`` and 0 elsewhere (a broadcast), its INT64 bytes read as UINT64 (ONNX requires lengths in
  ``[0, time size]``; a negative one would read as a huge length and reverse the whole subsequence).
- **Col2Im** → DML_FOLD: ``image_shape`` and ``block_shape`` read on the host (as the provider reads them), the
  3-D input as the columns tensor, the output ``{N, C, image_shape...}``; ``pads`` ``[begin..., end...]`` as
  StartPadding/EndPadding, ``strides`` and ``dilations`` default 1.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.onnx.lowering import Lowering, View, lowers

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


@lowers("EyeLike")
def lower_eye_like(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    from onnx import helper

    import dmlsim as dml

    shape = low.value_shape(node.input[0])
    dtype = low.value_dtype(node.input[0])
    if attrs.get("dtype") is not None:
        dtype = np.dtype(helper.tensor_dtype_to_np_dtype(attrs["dtype"]))
    if len(shape) != 2:
        raise low.refuse(f"an input of rank {len(shape)}: EyeLike takes a 2-D input")
    low.emit(dml.DML_OPERATOR_DIAGONAL_MATRIX, dml.DML_DIAGONAL_MATRIX_OPERATOR_DESC, {},
             {"OutputTensor": low.output(node.output[0], shape, dtype)}, Offset=int(attrs.get("k", 0)), Value=1.0)


@lowers("Trilu")
def lower_trilu(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    import dmlsim as dml

    source = low.view(node.input[0])
    if not 2 <= len(source.shape) <= 4:
        raise low.refuse(f"an input of rank {len(source.shape)}: DML_DIAGONAL_MATRIX1 takes 2 to 4 dimensions")
    k = 0
    if len(node.input) > 1 and node.input[1]:
        k = int(np.asarray(low.host_value(node.input[1], "k")).reshape(-1)[0])
    k = min(max(k, INT32_MIN + 1), INT32_MAX - 1)
    begin, end = (INT32_MIN, k) if attrs.get("upper", 1) else (k + 1, INT32_MAX)
    out = low.output(node.output[0], source.shape, source.dtype)
    data_type = out[1].Desc.DataType
    zero = dml.DML_SCALAR_UNION(Bytes=[0] * 8)
    low.emit(dml.DML_OPERATOR_DIAGONAL_MATRIX1, dml.DML_DIAGONAL_MATRIX1_OPERATOR_DESC, {"InputTensor": source},
             {"OutputTensor": out}, ValueDataType=data_type, Value=zero, DiagonalFillBegin=begin,
             DiagonalFillEnd=end)


@lowers("ReverseSequence")
def lower_reverse_sequence(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    import dmlsim as dml

    source, lengths = low.view(node.input[0]), low.view(node.input[1])
    rank = len(source.shape)
    time_axis, batch_axis = int(attrs.get("time_axis", 0)), int(attrs.get("batch_axis", 1))
    if lengths.dtype.kind not in "iu" or lengths.dtype.itemsize not in (4, 8) or len(lengths.shape) != 1:
        raise low.refuse(f"sequence_lens of type {lengths.dtype} and shape {list(lengths.shape)}: a 1-D tensor of "
                         "32- or 64-bit integers is needed")
    shape = tuple(1 if d == time_axis else n for d, n in enumerate(source.shape))
    strides = tuple(lengths.strides[0] if d == batch_axis else 0 for d in range(rank))
    unsigned = np.dtype(f"u{lengths.dtype.itemsize}")
    broadcast = View(lengths.name, shape, strides, unsigned, lengths.offset)
    low.emit(dml.DML_OPERATOR_REVERSE_SUBSEQUENCES, dml.DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC,
             {"InputTensor": source, "SequenceLengthsTensor": broadcast},
             {"OutputTensor": low.output(node.output[0], source.shape, source.dtype)}, Axis=time_axis)


@lowers("Col2Im")
def lower_col2im(low: Lowering, node: Any, attrs: dict[str, Any]) -> None:
    import dmlsim as dml

    source = low.view(node.input[0])
    image = [int(n) for n in np.asarray(low.host_value(node.input[1], "image_shape")).reshape(-1)]
    block = [int(n) for n in np.asarray(low.host_value(node.input[2], "block_shape")).reshape(-1)]
    dims = len(image)
    if len(source.shape) != 3 or len(block) != dims:
        raise low.refuse(f"an input of shape {list(source.shape)} with image_shape {image} and block_shape {block}: "
                         "a 3-D input and one block size per image dimension are needed")
    pads = [int(p) for p in attrs.get("pads", [0] * (2 * dims))]
    channels = source.shape[1] // max(1, int(np.prod(block)))
    out = low.output(node.output[0], (source.shape[0], channels, *image), source.dtype)
    low.emit(dml.DML_OPERATOR_FOLD, dml.DML_FOLD_OPERATOR_DESC, {"InputTensor": source}, {"OutputTensor": out},
             DimensionCount=dims, WindowSizes=block, Strides=[int(t) for t in attrs.get("strides", [1] * dims)],
             Dilations=[int(d) for d in attrs.get("dilations", [1] * dims)], StartPadding=pads[:dims],
             EndPadding=pads[dims:])
