"""Bench case ``convolution``: DML_OPERATOR_CONVOLUTION FLOAT32/FLOAT16 on ResNet-50 and MobileNetV2 layers, batch 1
and 8.

A size is a layer's number in :data:`LAYERS` (``--sizes 1,2,3,4``): 1 ResNet-50's 3 x 3 64 -> 64 at 56 x 56 (pad 1),
2 its 1 x 1 256 -> 64 at 56 x 56, 3 its 7 x 7 stride-2 3 -> 64 stem at 224 x 224 (pad 3), 4 a MobileNetV2 depthwise
3 x 3 over 144 channels at 56 x 56 (pad 1), each at batch 1; 5 to 8 the same four layers at batch 8. Reported:
FLOP/s (2 multiply-add operations per tap) and a note naming the kernel the planner chose for the layer
(dmlsim.bench.plans). Peers, float32: torch's ``conv2d`` when torch is installed, and ``numpy-im2col``: what numpy
alone offers, the padded input unfolded (``sliding_window_view``) and contracted with the filter by
``tensordot``/``einsum`` (a matmul through OpenBLAS), labelled so since it is not a convolution library.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

import dmlsim as dml
from dmlsim.bench.peers import torch_module
from dmlsim.bench.plans import planned_kernels
from dmlsim.bench.registry import BenchCase, Workload, register_case
from dmlsim.quick import prepare_operator

DATA_TYPES = {"float32": (dml.DML_TENSOR_DATA_TYPE_FLOAT32, np.float32),
              "float16": (dml.DML_TENSOR_DATA_TYPE_FLOAT16, np.float16)}


@dataclass(frozen=True)
class Layer:
    """One convolution layer: channels in/out, square input side, square kernel, stride, padding, groups, batch."""

    name: str
    cin: int
    cout: int
    side: int
    kernel: int
    stride: int
    pad: int
    groups: int = 1
    batch: int = 1

    @property
    def out_side(self) -> int:
        return (self.side + 2 * self.pad - self.kernel) // self.stride + 1

    @property
    def flops(self) -> int:
        return 2 * self.batch * self.cout * self.out_side**2 * (self.cin // self.groups) * self.kernel**2


BATCH_1 = {
    1: Layer("resnet50-3x3-64", 64, 64, 56, 3, 1, 1),
    2: Layer("resnet50-1x1-256-64", 256, 64, 56, 1, 1, 0),
    3: Layer("resnet50-7x7s2-stem", 3, 64, 224, 7, 2, 3),
    4: Layer("mobilenetv2-dw3x3-144", 144, 144, 56, 3, 1, 1, groups=144),
}
LAYERS = {**BATCH_1, **{number + len(BATCH_1): replace(layer, name=f"{layer.name}-batch8", batch=8)
                         for number, layer in BATCH_1.items()}}


@register_case
class ConvolutionCase(BenchCase):
    name = "convolution"
    description = "DML_OPERATOR_CONVOLUTION on ResNet-50 / MobileNetV2 layers at batch 1 and 8 (size = layer number)"
    dtypes = ("float32", "float16")

    def footprint(self, dtype: str, size: int) -> int | None:
        return None  # a fixed layer: the size is its number
    default_sizes = tuple(LAYERS)
    size_unit = ("layer (1 3x3 64->64 56x56, 2 1x1 256->64 56x56, 3 7x7/2 3->64 224x224, 4 depthwise 3x3 144 56x56; "
                 "5-8 the same at batch 8)")

    def workload(self, device: Any, dtype: str, elements: int, inplace: bool,
                 peers: tuple[str, ...]) -> Workload:
        if elements not in LAYERS:
            raise ValueError(f"convolution: size {elements} is no layer; use one of {sorted(LAYERS)}")
        layer = LAYERS[elements]
        data_type, np_type = DATA_TYPES[dtype]
        x_sizes = [layer.batch, layer.cin, layer.side, layer.side]
        f_sizes = [layer.cout, layer.cin // layer.groups, layer.kernel, layer.kernel]
        y_sizes = [layer.batch, layer.cout, layer.out_side, layer.out_side]
        desc = dml.DML_OPERATOR_DESC(dml.DML_OPERATOR_CONVOLUTION, dml.DML_CONVOLUTION_OPERATOR_DESC(
            dml.buffer_tensor(data_type, x_sizes), dml.buffer_tensor(data_type, f_sizes), None,
            dml.buffer_tensor(data_type, y_sizes), dml.DML_CONVOLUTION_MODE_CROSS_CORRELATION,
            dml.DML_CONVOLUTION_DIRECTION_FORWARD, 2, [layer.stride] * 2, [1, 1], [layer.pad] * 2, [layer.pad] * 2,
            [0, 0], layer.groups, None))
        rng = np.random.default_rng(0)
        x = rng.standard_normal(x_sizes).astype(np_type)
        w = rng.standard_normal(f_sizes).astype(np_type)
        prepared = prepare_operator(device, desc, {"InputTensor": x, "FilterTensor": w})
        size = np.dtype(np_type).itemsize
        work = Workload(prepared.compiled, prepared.table,
                        (int(np.prod(x_sizes)) + int(np.prod(f_sizes)) + int(np.prod(y_sizes))) * size,
                        items=layer.flops, item_unit="FLOP", inplace=False)
        work.notes.append(f"layer {elements} {layer.name} {dtype}: planner chose {planned_kernels(prepared)}")
        x32, w32 = x.astype(np.float32), w.astype(np.float32)
        if "numpy" in peers:
            work.peers["numpy-im2col"] = _numpy_im2col(layer, x32, w32)
            work.notes.append("numpy-im2col: numpy's unfold (sliding_window_view) + tensordot/einsum, float32: no "
                              "convolution library")
        if "torch" in peers:
            torch = torch_module()
            if torch is None:
                work.notes.append("torch: not installed")
            else:
                work.peers["torch-cpu"] = _torch_conv(torch, layer, x32, w32)
                if torch.cuda.is_available():
                    work.peers["torch-cuda"] = _torch_conv_cuda(torch, layer, x32, w32)
                    work.notes.append("torch-cuda: cuDNN FLOAT32 without TF32 (cudnn.allow_tf32 False, benchmark "
                                      "mode), timed by CUDA events: device time, as dmlsim's")
        return work


def _numpy_im2col(layer: Layer, x: np.ndarray, w: np.ndarray) -> Any:
    padded = np.pad(x, ((0, 0), (0, 0), (layer.pad, layer.pad), (layer.pad, layer.pad)))
    k, s = layer.kernel, layer.stride

    def run() -> None:
        windows = np.lib.stride_tricks.sliding_window_view(padded, (k, k), axis=(2, 3))[:, :, ::s, ::s]
        if layer.groups == 1:
            # {N, Cin, Ho, Wo, k, k} x {Cout, Cin, k, k} over Cin, k, k: one GEMM through OpenBLAS
            np.tensordot(windows, w, axes=([1, 4, 5], [1, 2, 3]))
        else:  # depthwise: one filter per channel
            np.einsum("nchwij,cij->nchw", windows, w[:, 0], optimize=True)
    return run


def _torch_conv(torch: Any, layer: Layer, x: np.ndarray, w: np.ndarray) -> Any:
    tx, tw = torch.from_numpy(x), torch.from_numpy(w)

    def run() -> None:
        torch.nn.functional.conv2d(tx, tw, stride=layer.stride, padding=layer.pad, groups=layer.groups)
    return run


def _torch_conv_cuda(torch: Any, layer: Layer, x: np.ndarray, w: np.ndarray) -> Any:
    """cuDNN's convolution of the layer, its duration (ns) measured by CUDA events: the GPU yardstick."""
    torch.backends.cudnn.allow_tf32 = False  # issue 25: cuDNN FLOAT32, not TF32
    torch.backends.cudnn.benchmark = True  # the algorithm cuDNN finds fastest for the shape, as its users run it
    tx, tw = torch.from_numpy(x).cuda(), torch.from_numpy(w).cuda()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def run() -> float:
        start.record()
        torch.nn.functional.conv2d(tx, tw, stride=layer.stride, padding=layer.pad, groups=layer.groups)
        end.record()
        end.synchronize()
        return start.elapsed_time(end) * 1e6
    return run
