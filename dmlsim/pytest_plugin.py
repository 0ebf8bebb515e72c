"""pytest plugin of dmlsim: the model files of a project's descriptor folders are test files.

Registered through the ``pytest11`` entry point, so it is active in every project of an environment
where dmlsim is installed — and therefore collects nothing unless a project opts in (a
``descriptors/config.json`` of an unrelated project stays an ordinary file):

- the ini option ``dmlsim_descriptors`` names descriptor folders, relative to the ini file
  (``dmlsim_descriptors = ["descriptors"]`` under ``[tool.pytest.ini_options]``);
- an empty marker file named ``.dmlsim-descriptors`` makes its folder a descriptor folder;
- a model file named on the command line is collected wherever it is (as pytest does for a
  ``.py`` file named explicitly).

In a descriptor folder and its subfolders, each ``.json``/``.yaml``/``.yml`` file (names starting
with ``_`` excepted, e.g. DxDispatch's ``_schema.json``) yields one item per dispatchable
(``adam_basic.yaml::adam[reference]``: it is created, or refused as its ``expectError`` says) and one
per command (``::command-3[reference]``), on every adapter of :func:`dmlsim.testing.test_adapters` —
the adapters tests/conftest.py uses. The model runs once per adapter (in each process: under
pytest-xdist every worker that gets an item of a file runs that file itself; the items of one file
carry ``xdist_group`` marks, so ``--dist loadgroup`` keeps them on one worker); items report their
part of that run. A broken file is a collection error showing file:line:column and the key path.
Items of an operator dmlsim does not implement (its desc valid) are skipped, saying so, and so are
items that did not run because an earlier command of the same model stopped the run (that command
fails). The same limits as ``dmlsim run`` apply:
``sourcePath`` reads regular files inside the model's folder only, ``writeFile`` writes inside the
session's temporary output folder only, and ``$DMLSIM_MEMORY_BUDGET`` (default 256M) bounds what a file
may make dmlsim hold.
"""

from __future__ import annotations

import shutil
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


INI_OPTION = "dmlsim_descriptors"
MARKER_FILE = ".dmlsim-descriptors"
_MARKED = pytest.StashKey[dict[Path, bool]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(INI_OPTION, type="paths", default=[],
                  help=f"descriptor folders (relative to the ini file) whose model files dmlsim collects as tests; "
                       f"a folder holding a {MARKER_FILE} file is one too")


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker every model item carries, so projects without dmlsim's pytest config get no warning."""
    config.addinivalue_line("markers", "device: runs on every adapter (OpenCL devices and the reference device)")
    config.stash[_MARKED] = {}


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the session's output folder (files that model commands wrote): one per pytest process, which
    mutation runs and xdist workers would otherwise leave behind by the hundred."""
    while _output_dir:
        shutil.rmtree(_output_dir.pop(), ignore_errors=True)


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    if file_path.suffix.lower() not in MODEL_SUFFIXES or file_path.name.startswith("_"):
        return None
    if parent.session.isinitpath(file_path) or is_descriptor_file(parent.config, file_path):
        return ModelFile.from_parent(parent, path=file_path)
    return None


def is_descriptor_file(config: pytest.Config, path: Path) -> bool:
    """Whether ``path`` lies in a folder the project opted in: named by the ini option, or marked."""
    folders: list[Path] = config.getini(INI_OPTION)
    return any(path.is_relative_to(folder) for folder in folders) or _marked(config, path.parent)


def _marked(config: pytest.Config, folder: Path) -> bool:
    """Whether ``folder`` or one of its parents holds the marker file (cached per folder)."""
    cache = config.stash[_MARKED]
    if folder not in cache:
        parent = folder.parent
        cache[folder] = (folder / MARKER_FILE).is_file() or (parent != folder and _marked(config, parent))
    return cache[folder]


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
        # pytest-xdist's --dist loadgroup then sends all items of this file to one worker: one run of the model
        group = pytest.mark.xdist_group(self.nodeid) if self.config.pluginmanager.has_plugin("xdist") else None
        for adapter in test_adapters():
            for key, line in keys:
                item = ModelItem.from_parent(self, name=f"{key}[{adapter.short_label}]", model=model,
                                             adapter=adapter, key=key, line=line)
                item.add_marker(pytest.mark.device)
                if group is not None:
                    item.add_marker(group)
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
        if outcome.status == NOT_RUN:
            # An earlier command of this model stopped the run (its own item fails). Reported at this item's
            # line of the model file, since the reason alone does not say which file it was.
            raise pytest.skip.Exception(outcome.message, _use_item_location=True)
        if outcome.status in (SKIPPED, NOT_IMPLEMENTED):  # the same reason for many items: -rs groups them
            pytest.skip(outcome.message)
        if outcome.status in (FAILED, INVALID):
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
