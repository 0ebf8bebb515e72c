"""The planners' choices, read without a device of the kind planned for: the launches an operator plans for a
``LaunchTarget`` (CPU or GPU, whether work-items are SIMD lanes), bound as :class:`dispatch.Dispatch` binds it.
A support module, apart from tests/dispatch.py, which uses dmlsim's public API only."""

from __future__ import annotations

from typing import Any

from dispatch import Dispatch

import dmlsim as dml
from dmlsim.operators.plan import LaunchTarget


def planned_launches(ref_device: dml.Device, op_desc: dml.DML_OPERATOR_DESC, target: LaunchTarget) -> list[Any]:
    """The launches (dmlsim.operators.plan.KernelLaunch) the operator plans for ``target``."""
    resolved = Dispatch(ref_device, op_desc).table.resolved(ref_device.backend)
    return list(resolved.compiled.operator.plan_launches(resolved.compiled.validated, resolved.bound, target))


def planned_entries(ref_device: dml.Device, op_desc: dml.DML_OPERATOR_DESC, is_cpu: bool) -> list[str]:
    """The kernel entry points the operator plans for a CPU or a GPU launch target of 2 compute units."""
    return [launch.entry for launch in planned_launches(ref_device, op_desc, LaunchTarget(is_cpu, 2))]
