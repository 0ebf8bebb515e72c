"""Argument checks shared by every public entry point: one place that turns a bad Python value into a DMLError.

DirectML's C API can only be handed values of the declared C types; Python callers can pass anything.
Each public call checks its arguments with these helpers before doing any work, so a wrong type or an
out-of-range value is a ``DMLError`` (E_INVALIDARG, or E_OUTOFMEMORY for sizes no allocation can hold)
naming the argument, never a ``TypeError`` or ``ZeroDivisionError`` from deep inside. Messages show
values through :func:`shown`, which is bounded: a value's text in a message never grows with the value
(a 15,000-digit integer or a million-entry list is described, not printed).
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from enum import IntEnum, IntFlag
from typing import Any, TypeVar

import numpy as np

from dmlsim.api.errors import E_INVALIDARG, DMLError

UINT32_MAX = 2**32 - 1
UINT64_MAX = 2**64 - 1
# An integer with more bits than this is described by its size in messages instead of printed.
_SHOWN_INTEGER_BITS = 128

_E = TypeVar("_E", IntEnum, IntFlag)


class _BoundedRepr(reprlib.Repr):
    """reprlib with short limits, that also survives integers too long to print and failing __repr__s."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxlist = self.maxtuple = self.maxdict = self.maxset = 8
        self.maxstring = self.maxother = 60
        self.maxlong = 40

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > _SHOWN_INTEGER_BITS:
            return f"<an integer of {x.bit_length()} bits>"
        return super().repr_int(x, level)

    def repr_ndarray(self, x: np.ndarray, level: int) -> str:
        return f"<numpy array shape {x.shape} dtype {x.dtype}>"


_REPR = _BoundedRepr()


def shown(value: Any) -> str:
    """``repr(value)`` for messages, bounded in length whatever the value (never raises)."""
    try:
        return _REPR.repr(value)
    except Exception:  # a user object's __repr__ may raise anything: describe it instead
        return f"<{type(value).__name__} object>"


def invalid(message: str) -> DMLError:
    """The E_INVALIDARG error for a refused argument (``raise invalid(...)``)."""
    return DMLError(E_INVALIDARG, message)


def is_integer(value: Any) -> bool:
    """A Python or numpy integer, not a bool (C's integer types; ``True`` is no UINT)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_number(value: Any) -> bool:
    """A Python or numpy integer or float, not a bool."""
    return is_integer(value) or isinstance(value, (float, np.floating))


def is_whole(value: Any) -> bool:
    """An integer, or a finite float with no fraction (what a UINT/INT attribute accepts)."""
    if is_integer(value):
        return True
    return isinstance(value, (float, np.floating)) and bool(np.isfinite(value)) and float(value).is_integer()


def require_uint(value: Any, where: str, *, minimum: int = 0, maximum: int = UINT64_MAX) -> int:
    """``value`` as an int in [minimum, maximum], or an E_INVALIDARG DMLError naming ``where``."""
    if not is_integer(value) or not minimum <= int(value) <= maximum:
        raise invalid(f"{where} must be an integer in [{minimum}, {maximum}], got {shown(value)}")
    return int(value)


def require_sequence(value: Any, where: str, *, allow_none: bool = False) -> list[Any]:
    """``value`` as a list: a list or tuple (a C array); None only if ``allow_none`` (then empty)."""
    if value is None and allow_none:
        return []
    if not isinstance(value, (list, tuple)):
        expected = "a list (or None)" if allow_none else "a list"
        raise invalid(f"{where} must be {expected}, got {type(value).__name__} {shown(value)}")
    return list(value)


def require_mapping(value: Any, where: str) -> Mapping[Any, Any]:
    """``value`` if it is a dict-like mapping, else an E_INVALIDARG DMLError."""
    if not isinstance(value, Mapping):
        raise invalid(f"{where} must be a dict, got {type(value).__name__} {shown(value)}")
    return value


def as_enum(value: Any, enum_cls: type[_E]) -> _E | None:
    """The member of ``enum_cls`` that ``value`` (an int, not a bool or an array) names; None otherwise.

    Stricter than ``enum_cls(value)``, which accepts a one-element numpy array (compared by ``==``).
    """
    if not is_integer(value):
        return None
    try:
        return enum_cls(int(value))
    except ValueError:
        return None


def require_enum(value: Any, enum_cls: type[_E], where: str) -> _E:
    """The member of ``enum_cls`` that ``value`` names, or an E_INVALIDARG DMLError naming ``where``."""
    member = as_enum(value, enum_cls)
    if member is None:
        raise invalid(f"{where} {shown(value)} is not a {enum_cls.__name__}")
    return member


def require_flags(value: Any, flags_cls: type[_E], where: str) -> _E:
    """``value`` as ``flags_cls`` when every bit it sets is one of the flags', else E_INVALIDARG."""
    known = 0
    for member in flags_cls:
        known |= int(member)
    if not is_integer(value) or int(value) < 0 or int(value) & ~known:
        raise invalid(f"{where} {shown(value)} has bits that are not {flags_cls.__name__}")
    return flags_cls(int(value))


def require_bytes(data: Any, where: str) -> np.ndarray:
    """``data`` as a uint8 array of its bytes: bytes-like objects and numpy arrays/scalars only.

    Refused: str (which encoding?), int (``bytes(5)`` is five zero bytes, not the value 5), floats,
    lists, None, and numpy object arrays (their bytes are pointers).
    """
    if isinstance(data, (np.ndarray, np.generic)):
        if data.dtype.hasobject:
            raise invalid(f"{where} must be bytes-like or numeric numpy data, got a numpy array of Python objects")
        return np.frombuffer(np.ascontiguousarray(data).tobytes(), np.uint8)
    if isinstance(data, (str, int, float, complex)) or data is None:
        raise invalid(f"{where} must be bytes-like (bytes, bytearray, memoryview) or a numpy array, got "
                      f"{type(data).__name__} {shown(data)}" + (" (use np.array([...], dtype) for values)"
                                                               if isinstance(data, (int, float)) else ""))
    try:
        view = memoryview(data)
    except TypeError:
        raise invalid(f"{where} must be bytes-like (bytes, bytearray, memoryview) or a numpy array, got "
                      f"{type(data).__name__} {shown(data)}") from None
    return np.frombuffer(view.tobytes(), np.uint8)


def require_dtype(dtype: Any, where: str) -> np.dtype:
    """A numpy dtype of fixed, non-zero size that holds no Python objects, or E_INVALIDARG."""
    # np.dtype(x) of an arbitrary object may raise anything (it formats the object's repr): only dtypes,
    # type objects and strings are handed to it
    if not isinstance(dtype, (np.dtype, type, str)):
        raise invalid(f"{where} must be a numpy dtype, a type or a str, got {type(dtype).__name__} {shown(dtype)}")
    try:
        result = np.dtype(dtype)
    except (TypeError, ValueError, SyntaxError):
        raise invalid(f"{where} {shown(dtype)} is not a numpy dtype") from None
    if result.itemsize == 0 or result.hasobject:
        raise invalid(f"{where} {result} cannot be read from bytes (zero-sized or Python objects)")
    return result


def require_instance(value: Any, cls: type | tuple[type, ...], where: str, what: str) -> Any:
    """``value`` if it is a ``cls``, else an E_INVALIDARG DMLError saying ``where`` must be ``what``."""
    if not isinstance(value, cls):
        raise invalid(f"{where} must be {what}, got {type(value).__name__}")
    return value

