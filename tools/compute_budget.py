"""Time models scaled to the compute budget on each adapter: the measurement behind the default (README,
"Untrusted files: confinement and limits").

For each case, a model whose estimated work (dmlsim.model.runner's estimate, dmlsim.operators.base.Work) is just
under the budget — element-wise functions with broadcast inputs, reductions, SOFTMAX, GEMM, forward and backward
convolutions, RNNs with long sequences or wide batches, the reference device's element-by-element paths (integer
CAST, POW, SHRINK), thousands of tiny dispatches, printing millions of values — is run with
``python -m dmlsim run -a ADAPTER`` in a subprocess (its start, parse and run, as a user runs it) and timed.
The default budget is right when every case on every device stays well inside the 20 s promise.

Usage: python tools/compute_budget.py ADAPTER [--budget 8G] [--cases add-bcast,gemm,...]
(one adapter per process, as two PoCL builds conflict: OCL_ICD_VENDORS=<its .icd> to choose a driver)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import dmlsim as dml  # noqa: E402 - after the path is set
from dmlsim.model import load_model  # noqa: E402
from dmlsim.model.limits import DEFAULT_COMPUTE, Limits, parse_bytes  # noqa: E402
from dmlsim.model.runner import Runner  # noqa: E402

F, INT = "FLOAT32", "INT32"
Tree = dict[str, Any]


def t(data_type: str, sizes: list[int], strides: list[int] | None = None) -> Tree:
    """A tensor desc (``strides`` of zeros: a broadcast input of one element)."""
    desc: Tree = {"DataType": data_type, "Sizes": sizes}
    if strides is not None:
        desc["Strides"] = strides
    return desc


def res(data_type: str, count: int, value: float = 1) -> Tree:
    return {"initialValuesDataType": data_type, "initialValues": {"valueCount": count, "value": value}}


def model(resources: Tree, op: str, desc: Tree, bindings: Tree, repeat: int = 1, extra: tuple = ()) -> Tree:
    """One dispatchable ``d`` and one dispatch of it (``repeat`` times), then ``extra`` commands."""
    return {"resources": resources, "dispatchables": {"d": {"type": op, "desc": desc}},
            "commands": [{"type": "dispatch", "dispatchable": "d", "bindings": bindings, "repeat": repeat}, *extra]}


def conv(channels: int, side: int, direction: str = "FORWARD", kernel: int = 3) -> Tree:
    """A convolution of broadcast inputs: ``channels`` in and out, ``side`` x ``side`` (BACKWARD: stride 2)."""
    out = side if direction == "FORWARD" else 2 * side + 1
    stride, pad = (1, 1) if direction == "FORWARD" else (2, 0)
    return model({"x": res(F, 1), "w": res(F, 1), "o": res(F, channels * out * out)}, "CONVOLUTION",
                 {"InputTensor": t(F, [1, channels, side, side], [0, 0, 0, 0]),
                  "FilterTensor": t(F, [channels, channels, kernel, kernel], [0, 0, 0, 0]),
                  "OutputTensor": t(F, [1, channels, out, out]), "Mode": "CROSS_CORRELATION", "Direction": direction,
                  "Strides": [stride] * 2, "Dilations": [1, 1], "StartPadding": [pad] * 2, "EndPadding": [pad] * 2,
                  "OutputPadding": [0, 0], "GroupCount": 1},
                 {"InputTensor": "x", "FilterTensor": "w", "OutputTensor": "o"})


# each case: size -> model; the size is scaled until the model's estimate reaches the budget
BUILDERS = {
    "add-bcast": lambda n: model({"a": res(F, 1), "o": res(F, n)}, "ELEMENT_WISE_ADD",
        {"ATensor": t(F, [n], [0]), "BTensor": t(F, [n], [0]), "OutputTensor": t(F, [n])},
        {"ATensor": "a", "BTensor": "a", "OutputTensor": "o"}),
    "add-packed": lambda n: model({"a": res(F, n), "b": res(F, n), "o": res(F, n)}, "ELEMENT_WISE_ADD",
        {"ATensor": t(F, [n]), "BTensor": t(F, [n]), "OutputTensor": t(F, [n])},
        {"ATensor": "a", "BTensor": "b", "OutputTensor": "o"}, repeat=4),
    "reduce": lambda n: model({"a": res(F, 1), "o": res(F, 1)}, "REDUCE",
        {"Function": "SUM", "InputTensor": t(F, [n], [0]), "OutputTensor": t(F, [1]), "Axes": [0]},
        {"InputTensor": "a", "OutputTensor": "o"}),
    "gemm": lambda k: model({"a": res(F, 1), "o": res(F, 1 << 20)}, "GEMM",
        {"ATensor": t(F, [1, 1, 1024, k], [0, 0, 0, 0]), "BTensor": t(F, [1, 1, k, 1024], [0, 0, 0, 0]),
         "OutputTensor": t(F, [1, 1, 1024, 1024]), "TransA": "NONE", "TransB": "NONE", "Alpha": 1, "Beta": 0},
        {"ATensor": "a", "BTensor": "a", "OutputTensor": "o"}),
    "conv-fwd": lambda c: conv(c, 64),
    "conv-bwd": lambda c: conv(c, 32, "BACKWARD"),
    "rnn-seq": lambda seq: model({"x": res(F, 1), "w": res(F, 1), "r": res(F, 1), "y": res(F, seq * 64)}, "RNN",
        {"InputTensor": t(F, [1, seq, 1, 64], [0, 0, 0, 0]), "WeightTensor": t(F, [1, 1, 64, 64], [0, 0, 0, 0]),
         "RecurrenceTensor": t(F, [1, 1, 64, 64], [0, 0, 0, 0]), "OutputSequenceTensor": t(F, [seq, 1, 1, 64]),
         "ActivationDescs": [{"Type": "ACTIVATION_TANH"}], "Direction": "FORWARD"},
        {"InputTensor": "x", "WeightTensor": "w", "RecurrenceTensor": "r", "OutputSequenceTensor": "y"}),
    "rnn-batch": lambda batch: model(
        {"x": res(F, 1), "w": res(F, 1), "r": res(F, 1), "y": res(F, 16 * batch * 64)}, "RNN",
        {"InputTensor": t(F, [1, 16, batch, 64], [0, 0, 0, 0]), "WeightTensor": t(F, [1, 1, 64, 64], [0, 0, 0, 0]),
         "RecurrenceTensor": t(F, [1, 1, 64, 64], [0, 0, 0, 0]), "OutputSequenceTensor": t(F, [16, 1, batch, 64]),
         "ActivationDescs": [{"Type": "ACTIVATION_TANH"}], "Direction": "FORWARD"},
        {"InputTensor": "x", "WeightTensor": "w", "RecurrenceTensor": "r", "OutputSequenceTensor": "y"}),
    "softmax": lambda n: model({"a": res(F, 1), "o": res(F, n)}, "ACTIVATION_SOFTMAX1",
        {"InputTensor": t(F, [16, n // 16], [0, 0]), "OutputTensor": t(F, [16, n // 16]), "AxisCount": 1, "Axes": [1]},
        {"InputTensor": "a", "OutputTensor": "o"}),
    "cast-f2i": lambda n: model({"a": res(F, 1), "o": res(INT, n)}, "CAST",
        {"InputTensor": t(F, [n], [0]), "OutputTensor": t(INT, [n])}, {"InputTensor": "a", "OutputTensor": "o"}),
    "pow-int": lambda n: model({"a": res(INT, 1, 3), "o": res(INT, n)}, "ELEMENT_WISE_POW",
        {"InputTensor": t(INT, [n], [0]), "ExponentTensor": t(INT, [n], [0]), "OutputTensor": t(INT, [n])},
        {"InputTensor": "a", "ExponentTensor": "a", "OutputTensor": "o"}),
    "shrink-int": lambda n: model({"a": res(INT, 1, 5), "o": res(INT, n)}, "ACTIVATION_SHRINK",
        {"InputTensor": t(INT, [n], [0]), "OutputTensor": t(INT, [n]), "Bias": 1, "Threshold": 2},
        {"InputTensor": "a", "OutputTensor": "o"}),
    "upsample": lambda c: model({"a": res(F, 1), "o": res(F, c * 512 * 512)}, "UPSAMPLE_2D",
        {"InputTensor": t(F, [1, c, 256, 256], [0, 0, 0, 0]), "OutputTensor": t(F, [1, c, 512, 512]),
         "ScaleSize": {"Width": 2, "Height": 2}, "InterpolationMode": "LINEAR"},
        {"InputTensor": "a", "OutputTensor": "o"}),
    "cumsum": lambda n: model({"a": res(F, 1), "o": res(F, n)}, "CUMULATIVE_SUMMATION",
        {"InputTensor": t(F, [n], [0]), "OutputTensor": t(F, [n]), "Axis": 0, "AxisDirection": "INCREASING",
         "HasExclusiveSum": False}, {"InputTensor": "a", "OutputTensor": "o"}),
    "argmax": lambda n: model({"a": res(F, 1), "o": res("UINT32", 1)}, "ARGMAX",
        {"InputTensor": t(F, [n], [0]), "OutputTensor": t("UINT32", [1]), "Axes": [0], "AxisDirection": "INCREASING"},
        {"InputTensor": "a", "OutputTensor": "o"}),
    "slice1": lambda n: model({"a": res(F, 1), "o": res(F, n)}, "SLICE1",
        {"InputTensor": t(F, [2 * n], [0]), "OutputTensor": t(F, [n]), "DimensionCount": 1, "InputWindowOffsets": [0],
         "InputWindowSizes": [2 * n], "InputWindowStrides": [2]}, {"InputTensor": "a", "OutputTensor": "o"}),
    "hardmax": lambda n: model({"a": res(F, 1), "o": res(F, n)}, "ACTIVATION_HARDMAX1",
        {"InputTensor": t(F, [16, n // 16], [0, 0]), "OutputTensor": t(F, [16, n // 16]), "AxisCount": 1, "Axes": [1]},
        {"InputTensor": "a", "OutputTensor": "o"}),
    "sigmoid": lambda n: model({"a": res(F, 1), "o": res(F, n)}, "ACTIVATION_SIGMOID",
        {"InputTensor": t(F, [n], [0]), "OutputTensor": t(F, [n])}, {"InputTensor": "a", "OutputTensor": "o"}),
    "tiny-repeat": lambda r: model({"a": res(F, 4), "o": res(F, 4)}, "ELEMENT_WISE_IDENTITY",
        {"InputTensor": t(F, [4]), "OutputTensor": t(F, [4])}, {"InputTensor": "a", "OutputTensor": "o"}, repeat=r),
    "print": lambda n: model({"a": res(F, 4), "o": res(F, n)}, "ELEMENT_WISE_IDENTITY",
        {"InputTensor": t(F, [4]), "OutputTensor": t(F, [4])}, {"InputTensor": "a", "OutputTensor": "o"},
        extra=[{"type": "print", "resource": "o"}]),
}


def estimate(tree: dict[str, Any], path: Path) -> int:
    """The model's estimated work units (0 when a dispatch is invalid: it would not run)."""
    path.write_text(json.dumps(tree))
    model = load_model(path, limits=Limits(budget=1 << 40, compute=1 << 62))
    runner = Runner(model, dml.DMLCreateDevice(0, "reference"), execute=False)
    for spec in model.dispatchables.values():
        runner._create(spec)
    if any(name not in runner.compiled for name in model.dispatchables):
        return 0
    return sum(runner._command_cost(command)[0] for command in model.commands)


def scaled(name: str, path: Path, target: int) -> tuple[int, int]:
    """The largest size of case ``name`` whose estimate is at most ``target`` (bisection), and its estimate."""
    low, high = 1, 1 << 34
    while high - low > 1:
        middle = (low + high) // 2
        try:
            units = estimate(BUILDERS[name](middle), path) or 1 << 80
        except Exception:  # a size the desc cannot have is too large
            units = 1 << 80
        low, high = (middle, high) if units <= target else (low, middle)
    return low, estimate(BUILDERS[name](low), path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("adapter", help="as `dmlsim run -a` takes it (reference, intel, pocl, 0, ...)")
    parser.add_argument("--budget", default=None, help="the compute budget to scale to (default: dmlsim's)")
    parser.add_argument("--cases", default=",".join(BUILDERS), help="comma-separated case names")
    args = parser.parse_args(argv)
    budget = parse_bytes(args.budget, "number of work units") if args.budget else DEFAULT_COMPUTE
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DMLSIM_COMPUTE_BUDGET": str(budget),
           "DMLSIM_MEMORY_BUDGET": "1G"}
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="dmlsim-compute-") as folder:
        for name in args.cases.split(","):
            path = Path(folder) / f"{name}.json"
            size, units = scaled(name, path, int(budget * 0.98))
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "dmlsim", "run", "-a", args.adapter, str(path)],
                                  capture_output=True, text=True, env=env, cwd=folder, timeout=600, check=False)
            seconds = time.perf_counter() - start
            worst = max(worst, seconds)
            print(f"{name:12} size {size:>11,} {units:.3g} units  exit {done.returncode}  {seconds:6.2f} s", flush=True)
    print(f"slowest: {worst:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
