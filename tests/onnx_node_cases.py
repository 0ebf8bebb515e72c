"""ONNX's own node test cases, generated at test time: the external oracle for operators ONNX also has.

Wheels of onnx from 1.17 on no longer ship `onnx/backend/test/data/node`; its generator
(`onnx.backend.test.case.node.collect_testcases`) builds every case (model, inputs, expected outputs) in
numpy, with no download. Generating them all takes several seconds, so one process generates them once
(`all_node_cases`) and every test module picks its operator's cases from that list.

A case maps onto a DirectML desc the way onnxruntime's DirectML provider maps the ONNX node (read its
`Operators/DmlOperator*.cpp`); the expected outputs are onnx's, never dmlsim's.
"""

from __future__ import annotations

import functools
from typing import Any


@functools.lru_cache(maxsize=1)
def all_node_cases() -> tuple[Any, ...]:
    """Every node case onnx's generator writes (onnx's `TestCase` tuples), once per process (and kept between
    processes: :func:`dmlsim.onnx.node_suite.all_cases`)."""
    from dmlsim.onnx.node_suite import all_cases

    return tuple(all_cases())


def node_cases(op_type: str) -> list[Any]:
    """The node cases whose single node is an `op_type` node of the default domain (e.g. "MaxPool")."""
    picked = []
    for case in all_node_cases():
        nodes = case.model.graph.node
        if len(nodes) == 1 and nodes[0].op_type == op_type and nodes[0].domain in ("", "ai.onnx"):
            picked.append(case)
    return picked


def node_attributes(case: Any) -> dict[str, Any]:
    """The single node's attributes as Python values (ints, floats, strings, lists, tensors as arrays)."""
    from dmlsim.onnx.lowering import attributes_of

    return attributes_of(case.model.graph.node[0])


def case_ids(cases: list[Any]) -> list[str]:
    """pytest ids: the case names."""
    return [case.name for case in cases]
