"""What a model file may make dmlsim read, write and hold: folders it may touch and a memory budget.

A model file is untrusted input: a few bytes can name ``/dev/zero`` or ask for a petabyte buffer.
Everything a file implies is checked against these limits while it is parsed, before anything is
allocated or read, and reported at its file:line:column like any other problem.

- ``budget``: bytes of model data a file may make dmlsim hold (its buffers, expected values, reference
  snapshots, and the persistent and temporary resources of its operators, OWNED_BY_DML inputs included);
  default 256 MiB, raised with ``--memory-budget`` or ``$DMLSIM_MEMORY_BUDGET`` (``4G``, ``512M``).
- ``input_dirs``: folders ``sourcePath`` may read from besides the model file's own (``--input_path``);
  ``allow_any_path`` lifts that confinement (``--allow-any-path``). Only regular files are read.
- The tree a YAML file expands to (aliases included) and its nesting are bounded too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

BUDGET_ENV = "DMLSIM_MEMORY_BUDGET"
DEFAULT_BUDGET = 256 << 20
COMPUTE_ENV = "DMLSIM_COMPUTE_BUDGET"
# work units a model's commands may take (dmlsim.model.runner: about a nanosecond each of the slowest device on
# a 2-core CPU): a model at the budget ran in 9 s or less on every device measured (docs/guides/untrusted-files.md)
DEFAULT_COMPUTE = 8 << 30
MAX_DEPTH = 64  # nesting of a model file; DxDispatch's own files nest 6 deep
MAX_NODES = 2_000_000  # values of the tree once aliases are expanded
_UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_bytes(text: str, what: str = "size in bytes") -> int:
    """``"512M"`` → 536870912, ``"4G"``, ``"1000"`` (binary units); ValueError when not a positive ``what``."""
    cleaned = text.strip().upper().removesuffix("B").removesuffix("I")
    scale = _UNITS.get(cleaned[-1:], 1)
    number = cleaned[:-1] if scale > 1 else cleaned
    if not number.isdigit() or len(number) > 20 or int(number) * scale <= 0:
        raise ValueError(f"{text[:40]!r} is not a positive {what} (e.g. 512M, 4G)")
    return int(number) * scale


@dataclass(frozen=True)
class Limits:
    """The confinement and budget one model file is loaded and run under."""

    budget: int = DEFAULT_BUDGET
    input_dirs: tuple[Path, ...] = ()
    allow_any_path: bool = False
    max_depth: int = MAX_DEPTH
    max_nodes: int = MAX_NODES
    compute: int = DEFAULT_COMPUTE  # work units a run may take (dmlsim.model.runner's compute check)

    @classmethod
    def from_env(cls, budget: str | None = None, input_dirs: list[str] | tuple[str, ...] = (),
                 allow_any_path: bool = False, compute: str | None = None) -> Limits:
        """Limits from command-line values, the budgets falling back on ``$DMLSIM_MEMORY_BUDGET`` and
        ``$DMLSIM_COMPUTE_BUDGET``; ValueError names the bad value."""
        size = _from_env(budget, "--memory-budget", BUDGET_ENV, DEFAULT_BUDGET, "size in bytes")
        work = _from_env(compute, "--compute-budget", COMPUTE_ENV, DEFAULT_COMPUTE, "number of work units")
        return cls(size, tuple(Path(d) for d in input_dirs), allow_any_path, compute=work)


def _from_env(given: str | None, option: str, variable: str, default: int, what: str) -> int:
    text = given if given is not None else os.environ.get(variable)
    try:
        return default if text is None or not text.strip() else parse_bytes(text, what)
    except ValueError as exc:
        raise ValueError(f"{option if given is not None else '$' + variable}: {exc}") from None


def describe_bytes(size: int) -> str:
    """``268435456`` → ``256 MiB`` (for messages about sizes and budgets; any size, however large)."""
    if size >= 1 << 50:
        return f"about 2^{size.bit_length() - 1} bytes"
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.4g} {unit}"
    return f"{size} bytes"


def describe_work(units: int) -> str:
    """``17179869184`` → ``1.7e+10`` (work estimates, however large: a hostile desc's may have 40 digits)."""
    if units < 100_000:
        return f"{units:,}"
    return f"{float(units):.2g}" if units < 10**300 else f"about 2^{units.bit_length()}"


class Budget:
    """Bytes charged so far against ``Limits.budget``: while one file is parsed (its buffers and expected
    values), then by each run of it (the persistent and temporary resources its operators ask for)."""

    def __init__(self, limits: Limits, used: int = 0) -> None:
        self.limit = limits.budget
        self.used = used

    def refusal(self, size: int, what: str) -> str | None:
        """Charge ``size`` bytes for ``what``; the reason it does not fit (nothing is charged then), else None."""
        if size > self.limit - self.used:
            left = f" ({describe_bytes(self.limit - self.used)} left)" if self.used else ""
            return (f"{what} needs {describe_bytes(size)}, over the memory budget of "
                    f"{describe_bytes(self.limit)}{left}; raise it with --memory-budget or ${BUDGET_ENV}")
        self.used += size
        return None
