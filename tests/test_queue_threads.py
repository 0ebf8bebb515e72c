"""Command queues are free-threaded (issue 12, item 7): concurrent ExecuteCommandLists on one queue run in
some serial order on every device, so no update is lost.

Every thread executes the same in-place Adam step, so any serial order of the executions gives the same
result as one thread executing them all: the threaded result must equal that serial result exactly.

Every adapter, Oclgrind included (issue 26, item 1: two threads sharing an Oclgrind device crashed the
process, even one thread creating buffers while another executed): Oclgrind's runtime is bound to the
thread that created its context, so its backend makes every OpenCL call on a thread of its own
(dmlsim.backends.opencl.oclgrind), and on every device each call on the queue is made under the device's
execution lock. Under Oclgrind the sizes are smaller (it simulates every work-item).
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import dmlsim as dml
from dmlsim.backends.adapters import OCLGRIND
from dmlsim.quick import prepare_operator

THREADS = 4


def _sizes(device):
    """(elements, steps per thread): smaller where every work-item is simulated."""
    return (256, 10) if device.adapter.implementation == OCLGRIND else (1 << 16, 60)


def _adam_step(device, elements=None):
    """A prepared in-place Adam dispatch over ``elements`` values, with T = 1 and a fixed gradient."""
    elements = elements or _sizes(device)[0]
    tensor = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_FLOAT32, [1, 1, 1, elements])
    step = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_UINT32, [1, 1, 1, 1])
    desc = dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC(tensor, tensor, tensor, tensor, step, tensor, tensor, tensor,
                                                LearningRate=0.01, Beta1=0.9, Beta2=0.999, Epsilon=1e-8)
    rng = np.random.default_rng(12)
    inputs = {"InputParametersTensor": rng.standard_normal(elements).astype(np.float32),
              "GradientTensor": rng.standard_normal(elements).astype(np.float32),
              "TrainingStepTensor": np.array([1], np.uint32)}
    return prepare_operator(device, dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ADAM_OPTIMIZER, desc), inputs, inplace=True)


def _state(prepared):
    return [prepared.read(name) for name in ("InputParametersTensor", "InputFirstMomentTensor",
                                             "InputSecondMomentTensor")]


def _serial(device, executions, elements=None):
    prepared = _adam_step(device, elements)
    queue, cmd = device.CreateCommandQueue(), prepared.record()
    for _ in range(executions):
        queue.ExecuteCommandLists([cmd])
    queue.WaitForIdle()
    return _state(prepared)


def _run_threads(count, work):
    """``work(i)`` on ``count`` threads started together; the exceptions they raised."""
    start = threading.Barrier(count)
    errors: list[BaseException] = []

    def run(i):
        try:
            start.wait()
            work(i)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    workers = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return errors


def _threaded(device, threads, steps, *, own_lists):
    """``threads`` threads each executing the step ``steps`` times on one shared queue."""
    prepared = _adam_step(device)
    queue = device.CreateCommandQueue()
    shared = prepared.record()
    lists = [prepared.record() if own_lists else shared for _ in range(threads)]

    def work(i):
        for _ in range(steps):
            queue.ExecuteCommandLists([lists[i]])

    errors = _run_threads(threads, work)
    assert not errors, errors
    queue.WaitForIdle()
    return _state(prepared)


def _assert_same(expected, got, what):
    for name, e, g in zip(("X", "M", "V"), expected, got, strict=True):
        differing = int(np.count_nonzero(e.view(np.uint32) != g.view(np.uint32)))
        assert differing == 0, f"{name}: {differing} of {e.size} elements differ from the serial run ({what})"


@pytest.mark.parametrize("own_lists", [False, True], ids=["one-command-list", "a-command-list-per-thread"])
def test_concurrent_execute_on_one_queue_equals_a_serial_run(device, own_lists):
    _, steps = _sizes(device)
    expected = _serial(device, THREADS * steps)
    got = _threaded(device, THREADS, steps, own_lists=own_lists)
    _assert_same(expected, got, "lost updates")


def test_threads_executing_reading_and_creating_buffers_on_one_device(device):
    """Issue 26 item 1's shapes: two threads each executing its own dispatch on a shared queue, waiting
    and reading its output, while a third creates, writes and reads buffers."""
    elements, steps = 256, 4
    expected = _serial(device, steps, elements)
    dispatches = [_adam_step(device, elements) for _ in range(2)]
    queue = device.CreateCommandQueue()
    results: dict[int, list[np.ndarray]] = {}

    def work(i):
        if i == 2:
            for n in range(steps * 4):
                data = np.arange(n, n + 64, dtype=np.uint32)
                buffer = device.CreateBuffer(data.nbytes)
                buffer.Write(data)
                assert np.array_equal(buffer.read_array(np.uint32), data)
            return
        cmd = dispatches[i].record()
        for _ in range(steps):
            queue.ExecuteCommandLists([cmd])
            queue.WaitForIdle()
            dispatches[i].read("InputParametersTensor")
        results[i] = _state(dispatches[i])

    errors = _run_threads(3, work)
    assert not errors, errors
    for i in range(2):
        _assert_same(expected, results[i], f"thread {i}'s own dispatch")


class _OwnedLock:
    """A reentrant lock that knows which thread holds it (the device's execution lock, observed)."""

    def __init__(self):
        self._lock = threading.RLock()
        self.owner = None
        self._depth = 0

    def acquire(self):
        self._lock.acquire()
        self.owner, self._depth = threading.get_ident(), self._depth + 1
        return True

    def release(self):
        self._depth -= 1
        if not self._depth:
            self.owner = None
        self._lock.release()

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc_info):
        self.release()


BACKEND_CALLS = ("allocate", "write", "read", "prepare", "submit", "wait")


def test_every_backend_call_is_made_under_the_device_lock(device, monkeypatch):
    """Creating a buffer, writing, reading, recording (which prepares the launch), executing and waiting:
    each reaches the backend (its OpenCL calls on the device's queue) only while the calling thread holds
    the device's execution lock, so that no two threads' calls ever interleave (issue 26 item 1: WaitForIdle
    and CreateBuffer ran unlocked)."""
    lock = _OwnedLock()
    monkeypatch.setattr(device, "execution_lock", lock)
    backend = device.backend
    calls: list[tuple[str, bool]] = []
    inside = [0]  # a backend method calling another (Oclgrind's copy reads and writes) is checked once

    def watched(name, method):
        def call(*args, **kwargs):
            if not inside[0]:
                calls.append((name, lock.owner == threading.get_ident()))
            inside[0] += 1
            try:
                return method(*args, **kwargs)
            finally:
                inside[0] -= 1
        return call

    for name in BACKEND_CALLS:
        monkeypatch.setattr(backend, name, watched(name, getattr(backend, name)))
    prepared = _adam_step(device, 64)
    queue = device.CreateCommandQueue()
    queue.ExecuteCommandLists([prepared.record()])
    queue.WaitForIdle()
    prepared.read("InputParametersTensor")
    unlocked = sorted({name for name, locked in calls if not locked})
    assert not unlocked, f"backend calls made without the device's execution lock: {unlocked}"
    assert {name for name, _ in calls} == set(BACKEND_CALLS), calls


def test_the_serial_reference_moves_with_every_step(ref_device):
    """The comparison can fail: one step fewer gives a different result (every execution counts)."""
    a = _serial(ref_device, 10)
    b = _serial(ref_device, 9)
    assert not np.array_equal(a[0], b[0])
