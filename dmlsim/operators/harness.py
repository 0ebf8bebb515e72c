"""How the differential harness draws valid descs of an operator (tests/test_operator_harness.py).

The harness proves every implemented operator the same way: it draws random *valid* descs, places every
tensor at a non-zero offset inside guard-filled buffers shared between roles, fills the inputs with
adversarial values (±0, ±inf, NaN, denormals, rounding ties, the integer types' extremes), runs the dispatch
on every device and compares each with the operator's float64 formula, checking that no byte outside the
outputs' elements changed.

What it needs from an operator is one function, ``draw(op, rng) -> Case``, found by discovery:

- ``dmlsim/operators/<folder>/cases.py`` defines ``draw`` when the operator's shapes are related by rules
  (GEMM's M/N/K, a convolution's output size, a reduction's axes); one function serves every member of a
  family (it gets the operator instance).
- Without a ``cases.py``, :func:`draw_same_shape` is used: every tensor the same sizes, data types from the
  signatures CreateOperator accepts, attributes drawn by kind. An operator it cannot draw fails the harness
  with a message asking for a ``cases.py``: no list names the operators.

Everything here builds descs through the public structs and checks them with CreateOperator's own
validation (:func:`dmlsim.operators.validation.validate_operator_desc`), so a drawn case is a desc a user
could send.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.util
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import FUSED_ACTIVATION_TYPES, OPERATOR_SCHEMAS
from dmlsim.api.enums import DML_TENSOR_DATA_TYPE
from dmlsim.api.errors import DMLError
from dmlsim.api.schema import ATTRIBUTE, INPUT, OUTPUT, count_fields, desc_fields
from dmlsim.api.structs import DML_BUFFER_TENSOR_DESC, DML_OPERATOR_DESC, DML_SCALE_BIAS, DML_TENSOR_DESC
from dmlsim.api.tensor import NUMPY_DTYPE, DMLCalcBufferTensorSize, value_dtype
from dmlsim.operators.base import OPERATORS, Operator

_T = DML_TENSOR_DATA_TYPE
FLOAT_TYPES = (_T.DML_TENSOR_DATA_TYPE_FLOAT32, _T.DML_TENSOR_DATA_TYPE_FLOAT16, _T.DML_TENSOR_DATA_TYPE_FLOAT64)
# The 4-bit types (DML_FEATURE_LEVEL_6_3), which only QUANTIZE/DEQUANTIZE take (their cases.py draws them).
SUB_BYTE_TYPES = (_T.DML_TENSOR_DATA_TYPE_UINT4, _T.DML_TENSOR_DATA_TYPE_INT4)
# Every whole-byte data type: what a family's cases.py draws from.
EVERY_TYPE = tuple(t for t in _T if t != _T.DML_TENSOR_DATA_TYPE_UNKNOWN and t not in SUB_BYTE_TYPES)
# Integer types narrower than their numpy type (4-bit values are held in int8/uint8)
INTEGER_RANGE = {_T.DML_TENSOR_DATA_TYPE_INT4: (-8, 7), _T.DML_TENSOR_DATA_TYPE_UINT4: (0, 15)}
OWNED_BY_DML = 1

# rng, sizes, data type -> the tensor's logical values (any array broadcastable to sizes; stored in the type)
Fill = Callable[[np.random.Generator, tuple[int, ...], int], np.ndarray]
# the inputs' logical values (float64/int arrays, tensor arrays as lists) -> {output field: magnitude bound}
Bound = Callable[[dict[str, Any]], dict[str, Any]]


class DrawError(Exception):
    """No valid desc could be drawn for an operator (the message says what CreateOperator refused)."""


@dataclass
class Case:
    """One drawn dispatch: a valid desc and how to judge it.

    ``fills`` overrides the adversarial values of an input field (a tensor array's fill serves each element).
    ``ulps``: tolerance of FLOAT32/FLOAT64 outputs, ``ulps16`` of FLOAT16 outputs, both in units of the
    output type at ``max(|expected|, bound)``; ``bound`` gives a magnitude bound per output where terms
    cancel (sums, products of sums); integer outputs compare exactly. ``sensitivity`` s > 0 widens the tolerance
    of float outputs by how far the formula moves when its float inputs move by the relative amount s (for
    ill-conditioned functions computed in float32: acosh near 1, log near 1 after a scale-bias); never for
    functions with jumps (ROUND, FLOOR), where it would hide a wrong tie. ``note`` names the case's choices.
    """

    desc: Any
    fills: dict[str, Fill] = field(default_factory=dict)
    ulps: float = 4.0
    ulps16: float = 1.0
    bound: Bound | None = None
    sensitivity: float = 0.0
    note: str = ""

    def op_desc(self, op: Operator) -> DML_OPERATOR_DESC:
        return DML_OPERATOR_DESC(op.type, self.desc)


# --- values --------------------------------------------------------------------------------------------
def float_specials(data_type: int) -> np.ndarray:
    """±0, ±inf, NaN, the smallest subnormals and normals, and half-way ties of rounding to integers."""
    info = np.finfo(NUMPY_DTYPE[data_type])
    tiny = float(info.tiny)
    sub = float(info.smallest_subnormal)
    return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, sub, -sub, tiny, -tiny, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
                     1.0, -1.0, 3.0])


def adversarial(rng: np.random.Generator, sizes: Sequence[int], data_type: int, *, specials: bool = True,
                scale: float = 2.0) -> np.ndarray:
    """Values of ``data_type`` for a tensor of ``sizes``: moderate random numbers with, where ``specials``, about
    a quarter replaced by the type's special values (float_specials; integers: min, max, 0, ±1)."""
    shape = tuple(int(s) for s in sizes)
    count = int(np.prod(shape, dtype=np.int64))
    dtype = value_dtype(data_type)
    if data_type in FLOAT_TYPES:
        values = rng.normal(0.0, scale, count)
        # rounding ties of the storage type: k + 0.5 and the midpoints of FLOAT16 steps
        if specials:
            pick = rng.random(count) < 0.25
            values[pick] = rng.choice(float_specials(data_type), int(pick.sum()))
        return values.astype(dtype).reshape(shape)
    info_min, info_max = INTEGER_RANGE.get(data_type) or (int(np.iinfo(dtype).min), int(np.iinfo(dtype).max))
    low, high = max(info_min, -100), min(info_max, 100)
    values = rng.integers(low, high + 1, count, dtype=np.int64).astype(dtype)
    if specials:
        pick = rng.random(count) < 0.15
        extremes = np.array([info_min, info_max, 0, 1, max(info_min, -1)], dtype=dtype)
        values[pick] = rng.choice(extremes, int(pick.sum()))
    return values.reshape(shape)


def uniform(low: float, high: float) -> Fill:
    """A fill of values uniform in [low, high] (integers for integer types), no special values."""

    def fill(rng: np.random.Generator, sizes: tuple[int, ...], data_type: int) -> np.ndarray:
        dtype = NUMPY_DTYPE[data_type]
        if data_type in FLOAT_TYPES:
            return rng.uniform(low, high, sizes).astype(dtype)
        return rng.integers(int(low), int(high) + 1, sizes).astype(dtype)

    return fill


def finite(scale: float = 1.0) -> Fill:
    """Moderate random values without specials (e.g. weights of a recurrence, where a NaN would poison all)."""

    def fill(rng: np.random.Generator, sizes: tuple[int, ...], data_type: int) -> np.ndarray:
        return adversarial(rng, sizes, data_type, specials=False, scale=scale)

    return fill


def underflow_bound(data_type: int, amplification: Any) -> np.ndarray:
    """A magnitude to add to an output's ``bound`` so that its ulps cover intermediates that underflow.

    A float operation whose result falls below the smallest normal number errs by up to the compute type's
    smallest subnormal in absolute terms, not by half an ulp of its size (float32 computes FLOAT16 and FLOAT32,
    double FLOAT64); a later division by a small denominator (an optimizer's sqrt(V) + ε) or product with a large
    rate multiplies that error by ``amplification`` (the sum of those factors over the intermediates that may
    underflow, e.g. (|rate| + 1) / denominator). One ulp of the returned magnitude, in the output's type, is at
    least that amplified error, so the case's ulps cover it beside the rounding errors of the terms.
    """
    subnormal = float(np.finfo(np.float64 if data_type == _T.DML_TENSOR_DATA_TYPE_FLOAT64 else np.float32)
                      .smallest_subnormal)
    half_eps = float(np.finfo(NUMPY_DTYPE[data_type]).eps) / 2  # one ulp of v is at least v * eps / 2
    with np.errstate(all="ignore"):
        return np.abs(np.asarray(amplification, np.float64)) * (subnormal / half_eps)


# --- tensor descs ---------------------------------------------------------------------------------------
def draw_sizes(rng: np.random.Generator, rank: int, max_elements: int = 96, *, largest: int = 7) -> list[int]:
    """Random sizes of ``rank`` dimensions (each 1..largest), at most ``max_elements`` elements in all."""
    sizes = [1] * rank
    for axis in rng.permutation(rank):
        room = max_elements // max(1, math.prod(sizes))
        sizes[axis] = int(rng.integers(1, max(1, min(largest, room)) + 1))
    return sizes


def draw_strides(rng: np.random.Generator, sizes: Sequence[int], *, broadcast: bool = False,
                 layout: str | None = None) -> list[int] | None:
    """A DirectML stride choice for ``sizes``: packed (None), padded (gaps between rows and elements),
    permuted (dimensions laid out in another order, padded too), or, where ``broadcast``, any of these
    with stride 0 on some dimensions (an input read many times)."""
    choices = ["packed", "padded", "permuted"] + (["broadcast"] if broadcast else [])
    layout = layout or str(rng.choice(choices, p=[0.3, 0.3, 0.2, 0.2] if broadcast else [0.35, 0.4, 0.25]))
    if layout == "packed":
        return None
    order = list(range(len(sizes)))[::-1]  # innermost first
    if layout == "permuted" or (layout == "broadcast" and rng.random() < 0.3):
        order = [int(a) for a in rng.permutation(len(sizes))]
    strides = [0] * len(sizes)
    step = int(rng.integers(1, 3)) if layout != "packed" else 1
    for axis in order:
        strides[axis] = step
        step = step * sizes[axis] + int(rng.integers(0, 3))
    if layout == "broadcast":
        wide = [a for a, s in enumerate(sizes) if s > 1]
        for axis in wide:
            if rng.random() < 0.5:
                strides[axis] = 0
    return strides


def tensor(data_type: int, sizes: Sequence[int], strides: Sequence[int] | None = None, *, flags: int = 0,
           slack: int = 0) -> DML_TENSOR_DESC:
    """A buffer tensor desc with TotalTensorSizeInBytes = DMLCalcBufferTensorSize (+ ``slack``, a multiple of 4)."""
    sizes = [int(s) for s in sizes]
    strides = None if strides is None else [int(s) for s in strides]
    total = DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides) + slack
    return DML_TENSOR_DESC(1, DML_BUFFER_TENSOR_DESC(data_type, flags, len(sizes), sizes, strides, total, 0))


def draw_tensor(rng: np.random.Generator, data_type: int, sizes: Sequence[int], *, role: str = INPUT,
                broadcast: bool | None = None) -> DML_TENSOR_DESC:
    """A tensor of ``sizes`` with a random layout: inputs may broadcast; outputs never (an output written twice
    is a hazard); some get 4..12 bytes of TotalTensorSizeInBytes slack."""
    broadcast = (role == INPUT) if broadcast is None else broadcast
    strides = draw_strides(rng, sizes, broadcast=broadcast)
    slack = int(rng.choice([0, 0, 4, 12]))
    return tensor(data_type, sizes, strides, slack=slack)


# --- attributes ------------------------------------------------------------------------------------------
NICE_FLOATS = (0.5, 1.0, 1.5, 2.0, -0.5, 0.25, 3.0, -1.25)


def draw_attribute(rng: np.random.Generator, name: str, kind: Any, rank: int) -> Any:
    """A plausible value of one attribute, by its kind (array attributes other than ``Axes`` are left to a
    ``cases.py``: their meaning is the operator's)."""
    if isinstance(kind, type) and issubclass(kind, Enum):
        return list(kind)[int(rng.integers(len(kind)))]
    if kind == "FLOAT":
        return float(rng.choice(NICE_FLOATS))
    if kind in ("UINT", "UINT64"):
        return int(rng.integers(0, rank)) if name.endswith("Axis") else int(rng.integers(0, 4))
    if kind in ("INT", "INT64"):
        return int(rng.integers(-3, 4))
    if kind == "BOOL":
        return bool(rng.integers(2))
    if kind == "SCALE_BIAS":
        return None if rng.random() < 0.5 else DML_SCALE_BIAS(float(rng.choice(NICE_FLOATS)),
                                                                float(rng.choice(NICE_FLOATS)))
    if kind == "SCALAR_UNION":  # a plain number, read as the type its *DataType field names
        return int(rng.integers(-3, 4)) if rng.random() < 0.5 else float(rng.choice(NICE_FLOATS))
    if kind == "UINT_ARRAY" and name == "Axes":
        count = int(rng.integers(1, rank + 1))
        return sorted(int(a) for a in rng.choice(rank, count, replace=False))
    if kind == "OPERATOR_DESC":
        return None if rng.random() < 0.5 else draw_fused_activation(rng)
    return None


@functools.cache
def _fused_types() -> tuple[int, ...]:
    return tuple(t for t in sorted(FUSED_ACTIVATION_TYPES) if t in OPERATORS and OPERATORS[t].implemented)


def draw_fused_activation(rng: np.random.Generator) -> DML_OPERATOR_DESC:
    """A fusable activation with null tensors and attributes drawn by kind (CreateOperator of the operator it
    is fused into judges it: a refused one makes the draw try again)."""
    types = _fused_types()
    op = OPERATORS[int(types[int(rng.integers(len(types)))])]
    values = {row.name: draw_attribute(rng, row.name, row.spec.attr_type, 4)
              for row in desc_fields(op.desc_cls) if row.spec.role == ATTRIBUTE}
    return DML_OPERATOR_DESC(op.type, op.desc_cls(**values))


# --- validation and discovery ----------------------------------------------------------------------------
def refusal(op: Operator, desc: Any) -> str | None:
    """Why CreateOperator refuses ``desc`` (None when it accepts it)."""
    from dmlsim.operators.validation import validate_operator_desc

    try:
        validate_operator_desc(DML_OPERATOR_DESC(op.type, desc))
    except DMLError as e:
        return str(e)
    return None


def draw_valid(op: Operator, rng: np.random.Generator, attempt: Callable[[np.random.Generator], Case],
               tries: int = 200) -> Case:
    """Call ``attempt`` until CreateOperator accepts its desc; DrawError with the last refusal otherwise."""
    why = "no attempt"
    for _ in range(tries):
        case = attempt(rng)
        why = refusal(op, case.desc)
        if why is None:
            return case
    raise DrawError(f"{op.name}: no valid desc in {tries} draws; the last was refused: {why}")


def tensor_rows(op: Operator) -> list[Any]:
    return [row for row in desc_fields(op.desc_cls) if row.is_tensor]


@functools.cache
def type_signatures(op: Operator) -> tuple[tuple[int, int], ...]:
    """The (input type, output type) pairs CreateOperator accepts for a same-shape desc of ``op`` (every
    input one type, every output one type), found by trying each pair on small shapes."""
    found = []
    for in_type in (*EVERY_TYPE, *SUB_BYTE_TYPES):  # 4-bit too: an operator that accepted them would be drawn so
        for out_type in (*EVERY_TYPE, *SUB_BYTE_TYPES):
            for rank in (4, 2, 1):
                desc = _same_shape_desc(op, None, [2] * rank, {INPUT: in_type, OUTPUT: out_type}, safe=True)
                if refusal(op, desc) is None:
                    found.append((int(in_type), int(out_type)))
                    break
    return tuple(found)


def _same_shape_desc(op: Operator, rng: np.random.Generator | None, sizes: list[int], types: dict[str, int], *,
                     safe: bool = False) -> Any:
    values: dict[str, Any] = {}
    counts = count_fields(op.desc_cls)  # left None: inferred from their arrays
    for row in desc_fields(op.desc_cls):
        if row.name in counts:
            continue
        if row.spec.attr_type is DML_TENSOR_DATA_TYPE:  # a *DataType attribute names the tensors' type
            values[row.name] = DML_TENSOR_DATA_TYPE(types[OUTPUT])
            continue
        if row.is_tensor:
            if row.is_array or (row.spec.optional and (rng is None or rng.random() < 0.5)):
                continue
            dtype = types[row.spec.role]
            values[row.name] = (tensor(dtype, sizes) if rng is None
                                else draw_tensor(rng, dtype, sizes, role=row.spec.role))
        elif safe:
            kind = row.spec.attr_type
            values[row.name] = (next(iter(kind)) if isinstance(kind, type) and issubclass(kind, Enum)
                                else {"FLOAT": 1.0, "UINT": 0, "INT": 0, "BOOL": False, "SCALAR_UNION": 0}.get(kind)
                                if kind != "UINT_ARRAY" or row.name != "Axes" else [len(sizes) - 1])
        else:
            values[row.name] = draw_attribute(rng, row.name, row.spec.attr_type, len(sizes))
    return op.desc_cls(**values)


def draw_same_shape(op: Operator, rng: np.random.Generator) -> Case:
    """The generic draw: every tensor of one random shape (ranks 1-8), a data-type signature CreateOperator
    accepts, random layouts, attributes by kind, optional tensors present or absent."""
    signatures = type_signatures(op)
    if not signatures:
        raise DrawError(f"{op.name}: no same-shape desc is valid with any data types: give its folder a "
                        "cases.py with draw(op, rng) (dmlsim/operators/harness.py)")

    def attempt(r: np.random.Generator) -> Case:
        rank = int(r.choice([1, 2, 3, 4, 4, 5, 8]))
        in_type, out_type = signatures[int(r.integers(len(signatures)))]
        desc = _same_shape_desc(op, r, draw_sizes(r, rank), {INPUT: in_type, OUTPUT: out_type})
        return Case(desc, ulps=17.0)

    return draw_valid(op, rng, attempt)


def drawer(op: Operator) -> Callable[[Operator, np.random.Generator], Case]:
    """The operator's ``cases.draw`` if its folder has a ``cases.py``, else :func:`draw_same_shape`."""
    package = type(op).__module__
    name = f"{package}.cases"
    if package.startswith("dmlsim.operators.") and importlib.util.find_spec(name) is not None:
        return importlib.import_module(name).draw
    return draw_same_shape


def implemented_operators() -> list[Operator]:
    """Every operator dmlsim runs (the registry, after discovery), in type order."""
    from dmlsim.operators import load_all

    load_all()
    return [OPERATORS[t] for t in sorted(OPERATORS) if OPERATORS[t].implemented]


def schema_of(op: Operator) -> Any:
    return next((s for s in OPERATOR_SCHEMAS if int(s.type) == int(op.type)), None)


def replace(desc: Any, **changes: Any) -> Any:
    """A copy of a desc dataclass with some fields changed."""
    return dataclasses.replace(desc, **changes)
