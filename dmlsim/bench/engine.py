"""The sweep: one point per (operator, data type, size), each timed against its limits and peers.

Per point, in one alternating loop (:func:`dmlsim.bench.timing.alternate`): the dmlsim dispatch
(RecordDispatch + ExecuteCommandLists + WaitForIdle on a pre-built binding table; device time from
the OpenCL profiling events, host time around the three calls), the two same-traffic limits (the
point's exact traffic natively, :mod:`dmlsim.bench.native`, and in OpenCL on the same device,
:class:`~dmlsim.backends.opencl.roofline.SameTraffic`), the fastest copy variant moving the same byte
count (the older copy roofline, an extra column) and every peer. On a GPU the native limits and peers
(C on the host) are left out, and the device's own copy bandwidth through CUDA
(:mod:`dmlsim.bench.cuda_copy`) is timed instead where torch sees the same GPU, and every timed call there
starts after a cache flush (:class:`~dmlsim.backends.opencl.roofline.CacheFlush`). A limit that cannot run here
(no C compiler) is left out with a note saying why. An error in one point is recorded in that point and the
sweep goes on.
"""

from __future__ import annotations

import os
import platform
import random
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from dmlsim.backends.opencl.roofline import CacheFlush, Roofline, SameTraffic
from dmlsim.bench import peers as peer_lib
from dmlsim.bench.cuda_copy import CudaCopy, CudaCopyUnavailableError
from dmlsim.bench.native import NativeTraffic, NativeUnavailableError
from dmlsim.bench.registry import Traffic, Workload, discover
from dmlsim.bench.timing import alternate, median_difference_interval

DISPATCH = "dmlsim"
ROOFLINE = "roofline-copy"
NATIVE = "native-traffic"
WAIT_POLICY = "OMP_WAIT_POLICY"
# OpenBLAS's threads (numpy's peers) busy-wait after each call for 2^28 cycles by default, ~0.1 s: on a 2-core host
# the next contestant lost a core to them (a ResNet-50 batch-8 layer 13.6 ms a call instead of 8.3). 2^4 cycles:
# they sleep at once. OpenBLAS reads it when it loads, with numpy, so `dmlsim bench` sets it by restarting itself.
BLAS_SPIN = "OPENBLAS_THREAD_TIMEOUT"
BLAS_SPIN_QUIET = "4"
OPENCL_TRAFFIC = "opencl-traffic"
CUDA_COPY = "cuda-copy"
OVERHEAD_MAX_ROUNDS = 100_000  # 1-element dispatches: ~0.2 s on Intel's runtime, ~6 s on PoCL
# copies of a point's tensors a run holds at once, at most: dmlsim's buffers, a peer's, the native limit's, the
# data that fills them (too_large)
FOOTPRINT_COPIES = 4
OVERHEAD_SEED = 15  # the shuffled order of the overhead rounds, fixed so that a run can be repeated
GPU_NATIVE_NOTE = ("native limits and peers left out: the device is a GPU, and C on the host measures the host's "
                   "memory, not the device's")


@dataclass
class BenchConfig:
    """What to run: operators, sizes (None: each case's ``default_sizes``), data types, layouts, repetitions, peers."""

    operators: tuple[str, ...] = ("adam",)
    adapter: str | None = None
    sizes: tuple[int, ...] | None = None
    dtypes: tuple[str, ...] = ("float32",)
    inplace: bool = True
    warmup: int = 2
    min_time: float = 0.5
    min_rounds: int = 5
    settle: int = 1  # untimed calls of a contestant before each timed one (dmlsim.bench.timing)
    settle_time: float = 0.005  # and at least this many seconds of them (where settle > 0)
    peers: tuple[str, ...] = peer_lib.KNOWN_PEERS
    overhead: bool = True
    native: bool = True  # time the native same-traffic kernel (needs a C compiler with OpenMP)


@dataclass
class PeerResult:
    median_ns: float
    gbps: float
    ratio: float  # dmlsim throughput / peer throughput (> 1: dmlsim is faster), on host time per call
    # host (wall) time per call: the median and the spread over the timed rounds (None in older records)
    host_median_ns: float | None = None
    host_min_ns: float | None = None
    host_max_ns: float | None = None


@dataclass
class Point:
    """One measured (operator, data type, size): times in ns, bandwidths in GB/s (10^9 bytes/s)."""

    operator: str
    dtype: str
    elements: int
    inplace: bool
    bytes_moved: int = 0
    rounds: int = 0
    device_median_ns: float | None = None
    device_min_ns: float | None = None
    device_max_ns: float | None = None
    device_cold_ns: float | None = None
    host_median_ns: float | None = None
    host_min_ns: float | None = None
    host_max_ns: float | None = None
    gbps: float | None = None
    roofline_gbps: float | None = None
    roofline_kernel: str | None = None
    pct_roofline: float | None = None
    # the same-traffic limits: GB/s on their own timers (C clock / profiling events), % = dmlsim's device
    # GB/s over theirs; host_pct_native compares host time per call (dmlsim's dispatch vs one native call)
    native_gbps: float | None = None
    pct_native: float | None = None
    host_pct_native: float | None = None
    traffic_gbps: float | None = None
    traffic_kernel: str | None = None
    pct_traffic: float | None = None
    # on a GPU: a device-to-device copy of the same byte count through CUDA (torch), the device's own figure
    cuda_copy_gbps: float | None = None
    pct_cuda_copy: float | None = None
    items_per_s: float | None = None
    item_unit: str | None = None
    peers: dict[str, PeerResult] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    error: str | None = None


@dataclass
class BenchRun:
    """A whole run: where it ran, what it measured."""

    config: BenchConfig
    device: dict[str, str]
    machine: dict[str, Any]
    points: list[Point] = field(default_factory=list)
    overhead: dict[str, float] | None = None
    started: str = ""
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def machine_info() -> dict[str, Any]:
    """The host a run came from (committed with results, so numbers keep their context)."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), cpu)
    except OSError:
        pass
    return {"cpu": cpu, "logical_cpus": os.cpu_count(), "system": f"{platform.system()} {platform.release()}",
            "python": platform.python_version(), "omp_wait_policy": os.environ.get(WAIT_POLICY, "unset"),
            "openblas_thread_timeout": os.environ.get(BLAS_SPIN, "unset"), **peer_lib.versions()}


def device_info(device: Any) -> dict[str, str]:
    """The adapter and what the backend reports of its device and host API."""
    backend = device.backend
    return {"adapter": device.adapter.label, **backend.device_facts, **backend.api_versions}


def dispatch_timer(device: Any, work: Workload) -> Callable[[], Callable[[], float]]:
    """Run one RecordDispatch + ExecuteCommandLists + WaitForIdle; returns what reads its device time in ns, so that
    the profiling-event reads fall outside the host time per call (:data:`dmlsim.bench.timing.Timed`): a user's
    dispatch reads no events."""
    recorder = device.CreateCommandRecorder()
    command_list = device.CreateCommandList()
    queue = device.CreateCommandQueue()

    def run() -> Callable[[], float]:
        command_list.Reset()
        recorder.RecordDispatch(command_list, work.compiled, work.table)
        queue.ExecuteCommandLists([command_list])
        queue.WaitForIdle()
        timings = queue.last_timings
        return lambda: float(sum(t.device_ns for t in timings))
    return run


def native_limit(traffic: Traffic | None, enabled: bool, notes: list[str]) -> NativeTraffic | None:
    """The native same-traffic kernel of a point (when ``enabled``), or None with a note saying why it is
    left out where it was wanted but cannot run."""
    if traffic is None or not enabled:
        return None
    try:
        return NativeTraffic(traffic)
    except NativeUnavailableError as exc:
        notes.append(f"native limit skipped: {exc}")
        return None


def cuda_copy_limit(device: Any, bytes_moved: int, notes: list[str]) -> CudaCopy | None:
    """The CUDA copy of a GPU point's byte count, or None with a note saying why it is left out."""
    try:
        return CudaCopy(device.backend.device_facts["device"], bytes_moved)
    except CudaCopyUnavailableError as exc:
        notes.append(f"CUDA copy left out: {exc}")
        return None


def available_memory() -> int | None:
    """Bytes of memory this machine can still give without swapping (``MemAvailable``), or None where unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def too_large(case: Any, dtype: str, size: int, available: int | None) -> str | None:
    """Why a point cannot be held in this machine's memory, or None: its tensors (:meth:`BenchCase.footprint`) are
    held ``FOOTPRINT_COPIES`` times over (the device's buffers, on a CPU device in the same memory; the peers' and the
    native limit's own copies; the data made to fill them), and an out-of-memory kill would end the whole run with no
    word of why."""
    need = case.footprint(dtype, size)
    if need is None or available is None or need * FOOTPRINT_COPIES <= available:
        return None
    return (f"{case.name} at size {size} holds about {need / 2**30:.1f} GiB of tensors, {FOOTPRINT_COPIES} times over "
            f"with its peers and limits, and this machine has {available / 2**30:.1f} GiB available: give a smaller "
            f"--sizes ({case.size_unit})")


def measure_point(device: Any, case: Any, dtype: str, elements: int, config: BenchConfig) -> Point:
    """Measure one point; any failure is recorded in the point (with its cause) instead of raised."""
    point = Point(case.name, dtype, elements, config.inplace)
    refusal = too_large(case, dtype, elements, available_memory())
    if refusal is not None:
        point.error = refusal
        return point
    work: Workload | None = None
    limits: list[Any] = []
    gpu = bool(getattr(device.backend, "is_gpu", False))
    peers = config.peers
    if gpu and (config.native or "native" in peers):
        peers = tuple(name for name in peers if name != "native")
        point.notes.append(GPU_NATIVE_NOTE)
    try:
        work = case.workload(device, dtype, elements, config.inplace, peers)
        point.bytes_moved = work.bytes_moved
        point.inplace = config.inplace if work.inplace is None else work.inplace
        point.notes += work.notes
        roofline = Roofline(device.backend, work.bytes_moved)
        limits.append(roofline)
        copy = roofline.best()
        point.roofline_kernel = copy.label
        contestants = {DISPATCH: dispatch_timer(device, work)}
        traffic = work.traffic
        if traffic is not None and traffic.bytes_moved != work.bytes_moved:
            raise ValueError(f"the case's traffic moves {traffic.bytes_moved} bytes, its point {work.bytes_moved}")
        if traffic is not None:
            same = SameTraffic(device.backend, traffic.reads, traffic.writes, traffic.element_size,
                               traffic.elements, traffic.inplace)
            limits.append(same)
            best = same.best()
            point.traffic_kernel = best.label
            contestants[OPENCL_TRAFFIC] = best.run
        native = native_limit(traffic, config.native and not gpu, point.notes)
        if native is not None:
            limits.append(native)
            contestants[NATIVE] = native.run
        cuda = cuda_copy_limit(device, work.bytes_moved, point.notes) if gpu else None
        if cuda is not None:
            limits.append(cuda)
            contestants[CUDA_COPY] = cuda.run
        contestants = {**contestants, ROOFLINE: copy.run, **work.peers}
        flush = CacheFlush(device.backend) if gpu else None
        if flush is not None:
            limits.append(flush)
        samples = alternate(contestants, warmup=config.warmup, min_time=config.min_time,
                            min_rounds=config.min_rounds, before=flush, settle=config.settle,
                            settle_time=config.settle_time)
        ours = samples[DISPATCH]
        point.rounds = len(ours.ns)
        point.device_median_ns, point.device_min_ns, point.device_max_ns = ours.median_ns, ours.min_ns, ours.max_ns
        point.device_cold_ns = ours.cold_ns
        point.host_median_ns, point.host_min_ns, point.host_max_ns = (ours.wall_median_ns, ours.wall_min_ns,
                                                                      ours.wall_max_ns)
        point.gbps = point.bytes_moved / point.device_median_ns
        point.roofline_gbps = roofline.bytes_moved / samples[ROOFLINE].median_ns
        point.pct_roofline = 100.0 * point.gbps / point.roofline_gbps
        if traffic is not None:
            point.traffic_gbps = traffic.bytes_moved / samples[OPENCL_TRAFFIC].median_ns
            point.pct_traffic = 100.0 * point.gbps / point.traffic_gbps
        if native is not None:
            point.native_gbps = native.traffic.bytes_moved / samples[NATIVE].median_ns
            point.pct_native = 100.0 * point.gbps / point.native_gbps
            point.host_pct_native = 100.0 * samples[NATIVE].wall_median_ns / point.host_median_ns
        if cuda is not None:
            point.cuda_copy_gbps = cuda.bytes_moved / samples[CUDA_COPY].median_ns
            point.pct_cuda_copy = 100.0 * point.gbps / point.cuda_copy_gbps
        if work.items:
            point.items_per_s = work.items / point.device_median_ns * 1e9
            point.item_unit = work.item_unit
        for name in work.peers:
            peer = samples[name]
            point.peers[name] = PeerResult(peer.median_ns, point.bytes_moved / peer.median_ns,
                                           peer.median_ns / point.host_median_ns, peer.wall_median_ns,
                                           peer.wall_min_ns, peer.wall_max_ns)
    except Exception as exc:  # one point's failure must not end the sweep
        point.error = f"{type(exc).__name__}: {exc}".strip()
        point.notes.append(traceback.format_exc(limit=3).strip().splitlines()[-1])
    finally:
        if work is not None:
            work.close()
        for limit in limits:
            limit.release()
    return point


def measure_overhead(device: Any, config: BenchConfig) -> dict[str, float]:
    """Host time (ns, median) of a 1-element Adam dispatch through dmlsim vs bare pyopencl.

    ``record+execute+wait``: the full per-dispatch API sequence on a pre-built binding table;
    ``execute+wait``: a pre-recorded command list; ``pyopencl``: enqueue of the very same prepared
    cl.Kernel + queue.finish() — what dmlsim adds is the difference (``dmlsim_added``), given with a 95 %
    bootstrap interval (``dmlsim_added_low``/``_high``). A CPU implementation's round trip spreads over tens
    of microseconds (its threads' wake-ups) around a difference of a few, so the rounds are many (up to
    ``OVERHEAD_MAX_ROUNDS`` in ``min_time``) and their order is shuffled: no contestant always follows another.
    """
    from dmlsim.bench.cases.adam_optimizer import AdamCase

    work = AdamCase().workload(device, "float32", 1, True, ())
    recorder = device.CreateCommandRecorder()
    fresh = device.CreateCommandList()
    recorded = device.CreateCommandList()
    recorder.RecordDispatch(recorded, work.compiled, work.table)
    queue = device.CreateCommandQueue()
    backend = device.backend
    launch = work.table.resolved(backend).prepared[0]

    def record_execute() -> None:  # no profiling-event reads here: they are the bench's cost, not dmlsim's
        fresh.Reset()
        recorder.RecordDispatch(fresh, work.compiled, work.table)
        queue.ExecuteCommandLists([fresh])
        queue.WaitForIdle()

    def execute() -> None:
        queue.ExecuteCommandLists([recorded])
        queue.WaitForIdle()

    def bare() -> None:
        backend.run_bare(launch)

    samples = alternate({"record+execute+wait": record_execute, "execute+wait": execute, "pyopencl": bare},
                        warmup=20, min_time=config.min_time, min_rounds=200,
                        max_rounds=OVERHEAD_MAX_ROUNDS, shuffle=random.Random(OVERHEAD_SEED))  # noqa: S311 (an order, not a secret)
    result = {name: s.median_ns for name, s in samples.items()}
    result["dmlsim_added"] = result["record+execute+wait"] - result["pyopencl"]
    result["dmlsim_added_low"], result["dmlsim_added_high"] = median_difference_interval(
        samples["record+execute+wait"].ns, samples["pyopencl"].ns)
    result["rounds"] = float(len(samples["pyopencl"].ns))
    return result


def run_bench(config: BenchConfig, progress: Callable[[int, int, str], None] | None = None) -> BenchRun:
    """Run the whole sweep on one adapter and return every point (failed ones with their error)."""
    import dmlsim as dml
    from dmlsim.api.errors import E_INVALIDARG, DMLError

    # OpenMP pools (the native limits', torch's) spin for a while after each parallel region by default and
    # would take the cores from the contestant timed next: they must sleep. Set before any pool starts.
    os.environ.setdefault(WAIT_POLICY, "PASSIVE")
    cases = discover()
    unknown = [name for name in config.operators if name not in cases]
    if unknown:
        raise DMLError(E_INVALIDARG, f"unknown bench operator(s) {', '.join(unknown)}; "
                                     f"known: {', '.join(sorted(cases))}")
    device = dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, config.adapter)
    if device.adapter.kind == "reference":
        raise DMLError(E_INVALIDARG, "dmlsim bench needs an OpenCL adapter: the reference device has no device "
                                     "timers (choose one with --adapter; see `dmlsim devices`)")
    run = BenchRun(config, device_info(device), machine_info(), started=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    run.machine["load_average_before"] = load_average()
    started = time.perf_counter()
    plan = [(cases[name](), dtype, size) for name in config.operators for dtype in config.dtypes
            for size in (config.sizes or cases[name].default_sizes) if dtype in cases[name].dtypes]
    if not plan:
        raise DMLError(E_INVALIDARG, f"nothing to run: {', '.join(config.operators)} support(s) none of the data "
                                     f"types {', '.join(config.dtypes)}")
    total = len(plan) + (1 if config.overhead else 0)
    for done, (case, dtype, size) in enumerate(plan):
        if progress:
            progress(done, total, f"{case.name} {dtype} {size}")
        run.points.append(measure_point(device, case, dtype, size, config))
    if config.overhead:
        if progress:
            progress(len(plan), total, "dispatch overhead")
        run.overhead = measure_overhead(device, config)
    if progress:
        progress(total, total, "done")
    run.seconds = time.perf_counter() - started
    run.machine["load_average_after"] = load_average()
    return run


def load_average() -> list[float] | None:
    """The 1/5/15-minute load averages (how quiet the machine was; None where the OS has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None
