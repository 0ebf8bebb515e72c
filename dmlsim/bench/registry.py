"""Bench cases: what ``dmlsim bench OPERATOR`` runs, one ``bench.py`` in each operator's package.

A case builds one point's workload on a device — a compiled operator with a bound binding table and
the input data — and names the bytes it moves and the peers to compare with. Adding a case is a
``bench.py`` module in ``dmlsim/operators/<name>/`` defining a :class:`BenchCase` subclass decorated
with :func:`register_case`; it is found automatically.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dmlsim.operators import load_all

OPERATORS_PACKAGE = "dmlsim.operators"

CASES: dict[str, type[BenchCase]] = {}


@dataclass
class Workload:
    """One point's prepared dispatch and what the engine needs around it.

    ``compiled``/``table`` are ready to record; ``bytes_moved`` counts every element read and
    written once (the traffic the operator cannot avoid); ``items``/``item_unit`` name a rate worth
    reporting besides GB/s (sparse updates: 65536 "rows" → rows/s); ``inplace`` overrides the requested
    layout when the case can only run one way; ``peers`` maps a peer name to a
    zero-argument callable doing the peer's work once on data of the same size (host-timed unless it
    returns its own duration in ns); ``close`` frees what the peers allocated.
    """

    compiled: Any
    table: Any
    bytes_moved: int
    items: int = 0
    item_unit: str = ""
    inplace: bool | None = None  # how the case bound it, when that is not what was asked for
    peers: dict[str, Callable[[], float | None]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    close: Callable[[], None] = lambda: None


class BenchCase:
    """A benchmarkable operator. Subclasses set ``name``/``dtypes`` and implement :meth:`workload`.

    ``default_sizes`` is the sweep when ``--sizes`` is not given; ``size_unit`` says what a size
    counts (elements for most cases; a sparse case counts the rows it updates).
    """

    name: str = ""
    description: str = ""
    dtypes: tuple[str, ...] = ("float32", "float16")
    default_sizes: tuple[int, ...] = (1 << 10, 1 << 16, 1 << 20, 1 << 24)
    size_unit: str = "elements"

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        raise NotImplementedError


def register_case(cls: type[BenchCase]) -> type[BenchCase]:
    """Class decorator: make a case available to ``dmlsim bench`` under ``cls.name``."""
    CASES[cls.name] = cls
    return cls


def discover() -> dict[str, type[BenchCase]]:
    """Import every operator package's ``bench`` module (each registers its cases); the registry."""
    for name in load_all():
        module = f"{OPERATORS_PACKAGE}.{name}.bench"
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module)
    return CASES
