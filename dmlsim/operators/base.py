"""The operator base class, the registry it fills, and helpers for cross-field rules.

Each operator is an :class:`Operator` subclass registered with :func:`register`; its desc dataclass
carries the schema (dmlsim.api.schema); generic validation is in dmlsim.operators.validation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.schema import INPUT, OUTPUT, DescField, desc_fields
from dmlsim.api.tensor import TensorLayout, data_type_name
from dmlsim.operators.plan import KernelLaunch, KernelSource, LaunchTarget

Layouts = TensorLayout | list[TensorLayout] | None
# What the float64 reference holds per element of each tensor by default: three float64 arrays (a float64
# copy of an input, a result, a temporary); Operator.reference_bytes
REFERENCE_BYTES_PER_ELEMENT = 24


@dataclass
class ValidatedDesc:
    """An operator desc after validation: inferred layouts per tensor field, coerced attribute values."""

    operator: Operator
    desc: Any
    tensors: dict[str, Layouts] = field(default_factory=dict)
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def struct_name(self) -> str:
        return type(self.desc).__name__

    def layout(self, name: str) -> TensorLayout:
        layout = self.tensors[name]
        assert isinstance(layout, TensorLayout)
        return layout

    def all_layouts(self, names: Sequence[str] | None = None) -> list[TensorLayout]:
        """Every tensor's layout (of the fields ``names``, default all), tensor arrays flattened, null ones left out."""
        found: list[TensorLayout] = []
        for name, layouts in self.tensors.items():
            if names is None or name in names:
                found += [t for t in (layouts if isinstance(layouts, list) else [layouts]) if t is not None]
        return found


@dataclass(frozen=True)
class Work:
    """What one dispatch costs, estimated from its desc alone (the compute budget of model files,
    dmlsim.model.limits): ``operations`` arithmetic operations (a multiply-add is two), ``bytes`` read and
    written (a broadcast element each time it is read: the element count of the tensor's Sizes, not its
    memory), and ``host_steps``, steps the reference device takes in Python (a loop over elements, a
    timestep, a kernel tap), each about a microsecond, where numpy's vectorized calls take nanoseconds per
    element. Integers of any size: a hostile desc's estimate may be astronomically large, which is the point."""

    operations: int
    bytes: int
    host_steps: int = 0

    def __add__(self, other: Work) -> Work:
        return Work(self.operations + other.operations, self.bytes + other.bytes, self.host_steps + other.host_steps)

    def __mul__(self, times: int) -> Work:
        return Work(self.operations * times, self.bytes * times, self.host_steps * times)


def tensor_layouts(v: ValidatedDesc, role: str | None = None) -> list[TensorLayout]:
    """Every bound tensor of a validated desc (tensor arrays flattened), of ``role`` (INPUT/OUTPUT) or both."""
    layouts: list[TensorLayout] = []
    for row in v.operator.fields(role):
        if row.spec.role not in (INPUT, OUTPUT):
            continue
        value = v.tensors.get(row.name)
        layouts += value if isinstance(value, list) else [value] if isinstance(value, TensorLayout) else []
    return layouts


# operations per element touched of the default estimate: what the reference device spends on an element of
# an element-wise function in float64 (its conversion, the function, a broadcast input's copy, the conversion
# back): 200-250 ns per output element of SIGMOID or SOFTMAX over 64M elements on 2 cores, about 256 units each
OPERATIONS_PER_ELEMENT = 64


def elementwise_work(v: ValidatedDesc, operations_per_element: int = OPERATIONS_PER_ELEMENT,
                     host_steps_per_element: int = 0) -> Work:
    """The default estimate: every element of every tensor read or written once (an output element of a
    reduction reads its whole reduction: input elements = output elements x reduction length), so
    ``operations_per_element`` per element touched, their bytes, and ``host_steps_per_element`` Python steps
    per output element where the reference device loops in Python."""
    layouts = tensor_layouts(v)
    elements = sum(layout.element_count for layout in layouts)
    outputs = sum(layout.element_count for layout in tensor_layouts(v, OUTPUT))
    return Work(operations_per_element * elements, sum(-(-layout.element_count * layout.element_bits // 8)
                                                       for layout in layouts), host_steps_per_element * outputs)


class Operator:
    """Base class of an operator: its type, desc struct, kernel, cross-field rules and reference.

    ``kernel_file`` names the OpenCL source beside the operator's module (package data).
    """

    type: int
    desc_cls: type
    kernel_file: str = "kernel.cl"
    implemented: bool = True  # False: a DirectML operator validated from its generated desc, then refused
    sub_byte_types: bool = False  # True: takes the 4-bit types (UINT4, INT4); every other operator refuses them

    # --- validation -------------------------------------------------------------------------------
    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        """Cross-field rules (same sizes, scalar shapes, attribute ranges). Per-field rules are generic."""

    def check_fused(self, v: ValidatedDesc, where: str, problems: Problems) -> None:
        """Rules on the attributes of this operator's desc nested as a fused activation (its tensors are
        null), named ``where`` in messages (``DML_GEMM_OPERATOR_DESC.FusedActivation.Desc``)."""

    def temporary_size(self, v: ValidatedDesc) -> int:
        """Bytes of temporary resource the operator needs at execution (0 for most)."""
        return 0

    def work(self, v: ValidatedDesc) -> Work:
        """An estimate of one dispatch's cost from its desc (:class:`Work`), which the compute budget of model
        files adds up before anything executes. The default, :func:`elementwise_work`, fits an operator that
        touches each element of its tensors a bounded number of times in vectorized code (element-wise
        functions, reductions, copies, optimizers); an operator doing more per element (GEMM's K, a
        convolution's window, an RNN's timesteps) or whose reference loops in Python says so here."""
        return elementwise_work(v)

    # --- execution --------------------------------------------------------------------------------
    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        """Reference execution on numpy arrays (float64 results); used by the reference device."""
        raise NotImplementedError

    def prior_outputs(self, v: ValidatedDesc) -> tuple[str, ...]:
        """Output fields whose contents before the dispatch the operator reads (a cache it updates in place:
        MULTIHEAD_ATTENTION1's KV cache in its present tensors); :meth:`evaluate` receives their current
        values among ``inputs``, under their names. None for most operators."""
        return ()

    def reference_bytes(self, v: ValidatedDesc) -> int:
        """An upper estimate of the bytes of host arrays :meth:`evaluate` holds at once, from the desc alone:
        the reference device charges it against its working-memory limit before computing anything (a
        broadcast input is a view of a few bytes whose float64 copy may be 32 GiB). Default:
        :data:`REFERENCE_BYTES_PER_ELEMENT` per element of every tensor, broadcast repeats included; an
        operator whose reference does not expand them, or holds more, says so."""
        return REFERENCE_BYTES_PER_ELEMENT * sum(layout.element_count for layout in v.all_layouts())

    def debug_check(self, v: ValidatedDesc, read: Callable[[str], Any], problems: Problems) -> None:
        """Execution-time checks a debug device makes on input values; ``read(field)`` gives an array."""

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        """The kernel launches of one dispatch (dmlsim.operators.plan): ``bound`` maps each tensor field
        to its bound tensor (a list for tensor arrays, None when null)."""
        raise NotImplementedError

    @property
    def kernel_source(self) -> KernelSource:
        """The operator's kernel file: ``kernel_file`` in the package that defines the operator."""
        return KernelSource(type(self).__module__, self.kernel_file)

    # --- schema helpers ---------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return DML_OPERATOR_TYPE(self.type).name

    def fields(self, role: str | None = None) -> list[DescField]:
        rows = desc_fields(self.desc_cls)
        return rows if role is None else [r for r in rows if r.spec.role == role]

    @property
    def input_fields(self) -> list[DescField]:
        return self.fields(INPUT)

    @property
    def output_fields(self) -> list[DescField]:
        return self.fields(OUTPUT)


OPERATORS: dict[int, Operator] = {}


def register(cls: type[Operator]) -> type[Operator]:
    """Class decorator: make an operator available to CreateOperator under its ``type`` value."""
    add_operator(cls())
    return cls


def add_operator(operator: Operator) -> Operator:
    """Make an operator instance available under its ``type`` value (a family registers one per member)."""
    OPERATORS[int(operator.type)] = operator
    return operator


def require_same(v: ValidatedDesc, problems: Problems, reference: str, names: Sequence[str],
                 properties: Sequence[str] = ("DataType", "DimensionCount", "Sizes")) -> None:
    """Add a problem for each tensor field in ``names`` whose properties differ from ``reference``'s.

    Message form: ``DESC.GradientTensor.Sizes [1,1,4,8] must equal InputParametersTensor.Sizes [1,1,4,9]``.
    """
    ref = v.tensors.get(reference)
    if not isinstance(ref, TensorLayout):
        return
    for name in names:
        other = v.tensors.get(name)
        if not isinstance(other, TensorLayout):
            continue
        for prop in properties:
            mine, theirs = _property(other, prop), _property(ref, prop)
            if mine != theirs:
                problems.add(f"{v.struct_name}.{name}.{prop} {mine} must equal {reference}.{prop} {theirs}")


def require_scalar(v: ValidatedDesc, problems: Problems, name: str) -> None:
    """Add a problem unless the tensor field ``name`` has every size equal to 1."""
    layout = v.tensors.get(name)
    if isinstance(layout, TensorLayout) and any(s != 1 for s in layout.sizes):
        problems.add(f"{v.struct_name}.{name}.Sizes {list(layout.sizes)} must all be 1 (a scalar tensor)")


def _property(layout: TensorLayout, prop: str) -> Any:
    if prop == "DataType":
        return data_type_name(layout.data_type)
    if prop == "DimensionCount":
        return len(layout.sizes)
    if prop == "Sizes":
        return list(layout.sizes)
    raise KeyError(prop)
