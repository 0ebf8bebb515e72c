"""Kernel parameter names (``CL_KERNEL_ARG_NAME``) for the launch-plan check, also where a driver keeps none.

Every program is built with ``-cl-kernel-arg-info`` (:data:`ARG_INFO_OPTION`), so that its kernels can say
their parameter names (core in OpenCL 1.2; PoCL answers only for programs built with the option), which
:meth:`.programs.ProgramCache.kernel` compares with the names a launch plan declares.

Intel's OpenCL CPU runtime answers for a program built from source but not for one created from a binary
(``KERNEL_ARG_INFO_NOT_AVAILABLE``), and pyopencl keeps built programs in its binary cache on every driver
that does not cache source builds itself (not PoCL, not NVIDIA's): from the second process on, every Intel
program would go unchecked. For such a program the names come from one uncached source build of the same
text and options (:func:`source_build_names`), kept in a small JSON file in dmlsim's cache folder
(``$XDG_CACHE_HOME/dmlsim`` or ``~/.cache/dmlsim``, then ``kernel-parameter-names/``) named by a hash of the
platform, device, driver, options and source: later processes read the file and build nothing more. Only a
driver whose source builds give no names either goes unchecked (the caller warns once per device).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from dmlsim.backends.opencl.errors import import_pyopencl, quiet_compiler

ARG_INFO_OPTION = "-cl-kernel-arg-info"  # kernels keep their parameter names (CL_KERNEL_ARG_NAME)
NAMES_FOLDER = "kernel-parameter-names"


def kernel_parameter_names(kernel: Any) -> tuple[str, ...]:
    """A built kernel's parameter names, in order; raises ``cl.Error`` where the driver cannot say."""
    cl = import_pyopencl()
    return tuple(kernel.get_arg_info(i, cl.kernel_arg_info.NAME) for i in range(kernel.num_args))


def answered_names(kernel: Any) -> tuple[str, ...] | None:
    """The kernel's parameter names, or None where the driver answers an error or empty names."""
    cl = import_pyopencl()
    try:
        names = kernel_parameter_names(kernel)
    except cl.Error:
        return None
    return names if all(names) else None


def names_cache_dir() -> Path:
    """Where source-build names are kept: ``kernel-parameter-names/`` in ``$XDG_CACHE_HOME/dmlsim`` (else in
    ``~/.cache/dmlsim``)."""
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "dmlsim" / NAMES_FOLDER


def source_build_names(context: Any, device: Any, text: str, options: tuple[str, ...],
                       fresh: bool = False) -> dict[str, tuple[str, ...]]:
    """Every kernel's parameter names in ``text`` built with ``options``: from the kept file, else (or with
    ``fresh``) from an uncached source build, then kept. Empty where even that build gives no names."""
    path = _names_file(device, text, options)
    names = None if fresh else _read(path)
    if names is None:
        names = _build_and_ask(context, device, text, options)
        if names:
            _write(path, names)
    return names


def _names_file(device: Any, text: str, options: tuple[str, ...]) -> Path:
    platform = device.platform
    identity = [platform.name, platform.version, device.name, device.driver_version, list(options), text]
    digest = hashlib.sha256(json.dumps(identity).encode()).hexdigest()
    return names_cache_dir() / f"{digest}.json"


def _build_and_ask(context: Any, device: Any, text: str, options: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    cl = import_pyopencl()
    try:
        with quiet_compiler():
            program = cl.Program(context, text).build(options=list(options), devices=[device], cache_dir=False)
    except cl.Error:  # it built a moment ago from the same text: nothing to learn from a failure here
        return {}
    answers = {kernel.function_name: answered_names(kernel) for kernel in program.all_kernels()}
    return {entry: names for entry, names in answers.items() if names is not None}


def _read(path: Path) -> dict[str, tuple[str, ...]] | None:
    """The kept names, or None for a missing or malformed file (then they are asked again)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not all(
            isinstance(names, list) and all(isinstance(name, str) and name for name in names)
            for names in data.values()):
        return None
    return {str(entry): tuple(names) for entry, names in data.items()}


def _write(path: Path, names: dict[str, tuple[str, ...]]) -> None:
    """Keep the names (atomically: a concurrent reader sees the whole file or none); a cache folder that
    cannot be written only costs the next process a source build."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        partial.write_text(json.dumps({entry: list(values) for entry, values in names.items()}))
        os.replace(partial, path)
    except OSError:
        pass
