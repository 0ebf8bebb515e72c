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


def test_the_property_check_catches_each_kind_of_bad_answer():
    check = _fuzzer().check_output
    assert check(0, "") is None and check(2, "m.yaml:3:7: resources.X: bad") is None
    assert check(None, "") and check(5, "")
    assert "traceback" in check(1, "Traceback (most recent call last):\n  ...")
    assert "file:line:column" in check(2, "dmlsim validate: something")
