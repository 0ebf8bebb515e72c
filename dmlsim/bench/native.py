"""The native same-traffic limit: a C kernel moving exactly a point's bytes, built at bench time.

:class:`NativeTraffic` compiles ``native_traffic.c`` for it with the system's C compiler (``$CC``, else
``cc`` or ``gcc``: ``-O3 -march=native -fopenmp``), loads it through ctypes, allocates its arrays
2 MiB-aligned with transparent huge pages and lets its own OpenMP threads touch them first. What the
machine can do for that traffic is then one call away; without a compiler (or OpenMP) the limit is
skipped and :func:`native_traffic` says why.

OpenMP threads spin after a parallel region by default, which would steal the cores of whatever the
bench times next (the contestants alternate): ``OMP_WAIT_POLICY`` is set to ``PASSIVE`` before the
library is loaded, unless the caller chose otherwise.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from importlib import resources
from pathlib import Path

import numpy as np

from dmlsim.bench.registry import Traffic

SOURCE = "native_traffic.c"
FLAGS = ("-O3", "-march=native", "-fopenmp", "-shared", "-fPIC")
C_TYPES = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t"}
_BUILD_DIR: tempfile.TemporaryDirectory[str] | None = None


class NativeUnavailableError(RuntimeError):
    """The native limit cannot be built here; the message says why (shown in the bench report)."""


def compiler() -> str:
    """The C compiler to use: ``$CC``, else ``cc``, else ``gcc``; NativeUnavailableError when none is on PATH."""
    for name in (os.environ.get("CC"), "cc", "gcc"):
        if name and shutil.which(name):
            return name
    raise NativeUnavailableError("no C compiler (cc/gcc) on PATH")


def build(reads: int, writes: int, element_size: int) -> Path:
    """Compile the kernel for this traffic shape (once per process and shape) and return the library."""
    global _BUILD_DIR
    cc = compiler()
    source = resources.files("dmlsim.bench").joinpath(SOURCE).read_text(encoding="utf-8")
    defines = (f"-DREADS={reads}", f"-DWRITES={writes}", f"-DELEM={C_TYPES[element_size]}")
    key = hashlib.sha256("\0".join((cc, source, *FLAGS, *defines)).encode()).hexdigest()[:16]
    if _BUILD_DIR is None:
        _BUILD_DIR = tempfile.TemporaryDirectory(prefix="dmlsim-native-")
    folder = Path(_BUILD_DIR.name)
    library = folder / f"traffic-{key}.so"
    if not library.exists():
        source_path = folder / SOURCE
        source_path.write_text(source, encoding="utf-8")
        command = [cc, *FLAGS, *defines, str(source_path), "-o", str(library)]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            last = (result.stderr.strip().splitlines() or ["no output"])[-1]
            raise NativeUnavailableError(f"{cc} could not build the native kernel ({' '.join(FLAGS[:3])}): {last}")
    return library


def load(library: Path) -> ctypes.CDLL:
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    lib = ctypes.CDLL(str(library))
    lib.traffic_alloc.restype = ctypes.c_void_p
    lib.traffic_alloc.argtypes = [ctypes.c_size_t]
    lib.traffic_free.restype = None
    lib.traffic_free.argtypes = [ctypes.c_void_p]
    lib.traffic_fill.restype = None
    lib.traffic_fill.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint]
    lib.traffic_step.restype = ctypes.c_double
    lib.traffic_step.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    return lib


class NativeTraffic:
    """The built kernel with its arrays placed; :meth:`run` does one step and returns its time in ns."""

    def __init__(self, traffic: Traffic) -> None:
        self.traffic = traffic
        self.lib = load(build(traffic.reads, traffic.writes, traffic.element_size))
        count = traffic.reads + (0 if traffic.inplace else traffic.writes)
        nbytes = max(1, traffic.elements) * traffic.element_size
        self.arrays: list[int] = []
        for k in range(count):
            pointer = self.lib.traffic_alloc(nbytes)
            if not pointer:
                self.release()
                raise NativeUnavailableError(f"could not allocate {nbytes} bytes for the native kernel")
            self.arrays.append(pointer)
            self.lib.traffic_fill(pointer, traffic.elements, k)
        outputs = self.arrays[:traffic.writes] if traffic.inplace else self.arrays[traffic.reads:]
        self.src = (ctypes.c_void_p * traffic.reads)(*self.arrays[:traffic.reads])
        self.dst = (ctypes.c_void_p * max(1, traffic.writes))(*outputs)

    def array(self, k: int) -> np.ndarray:
        """Array ``k`` (inputs first, then the separate outputs of an out-of-place point) as a numpy view."""
        dtype = np.dtype(f"u{self.traffic.element_size}")
        raw = (ctypes.c_char * (self.traffic.elements * dtype.itemsize)).from_address(self.arrays[k])
        return np.frombuffer(raw, dtype)

    def run(self) -> float:
        return float(self.lib.traffic_step(self.src, self.dst, self.traffic.elements))

    def release(self) -> None:
        for pointer in self.arrays:
            self.lib.traffic_free(pointer)
        self.arrays = []
