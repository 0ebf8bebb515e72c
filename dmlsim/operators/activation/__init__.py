"""DirectML's activations (``DML_OPERATOR_ACTIVATION_*``), a family from three templates.

- :class:`ElementWiseActivation`: y = f(x) for the 19 element-wise activations, f from the formula
  table (:data:`.reference.FORMULAS`, and ``activation_<name>`` in ``dmlsim/cl_kernels/activations.h``).
  The kernel is the fused-activation machinery itself: the operator's own validated desc gives the
  build defines (:func:`.fused.fused_defines`), so a standalone activation and a fused one compute
  with the same code.
- :class:`TwoInputActivation`: PARAMETERIZED_RELU (x, SlopeTensor) and RELU_GRAD (x, dY).
- :class:`AxesActivation`: SOFTMAX, LOG_SOFTMAX, HARDMAX along the last dimension (the doc pages
  require an effective rank of at most 2) and their ``1`` versions along ``Axes``.

Every member uses DirectML's generated desc; the template adds the doc pages' rules: the tensors share
DataType, DimensionCount and Sizes, the data types of the page's tensor-support table (the newest row; no
later level adds activation rows), and the attribute rules (SOFTPLUS Steepness >= 1, or > 0 once dmlsim
reports DML_FEATURE_LEVEL_6_4; Axes in range, unique). Tensors have 1 to 8 dimensions and any DML strides
(stride 0 broadcasts an input); in-place follows the generated schema's eligibility. FLOAT16 is storage:
computed in float32, stored rounded to nearest even. RELU, PARAMETERIZED_RELU and RELU_GRAD compute
integers in their own type; SHRINK on integers computes x - Bias / x + Bias exactly and converts as CAST does (see
:func:`.reference.shrink_integer`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import OPERATOR_SCHEMAS
from dmlsim.api.enums import DML_FEATURE_LEVEL, DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE
from dmlsim.api.errors import E_NOTIMPL, DMLError, Problems
from dmlsim.api.tensor import data_type_name
from dmlsim.operators.activation.fused import PREFIX, fused_defines
from dmlsim.operators.activation.reference import (
    AXES_FORMULAS,
    FORMULAS,
    parameterized_relu,
    relu_grad,
    shrink_integer,
    shrink_integer_constants,
)
from dmlsim.operators.base import Operator, ValidatedDesc, Work, add_operator, elementwise_work, require_same
from dmlsim.operators.plan import Groups, Items, KernelLaunch, LaunchTarget, Scalar, Stream, TensorArg, Vector
from dmlsim.operators.reduce import reduction_run

_T = DML_TENSOR_DATA_TYPE
IN, OUT = "InputTensor", "OutputTensor"
# Each tensor field's parameter in the kernels (kernel.cl, axes.cl): TENSOR_IN8(x), TENSOR_OUT8(y), ...
KERNEL_PARAMS = {IN: "x", OUT: "y", "SlopeTensor": "slope", "InputGradientTensor": "dy", "OutputGradientTensor": "dx"}
FLOATS = (_T.DML_TENSOR_DATA_TYPE_FLOAT32, _T.DML_TENSOR_DATA_TYPE_FLOAT16)
SIGNED = (_T.DML_TENSOR_DATA_TYPE_INT32, _T.DML_TENSOR_DATA_TYPE_INT16, _T.DML_TENSOR_DATA_TYPE_INT8)
UNSIGNED = (_T.DML_TENSOR_DATA_TYPE_UINT32, _T.DML_TENSOR_DATA_TYPE_UINT16, _T.DML_TENSOR_DATA_TYPE_UINT8)
GROUP_SIZE = 64  # axes.cl's activation_group: work-items per group of reduced elements (GPUs)
# How each data type is stored in a kernel (dmlsim/cl_kernels/dmlsim.h): its build define.
STORAGE = {_T.DML_TENSOR_DATA_TYPE_FLOAT32: {}, _T.DML_TENSOR_DATA_TYPE_FLOAT16: {"STORE_HALF": True},
           _T.DML_TENSOR_DATA_TYPE_INT32: {"STORE_INTEGER": "int"},
           _T.DML_TENSOR_DATA_TYPE_INT16: {"STORE_INTEGER": "short"},
           _T.DML_TENSOR_DATA_TYPE_INT8: {"STORE_INTEGER": "char"},
           _T.DML_TENSOR_DATA_TYPE_UINT32: {"STORE_INTEGER": "uint"},
           _T.DML_TENSOR_DATA_TYPE_UINT16: {"STORE_INTEGER": "ushort"},
           _T.DML_TENSOR_DATA_TYPE_UINT8: {"STORE_INTEGER": "uchar"}}
# Data types of each doc page's tensor-support table at DML_FEATURE_LEVEL_6_2 (the 5_1 rows), where they are
# more than FLOAT32/FLOAT16.
DATA_TYPES = {"RELU": (*FLOATS, *SIGNED), "PARAMETERIZED_RELU": (*FLOATS, *SIGNED), "RELU_GRAD": (*FLOATS, *SIGNED),
              "SHRINK": (*FLOATS, *SIGNED, *UNSIGNED)}
# Allowed by the doc page, not computed by dmlsim (refused with E_NOTIMPL, saying why): none at present.
NOT_IMPLEMENTED_TYPES: dict[str, tuple[tuple[int, ...], str]] = {}


def _desc_class(op_type: int) -> type:
    return next(s.desc_cls for s in OPERATOR_SCHEMAS if s.type == op_type)


class Activation(Operator):
    """What every member shares: its type and generated desc, the same-tensors rule, the data types."""

    tensors: tuple[str, ...] = (IN, OUT)
    kernel_entry = ""

    def __init__(self, name: str) -> None:
        self.member = name
        self.type = DML_OPERATOR_TYPE[PREFIX + name]
        self.desc_cls = _desc_class(self.type)
        self.data_types = DATA_TYPES.get(name, FLOATS)

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        self.check_attributes(v, v.struct_name, problems)
        layout = v.layout(IN)
        require_same(v, problems, IN, self.tensors[1:])
        data_type = layout.data_type
        refused, why = NOT_IMPLEMENTED_TYPES.get(self.member, ((), ""))
        if data_type in refused:
            raise DMLError(E_NOTIMPL, f"CreateOperator({self.name}): {v.struct_name}.{IN}.DataType "
                                      f"{data_type_name(data_type)} is allowed by DirectML but not implemented "
                                      f"by dmlsim ({why}); FLOAT32 and FLOAT16 are")
        if data_type not in self.data_types:
            allowed = ", ".join(data_type_name(t) for t in self.data_types)
            problems.add(f"{v.struct_name}.{IN}.DataType {data_type_name(data_type)} is not supported by "
                         f"{self.name} (supported: {allowed})")

    def check_fused(self, v: ValidatedDesc, where: str, problems: Problems) -> None:
        self.check_attributes(v, where, problems)

    def check_attributes(self, v: ValidatedDesc, where: str, problems: Problems) -> None:
        """Rules on attribute values, also checked when the activation is fused (``where`` names the desc)."""

    def launch(self, v: ValidatedDesc, bound: dict[str, Any], defines: dict[str, Any]) -> KernelLaunch:
        """One work-item per element over the desc's tensors (8-D strides), in ``tensors`` order; where every
        tensor is packed (``PACKED``: the kernels that define it index element i at offset i, no coordinates)."""
        layout = v.layout(IN)
        count = layout.element_count
        args = [*(TensorArg(KERNEL_PARAMS[name], name, rank=8) for name in self.tensors),
                Vector("sizes", layout.sizes, rank=8), Scalar("n", np.uint32(count))]
        packed = all(bound[name].layout.is_packed for name in self.tensors if bound.get(name) is not None)
        return KernelLaunch(self.kernel_source, self.kernel_entry,
                            {**STORAGE[layout.data_type], "PACKED": packed, **defines}, Items(count), args)


def check_softplus_steepness(steepness: float, where: str, problems: Problems) -> None:
    """SOFTPLUS's Steepness rule at the feature level dmlsim reports: its page says it cannot be less than 1;
    DML_FEATURE_LEVEL_6_4 "allows Steepness < 1" (the feature-level history), so from 6_4 on it need only be
    greater than 0 (dmlsim's reading: 0 would divide by zero, and a negative steepness the history does not
    mention). NaN is refused at every level."""
    from dmlsim.operators import implemented_feature_level  # the registry imports this package
    if implemented_feature_level() >= DML_FEATURE_LEVEL.DML_FEATURE_LEVEL_6_4:
        if not steepness > 0:
            problems.add(f"{where}.Steepness {steepness!r} must be greater than 0 "
                         "(DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC at DML_FEATURE_LEVEL_6_4)")
    elif not steepness >= 1:
        problems.add(f"{where}.Steepness {steepness!r} must not be less than 1 "
                     "(DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC below DML_FEATURE_LEVEL_6_4)")


class ElementWiseActivation(Activation):
    """y = f(x), f one of the formula table's activations (the same code as a fused activation)."""

    kernel_entry = "activation_unary"

    def check_attributes(self, v: ValidatedDesc, where: str, problems: Problems) -> None:
        steepness = v.attrs.get("Steepness")
        if self.member == "SOFTPLUS" and steepness is not None:
            check_softplus_steepness(float(steepness), where, problems)

    def work(self, v: ValidatedDesc) -> Work:
        """The default, plus the reference's Python steps where it goes element by element: GELU (np.vectorize
        of math.erfc) and SHRINK of integers (exact fractions, six steps an element)."""
        steps = 1 if self.member == "GELU" else 6 if self.member == "SHRINK" and v.layout(IN).data_type not in FLOATS \
            else 0
        return elementwise_work(v, host_steps_per_element=steps)

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        x = np.asarray(inputs[IN])
        if self.member == "SHRINK" and np.issubdtype(x.dtype, np.integer):
            return {OUT: shrink_integer(x, v.attrs["Bias"], v.attrs["Threshold"])}
        return {OUT: FORMULAS[self.member].apply(x, v.attrs)}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        """One work-item per element; on CPU devices whose compiler vectorizes loops rather than work-items (PoCL),
        where both tensors are packed, a streaming launch (``STREAM``: a chunk of VEC-element runs per work-item,
        whose loop the compiler vectorizes): GELU of 16,384 elements 34-77 -> 21-23 us on PoCL 3.1 and 3.0. Intel's
        runtime, which makes neighbouring work-items SIMD lanes, ran a million GELUs faster one per work-item
        (1.2 against 1.7 ms)."""
        if self.member == "SHRINK" and v.layout(IN).data_type not in FLOATS:
            constants = shrink_integer_constants(v.attrs["Bias"], v.attrs["Threshold"])
            launch = self.launch(v, bound, {"SHRINK_INTEGER": True,
                                            **{f"SHRINK_{k.upper()}": f"({n}L)" for k, n in constants.items()}})
        else:
            launch = self.launch(v, bound, fused_defines(v))
        if launch.defines["PACKED"] and target.is_cpu and not target.vectorizes_items:
            layout = v.layout(IN)
            vec = target.stream_vec(8 if layout.data_type == DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_FLOAT64 else 4)
            launch.defines.update(STREAM=True, VEC=vec)
            launch.geometry = Stream(layout.element_count // vec)
        return [launch]


class TwoInputActivation(Activation):
    """PARAMETERIZED_RELU (x, slope) and RELU_GRAD (x, dY): two inputs of the same sizes, one output."""

    def __init__(self, name: str, second: str, output: str, entry: str) -> None:
        super().__init__(name)
        self.tensors = (IN, second, output)
        self.kernel_entry = entry

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        x, other = inputs[IN], inputs[self.tensors[1]]
        formula = parameterized_relu if self.member == "PARAMETERIZED_RELU" else relu_grad
        if np.issubdtype(x.dtype, np.integer):  # integers: in the type itself (PARAMETERIZED_RELU wraps)
            with np.errstate(over="ignore"):
                return {self.tensors[2]: formula(x, other).astype(x.dtype)}
        return {self.tensors[2]: formula(np.asarray(x, np.float64), np.asarray(other, np.float64))}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        return [self.launch(v, bound, {})]


class AxesActivation(Activation):
    """SOFTMAX, LOG_SOFTMAX, HARDMAX: over the elements sharing their coordinates outside the axes.

    Issue 25's fast path (:meth:`plan_launches`, axes.cl's ``activation_run``): where the reduced axes walk both
    tensors as one arithmetic progression each, one work-item per group walks them without coordinates, 32
    elements at a time (two sixteen-lane vectors) over contiguous runs for SOFTMAX/LOG_SOFTMAX (the sum of
    exponentials then added in those lanes: within the stated tolerances, which hold for any order; FLOAT32 SOFTMAX
    computes exp once per element, kept in the output and multiplied there by the sum's inverse). GPUs:
    SOFTMAX/LOG_SOFTMAX over runs of GROUP_SIZE (64) or more take one work-group per group (``activation_group``:
    strided partial maxima and sums combined pairwise in local memory); HARDMAX and shorter runs one work-item per
    group, as on CPUs."""

    kernel_file = "axes.cl"
    kernel_entry = "activation_axes"

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.function = name.removesuffix("1")
        self.has_axes = name.endswith("1")

    def axes(self, v: ValidatedDesc) -> list[int]:
        """The reduced axes: ``Axes`` of the ``1`` versions, else the last dimension."""
        return sorted(v.attrs["Axes"]) if self.has_axes else [len(v.layout(IN).sizes) - 1]

    def check_attributes(self, v: ValidatedDesc, where: str, problems: Problems) -> None:
        layout = v.layout(IN)
        rank = len(layout.sizes)
        if not self.has_axes:
            effective = len(layout.sizes) - next((i for i, s in enumerate(layout.sizes) if s != 1), rank - 1)
            if effective > 2:
                problems.add(f"{v.struct_name}.{IN}.Sizes {list(layout.sizes)} has an effective rank of {effective} "
                             "(dimensions after the leading 1s); it must be at most 2")
            return
        axes = v.attrs.get("Axes")
        if axes is None:
            return
        if not axes:
            problems.add(f"{v.struct_name}.AxisCount must be at least 1 (dmlsim: no axis to reduce along)")
        for i, axis in enumerate(axes):
            if axis >= rank:
                problems.add(f"{v.struct_name}.Axes[{i}] {axis} must be in [0, InputTensor.DimensionCount - 1] "
                             f"= [0, {rank - 1}]")
        if len(set(axes)) != len(axes):
            problems.add(f"{v.struct_name}.Axes {list(axes)} must not repeat an axis")

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        return {OUT: AXES_FORMULAS[self.function](np.asarray(inputs[IN], np.float64), self.axes(v))}

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        """One work-item per group of reduced elements: the outer (kept) dimensions and the inner (reduced)
        ones as separate 8-D index spaces, each with both tensors' strides. Where the reduced axes walk each
        tensor as one arithmetic progression (:func:`dmlsim.operators.reduce.reduction_run`: SOFTMAX's last
        dimension, any single axis, nested axes), ``activation_run`` (axes.cl) walks it without coordinates,
        32 elements at a time for SOFTMAX/LOG_SOFTMAX over contiguous runs; on GPUs SOFTMAX/LOG_SOFTMAX over
        runs of at least GROUP_SIZE elements take one work-group per group (``activation_group``)."""
        sizes = v.layout(IN).sizes
        axes = self.axes(v)
        outer = [d for d in range(len(sizes)) if d not in axes]
        x, y = bound[IN].layout.strides, bound[OUT].layout.strides

        def space(name: str, dims: list[int]) -> list[Any]:
            """``name_sizes, name_x, name_y``: the space's sizes and both tensors' strides along it."""
            return [Vector(f"{name}_sizes", tuple(sizes[d] for d in dims), rank=8, fill=1),
                    Vector(f"{name}_x", tuple(x[d] for d in dims), rank=8, fill=0),
                    Vector(f"{name}_y", tuple(y[d] for d in dims), rank=8, fill=0)]

        outer_count = int(np.prod([sizes[d] for d in outer], dtype=np.int64))
        inner_count = int(np.prod([sizes[d] for d in axes], dtype=np.int64))
        defines = {**STORAGE[v.layout(IN).data_type], f"AXES_{self.function}": True}
        x_run, y_run = reduction_run(sizes, x, axes), reduction_run(sizes, y, axes)
        if x_run is not None and y_run is not None:
            args = [*(TensorArg(KERNEL_PARAMS[name], name, rank=8) for name in (IN, OUT)), *space("outer", outer)[:3],
                    Scalar("outer_count", np.uint32(outer_count)), Scalar("inner_count", np.uint32(inner_count)),
                    Scalar("x_step", np.uint64(x_run[1])), Scalar("y_step", np.uint64(y_run[1]))]
            if not target.is_cpu and self.function != "HARDMAX" and inner_count >= GROUP_SIZE:
                return [KernelLaunch(self.kernel_source, "activation_group", {**defines, "GROUP_SIZE": GROUP_SIZE},
                                     Groups(outer_count, GROUP_SIZE), args)]
            defines["RUN_CONTIGUOUS"] = x_run[1] == 1 and y_run[1] == 1
            return [KernelLaunch(self.kernel_source, "activation_run", defines, Items(outer_count), args)]
        args = [*(TensorArg(KERNEL_PARAMS[name], name, rank=8) for name in (IN, OUT)),
                *space("outer", outer), *space("inner", axes),
                Scalar("outer_count", np.uint32(outer_count)), Scalar("inner_count", np.uint32(inner_count))]
        return [KernelLaunch(self.kernel_source, self.kernel_entry, defines, Items(outer_count), args)]


for _name in FORMULAS:
    add_operator(ElementWiseActivation(_name))
add_operator(TwoInputActivation("PARAMETERIZED_RELU", "SlopeTensor", OUT, "activation_parameterized_relu"))
add_operator(TwoInputActivation("RELU_GRAD", "InputGradientTensor", "OutputGradientTensor", "activation_relu_grad"))
for _name in ("SOFTMAX", "LOG_SOFTMAX", "HARDMAX", "SOFTMAX1", "LOG_SOFTMAX1", "HARDMAX1"):
    add_operator(AxesActivation(_name))
