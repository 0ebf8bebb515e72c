"""The model-file mutation fuzzer (tools/fuzz_models.py), small: 200 mutants per suite run.

``make fuzz`` (CI) runs 5,000 with a fresh seed; here the seed is fixed so a failure reproduces
(``python tools/fuzz_models.py --count 200 --seed 12 --save DIR``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _fuzzer():
    spec = importlib.util.spec_from_file_location("fuzz_models", ROOT / "tools" / "fuzz_models.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("fuzz_models", module)
    spec.loader.exec_module(module)
    return module


def test_200_mutants_end_in_a_located_answer(tmp_path):
    stats = _fuzzer().fuzz(200, seed=12, run_every=100, workroot=tmp_path)
    assert stats.mutants == 200 and stats.ran == 2
    assert not stats.failures, "\n\n".join(f"{name}: {why}" for name, why, _ in stats.failures[:5])
    # the mutants reach past the parser: some stay valid, most are refused with a location
    assert stats.exits[0] > 10 and stats.exits[2] > 100
    assert sum(n for kind, n in stats.kinds.items() if kind.startswith("desc-")) > 20  # desc-aware mutations too


def test_the_property_check_catches_each_kind_of_bad_answer():
    check = _fuzzer().check_output
    assert check(0, "") is None and check(2, "m.yaml:3:7: resources.X: bad") is None
    assert check(None, "") and check(5, "")
    assert "traceback" in check(1, "Traceback (most recent call last):\n  ...")
    assert "file:line:column" in check(2, "dmlsim validate: something")


def test_a_drawn_model_of_every_implemented_operator_seeds_the_fuzzer(tmp_path):
    """Issue 26: the fuzzer mutates, besides the committed files, one model per implemented operator whose desc
    the differential harness drew (every operator, not only those with a committed file), a third of them
    compiled as graphs; each is valid as drawn, so its mutants reach the device's checks."""
    from dmlsim.operators.harness import implemented_operators

    fuzzer = _fuzzer()
    drawn = fuzzer.drawn_seeds()
    assert {name for name, _, _ in drawn} <= {name for name, _, _ in fuzzer.seeds()}  # what the mutants start from
    names = {tree["dispatchables"]["op"]["type"] for _, _, tree in drawn}
    assert names == {op.name for op in implemented_operators()}
    graphs = sum(tree["dispatchables"]["op"].get("dmlCompileType") == "DmlCompileGraph" for _, _, tree in drawn)
    assert graphs == -(-len(drawn) // 3)
    for name, text, _ in drawn:
        path = tmp_path / name
        path.write_text(text)
        reason, status = fuzzer.validate_in_process(path, tmp_path)
        assert reason is None and status == 0, (name, reason, status)


def test_desc_mutations_distort_what_descs_hold():
    """Every kind of desc mutation happens, and each does what it says on a drawn JOIN and REDUCE."""
    import random

    fuzzer = _fuzzer()
    drawn = {name: tree for name, _, tree in fuzzer.drawn_seeds()}
    rng = random.Random(5)
    kinds = set()
    for i in range(400):
        seed = "drawn-join.json" if i % 2 else "drawn-reduce.json"  # REDUCE has enums (Function), JOIN arrays
        tree = json_copy(drawn[seed])
        kind = fuzzer.mutate_desc(rng, tree)
        kinds.add(kind)
        desc = tree["dispatchables"]["op"]["desc"]
        if kind == "desc-array" and seed == "drawn-join.json":
            assert len(desc["InputTensors"]) in (100, 1000, 5000)
            assert desc["InputTensors"][0]["DataType"] != desc["OutputTensor"]["DataType"]
        if kind == "desc-broadcast" and seed == "drawn-join.json":
            assert any(set(t.get("Strides", [1])) == {0} for t in [desc["OutputTensor"], *desc["InputTensors"]])
    every = ("type", "enum", "count", "axes", "array", "broadcast", "owned", "repeat", "graph")
    assert kinds - {None} == {f"desc-{k}" for k in every}
    tree = json_copy(drawn["drawn-reduce.json"])
    while fuzzer.mutate_desc(rng, tree) != "desc-axes":
        tree = json_copy(drawn["drawn-reduce.json"])
    assert len(next(v for v in tree["dispatchables"]["op"]["desc"].values()
                    if isinstance(v, list) and v and isinstance(v[0], int))) in (64, 1000, 5000)


def json_copy(tree):
    import json

    return json.loads(json.dumps(tree))


def test_hostile_numbers_from_non_finite_values():
    """The corpus holds infinities (pooling's -inf, padding values): the fuzzer's number mutations must not raise on
    them (`make fuzz` died with OverflowError in int(inf) * 10**300 once such files arrived)."""
    import math
    import random

    module = _fuzzer()
    rng = random.Random(5)
    for old in (math.inf, -math.inf, math.nan, 1.5, 7):
        for _ in range(200):
            module._hostile(rng, old, {"a": old})
