"""Model files: DxDispatch-compatible JSON/YAML operator descriptions, with dmlsim's expectations.

Stages, kept apart as DxDispatch keeps them: :mod:`loader` (file → located tree),
:mod:`model` (tree → resources, dispatchables, commands; :mod:`descs` and :mod:`values` do the
details), :mod:`runner` (create, bind, dispatch, time on a device), :mod:`compare` (expectations).
The format is documented in docs/guides/model-files.md (the documentation site).
"""

from __future__ import annotations

from dmlsim.model.errors import Location, ModelError
from dmlsim.model.model import Model, load_model
from dmlsim.model.runner import (
    FAILED,
    INVALID,
    NOT_CHECKED,
    NOT_IMPLEMENTED,
    NOT_RUN,
    PASSED,
    SKIPPED,
    Outcome,
    Runner,
    RunResult,
    run_model,
    worst_exit_status,
)

MODEL_SUFFIXES = (".json", ".yaml", ".yml")

__all__ = ["FAILED", "INVALID", "MODEL_SUFFIXES", "NOT_CHECKED", "NOT_IMPLEMENTED", "NOT_RUN", "PASSED", "SKIPPED",
           "Location", "Model", "ModelError", "Outcome", "RunResult", "Runner", "load_model", "run_model",
           "worst_exit_status"]
