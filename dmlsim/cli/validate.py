"""``dmlsim validate MODEL...``: check model files without executing anything.

Each file is parsed, its operators are created and its dispatches bound and recorded on the
reference device (the same validation every adapter runs), but nothing is executed and no buffer is
allocated (binding checks get size-only buffers): problems found by CreateOperator, binding and
hazard checks are reported, values are not computed. Initial values are still made (bounded by the
memory budget), since their count decides the buffers' sizes and the expectations' lengths. A DirectML
operator dmlsim does not implement has its desc checked all the same and is then reported as not
implemented, at its ``type`` (exit status 3 when nothing else is wrong).
"""

from __future__ import annotations

import argparse
import sys

from dmlsim.cli.run import (
    add_limit_arguments,
    fewer_collections,
    limits_from,
    no_models,
    print_problems,
    several,
    summary_line,
)
from dmlsim.progress import track

NAME = "validate"
HELP = "check model files (syntax, descs, bindings) without executing them"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("models", metavar="MODEL", nargs="+",
                        help=".json, .yaml or .yml model files, or folders of them (searched recursively)")
    add_limit_arguments(parser)


def run(args: argparse.Namespace) -> int:
    import dmlsim as dml
    from dmlsim.model import FAILED, INVALID, NOT_IMPLEMENTED, ModelError, Runner, load_model, worst_exit_status
    from dmlsim.model.corpus import model_files

    try:
        limits = limits_from(args)
    except ValueError as exc:
        print(f"dmlsim validate: {exc}", file=sys.stderr)
        return 2
    files = model_files(args.models)
    if not files:
        print(f"dmlsim validate: {no_models(args.models)}", file=sys.stderr)
        return 2
    statuses = []
    for path in track(files, "validate"):
        with fewer_collections():
            try:
                model = load_model(path, limits=limits)
            except ModelError as exc:
                print(exc, file=sys.stderr)
                statuses.append(2)
                continue
            device = dml.DMLCreateDevice(model.device_flags, adapter="reference")
            result = Runner(model, device, execute=False).run()
        problems = [o for o in result.outcomes.values() if o.status in (FAILED, INVALID)]
        missing = [o for o in result.outcomes.values() if o.status == NOT_IMPLEMENTED and o.key in model.dispatchables]
        print_problems(problems + missing, sys.stderr)
        if not problems and missing:
            names = ", ".join(sorted({model.dispatchables[o.key].op.name for o in missing}))  # type: ignore[union-attr]
            print(f"{path}: descs, bindings and flags valid; not implemented by dmlsim: {names}")
        elif not problems:
            print(f"{path}: ok")
        statuses.append(result.exit_status)
    if several(args, args.models):
        print(summary_line(statuses))
    return worst_exit_status(*statuses)
