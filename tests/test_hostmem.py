"""Large buffers of CPU devices live in huge-page host memory (dmlsim/backends/opencl/hostmem.py).

What must hold: the memory is 2 MiB aligned and zero, large buffers of a CPU device take that path
(CL_MEM_USE_HOST_PTR over it) and small ones do not, the first-touch kernel zeroes exactly the buffer,
an operator computes bitwise the same on huge-page buffers as on the driver's own allocation, and the
memory of a buffer dropped while the queue still uses it stays mapped until the queue is past it (the
release tests hold the in-order queue behind a user event, so "still in use" is certain, not a race:
without the keeper the held kernel runs on unmapped memory and the process dies of a segfault).
"""

from __future__ import annotations

import gc
import threading
import weakref
from contextlib import contextmanager, suppress

import numpy as np
import pytest
from adam_support import FLOAT16, FLOAT32, NP, OUTPUTS, AdamDispatch, adam_desc, assert_matches_reference, random_state

import dmlsim as dml
from dmlsim.backends.opencl import hostmem
from dmlsim.entry import create_device

OPENCL_CPU = [a for a in dml.all_adapters() if a.kind == "CPU"]
needs_cpu = pytest.mark.skipif(not OPENCL_CPU, reason="huge-page host buffers are for OpenCL CPU devices; none here")
LARGE = hostmem.MIN_BYTES + 68  # one huge page and a ragged tail


def test_huge_page_arrays_are_aligned_zeroed_and_sized():
    for size in (1, hostmem.HUGE_PAGE, LARGE):
        array = hostmem.huge_page_array(size)
        assert array.nbytes == size and array.ctypes.data % hostmem.HUGE_PAGE == 0
        assert not array.any()
        array[:] = 7  # writable
        assert int(array[-1]) == 7


def test_the_variable_turns_the_path_off(monkeypatch):
    monkeypatch.delenv(hostmem.VARIABLE, raising=False)
    assert hostmem.enabled()
    for off in ("0", "off", "No"):
        monkeypatch.setenv(hostmem.VARIABLE, off)
        assert not hostmem.enabled()


def fresh_device(adapter, monkeypatch, huge: bool):
    monkeypatch.setenv(hostmem.VARIABLE, "1" if huge else "0")
    return create_device(dml.DML_CREATE_DEVICE_FLAG_NONE, adapter)


@needs_cpu
@pytest.mark.parametrize("adapter", OPENCL_CPU, ids=[a.short_label for a in OPENCL_CPU])
def test_large_cpu_buffers_use_aligned_host_memory_and_read_back_zero(adapter, monkeypatch):
    device = fresh_device(adapter, monkeypatch, huge=True)
    cl = device.backend.cl
    large, small = device.CreateBuffer(LARGE), device.CreateBuffer(4096)
    assert large.storage.flags & cl.mem_flags.USE_HOST_PTR
    assert large.storage.get_host_array((LARGE,), np.uint8).ctypes.data % hostmem.HUGE_PAGE == 0
    assert not small.storage.flags & cl.mem_flags.USE_HOST_PTR
    assert not np.frombuffer(large.Read(), np.uint8).any()  # the first-touch kernel zeroes, to the last byte
    data = np.random.default_rng(0).integers(0, 255, LARGE, dtype=np.uint8)
    large.Write(data)
    np.testing.assert_array_equal(np.frombuffer(large.Read(), np.uint8), data)


@needs_cpu
@pytest.mark.parametrize("adapter", OPENCL_CPU, ids=[a.short_label for a in OPENCL_CPU])
@pytest.mark.parametrize("data_type", [FLOAT32, FLOAT16], ids=["float32", "float16"])
def test_adam_on_huge_page_buffers_equals_the_drivers_allocation_bitwise(adapter, monkeypatch, data_type):
    n = LARGE // NP[data_type]().itemsize + 5  # every tensor takes the huge-page path; a scalar tail remains
    state = random_state(np.random.default_rng(3), [1, 1, 1, n], NP[data_type])
    results = []
    for huge in (True, False):
        device = fresh_device(adapter, monkeypatch, huge)
        dispatch = AdamDispatch(device, adam_desc(data_type, [1, 1, 1, n]), inplace=True)
        seen, got = dispatch.step(state, 3)
        results.append(got)
    assert_matches_reference(results[0], seen, 3, data_type, 8 if data_type == FLOAT32 else 1)
    for name in OUTPUTS:
        assert results[0][name].tobytes() == results[1][name].tobytes(), name


@contextmanager
def held_queue(backend):
    """Hold the backend's in-order queue: every command enqueued from now on waits for the yielded gate.

    The gate opens at the latest on leaving, so a failing assertion cannot leave the queue (and the
    device's teardown, which waits for it) blocked for ever.
    """
    cl = backend.cl
    gate = cl.UserEvent(backend.context)
    cl.enqueue_marker(backend.queue, wait_for=[gate])
    del backend  # the caller may drop the device inside the block
    try:
        yield gate
    finally:
        open_gate(cl, gate)


def open_gate(cl, gate) -> None:
    with suppress(cl.Error):  # already open
        gate.set_status(cl.command_execution_status.COMPLETE)


def open_later(backend, gate, after: float) -> threading.Timer:
    """Let the held queue run ``after`` seconds from now (from another thread: the test is about to block)."""
    timer = threading.Timer(after, open_gate, (backend.cl, gate))
    timer.start()
    return timer


@needs_cpu
@pytest.mark.parametrize("adapter", OPENCL_CPU, ids=[a.short_label for a in OPENCL_CPU])
def test_a_buffer_dropped_while_queued_work_uses_it_keeps_its_memory_until_the_queue_is_past_it(adapter, monkeypatch):
    device = fresh_device(adapter, monkeypatch, huge=True)
    backend = device.backend
    with held_queue(backend):
        buffer = device.CreateBuffer(LARGE)  # its first-touch kernel waits behind the gate
        del buffer
        gc.collect()
        assert backend.host_memory.kept_bytes == LARGE
        device.CreateBuffer(4096)  # reaps: marks the queue, which has not passed the gate
        assert backend.host_memory.kept_bytes == LARGE
    backend.queue.finish()  # the touch kernel has run on the kept memory
    device.CreateBuffer(4096)  # the marker is passed: the memory goes
    assert backend.host_memory.kept_bytes == 0
    kept = device.CreateBuffer(LARGE)
    del kept
    gc.collect()
    device.CreateCommandQueue().WaitForIdle()  # a finished queue frees everything released before it
    assert backend.host_memory.kept_bytes == 0


@needs_cpu
@pytest.mark.parametrize("adapter", OPENCL_CPU, ids=[a.short_label for a in OPENCL_CPU])
def test_memory_released_faster_than_the_queue_runs_is_bounded(adapter, monkeypatch):
    device = fresh_device(adapter, monkeypatch, huge=True)
    backend = device.backend
    with held_queue(backend) as gate:
        buffer = device.CreateBuffer(LARGE)
        del buffer
        gc.collect()
        device.CreateBuffer(4096)  # marked behind the gate; under the limit, so no wait
        assert backend.host_memory.kept_bytes == LARGE
        monkeypatch.setattr(hostmem, "KEPT_BYTES_LIMIT", LARGE - 1)
        timer = open_later(backend, gate, after=0.2)
        device.CreateBuffer(4096)  # over the limit: waits until the queue is past the gate (the timer opens it)
        assert backend.host_memory.kept_bytes == 0
        timer.join()


@needs_cpu
@pytest.mark.parametrize("adapter", OPENCL_CPU, ids=[a.short_label for a in OPENCL_CPU])
def test_a_device_dropped_with_queued_work_waits_for_it_before_its_memory_goes(adapter, monkeypatch):
    device = fresh_device(adapter, monkeypatch, huge=True)
    backend = device.backend
    cl, keeper = backend.cl, weakref.ref(backend.host_memory)
    with held_queue(backend) as gate:
        buffer = device.CreateBuffer(LARGE)
        timer = open_later(backend, gate, after=0.2)
        del buffer, device, backend
        gc.collect()  # the keeper goes, and first waits for its queue (opened by the timer meanwhile)
        assert keeper() is None
        assert gate.command_execution_status == cl.command_execution_status.COMPLETE
        timer.join()
