"""``dmlsim run MODEL...``: run DxDispatch-style model files (JSON or YAML) with DxDispatch's options; an ``.onnx``
file is lowered onto DirectML and run by :mod:`dmlsim.onnx.cli_run`."""

from __future__ import annotations

import argparse
import contextlib
import gc
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from dmlsim.model.limits import Limits

if TYPE_CHECKING:
    from dmlsim.model.runner import Outcome

NAME = "run"
HELP = "run a model file (DxDispatch JSON or YAML, or an ONNX model) and check its expectations"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """DxDispatch's options (same letters, long names and meanings) plus dmlsim's own (docs/guides/dxdispatch.md:
    "dmlsim run and DxDispatch's command line")."""
    parser.add_argument("models", metavar="MODEL", nargs="*",
                        help=".json, .yaml or .yml model files, or folders of them (searched recursively)")
    parser.add_argument("-m", "--model", action="append", default=[], dest="model_flags", metavar="MODEL",
                        help="a model file (DxDispatch's spelling of the positional MODEL; repeatable)")
    parser.add_argument("-a", "--adapter",
                        help="adapter: an index or 'P:D' (see `dmlsim devices`), a name matching one device (its "
                             "name, vendor, platform, or cpu/gpu/pocl/intel/oclgrind), or 'reference' (default: "
                             "$DMLSIM_ADAPTER, $PYOPENCL_CTX, else the first GPU, else CPU); 'oclgrind' checks "
                             "every kernel's memory accesses")
    parser.add_argument("-s", "--show_adapters", action="store_true",
                        help="list the adapters (as `dmlsim devices`) and exit")
    parser.add_argument("-d", "--debug", action="store_true",
                        help="create the device with DML_CREATE_DEVICE_FLAG_DEBUG (execution-time checks)")
    parser.add_argument("-i", "--dispatch_iterations", "--iterations", dest="iterations", type=int, default=1,
                        help="execute and time each dispatch this many times (default 1); above 1 its "
                             "expectations are reported 'not checked'")
    parser.add_argument("-t", "--milliseconds_to_run", dest="milliseconds", type=int, default=None, metavar="MS",
                        help="execute each dispatch repeatedly for this long instead (overrides -i)")
    parser.add_argument("-w", "--warmup_samples", "--warmup", dest="warmup", type=int, default=1,
                        help="at most this many cold samples left out of the timing statistics (default 1)")
    parser.add_argument("-v", "--timing_verbosity", type=int, default=0, metavar="LEVEL",
                        help="0: a median line per dispatch, 1: cold and hot statistics, 2 (or more): also every "
                             "iteration")
    parser.add_argument("--output_path", "--output-dir", dest="output_dir", type=Path, default=None, metavar="DIR",
                        help="the folder writeFile targets go under, created if missing (default: the current "
                             "directory)")
    parser.add_argument("-o", "--pix_capture_name", metavar="NAME",
                        help="DxDispatch's PIX capture name: accepted and ignored (dmlsim takes no captures; "
                             "before DxDispatch's flags, -o was the output folder, now --output_path)")
    parser.add_argument("--verbose", action="store_true", help="print every outcome, not only problems")
    add_limit_arguments(parser)
    from dmlsim.onnx.cli_run import add_arguments as add_onnx_arguments

    add_onnx_arguments(parser)


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """The confinement and budget options ``run`` and ``validate`` share (dmlsim.model.limits)."""
    parser.add_argument("--input_path", "--input-path", action="append", default=[], metavar="DIR",
                        help="a folder sourcePath may also read from (besides the model file's; repeatable)")
    parser.add_argument("--allow-any-path", action="store_true",
                        help="let sourcePath read any regular file, not only inside the model's and --input_path "
                             "folders")
    parser.add_argument("--memory-budget", metavar="SIZE",
                        help="bytes of buffers, resources and values a model may make dmlsim hold, e.g. 4G "
                             "(default: $DMLSIM_MEMORY_BUDGET, else 256M)")
    parser.add_argument("--compute-budget", metavar="WORK",
                        help="work units a model's commands may take, estimated from its descs before anything "
                             "runs (about a nanosecond each on a 2-core CPU), e.g. 64G (default: "
                             "$DMLSIM_COMPUTE_BUDGET, else 8G)")


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect garbage less often while one model is loaded and checked: a file of ten thousand operators
    makes a million long-lived objects, and the collector's default rhythm spends a third of the time
    walking them again and again. The previous thresholds come back afterwards."""
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], 50_000), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def limits_from(args: argparse.Namespace) -> Limits:
    """The Limits the options ask for; ValueError naming a bad --memory-budget or --input_path."""
    for folder in args.input_path:
        if not Path(folder).is_dir():
            raise ValueError(f"--input_path {folder!r} is not a folder")
    return Limits.from_env(args.memory_budget, args.input_path, args.allow_any_path, args.compute_budget)


STATUS_WORDS = {0: "ok", 1: "failed", 2: "invalid", 3: "not implemented"}
_LOCATED_LINE = re.compile(r"^\S.*:\d+:\d+: ")
_LEFT_OUT = re.compile(r"^\.\.\. (\d+) more problems? \(")


def print_problems(outcomes: Iterable[Outcome], file: TextIO) -> None:
    """Print the outcomes, listing at most MAX_DIAGNOSTICS problems of the file in all, then how many more
    there are (the model-files guide's promise: ten thousand broken dispatchables are not ten thousand lines). A located
    line of an outcome's message is one problem; an outcome whose message has none is one."""
    from dmlsim.model.errors import MAX_DIAGNOSTICS
    from dmlsim.model.runner import more_problems

    allowance, hidden = MAX_DIAGNOSTICS, 0
    for outcome in outcomes:
        head, *rest = outcome.describe().split("\n")
        located = [_LOCATED_LINE.match(line) is not None for line in rest]
        left_out = sum(int(m.group(1)) for line in rest if (m := _LEFT_OUT.match(line)))
        if allowance <= 0:
            hidden += max(1, sum(located)) + left_out
            continue
        lines = [head]
        allowance -= not any(located)
        for line, is_located in zip(rest, located, strict=True):
            if _LEFT_OUT.match(line):
                continue
            if is_located:
                if allowance <= 0:
                    hidden += 1
                    continue
                allowance -= 1
            lines.append(line)
        hidden += left_out
        print("\n".join(lines), file=file)
    if hidden:
        print(more_problems(hidden), file=file)


def summary_line(statuses: list[int]) -> str:
    """``3 model files: 2 ok, 1 invalid``: the last line of ``run``/``validate`` over several files."""
    counts: dict[str, int] = {}
    for status in statuses:
        word = STATUS_WORDS.get(status, "invalid")
        counts[word] = counts.get(word, 0) + 1
    listed = ", ".join(f"{n} {word}" for word, n in counts.items())
    return f"{len(statuses)} model file{'s' * (len(statuses) != 1)}: {listed}"


def no_models(paths: list[str]) -> str:
    """Why nothing runs: the folders named hold no model file."""
    return f"no .json, .yaml or .yml model file in {', '.join(map(repr, paths))}"


def several(args: argparse.Namespace, paths: list[str]) -> bool:
    """Whether a summary line ends the output: several files, or a folder, were named."""
    return len(paths) > 1 or any(Path(p).is_dir() for p in paths)


def run(args: argparse.Namespace) -> int:
    from dmlsim.cli import devices
    from dmlsim.model import worst_exit_status
    from dmlsim.model.corpus import model_files
    from dmlsim.progress import track

    if args.show_adapters:
        return devices.run(argparse.Namespace(probe=False, json=False))
    problem = None
    if args.iterations < 1:
        problem = "-i/--dispatch_iterations must be at least 1"
    elif min(args.warmup, args.timing_verbosity, args.milliseconds or 0) < 0:
        problem = "-w, -t and -v must not be negative"
    elif args.output_dir is not None and not args.output_dir.is_dir():
        try:  # created, parents too, as DxDispatch creates the folders it writes into
            args.output_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            problem = f"--output_path {str(args.output_dir)!r} is not a folder and cannot be made one " \
                      f"({exc.strerror or exc})"
    paths = [*args.model_flags, *args.models]
    if problem is None and not paths:
        problem = "no model file given (MODEL or -m MODEL)"
    try:
        limits = limits_from(args) if problem is None else None
    except ValueError as exc:
        problem = str(exc)
    if problem is not None or limits is None:
        print(f"dmlsim run: {problem}", file=sys.stderr)
        return 2
    if args.pix_capture_name is not None:
        print(f"dmlsim run: note: -o {args.pix_capture_name!r} is DxDispatch's PIX capture name; dmlsim takes no "
              "captures (writeFile targets go under --output_path)", file=sys.stderr)
    files = model_files(paths)
    if not files:
        print(f"dmlsim run: {no_models(paths)}", file=sys.stderr)
        return 2
    statuses = []
    for path in track(files, "run"):
        with fewer_collections():
            statuses.append(run_one(args, path, limits))
    if several(args, paths):
        print(summary_line(statuses))
    return worst_exit_status(*statuses)


def run_one(args: argparse.Namespace, path: Path, limits: Limits) -> int:
    """Run one model file and print its outcomes; its exit status."""
    import dmlsim as dml
    from dmlsim.model import FAILED, INVALID, NOT_CHECKED, NOT_IMPLEMENTED, SKIPPED, ModelError, load_model, run_model

    if path.suffix.lower() == ".onnx":  # an ONNX model: lowered onto DirectML (dmlsim.onnx.cli_run)
        from dmlsim.onnx.cli_run import run_onnx

        return run_onnx(args, path)
    try:
        model = load_model(path, limits=limits)
    except ModelError as exc:
        print(exc, file=sys.stderr)
        return 2
    flags = model.device_flags | (dml.DML_CREATE_DEVICE_FLAG_DEBUG if args.debug else 0)
    device = dml.DMLCreateDevice(flags, adapter=args.adapter)
    print(f"Running on '{device.adapter.label}'")
    result = run_model(model, device, iterations=args.iterations, warmup=args.warmup,
                       milliseconds=args.milliseconds, timing_verbosity=args.timing_verbosity,
                       output_dir=args.output_dir or Path.cwd(), echo=print)
    bad = (FAILED, INVALID, NOT_IMPLEMENTED)
    if args.verbose:
        for outcome in result.outcomes.values():
            if outcome.status not in bad:
                print(outcome.describe())
    print_problems((o for o in result.outcomes.values() if o.status in bad), sys.stderr)
    if not args.verbose:  # --verbose prints every outcome already; else one line says why some were not checked
        for status in (SKIPPED, NOT_CHECKED):
            message = next((o.message for o in result.outcomes.values() if o.status == status), None)
            if message:
                print(message)
    counts: dict[str, int] = {}
    for outcome in result.outcomes.values():
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
    summary = ", ".join(f"{n} {status}" for status, n in counts.items())
    print(f"{model.path}: {summary}")
    return result.exit_status
