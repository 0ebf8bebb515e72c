"""onnx's node test cases through ``dmlsim.backend``: the outcome of each case, for the test suite and the CLI.

The cases come from onnx's own generator (``onnx.backend.test.case.node.collect_testcases``: models, inputs and
expected outputs built in numpy at run time; no download), and each is judged with onnx's own comparison
(``onnx.backend.test.runner.Runner.assert_similar_outputs``: the case's rtol/atol, shapes and dtypes equal), as
onnx's ``BackendTest`` judges onnxruntime. An outcome is ``pass``, ``mismatch`` (wrong values, shape or dtype),
``refused`` (a DMLError, whose message is the reason: a DirectML limit, or a node not lowered yet) or ``crash``
(anything else: a dmlsim bug).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from dmlsim.api.errors import DMLError

SKIPPED_DOMAINS = ("ai.onnx.ml", "ai.onnx.preview.training", "com.microsoft")


@dataclass(frozen=True)
class Outcome:
    """One case's result: ``status`` and, unless it passed, a one-line ``reason``."""

    name: str
    status: str  # "pass" | "mismatch" | "refused" | "crash"
    reason: str = ""


def all_cases() -> list[Any]:
    """Every node case onnx generates (its generator warns about overflows it causes on purpose: silenced)."""
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return list(collect_testcases(None))


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
        return Outcome(case.name, "mismatch", _reason(error))
    except DMLError as error:
        return Outcome(case.name, "refused", _reason(error))
    except Exception as error:  # a crash is an outcome to report, not to raise
        return Outcome(case.name, "crash", f"{type(error).__name__}: {_reason(error)}")
    return Outcome(case.name, "pass")


def run_all(device: Any, cases: list[Any] | None = None) -> Iterator[Outcome]:
    """The outcome of every case (or of ``cases``) on ``device``."""
    for case in all_cases() if cases is None else cases:
        yield run_case(case, device)


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
    """``python -m dmlsim.onnx.node_suite [--write FILE] [--device D]``: run every case, print the counts."""
    import argparse
    import collections
    from pathlib import Path

    parser = argparse.ArgumentParser(prog="python -m dmlsim.onnx.node_suite", description=main.__doc__)
    parser.add_argument("--device", default="reference")
    parser.add_argument("--write", metavar="FILE", help="write the expected-results list there")
    args = parser.parse_args(argv)
    outcomes = list(run_all(args.device))
    counts = collections.Counter(o.status for o in outcomes)
    print(f"{counts['pass']} of {len(outcomes)} onnx node cases pass on {args.device} "
          f"({', '.join(f'{k} {v}' for k, v in sorted(counts.items()) if k != 'pass')})")
    if args.write:
        Path(args.write).write_text(write_expected(outcomes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
