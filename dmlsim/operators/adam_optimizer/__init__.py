"""DML_OPERATOR_ADAM_OPTIMIZER (DML_FEATURE_LEVEL_3_0): desc, validation, reference and kernel launch."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.api.enums import DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.schema import attribute, tensor_input, tensor_output
from dmlsim.api.structs import DML_TENSOR_DESC
from dmlsim.operators.adam_optimizer.reference import adam_optimizer
from dmlsim.operators.base import Operator, ValidatedDesc, register, require_same, require_scalar
from dmlsim.operators.plan import Items, KernelLaunch, LaunchTarget, Scalar, Stream, TensorArg, Vector

# The doc's tensor table lists FLOAT32/FLOAT16 for TrainingStepTensor, contradicting its own member
# text ("data type DML_TENSOR_DATA_TYPE_UINT32"); Microsoft's tensorflow-directml passes UINT32.
STEP_TYPES = (DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_UINT32,)


@dataclass
class DML_ADAM_OPTIMIZER_OPERATOR_DESC:
    InputParametersTensor: DML_TENSOR_DESC | None = tensor_input()
    InputFirstMomentTensor: DML_TENSOR_DESC | None = tensor_input()
    InputSecondMomentTensor: DML_TENSOR_DESC | None = tensor_input()
    GradientTensor: DML_TENSOR_DESC | None = tensor_input()
    TrainingStepTensor: DML_TENSOR_DESC | None = tensor_input(STEP_TYPES, inplace_eligible=False)
    OutputParametersTensor: DML_TENSOR_DESC | None = tensor_output(aliases="InputParametersTensor")
    OutputFirstMomentTensor: DML_TENSOR_DESC | None = tensor_output(aliases="InputFirstMomentTensor")
    OutputSecondMomentTensor: DML_TENSOR_DESC | None = tensor_output(aliases="InputSecondMomentTensor")
    LearningRate: float | None = attribute("FLOAT")
    Beta1: float | None = attribute("FLOAT")
    Beta2: float | None = attribute("FLOAT")
    Epsilon: float | None = attribute("FLOAT")


X, M, V, G, T = ("InputParametersTensor", "InputFirstMomentTensor", "InputSecondMomentTensor",
                 "GradientTensor", "TrainingStepTensor")
OX, OM, OV = "OutputParametersTensor", "OutputFirstMomentTensor", "OutputSecondMomentTensor"
SHAPED = (M, V, G, OX, OM, OV)

@register
class AdamOptimizer(Operator):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_ADAM_OPTIMIZER
    desc_cls = DML_ADAM_OPTIMIZER_OPERATOR_DESC

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        # "must have the same DataType, DimensionCount and Sizes" (tensor constraints section)
        require_same(v, problems, X, SHAPED)
        require_scalar(v, problems, T)

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        x, m, vv = adam_optimizer(inputs[X], inputs[M], inputs[V], inputs[G], int(inputs[T].reshape(-1)[0]),
                                  **self.hyperparameters(v))
        return {OX: x, OM: m, OV: vv}

    def debug_check(self, v: ValidatedDesc, read: Any, problems: Problems) -> None:
        step = int(read(T).reshape(-1)[0])
        if step == 0:
            problems.add(f"{v.struct_name}.TrainingStepTensor holds T = 0: the first training step must be 1 "
                         "(Alpha = sqrt(1 - Beta2^0) / (1 - Beta1^0) = 0/0 would make every parameter NaN)")

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        x = v.layout(X)
        packed = all(bound[name].layout.is_packed for name in (X, *SHAPED))
        defines = {"STORE_HALF": x.data_type == DML_TENSOR_DATA_TYPE.DML_TENSOR_DATA_TYPE_FLOAT16,
                   "PACKED": packed, "VEC": target.stream_vec()}
        geometry = Stream(x.element_count // defines["VEC"]) if packed else Items(x.element_count)
        a = v.attrs
        args = (TensorArg("x", X), TensorArg("m", M), TensorArg("v", V), TensorArg("g", G),
                TensorArg("t", T, scalar=True), TensorArg("ox", OX), TensorArg("om", OM), TensorArg("ov", OV),
                Scalar("learning_rate", np.float32(a["LearningRate"])), Scalar("beta1", np.float32(a["Beta1"])),
                Scalar("beta2", np.float32(a["Beta2"])), Scalar("epsilon", np.float32(a["Epsilon"])),
                Vector("sizes", x.sizes), Scalar("n", np.uint32(x.element_count)))
        return [KernelLaunch(self.kernel_source, "adam_optimizer", defines, geometry, args)]

    @staticmethod
    def hyperparameters(v: ValidatedDesc) -> dict[str, np.float32]:
        return {"learning_rate": v.attrs["LearningRate"], "beta1": v.attrs["Beta1"],
                "beta2": v.attrs["Beta2"], "epsilon": v.attrs["Epsilon"]}
