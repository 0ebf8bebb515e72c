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
        command.set_defaults(handler=module.run, subparser=command)
    return parser


def unknown_options(parser: argparse.ArgumentParser, extras: list[str]) -> str:
    """``unrecognized arguments: --adpater (did you mean --adapter?)``: what a subcommand did not take, with the
    closest of its own options for each misspelt one."""
    import difflib

    known = [o for action in parser._actions for o in action.option_strings]  # argparse keeps its options here
    words = []
    for extra in extras:
        close = difflib.get_close_matches(extra.split("=", 1)[0], known, n=1) if extra.startswith("-") else []
        words.append(f"{extra} (did you mean {close[0]}?)" if close else extra)
    return f"unrecognized arguments: {' '.join(words)}"


def plain(exc: DMLError) -> str:
    """A DMLError's message without its HRESULT prefix (``E_INVALIDARG (0x80070057): ``): on a command line the
    code means nothing; API callers still get it."""
    prefix = f"{exc.hresult_name} (0x{exc.hresult:08X}): "
    text = str(exc)
    return text[len(prefix):] if text.startswith(prefix) else text


def dmlsim_version() -> str:
    """The installed distribution's version (no import of the top-level package needed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dmlsim")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree without an install
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extras = parser.parse_known_args(argv)
    if getattr(args, "handler", None) is None:
        if extras:
            parser.error(unknown_options(parser, extras))
        parser.print_help()
        return 2
    if extras:  # the subcommand's usage and error, not the top-level one argparse would print
        args.subparser.error(unknown_options(args.subparser, extras))
    try:
        return int(args.handler(args) or 0)
    except DMLError as exc:
        print(f"dmlsim {args.command}: {plain(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly, as Unix tools do
        sys.stderr.close()
        return 141


if __name__ == "__main__":
    sys.exit(main())
