"""Buffer tensor layouts: element sizes, DMLCalcBufferTensorSize, and the checks every tensor desc gets.

A validated tensor desc becomes a :class:`TensorLayout`: the immutable, fully inferred form (explicit
strides in elements, total size) that binding, hazard checks and kernel launches work from.

4-bit data types (DML_TENSOR_DATA_TYPE_UINT4 and INT4, feature level 6_3): packed two elements per byte, as the
DML_TENSOR_DATA_TYPE page says: element ``n`` of the buffer (counted from the tensor's binding offset) is the low
nibble of byte ``n // 2`` when ``n`` is even, the high nibble when odd ("the first element in the low nibble ...
standard little-endian order"; UINT4 [1,2,3,4,5] is the bytes [0x21, 0x43, 0x05]). INT4 is two's complement in
its nibble (-8..7). What dmlsim decides from that page and DirectML's own helper (DirectMLX.h's
DMLCalcBufferTensorSize, which counts ``(last index + 1) · 4`` bits, rounds up to bytes, then to a multiple of 4):

- Sizes and Strides are in elements (nibbles), as for every type; odd sizes and odd strides are fine ("dimensions
  don't need to be byte-aligned"); the tail nibble of an odd-sized tensor is not an element, and a kernel never
  writes it (nor any nibble that is no output element: outputs are written nibble by nibble).
- The element offset of a binding is ``2 · Offset`` (Offset is a byte count, a multiple of 16).
- GuaranteedBaseOffsetAlignment: 0 or any power of two (≥ 1 byte, the smallest addressable unit).
- :attr:`TensorLayout.element_size` (bytes) does not exist for them: :attr:`TensorLayout.element_bits` does,
  and :func:`strided_array` / :func:`store_elements` decode and encode the nibbles (no numpy view can).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.api.arguments import UINT32_MAX, UINT64_MAX, as_enum, invalid, require_sequence, require_uint, shown
from dmlsim.api.enums import DML_TENSOR_DATA_TYPE, DML_TENSOR_FLAGS, DML_TENSOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.structs import DML_BUFFER_TENSOR_DESC, DML_TENSOR_DESC

DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT = 16
DML_TEMPORARY_BUFFER_ALIGNMENT = 256
DML_PERSISTENT_BUFFER_ALIGNMENT = 256

_T = DML_TENSOR_DATA_TYPE
ELEMENT_SIZE: dict[int, int] = {
    _T.DML_TENSOR_DATA_TYPE_FLOAT32: 4, _T.DML_TENSOR_DATA_TYPE_FLOAT16: 2,
    _T.DML_TENSOR_DATA_TYPE_UINT32: 4, _T.DML_TENSOR_DATA_TYPE_UINT16: 2, _T.DML_TENSOR_DATA_TYPE_UINT8: 1,
    _T.DML_TENSOR_DATA_TYPE_INT32: 4, _T.DML_TENSOR_DATA_TYPE_INT16: 2, _T.DML_TENSOR_DATA_TYPE_INT8: 1,
    _T.DML_TENSOR_DATA_TYPE_FLOAT64: 8, _T.DML_TENSOR_DATA_TYPE_UINT64: 8, _T.DML_TENSOR_DATA_TYPE_INT64: 8,
}
NUMPY_DTYPE: dict[int, np.dtype] = {
    _T.DML_TENSOR_DATA_TYPE_FLOAT32: np.dtype("<f4"), _T.DML_TENSOR_DATA_TYPE_FLOAT16: np.dtype("<f2"),
    _T.DML_TENSOR_DATA_TYPE_UINT32: np.dtype("<u4"), _T.DML_TENSOR_DATA_TYPE_UINT16: np.dtype("<u2"),
    _T.DML_TENSOR_DATA_TYPE_UINT8: np.dtype("u1"), _T.DML_TENSOR_DATA_TYPE_INT32: np.dtype("<i4"),
    _T.DML_TENSOR_DATA_TYPE_INT16: np.dtype("<i2"), _T.DML_TENSOR_DATA_TYPE_INT8: np.dtype("i1"),
    _T.DML_TENSOR_DATA_TYPE_FLOAT64: np.dtype("<f8"), _T.DML_TENSOR_DATA_TYPE_UINT64: np.dtype("<u8"),
    _T.DML_TENSOR_DATA_TYPE_INT64: np.dtype("<i8"),
}
SUB_BYTE_TYPES = (_T.DML_TENSOR_DATA_TYPE_UINT4, _T.DML_TENSOR_DATA_TYPE_INT4)
# The numpy type a 4-bit type's decoded values are held in (storage is two per byte, see the docstring); kept out
# of NUMPY_DTYPE, whose inverse maps a numpy type back to the one data type stored as it.
DECODED_DTYPE: dict[int, np.dtype] = {_T.DML_TENSOR_DATA_TYPE_UINT4: np.dtype("u1"),
                                      _T.DML_TENSOR_DATA_TYPE_INT4: np.dtype("i1")}


def value_dtype(data_type: int) -> np.dtype:
    """The numpy type a tensor's values are held in: NUMPY_DTYPE's, or int8/uint8 for INT4/UINT4."""
    return NUMPY_DTYPE[data_type] if data_type in NUMPY_DTYPE else DECODED_DTYPE[data_type]
ELEMENT_BITS: dict[int, int] = {**{t: 8 * size for t, size in ELEMENT_SIZE.items()}, **dict.fromkeys(SUB_BYTE_TYPES, 4)}


def data_type_name(data_type: int) -> str:
    """``FLOAT32`` for DML_TENSOR_DATA_TYPE_FLOAT32; the raw number for unknown values."""
    try:
        return DML_TENSOR_DATA_TYPE(data_type).name.removeprefix("DML_TENSOR_DATA_TYPE_")
    except ValueError:
        return str(data_type)


def packed_strides(sizes: Sequence[int]) -> tuple[int, ...]:
    """Row-major strides (in elements) of a tensor with no padding and no broadcasting."""
    strides = [0] * len(sizes)
    step = 1
    for i in range(len(sizes) - 1, -1, -1):
        strides[i] = step
        step *= sizes[i]
    return tuple(strides)


def DMLCalcBufferTensorSize(
    dataType: int, dimensionCount: int, sizes: Sequence[int], strides: Sequence[int] | None = None
) -> int:
    """Minimum ``TotalTensorSizeInBytes`` for a buffer tensor, as directml.h's helper computes it.

    Packed: product(Sizes)·elementBits; strided: (Σ(Sizes[i]−1)·Strides[i] + 1)·elementBits; rounded up to
    whole bytes (4-bit types: an odd count leaves a tail nibble), then to a multiple of 4. Computed with Python
    ints: the header helper's 32-bit accumulator can wrap, and dmlsim refuses such descs rather than
    reproducing the wrap.
    """
    data_type = as_enum(dataType, DML_TENSOR_DATA_TYPE)
    if data_type not in ELEMENT_BITS:
        raise invalid(f"DMLCalcBufferTensorSize: dataType {shown(dataType)} is not a DML_TENSOR_DATA_TYPE with a size")
    count = require_uint(dimensionCount, "DMLCalcBufferTensorSize: dimensionCount", maximum=UINT32_MAX)
    sizes = _uint_array(sizes, count, "sizes")
    if strides is None:
        index_count = math.prod(sizes)
    else:
        strides = _uint_array(strides, count, "strides")
        index_count = sum((s - 1) * st for s, st in zip(sizes, strides, strict=True)) + 1
    return ((index_count * ELEMENT_BITS[data_type] + 7) // 8 + 3) & ~3


def _uint_array(values: Any, count: int, name: str) -> list[int]:
    """The first ``count`` entries of a UINT array argument of DMLCalcBufferTensorSize (E_INVALIDARG if unusable)."""
    items = require_sequence(values, f"DMLCalcBufferTensorSize: {name}")
    if len(items) < count or not all(_is_uint(v) for v in items[:count]):
        raise invalid(f"DMLCalcBufferTensorSize: {name} must hold dimensionCount ({count}) UINT values, got "
                      f"{shown(values)}")
    return [int(v) for v in items[:count]]


@dataclass(frozen=True)
class TensorLayout:
    """A validated buffer tensor desc with everything inferred: what bindings and kernels work from."""

    data_type: int
    sizes: tuple[int, ...]
    strides: tuple[int, ...]  # in elements; packed strides when the desc gave none
    declared_strides: tuple[int, ...] | None
    total_bytes: int
    alignment: int
    flags: int

    @property
    def element_size(self) -> int:
        """Bytes per element; a 4-bit type has none (TypeError: use :attr:`element_bits`)."""
        size = ELEMENT_SIZE.get(self.data_type)
        if size is None:
            raise TypeError(f"{data_type_name(self.data_type)} elements are 4 bits: they have no byte size")
        return size

    @property
    def element_bits(self) -> int:
        return ELEMENT_BITS[self.data_type]

    @property
    def sub_byte(self) -> bool:
        """True for the 4-bit types (two elements per byte)."""
        return self.data_type in SUB_BYTE_TYPES

    def element_offset(self, byte_offset: int) -> int:
        """A binding's byte offset in elements of this tensor (what kernels add to their indices)."""
        return byte_offset * 8 // self.element_bits

    @property
    def element_count(self) -> int:
        return math.prod(self.sizes)

    @property
    def dtype(self) -> np.dtype:
        return value_dtype(self.data_type)

    @property
    def distinct_element_count(self) -> int:
        """Elements counting each broadcast dimension (stride 0) once: what a computation that does not
        repeat a broadcast value holds (the reference device's estimate of its working arrays)."""
        return math.prod(s for s, st in zip(self.sizes, self.strides, strict=True) if st != 0)

    @property
    def is_packed(self) -> bool:
        """True when elements are contiguous in row-major order (strides absent or equal to packed)."""
        return all(st == ps for s, st, ps in zip(self.sizes, self.strides, packed_strides(self.sizes),
                                                   strict=True) if s > 1)

    @property
    def span_bytes(self) -> int:
        """Bytes from the first to one past the last addressed element (before rounding to 4)."""
        index_count = sum((s - 1) * st for s, st in zip(self.sizes, self.strides, strict=True)) + 1
        return (index_count * self.element_bits + 7) // 8

    @property
    def owned_by_dml(self) -> bool:
        return bool(self.flags & DML_TENSOR_FLAGS.DML_TENSOR_FLAG_OWNED_BY_DML)

    def same_layout(self, other: TensorLayout) -> bool:
        """Same element addressing: data type, sizes and effective strides (the in-place rule)."""
        return (self.data_type, self.sizes, self.strides) == (other.data_type, other.sizes, other.strides)

    def describe(self) -> str:
        strides = "" if self.declared_strides is None else f" strides {list(self.strides)}"
        return f"{data_type_name(self.data_type)} {list(self.sizes)}{strides}"


def _elements_overlap(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """True unless each stride (ascending, over dimensions of size > 1) skips past everything below it.

    That nesting condition is sufficient for distinct elements to have distinct addresses; dmlsim
    refuses outputs that do not meet it (stride 0 broadcasting, interleaved dimensions), because the
    value left in a shared place would depend on write order.
    """
    reach = 0
    for size, stride in sorted(((s, st) for s, st in zip(sizes, strides, strict=True) if s > 1),
                               key=lambda pair: pair[1]):
        if stride <= reach:
            return True
        reach += (size - 1) * stride
    return False


def _is_uint(value: object, maximum: int = UINT32_MAX) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= int(value) <= maximum


def validate_tensor_desc(
    tensor: object,
    where: str,
    problems: Problems,
    *,
    data_types: Sequence[int],
    dimension_counts: Sequence[int],
    is_output: bool,
) -> TensorLayout | None:
    """Check one ``DML_TENSOR_DESC`` against the rules of design.md §2; add each violation to ``problems``.

    ``where`` names the field (``DML_ADAM_OPTIMIZER_OPERATOR_DESC.GradientTensor``) so every message
    says which struct field is wrong. Returns the inferred layout, or None if the desc is unusable.
    """
    if isinstance(tensor, DML_BUFFER_TENSOR_DESC):
        tensor = DML_TENSOR_DESC(DML_TENSOR_TYPE.DML_TENSOR_TYPE_BUFFER, tensor)
    if not isinstance(tensor, DML_TENSOR_DESC):
        problems.add(f"{where} must be a DML_TENSOR_DESC, got {type(tensor).__name__}")
        return None
    if as_enum(tensor.Type, DML_TENSOR_TYPE) != DML_TENSOR_TYPE.DML_TENSOR_TYPE_BUFFER:
        problems.add(f"{where}.Type must be DML_TENSOR_TYPE_BUFFER (1), got {shown(tensor.Type)}")
        return None
    desc = tensor.Desc
    if not isinstance(desc, DML_BUFFER_TENSOR_DESC):
        problems.add(f"{where}.Desc must be a DML_BUFFER_TENSOR_DESC, got {type(desc).__name__}")
        return None
    before = len(problems.items)

    data_type = desc.DataType
    if not _is_uint(data_type) or int(data_type) not in ELEMENT_BITS:
        problems.add(f"{where}.DataType {shown(data_type)} is not a valid DML_TENSOR_DATA_TYPE")
        return None
    data_type = int(data_type)
    if data_type not in data_types:
        allowed = ", ".join(data_type_name(t) for t in data_types)
        problems.add(f"{where}.DataType must be one of {{{allowed}}}, got {data_type_name(data_type)}")

    flags = desc.Flags
    if not _is_uint(flags) or int(flags) & ~int(DML_TENSOR_FLAGS.DML_TENSOR_FLAG_OWNED_BY_DML):
        problems.add(f"{where}.Flags {shown(flags)} has bits that are not DML_TENSOR_FLAGS")
        flags = 0
    elif is_output and int(flags) & DML_TENSOR_FLAGS.DML_TENSOR_FLAG_OWNED_BY_DML:
        problems.add(f"{where}.Flags must not have DML_TENSOR_FLAG_OWNED_BY_DML: it is an output tensor")

    sizes = desc.Sizes
    if not isinstance(sizes, Sequence) or isinstance(sizes, (str, bytes)) or not all(_is_uint(s) for s in sizes):
        problems.add(f"{where}.Sizes must be a list of UINT values, got {shown(sizes)}")
        return None
    sizes = tuple(int(s) for s in sizes)
    count = desc.DimensionCount if desc.DimensionCount is not None else len(sizes)
    if not _is_uint(count) or count != len(sizes):
        problems.add(f"{where}.DimensionCount {shown(count)} must equal len(Sizes) {len(sizes)}")
    if len(sizes) not in dimension_counts:
        allowed = ", ".join(str(d) for d in dimension_counts)
        problems.add(f"{where}.DimensionCount must be {allowed}, got {len(sizes)}")
    if any(s == 0 for s in sizes):
        problems.add(f"{where}.Sizes {shown(list(sizes))} must not contain 0")
    elif math.prod(sizes) > UINT32_MAX:
        problems.add(f"{where}.Sizes {shown(list(sizes))} has {shown(math.prod(sizes))} elements, more than 2^32-1")

    strides = desc.Strides
    if strides is not None:
        if (not isinstance(strides, Sequence) or isinstance(strides, (str, bytes))
                or not all(_is_uint(s) for s in strides)):
            problems.add(f"{where}.Strides must be None or a list of UINT values, got {shown(strides)}")
            strides = None
        elif len(strides) != len(sizes):
            problems.add(f"{where}.Strides {shown(list(strides))} must have DimensionCount ({len(sizes)}) entries")
            strides = None
        else:
            strides = tuple(int(s) for s in strides)

    alignment = desc.GuaranteedBaseOffsetAlignment
    least = max(1, ELEMENT_BITS[data_type] // 8)  # a 4-bit type: any power of two (a byte is the least unit)
    if not _is_uint(alignment) or (alignment != 0 and (alignment & (alignment - 1) or alignment < least)):
        problems.add(f"{where}.GuaranteedBaseOffsetAlignment must be 0 or a power of two ≥ the element size "
                     f"({least}), got {shown(alignment)}")
        alignment = 0

    if len(problems.items) > before or any(s == 0 for s in sizes):
        return None
    minimum = DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides)
    total = desc.TotalTensorSizeInBytes
    if total is None:
        total = minimum
    elif not _is_uint(total, UINT64_MAX):
        problems.add(f"{where}.TotalTensorSizeInBytes must be a UINT64, got {shown(total)}")
        return None
    elif total < minimum:
        problems.add(f"{where}.TotalTensorSizeInBytes {shown(total)} is less than DMLCalcBufferTensorSize "
                     f"{shown(minimum)}")
    elif total % 4:
        problems.add(f"{where}.TotalTensorSizeInBytes {shown(total)} must be a multiple of 4")
    if minimum > UINT32_MAX * 8:
        problems.add(f"{where}: the tensor addresses {shown(minimum)} bytes, beyond what DirectML can index")
    if is_output and strides is not None and _elements_overlap(sizes, strides):
        problems.add(f"{where}.Strides {shown(list(strides))} make elements of this output share memory "
                     f"(Sizes {shown(list(sizes))}); an output must not write one place twice")
    if len(problems.items) > before:
        return None
    return TensorLayout(data_type, sizes, strides if strides is not None else packed_strides(sizes),
                        strides, int(total), int(alignment), int(flags))

FLOAT64_TYPES = (_T.DML_TENSOR_DATA_TYPE_FLOAT64,)


def strided_array(data: Any, layout: TensorLayout, offset: int = 0) -> np.ndarray:
    """The elements of ``layout`` over the bytes ``data`` from ``offset``, as a (writable if possible) view.

    A 4-bit tensor has no view: its elements are decoded (low nibble first, INT4 sign-extended) into a
    read-only copy; write them with :func:`store_elements`."""
    if layout.sub_byte:
        nibble = _nibble_index(layout, offset)
        raw = np.frombuffer(data, np.uint8) if not isinstance(data, np.ndarray) else data.view(np.uint8).ravel()
        values = (raw[nibble >> 1] >> ((nibble & 1) * 4).astype(np.uint8)) & np.uint8(15)
        if layout.data_type == _T.DML_TENSOR_DATA_TYPE_INT4:
            values = ((values.astype(np.int16) ^ 8) - 8).astype(np.int8)
        values = values.astype(layout.dtype)
        values.flags.writeable = False
        return values
    size = layout.element_size
    return np.ndarray(layout.sizes, dtype=layout.dtype, buffer=data, offset=offset,
                      strides=tuple(s * size for s in layout.strides))


def _nibble_index(layout: TensorLayout, offset: int) -> np.ndarray:
    """Every element's nibble number (from the buffer's start) of a 4-bit tensor at byte ``offset``, shaped
    like the tensor."""
    index = np.full((1,) * len(layout.sizes), 2 * offset, np.int64)
    for axis, (size, stride) in enumerate(zip(layout.sizes, layout.strides, strict=True)):
        shape = [1] * len(layout.sizes)
        shape[axis] = size
        index = index + (np.arange(size, dtype=np.int64) * stride).reshape(shape)
    return np.broadcast_to(index, layout.sizes)


def store_elements(storage: np.ndarray, layout: TensorLayout, offset: int, values: Any) -> None:
    """Write ``values`` (broadcast to the tensor's Sizes, converted to its numpy type) as the elements of
    ``layout`` at byte ``offset`` of ``storage`` (a writable uint8 array); a 4-bit tensor's other nibbles keep
    their bits. Elements that share a place (stride 0) get the last value in row-major order."""
    if not layout.sub_byte:
        strided_array(storage, layout, offset)[...] = np.asarray(values).astype(layout.dtype)
        return
    nibbles = np.broadcast_to(np.asarray(values).astype(layout.dtype), layout.sizes).astype(np.uint8).ravel() & 15
    nibble = _nibble_index(layout, offset).ravel()
    for parity in (0, 1):  # numpy keeps the last of duplicate fancy-index writes, as row-major order does
        pick = (nibble & 1) == parity
        where, value = nibble[pick] >> 1, nibbles[pick]
        keep = np.uint8(0xF0 if parity == 0 else 0x0F)
        shifted = (value << np.uint8(4 * parity)).astype(np.uint8)
        storage[where] = (storage[where] & keep) | shifted


def broadcast_axes(array: np.ndarray) -> tuple[int, ...]:
    """The axes along which ``array`` repeats one value without storing it again: length > 1 and stride 0,
    as in the view of a tensor broadcast through stride 0 (:func:`strided_array`)."""
    return tuple(a for a, (n, st) in enumerate(zip(array.shape, array.strides, strict=True)) if n > 1 and st == 0)


def compact(array: np.ndarray) -> np.ndarray:
    """``array`` with each of its :func:`broadcast_axes` cut to length 1: the same values without the
    repeats (a view), for computations that would otherwise materialize every repeat (2^32 copies of one
    float are 32 GiB in float64)."""
    axes = broadcast_axes(array)
    return array[tuple(slice(0, 1) if a in axes else slice(None) for a in range(array.ndim))] if axes else array
