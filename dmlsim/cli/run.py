"""``dmlsim run MODEL``: run a DxDispatch-style model file (JSON or YAML) on one adapter."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

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


def run(args: argparse.Namespace) -> int:
    import dmlsim as dml
    from dmlsim.model import FAILED, INVALID, NOT_CHECKED, NOT_IMPLEMENTED, SKIPPED, ModelError, load_model, run_model

    if args.iterations < 0 or args.warmup < 0:
        print("dmlsim run: -i and -w must not be negative", file=sys.stderr)
        return 2
    try:
        model = load_model(args.model)
    except ModelError as exc:
        print(exc, file=sys.stderr)
        return 2
    flags = model.device_flags | (dml.DML_CREATE_DEVICE_FLAG_DEBUG if args.debug else 0)
    device = dml.DMLCreateDevice(flags, adapter=args.adapter)
    print(f"Running on '{device.adapter.label}'")
    result = run_model(model, device, iterations=args.iterations, warmup=args.warmup,
                       output_dir=args.output_dir, echo=print)
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
