"""What the operator's planner chose for a bench point, in words: recorded in the bench output (issue 25)."""

from __future__ import annotations

from typing import Any

# build defines worth naming beside a kernel's entry point (GEMM's register block and B's vector loads)
NAMED_DEFINES = ("MR", "NV", "VN", "B_UNIT_N")


def planned_kernels(prepared: Any) -> str:
    """The kernels a prepared dispatch (dmlsim.quick.PreparedDispatch) launches on its device, each with the
    planner's block defines: ``gemm_blocked(MR=8 NV=2 VN=8 B_UNIT_N)``; the reference device runs numpy."""
    backend = prepared.device.backend
    target = getattr(backend, "target", None)
    if target is None:
        return "reference device (float64 numpy)"
    resolved = prepared.table.resolved(backend)
    compiled = resolved.compiled
    launches = compiled.operator.plan_launches(compiled.validated, resolved.bound, target)
    described = []
    for launch in launches:
        flags = [name if value is True else f"{name}={value}" for name in NAMED_DEFINES
                 if (value := launch.defines.get(name)) not in (None, False)]
        described.append(f"{launch.entry}({' '.join(flags)})" if flags else launch.entry)
    return ", ".join(described)
