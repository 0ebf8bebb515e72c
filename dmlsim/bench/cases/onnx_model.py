"""Bench case ``onnx-resnet``: a whole ONNX model, the ResNet-style CNN of :mod:`dmlsim.onnx.architectures`,
lowered onto DirectML operators and compiled into one graph (``dmlsim.backend``'s path), timed as one dispatch.

A size is the batch (images of 3 × 16 × 16). Bytes moved: the input images, the weights and the logits, each once
(the intermediates stay inside the graph; the model is far from streaming, so GB/s says little and the figure to
read is the time per batch against the peer). Peer ``onnxruntime``: the same model (same weights, same images) on
onnxruntime's CPU execution provider, one ``InferenceSession.run`` per call: the latency a user of onnxruntime gets
for the batch. FLOAT32 only (the model is float32).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.bench.registry import BenchCase, Workload, register_case


@register_case
class OnnxResnetCase(BenchCase):
    name = "onnx-resnet"
    description = "a ResNet-style CNN (ONNX) as one compiled DirectML graph, vs onnxruntime's CPU provider"
    dtypes = ("float32",)
    default_sizes = (1, 8, 32)
    size_unit = "images per batch"

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        from dmlsim.onnx.architectures import feeds, resnet
        from dmlsim.onnx.run_model import lower

        model = resnet(0, batch=elements)
        inputs = feeds(model, seed=1)
        lowered = lower(model, inputs, device)
        network = lowered.network
        for name, (_, _, dtype_, _) in network.inputs.items():  # the images written once, as a run would
            network.input_buffers[name].Write(np.ascontiguousarray(inputs[name], dtype_).tobytes())
        weights = sum(int(np.prod(t.dims)) * 4 for t in model.graph.initializer)
        moved = inputs["image"].nbytes + weights + elements * 10 * 4
        work = Workload(network.compiled, network.table, moved, items=elements, item_unit="images", inplace=False)
        work.notes.append(f"one graph of {lowered.node_count} DirectML operators")
        if "onnxruntime" in peers:
            try:
                import onnxruntime
            except ImportError:
                work.notes.append("onnxruntime: not installed")
            else:
                options = onnxruntime.SessionOptions()
                options.log_severity_level = 3
                session = onnxruntime.InferenceSession(model.SerializeToString(), options,
                                                       providers=["CPUExecutionProvider"])

                def onnxruntime_cpu() -> None:
                    session.run(None, inputs)

                work.peers["onnxruntime-cpu"] = onnxruntime_cpu
        return work
