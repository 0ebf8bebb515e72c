"""Progress bars for long command-line work (``run``/``validate`` of a folder, ``export``, a bench sweep).

tqdm draws them, on stderr, and only when stderr is a terminal: piped or redirected output (CI logs, a
``--json`` listing, ``2>file``) gets no bar and no carriage returns, and stdout, where results and
machine-readable output go, never gets any. tqdm rather than rich: one small pure-Python package whose
``disable`` switch is exactly this rule, where rich would bring a console layer dmlsim does not otherwise use.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
MIN_ITEMS = 2  # one file needs no bar


def stderr_is_terminal() -> bool:
    """Whether bars may be drawn: stderr is a TTY (and exists)."""
    stream = sys.stderr
    return stream is not None and hasattr(stream, "isatty") and stream.isatty()


def track(items: Iterable[T], what: str, total: int | None = None) -> Iterator[T]:
    """``items`` with a bar labelled ``what`` on a terminal (when there are at least two), else as they are."""
    count = total if total is not None else (len(items) if hasattr(items, "__len__") else None)  # type: ignore[arg-type]
    if not stderr_is_terminal() or (count is not None and count < MIN_ITEMS):
        yield from items
        return
    try:
        from tqdm import tqdm
    except ImportError:  # a venv without dmlsim's dependencies complete: no bar, nothing lost
        yield from items
        return
    yield from tqdm(items, desc=what, total=count, file=sys.stderr, leave=False, unit="file",
                    dynamic_ncols=True)
