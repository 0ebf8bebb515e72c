"""``dmlsim run MODEL``: run a DxDispatch-style model file (JSON or YAML) on one adapter."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dmlsim.model.limits import Limits

NAME = "run"
HELP = "run a model file (DxDispatch JSON or YAML) and check its expectations"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL", help="a .json, .yaml or .yml model file")
    parser.add_argument("-a", "--adapter",
                        help="adapter: an index or 'P:D' (see `dmlsim devices`), a name matching one device (its "
                             "name, vendor, platform, or cpu/gpu/pocl/intel/oclgrind), or 'reference' (default: "
                             "$DMLSIM_ADAPTER, $PYOPENCL_CTX, else the first GPU, else CPU); 'oclgrind' checks "
                             "every kernel's memory accesses")
    parser.add_argument("-d", "--debug", action="store_true",
                        help="create the device with DML_CREATE_DEVICE_FLAG_DEBUG (execution-time checks)")
    parser.add_argument("-i", "--iterations", type=int, default=0,
                        help="time each dispatch over this many executions (its expectations are then "
                             "reported 'not checked')")
    parser.add_argument("-w", "--warmup", type=int, default=1,
                        help="cold samples left out of the timing median (default 1, as DxDispatch)")
    parser.add_argument("-o", "--output-dir", type=Path, default=None,
                        help="directory for writeFile targets (default: the current directory)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every outcome, not only problems")
    add_limit_arguments(parser)


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """The confinement and budget options ``run`` and ``validate`` share (dmlsim.model.limits)."""
    parser.add_argument("--input_path", "--input-path", action="append", default=[], metavar="DIR",
                        help="a folder sourcePath may also read from (besides the model file's; repeatable)")
    parser.add_argument("--allow-any-path", action="store_true",
                        help="let sourcePath read any regular file, not only inside the model's and --input_path "
                             "folders")
    parser.add_argument("--memory-budget", metavar="SIZE",
                        help="bytes of buffers and values a model may make dmlsim hold, e.g. 4G "
                             "(default: $DMLSIM_MEMORY_BUDGET, else 256M)")


def limits_from(args: argparse.Namespace) -> Limits:
    """The Limits the options ask for; ValueError naming a bad --memory-budget or --input_path."""
    for folder in args.input_path:
        if not Path(folder).is_dir():
            raise ValueError(f"--input_path {folder!r} is not a folder")
    return Limits.from_env(args.memory_budget, args.input_path, args.allow_any_path)


def run(args: argparse.Namespace) -> int:
    import dmlsim as dml
    from dmlsim.model import FAILED, INVALID, NOT_CHECKED, NOT_IMPLEMENTED, SKIPPED, ModelError, load_model, run_model

    if args.iterations < 0 or args.warmup < 0:
        print("dmlsim run: -i and -w must not be negative", file=sys.stderr)
        return 2
    output_dir = args.output_dir or Path.cwd()
    try:
        limits = limits_from(args)
    except ValueError as exc:
        print(f"dmlsim run: {exc}", file=sys.stderr)
        return 2
    if not output_dir.is_dir():
        print(f"dmlsim run: -o {str(output_dir)!r} is not a folder", file=sys.stderr)
        return 2
    try:
        model = load_model(args.model, limits=limits)
    except ModelError as exc:
        print(exc, file=sys.stderr)
        return 2
    flags = model.device_flags | (dml.DML_CREATE_DEVICE_FLAG_DEBUG if args.debug else 0)
    device = dml.DMLCreateDevice(flags, adapter=args.adapter)
    print(f"Running on '{device.adapter.label}'")
    result = run_model(model, device, iterations=args.iterations, warmup=args.warmup,
                       output_dir=output_dir, echo=print)
    bad = (FAILED, INVALID, NOT_IMPLEMENTED)
    shown = [o for o in result.outcomes.values() if args.verbose or o.status in bad]
    for outcome in shown:
        print(outcome.describe(), file=sys.stderr if outcome.status in bad else sys.stdout)
    if not args.verbose:  # -v prints every outcome already; else one line says why some were skipped/not checked
        for status in (SKIPPED, NOT_CHECKED):
            message = next((o.message for o in result.outcomes.values() if o.status == status), None)
            if message:
                print(message)
    counts = {}
    for outcome in result.outcomes.values():
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
    summary = ", ".join(f"{n} {status}" for status, n in counts.items())
    print(f"{model.path}: {summary}")
    return result.exit_status
