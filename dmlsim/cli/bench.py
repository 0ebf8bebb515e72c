"""``dmlsim bench``: operator bandwidth against the same-run copy roofline and against peers."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path

NAME = "bench"
HELP = "microbenchmark operators: GB/s vs same-traffic limits (native C and OpenCL) and vs numpy/torch peers"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("operators", nargs="*", metavar="OPERATOR", help="bench cases to run (default: adam)")
    parser.add_argument("--adapter",
                        help="adapter (as `dmlsim run -a`; default: $DMLSIM_ADAPTER, $PYOPENCL_CTX, GPU, CPU)")
    parser.add_argument("--sizes", help="sizes to sweep (elements; a sparse case counts rows), K/M/G = 2^10/2^20/2^30 "
                                         "(default: each case's own sweep, see --list)")
    parser.add_argument("--dtype", default="float32,float16", help="data types (default float32,float16)")
    parser.add_argument("--inplace", action=argparse.BooleanOptionalAction, default=True,
                        help="bind outputs to their inputs' buffers (default: in place)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed runs after the cold run (default 2)")
    parser.add_argument("--settle", type=int, default=1,
                        help="untimed calls of a contestant right before each of its timed calls, so that none is "
                             "timed in the state another left (a spinning thread pool, evicted caches; default 1)")
    parser.add_argument("--settle-ms", type=float, default=5.0,
                        help="and at least this many milliseconds of them (default 5; --settle 0: none at all)")
    parser.add_argument("--min-time", type=float, default=0.5,
                        help="seconds of alternating timed rounds per point, at least 5 rounds (default 0.5)")
    parser.add_argument("--peers", default="numpy,torch,native,onnxruntime",
                        help="peers to time alongside (numpy, torch, native: the case's own step in C, onnxruntime: "
                             "a model case's whole model on its CPU provider; 'none')")
    parser.add_argument("--no-overhead", action="store_true", help="skip the 1-element dispatch-overhead measure")
    parser.add_argument("--no-native", action="store_true",
                        help="skip the native (C, OpenMP) same-traffic limit, which is built with $CC/cc/gcc")
    parser.add_argument("--list", action="store_true", help="list the bench cases and exit")
    parser.add_argument("--json", metavar="FILE", help="write the full run as JSON")
    parser.add_argument("--csv", metavar="FILE", help="write one row per point as CSV")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="plot GB/s vs size, device and host time apart, with the rooflines (dmlsim[plot])")


def unwritable(option: str, path: str | None) -> str | None:
    """Why ``path`` cannot be written (checked before measuring, which takes minutes), or None.

    A probe opens it for appending, so an existing file is left as it is, and removes it if it created it.
    """
    if path is None:
        return None
    target = Path(path)
    existed = os.path.lexists(target)
    if existed and not target.is_file():
        return f"{option} {path!r}: not a regular file"
    try:
        with open(target, "ab"):
            pass
    except OSError as exc:
        return f"{option} {path!r}: cannot be written ({exc.strerror or exc})"
    if not existed:
        target.unlink()
    return None


def quiet_blas_restart() -> None:
    """Run this command again with OpenBLAS's threads sleeping at once after each call
    (:data:`dmlsim.bench.engine.BLAS_SPIN`): it only takes effect in a process that sets it before numpy loads.
    Only a `dmlsim bench` process restarts (not a caller of this module's ``run``, a test), and only once: a setting
    of the user's is kept."""
    from dmlsim.bench.engine import BLAS_SPIN, BLAS_SPIN_QUIET

    command = sys.argv[0].replace("\\", "/")
    own = command.endswith("/dmlsim") or command == "dmlsim" or command.endswith("dmlsim/__main__.py")
    if BLAS_SPIN in os.environ or sys.argv[1:2] != [NAME] or not own:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-m", "dmlsim", *sys.argv[1:]],  # noqa: S606 (this same command)
              {**os.environ, BLAS_SPIN: BLAS_SPIN_QUIET})


def run(args: argparse.Namespace) -> int:
    from dmlsim.bench.engine import BenchConfig, run_bench
    from dmlsim.bench.peers import parse_peers
    from dmlsim.bench.plot import write_plot
    from dmlsim.bench.registry import discover
    from dmlsim.bench.report import Progress, parse_size, size_label, table, write_csv, write_json

    cases = discover()
    if args.list:
        for name in sorted(cases):
            case = cases[name]
            sizes = ",".join(size_label(n) for n in case.default_sizes)
            print(f"{name:21} {case.description}\n{'':21} dtypes {', '.join(case.dtypes)}; "
                  f"default sizes {sizes} ({case.size_unit})")
        return 0
    try:
        sizes = None if args.sizes is None else tuple(parse_size(s) for s in args.sizes.split(",") if s.strip())
    except ValueError as exc:
        reason = str(exc) if "positive" in str(exc) else "not a whole number of elements"
        print(f"dmlsim bench: --sizes {args.sizes!r}: {reason} (e.g. 1000, 64K, 16M: K/M/G = 2^10/2^20/2^30)",
              file=sys.stderr)
        return 2
    try:
        peers = parse_peers(args.peers)
    except ValueError as exc:
        print(f"dmlsim bench: --peers: {exc}", file=sys.stderr)
        return 2
    dtypes = tuple(d.strip().lower() for d in args.dtype.split(",") if d.strip())
    chosen = [cases[name] for name in args.operators or ["adam"] if name in cases] or list(cases.values())
    known_dtypes = {d for case in chosen for d in case.dtypes}
    bad = [d for d in dtypes if d not in known_dtypes]
    problem = None
    if sizes == ():
        problem = "--sizes: give at least one size"
    elif not dtypes or bad:
        names = ", ".join(case.name for case in chosen)
        problem = (f"--dtype: {', '.join(bad) or 'nothing given'}: not a data type of {names} "
                   f"(they take {', '.join(sorted(known_dtypes))})")
    elif min(args.warmup, args.min_time, args.settle, args.settle_ms) < 0:
        problem = "--warmup, --settle, --settle-ms and --min-time must not be negative"
    else:
        problem = next((p for option in ("json", "csv", "plot")
                        if (p := unwritable(f"--{option}", getattr(args, option))) is not None), None)
        if args.plot and problem is None and importlib.util.find_spec("matplotlib") is None:
            problem = "--plot needs matplotlib: pip install 'dmlsim[plot]'"
    if problem:
        print(f"dmlsim bench: {problem}", file=sys.stderr)
        return 2
    quiet_blas_restart()
    config = BenchConfig(operators=tuple(args.operators) or ("adam",), adapter=args.adapter, sizes=sizes,
                         dtypes=dtypes, inplace=args.inplace, warmup=args.warmup, min_time=args.min_time,
                         settle=args.settle, settle_time=args.settle_ms / 1000, peers=peers,
                         overhead=not args.no_overhead, native=not args.no_native)
    result = run_bench(config, progress=Progress())
    print(table(result))
    if args.json:
        write_json(result, args.json)
    if args.csv:
        write_csv(result, args.csv)
    if args.plot:
        try:
            write_plot(result, args.plot)
        except RuntimeError as exc:
            print(f"dmlsim bench: {exc}", file=sys.stderr)
            return 2
    return 1 if any(p.error for p in result.points) else 0
