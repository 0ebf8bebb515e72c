"""``dmlsim devices``: the adapters dmlsim can run on, like ``clinfo -l`` plus ``reference``.

Each row: the index an integer adapter spec means, ``P:D``, the label, the type words a name spec may
use, fp64 support, memory and compute units. Loader notes (``OCL_ICD_VENDORS`` naming nothing,
``OCL_ICD_FILENAMES`` being ignored, a PyPI runtime not registered) go to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys

from dmlsim.backends.adapters import all_adapters
from dmlsim.backends.opencl.icd import loader_notes
from dmlsim.backends.opencl.vendors import unregistered_runtimes

NAME = "devices"
HELP = "list adapters (OpenCL platforms/devices and the numpy reference device)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--probe", action="store_true", help="build and run a tiny kernel on each device")
    parser.add_argument("--json", action="store_true", help="print a JSON list instead of text")


def run(args: argparse.Namespace) -> int:
    from dmlsim.backends.opencl.probe import probe

    for note in [*loader_notes(), *unregistered_runtimes()]:
        print(f"note: {note}", file=sys.stderr)
    rows = []
    for adapter in all_adapters():
        problem = probe(adapter) if args.probe and adapter.kind != "reference" else None
        rows.append({"index": adapter.index, "ordinal": adapter.ordinal, "kind": adapter.kind,
                     "label": adapter.label, "id": adapter.short_label, "problem": problem,
                     "implementation": adapter.implementation, "vendor": adapter.vendor, "fp64": adapter.fp64,
                     "memory": adapter.memory, "compute_units": adapter.compute_units,
                     "details": adapter.details})
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print(HEADER)
    for row in rows:
        status = ""
        if args.probe and row["kind"] != "reference":
            status = "  [usable]" if row["problem"] is None else f"  [UNUSABLE: {row['problem']}]"
        number = str(row["ordinal"]) if row["ordinal"] >= 0 else "-"
        label = row["label"].removeprefix(f"{row['index']} ")  # P:D has its own column
        print(f"{number:>3} {row['index']:10} {label}{status}\n    {row['details']}"
              + (f"; names: {row['implementation']}, {row['kind'].lower()}" if row["implementation"] else ""))
    return 0


# the columns: what `-a N`, `-a P:D` and `-a NAME` select (the second line of each device: fp64, memory,
# compute units, and the words a name spec may use)
HEADER = "  # P:D        PLATFORM / DEVICE [TYPE] (VERSION)"
