"""Kernel sources and a per-context program cache.

An operator's kernels live beside it (``dmlsim/operators/<name>/kernel.cl``, package data); a
:class:`~dmlsim.operators.plan.KernelSource` names the package and file. ``#include "name.h"`` lines
naming a shared header of the package ``dmlsim.cl_kernels`` are inlined here, so
the build needs no include path and pyopencl's binary cache sees every byte that goes into a build.
Build variants are chosen with ``-D`` defines.

Every program is built with ``-cl-kernel-arg-info``, so that its kernels can say their parameter names
(``CL_KERNEL_ARG_NAME``, core in OpenCL 1.2; PoCL answers only for programs built with the option).
:meth:`ProgramCache.kernel` compares them with the names the launch plan declares
(:attr:`~dmlsim.operators.plan.KernelLaunch.params`): a plan whose arguments would land on the wrong
parameters fails there with a :class:`~dmlsim.operators.plan.KernelSignatureError` naming the kernel, the
position and both names. The driver is asked once per program and entry point and its answer kept; the
comparison runs when a dispatch is prepared (once per binding-table state), so a dispatch pays nothing for
it. A driver that cannot give the names (an error, or empty names) is not checked, with one warning per
device.
"""

from __future__ import annotations

import functools
import re
import warnings
from importlib import resources
from pathlib import Path
from typing import Any

from dmlsim.api.errors import E_FAIL, DMLError
from dmlsim.backends.opencl.errors import import_pyopencl
from dmlsim.operators.plan import KernelSignatureError, KernelSource, signature_mismatch

SHARED_PACKAGE = "dmlsim.cl_kernels"
ARG_INFO_OPTION = "-cl-kernel-arg-info"  # kernels keep their parameter names (CL_KERNEL_ARG_NAME)
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
        self.checks_parameter_names: bool | None = None  # None until a kernel was asked; False: the driver can't say
        self._warned = False

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
            self._parameters[key, entry] = self._parameter_names(kernel)
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

    def _parameter_names(self, kernel: Any) -> tuple[str, ...] | None:
        """The kernel's parameter names, or None (with one warning per device) where the driver gives none."""
        cl = import_pyopencl()
        try:
            names: tuple[str, ...] | None = kernel_parameter_names(kernel)
        except cl.Error as exc:
            names, why = None, f"clGetKernelArgInfo failed: {exc}"
        else:
            why = "it answered empty names"
        self.checks_parameter_names = names is not None and all(names)
        if self.checks_parameter_names:
            return names
        if not self._warned:
            self._warned = True
            warnings.warn(f"OpenCL device {self.device.name.strip()!r} gives no kernel parameter names ({why}): "
                          "dmlsim's launch plans are not checked against its kernels", RuntimeWarning, stacklevel=3)
        return None

    def _build(self, source: KernelSource, options: list[str]) -> Any:
        cl = import_pyopencl()
        text = kernel_source(source)
        try:
            return cl.Program(self.context, text).build(options=options, devices=[self.device])
        except cl.Error as exc:
            log = str(exc)
            hint = ""
            if "unknown target CPU" in log and _several_pocl_platforms(cl):
                hint = ("\nhint: two PoCL builds are loaded in this process and they conflict; choose one "
                        "ICD with OCL_ICD_VENDORS=<path to its .icd file> (see `dmlsim devices`)")
            raise DMLError(E_FAIL, f"building {source_label(source)} for {self.device.name.strip()!r} "
                                   f"failed\noptions: {' '.join(options)}\nbuild log:\n{log}{hint}") from None


def kernel_parameter_names(kernel: Any) -> tuple[str, ...]:
    """A built kernel's parameter names (``CL_KERNEL_ARG_NAME``), in order; raises ``cl.Error`` where the
    driver cannot say (the program was built without ``-cl-kernel-arg-info`` on PoCL, for one)."""
    cl = import_pyopencl()
    return tuple(kernel.get_arg_info(i, cl.kernel_arg_info.NAME) for i in range(kernel.num_args))


def _several_pocl_platforms(cl: Any) -> bool:
    try:
        return sum("pocl" in p.version.lower() for p in cl.get_platforms()) > 1
    except cl.Error:  # pragma: no cover
        return False
