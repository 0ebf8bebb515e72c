"""DML_OPERATOR_JOIN, SPLIT, SLICE, SLICE1 and CAST: operators that copy windows of one tensor into another,
from one kernel (``copy_window``: one launch per copied window). The descs are DirectML's generated ones.

Rules (their doc pages): JOIN/SPLIT: every tensor has the same DataType and DimensionCount, Axis is less
than it, Sizes agree except on Axis, where the output's (input's) is the sum of the inputs' (outputs').
SLICE: DimensionCount equals both tensors'; Strides at least 1; the window (Offsets + (Sizes - 1) *
Strides) lies inside InputTensor; OutputTensor.Sizes equal Sizes. SLICE1: the window is not empty and lies
inside InputTensor (InputWindowOffsets + InputWindowSizes); InputWindowStrides not 0; each OutputTensor.Sizes[i]
at most 1 + (InputWindowSizes[i] - 1) / |InputWindowStrides[i]| (the output need not take every element the
window reaches). Moves keep the DataType (both tensors the same); CAST takes any pair.
Every data type, 1 to 8 dimensions (dmlsim's reading of the newest feature level's tables).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import (
    DML_CAST_OPERATOR_DESC,
    DML_JOIN_OPERATOR_DESC,
    DML_SLICE1_OPERATOR_DESC,
    DML_SLICE_OPERATOR_DESC,
    DML_SPLIT_OPERATOR_DESC,
)
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout
from dmlsim.operators.base import (
    REFERENCE_BYTES_PER_ELEMENT,
    Operator,
    ValidatedDesc,
    Work,
    elementwise_work,
    register,
    require_same,
)
from dmlsim.operators.copy_window.reference import cast, join, slice1_window, slice_window, split
from dmlsim.operators.plan import Items, KernelLaunch, Scalar, TensorArg
from dmlsim.operators.typed import (
    CL_TYPE,
    FLOAT16,
    FLOAT64,
    INTEGERS,
    bits_defines,
    check_axis,
    sizes_of,
    typed_defines,
    ulong8,
)

IN, OUT = "InputTensor", "OutputTensor"


def window_launch(source: Any, defines: dict[str, Any], x: tuple[str, int | None], y: tuple[str, int | None],
                  sizes: tuple[int, ...], x_steps: list[int], x_start: int, y_steps: list[int],
                  y_start: int) -> KernelLaunch:
    """One ``copy_window`` launch: ``sizes`` elements from x's steps/start to y's (element units); ``x`` and
    ``y`` are (tensor field, index in its array or None)."""
    count = math.prod(sizes)
    args = (TensorArg("x", x[0], index=x[1], scalar=True), TensorArg("y", y[0], index=y[1], scalar=True),
            ulong8("sizes", sizes, fill=1), ulong8("x_steps", x_steps), Scalar("x_start", np.uint64(x_start % 2**64)),
            ulong8("y_steps", y_steps), Scalar("y_start", np.uint64(y_start % 2**64)), Scalar("n", np.uint32(count)))
    return KernelLaunch(source, "copy_window", defines, Items(count), args)


def move_defines(layout: TensorLayout) -> dict[str, Any]:
    return bits_defines(layout.element_size)


class AxisMove(Operator):
    """JOIN and SPLIT: ``many`` (the tensor-array field) joined into / split from ``one`` along Axis."""

    many: str
    one: str

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        one = v.tensors.get(self.one)
        many = v.tensors.get(self.many)
        if not isinstance(one, TensorLayout) or not isinstance(many, list) or not many:
            return
        axis = v.attrs["Axis"]
        if not check_axis(v, problems, "Axis", axis, len(one.sizes), self.one):
            return
        total = 0
        for i, t in enumerate(many):
            name = f"{v.struct_name}.{self.many}[{i}]"
            if t.data_type != one.data_type:
                problems.add(f"{name}.DataType must equal {self.one}.DataType (every tensor has the same type)")
            if len(t.sizes) != len(one.sizes):
                problems.add(f"{name}.DimensionCount {len(t.sizes)} must equal {self.one}.DimensionCount "
                             f"{len(one.sizes)}")
                return
            others = [d for d in range(len(one.sizes)) if d != axis and t.sizes[d] != one.sizes[d]]
            if others:
                problems.add(f"{name}.Sizes {list(t.sizes)} must equal {self.one}.Sizes {list(one.sizes)} except "
                             f"on Axis {axis}")
            total += t.sizes[axis]
        if total != one.sizes[axis]:
            problems.add(f"{v.struct_name}.{self.one}.Sizes[{axis}] {one.sizes[axis]} must equal the sum of "
                         f"{self.many}' Sizes[{axis}] ({total})")

    def pieces(self, v: ValidatedDesc) -> list[tuple[int, TensorLayout, int]]:
        """(index, layout, offset along Axis) of each tensor of the array."""
        axis, at, out = v.attrs["Axis"], 0, []
        for i, t in enumerate(v.tensors[self.many]):
            out.append((i, t, at))
            at += t.sizes[axis]
        return out


@register
class Join(AxisMove):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_JOIN
    desc_cls = DML_JOIN_OPERATOR_DESC
    many, one = "InputTensors", OUT

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {OUT: join(inputs[self.many], v.attrs["Axis"])}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: Any) -> list[KernelLaunch]:
        y, axis = v.layout(OUT), v.attrs["Axis"]
        return [window_launch(self.kernel_source, move_defines(y), (self.many, i), (OUT, None), t.sizes,
                              list(t.strides), 0, list(y.strides), at * y.strides[axis])
                for i, t, at in self.pieces(v)]


@register
class Split(AxisMove):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_SPLIT
    desc_cls = DML_SPLIT_OPERATOR_DESC
    many, one = "OutputTensors", IN

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        axis = v.attrs["Axis"]
        return {self.many: split(inputs[IN], [t.sizes[axis] for t in v.tensors[self.many]], axis)}

    def reference_bytes(self, v: ValidatedDesc) -> int:
        """The pieces are views of the input: only what is stored into the outputs is held."""
        return REFERENCE_BYTES_PER_ELEMENT * sum(t.element_count for t in v.all_layouts([self.many]))

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: Any) -> list[KernelLaunch]:
        x, axis = v.layout(IN), v.attrs["Axis"]
        return [window_launch(self.kernel_source, move_defines(x), (IN, None), (self.many, i), t.sizes,
                              list(x.strides), at * x.strides[axis], list(t.strides), 0)
                for i, t, at in self.pieces(v)]


class Slice(Operator):
    """SLICE and SLICE1: a strided window of the input; ``window`` gives each dimension's first element and
    signed step (in input elements along that dimension)."""

    offsets_field: str
    sizes_field: str
    strides_field: str

    def reference_bytes(self, v: ValidatedDesc) -> int:
        """The window is a view (SLICE) or an output-sized copy (SLICE1) of the input, however large it is."""
        return REFERENCE_BYTES_PER_ELEMENT * v.layout(OUT).element_count

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        require_same(v, problems, IN, (OUT,), ("DataType", "DimensionCount"))
        in_sizes, out_sizes = sizes_of(v, IN), sizes_of(v, OUT)
        rank = v.attrs.get("DimensionCount")
        if in_sizes is None or out_sizes is None or rank is None:
            return
        if rank != len(in_sizes):
            problems.add(f"{v.struct_name}.DimensionCount {rank} must equal {IN}.DimensionCount {len(in_sizes)}")
            return
        if len(out_sizes) != rank:
            return  # reported by require_same
        offsets, sizes, strides = (v.attrs[f] for f in (self.offsets_field, self.sizes_field, self.strides_field))
        for d in range(rank):
            self.check_dimension(v, problems, d, in_sizes[d], out_sizes[d], offsets[d], sizes[d], strides[d])

    def check_dimension(self, v: ValidatedDesc, problems: Problems, d: int, extent: int, out_size: int, offset: int,
                        size: int, stride: int) -> None:
        """Add the problems of dimension ``d``: input extent, output size, the window's offset/size/stride."""
        raise NotImplementedError

    def window(self, v: ValidatedDesc) -> list[tuple[int, int]]:
        raise NotImplementedError

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: Any) -> list[KernelLaunch]:
        x, y = v.layout(IN), v.layout(OUT)
        window = self.window(v)
        x_start = sum(first * s for (first, _), s in zip(window, x.strides, strict=True))
        x_steps = [step * s for (_, step), s in zip(window, x.strides, strict=True)]
        return [window_launch(self.kernel_source, move_defines(x), (IN, None), (OUT, None), y.sizes, x_steps,
                              x_start, list(y.strides), 0)]


@register
class SliceOp(Slice):
    """DML_SLICE: ``Sizes`` elements per dimension (the output's Sizes) from ``Offsets`` every ``Strides``."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_SLICE
    desc_cls = DML_SLICE_OPERATOR_DESC
    offsets_field, sizes_field, strides_field = "Offsets", "Sizes", "Strides"

    def check_dimension(self, v: ValidatedDesc, problems: Problems, d: int, extent: int, out_size: int, offset: int,
                        size: int, stride: int) -> None:
        name = v.struct_name
        if out_size != size:
            problems.add(f"{name}.{OUT}.Sizes[{d}] {out_size} must equal Sizes[{d}] {size}")
        if size < 1:
            problems.add(f"{name}.Sizes[{d}] must be at least 1")
        if stride < 1:
            problems.add(f"{name}.Strides[{d}] {stride} must be at least 1")
        elif size >= 1 and offset + (size - 1) * stride >= extent:
            problems.add(f"{name}: the window of dimension {d} (Offsets[{d}] {offset} + (Sizes[{d}] {size} - 1) * "
                         f"Strides[{d}] {stride}) must lie inside {IN}.Sizes[{d}] {extent}")

    def window(self, v: ValidatedDesc) -> list[tuple[int, int]]:
        return list(zip(v.attrs["Offsets"], v.attrs["Strides"], strict=True))

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        a = v.attrs
        return {OUT: slice_window(inputs[IN], a["Offsets"], a["Sizes"], a["Strides"])}


@register
class Slice1(Slice):
    """DML_SLICE1: the window ``[InputWindowOffsets, + InputWindowSizes)`` read every ``|InputWindowStrides|``
    elements from its start (its end for a negative stride); the output may take fewer than all reachable."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_SLICE1
    desc_cls = DML_SLICE1_OPERATOR_DESC
    offsets_field, sizes_field, strides_field = "InputWindowOffsets", "InputWindowSizes", "InputWindowStrides"

    def check_dimension(self, v: ValidatedDesc, problems: Problems, d: int, extent: int, out_size: int, offset: int,
                        size: int, stride: int) -> None:
        name = v.struct_name
        if size < 1:
            problems.add(f"{name}.InputWindowSizes[{d}] must be at least 1 (the window must not be empty)")
        if stride == 0:
            problems.add(f"{name}.InputWindowStrides[{d}] must not be 0")
        if offset + size > extent:
            problems.add(f"{name}: InputWindowOffsets[{d}] {offset} + InputWindowSizes[{d}] {size} must not exceed "
                         f"{IN}.Sizes[{d}] {extent}")
        if size >= 1 and stride != 0:
            reachable = 1 + (size - 1) // abs(stride)
            if out_size > reachable:
                problems.add(f"{name}.{OUT}.Sizes[{d}] {out_size} must be at most {reachable}, the elements the "
                             f"window reaches (1 + (InputWindowSizes[{d}] - 1) / |InputWindowStrides[{d}]|)")

    def window(self, v: ValidatedDesc) -> list[tuple[int, int]]:
        a = v.attrs
        return [(o + n - 1 if s < 0 else o, s) for o, n, s in
                zip(a["InputWindowOffsets"], a["InputWindowSizes"], a["InputWindowStrides"], strict=True)]

    def work(self, v: ValidatedDesc) -> Work:
        """The default, plus the reference's Python steps: it lists each dimension's source indices in Python
        (a third of a microsecond each, so a step per output size of every dimension)."""
        return elementwise_work(v) + Work(0, 0, sum(v.layout(OUT).sizes))

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        a = v.attrs
        return {OUT: slice1_window(inputs[IN], a["InputWindowOffsets"], v.layout(OUT).sizes,
                                   a["InputWindowStrides"], a["InputWindowSizes"])}


@register
class Cast(Operator):
    """DML_OPERATOR_CAST: every element converted to the output's data type (reference.cast has the rules)."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_CAST
    desc_cls = DML_CAST_OPERATOR_DESC

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        require_same(v, problems, IN, (OUT,), ("DimensionCount", "Sizes"))

    def work(self, v: ValidatedDesc) -> Work:
        """The default, plus the reference's Python steps for an integer output, which it converts element by
        element through Python integers, exactly: four from a float (truncated, saturated), one from an integer."""
        if v.layout(OUT).dtype.kind not in "iu":
            return elementwise_work(v)
        return elementwise_work(v, host_steps_per_element=4 if v.layout(IN).dtype.kind == "f" else 1)

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {OUT: cast(inputs[IN], v.layout(OUT).dtype)}

    def reference_bytes(self, v: ValidatedDesc) -> int:
        """reference.cast converts to integers element by element through a list of Python ints (36 bytes
        each and its slot) beside a float64 copy and the result."""
        return 64 * v.layout(OUT).element_count

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: Any) -> list[KernelLaunch]:
        x, y = v.layout(IN), v.layout(OUT)
        acc, convert = cast_conversion(x.data_type, y.data_type)
        defines = {**typed_defines(x.data_type, y.data_type, acc=acc), "CONVERT(v)": convert}
        return [window_launch(self.kernel_source, defines, (IN, None), (OUT, None), x.sizes, list(x.strides), 0,
                              list(y.strides), 0)]


def cast_conversion(source: int, target: int) -> tuple[str, str | None]:
    """The type a CAST kernel loads ``source`` elements as, and its ``CONVERT(v)`` expression to ``target``
    (None: the store converts), following reference.cast's rules."""
    if source in INTEGERS:
        if target in INTEGERS:
            return CL_TYPE[source], None  # the C conversion keeps the low bits
        return CL_TYPE[source], f"convert_{'double' if target == FLOAT64 else 'float'}_rte(v)"
    acc = "double" if FLOAT64 in (source, target) else "float"
    if target in INTEGERS:
        # NaN -> 0 spelled out: the sat conversions give it, but PyPI's PoCL 3.0 returns the type's minimum
        out = CL_TYPE[target]
        return acc, f"(isnan(v)?({out})0:convert_{out}_sat_rtz(v))"
    if target == FLOAT16:
        return acc, None  # vstore_half_rte rounds a float or a double once
    return acc, f"(({CL_TYPE[target]})(v))"
