"""Float64 reference of DML_OPERATOR_CONVOLUTION, transcribed from its DirectML doc page.

Tensors are ``{N, C, [D], [H], W}``; ``GroupCount`` splits the channels into independent groups.

* FORWARD (CROSS_CORRELATION): ``Y[n, o, p] = sum_{c, k} Xpad[n, g*Cin/G + c, p*stride + k*dilation] * W[o, c, k]``
  over the input zero-padded by StartPadding/EndPadding, W ``{Cout, Cin/G, kernel...}``, g = o / (Cout/G).
* BACKWARD (transposed; the gradient of FORWARD with respect to its input, ONNX's ConvTranspose):
  each input element scatters ``X[n, c, i] * W[c, o, k]`` to full position ``i*stride + k*dilation``,
  W ``{Cin, Cout/G, kernel...}``; output position p holds full position ``p + StartPadding`` (0 where
  nothing lands), at every position the output asks for before its OutputPadding: the output may be
  larger than the size formula gives (onnxruntime's DirectML provider sizes it so for ONNX's
  ``output_padding`` and ``output_shape`` and zeroes OutputPadding), so EndPadding only bounds the size.
* Both directions: OutputPadding "applies a zero padding to the result of the convolution ... to the end of
  each spatial dimension of the output tensor" (the doc): the last OutputPadding positions of each spatial
  dimension hold 0 before the bias.
* Mode CONVOLUTION flips the filter along every spatial axis (relative to CROSS_CORRELATION in the
  same direction); then the bias ``{1, Cout, 1...}`` is added to every element of its channel.

Padding (dmlsim's reading; the doc is silent): a tap that reads the zero padding adds nothing, rather than
``0 * W``, so an infinite or NaN filter weight does not make the outputs next to the border NaN. Every device
computes it so (the kernel skips such taps); a NaN or infinity *inside* the input or filter propagates as the
sum says.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ConvolutionGeometry:
    """The desc's per-spatial-dimension attributes and the output's spatial sizes."""

    backward: bool
    flip: bool
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    start_padding: tuple[int, ...]
    end_padding: tuple[int, ...]
    output_padding: tuple[int, ...]
    groups: int


def output_spatial_sizes(geometry: ConvolutionGeometry, input_spatial: tuple[int, ...],
                         kernel: tuple[int, ...]) -> tuple[int, ...]:
    """The output's spatial sizes the size formula gives, OutputPadding included (before any check that they
    are positive): FORWARD's output must have exactly these, BACKWARD's at least these."""
    sizes = []
    for i, (size, k) in enumerate(zip(input_spatial, kernel, strict=True)):
        extent = (k - 1) * geometry.dilations[i] + 1
        pads = geometry.start_padding[i] + geometry.end_padding[i]
        if geometry.backward:
            sizes.append((size - 1) * geometry.strides[i] + extent - pads + geometry.output_padding[i])
        else:
            sizes.append((size + pads - extent) // geometry.strides[i] + 1 + geometry.output_padding[i])
    return tuple(sizes)


def computed_spatial_sizes(geometry: ConvolutionGeometry, out_spatial: tuple[int, ...]) -> tuple[int, ...]:
    """The part of each output spatial dimension the convolution computes: all but the OutputPadding at its end."""
    return tuple(o - p for o, p in zip(out_spatial, geometry.output_padding, strict=True))


def convolution(x: np.ndarray, w: np.ndarray, bias: np.ndarray | None, geometry: ConvolutionGeometry,
                out_spatial: tuple[int, ...]) -> np.ndarray:
    """The operator's output in float64 (``out_spatial``: the OutputTensor's spatial sizes)."""
    x64, w64 = np.asarray(x, np.float64), np.asarray(w, np.float64)
    spatial = tuple(range(2, x64.ndim))
    if geometry.flip:
        w64 = np.flip(w64, axis=spatial)
    computed = computed_spatial_sizes(geometry, out_spatial)
    result = _backward(x64, w64, geometry, computed) if geometry.backward else _forward(x64, w64, geometry, computed)
    result = np.pad(result, [(0, 0), (0, 0), *((0, p) for p in geometry.output_padding)])  # OutputPadding: zeros
    if bias is not None:
        result = result + np.asarray(bias, np.float64).reshape(1, -1, *(1,) * len(spatial))
    return result


def _forward(x: np.ndarray, w: np.ndarray, g: ConvolutionGeometry, out_spatial: tuple[int, ...]) -> np.ndarray:
    n = x.shape[0]
    cout, cin_group = w.shape[:2]
    kernel = w.shape[2:]
    pad = [(0, 0), (0, 0), *zip(g.start_padding, g.end_padding, strict=True)]
    padded = np.pad(x, pad)
    inside = np.pad(np.ones(x.shape[2:], bool), pad[2:])  # False where a tap reads padding
    out = np.zeros((n, cout, *out_spatial))
    cout_group = cout // g.groups
    for tap in itertools.product(*(range(k) for k in kernel)):
        window = tuple(slice(t * d, t * d + (v - 1) * s + 1, s)
                       for t, d, v, s in zip(tap, g.dilations, out_spatial, g.strides, strict=True))
        xs = padded[(slice(None), slice(None), *window)]  # {N, Cin, out...}
        for group in range(g.groups):
            channels = xs[:, group * cin_group:(group + 1) * cin_group]
            filters = w[(slice(group * cout_group, (group + 1) * cout_group), slice(None), *tap)]
            target = slice(group * cout_group, (group + 1) * cout_group)
            if np.isfinite(filters).all():
                out[:, target] += np.einsum("nc...,oc->no...", channels, filters)
            else:  # a tap over padding adds nothing: no 0 * inf = NaN from the padding (module docstring)
                with np.errstate(invalid="ignore"):
                    terms = channels[:, None] * filters.reshape(*filters.shape, *(1,) * len(out_spatial))[None]
                out[:, target] += np.where(inside[window], terms, 0.0).sum(axis=2)
    return out


def _backward(x: np.ndarray, w: np.ndarray, g: ConvolutionGeometry, out_spatial: tuple[int, ...]) -> np.ndarray:
    n, cin = x.shape[:2]
    in_spatial = x.shape[2:]
    cout_group = w.shape[1]
    kernel = w.shape[2:]
    cin_group = cin // g.groups
    # the full transposed result, extended with zeros where the output reaches past it
    full_sizes = [max((i - 1) * s + (k - 1) * d + 1, p + o) for i, s, k, d, p, o in
                  zip(in_spatial, g.strides, kernel, g.dilations, g.start_padding, out_spatial, strict=True)]
    full = np.zeros((n, cout_group * g.groups, *full_sizes))
    for tap in itertools.product(*(range(k) for k in kernel)):
        window = tuple(slice(t * d, t * d + (i - 1) * s + 1, s)
                       for t, d, i, s in zip(tap, g.dilations, in_spatial, g.strides, strict=True))
        for group in range(g.groups):
            channels = x[:, group * cin_group:(group + 1) * cin_group]
            filters = w[(slice(group * cin_group, (group + 1) * cin_group), slice(None), *tap)]
            target = (slice(None), slice(group * cout_group, (group + 1) * cout_group), *window)
            full[target] += np.einsum("nc...,co->no...", channels, filters)
    crop = tuple(slice(p, p + o) for p, o in zip(g.start_padding, out_spatial, strict=True))
    return full[(slice(None), slice(None), *crop)]
