"""The export folder: models, their data and manifests, an index, and a script that runs them with DxDispatch.

Layout of a folder written by ``dmlsim export`` (``STEM`` is the model file's name without suffix)::

    STEM.json                  the DxDispatch model (runs unchanged: dxdispatch.exe STEM.json)
    STEM.data/*.npy            its initializers (random, file, long lists) and long expected values
    _STEM.manifest.json        the checks: for each writeFile of an expectation, the values and tolerance
    _index.json                every exported model, and every model file not exported with the reason
    run_dxdispatch.cmd         runs every model with DxDispatch, results into one folder

Non-model JSON files start with ``_`` (as DxDispatch's own ``_schema.json``), so a loop over ``*.json``
without them, or ``dmlsim``'s folder collection, sees only models. Each model writes its results
under ``STEM/`` relative to DxDispatch's output path (the current directory by default).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dmlsim.model import MODEL_SUFFIXES
from dmlsim.model.export import MANIFEST_FORMAT, MANIFEST_VERSION, ModelExport, safe_name

INDEX = "_index.json"
RUN_SCRIPT = "run_dxdispatch.cmd"


def manifest_name(stem: str) -> str:
    return f"_{stem}.manifest.json"


def model_files(paths: Iterable[str | Path]) -> list[Path]:
    """The model files named, and those in the folders named (recursively; names starting with ``_`` or ``.``
    are not models, as in the pytest plugin)."""
    found: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in MODEL_SUFFIXES
                            and not any(part.startswith(("_", ".")) for part in p.relative_to(path).parts))
        else:
            found.append(path)
    return found


def unique_stems(files: Sequence[Path]) -> list[str]:
    """A distinct file stem per model (``adam``, ``adam-2`` when two files share one)."""
    stems: list[str] = []
    for path in files:
        base = safe_name(path.stem)
        stem, n = base, 1
        while stem.lower() in {s.lower() for s in stems}:  # Windows file names ignore case
            n += 1
            stem = f"{base}-{n}"
        stems.append(stem)
    return stems


def dumps(value: Any, indent: int = 0) -> str:
    """JSON with objects indented and lists of numbers or strings on one line (strict JSON: no NaN)."""
    pad = "  " * (indent + 1)
    if isinstance(value, dict) and value:
        items = [f"{pad}{json.dumps(k)}: {dumps(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return "[\n" + ",\n".join(pad + dumps(v, indent + 1) for v in value) + "\n" + "  " * indent + "]"
    return json.dumps(value, allow_nan=False, separators=(", ", ": "))


def write_model(export: ModelExport, folder: Path) -> None:
    """The model, its data files and its manifest into ``folder``."""
    (folder / f"{export.stem}.json").write_text(dumps(export.document) + "\n", encoding="utf-8")
    for relative, array in export.arrays.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        np.save(target, array)
    (folder / manifest_name(export.stem)).write_text(dumps(export.manifest) + "\n", encoding="utf-8")


def write_index(folder: Path, exported: Sequence[ModelExport], left_out: Sequence[tuple[str, str]]) -> None:
    """``_index.json`` and ``run_dxdispatch.cmd`` for the models written into ``folder``."""
    index = {"format": MANIFEST_FORMAT, "version": MANIFEST_VERSION,
             "models": [{"model": f"{e.stem}.json", "manifest": manifest_name(e.stem), "source": e.manifest["source"],
                         "checks": len(e.manifest["checks"]), "notExported": len(e.manifest["notExported"])}
                        for e in exported],
             "notExported": [{"source": source, "why": why} for source, why in left_out]}
    (folder / INDEX).write_text(dumps(index) + "\n", encoding="utf-8")
    (folder / RUN_SCRIPT).write_bytes(run_script([e.stem for e in exported]).encode("ascii").replace(b"\n", b"\r\n"))


def run_script(stems: Sequence[str]) -> str:
    """A Windows batch file running DxDispatch on each model, from inside the results folder (DxDispatch's
    default output path), so each model's writeFile targets land in RESULTS\\STEM\\."""
    lines = [
        "@echo off",
        "rem Runs every model dmlsim exported into this folder with DxDispatch (dmlsim README: 'dmlsim export').",
        "rem Usage: run_dxdispatch.cmd [RESULTS_FOLDER]   (default: the folder 'results' beside this script)",
        "rem DxDispatch is %DXDISPATCH% when set, else dxdispatch.exe on the PATH; %DXDISPATCH_ARGS% (e.g. -a Intel)",
        "rem is added to every call. Each model's console output goes",
        "rem to RESULTS_FOLDER\\STEM.log. Then bring RESULTS_FOLDER back and run:",
        "rem   dmlsim compare THIS_FOLDER RESULTS_FOLDER",
        "setlocal",
        'set "HERE=%~dp0"',
        'set "RESULTS=%~1"',
        'if "%RESULTS%"=="" set "RESULTS=%HERE%results"',
        'if "%DXDISPATCH%"=="" set "DXDISPATCH=dxdispatch.exe"',
        'if not exist "%RESULTS%" mkdir "%RESULTS%"',
        'pushd "%RESULTS%" || exit /b 2',
        "set FAILED=0",
    ]
    for stem in stems:
        lines += [f"echo {stem}.json",
                  f'"%DXDISPATCH%" "%HERE%{stem}.json" %DXDISPATCH_ARGS% > "{stem}.log" 2>&1 || '
                  f'(set FAILED=1& echo   DxDispatch failed: see {stem}.log)']
    lines += ["popd", "exit /b %FAILED%", ""]
    return "\n".join(lines)


def read_json(path: Path) -> Any:
    """A JSON file written by :func:`dumps` (ValueError/OSError for a broken or missing one)."""
    return json.loads(path.read_text(encoding="utf-8"))
