"""DML_OPERATOR_GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1 (kernel ``gather`` in kernel.cl), SCATTER_ELEMENTS
(DML_OPERATOR_SCATTER is the same value, 94, and the same desc in directml.h) and SCATTER_ND (kernel ``scatter`` in
scatter.cl): outputs whose elements are input elements picked by an index tensor, or an input with elements
replaced at indexed places. One work-item per output element in both kernels. The descs are DirectML's generated
ones; semantics and rules are their doc pages', with dmlsim's decisions where they are silent or contradict
themselves (each pinned by ``tests/test_gather.py`` / ``tests/test_scatter.py``).

Common rules (the pages' tensor constraints and support tables at the newest feature level): InputTensor,
IndicesTensor and OutputTensor have the same DimensionCount, 1 to 8; OutputTensor has InputTensor's DataType;
InputTensor/OutputTensor of any data type (FLOAT64, FLOAT32, FLOAT16, INT64..INT8, UINT64..UINT8: elements are
moved bit for bit, so FLOAT16 and NaN payloads are kept exactly); IndicesTensor INT32, UINT32, INT64 or UINT64.
Any strides on every tensor (stride-0 broadcast and padding on the inputs), tensors at any binding offset. No
in-place execution (the schema marks no input eligible).

Indices: a negative index of a signed type counts from the end of its dimension (-1 is the last element: the
pages, from DML_FEATURE_LEVEL_3_0). Out-of-range indices: GATHER's page says invalid indices give incorrect
output but reads stay inside the input tensor; the other pages are silent. dmlsim's decision, for all four:
an index still outside ``[0, size)`` after the negative wrap is clamped into it (below 0 reads element 0, from
``size`` on the last element), so no read ever leaves the input tensor; a device created with
DML_CREATE_DEVICE_FLAG_DEBUG refuses to execute such a dispatch, naming the first bad index.

- GATHER: ``output[...] = input[..., indices[...], ...]`` along Axis (< DimensionCount). IndexDimensions, the
  number of trailing IndicesTensor dimensions that are real index dimensions, is 0..DimensionCount (the page's
  "[0, IndicesTensor.DimensionCount)" contradicts its own Sizes formula and onnxruntime's DirectML provider,
  which passes the indices' rank, up to the padded DimensionCount: dmlsim accepts the closed range); the
  leading IndicesTensor dimensions before them must be 1. OutputTensor.Sizes are
  ``{Input.Sizes[0..Axis], Indices.Sizes[N - IndexDimensions .. N], Input.Sizes[Axis+1 .. N]}`` right-aligned
  into N dimensions: leading 1s are dropped when it is longer (a dropped entry that is not 1 is refused),
  leading 1s prepended when shorter (IndexDimensions 0).
- GATHER_ELEMENTS: ``output[i, j, k] = input[i, indices[i, j, k], k]`` (Axis 1). IndicesTensor.Sizes equal
  InputTensor.Sizes on every dimension but Axis (the page's rule; ONNX also allows smaller ones: such node cases
  are listed, not mapped); OutputTensor.Sizes equal IndicesTensor.Sizes.
- GATHER_ND / GATHER_ND1: ONNX GatherND with ``batch_dims = BatchDimensionCount`` (0 for GATHER_ND) on the
  real tensors, the trailing InputDimensionCount (r, 1..N) dimensions of InputTensor and IndicesDimensionCount
  (q, 1..N) of IndicesTensor (their leading dimensions must be 1). The last IndicesTensor dimension m is the
  length of each index tuple, 1..r - BatchDimensionCount; BatchDimensionCount < min(r, q), and the batch
  dimensions of the indices equal the input's. OutputTensor.Sizes: ``{Indices.Sizes[N - q .. N - 1],
  Input.Sizes[N - r + BatchDimensionCount + m .. N]}`` right-aligned as for GATHER. The pages write the
  input part as ``Input.Sizes[N - indexTupleSize .. N]``, which contradicts their own pseudo-code
  (``output[...] = input[indices[...]]`` replaces the indexed dimensions) and ONNX: dmlsim follows the
  pseudo-code and ONNX.
- SCATTER_ELEMENTS: ``output = input; output[i, indices[i, j, k], k] = updates[i, j, k]`` (Axis 1). All four
  tensors have the same DimensionCount; UpdatesTensor and OutputTensor have InputTensor's DataType;
  OutputTensor.Sizes equal InputTensor.Sizes; IndicesTensor.Sizes equal InputTensor.Sizes on every dimension but
  Axis; UpdatesTensor.Sizes equal IndicesTensor.Sizes.
- SCATTER_ND: ``output = input; output[indices[i..., :], ...] = updates[i..., ...]`` on the real tensors
  (InputDimensionCount r, IndicesDimensionCount q as for GATHER_ND, leading dimensions 1); the tuple length m
  (last IndicesTensor dimension) is at most r; UpdatesTensor.Sizes are ``{Indices.Sizes[N - q .. N - 1],
  Input.Sizes[N - r + m .. N]}`` right-aligned into N dimensions (as GATHER_ND's output).
- Duplicate indices (SCATTER_ELEMENTS' page: "no guarantee of which last write wins"; its example 1 shows the last
  update winning; SCATTER_ND's page is silent): dmlsim's decision, deterministic on every device: among the
  updates aimed at one output element, the last in row-major order of UpdatesTensor wins (ONNX's reference does
  the same). Each output work-item scans its candidate updates from the last (SCATTER_ELEMENTS: the updates along
  Axis of its line; SCATTER_ND: every index tuple), so the cost is output elements x candidates (``work``).
- Out-of-range indices (both pages silent): an update whose index, after the negative wrap, lies outside its
  dimension is dropped: nothing outside the output is ever written, and the element keeps the input's value unless
  another update targets it. A debug device refuses to execute such a dispatch.
- ONE_HOT (kernel ``one_hot`` in scatter.cl): each sequence along Axis of OutputTensor is OffValue except OnValue
  at the position its index gives. IndicesTensor, ValuesTensor and OutputTensor have the same DimensionCount;
  IndicesTensor.Sizes equal OutputTensor.Sizes with 1 on Axis; ValuesTensor has any Sizes holding at least 2
  elements: OffValue is its first element, OnValue its second in row-major order (the page: the 1st element along
  the fastest-changing dimension of size > 1); ValuesTensor and OutputTensor share a DataType among FLOAT32,
  FLOAT16, INT64..INT8, UINT64..UINT8 (the support table lists no FLOAT64). An index outside the sequence (after
  the negative wrap of signed types) gives a sequence of OffValue only: the page's documented behaviour, so a debug
  device accepts it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import (
    DML_GATHER_ELEMENTS_OPERATOR_DESC,
    DML_GATHER_ND1_OPERATOR_DESC,
    DML_GATHER_ND_OPERATOR_DESC,
    DML_GATHER_OPERATOR_DESC,
    DML_ONE_HOT_OPERATOR_DESC,
    DML_SCATTER_ELEMENTS_OPERATOR_DESC,
    DML_SCATTER_ND_OPERATOR_DESC,
)
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout
from dmlsim.operators.base import Operator, ValidatedDesc, Work, elementwise_work, register, require_same
from dmlsim.operators.gather_scatter.reference import (
    gather,
    gather_elements,
    gather_nd,
    one_hot,
    scatter_elements,
    scatter_nd,
)
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, TensorArg, Vector
from dmlsim.operators.typed import (
    CL_TYPE,
    FLOAT16,
    FLOAT32,
    INT8,
    INT16,
    INT32,
    INT64,
    SIGNED,
    UINT8,
    UINT16,
    UINT32,
    UINT64,
    bits_defines,
    check_axis,
    require_type,
    ulong8,
)

IN, INDICES, OUT = "InputTensor", "IndicesTensor", "OutputTensor"
INDEX_TYPES = (INT32, UINT32, INT64, UINT64)
# One entry of an output's Sizes before right-alignment: (input dimension, indices dimension) it comes from.
Source = tuple[int | None, int | None]


def right_aligned(entries: list[Any], rank: int, fill: Any) -> list[Any]:
    """``entries`` right-aligned into ``rank`` places: leading ones dropped, or ``fill`` prepended."""
    if len(entries) >= rank:
        return entries[len(entries) - rank:]
    return [fill] * (rank - len(entries)) + entries


def refuse_out_of_range(v: ValidatedDesc, read: Callable[[str], Any], problems: Problems, sizes: list[int],
                        along_last: bool, effect: str) -> None:
    """Add a problem naming the first index outside [-size, size) (signed types) or [0, size) (unsigned) of the
    dimension it addresses: ``sizes`` has one size (every index) or, ``along_last``, one per position of the
    indices' last dimension (index tuples)."""
    i = v.layout(INDICES)
    values = np.asarray(read(INDICES))
    bound = np.broadcast_to(np.array(sizes, np.int64) if along_last else np.int64(sizes[0]), values.shape)
    wide = values.astype(np.float64) if i.data_type == UINT64 else values.astype(np.int64)
    low = -bound if i.data_type in SIGNED else np.zeros_like(bound)
    bad = np.argwhere((wide < low) | (wide >= bound))
    if len(bad):
        at = tuple(int(c) for c in bad[0])
        problems.add(f"{v.struct_name}.{INDICES} holds {values[at]} at {list(at)}, outside the dimension of size "
                     f"{int(bound[at])} it indexes ({len(bad)} such index(es)); {effect}")


def index_defines(x: TensorLayout, i: TensorLayout) -> dict[str, Any]:
    """Build defines of both kernels: elements moved bit for bit in the unsigned type of their size, the indices'
    OpenCL type and whether it is signed."""
    return {**bits_defines(x.element_size), "IDX_T": CL_TYPE[i.data_type], "IDX_SIGNED": i.data_type in SIGNED}


class Gather(Operator):
    """The shared template. A member says where each output dimension comes from (:meth:`sources`), which input
    dimensions an index tuple addresses (:meth:`tuple_dims`) and along which indices dimension a tuple lies
    (:meth:`tuple_axis`, None: a single index)."""

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        require_same(v, problems, IN, (INDICES, OUT), ("DimensionCount",))
        require_same(v, problems, IN, (OUT,), ("DataType",))
        require_type(v, problems, INDICES, INDEX_TYPES, f"by {self.name}")
        x, i, y = (v.tensors.get(f) for f in (IN, INDICES, OUT))
        if not all(isinstance(t, TensorLayout) for t in (x, i, y)):
            return
        assert isinstance(x, TensorLayout) and isinstance(i, TensorLayout) and isinstance(y, TensorLayout)
        if not len(x.sizes) == len(i.sizes) == len(y.sizes):
            return  # reported by require_same
        if not self.check_shapes(v, problems, x.sizes, i.sizes):
            return
        self.check_output(v, problems, x.sizes, i.sizes, y.sizes)

    def check_shapes(self, v: ValidatedDesc, problems: Problems, x: tuple[int, ...], i: tuple[int, ...]) -> bool:
        """The member's rules on attributes and input/indices sizes; True when the output can be checked."""
        raise NotImplementedError

    def sources(self, v: ValidatedDesc) -> list[Source]:
        """Each entry of the output's Sizes before right-alignment: (input dim, indices dim), one may be None."""
        raise NotImplementedError

    def tuple_dims(self, v: ValidatedDesc) -> list[int]:
        """The input dimensions the index tuple addresses, in the tuple's order."""
        raise NotImplementedError

    def tuple_axis(self, v: ValidatedDesc) -> int | None:
        """The indices dimension along which an index tuple lies (None: each index element is one index)."""
        return None

    def check_output(self, v: ValidatedDesc, problems: Problems, x: tuple[int, ...], i: tuple[int, ...],
                     y: tuple[int, ...]) -> None:
        entries = [i[b] if b is not None else x[a] for a, b in self.sources(v)]  # type: ignore[index]
        rank = len(y)
        dropped = entries[:max(0, len(entries) - rank)]
        if any(s != 1 for s in dropped):
            problems.add(f"{v.struct_name}: the output's Sizes {entries} have more than OutputTensor.DimensionCount "
                         f"{rank} dimensions and the leading ones to drop are not 1")
            return
        expected = right_aligned(entries, rank, 1)
        if list(y) != expected:
            problems.add(f"{v.struct_name}.{OUT}.Sizes {list(y)} must be {expected} ({self.name}'s output Sizes "
                         "from InputTensor.Sizes and IndicesTensor.Sizes)")

    def leading_ones(self, v: ValidatedDesc, problems: Problems, field: str, sizes: tuple[int, ...], real: int,
                     count_field: str) -> bool:
        """Add a problem unless the dimensions of ``field`` before its last ``real`` are 1."""
        lead = sizes[:len(sizes) - real]
        if any(s != 1 for s in lead):
            problems.add(f"{v.struct_name}.{field}.Sizes {list(sizes)}: the {len(lead)} leading dimension(s) before "
                         f"the last {count_field} {real} must be 1")
            return False
        return True

    # --- execution ---------------------------------------------------------------------------------------
    def debug_check(self, v: ValidatedDesc, read: Callable[[str], Any], problems: Problems) -> None:
        """A debug device refuses indices outside [-size, size) (signed) or [0, size) (unsigned) of the
        dimension they address, which the kernel would clamp."""
        sizes = [v.layout(IN).sizes[d] for d in self.tuple_dims(v)]
        refuse_out_of_range(v, read, problems, sizes, self.tuple_axis(v) is not None, "the kernel clamps them into it")

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        x, i, y = (bound[f].layout for f in (IN, INDICES, OUT))
        rank = len(y.sizes)
        x_steps, i_steps = [0] * rank, [0] * rank
        for p, source in enumerate(right_aligned(self.sources(v), rank, (None, None))):
            a, b = source
            x_steps[p] = x.strides[a] if a is not None else 0
            i_steps[p] = i.strides[b] if b is not None else 0
        dims = self.tuple_dims(v)
        pad = 8 - len(dims)
        axis = self.tuple_axis(v)
        defines = index_defines(x, i)
        args = (TensorArg("x", IN, scalar=True), TensorArg("idx", INDICES, scalar=True), TensorArg("y", OUT, rank=8),
                ulong8("sizes", y.sizes, fill=1), ulong8("x_steps", x_steps), ulong8("i_steps", i_steps),
                Vector("tuple_sizes", tuple(x.sizes[d] for d in dims) + (1,) * pad, rank=8),
                Vector("tuple_steps", tuple(x.strides[d] for d in dims) + (0,) * pad, rank=8),
                Scalar("i_tuple_step", np.uint64(i.strides[axis] if axis is not None else 0)),
                Scalar("tuple_length", np.uint32(len(dims))), Scalar("n", np.uint32(y.element_count)))
        return [KernelLaunch(self.kernel_source, "gather", defines, Items(y.element_count), args)]


@register
class GatherOp(Gather):
    """DML_GATHER: input elements along Axis picked by the indices (the embedding lookup of every transformer)."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_GATHER
    desc_cls = DML_GATHER_OPERATOR_DESC

    def check_shapes(self, v: ValidatedDesc, problems: Problems, x: tuple[int, ...], i: tuple[int, ...]) -> bool:
        rank, k = len(x), v.attrs["IndexDimensions"]
        fine = check_axis(v, problems, "Axis", v.attrs["Axis"], rank, IN)
        if k > rank:
            problems.add(f"{v.struct_name}.IndexDimensions {k} must be at most {INDICES}.DimensionCount {rank}")
            return False
        return self.leading_ones(v, problems, INDICES, i, k, "IndexDimensions") and fine

    def sources(self, v: ValidatedDesc) -> list[Source]:
        rank, axis, k = len(v.layout(IN).sizes), v.attrs["Axis"], v.attrs["IndexDimensions"]
        return ([(d, None) for d in range(axis)] + [(None, d) for d in range(rank - k, rank)]
                + [(d, None) for d in range(axis + 1, rank)])

    def tuple_dims(self, v: ValidatedDesc) -> list[int]:
        return [v.attrs["Axis"]]

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {OUT: gather(inputs[IN], inputs[INDICES], v.attrs["Axis"], v.attrs["IndexDimensions"],
                            v.layout(OUT).sizes)}


@register
class GatherElements(Gather):
    """DML_GATHER_ELEMENTS: the index of each output element replaces its coordinate along Axis."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_GATHER_ELEMENTS
    desc_cls = DML_GATHER_ELEMENTS_OPERATOR_DESC

    def check_shapes(self, v: ValidatedDesc, problems: Problems, x: tuple[int, ...], i: tuple[int, ...]) -> bool:
        axis = v.attrs["Axis"]
        if not check_axis(v, problems, "Axis", axis, len(x), IN):
            return False
        others = [d for d in range(len(x)) if d != axis and x[d] != i[d]]
        if others:
            problems.add(f"{v.struct_name}.{INDICES}.Sizes {list(i)} must equal {IN}.Sizes {list(x)} on every "
                         f"dimension but Axis {axis}")
            return False
        return True

    def sources(self, v: ValidatedDesc) -> list[Source]:
        axis = v.attrs["Axis"]
        return [(None if d == axis else d, d) for d in range(len(v.layout(IN).sizes))]

    def tuple_dims(self, v: ValidatedDesc) -> list[int]:
        return [v.attrs["Axis"]]

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {OUT: gather_elements(inputs[IN], inputs[INDICES], v.attrs["Axis"])}


class GatherNd(Gather):
    """GATHER_ND and GATHER_ND1 (``batch_field`` None: no batch dimensions)."""

    batch_field: str | None = None

    def batch(self, v: ValidatedDesc) -> int:
        return v.attrs[self.batch_field] if self.batch_field else 0

    def check_shapes(self, v: ValidatedDesc, problems: Problems, x: tuple[int, ...], i: tuple[int, ...]) -> bool:
        name, rank = v.struct_name, len(x)
        r, q, b = v.attrs["InputDimensionCount"], v.attrs["IndicesDimensionCount"], self.batch(v)
        fine = True
        for field, value in (("InputDimensionCount", r), ("IndicesDimensionCount", q)):
            if not 1 <= value <= rank:
                problems.add(f"{name}.{field} {value} must be in [1, {rank}] ({IN}.DimensionCount is {rank})")
                fine = False
        if not fine:
            return False
        fine = self.leading_ones(v, problems, IN, x, r, "InputDimensionCount")
        fine = self.leading_ones(v, problems, INDICES, i, q, "IndicesDimensionCount") and fine
        if self.batch_field and b >= min(r, q):
            problems.add(f"{name}.BatchDimensionCount {b} must be less than InputDimensionCount {r} and "
                         f"IndicesDimensionCount {q}")
            return False
        m = i[-1]
        if m > r - b:
            problems.add(f"{name}.{INDICES}.Sizes[{rank - 1}] {m} (the index tuple length) must be at most "
                         f"InputDimensionCount {r}" + (f" - BatchDimensionCount {b}" if self.batch_field else ""))
            fine = False
        for j in range(b):
            if i[rank - q + j] != x[rank - r + j]:
                problems.add(f"{name}.{INDICES}.Sizes[{rank - q + j}] {i[rank - q + j]} must equal "
                             f"{IN}.Sizes[{rank - r + j}] {x[rank - r + j]} (batch dimension {j})")
                fine = False
        return fine

    def sources(self, v: ValidatedDesc) -> list[Source]:
        rank = len(v.layout(IN).sizes)
        r, q, b = v.attrs["InputDimensionCount"], v.attrs["IndicesDimensionCount"], self.batch(v)
        m = v.layout(INDICES).sizes[-1]
        return ([(rank - r + j, rank - q + j) for j in range(b)] + [(None, d) for d in range(rank - q + b, rank - 1)]
                + [(d, None) for d in range(rank - r + b + m, rank)])

    def tuple_dims(self, v: ValidatedDesc) -> list[int]:
        rank, r, b = len(v.layout(IN).sizes), v.attrs["InputDimensionCount"], self.batch(v)
        return list(range(rank - r + b, rank - r + b + v.layout(INDICES).sizes[-1]))

    def tuple_axis(self, v: ValidatedDesc) -> int | None:
        return len(v.layout(INDICES).sizes) - 1

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        a = v.attrs
        return {OUT: gather_nd(inputs[IN], inputs[INDICES], a["InputDimensionCount"], a["IndicesDimensionCount"],
                               self.batch(v), v.layout(OUT).sizes)}


@register
class GatherNdOp(GatherNd):
    """DML_GATHER_ND: index tuples address whole sub-blocks of the input (no batch dimensions)."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_GATHER_ND
    desc_cls = DML_GATHER_ND_OPERATOR_DESC


@register
class GatherNd1(GatherNd):
    """DML_GATHER_ND1: GATHER_ND with BatchDimensionCount leading dimensions shared by input and indices."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_GATHER_ND1
    desc_cls = DML_GATHER_ND1_OPERATOR_DESC
    batch_field = "BatchDimensionCount"


# --- SCATTER_ELEMENTS and SCATTER_ND ---------------------------------------------------------------------------
UPDATES = "UpdatesTensor"


class Scatter(Operator):
    """The shared template of SCATTER_ELEMENTS and SCATTER_ND (kernel ``scatter``): a member gives the candidate
    grid of an output element (:meth:`grid`) and the index tuple's addressing."""

    kernel_file = "scatter.cl"

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        require_same(v, problems, IN, (INDICES, UPDATES, OUT), ("DimensionCount",))
        require_same(v, problems, IN, (UPDATES, OUT), ("DataType",))
        require_same(v, problems, IN, (OUT,), ("Sizes",))
        require_type(v, problems, INDICES, INDEX_TYPES, f"by {self.name}")
        x, i, u = (v.tensors.get(f) for f in (IN, INDICES, UPDATES))
        if not all(isinstance(t, TensorLayout) for t in (x, i, u)):
            return
        assert isinstance(x, TensorLayout) and isinstance(i, TensorLayout) and isinstance(u, TensorLayout)
        if len(x.sizes) == len(i.sizes) == len(u.sizes):
            self.check_shapes(v, problems, x.sizes, i.sizes, u.sizes)

    def check_shapes(self, v: ValidatedDesc, problems: Problems, x: tuple[int, ...], i: tuple[int, ...],
                     u: tuple[int, ...]) -> None:
        raise NotImplementedError

    def tuple_dims(self, v: ValidatedDesc) -> list[int]:
        """The output dimensions the index tuple addresses, in the tuple's order."""
        raise NotImplementedError

    def grid(self, v: ValidatedDesc, i: TensorLayout, u: TensorLayout) -> tuple[list[int], list[int], list[int],
                                                                              list[int], list[int], int]:
        """(t_sizes, t_i_steps, t_u_steps, i_steps, u_steps, i_tuple_step): the candidate updates of an output
        element, and the indices/updates steps of the output's own coordinates."""
        raise NotImplementedError

    def candidates(self, v: ValidatedDesc) -> int:
        """Candidate updates each output element scans."""
        raise NotImplementedError

    def work(self, v: ValidatedDesc) -> Work:
        """The default plus the kernel's scan: each output element compares every candidate's index tuple."""
        scan = v.layout(OUT).element_count * self.candidates(v) * len(self.tuple_dims(v))
        return elementwise_work(v) + Work(4 * scan, 0)

    def debug_check(self, v: ValidatedDesc, read: Callable[[str], Any], problems: Problems) -> None:
        """A debug device refuses the indices the kernel would drop (outside the dimension they address)."""
        sizes = [v.layout(IN).sizes[d] for d in self.tuple_dims(v)]
        refuse_out_of_range(v, read, problems, sizes, isinstance(self, ScatterNd), "the kernel drops such updates")

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        x, i, u, y = (bound[f].layout for f in (IN, INDICES, UPDATES, OUT))
        t_sizes, t_i_steps, t_u_steps, i_steps, u_steps, i_tuple_step = self.grid(v, i, u)
        dims = self.tuple_dims(v)
        pad = 8 - len(dims)
        defines = index_defines(x, i)
        args = (TensorArg("x", IN, rank=8), TensorArg("idx", INDICES, scalar=True),
                TensorArg("u", UPDATES, scalar=True), TensorArg("y", OUT, rank=8), ulong8("sizes", y.sizes, fill=1),
                ulong8("i_steps", i_steps), ulong8("u_steps", u_steps), ulong8("t_sizes", t_sizes, fill=1),
                ulong8("t_i_steps", t_i_steps),
                ulong8("t_u_steps", t_u_steps), Scalar("t_count", np.uint32(math.prod(t_sizes))),
                Vector("tuple_sizes", tuple(x.sizes[d] for d in dims) + (1,) * pad, rank=8),
                Vector("tuple_dims", tuple(8 - len(y.sizes) + d for d in dims) + (0,) * pad, rank=8),
                Scalar("i_tuple_step", np.uint64(i_tuple_step)), Scalar("tuple_length", np.uint32(len(dims))),
                Scalar("n", np.uint32(y.element_count)))
        return [KernelLaunch(self.kernel_source, "scatter", defines, Items(y.element_count), args)]


@register
class ScatterElements(Scatter):
    """DML_SCATTER_ELEMENTS (DML_OPERATOR_SCATTER is the same value and desc in directml.h)."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_SCATTER_ELEMENTS
    desc_cls = DML_SCATTER_ELEMENTS_OPERATOR_DESC

    def reference_bytes(self, v: ValidatedDesc) -> int:
        """The default plus reference.scatter_elements' coordinate grid (np.indices: DimensionCount int64 arrays
        of the indices' size) and its flat targets, positions and sort (4 more int64 per update)."""
        i = v.layout(INDICES)
        return super().reference_bytes(v) + 8 * (len(i.sizes) + 4) * i.element_count

    def check_shapes(self, v: ValidatedDesc, problems: Problems, x: tuple[int, ...], i: tuple[int, ...],
                     u: tuple[int, ...]) -> None:
        axis = v.attrs["Axis"]
        if not check_axis(v, problems, "Axis", axis, len(x), IN):
            return
        if any(i[d] != x[d] for d in range(len(x)) if d != axis):
            problems.add(f"{v.struct_name}.{INDICES}.Sizes {list(i)} must equal {IN}.Sizes {list(x)} on every "
                         f"dimension but Axis {axis}")
        if u != i:
            problems.add(f"{v.struct_name}.{UPDATES}.Sizes {list(u)} must equal {INDICES}.Sizes {list(i)}")

    def tuple_dims(self, v: ValidatedDesc) -> list[int]:
        return [v.attrs["Axis"]]

    def candidates(self, v: ValidatedDesc) -> int:
        return v.layout(INDICES).sizes[v.attrs["Axis"]]

    def grid(self, v: ValidatedDesc, i: TensorLayout, u: TensorLayout) -> tuple[list[int], list[int], list[int],
                                                                              list[int], list[int], int]:
        axis = v.attrs["Axis"]
        i_steps = [0 if d == axis else s for d, s in enumerate(i.strides)]
        u_steps = [0 if d == axis else s for d, s in enumerate(u.strides)]
        return [i.sizes[axis]], [i.strides[axis]], [u.strides[axis]], i_steps, u_steps, 0

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {OUT: scatter_elements(inputs[IN], inputs[INDICES], inputs[UPDATES], v.attrs["Axis"])}


@register
class ScatterNd(Scatter):
    """DML_SCATTER_ND: index tuples address whole sub-blocks of the output, which the updates replace."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_SCATTER_ND
    desc_cls = DML_SCATTER_ND_OPERATOR_DESC

    def check_shapes(self, v: ValidatedDesc, problems: Problems, x: tuple[int, ...], i: tuple[int, ...],
                     u: tuple[int, ...]) -> None:
        name, rank = v.struct_name, len(x)
        r, q = v.attrs["InputDimensionCount"], v.attrs["IndicesDimensionCount"]
        for field, value in (("InputDimensionCount", r), ("IndicesDimensionCount", q)):
            if not 1 <= value <= rank:
                problems.add(f"{name}.{field} {value} must be in [1, {rank}] ({IN}.DimensionCount is {rank})")
                return
        fine = Gather.leading_ones(self, v, problems, IN, x, r, "InputDimensionCount")  # type: ignore[arg-type]
        fine = Gather.leading_ones(self, v, problems, INDICES, i, q, "IndicesDimensionCount") and fine  # type: ignore[arg-type]
        m = i[-1]
        if m > r:
            problems.add(f"{name}.{INDICES}.Sizes[{rank - 1}] {m} (the index tuple length) must be at most "
                         f"InputDimensionCount {r}")
            return
        if not fine:
            return
        entries = list(i[rank - q:rank - 1]) + list(x[rank - r + m:])
        if any(s != 1 for s in entries[:max(0, len(entries) - rank)]) or list(u) != right_aligned(entries, rank, 1):
            problems.add(f"{name}.{UPDATES}.Sizes {list(u)} must be {entries} right-aligned into {rank} dimensions "
                         "(IndicesTensor.Sizes but the last, then InputTensor.Sizes after the indexed dimensions)")

    def tuple_dims(self, v: ValidatedDesc) -> list[int]:
        rank, r = len(v.layout(IN).sizes), v.attrs["InputDimensionCount"]
        return list(range(rank - r, rank - r + v.layout(INDICES).sizes[-1]))

    def candidates(self, v: ValidatedDesc) -> int:
        i, q = v.layout(INDICES), v.attrs["IndicesDimensionCount"]
        return math.prod(i.sizes[len(i.sizes) - q:-1])

    def grid(self, v: ValidatedDesc, i: TensorLayout, u: TensorLayout) -> tuple[list[int], list[int], list[int],
                                                                              list[int], list[int], int]:
        rank, r, q = len(i.sizes), v.attrs["InputDimensionCount"], v.attrs["IndicesDimensionCount"]
        m = i.sizes[-1]
        t_dims = list(range(rank - q, rank - 1))
        trailing = list(range(rank - r + m, rank))
        count = len(t_dims) + len(trailing)
        u_dim = [e - (count - rank) for e in range(count)]  # the updates dimension of each entry (< 0: cropped)
        t_u_steps = [u.strides[p] if p >= 0 else 0 for p in u_dim[:len(t_dims)]]
        u_steps = [0] * rank
        for d, p in zip(trailing, u_dim[len(t_dims):], strict=True):
            u_steps[d] = u.strides[p] if p >= 0 else 0
        return ([i.sizes[d] for d in t_dims], [i.strides[d] for d in t_dims], t_u_steps, [0] * rank, u_steps,
                i.strides[rank - 1])

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        a = v.attrs
        return {OUT: scatter_nd(inputs[IN], inputs[INDICES], inputs[UPDATES], a["InputDimensionCount"],
                                a["IndicesDimensionCount"])}


# --- ONE_HOT ---------------------------------------------------------------------------------------------------
VALUES = "ValuesTensor"
# ONE_HOT's ValuesTensor/OutputTensor types (its support table lists no FLOAT64)
ONE_HOT_TYPES = (FLOAT32, FLOAT16, INT64, INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8)


@register
class OneHot(Operator):
    """DML_ONE_HOT: sequences along Axis of OffValue with OnValue where the index points (kernel ``one_hot``)."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_ONE_HOT
    desc_cls = DML_ONE_HOT_OPERATOR_DESC
    kernel_file = "scatter.cl"

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        require_same(v, problems, OUT, (INDICES, VALUES), ("DimensionCount",))
        require_same(v, problems, OUT, (VALUES,), ("DataType",))
        require_type(v, problems, INDICES, INDEX_TYPES, f"by {self.name}")
        require_type(v, problems, OUT, ONE_HOT_TYPES, f"by {self.name}")
        i, values, y = (v.tensors.get(f) for f in (INDICES, VALUES, OUT))
        if not all(isinstance(t, TensorLayout) for t in (i, values, y)):
            return
        assert isinstance(i, TensorLayout) and isinstance(values, TensorLayout) and isinstance(y, TensorLayout)
        if values.element_count < 2:
            problems.add(f"{v.struct_name}.{VALUES}.Sizes {list(values.sizes)} must hold at least 2 elements "
                         "(OffValue, OnValue)")
        if len(i.sizes) != len(y.sizes):
            return
        axis = v.attrs["Axis"]
        if not check_axis(v, problems, "Axis", axis, len(y.sizes), OUT):
            return
        expected = [1 if d == axis else s for d, s in enumerate(y.sizes)]
        if list(i.sizes) != expected:
            problems.add(f"{v.struct_name}.{INDICES}.Sizes {list(i.sizes)} must be {expected} (OutputTensor.Sizes "
                         f"with 1 on Axis {axis})")

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {OUT: one_hot(inputs[INDICES], inputs[VALUES], v.attrs["Axis"], v.layout(OUT).sizes)}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        i, values, y = (bound[f].layout for f in (INDICES, VALUES, OUT))
        axis = v.attrs["Axis"]
        second = np.unravel_index(1, values.sizes)  # OnValue: the values' second element in row-major order
        on_at = sum(int(c) * s for c, s in zip(second, values.strides, strict=True))
        i_steps = [0 if d == axis else s for d, s in enumerate(i.strides)]
        args = (TensorArg("idx", INDICES, scalar=True), TensorArg("v", VALUES, scalar=True),
                TensorArg("y", OUT, rank=8), ulong8("sizes", y.sizes, fill=1), ulong8("i_steps", i_steps),
                Scalar("on_at", np.uint64(on_at)), Scalar("axis_size", np.uint64(y.sizes[axis])),
                Scalar("axis8", np.uint32(8 - len(y.sizes) + axis)), Scalar("n", np.uint32(y.element_count)))
        return [KernelLaunch(self.kernel_source, "one_hot", index_defines(values, i), Items(y.element_count), args)]
