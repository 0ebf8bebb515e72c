"""onnx's node test cases through ``dmlsim.backend``: the outcome of each case, for the test suite and the CLI.

The cases come from onnx's own generator (``onnx.backend.test.case.node.collect_testcases``: models, inputs and
expected outputs built in numpy at run time; no download), and each is judged with onnx's own comparison
(``onnx.backend.test.runner.Runner.assert_similar_outputs``: the case's rtol/atol, shapes and dtypes equal), as
onnx's ``BackendTest`` judges onnxruntime. An outcome is ``pass``, ``mismatch`` (wrong values, shape or dtype),
``refused`` (a DMLError, whose message is the reason: a DirectML limit, or a node not lowered yet) or ``crash``
(anything else: a dmlsim bug).
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dmlsim.api.errors import DMLError

SKIPPED_DOMAINS = ("ai.onnx.ml", "ai.onnx.preview.training", "com.microsoft")

# Cases whose mismatch is understood and is not dmlsim's error: the reason the expected-results list gives.
# A listed case that starts passing, or mismatches without being listed here, still fails the suite's test.
_DFT_NOISE = ("onnx's expected output carries numpy's complex64 FFT rounding (1.9e-7 where the exact value is 0, "
              "over the case's atol 1e-7); dmlsim gives 5.5e-15, nearer the exact value")
KNOWN_MISMATCHES: dict[str, str] = {
    "test_dft_inverse": _DFT_NOISE,
    "test_dft_inverse_opset19": _DFT_NOISE,
    "test_attention_4d_causal_fp16_expanded": (
        "onnx.reference rounds the expanded Softmax's exp, sum and divide each to float16; dmlsim computes "
        "FLOAT16 in float32 and rounds once (2 elements 2 ulps apart; dmlsim is nearer the float64 result)"),
}


@dataclass(frozen=True)
class Outcome:
    """One case's result: ``status`` and, unless it passed, a one-line ``reason``."""

    name: str
    status: str  # "pass" | "mismatch" | "refused" | "crash"
    reason: str = ""


def cache_file() -> Path | None:
    """Where the generated cases are kept between processes: ``$DMLSIM_CACHE_DIR``, else ``$XDG_CACHE_HOME/dmlsim``,
    else ``~/.cache/dmlsim``, one file per onnx, numpy and Python version (None: ``DMLSIM_CACHE_DIR`` is empty)."""
    import platform

    import onnx

    folder = os.environ.get("DMLSIM_CACHE_DIR")
    if folder == "":
        return None
    base = Path(folder) if folder else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dmlsim"
    return base / f"onnx-node-cases-{onnx.__version__}-numpy{np.__version__}-py{platform.python_version()}.pkl"


def all_cases() -> list[Any]:
    """Every node case onnx generates (its generator warns about overflows it causes on purpose: silenced).

    Generating them takes about 17 s; a process that finds them in :func:`cache_file` loads them in 0.2 s (the
    mutation harness runs many short pytest processes that each need them). A cache that cannot be read or
    written is ignored: the cases are generated again."""
    import pickle

    from onnx.backend.test.case.node import collect_testcases

    path = cache_file()
    if path is not None and path.is_file():
        try:
            with path.open("rb") as handle:
                return list(pickle.load(handle))  # noqa: S301 - a file this function wrote, in the user's cache
        except Exception:  # noqa: S110 - a truncated or foreign file: generate the cases instead
            pass
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        cases = list(collect_testcases(None))
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_bytes(pickle.dumps(cases, protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(temporary, path)
        except OSError:
            pass
    return cases


def _array(value: Any) -> Any:
    from onnx import TensorProto, numpy_helper

    return numpy_helper.to_array(value) if isinstance(value, TensorProto) else value


def _reason(error: BaseException) -> str:
    """The refusal's reason, one line, without the node's name (so equal reasons read alike)."""
    text = str(error).splitlines()[0]
    text = re.sub(r"^E_[A-Z]+ \(0x[0-9A-F]+\): ", "", text)
    text = re.sub(r" node '[^']*'", "", text)
    return text[:160]


def run_case(case: Any, device: Any) -> Outcome:
    """Run one case on ``device`` (a dmlsim device or an ONNX device string) through ``dmlsim.backend``."""
    from onnx.backend.test.runner import Runner

    from dmlsim import backend

    domains = {node.domain for node in case.model.graph.node}
    if domains & set(SKIPPED_DOMAINS):
        return Outcome(case.name, "refused", f"domain {sorted(domains & set(SKIPPED_DOMAINS))[0]}: not DirectML's "
                                             "(onnxruntime runs it on its CPU provider)")
    try:
        rep = backend.prepare(case.model, device)
        for inputs, expected in case.data_sets:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                outputs = rep.run([_array(a) for a in inputs])
            Runner.assert_similar_outputs([_array(e) for e in expected], list(outputs), rtol=case.rtol,
                                          atol=case.atol)
    except AssertionError as error:
        return Outcome(case.name, "mismatch", KNOWN_MISMATCHES.get(case.name, _reason(error)))
    except DMLError as error:
        return Outcome(case.name, "refused", _reason(error))
    except Exception as error:  # a crash is an outcome to report, not to raise
        return Outcome(case.name, "crash", f"{type(error).__name__}: {_reason(error)}")
    return Outcome(case.name, "pass")


def run_all(device: Any, cases: list[Any] | None = None) -> Iterator[Outcome]:
    """The outcome of every case (or of ``cases``) on ``device``."""
    for case in all_cases() if cases is None else cases:
        yield run_case(case, device)


FAMILIES: dict[str, tuple[str, ...]] = {  # op types by family, for the per-family summary
    "element-wise": ("Abs", "Acos", "Acosh", "Add", "And", "Asin", "Asinh", "Atan", "Atanh", "BitShift",
                     "BitwiseAnd", "BitwiseNot", "BitwiseOr", "BitwiseXor", "Ceil", "Celu", "Clip", "Cos", "Cosh",
                     "Div", "Elu", "Equal", "Erf", "Exp", "Floor", "Gelu", "Greater", "GreaterOrEqual",
                     "HardSigmoid", "HardSwish", "IsInf", "IsNaN", "LeakyRelu", "Less", "LessOrEqual", "Log", "Max",
                     "Mean", "Min", "Mish", "Mod", "Mul", "Neg", "Not", "Or", "Pow", "PRelu", "Reciprocal", "Relu",
                     "Round", "Selu", "Shrink", "Sigmoid", "Sign", "Sin", "Sinh", "Softplus", "Softsign", "Sqrt",
                     "Sub", "Sum", "Swish", "Tan", "Tanh", "ThresholdedRelu", "Where", "Xor", "SwiGLU"),
    "math": ("ArgMax", "ArgMin", "CumProd", "CumSum", "Det", "Einsum", "Gemm", "Hardmax", "LogSoftmax", "MatMul",
             "MatMulInteger", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
             "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare", "Softmax", "TopK"),
    "convolution and pooling": ("AveragePool", "Conv", "ConvInteger", "ConvTranspose", "DeformConv",
                                "GlobalAveragePool", "GlobalLpPool", "GlobalMaxPool", "LpPool", "MaxPool",
                                "MaxRoiPool", "MaxUnpool", "RoiAlign", "Col2Im", "CausalConvWithState"),
    "normalization": ("BatchNormalization", "GroupNormalization", "InstanceNormalization", "LayerNormalization",
                      "LpNormalization", "LRN", "MeanVarianceNormalization", "RMSNormalization"),
    "losses": ("NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"),
    "attention and sequence models": ("Attention", "FlexAttention", "GRU", "LinearAttention", "LSTM", "RNN",
                                      "RotaryEmbedding", "TensorScatter"),
    "data movement": ("BitCast", "Cast", "CastLike", "CenterCropPad", "Compress", "Concat", "ConstantOfShape",
                      "DepthToSpace", "Dropout", "Expand", "EyeLike", "Flatten", "Identity", "NonZero", "OneHot",
                      "Pad", "Range", "Reshape", "ReverseSequence", "Shape", "Size", "Slice", "SpaceToDepth",
                      "Split", "Squeeze", "Tile", "Transpose", "Trilu", "Unique", "Unsqueeze", "Constant"),
    "gather and scatter": ("Gather", "GatherElements", "GatherND", "Scatter", "ScatterElements", "ScatterND",
                           "NonMaxSuppression"),
    "resampling and grids": ("AffineGrid", "GridSample", "Resize", "Upsample"),
    "quantization": ("DequantizeLinear", "DynamicQuantizeLinear", "QLinearConv", "QLinearMatMul",
                     "QuantizeLinear"),
    "control flow": ("If", "Loop", "Scan"),
    "signal": ("BlackmanWindow", "DFT", "HammingWindow", "HannWindow", "MelWeightMatrix", "STFT"),
    "random": ("Bernoulli", "Multinomial", "RandomNormal", "RandomNormalLike", "RandomUniform",
               "RandomUniformLike"),
}
FAMILY_OF = {op: family for family, ops in FAMILIES.items() for op in ops}


def case_op(case: Any) -> str:
    """The op type a case tests: an ``_expanded`` case's function name (its node names start with it), else the
    node whose op type the case's name starts with, else the first node's; the domain's name for other domains."""
    nodes = list(case.model.graph.node)
    domains = sorted({node.domain for node in nodes} & set(SKIPPED_DOMAINS))
    compact = case.name.removeprefix("test_").replace("_", "").lower()
    if case.name.endswith("_expanded"):
        for node in nodes:
            for name in [*node.output, node.name]:
                if "_test_" in name:
                    return name.split("_test_")[0]
    matches = [node.op_type for node in nodes if compact.startswith(node.op_type.lower())]
    if matches:
        return max(matches, key=len)
    if domains:
        return domains[0]
    working = [node for node in nodes if node.op_type != "Constant"] or nodes
    return working[-1].op_type if working else "?"


def summary(cases: list[Any], outcomes: list[Outcome], by: str = "op") -> list[str]:
    """Lines of pass / refused / other counts per op type (``by="op"``) or per family (``by="family"``)."""
    import collections

    table: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for case, outcome in zip(cases, outcomes, strict=True):
        op = case_op(case)
        key = op if by == "op" else FAMILY_OF.get(op, "other (sequences, strings, optionals, other domains, ...)")
        table[key][outcome.status] += 1
    lines = [f"{'op' if by == 'op' else 'family':<40} {'pass':>5} {'refused':>8} {'other':>6} {'of':>5}"]
    for key in sorted(table, key=lambda k: (-sum(table[k].values()), k)):
        counts = table[key]
        total = sum(counts.values())
        lines.append(f"{key:<40} {counts['pass']:>5} {counts['refused']:>8} "
                     f"{total - counts['pass'] - counts['refused']:>6} {total:>5}")
    return lines


def listed_onnx_version(text: str) -> str | None:
    """The onnx version the expected-results list was written with (its first line), or None."""
    first = text.splitlines()[0] if text else ""
    return first.split()[2].rstrip(":") if first.startswith("# onnx ") else None


def read_expected(text: str) -> dict[str, tuple[str, str]]:
    """The expected-results list: ``name<TAB>status[<TAB>reason]`` lines; ``#`` starts a comment."""
    expected = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, status, *rest = line.split("\t")
        expected[name] = (status, rest[0] if rest else "")
    return expected


def write_expected(outcomes: list[Outcome]) -> str:
    """The expected-results list for ``outcomes``, sorted by name."""
    import onnx

    lines = [f"# onnx {onnx.__version__}: its node cases through dmlsim.backend on the reference device: name, "
             "outcome, reason.",
             "# Regenerate with `python -m dmlsim.onnx.node_suite --write` and read the diff: every change of",
             "# outcome is a change of behaviour (tests/test_onnx_node_suite.py fails until this list says so)."]
    for outcome in sorted(outcomes, key=lambda o: o.name):
        lines.append("\t".join([outcome.name, outcome.status, outcome.reason] if outcome.reason
                               else [outcome.name, outcome.status]))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m dmlsim.onnx.node_suite [--write FILE] [--device D] [--by op] [--by family]``: run every case,
    print the counts (per op type and per family with ``--by``)."""
    import argparse
    import collections
    from pathlib import Path

    parser = argparse.ArgumentParser(prog="python -m dmlsim.onnx.node_suite", description=main.__doc__)
    parser.add_argument("--device", default="reference")
    parser.add_argument("--write", metavar="FILE", help="write the expected-results list there")
    parser.add_argument("--by", choices=("op", "family"), action="append", default=[],
                        help="also print pass/refused counts per op type or per op family (may be repeated)")
    args = parser.parse_args(argv)
    cases = all_cases()
    outcomes = list(run_all(args.device, cases))
    for by in args.by:
        print("\n".join(summary(cases, outcomes, by)) + "\n")
    counts = collections.Counter(o.status for o in outcomes)
    print(f"{counts['pass']} of {len(outcomes)} onnx node cases pass on {args.device} "
          f"({', '.join(f'{k} {v}' for k, v in sorted(counts.items()) if k != 'pass')})")
    if args.write:
        Path(args.write).write_text(write_expected(outcomes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
