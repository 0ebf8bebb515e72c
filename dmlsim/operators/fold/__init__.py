"""DML_OPERATOR_FOLD (col2im) and DML_OPERATOR_UNFOLD (im2col), from one kernel file and DirectML's generated descs.

Semantics (their doc pages): the image tensor is ``{N, C, S_0 .. S_{D-1}}`` (D = ``DimensionCount`` spatial
dimensions, 1 to 6); the columns tensor is ``{N, C * prod(WindowSizes), BlockCount}``: a row per channel and
window position (row-major over ``(C, k_0 .. k_{D-1})``), a column per block (row-major over the blocks), with
``BlocksPerDimension[d] = (S_d + StartPadding[d] + EndPadding[d] - Dilations[d] * (WindowSizes[d] - 1) - 1) /
Strides[d] + 1`` and ``BlockCount = prod(BlocksPerDimension)``. Window position k of block b reads the
zero-padded image at ``b[d] * Strides[d] + k[d] * Dilations[d] - StartPadding[d]``. UNFOLD copies those elements
into the columns (0 where the window reads the padding); FOLD sums every column element into the image element it
was read from (the pages' examples: overlapping windows add up; reads of the padding are dropped; an image element
no window reads is 0).

Rules: the pages' formulas; ``DimensionCount`` in [1, 6]; WindowSizes, Strides and Dilations at least 1; every
BlocksPerDimension at least 1; the columns' N equals the image's, their rows ``C * prod(WindowSizes)``, their
columns BlockCount; both tensors of one DataType.

Decisions where the pages are silent or contradict themselves:

- Ranks. Each page's "Tensor constraints" asks for one DimensionCount on both tensors, while its examples (and
  onnxruntime's Col2Im, which passes a 3-D columns tensor and a 4-D image) give the columns 3 dimensions and the
  image 2 + DimensionCount. dmlsim takes the image as exactly ``2 + DimensionCount`` dimensions and the columns as
  3 to 8 dimensions whose leading ones (before the last three) are all 1: both readings are accepted.
- Data types (the pages' tables list none). UNFOLD moves elements: every data type, bit for bit (NaN payloads,
  -0.0 kept; the padding reads +0). FOLD adds: FLOAT32 and FLOAT16 (the types onnxruntime's Col2Im runs in), the
  sum in float32 over the window positions in row-major order, FLOAT16 as storage rounded to nearest even once.
- Any DML strides on both tensors (padded, permuted, a stride-0 broadcast input), tensors at any binding offset;
  not in place (the schema: the input is not eligible).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_FOLD_OPERATOR_DESC, DML_UNFOLD_OPERATOR_DESC
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout
from dmlsim.operators.base import Operator, ValidatedDesc, Work, elementwise_work, register, require_same
from dmlsim.operators.fold.reference import blocks_per_dimension, fold, unfold
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, TensorArg
from dmlsim.operators.typed import (
    EVERY_TYPE,
    FLOATS,
    bits_defines,
    require_type,
    typed_defines,
    ulong8,
)

IN, OUT = "InputTensor", "OutputTensor"
ARRAYS = ("WindowSizes", "Strides", "Dilations", "StartPadding", "EndPadding")


class FoldFamily(Operator):
    """The shared rules and launch; ``image``/``columns`` name the tensor fields holding each form."""

    image: str
    columns: str
    data_types: tuple[int, ...]
    entry: str

    def params(self, v: ValidatedDesc) -> tuple[list[int], ...]:
        return tuple(list(v.attrs[f]) for f in ARRAYS)

    def blocks(self, v: ValidatedDesc) -> list[int]:
        window, strides, dilations, start, end = self.params(v)
        return blocks_per_dimension(v.layout(self.image).sizes[2:], window, strides, dilations, start, end)

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        name = v.struct_name
        require_type(v, problems, IN, self.data_types, f"by {name.removesuffix('_DESC')}")
        require_same(v, problems, IN, (OUT,), ("DataType",))
        image, columns = v.tensors.get(self.image), v.tensors.get(self.columns)
        dims = v.attrs.get("DimensionCount")
        if not isinstance(image, TensorLayout) or not isinstance(columns, TensorLayout) or dims is None:
            return
        if not 1 <= dims <= 6:
            problems.add(f"{name}.DimensionCount {dims} must be in [1, 6]")
            return
        if len(image.sizes) != 2 + dims:
            problems.add(f"{name}.{self.image}.DimensionCount {len(image.sizes)} must be 2 + DimensionCount "
                         f"{dims} ({{N, C, spatial...}})")
        if len(columns.sizes) < 3 or any(n != 1 for n in columns.sizes[:-3]):
            problems.add(f"{name}.{self.columns}.Sizes {list(columns.sizes)} must be {{N, C * prod(WindowSizes), "
                         "BlockCount}, with any dimensions before those three of size 1")
        for field in ARRAYS[:3]:
            for d, value in enumerate(v.attrs[field]):
                if value < 1:
                    problems.add(f"{name}.{field}[{d}] {value} must be at least 1")
        if problems:
            return
        blocks = self.blocks(v)
        for d, count in enumerate(blocks):
            if count < 1:
                problems.add(f"{name}: the window of dimension {d} (Dilations[{d}] * (WindowSizes[{d}] - 1) + 1) must "
                             f"fit in {self.image}.Sizes[{2 + d}] {image.sizes[2 + d]} + StartPadding[{d}] + "
                             f"EndPadding[{d}] (BlocksPerDimension[{d}] is {count})")
        if problems:
            return
        window_count = int(np.prod(v.attrs["WindowSizes"]))
        expected = [image.sizes[0], image.sizes[1] * window_count, int(np.prod(blocks))]
        if list(columns.sizes[-3:]) != expected:
            problems.add(f"{name}.{self.columns}.Sizes {list(columns.sizes)} must end in {expected} ({{N, C * "
                         f"prod(WindowSizes) {window_count}, BlockCount = prod(BlocksPerDimension {blocks})}})")

    def work(self, v: ValidatedDesc) -> Work:
        """The default plus, for FOLD, a window's worth of reads per image element; the references loop over the
        window positions in Python (a host step each)."""
        window_count = int(np.prod(v.attrs["WindowSizes"]))
        base = elementwise_work(v) * (max(1, window_count) if self.entry == "fold" else 1)
        return base + Work(0, 0, window_count)

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        x, y = v.layout(IN), v.layout(OUT)
        image = v.layout(self.image)
        window, strides, dilations, start, _ = self.params(v)
        ones = [1] * (8 - len(window))  # per-dimension vectors: components 0 .. D-1 used, the rest padded at the back
        args = (TensorArg("x", IN, rank=8), TensorArg("y", OUT, rank=8), ulong8("sizes", y.sizes, fill=1),
                ulong8("image", list(image.sizes[2:]) + ones), ulong8("window", window + ones),
                ulong8("blocks", self.blocks(v) + ones), ulong8("stride", strides + ones),
                ulong8("dilation", dilations + ones), ulong8("start", start + [0] * len(ones)),
                Scalar("dims", np.uint32(len(window))),
                Scalar("window_count", np.uint64(int(np.prod(window)))), Scalar("n", np.uint32(y.element_count)))
        if self.entry == "unfold":
            defines = bits_defines(y.element_size)
        else:
            defines = typed_defines(x.data_type, y.data_type, acc="float")
        return [KernelLaunch(self.kernel_source, self.entry, defines, Items(y.element_count), args)]


@register
class Fold(FoldFamily):
    """FOLD (module docstring): columns in, image out, overlapping elements summed."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_FOLD
    desc_cls = DML_FOLD_OPERATOR_DESC
    image, columns, data_types, entry = OUT, IN, FLOATS, "fold"

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        window, strides, dilations, start, end = self.params(v)
        columns = inputs[IN].reshape(v.layout(IN).sizes[-3:])
        return {OUT: fold(columns, v.layout(OUT).sizes[2:], window, strides, dilations, start, end)}


@register
class Unfold(FoldFamily):
    """UNFOLD (module docstring): image in, columns out."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_UNFOLD
    desc_cls = DML_UNFOLD_OPERATOR_DESC
    image, columns, data_types, entry = IN, OUT, EVERY_TYPE, "unfold"

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        window, strides, dilations, start, end = self.params(v)
        out = unfold(inputs[IN], window, strides, dilations, start, end)
        return {OUT: out.reshape(v.layout(OUT).sizes)}
