"""Initial values of resources (and expected values): DxDispatch's forms plus a seeded random form.

Forms: a list (floats also take ``"nan"``, ``"inf"``, ``"-inf"``); a constant ``{valueCount, value}``;
a sequence ``{valueCount, valueStart, valueDelta}`` (accumulated in the target type, as DxDispatch
does); a file ``{sourcePath}`` (``.npy``, or raw bytes); and dmlsim's random form
``{valueCount, seed, min, max}`` or ``{valueCount, seed, distribution: normal, mean, stddev}``.

The random form is reproducible on every machine and numpy version: it uses only the PCG64 bit
stream (whose output numpy guarantees), turned into doubles with 53 random bits, and Box–Muller for
normal values, instead of Generator methods whose algorithms numpy may change.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from dmlsim.api.enums import DML_TENSOR_DATA_TYPE, enum_member
from dmlsim.api.tensor import NUMPY_DTYPE, data_type_name
from dmlsim.model.errors import Diagnostics
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


def parse_data_type(node: Node, problems: Diagnostics) -> DML_TENSOR_DATA_TYPE | None:
    """A DML_TENSOR_DATA_TYPE from its full or prefix-less name (``FLOAT32``); UNKNOWN is refused."""
    try:
        member = enum_member(DML_TENSOR_DATA_TYPE, node.value)
    except (KeyError, ValueError):
        names = ", ".join(m.name.removeprefix("DML_TENSOR_DATA_TYPE_") for m in DML_TENSOR_DATA_TYPE if m.value)
        problems.add(node.location, f"unknown data type {node.value!r} (one of {names})")
        return None
    if member == _T.DML_TENSOR_DATA_TYPE_UNKNOWN:
        problems.add(node.location, "UNKNOWN (mixed-type list initializers for HLSL) is not supported")
        return None
    return DML_TENSOR_DATA_TYPE(member)


def scalar(node: Node, data_type: int, problems: Diagnostics) -> float | int | None:
    """One value of ``data_type`` from the file: a number, or nan/inf strings for float types."""
    value = node.value
    dtype = NUMPY_DTYPE[data_type]
    if data_type in FLOAT_TYPES:
        if isinstance(value, str) and value.strip().lower() in SPECIAL_FLOATS:
            return SPECIAL_FLOATS[value.strip().lower()]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            problems.add(node.location, f"expected a number (or \"nan\", \"inf\", \"-inf\") for "
                                        f"{data_type_name(data_type)}, got {value!r}")
            return None
        return float(value)
    if isinstance(value, bool) or not isinstance(value, int):
        problems.add(node.location, f"expected an integer for {data_type_name(data_type)}, got {value!r}")
        return None
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
        problems.add(node.location, f"{value} does not fit {data_type_name(data_type)} "
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
        problems.add(node.location, f"valueCount must be a positive integer, got {node.value!r}")
        return None
    return node.value


def _number(node: Node | None, parent: Node, key: str, problems: Diagnostics, default: float | None = None
            ) -> float | None:
    if node is None:
        if default is None:
            problems.add(parent.location, f"missing required key '{key}'")
        return default
    if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
        problems.add(node.location, f"{key} must be a number, got {node.value!r}")
        return None
    return float(node.value)


def _cast(values: Any, data_type: int) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(values, dtype=np.float64 if data_type in FLOAT_TYPES else object).astype(
            NUMPY_DTYPE[data_type])


def random_unit(seed: int, count: int) -> np.ndarray:
    """``count`` doubles in [0, 1) from the PCG64 stream of ``seed`` (53 random bits each)."""
    raw = np.random.PCG64(seed).random_raw(count)
    return (raw >> np.uint64(11)).astype(np.float64) * (1.0 / 2**53)


def random_values(seed: int, count: int, data_type: int, *, distribution: str, low: float, high: float,
                  mean: float, stddev: float) -> np.ndarray:
    """The random initializer: uniform in [min, max) (integers: [min, max]) or normal(mean, stddev)."""
    if distribution == "normal":
        pairs = (count + 1) // 2
        u = random_unit(seed, 2 * pairs)
        u1, u2 = 1.0 - u[0::2], u[1::2]  # 1 - u is in (0, 1]: log is finite
        radius = np.sqrt(-2.0 * np.log(u1))
        normal = np.empty(2 * pairs)
        normal[0::2] = radius * np.cos(2 * np.pi * u2)
        normal[1::2] = radius * np.sin(2 * np.pi * u2)
        return _cast(mean + stddev * normal[:count], data_type)
    u = random_unit(seed, count)
    if data_type in FLOAT_TYPES:
        return _cast(low + (high - low) * u, data_type)
    span = int(high) - int(low) + 1
    return _cast([int(low) + min(int(x * span), span - 1) for x in u], data_type)


def parse_values(node: Node, data_type: int | None, base_dir: Path, problems: Diagnostics,
                 *, allow_file: bool = True) -> tuple[np.ndarray | None, int | None]:
    """Values of any initializer form as a numpy array of ``data_type``; also the type (files carry one)."""
    if node.is_list:
        if data_type is None:
            return None, None
        items = [scalar(child, data_type, problems) for child in node.elements()]
        if not items:
            problems.add(node.location, "the list of values must not be empty")
            return None, data_type
        if any(item is None for item in items):
            return None, data_type
        return _cast(items, data_type), data_type
    if isinstance(node.value, str) and node.value == "deferred":
        problems.add(node.location, "deferred resources (for ONNX dispatchables) are not supported")
        return None, data_type
    if not node.is_map:
        problems.add(node.location, "expected a list of values or an object (constant, sequence, random, "
                                    f"sourcePath), got {node.value!r}")
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
        return _load_file(node.get("sourcePath"), data_type, base_dir, problems)
    if data_type is None:
        return None, None
    count = _count(node.get("valueCount"), node, problems)
    if form == "constant":
        value = scalar(node.get("value"), data_type, problems)  # type: ignore[arg-type] - "value" picked the form
        if count is None or value is None:
            return None, data_type
        return _cast([value] * count, data_type), data_type
    if form == "sequence":
        start, delta = (scalar(child, data_type, problems) if (child := required(node, k, problems)) else None
                        for k in ("valueStart", "valueDelta"))
        if count is None or start is None or delta is None:
            return None, data_type
        dtype = NUMPY_DTYPE[data_type]
        out = np.empty(count, dtype)
        current = _cast([start], data_type)[0]
        step = _cast([delta], data_type)[0]
        with np.errstate(all="ignore"):
            for i in range(count):
                out[i] = current
                current = dtype.type(current + step)
        return out, data_type
    return _parse_random(node, count, data_type, problems), data_type


def _parse_random(node: Node, count: int | None, data_type: int, problems: Diagnostics) -> np.ndarray | None:
    seed_node = node.get("seed")
    seed = seed_node.value if seed_node is not None else None
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        problems.add(seed_node.location if seed_node else node.location,
                     f"seed must be a non-negative integer, got {seed!r}")
        return None
    dist_node = node.get("distribution")
    distribution = dist_node.value if dist_node is not None else "uniform"
    if distribution not in ("uniform", "normal"):
        problems.add(dist_node.location if dist_node else node.location,
                     f"distribution must be 'uniform' or 'normal', got {distribution!r}")
        return None
    if distribution == "normal":
        if data_type not in FLOAT_TYPES:
            problems.add(node.location, "the normal distribution needs a float data type")
            return None
        for key in ("min", "max"):
            if key in node:
                problems.add(node.get(key).location, f"'{key}' belongs to the uniform distribution")  # type: ignore[union-attr]
        mean = _number(node.get("mean"), node, "mean", problems, 0.0)
        stddev = _number(node.get("stddev"), node, "stddev", problems, 1.0)
        low = high = 0.0
    else:
        for key in ("mean", "stddev"):
            if key in node:
                problems.add(node.get(key).location, f"'{key}' belongs to the normal distribution")  # type: ignore[union-attr]
        low = _number(node.get("min"), node, "min", problems)
        high = _number(node.get("max"), node, "max", problems)
        mean, stddev = 0.0, 1.0
        if low is not None and high is not None and high < low:
            problems.add(node.location, f"max {high} is less than min {low}")
            return None
    if None in (count, low, high, mean, stddev):
        return None
    return random_values(seed, count, data_type, distribution=distribution, low=low, high=high,  # type: ignore[arg-type]
                         mean=mean, stddev=stddev)  # type: ignore[arg-type]


def _load_file(node: Node | None, data_type: int | None, base_dir: Path, problems: Diagnostics
               ) -> tuple[np.ndarray | None, int | None]:
    if node is None or not isinstance(node.value, str) or not node.value:
        return None, data_type
    path = Path(node.value)
    if not path.is_absolute():
        path = base_dir / path if (base_dir / path).exists() else Path.cwd() / path
    suffix = path.suffix.lower()
    if suffix in (".png", ".jpg", ".jpeg"):
        problems.add(node.location, "image initializers are not supported")
        return None, data_type
    try:
        if suffix == ".npy":
            array = np.load(path, allow_pickle=False)
        else:
            raw = path.read_bytes()
    except (OSError, ValueError) as exc:
        problems.add(node.location, f"cannot read {node.value!r}: {exc}")
        return None, data_type
    if suffix != ".npy":
        if data_type is None:
            problems.add(node.location, "a raw data file needs initialValuesDataType")
            return None, None
        size = NUMPY_DTYPE[data_type].itemsize
        if len(raw) % size or not raw:
            problems.add(node.location, f"{node.value!r} holds {len(raw)} bytes, not a whole number of "
                                        f"{data_type_name(data_type)} values")
            return None, data_type
        return np.frombuffer(raw, NUMPY_DTYPE[data_type]).copy(), data_type
    file_type = next((t for t, d in NUMPY_DTYPE.items() if d == array.dtype.newbyteorder("<")
                      or d == array.dtype), None)
    if file_type is None:
        problems.add(node.location, f"{node.value!r} has dtype {array.dtype}, which is no DML_TENSOR_DATA_TYPE")
        return None, data_type
    if data_type is not None and file_type != data_type:
        problems.add(node.location, f"data type from file {node.value!r} ({data_type_name(file_type)}) does not "
                                    f"match initialValuesDataType ({data_type_name(data_type)})")
        return None, data_type
    return np.ascontiguousarray(array.reshape(-1), NUMPY_DTYPE[file_type]), DML_TENSOR_DATA_TYPE(file_type)
