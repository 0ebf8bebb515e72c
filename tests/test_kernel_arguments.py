"""Kernel arguments are declared once, by name, and checked against the built kernel.

Every argument of a launch plan names the kernel parameter(s) it binds (dmlsim/operators/plan.py); the
OpenCL backend builds with -cl-kernel-arg-info and compares, once per program and entry point, the
kernel's CL_KERNEL_ARG_NAMEs with the plan's expansion. A plan whose arguments would land on the wrong
parameters fails at build with a KernelSignatureError (a dmlsim bug, not a DMLError) naming the kernel,
the position and both names. The expected messages below are written by hand.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dmlsim as dml
import dmlsim.backends.opencl.programs as programs_module
import dmlsim.backends.opencl.signatures as signatures_module
from dmlsim.backends.opencl.programs import ProgramCache
from dmlsim.entry import create_device
from dmlsim.operators.gemm import Gemm
from dmlsim.operators.plan import (
    BufferArg,
    HostArray,
    Items,
    KernelLaunch,
    KernelSignatureError,
    KernelSource,
    NullBuffer,
    Scalar,
    TemporaryArg,
    TensorArg,
    Vector,
    signature_mismatch,
)
from dmlsim.quick import run_operator

# A tiny kernel standing in for a kernel file (its source is patched in): one tensor and three scalars.
TINY = """
#define TENSOR(name) __global float *name##__base, ulong name##__offset, ulong4 name##__strides
__kernel void tiny(TENSOR(y), float alpha, float beta, uint n)
{
    if (get_global_id(0) < n)
        y__base[y__offset] = alpha * beta + (float)y__strides.x;
}
"""
SOURCE = KernelSource("dmlsim.operators.gemm")  # a real package file, its text replaced by TINY
KERNEL_NAMES = ("y__base", "y__offset", "y__strides", "alpha", "beta", "n")
Y = TensorArg("y", "OutputTensor")
ALPHA, BETA, N = Scalar("alpha", np.float32(2)), Scalar("beta", np.float32(3)), Scalar("n", np.uint32(1))


NO_NAMES = ".*gives no kernel parameter names"  # dmlsim's warning (pyopencl's own warnings stay warnings)
REAL_ANSWERED_NAMES = signatures_module.answered_names


def _params(*args):
    return KernelLaunch(SOURCE, "tiny", {}, Items(1), list(args)).params


@pytest.fixture
def tiny_cache(device, monkeypatch, tmp_path):
    """A fresh program cache on the device whose kernel file is TINY; source-build names kept in tmp_path, no
    device warned about yet."""
    if device.adapter.kind == "reference":
        pytest.skip("the reference device builds no OpenCL kernels")
    if device.adapter.kind == "SIMULATOR":
        # Oclgrind's context may be used only from its backend's own thread (dmlsim.backends.opencl.oclgrind);
        # these tests build programs on it directly. Every dispatch on Oclgrind still checks its names.
        pytest.skip("Oclgrind's context is driven from its backend's thread; these tests build on it directly")
    monkeypatch.setattr(programs_module, "kernel_source", lambda source: TINY)
    monkeypatch.setattr(signatures_module, "names_cache_dir", lambda: tmp_path / "names")
    monkeypatch.setattr(programs_module, "UNCHECKED_DEVICES", set())
    return ProgramCache(device.backend.context, device.backend.device)


def test_each_argument_kind_expands_to_its_parameter_names():
    launch = KernelLaunch(SOURCE, "k", {}, Items(1), [
        TensorArg("x", "InputTensor"), TensorArg("s", "ScaleTensor", scalar=True), BufferArg("g3", "G", 0),
        NullBuffer("g4"), TemporaryArg("temp", (("head__offset", 0), ("next__offset", 64))),
        HostArray("table", np.zeros(2, np.uint32)), Vector("sizes", (2, 3)), Scalar("alpha", np.float32(1))])
    assert launch.params == ("x__base", "x__offset", "x__strides", "s__base", "s__offset", "g3", "g4", "temp",
                             "head__offset", "next__offset", "table", "sizes", "alpha")


def test_an_unnamed_argument_is_refused_when_the_launch_is_planned():
    with pytest.raises(TypeError, match=r"kernel k: argument 1 .* names no kernel parameter"):
        KernelLaunch(SOURCE, "k", {}, Items(1), [Y, np.float32(2)])
    with pytest.raises(TypeError, match=r"Scalar\('alpha', 2.0\): the value must be a numpy scalar"):
        Scalar("alpha", 2.0)


def test_signature_mismatch_names_the_position_and_both_names():
    kernel = KERNEL_NAMES
    assert signature_mismatch(kernel, kernel) is None
    assert signature_mismatch(("y__base", "y__offset", "y__strides", "beta", "alpha", "n"), kernel) == (
        "argument 3 is declared 'beta' in the launch plan, but the kernel's parameter 3 is 'alpha'")
    assert signature_mismatch((*kernel, "extra"), kernel) == (
        "the launch plan declares 7 arguments, the kernel takes 6: argument 6 onwards ('extra') has no parameter")
    assert signature_mismatch(kernel[:4], kernel) == (
        "the launch plan declares 4 arguments, the kernel takes 6: parameter 4 onwards ('beta', 'n') is not declared")
    assert signature_mismatch(("axis_length",), ("_cl_axis_length",)) == (
        "argument 0 is declared 'axis_length' in the launch plan, but the kernel's parameter 0 is '_cl_axis_length' "
        "(PoCL's headers #define the OpenCL built-in axis_length() as _cl_axis_length, renaming a parameter of that "
        "name: give the parameter another name)")


def test_matching_declaration_builds(tiny_cache):
    kernel = tiny_cache.kernel(SOURCE, {}, "tiny", _params(Y, ALPHA, BETA, N))
    assert kernel.function_name == "tiny"


@pytest.mark.parametrize(("args", "problem"), [
    ((Y, BETA, ALPHA, N), "argument 3 is declared 'beta' in the launch plan, but the kernel's parameter 3 is 'alpha'"),
    ((Y, ALPHA, BETA, Scalar("count", np.uint32(1))),
     "argument 5 is declared 'count' in the launch plan, but the kernel's parameter 5 is 'n'"),
    ((TensorArg("y", "OutputTensor", scalar=True), ALPHA, BETA, N),
     "argument 2 is declared 'alpha' in the launch plan, but the kernel's parameter 2 is 'y__strides'"),
    ((Y, ALPHA, BETA), "the launch plan declares 5 arguments, the kernel takes 6: parameter 5 onwards ('n') is not "
                       "declared"),
], ids=["misordered", "misnamed", "strides-left-out", "one-missing"])
def test_a_wrong_declaration_fails_at_build_naming_kernel_position_and_names(tiny_cache, args, problem):
    with pytest.raises(KernelSignatureError) as info:
        tiny_cache.kernel(SOURCE, {}, "tiny", _params(*args))
    message = str(info.value)
    assert message.startswith("kernel tiny of dmlsim/operators/gemm/kernel.cl (options: -cl-std=CL1.2 "
                              "-cl-kernel-arg-info")
    assert problem in message
    assert "kernel:   y__base, y__offset, y__strides, alpha, beta, n" in message
    assert not isinstance(info.value, dml.DMLError)  # a dmlsim bug: no test expecting a refusal passes by it
    # the kernel's names are kept: the right declaration still builds, a wrong one still fails
    assert tiny_cache.kernel(SOURCE, {}, "tiny", _params(Y, ALPHA, BETA, N)).function_name == "tiny"
    with pytest.raises(KernelSignatureError):
        tiny_cache.kernel(SOURCE, {}, "tiny", _params(*args))


def test_every_driver_here_gives_parameter_names(tiny_cache, device):
    """PoCL, Oclgrind and Intel's runtime say CL_KERNEL_ARG_NAME (PoCL only with -cl-kernel-arg-info; Intel only
    for a program built from source, so a program from pyopencl's binary cache takes its names from one source
    build): on them every launch is checked, and nothing is warned."""
    platform = device.backend.device.platform.name
    if not any(name in platform for name in ("Portable Computing Language", "Oclgrind", "Intel")):
        pytest.skip(f"{platform!r}: whether its driver gives kernel parameter names is not known here")
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=NO_NAMES)
        tiny_cache.kernel(SOURCE, {}, "tiny", _params(Y, ALPHA, BETA, N))
    assert tiny_cache.checks_parameter_names is True


def _launched_kernel_answers_nothing(monkeypatch):
    """The next kernel asked answers no names (as Intel's does for a program from pyopencl's binary cache);
    the kernels of the source build asked next do."""
    asked = []

    def answered(kernel):
        asked.append(kernel.function_name)
        return None if len(asked) == 1 else REAL_ANSWERED_NAMES(kernel)

    monkeypatch.setattr(signatures_module, "answered_names", answered)


def test_names_a_binary_lacks_come_from_one_source_build_then_from_the_kept_file(tiny_cache, monkeypatch, tmp_path):
    """A kernel that answers no names is checked with the names of an uncached source build, kept on disk:
    the next process reads them and builds nothing; a damaged file is replaced by a new source build."""
    misordered = _params(Y, BETA, ALPHA, N)
    _launched_kernel_answers_nothing(monkeypatch)
    with pytest.raises(KernelSignatureError, match=r"argument 3 is declared 'beta' .* parameter 3 is 'alpha'"):
        tiny_cache.kernel(SOURCE, {}, "tiny", misordered)
    kept = list((tmp_path / "names").iterdir())
    assert len(kept) == 1 and kept[0].suffix == ".json"
    assert kept[0].read_text() == '{"tiny": ["y__base", "y__offset", "y__strides", "alpha", "beta", "n"]}'

    def no_build(*args):
        raise AssertionError("the kept names should have been read, not asked from a build")

    monkeypatch.setattr(signatures_module, "answered_names", lambda kernel: None)
    with monkeypatch.context() as patch:
        patch.setattr(signatures_module, "_build_and_ask", no_build)
        later = ProgramCache(tiny_cache.context, tiny_cache.device)  # another process, as far as names go
        with pytest.raises(KernelSignatureError, match="argument 3 is declared 'beta'"):
            later.kernel(SOURCE, {}, "tiny", misordered)
        assert later.kernel(SOURCE, {}, "tiny", _params(Y, ALPHA, BETA, N)).function_name == "tiny"

    kept[0].write_text('{"tiny": ["y__base", "alpha"]}')  # damaged: two names for six parameters
    _launched_kernel_answers_nothing(monkeypatch)
    with pytest.raises(KernelSignatureError, match="argument 3 is declared 'beta'"):
        ProgramCache(tiny_cache.context, tiny_cache.device).kernel(SOURCE, {}, "tiny", misordered)
    assert kept[0].read_text() == '{"tiny": ["y__base", "y__offset", "y__strides", "alpha", "beta", "n"]}'


def test_a_driver_without_names_is_not_checked_and_warns_once(tiny_cache, monkeypatch):
    """Where neither the kernel nor a source build gives names (an error, or empty names), the launch is not
    checked: one warning per device and process, and no source build is tried again."""
    cl = pytest.importorskip("pyopencl")
    builds = []
    build_and_ask = signatures_module._build_and_ask

    def unavailable(kernel):
        raise cl.RuntimeError("clGetKernelArgInfo failed: KERNEL_ARG_INFO_NOT_AVAILABLE")

    def counted(*args):
        builds.append(args)
        return build_and_ask(*args)

    monkeypatch.setattr(signatures_module, "kernel_parameter_names", unavailable)
    monkeypatch.setattr(signatures_module, "_build_and_ask", counted)
    with pytest.warns(RuntimeWarning, match="gives no kernel parameter names .*not even for a source build"):
        tiny_cache.kernel(SOURCE, {}, "tiny", _params(Y, BETA, ALPHA, N))  # unchecked: it builds
    assert tiny_cache.checks_parameter_names is False and len(builds) == 1
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=NO_NAMES)  # once per device: no more warnings, no more builds
        tiny_cache.kernel(SOURCE, {"OTHER": 1}, "tiny", _params(Y, ALPHA, BETA, N))
        ProgramCache(tiny_cache.context, tiny_cache.device).kernel(SOURCE, {}, "tiny", _params(Y, BETA, ALPHA, N))
    assert len(builds) == 2  # the second cache tried its one source build, silently

    monkeypatch.setattr(signatures_module, "kernel_parameter_names", lambda kernel: ("",) * kernel.num_args)
    monkeypatch.setattr(programs_module, "UNCHECKED_DEVICES", set())
    empty = ProgramCache(tiny_cache.context, tiny_cache.device)
    with pytest.warns(RuntimeWarning, match="gives no kernel parameter names"):
        empty.kernel(SOURCE, {}, "tiny", _params(Y, BETA, ALPHA, N))
    assert empty.checks_parameter_names is False


def _gemm_desc():
    tensor = lambda sizes: dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_FLOAT32, sizes)  # noqa: E731
    return dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_GEMM, dml.DML_GEMM_OPERATOR_DESC(
        tensor([2, 2]), tensor([2, 2]), None, tensor([2, 2]), dml.DML_MATRIX_TRANSFORM_NONE,
        dml.DML_MATRIX_TRANSFORM_NONE, 1.0, 1.0, None))


def test_an_operator_whose_plan_swaps_alpha_and_beta_fails_when_its_dispatch_is_prepared(device, monkeypatch):
    """GEMM's plan with Alpha and Beta exchanged (each still named: the order is wrong): with Alpha = Beta = 1
    no value would show it, the name check does."""
    if device.adapter.kind == "reference":
        pytest.skip("the reference device launches no kernels")
    original = Gemm.plan_launches

    def swapped(self, v, bound, target):
        launches = original(self, v, bound, target)
        for launch in launches:
            args = list(launch.args)
            i = next(i for i, arg in enumerate(args) if getattr(arg, "param", None) == "alpha")
            args[i], args[i + 1] = args[i + 1], args[i]
            launch.args = args
        return launches

    monkeypatch.setattr(Gemm, "plan_launches", swapped)
    inputs = {"ATensor": np.eye(2, dtype=np.float32), "BTensor": np.eye(2, dtype=np.float32)}
    with pytest.raises(KernelSignatureError, match=r"kernel gemm(_blocked)? of dmlsim/operators/gemm/kernel.cl .*: "
                                                   r"argument 13 is declared 'beta' in the launch plan, but the "
                                                   r"kernel's parameter 13 is 'alpha'"):
        run_operator(device, _gemm_desc(), inputs)
    monkeypatch.setattr(Gemm, "plan_launches", original)
    got = run_operator(device, _gemm_desc(), inputs)["OutputTensor"]
    np.testing.assert_array_equal(got, [[1, 0], [0, 1]])


def test_the_driver_is_asked_once_per_program_and_entry_point(adapter, monkeypatch):
    """Preparing a dispatch again (a new binding table) compares the plan with the kept names: the driver is
    not asked again, and a dispatch does no work for the check at all (it runs prepared kernels)."""
    if adapter.kind == "reference":
        pytest.skip("the reference device builds no OpenCL kernels")
    device = create_device(dml.DML_CREATE_DEVICE_FLAG_NONE, adapter)  # fresh: its program cache is empty
    asked = []
    original = signatures_module.kernel_parameter_names

    def counting(kernel):
        asked.append(kernel.function_name)
        return original(kernel)

    monkeypatch.setattr(signatures_module, "kernel_parameter_names", counting)
    inputs = {"ATensor": np.eye(2, dtype=np.float32), "BTensor": np.full((2, 2), 3, np.float32)}
    for run in range(3):
        got = run_operator(device, _gemm_desc(), inputs)["OutputTensor"]
        np.testing.assert_array_equal(got, np.full((2, 2), 3))
        if run == 0:  # the launched kernel (and, from a binary without names, the source build's kernels)
            first = list(asked)
            # gemm_blocked on CPU devices (GEMM's planner), gemm elsewhere; a source build's other entry points
            # (gemm_packed is built only with the packed path's defines)
            assert first[0] in {"gemm", "gemm_blocked"}
            assert set(first) <= {"gemm", "gemm_tiled", "gemm_blocked", "gemm_pack"}
    assert asked == first
    assert device.backend.programs.checks_parameter_names is not None
