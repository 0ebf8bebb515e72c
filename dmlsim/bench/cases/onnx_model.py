"""Bench cases ``onnx-resnet`` and ``onnx-transformer``: a whole ONNX model, the ResNet-style CNN or the transformer
encoder layer of :mod:`dmlsim.onnx.architectures`, lowered onto DirectML operators and compiled into one graph
(``dmlsim.backend``'s path), timed as one dispatch.

A size is the batch: images of 3 × 16 × 16 (``onnx-resnet``), sequences of ``SEQUENCE`` (32) tokens of 16 features
with a seeded random attention mask (``onnx-transformer``). Bytes moved: the input images, the weights and the
logits, each once (the intermediates stay inside the graph; the model is far from streaming, so GB/s says little and
the figure to read is the time per batch against the peer). Peer ``onnxruntime``: the same model (same weights, same
images) on onnxruntime's CPU execution provider, one ``InferenceSession.run`` per call: the latency a user of
onnxruntime gets for the batch. FLOAT32 only (the model is float32).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmlsim.bench.registry import BenchCase, Workload, register_case

SEQUENCE = 32  # tokens per sequence of onnx-transformer
# an upper bound of one batch item's tensors, intermediates included (an image of 3 x 16 x 16 and its 8-channel
# feature maps; a sequence of 32 x 16 and its 2 x 32 x 32 attention scores: tens of kilobytes)
MODEL_ITEM_BYTES = 256 << 10


class OnnxModelCase(BenchCase):
    """A model of :mod:`dmlsim.onnx.architectures` as one compiled graph, onnxruntime's CPU provider its peer."""

    dtypes = ("float32",)
    default_sizes = (1, 8, 32)

    def footprint(self, dtype: str, size: int) -> int | None:
        return size * MODEL_ITEM_BYTES

    def model_and_inputs(self, batch: int) -> tuple[Any, dict[str, np.ndarray], int]:
        """The ONNX model at this batch, its seeded inputs, and the bytes of its outputs."""
        raise NotImplementedError

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        from dmlsim.onnx.run_model import lower

        model, inputs, output_bytes = self.model_and_inputs(elements)
        lowered = lower(model, inputs, device)
        network = lowered.network
        for name, (_, _, dtype_, _) in network.inputs.items():  # the inputs written once, as a run would
            network.input_buffers[name].Write(np.ascontiguousarray(inputs[name], dtype_).tobytes())
        weights = sum(int(np.prod(t.dims)) * 4 for t in model.graph.initializer)
        moved = sum(value.nbytes for value in inputs.values()) + weights + output_bytes
        work = Workload(network.compiled, network.table, moved, items=elements, item_unit=self.size_unit.split()[0],
                        inplace=False)
        work.notes.append(f"{self.name}: one graph of {lowered.node_count} DirectML operators (onnxruntime's "
                          f"rewrites for its DirectML provider: {lowered.fusions})")
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


@register_case
class OnnxResnetCase(OnnxModelCase):
    name = "onnx-resnet"
    description = "a ResNet-style CNN (ONNX) as one compiled DirectML graph, vs onnxruntime's CPU provider"
    size_unit = "images per batch"

    def model_and_inputs(self, batch: int) -> tuple[Any, dict[str, np.ndarray], int]:
        from dmlsim.onnx.architectures import feeds, resnet

        model = resnet(0, batch=batch)
        return model, feeds(model, seed=1), batch * 10 * 4


@register_case
class OnnxTransformerCase(OnnxModelCase):
    name = "onnx-transformer"
    description = "a transformer encoder layer (ONNX) as one compiled DirectML graph, vs onnxruntime's CPU provider"
    size_unit = "sequences per batch"

    def model_and_inputs(self, batch: int) -> tuple[Any, dict[str, np.ndarray], int]:
        from dmlsim.onnx.architectures import feeds, transformer

        model = transformer(0)
        inputs = feeds(model, seed=1, dims={"batch": batch, "seq": SEQUENCE})
        return model, inputs, inputs["x"].nbytes
