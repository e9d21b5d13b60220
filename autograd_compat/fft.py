"""torch.fft: discrete Fourier transforms, their frequencies and shifts, with PyTorch's
signatures, dtypes, errors and gradients.

Every transform is one of three ops (`_ops/fft.py`: complex to complex, real to complex,
complex to real), composed with `conj` where PyTorch composes it, so results carry PyTorch's
grad_fn names. Complex gradients follow PyTorch's convention (the conjugate Wirtinger
derivative), so `torch.fft.rfft(x).abs().sum().backward()` gives PyTorch's `x.grad`. The
`out=` argument is not supported.
"""

from __future__ import annotations

import numpy as np

from ._alias import missing_attribute as _missing_attribute
from ._ops.convert import conj
from ._ops.factories import tensor
from ._ops.fft import (
    c2c,
    c2r,
    c2r_last_size,
    fft_input,
    norm_mode,
    one_dim,
    r2c,
    shape_and_dims,
    swap_norm,
    wrap_dim,
)
from ._ops.out_arg import takes_out
from ._ops.shape import roll
from ._pure import dtypes as _dtypes
from ._pure.shapes import new_shape, normalize_dim
from ._state.tensor import Tensor
from ._tape.args import scalar_type_name, tensor_arg

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "hfft2",
    "hfftn",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "ihfft2",
    "ihfftn",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]


# ----------------------------------------------------------------------------- one dim
@takes_out
def fft(input, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The 1-D discrete Fourier transform along `dim`.

    Args:
        input (Tensor): real or complex input (integers are cast to the default dtype).
        n (int, optional): signal length: the input is zero-padded or trimmed to it.
        dim (int, optional): the dim to transform. Defaults to -1.
        norm (str, optional): "backward" (no scaling; the default), "ortho" (1/sqrt(n)) or
            "forward" (1/n).

    Returns:
        Tensor: the complex transform.

    Example::

        >>> torch.fft.fft(torch.tensor([1.0, 2.0, 3.0, 4.0]))
        tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
    """
    x = fft_input(input, "fft")
    n, d = one_dim(x, n, dim)
    if x.dtype.is_complex:
        return c2c(x, (n,), (d,), norm_mode(norm), forward=True)
    return r2c(x, (n,), (d,), norm_mode(norm), onesided=False)


@takes_out
def ifft(input, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The inverse of `fft` ("backward" normalisation scales it by 1/n)."""
    x = fft_input(input, "ifft")
    n, d = one_dim(x, n, dim)
    if x.dtype.is_complex:
        return c2c(x, (n,), (d,), norm_mode(norm), forward=False)
    return conj(r2c(x, (n,), (d,), swap_norm(norm_mode(norm)), onesided=False))


@takes_out
def rfft(input, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The `fft` of a real input, only its n // 2 + 1 non-negative frequencies.

    Example::

        >>> torch.fft.rfft(torch.tensor([1.0, 2.0, 3.0, 4.0]))
        tensor([10.+0.j, -2.+2.j, -2.+0.j])
    """
    x = fft_input(input, "rfft", real="real")
    n, d = one_dim(x, n, dim)
    return r2c(x, (n,), (d,), norm_mode(norm), onesided=True)


@takes_out
def irfft(input, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The inverse of `rfft`: a real output of length `n` (default 2 * (m - 1) for an input
    of m frequencies along `dim`)."""
    x = fft_input(input, "irfft")
    d = wrap_dim(dim, x.ndim)
    return c2r(x, (c2r_last_size(x, n, d),), (d,), norm_mode(norm))


@takes_out
def hfft(input, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The `fft` of a Hermitian-symmetric signal given by its first half: a real output of
    length `n` (default 2 * (m - 1))."""
    x = fft_input(input, "hfft")
    d = wrap_dim(dim, x.ndim)
    return c2r(conj(x), (c2r_last_size(x, n, d),), (d,), swap_norm(norm_mode(norm)))


@takes_out
def ihfft(input, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The inverse of `hfft`: the n // 2 + 1 first frequencies of the `ifft` of a real input."""
    x = fft_input(input, "ihfft", real="real")
    n, d = one_dim(x, n, dim)
    return conj(r2c(x, (n,), (d,), swap_norm(norm_mode(norm)), onesided=True))


# ----------------------------------------------------------------------------- n dims
@takes_out
def fftn(input, s=None, dim=None, norm: str | None = None) -> Tensor:
    """The n-D discrete Fourier transform over `dim` (default: the last len(s) dims, or all).

    Args:
        input (Tensor): real or complex input.
        s (sequence of int, optional): signal sizes along `dim` (-1: the input's size).
        dim (sequence of int, optional): the dims to transform.
        norm (str, optional): "backward" (the default), "ortho" or "forward".
    """
    x = fft_input(input, "fftn")
    sizes, dims = shape_and_dims(x, s, dim)
    return c2c(x, sizes, dims, norm_mode(norm), forward=True)


@takes_out
def ifftn(input, s=None, dim=None, norm: str | None = None) -> Tensor:
    """The inverse of `fftn`."""
    x = fft_input(input, "ifftn")
    sizes, dims = shape_and_dims(x, s, dim)
    return c2c(x, sizes, dims, norm_mode(norm), forward=False)


def _transformed(fname: str, dims: tuple) -> None:
    if not dims:
        raise RuntimeError(f"{fname} must transform at least one axis")


@takes_out
def rfftn(input, s=None, dim=None, norm: str | None = None) -> Tensor:
    """The `fftn` of a real input, one-sided along the last of `dim`."""
    x = fft_input(input, "rfftn", real="real-valued")
    sizes, dims = shape_and_dims(x, s, dim)
    _transformed("rfftn", dims)
    return r2c(x, sizes, dims, norm_mode(norm), onesided=True)


@takes_out
def irfftn(input, s=None, dim=None, norm: str | None = None) -> Tensor:
    """The inverse of `rfftn`: real, of size s[-1] (default 2 * (m - 1)) along the last dim."""
    x = fft_input(input, "irfftn")
    sizes, dims = shape_and_dims(x, s, dim)
    _transformed("irfftn", dims)
    last = c2r_last_size(x, None if s is None else tuple(s)[-1], dims[-1])
    return c2r(x, (*sizes[:-1], last), dims, norm_mode(norm))


@takes_out
def hfftn(input, s=None, dim=None, norm: str | None = None) -> Tensor:
    """The n-D `hfft`: complex transforms over all of `dim` but the last, then `hfft` on it."""
    x = fft_input(input, "hfftn")
    sizes, dims = shape_and_dims(x, s, dim)
    _transformed("hfftn", dims)
    mode = norm_mode(norm)
    last = c2r_last_size(x, None if s is None else tuple(s)[-1], dims[-1])
    if len(dims) > 1:
        x = c2c(x, sizes[:-1], dims[:-1], mode, forward=True)
    return c2r(conj(x), (last,), dims[-1:], swap_norm(mode))


@takes_out
def ihfftn(input, s=None, dim=None, norm: str | None = None) -> Tensor:
    """The inverse of `hfftn`: `ihfft` on the last of `dim`, then inverse transforms."""
    x = tensor_arg(input, "fft_ihfftn")
    if x.dtype.is_complex:
        raise RuntimeError(
            f"Only supports floating-point dtypes, but found: {scalar_type_name(x.dtype)}"
        )
    x = fft_input(x, "ihfftn")
    sizes, dims = shape_and_dims(x, s, dim)
    _transformed("ihfftn", dims)
    mode = norm_mode(norm)
    out = conj(r2c(x, sizes[-1:], dims[-1:], swap_norm(mode), onesided=True))
    if len(dims) > 1:
        out = c2c(out, sizes[:-1], dims[:-1], mode, forward=False)
    return out


@takes_out
def fft2(input, s=None, dim=(-2, -1), norm: str | None = None) -> Tensor:
    """`fftn` over two dims (default the last two)."""
    return fftn(input, s, dim, norm)


@takes_out
def ifft2(input, s=None, dim=(-2, -1), norm: str | None = None) -> Tensor:
    """`ifftn` over two dims (default the last two)."""
    return ifftn(input, s, dim, norm)


@takes_out
def rfft2(input, s=None, dim=(-2, -1), norm: str | None = None) -> Tensor:
    """`rfftn` over two dims (default the last two)."""
    return rfftn(input, s, dim, norm)


@takes_out
def irfft2(input, s=None, dim=(-2, -1), norm: str | None = None) -> Tensor:
    """`irfftn` over two dims (default the last two)."""
    return irfftn(input, s, dim, norm)


@takes_out
def hfft2(input, s=None, dim=(-2, -1), norm: str | None = None) -> Tensor:
    """`hfftn` over two dims (default the last two)."""
    return hfftn(input, s, dim, norm)


@takes_out
def ihfft2(input, s=None, dim=(-2, -1), norm: str | None = None) -> Tensor:
    """`ihfftn` over two dims (default the last two)."""
    return ihfftn(input, s, dim, norm)


# ----------------------------------------------------------------------------- helpers
def _frequencies(steps: np.ndarray, n: int, d: float, dtype, requires_grad: bool) -> Tensor:
    """`steps` / (n * d) as a tensor of `dtype` (default the default float dtype), rounded as
    PyTorch's: the integer steps in that dtype times the scale in that dtype."""
    out_dtype = _dtypes.get_default_dtype() if dtype is None else _dtypes.as_dtype(dtype)
    values = steps.astype(out_dtype.jax) * np.asarray(1.0 / (n * d), out_dtype.jax)
    return tensor(values, dtype=out_dtype, requires_grad=requires_grad)


@takes_out
def fftfreq(
    n: int, d: float = 1.0, *, dtype=None, layout=None, device=None, requires_grad: bool = False
) -> Tensor:
    """The sample frequencies of an `fft` of length n with sample spacing d:
    [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (n * d).

    Example::

        >>> torch.fft.fftfreq(4)
        tensor([ 0.0000,  0.2500, -0.5000, -0.2500])
    """
    (n,) = new_shape((n,), "fftfreq")
    steps = np.concatenate([np.arange((n + 1) // 2), np.arange(-(n // 2), 0)])
    return _frequencies(steps, n, d, dtype, requires_grad)


@takes_out
def rfftfreq(
    n: int, d: float = 1.0, *, dtype=None, layout=None, device=None, requires_grad: bool = False
) -> Tensor:
    """The sample frequencies of an `rfft` of length n: [0, 1, ..., n // 2] / (n * d)."""
    (n,) = new_shape((n,), "rfftfreq")
    return _frequencies(np.arange(n // 2 + 1), n, d, dtype, requires_grad)


def _shifted(input, dim, fname: str, shift) -> Tensor:
    x = tensor_arg(input, f"fft_{fname}")
    if dim is None:
        dims = tuple(range(x.ndim))
    else:
        dims = tuple(normalize_dim(d, x.ndim) for d in ((dim,) if isinstance(dim, int) else dim))
    return roll(x, tuple(shift(x.shape[d]) for d in dims), dims)


def fftshift(input, dim=None) -> Tensor:
    """Move the zero frequency to the centre: a roll by size // 2 along `dim` (default all).

    Example::

        >>> torch.fft.fftshift(torch.fft.fftfreq(4))
        tensor([-0.5000, -0.2500,  0.0000,  0.2500])
    """
    return _shifted(input, dim, "fftshift", lambda size: size // 2)


def ifftshift(input, dim=None) -> Tensor:
    """The inverse of `fftshift`: a roll by (size + 1) // 2 along `dim` (default all)."""
    return _shifted(input, dim, "ifftshift", lambda size: (size + 1) // 2)


def __getattr__(name: str):
    """`torch.fft.X` that this module lacks: an AttributeError saying it is not supported."""
    _missing_attribute(__name__, name)
