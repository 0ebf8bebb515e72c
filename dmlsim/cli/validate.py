"""``dmlsim validate MODEL...``: check model files without executing anything.

Each file is parsed, its operators are created and its dispatches bound and recorded on the
reference device (the same validation every adapter runs), but nothing is executed: problems found
by CreateOperator, binding and hazard checks are reported, values are not computed.
"""

from __future__ import annotations

import argparse
import sys

NAME = "validate"
HELP = "check model files (syntax, descs, bindings) without executing them"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("models", metavar="MODEL", nargs="+", help=".json, .yaml or .yml model files")


def run(args: argparse.Namespace) -> int:
    import dmlsim as dml
    from dmlsim.model import FAILED, INVALID, ModelError, Runner, load_model

    status = 0
    for path in args.models:
        try:
            model = load_model(path)
        except ModelError as exc:
            print(exc, file=sys.stderr)
            status = 2
            continue
        device = dml.DMLCreateDevice(model.device_flags, adapter="reference")
        result = Runner(model, device, execute=False).run()
        problems = [o for o in result.outcomes.values() if o.status in (FAILED, INVALID)]
        for outcome in problems:
            print(outcome.describe(), file=sys.stderr)
        if not problems:
            print(f"{path}: ok")
        status = max(status, result.exit_status)
    return status
