"""The package's shape: no import circles (function-level imports included), backends behind their
boundary, operators found by discovery, every package installed.

The import graph is read from the source with ``ast`` — every ``import`` statement anywhere in a
module, inside functions too — except those under ``if TYPE_CHECKING:``, which never run. An import
of a package counts as an import of its ``__init__`` module (that is what Python executes).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dmlsim"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def import_graph() -> dict[str, set[str]]:
    """Module → the dmlsim modules it imports (executed imports only)."""
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        targets = _imports(ast.parse(path.read_text()), name, path.name == "__init__.py")
        graph[name] = {t for t in targets if t in MODULES and t != name}
    return graph


def external_imports(name: str) -> set[str]:
    path = MODULES[name]
    return {t.split(".")[0] for t in _imports(ast.parse(path.read_text()), name, path.name == "__init__.py")}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle (as a path that ends where it starts), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (cycle := dfs(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := dfs(node)):
            return cycle
    return None


def test_the_walker_sees_function_level_imports_and_ignores_type_checking():
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import dmlsim.a\n"
              "def f():\n    from dmlsim import b\n    import dmlsim.c.d\n")
    assert _imports(ast.parse(source), "dmlsim.x", False) == {"typing", "typing.TYPE_CHECKING", "dmlsim",
                                                               "dmlsim.b", "dmlsim.c.d"}
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_circles():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import circle: " + " → ".join(cycle)


def test_pyopencl_is_imported_only_inside_the_opencl_backend():
    offenders = [name for name in MODULES
                 if "pyopencl" in external_imports(name) and not name.startswith("dmlsim.backends.opencl")]
    assert offenders == []


@pytest.mark.parametrize("layer, forbidden", [
    ("dmlsim.api", ("dmlsim.runtime", "dmlsim.operators", "dmlsim.backends", "dmlsim.model", "dmlsim.bench",
                    "dmlsim.cli", "dmlsim.onnx", "dmlsim.quick")),
    ("dmlsim.operators", ("dmlsim.backends", "dmlsim.runtime", "dmlsim.entry", "dmlsim.quick", "dmlsim.model",
                          "dmlsim.bench", "dmlsim.cli", "dmlsim.onnx")),
    ("dmlsim.runtime", ("dmlsim.backends", "dmlsim.model", "dmlsim.bench", "dmlsim.cli", "dmlsim.onnx")),
])
def test_layers_import_only_downwards(layer, forbidden):
    """Every module of a layer, none exempt (an operator's bench case lives in dmlsim.bench.cases)."""
    graph = import_graph()
    members = [m for m in graph if m == layer or m.startswith(layer + ".")]
    assert members
    bad = sorted(f"{m} imports {t}" for m in members for t in graph[m] if forbidden_target(t, forbidden))
    assert bad == []


def forbidden_target(target: str, forbidden: tuple[str, ...]) -> bool:
    """Whether ``target`` is one of the ``forbidden`` modules or inside one of those packages (``dmlsim.bench``
    forbids ``dmlsim.bench.registry``, not a sibling named ``dmlsim.benchmarks``)."""
    return any(target == f or target.startswith(f + ".") for f in forbidden)


def test_forbidden_targets_are_whole_modules():
    assert forbidden_target("dmlsim.bench.registry", ("dmlsim.bench",))
    assert forbidden_target("dmlsim.quick", ("dmlsim.quick",))
    assert not forbidden_target("dmlsim.quickly", ("dmlsim.quick",))
    assert not forbidden_target("dmlsim.operators.base", ("dmlsim.bench",))


def test_bench_cases_are_found_by_discovery_not_by_lists():
    """Every module in dmlsim/bench/cases/ is imported by the bench registry's discovery and registers a case;
    no operator folder carries a bench module any more."""
    from dmlsim.bench.registry import CASES_PACKAGE, discover

    cases = discover()
    folder = PACKAGE / "bench" / "cases"
    modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    assert modules
    assert {cls.__module__ for cls in cases.values()} == {f"{CASES_PACKAGE}.{m}" for m in modules}
    assert sorted(p.relative_to(PACKAGE).as_posix() for p in (PACKAGE / "operators").rglob("bench.py")) == []


def test_operators_are_found_by_discovery_not_by_lists():
    from dmlsim.operators import load_all
    from dmlsim.operators.base import OPERATORS

    folders = sorted(p.name for p in (PACKAGE / "operators").iterdir() if (p / "__init__.py").is_file())
    assert sorted(load_all()) == folders
    assert {type(op).__module__.rsplit(".", 1)[-1] for op in OPERATORS.values()} == set(folders)
    for folder in folders:  # each operator folder carries its own kernel and reference
        assert (PACKAGE / "operators" / folder / "kernel.cl").is_file()
        assert (PACKAGE / "operators" / folder / "reference.py").is_file()


def test_every_package_is_found_and_carries_its_kernels():
    """setuptools finds every package under dmlsim/ (pyproject lists none by hand), and every kernel, shared
    header and C source the bench builds is package data of the package whose folder holds it."""
    import setuptools

    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11 on")

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert isinstance(config["packages"], dict)  # find, not a hand-written list
    include = config["packages"]["find"]["include"]
    found = set(setuptools.find_packages(str(ROOT), include=include))
    packages = {module_name(p.parent / "__init__.py") for p in PACKAGE.rglob("__init__.py")}
    assert packages == found
    patterns = config["package-data"]["*"]
    for kernel in [*PACKAGE.rglob("*.cl"), *PACKAGE.rglob("*.h"), *PACKAGE.rglob("*.c")]:
        assert (kernel.parent / "__init__.py").is_file(), kernel
        assert any(kernel.match(pattern) for pattern in patterns), kernel


def test_no_temporary_magic_strings_and_no_private_opencl_error_parsing():
    sources = {name: path.read_text() for name, path in MODULES.items()}
    assert [n for n, s in sources.items() if "__temporary__" in s] == []
    errors = sources["dmlsim.backends.opencl.errors"]
    assert "str(exc)" not in errors and ".code" in errors


def test_one_minus_pow_is_written_once():
    """1 − b^t (the -expm1 form) has one definition, for float and double, in the shared header
    (activations.h uses expm1 for exp(x) - 1, which is another function)."""
    kernels = [*PACKAGE.rglob("*.cl"), *PACKAGE.rglob("*.h")]
    uses = {k.name: k.read_text().count("-expm1(") for k in kernels if "-expm1(" in k.read_text()}
    assert uses == {"dmlsim.h": 1}


def test_python_dash_m_dmlsim_runs_the_cli():
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "dmlsim", "--version"], capture_output=True, text=True,
                            cwd=ROOT, check=False)
    assert result.returncode == 0 and result.stdout.startswith("dmlsim ")


def test_public_namespace_is_explicit():
    import dmlsim

    assert len(dmlsim.__all__) == len(set(dmlsim.__all__))
    missing = [name for name in dmlsim.__all__ if not hasattr(dmlsim, name)]
    assert missing == []
    assert {"DMLCreateDevice", "DMLError", "DML_ADAM_OPTIMIZER_OPERATOR_DESC",
            "DML_TENSOR_DATA_TYPE_FLOAT32", "DML_OPERATOR_ADAM_OPTIMIZER"} <= set(dmlsim.__all__)


# --- the test suite's own shape ---------------------------------------------------------------------------
TESTS = ROOT / "tests"


def cross_test_imports(sources: dict[str, str]) -> list[str]:
    """``"test_a imports test_b"`` for every test_* module importing another test_* module (anywhere in it)."""
    found = []
    for name, source in sorted(sources.items()):
        if name.startswith("test_"):
            imported = {t.split(".")[0] for t in _imports(ast.parse(source), name, False)}
            found += [f"{name} imports {t}" for t in sorted(imported) if t.startswith("test_") and t != name]
    return found




def test_no_test_module_imports_another():
    """Shared builders live in support modules (adam_support, onnx_support, ...): a test module importing
    another would run or re-collect its tests and couple their meanings."""
    assert cross_test_imports({"test_a": "def f():\n    from test_b import x\n", "test_b": "import dispatch\n",
                                      "support": "import test_a\n"}) == ["test_a imports test_b"]
    sources = {p.stem: p.read_text() for p in sorted(TESTS.glob("*.py"))}
    assert "test_architecture" in sources
    assert cross_test_imports(sources) == []


def test_the_dispatch_helper_uses_only_the_public_api():
    """tests/dispatch.py moves bytes through ``import dmlsim as dml`` and the schema/tensor header mirror."""
    imported = _imports(ast.parse((TESTS / "dispatch.py").read_text()), "dispatch", False)
    internal = sorted(t for t in imported if t.startswith("dmlsim.")
                      and not t.startswith(("dmlsim.api.schema", "dmlsim.api.tensor")))
    assert internal == []


# --- CONTRIBUTING.md names only what exists ------------------------------------------------------------
def _named_in_contributing(page: str = "CONTRIBUTING.md") -> set[str]:
    """Every `code span` of CONTRIBUTING.md (or another page) that names a path, a pytest node or a dmlsim
    module attribute."""
    import re

    return set(re.findall(r"`([^`\s]+)`", (ROOT / page).read_text()))


def _missing(token: str) -> bool:
    """Whether ``token`` names something that does not exist: a repository path (globs and folders too,
    tried at the root, in dmlsim/ and in dmlsim/operators/), a ``file.py::test_name`` node, a bare file name
    (somewhere in the repository) or a ``dmlsim.module.attribute``. Placeholders (``<name>``) are skipped."""
    import importlib

    path, _, node = token.partition("::")
    if "<" in token or token.startswith("."):  # a placeholder, or a bare file extension
        return False
    if "/" in path or path.endswith((".py", ".cl", ".h", ".c", ".yaml", ".md", ".toml", ".mk")):
        if "/" in path:
            places = [ROOT / path, PACKAGE / path, PACKAGE / "operators" / path, TESTS / path]
            hits = [p for place in places for p in place.parent.glob(place.name)] if "*" in path else \
                [p for p in places if p.exists()]
        else:
            hits = [p for p in ROOT.rglob(path) if ".git" not in p.parts and ".venv" not in p.parts]
        if not hits:
            return True
        return bool(node) and not any(f"def {node}(" in p.read_text() for p in hits if p.is_file())
    if token.startswith("dmlsim.") and token.replace(".", "").replace("_", "").isalnum():
        parts = token.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            try:
                for name in parts[cut:]:
                    obj = getattr(obj, name)
            except AttributeError:
                return True
            return False
        return True
    return False


def test_contributing_names_only_what_exists():
    """The contributor's guide must match the code: every file, folder, test and dmlsim name it cites exists."""
    assert _missing("tests/no_such_helper.py") and _missing("dmlsim.quick.no_such_function")
    assert _missing("tests/test_architecture.py::test_no_such_test") and _missing("no_such_file.cl")
    assert not _missing("dmlsim/bench/cases/") and not _missing("descriptors/element_wise_*.yaml")
    tokens = _named_in_contributing()
    assert {"tests/dispatch.py", "dmlsim.quick.prepare_operator", "dmlsim/bench/cases/"} <= tokens
    assert sorted(t for t in tokens if _missing(t)) == []
    text = (ROOT / "CONTRIBUTING.md").read_text()
    harness = text.split("\n## The differential harness\n", 1)[1].split("\n## ", 1)[0]
    for phrase in ("tests/test_operator_harness.py", "dmlsim/operators/harness.py", "`cases.py`", "make harness",
                   "DMLSIM_HARNESS_REPLAY", "--harness-cases"):
        assert phrase in harness, f"CONTRIBUTING.md's harness section does not mention {phrase}"


def test_contributing_says_the_operator_table_comes_from_docstrings():
    """Issue 30: the README holds no operator rows any more; CONTRIBUTING's step names the docstring, and the
    docs pages a contributor is sent to (docs/contributing.md, docs/layout.md) name only what exists."""
    text = (ROOT / "CONTRIBUTING.md").read_text()
    assert "**The operator's docstring** (the docs site's operator table is generated from it)" in text
    assert "The README row" not in text and "README.md's \"Operators\" section" not in text
    for page in ("docs/contributing.md", "docs/layout.md"):
        tokens = {t for t in _named_in_contributing(page) if not t.startswith("<!--")}
        assert sorted(t for t in tokens if _missing(t)) == [], page
