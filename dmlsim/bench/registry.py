"""Bench cases: what ``dmlsim bench OPERATOR`` runs, one module per operator in :mod:`dmlsim.bench.cases`.

A case builds one point's workload on a device — a compiled operator with a bound binding table and
the input data — and names the bytes it moves and the peers to compare with. Adding a case is a
module ``dmlsim/bench/cases/<operator>.py`` defining a :class:`BenchCase` subclass decorated with
:func:`register_case`; :func:`discover` finds it (no list names the modules). The cases live with the
bench, not in the operator folders: an operator sits below the bench and ``dmlsim.quick`` in the
layering and imports neither (tests/test_architecture.py).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

CASES_PACKAGE = "dmlsim.bench.cases"

CASES: dict[str, type[BenchCase]] = {}
ELEMENT_SIZES = (1, 2, 4, 8)
ELEMENT_BYTES = {"float16": 2, "float32": 4, "float64": 8}


@dataclass(frozen=True)
class Traffic:
    """A point's unavoidable memory traffic: ``reads`` arrays read and ``writes`` arrays written, each of
    ``elements`` elements of ``element_size`` bytes; ``inplace``: the writes go over the first inputs."""

    reads: int
    writes: int
    element_size: int
    elements: int
    inplace: bool

    @property
    def bytes_moved(self) -> int:
        return (self.reads + self.writes) * self.element_size * self.elements

    def __post_init__(self) -> None:
        if self.reads < 1 or self.writes < 0 or (self.inplace and self.writes > self.reads):
            raise ValueError(f"traffic of {self.reads} read(s) and {self.writes} write(s) "
                             f"{'in place' if self.inplace else 'out of place'} is not a stream")
        if self.element_size not in ELEMENT_SIZES:
            raise ValueError(f"element size {self.element_size}: one of {list(ELEMENT_SIZES)} bytes")


@dataclass
class Workload:
    """One point's prepared dispatch and what the engine needs around it.

    ``compiled``/``table`` are ready to record; ``bytes_moved`` counts every element read and
    written once (the traffic the operator cannot avoid); ``items``/``item_unit`` name a rate worth
    reporting besides GB/s (sparse updates: 65536 "rows" → rows/s); ``traffic`` is the same bytes as
    arrays read and written, which the same-traffic limits replay (None: the case has no such stream, as
    a sparse update, and the point has no limit); ``inplace`` overrides the requested
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
    traffic: Traffic | None = None
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
    arrays: int = 2  # arrays of ``size`` elements a point holds (inputs and outputs): :meth:`footprint`

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        raise NotImplementedError

    def footprint(self, dtype: str, size: int) -> int | None:
        """Bytes of the point's tensors at ``size`` (inputs and outputs once), for the bench to refuse a size the
        machine cannot hold before allocating any of it; None: not counted (a case of fixed shapes)."""
        return self.elements_of(size) * ELEMENT_BYTES.get(dtype, 8) * self.arrays

    def elements_of(self, size: int) -> int:
        """Elements of each of the point's ``arrays`` at ``size``: the size itself unless the case says otherwise."""
        return size


def register_case(cls: type[BenchCase]) -> type[BenchCase]:
    """Class decorator: make a case available to ``dmlsim bench`` under ``cls.name``."""
    CASES[cls.name] = cls
    return cls


def discover() -> dict[str, type[BenchCase]]:
    """Import every module of :mod:`dmlsim.bench.cases` (each registers its cases); the registry."""
    package = importlib.import_module(CASES_PACKAGE)
    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{CASES_PACKAGE}.{info.name}")
    return CASES
