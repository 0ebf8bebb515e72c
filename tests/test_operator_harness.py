"""The differential harness: every implemented operator, random valid descs, adversarial layouts and values.

For each operator (found by discovery: dmlsim.operators.harness.implemented_operators) the harness draws
``--harness-cases`` cases (else ``DMLSIM_HARNESS_CASES``, else 2, as in ``make test``; ``make harness`` runs
more) from the operator's ``cases.py`` or the generic same-shape draw (dmlsim/operators/harness.py), and for
each case, on every device:

- places **every** tensor -- inputs, outputs, tensor-array elements, the temporary and persistent resources --
  at a distinct non-zero offset (multiples of 16; 256 for the resources) inside one or two buffers shared
  between roles, the gaps and every tensor's padding filled with random guard bytes; sometimes an output in
  place over the input it may alias;
- fills the inputs with adversarial values (±0, ±inf, NaN, subnormals, rounding ties, integer extremes);
- executes through the public API (tests/dispatch.py), the operator initializer included where an input is
  OWNED_BY_DML;
- checks that no byte outside the outputs' elements changed (gaps, padding, slack, inputs), and that every
  output equals the operator's float64 formula (``Operator.evaluate`` on the values the device was given)
  within the case's ulp tolerance: NaN where NaN, infinities exactly, integers exactly. Differences below the
  smallest normal number pass (D3D flushes float32 subnormals; a device may too).

The reference device runs the same cases, so its strided views and offsets are checked against the same
formula. A failure names the case's seed: ``DMLSIM_HARNESS_REPLAY=<seed> pytest tests/test_operator_harness.py
-k <operator>`` runs exactly that case again. ``DMLSIM_HARNESS_SEED`` changes the base seed (CI's is fixed).
"""

from __future__ import annotations

import os
import zlib
from typing import Any

import numpy as np
import pytest
from dispatch import Dispatch

import dmlsim as dml
from dmlsim.api.numerics import ulp
from dmlsim.api.schema import INPUT, OUTPUT, desc_fields
from dmlsim.api.tensor import TensorLayout, store_elements, strided_array
from dmlsim.operators.harness import FLOAT_TYPES, Case, adversarial, drawer, implemented_operators, schema_of
from dmlsim.operators.validation import validate_operator_desc

SEED = int(os.environ.get("DMLSIM_HARNESS_SEED", "20261126"))
CASES = int(os.environ.get("DMLSIM_HARNESS_CASES", "2"))
REPLAY = os.environ.get("DMLSIM_HARNESS_REPLAY")
OPERATORS = implemented_operators()
TENSOR_ALIGN, RESOURCE_ALIGN = 16, 256


def case_seeds(op, count: int | None = None) -> list[int]:
    """The seeds of an operator's cases: ``count`` (``--harness-cases``, else $DMLSIM_HARNESS_CASES, else 2)
    derived from the base seed and the operator's name, or the one seed being replayed."""
    if REPLAY:
        return [int(REPLAY)]
    return [zlib.crc32(f"{SEED}:{op.name}:{i}".encode()) for i in range(count or CASES)]


class Placed:
    """Where one tensor (or resource) lives: buffer index and byte offset, and its layout (None: a resource)."""

    def __init__(self, buffer: int, offset: int, size: int, layout: TensorLayout | None) -> None:
        self.buffer, self.offset, self.size, self.layout = buffer, offset, size, layout

    def element_bytes(self) -> np.ndarray:
        """Byte offsets (in the buffer) of every byte of every element."""
        layout = self.layout
        index = self._indices()
        if layout.sub_byte:  # 4-bit: the bytes holding an element (its neighbour nibble is checked apart)
            return (2 * self.offset + index) >> 1
        starts = self.offset + index * layout.element_size
        return (starts[:, None] + np.arange(layout.element_size)[None, :]).ravel()

    def foreign_nibbles(self) -> tuple[np.ndarray, np.ndarray]:
        """A 4-bit tensor: (byte offsets, nibble masks) of the nibbles that share a byte with an element but
        are none: a kernel writing whole bytes would change them."""
        nibbles = np.unique(2 * self.offset + self._indices())
        mask = np.zeros(int(nibbles.max()) // 2 + 1, np.uint8)
        np.bitwise_or.at(mask, nibbles >> 1, np.where(nibbles & 1, 0xF0, 0x0F).astype(np.uint8))
        used = np.unique(nibbles >> 1)
        return used, (~mask[used]).astype(np.uint8)

    def _indices(self) -> np.ndarray:
        """Every element's index (in elements from the tensor's start), strides honoured."""
        index = np.zeros(1, np.int64)
        for size, stride in zip(self.layout.sizes, self.layout.strides, strict=True):
            index = (index[:, None] + np.arange(size, dtype=np.int64)[None, :] * stride).ravel()
        return index


class Plan:
    """The layout of one case's buffers: every tensor's place, the guard bytes, the input values written."""

    def __init__(self, op, case: Case, rng: np.random.Generator, resources: dict[str, int]) -> None:
        self.validated = validate_operator_desc(case.op_desc(op))
        rows = [row for row in desc_fields(type(case.desc)) if row.is_tensor]
        self.inputs = [row for row in rows if row.spec.role == INPUT]
        self.outputs = [row for row in rows if row.spec.role == OUTPUT]
        tensors = self.validated.tensors
        schema = schema_of(op)
        in_place_ok = schema is None or schema.supports_in_place
        self.aliased: dict[str, str] = {}
        if in_place_ok and rng.random() < 0.3:
            for row in self.outputs:
                source = row.spec.aliases
                out, src = tensors.get(row.name), tensors.get(source) if source else None
                # bound with SizeInBytes = TotalTensorSizeInBytes, so only equal totals give identical regions
                if (isinstance(out, TensorLayout) and isinstance(src, TensorLayout) and out.same_layout(src)
                        and out.total_bytes == src.total_bytes and not src.owned_by_dml
                        and all(s != 0 for s in src.strides)):
                    self.aliased[row.name] = source
        self.buffers = int(rng.integers(1, 3))
        regions: list[tuple[str, TensorLayout | None, int]] = []
        for row in [*self.inputs, *self.outputs]:
            layout = tensors.get(row.name)
            if layout is None or row.name in self.aliased:
                continue
            for i, item in enumerate(layout if isinstance(layout, list) else [layout]):
                key = f"{row.name}[{i}]" if isinstance(layout, list) else row.name
                regions.append((key, item, item.total_bytes))
        regions += [(f"@{kind}", None, size) for kind, size in resources.items() if size]
        order = rng.permutation(len(regions))
        cursors = [0] * self.buffers
        self.places: dict[str, Placed] = {}
        for k in order:
            key, layout, size = regions[k]
            b = int(rng.integers(self.buffers))
            align = RESOURCE_ALIGN if layout is None else TENSOR_ALIGN * max(1, int(rng.integers(1, 3)))
            start = cursors[b] + TENSOR_ALIGN * int(rng.integers(1, 4))  # never offset 0, gaps between tensors
            start = -(-start // align) * align
            self.places[key] = Placed(b, start, size, layout)
            cursors[b] = start + size
        for out, src in self.aliased.items():
            self.places[out] = self.places[src]
        self.sizes = [-(-(c + TENSOR_ALIGN * 4) // 4) * 4 for c in cursors]
        self.before = [rng.integers(0, 256, size, dtype=np.uint8) for size in self.sizes]
        self.values: dict[str, Any] = {}
        for row in self.inputs:
            layout = tensors.get(row.name)
            if layout is None:
                self.values[row.name] = None
                continue
            fill = case.fills.get(row.name)
            items = layout if isinstance(layout, list) else [layout]
            written = []
            for i, item in enumerate(items):
                key = f"{row.name}[{i}]" if isinstance(layout, list) else row.name
                data = (fill(rng, item.sizes, item.data_type) if fill
                        else adversarial(rng, item.sizes, item.data_type))
                place = self.places[key]
                store_elements(self.before[place.buffer], item, place.offset,
                               np.broadcast_to(np.asarray(data).astype(item.dtype), item.sizes))
                # what the device reads (broadcast elements: the last write)
                written.append(np.array(strided_array(self.before[place.buffer], item, place.offset)))
            self.values[row.name] = written if isinstance(layout, list) else written[0]
        for name in op.prior_outputs(self.validated):  # outputs read before they are written (a KV cache)
            place, layout, fill = self.places[name], tensors[name], case.fills.get(name)
            view = strided_array(self.before[place.buffer], layout, place.offset)
            if fill:
                view[...] = np.broadcast_to(np.asarray(fill(rng, layout.sizes, layout.data_type)).astype(layout.dtype),
                                            layout.sizes)
            self.values[name] = np.array(view)

    def field_place(self, name: str) -> Any:
        layout = self.validated.tensors[name]
        if isinstance(layout, list):
            return [self.places[f"{name}[{i}]"] for i in range(len(layout))]
        return self.places[name]


def expected_outputs(op, plan: Plan) -> dict[str, Any]:
    with np.errstate(all="ignore"):
        return op.evaluate(plan.validated, dict(plan.values))


def judge(name: str, got: np.ndarray, expected: Any, layout: TensorLayout, case: Case, bound: Any,
          slack: Any = None) -> str | None:
    """None when ``got`` matches the formula's ``expected`` (see the module docstring), else what differs.

    Float outputs: NaN where NaN, infinities exactly (a finite float64 result that overflows the output type
    is expected as that infinity), finite values within ``ulps`` of the output type at max(|expected|,
    bound) plus ``slack`` (the formula's own spread under input perturbation, where the case asks for it);
    an error below the type's smallest normal number passes. Integer outputs: exactly.
    """
    shape = got.shape
    if layout.data_type in FLOAT_TYPES:
        dtype = layout.dtype
        ulps = case.ulps16 if dtype == np.float16 else case.ulps
        with np.errstate(all="ignore"):
            exp = np.broadcast_to(np.asarray(expected, np.float64), shape)
            rounded = exp.astype(dtype).astype(np.float64)  # overflow to ±inf happens when the result is stored
            target = np.where(np.isinf(rounded) & np.isfinite(exp), rounded, exp)
            g = got.astype(np.float64)
            scale = np.abs(target)
            if bound is not None:  # a bound made infinite or NaN by ±inf/NaN inputs bounds nothing: |target| then
                b = np.broadcast_to(np.asarray(bound, np.float64), shape)
                scale = np.where(np.isfinite(b), np.maximum(scale, b), scale)
            allowed = ulps * ulp(scale, dtype) + (0.0 if slack is None else np.broadcast_to(slack, shape))
            error = np.abs(g - target)
            finite = np.isfinite(g) & np.isfinite(target)
            ok = ((np.isnan(g) & np.isnan(target)) | (np.isinf(target) & (g == target))
                  | (finite & ((error <= allowed) | (error <= float(np.finfo(dtype).tiny)))))
        wrong = np.argwhere(~ok)
        if len(wrong) == 0:
            return None
        lines = [f"{name}: {len(wrong)} of {got.size} element(s) out of tolerance ({ulps:g} ulp):"]
        lines += [f"  at {idx.tolist()}: got {g[tuple(idx)]!r}, expected {target[tuple(idx)]!r} "
                  f"(allowed error {allowed[tuple(idx)]:.3g})" for idx in wrong[:8]]
        return "\n".join(lines)
    with np.errstate(all="ignore"):
        exp = np.broadcast_to(np.asarray(expected), shape)
        if exp.dtype.kind == "f" and np.isnan(exp).any():
            return (f"{name}: the float64 formula gives NaN for an integer output at "
                    f"{np.argwhere(np.isnan(exp))[:4].tolist()}")
        exp = exp.astype(got.dtype)
    wrong = np.argwhere(got != exp)
    if len(wrong) == 0:
        return None
    lines = [f"{name}: {len(wrong)} of {got.size} integer element(s) differ:"]
    lines += [f"  at {idx.tolist()}: got {got[tuple(idx)]!r}, expected {exp[tuple(idx)]!r}" for idx in wrong[:8]]
    return "\n".join(lines)


def spread(op, plan: Plan, case: Case) -> dict[str, Any]:
    """|f(x·(1±s)) − f(x)| per output for a case with ``sensitivity`` s: how far the formula itself moves when
    its float inputs move by a few float32 roundings (ill-conditioned points: acosh near 1, a sum of terms that
    cancel under a scale-bias)."""
    if not case.sensitivity:
        return {}
    base = expected_outputs(op, plan)
    worst: dict[str, Any] = {}
    for sign in (1.0, -1.0):
        moved = dict(plan.values)
        for key, value in plan.values.items():
            if isinstance(value, np.ndarray) and value.dtype.kind == "f":
                moved[key] = value.astype(np.float64) * (1.0 + sign * case.sensitivity)
        with np.errstate(all="ignore"):
            other = op.evaluate(plan.validated, moved)
            for name, value in other.items():
                if value is None or isinstance(value, list) or base.get(name) is None:
                    continue
                diff = np.abs(np.asarray(value, np.float64) - np.asarray(base[name], np.float64))
                diff = np.where(np.isnan(diff), 0.0, diff)
                worst[name] = diff if name not in worst else np.maximum(worst[name], diff)
    return worst


def run_case(device, op, case: Case, seed: int) -> list[str]:
    """Execute one case on ``device``; the problems found (empty: it passed)."""
    rng = np.random.default_rng(seed)
    op_desc = case.op_desc(op)
    try:
        compiled = device.CompileOperator(device.CreateOperator(op_desc), 0)
    except dml.DMLError as e:
        if "FLOAT64" in str(e) and "support" in str(e).lower():
            return []  # the device has no cl_khr_fp64: refused with a clear error, as the doc allows
        raise
    props = compiled.GetBindingProperties()
    plan = Plan(op, case, rng, {"temporary": props.TemporaryResourceSize, "persistent": props.PersistentResourceSize})
    buffers = [device.CreateBuffer(size) for size in plan.sizes]
    for buffer, data in zip(buffers, plan.before, strict=True):
        buffer.Write(data.tobytes(), 0)

    def place(p):
        return [(buffers[q.buffer], q.offset) for q in p] if isinstance(p, list) else (buffers[p.buffer], p.offset)

    placement = {row.name: place(plan.field_place(row.name)) for row in [*plan.inputs, *plan.outputs]
                 if plan.validated.tensors.get(row.name) is not None}
    resources = {kind[1:]: (buffers[p.buffer], p.offset) for kind, p in plan.places.items() if kind.startswith("@")}
    dispatch = Dispatch(device, op_desc, placement=placement, resources=resources)
    dispatch.execute()
    after = [np.frombuffer(b.Read(0, size), np.uint8) for b, size in zip(buffers, plan.sizes, strict=True)]

    problems = []
    written = [np.zeros(size, bool) for size in plan.sizes]
    for key, p in plan.places.items():
        if key.startswith("@"):  # scratch and persistent state: the operator's to write
            written[p.buffer][p.offset:p.offset + p.size] = True
        elif key.split("[")[0] in {row.name for row in plan.outputs}:
            written[p.buffer][p.element_bytes()] = True
    for b in range(len(buffers)):
        changed = np.flatnonzero((after[b] != plan.before[b]) & ~written[b])
        if len(changed):
            owners = [k for k, p in plan.places.items() if p.buffer == b and p.offset <= changed[0] < p.offset + p.size]
            problems.append(f"buffer {b}: {len(changed)} byte(s) outside the outputs' elements changed, first at "
                            f"{int(changed[0])} ({'inside ' + owners[0] if owners else 'a gap'})")

    for key, p in plan.places.items():
        if p.layout is not None and p.layout.sub_byte and key.split("[")[0] in {row.name for row in plan.outputs}:
            where, foreign = p.foreign_nibbles()
            if ((after[p.buffer][where] ^ plan.before[p.buffer][where]) & foreign).any():
                problems.append(f"{key}: a nibble beside a 4-bit output element (no element itself) changed")

    expected = expected_outputs(op, plan)
    bounds = case.bound(plan.values) if case.bound else {}
    slacks = spread(op, plan, case)
    for row in plan.outputs:
        layout = plan.validated.tensors.get(row.name)
        if layout is None or expected.get(row.name) is None:
            continue
        items = layout if isinstance(layout, list) else [layout]
        exp_items = expected[row.name] if isinstance(layout, list) else [expected[row.name]]
        bound_items = bounds.get(row.name)
        bound_items = bound_items if isinstance(layout, list) else [bound_items]
        for i, (item, exp) in enumerate(zip(items, exp_items, strict=True)):
            key = f"{row.name}[{i}]" if isinstance(layout, list) else row.name
            p = plan.places[key]
            got = np.array(strided_array(after[p.buffer], item, p.offset))
            bound = None if bound_items is None else bound_items[i]
            why = judge(key, got, exp, item, case, bound, None if isinstance(layout, list) else slacks.get(key))
            if why:
                problems.append(why)
    return problems


def describe(op, case: Case, seed: int, device) -> str:
    adapter = getattr(device, "adapter", None)
    where = getattr(adapter, "label", None) or type(device).__name__
    lines = [f"{op.name} case seed {seed} on {where}" + (f" ({case.note})" if case.note else "")]
    for row in desc_fields(type(case.desc)):
        value = getattr(case.desc, row.name)
        if row.is_tensor and value is not None:
            items = value if isinstance(value, list) else [value]
            value = [(int(t.Desc.DataType), list(t.Desc.Sizes), t.Desc.Strides and list(t.Desc.Strides), t.Desc.Flags)
                     for t in items]
        lines.append(f"  {row.name} = {value!r}")
    lines.append(f"  replay: DMLSIM_HARNESS_REPLAY={seed} pytest tests/test_operator_harness.py -k '{op.name}'")
    return "\n".join(lines)


@pytest.mark.parametrize("op", OPERATORS, ids=[op.name.removeprefix("DML_OPERATOR_") for op in OPERATORS])
def test_operator_harness(op, device, request):
    draw = drawer(op)
    failures = []
    for seed in case_seeds(op, request.config.getoption("--harness-cases")):
        case = draw(op, np.random.default_rng(seed))
        try:
            problems = run_case(device, op, case, seed)
        except dml.DMLError as e:
            problems = [f"refused a valid desc or binding: {e}"]
        if problems:
            failures.append(describe(op, case, seed, device) + "\n" + "\n".join(problems))
    assert not failures, "\n\n".join(failures)


def test_every_implemented_operator_is_in_the_harness():
    """Discovery, not a list: every registered, implemented operator is drawn (here once, on no device)."""
    from dmlsim.operators.base import OPERATORS as REGISTRY

    assert {op.type for op in OPERATORS} == {t for t, op in REGISTRY.items() if op.implemented}
    for op in OPERATORS:
        case = drawer(op)(op, np.random.default_rng(1))
        validate_operator_desc(case.op_desc(op))
