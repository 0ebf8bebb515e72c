"""Kernel sources from ``cl_kernels/`` and a per-context program cache.

Each operator's kernels live in ``cl_kernels/<stem>.cl``; ``#include "name.h"`` lines naming a file of
that folder are inlined here (so the build needs no include path and pyopencl's binary cache sees
every byte that goes into a build). Build variants are chosen with ``-D`` defines.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from pathlib import Path
from typing import Any

from dmlsim.errors import E_FAIL, DMLError
from dmlsim.opencl.errors import import_pyopencl

_INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_.-]+)"\s*$', re.MULTILINE)


def kernel_dir() -> Path:
    """The folder holding the .cl files (the repo's ``cl_kernels/``, installed as ``dmlsim.cl_kernels``)."""
    return Path(str(resources.files("dmlsim.cl_kernels")))


@functools.cache
def kernel_source(stem: str) -> str:
    """The full source of ``cl_kernels/<stem>.cl`` with local includes inlined (each at most once)."""
    folder = kernel_dir()
    path = folder / f"{stem}.cl"
    if not path.is_file():
        raise DMLError(E_FAIL, f"kernel source {stem}.cl not found in the dmlsim.cl_kernels package")
    seen: set[str] = set()

    def expand(text: str) -> str:
        def include(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in seen:
                return ""
            seen.add(name)
            return expand((folder / name).read_text())
        return _INCLUDE.sub(include, text)

    return expand(path.read_text())


def build_options(defines: dict[str, Any]) -> list[str]:
    """``-D`` options for a define dict: True → ``-DNAME``, False/None → omitted, else ``-DNAME=value``."""
    options = []
    for name, value in sorted(defines.items()):
        if value is True:
            options.append(f"-D{name}")
        elif value is not False and value is not None:
            options.append(f"-D{name}={value}")
    return options


class ProgramCache:
    """Built programs of one OpenCL context, keyed by (kernel file, options)."""

    def __init__(self, context: Any, device: Any) -> None:
        self.context = context
        self.device = device
        self._programs: dict[tuple[str, tuple[str, ...]], Any] = {}

    def program(self, stem: str, defines: dict[str, Any]) -> Any:
        options = (*build_options(defines), "-cl-std=CL1.2")
        key = (stem, options)
        program = self._programs.get(key)
        if program is None:
            program = self._build(stem, list(options))
            self._programs[key] = program
        return program

    def _build(self, stem: str, options: list[str]) -> Any:
        cl = import_pyopencl()
        source = kernel_source(stem)
        try:
            return cl.Program(self.context, source).build(options=options, devices=[self.device])
        except cl.Error as exc:
            log = str(exc)
            hint = ""
            if "unknown target CPU" in log and _several_pocl_platforms(cl):
                hint = ("\nhint: two PoCL builds are loaded in this process and they conflict; choose one "
                        "ICD with OCL_ICD_VENDORS=<path to its .icd file> (see `dmlsim devices`)")
            raise DMLError(E_FAIL, f"building cl_kernels/{stem}.cl for {self.device.name.strip()!r} "
                                   f"failed\noptions: {' '.join(options)}\nbuild log:\n{log}{hint}") from None


def _several_pocl_platforms(cl: Any) -> bool:
    try:
        return sum("pocl" in p.version.lower() for p in cl.get_platforms()) > 1
    except cl.Error:  # pragma: no cover
        return False
