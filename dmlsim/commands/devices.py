"""``dmlsim devices``: the adapters dmlsim can run on, like ``clinfo -l`` plus ``reference``."""

from __future__ import annotations

import argparse

from dmlsim.opencl.adapters import all_adapters

NAME = "devices"
HELP = "list adapters (OpenCL platforms/devices and the numpy reference device)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--probe", action="store_true", help="build a tiny kernel on each device to check it works")


def run(args: argparse.Namespace) -> int:
    from dmlsim.opencl.probe import probe

    for adapter in all_adapters():
        line = f"{adapter.index:10} {adapter.label}"
        if args.probe and adapter.kind != "reference":
            problem = probe(adapter)
            line += "  [usable]" if problem is None else f"  [UNUSABLE: {problem}]"
        print(line)
    return 0
