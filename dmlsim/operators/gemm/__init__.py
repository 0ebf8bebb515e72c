"""DML_OPERATOR_GEMM (DML_FEATURE_LEVEL_1_0; 2-D and 3-D tensors from 4_0): desc, rules, reference, launch.

The desc is DirectML's generated one. ``Output = FusedActivation(Alpha * TransA(A) x TransB(B) + Beta * C)``
per leading index: tensors of 2 to 4 dimensions ``{[BatchCount], [ChannelCount], rows, columns}``,
FLOAT32/FLOAT16 (float32 accumulation), any strides on every tensor (stride 0 broadcasts an input, e.g.
one C row for every row of the output: the doc requires C's *Sizes* to be the output's). Matrices of at least
16 x 16 x 16 run the tiled kernel (local-memory tiles), smaller ones one work-item per output element.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_GEMM_OPERATOR_DESC, DML_MATRIX_TRANSFORM
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.operators.activation.fused import apply_fused, fused_defines
from dmlsim.operators.base import Operator, ValidatedDesc, Work, elementwise_work, register, require_same
from dmlsim.operators.float_rules import require_float_tensors, storage_defines
from dmlsim.operators.gemm.reference import gemm, working_elements
from dmlsim.operators.plan import Groups, Items, KernelLaunch, LaunchTarget, Scalar, TensorArg, Vector

A, B, C, OUT = "ATensor", "BTensor", "CTensor", "OutputTensor"
TRANSPOSE = DML_MATRIX_TRANSFORM.DML_MATRIX_TRANSFORM_TRANSPOSE
# Side of the output tiles of the tiled kernel (kernel.cl's TILE): used when M, N and K all reach it.
TILE = 16


def matrix_dims(sizes: tuple[int, ...], transposed: bool) -> tuple[int, int]:
    """(rows, columns) of a tensor's matrix after its DML_MATRIX_TRANSFORM."""
    rows, columns = sizes[-2:]
    return (columns, rows) if transposed else (rows, columns)


@register
class Gemm(Operator):
    type = DML_OPERATOR_TYPE.DML_OPERATOR_GEMM
    desc_cls = DML_GEMM_OPERATOR_DESC

    def check(self, v: ValidatedDesc, problems: Problems) -> None:
        # Tensor support (DML_FEATURE_LEVEL_4_0 and above): 2 to 4 dimensions, FLOAT32 or FLOAT16
        if not require_float_tensors(v, problems, (A, B, C, OUT), range(2, 5)):
            return
        # "ATensor, BTensor, CTensor, and OutputTensor must have the same DataType and DimensionCount"
        require_same(v, problems, OUT, (A, B, C), ("DataType", "DimensionCount"))
        # "CTensor and OutputTensor must have the same Sizes"
        require_same(v, problems, OUT, (C,), ("Sizes",))
        if problems:
            return
        self._check_shapes(v, problems)

    @staticmethod
    def _check_shapes(v: ValidatedDesc, problems: Problems) -> None:
        """A is {batch, M, K} ({batch, K, M} with TransA), B {batch, K, N} ({batch, N, K}), Output {batch, M, N}."""
        out = v.layout(OUT).sizes
        a, b = v.layout(A).sizes, v.layout(B).sizes
        trans_a, trans_b = v.attrs["TransA"] == TRANSPOSE, v.attrs["TransB"] == TRANSPOSE
        m, k = matrix_dims(a, trans_a)
        k_b, n = matrix_dims(b, trans_b)
        where = v.struct_name
        for name, sizes in ((A, a), (B, b)):
            if sizes[:-2] != out[:-2]:
                problems.add(f"{where}.{name}.Sizes {list(sizes)}: the leading (BatchCount, ChannelCount) sizes "
                             f"{list(sizes[:-2])} must equal OutputTensor's {list(out[:-2])}")
        shape_a = "{..., K, M} (TransA TRANSPOSE)" if trans_a else "{..., M, K} (TransA NONE)"
        shape_b = "{..., N, K} (TransB TRANSPOSE)" if trans_b else "{..., K, N} (TransB NONE)"
        if m != out[-2]:
            problems.add(f"{where}.ATensor.Sizes {list(a)} is {shape_a} with M = {m}, but OutputTensor.Sizes "
                         f"{list(out)} has M = {out[-2]} rows")
        if n != out[-1]:
            problems.add(f"{where}.BTensor.Sizes {list(b)} is {shape_b} with N = {n}, but OutputTensor.Sizes "
                         f"{list(out)} has N = {out[-1]} columns")
        if k != k_b:
            problems.add(f"{where}.BTensor.Sizes {list(b)} is {shape_b} with K = {k_b}, but ATensor.Sizes "
                         f"{list(a)} is {shape_a} with K = {k}")

    def work(self, v: ValidatedDesc) -> Work:
        """Two operations per multiply-add, K of them per output element, and the tensors' bytes."""
        _, k = matrix_dims(v.layout(A).sizes, v.attrs["TransA"] == TRANSPOSE)
        return elementwise_work(v) + Work(2 * k * v.layout(OUT).element_count, 0)

    def evaluate(self, v: ValidatedDesc, inputs: dict[str, Any]) -> dict[str, Any]:
        result = gemm(inputs[A], inputs[B], inputs.get(C), v.attrs["TransA"] == TRANSPOSE,
                      v.attrs["TransB"] == TRANSPOSE, v.attrs["Alpha"], v.attrs["Beta"])
        return {OUT: apply_fused(result, v.attrs.get("FusedActivation"))}

    def reference_bytes(self, v: ValidatedDesc) -> int:
        """The reference's float64 arrays (reference.working_elements): A and B without their broadcast repeats,
        in slices of K where large; the rest is output-sized."""
        shapes = []
        for name, transposed in ((A, v.attrs["TransA"] == TRANSPOSE), (B, v.attrs["TransB"] == TRANSPOSE)):
            layout = v.layout(name)
            distinct = [n if stride else 1 for n, stride in zip(layout.sizes, layout.strides, strict=True)]
            shapes.append(tuple(distinct[:-2] + distinct[-2:][::-1] if transposed else distinct))
        k = matrix_dims(v.layout(A).sizes, v.attrs["TransA"] == TRANSPOSE)[1]
        return 8 * working_elements(shapes[0], shapes[1], k, v.layout(OUT).element_count)

    def plan_launches(self, v: ValidatedDesc, bound: dict[str, Any], target: LaunchTarget) -> list[KernelLaunch]:
        out = v.layout(OUT)
        trans_a = v.attrs["TransA"] == TRANSPOSE
        _, k = matrix_dims(v.layout(A).sizes, trans_a)
        has_c = bound.get(C) is not None
        args = [TensorArg("a", A), TensorArg("b", B), *([TensorArg("c", C)] if has_c else []), TensorArg("y", OUT),
                Vector("sizes", out.sizes), Scalar("K", np.uint32(k)), Scalar("trans_a", np.uint32(trans_a)),
                Scalar("trans_b", np.uint32(v.attrs["TransB"] == TRANSPOSE)),
                Scalar("alpha", np.float32(v.attrs["Alpha"])), Scalar("beta", np.float32(v.attrs["Beta"]))]
        defines = {**storage_defines(out), "HAS_C": has_c, **fused_defines(v.attrs.get("FusedActivation"))}
        m, n = out.sizes[-2:]
        if m >= TILE and n >= TILE and k >= TILE:
            tiles_m, tiles_n = -(-m // TILE), -(-n // TILE)
            batches = out.element_count // (m * n)
            args += [Scalar("tiles_m", np.uint32(tiles_m)), Scalar("tiles_n", np.uint32(tiles_n))]
            return [KernelLaunch(self.kernel_source, "gemm_tiled", defines,
                                 Groups(batches * tiles_m * tiles_n, TILE * TILE), args)]
        args.append(Scalar("n", np.uint32(out.element_count)))
        return [KernelLaunch(self.kernel_source, "gemm", defines, Items(out.element_count), args)]
