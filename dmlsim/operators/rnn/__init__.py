"""DML_OPERATOR_RNN, DML_OPERATOR_LSTM and DML_OPERATOR_GRU (classes ``Lstm`` and ``Gru`` below: their semantics
and decisions in their docstrings).

DML_OPERATOR_RNN: a one-layer simple recurrent network, forward, backward or bidirectional.

The desc is DirectML's generated ``DML_RNN_OPERATOR_DESC``; this module adds the doc page's rules, each
refusal naming its field: every tensor 4-D with the page's sizes (X {1, seq_length, batch_size,
input_size}, W {1, D, hidden_size, input_size}, R {1, D, hidden_size, hidden_size}, B {1, 1, D,
2 * hidden_size}, HiddenInit {1, D, batch_size, hidden_size}, SequenceLengths {1, 1, 1, batch_size},
OutputSequence {seq_length, D, batch_size, hidden_size}, OutputSingle {1, D, batch_size, hidden_size},
D = 2 for BIDIRECTIONAL, else 1), FLOAT32 or FLOAT16 sharing one data type (SequenceLengthsTensor
UINT32), no OWNED_BY_DML tensor, ``ActivationDescCount`` = D (one activation per direction: the generic
validation checks each as a nested element-wise activation), and at least one output (dmlsim's rule).

Execution: one kernel launch per direction, each built with its direction's activation
(dmlsim.operators.activation.fused), one work-group per batch entry looping over time, H kept in float32
in the temporary resource (two slots per direction and batch entry, read one, write the other). FLOAT16
tensors are storage: computed in float32, stored rounded to nearest even.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import (
    DML_GRU_OPERATOR_DESC,
    DML_LSTM_OPERATOR_DESC,
    DML_RECURRENT_NETWORK_DIRECTION,
    DML_RNN_OPERATOR_DESC,
)
from dmlsim.api.enums import DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout, data_type_name
from dmlsim.operators.activation.fused import apply_fused, fused_defines
from dmlsim.operators.base import Operator, ValidatedDesc, Work, elementwise_work, register
from dmlsim.operators.plan import Groups, KernelLaunch, LaunchTarget, Scalar, TemporaryArg, TensorArg
from dmlsim.operators.rnn import recurrent as rec
from dmlsim.operators.rnn.recurrent import directions
from dmlsim.operators.rnn.reference import gru, lstm, rnn

_T = DML_TENSOR_DATA_TYPE
_D = DML_RECURRENT_NETWORK_DIRECTION
FLOATS = (_T.DML_TENSOR_DATA_TYPE_FLOAT32, _T.DML_TENSOR_DATA_TYPE_FLOAT16)
X, W, R, B, H0, LENGTHS = ("InputTensor", "WeightTensor", "RecurrenceTensor", "BiasTensor", "HiddenInitTensor",
                           "SequenceLengthsTensor")
Y_SEQUENCE, Y_SINGLE = "OutputSequenceTensor", "OutputSingleTensor"
FLOAT_TENSORS = (X, W, R, B, H0, Y_SEQUENCE, Y_SINGLE)
TENSORS = (X, W, R, B, H0, LENGTHS, Y_SEQUENCE, Y_SINGLE)  # in the kernel's parameter order
# Each tensor field's parameter in the kernel (kernel.cl): TENSOR_IN(x), ...
KERNEL_PARAMS = {X: "x", W: "w", R: "r", B: "bias", H0: "h0", LENGTHS: "len", Y_SEQUENCE: "ys", Y_SINGLE: "y1"}
# reference-device steps (dmlsim.operators.base.Work) of one timestep of one batch entry: two small matrix
# products, the bias, the activation, each a numpy call
STEP_HOST_STEPS = 20
KERNEL_STEP_HOST_STEPS = 500
# The kernel's build define for each optional tensor that is given.
OPTIONAL = {B: "HAS_BIAS", H0: "HAS_HIDDEN_INIT", LENGTHS: "HAS_SEQUENCE_LENGTHS", Y_SEQUENCE: "HAS_OUTPUT_SEQUENCE",
            Y_SINGLE: "HAS_OUTPUT_SINGLE"}
# Work-items per work-group: each work-group is one batch entry, its work-items share the hidden units.
MAX_LOCAL = 64


@register
class Rnn(Operator):
    """H_t = f(X_t·Wᵀ + H_{t−1}·Rᵀ + Wb + Rb) per direction (the doc page's equations)."""

    type = DML_OPERATOR_TYPE.DML_OPERATOR_RNN
    desc_cls = DML_RNN_OPERATOR_DESC

    # --- validation ---------------------------------------------------------------------------------
    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        s = v.struct_name
        layouts = {name: v.tensors[name] for name in TENSORS if isinstance(v.tensors.get(name), TensorLayout)}
        for name, layout in layouts.items():
            if len(layout.sizes) != 4:
                problems.add(f"{s}.{name}.DimensionCount {len(layout.sizes)} must be 4")
            if layout.owned_by_dml:
                problems.add(f"{s}.{name}.Flags: DML_TENSOR_FLAG_OWNED_BY_DML is not supported by RNN "
                             "(the doc page says so of every tensor)")
        data_type = layouts[X].data_type
        if data_type not in FLOATS:
            problems.add(f"{s}.{X}.DataType {data_type_name(data_type)} is not supported by RNN "
                         "(supported: FLOAT32, FLOAT16)")
        for name in FLOAT_TENSORS[1:]:
            if name in layouts and layouts[name].data_type != data_type:
                problems.add(f"{s}.{name}.DataType {data_type_name(layouts[name].data_type)} must equal "
                             f"{X}.DataType {data_type_name(data_type)}")
        if LENGTHS in layouts and layouts[LENGTHS].data_type != _T.DML_TENSOR_DATA_TYPE_UINT32:
            problems.add(f"{s}.{LENGTHS}.DataType {data_type_name(layouts[LENGTHS].data_type)} must be UINT32")
        if Y_SEQUENCE not in layouts and Y_SINGLE not in layouts:
            problems.add(f"{s}.{Y_SEQUENCE} and {s}.{Y_SINGLE} are both null: at least one output must be given "
                         "(dmlsim's rule: such an RNN would compute nothing)")
        count = len(directions(v.attrs["Direction"]))
        if v.attrs["ActivationDescCount"] != count:
            problems.add(f"{s}.ActivationDescCount {v.attrs['ActivationDescCount']} must be {count}: one activation "
                         f"per direction ({s}.Direction is {_D(v.attrs['Direction']).name})")
        if all(len(layout.sizes) == 4 for layout in layouts.values()):
            self._check_sizes(v, layouts, count, problems)

    @staticmethod
    def _check_sizes(v: ValidatedDesc, layouts: dict[str, TensorLayout], count: int, problems: Problems) -> None:
        """Every tensor's Sizes against the doc page's, from X's {1, seq, batch, input} and W's hidden_size."""
        _, seq, batch, inputs = layouts[X].sizes
        hidden = layouts[W].sizes[2]
        expected = {X: (1, seq, batch, inputs), W: (1, count, hidden, inputs), R: (1, count, hidden, hidden),
                    B: (1, 1, count, 2 * hidden), H0: (1, count, batch, hidden), LENGTHS: (1, 1, 1, batch),
                    Y_SEQUENCE: (seq, count, batch, hidden), Y_SINGLE: (1, count, batch, hidden)}
        meaning = {X: "{1, seq_length, batch_size, input_size}", W: "{1, num_directions, hidden_size, input_size}",
                   R: "{1, num_directions, hidden_size, hidden_size}", B: "{1, 1, num_directions, 2 * hidden_size}",
                   H0: "{1, num_directions, batch_size, hidden_size}", LENGTHS: "{1, 1, 1, batch_size}",
                   Y_SEQUENCE: "{seq_length, num_directions, batch_size, hidden_size}",
                   Y_SINGLE: "{1, num_directions, batch_size, hidden_size}"}
        for name, layout in layouts.items():
            if layout.sizes != expected[name]:
                problems.add(f"{v.struct_name}.{name}.Sizes {list(layout.sizes)} must be {list(expected[name])} "
                             f"({meaning[name]}; num_directions {count} from Direction, seq_length, batch_size "
                             f"and input_size from {X}, hidden_size from {W})")

    def work(self, v: ValidatedDesc) -> Work:
        """Each timestep of each direction and batch entry: hidden x (input + hidden) multiply-adds (the two
        products) and the activation; the reference takes each such step in Python (``STEP_HOST_STEPS``)."""
        _, seq, batch, inputs = v.layout(X).sizes
        _, count, hidden, _ = v.layout(W).sizes
        steps = count * seq * batch
        # the kernel runs the batch in parallel but the timesteps in order, a barrier apart (70 us each on Intel's
        # CPU runtime, 400 us on PoCL, 2 cores): charged like reference steps
        return elementwise_work(v) + Work(steps * hidden * (2 * (inputs + hidden) + 4), 0,
                                          STEP_HOST_STEPS * steps + KERNEL_STEP_HOST_STEPS * count * seq)

    def temporary_size(self, v: ValidatedDesc) -> int:
        """H in float32, two slots per direction and batch entry."""
        return 4 * 2 * self._state_size(v)

    @staticmethod
    def _state_size(v: ValidatedDesc) -> int:
        """Floats of one H slot for every direction and batch entry (D × batch × hidden)."""
        _, count, hidden, _ = v.layout(W).sizes
        return count * v.layout(X).sizes[2] * hidden

    # --- execution ----------------------------------------------------------------------------------
    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        fused = v.attrs["ActivationDescs"]
        sequence, single = rnn(
            inputs[X], inputs[W], inputs[R], bias=inputs.get(B), hidden_init=inputs.get(H0),
            sequence_lengths=inputs.get(LENGTHS), backward=directions(v.attrs["Direction"]),
            activations=[lambda a, f=f: apply_fused(a, f) for f in fused])
        return {Y_SEQUENCE: sequence, Y_SINGLE: single}

    def debug_check(self, v: ValidatedDesc, read: Any, problems: Problems) -> None:
        if v.tensors.get(LENGTHS) is None:
            return
        seq = v.layout(X).sizes[1]
        lengths = read(LENGTHS).reshape(-1).astype(np.int64)
        bad = np.flatnonzero(lengths > seq)
        if bad.size:
            shown = ", ".join(f"[{i}] = {lengths[i]}" for i in bad[:8])
            problems.add(f"{v.struct_name}.{LENGTHS} holds {bad.size} sequence length(s) above seq_length {seq} "
                         f"({X}.Sizes[1]): {shown}")

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        _, seq, batch, inputs = v.layout(X).sizes
        hidden = v.layout(W).sizes[2]
        given = [name for name in TENSORS if bound.get(name) is not None]
        base = {"STORE_HALF": v.layout(X).data_type == _T.DML_TENSOR_DATA_TYPE_FLOAT16,
                **{define: name in given for name, define in OPTIONAL.items()}}
        launches = []
        for d, backward in enumerate(directions(v.attrs["Direction"])):
            defines = {**base, "BACKWARD": backward, **fused_defines(v.attrs["ActivationDescs"][d])}
            # this direction's two H slots per batch entry: [d][slot][batch][hidden] in the temporary
            slots = TemporaryArg("state", (("state__offset", 2 * d * batch * hidden),))
            args = [*(TensorArg(KERNEL_PARAMS[name], name) for name in given), slots,
                    Scalar("seq_length", np.uint32(seq)), Scalar("input_size", np.uint32(inputs)),
                    Scalar("hidden_size", np.uint32(hidden)), Scalar("batch_size", np.uint32(batch)),
                    Scalar("d", np.uint32(d))]
            launches.append(KernelLaunch(self.kernel_source, "rnn", defines,
                                         Groups(batch, min(MAX_LOCAL, hidden)), args))
        return launches


@register
class Lstm(Operator):
    """DML_OPERATOR_LSTM: a one-layer long short-term memory network, forward, backward or bidirectional.

    Semantics (DML_LSTM_OPERATOR_DESC's page; W, R, B rows in gate order i, o, f, c, peepholes i, o, f, as the page's
    ``W_[iofc]``, ``P_[iof]`` and ONNX's LSTM):

        i = f(clip(X_t·Wiᵀ + H·Riᵀ + Pi⊙C + Wbi + Rbi))
        f_t = 1 − i if CoupleInputForget else f(clip(X_t·Wfᵀ + H·Rfᵀ + Pf⊙C + Wbf + Rbf))
        C' = f_t⊙C + i⊙g(clip(X_t·Wcᵀ + H·Rcᵀ + Wbc + Rbc))
        o = f(clip(X_t·Woᵀ + H·Roᵀ + Po⊙C' + Wbo + Rbo));   H' = o⊙h(C')

    Tensors (every one 4-D, no OWNED_BY_DML, as the page says): X {1, seq_length, batch_size, input_size}, W {1, D,
    4·hidden_size, input_size}, R {1, D, 4·hidden_size, hidden_size}, B {1, 1, D, 8·hidden_size}, HiddenInit and
    CellMemInit {1, D, batch_size, hidden_size}, SequenceLengths {1, 1, 1, batch_size}, Peephole {1, 1, D,
    3·hidden_size}, OutputSequence {seq_length, D, batch_size, hidden_size}, OutputSingle and OutputCellSingle {1, D,
    batch_size, hidden_size}; D = 2 for BIDIRECTIONAL, else 1. Data types: FLOAT32 or FLOAT16 (as the RNN, GRU and LSTM
    pages' tensor-support tables), one for every float tensor; SequenceLengthsTensor UINT32. FLOAT16 is storage: H and
    C are carried in float32 between steps and rounded to nearest even only when stored. Any strides (stride 0
    broadcasts too); no in place (the schema's). ``ActivationDescCount`` is 3·D: f, g, h of the forward direction, then
    f, g, h of the backward one (the page); each is validated generically as a fusable element-wise activation.

    Decisions where the page is silent or self-contradictory (pinned by tests/test_lstm.py):

    - The output gate's peephole reads the *new* cell C' (the page writes C_{t−1} in that line, and ``h(ct)`` for
      h(C_t)): ONNX's LSTM, which onnxruntime's DirectML provider maps onto this operator unchanged, uses the new
      cell, and onnx's node case ``test_lstm_with_peepholes`` expects it.
    - clip() applies to the four gate pre-activations (the inputs of f and g, as the page's equations and its
      ClipThreshold field say), not to C' before h (the page's equation has no clip there; nor does onnxruntime).
      clip keeps NaN as NaN. With UseClipThreshold, a negative or NaN ClipThreshold is refused (dmlsim's rule: the
      range [−threshold, threshold] is then empty); +inf clips nothing. ClipThreshold is ignored without it.
    - Sequence lengths as DML_OPERATOR_RNN's (README's decisions): a length above seq_length is clamped (the debug
      device refuses it), OutputSequence is 0 at t ≥ length, OutputSingle/OutputCellSingle hold the last H/C computed
      (the initial ones, 0 when absent, for a length of 0); the backward direction starts at t = length − 1.
    - At least one of the three outputs must be given (dmlsim's rule, as for RNN).
    - An absent PeepholeTensor (BiasTensor) is no term at all, not a 0 term: 0·inf would give NaN.

    Execution: one kernel launch per direction (rnn/lstm.cl), one work-group per batch entry looping over time, the
    direction's three activations built in (``ACT_F/G/H``); H (two slots) and C (one slot) in float32 in the temporary
    resource.
    """

    type = DML_OPERATOR_TYPE.DML_OPERATOR_LSTM
    desc_cls = DML_LSTM_OPERATOR_DESC

    kernel_file = "lstm.cl"

    # --- validation ---------------------------------------------------------------------------------
    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        layouts = rec.check_recurrent_tensors(v, problems, rec.FLOAT_TENSORS, rec.OUTPUTS, "LSTM")
        count = len(rec.directions(v.attrs["Direction"]))
        if v.attrs["ActivationDescCount"] != 3 * count:
            problems.add(f"{v.struct_name}.ActivationDescCount {v.attrs['ActivationDescCount']} must be {3 * count}: "
                         f"f, g and h per direction ({v.struct_name}.Direction is {_D(v.attrs['Direction']).name})")
        rec.check_clip(v, problems)
        rec.check_sizes(v, layouts, rec.SIZES, count, 4, problems)

    def work(self, v: ValidatedDesc) -> Work:
        """Each timestep of each direction and batch entry: 4·hidden x (input + hidden) multiply-adds and the
        gates; the reference takes each such step in Python, the kernel a barrier apart (as RNN's)."""
        _, seq, batch, inputs = v.layout(rec.X).sizes
        _, count, rows, _ = v.layout(rec.W).sizes
        steps = count * seq * batch
        return elementwise_work(v) + Work(steps * rows * (2 * (inputs + rows // 4) + 8), 0,
                                          rec.STEP_HOST_STEPS * steps + rec.KERNEL_STEP_HOST_STEPS * count * seq)

    def temporary_size(self, v: ValidatedDesc) -> int:
        """H (two slots) and C (one) in float32 per direction and batch entry."""
        return 4 * 3 * self._state_size(v)

    @staticmethod
    def _state_size(v: ValidatedDesc) -> int:
        _, count, rows, _ = v.layout(rec.W).sizes
        return count * v.layout(rec.X).sizes[2] * (rows // 4)

    # --- execution ----------------------------------------------------------------------------------
    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        acts = v.attrs["ActivationDescs"]
        triples = [tuple((lambda a, f=f: apply_fused(a, f)) for f in acts[3 * d:3 * d + 3])
                   for d in range(len(acts) // 3)]
        clip = float(np.float32(v.attrs["ClipThreshold"])) if v.attrs["UseClipThreshold"] else None
        sequence, single, cell = lstm(
            inputs[rec.X], inputs[rec.W], inputs[rec.R], bias=inputs.get(rec.B), hidden_init=inputs.get(rec.H0),
            cell_init=inputs.get(rec.C0), sequence_lengths=inputs.get(rec.LENGTHS), peephole=inputs.get(rec.P),
            activations=triples, backward=rec.directions(v.attrs["Direction"]), clip=clip,
            couple_input_forget=bool(v.attrs["CoupleInputForget"]))
        return {rec.Y_SEQUENCE: sequence, rec.Y_SINGLE: single, rec.C_SINGLE: cell}

    def debug_check(self, v: ValidatedDesc, read: Any, problems: Problems) -> None:
        rec.debug_check_lengths(v, read, problems)

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        _, seq, batch, inputs = v.layout(rec.X).sizes
        hidden = v.layout(rec.W).sizes[2] // 4
        given = [name for name in rec.TENSORS if bound.get(name) is not None]
        base = {"STORE_HALF": v.layout(rec.X).data_type == _T.DML_TENSOR_DATA_TYPE_FLOAT16,
                "USE_CLIP": bool(v.attrs["UseClipThreshold"]),
                "COUPLE_INPUT_FORGET": bool(v.attrs["CoupleInputForget"]),
                **{define: name in given for name, define in rec.OPTIONAL.items()}}
        acts = v.attrs["ActivationDescs"]
        count = len(rec.directions(v.attrs["Direction"]))
        launches = []
        for d, backward in enumerate(rec.directions(v.attrs["Direction"])):
            defines = {**base, "BACKWARD": backward}
            for k, role in enumerate(rec.ROLES):
                defines.update(rec.activation_defines(role, acts[3 * d + k]))
            # [H: D][2 slots][batch][hidden], then [C: D][batch][hidden]
            state = TemporaryArg("state", (("state__offset", 2 * d * batch * hidden),
                                           ("cell__offset", (2 * count + d) * batch * hidden)))
            args = [*(TensorArg(rec.KERNEL_PARAMS[name], name) for name in given), state,
                    Scalar("seq_length", np.uint32(seq)), Scalar("input_size", np.uint32(inputs)),
                    Scalar("hidden_size", np.uint32(hidden)), Scalar("batch_size", np.uint32(batch)),
                    Scalar("d", np.uint32(d)), Scalar("clip_threshold", np.float32(v.attrs["ClipThreshold"]))]
            launches.append(KernelLaunch(self.kernel_source, "lstm", defines, Groups(batch, min(rec.MAX_LOCAL, hidden)),
                                         args))
        return launches


@register
class Gru(Operator):
    """DML_OPERATOR_GRU: a one-layer gated recurrent unit network, forward, backward or bidirectional.

    Semantics (DML_GRU_OPERATOR_DESC's page; W, R, B rows in gate order z, r, h, as the page's ``W_[zrh]`` and
    ONNX's GRU):

        z = f(X_t·Wzᵀ + H·Rzᵀ + Wbz + Rbz);   r = f(X_t·Wrᵀ + H·Rrᵀ + Wbr + Rbr)
        h~ = g(X_t·Whᵀ + (r⊙H)·Rhᵀ + Rbh + Wbh)             (LinearBeforeReset FALSE)
        h~ = g(X_t·Whᵀ + r⊙(H·Rhᵀ + Rbh) + Wbh)             (LinearBeforeReset TRUE)
        H' = (1 − z)⊙h~ + z⊙H

    Tensors (every one 4-D, the page's tensor-support table): X {1, seq_length, batch_size, input_size}, W {1, D,
    3·hidden_size, input_size}, R {1, D, 3·hidden_size, hidden_size}, B {1, 1, D, 6·hidden_size}, HiddenInit {1, D,
    batch_size, hidden_size}, SequenceLengths {1, 1, 1, batch_size}, OutputSequence {seq_length, D, batch_size,
    hidden_size}, OutputSingle {1, D, batch_size, hidden_size}; D = 2 for BIDIRECTIONAL, else 1. Data types:
    FLOAT32 or FLOAT16 (the page's table), one for every float tensor (its tensor constraints); SequenceLengthsTensor
    UINT32. FLOAT16 is storage: H is carried in float32 between steps and rounded to nearest even only when stored.
    Any strides (stride 0 broadcasts too); no in place (the schema's). ``ActivationDescCount`` is 2·D: f and g of
    the forward direction, then of the backward one (the page); each validated generically as a fusable activation.

    Decisions where the page is silent (pinned by tests/test_gru.py): sequence lengths as DML_OPERATOR_RNN's and
    LSTM's (clamped to seq_length, the debug device refusing a longer one; OutputSequence 0 at t ≥ length;
    OutputSingle the last H computed, the initial H for a length of 0); at least one output must be given
    (dmlsim's rule); OWNED_BY_DML is refused as by RNN and LSTM (the GRU page does not say; dmlsim's rule, kept for
    the three recurrent operators alike).

    Execution: one kernel launch per direction (rnn/gru.cl), one work-group per batch entry looping over time, two
    phases per step a barrier apart (z and r of every unit, then h~ and H', since h~ reads r⊙H of every unit); H
    (two slots), r⊙H and z in float32 in the temporary resource.
    """

    type = DML_OPERATOR_TYPE.DML_OPERATOR_GRU
    desc_cls = DML_GRU_OPERATOR_DESC
    kernel_file = "gru.cl"

    # --- validation ---------------------------------------------------------------------------------
    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        layouts = rec.check_recurrent_tensors(v, problems, rec.GRU_FLOAT_TENSORS, rec.GRU_OUTPUTS, "GRU")
        count = len(rec.directions(v.attrs["Direction"]))
        if v.attrs["ActivationDescCount"] != 2 * count:
            problems.add(f"{v.struct_name}.ActivationDescCount {v.attrs['ActivationDescCount']} must be {2 * count}: "
                         f"f and g per direction ({v.struct_name}.Direction is {_D(v.attrs['Direction']).name})")
        rec.check_sizes(v, layouts, rec.GRU_SIZES, count, 3, problems)

    def work(self, v: ValidatedDesc) -> Work:
        """Each timestep of each direction and batch entry: 3·hidden x (input + hidden) multiply-adds and the
        gates; the reference takes each such step in Python, the kernel two barriers apart."""
        _, seq, batch, inputs = v.layout(rec.X).sizes
        _, count, rows, _ = v.layout(rec.W).sizes
        steps = count * seq * batch
        return elementwise_work(v) + Work(steps * rows * (2 * (inputs + rows // 3) + 6), 0,
                                          rec.STEP_HOST_STEPS * steps + 2 * rec.KERNEL_STEP_HOST_STEPS * count * seq)

    def temporary_size(self, v: ValidatedDesc) -> int:
        """H (two slots), r⊙H and z in float32 per direction and batch entry."""
        _, count, rows, _ = v.layout(rec.W).sizes
        return 4 * 4 * count * v.layout(rec.X).sizes[2] * (rows // 3)

    # --- execution ----------------------------------------------------------------------------------
    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        acts = v.attrs["ActivationDescs"]
        pairs = [tuple((lambda a, f=f: apply_fused(a, f)) for f in acts[2 * d:2 * d + 2])
                 for d in range(len(acts) // 2)]
        sequence, single = gru(
            inputs[rec.X], inputs[rec.W], inputs[rec.R], bias=inputs.get(rec.B), hidden_init=inputs.get(rec.H0),
            sequence_lengths=inputs.get(rec.LENGTHS), activations=pairs, backward=rec.directions(v.attrs["Direction"]),
            linear_before_reset=bool(v.attrs["LinearBeforeReset"]))
        return {rec.Y_SEQUENCE: sequence, rec.Y_SINGLE: single}

    def debug_check(self, v: ValidatedDesc, read: Any, problems: Problems) -> None:
        rec.debug_check_lengths(v, read, problems)

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        _, seq, batch, inputs = v.layout(rec.X).sizes
        hidden = v.layout(rec.W).sizes[2] // 3
        given = [name for name in rec.GRU_TENSORS if bound.get(name) is not None]
        base = {"STORE_HALF": v.layout(rec.X).data_type == _T.DML_TENSOR_DATA_TYPE_FLOAT16,
                "LINEAR_BEFORE_RESET": bool(v.attrs["LinearBeforeReset"]),
                **{define: name in given for name, define in rec.GRU_OPTIONAL.items()}}
        acts = v.attrs["ActivationDescs"]
        count = len(rec.directions(v.attrs["Direction"]))
        slot = batch * hidden
        launches = []
        for i, backward in enumerate(rec.directions(v.attrs["Direction"])):
            defines = {**base, "BACKWARD": backward}
            for k, role in enumerate(rec.ROLES[:2]):
                defines.update(rec.activation_defines(role, acts[2 * i + k]))
            # [H: D][2 slots][batch][hidden], then [r⊙H: D][batch][hidden], then [z: D][batch][hidden]
            state = TemporaryArg("state", (("state__offset", 2 * i * slot), ("reset__offset", (2 * count + i) * slot),
                                           ("update__offset", (3 * count + i) * slot)))
            args = [*(TensorArg(rec.KERNEL_PARAMS[name], name) for name in given), state,
                    Scalar("seq_length", np.uint32(seq)), Scalar("input_size", np.uint32(inputs)),
                    Scalar("hidden_size", np.uint32(hidden)), Scalar("batch_size", np.uint32(batch)),
                    Scalar("d", np.uint32(i))]
            launches.append(KernelLaunch(self.kernel_source, "gru", defines,
                                         Groups(batch, min(rec.MAX_LOCAL, hidden)), args))
        return launches
