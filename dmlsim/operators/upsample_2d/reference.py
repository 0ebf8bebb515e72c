"""Float64 reference of DML_OPERATOR_UPSAMPLE_2D, transcribed from its DirectML doc page.

Only the last two dimensions (height, width) are scaled, by the integers ``ScaleSize.Height`` and
``ScaleSize.Width``. Each output element's pixel center maps to input coordinate
``(o + 0.5) / scale - 0.5`` along each of the two axes:

* NEAREST_NEIGHBOR takes the input element nearest to it: ``floor(o / scale)`` (with an integer scale
  the center never falls halfway between two input elements);
* LINEAR averages the 2 x 2 nearest input elements, weighted by distance (bilinear), the coordinate
  clamped to ``[0, size - 1]`` at the borders; never along batch, channel or depth.
"""

from __future__ import annotations

import numpy as np


def source_coordinates(out_size: int, scale: int, in_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each output index along one axis: the two input indices and the weight of the second (LINEAR)."""
    center = (np.arange(out_size, dtype=np.float64) + 0.5) / scale - 0.5
    center = np.clip(center, 0.0, in_size - 1)
    low = np.floor(center).astype(np.int64)
    high = np.minimum(low + 1, in_size - 1)
    return low, high, center - low


def upsample_2d(x: np.ndarray, scale_height: int, scale_width: int, linear: bool) -> np.ndarray:
    """The upsampled tensor in float64 (the last two axes scaled)."""
    x64 = np.asarray(x, np.float64)
    height, width = x64.shape[-2:]
    if not linear:
        rows = np.arange(height * scale_height) // scale_height
        columns = np.arange(width * scale_width) // scale_width
        return x64[..., rows, :][..., columns]
    r0, r1, fr = source_coordinates(height * scale_height, scale_height, height)
    c0, c1, fc = source_coordinates(width * scale_width, scale_width, width)
    top = x64[..., r0, :]
    bottom = x64[..., r1, :]
    fr = fr[:, None]
    rows = top * (1 - fr) + bottom * fr
    return rows[..., c0] * (1 - fc) + rows[..., c1] * fc
