"""Initial values of resources (and expected values): DxDispatch's forms plus a seeded random form.

Forms: a list (floats also take ``"nan"``, ``"inf"``, ``"-inf"``); a constant ``{valueCount, value}``;
a sequence ``{valueCount, valueStart, valueDelta}`` (accumulated in the target type, as DxDispatch
does); a file ``{sourcePath}`` (``.npy``, or raw bytes); and dmlsim's random form
``{valueCount, seed, min, max}`` or ``{valueCount, seed, distribution: normal, mean, stddev}``.

The random form is reproducible on every machine and numpy version: it uses only the PCG64 bit
stream (whose output numpy guarantees), turned into doubles with 53 random bits, and Box–Muller for
normal values, instead of Generator methods whose algorithms numpy may change.

A file is untrusted: the size every form implies (``valueCount``, a ``.npy`` header's shape, a raw
file's length) is known before any value is made, and is offered to a ``reserve`` callback (the
memory budget, the resource's size) before anything is allocated or read. Values are made by numpy
in one pass (the sequence form with an accumulating add in the target type, which rounds as the
element-by-element loop does), never element by element in Python. ``sourcePath`` reads regular
files only, from the folders :class:`~dmlsim.model.limits.Limits` allows.
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from dmlsim.api.enums import DML_TENSOR_DATA_TYPE, enum_member
from dmlsim.api.tensor import NUMPY_DTYPE, data_type_name
from dmlsim.model.errors import Diagnostics, show
from dmlsim.model.limits import Limits
from dmlsim.model.loader import Node

_T = DML_TENSOR_DATA_TYPE
FLOAT_TYPES = {_T.DML_TENSOR_DATA_TYPE_FLOAT16, _T.DML_TENSOR_DATA_TYPE_FLOAT32, _T.DML_TENSOR_DATA_TYPE_FLOAT64}
SPECIAL_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "+inf": math.inf}
FORMS = {
    "constant": {"valueCount", "value"},
    "sequence": {"valueCount", "valueStart", "valueDelta"},
    "file": {"sourcePath"},
    "random": {"valueCount", "seed", "min", "max", "distribution", "mean", "stddev"},
}
RANDOM_CHUNK = 1 << 20  # values made per step of the random form (bounds its float64 scratch arrays)
# reserve(byte count, node): may the values take this many bytes? (False: the callback reported why)
Reserve = Callable[[int, Node], bool]


@dataclass(frozen=True)
class Sources:
    """Where ``sourcePath`` may read: the model file's folder, ``limits.input_dirs``, or anywhere if allowed."""

    base_dir: Path
    limits: Limits

    @property
    def folders(self) -> list[Path]:
        return [self.base_dir, *self.limits.input_dirs]


def parse_data_type(node: Node, problems: Diagnostics) -> DML_TENSOR_DATA_TYPE | None:
    """A DML_TENSOR_DATA_TYPE from its full or prefix-less name (``FLOAT32``); UNKNOWN is refused."""
    try:
        member = enum_member(DML_TENSOR_DATA_TYPE, node.value)
    except (KeyError, ValueError, TypeError):
        names = ", ".join(m.name.removeprefix("DML_TENSOR_DATA_TYPE_") for m in DML_TENSOR_DATA_TYPE if m.value)
        problems.add(node.location, f"unknown data type {show(node.value)} (one of {names})")
        return None
    if member == _T.DML_TENSOR_DATA_TYPE_UNKNOWN:
        problems.add(node.location, "UNKNOWN (mixed-type list initializers for HLSL) is not supported")
        return None
    return DML_TENSOR_DATA_TYPE(member)


def as_float(node: Node, what: str, problems: Diagnostics, *, special: bool = True) -> float | None:
    """A number of the file as a double: ints and floats, ``"nan"``/``"inf"``/``"-inf"`` when ``special``;
    an integer beyond the double range (about 1.8e308) is refused rather than raising OverflowError."""
    value = node.value
    if special and isinstance(value, str) and value.strip().lower() in SPECIAL_FLOATS:
        return SPECIAL_FLOATS[value.strip().lower()]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        hint = ' (or "nan", "inf", "-inf")' if special else ""
        problems.add(node.location, f"expected a number{hint} for {what}, got {show(value)}")
        return None
    try:
        return float(value)
    except OverflowError:
        problems.add(node.location, f"{show(value)} is beyond the range of a double (about 1.8e308) for {what}")
        return None


def scalar(node: Node, data_type: int, problems: Diagnostics) -> float | int | None:
    """One value of ``data_type`` from the file: a number, or nan/inf strings for float types."""
    value = node.value
    if data_type in FLOAT_TYPES:
        return as_float(node, data_type_name(data_type), problems)
    if isinstance(value, bool) or not isinstance(value, int):
        problems.add(node.location, f"expected an integer for {data_type_name(data_type)}, got {show(value)}")
        return None
    info = np.iinfo(NUMPY_DTYPE[data_type])
    if not info.min <= value <= info.max:
        problems.add(node.location, f"{show(value)} does not fit {data_type_name(data_type)} "
                                    f"[{info.min}, {info.max}]")
        return None
    return value


def required(node: Node, key: str, problems: Diagnostics) -> Node | None:
    """The child ``key`` of a mapping, or None after reporting it missing."""
    child = node.get(key)
    if child is None:
        problems.add(node.location, f"missing required key '{key}'")
    return child


def _count(node: Node | None, parent: Node, problems: Diagnostics) -> int | None:
    if node is None:
        problems.add(parent.location, "missing required key 'valueCount'")
        return None
    if isinstance(node.value, bool) or not isinstance(node.value, int) or node.value <= 0:
        problems.add(node.location, f"valueCount must be a positive integer, got {show(node.value)}")
        return None
    return node.value


def _finite(node: Node | None, parent: Node, key: str, problems: Diagnostics, default: float | None = None
            ) -> float | None:
    if node is None:
        if default is None:
            problems.add(parent.location, f"missing required key '{key}'")
        return default
    value = as_float(node, key, problems, special=False)
    if value is not None and not math.isfinite(value):
        problems.add(node.location, f"{key} must be finite, got {show(node.value)}")
        return None
    return value


def _cast(values: Any, data_type: int) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(values, dtype=np.float64 if data_type in FLOAT_TYPES else object).astype(
            NUMPY_DTYPE[data_type])


def random_unit(seed: int, count: int) -> np.ndarray:
    """``count`` doubles in [0, 1) from the PCG64 stream of ``seed`` (53 random bits each)."""
    return _unit(np.random.PCG64(seed), count)


def _unit(bits: np.random.PCG64, count: int) -> np.ndarray:
    return (bits.random_raw(count) >> np.uint64(11)).astype(np.float64) * (1.0 / 2**53)


def random_values(seed: int, count: int, data_type: int, *, distribution: str, low: float, high: float,
                  mean: float, stddev: float) -> np.ndarray:
    """The random initializer: uniform in [min, max) (integers: [min, max]) or normal(mean, stddev).

    Made ``RANDOM_CHUNK`` values at a time from one PCG64 stream (the stream does not depend on how it
    is split), so the scratch memory stays bounded whatever ``count`` is.
    """
    out = np.empty(count, NUMPY_DTYPE[data_type])
    bits = np.random.PCG64(seed)
    for start in range(0, count, RANDOM_CHUNK):
        n = min(RANDOM_CHUNK, count - start)
        if distribution == "normal":
            out[start:start + n] = _cast(mean + stddev * _normal(bits, n), data_type)
        elif data_type in FLOAT_TYPES:
            out[start:start + n] = _cast(low + (high - low) * _unit(bits, n), data_type)
        else:
            out[start:start + n] = _uniform_integers(_unit(bits, n), int(low), int(high), data_type)
    return out


def _normal(bits: np.random.PCG64, count: int) -> np.ndarray:
    """Box–Muller pairs (``count`` is even except for the last chunk)."""
    pairs = (count + 1) // 2
    u = _unit(bits, 2 * pairs)
    u1, u2 = 1.0 - u[0::2], u[1::2]  # 1 - u is in (0, 1]: log is finite
    radius = np.sqrt(-2.0 * np.log(u1))
    normal = np.empty(2 * pairs)
    normal[0::2] = radius * np.cos(2 * np.pi * u2)
    normal[1::2] = radius * np.sin(2 * np.pi * u2)
    return normal[:count]


def _uniform_integers(u: np.ndarray, low: int, high: int, data_type: int) -> np.ndarray:
    """``low + min(floor(u·span), span − 1)`` with span = high − low + 1, exactly as Python integers give it:
    the product is the same double (span rounded once), and the sum wraps in 64 bits to the right value."""
    span = high - low + 1
    steps = np.minimum(np.floor(u * float(span)).astype(np.uint64), np.uint64(span - 1))
    with np.errstate(over="ignore"):
        total = np.uint64(low % 2**64) + steps
    signed = np.dtype(NUMPY_DTYPE[data_type]).kind == "i"
    return (total.view(np.int64) if signed else total).astype(NUMPY_DTYPE[data_type])


def sequence_values(count: int, start: float | int, delta: float | int, data_type: int) -> np.ndarray:
    """``start, start+delta, ...`` accumulated in the target type (each sum rounded or wrapped in it)."""
    dtype = NUMPY_DTYPE[data_type]
    out = np.full(count, _cast([delta], data_type)[0], dtype)
    out[0] = _cast([start], data_type)[0]
    with np.errstate(all="ignore"):
        np.add.accumulate(out, out=out)
    return out


def _plain_number(value: Any, data_type: int) -> float | int | None:
    """``value`` as :func:`scalar` reads it when it is a plain number the type holds (or a special float
    string); None when :func:`scalar` must look at it (and report it)."""
    kind = type(value)
    if data_type in FLOAT_TYPES:
        if kind is float:
            return value
        if kind is int and -_DOUBLE_MAX <= value <= _DOUBLE_MAX:
            return float(value)
        return SPECIAL_FLOATS.get(value.strip().lower()) if kind is str else None
    if kind is int:
        info = _INT_RANGES[data_type]
        return value if info[0] <= value <= info[1] else None
    return None


_DOUBLE_MAX = int(np.finfo(np.float64).max)
_INT_RANGES = {t: (int(np.iinfo(d).min), int(np.iinfo(d).max)) for t, d in NUMPY_DTYPE.items() if d.kind in "iu"}


def list_values(node: Node, data_type: int, problems: Diagnostics) -> np.ndarray | None:
    """A list of values of ``data_type`` (as :func:`scalar` reads each), in linear time: plain numbers are
    converted by numpy in one call, and only an element that is not one gets a located Node and a problem.
    Stops looking once the file has more problems than are listed (a million wrong values are one mistake)."""
    values = node.value
    floats = data_type in FLOAT_TYPES
    if floats and all(type(v) is float for v in values):
        return _cast(values, data_type)
    items: list[Any] = []
    wrong = False
    for i, value in enumerate(values):
        item = _plain_number(value, data_type)
        if item is None:
            item = scalar(node.element(i), data_type, problems)
            if item is None:
                wrong = True
                if problems.full:
                    break
        items.append(item)
    if wrong:
        return None
    if floats:
        return _cast(items, data_type)
    return np.array(items, dtype=NUMPY_DTYPE[data_type])


def _no_reserve(size: int, node: Node) -> bool:
    return True


def parse_values(node: Node, data_type: int | None, sources: Sources, problems: Diagnostics,
                 *, allow_file: bool = True, reserve: Reserve = _no_reserve
                 ) -> tuple[np.ndarray | None, int | None]:
    """Values of any initializer form as a numpy array of ``data_type``; also the type (files carry one).

    ``reserve(nbytes, node)`` is asked before the values are made or read; when it says no, nothing is."""
    if node.is_list:
        if data_type is None:
            return None, None
        if not node.value:
            problems.add(node.location, "the list of values must not be empty")
            return None, data_type
        if not reserve(len(node.value) * NUMPY_DTYPE[data_type].itemsize, node):
            return None, data_type
        return list_values(node, data_type, problems), data_type
    if isinstance(node.value, str) and node.value == "deferred":
        problems.add(node.location, "deferred resources (for ONNX dispatchables) are not supported")
        return None, data_type
    if not node.is_map:
        problems.add(node.location, "expected a list of values or an object (constant, sequence, random, "
                                    f"sourcePath), got {show(node.value)}")
        return None, data_type
    keys = set(node.value)
    form = ("file" if "sourcePath" in keys else "constant" if "value" in keys else
            "sequence" if keys & {"valueStart", "valueDelta"} else "random" if "seed" in keys else None)
    if form is None:
        problems.add(node.location, "cannot tell the initializer form: give 'value' (constant), "
                                    "'valueStart'+'valueDelta' (sequence), 'seed' (random) or 'sourcePath'")
        return None, data_type
    for key in sorted(keys - FORMS[form]):
        child = node.get(key)
        problems.add(child.location if child else node.location,
                     f"unknown key '{key}' for a {form} initializer (keys: {', '.join(sorted(FORMS[form]))})")
    if form == "file":
        if not allow_file:
            problems.add(node.location, "sourcePath is not allowed here")
            return None, data_type
        return _load_file(node.get("sourcePath"), data_type, sources, problems, reserve)  # type: ignore[arg-type]
    if data_type is None:
        return None, None
    before = problems.count
    count = _count(node.get("valueCount"), node, problems)
    if form == "constant":
        value = scalar(node.get("value"), data_type, problems)  # type: ignore[arg-type] - "value" picked the form
        if count is None or value is None or not reserve(count * NUMPY_DTYPE[data_type].itemsize, node):
            return None, data_type
        return np.full(count, _cast([value], data_type)[0], NUMPY_DTYPE[data_type]), data_type
    if form == "sequence":
        start, delta = (scalar(child, data_type, problems) if (child := required(node, k, problems)) else None
                        for k in ("valueStart", "valueDelta"))
        if count is None or start is None or delta is None:
            return None, data_type
        if not reserve(count * NUMPY_DTYPE[data_type].itemsize, node):
            return None, data_type
        return sequence_values(count, start, delta, data_type), data_type
    random = _parse_random(node, data_type, problems)
    if random is None or count is None or problems.count > before:
        return None, data_type
    if not reserve(count * NUMPY_DTYPE[data_type].itemsize, node):
        return None, data_type
    return random_values(random.pop("seed"), count, data_type, **random), data_type


def _random_bound(node: Node | None, parent: Node, key: str, data_type: int, problems: Diagnostics
                  ) -> float | None:
    """``min``/``max`` of the uniform form: finite; for integer types an integer the type holds."""
    if node is None or data_type in FLOAT_TYPES:
        return _finite(node, parent, key, problems)
    value = scalar(node, data_type, problems)
    return None if value is None else value


def _parse_random(node: Node, data_type: int, problems: Diagnostics) -> dict[str, Any] | None:
    seed_node = node.get("seed")
    seed = seed_node.value if seed_node is not None else None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**128:
        problems.add(seed_node.location if seed_node else node.location,
                     f"seed must be an integer in [0, 2^128), got {show(seed)}")
        return None
    dist_node = node.get("distribution")
    distribution = dist_node.value if dist_node is not None else "uniform"
    if distribution not in ("uniform", "normal"):
        problems.add(dist_node.location if dist_node else node.location,
                     f"distribution must be 'uniform' or 'normal', got {show(distribution)}")
        return None
    if distribution == "normal":
        if data_type not in FLOAT_TYPES:
            problems.add(node.location, "the normal distribution needs a float data type")
            return None
        for key in ("min", "max"):
            if key in node:
                problems.add(node.get(key).location, f"'{key}' belongs to the uniform distribution")  # type: ignore[union-attr]
        mean = _finite(node.get("mean"), node, "mean", problems, 0.0)
        stddev = _finite(node.get("stddev"), node, "stddev", problems, 1.0)
        low = high = 0.0
    else:
        for key in ("mean", "stddev"):
            if key in node:
                problems.add(node.get(key).location, f"'{key}' belongs to the normal distribution")  # type: ignore[union-attr]
        low = _random_bound(node.get("min"), node, "min", data_type, problems)
        high = _random_bound(node.get("max"), node, "max", data_type, problems)
        mean, stddev = 0.0, 1.0
        if low is not None and high is not None and high < low:
            problems.add(node.location, f"max {show(high)} is less than min {show(low)}")
            return None
    if None in (low, high, mean, stddev):
        return None
    return {"seed": seed, "distribution": distribution, "low": low, "high": high, "mean": mean, "stddev": stddev}


def _inside(path: str, folders: list[Path]) -> bool:
    return any(os.path.commonpath([path, os.path.realpath(folder)]) == os.path.realpath(folder)
               for folder in folders)


def _source(node: Node, sources: Sources, problems: Diagnostics) -> str | None:
    """The real path of a ``sourcePath``: found relative to the model's folder, then each ``--input_path``
    folder; inside one of them (after symlinks) unless any path is allowed; a regular file."""
    text = node.value
    if "\0" in text:
        problems.add(node.location, "sourcePath must not contain a NUL character")
        return None
    given = Path(text)
    candidates = [given] if given.is_absolute() else [folder / given for folder in sources.folders]
    found = next((c for c in candidates if os.path.lexists(c)), None)
    if found is None:
        where = "" if given.is_absolute() else " in the model's folder" + (
            " or the --input_path folders" if sources.limits.input_dirs else "")
        problems.add(node.location, f"cannot read {show(text)}: no such file{where}")
        return None
    real = os.path.realpath(found)
    if not sources.limits.allow_any_path and not _inside(real, sources.folders):
        problems.add(node.location, f"{show(text)} is outside the model's folder and the --input_path folders "
                                    "(give its folder with --input_path, or --allow-any-path)")
        return None
    try:
        mode = os.stat(real).st_mode
    except OSError as exc:
        problems.add(node.location, f"cannot read {show(text)}: {exc.strerror}")
        return None
    if not stat.S_ISREG(mode):
        kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else
                "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else
                "not a regular file")
        problems.add(node.location, f"{show(text)} is {kind}: sourcePath reads regular files only")
        return None
    return real


def _read_exactly(handle: BinaryIO, size: int) -> bytes | None:
    data = handle.read(size)
    return data if len(data) == size else None


def _load_file(node: Node | None, data_type: int | None, sources: Sources, problems: Diagnostics,
               reserve: Reserve) -> tuple[np.ndarray | None, int | None]:
    if node is None or not isinstance(node.value, str) or not node.value:
        if node is not None:
            problems.add(node.location, f"sourcePath must be a file name, got {show(node.value)}")
        return None, data_type
    if Path(node.value).suffix.lower() in (".png", ".jpg", ".jpeg"):
        problems.add(node.location, "image initializers are not supported")
        return None, data_type
    real = _source(node, sources, problems)
    if real is None:
        return None, data_type
    try:
        # O_NONBLOCK: should the file have become a FIFO since it was checked, opening it does not hang
        fd = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                problems.add(node.location, f"{show(node.value)} is not a regular file")
                return None, data_type
            if real.lower().endswith(".npy"):
                return _read_npy(handle, info.st_size, node, data_type, problems, reserve)
            return _read_raw(handle, info.st_size, node, data_type, problems, reserve)
    except (OSError, ValueError) as exc:
        problems.add(node.location, f"cannot read {show(node.value)}: {exc}")
        return None, data_type


def _read_raw(handle: BinaryIO, size: int, node: Node, data_type: int | None, problems: Diagnostics,
              reserve: Reserve) -> tuple[np.ndarray | None, int | None]:
    if data_type is None:
        problems.add(node.location, "a raw data file needs initialValuesDataType")
        return None, None
    itemsize = NUMPY_DTYPE[data_type].itemsize
    if size % itemsize or not size:
        problems.add(node.location, f"{show(node.value)} holds {size} bytes, not a whole number of "
                                    f"{data_type_name(data_type)} values")
        return None, data_type
    if not reserve(size, node):
        return None, data_type
    raw = _read_exactly(handle, size)
    if raw is None:
        problems.add(node.location, f"{show(node.value)} changed while it was read")
        return None, data_type
    return np.frombuffer(raw, NUMPY_DTYPE[data_type]).copy(), data_type


def _read_npy(handle: BinaryIO, size: int, node: Node, data_type: int | None, problems: Diagnostics,
              reserve: Reserve) -> tuple[np.ndarray | None, int | None]:
    """A .npy file, its header checked (type, shape against the file's length and the budget) first."""
    fmt = np.lib.format
    version = fmt.read_magic(handle)
    readers = {(1, 0): fmt.read_array_header_1_0, (2, 0): fmt.read_array_header_2_0}
    if version not in readers:
        problems.add(node.location, f"{show(node.value)}: .npy format version {version} is not supported")
        return None, data_type
    shape, fortran_order, dtype = readers[version](handle)
    file_type = next((t for t, d in NUMPY_DTYPE.items() if d == dtype.newbyteorder("<") or d == dtype), None)
    if file_type is None:
        problems.add(node.location, f"{show(node.value)} has dtype {show(str(dtype))}, which is no "
                                    "DML_TENSOR_DATA_TYPE")
        return None, data_type
    if data_type is not None and file_type != data_type:
        problems.add(node.location, f"data type from file {show(node.value)} ({data_type_name(file_type)}) does "
                                    f"not match initialValuesDataType ({data_type_name(data_type)})")
        return None, data_type
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > size - handle.tell():
        problems.add(node.location, f"{show(node.value)}: its header's shape {show(shape)} needs more bytes "
                                    "than the file holds")
        return None, data_type
    if not nbytes:
        problems.add(node.location, f"{show(node.value)} holds no values")
        return None, data_type
    if not reserve(nbytes, node):
        return None, data_type
    raw = _read_exactly(handle, nbytes)
    if raw is None:
        problems.add(node.location, f"{show(node.value)} changed while it was read")
        return None, data_type
    array = np.frombuffer(raw, dtype)
    if fortran_order and len(shape) > 1:
        array = array.reshape(shape[::-1]).transpose()
    return (np.ascontiguousarray(array.reshape(-1), NUMPY_DTYPE[file_type]),
            DML_TENSOR_DATA_TYPE(file_type))
