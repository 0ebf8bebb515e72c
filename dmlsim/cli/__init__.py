"""The ``dmlsim`` command line. Each subcommand is a module of this package exposing
``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``; they are found automatically.

Exit status convention: 0 success, 1 a check/expectation failed, 2 bad input (arguments, files, descs).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import pkgutil
import sys

from dmlsim.api.errors import DMLError


@functools.cache
def build_parser() -> argparse.ArgumentParser:
    """The parser of every subcommand (built once per process: parsing does not change it)."""
    parser = argparse.ArgumentParser(prog="dmlsim", description="DirectML-style operator emulator on OpenCL")
    parser.add_argument("--version", action="version", version=f"dmlsim {dmlsim_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        command = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(handler=module.run)
    return parser


def dmlsim_version() -> str:
    """The installed distribution's version (no import of the top-level package needed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dmlsim")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree without an install
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except DMLError as exc:
        print(f"dmlsim {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly, as Unix tools do
        sys.stderr.close()
        return 141


if __name__ == "__main__":
    sys.exit(main())
