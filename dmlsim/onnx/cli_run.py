"""``dmlsim run model.onnx``: an ONNX model lowered onto DirectML (one CompileGraph) and run on a dmlsim device.

- **Inputs.** ``--input NAME=FILE.npy`` gives one graph input, ``--input FILE.npz`` several (by their names in the
  archive); the others are seeded random data (``--seed``, default 0) of the model's declared types and shapes
  (:func:`dmlsim.onnx.architectures.feeds`): a symbolic dimension needs ``--dim NAME=N`` (or the input given),
  else a located error names it. A given input must match the declared element type and every fixed dimension.
- **Outputs.** One line per output (name, shape, dtype and the first values), or with ``--output_path DIR`` each
  output written as ``DIR/<name>.npy`` too.
- **Timing.** The whole model is one DirectML dispatch (the compiled graph); its first execution builds the
  kernels and is reported as such (sample 0, a cold sample when there are more), then the executions up to
  ``-i N`` (or for ``-t MS``) give DxDispatch's timing line(s), as ``dmlsim run`` times a JSON model's dispatch
  (:mod:`dmlsim.model.timing`); the samples time ExecuteCommandLists and the wait, inputs already written.
- **--compare-onnxruntime.** Every output checked against onnxruntime's CPU provider on the same inputs within
  ``--ulps`` (default 32) ulps of the output's largest magnitude (:mod:`dmlsim.onnx.peer`), printing the ulp
  distance at the first differing element; exit status 1 on a mismatch.

A bad model (:mod:`dmlsim.onnx.model_file`), an input that does not fit, or a node the lowering refuses ends in one
located line on stderr, ``dmlsim: model.onnx: node 'x' (Op, opset N): ...``, and exit status 2; no traceback.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from dmlsim.api.errors import DMLError

PREVIEW = 6


class BadInputError(Exception):
    """A --input/--dim that does not fit the model (the message says which)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options only ONNX models take (``dmlsim run`` adds them to its own)."""
    group = add_input_arguments(parser)
    group.add_argument("--compare-onnxruntime", action="store_true",
                       help="check every output against onnxruntime's CPU provider (exit status 1 on a mismatch)")
    group.add_argument("--ulps", type=float, default=32.0,
                       help="--compare-onnxruntime's tolerance: ulps of each output's largest magnitude (default 32)")


def add_input_arguments(parser: argparse.ArgumentParser) -> Any:
    """--input, --dim and --seed (``run`` and ``export`` of an ONNX model); the argument group."""
    group = parser.add_argument_group("ONNX models (MODEL.onnx)")
    group.add_argument("--input", action="append", default=[], dest="onnx_inputs", metavar="NAME=FILE.npy|FILE.npz",
                       help="a graph input from a .npy file, or several from an .npz archive (repeatable); the "
                            "others are seeded random data")
    group.add_argument("--dim", action="append", default=[], dest="onnx_dims", metavar="NAME=N",
                       help="the size of a symbolic dimension of the graph inputs (repeatable)")
    group.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    return group


def parse_dims(items: list[str]) -> dict[str, int]:
    dims: dict[str, int] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name or not value.strip().isdigit() or int(value) < 1:
            raise BadInputError(f"--dim {item!r}: expected NAME=N with N a positive integer")
        dims[name] = int(value)
    return dims


def given_inputs(items: list[str]) -> dict[str, np.ndarray]:
    """The arrays --input names (pickled objects refused: only plain arrays are read)."""
    arrays: dict[str, np.ndarray] = {}
    for item in items:
        name, sep, file = item.partition("=")
        try:
            if sep:
                arrays[name] = np.load(file, allow_pickle=False)
            else:
                with np.load(item, allow_pickle=False) as archive:
                    if not hasattr(archive, "files"):
                        raise BadInputError(f"--input {item!r}: a single .npy array needs NAME=FILE.npy")
                    arrays.update({key: archive[key] for key in archive.files})
        except BadInputError:
            raise
        except (OSError, ValueError, EOFError) as exc:
            raise BadInputError(f"--input {item!r}: cannot read it as a numpy array ({exc})") from None
    return arrays


def make_feeds(model: Any, given: dict[str, np.ndarray], dims: dict[str, int], seed: int) -> dict[str, np.ndarray]:
    """The given inputs (checked against the declared types and fixed dims) and seeded random data for the rest."""
    from onnx import helper

    from dmlsim.onnx.architectures import feeds

    graph = model.graph
    constants = {t.name for t in graph.initializer}
    declared = {v.name: v for v in graph.input if v.name not in constants}
    unknown = sorted(set(given) - set(declared) - constants)
    if unknown:
        raise BadInputError(f"--input names {', '.join(map(repr, unknown))}, which the model has no input of "
                       f"(its inputs: {', '.join(map(repr, declared)) or 'none'})")
    for name, array in given.items():
        if name not in declared:
            continue
        tensor = declared[name].type.tensor_type
        want = np.dtype(helper.tensor_dtype_to_np_dtype(tensor.elem_type))
        if array.dtype != want:
            raise BadInputError(f"--input {name!r}: the model declares {want}, the file holds {array.dtype}")
        shape = [d.dim_value if d.HasField("dim_value") else d.dim_param or "?" for d in tensor.shape.dim]
        fixed_ok = len(shape) == array.ndim and all(not isinstance(d, int) or d == n
                                                    for d, n in zip(shape, array.shape, strict=True))
        if tensor.HasField("shape") and not fixed_ok:
            raise BadInputError(f"--input {name!r}: the model declares shape {shape}, the file holds "
                           f"{list(array.shape)}")
    stripped = type(model)()
    stripped.CopyFrom(model)
    keep = [v for v in stripped.graph.input if v.name not in given]
    del stripped.graph.input[:]
    stripped.graph.input.extend(keep)
    try:
        drawn = feeds(stripped, seed, dims)
    except DMLError as exc:
        from dmlsim.cli import plain

        raise BadInputError(plain(exc)) from None
    return {**drawn, **{k: v for k, v in given.items() if k in declared or k in constants}}


def describe(name: str, array: np.ndarray) -> str:
    flat = array.reshape(-1)
    values = ", ".join(np.array2string(v, precision=6) if array.dtype.kind == "f" else str(v)
                       for v in flat[:PREVIEW])
    more = f", ... ({flat.size} values)" if flat.size > PREVIEW else ""
    return f"{name}: {list(array.shape)} {array.dtype} [{values}{more}]"


def export_onnx(args: argparse.Namespace, path: Path) -> int:
    """``dmlsim export model.onnx -o DIR`` (:mod:`dmlsim.onnx.export`); the exit status (0, or 2 refused)."""
    from dmlsim.cli import plain
    from dmlsim.onnx import export
    from dmlsim.onnx.model_file import BadModelError, located

    try:
        given, dims = given_inputs(args.onnx_inputs), parse_dims(args.onnx_dims)
        target, count = export.export_onnx(path, args.output, lambda model: make_feeds(model, given, dims, args.seed))
    except BadModelError as exc:
        print(f"dmlsim: {exc}", file=sys.stderr)
        return 2
    except BadInputError as exc:
        print(f"dmlsim: {path}: {exc}", file=sys.stderr)
        return 2
    except DMLError as exc:
        print(f"dmlsim: {located(path, plain(exc))}", file=sys.stderr)
        return 2
    print(f"{path}: {target} ({count} DirectML dispatches; `dmlsim run {target}` runs it)")
    return 0


def run_onnx(args: argparse.Namespace, path: Path) -> int:
    """Run one ONNX model file as the module docstring says; the exit status (0, 1 mismatch, 2 refused)."""
    from dmlsim.cli import plain
    from dmlsim.onnx.model_file import BadModelError, load, located
    from dmlsim.onnx.run_model import check_lowerable

    try:
        model = load(path)
        check_lowerable(model)  # a node without a lowering is refused before a device is made
        feeds = make_feeds(model, given_inputs(args.onnx_inputs), parse_dims(args.onnx_dims), args.seed)
        return _run(args, path, model, feeds)
    except BadModelError as exc:
        print(f"dmlsim: {exc}", file=sys.stderr)
    except BadInputError as exc:
        print(f"dmlsim: {path}: {exc}", file=sys.stderr)
    except DMLError as exc:
        print(f"dmlsim: {located(path, plain(exc))}", file=sys.stderr)
    except Exception as exc:  # never a traceback for a model: name the failure, say whose fault it is
        print(f"dmlsim: {path}: dmlsim failed on this model ({type(exc).__name__}: "
              f"{str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ''}); please report it",
              file=sys.stderr)
    return 2


def _run(args: argparse.Namespace, path: Path, model: Any, feeds: dict[str, np.ndarray]) -> int:
    import dmlsim as dml
    from dmlsim.model.timing import build_line, split, timing_report
    from dmlsim.onnx.execution import DmlsimBackend

    flags = dml.DML_CREATE_DEVICE_FLAG_DEBUG if args.debug else dml.DML_CREATE_DEVICE_FLAG_NONE
    device = dml.DMLCreateDevice(flags, adapter=args.adapter)
    print(f"Running on '{device.adapter.label}'")
    rep = DmlsimBackend.prepare(model, device)
    start = time.perf_counter()
    lowered = rep.cache.get(model, feeds, device)
    name = path.stem
    print(f"Compiled '{name}': one DirectML graph of {lowered.node_count} operator nodes in "
          f"{(time.perf_counter() - start) * 1e3:.1f} ms (CompileGraph and weight initialization)")
    start = time.perf_counter()
    outputs = lowered.run(feeds)
    first = (time.perf_counter() - start) * 1e3
    network = lowered.network
    if network is not None:
        opencl = device.backend.kind == "opencl"
        cpu: list[float] = [first]  # sample 0: the first execution, which built the kernels (as the JSON runner's)
        gpu: list[float] = [sum(t.device_ns for t in network.queue.last_timings) / 1e6] if opencl else []
        count = max(args.iterations, 1)
        deadline = None if args.milliseconds is None else time.perf_counter() + args.milliseconds / 1e3
        while (len(cpu) < count) if deadline is None else (not cpu or time.perf_counter() < deadline):
            begin = time.perf_counter()
            network.queue.ExecuteCommandLists([network.command_list])
            network.queue.WaitForIdle()
            cpu.append((time.perf_counter() - begin) * 1e3)
            if opencl:
                gpu.append(sum(t.device_ns for t in network.queue.last_timings) / 1e6)
        if opencl:
            print(build_line(name, first, cold=len(split(cpu, args.warmup)[0]) > 0))
        for line in timing_report(name, cpu, gpu, args.warmup, args.timing_verbosity):
            print(line)
    for value, array in zip(model.graph.output, outputs, strict=True):
        print(describe(value.name, array))
    if args.output_dir is not None:
        from dmlsim.model.export import safe_name

        for value, array in zip(model.graph.output, outputs, strict=True):
            target = Path(args.output_dir) / f"{safe_name(value.name)}.npy"
            np.save(target, array)
            print(f"wrote {target}")
    if not args.compare_onnxruntime:
        return 0
    from dmlsim.onnx.peer import compare, onnxruntime_outputs

    try:
        expected = onnxruntime_outputs(model, feeds)
    except Exception as exc:  # onnxruntime refusing the model: say so, no traceback
        print(f"dmlsim: {path}: onnxruntime could not run the model ({type(exc).__name__}: "
              f"{str(exc).splitlines()[0][:200]})", file=sys.stderr)
        return 2
    status = 0
    for value, got, want in zip(model.graph.output, outputs, expected, strict=True):
        result = compare(value.name, got, want, args.ulps)
        print(("ok: " if result.ok else "MISMATCH: ") + result.message)
        status = status if result.ok else 1
    print(f"{path}: {'all outputs match' if status == 0 else 'outputs differ from'} onnxruntime's CPU provider")
    return status
