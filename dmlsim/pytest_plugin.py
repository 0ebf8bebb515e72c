"""pytest plugin of dmlsim: every model file under a ``descriptors/`` directory is a test file.

Registered through the ``pytest11`` entry point. Each ``.json``/``.yaml``/``.yml`` file under a
directory named ``descriptors`` (names starting with ``_`` excepted, e.g. DxDispatch's
``_schema.json``) yields one item per dispatchable (``adam_basic.yaml::adam[reference]``: it is
created, or refused as its ``expectError`` says) and one per command (``::command-3[reference]``),
on every adapter of :func:`dmlsim.testing.test_adapters` — the adapters tests/conftest.py uses.
The model runs once per adapter; items report their part of that run. A broken file is a
collection error showing file:line:column and the key path. Items of an operator dmlsim does not
implement (its desc valid) are skipped, saying so. The same limits as ``dmlsim run`` apply: ``sourcePath``
reads regular files inside the model's folder only, ``writeFile`` writes inside the session's temporary
output folder only, and ``$DMLSIM_MEMORY_BUDGET`` (default 256M) bounds what a file may make dmlsim hold.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest

from dmlsim.entry import create_device
from dmlsim.model import (
    FAILED,
    INVALID,
    MODEL_SUFFIXES,
    NOT_IMPLEMENTED,
    NOT_RUN,
    SKIPPED,
    Model,
    ModelError,
    Outcome,
    RunResult,
    load_model,
)
from dmlsim.model.limits import Limits

_devices: dict[tuple[str, int], Any] = {}
_runs: dict[tuple[str, str], RunResult] = {}
_output_dir: list[Path] = []


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker every model item carries, so projects without dmlsim's pytest config get no warning."""
    config.addinivalue_line("markers", "device: runs on every adapter (OpenCL devices and the reference device)")


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    if (file_path.suffix.lower() in MODEL_SUFFIXES and "descriptors" in file_path.parts[:-1]
            and not file_path.name.startswith("_")):
        return ModelFile.from_parent(parent, path=file_path)
    return None


class ModelFile(pytest.File):
    """A model file: items for its dispatchables and commands, on every test adapter."""

    def collect(self) -> Any:
        from dmlsim.testing import test_adapters

        try:
            model = load_model(self.path, limits=Limits.from_env())
        except ModelError as exc:
            raise self.CollectError(f"invalid model file:\n{exc}") from None
        except ValueError as exc:  # a bad $DMLSIM_MEMORY_BUDGET
            raise self.CollectError(str(exc)) from None
        keys = [(name, spec.node.location.line) for name, spec in model.dispatchables.items()]
        keys += [(c.key, c.node.location.line) for c in model.commands]
        for adapter in test_adapters():
            for key, line in keys:
                item = ModelItem.from_parent(self, name=f"{key}[{adapter.short_label}]", model=model,
                                             adapter=adapter, key=key, line=line)
                item.add_marker(pytest.mark.device)
                yield item


class ModelItemFailedError(Exception):
    """An item's outcome was not ``passed``."""


class ModelItem(pytest.Item):
    def __init__(self, *, model: Model, adapter: Any, key: str, line: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model = model
        self.adapter = adapter
        self.key = key
        self.line = line

    def runtest(self) -> None:
        outcome: Outcome = _run(self.model, self.adapter).outcomes[self.key]
        if outcome.status in (SKIPPED, NOT_IMPLEMENTED):
            pytest.skip(outcome.message)
        if outcome.status in (FAILED, INVALID, NOT_RUN):
            raise ModelItemFailedError(outcome.describe())

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        from dmlsim.api.errors import DMLError

        if isinstance(excinfo.value, (ModelItemFailedError, DMLError)):
            return f"[{self.adapter.label}]\n{excinfo.value}"
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.line - 1, f"{self.path.name}::{self.name}"


def _device(adapter: Any, flags: int) -> Any:

    key = (adapter.index, flags)
    if key not in _devices:
        _devices[key] = create_device(flags, adapter)
    return _devices[key]


def _guarded_run(runner: Any) -> RunResult:
    """Run on an OpenCL device under :class:`dmlsim.testing.OpenCLDispatchGuard`: a dispatch that does not
    enqueue its kernels, or that computes with the reference math, fails every item of the model."""
    from dmlsim.testing import OpenCLDispatchGuard

    with OpenCLDispatchGuard() as guard:
        try:
            result = runner.run()
        except AssertionError:
            result = None
    if guard.violations or result is None:
        message = "the OpenCL device did not compute with its kernels:\n" + "\n".join(guard.violations[:5])
        result = RunResult(outcomes={key: Outcome(key, outcome.title, outcome.location, FAILED, message)
                                     for key, outcome in _all_outcomes(runner).items()})
    return result


def _all_outcomes(runner: Any) -> dict[str, Outcome]:
    model = runner.model
    outcomes = {spec.name: Outcome(spec.name, f"dispatchable '{spec.name}'", spec.node.location)
                for spec in model.dispatchables.values()}
    outcomes.update({c.key: Outcome(c.key, c.key, c.node.location)
                     for c in model.commands})
    return outcomes


def _run(model: Model, adapter: Any) -> RunResult:
    """The run of ``model`` on ``adapter`` (once per session); reference runs double as snapshots."""
    from dmlsim.backends.adapters import reference_adapter
    from dmlsim.model import Runner

    if not _output_dir:
        _output_dir.append(Path(tempfile.mkdtemp(prefix="dmlsim-models-")))
    path = str(model.path)
    key = (path, adapter.index)
    if key not in _runs:
        reference = None
        if model.needs_reference and adapter.kind != "reference":
            reference = _run(model, reference_adapter())
        device = _device(adapter, model.device_flags)
        runner = Runner(model, device, reference=reference, output_dir=_output_dir[0])
        if adapter.kind == "reference":
            _runs[key] = runner.run()
        else:
            _runs[key] = _guarded_run(runner)
    return _runs[key]
