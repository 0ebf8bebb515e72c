"""``dmlsim compare DIR RESULTS``: DxDispatch's written outputs against the manifests of ``dmlsim export``.

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
    parser.add_argument("-v", "--verbose", action="store_true", help="list every check, not only the problems")


def run(args: argparse.Namespace) -> int:
    from dmlsim.model.results import MATCH, compare_folder

    report = compare_folder(args.export_dir, args.results)
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
    return report.exit_status
