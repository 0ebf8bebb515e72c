"""The layout (data-movement) operators: DML_OPERATOR_PADDING, PADDING1 and TILE, from one gather kernel (``pad``:
each output element reads the input element its coordinates map onto), and SPACE_TO_DEPTH, SPACE_TO_DEPTH1,
DEPTH_TO_SPACE and DEPTH_TO_SPACE1, from a strided copy kernel (``move``: one launch over a 6-D index space). The
descs are DirectML's generated ones.

Semantics (their doc pages):

- PADDING / PADDING1: ``OutputTensor.Sizes[i] = InputTensor.Sizes[i] + StartPadding[i] + EndPadding[i]``; the
  padding regions are filled per ``PaddingMode``: CONSTANT (``PaddingValue``), EDGE (the dimension's edge
  values), REFLECTION (mirrored without repeating the edge; paddings as large as or larger than the input fold
  over the earlier padding periodically), SYMMETRIC (mirrored repeating the edge, likewise periodic) and WRAP
  (feature level 6_4, both operators: the input repeated, ``i mod n``). ``DimensionCount`` equals both tensors'
  DimensionCount; the tensors share DataType and DimensionCount. StartPadding/EndPadding are UINT arrays (the
  header and the page have no negative, cropping paddings: ONNX Pad's negative pads do not map).
- PADDING1's ``PaddingValueDataType`` must equal ``OutputTensor.DataType``; its DML_SCALAR_UNION value is written
  bit for bit (a FLOAT16 value is its UInt16 bits, -0.0 and NaN payloads kept).
- TILE: ``RepeatsCount`` equals InputTensor.DimensionCount, every ``Repeats[i] > 0``, the tensors share DataType
  and DimensionCount and ``OutputTensor.Sizes[i] = InputTensor.Sizes[i] * Repeats[i]``.

- DEPTH_TO_SPACE(1): a 4-D ``{Batch, C * b * b, H, W}`` input becomes ``{Batch, C, H * b, W * b}`` (b = BlockSize,
  at least 1; the input's channel count a multiple of b * b); SPACE_TO_DEPTH(1) is the inverse (the input's
  height and width multiples of b). ``Order`` (the 1 versions) reads the depth dimension as (BlockHeight,
  BlockWidth, Channels) for DEPTH_COLUMN_ROW, (Channels, BlockHeight, BlockWidth) for COLUMN_ROW_DEPTH; the first
  versions are DEPTH_COLUMN_ROW (their example is Example 1 of the 1 versions). Both tensors 4-D, same DataType,
  every data type (FLOAT64 included: the tables at feature level 5_0).

Data types and ranks of PADDING/PADDING1/TILE (the newest feature level's tables): 1 to 8 dimensions; PADDING1
every data type (FLOAT64 included); PADDING and TILE every type but FLOAT64. Every operator here: any DML strides
on both tensors (padded, permuted, stride-0 broadcast inputs), tensors at any binding offset; elements move as
unsigned integers of their width, so every data type is copied exactly, NaN payloads included; not in place (the
schema: the input is not eligible).

Decisions where the pages are silent:

- PADDING's ``PaddingValue`` is a FLOAT; "if the tensor's DataType is not FLOAT16 or FLOAT32, the value may be
  truncated (e.g. 10.6 becomes 10)". dmlsim converts it once, at CreateOperator: to FLOAT16 rounding to nearest
  even (beyond the range: infinity), to an integer type truncating toward zero and saturating to the type's
  range, NaN giving 0 (CAST's rules).
- REFLECTION along a dimension of size 1 (no period: ``2(n - 1) = 0``) repeats the single element, as
  numpy's and ONNX's reflect pad do.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import (
    DML_DEPTH_TO_SPACE1_OPERATOR_DESC,
    DML_DEPTH_TO_SPACE_OPERATOR_DESC,
    DML_PADDING1_OPERATOR_DESC,
    DML_PADDING_OPERATOR_DESC,
    DML_SPACE_TO_DEPTH1_OPERATOR_DESC,
    DML_SPACE_TO_DEPTH_OPERATOR_DESC,
    DML_TILE_OPERATOR_DESC,
)
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import data_type_name
from dmlsim.operators.base import Operator, ValidatedDesc, register, require_same
from dmlsim.operators.layout.reference import (
    CONSTANT,
    EDGE,
    REFLECTION,
    SYMMETRIC,
    WRAP,
    depth_to_space,
    pad,
    space_to_depth,
    tile,
)
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, TensorArg
from dmlsim.operators.typed import EVERY_TYPE, FLOAT64, bits_defines, require_type, sizes_of, ulong8

IN, OUT = "InputTensor", "OutputTensor"
MODE_DEFINE = {CONSTANT: "MODE_CONSTANT", EDGE: "MODE_EDGE", REFLECTION: "MODE_REFLECTION",
               SYMMETRIC: "MODE_SYMMETRIC", WRAP: "MODE_WRAP"}
DEPTH_COLUMN_ROW, COLUMN_ROW_DEPTH = 0, 1  # DML_DEPTH_SPACE_ORDER
NO_FLOAT64 = tuple(t for t in EVERY_TYPE if t != FLOAT64)


def gather_launch(op: Operator, v: ValidatedDesc, starts: list[int], mode: int, value: int) -> KernelLaunch:
    """The ``pad`` launch: every output element from the input through ``mode`` (``value``: the CONSTANT
    fill's bits as an unsigned integer of the element's width)."""
    x, y = v.layout(IN), v.layout(OUT)
    args = (TensorArg("x", IN, rank=8), TensorArg("y", OUT, rank=8), ulong8("sizes", y.sizes, fill=1),
            ulong8("x_sizes", x.sizes, fill=1), ulong8("starts", starts), Scalar("value", np.uint64(value)),
            Scalar("n", np.uint32(y.element_count)))
    defines = {**bits_defines(x.element_size), MODE_DEFINE[mode]: True}
    return KernelLaunch(op.kernel_source, "pad", defines, Items(y.element_count), args)


def check_ranks(v: ValidatedDesc, problems: Problems, count_field: str, data_types: tuple[int, ...]) -> bool:
    """The shared rules: data types of the table, same DataType and DimensionCount, ``count_field`` equal to the
    DimensionCount. True when the per-dimension rules can be checked."""
    fine = require_type(v, problems, IN, data_types, f"by {v.struct_name.removesuffix('_DESC')}")
    require_same(v, problems, IN, (OUT,), ("DataType", "DimensionCount"))
    x = sizes_of(v, IN)
    if x is None or sizes_of(v, OUT) is None:
        return False
    count = v.attrs.get(count_field)
    if count is not None and count != len(x):
        problems.add(f"{v.struct_name}.{count_field} {count} must equal {IN}.DimensionCount {len(x)}")
        return False
    return fine and not problems


def value_bits(value: np.generic) -> int:
    """A numpy scalar's bytes as an unsigned integer (little-endian)."""
    return int.from_bytes(np.asarray(value).tobytes(), "little")


def float_to(value: float, dtype: np.dtype) -> np.generic:
    """PADDING's FLOAT PaddingValue in ``dtype`` (module docstring: rounded to a float type, truncated and
    saturated to an integer type, NaN -> 0)."""
    if dtype.kind == "f":
        with np.errstate(over="ignore"):
            return dtype.type(np.float32(value))
    info = np.iinfo(dtype)
    if math.isnan(value):
        return dtype.type(0)
    if math.isinf(value):
        return dtype.type(info.max if value > 0 else info.min)
    return dtype.type(min(max(math.trunc(value), info.min), info.max))


class Padding(Operator):
    """PADDING and PADDING1 (module docstring)."""

    data_types: tuple[int, ...]

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        if not check_ranks(v, problems, "DimensionCount", self.data_types):
            return
        x, y = v.layout(IN).sizes, v.layout(OUT).sizes
        start, end = v.attrs["StartPadding"], v.attrs["EndPadding"]
        for d in range(len(x)):
            if y[d] != x[d] + start[d] + end[d]:
                problems.add(f"{v.struct_name}.{OUT}.Sizes[{d}] {y[d]} must equal {IN}.Sizes[{d}] {x[d]} + "
                             f"StartPadding[{d}] {start[d]} + EndPadding[{d}] {end[d]}")

    def fill(self, v: ValidatedDesc) -> np.generic:
        """The CONSTANT fill as a scalar of the tensors' numpy type."""
        raise NotImplementedError

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        a = v.attrs
        return {OUT: pad(inputs[IN], a["StartPadding"], a["EndPadding"], int(a["PaddingMode"]), self.fill(v))}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        mode = int(v.attrs["PaddingMode"])
        return [gather_launch(self, v, list(v.attrs["StartPadding"]), mode, value_bits(self.fill(v)))]


@register
class PaddingOp(Padding):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_PADDING
    desc_cls = DML_PADDING_OPERATOR_DESC
    data_types = NO_FLOAT64

    def fill(self, v: ValidatedDesc) -> np.generic:
        return float_to(float(v.attrs["PaddingValue"]), v.layout(OUT).dtype)


@register
class Padding1(Padding):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_PADDING1
    desc_cls = DML_PADDING1_OPERATOR_DESC
    data_types = EVERY_TYPE

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        value_type = v.attrs.get("PaddingValueDataType")
        out = v.tensors.get(OUT)
        if value_type is not None and out is not None and value_type != out.data_type:
            problems.add(f"{v.struct_name}.PaddingValueDataType {data_type_name(value_type)} must match "
                         f"{OUT}.DataType {data_type_name(out.data_type)}")
        super().check(v, problems)

    def fill(self, v: ValidatedDesc) -> np.generic:
        """The union member's bytes read as the tensor's type (a FLOAT16 value arrives as its UInt16 bits)."""
        return np.frombuffer(np.asarray(v.attrs["PaddingValue"]).tobytes(), v.layout(OUT).dtype)[0]


@register
class Tile(Operator):
    """TILE (module docstring)."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_TILE
    desc_cls = DML_TILE_OPERATOR_DESC

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        if not check_ranks(v, problems, "RepeatsCount", NO_FLOAT64):
            return
        x, y, repeats = v.layout(IN).sizes, v.layout(OUT).sizes, v.attrs["Repeats"]
        for d in range(len(x)):
            if repeats[d] < 1:
                problems.add(f"{v.struct_name}.Repeats[{d}] must be larger than 0")
            elif y[d] != x[d] * repeats[d]:
                problems.add(f"{v.struct_name}.{OUT}.Sizes[{d}] {y[d]} must equal {IN}.Sizes[{d}] {x[d]} * "
                             f"Repeats[{d}] {repeats[d]}")

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {OUT: tile(inputs[IN], v.attrs["Repeats"])}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        return [gather_launch(self, v, [0] * len(v.layout(IN).sizes), WRAP, 0)]


class DepthSpace(Operator):
    """SPACE_TO_DEPTH(1) and DEPTH_TO_SPACE(1) (module docstring): ``to_space`` says which way; ``ordered``
    whether the desc has an Order field (the first versions are DEPTH_COLUMN_ROW)."""

    to_space: bool

    def order(self, v: ValidatedDesc) -> int:
        return int(v.attrs.get("Order", DEPTH_COLUMN_ROW))

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        require_type(v, problems, IN, EVERY_TYPE, f"by {v.struct_name.removesuffix('_DESC')}")
        require_same(v, problems, IN, (OUT,), ("DataType",))
        x, y = sizes_of(v, IN), sizes_of(v, OUT)
        if x is None or y is None:
            return
        for name, sizes in ((IN, x), (OUT, y)):
            if len(sizes) != 4:
                problems.add(f"{v.struct_name}.{name}.DimensionCount {len(sizes)} is not supported (supported: 4, "
                             "{Batch, Channels, Height, Width})")
        block = v.attrs["BlockSize"]
        if block < 1:
            problems.add(f"{v.struct_name}.BlockSize {block} must be at least 1")
        if problems:
            return
        if self.to_space:
            if x[1] % (block * block):
                problems.add(f"{v.struct_name}.{IN}.Sizes[1] {x[1]} must be a multiple of BlockSize * BlockSize "
                             f"{block * block}")
                return
            expected = (x[0], x[1] // (block * block), x[2] * block, x[3] * block)
        else:
            if x[2] % block or x[3] % block:
                problems.add(f"{v.struct_name}.{IN}.Sizes {list(x)}: Height and Width must be multiples of "
                             f"BlockSize {block}")
                return
            expected = (x[0], x[1] * block * block, x[2] // block, x[3] // block)
        if tuple(y) != expected:
            problems.add(f"{v.struct_name}.{OUT}.Sizes {list(y)} must be {list(expected)}")

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        move = depth_to_space if self.to_space else space_to_depth
        return {OUT: move(inputs[IN], v.attrs["BlockSize"], self.order(v) == COLUMN_ROW_DEPTH)}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        x, y = v.layout(IN), v.layout(OUT)
        depth, space = (x, y) if self.to_space else (y, x)
        b = v.attrs["BlockSize"]
        n, c, h, w = space.sizes[0], space.sizes[1], space.sizes[2] // b, space.sizes[3] // b
        sn, sc, sh, sw = space.strides
        dn, dc, dh, dw = depth.strides
        # the index space {n, c, h, i, w, j} (i, j: the row and column inside a block)
        space_steps = [sn, sc, b * sh, sh, b * sw, sw]
        if self.order(v) == COLUMN_ROW_DEPTH:  # depth channel c*b*b + i*b + j
            depth_steps = [dn, b * b * dc, dh, b * dc, dw, dc]
        else:  # DEPTH_COLUMN_ROW: depth channel (i*b + j)*C + c
            depth_steps = [dn, dc, dh, b * c * dc, dw, c * dc]
        x_steps, y_steps = (depth_steps, space_steps) if self.to_space else (space_steps, depth_steps)
        sizes = [n, c, h, b, w, b]
        count = y.element_count
        args = (TensorArg("x", IN, scalar=True), TensorArg("y", OUT, scalar=True), ulong8("sizes", sizes, fill=1),
                ulong8("x_steps", x_steps), ulong8("y_steps", y_steps), Scalar("n", np.uint32(count)))
        return [KernelLaunch(self.kernel_source, "move", bits_defines(x.element_size), Items(count), args)]


@register
class DepthToSpace(DepthSpace):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_DEPTH_TO_SPACE
    desc_cls = DML_DEPTH_TO_SPACE_OPERATOR_DESC
    to_space = True


@register
class DepthToSpace1(DepthSpace):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_DEPTH_TO_SPACE1
    desc_cls = DML_DEPTH_TO_SPACE1_OPERATOR_DESC
    to_space = True


@register
class SpaceToDepth(DepthSpace):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_SPACE_TO_DEPTH
    desc_cls = DML_SPACE_TO_DEPTH_OPERATOR_DESC
    to_space = False


@register
class SpaceToDepth1(DepthSpace):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_SPACE_TO_DEPTH1
    desc_cls = DML_SPACE_TO_DEPTH1_OPERATOR_DESC
    to_space = False
