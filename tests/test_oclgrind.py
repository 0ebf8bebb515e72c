"""The ``oclgrind`` adapter: Oclgrind's diagnostics become DMLErrors that name kernel, line and access.

The device tests need Oclgrind's ICD in this process: tests/matrix.py runs this file in its Oclgrind
tier with ``DMLSIM_REQUIRE_OCLGRIND=1``, which turns a missing Oclgrind into a failure rather than a
skip. Deliberately faulty kernels: the shared copy kernel (dmlsim/cl_kernels/copy.cl) told to copy more floats
than its buffers hold, a write-write race, and a read of uninitialized local memory.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import dmlsim as dml
from dmlsim.backends.adapters import OCLGRIND, opencl_adapters
from dmlsim.backends.opencl.icd import icd_files
from dmlsim.backends.opencl.oclgrind import CHECKS, OclgrindBackend, describe, parse_log
from dmlsim.backends.opencl.programs import kernel_source, source_origin
from dmlsim.backends.opencl.roofline import COPY_KERNEL
from dmlsim.backends.opencl.runtime import PreparedLaunch
from dmlsim.entry import create_device
from dmlsim.operators.plan import KernelSource

pytestmark = pytest.mark.oclgrind
ROOT = Path(__file__).resolve().parent.parent
OCLGRINDS = [a for a in opencl_adapters() if a.implementation == OCLGRIND]
REQUIRED = os.environ.get("DMLSIM_REQUIRE_OCLGRIND", "") not in ("", "0")

needs_oclgrind = pytest.mark.skipif(
    not OCLGRINDS and not REQUIRED,
    reason="Oclgrind's ICD is not visible in this process (tests/matrix.py runs these in its Oclgrind tier)")

# One message as Oclgrind 21.10 logs it (an invalid read), and a data race with its two entities.
LOGGED = """
Invalid read of size 4 at global memory address 0x2000000000020
\tKernel: copy
\tEntity: Global(0,0,0) Local(0,0,0) Group(0,0,0)
\t  %5 = load float, float addrspace(1)* %arrayidx, align 4
\tAt line 33 (column 23) of input.cl:
\t  dst[i] = src[i];
\t

Write-write data race at global memory address 0x2000000000000
\tKernel: race
\t
\tFirst entity:  Global(1,0,0) Local(1,0,0) Group(0,0,0)
\t  store float %conv, float addrspace(1)* %a, align 4
\tAt line 1 (column 10) of input.cl:
\t  a[0] = get_global_id(0);
\t
\tSecond entity: Global(0,0,0) Local(0,0,0) Group(0,0,0)
\t  store float %conv, float addrspace(1)* %a, align 4
\tAt line 1 (column 10) of input.cl:
\t  a[0] = get_global_id(0);
"""


def test_log_is_split_into_messages_with_kernel_line_and_statement():
    first, race = parse_log(LOGGED)
    assert first.headline == "Invalid read of size 4 at global memory address 0x2000000000020"
    assert (first.kernel, first.line, first.statement) == ("copy", (33, 23), "dst[i] = src[i];")
    assert race.headline.startswith("Write-write data race") and race.kernel == "race"
    assert "Second entity" in race.text  # indented lines after a tab-only line stay in the message


def test_error_text_names_file_line_statement_and_counts_every_kind():
    launch = SimpleNamespace(name="copy", source=COPY_KERNEL)
    text = describe(parse_log(LOGGED), launch, "running a test")
    copy_cl = ROOT / "dmlsim" / "cl_kernels" / "copy.cl"
    statement = copy_cl.read_text().splitlines()[33 - 1].strip()  # copy.cl includes nothing
    assert text.splitlines()[0] == (
        "Oclgrind: Invalid read of size 4 at global memory address 0x2000000000020 in "
        f"kernel copy at dmlsim/cl_kernels/copy.cl:33:23 (`{statement}`), while running a test")
    assert "2 diagnostics in all (1 × Invalid read of size 4; 1 × Write-write data race)" in text
    many = describe(parse_log(LOGGED * 7), launch, "x")
    assert "14 diagnostics in all" in many and "... and 4 more" in many


def test_source_lines_map_back_to_the_repository_file_they_come_from():
    # adam's kernel inlines shared headers: every line of the built source must come from the file and
    # line source_origin names (read here independently of the inlining code)
    source = KernelSource("dmlsim.operators.adam_optimizer")
    built = kernel_source(source).splitlines()
    files = set()
    for number, text in enumerate(built, start=1):
        label, line = source_origin(source, number)
        files.add(label)
        path = ROOT / label
        assert path.read_text().splitlines()[line - 1] == text, (number, label, line)
    assert any(f.startswith("dmlsim/cl_kernels/") for f in files)
    assert "dmlsim/operators/adam_optimizer/kernel.cl" in files


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, text in enumerate(path.read_text().splitlines(), start=1) if needle in text)


@pytest.fixture(scope="module")
def backend():
    if not OCLGRINDS:
        pytest.fail("DMLSIM_REQUIRE_OCLGRIND is set but Oclgrind's ICD is not visible in this process")
    device = create_device(dml.DML_CREATE_DEVICE_FLAG_NONE, OCLGRINDS[0])
    assert isinstance(device.backend, OclgrindBackend)
    return device.backend


def _launch(backend, program, entry, args, global_size, local_size, source=None):
    def make():  # on the backend's own thread, as every OpenCL call on Oclgrind
        kernel = backend.cl.Kernel(program, entry)
        kernel.set_args(*args)
        return kernel

    return PreparedLaunch(backend.on_device_thread(make), (global_size,), (local_size,), entry, args, source)


def _program(backend, source, defines):
    return backend.on_device_thread(backend.programs.program, source, defines)


@needs_oclgrind
def test_out_of_bounds_kernel_is_a_dmlerror_naming_kernel_line_and_access(backend):
    # copy.cl's tail loop copies floats 8 and 9 of 8-float buffers: two invalid reads, two invalid writes
    src, dst = backend.allocate(32), backend.allocate(32)
    program = _program(backend, COPY_KERNEL, {"VEC": 4})
    launch = _launch(backend, program, "copy", (src, dst, np.uint64(10)), 2, 1, COPY_KERNEL)
    dispatch = SimpleNamespace(prepared=[launch], compiled=SimpleNamespace(name="a deliberately bad copy"))
    with pytest.raises(dml.DMLError) as info:
        backend.submit(dispatch)
    message = str(info.value)
    assert info.value.hresult == dml.DXGI_ERROR_DEVICE_REMOVED
    line = _line_of(ROOT / "dmlsim/cl_kernels/copy.cl", "dst[i] = src[i];")
    assert f"in kernel copy at dmlsim/cl_kernels/copy.cl:{line}:" in message and "(`dst[i] = src[i];`)" in message
    assert "Invalid read of size 4" in message.splitlines()[0] and "a deliberately bad copy" in message
    # nothing is lost: every access Oclgrind reported is in the error
    assert "2 × Invalid read of size 4; 2 × Invalid write of size 4" in message
    texts = info.value.problems
    assert sum(t.startswith("Invalid read of size 4") for t in texts) == 2
    assert sum(t.startswith("Invalid write of size 4") for t in texts) == 2
    backend.check_log("after the error")  # and nothing is reported twice


@needs_oclgrind
@pytest.mark.parametrize(("source", "expected"), [
    ("__kernel void race(__global float *a) { a[0] = get_global_id(0); }", "Write-write data race"),
    ("__kernel void uninit(__global float *a) { __local float t[4]; a[get_local_id(0)] = t[get_local_id(0)]; }",
     "Uninitialized value"),
], ids=["data-race", "uninitialized"])
def test_data_race_and_uninitialized_checks_are_on(backend, source, expected):
    cl = backend.cl
    program = backend.on_device_thread(lambda: cl.Program(backend.context, source).build(
        options=list(backend.build_options)))
    entry = source.split("void ")[1].split("(")[0]
    launch = _launch(backend, program, entry, (backend.allocate(16),), 4, 4)
    with pytest.raises(dml.DMLError) as info:
        backend.run_bare(launch)
    assert expected in str(info.value) and f"in kernel {entry}" in str(info.value)


@needs_oclgrind
def test_correct_dispatches_report_nothing(backend):
    # the same copy, within bounds, on a fresh (zeroed by a write, so initialized) buffer
    src, dst = backend.allocate(40), backend.allocate(40)
    backend.write(src, 0, np.arange(10, dtype=np.float32).view(np.uint8))
    program = _program(backend, COPY_KERNEL, {"VEC": 4})
    backend.run_bare(_launch(backend, program, "copy", (src, dst, np.uint64(10)), 2, 1, COPY_KERNEL))
    assert np.frombuffer(backend.read(dst, 0, 40), np.float32).tolist() == list(range(10))


def test_every_check_is_configured():
    assert CHECKS["OCLGRIND_DATA_RACES"] == "1" and CHECKS["OCLGRIND_UNINITIALIZED"] == "1"
    assert int(CHECKS["OCLGRIND_MAX_ERRORS"]) >= 2**31 - 1  # Oclgrind's default drops all after 1000


@needs_oclgrind
def test_cli_runs_a_model_file_on_oclgrind(capsys):
    from dmlsim.cli import main

    assert main(["run", "-a", "oclgrind", str(ROOT / "descriptors" / "adam_inplace.yaml")]) == 0
    out = capsys.readouterr().out
    assert "Running on '" in out and "Oclgrind" in out and "11 passed" in out


@needs_oclgrind
def test_opencl_objects_are_made_and_released_on_the_backends_own_thread():
    """Oclgrind's runtime is bound to the thread that made its context (the module docstring of
    dmlsim.backends.opencl.oclgrind): a buffer made for another thread, then dropped there, stays held
    by the backend until its next call, which releases it on the backend's thread."""
    backend = create_device(dml.DML_CREATE_DEVICE_FLAG_NONE, OCLGRINDS[0]).backend  # nothing kept yet
    made, threads_seen = [], []
    worker = threading.Thread(target=lambda: made.append(backend.allocate(64)))
    worker.start()
    worker.join()
    backend.on_device_thread(lambda: threads_seen.append(threading.get_ident()))
    assert threads_seen != [worker.ident] and threads_seen != [threading.get_ident()]
    assert len(backend._kept) == 1
    made.clear()  # its last user lets go of it: not released here ...
    assert len(backend._kept) == 1
    backend.wait()  # ... but by the backend's next call, on its own thread
    assert backend._kept == []


# Issue 26 item 1 as filed: two threads sharing one Oclgrind device and queue, each executing its own
# dispatch and reading its output, and a third creating buffers, killed the process (SIGSEGV) every time.
THREADS_SCRIPT = """
import threading
import numpy as np
import dmlsim as dml
from dmlsim.quick import prepare_operator

device = dml.DMLCreateDevice(dml.DML_CREATE_DEVICE_FLAG_NONE, adapter="oclgrind")
t = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_FLOAT32, [1, 1, 1, 64])
step = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_UINT32, [1, 1, 1, 1])
desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ADAM_OPTIMIZER, dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC(
    t, t, t, t, step, t, t, t, LearningRate=0.5, Beta1=0.9, Beta2=0.999, Epsilon=1e-8))
inputs = {"GradientTensor": np.ones(64, np.float32), "TrainingStepTensor": np.array([1], np.uint32)}
queue = device.CreateCommandQueue()
results, errors = {}, []

def work(i):
    try:
        if i == 2:
            for n in range(8):
                buffer = device.CreateBuffer(256)
                buffer.Write(np.full(64, n, np.uint32))
                assert buffer.read_array(np.uint32).tolist() == [n] * 64
            return
        prepared = prepare_operator(device, desc, inputs, inplace=True)
        cmd = prepared.record()
        for _ in range(3):
            queue.ExecuteCommandLists([cmd])
            queue.WaitForIdle()
            results[i] = prepared.read("InputParametersTensor")
    except BaseException as exc:
        errors.append(repr(exc))

threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
assert not errors, errors
print(len(results), *(float(v) for i in sorted(results) for v in results[i].ravel()))
"""


def _oclgrind_icd():
    # this process's OCL_ICD_VENDORS may name one other ICD (tests/matrix.py, tools/mutants.py): look at all
    found = [path for path in icd_files({}) + icd_files() if "oclgrind" in path.name.lower()]
    if not found and not REQUIRED:
        pytest.skip("no Oclgrind ICD (an oclgrind*.icd in the OpenCL loader's folders) on this machine")
    assert found, "DMLSIM_REQUIRE_OCLGRIND is set but no Oclgrind ICD is found"
    return found[0]


def test_threads_sharing_an_oclgrind_device_in_a_process_of_their_own():
    """In a child process that loads only Oclgrind's ICD, so that every run of the suite checks it (a crash
    is that process's signal, not pytest's). Each thread's X after its three steps (T = 1, G = 1, from
    zeros) is the documented formula's, transcribed here in float64."""
    env = {**os.environ, "OCL_ICD_VENDORS": str(_oclgrind_icd())}
    result = subprocess.run([sys.executable, "-c", THREADS_SCRIPT], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=600, check=False)
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout}\n{result.stderr[-3000:]}"
    x = m = v = 0.0
    for _ in range(3):
        m, v = 0.9 * m + 0.1, 0.999 * v + 0.001
        x -= 0.5 * np.sqrt(1 - 0.999) / (1 - 0.9) * m / (np.sqrt(v) + 1e-8)
    count, *values = result.stdout.split()
    assert count == "2" and len(values) == 2 * 64, result.stdout
    np.testing.assert_allclose(np.array(values, float), x, rtol=1e-5)
