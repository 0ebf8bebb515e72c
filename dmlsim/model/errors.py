"""Problems found in a model file, each with its place: file, line, column and key path.

A model file is user input, so every problem is reported as ``file:line:column: key.path: message``
(the form compilers use, so editors can jump to it) and never as a traceback. All problems found in
one pass are reported together, like dmlsim's desc validation does.
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass
from typing import Any

from dmlsim.api.errors import E_INVALIDARG, DMLError


@dataclass(frozen=True)
class Location:
    """Where a node of a model file starts (1-based line and column) and its key path."""

    file: str
    line: int
    column: int
    path: str = ""
    # where the value is written when it is reached through a YAML alias: ``2:20`` (the location is the use)
    written_at: str = ""

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}"
        if self.path:
            where = f"{where}: {self.path}"
        return f"{where} (written at {self.written_at}, under a YAML anchor)" if self.written_at else where


@dataclass(frozen=True)
class Diagnostic:
    location: Location
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


class ModelError(DMLError):
    """A model file that cannot be loaded or run as written (the CLI's exit status 2)."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = list(diagnostics)
        text = "\n".join(str(d) for d in self.diagnostics)
        super().__init__(E_INVALIDARG, text, [str(d) for d in self.diagnostics])

    def __str__(self) -> str:
        return "\n".join(str(d) for d in self.diagnostics)


MAX_DIAGNOSTICS = 100


class Diagnostics:
    """Collects the problems of one file so they can all be reported at once (the first MAX_DIAGNOSTICS of
    them, then a count: a list of a million wrong values is one mistake, not a million lines)."""

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []
        self.count = 0

    def add(self, location: Location, message: str) -> None:
        self.count += 1
        if len(self.items) < MAX_DIAGNOSTICS:
            self.items.append(Diagnostic(location, message))
        elif len(self.items) == MAX_DIAGNOSTICS:
            self.items.append(Diagnostic(location, f"... more problems (only the first {MAX_DIAGNOSTICS} "
                                                   "are listed)"))

    @property
    def full(self) -> bool:
        """Whether more problems than are listed were found: a loop over a file's values may stop looking."""
        return self.count > MAX_DIAGNOSTICS

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self) -> None:
        if self.items:
            raise ModelError(self.items)


class _ShortRepr(reprlib.Repr):
    """reprlib that also shortens the loader's dict/list subclasses and integers too long for ``repr``."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel, self.maxdict, self.maxlist, self.maxstring, self.maxother, self.maxlong = 2, 4, 4, 60, 60, 40

    def repr1(self, x: Any, level: int) -> str:
        if isinstance(x, bool) or x is None:
            return repr(x)
        if isinstance(x, int) and x.bit_length() > 200:
            return f"<an integer of {int(x.bit_length() * 0.30103) + 1} digits>"
        if isinstance(x, dict):
            return self.repr_dict(x, level)
        if isinstance(x, list):
            return self.repr_list(x, level)
        return super().repr1(x, level)


_SHORT = _ShortRepr()


def show(value: Any) -> str:
    """``repr(value)`` bounded in length and depth: what an error message may quote of a file's value
    (a 500-byte YAML alias bomb has a repr of gigabytes)."""
    return _SHORT.repr(value)
