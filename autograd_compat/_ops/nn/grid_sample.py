"""Sampling at given points: `grid_sample` (bilinear, nearest, bicubic; zeros, border and
reflection padding; 4-D and 5-D input) and the grids of affine maps, `affine_grid`.

Both are pure JAX functions: a sample is a gather of the corner (or 4x4 cubic) neighbours and
a weighted sum, so the gradients with respect to the input and to the grid come from jax.vjp,
as PyTorch's kernels compute them (zero through `nearest` and through clipped coordinates).
"""

from __future__ import annotations

import itertools
import warnings

import jax.numpy as jnp
import numpy as np

from ..._tape.record import apply
from ._common import _HIGHEST, _tensor, register

__all__ = ["affine_grid", "grid_sample"]

_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")
_CUBIC_A = -0.75  # the cubic convolution constant PyTorch's bicubic uses
_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details."
)


def _unnormalize(coord, size: int, align_corners: bool):
    """Grid values in [-1, 1] as pixel coordinates along an axis of `size` pixels."""
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low: int, twice_high: int):
    """`coord` reflected into [twice_low / 2, twice_high / 2] as often as needed."""
    if twice_low == twice_high:
        return jnp.zeros_like(coord)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    coord = jnp.abs(coord - low)
    extra = jnp.fmod(coord, span)
    flips = jnp.floor(coord / span)
    return jnp.where(jnp.fmod(flips, 2) == 0, extra + low, span - extra + low)


def _pad_coordinate(coord, size: int, padding: str, align_corners: bool):
    """A pixel coordinate moved inside the image by the padding mode (zeros leaves it)."""
    if padding == "zeros":
        return coord
    if padding == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
    return jnp.clip(coord, 0, size - 1)


def _gather(flat, sizes: tuple, indices: list):
    """Values of `flat` (N, C, prod(sizes)) at integer `indices` (one (N, P) array per spatial
    axis, outermost first), zero where an index falls outside the image."""
    inside = jnp.ones(indices[0].shape, bool)
    linear = jnp.zeros(indices[0].shape, jnp.int64)
    for index, size in zip(indices, sizes):
        inside = inside & (index >= 0) & (index < size)
        linear = linear * size + jnp.clip(index, 0, size - 1)
    values = jnp.take_along_axis(flat, linear[:, None, :], axis=2)
    return jnp.where(inside[:, None, :], values, jnp.zeros((), flat.dtype))


def _cubic_weights(t):
    """The four cubic-convolution weights of taps -1, 0, 1, 2 at fraction `t`."""
    a = _CUBIC_A

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _grid_sample_fn(x, grid, *, mode: str, padding: str, align_corners: bool):
    """`x` (N, C, *sizes) sampled at `grid` (N, *out, nd), whose last axis is (x, y[, z])."""
    n, c = x.shape[:2]
    sizes = x.shape[2:]
    nd = len(sizes)
    out = grid.shape[1:-1]
    flat = x.reshape(n, c, -1)
    points = grid.reshape(n, -1, nd).astype(x.dtype)
    # The grid's last axis runs from the innermost spatial axis out: reorder it outermost first.
    coords = [_unnormalize(points[..., nd - 1 - d], sizes[d], align_corners) for d in range(nd)]
    if mode == "bicubic":
        result = _bicubic(flat, sizes, coords, padding, align_corners)
    else:
        coords = [_pad_coordinate(co, s, padding, align_corners) for co, s in zip(coords, sizes)]
        if mode == "nearest":
            result = _gather(flat, sizes, [jnp.round(co).astype(jnp.int64) for co in coords])
        else:
            result = _linear(flat, sizes, coords)
    return result.reshape((n, c) + out)


def _linear(flat, sizes: tuple, coords: list):
    """(Bi/tri)linear interpolation: the 2**nd corners weighted by their opposite volumes."""
    lows = [jnp.floor(co) for co in coords]
    fractions = [co - low for co, low in zip(coords, lows)]
    result = jnp.zeros(flat.shape[:2] + coords[0].shape[1:], flat.dtype)
    for corner in itertools.product((0, 1), repeat=len(sizes)):
        weight = jnp.ones_like(coords[0])
        for bit, fraction in zip(corner, fractions):
            weight = weight * (fraction if bit else 1 - fraction)
        indices = [low.astype(jnp.int64) + bit for low, bit in zip(lows, corner)]
        result = result + _gather(flat, sizes, indices) * weight[:, None, :]
    return result


def _bicubic(flat, sizes: tuple, coords: list, padding: str, align_corners: bool):
    """Bicubic interpolation over the 4x4 taps around each point; each tap is padded on its
    own (PyTorch's `get_value_bounded`), then truncated to an integer pixel."""
    (height, width), (y, x) = sizes, coords
    y0, x0 = jnp.floor(y), jnp.floor(x)
    wy, wx = _cubic_weights(y - y0), _cubic_weights(x - x0)
    result = jnp.zeros(flat.shape[:2] + y.shape[1:], flat.dtype)
    for i in range(4):
        row = _pad_coordinate(y0 - 1 + i, height, padding, align_corners).astype(jnp.int64)
        for j in range(4):
            col = _pad_coordinate(x0 - 1 + j, width, padding, align_corners).astype(jnp.int64)
            result = result + _gather(flat, sizes, [row, col]) * (wy[i] * wx[j])[:, None, :]
    return result


_GRID_SAMPLE = {
    nd: register(f"grid_sampler_{nd}d", _grid_sample_fn, node=f"GridSampler{nd}DBackward0")
    for nd in (2, 3)
}


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample `input` (N, C, H, W) or (N, C, D, H, W) at the points of `grid` (N, H_out,
    W_out, 2) or (N, D_out, H_out, W_out, 3), whose values lie in [-1, 1] across the image.

    Args:
        mode: "bilinear", "nearest" or "bicubic" (4-D input only).
        padding_mode: outside the image, "zeros", the "border" value or the "reflection".
        align_corners: -1 and 1 are the centres of the corner pixels (True) or their outer
            edges (False, the default, with a warning when not given).

    Example::

        >>> x = torch.arange(4.0).reshape(1, 1, 2, 2)
        >>> grid = torch.tensor([[[[0.0, 0.0], [1.0, 1.0]]]])
        >>> F.grid_sample(x, grid, align_corners=True)
        tensor([[[[1.5000, 3.0000]]]])
    """
    _tensor(input, "grid_sample")
    _tensor(grid, "grid_sample", "grid", 2)
    if mode not in _MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in _PADDINGS:
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    _check_grid_sampler(input, grid, mode)
    return apply(
        _GRID_SAMPLE[input.ndim - 2],
        input,
        grid,
        mode=mode,
        padding=padding_mode,
        align_corners=bool(align_corners),
    )


def _check_grid_sampler(input, grid, mode: str) -> None:
    """PyTorch's checks of `torch.grid_sampler`'s arguments."""
    if input.dtype != grid.dtype:
        raise RuntimeError(
            "grid_sampler(): expected input and grid to have same dtype, but input has "
            f"{input.dtype.__reduce__()} and grid has {grid.dtype.__reduce__()}"
        )
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(
            "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, "
            f"but got input with sizes {list(input.shape)} and grid with sizes "
            f"{list(grid.shape)}"
        )
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, "
            f"but got grid with sizes {list(grid.shape)}"
        )
    if mode == "bicubic" and input.ndim != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


def _base_grid(sizes: tuple, align_corners: bool) -> np.ndarray:
    """The identity grid of shape (*sizes, nd + 1): (x, y[, z], 1) at every output point."""
    axes = []
    for size in sizes:
        steps = np.linspace(-1.0, 1.0, size) if size > 1 else np.zeros(size)
        axes.append(steps if align_corners else steps * (size - 1) / size)
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.stack([*reversed(mesh), np.ones(sizes)], axis=-1)


def _affine_grid_fn(theta, *, sizes: tuple, align_corners: bool):
    """Each output point's (x, y[, z], 1) mapped by the batch of affine matrices `theta`."""
    base = jnp.asarray(_base_grid(sizes, align_corners), theta.dtype)
    return jnp.einsum("...k,nik->n...i", base, theta, precision=_HIGHEST)


_AFFINE_GRID = register(
    "affine_grid_generator", _affine_grid_fn, node="AffineGridGeneratorBackward0", saves="none"
)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of a batch of affine maps, for `grid_sample`.

    Args:
        theta: (N, 2, 3) matrices for 2-D output, (N, 3, 4) for 3-D.
        size: the output's size, (N, C, H, W) or (N, C, D, H, W).
        align_corners: as in `grid_sample` (False by default, with a warning when not given).

    Example::

        >>> theta = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]]])  # y stretched twice
        >>> F.affine_grid(theta, [1, 1, 2, 2], align_corners=False)
        tensor([[[[-0.5000, -1.0000],
                  [ 0.5000, -1.0000]],
        <BLANKLINE>
                 [[-0.5000,  1.0000],
                  [ 0.5000,  1.0000]]]])
    """
    _tensor(theta, "affine_grid", "theta", 1)
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(s) for s in size)
    if len(size) not in (4, 5):
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    nd = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[-2:]) != (nd, nd + 1):
        raise ValueError(
            f"Expected a batch of {nd}D affine matrices of shape Nx{nd}x{nd + 1} for size "
            f"{size}. Got {theta.shape}."
        )
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{size[0]}, {nd + 1}] but got: [{theta.shape[0]}, {nd + 1}]."
        )
    return apply(_AFFINE_GRID, theta, sizes=spatial, align_corners=bool(align_corners))
