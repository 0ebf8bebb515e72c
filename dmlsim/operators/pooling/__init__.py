"""DirectML's pooling family: DML_OPERATOR_MAX_POOLING (DML_FEATURE_LEVEL_1_0), MAX_POOLING1 (2_0, optional
OutputIndicesTensor), MAX_POOLING2 (2_1, indices and Dilations), AVERAGE_POOLING (1_0), AVERAGE_POOLING1 (6_2,
Dilations), LP_POOLING (1_0) and LP_POOLING1 (6_2, Dilations): one template, one kernel (one build per function
and data type); DML_OPERATOR_MAX_UNPOOLING (3_0) shares the folder and kernel file (:class:`MaxUnpooling`), and so do
the gradients DML_OPERATOR_MAX_POOLING_GRAD and AVERAGE_POOLING_GRAD (3_0, :class:`PoolingGrad`). The descs are
DirectML's generated ones; the semantics are in :mod:`.reference`.

Data types and ranks (the doc pages' tensor-support tables at the newest feature level): InputTensor and
OutputTensor of 4 or 5 dimensions, ``{N, C, H, W}`` / ``{N, C, D, H, W}``, the same DataType and DimensionCount;
MAX_POOLING* take FLOAT32, FLOAT16, INT64, INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8 (5_0), the
optional OutputIndicesTensor UINT32 or UINT64 with the DimensionCount and Sizes of OutputTensor;
AVERAGE_POOLING* and LP_POOLING* take FLOAT32 and FLOAT16. ``DimensionCount`` = InputTensor.DimensionCount - 2
(the pages: 2 for 4-D, 3 for 5-D); Strides, WindowSize and Dilations at least 1. Any DML strides on every
tensor (stride-0 broadcast inputs, padded outputs); no in-place execution (the schema's: no input is eligible).
FLOAT16 is storage: max compares the exact values; average and Lp compute in float32 and round once to nearest
even.

Kernels: CPU devices run MAX and AVERAGE as ``pooling_rows``, one work-item per output row, ``ROW_OUTPUTS`` (8)
outputs along W at a time (fewer for shorter rows), one lane each, the row's valid D/H taps found once and a lane
over the padding keeping its state; where the input's W stride is 1 (``POOL_TAPS``, the window's W size, dilation
and stride build constants) a set of lanes' span of inputs is read once into private memory, and the max's choice
is computed without short-circuits or calls (``BETTER_BITS``), so that the compiler vectorizes the lanes: ResNet-50's
3 x 3 / 2 max pooling at batch 8 took 14 ms one work-item per output and takes 2.0-3.2 ms on the three CPU
implementations here. Work-groups shrink for few rows (:func:`dmlsim.operators.plan.spread_local`). FLOAT32 MAX
without indices and AVERAGE over W-contiguous tensors at W stride 1 or 2 run ``pooling_vectors`` there instead: the
row's body (the outputs whose taps all lie inside the row, :func:`vector_body`) 16 outputs (8 at stride 2) at a time as
float vectors, one load of 16 inputs a tap, the few outputs at the padded ends one at a time: the bench's 3 x 3 / 1
max pooling over [8, 64, 56, 56] took 3.5 ms by rows and takes 0.53 ms on PoCL 3.1 (an AMD Zen 5 host; the native
same-traffic limit 0.3 ms). LP, and every function on GPU devices, run ``pooling``, one work-item per output element.
All give the same bits.

Output sizes: ``OutputTensor.Sizes[0:2]`` = InputTensor's; spatial ``(size + StartPadding + EndPadding -
((WindowSize - 1) * Dilations + 1)) / Strides + 1``, which must be at least 1 (refused otherwise). The pages'
formula omits Dilations (MAX_POOLING2, AVERAGE_POOLING1, LP_POOLING1, copied from the operators without them);
dmlsim uses the dilated window's extent, as ONNX sizes its dilated MaxPool/AveragePool/LpPool outputs, which
onnxruntime's DirectML provider passes to DirectML (a window must lie inside the padded input). Any other output
size is refused.

Decisions where the pages are silent, each pinned by tests/test_pooling.py:

* Padding never wins a max: padding taps are skipped, not read as 0 or -inf. A window that reads no input
  element at all (padding of a window's size or more, or dilation stepping over the input) gives the type's
  lowest value (-inf for FLOAT32/FLOAT16, INT*_MIN, 0 for unsigned types) and index all ones (``2^32 - 1`` /
  ``2^64 - 1``, -1 read as ONNX's signed int64: no element was chosen).
* NaN: max ignores NaN (as HLSL's and OpenCL's ``fmax`` and dmlsim's REDUCE MAX) unless every element the window
  reads is NaN, which gives NaN and the index of the first. Equal values (+0 and -0 too): the first in window
  order, which is increasing input order, wins (the page: "the index points to the first value encountered"),
  so the output keeps that element's sign of zero.
* Indices count row-major over InputTensor.Sizes (the page: "the input tensor as a contiguous one-dimensional
  array"), whatever InputTensor's strides, batch and channel included (ONNX's MaxPool Indices, which the provider
  passes through).
* Average: IncludePadding counts every tap of the window (``prod(WindowSize)``), dilation gaps not counted; without
  it the divisor is the number of input elements read. A window that reads nothing averages to 0 (not 0/0).
* Lp: ``(sum |x|^P)^(1/P)`` with absolute values (the page writes ``X^P``; ONNX's LpPool, which onnxruntime's
  provider maps onto LP_POOLING, takes ``|x|``, and an odd P would otherwise give roots of negative sums); P must be
  at least 1 (refused: P = 0 has no root); padding taps are skipped (as zeros they would add nothing); a window
  reading nothing gives 0; NaN if the window reads a NaN, else +inf if it reads an infinity. Computed scaled by the
  window's largest magnitude, so |x|^P neither overflows nor underflows where the norm itself does not.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import (
    DML_AVERAGE_POOLING1_OPERATOR_DESC,
    DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC,
    DML_AVERAGE_POOLING_OPERATOR_DESC,
    DML_LP_POOLING1_OPERATOR_DESC,
    DML_LP_POOLING_OPERATOR_DESC,
    DML_MAX_POOLING1_OPERATOR_DESC,
    DML_MAX_POOLING2_OPERATOR_DESC,
    DML_MAX_POOLING_GRAD_OPERATOR_DESC,
    DML_MAX_POOLING_OPERATOR_DESC,
    DML_MAX_UNPOOLING_OPERATOR_DESC,
    DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC,
)
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout
from dmlsim.operators.base import Operator, ValidatedDesc, Work, add_operator, elementwise_work, require_same
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, TensorArg, Vector, spread_local
from dmlsim.operators.pooling.reference import (
    PoolingGeometry,
    average_pooling,
    average_pooling_grad,
    lp_pooling,
    max_pooling,
    max_pooling_grad,
    max_unpooling,
    output_spatial_sizes,
    quantized_average_pooling,
)
from dmlsim.operators.typed import (
    FLOAT16,
    FLOAT32,
    FLOATS,
    INT8,
    INT16,
    INT32,
    INT64,
    INTEGERS,
    UINT8,
    UINT32,
    UINT64,
    require_type,
    typed_defines,
)

X, OUT, INDICES = "InputTensor", "OutputTensor", "OutputIndicesTensor"
_OP = DML_OPERATOR_TYPE
MAX_TYPES = (FLOAT32, FLOAT16, *INTEGERS)
INDEX_TYPES = (UINT32, UINT64)
# the kernel's start value of a max (what a window reading no element gives): the type's lowest value
LOWEST = {FLOAT32: "-INFINITY", FLOAT16: "-INFINITY", INT64: "LONG_MIN", INT32: "INT_MIN", INT16: "SHRT_MIN",
          INT8: "CHAR_MIN"}
# reference-device steps (dmlsim.operators.base.Work) per window tap: a few numpy calls over the output
TAP_STEPS = 10
# pooling_rows (CPU devices' MAX and AVERAGE): outputs along W per work-item pass, one lane each
ROW_OUTPUTS = 8
# pooling_rows' POOL_TAPS build: the most inputs along W (a set of lanes' window span) it keeps in private memory
POOL_SPAN_MAX = 48
# pooling_vectors (CPU devices' FLOAT32 MAX and AVERAGE over W-contiguous tensors): inputs per vector load
VECTOR_INPUTS = 16


def as_5d(values: tuple[int, ...], fill: int) -> tuple[int, ...]:
    """{N, C, [D], H, W} padded to {N, C, D, H, W}."""
    return values if len(values) == 5 else (*values[:2], fill, *values[2:])


def spatial_3(values: tuple[int, ...], fill: int) -> tuple[int, ...]:
    """A per-spatial-dimension array padded at the front to (D, H, W)."""
    return (fill,) * (3 - len(values)) + tuple(values)


class Pooling(Operator):
    """One member of the family: ``function`` MAX, AVERAGE or LP; which fields its desc has decides the rest."""

    def __init__(self, op_type: int, desc_cls: type, function: str) -> None:
        self.type = op_type
        self.desc_cls = desc_cls
        self.function = function

    @property
    def has_dilations(self) -> bool:
        return "Dilations" in self.desc_cls.__dataclass_fields__

    def geometry(self, v: ValidatedDesc) -> PoolingGeometry:
        a = v.attrs
        count = len(a["WindowSize"])
        dilations = tuple(a["Dilations"]) if self.has_dilations else (1,) * count
        return PoolingGeometry(tuple(a["Strides"]), tuple(a["WindowSize"]), tuple(a["StartPadding"]),
                               tuple(a["EndPadding"]), dilations)

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        where = v.struct_name
        types = MAX_TYPES if self.function == "MAX" else FLOATS
        why = f"by {v.operator.name}"
        fine = True
        for name in (X, OUT, INDICES):
            layout = v.tensors.get(name)
            if not isinstance(layout, TensorLayout):
                continue
            fine &= require_type(v, problems, name, INDEX_TYPES if name == INDICES else types, why)
            if len(layout.sizes) not in (4, 5):
                problems.add(f"{where}.{name}.DimensionCount {len(layout.sizes)} is not supported {why} "
                             "(supported: 4 to 5)")
                fine = False
        if not fine:
            return
        # "InputTensor and OutputTensor must have the same DataType" (and, with indices, "InputTensor,
        # OutputIndicesTensor, and OutputTensor must have the same DimensionCount")
        require_same(v, problems, X, (OUT,), ("DataType", "DimensionCount"))
        require_same(v, problems, OUT, (INDICES,), ("DimensionCount", "Sizes"))
        rank = len(v.layout(X).sizes)
        if v.attrs["DimensionCount"] != rank - 2:
            problems.add(f"{where}.DimensionCount {v.attrs['DimensionCount']} must be InputTensor.DimensionCount - 2 "
                         f"= {rank - 2} (the number of spatial dimensions)")
        if self.function == "LP" and v.attrs["P"] == 0:
            problems.add(f"{where}.P must be at least 1, got 0 (the norm's root is 1/P)")
        for name in ("Strides", "WindowSize", "Dilations"):
            for i, value in enumerate(v.attrs.get(name) or ()):
                if value == 0:
                    problems.add(f"{where}.{name}[{i}] must be at least 1, got 0")
        if problems:
            return
        g = self.geometry(v)
        x, out = v.layout(X).sizes, v.layout(OUT).sizes
        for i, size in enumerate(x[2:]):
            extent = (g.window[i] - 1) * g.dilations[i] + 1
            padded = size + g.start_padding[i] + g.end_padding[i]
            if extent > padded:
                problems.add(f"{where}.WindowSize[{i}] {g.window[i]} with Dilations[{i}] {g.dilations[i]} spans "
                             f"{extent} elements, more than InputTensor.Sizes[{i + 2}] {size} plus StartPadding[{i}] "
                             f"and EndPadding[{i}] ({padded})")
        if problems:
            return
        expected = (*x[:2], *output_spatial_sizes(g, x[2:]))
        if tuple(out) != expected:
            problems.add(f"{where}.OutputTensor.Sizes {list(out)} must be {list(expected)} (InputTensor.Sizes[0:2], "
                         "then (size + StartPadding + EndPadding - ((WindowSize - 1) * Dilations + 1)) / Strides + 1)")

    def work(self, v: ValidatedDesc) -> Work:
        """Each output element reads its window: the default estimate plus a few operations per tap and output
        element; the reference makes a few numpy calls per tap over the whole output."""
        taps = math.prod(v.attrs["WindowSize"])
        return elementwise_work(v) + Work(8 * taps * v.layout(OUT).element_count, 0, TAP_STEPS * taps)

    def reference_bytes(self, v: ValidatedDesc) -> int:
        """The default plus, per output element, the float64 values, uint64 indices and masks one tap holds."""
        return super().reference_bytes(v) + 48 * v.layout(OUT).element_count

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        g = self.geometry(v)
        out_spatial = v.layout(OUT).sizes[2:]
        if self.function == "AVERAGE":
            return {OUT: average_pooling(inputs[X], g, out_spatial, bool(v.attrs["IncludePadding"]))}
        if self.function == "LP":
            return {OUT: lp_pooling(inputs[X], g, out_spatial, v.attrs["P"])}
        values, indices = max_pooling(inputs[X], g, out_spatial)
        result = {OUT: values}
        indices_layout = v.tensors.get(INDICES)
        if isinstance(indices_layout, TensorLayout):
            result[INDICES] = indices.astype(np.uint32 if indices_layout.data_type == UINT32 else np.uint64)
        return result

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        g = self.geometry(v)
        x, out = v.layout(X), v.layout(OUT)
        dtype = x.data_type
        args: list[Any] = [TensorArg("x", X, scalar=True),
                           Vector("x_strides", as_5d(bound[X].layout.strides, 0), rank=8, fill=0),
                           Vector("x_sizes", as_5d(x.sizes, 1), rank=8),
                           TensorArg("y", OUT, scalar=True),
                           Vector("y_strides", as_5d(bound[OUT].layout.strides, 0), rank=8, fill=0),
                           Vector("y_sizes", as_5d(out.sizes, 1), rank=8)]
        defines = {**typed_defines(dtype, dtype), "IS_FLOAT": dtype in FLOATS, f"FUNC_{self.function}": True}
        has_indices = bound.get(INDICES) is not None
        if self.function == "MAX":
            defines["LOWEST"] = LOWEST.get(dtype, "0")
            if has_indices:
                defines.update(HAS_INDICES=True, INDEX_T="uint" if v.layout(INDICES).data_type == UINT32 else "ulong")
                args += [TensorArg("indices", INDICES, scalar=True),
                         Vector("indices_strides", as_5d(bound[INDICES].layout.strides, 0), rank=8, fill=0)]
        elif self.function == "AVERAGE":
            defines["INCLUDE_PADDING"] = bool(v.attrs["IncludePadding"])
        args += [Vector("strides", spatial_3(g.strides, 1)), Vector("window", spatial_3(g.window, 1)),
                 Vector("dilations", spatial_3(g.dilations, 1)), Vector("start_padding", spatial_3(g.start_padding, 0))]
        if self.function == "LP":
            args.append(Scalar("p", np.uint32(v.attrs["P"])))
        if target.is_cpu and self.function != "LP":
            rows = out.element_count // out.sizes[-1]
            args.append(Scalar("count", np.uint32(rows)))
            lanes = vector_lanes(dtype, g.strides[-1], has_indices, bound[X].layout.strides[-1],
                                 bound[OUT].layout.strides[-1])
            body = vector_body(lanes, x.sizes[-1], out.sizes[-1], g.window[-1], g.strides[-1], g.dilations[-1],
                               g.start_padding[-1]) if lanes else None
            if body is not None:
                window = spatial_3(g.window, 1)
                defines.update(LW=lanes, KD=window[0], KH=window[1], KW=window[2], DW=g.dilations[-1],
                               SW=g.strides[-1])
                args += [Scalar("body_start", np.uint32(body[0])), Scalar("body_last", np.uint32(body[1]))]
                return [KernelLaunch(self.kernel_source, "pooling_vectors", defines,
                                     Items(rows, spread_local(rows, target)), args)]
            lanes = row_lanes(out.sizes[-1])
            span = (lanes - 1) * g.strides[-1] + (g.window[-1] - 1) * g.dilations[-1] + 1
            if bound[X].layout.strides[-1] == 1 and span <= POOL_SPAN_MAX:
                defines.update(POOL_TAPS=True, KW=g.window[-1], DW=g.dilations[-1], SW=g.strides[-1], POOL_SPAN=span)
            return [KernelLaunch(self.kernel_source, "pooling_rows", {**defines, "PW": lanes},
                                 Items(rows, spread_local(rows, target)), args)]
        args.append(Scalar("count", np.uint32(out.element_count)))
        return [KernelLaunch(self.kernel_source, "pooling", defines, Items(out.element_count), args)]


def vector_lanes(dtype: int, stride_w: int, has_indices: bool, x_step: int, y_step: int) -> int:
    """Lanes of ``pooling_vectors`` (16 inputs a load: 16 outputs at W stride 1, 8 at stride 2), or 0 where it does not
    apply: FLOAT32 MAX without indices and AVERAGE, both tensors W-contiguous."""
    if dtype != FLOAT32 or has_indices or x_step != 1 or y_step != 1 or stride_w not in (1, 2):
        return 0
    return VECTOR_INPUTS // stride_w


def vector_body(lanes: int, in_w: int, out_w: int, window_w: int, stride_w: int, dilation_w: int,
                start_w: int) -> tuple[int, int] | None:
    """``pooling_vectors``' body of a row: (the first output, the last set's first output) of the outputs whose every
    W tap lies inside the input row, each set's loads of VECTOR_INPUTS elements too; None where no set of ``lanes``
    fits (a short row: ``pooling_rows`` then)."""
    first = -(-start_w // stride_w)  # the first output whose first tap is not padding
    last = min((in_w - VECTOR_INPUTS - (window_w - 1) * dilation_w + start_w) // stride_w, out_w - lanes)
    return (first, last) if last >= first else None


def row_lanes(out_w: int) -> int:
    """Lanes of ``pooling_rows``: ``ROW_OUTPUTS``, or the largest power of two within a shorter row (a global
    pooling's one output a row would otherwise compute 7 dead lanes over its whole window: 3.4 -> 36 us)."""
    lanes = ROW_OUTPUTS
    while lanes > out_w and lanes > 1:
        lanes //= 2
    return lanes


MEMBERS = (
    (_OP.DML_OPERATOR_MAX_POOLING, DML_MAX_POOLING_OPERATOR_DESC, "MAX"),
    (_OP.DML_OPERATOR_MAX_POOLING1, DML_MAX_POOLING1_OPERATOR_DESC, "MAX"),
    (_OP.DML_OPERATOR_MAX_POOLING2, DML_MAX_POOLING2_OPERATOR_DESC, "MAX"),
    (_OP.DML_OPERATOR_AVERAGE_POOLING, DML_AVERAGE_POOLING_OPERATOR_DESC, "AVERAGE"),
    (_OP.DML_OPERATOR_AVERAGE_POOLING1, DML_AVERAGE_POOLING1_OPERATOR_DESC, "AVERAGE"),
    (_OP.DML_OPERATOR_LP_POOLING, DML_LP_POOLING_OPERATOR_DESC, "LP"),
    (_OP.DML_OPERATOR_LP_POOLING1, DML_LP_POOLING1_OPERATOR_DESC, "LP"),
)

for _type, _desc, _function in MEMBERS:
    add_operator(Pooling(_type, _desc, _function))


class MaxUnpooling(Operator):
    """DML_OPERATOR_MAX_UNPOOLING (DML_FEATURE_LEVEL_3_0): the output is zeros except where IndicesTensor sends
    InputTensor's elements (the page: "The elements in the output tensor untouched by this process are left with zero
    values"). Tensors of 4 dimensions; InputTensor and OutputTensor the same DataType, any of FLOAT32, FLOAT16,
    INT64, INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8 (5_0); IndicesTensor UINT32 or UINT64 with
    InputTensor's Sizes. An index counts row-major over OutputTensor.Sizes ("a contiguous one-dimensional array"),
    whatever OutputTensor's strides; any DML strides on every tensor.

    Decisions where the page is silent: OutputTensor's sizes are free (ONNX's MaxUnpool takes an output_shape;
    onnxruntime's provider passes it); an index at or past OutputTensor's element count is skipped (nothing written,
    no fault); of two input elements with the same index, which one lands is unspecified (a max pooling's indices
    are distinct; the reference device keeps the last). Two launches: the zeros, then the scatter.
    """

    type = _OP.DML_OPERATOR_MAX_UNPOOLING
    desc_cls = DML_MAX_UNPOOLING_OPERATOR_DESC
    function = "UNPOOL"

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        where, why = v.struct_name, f"by {v.operator.name}"
        fine = True
        for name in (X, "IndicesTensor", OUT):
            layout = v.tensors.get(name)
            if not isinstance(layout, TensorLayout):
                continue
            fine &= require_type(v, problems, name, INDEX_TYPES if name == "IndicesTensor" else MAX_TYPES, why)
            if len(layout.sizes) != 4:
                problems.add(f"{where}.{name}.DimensionCount {len(layout.sizes)} is not supported {why} (supported: 4)")
                fine = False
        if not fine:
            return
        # "InputTensor and OutputTensor must have the same DataType"; "Both the InputTensor and IndicesTensor have
        # the same tensor sizes"
        require_same(v, problems, X, (OUT,), ("DataType",))
        require_same(v, problems, X, ("IndicesTensor",), ("Sizes",))

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {OUT: max_unpooling(inputs[X], inputs["IndicesTensor"], v.layout(OUT).sizes)}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        x, out = v.layout(X), v.layout(OUT)
        defines = {**typed_defines(x.data_type, x.data_type),
                   "UNPOOL": True, "INDEX_T": "uint" if v.layout("IndicesTensor").data_type == UINT32 else "ulong"}
        y_args = [TensorArg("y", OUT, scalar=True), Vector("y_strides", bound[OUT].layout.strides, rank=8, fill=0),
                  Vector("y_sizes", out.sizes, rank=8)]
        zero = KernelLaunch(self.kernel_source, "unpool_zero", defines, Items(out.element_count),
                            [*y_args, Scalar("count", np.uint32(out.element_count))])
        scatter = KernelLaunch(self.kernel_source, "unpool_scatter", defines, Items(x.element_count),
                               [TensorArg("x", X, scalar=True), Vector("x_strides", bound[X].layout.strides, rank=8,
                                                                       fill=0),
                                Vector("x_sizes", x.sizes, rank=8), TensorArg("indices", "IndicesTensor", scalar=True),
                                Vector("indices_strides", bound["IndicesTensor"].layout.strides, rank=8, fill=0),
                                *y_args, Scalar("out_count", np.uint64(out.element_count)),
                                Scalar("count", np.uint32(x.element_count))])
        return [zero, scatter]


add_operator(MaxUnpooling())


DX, DY = "OutputGradientTensor", "InputGradientTensor"


class PoolingGrad(Pooling):
    """DML_OPERATOR_MAX_POOLING_GRAD and DML_OPERATOR_AVERAGE_POOLING_GRAD (DML_FEATURE_LEVEL_3_0): the
    backpropagation of MAX_POOLING2 and AVERAGE_POOLING. OutputGradientTensor has the forward's input sizes,
    InputGradientTensor the forward's output sizes (the geometry rules of :class:`Pooling`, with OutputGradientTensor
    in the forward input's place); every OutputGradientTensor element is written (zeros where no window sends it
    anything).

    * MAX_POOLING_GRAD: each InputGradientTensor element is added at the element of InputTensor that the forward max
      of its window chose, "the element with the lowest logical element index" of a tie (the page), which is the first
      in window order, as MAX_POOLING2's indices; overlapping windows sum (the page). Where the page is silent, the
      forward's rules: NaN is ignored unless the window reads only NaN (then the first NaN takes the gradient), equal
      values +0/-0 tie (the first wins), padding never wins, and a window that reads no element sends its gradient
      nowhere. InputTensor, InputGradientTensor and OutputGradientTensor the same DataType (and DimensionCount),
      InputTensor and OutputGradientTensor the same Sizes; 4 dimensions only (the page's table; DimensionCount 2).
    * AVERAGE_POOLING_GRAD: each InputGradientTensor element divided by its window's divisor (IncludePadding: the
      window's tap count; otherwise the number of input elements it reads, as AVERAGE_POOLING's) is added to every
      element the window reads (the page's example: 2x2 windows over 3x3 give [[0.25, 0.75, 0.5], [1, 2.5, 1.5],
      [0.75, 1.75, 1]] for gradients [[1, 2], [3, 4]]). InputGradientTensor and OutputGradientTensor the same
      DataType and DimensionCount, 4 or 5 dimensions.

    Data types FLOAT32 and FLOAT16 (the pages' tensor-support tables); DimensionCount the spatial dimension count.
    Any DML strides on every tensor (stride-0 broadcast inputs, padded outputs); no in place (the schema's: no input
    is eligible). Computed as a gather (one work-item per OutputGradientTensor element summing the
    windows that read it, in window-tap order) in float32, rounded once to the output type; the float64 reference is
    an independent scatter (:func:`.reference.max_pooling_grad`, :func:`.reference.average_pooling_grad`).
    """

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        where, why = v.struct_name, f"by {v.operator.name}"
        names = (X, DY, DX) if self.function == "MAX_GRAD" else (DY, DX)
        # MAX_POOLING_GRAD's table: 4 dimensions only ("the only valid value for this parameter is 2");
        # AVERAGE_POOLING_GRAD's: 4 to 5
        ranks, supported = ((4,), "4") if self.function == "MAX_GRAD" else ((4, 5), "4 to 5")
        fine = True
        for name in names:
            layout = v.tensors.get(name)
            if not isinstance(layout, TensorLayout):
                continue
            fine &= require_type(v, problems, name, FLOATS, why)
            if len(layout.sizes) not in ranks:
                problems.add(f"{where}.{name}.DimensionCount {len(layout.sizes)} is not supported {why} "
                             f"(supported: {supported})")
                fine = False
        if not fine:
            return
        require_same(v, problems, DX, (DY,), ("DataType", "DimensionCount"))
        if self.function == "MAX_GRAD":
            require_same(v, problems, DX, (X,), ("DataType", "DimensionCount", "Sizes"))
        spatial = len(v.layout(DX).sizes) - 2
        if v.attrs["DimensionCount"] != spatial:
            problems.add(f"{where}.DimensionCount {v.attrs['DimensionCount']} must be "
                         f"OutputGradientTensor.DimensionCount - 2 = {spatial} (the number of spatial dimensions)")
        for name in ("Strides", "WindowSize", "Dilations"):
            for i in [i for i, value in enumerate(v.attrs.get(name) or ()) if value < 1]:
                problems.add(f"{where}.{name}[{i}] must be at least 1, got 0")
        if problems:
            return
        g = self.geometry(v)
        dx_sizes, dy = v.layout(DX).sizes, v.layout(DY).sizes
        for i, size in enumerate(dx_sizes[2:]):
            extent = (g.window[i] - 1) * g.dilations[i] + 1
            padded = size + g.start_padding[i] + g.end_padding[i]
            if padded < extent:
                problems.add(f"{where}.WindowSize[{i}] {g.window[i]} with Dilations[{i}] {g.dilations[i]} spans "
                             f"{extent} elements, more than OutputGradientTensor.Sizes[{i + 2}] {size} plus "
                             f"StartPadding[{i}] and EndPadding[{i}] ({padded})")
        if problems:
            return
        expected = (*dx_sizes[:2], *output_spatial_sizes(g, dx_sizes[2:]))
        if tuple(dy) != expected:
            problems.add(f"{where}.InputGradientTensor.Sizes {list(dy)} must be {list(expected)} (the forward's output "
                         "sizes: OutputGradientTensor.Sizes[0:2], then (size + StartPadding + EndPadding - "
                         "((WindowSize - 1) * Dilations + 1)) / Strides + 1)")

    def work(self, v: ValidatedDesc) -> Work:
        """Each OutputGradientTensor element visits the windows that read it (at most the window's taps), and the
        max gradient recomputes each such window's max: taps^2 operations per element; the reference makes a few
        numpy calls per tap."""
        taps = math.prod(v.attrs["WindowSize"])
        per = taps * taps if self.function == "MAX_GRAD" else taps
        return elementwise_work(v) + Work(8 * per * v.layout(DX).element_count, 0, TAP_STEPS * taps)

    def reference_bytes(self, v: ValidatedDesc) -> int:
        """The default plus, per InputGradientTensor element, the float64 values, indices and masks of one tap, and a
        float64 copy of the output."""
        return Operator.reference_bytes(self, v) + 48 * v.layout(DY).element_count + 8 * v.layout(DX).element_count

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        g = self.geometry(v)
        if self.function == "MAX_GRAD":
            return {DX: max_pooling_grad(inputs[X], inputs[DY], g)}
        return {DX: average_pooling_grad(inputs[DY], g, v.layout(DX).sizes[2:], bool(v.attrs["IncludePadding"]))}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        g = self.geometry(v)
        dx, dy = v.layout(DX), v.layout(DY)
        dtype = dx.data_type
        defines = {**typed_defines(dtype, dtype), "IS_FLOAT": True, "POOL_GRAD": True,
                   f"GRAD_{self.function.removesuffix('_GRAD')}": True}
        args: list[Any] = []
        if self.function == "MAX_GRAD":
            args += [TensorArg("x", X, scalar=True), Vector("x_strides", as_5d(bound[X].layout.strides, 0), rank=8,
                                                            fill=0)]
        else:
            defines.update(INCLUDE_PADDING=bool(v.attrs["IncludePadding"]))
        args += [TensorArg("dy", DY, scalar=True),
                 Vector("dy_strides", as_5d(bound[DY].layout.strides, 0), rank=8, fill=0),
                 Vector("dy_sizes", as_5d(dy.sizes, 1), rank=8),
                 TensorArg("dx", DX, scalar=True),
                 Vector("dx_strides", as_5d(bound[DX].layout.strides, 0), rank=8, fill=0),
                 Vector("dx_sizes", as_5d(dx.sizes, 1), rank=8),
                 Vector("strides", spatial_3(g.strides, 1)), Vector("window", spatial_3(g.window, 1)),
                 Vector("dilations", spatial_3(g.dilations, 1)),
                 Vector("start_padding", spatial_3(g.start_padding, 0)),
                 Scalar("count", np.uint32(dx.element_count))]
        return [KernelLaunch(self.kernel_source, "pooling_grad", defines, Items(dx.element_count), args)]


add_operator(PoolingGrad(_OP.DML_OPERATOR_MAX_POOLING_GRAD, DML_MAX_POOLING_GRAD_OPERATOR_DESC, "MAX_GRAD"))
add_operator(PoolingGrad(_OP.DML_OPERATOR_AVERAGE_POOLING_GRAD, DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC, "AVERAGE_GRAD"))


QIN_SCALE, QIN_ZERO, QOUT_SCALE, QOUT_ZERO = ("InputScaleTensor", "InputZeroPointTensor", "OutputScaleTensor",
                                              "OutputZeroPointTensor")
QUANTIZED = (INT8, UINT8)
QUANTIZED_LIMITS = {INT8: (-128, 127), UINT8: (0, 255)}


class QuantizedAveragePooling(Pooling):
    """DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING (DML_FEATURE_LEVEL_6_2): AVERAGE_POOLING1 between the page's
    dequantize ``(Input - ZeroPoint) * Scale`` and quantize ``clamp(round(Input / Scale) + ZeroPoint, Min, Max)``.
    InputTensor and OutputTensor INT8 or UINT8 of 4 or 5 dimensions (the same DimensionCount, DataTypes free), the
    scales FLOAT32, each optional zero point its tensor's DataType; a scale or zero point is ``{1, 1, 1, 1}`` (per
    tensor) or ``{1, ChannelCount, 1, 1}`` (per channel), the 5-D forms for 5-D tensors, or any tensor of 1 to 5
    dimensions holding one element. Output sizes, windows, dilations, paddings and IncludePadding as AVERAGE_POOLING1's
    (:class:`Pooling`; the page's size formula omits Dilations, decided as the family's). Any DML strides; no in place.

    Decisions where the page is silent, pinned by tests/test_quantized_average_pooling.py: the arithmetic is float32,
    every element dequantized, summed in window-tap order, divided once (correctly rounded), then quantized as
    dmlsim's QUANTIZE_LINEAR (division correctly rounded, ``round`` half to even, the zero point added, saturated, NaN
    to 0), so the integer outputs are equal on every device and the reference; padding is a real 0 (it adds nothing
    to the sum; IncludePadding counts it in the divisor); a window that reads nothing averages to 0 (the output is the
    output zero point); a scale of 0 (the page: undefined behavior) gives what the float arithmetic gives.
    """

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        where, why = v.struct_name, f"by {v.operator.name}"
        fine = True
        for name, types, ranks, supported in ((X, QUANTIZED, (4, 5), "4 to 5"), (OUT, QUANTIZED, (4, 5), "4 to 5"),
                                              (QIN_SCALE, (FLOAT32,), range(1, 6), "1 to 5"),
                                              (QOUT_SCALE, (FLOAT32,), range(1, 6), "1 to 5"),
                                              (QIN_ZERO, QUANTIZED, range(1, 6), "1 to 5"),
                                              (QOUT_ZERO, QUANTIZED, range(1, 6), "1 to 5")):
            layout = v.tensors.get(name)
            if not isinstance(layout, TensorLayout):
                continue
            fine &= require_type(v, problems, name, types, why)
            if len(layout.sizes) not in ranks:
                problems.add(f"{where}.{name}.DimensionCount {len(layout.sizes)} is not supported {why} "
                             f"(supported: {supported})")
                fine = False
        if not fine:
            return
        # "InputTensor and OutputTensor must have the same DimensionCount"; each zero point its tensor's DataType
        require_same(v, problems, X, (OUT,), ("DimensionCount",))
        require_same(v, problems, X, (QIN_ZERO,), ("DataType",))
        require_same(v, problems, OUT, (QOUT_ZERO,), ("DataType",))
        x = v.layout(X).sizes
        per_channel = [1, x[1]] + [1] * (len(x) - 2)
        for name in (QIN_SCALE, QIN_ZERO, QOUT_SCALE, QOUT_ZERO):
            layout = v.tensors.get(name)
            if isinstance(layout, TensorLayout) and layout.element_count != 1 and list(layout.sizes) != per_channel:
                problems.add(f"{where}.{name}.Sizes {list(layout.sizes)} must hold one element (per tensor) or be "
                             f"{per_channel} (per channel)")
        if problems:
            return
        # the window, stride and output-size rules of AVERAGE_POOLING1 (the family's check, with OutputTensor's
        # data type rule left to the lines above)
        for name in ("Strides", "WindowSize", "Dilations"):
            zeros = [i for i, value in enumerate(v.attrs.get(name) or ()) if not value]
            for i in zeros:
                problems.add(f"{where}.{name}[{i}] must be at least 1, got 0")
        if v.attrs["DimensionCount"] != len(x) - 2:
            problems.add(f"{where}.DimensionCount {v.attrs['DimensionCount']} must be InputTensor.DimensionCount - 2 "
                         f"= {len(x) - 2} (the number of spatial dimensions)")
        if problems:
            return
        g = self.geometry(v)
        for i, size in enumerate(x[2:]):
            extent, padded = (g.window[i] - 1) * g.dilations[i] + 1, size + g.start_padding[i] + g.end_padding[i]
            if padded - extent < 0:
                problems.add(f"{where}.WindowSize[{i}] {g.window[i]} with Dilations[{i}] {g.dilations[i]} spans "
                             f"{extent} elements, more than InputTensor.Sizes[{i + 2}] {size} plus StartPadding[{i}] "
                             f"and EndPadding[{i}] ({padded})")
        if problems:
            return
        wanted = (*x[:2], *output_spatial_sizes(g, x[2:]))
        if tuple(v.layout(OUT).sizes) != wanted:
            problems.add(f"{where}.OutputTensor.Sizes {list(v.layout(OUT).sizes)} must be {list(wanted)} "
                         "(InputTensor.Sizes[0:2], then (size + StartPadding + EndPadding - ((WindowSize - 1) * "
                         "Dilations + 1)) / Strides + 1)")

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        x_sizes = v.layout(X).sizes

        def per_channel(name: str) -> Any:
            value = inputs.get(name)
            if value is None:
                return None
            value = np.asarray(value)
            shape = (1, x_sizes[1]) + (1,) * (len(x_sizes) - 2)
            return value.reshape(shape) if value.size == x_sizes[1] and value.size != 1 else value.reshape(-1)[0]

        out_type = v.layout(OUT).data_type
        result = quantized_average_pooling(inputs[X], per_channel(QIN_SCALE), per_channel(QIN_ZERO),
                                           per_channel(QOUT_SCALE), per_channel(QOUT_ZERO), self.geometry(v),
                                           v.layout(OUT).sizes[2:], bool(v.attrs["IncludePadding"]),
                                           QUANTIZED_LIMITS[out_type])
        return {OUT: result.astype(np.int8 if out_type == INT8 else np.uint8)}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        g = self.geometry(v)
        x, out = v.layout(X), v.layout(OUT)
        defines = {**typed_defines(x.data_type, out.data_type, "float"), "QUANTIZED_AVERAGE": True,
                   "SATURATE_T": "char" if out.data_type == INT8 else "uchar",
                   "INCLUDE_PADDING": bool(v.attrs["IncludePadding"]),
                   "IN_ZERO_POINT": bound.get(QIN_ZERO) is not None, "OUT_ZERO_POINT": bound.get(QOUT_ZERO) is not None}

        def channel(name: str, param: str) -> list[Any]:
            layout = bound[name].layout
            stride = 0 if layout.element_count == 1 else layout.strides[1]
            return [TensorArg(param, name, scalar=True), Scalar(f"{param}_stride", np.uint64(stride))]

        args: list[Any] = [TensorArg("x", X, scalar=True),
                           Vector("x_strides", as_5d(bound[X].layout.strides, 0), rank=8, fill=0),
                           Vector("x_sizes", as_5d(x.sizes, 1), rank=8),
                           TensorArg("y", OUT, scalar=True),
                           Vector("y_strides", as_5d(bound[OUT].layout.strides, 0), rank=8, fill=0),
                           Vector("y_sizes", as_5d(out.sizes, 1), rank=8), *channel(QIN_SCALE, "in_scale")]
        if defines["IN_ZERO_POINT"]:
            args += channel(QIN_ZERO, "in_zero")
        args += channel(QOUT_SCALE, "out_scale")
        if defines["OUT_ZERO_POINT"]:
            args += channel(QOUT_ZERO, "out_zero")
        args += [Vector("strides", spatial_3(g.strides, 1)), Vector("window", spatial_3(g.window, 1)),
                 Vector("dilations", spatial_3(g.dilations, 1)), Vector("start_padding", spatial_3(g.start_padding, 0)),
                 Scalar("count", np.uint32(out.element_count))]
        return [KernelLaunch(self.kernel_source, "quantized_average_pooling", defines, Items(out.element_count), args)]


add_operator(QuantizedAveragePooling(_OP.DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING,
                                     DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC, "QAVERAGE"))
