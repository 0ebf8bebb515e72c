"""DMLSIM_OPERATOR_ADAGRAD_DECAY: DeepRec's AdagradDecay optimizer, dense and sparse rows (design.md §5).

Semantics are DeepRec's kernels (dmlsim.operators.adagrad_decay.reference). Decisions where DeepRec is silent
(it only updates in place):
- Sparse out of place: the outputs are first made copies of the inputs, then the indexed rows are
  updated, so every output is complete after execution (as for any DirectML operator) and equals
  what the in-place update leaves in the inputs.
- Duplicate indices are summed on the device, in index order (deterministic), before the update;
  indices ≥ Rows are skipped (never written); a debug device refuses them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.api.enums import DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.schema import FLOAT_TYPES_WITH_64, attribute, tensor_input, tensor_output
from dmlsim.api.structs import DML_TENSOR_DESC
from dmlsim.api.tensor import TensorLayout
from dmlsim.operators.adagrad_decay.reference import adagrad_decay
from dmlsim.operators.base import (
    Operator,
    ValidatedDesc,
    Work,
    elementwise_work,
    register,
    require_same,
    require_scalar,
)
from dmlsim.operators.plan import Groups, Items, KernelLaunch, LaunchTarget, Scalar, Stream, TemporaryArg, TensorArg

_T = DML_TENSOR_DATA_TYPE
STEP_TYPES = (_T.DML_TENSOR_DATA_TYPE_UINT32, _T.DML_TENSOR_DATA_TYPE_INT64)
INDEX_TYPES = (_T.DML_TENSOR_DATA_TYPE_UINT32, _T.DML_TENSOR_DATA_TYPE_INT64)


@dataclass
class DMLSIM_ADAGRAD_DECAY_OPERATOR_DESC:
    InputParametersTensor: DML_TENSOR_DESC | None = tensor_input(FLOAT_TYPES_WITH_64)
    InputAccumulatorTensor: DML_TENSOR_DESC | None = tensor_input(FLOAT_TYPES_WITH_64)
    InputDecayPowerTensor: DML_TENSOR_DESC | None = tensor_input(STEP_TYPES)
    GradientTensor: DML_TENSOR_DESC | None = tensor_input(FLOAT_TYPES_WITH_64, inplace_eligible=False)
    IndicesTensor: DML_TENSOR_DESC | None = tensor_input(INDEX_TYPES, optional=True, inplace_eligible=False)
    GlobalStepTensor: DML_TENSOR_DESC | None = tensor_input(STEP_TYPES, inplace_eligible=False)
    OutputParametersTensor: DML_TENSOR_DESC | None = tensor_output(FLOAT_TYPES_WITH_64, aliases="InputParametersTensor")
    OutputAccumulatorTensor: DML_TENSOR_DESC | None = tensor_output(FLOAT_TYPES_WITH_64,
                                                                    aliases="InputAccumulatorTensor")
    OutputDecayPowerTensor: DML_TENSOR_DESC | None = tensor_output(STEP_TYPES, aliases="InputDecayPowerTensor")
    LearningRate: float | None = attribute("FLOAT")
    AccumulatorDecayStep: int | None = attribute("UINT")
    AccumulatorDecayRate: float | None = attribute("FLOAT")
    AccumulatorBaseline: float | None = attribute("FLOAT")


VAR, ACC, POW, GRAD, IDX, STEP = ("InputParametersTensor", "InputAccumulatorTensor", "InputDecayPowerTensor",
                                  "GradientTensor", "IndicesTensor", "GlobalStepTensor")
OVAR, OACC, OPOW = "OutputParametersTensor", "OutputAccumulatorTensor", "OutputDecayPowerTensor"


def _sizes(v: ValidatedDesc, name: str) -> list[int] | None:
    layout = v.tensors.get(name)
    return list(layout.sizes) if isinstance(layout, TensorLayout) else None


@register
class AdagradDecay(Operator):
    type = DML_OPERATOR_TYPE.DMLSIM_OPERATOR_ADAGRAD_DECAY
    desc_cls = DMLSIM_ADAGRAD_DECAY_OPERATOR_DESC

    # --- validation -------------------------------------------------------------------------------
    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        s = v.struct_name
        require_same(v, problems, VAR, (ACC, OVAR, OACC))
        require_same(v, problems, VAR, (GRAD,), ("DataType",))
        require_same(v, problems, STEP, (POW, OPOW), ("DataType",))
        require_same(v, problems, POW, (OPOW,), ("Sizes",))
        require_scalar(v, problems, STEP)
        var = _sizes(v, VAR)
        if var is not None and var[:2] != [1, 1]:
            problems.add(f"{s}.{VAR}.Sizes {var} must be {{1, 1, Rows, RowLength}}")
            return
        rows, row_length = var[2], var[3]
        sparse = v.tensors.get(IDX) is not None
        if sparse:
            indices = _sizes(v, IDX)
            count = indices[3]
            if indices[:3] != [1, 1, 1]:
                problems.add(f"{s}.{IDX}.Sizes {indices} must be {{1, 1, 1, N}}")
            # with N unknown (bad indices shape), checking the gradient against it would only echo that problem
            elif _sizes(v, GRAD) != [1, 1, count, row_length]:
                problems.add(f"{s}.{GRAD}.Sizes {_sizes(v, GRAD)} must be [1, 1, {count}, {row_length}] "
                             f"({{1, 1, N, RowLength}} with N the {IDX} size {count})")
            if _sizes(v, POW) != [1, 1, rows, 1]:
                problems.add(f"{s}.{POW}.Sizes {_sizes(v, POW)} must be [1, 1, {rows}, 1] "
                             "(one decay power per row: {1, 1, Rows, 1} when IndicesTensor is given)")
        else:
            require_same(v, problems, VAR, (GRAD,), ("Sizes",))
            if _sizes(v, POW) != [1, 1, 1, 1]:
                problems.add(f"{s}.{POW}.Sizes {_sizes(v, POW)} must be [1, 1, 1, 1] "
                             "(one decay power for a dense tensor: IndicesTensor is null)")
        # DeepRec's AdagradDecayOptimizer checks
        a = v.attrs
        if a["AccumulatorDecayStep"] is not None and a["AccumulatorDecayStep"] <= 0:
            problems.add(f"{s}.AccumulatorDecayStep must be > 0, got {a['AccumulatorDecayStep']}")
        rate = a["AccumulatorDecayRate"]
        if rate is not None and not 0.0 < rate < 1.0:
            problems.add(f"{s}.AccumulatorDecayRate must be in (0, 1), got {np.float32(rate)!s} (as FLOAT)")
        baseline = a["AccumulatorBaseline"]
        if baseline is not None and not baseline > 0.0:
            problems.add(f"{s}.AccumulatorBaseline must be > 0, got {np.float32(baseline)!s} (as FLOAT)")

    def work(self, v: ValidatedDesc) -> Work:
        """The default, plus, sparse, the reference's Python steps: one per index (their gradients summed per
        row in a dict) and a few per row it touches."""
        if v.tensors.get(IDX) is None:
            return elementwise_work(v)
        return elementwise_work(v) + Work(0, 0, 4 * v.layout(IDX).element_count)

    def temporary_size(self, v: ValidatedDesc) -> int:
        """Sparse: one uint per row (list heads) + one per index position (list links); dense: none."""
        if v.tensors.get(IDX) is None:
            return 0
        return self._next_offset(v) * 4 + v.layout(IDX).sizes[3] * 4

    @staticmethod
    def _next_offset(v: ValidatedDesc) -> int:
        """Where next[] starts in the temporary, in uints (after head[], 256-byte aligned)."""
        return -(-v.layout(VAR).sizes[2] // 64) * 64

    # --- execution --------------------------------------------------------------------------------
    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        var, accum, power = inputs[VAR], inputs[ACC], inputs[POW]
        indices = inputs.get(IDX)
        rows, row_length = var.shape[2], var.shape[3]
        grad = inputs[GRAD].reshape(-1, row_length)
        new_var, new_acc, new_pow = adagrad_decay(
            var.reshape(rows, row_length), accum.reshape(rows, row_length), power.reshape(-1), grad,
            int(inputs[STEP].reshape(-1)[0]), indices=None if indices is None else indices.reshape(-1),
            **self.hyperparameters(v))
        return {OVAR: new_var.reshape(var.shape), OACC: new_acc.reshape(var.shape),
                OPOW: new_pow.reshape(power.shape)}

    def debug_check(self, v: ValidatedDesc, read: Any, problems: Problems) -> None:
        if v.tensors.get(IDX) is None:
            return
        rows = v.layout(VAR).sizes[2]
        indices = read(IDX).reshape(-1).astype(np.int64)
        bad = np.flatnonzero((indices < 0) | (indices >= rows))
        if bad.size:
            shown = ", ".join(f"[{i}] = {indices[i]}" for i in bad[:8])
            more = f" and {bad.size - 8} more" if bad.size > 8 else ""
            problems.add(f"{v.struct_name}.{IDX} holds {bad.size} out-of-range row index(es) "
                         f"(must be in [0, {rows}), Rows of {VAR}): {shown}{more}")

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        var = v.layout(VAR)
        defines: dict[str, Any] = {
            "STORE_HALF": var.data_type == _T.DML_TENSOR_DATA_TYPE_FLOAT16,
            "STORE_DOUBLE": var.data_type == _T.DML_TENSOR_DATA_TYPE_FLOAT64,
            "STEP_INT64": v.layout(STEP).data_type == _T.DML_TENSOR_DATA_TYPE_INT64,
        }
        if bound.get(IDX) is None:
            return self._dense_launches(v, bound, defines, target)
        return self._sparse_launches(v, bound, defines)

    def _dense_launches(self, v: ValidatedDesc, bound: dict[str, Any], defines: dict[str, Any],
                        target: LaunchTarget) -> list[KernelLaunch]:
        var = v.layout(VAR)
        n, vec = var.element_count, target.stream_vec(8 if defines["STORE_DOUBLE"] else 4)
        packed = all(bound[name].layout.is_packed for name in (VAR, ACC, GRAD, OVAR, OACC))
        args = (TensorArg("var", VAR), TensorArg("acc", ACC), TensorArg("power", POW, scalar=True),
                TensorArg("grad", GRAD), TensorArg("step", STEP, scalar=True), TensorArg("ovar", OVAR),
                TensorArg("oacc", OACC), TensorArg("opower", OPOW, scalar=True), *self._kernel_hyperparameters(v),
                Scalar("row_length", np.uint32(var.sizes[3])), Scalar("n", np.uint32(n)))
        update = KernelLaunch(self.kernel_source, "adagrad_decay", {**defines, "PACKED": packed, "VEC": vec},
                              Stream(n // vec) if packed else Items(n), args)
        power = KernelLaunch(self.kernel_source, "adagrad_decay_power", defines, Groups(1, 1),
                             (TensorArg("power", POW, scalar=True), TensorArg("step", STEP, scalar=True),
                              TensorArg("opower", OPOW, scalar=True),
                              Scalar("decay_step", np.uint32(v.attrs["AccumulatorDecayStep"]))))
        return [update, power]

    def _sparse_launches(self, v: ValidatedDesc, bound: dict[str, Any], defines: dict[str, Any]) -> list[KernelLaunch]:
        rows, row_length = v.layout(VAR).sizes[2], v.layout(VAR).sizes[3]
        defines = {**defines, "INDEX_INT64": v.layout(IDX).data_type == _T.DML_TENSOR_DATA_TYPE_INT64}
        launches = []
        copies = {flag: not _same_region(bound[src], bound[dst])
                  for flag, src, dst in (("COPY_VAR", VAR, OVAR), ("COPY_ACC", ACC, OACC), ("COPY_POWER", POW, OPOW))}
        if any(copies.values()):
            args = (TensorArg("var", VAR), TensorArg("acc", ACC), TensorArg("power", POW), TensorArg("ovar", OVAR),
                    TensorArg("oacc", OACC), TensorArg("opower", OPOW), Scalar("row_length", np.uint32(row_length)),
                    Scalar("n", np.uint32(rows * row_length)))
            launches.append(KernelLaunch(self.kernel_source, "adagrad_decay_copy", {**defines, **copies},
                                         Items(rows * row_length), args))
        count = v.layout(IDX).sizes[3]
        temp = TemporaryArg("temp", (("head__offset", 0), ("next__offset", self._next_offset(v))))
        for entry in ("adagrad_decay_unlink", "adagrad_decay_link"):
            launches.append(KernelLaunch(self.kernel_source, entry, defines, Items(count),
                                         (TensorArg("indices", IDX), temp, Scalar("rows", np.uint32(rows)),
                                          Scalar("n", np.uint32(count)))))
        # the state is read from the outputs (see adagrad_decay_sparse)
        args = (TensorArg("grad", GRAD), TensorArg("indices", IDX), TensorArg("step", STEP, scalar=True),
                TensorArg("ovar", OVAR), TensorArg("oacc", OACC), TensorArg("opower", OPOW), temp,
                Scalar("rows", np.uint32(rows)), Scalar("row_length", np.uint32(row_length)),
                Scalar("n", np.uint32(count)), *self._kernel_hyperparameters(v))
        launches.append(KernelLaunch(self.kernel_source, "adagrad_decay_sparse", defines, Items(count), args))
        return launches

    @staticmethod
    def _kernel_hyperparameters(v: ValidatedDesc) -> tuple[Scalar, ...]:
        """The attributes as the kernels' ``lr, decay_step, rate, baseline``."""
        a = v.attrs
        return (Scalar("lr", np.float32(a["LearningRate"])), Scalar("decay_step", np.uint32(a["AccumulatorDecayStep"])),
                Scalar("rate", np.float32(a["AccumulatorDecayRate"])),
                Scalar("baseline", np.float32(a["AccumulatorBaseline"])))

    @staticmethod
    def hyperparameters(v: ValidatedDesc) -> dict[str, Any]:
        a = v.attrs
        return {"learning_rate": a["LearningRate"], "decay_step": a["AccumulatorDecayStep"],
                "decay_rate": a["AccumulatorDecayRate"], "baseline": a["AccumulatorBaseline"]}


def _same_region(a: Any, b: Any) -> bool:
    """True when an output is bound in place over its input (hazard rules make that the only overlap)."""
    return a.buffer is b.buffer and a.offset == b.offset
