"""``dmlsim export MODEL... -o DIR``: models (files or folders) as plain DxDispatch models plus manifests.

What is translated, and what is left out and why, is described in :mod:`dmlsim.model.export`; the
folder's layout in :mod:`dmlsim.model.corpus`. Exit status: 0 when every model file was read (some
may be listed as not exported, with the reason), 2 when a file could not be loaded or is invalid.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "export"
HELP = "write model files as plain DxDispatch models, with a manifest of the expected results"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("models", metavar="MODEL", nargs="+", help="model files, or folders searched for "
                                                                    ".json/.yaml/.yml files")
    parser.add_argument("-o", "--output", metavar="DIR", type=Path, required=True,
                        help="the export folder (created; files of the same names are replaced)")
    parser.add_argument("--raw", action="store_true",
                        help="results as raw bytes (.bin) instead of .npy files (both are what writeFile writes)")
    from dmlsim.onnx.cli_run import add_input_arguments

    add_input_arguments(parser)  # an ONNX model is exported as its lowered graph for these inputs


def run(args: argparse.Namespace) -> int:
    from dmlsim.model import ModelError, load_model
    from dmlsim.model.corpus import INDEX, RUN_SCRIPT, model_files, unique_stems, write_index, write_model
    from dmlsim.model.export import NotExportableError, export_model
    from dmlsim.progress import track

    onnx_files = [Path(p) for p in args.models if Path(p).suffix.lower() == ".onnx" and not Path(p).is_dir()]
    if onnx_files:  # ONNX models: their lowered DirectML graphs as DxDispatch models (dmlsim.onnx.export)
        from dmlsim.onnx.cli_run import export_onnx

        status = max(export_onnx(args, path) for path in onnx_files)
        rest = [p for p in args.models if Path(p) not in onnx_files]
        if not rest:
            return status
        args.models = rest
    files = model_files(args.models)
    if not files:
        print("dmlsim export: no model files found", file=sys.stderr)
        return 2
    args.output.mkdir(parents=True, exist_ok=True)
    status, exported, left_out = 0, [], []
    for path, stem in track(zip(files, unique_stems(files), strict=True), "export", total=len(files)):
        try:
            export = export_model(load_model(path), stem, result_suffix=".bin" if args.raw else ".npy")
        except ModelError as exc:
            print(exc, file=sys.stderr)
            left_out.append((str(path), "the model file has errors (see 'dmlsim validate')"))
            status = 2
            continue
        except NotExportableError as exc:
            invalid = "is invalid" in str(exc)
            print(f"{path}: not exported: {exc}", file=sys.stderr if invalid else sys.stdout)
            left_out.append((str(path), str(exc)))
            status = 2 if invalid else status
            continue
        write_model(export, args.output)
        exported.append(export)
        manifest = export.manifest
        print(f"{path}: {stem}.json, {len(manifest['checks'])} checks"
              + (f", {len(manifest['notExported'])} items not exported (see the manifest)"
                 if manifest["notExported"] else ""))
    write_index(args.output, exported, left_out)
    checks = sum(len(e.manifest["checks"]) for e in exported)
    print(f"exported {len(exported)} of {len(files)} models ({checks} checks) to {args.output}; "
          f"{INDEX} lists them, {RUN_SCRIPT} runs them with DxDispatch")
    return status
