"""The ``dmlsim`` command line (subcommands are added by later modules)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    print("dmlsim: no subcommands yet", file=sys.stderr)
    return 2
