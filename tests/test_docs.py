"""The README front page and the documentation site (issue 30, item 1): every code block runs, no page can drift.

- Every ```` ```python ```` block of README.md and docs/**/*.md runs: a page's blocks in order in one namespace
  (a tutorial builds on its previous block), on the reference device (``DMLSIM_ADAPTER=reference``), in a
  temporary folder holding a link to ``descriptors/``.
- Every ``dmlsim ...`` line of the ```` ```sh ```` blocks runs through the real command line in that folder,
  all of a page's lines in one subprocess (Python starts once per page, not per line), exit status 0 each.
- A block preceded by ``<!-- docs-test: skip (REASON) -->`` is not run; the reason is required and the skipped
  blocks are counted (a page cannot silently opt out of everything).
- The README is a front page (at most 250 lines) and the operator table is generated from the registry.

The mkdocs build itself (``make docs``, warnings as errors) runs in CI (.ci/run); here only when mkdocs is
installed, and marked large (it takes seconds).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
SKIP = re.compile(r"<!--\s*docs-test:\s*skip\s*(?:\((?P<reason>[^)]*)\))?\s*-->\s*$")
MAX_SKIPPED = 8  # across every page: a skip is an exception, not a habit


def blocks(page: Path) -> list[tuple[str, str, int, str | None]]:
    """(language, code, line, skip reason or None) of each fenced block of ``page``."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        skip = SKIP.search(before)
        reason = None if skip is None else (skip.group("reason") or "").strip()
        found.append((match.group(1), match.group(2), text.count("\n", 0, match.start()) + 1, reason))
    return found


def dmlsim_lines(code: str) -> list[str]:
    """The ``dmlsim ...`` command lines of a shell block (comments cut)."""
    lines = []
    for raw in code.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if line.startswith("dmlsim "):
            lines.append(line)
    return lines


def test_the_marker_needs_a_reason_and_skips_are_few():
    skipped = [(page.name, line, reason) for page in PAGES for _, _, line, reason in blocks(page) if reason is not None]
    assert all(reason for _, _, reason in skipped), f"a docs-test skip marker without a reason: {skipped}"
    assert len(skipped) <= MAX_SKIPPED, skipped
    assert blocks(ROOT / "README.md")  # the extraction finds the README's blocks at all


def test_the_skip_marker_is_honoured(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("<!-- docs-test: skip (why) -->\n```python\nraise SystemExit\n```\n\n```python\nx = 1\n```\n")
    found = blocks(page)
    assert [(lang, reason) for lang, _, _, reason in found] == [("python", "why"), ("python", None)]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A temporary folder with descriptors/ linked in, as the current directory, on the reference device."""
    (tmp_path / "descriptors").symlink_to(ROOT / "descriptors")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DMLSIM_ADAPTER", "reference")
    return tmp_path


@pytest.mark.parametrize("page", [p for p in PAGES if any(lang == "python" and reason is None
                                                          for lang, _, _, reason in blocks(p))],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_python_blocks_run(page, workdir, capsys):
    namespace: dict = {"__name__": "__docs__"}
    ran = 0
    for lang, code, line, reason in blocks(page):
        if lang != "python" or reason is not None:
            continue
        try:
            exec(compile(code, f"{page.name}:{line}", "exec"), namespace)  # the page's own code
        except Exception as exc:
            pytest.fail(f"{page.relative_to(ROOT)}, the python block at line {line}: {type(exc).__name__}: {exc}")
        ran += 1
    assert ran > 0
    capsys.readouterr()


@pytest.mark.parametrize("page", [p for p in PAGES if any(lang == "sh" and reason is None and dmlsim_lines(code)
                                                          for lang, code, _, reason in blocks(p))],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_dmlsim_commands_run(page, workdir):
    """The page's ``dmlsim`` lines, run in order, after the python blocks that write the files they read (a block
    that calls ``onnx.save`` or ``np.save``: the ONNX guide's model, for one)."""
    namespace: dict = {"__name__": "__docs__"}
    for lang, code, line, reason in blocks(page):
        if lang == "python" and reason is None and re.search(r"\b(onnx|np|numpy)\.save", code):
            exec(compile(code, f"{page.name}:{line}", "exec"), namespace)  # the page's own code
    before = sorted(p.name for p in workdir.iterdir())
    commands = [(line, shlex.split(cmd)[1:]) for lang, code, line, reason in blocks(page)
                if lang == "sh" and reason is None for cmd in dmlsim_lines(code)]
    script = ("import json, sys\nfrom dmlsim.cli import main\n"
              "for line, argv in json.loads(sys.argv[1]):\n"
              "    status = main(argv)\n"
              "    print(f'@@ {line} {status}', flush=True)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DMLSIM_ADAPTER": "reference"}
    proc = subprocess.run([sys.executable, "-c", script, json.dumps(commands)], capture_output=True, text=True,
                          cwd=workdir, env=env, timeout=300)
    statuses = re.findall(r"^@@ (\d+) (-?\d+)$", proc.stdout, re.M)
    assert proc.returncode == 0 and len(statuses) == len(commands), proc.stdout[-2000:] + proc.stderr[-2000:]
    failed = [(line, status) for line, status in statuses if status != "0"]
    assert failed == [], f"{page.relative_to(ROOT)}: commands at lines {failed} failed:\n{proc.stderr[-3000:]}"
    assert sorted(p.name for p in workdir.iterdir()) == before  # the commands wrote nothing outside the temp folder


def test_the_readme_is_a_front_page():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    for heading in ("## The two commands", "## A five-minute tour", "## Where to go next"):
        assert heading in text
    for page in re.findall(r"`(docs/[\w/.-]+\.md)`", text):  # every page it points to exists, or is generated
        assert (ROOT / page).exists() or page == "docs/operators/table.md", page


def test_every_docs_page_is_in_the_navigation():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert {p for p in pages if p not in nav} == set()
    assert "operators/table.md" in nav and "docs/hooks/operator_table.py" in nav


def test_the_operator_table_is_generated_from_the_registry():
    sys.path.insert(0, str(ROOT / "docs" / "hooks"))
    try:
        import operator_table
    finally:
        sys.path.remove(str(ROOT / "docs" / "hooks"))
    from dmlsim.operators.harness import implemented_operators

    rows = {r["name"]: r for r in operator_table.operator_rows()}
    assert set(rows) == {op.name for op in implemented_operators()}
    cast = rows["DML_OPERATOR_CAST"]
    assert "test_cast.py" in cast["tests"] and "copy_window_cast.yaml" in cast["descriptors"]
    assert cast["ranks"] == "1–8" and cast["summary"]
    sine = rows["DML_OPERATOR_ELEMENT_WISE_SIN"]
    assert sine["types"] == ["FLOAT32", "FLOAT16"]  # the member's own types, not the schema's every type
    page = operator_table.operator_table()
    assert page.count("\n| `DML") == len(rows)  # DML_ and DMLSIM_ rows alike
    rest = page.split("## Not implemented", 1)[1]  # the generated schema's rest: exactly the operators without one
    from dmlsim.api.directml_schema import OPERATOR_SCHEMAS
    from dmlsim.api.enums import DML_OPERATOR_TYPE

    missing = {DML_OPERATOR_TYPE(int(s.type)).name for s in OPERATOR_SCHEMAS} - set(rows)
    assert all(f"`{name}`" in rest for name in missing)
    assert not any(f"`{name}`" in rest for name in rows)
    assert operator_table.ranks({4, 5}) == "4–5" and operator_table.ranks({3, 5}) == "3, 5"


@pytest.mark.large
def test_mkdocs_builds_strict(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extra (make docs installs it) is not installed")
    pytest.importorskip("mkdocstrings", reason="the docs extra (make docs installs it) is not installed")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "WARNING" not in proc.stderr, proc.stderr[-3000:]
    assert (tmp_path / "site" / "operators" / "table.html").is_file()  # use_directory_urls: false (opened from disk)


def test_the_tutorial_is_the_readme_tour():
    """docs/tutorial.md is the README's five-minute tour (then where each step leads): they cannot drift apart."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    tour = readme[readme.index("## A five-minute tour"):readme.index("## Where to go next")].strip()
    tutorial = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
    assert tutorial.startswith(tour.replace("## A five-minute tour", "# A five-minute tour", 1))
    assert "## Where each step leads" in tutorial


def test_the_readme_counts_the_operators_the_registry_has():
    """The front page's operator counts come from the code (operators keep arriving)."""
    from dmlsim.api.directml_schema import OPERATOR_SCHEMAS
    from dmlsim.operators import implemented_names

    names = implemented_names()
    directml = sum(name.startswith("DML_OPERATOR_") for name in names)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    total = len(OPERATOR_SCHEMAS)
    if directml == total:
        assert f"{len(names)} operators with real OpenCL kernels (all {total} of DirectML's" in readme
    else:
        assert f"{len(names)} operators with real OpenCL kernels ({directml} of DirectML's {total}" in readme
        assert f"the other {total - directml} are validated" in readme
