"""``dmlsim compare DIR RESULTS``: DxDispatch's written outputs against the manifests of ``dmlsim export``.

``--model NAME`` compares one model (repeatable); ``--found`` compares whatever RESULTS holds results of and
says which models it did not find (the round trip of one model: ``dmlsim run one.json --output_path res``).

Exit status: 0 every check matches; 1 a result differs (each position with the expected and the
written value and the distance in ulps); 2 a result file is missing or malformed, or DIR is not an
export folder.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "compare"
HELP = "check DxDispatch's result files against the manifests written by 'dmlsim export'"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("export_dir", metavar="DIR", type=Path, help="the folder 'dmlsim export' wrote")
    parser.add_argument("results", metavar="RESULTS", type=Path,
                        help="DxDispatch's output folder (where each model wrote STEM/command-N-RESOURCE files)")
    parser.add_argument("-m", "--model", action="append", default=[], metavar="NAME",
                        help="compare only this model (its name in the export, e.g. adam_float32; repeatable)")
    parser.add_argument("--found", action="store_true",
                        help="compare only the models RESULTS holds result files of (e.g. one `dmlsim run "
                             "--output_path RESULTS`), listing the models it did not find")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every check, not only the problems")


def run(args: argparse.Namespace) -> int:
    from dmlsim.model.results import MATCH, compare_folder

    report = compare_folder(args.export_dir, args.results, args.model or None, args.found)
    if report.not_found:
        names = ", ".join(report.not_found[:10]) + (", ..." if len(report.not_found) > 10 else "")
        print(f"not compared: no result file in {args.results} for {len(report.not_found)} models ({names})")
    for problem in report.problems:
        print(problem, file=sys.stderr)
    for outcome in report.outcomes:
        if outcome.status != MATCH:
            print(outcome.describe(), file=sys.stderr)
        elif args.verbose:
            print(outcome.describe())
    counts = report.counts()
    summary = ", ".join(f"{n} {status}" for status, n in counts.items()) or "no checks"
    print(f"{args.results}: {len(report.outcomes)} checks: {summary}")
    if counts.get("missing") and not (args.found or args.model):
        print("hint: to compare only the models whose results RESULTS holds (one model's run), add --found; "
              "one model by name: --model NAME", file=sys.stderr)
    return report.exit_status
