"""Peers: what a user would run instead, timed in the same run on data of the same size.

torch is optional and detected at runtime (``pip install torch``); a peer that is not installed is
reported as such, not silently dropped. CUDA peers are timed with synchronization, so their wall
time is the work's time.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

KNOWN_PEERS = ("numpy", "torch", "native", "onnxruntime")  # native: a case's own step in C, where it has one;
# onnxruntime: its CPU provider running a whole ONNX model (the onnx-* model cases)


def torch_module() -> Any | None:
    """The torch module when it is installed, else None (importing it is deferred until needed)."""
    if importlib.util.find_spec("torch") is None:
        return None
    import torch

    return torch


def torch_devices(torch: Any) -> list[str]:
    """torch devices to time on: the CPU, and CUDA when a GPU is present."""
    devices = ["cpu"]
    if torch.cuda.is_available():
        devices.append("cuda")
    return devices


def parse_peers(text: str | None) -> tuple[str, ...]:
    """``"numpy,torch"`` → ("numpy", "torch"); ``""``/``"none"`` → (); unknown names are refused."""
    if text is None:
        return KNOWN_PEERS
    names = tuple(n.strip().lower() for n in text.split(",") if n.strip())
    if names in ((), ("none",)):
        return ()
    unknown = [n for n in names if n not in KNOWN_PEERS]
    if unknown:
        raise ValueError(f"unknown peer(s) {', '.join(unknown)}; known: {', '.join(KNOWN_PEERS)}")
    return names


def versions() -> dict[str, str]:
    """Versions of the peer libraries present, for the report header."""
    import numpy

    found = {"numpy": numpy.__version__}
    torch = torch_module()
    if torch is not None:
        found["torch"] = torch.__version__
    if importlib.util.find_spec("onnxruntime") is not None:
        from importlib.metadata import version

        found["onnxruntime"] = version("onnxruntime")
    return found


def add_torch_peers(work: Any, label: str, params: Sequence[np.ndarray], grads: Sequence[np.ndarray],
                    make_optimizer: Callable[[Any, list[Any]], Any]) -> None:
    """Add ``torch-LABEL-cpu`` (and ``-cuda`` with a GPU) peers to a workload: one ``optimizer.step()`` each.

    ``make_optimizer(torch, parameters)`` builds the optimizer over torch copies of ``params`` whose
    ``.grad`` holds ``grads``. One step runs here, so the optimizer's state exists and the timed steps
    are the steady state. Without torch, the workload gets a note saying so instead; where torch refuses
    the optimizer on one of its devices (no fused kernel there), that peer is left out with a note.
    """
    torch = torch_module()
    if torch is None:
        work.notes.append("torch peer: torch is not installed (pip install torch)")
        return
    for where in torch_devices(torch):
        parameters = [torch.tensor(p, device=where).requires_grad_(True) for p in params]
        for parameter, grad in zip(parameters, grads, strict=True):
            parameter.grad = torch.tensor(grad, device=where)
        try:
            optimizer = make_optimizer(torch, parameters)
            optimizer.step()
        except RuntimeError as exc:  # e.g. torch 2.11 has fused Adagrad on the CPU only
            work.notes.append(f"torch-{label}-{where} left out: torch refused it ({str(exc).splitlines()[0]})")
            continue

        def step(optimizer: Any = optimizer, where: str = where) -> None:
            optimizer.step()
            if where == "cuda":
                torch.cuda.synchronize()
        work.peers[f"torch-{label}-{where}"] = step
