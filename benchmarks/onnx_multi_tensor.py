"""Fused multi-tensor ONNX Adam (one dispatch) vs one dispatch per tensor; prints the figure.

Usage: python benchmarks/onnx_multi_tensor.py [--adapter SPEC] [--tensors 1000] [--elements 4096]
(`dmlsim bench` will call dmlsim.onnx_bench.measure_multi_tensor the same way.)
"""

from __future__ import annotations

import argparse

from dmlsim.onnx_bench import measure_multi_tensor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", default=None, help="dmlsim adapter spec (default: DMLCreateDevice's choice)")
    parser.add_argument("--tensors", type=int, default=1000)
    parser.add_argument("--elements", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(measure_multi_tensor(args.adapter, args.tensors, args.elements, args.repeats).describe())


if __name__ == "__main__":
    main()
