"""MkDocs hook: the operator table page (``operators/table.md``), generated from the code at build time.

Nothing here is written by hand per operator: the rows come from the registry
(:func:`dmlsim.operators.harness.implemented_operators`: every operator folder that registers one appears by
existing), the data types and ranks from each operator's desc schema (its tensor fields' ``FieldSpec``), the
summary from its class or module docstring, the tests and descriptor files from the files that name the
operator (``tests/test_*.py``, ``descriptors/*.yaml``), and the not-yet-implemented DirectML operators from the
generated schema (:mod:`dmlsim.api.directml_schema`). :func:`operator_table` is what the build and
tests/test_docs.py both call.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PAGE = "operators/table.md"


def short_type(name: str) -> str:
    """``DML_TENSOR_DATA_TYPE_FLOAT32`` → ``FLOAT32``."""
    return name.removeprefix("DML_TENSOR_DATA_TYPE_")


def ranks(counts: set[int]) -> str:
    """``{1, 2, 3, 4}`` → ``1–4``; ``{4, 5}`` → ``4–5``; ``{3, 5}`` → ``3, 5``."""
    ordered = sorted(counts)
    if not ordered:
        return "-"
    if ordered == list(range(ordered[0], ordered[-1] + 1)) and len(ordered) > 1:
        return f"{ordered[0]}–{ordered[-1]}"
    return ", ".join(map(str, ordered))


def summary(op: Any) -> str:
    """The first sentence of the operator's class docstring, else of its module's."""
    import sys

    for doc in (type(op).__doc__, getattr(sys.modules.get(type(op).__module__), "__doc__", None)):
        if doc and doc.strip():
            text = " ".join(doc.strip().split("\n\n")[0].split())
            sentence = re.split(r"(?<=[.;])\s", text, maxsplit=1)[0]
            if not sentence.endswith(":"):  # "The template of every member:" says nothing alone
                return sentence.replace("|", "\\|")
    return ""


_WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")


def _words(text: str) -> frozenset[str]:
    """The identifiers of a file (found once per file; each operator is then a set lookup)."""
    return frozenset(_WORD.findall(text))


def _mentions(texts: dict[Path, frozenset[str]], names: tuple[str, ...]) -> list[str]:
    return sorted(p.name for p, words in texts.items() if any(name in words for name in names))


def operator_rows(root: Path = ROOT) -> list[dict[str, Any]]:
    """One row per implemented operator: name, folder, types, ranks, summary, tests, descriptor files."""
    from dmlsim.operators.harness import implemented_operators

    tests = {p: _words(p.read_text(encoding="utf-8")) for p in sorted((root / "tests").glob("test_*.py"))}
    models = {p: _words(p.read_text(encoding="utf-8")) for p in sorted((root / "descriptors").glob("*.y*ml"))}
    models.update({p: _words(p.read_text(encoding="utf-8")) for p in sorted((root / "descriptors").glob("*.json"))})
    rows = []
    for op in implemented_operators():
        name = op.name
        short = re.sub(r"^(DML|DMLSIM)_OPERATOR_", "", name)
        folder = type(op).__module__.split(".")[2] if type(op).__module__.count(".") >= 2 else ""
        types: set[str] = set()
        dims: set[int] = set()
        declared = getattr(getattr(op, "member", None), "data_types", None) or getattr(op, "data_types", None)
        for field in op.fields():
            spec = field.spec
            if spec.role in ("input", "output"):
                if not declared:
                    types.update(short_type(getattr(t, "name", str(t))) for t in spec.data_types)
                dims.update(spec.dimension_counts)
        types.update(short_type(getattr(t, "name", str(t))) for t in declared or ())
        names = (name, op.desc_cls.__name__)
        own_tests = [p.name for p in tests if p.stem == f"test_{folder}"]
        rows.append({
            "name": name, "type": int(op.type), "folder": folder, "summary": summary(op),
            "types": sorted(types, key=_TYPE_ORDER.index) if types <= set(_TYPE_ORDER) else sorted(types),
            "ranks": ranks(dims),
            "tests": sorted(set(own_tests) | set(_mentions(tests, names))),
            "descriptors": _mentions(models, (name, short)) if short else [],
        })
    return rows


_TYPE_ORDER = ["FLOAT64", "FLOAT32", "FLOAT16", "UINT64", "UINT32", "UINT16", "UINT8", "INT64", "INT32", "INT16",
               "INT8"]


def unimplemented_names() -> list[str]:
    """The DirectML operators of the generated schema that dmlsim validates but does not run (E_NOTIMPL)."""
    from dmlsim.api.directml_schema import OPERATOR_SCHEMAS
    from dmlsim.operators.harness import implemented_operators

    done = {int(op.type) for op in implemented_operators()}
    return [s.type.name for s in OPERATOR_SCHEMAS if int(s.type) not in done]


def _cell(items: list[str], limit: int = 6) -> str:
    if not items:
        return "—"
    shown = ", ".join(f"`{i}`" for i in items[:limit])
    return shown + (f" (+{len(items) - limit})" if len(items) > limit else "")


def operator_table(root: Path = ROOT) -> str:
    """The Markdown of the generated page."""
    rows = operator_rows(root)
    missing = unimplemented_names()
    lines = [
        "# Operator table",
        "",
        "Generated from the code when the site is built (`docs/hooks/operator_table.py`): the operator registry,",
        "each desc schema's tensor fields (data types and ranks as the desc declares them; an operator's `check` "
        "may narrow them, which its docstring says), the first sentence of each operator's docstring, and the",
        "test and descriptor files that name the operator. An operator added in its own folder appears here by "
        "existing.",
        "",
        (f"**{len(rows)} operators run**; {len(missing)} more DirectML operators are validated completely and then "
         "refused with `E_NOTIMPL` (listed at the end)." if missing else
         f"**{len(rows)} operators run**: every DirectML operator of the schema, and dmlsim's extensions."),
        "",
        "| operator | folder | data types | ranks | summary | tests | descriptor files |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| `{r['name']}` ({r['type']:#x}) | `{r['folder']}` | {', '.join(r['types']) or '—'} | "
                     f"{r['ranks']} | {r['summary']} | {_cell(r['tests'])} | {_cell(r['descriptors'])} |")
    lines += ["", "## Not implemented (validated, then `E_NOTIMPL`)", "",
              ", ".join(f"`{n}`" for n in missing) or "none", ""]
    return "\n".join(lines)


def on_files(files: Any, config: Any) -> Any:
    """Add the generated page to the site (mkdocs ≥ 1.6: ``File.generated``)."""
    from mkdocs.structure.files import File

    files.append(File.generated(config, PAGE, content=operator_table()))
    return files
