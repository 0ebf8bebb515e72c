"""Adapter selection, and OpenCL devices that cannot build kernels failing clearly.

PyPI's PoCL 3.0 (LLVM 14) rejects CPUs LLVM 14 does not know ("unknown target CPU 'generic'"). Where
such a device is present, dmlsim must not pick it by default and must say what is wrong when it is
chosen explicitly; these tests pin that. Where every device works, the parametrized test has no cases
and it is reported as skipped with that reason.
"""

from __future__ import annotations

import pytest

import dmlsim as dml
from dmlsim.backends.adapters import select_adapter
from dmlsim.entry import create_device
from dmlsim.testing import unusable_opencl_adapters, usable_opencl_adapters

UNUSABLE = unusable_opencl_adapters()


_CASES = [pytest.param(a, why, id=a.short_label) for a, why in UNUSABLE] or [
    pytest.param(None, None, id="none", marks=pytest.mark.skip(
        reason="every OpenCL device present builds kernels: no unusable device to check"))]


@pytest.mark.parametrize(("adapter_info", "problem"), _CASES)
def test_unusable_device_fails_with_build_log(adapter_info, problem):
    device = create_device(0, adapter_info)
    t = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_FLOAT32, [1, 1, 1, 8])
    step = dml.buffer_tensor(dml.DML_TENSOR_DATA_TYPE_UINT32, [1, 1, 1, 1])
    desc = dml.DML_ADAM_OPTIMIZER_OPERATOR_DESC(t, t, t, t, step, t, t, t, 0.1, 0.9, 0.999, 1e-8)
    from dmlsim.quick import run_operator

    with pytest.raises(dml.DMLError) as info:
        run_operator(device, dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_ADAM_OPTIMIZER, desc), {})
    assert info.value.hresult == dml.E_FAIL
    message = str(info.value)
    assert "adam_optimizer/kernel.cl" in message and "build log" in message and "options:" in message
    assert problem.split(":")[-1].strip() in message


def test_default_adapter_is_usable():
    if not usable_opencl_adapters():
        with pytest.raises(dml.DMLError) as info:
            select_adapter(None)
        assert info.value.hresult == dml.DXGI_ERROR_UNSUPPORTED
        return
    chosen = select_adapter(None)
    assert chosen in usable_opencl_adapters()


def test_reference_adapter_by_name():
    assert select_adapter("reference").kind == "reference"


def test_unknown_adapter_lists_choices():
    with pytest.raises(dml.DMLError) as info:
        select_adapter("no-such-device-xyz")
    assert info.value.hresult == dml.E_INVALIDARG
    assert "reference" in str(info.value)


@pytest.mark.parametrize(("adapter_info", "problem"), _CASES)
def test_no_usable_device_says_what_to_use_instead(adapter_info, problem):
    """With only unusable devices, the default adapter's error names each one's problem, and where the problem is
    PyPI PoCL's unknown CPU, it points at the implementations that do build there (not at PyPI's PoCL again)."""
    from dmlsim.backends.adapters import _first_usable

    with pytest.raises(dml.DMLError) as info:
        _first_usable([adapter_info])
    message = str(info.value)
    assert info.value.hresult == dml.DXGI_ERROR_UNSUPPORTED
    assert adapter_info.label in message and problem in message
    if "unknown target CPU" in problem:
        assert "does not know this processor" in message and "dmlsim[intel]" in message
        assert "pip install 'dmlsim[pocl]'" not in message
