"""Structure-aware mutation fuzzer over the model files in ``descriptors/`` (``make fuzz``).

Each mutant is one of the committed model files, parsed, changed and written back: structural
mutations (a key dropped, renamed or duplicated, a value replaced by a hostile one — huge or negative
numbers, numbers beyond the double range, NaN, deep nesting, long lists, names where numbers go and
the reverse, paths that leave the folders, special files —, a subtree copied somewhere else, a value
wrapped or unwrapped), re-serialized as YAML or JSON, or raw byte mutations of the file's text.

Every mutant is checked with ``dmlsim validate`` in this process (no device memory, nothing
executed) under a time bound (SIGALRM) and this process's address-space limit; one in
``--run-every`` is also *run* on the reference device in a subprocess with its own time and memory
limits and an output folder, after which nothing may have been written outside that folder. The
property: exit status 0, 1, 2 or 3, never a traceback, and a status-2 answer names a place
(``file:line:column``). Failures are written to ``--save`` with the reason, for replaying.

Usage: python tools/fuzz_models.py [--count 5000] [--seed 1] [--run-every 50] [-j JOBS] [--save DIR]
       [--index N ...] [-v]   (a failure's file is named m<INDEX>-...: replay it with --seed S --index INDEX)
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import enum
import io
import json
import math
import multiprocessing
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's dmlsim, whatever is installed

from dmlsim.model.loader import load_tree  # noqa: E402 - after the path is set

DESCRIPTORS = ROOT / "descriptors"
LOCATED = re.compile(r"^\S.*:\d+:\d+: ", re.MULTILINE)
EXITS = {0, 1, 2, 3}
TIME_LIMIT_S = 20  # per mutant, in-process validate and subprocess run alike
SUBPROCESS_MEMORY = 1 << 30  # RLIMIT_AS of a subprocess run
PROCESS_MEMORY = 3 << 30  # RLIMIT_AS of this process (the in-process validations)
BUDGET = "16M"  # --memory-budget given to every mutant: big enough for every committed file

HOSTILE: list[Any] = [
    0, -1, 1, 2**31, 2**32 - 1, 2**63, 2**64, -(2**63) - 1, 10**400, 10**4000, 1e308, -1e308, 1e-320,
    float("inf"), float("-inf"), float("nan"), "nan", "inf", "-inf", True, False, None, "", "x" * 5000,
    "../escape.bin", "/dev/zero", "/etc/hostname", "sub/../../x", "a\0b", "/var/abs.bin", "data",
    "data/adam_gradient.npy", "FLOAT32", "UINT8", "INT64", "FLOAT16", "DML_OPERATOR_ADAM_OPTIMIZER",
    "E_INVALIDARG", "dispatch", "writeFile", "print", "expect", "add", "[", "{", "*", "&a", "<<",
    [], {}, [1, 2], [[1]], {"a": 1}, {"valueCount": 10**12, "value": 0},
    {"valueCount": 10**9, "valueStart": 0, "valueDelta": 1}, {"valueCount": 10**10, "seed": 1, "min": 0, "max": 1},
    {"sourcePath": "/dev/zero"}, {"sourcePath": "../../etc/passwd"}, {"sourcePath": "data"},
    list(range(15000)), [2**32 - 1] * 600,
]
SECTIONS = ("resources", "dispatchables", "commands")


@dataclass
class Stats:
    mutants: int = 0
    ran: int = 0
    exits: Counter = field(default_factory=Counter)
    kinds: Counter = field(default_factory=Counter)
    failures: list[tuple[str, str, str]] = field(default_factory=list)  # (name, reason, text)


def seeds() -> list[tuple[str, str, Any]]:
    """(file name, text, parsed tree) of every committed model file, then of a drawn model per implemented
    operator (:func:`drawn_seeds`)."""
    found = []
    for path in sorted(DESCRIPTORS.iterdir()):
        if path.suffix in (".yaml", ".yml", ".json") and not path.name.startswith("_"):
            text = path.read_text(encoding="utf-8")
            found.append((path.name, text, _plain(load_tree(path, text))))
    return found + drawn_seeds()


DRAW_SEED = 26  # the drawn seed models are the same in every run (and every process of a run)


def drawn_seeds() -> list[tuple[str, str, Any]]:
    """A model of one dispatch per implemented operator, its desc drawn by the differential harness
    (dmlsim.operators.harness: a valid desc, broadcast and padded layouts, fused activations, tensor arrays,
    OWNED_BY_DML inputs bound to the initializer), written as DxDispatch JSON (dmlsim.model.dxjson), with a
    resource per tensor; one in three compiled as a graph (``dmlCompileType: DmlCompileGraph``). The committed
    files cover a few descs per operator; these cover every operator the desc mutations then distort."""
    import numpy as np

    from dmlsim.api.schema import INPUT, OUTPUT
    from dmlsim.api.structs import DML_OPERATOR_DESC
    from dmlsim.model.dxjson import operator_desc
    from dmlsim.operators.harness import DrawError, drawer, implemented_operators

    rng = np.random.default_rng(DRAW_SEED)
    found = []
    for index, op in enumerate(implemented_operators()):
        try:
            case = drawer(op)(op, rng)
        except DrawError:
            continue
        resources: dict[str, Any] = {}
        dispatch: dict[str, Any] = {}
        owned: dict[str, Any] = {}
        for row in op.fields():
            value = getattr(case.desc, row.name)
            if row.spec.role not in (INPUT, OUTPUT) or value is None:
                continue
            names = [_resource(resources, t) for t in value] if isinstance(value, list) else _resource(resources, value)
            is_owned = not isinstance(value, list) and value.Desc.Flags & 1
            (owned if is_owned else dispatch)[row.name] = names
        dispatchable: dict[str, Any] = {"type": op.name, "desc": operator_desc(DML_OPERATOR_DESC(op.type, case.desc))}
        if owned:
            dispatchable["bindings"] = owned
        if index % 3 == 0:
            dispatchable["dmlCompileType"] = "DmlCompileGraph"
        tree = {"resources": resources, "dispatchables": {"op": dispatchable},
                "commands": [{"type": "dispatch", "dispatchable": "op", "bindings": dispatch},
                             {"type": "print", "resource": next(iter(resources))}]}
        name = f"drawn-{op.name.removeprefix('DML_OPERATOR_').lower()}.json"
        found.append((name, json.dumps(tree, indent=1), tree))
    return found


def _resource(resources: dict[str, Any], tensor: Any) -> str:
    """A resource for a drawn tensor desc (its TotalTensorSizeInBytes, seeded random values of its type)."""
    from dmlsim.api.tensor import data_type_name

    body = tensor.Desc
    name = f"r{len(resources)}"
    kind = data_type_name(body.DataType)
    size = int(body.TotalTensorSizeInBytes)
    packed = kind in ("INT4", "UINT4")  # a model file holds 4-bit tensors as the bytes of a UINT8 resource
    kind = "UINT8" if packed else kind
    resources[name] = {"initialValuesDataType": kind, "sizeInBytes": size, "initialValues": {
        "valueCount": max(1, size // int(_NUMPY[kind][1])), "seed": len(resources),
        "min": 0 if kind.startswith("UINT") else -2, "max": 255 if packed else 2}}
    return name


_NUMPY = {"FLOAT16": "f2", "FLOAT32": "f4", "FLOAT64": "f8", "UINT8": "u1", "UINT16": "u2", "UINT32": "u4",
          "UINT64": "u8", "INT8": "i1", "INT16": "i2", "INT32": "i4", "INT64": "i8"}


def _plain(tree: Any) -> Any:
    """The loader's located tree as plain dicts and lists (which the YAML dumper knows)."""
    if isinstance(tree, dict):
        return {key: _plain(value) for key, value in tree.items()}
    if isinstance(tree, list):
        return [_plain(value) for value in tree]
    return tree


def _paths(tree: Any, limit: int = 4000) -> list[tuple[Any, Any]]:
    """(container, key) of every value of the tree (lists: index), breadth first."""
    out: list[tuple[Any, Any]] = []
    queue = [tree]
    while queue and len(out) < limit:
        node = queue.pop(0)
        keys = list(node) if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else []
        for key in keys:
            out.append((node, key))
            queue.append(node[key])
    return out


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def _mild(rng: random.Random, old: Any) -> Any:
    """A change that often keeps the file valid, so mutants get past the parser into the device's checks."""
    if isinstance(old, bool):
        return not old
    if isinstance(old, int):
        return old + rng.choice([-2, -1, 1, 2, old, -old])
    if isinstance(old, float):
        return old * rng.choice([0.5, 2.0, -1.0, 0.0])
    if isinstance(old, list) and old:
        items = list(old)
        rng.shuffle(items)
        return items[:-1] if rng.random() < 0.5 else items + items[-1:]
    return old


def _hostile(rng: random.Random, old: Any, tree: Any) -> Any:
    choice = rng.random()
    if choice < 0.3:
        return _mild(rng, old)
    if choice < 0.6:
        return copy.deepcopy(rng.choice(HOSTILE))
    if choice < 0.7 and isinstance(old, (int, float)) and not isinstance(old, bool):
        huge = int(old) * 10**300 if math.isfinite(old) else -old  # the corpus now holds infinities too
        return rng.choice([-old, old * 2**rng.randint(1, 70), old + rng.choice([-1, 1]), huge,
                           old / 3 if old else 0.5, str(old)])
    if choice < 0.75:
        return _nested(rng.choice([10, 70, 400]))
    if choice < 0.9:  # a subtree from elsewhere in the file
        others = _paths(tree)
        if others:
            container, key = rng.choice(others)
            return copy.deepcopy(container[key])
    if isinstance(old, list) and old:
        return rng.choice(old)
    return [old]


def _operator_names() -> list[str]:
    from dmlsim.operators.harness import implemented_operators

    return [op.name for op in implemented_operators()]


def _enum_names() -> list[str]:
    import dmlsim.api.directml_schema as schema
    from dmlsim.api.enums import ALL_ENUMS

    enums = [*ALL_ENUMS, *(v for v in vars(schema).values() if isinstance(v, type) and issubclass(v, enum.IntEnum))]
    return sorted({name for e in enums for name in e.__members__})


def _tensor_descs(tree: Any) -> list[dict]:
    """Every ``{DataType, Sizes, ...}`` object of the tree."""
    return [container[key] for container, key in _paths(tree)
            if isinstance(container[key], dict) and "DataType" in container[key] and "Sizes" in container[key]]


def mutate_desc(rng: random.Random, tree: Any) -> str | None:
    """One mutation that knows what a model's descs are (in place); its kind, or None when the tree has no
    dispatchable: an operator type swapped for another's, an enum value for another enum's, a count field made
    huge or wrong, an axis list repeated thousands of times, a tensor array multiplied with a wrong data type,
    a tensor broadcast to billions of elements (the compute budget) or made a huge OWNED_BY_DML input (the
    memory budget), a dispatch repeated a billion times, a dispatchable compiled as a graph or not."""
    dispatchables = tree.get("dispatchables") if isinstance(tree, dict) else None
    if not isinstance(dispatchables, dict) or not dispatchables:
        return None
    name = rng.choice(list(dispatchables))
    spec = dispatchables[name]
    if not isinstance(spec, dict):
        return None
    desc = spec.get("desc") if isinstance(spec.get("desc"), dict) else spec
    kind = rng.choice(["type", "enum", "count", "axes", "array", "broadcast", "owned", "repeat", "graph"])
    if kind == "type":
        spec["type"] = rng.choice(_operator_names())
    elif kind == "enum":
        keys = [k for k, v in desc.items() if isinstance(v, str)]
        if not keys:
            return None
        desc[rng.choice(keys)] = rng.choice(_enum_names()) if rng.random() < 0.7 else rng.choice(_enum_names())[4:]
    elif kind == "count":
        keys = [k for k in desc if k.endswith("Count")] or ["AxisCount", "InputCount", "DimensionCount"]
        desc[rng.choice(keys)] = rng.choice([0, 1, 2**32 - 1, 2**31, 10**6, 16_000, -1, 1.5])
    elif kind == "axes":
        keys = [k for k, v in desc.items() if isinstance(v, list) and v and all(isinstance(x, int) for x in v)]
        key = rng.choice(keys) if keys else "Axes"
        desc[key] = [rng.choice([0, 1, 0, 2**32 - 1])] * rng.choice([64, 1000, 5000])
    elif kind == "array":
        keys = [k for k, v in desc.items() if isinstance(v, list) and v and isinstance(v[0], dict)]
        if not keys:
            return None
        key = rng.choice(keys)
        wrong = dict(desc[key][0], DataType=rng.choice(["UINT8", "INT64", "FLOAT16", "BOGUS"]))
        desc[key] = [wrong] * rng.choice([100, 1000, 5000])
    elif kind in ("broadcast", "owned"):
        tensors = _tensor_descs(desc)
        if not tensors:
            return None
        tensor = rng.choice(tensors)
        sizes = tensor["Sizes"] if isinstance(tensor["Sizes"], list) else [1]
        tensor["Sizes"] = [rng.choice([1, 7, 4096, 65536, 2**20, 2**31]) for _ in sizes] or [2**31]
        if kind == "broadcast":
            tensor["Strides"] = [0] * len(tensor["Sizes"])
        else:
            tensor["Flags"] = "OWNED_BY_DML"
            tensor.pop("Strides", None)
            spec.setdefault("bindings", {})
    elif kind == "repeat":
        commands = [c for c in tree.get("commands", []) if isinstance(c, dict) and c.get("type") == "dispatch"]
        if not commands:
            return None
        rng.choice(commands)["repeat"] = rng.choice([10**3, 10**6, 10**9, 2**63])
    else:
        spec["dmlCompileType"] = "DmlCompileOp" if spec.get("dmlCompileType") == "DmlCompileGraph" else \
            "DmlCompileGraph"
    return f"desc-{kind}"


def mutate_tree(rng: random.Random, tree: Any) -> tuple[Any, str]:
    """One to three structural mutations of a copy of ``tree`` (one in four a desc mutation, :func:`mutate_desc`);
    the mutation kinds, for the statistics."""
    tree = copy.deepcopy(tree)
    kinds = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        if rng.random() < 0.25 and (kind := mutate_desc(rng, tree)) is not None:
            kinds.append(kind)
            continue
        paths = _paths(tree)
        if not paths:
            break
        container, key = rng.choice(paths)
        op = rng.choice(["replace", "replace", "replace", "delete", "rename", "duplicate", "swap-type"])
        if op == "delete" and isinstance(container, dict):
            del container[key]
        elif op == "delete" and isinstance(container, list):
            container.pop(key)
        elif op == "rename" and isinstance(container, dict):
            value = container.pop(key)
            name = rng.choice([key.lower() if isinstance(key, str) else "k", f"{key}x", "x-extra", "Type",
                               "sourcePath", "targetPath", "valueCount", "bindings", ""])
            container[name] = value
        elif op == "duplicate" and isinstance(container, list):
            container.insert(key, copy.deepcopy(container[key]))
        elif op == "duplicate" and isinstance(container, dict):
            container[f"{key}2"] = copy.deepcopy(container[key])
        elif op == "swap-type":
            old = container[key]
            container[key] = ({"v": old} if not isinstance(old, dict) else list(old.values())
                              if rng.random() < 0.5 else list(old.keys()))
        else:
            op = "replace"
            container[key] = _hostile(rng, container[key], tree)
        kinds.append(op)
    return tree, "+".join(kinds) or "none"


def serialize(rng: random.Random, tree: Any, name: str) -> tuple[str, str]:
    """The mutated tree as text (YAML or JSON) and the file name to give it."""
    if name.endswith(".json") and rng.random() < 0.7:
        try:
            return json.dumps(tree, indent=1, allow_nan=True), name
        except (ValueError, RecursionError):
            pass
    try:
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        flow = rng.choice([None, False])  # block style, or flow collections inside (as the committed files)
        return (yaml.dump(tree, Dumper=dumper, sort_keys=False, width=120, default_flow_style=flow),
                name.rsplit(".", 1)[0] + ".yaml")
    except (yaml.YAMLError, RecursionError):
        return json.dumps(tree, default=str), name.rsplit(".", 1)[0] + ".json"


def mutate_bytes(rng: random.Random, text: str) -> str:
    """Raw edits of the text: bytes flipped, inserted, deleted; a line duplicated or dropped."""
    chars = list(text)
    for _ in range(rng.randint(1, 8)):
        if not chars:
            break
        i = rng.randrange(len(chars))
        op = rng.random()
        if op < 0.3:
            chars[i] = chr(rng.choice([0, 9, 10, 34, 39, 42, 38, 45, 58, 91, 93, 123, 125, 0xFFFD,
                                       rng.randint(32, 126)]))
        elif op < 0.55:
            chars.insert(i, rng.choice(["9" * 400, ": ", "- ", "&a ", "*a", "\n  ", "{", "[", "e999", "\\", "\t",
                                        "!!set ", "!!binary ", "!!omap ", "!!timestamp ", "!!python/name:os.system ",
                                        "2001-12-14 ", "<<: ", "? ", "|\n", "0x" + "f" * 300]))
        elif op < 0.8:
            del chars[i:i + rng.randint(1, 20)]
        else:
            lines = "".join(chars).split("\n")
            j = rng.randrange(len(lines))
            lines.insert(j, lines[j]) if rng.random() < 0.5 else lines.pop(j)
            chars = list("\n".join(lines))
    return "".join(chars)


class _Timeout(BaseException):
    """Raised by SIGALRM inside a mutant that runs too long."""


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout


def check_output(status: Any, err: str) -> str | None:
    """Why an answer breaks the property, or None."""
    if status not in EXITS:
        return f"exit status {status!r}"
    if "Traceback (most recent call last)" in err:
        return "a traceback"
    if status == 2 and not LOCATED.search(err):
        return "exit status 2 without a file:line:column"
    return None


def validate_in_process(path: Path, workdir: Path) -> tuple[str | None, int | None]:
    """``dmlsim validate`` in this process; (why it failed or None, exit status)."""
    from dmlsim.cli import main

    out, err = io.StringIO(), io.StringIO()
    signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT_S)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(["validate", "--memory-budget", BUDGET, str(path)])
    except _Timeout:
        return f"validate took over {TIME_LIMIT_S} s", None
    except MemoryError:
        return "MemoryError (address-space limit)", None
    except BaseException:
        return "an exception escaped:\n" + traceback.format_exc(limit=-8), None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return check_output(status, err.getvalue()), status


def _limit_child() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (SUBPROCESS_MEMORY, SUBPROCESS_MEMORY))


def run_subprocess(path: Path, workdir: Path) -> tuple[str | None, int | None]:
    """``dmlsim run -a reference`` in a child with memory and time limits; nothing may appear outside ``out/``."""
    out_dir = workdir / "out"
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir()
    base = workdir.parents[2]
    before = _listing(base)
    # one BLAS thread: OpenBLAS reserves address space per thread (most of the limit on a 16-core machine)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DMLSIM_MEMORY_BUDGET": BUDGET, "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1"}
    try:
        done = subprocess.run([sys.executable, "-m", "dmlsim", "run", "-a", "reference", "--output_path", str(out_dir),
                               str(path)], capture_output=True, text=True, timeout=TIME_LIMIT_S, env=env,
                              cwd=workdir, preexec_fn=_limit_child, errors="replace")
    except subprocess.TimeoutExpired:
        return f"run took over {TIME_LIMIT_S} s", None
    reason = check_output(done.returncode, done.stderr)
    after = _listing(base)
    leaked = sorted(p for p in after - before if not p.startswith(str(out_dir)))
    if reason is None and leaked:
        reason = f"wrote outside the output folder: {leaked[:3]}"
    return (None if reason is None else f"{reason}\n{done.stderr[-2000:]}"), done.returncode


def summary(reason: str) -> str:
    """A failure's reason in one line: its first line, and the exception's for an escaped one."""
    lines = [line for line in reason.splitlines() if line.strip()]
    return lines[0] if len(lines) < 2 else f"{lines[0]} ... {lines[-1].strip()}"


def _listing(folder: Path) -> set[str]:
    return {str(p) for p in folder.rglob("*")}


def make_mutant(seed: int, index: int, files: list[tuple[str, str, Any]]) -> tuple[str, str, str]:
    """Mutant ``index`` of ``seed``: (kind, text, file name). Each index has its own random stream, so a
    mutant is the same whatever the number of jobs, and one can be replayed alone (``--index``)."""
    rng = random.Random(seed * 1_000_003 + index)  # noqa: S311 - reproducible mutations, not secrets
    name, text, tree = rng.choice(files)
    if rng.random() < 0.15:
        return "bytes", mutate_bytes(rng, text), name
    mutated, kind = mutate_tree(rng, tree)
    body, file_name = serialize(rng, mutated, name)
    return kind, body, file_name


def _fuzz_part(count: int, seed: int, run_every: int, save: Path | None, verbose: bool, workroot: Path | None,
               part: int, parts: int, indexes: list[int] | None = None) -> Stats:
    """Mutants ``part``, ``part + parts``, ... below ``count`` (or just ``indexes``), in this process."""
    stats = Stats()
    files = seeds()
    base = Path(tempfile.mkdtemp(prefix="dmlsim-fuzz-", dir=workroot))
    workdir = base / "up" / "up" / "models"  # a target escaping by up to three '..' still lands in ``base``
    shutil.copytree(DESCRIPTORS / "data", workdir / "data")
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        for index in indexes if indexes is not None else range(part, count, parts):
            kind, body, file_name = make_mutant(seed, index, files)
            path = workdir / f"m{index}-{file_name}"
            path.write_text(body, encoding="utf-8", errors="surrogatepass")
            stats.mutants += 1
            stats.kinds[kind.split("+")[0]] += 1
            reason, status = validate_in_process(path, workdir)
            stats.exits[status] += 1
            if reason is None and run_every and index % run_every == 0:
                reason, _ = run_subprocess(path, workdir)
                stats.ran += 1
            if reason is not None:
                stats.failures.append((path.name, reason, body))
                if verbose:
                    print(f"FAIL {path.name} ({kind}): {summary(reason)}", file=sys.stderr)
                if save is not None:
                    save.mkdir(parents=True, exist_ok=True)
                    (save / path.name).write_text(body, encoding="utf-8", errors="surrogatepass")
                    (save / f"{path.name}.why.txt").write_text(reason, encoding="utf-8")
            path.unlink()
    finally:
        signal.signal(signal.SIGALRM, previous)
        shutil.rmtree(base, ignore_errors=True)
    return stats


def fuzz(count: int, seed: int, run_every: int = 50, save: Path | None = None, verbose: bool = False,
         workroot: Path | None = None, jobs: int = 1, indexes: list[int] | None = None) -> Stats:
    """Run mutants ``0 .. count-1`` of ``seed`` (or only ``indexes``) over ``jobs`` processes; the statistics."""
    if jobs <= 1 or indexes is not None:
        return _fuzz_part(count, seed, run_every, save, verbose, workroot, 0, 1, indexes)
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        parts = pool.starmap(_fuzz_part, [(count, seed, run_every, save, verbose, workroot, part, jobs)
                                          for part in range(jobs)])
    total = Stats()
    for part in parts:
        total.mutants += part.mutants
        total.ran += part.ran
        total.exits.update(part.exits)
        total.kinds.update(part.kinds)
        total.failures.extend(part.failures)
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=5000, help="mutants to try (default 5000)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock, printed)")
    parser.add_argument("--run-every", type=int, default=50,
                        help="also run one mutant in N in a limited subprocess (0: never; default 50)")
    parser.add_argument("--save", type=Path, help="folder for failing mutants and their reasons")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                        help="processes (default: one per CPU); the mutants do not depend on it")
    parser.add_argument("--index", type=int, action="append", help="replay only mutant INDEX of --seed")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each failure as it happens")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else int(time.time())
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or soft > PROCESS_MEMORY:
        resource.setrlimit(resource.RLIMIT_AS, (PROCESS_MEMORY, hard))
    start = time.perf_counter()
    stats = fuzz(args.count, seed, args.run_every, args.save, args.verbose, jobs=args.jobs, indexes=args.index)
    elapsed = time.perf_counter() - start
    exits = ", ".join(f"exit {k}: {v}" for k, v in sorted(stats.exits.items(), key=lambda kv: str(kv[0])))
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(stats.kinds.items()))
    print(f"fuzz_models: seed {seed}: {stats.mutants} mutants ({kinds}); {stats.ran} also run in a subprocess; "
          f"{exits}; {len(stats.failures)} failures; {elapsed:.1f} s with {args.jobs} job(s)")
    for name, reason, _ in stats.failures[:20]:
        print(f"  {name}: {summary(reason)}")
    return 1 if stats.failures else 0


if __name__ == "__main__":
    sys.exit(main())
