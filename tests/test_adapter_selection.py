"""Adapter selection rules (dmlsim.backends.adapters): indices, P:D, names, ambiguity, pyopencl's variables.

The rules are checked on a made-up list of adapters (no OpenCL needed), then pyopencl's own variables
on the devices present, then the CLI's exit status for an ambiguous name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import dmlsim as dml
from dmlsim.backends import adapters as adapters_module
from dmlsim.backends.adapters import AdapterInfo, implementation_of, match_adapter, opencl_adapters, select_adapter
from dmlsim.cli import main
from dmlsim.testing import test_adapters

ROOT = Path(__file__).resolve().parent.parent
POCL_VERSION = "OpenCL 3.0 PoCL 3.0-rc2  Linux, Release, RELOC, LLVM 14.0.6, SLEEF, DISTRO, POCL_DEBUG"
FAKE = [
    AdapterInfo("0:0", "Portable Computing Language", "pthread-AMD EPYC", "CPU", POCL_VERSION,
                vendor="AuthenticAMD", implementation="pocl", ordinal=0),
    AdapterInfo("1:0", "Intel(R) OpenCL", "AMD EPYC", "CPU", "OpenCL 3.1 LINUX",
                vendor="Intel(R) Corporation", implementation="intel", ordinal=1),
    AdapterInfo("2:0", "Oclgrind", "Oclgrind Simulator", "SIMULATOR", "OpenCL 1.2 (Oclgrind 21.10)",
                vendor="Oclgrind", implementation="oclgrind", ordinal=2),
    AdapterInfo("3:0", "NVIDIA CUDA", "NVIDIA H100", "GPU", "OpenCL 3.0 CUDA 12.4",
                vendor="NVIDIA Corporation", implementation="nvidia", ordinal=3),
    AdapterInfo("3:1", "NVIDIA CUDA", "NVIDIA H100", "GPU", "OpenCL 3.0 CUDA 12.4",
                vendor="NVIDIA Corporation", implementation="nvidia", ordinal=4),
]


def _pick(spec):
    return match_adapter(spec, FAKE).index


def _refused(spec):
    with pytest.raises(dml.DMLError) as info:
        match_adapter(spec, FAKE)
    assert info.value.hresult == dml.E_INVALIDARG
    return str(info.value)


def test_integers_are_indices_never_substrings_of_a_version():
    # "1" and "4" occur in "LLVM 14.0.6": they must still mean the 2nd and 5th device
    assert [_pick(s) for s in ("0", "1", "4", " 2 ")] == ["0:0", "1:0", "3:1", "2:0"]
    assert "adapter index 5 matches no device" in _refused("5")


def test_platform_device_pairs_are_indices():
    assert [_pick(s) for s in ("0:0", "3:1")] == ["0:0", "3:1"]
    assert "matches no device" in _refused("0:1")


@pytest.mark.parametrize(("spec", "index"), [
    ("intel", "1:0"), ("INTEL", "1:0"), ("Intel(R) Corporation", "1:0"),  # implementation word, vendor
    ("pocl", "0:0"), ("PoCL", "0:0"), ("portable", "0:0"), ("pthread", "0:0"),  # word, platform, device name
    ("oclgrind", "2:0"), ("Simulator", "2:0"),
])
def test_names_match_name_vendor_platform_and_type_case_insensitively(spec, index):
    assert _pick(spec) == index


def test_ambiguous_names_are_refused_listing_every_candidate():
    message = _refused("cpu")  # PoCL's and Intel's devices are both CPUs
    assert "ambiguous" in message and FAKE[0].label in message and FAKE[1].label in message
    assert FAKE[2].label not in message
    message = _refused("epyc")  # in both device names
    assert FAKE[0].label in message and FAKE[1].label in message
    assert "ambiguous" in _refused("gpu") and "ambiguous" in _refused("nvidia")


def test_type_words_are_whole_words_and_versions_are_not_searched():
    assert "matches no device" in _refused("cp")  # not a type word, in no name
    assert "matches no device" in _refused("LLVM")  # only in the version string
    assert "matches no device" in _refused("rc2")


def test_no_match_lists_every_adapter_and_reference():
    message = _refused("no-such-device")
    assert all(a.label in message for a in FAKE) and "reference" in message


def test_implementation_words():
    assert implementation_of("Portable Computing Language", POCL_VERSION) == "pocl"
    assert implementation_of("Portable Computing Language", "OpenCL 1.2") == "pocl"
    assert implementation_of("Intel(R) OpenCL", "OpenCL 3.1 LINUX") == "intel"
    assert implementation_of("Oclgrind", "OpenCL 1.2 (Oclgrind 21.10)") == "oclgrind"
    assert implementation_of("Some Vendor CL", "OpenCL 3.0") == "some"


def test_default_never_chooses_a_simulator(monkeypatch):
    from dmlsim.backends.opencl import probe as probe_module

    monkeypatch.delenv("DMLSIM_ADAPTER", raising=False)
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    monkeypatch.setattr(probe_module, "probe", lambda adapter: None)
    monkeypatch.setattr(adapters_module, "opencl_adapters", lambda: [FAKE[2], FAKE[1]])
    assert select_adapter(None).index == "1:0"
    monkeypatch.setattr(adapters_module, "opencl_adapters", lambda: [FAKE[2]])
    with pytest.raises(dml.DMLError) as info:
        select_adapter(None)
    assert info.value.hresult == dml.DXGI_ERROR_UNSUPPORTED and "not chosen by default" in str(info.value)
    assert select_adapter("oclgrind").index == "2:0"  # but it is there when named


def test_cli_refuses_an_ambiguous_adapter_with_exit_2(monkeypatch, capsys):
    monkeypatch.setattr(adapters_module, "opencl_adapters", lambda: FAKE)
    assert main(["run", "-a", "cpu", str(ROOT / "descriptors" / "adam_float32.yaml")]) == 2
    err = capsys.readouterr().err
    assert "ambiguous" in err and FAKE[0].label in err and FAKE[1].label in err


# --- pyopencl's variables, on the OpenCL devices present -------------------------------------------------
PRESENT = [a for a in opencl_adapters() if a.kind != "SIMULATOR"]
needs_opencl = pytest.mark.skipif(not PRESENT, reason="no OpenCL device in this process: nothing to choose")


@needs_opencl
def test_pyopencl_ctx_chooses_the_default_adapter(monkeypatch):
    monkeypatch.delenv("DMLSIM_ADAPTER", raising=False)
    last = PRESENT[-1]
    platform, device = last.index.split(":")
    monkeypatch.setenv("PYOPENCL_CTX", f"{platform}:{device}")
    assert select_adapter(None).index == last.index
    monkeypatch.setenv("PYOPENCL_CTX", f"{last.platform[:5].lower()}:{device}")  # pyopencl: platform name part
    assert select_adapter(None).platform == last.platform
    monkeypatch.setenv("DMLSIM_ADAPTER", "reference")  # dmlsim's own variable comes first
    assert select_adapter(None).kind == "reference"


@needs_opencl
def test_pyopencl_ctx_that_pyopencl_refuses_is_a_dmlerror(monkeypatch):
    monkeypatch.delenv("DMLSIM_ADAPTER", raising=False)
    monkeypatch.setenv("PYOPENCL_CTX", "no-such-platform-xyz")
    with pytest.raises(dml.DMLError) as info:
        select_adapter(None)
    assert info.value.hresult == dml.E_INVALIDARG and "PYOPENCL_CTX='no-such-platform-xyz'" in str(info.value)


@needs_opencl
def test_pyopencl_test_chooses_the_test_devices(monkeypatch):
    monkeypatch.delenv("DMLSIM_TEST_ADAPTERS", raising=False)
    target = PRESENT[-1]
    monkeypatch.setenv("PYOPENCL_TEST", target.index)  # "P:D" in pyopencl's syntax: platform P, device D
    assert [a.index for a in test_adapters()] == [target.index, "reference"]
    monkeypatch.setenv("PYOPENCL_TEST", "no-such-platform-xyz")
    with pytest.raises(dml.DMLError) as info:
        test_adapters()
    assert "PYOPENCL_TEST='no-such-platform-xyz'" in str(info.value)
