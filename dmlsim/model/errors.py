"""Problems found in a model file, each with its place: file, line, column and key path.

A model file is user input, so every problem is reported as ``file:line:column: key.path: message``
(the form compilers use, so editors can jump to it) and never as a traceback. All problems found in
one pass are reported together, like dmlsim's desc validation does.
"""

from __future__ import annotations

from dataclasses import dataclass

from dmlsim.api.errors import E_INVALIDARG, DMLError


@dataclass(frozen=True)
class Location:
    """Where a node of a model file starts (1-based line and column) and its key path."""

    file: str
    line: int
    column: int
    path: str = ""

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}"
        return f"{where}: {self.path}" if self.path else where


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


class Diagnostics:
    """Collects the problems of one file so they can all be reported at once."""

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []

    def add(self, location: Location, message: str) -> None:
        self.items.append(Diagnostic(location, message))

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self) -> None:
        if self.items:
            raise ModelError(self.items)
