"""``dmlsim devices``: the adapters dmlsim can run on, like ``clinfo -l`` plus ``reference``."""

from __future__ import annotations

import argparse
import json

from dmlsim.backends.adapters import all_adapters

NAME = "devices"
HELP = "list adapters (OpenCL platforms/devices and the numpy reference device)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--probe", action="store_true", help="build and run a tiny kernel on each device")
    parser.add_argument("--json", action="store_true", help="print a JSON list instead of text")


def run(args: argparse.Namespace) -> int:
    from dmlsim.backends.opencl.probe import probe

    rows = []
    for adapter in all_adapters():
        problem = probe(adapter) if args.probe and adapter.kind != "reference" else None
        rows.append({"index": adapter.index, "kind": adapter.kind, "label": adapter.label,
                     "id": adapter.short_label, "problem": problem})
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for row in rows:
        status = ""
        if args.probe and row["kind"] != "reference":
            status = "  [usable]" if row["problem"] is None else f"  [UNUSABLE: {row['problem']}]"
        print(f"{row['index']:10} {row['label']}{status}")
    return 0
