"""Checking DxDispatch's written outputs against an export's manifests (``dmlsim compare``).

Each manifest check names a result file (``STEM/command-N-RESOURCE.npy``, or ``.bin`` raw bytes, as
DxDispatch's writeFile writes them), the resource's data type, its buffer size and where its values
sit. A result may hold the whole buffer (DxDispatch writes every byte of the resource; a ``.npy`` of
``sizeInBytes // element size`` elements) or exactly the expected region (an older dmlsim's
writeFile): the values at ``byteOffset`` are compared with the manifest's, with the tolerance the
model's expectation gave (dmlsim's own comparison, :func:`dmlsim.model.compare.compare_values`).

Outcomes per check: ``match``, ``mismatch`` (exit status 1: the positions, values and ulps are listed),
``missing`` or ``malformed`` (exit status 2: the file is absent, unreadable, of another data type or
size); a broken export folder or manifest is exit status 2 as well.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dmlsim.api.enums import DML_TENSOR_DATA_TYPE, enum_member
from dmlsim.api.tensor import NUMPY_DTYPE
from dmlsim.model.compare import Tolerance, compare_values
from dmlsim.model.corpus import INDEX, read_json
from dmlsim.model.export import MANIFEST_FORMAT
from dmlsim.model.values import FLOAT_TYPES, SPECIAL_FLOATS

MATCH, MISMATCH, MISSING, MALFORMED = "match", "mismatch", "missing", "malformed"
EXIT_STATUS = {MATCH: 0, MISMATCH: 1, MISSING: 2, MALFORMED: 2}


class ResultError(Exception):
    """A result file that cannot be compared (``status`` is missing or malformed)."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class CheckOutcome:
    model: str
    check: dict[str, Any]
    status: str
    message: str = ""

    def describe(self) -> str:
        head = (f"{self.check.get('location', '?')}: expect '{self.check.get('resource', '?')}' "
                f"(command {self.check.get('command', '?')}, {self.check.get('file', '?')}): {self.status}")
        return f"{head}\n{self.message}" if self.message else head


@dataclass
class CompareReport:
    outcomes: list[CheckOutcome] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # a broken export folder or manifest
    not_found: list[str] = field(default_factory=list)  # models left out: no result file of theirs (found_only)

    @property
    def exit_status(self) -> int:
        """0 every check matches, 1 a mismatch, 2 a result missing or malformed (or a broken manifest)."""
        statuses = [EXIT_STATUS[o.status] for o in self.outcomes] + [2] * len(self.problems)
        return 2 if 2 in statuses else max(statuses, default=0)

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for outcome in self.outcomes:
            counts[outcome.status] = counts.get(outcome.status, 0) + 1
        return counts


def compare_folder(export_dir: Path, results_dir: Path, models: list[str] | None = None,
                   found_only: bool = False) -> CompareReport:
    """Check every manifest of ``export_dir`` (as its ``_index.json`` lists them) against ``results_dir``.

    ``models``: only these models (their stems in the export, or the model files they came from); a name the
    export does not hold is a problem. ``found_only``: only the models with at least one result file in
    ``results_dir`` (the results of one ``dmlsim run``/DxDispatch call); the others are listed in
    ``not_found``, and none found at all is a problem.
    """
    report = CompareReport()
    if not results_dir.is_dir():
        report.problems.append(f"{results_dir}: no such results folder")
        return report
    try:
        index = read_json(export_dir / INDEX)
        entries = [(m["model"], m["manifest"]) for m in index["models"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        report.problems.append(f"{export_dir / INDEX}: not an export index written by 'dmlsim export': {exc}")
        return report
    if models:
        wanted = {name: [e for e in entries if name in (e[0], Path(e[0]).stem, Path(e[1]).name.split(".")[0])]
                  for name in models}
        report.problems += [f"{export_dir}: no model {name!r} in this export (its index lists "
                            f"{', '.join(Path(m).stem for m, _ in entries[:8])}{', ...' if len(entries) > 8 else ''})"
                            for name, hits in wanted.items() if not hits]
        entries = [e for e in entries if any(e in hits for hits in wanted.values())]
    for model, manifest_file in entries:
        try:
            manifest = read_json(export_dir / manifest_file)
            if manifest.get("format") != MANIFEST_FORMAT:
                raise ValueError(f"format is {manifest.get('format')!r}, not {MANIFEST_FORMAT!r}")
            checks = list(manifest["checks"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            report.problems.append(f"{export_dir / manifest_file}: not a manifest written by 'dmlsim export': {exc}")
            continue
        if found_only and not any((results_dir / str(c.get("file", ""))).is_file() for c in checks
                                  if isinstance(c, dict)):
            report.not_found.append(model)
            continue
        for check in checks:
            report.outcomes.append(check_result(model, check, export_dir, results_dir))
    if found_only and not report.outcomes and not report.problems:
        report.problems.append(f"{results_dir}: holds no result file of any model of {export_dir}")
    return report


def check_result(model: str, check: dict[str, Any], export_dir: Path, results_dir: Path) -> CheckOutcome:
    """One manifest check against its result file."""
    try:
        data_type, expected, tolerance = _expectation(check, export_dir)
        got = _read_result(results_dir / check["file"], data_type, int(check["byteOffset"]), int(check["count"]),
                           int(check["bufferSizeInBytes"]))
    except ResultError as exc:
        return CheckOutcome(model, check, exc.status, str(exc))
    except (KeyError, TypeError, ValueError, OSError) as exc:
        return CheckOutcome(model, check, MALFORMED, f"the manifest's check is broken: {exc!r}")
    report = compare_values(got, expected, data_type, tolerance)
    return CheckOutcome(model, check, MATCH) if report is None else CheckOutcome(model, check, MISMATCH, report)


def _expectation(check: dict[str, Any], export_dir: Path) -> tuple[DML_TENSOR_DATA_TYPE, np.ndarray, Tolerance]:
    data_type = DML_TENSOR_DATA_TYPE(enum_member(DML_TENSOR_DATA_TYPE, check["dataType"]))
    values = check["expected"]
    exact = np.float64 if data_type in FLOAT_TYPES else NUMPY_DTYPE[data_type]
    if isinstance(values, dict):
        expected = np.load(export_dir / values["sourcePath"], allow_pickle=False).reshape(-1).astype(exact)
    else:
        expected = np.array([SPECIAL_FLOATS[v] if isinstance(v, str) else v for v in values], dtype=exact)
    if expected.size != int(check["count"]):
        raise ValueError(f"{expected.size} expected values for a count of {check['count']}")
    tolerance = Tolerance(**{k: float(v) for k, v in check.get("tolerance", {}).items()})
    return data_type, expected, tolerance


def _read_result(path: Path, data_type: DML_TENSOR_DATA_TYPE, offset: int, count: int, buffer_size: int
                 ) -> np.ndarray:
    """The ``count`` values at ``offset`` of a written buffer (or exactly the region); ResultError otherwise."""
    dtype = NUMPY_DTYPE[data_type]
    if not path.is_file():
        raise ResultError(MISSING, "")  # the check's line names the file
    try:
        if path.suffix.lower() == ".npy":
            array = np.load(path, allow_pickle=False)
            if array.dtype.newbyteorder("<") != dtype.newbyteorder("<"):
                raise ResultError(MALFORMED, f"{path}: holds {array.dtype} values, the resource is {dtype}")
            raw = np.ascontiguousarray(array, dtype.newbyteorder("<")).tobytes()
            whole = buffer_size // dtype.itemsize * dtype.itemsize
        else:
            raw = path.read_bytes()
            whole = buffer_size
    except (OSError, ValueError, EOFError) as exc:
        raise ResultError(MALFORMED, f"{path}: cannot be read: {exc}") from None
    region = count * dtype.itemsize
    if len(raw) == whole and offset + region <= whole:
        raw = raw[offset:offset + region]
    elif len(raw) != region:
        raise ResultError(MALFORMED, f"{path}: holds {len(raw)} bytes, neither the whole {buffer_size}-byte buffer "
                                     f"({whole} bytes of {dtype.itemsize}-byte values) nor the {region} bytes of the "
                                     "expected values")
    return np.frombuffer(raw, dtype.newbyteorder("<")).astype(dtype)
