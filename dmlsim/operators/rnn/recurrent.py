"""What DML_OPERATOR_LSTM and DML_OPERATOR_GRU share: their tensors' names, the page rules common to the recurrent
operators, the activation build defines of lstm.cl and gru.cl, and the debug device's sequence-length rule.

The operators themselves, their semantics and decisions are in the package's ``__init__.py`` (``Lstm``, ``Gru``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_RECURRENT_NETWORK_DIRECTION
from dmlsim.api.enums import DML_TENSOR_DATA_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout, data_type_name
from dmlsim.operators.activation.fused import activation_name, float_literal
from dmlsim.operators.activation.reference import FORMULAS
from dmlsim.operators.base import ValidatedDesc

_T = DML_TENSOR_DATA_TYPE
_D = DML_RECURRENT_NETWORK_DIRECTION
FLOATS = (_T.DML_TENSOR_DATA_TYPE_FLOAT32, _T.DML_TENSOR_DATA_TYPE_FLOAT16)
X, W, R, B, H0, C0, LENGTHS, P = ("InputTensor", "WeightTensor", "RecurrenceTensor", "BiasTensor", "HiddenInitTensor",
                                  "CellMemInitTensor", "SequenceLengthsTensor", "PeepholeTensor")
Y_SEQUENCE, Y_SINGLE, C_SINGLE = "OutputSequenceTensor", "OutputSingleTensor", "OutputCellSingleTensor"
OUTPUTS = (Y_SEQUENCE, Y_SINGLE, C_SINGLE)
FLOAT_TENSORS = (X, W, R, B, H0, C0, P, *OUTPUTS)
TENSORS = (X, W, R, B, H0, C0, LENGTHS, P, *OUTPUTS)  # in the kernel's parameter order
KERNEL_PARAMS = {X: "x", W: "w", R: "r", B: "bias", H0: "h0", C0: "c0", LENGTHS: "len", P: "peep", Y_SEQUENCE: "ys",
                 Y_SINGLE: "y1", C_SINGLE: "c1"}
OPTIONAL = {B: "HAS_BIAS", H0: "HAS_HIDDEN_INIT", C0: "HAS_CELL_INIT", LENGTHS: "HAS_SEQUENCE_LENGTHS",
            P: "HAS_PEEPHOLE", Y_SEQUENCE: "HAS_OUTPUT_SEQUENCE", Y_SINGLE: "HAS_OUTPUT_SINGLE",
            C_SINGLE: "HAS_OUTPUT_CELL_SINGLE"}
# each tensor's Sizes: a function of (seq, batch, input, hidden, D), and its meaning for messages
SIZES = {X: (lambda s, b, i, h, d: (1, s, b, i), "{1, seq_length, batch_size, input_size}"),
         W: (lambda s, b, i, h, d: (1, d, 4 * h, i), "{1, num_directions, 4 * hidden_size, input_size}"),
         R: (lambda s, b, i, h, d: (1, d, 4 * h, h), "{1, num_directions, 4 * hidden_size, hidden_size}"),
         B: (lambda s, b, i, h, d: (1, 1, d, 8 * h), "{1, 1, num_directions, 8 * hidden_size}"),
         H0: (lambda s, b, i, h, d: (1, d, b, h), "{1, num_directions, batch_size, hidden_size}"),
         C0: (lambda s, b, i, h, d: (1, d, b, h), "{1, num_directions, batch_size, hidden_size}"),
         LENGTHS: (lambda s, b, i, h, d: (1, 1, 1, b), "{1, 1, 1, batch_size}"),
         P: (lambda s, b, i, h, d: (1, 1, d, 3 * h), "{1, 1, num_directions, 3 * hidden_size}"),
         Y_SEQUENCE: (lambda s, b, i, h, d: (s, d, b, h), "{seq_length, num_directions, batch_size, hidden_size}"),
         Y_SINGLE: (lambda s, b, i, h, d: (1, d, b, h), "{1, num_directions, batch_size, hidden_size}"),
         C_SINGLE: (lambda s, b, i, h, d: (1, d, b, h), "{1, num_directions, batch_size, hidden_size}")}
STEP_HOST_STEPS = 30
KERNEL_STEP_HOST_STEPS = 500
MAX_LOCAL = 64
ROLES = ("F", "G", "H")  # the three activations of a direction, in ActivationDescs order


def directions(direction: int) -> tuple[bool, ...]:
    """For each direction of the desc, in WeightTensor order: whether it runs backward in time."""
    if direction == _D.DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL:
        return (False, True)
    return (direction == _D.DML_RECURRENT_NETWORK_DIRECTION_BACKWARD,)


def activation_defines(role: str, activation: ValidatedDesc) -> dict[str, Any]:
    """Build defines selecting a validated activation as ``ACT_<role>`` in lstm.cl/gru.cl: its function of
    activations.h and its parameters as exact float literals (``ACT_F_FN=activation_elu``, ``ACT_F_ARGS=0x1p-1f``)."""
    name = activation_name(activation)
    params = FORMULAS[name].params
    defines: dict[str, Any] = {f"ACT_{role}_FN": f"activation_{name.lower()}"}
    if params:
        defines[f"ACT_{role}_ARGS"] = ",".join(float_literal(activation.attrs[p]) for p in params)
    return defines


def check_recurrent_tensors(v: ValidatedDesc, problems: Problems, float_tensors: tuple[str, ...],
                            outputs: tuple[str, ...], op: str) -> dict[str, TensorLayout]:
    """The rules the LSTM and GRU pages share: every tensor 4-D without OWNED_BY_DML, FLOAT32/FLOAT16 sharing
    InputTensor's type, SequenceLengthsTensor UINT32, at least one output. Returns the given tensors' layouts."""
    s = v.struct_name
    layouts = {name: layout for name, layout in v.tensors.items() if isinstance(layout, TensorLayout)}
    for name, layout in layouts.items():
        if len(layout.sizes) != 4:
            problems.add(f"{s}.{name}.DimensionCount {len(layout.sizes)} must be 4")
        if layout.owned_by_dml:
            problems.add(f"{s}.{name}.Flags: DML_TENSOR_FLAG_OWNED_BY_DML is not supported by {op} "
                         "(the doc page says so of every tensor)")
    data_type = layouts[X].data_type
    if data_type not in FLOATS:
        problems.add(f"{s}.{X}.DataType {data_type_name(data_type)} is not supported by {op} "
                     "(supported: FLOAT32, FLOAT16)")
    for name in float_tensors[1:]:
        if name in layouts and layouts[name].data_type != data_type:
            problems.add(f"{s}.{name}.DataType {data_type_name(layouts[name].data_type)} must equal "
                         f"{X}.DataType {data_type_name(data_type)}")
    if LENGTHS in layouts and layouts[LENGTHS].data_type != _T.DML_TENSOR_DATA_TYPE_UINT32:
        problems.add(f"{s}.{LENGTHS}.DataType {data_type_name(layouts[LENGTHS].data_type)} must be UINT32")
    if not any(name in layouts for name in outputs):
        problems.add(" and ".join(f"{s}.{name}" for name in outputs) + " are all null: at least one output must "
                     f"be given (dmlsim's rule: such an {op} would compute nothing)")
    return layouts


def check_clip(v: ValidatedDesc, problems: Problems) -> None:
    """With UseClipThreshold, ClipThreshold must be ≥ 0 and not NaN (dmlsim's rule: [−t, t] is empty else)."""
    threshold = float(v.attrs["ClipThreshold"])
    if v.attrs["UseClipThreshold"] and not threshold >= 0:
        problems.add(f"{v.struct_name}.ClipThreshold {threshold} must be >= 0 when UseClipThreshold is TRUE "
                     "(clip bounds to [-ClipThreshold, ClipThreshold]; dmlsim's rule)")


def check_sizes(v: ValidatedDesc, layouts: dict[str, TensorLayout], sizes: dict[str, Any], count: int,
                gates: int, problems: Problems) -> None:
    """Every tensor's Sizes against the page's, from X's {1, seq, batch, input} and W's gates·hidden_size."""
    if not all(len(layout.sizes) == 4 for layout in layouts.values()):
        return
    _, seq, batch, inputs = layouts[X].sizes
    rows = layouts[W].sizes[2]
    if rows % gates:
        problems.add(f"{v.struct_name}.{W}.Sizes[2] {rows} must be a multiple of {gates} ({gates} * hidden_size)")
        return
    hidden = rows // gates
    for name, layout in layouts.items():
        shape, meaning = sizes[name]
        expected = shape(seq, batch, inputs, hidden, count)
        if layout.sizes != expected:
            problems.add(f"{v.struct_name}.{name}.Sizes {list(layout.sizes)} must be {list(expected)} ({meaning}; "
                         f"num_directions {count} from Direction, seq_length, batch_size and input_size from {X}, "
                         f"hidden_size from {W})")


def debug_check_lengths(v: ValidatedDesc, read: Any, problems: Problems) -> None:
    """The debug device refuses a sequence length above seq_length (a plain device clamps it)."""
    if v.tensors.get(LENGTHS) is None:
        return
    seq = v.layout(X).sizes[1]
    lengths = read(LENGTHS).reshape(-1).astype(np.int64)
    bad = np.flatnonzero(lengths > seq)
    if bad.size:
        shown = ", ".join(f"[{i}] = {lengths[i]}" for i in bad[:8])
        problems.add(f"{v.struct_name}.{LENGTHS} holds {bad.size} sequence length(s) above seq_length {seq} "
                     f"({X}.Sizes[1]): {shown}")


# --- DML_OPERATOR_GRU -------------------------------------------------------------------------------------------
GRU_OUTPUTS = (Y_SEQUENCE, Y_SINGLE)
GRU_FLOAT_TENSORS = (X, W, R, B, H0, *GRU_OUTPUTS)
GRU_TENSORS = (X, W, R, B, H0, LENGTHS, *GRU_OUTPUTS)  # in gru.cl's parameter order
GRU_OPTIONAL = {B: "HAS_BIAS", H0: "HAS_HIDDEN_INIT", LENGTHS: "HAS_SEQUENCE_LENGTHS",
                Y_SEQUENCE: "HAS_OUTPUT_SEQUENCE", Y_SINGLE: "HAS_OUTPUT_SINGLE"}
GRU_SIZES = {**{name: SIZES[name] for name in (X, H0, LENGTHS, *GRU_OUTPUTS)},
             W: (lambda s, b, i, h, d: (1, d, 3 * h, i), "{1, num_directions, 3 * hidden_size, input_size}"),
             R: (lambda s, b, i, h, d: (1, d, 3 * h, h), "{1, num_directions, 3 * hidden_size, hidden_size}"),
             B: (lambda s, b, i, h, d: (1, 1, d, 6 * h), "{1, 1, num_directions, 6 * hidden_size}")}
