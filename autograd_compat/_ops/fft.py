"""The transforms behind torch.fft: PyTorch's three FFT kernels `_fft_c2c` (complex to
complex), `_fft_r2c` (real to complex, one-sided or full) and `_fft_c2r` (complex to real),
each one registered op over a tuple of dims, a pure `jnp.fft` function; they are linear, so
nothing is saved. Here too: PyTorch's argument checks (`fft_input`, `norm_mode`, `one_dim`,
`shape_and_dims`), shared by the public functions in autograd_compat/fft.py, which compose
these ops with `conj` as PyTorch does (so their nodes are PyTorch's).

Normalisation uses PyTorch's (and jnp.fft's) names: "backward" scales the inverse by 1/n,
"forward" the forward transform, "ortho" both by 1/sqrt(n); `swap_norm` gives the mode of the
transform in the other direction (ifft(x) = conj(fft(conj(x))), with the scaling moved).
"""

from __future__ import annotations

import jax.numpy as jnp

from .._pure import dtypes as _dtypes
from .._pure.op import register
from .._pure.shapes import normalize_dim
from .._state.tensor import Tensor
from .._tape.args import floating, scalar_type_name, tensor_arg
from .._tape.record import apply

NORMS = ("backward", "ortho", "forward")


def _c2c(x, *, sizes, dims, norm, forward):
    if not dims:  # fftn(dim=()): the input as complex, as PyTorch's
        return x.astype(jnp.result_type(x.dtype, jnp.complex64))
    transform = jnp.fft.fftn if forward else jnp.fft.ifftn
    return transform(x, s=sizes, axes=dims, norm=norm)


def _r2c(x, *, sizes, dims, norm, onesided):
    transform = jnp.fft.rfftn if onesided else jnp.fft.fftn
    return transform(x, s=sizes, axes=dims, norm=norm)


def _c2r(x, *, sizes, dims, norm):
    return jnp.fft.irfftn(x, s=sizes, axes=dims, norm=norm)


_C2C = register("_fft_c2c", _c2c, node="FftC2CBackward0", saves="none")
_R2C = register("_fft_r2c", _r2c, node="FftR2CBackward0", saves="none")
_C2R = register("_fft_c2r", _c2r, node="FftC2RBackward0", saves="none")


def c2c(input: Tensor, sizes: tuple, dims: tuple, norm: str, forward: bool) -> Tensor:
    """The complex transform along `dims`, the input zero-padded or trimmed to `sizes`."""
    return apply(_C2C, input, sizes=sizes, dims=dims, norm=norm, forward=forward)


def r2c(input: Tensor, sizes: tuple, dims: tuple, norm: str, onesided: bool) -> Tensor:
    """The forward transform of a real input: the non-negative frequencies of the last of
    `dims` only when `onesided`."""
    return apply(_R2C, input, sizes=sizes, dims=dims, norm=norm, onesided=onesided)


def c2r(input: Tensor, sizes: tuple, dims: tuple, norm: str) -> Tensor:
    """The inverse of `r2c`: a real output of `sizes` along `dims` from the one-sided input."""
    return apply(_C2R, input, sizes=sizes, dims=dims, norm=norm)


# ----------------------------------------------------------------------------- arguments
def fft_input(input, fname: str, real: str | None = None) -> Tensor:
    """`input` as the transforms take it: integral and bool inputs as the default float dtype;
    half precision (unsupported on CPU) raises. `real`: the message's wording when the
    function takes real inputs only ("real", "real-valued"), None when complex is fine."""
    tensor_arg(input, f"fft_{fname}")
    d = input.dtype
    if d in (_dtypes.float16, _dtypes.bfloat16):
        raise RuntimeError(f"Unsupported dtype {scalar_type_name(d)}")
    if real is not None and d.is_complex:
        raise RuntimeError(f"{fname} expects a {real} input tensor, but got {scalar_type_name(d)}")
    return floating(input)


def norm_mode(norm: str | None) -> str:
    """`norm` checked: None means "backward"."""
    if norm is None:
        return "backward"
    if norm not in NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm


def swap_norm(norm: str) -> str:
    """The normalisation of the transform in the other direction with the same scaling."""
    return {"backward": "forward", "forward": "backward"}.get(norm, norm)


def wrap_dim(dim: int, ndim: int) -> int:
    """`dim` as an index; a 0-d input has no dim to transform (PyTorch's IndexError)."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return normalize_dim(dim, ndim)


def _check_points(n: int) -> None:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def one_dim(input: Tensor, n: int | None, dim: int) -> tuple[int, int]:
    """(signal length, dim) of a 1-D transform: `n`, or the input's size along `dim`."""
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d] if n is None else n
    _check_points(n)
    return n, d


def shape_and_dims(input: Tensor, s, dim) -> tuple[tuple, tuple]:
    """(signal sizes, dims) of an n-D transform, as PyTorch canonicalises them: `dim` wrapped
    and unique; `s` of dim's length (-1: the input's size), or the last len(s) dims without
    `dim`; neither: every dim."""
    ndim = input.ndim
    dims = None
    if dim is not None:
        dims = tuple(wrap_dim(d, ndim) for d in ((dim,) if isinstance(dim, int) else dim))
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is None:
        dims = tuple(range(ndim)) if dims is None else dims
        sizes = tuple(input.shape[d] for d in dims)
    else:
        s = tuple(s)
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(
                f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions."
            )
        dims = tuple(range(ndim - len(s), ndim)) if dims is None else dims
        sizes = tuple(input.shape[d] if n == -1 else n for d, n in zip(dims, s))
    for n in sizes:
        _check_points(n)
    return sizes, dims


def c2r_last_size(input: Tensor, last: int | None, dim: int) -> int:
    """The real output's length along the one-sided `dim`: `last` (None or -1: twice the
    input's size less one, 2 * (m - 1))."""
    size = 2 * (input.shape[dim] - 1) if last is None or last == -1 else last
    _check_points(size)
    return size
