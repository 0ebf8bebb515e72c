"""Which ICDs the OpenCL loader reads (OCL_ICD_VENDORS, OCL_ICD_FILENAMES), registering Intel's PyPI
runtime and NVIDIA's driver where no ICD names it, and `dmlsim doctor` / `dmlsim devices` telling the truth
about them.

pyopencl's bundled loader (ocl-icd) reads ``/etc/OpenCL/vendors`` (or the folder OCL_ICD_VENDORS
names) plus ``pyopencl/.libs``; an OCL_ICD_VENDORS that is not a folder is the only ICD it loads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dmlsim.backends.opencl import icd as icd_module
from dmlsim.backends.opencl import vendors
from dmlsim.backends.opencl.icd import icd_files, loader_notes, probe_icd
from dmlsim.backends.opencl.vendors import NVIDIA_LIBRARY, intel_library, register_intel, register_nvidia
from dmlsim.cli import main


@pytest.fixture
def loader(tmp_path, monkeypatch):
    """A fake system vendors folder and a fake pyopencl/.libs, each with one ICD file."""
    system, bundled = tmp_path / "etc-vendors", tmp_path / "libs"
    system.mkdir()
    bundled.mkdir()
    (system / "debian-pocl.icd").write_text("libpocl.so.2\n")
    (bundled / "pocl.icd").write_text("libpocl-abc.so")
    monkeypatch.setattr(icd_module, "SYSTEM_VENDORS", system)
    monkeypatch.setattr(icd_module, "bundled_vendors", lambda: bundled)
    return system, bundled


def test_unset_reads_the_system_folder_and_pyopencls_own(loader):
    system, bundled = loader
    assert icd_files({}) == [system / "debian-pocl.icd", bundled / "pocl.icd"]
    assert icd_files({"OCL_ICD_VENDORS": ""}) == icd_files({})


def test_a_folder_replaces_the_system_folder_only(loader, tmp_path):
    _system, bundled = loader
    other = tmp_path / "other"
    other.mkdir()
    (other / "intel-cpu.icd").write_text("/x/libintelocl.so\n")
    assert icd_files({"OCL_ICD_VENDORS": str(other)}) == [other / "intel-cpu.icd", bundled / "pocl.icd"]


def test_a_file_or_missing_path_is_the_only_icd(loader, tmp_path):
    one = tmp_path / "one.icd"
    one.write_text("x")
    assert icd_files({"OCL_ICD_VENDORS": str(one)}) == [one]
    assert icd_files({"OCL_ICD_VENDORS": "/nonexistent.icd"}) == [Path("/nonexistent.icd")]
    assert probe_icd(Path("/nonexistent.icd")).error.startswith("no such file")


def test_loader_notes_say_what_the_loader_ignores_or_cannot_find():
    assert loader_notes({}) == []
    (note,) = loader_notes({"OCL_ICD_FILENAMES": "/x/libfoo.so"})
    assert "ignores it" in note
    (note,) = loader_notes({"OCL_ICD_VENDORS": "/nonexistent.icd"})
    assert "does not exist" in note


def test_doctor_honours_a_vendors_path_that_names_nothing(monkeypatch, capsys):
    # the bug this guards: doctor said OK (it probed pyopencl/.libs) while `run` found no device
    monkeypatch.setenv("OCL_ICD_VENDORS", "/nonexistent.icd")
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert "no usable OpenCL device" in out and "/nonexistent.icd" in out and "OK" not in out


def test_devices_sees_what_the_loader_sees():
    env = {**os.environ, "OCL_ICD_VENDORS": "/nonexistent.icd"}
    result = subprocess.run([sys.executable, "-m", "dmlsim", "devices", "--json"], env=env, capture_output=True,
                            text=True, check=True)
    assert [row["kind"] for row in json.loads(result.stdout)] == ["reference"]
    assert "OCL_ICD_VENDORS=/nonexistent.icd does not exist" in result.stderr


def test_devices_shows_fp64_memory_and_compute_units(capsys):
    assert main(["devices"]) == 0
    out = capsys.readouterr().out
    assert "reference" in out and "fp64, host memory" in out
    from dmlsim.backends.adapters import opencl_adapters

    for adapter in opencl_adapters():
        assert adapter.compute_units > 0 and adapter.memory > 0
        assert f"{adapter.memory / 2**30:.1f} GiB, {adapter.compute_units} compute unit" in out


# --- registering Intel's runtime ----------------------------------------------------------------------------
def test_registration_writes_the_library_path_once(tmp_path):
    library = tmp_path / "lib" / "libintelocl.so"
    library.parent.mkdir()
    library.write_bytes(b"")
    folder = tmp_path / "libs"
    folder.mkdir()
    first = register_intel(folder, library)
    assert first.action == "written" and (folder / "intel-cpu.icd").read_text() == f"{library}\n"
    assert register_intel(folder, library).action == "unchanged"  # idempotent
    (folder / "intel-cpu.icd").write_text("/opt/anaconda1anaconda2anaconda3/lib/libintelocl.so\n")  # the wheel's
    assert register_intel(folder, library).action == "written"
    assert (folder / "intel-cpu.icd").read_text() == f"{library}\n"
    assert not list(folder.glob("*.tmp"))


def test_registration_removes_its_file_when_the_runtime_is_gone(tmp_path, monkeypatch):
    folder = tmp_path / "libs"
    folder.mkdir()
    (folder / "intel-cpu.icd").write_text("/gone/lib/libintelocl.so\n")
    (folder / "pocl.icd").write_text("libpocl-abc.so")
    monkeypatch.setattr(vendors, "intel_library", lambda: None)
    assert register_intel(folder).action.startswith("removed")
    assert [p.name for p in folder.iterdir()] == ["pocl.icd"]  # nothing else touched
    assert register_intel(folder).action == "not installed"


def test_without_a_bundled_loader_nothing_is_written(tmp_path, monkeypatch):
    library = tmp_path / "libintelocl.so"
    library.write_bytes(b"")
    monkeypatch.setattr(vendors, "bundled_vendors", lambda: None)
    outcome = register_intel(library=library)
    assert outcome.icd is None and "OCL_ICD_VENDORS" in outcome.action
    assert list(tmp_path.iterdir()) == [library]


INTEL = intel_library()


@pytest.mark.skipif(INTEL is None, reason="intel-opencl-rt (dmlsim[intel]) is not installed here")
def test_intel_runtime_registered_in_a_folder_is_a_usable_device(tmp_path):
    registration = register_intel(tmp_path, INTEL)
    report = probe_icd(registration.icd)
    assert report.error is None and report.usable, report
    assert all(d["implementation"] == "intel" for d in report.devices)


# --- registering NVIDIA's driver where no ICD names it (containers given the driver's libraries) ------------
@pytest.fixture
def nvidia(loader, monkeypatch):
    """The fake loader folders, NVIDIA's driver loadable, no Intel runtime, OCL_ICD_VENDORS unset."""
    monkeypatch.delenv("OCL_ICD_VENDORS", raising=False)
    monkeypatch.setattr(vendors, "bundled_vendors", icd_module.bundled_vendors)
    monkeypatch.setattr(vendors, "nvidia_library", lambda: NVIDIA_LIBRARY)
    monkeypatch.setattr(vendors, "intel_library", lambda: None)
    return loader


def test_an_nvidia_driver_no_icd_names_is_registered_once(nvidia):
    system, bundled = nvidia
    assert any("NVIDIA" in note for note in vendors.unregistered_runtimes())
    first = register_nvidia()
    assert first.action == "written" and (bundled / "nvidia.icd").read_text() == f"{NVIDIA_LIBRARY}\n"
    assert register_nvidia().action == "unchanged"
    assert vendors.unregistered_runtimes() == []
    assert icd_files({}) == [system / "debian-pocl.icd", bundled / "nvidia.icd", bundled / "pocl.icd"]
    assert not list(bundled.glob("*.tmp"))


def test_a_system_icd_for_the_nvidia_driver_is_not_doubled(nvidia):
    system, bundled = nvidia
    (bundled / "nvidia.icd").write_text(f"{NVIDIA_LIBRARY}\n")  # ours, from before the system got its own
    (system / "nvidia.icd").write_text("/usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1\n")
    outcome = register_nvidia()
    assert outcome.action.startswith("removed") and "already names the driver" in outcome.action
    assert sorted(p.name for p in bundled.iterdir()) == ["pocl.icd"]
    assert register_nvidia().action == "registered by the system"
    assert vendors.unregistered_runtimes() == []


def test_the_nvidia_icd_goes_when_the_driver_does(nvidia, monkeypatch):
    _system, bundled = nvidia
    (bundled / "nvidia.icd").write_text(f"{NVIDIA_LIBRARY}\n")
    monkeypatch.setattr(vendors, "nvidia_library", lambda: None)
    assert register_nvidia().action.startswith("removed")
    assert sorted(p.name for p in bundled.iterdir()) == ["pocl.icd"]
    assert register_nvidia().action == "not installed"
    assert vendors.unregistered_runtimes() == []
