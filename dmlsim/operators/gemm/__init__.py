"""DML_OPERATOR_GEMM (DML_FEATURE_LEVEL_1_0; 2-D and 3-D tensors from 4_0): desc, rules, reference, launch.

The desc is DirectML's generated one. ``Output = FusedActivation(Alpha * TransA(A) x TransB(B) + Beta * C)``
per leading index: tensors of 2 to 4 dimensions ``{[BatchCount], [ChannelCount], rows, columns}``,
FLOAT32/FLOAT16 (float32 accumulation, term by term in order k = 0..K-1; the device compiler may fuse each
multiply-add into one rounding, see kernel.cl), any strides on every tensor (stride 0 broadcasts an input, e.g.
one C row for every row of the output: the doc requires C's *Sizes* to be the output's).

The planner (:meth:`Gemm.plan_launches`), per launch target and shape:

- CPU devices, outputs of at least 16 x 16 and 32^3 multiply-adds per matrix (:func:`packs`): the packed path, as
  BLIS and OpenBLAS do it. ``gemm_pack`` (one launch for A, one for B) copies opA(A) into panels of 8 rows and
  opB(B) into panels of 32 columns (two sub-panels of 16), each k-major over all K terms, as float32, in the
  temporary resource (:class:`Packing`; FLOAT16 widened there, exactly, once); whatever the operands' strides,
  TransA/TransB, padding or stride-0 broadcasts, the micro-kernel then reads both front to back. ``gemm_packed``
  computes an 8 x 32 block per work-item: where the kernel compiler targets AVX-512 (PoCL on this project's hosts)
  or names no x86 ISA (Intel's runtime, which chooses it when it compiles for the device), one pass in 8 x 2 float16
  accumulators (16 of the 32 zmm registers), elsewhere (AVX2 targets) two passes of 8 x 2 float8, one per sub-panel;
  per k, 8 broadcasts of A and two contiguous vector loads of B, the K loop unrolled 4 times. Decision, against
  ``CPU_VECTOR_BYTES`` (plan.py): the packed kernel may use 512-bit vectors because it passes none to a library
  function (loads by dereference, lanes out through a union; the hazard that rule avoids), and they ran it 1.4-1.5x
  faster on PoCL and Intel's runtime (2048^3 FLOAT32 against numpy in the same run: 0.6 -> 0.9 and 0.55 -> 0.8).
  Cache blocking: work-items run the M blocks fastest, so the K x 32 B panel (128 KiB at K = 1024, 512 KiB at K =
  4096) stays in the core's L2 while the A panels stream past it, each panel read sequentially (no TLB miss per k,
  as B's rows cost the unpacked kernel). Decision: K is not split across work-items or launches (kc = K): each
  output's accumulator carries through its K terms in order k = 0..K-1 inside one work-item, so the results are
  bitwise those of gemm_blocked on the same device (tests/test_gemm_packed.py); a kc-split would need the partial
  sums stored and reloaded between blocks, and the sequential panel walk keeps the working set (a B panel and an A
  panel) within L2 up to K of about 10,000. Edge panels are zero-filled past M and N (those lanes are computed,
  never stored). Decision: at most ``PACK_MAX_BYTES`` (256 MiB) of panels; a larger GEMM (a big batch of big
  matrices) runs gemm_blocked instead of asking for more. The temporary resource's size is decided from the desc
  alone (``TemporaryResourceSize`` is known before any device), so GPU devices, which never pack, are given one they
  leave unused.
- CPU devices, smaller or skinny outputs (M < 16, N < 16 or under 32^3 multiply-adds: GEMV-like and few-row
  products read each element of B about once, so packing would only add a pass over B, and small ones would pay
  two more launches), and CONVOLUTION's GEMMs (:func:`gemm_launches`, which has no temporary of its own):
  ``gemm_blocked``, register blocking. One work-item (work-groups of one: PoCL and Intel's runtime then run the
  explicitly vectorized code as written instead of re-vectorizing across work-items) computes an
  ``MR x 16`` block of the output in ``MR x 2`` float8 accumulators (8 x 16: 16 of AVX-512's 32 vector registers;
  float8 because CPU kernels stay at 256-bit vectors, ``CPU_VECTOR_BYTES`` in plan.py), the K loop unrolled 4
  times with the K remainder after it. Skinny outputs take smaller blocks: M = 1 is a GEMV-like path (one row,
  128 columns per work-item where N gives each compute unit two such blocks, else 16, the work spread over N;
  16 float8 accumulators: on an AVX2-only host, with 16 vector registers, some spill), M = 2 and M <= 4 blocks of
  2 and 4 rows, N <= 8 one vector per row. B is read as 8-wide vector loads when its stride along N is 1
  (``B_UNIT_N``), gathered element by element otherwise (TransB of a packed B, padded columns, stride 0) and in
  the last, partial block of N. Work-items run the M blocks fastest, so that consecutive work-items reuse one
  16-column panel of B from cache.
- Other devices (GPUs): matrices of at least 16 x 16 x 16 run ``gemm_tiled`` (16 x 16 work-groups staging
  16-wide slices of A and B in local memory), smaller ones one work-item per output element.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.api.directml_schema import DML_GEMM_OPERATOR_DESC, DML_MATRIX_TRANSFORM
from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.api.errors import Problems
from dmlsim.operators.activation.fused import apply_fused, fused_defines
from dmlsim.operators.base import Operator, ValidatedDesc, Work, elementwise_work, register, require_same
from dmlsim.operators.float_rules import require_float_tensors, storage_defines
from dmlsim.operators.gemm.reference import gemm, working_elements
from dmlsim.operators.plan import (
    Argument,
    Groups,
    Items,
    KernelLaunch,
    KernelSource,
    LaunchTarget,
    Scalar,
    TemporaryArg,
    TensorArg,
    Vector,
)

A, B, C, OUT = "ATensor", "BTensor", "CTensor", "OutputTensor"
TRANSPOSE = DML_MATRIX_TRANSFORM.DML_MATRIX_TRANSFORM_TRANSPOSE
# Side of the output tiles of the tiled kernel (kernel.cl's TILE): used when M, N and K all reach it.
TILE = 16
# gemm_blocked on CPU devices: rows per block and 8-wide vectors per block row (MR x NV*8 accumulators), work-items
# per work-group.
CPU_ROWS = 8
CPU_VECTORS = 2
CPU_LOCAL = 1
# gemm_blocked's one-row (GEMV-like) block where N gives every compute unit two work-items of it: 16 float8 vectors,
# 128 columns, so that each row of B is read as a 512-byte run, not a 64-byte one 8 KB after the last (1 x 2048 x
# 2048 FLOAT32 on an AVX-512 host: 0.68 -> 0.34 ms on PoCL 3.1, 1.25 -> 0.46 ms on Intel's runtime)
GEMV_VECTORS = 16
# Columns of a B panel of the packed path (gemm_packed's PANEL_N): two float16 vectors where the kernel targets
# AVX-512, two passes of two float8 elsewhere (kernel.cl).
PANEL_COLUMNS = 32
# Columns of a B sub-panel (gemm_pack's and gemm_packed's PS): each k-major, read front to back by one pass.
PANEL_SUB = 16
# The packed path (module docstring): outputs of at least PACK_MIN_SIDE rows and columns and PACK_MIN_WORK
# multiply-adds per matrix; below, the two packing launches cost more than the gathers they save.
PACK_MIN_SIDE = 16
PACK_MIN_WORK = 32 ** 3
# The largest temporary resource the packed path asks for (bytes: both operands' panels, every matrix of the
# batch); a larger GEMM runs gemm_blocked, unpacked, instead (4096 x 4096 x 4096 FLOAT32 needs 128 MiB).
PACK_MAX_BYTES = 256 << 20


@dataclass(frozen=True)
class Block:
    """The output block one work-item of ``gemm_blocked`` computes: ``rows`` (MR) x ``vectors`` (NV) vectors of
    ``width`` (VN) columns, with the K loop unrolled ``unroll`` (KU) times."""

    rows: int
    vectors: int
    width: int = 8
    unroll: int = 4

    @property
    def columns(self) -> int:
        return self.vectors * self.width


def cpu_block(m: int, n: int, units: int = 1) -> Block:
    """The register block for a CPU device of ``units`` compute units and an M x N output (module docstring: the
    planner)."""
    rows = next(r for r in (1, 2, 4, CPU_ROWS) if m <= r or r == CPU_ROWS)
    if rows == 1 and n >= GEMV_VECTORS * 8 * 2 * units:
        return Block(1, GEMV_VECTORS)
    return Block(rows, 1 if n <= 8 else CPU_VECTORS)


def packs(m: int, n: int, k: int) -> bool:
    """Whether CPU devices take the packed path for an M x N output of K terms (module docstring)."""
    return m >= PACK_MIN_SIDE and n >= PACK_MIN_SIDE and m * n * k >= PACK_MIN_WORK


@dataclass(frozen=True)
class Packing:
    """The temporary resource of the packed path, in float32 elements: ``matrices`` (batch x channel) A panels of
    ``CPU_ROWS`` rows and B panels of ``PANEL_COLUMNS`` columns, each over all K terms, A's first. ``shared_a``:
    one A for every matrix (CONVOLUTION's filter, the same for every image of the batch), packed once."""

    matrices: int
    m: int
    n: int
    k: int
    shared_a: bool = False

    @property
    def a_matrices(self) -> int:
        return 1 if self.shared_a else self.matrices

    @property
    def panels_m(self) -> int:
        return -(-self.m // CPU_ROWS)

    @property
    def panels_n(self) -> int:
        return -(-self.n // PANEL_COLUMNS)

    @property
    def a_elements(self) -> int:
        return self.a_matrices * self.panels_m * CPU_ROWS * self.k

    @property
    def b_elements(self) -> int:
        return self.matrices * self.panels_n * PANEL_COLUMNS * self.k

    @property
    def bytes(self) -> int:
        return 4 * (self.a_elements + self.b_elements)


def packing_of(v: ValidatedDesc) -> Packing | None:
    """The packed path's temporary layout for a GEMM desc, or None when its shape is not packed (:func:`packs`)."""
    out = v.layout(OUT).sizes
    _, k = matrix_dims(v.layout(A).sizes, v.attrs["TransA"] == TRANSPOSE)
    m, n = out[-2:]
    if not packs(m, n, k):
        return None
    packing = Packing(math.prod(out[:-2]), m, n, k)
    return packing if packing.bytes <= PACK_MAX_BYTES else None


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

    def temporary_size(self, v: ValidatedDesc) -> int:
        """The packed path's panels (:class:`Packing`) when the shape takes it on CPU devices, else none. Decided
        from the desc alone (the size is known before any device is): GPUs, which never pack, leave it unused."""
        packing = packing_of(v)
        return 0 if packing is None else packing.bytes

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
        trans_a, trans_b = v.attrs["TransA"] == TRANSPOSE, v.attrs["TransB"] == TRANSPOSE
        _, k = matrix_dims(v.layout(A).sizes, trans_a)
        has_c = bound.get(C) is not None
        operands = [TensorArg("a", A), TensorArg("b", B), *([TensorArg("c", C)] if has_c else []), TensorArg("y", OUT)]
        unit_n = v.layout(B).strides[-2 if v.attrs["TransB"] == TRANSPOSE else -1] == 1
        defines = {**storage_defines(out), **fused_defines(v.attrs.get("FusedActivation"))}
        packing = packing_of(v)
        if target.is_cpu and packing is not None:
            return packed_launches(v, packing, has_c, defines)
        return gemm_launches(target, operands, (1,) * (4 - len(out.sizes)) + tuple(out.sizes), k, trans_a, trans_b,
                             v.attrs["Alpha"], v.attrs["Beta"], has_c, unit_n, defines)


GEMM_SOURCE = KernelSource(__name__)


def view_args(param: str, field: str, strides: tuple[int, int, int, int]) -> list[Argument]:
    """A tensor field as a GEMM operand with 4-D strides ``{batch, channel, row, column}`` (elements) of the
    caller's choosing: a view of another operator's tensor (CONVOLUTION's 1 x 1 filters), without a copy."""
    return [TensorArg(param, field, scalar=True), Vector(f"{param}__strides", tuple(strides), fill=0)]


def gemm_launches(target: LaunchTarget, operands: list[Argument], sizes: tuple[int, ...], k: int, trans_a: bool,
                  trans_b: bool, alpha: float, beta: float, has_c: bool, unit_n: bool,
                  defines: dict[str, Any]) -> list[KernelLaunch]:
    """The launch of kernel.cl's GEMM for an output of 4-D ``sizes`` ``{batch, channel, M, N}`` and K terms, the
    operands ``a, b, [c], y`` as kernel arguments (TensorArgs of GEMM's own fields, or :func:`view_args`); the
    planner of the module docstring. ``unit_n``: B's stride along N is 1; ``defines``: storage and fused
    activation."""
    args = [*operands, Vector("sizes", tuple(sizes)), Scalar("K", np.uint32(k)), Scalar("trans_a", np.uint32(trans_a)),
            Scalar("trans_b", np.uint32(trans_b)), Scalar("alpha", np.float32(alpha)), Scalar("beta", np.float32(beta))]
    defines = {**defines, "HAS_C": has_c}
    m, n = sizes[-2:]
    count_out = math.prod(sizes)
    batches = count_out // (m * n) if m * n else 0
    if target.is_cpu:
        block = cpu_block(m, n, target.compute_units)
        blocks_m, blocks_n = -(-m // block.rows), -(-n // block.columns)
        count = batches * blocks_m * blocks_n
        args += [Scalar("blocks_m", np.uint32(blocks_m)), Scalar("blocks_n", np.uint32(blocks_n)),
                 Scalar("count", np.uint32(count))]
        defines |= {"MR": block.rows, "NV": block.vectors, "VN": block.width, "VEC": block.width, "KU": block.unroll,
                    "B_UNIT_N": unit_n, "M_FAST": True}
        return [KernelLaunch(GEMM_SOURCE, "gemm_blocked", defines, Items(count, CPU_LOCAL), args)]
    if m >= TILE and n >= TILE and k >= TILE:
        tiles_m, tiles_n = -(-m // TILE), -(-n // TILE)
        args += [Scalar("tiles_m", np.uint32(tiles_m)), Scalar("tiles_n", np.uint32(tiles_n))]
        return [KernelLaunch(GEMM_SOURCE, "gemm_tiled", defines, Groups(batches * tiles_m * tiles_n, TILE * TILE),
                             args)]
    args.append(Scalar("n", np.uint32(count_out)))
    return [KernelLaunch(GEMM_SOURCE, "gemm", defines, Items(count_out), args)]


def packed_launches(v: ValidatedDesc, packing: Packing, has_c: bool, defines: dict[str, Any]) -> list[KernelLaunch]:
    """The packed path of CPU devices (module docstring): ``gemm_pack`` of A's panels, of B's, then
    ``gemm_packed`` over them."""
    out = v.layout(OUT)
    sizes = (1,) * (4 - len(out.sizes)) + tuple(out.sizes)
    trans_a, trans_b = v.attrs["TransA"] == TRANSPOSE, v.attrs["TransB"] == TRANSPOSE
    storage = storage_defines(out)
    a, b = v.layout(A).strides, v.layout(B).strides
    # opA(A)[m, k] is A[k, m] with TransA, opB(B)[k, n] is B[n, k] with TransB: the strides along M (A's panels'
    # rows) or N (B's panels' columns), and along K
    a_m, a_k = (a[-1], a[-2]) if trans_a else (a[-2], a[-1])
    b_n, b_k = (b[-2], b[-1]) if trans_b else (b[-1], b[-2])
    outputs = [*([TensorArg("c", C)] if has_c else []), TensorArg("y", OUT)]
    return [pack_launch([TensorArg("x", A)], sizes, a_m, a_k, packing, False, storage),
            pack_launch([TensorArg("x", B)], sizes, b_n, b_k, packing, True, storage),
            packed_multiply(packing, outputs, sizes, v.attrs["Alpha"], v.attrs["Beta"], has_c, defines)]


def pack_launch(source: list[Argument], sizes: tuple[int, ...], along_rows: int, along_k: int, packing: Packing,
                b_side: bool, storage: dict[str, Any]) -> KernelLaunch:
    """``gemm_pack`` of one operand into its panels of the temporary resource: ``source`` its ``TENSOR_IN(x)``
    arguments (a TensorArg, or :func:`view_args` of another operator's tensor), ``sizes`` the 4-D ``{batch,
    channel, ...}`` whose leading two its strides walk, ``along_rows``/``along_k`` its strides along M (A) or N
    (``b_side``: B) and along K. A shared A (:attr:`Packing.shared_a`) is packed once."""
    k = packing.k
    if b_side:
        matrices, panels, width, sub, at, rows = packing.matrices, packing.panels_n, PANEL_COLUMNS, PANEL_SUB, \
            packing.a_elements, packing.n
    else:
        matrices, panels, width, sub, at, rows = packing.a_matrices, packing.panels_m, CPU_ROWS, CPU_ROWS, 0, packing.m
    count = matrices * panels * k
    return KernelLaunch(GEMM_SOURCE, "gemm_pack", {**storage, "PW": width, "PS": sub}, Items(count), [
        *source, Vector("sizes", tuple(sizes)), Scalar("row_stride", np.uint64(along_rows)),
        Scalar("k_stride", np.uint64(along_k)), Scalar("rows", np.uint32(rows)), Scalar("K", np.uint32(k)),
        Scalar("panels", np.uint32(panels)), TemporaryArg("pack", (("pack__offset", at),)),
        Scalar("count", np.uint32(count))])


def packed_multiply(packing: Packing, outputs: list[Argument], sizes: tuple[int, ...], alpha: float, beta: float,
                    has_c: bool, defines: dict[str, Any]) -> KernelLaunch:
    """``gemm_packed`` over the panels of the temporary resource: ``outputs`` the ``[TENSOR_IN(c)],
    TENSOR_OUT(y)`` arguments (GEMM's tensors, or views of another operator's), ``sizes`` the output's 4-D
    ``{batch, channel, M, N}``; ``defines`` storage and fused activation."""
    count = packing.matrices * packing.panels_m * packing.panels_n
    args = [TemporaryArg("pack", (("pa__offset", 0), ("pb__offset", packing.a_elements))), *outputs,
            Vector("sizes", tuple(sizes)), Scalar("K", np.uint32(packing.k)), Scalar("alpha", np.float32(alpha)),
            Scalar("beta", np.float32(beta)), Scalar("blocks_m", np.uint32(packing.panels_m)),
            Scalar("blocks_n", np.uint32(packing.panels_n)), Scalar("count", np.uint32(count))]
    block = {"MR": CPU_ROWS, "PANEL_N": PANEL_COLUMNS, "PS": PANEL_SUB, "VEC": 8, "VN": 8, "KU": 4, "HAS_C": has_c,
             "A_SHARED": packing.shared_a}
    return KernelLaunch(GEMM_SOURCE, "gemm_packed", {**defines, **block}, Items(count, CPU_LOCAL), args)
