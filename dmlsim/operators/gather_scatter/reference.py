"""Float64-free references of GATHER, GATHER_ELEMENTS, GATHER_ND and GATHER_ND1 (moves: exact, in the input's own
data type), transcribing their doc pages with dmlsim's decisions (this folder's ``__init__``): a negative index of
a signed type counts from the end of its dimension; an index still outside ``[0, size)`` is clamped into it.

Shapes are the descs' padded N-dimensional ones: the "real" tensors are the trailing dimensions the descs name
(IndexDimensions, InputDimensionCount, IndicesDimensionCount); the result is reshaped to the output's Sizes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def index_positions(indices: np.ndarray, size: int | np.ndarray) -> np.ndarray:
    """Each index as a position in ``[0, size)``: negative (signed types) plus ``size``, then clamped (int64)."""
    indices = np.asarray(indices)
    if indices.dtype.kind == "u":
        return np.minimum(indices, np.asarray(size, np.uint64) - 1).astype(np.int64)
    wide = indices.astype(np.int64)
    wide = np.where(wide < 0, wide + size, wide)
    return np.clip(wide, 0, np.asarray(size) - 1)


def gather(x: np.ndarray, indices: np.ndarray, axis: int, index_dimensions: int,
           out_sizes: Sequence[int]) -> np.ndarray:
    """GATHER: output[..., indices[...], ...]: the input's dimensions before Axis, the last IndexDimensions of
    the indices, the input's dimensions after Axis, right-aligned into the output's Sizes."""
    n = x.ndim
    real = indices.reshape(indices.shape[n - index_dimensions:])
    return np.take(x, index_positions(real, x.shape[axis]), axis=axis).reshape(tuple(out_sizes))


def gather_elements(x: np.ndarray, indices: np.ndarray, axis: int) -> np.ndarray:
    """GATHER_ELEMENTS: output[i, j, ...] = input[i, ..., indices[i, j, ...], ...] (the index replaces Axis)."""
    return np.take_along_axis(x, index_positions(indices, x.shape[axis]), axis=axis)


def gather_nd(x: np.ndarray, indices: np.ndarray, input_rank: int, indices_rank: int, batch: int,
              out_sizes: Sequence[int]) -> np.ndarray:
    """GATHER_ND(1): output[b..., i...] = input[b..., indices[b..., i..., :], ...] (ONNX GatherND with
    batch_dims ``batch``) on the real tensors (the last ``input_rank``/``indices_rank`` dimensions)."""
    data = x.reshape(x.shape[x.ndim - input_rank:])
    idx = indices.reshape(indices.shape[indices.ndim - indices_rank:])
    tuple_length = idx.shape[-1]
    batches = int(np.prod(data.shape[:batch], dtype=np.int64))
    data = data.reshape((batches, *data.shape[batch:]))
    idx = idx.reshape((batches, -1, tuple_length))
    coordinates: list[np.ndarray] = [np.arange(batches)[:, None]]
    for j in range(tuple_length):
        coordinates.append(index_positions(idx[:, :, j], data.shape[1 + j]))
    return data[tuple(coordinates)].reshape(tuple(out_sizes))


def positions_or_none(indices: np.ndarray, size: int | np.ndarray) -> np.ndarray:
    """Each index as a position in ``[0, size)`` (negative ones of signed types plus ``size``), -1 where it is
    still outside (SCATTER drops such an update)."""
    indices = np.asarray(indices)
    if indices.dtype.kind == "u":
        inside = indices < np.asarray(size, np.uint64)
        return np.where(inside, indices.astype(np.int64), -1)
    wide = indices.astype(np.int64)
    wide = np.where(wide < 0, wide + size, wide)
    return np.where((wide >= 0) & (wide < size), wide, -1)


def _last_wins(x: np.ndarray, targets: np.ndarray, updates: np.ndarray) -> np.ndarray:
    """A copy of ``x`` with ``updates[k]`` stored at flat position ``targets[k]`` (-1: dropped); where several
    updates target one element, the last in order wins."""
    out = np.array(x).reshape(-1)
    keep = targets >= 0
    targets, updates = targets[keep], updates[keep]
    _, first_from_end = np.unique(targets[::-1], return_index=True)
    last = len(targets) - 1 - first_from_end
    out[targets[last]] = updates[last]
    return out.reshape(x.shape)


def scatter_elements(x: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: int) -> np.ndarray:
    """SCATTER_ELEMENTS: output = input; output[i, ..., indices[i, j, ...], ...] = updates[i, j, ...] (Axis)."""
    positions = positions_or_none(indices, x.shape[axis])
    coordinates = list(np.indices(indices.shape))
    coordinates[axis] = np.maximum(positions, 0)
    flat = np.ravel_multi_index(tuple(coordinates), x.shape)
    return _last_wins(x, np.where(positions >= 0, flat, -1).reshape(-1), np.asarray(updates).reshape(-1))


def scatter_nd(x: np.ndarray, indices: np.ndarray, updates: np.ndarray, input_rank: int,
               indices_rank: int) -> np.ndarray:
    """SCATTER_ND: output = input; output[indices[i..., :], ...] = updates[i..., ...] on the real tensors."""
    data_shape = x.shape[x.ndim - input_rank:]
    idx = indices.reshape(indices.shape[indices.ndim - indices_rank:])
    tuple_length = idx.shape[-1]
    tuples = idx.reshape(-1, tuple_length)
    positions = np.stack([positions_or_none(tuples[:, j], data_shape[j]) for j in range(tuple_length)], axis=1)
    valid = np.all(positions >= 0, axis=1)
    lead = np.ravel_multi_index(tuple(np.maximum(positions, 0).T), data_shape[:tuple_length])
    inner = int(np.prod(data_shape[tuple_length:], dtype=np.int64))
    flat = lead[:, None] * inner + np.arange(inner)[None, :]
    flat = np.where(valid[:, None], flat, -1)
    out = _last_wins(x.reshape(data_shape), flat.reshape(-1), np.asarray(updates).reshape(-1))
    return out.reshape(x.shape)


def one_hot(indices: np.ndarray, values: np.ndarray, axis: int, out_sizes: Sequence[int]) -> np.ndarray:
    """ONE_HOT: each sequence along Axis is OffValue (the values' first element) but OnValue (their second, in
    row-major order) where the sequence's index points; an index outside the sequence gives no OnValue."""
    depth = out_sizes[axis]
    positions = positions_or_none(indices, depth)
    flat = np.asarray(values).reshape(-1)
    along = np.arange(depth).reshape([-1 if d == axis else 1 for d in range(len(out_sizes))])
    return np.where(positions == along, flat[1], flat[0]).astype(flat.dtype)
