"""torch.gradient: the derivative of sampled values by central differences inside and one-
or two-sided differences at the edges (numpy.gradient's formulas), built from differentiable
ops, so its own gradient follows."""

from __future__ import annotations

from collections.abc import Sequence

from .._pure import dtypes as _dtypes
from .._pure.shapes import normalize_dim
from .._state.tensor import Tensor
from .joining import cat

__all__ = ["gradient"]


def _uniform(f: Tensor, dim: int, h, edge_order: int) -> Tensor:
    n = f.shape[dim]
    inner = (f.narrow(dim, 2, n - 2) - f.narrow(dim, 0, n - 2)) / (2 * h)
    if edge_order == 1:
        first = (f.narrow(dim, 1, 1) - f.narrow(dim, 0, 1)) / h
        last = (f.narrow(dim, n - 1, 1) - f.narrow(dim, n - 2, 1)) / h
    else:
        f0, f1, f2 = (f.narrow(dim, i, 1) for i in (0, 1, 2))
        g0, g1, g2 = (f.narrow(dim, n - 1 - i, 1) for i in (0, 1, 2))
        first = (-1.5 * f0 + 2 * f1 - 0.5 * f2) / h
        last = (1.5 * g0 - 2 * g1 + 0.5 * g2) / h
    return cat([first, inner, last], dim)


def _along(x: Tensor, dim: int, ndim: int) -> Tensor:
    """The 1-D coordinates `x` shaped to broadcast along `dim` of an ndim tensor."""
    shape = [1] * ndim
    shape[dim] = x.shape[0]
    return x.reshape(shape)


def _coordinates(f: Tensor, dim: int, x: Tensor, edge_order: int) -> Tensor:
    n = f.shape[dim]
    x = _along(x, dim, f.ndim)
    steps = x.narrow(dim, 1, n - 1) - x.narrow(dim, 0, n - 1)
    hs, hd = steps.narrow(dim, 0, n - 2), steps.narrow(dim, 1, n - 2)
    before, here, after = (f.narrow(dim, i, n - 2) for i in (0, 1, 2))
    inner = (hs * hs * after + (hd * hd - hs * hs) * here - hd * hd * before) / (
        hs * hd * (hd + hs)
    )
    if edge_order == 1:
        first = (f.narrow(dim, 1, 1) - f.narrow(dim, 0, 1)) / steps.narrow(dim, 0, 1)
        last = (f.narrow(dim, n - 1, 1) - f.narrow(dim, n - 2, 1)) / steps.narrow(dim, n - 2, 1)
    else:
        h1, h2 = steps.narrow(dim, 0, 1), steps.narrow(dim, 1, 1)
        f0, f1, f2 = (f.narrow(dim, i, 1) for i in (0, 1, 2))
        first = (
            -(2 * h1 + h2) / (h1 * (h1 + h2)) * f0
            + (h1 + h2) / (h1 * h2) * f1
            - h1 / (h2 * (h1 + h2)) * f2
        )
        k1, k2 = steps.narrow(dim, n - 2, 1), steps.narrow(dim, n - 3, 1)
        g0, g1, g2 = (f.narrow(dim, n - 1 - i, 1) for i in (0, 1, 2))
        last = (
            (2 * k1 + k2) / (k1 * (k1 + k2)) * g0
            - (k1 + k2) / (k1 * k2) * g1
            + k1 / (k2 * (k1 + k2)) * g2
        )
    return cat([first, inner, last], dim)


def _spacings(spacing, dims: list[int], given_dim: bool, ndim: int) -> list:
    """One spacing per dimension of `dims` (None: unit spacing), checked as PyTorch does."""
    if spacing is None:
        return [1] * len(dims)
    if isinstance(spacing, Tensor) and spacing.ndim != 0:
        raise TypeError(
            "gradient() received an invalid combination of arguments - got (Tensor, "
            "spacing=Tensor), but expected spacing to be a number, a tuple of numbers or a "
            "tuple of tensors"
        )
    if not isinstance(spacing, (list, tuple)):
        return [spacing] * len(dims)
    if not all(isinstance(h, (int, float, complex)) for h in spacing):
        for i, h in enumerate(spacing):
            if not isinstance(h, Tensor):
                raise TypeError(
                    f"expected Tensor as element {i} in argument 1, but got {type(h).__name__}"
                )
    for h in spacing:
        if isinstance(h, Tensor) and h.ndim != 1:
            raise RuntimeError(
                "torch.gradient expected each element of spacing to have one dimension, but "
                f"got an element with {h.ndim} dimensions!"
            )
    if len(spacing) != len(dims):
        if given_dim:
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
                f"dim arguments to have the same length, but got a spacing argument of length "
                f"{len(spacing)} and a dim argument of length {len(dims)}."
            )
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to 'self.dim() = {ndim}', since dim argument was not given, but got a list "
            f"of length {len(spacing)}"
        )
    return list(spacing)


def gradient(input: Tensor, *, spacing=1, dim=None, edge_order: int = 1) -> tuple[Tensor, ...]:
    """The derivative of `input` along each of `dim` (every dimension by default), with unit,
    scalar or per-dimension spacing, or coordinates (1-D tensors) per dimension.

    Example::

        >>> torch.gradient(torch.tensor([1.0, 2.0, 4.0, 8.0]))
        (tensor([1.0000, 1.5000, 3.0000, 4.0000]),)
    """
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    given_dim = dim is not None
    if dim is None:
        dims = list(range(input.ndim))
    else:
        listed = list(dim) if isinstance(dim, Sequence) else [dim]
        dims = [normalize_dim(d, input.ndim) for d in listed]
        for d in dims:
            if dims.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    spacings = _spacings(spacing, dims, given_dim, input.ndim)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )
    f = input
    if not (f.dtype.is_floating_point or f.dtype.is_complex):
        f = f.to(_dtypes.get_default_dtype())
    results = []
    for d, h in zip(dims, spacings):
        if isinstance(h, Tensor) and h.ndim == 1:
            results.append(_coordinates(f, d, h, edge_order))
        else:
            results.append(_uniform(f, d, h.item() if isinstance(h, Tensor) else h, edge_order))
    return tuple(results)
