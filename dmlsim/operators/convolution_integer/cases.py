"""CONVOLUTION_INTEGER and QUANTIZED_LINEAR_CONVOLUTION cases for the differential harness.

Draws 1-D and 2-D forward convolutions (3-D and 4-D tensors): batch 1-2, 1-3 groups of 1-2 input and 1-2
output channels, kernels 1-3, strides and dilations 1-2, start and end padding 0-2; every tensor in a random
layout (padded, permuted, stride-0 broadcast; inputs sometimes OWNED_BY_DML); INT8/UINT8 for the input, the
filter and QUANTIZED_LINEAR_CONVOLUTION's output independently; each zero point null or present, the filter's
zero point and scale per tensor or per channel at a DimensionCount from 1 to 4, the per-tensor ones of 1 to 4
dimensions; QUANTIZED_LINEAR_CONVOLUTION's bias null or present. Values: the harness's adversarial integers
(each type's extremes among them; the INT32 bias's extremes make the sum wrap).

Outputs are integers, compared exactly: CONVOLUTION_INTEGER's sums are exact, and QUANTIZED_LINEAR_CONVOLUTION's
reference takes the kernel's float32 steps (reference.py), so its scales are drawn from values that make ties
likely (integer_gemm's set: 0.5, 0.25, float32(5/255), ..., ±inf, NaN); never 0 (undefined behavior) nor
subnormal (a device may flush float32 subnormals to zero, which OpenCL allows).
"""

from __future__ import annotations

import numpy as np

from dmlsim.api.enums import DML_OPERATOR_TYPE
from dmlsim.operators.base import Operator
from dmlsim.operators.harness import OWNED_BY_DML, Case, draw_tensor, draw_valid
from dmlsim.operators.integer_gemm.cases import _scales
from dmlsim.operators.typed import FLOAT32, INT8, INT32, UINT8


def _small(rng: np.random.Generator, data_type: int, count: int) -> object:
    """A zero point or scale of 1 value (every size 1) or ``count`` along dimension 1 (0 when 1-D), 1-4 dims."""
    rank = int(rng.integers(1, 5))
    sizes = [1] * rank
    if count > 1:
        sizes[1 if rank >= 2 else 0] = count
    desc = draw_tensor(rng, data_type, sizes)
    if rng.random() < 0.2:
        desc.Desc.Flags = OWNED_BY_DML
    return desc


def _input(rng: np.random.Generator, data_type: int, sizes: list[int]) -> object:
    desc = draw_tensor(rng, data_type, sizes)
    if rng.random() < 0.2:
        desc.Desc.Flags = OWNED_BY_DML
    return desc


def draw(op: Operator, rng: np.random.Generator) -> Case:
    """A valid case of CONVOLUTION_INTEGER or QUANTIZED_LINEAR_CONVOLUTION."""
    qlinear = op.type == DML_OPERATOR_TYPE.DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION

    def attempt(r: np.random.Generator) -> Case:
        spatial = int(r.integers(1, 3))
        groups = int(r.integers(1, 4))
        batch, cin, cout = int(r.integers(1, 3)), groups * int(r.integers(1, 3)), groups * int(r.integers(1, 3))
        kernel = [int(r.integers(1, 4)) for _ in range(spatial)]
        strides = [int(r.integers(1, 3)) for _ in range(spatial)]
        dilations = [int(r.integers(1, 3)) for _ in range(spatial)]
        start = [int(r.integers(0, 3)) for _ in range(spatial)]
        end = [int(r.integers(0, 3)) for _ in range(spatial)]
        size_in = [max(1, (kernel[i] - 1) * dilations[i] + 1 - start[i] - end[i]) + int(r.integers(0, 3))
                   for i in range(spatial)]
        out = [(size_in[i] + start[i] + end[i] - (kernel[i] - 1) * dilations[i] - 1) // strides[i] + 1
               for i in range(spatial)]
        x_type, f_type = (int(r.choice([INT8, UINT8])) for _ in range(2))
        per_channel = cout if r.random() < 0.5 else 1
        fields = dict(InputTensor=_input(r, x_type, [batch, cin, *size_in]),
                      InputZeroPointTensor=_small(r, x_type, 1) if r.random() < 0.6 else None,
                      FilterTensor=_input(r, f_type, [cout, cin // groups, *kernel]),
                      FilterZeroPointTensor=_small(r, f_type, per_channel) if r.random() < 0.6 else None,
                      DimensionCount=spatial, Strides=strides, Dilations=dilations, StartPadding=start,
                      EndPadding=end, GroupCount=groups)
        fills = {}
        if qlinear:
            y_type = int(r.choice([INT8, UINT8]))
            fields.update(InputScaleTensor=_small(r, FLOAT32, 1), FilterScaleTensor=_small(r, FLOAT32, per_channel),
                          BiasTensor=_input(r, INT32, [1, cout, *[1] * spatial]) if r.random() < 0.6 else None,
                          OutputScaleTensor=_small(r, FLOAT32, 1),
                          OutputZeroPointTensor=_small(r, y_type, 1) if r.random() < 0.6 else None,
                          OutputTensor=draw_tensor(r, y_type, [batch, cout, *out], role="output"))
            fills = {name: _scales for name in ("InputScaleTensor", "FilterScaleTensor", "OutputScaleTensor")}
        else:
            fields["OutputTensor"] = draw_tensor(r, INT32, [batch, cout, *out], role="output")
        return Case(op.desc_cls(**fields), fills=fills,
                    note=f"{spatial}-D groups={groups} {'per-channel' if per_channel > 1 else 'per-tensor'}")

    return draw_valid(op, rng, attempt)
