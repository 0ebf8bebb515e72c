"""Kernel sources and a per-context program cache.

An operator's kernels live beside it (``dmlsim/operators/<name>/kernel.cl``, package data); a
:class:`~dmlsim.operators.plan.KernelSource` names the package and file. ``#include "name.h"`` lines
naming a shared header of the package ``dmlsim.cl_kernels`` are inlined here, so
the build needs no include path and pyopencl's binary cache sees every byte that goes into a build.
Build variants are chosen with ``-D`` defines.

Every program is built with ``-cl-kernel-arg-info``. :meth:`ProgramCache.kernel` compares each launched
kernel's parameter names (:mod:`.signatures`) with the names the launch plan declares
(:attr:`~dmlsim.operators.plan.KernelLaunch.params`): a plan whose arguments would land on the wrong
parameters fails there with a :class:`~dmlsim.operators.plan.KernelSignatureError` naming the kernel, the
position and both names. The names are found once per program and entry point and kept; the comparison
runs when a dispatch is prepared (once per binding-table state), so a dispatch pays nothing for it. A
driver that gives no names even for a source build is not checked, with one warning per device and process.
"""

from __future__ import annotations

import functools
import re
import warnings
from importlib import resources
from pathlib import Path
from typing import Any

from dmlsim.api.errors import E_FAIL, DMLError
from dmlsim.backends.opencl import signatures
from dmlsim.backends.opencl.errors import import_pyopencl, quiet_compiler
from dmlsim.backends.opencl.signatures import ARG_INFO_OPTION
from dmlsim.operators.plan import KernelSignatureError, KernelSource, signature_mismatch

SHARED_PACKAGE = "dmlsim.cl_kernels"
# Devices whose missing kernel parameter names were warned about in this process (one warning each).
UNCHECKED_DEVICES: set[str] = set()
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_.-]+)"\s*$', re.MULTILINE)


def kernel_dir() -> Path:
    """The folder holding the .cl files (the package ``dmlsim.cl_kernels``)."""
    return Path(str(resources.files(SHARED_PACKAGE)))


def source_label(source: KernelSource) -> str:
    """How a kernel file is named in messages: ``dmlsim/operators/adam_optimizer/kernel.cl``."""
    return f"{source.package.replace('.', '/')}/{source.filename}"


@functools.cache
def kernel_source(source: KernelSource) -> str:
    """The full source of a kernel file with shared ``dmlsim/cl_kernels/`` includes inlined (each at most once)."""
    return "".join(text for text, _origin in _expanded(source))


def source_origin(source: KernelSource, line: int) -> tuple[str, int]:
    """Which file and line the line ``line`` (1-based) of :func:`kernel_source` comes from:
    ``("dmlsim/cl_kernels/common.h", 12)``. Diagnostics name a line of the inlined source; users want this."""
    lines = _expanded(source)
    if not 1 <= line <= len(lines):
        return source_label(source), line
    return lines[line - 1][1]


@functools.cache
def _expanded(source: KernelSource) -> tuple[tuple[str, tuple[str, int]], ...]:
    """Each line of the inlined source with its origin (file label, line number)."""
    folder = kernel_dir()
    path = Path(str(resources.files(source.package))) / source.filename
    if not path.is_file():
        raise DMLError(E_FAIL, f"kernel source {source_label(source)} not found")
    seen: set[str] = set()

    def expand(text: str, label: str) -> list[tuple[str, tuple[str, int]]]:
        out: list[tuple[str, tuple[str, int]]] = []
        for number, line in enumerate(text.splitlines(keepends=True), start=1):
            match = _INCLUDE.fullmatch(line.rstrip("\r\n"))
            if match is None:
                out.append((line, (label, number)))
            elif match.group(1) not in seen:
                seen.add(match.group(1))
                header = KernelSource(SHARED_PACKAGE, match.group(1))
                included = expand((folder / match.group(1)).read_text(), source_label(header))
                if included and not included[-1][0].endswith("\n"):
                    included[-1] = (included[-1][0] + "\n", included[-1][1])
                out += included
        return out

    return tuple(expand(path.read_text(), source_label(source)))


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
    """Built programs of one OpenCL context, keyed by (kernel file, options), and the parameter names of
    their launched kernels."""

    def __init__(self, context: Any, device: Any, extra_options: tuple[str, ...] = ()) -> None:
        self.context = context
        self.device = device
        self.extra_options = extra_options  # a backend's own, e.g. Oclgrind's -cl-opt-disable
        self._programs: dict[tuple[KernelSource, tuple[str, ...]], Any] = {}
        # (program key, entry point) -> the kernel's parameter names, None where the driver gives none
        self._parameters: dict[tuple[tuple[KernelSource, tuple[str, ...]], str], tuple[str, ...] | None] = {}
        # True once a kernel said its names, False when even a source build gives none (then no more are tried)
        self.checks_parameter_names: bool | None = None

    def program(self, source: KernelSource, defines: dict[str, Any]) -> Any:
        """The built program of ``source`` with these defines (built on first use)."""
        return self._program(self._key(source, defines))

    def kernel(self, source: KernelSource, defines: dict[str, Any], entry: str, params: tuple[str, ...]) -> Any:
        """A new ``cl.Kernel`` for ``entry`` of the built program, whose parameters must be named ``params`` in
        this order (:class:`~dmlsim.operators.plan.KernelSignatureError` otherwise)."""
        cl = import_pyopencl()
        key = self._key(source, defines)
        kernel = cl.Kernel(self._program(key), entry)
        if (key, entry) not in self._parameters:
            self._parameters[key, entry] = self._parameter_names(key, entry, kernel)
        actual = self._parameters[key, entry]
        if actual is not None and actual != params:
            problem = signature_mismatch(params, actual)
            raise KernelSignatureError(
                f"kernel {entry} of {source_label(source)} (options: {' '.join(key[1])}): {problem}\n"
                f"declared: {', '.join(params)}\nkernel:   {', '.join(actual)}\n"
                "(a dmlsim bug: the operator's plan_launches and its kernel disagree)")
        return kernel

    def _key(self, source: KernelSource, defines: dict[str, Any]) -> tuple[KernelSource, tuple[str, ...]]:
        return source, (*build_options(defines), "-cl-std=CL1.2", ARG_INFO_OPTION, *self.extra_options)

    def _program(self, key: tuple[KernelSource, tuple[str, ...]]) -> Any:
        program = self._programs.get(key)
        if program is None:
            program = self._build(key[0], list(key[1]))
            self._programs[key] = program
        return program

    def _parameter_names(self, key: tuple[KernelSource, tuple[str, ...]], entry: str,
                         kernel: Any) -> tuple[str, ...] | None:
        """The kernel's parameter names: its own answer, else a source build's (:mod:`.signatures`: Intel's
        runtime keeps no names in programs from pyopencl's binary cache); None, with one warning per device,
        where the driver gives none at all."""
        names = signatures.answered_names(kernel)
        if names is None and self.checks_parameter_names is not False:
            text = kernel_source(key[0])
            names = signatures.source_build_names(self.context, self.device, text, key[1]).get(entry)
            if names is not None and len(names) != kernel.num_args:  # a damaged file: ask a build again
                names = signatures.source_build_names(self.context, self.device, text, key[1], fresh=True).get(entry)
        self.checks_parameter_names = names is not None
        if names is None:
            device = self.device.name.strip()
            if device not in UNCHECKED_DEVICES:
                UNCHECKED_DEVICES.add(device)
                warnings.warn(f"OpenCL device {device!r} gives no kernel parameter names (CL_KERNEL_ARG_NAME), "
                              "not even for a source build: dmlsim's launch plans are not checked against its "
                              "kernels", RuntimeWarning, stacklevel=3)
        return names

    def _build(self, source: KernelSource, options: list[str]) -> Any:
        cl = import_pyopencl()
        text = kernel_source(source)
        try:
            with quiet_compiler():
                return cl.Program(self.context, text).build(options=options, devices=[self.device])
        except cl.Error as exc:
            log = str(exc)
            hint = ""
            if "unknown target CPU" in log and _several_pocl_platforms(cl):
                hint = ("\nhint: two PoCL builds are loaded in this process and they conflict; choose one "
                        "ICD with OCL_ICD_VENDORS=<path to its .icd file> (see `dmlsim devices`)")
            raise DMLError(E_FAIL, f"building {source_label(source)} for {self.device.name.strip()!r} "
                                   f"failed\noptions: {' '.join(options)}\nbuild log:\n{log}{hint}") from None


def _several_pocl_platforms(cl: Any) -> bool:
    try:
        return sum("pocl" in p.version.lower() for p in cl.get_platforms()) > 1
    except cl.Error:  # pragma: no cover
        return False
