"""Native limits: C kernels built at bench time, run through ctypes on huge-page memory.

:class:`NativeTraffic` is the native same-traffic limit of every point: ``native_traffic.c`` moves
exactly the point's :class:`~dmlsim.bench.registry.Traffic` and computes nothing. A case may add its
operator's own step in C (``dmlsim/bench/cases/native_adam_step.c``) through :func:`build` and
:class:`NativeArrays`. Both are compiled with the system's C compiler (``$CC``, else ``cc`` or ``gcc``;
``-O3 -march=native -fopenmp -ffp-contract=off -fno-math-errno``, no fast-math) together with ``native_memory.c``,
whose arrays are 2 MiB aligned with transparent huge pages and first touched by the OpenMP threads
that stream them. Without a compiler (or OpenMP) the limit is skipped and :class:`NativeUnavailableError`
says why.

OpenMP threads spin after a parallel region by default, which would steal the cores of whatever the
bench times next (the contestants alternate): ``OMP_WAIT_POLICY`` is set to ``PASSIVE`` before the
first library is loaded, unless the caller chose otherwise.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import numpy as np

from dmlsim.bench.registry import Traffic

MEMORY_SOURCE = ("dmlsim.bench", "native_memory.c")
TRAFFIC_SOURCE = ("dmlsim.bench", "native_traffic.c")
# -fno-math-errno: sqrtf may not set errno, so it vectorizes (results unchanged: no fast-math)
FLAGS = ("-O3", "-march=native", "-fopenmp", "-ffp-contract=off", "-fno-math-errno", "-shared", "-fPIC")
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


def build(source: tuple[str, str], defines: Sequence[str] = ()) -> ctypes.CDLL:
    """Compile ``(package, file)`` with native_memory.c (once per process, source and defines) and load it."""
    global _BUILD_DIR
    cc = compiler()
    texts = [resources.files(package).joinpath(name).read_text(encoding="utf-8")
             for package, name in (MEMORY_SOURCE, source)]
    options = [f"-D{d}" for d in defines]
    key = hashlib.sha256("\0".join((cc, *texts, *FLAGS, *options)).encode()).hexdigest()[:16]
    if _BUILD_DIR is None:
        _BUILD_DIR = tempfile.TemporaryDirectory(prefix="dmlsim-native-")
    folder = Path(_BUILD_DIR.name) / key
    library = folder / "native.so"
    if not library.exists():
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for (_, name), text in zip((MEMORY_SOURCE, source), texts, strict=True):
            (folder / name).write_text(text, encoding="utf-8")
            paths.append(str(folder / name))
        result = subprocess.run([cc, *FLAGS, *options, *paths, "-o", str(library)], capture_output=True, text=True,
                                check=False)
        if result.returncode != 0:
            last = (result.stderr.strip().splitlines() or ["no output"])[-1]
            raise NativeUnavailableError(f"{cc} could not build {source[1]} ({' '.join(FLAGS[:3])}): {last}")
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    lib = ctypes.CDLL(str(library))
    lib.native_alloc.restype = ctypes.c_void_p
    lib.native_alloc.argtypes = [ctypes.c_size_t]
    lib.native_free.restype = None
    lib.native_free.argtypes = [ctypes.c_void_p]
    lib.native_touch.restype = None
    lib.native_touch.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    return lib


class NativeArrays:
    """``count`` arrays of ``nbytes`` from a built library: huge pages, touched first by its threads."""

    def __init__(self, lib: ctypes.CDLL, count: int, nbytes: int) -> None:
        self.lib = lib
        self.nbytes = max(1, nbytes)
        self.pointers: list[int] = []
        for _ in range(count):
            pointer = lib.native_alloc(self.nbytes)
            if not pointer:
                self.release()
                raise NativeUnavailableError(f"could not allocate {self.nbytes} bytes for a native kernel")
            self.pointers.append(pointer)
            lib.native_touch(pointer, self.nbytes)

    def view(self, k: int, dtype: np.dtype | type) -> np.ndarray:
        """Array ``k`` as a numpy view (for filling it, and for tests)."""
        raw = (ctypes.c_char * self.nbytes).from_address(self.pointers[k])
        return np.frombuffer(raw, np.dtype(dtype))

    def release(self) -> None:
        for pointer in self.pointers:
            self.lib.native_free(pointer)
        self.pointers = []


class NativeTraffic:
    """The built traffic kernel with its arrays placed; :meth:`run` does one step and returns its time in ns."""

    def __init__(self, traffic: Traffic) -> None:
        self.traffic = traffic
        lib = build(TRAFFIC_SOURCE, (f"READS={traffic.reads}", f"WRITES={traffic.writes}",
                                     f"ELEM={C_TYPES[traffic.element_size]}"))
        lib.traffic_fill.restype = None
        lib.traffic_fill.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint]
        lib.traffic_step.restype = ctypes.c_double
        lib.traffic_step.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
        self.lib = lib
        count = traffic.reads + (0 if traffic.inplace else traffic.writes)
        self.memory = NativeArrays(lib, count, traffic.elements * traffic.element_size)
        for k, pointer in enumerate(self.memory.pointers):
            lib.traffic_fill(pointer, traffic.elements, k)
        arrays = self.memory.pointers
        outputs = arrays[:traffic.writes] if traffic.inplace else arrays[traffic.reads:]
        self.src = (ctypes.c_void_p * traffic.reads)(*arrays[:traffic.reads])
        self.dst = (ctypes.c_void_p * max(1, traffic.writes))(*outputs)

    def array(self, k: int) -> np.ndarray:
        """Array ``k`` (inputs first, then the separate outputs of an out-of-place point) as a numpy view."""
        return self.memory.view(k, f"u{self.traffic.element_size}")

    def run(self) -> float:
        return float(self.lib.traffic_step(self.src, self.dst, self.traffic.elements))

    def release(self) -> None:
        self.memory.release()
